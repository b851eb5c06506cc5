//! `jnp.packbits`, `jnp.unpackbits` and `jnp.bitwise_count`, written with
//! jnp's own functions as JAX writes them, so they trace, batch and stage
//! the operations JAX does: a bit is a shift of one per position (most
//! significant first for `bitorder='big'`), packing sums the shifted bits of
//! each group of eight along the last axis (the packed axis swapped there
//! and padded with zeros), unpacking masks each byte with the eight bits.

use crate::bail;
use crate::error::Result;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::composed::{arraylike_arg, call, jnp};

/// Adds the three functions.
pub(super) fn register(b: &mut Builder) {
    b.func("packbits", packbits);
    b.func("unpackbits", unpackbits);
    b.func("bitwise_count", bitwise_count);
}

/// The bit weights of one byte in `bitorder`: `1 << k` for little-endian,
/// reversed for big-endian (`shifts` gives the shift amounts instead).
fn bit_order(interp: &mut Interp, a: &Args, shifts: bool) -> Result<Obj> {
    let order = match a.opt(None, "bitorder") {
        None => "big".to_string(),
        Some(Obj::Str(s)) if matches!(&*s, "big" | "little") => s.to_string(),
        Some(_) => bail!(ValueError, "'order' must be either 'little' or 'big'"),
    };
    let k = call(
        interp,
        "arange",
        vec![Obj::Int(8)],
        vec![("dtype", Obj::str("uint8"))],
    )?;
    let bits = if shifts {
        k
    } else {
        let one = jnp(interp, "asarray", vec![Obj::Int(1)])?;
        jnp(interp, "left_shift", vec![one, k])?
    };
    if order == "big" {
        return jnp(interp, "flip", vec![bits]);
    }
    Ok(bits)
}

/// The array flattened when `axis` is None, and the axis to work along.
fn along(interp: &mut Interp, x: Obj, a: &Args, pos: usize) -> Result<(Obj, Obj)> {
    match a.opt(Some(pos), "axis") {
        None | Some(Obj::None) => Ok((jnp(interp, "ravel", vec![x])?, Obj::Int(0))),
        Some(axis) => Ok((x, Obj::Int(to_int(&axis)?))),
    }
}

/// The shape of an array as numbers.
fn shape(interp: &mut Interp, x: &Obj) -> Result<Vec<i64>> {
    let s = crate::python::ops::getattr(interp, x, "shape")?;
    crate::python::ops::iterate(&s)?
        .iter()
        .map(to_int)
        .collect()
}

fn ints(v: &[i64]) -> Obj {
    Obj::tuple(v.iter().map(|&d| Obj::Int(d)).collect())
}

/// `jnp.packbits(a, axis=None, bitorder='big')`: uint8 bytes of the
/// nonzero-ness of `a`'s elements, eight along `axis` to a byte.
fn packbits(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = jnp(
        interp,
        "asarray",
        vec![arraylike_arg(&a, 0, "a", "packbits")?],
    )?;
    let d = super::dtypes::dtype_of(&crate::python::ops::getattr(interp, &x, "dtype")?)?;
    if !(d.is_int() || d == crate::array::DType::Bool) {
        bail!(
            TypeError,
            "Expected an input array of integer or boolean data type"
        );
    }
    let bits = bit_order(interp, &a, true)?;
    let nonzero = jnp(interp, "not_equal", vec![x, Obj::Int(0)])?;
    let x = call(interp, "astype", vec![nonzero, Obj::str("uint8")], vec![])?;
    let (x, axis) = along(interp, x, &a, 1)?;
    let x = jnp(interp, "swapaxes", vec![x, axis.clone(), Obj::Int(-1)])?;
    let mut s = shape(interp, &x)?;
    let n = s.pop().unwrap_or(0);
    let width = vec![Obj::tuple(vec![Obj::Int(0), Obj::Int(0)]); s.len()];
    let mut pads = width;
    pads.push(Obj::tuple(vec![Obj::Int(0), Obj::Int((8 - n % 8) % 8)]));
    let x = jnp(interp, "pad", vec![x, Obj::list(pads)])?;
    s.extend([(n + 7) / 8, 8]);
    let x = jnp(interp, "reshape", vec![x, ints(&s)])?;
    let shifted = jnp(interp, "left_shift", vec![x, bits])?;
    let sums = jnp(interp, "sum", vec![shifted, Obj::Int(-1)])?;
    let packed = call(interp, "astype", vec![sums, Obj::str("uint8")], vec![])?;
    jnp(interp, "swapaxes", vec![packed, axis, Obj::Int(-1)])
}

