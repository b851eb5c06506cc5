//! `jnp.frombuffer(buffer, dtype=float, count=-1, offset=0)`: the bytes of
//! a `bytes` object or an `array.array` read as items of `dtype` in the
//! machine's (little-endian) order, then made a JAX array as
//! `jnp.asarray` makes NumPy's result one (float64 becomes float32, int64
//! int32). Half-precision and complex items are refused by name.

use crate::bail;
use crate::error::Result;
use crate::python::builtins::to_int;
use crate::python::format::str_of;
use crate::python::interp::Interp;
use crate::python::ops::getattr;
use crate::python::value::{Args, Obj};

use super::composed::call;

/// How one item's bytes read as a Python number.
type Reader = fn(&[u8]) -> Obj;

/// How one item is stored: its size and how its bytes read as a number.
fn item_reader(name: &str) -> Option<(usize, Reader)> {
    fn le<const N: usize>(b: &[u8]) -> [u8; N] {
        let mut out = [0; N];
        out.copy_from_slice(&b[..N]);
        out
    }
    Some(match name {
        "bool" => (1, |b| Obj::Bool(b[0] != 0)),
        "uint8" => (1, |b| Obj::Int(b[0] as i64)),
        "int8" => (1, |b| Obj::Int(b[0] as i8 as i64)),
        "int16" => (2, |b| Obj::Int(i16::from_le_bytes(le(b)) as i64)),
        "uint16" => (2, |b| Obj::Int(u16::from_le_bytes(le(b)) as i64)),
        "int32" => (4, |b| Obj::Int(i32::from_le_bytes(le(b)) as i64)),
        "uint32" => (4, |b| Obj::Int(u32::from_le_bytes(le(b)) as i64)),
        "int64" => (8, |b| Obj::Int(i64::from_le_bytes(le(b)))),
        "float32" => (4, |b| Obj::Float(f32::from_le_bytes(le(b)) as f64)),
        "float64" => (8, |b| Obj::Float(f64::from_le_bytes(le(b)))),
        _ => return None,
    })
}

/// `frombuffer(buffer, dtype=float, count=-1, offset=0)`.
pub(super) fn frombuffer(interp: &mut Interp, a: Args) -> Result<Obj> {
    let buffer = a.req(Some(0), "buffer", "frombuffer")?;
    let Some(data) = crate::python::bytes::as_bytes(&buffer)
        .or_else(|| crate::modules::std::array::buffer_bytes(&buffer))
    else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.frombuffer of a {}",
            buffer.type_name()
        )
    };
    let dtype = a.opt(Some(1), "dtype").unwrap_or(Obj::str("float64"));
    let numpy = super::super::import(interp, "numpy")?;
    let np_dtype = getattr(interp, &numpy, "dtype")?;
    let dtype = interp.call(&np_dtype, Args::new(vec![dtype]))?;
    let name = str_of(&getattr(interp, &dtype, "name")?);
    let Some((size, read)) = item_reader(&name) else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.frombuffer with dtype {name}"
        )
    };
    let count = a
        .opt(Some(2), "count")
        .map(|o| to_int(&o))
        .transpose()?
        .unwrap_or(-1);
    let offset = a
        .opt(Some(3), "offset")
        .map(|o| to_int(&o))
        .transpose()?
        .unwrap_or(0);
    let len = data.len() as i64;
    if offset < 0 || offset > len {
        bail!(
            ValueError,
            "offset must be non-negative and no greater than buffer length ({len})"
        );
    }
    let left = (len - offset) as usize;
    let n = match count {
        c if c < 0 && left % size != 0 => {
            bail!(ValueError, "buffer size must be a multiple of element size")
        }
        c if c < 0 => left / size,
        c if c as usize * size > left => bail!(ValueError, "buffer is smaller than requested size"),
        c => c as usize,
    };
    let start = offset as usize;
    let items: Vec<Obj> = (0..n)
        .map(|k| read(&data[start + k * size..start + (k + 1) * size]))
        .collect();
    let target = match name.as_str() {
        "float64" => "float32",
        "int64" => "int32",
        other => other,
    };
    let kw = vec![("dtype", Obj::str(target))];
    call(interp, "asarray", vec![Obj::list(items)], kw)
}