/// `jnp.unpackbits(a, axis=None, count=None, bitorder='big')`: the bits of
/// uint8 bytes, eight per byte along `axis`, cut or zero-padded to `count`.
fn unpackbits(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = jnp(
        interp,
        "asarray",
        vec![arraylike_arg(&a, 0, "a", "unpackbits")?],
    )?;
    let d = super::dtypes::dtype_of(&crate::python::ops::getattr(interp, &x, "dtype")?)?;
    if d != crate::array::DType::U8 {
        bail!(
            TypeError,
            "Expected an input array of unsigned byte data type"
        );
    }
    let bits = bit_order(interp, &a, false)?;
    let (x, axis) = along(interp, x, &a, 1)?;
    let x = jnp(interp, "swapaxes", vec![x, axis.clone(), Obj::Int(-1)])?;
    let mut s = shape(interp, &x)?;
    let bytes = jnp(interp, "expand_dims", vec![x, Obj::Int(-1)])?;
    let masked = jnp(interp, "bitwise_and", vec![bytes, bits])?;
    let set = jnp(interp, "greater", vec![masked, Obj::Int(0)])?;
    let set = call(interp, "astype", vec![set, Obj::str("uint8")], vec![])?;
    let n = s.pop().unwrap_or(0) * 8;
    s.push(n);
    let mut out = jnp(interp, "reshape", vec![set, ints(&s)])?;
    if let Some(c) = a.opt(Some(2), "count").filter(|c| !matches!(c, Obj::None)) {
        out = with_count(interp, out, &s, to_int(&c)?)?;
    }
    jnp(interp, "swapaxes", vec![out, axis, Obj::Int(-1)])
}

/// The unpacked bits cut to `count` along the last axis (from the end when
/// negative, as a slice), or padded with zeros past their number.
fn with_count(interp: &mut Interp, bits: Obj, s: &[i64], count: i64) -> Result<Obj> {
    let n = s.last().copied().unwrap_or(0);
    if count > n {
        let mut pads = vec![Obj::tuple(vec![Obj::Int(0), Obj::Int(0)]); s.len() - 1];
        pads.push(Obj::tuple(vec![Obj::Int(0), Obj::Int(count - n)]));
        return jnp(interp, "pad", vec![bits, Obj::list(pads)]);
    }
    let mut key = vec![Obj::Ellipsis];
    key.push(Obj::Slice(std::rc::Rc::new([
        Obj::None,
        Obj::Int(count),
        Obj::None,
    ])));
    crate::python::ops::getitem(interp, &bits, &Obj::tuple(key))
}

/// `jnp.bitwise_count(x)`: the number of set bits of `|x|`, as uint8. A
/// bool array counts as integers, as JAX's numeric promotion makes it; a
/// float array is `population_count`'s TypeError.
fn bitwise_count(interp: &mut Interp, a: Args) -> Result<Obj> {
    let mut x = jnp(
        interp,
        "asarray",
        vec![arraylike_arg(&a, 0, "x", "bitwise_count")?],
    )?;
    let d = super::dtypes::dtype_of(&crate::python::ops::getattr(interp, &x, "dtype")?)?;
    if d == crate::array::DType::Bool {
        x = call(interp, "astype", vec![x, Obj::str("int32")], vec![])?;
    }
    let magnitude = jnp(interp, "abs", vec![x])?;
    let lax = super::composed::lib_function(interp, "jax.lax", "population_count")?;
    let counts = interp.call(&lax, Args::new(vec![magnitude]))?;
    call(interp, "astype", vec![counts, Obj::str("uint8")], vec![])
}
