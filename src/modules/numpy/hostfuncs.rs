//! The `numpy` functions on NumPy's own 64-bit host arrays.
//!
//! A `numpy` function call comes here first ([`dispatch`]): when an
//! argument is a float64 / int64 host array, or when the call builds an
//! array from Python data (`np.array([0.1, 0.2])`, `np.zeros(3)`,
//! `np.arange(5)`), NumPy computes in 64 bits, and so does this module, on
//! doubles with NumPy's kinds. Calls on JAX arrays alone keep the engine's
//! 32-bit path. A function with no 64-bit implementation here is refused by
//! name rather than computed in float32.

use crate::bail;
use crate::error::Result;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::host::{HostArray, Kind};
use super::ndarray::NdArray;
use super::scalar_types::kind_of_dtype;

/// A host result as NumPy returns it: a 0-d result is a NumPy scalar of
/// its kind, a float64 / int64 array a host ndarray, other kinds an
/// engine-backed ndarray.
pub fn wrap_host(h: HostArray) -> Result<Obj> {
    if h.shape.is_empty() {
        return Ok(super::scalar::NpScalar::obj(h.kind, h.data[0]));
    }
    if h.kind.is_host() {
        return Ok(Obj::lib(NdArray::host_array(h)));
    }
    Ok(super::ndarray::wrap(h.to_obj()?))
}

/// Which arrays an object holds: (a host array, an engine array).
fn holds(o: &Obj) -> (bool, bool) {
    match o {
        Obj::Array(_) => (false, true),
        Obj::Lib(_) => match o.downcast::<NdArray>() {
            Some(n) => (n.is_host(), !n.is_host()),
            None => (super::scalar::is_scalar(o), false),
        },
        Obj::List(l) => l.borrow().iter().map(holds).fold((false, false), or),
        Obj::Tuple(t) => t.iter().map(holds).fold((false, false), or),
        _ => (false, false),
    }
}

fn or(a: (bool, bool), b: (bool, bool)) -> (bool, bool) {
    (a.0 || b.0, a.1 || b.1)
}

/// Runs `numpy.NAME` on host arrays when NumPy would compute in 64 bits;
/// None leaves the call to the engine's path.
pub fn dispatch(interp: &mut Interp, name: &str, a: &Args) -> Option<Result<Obj>> {
    let short = name.strip_prefix("numpy.")?;
    // The predicates look at the objects as they are, host arrays too.
    if short.starts_with("random.")
        || short.starts_with("testing.")
        || matches!(short, "isscalar" | "iterable")
    {
        return None;
    }
    let (host, engine) = a
        .pos
        .iter()
        .chain(a.kw.iter().map(|(_, v)| v))
        .map(holds)
        .fold((false, false), or);
    if super::hostcreate::is_creation(short) {
        return super::hostcreate::create(short, a, host, engine);
    }
    if !host && (engine || !known(short)) {
        return None;
    }
    match call(interp, short, a) {
        Some(r) => Some(r),
        None if host => Some(Err(crate::err!(
            NotImplementedError,
            "not supported by shardlab yet: numpy.{short} on float64 arrays"
        ))),
        None => None,
    }
}

/// Whether `numpy.NAME` has a 64-bit implementation here.
fn known(short: &str) -> bool {
    super::hostmath::is_ufunc(short)
        || super::hostreduce::is_reduction(short)
        || super::hostmove::is_movement(short)
        || matches!(
            short,
            "dot"
                | "matmul"
                | "where"
                | "clip"
                | "allclose"
                | "isclose"
                | "array_equal"
                | "astype"
                | "round"
                | "around"
                | "shape"
                | "ndim"
                | "size"
                | "outer"
                | "result_type"
                | "convolve"
                | "unpackbits"
        )
}

/// The host implementation of `numpy.NAME`, if there is one.
fn call(interp: &mut Interp, short: &str, a: &Args) -> Option<Result<Obj>> {
    if super::hostmath::is_ufunc(short) {
        return Some(super::hostmath::ufunc(short, a));
    }
    if super::hostreduce::is_reduction(short) {
        return Some(super::hostreduce::reduce(short, a));
    }
    if super::hostmove::is_movement(short) {
        return Some(super::hostmove::movement(interp, short, a));
    }
    Some(match short {
        "dot" | "matmul" => super::hostmath::dot(a, short),
        "outer" => super::hostmath::outer(a),
        "where" => super::hostmath::where_(a),
        "clip" => super::hostmath::clip(a),
        "round" | "around" => super::hostmath::round(a),
        "allclose" | "isclose" => super::hostmath::isclose(a, short == "allclose"),
        "array_equal" => array_equal(a),
        "convolve" => super::hostmath::convolve(a),
        "astype" => astype(a),
        "shape" => arg(a, 0, "a")
            .map(|h| Obj::tuple(h.shape.iter().map(|&d| Obj::Int(d as i64)).collect())),
        "ndim" => arg(a, 0, "a").map(|h| Obj::Int(h.shape.len() as i64)),
        "size" => arg(a, 0, "a").map(|h| Obj::Int(h.size() as i64)),
        "result_type" => result_type(a),
        "unpackbits" => unpackbits(a),
        _ => return None,
    })
}

/// Positional argument `i` (or keyword `name`) as a host array.
pub fn arg(a: &Args, i: usize, name: &str) -> Result<HostArray> {
    HostArray::from_obj(&a.req(Some(i), name, "numpy")?)
}

/// The `axis` argument: None, an int or a tuple of ints, normalised.
pub fn axes(a: &Args, i: usize, ndim: usize) -> Result<Option<Vec<usize>>> {
    let items = match a.opt(Some(i), "axis") {
        None => return Ok(None),
        Some(o @ (Obj::Tuple(_) | Obj::List(_))) => crate::python::ops::iterate(&o)?,
        Some(o) => vec![o],
    };
    let mut out = vec![];
    for it in items {
        let k = to_int(&it)?;
        let n = ndim as i64;
        if k >= n || k < -n {
            bail!(
                ValueError,
                "axis {k} is out of bounds for array of dimension {ndim}"
            );
        }
        out.push(k.rem_euclid(n.max(1)) as usize);
    }
    Ok(Some(out))
}

/// The kind named by a `dtype` argument.
pub fn kind_arg(o: &Obj) -> Result<Kind> {
    match kind_of_dtype(o) {
        Some(k) => Ok(k),
        None => bail!(
            NotImplementedError,
            "not supported by shardlab yet: numpy arrays of dtype {}",
            crate::python::format::repr_of(o)
        ),
    }
}

fn astype(a: &Args) -> Result<Obj> {
    let x = arg(a, 0, "x")?;
    let k = kind_arg(&a.req(Some(1), "dtype", "astype")?)?;
    wrap_host(x.astype(k))
}

fn array_equal(a: &Args) -> Result<Obj> {
    let (x, y) = (arg(a, 0, "a1")?, arg(a, 1, "a2")?);
    Ok(Obj::Bool(x.shape == y.shape && x.data == y.data))
}

/// `np.result_type(*arrays_and_dtypes)`.
fn result_type(a: &Args) -> Result<Obj> {
    let mut kind: Option<Kind> = None;
    for o in &a.pos {
        let k = match kind_of_dtype(o) {
            Some(k) => k,
            None => HostArray::from_obj(o)?.kind,
        };
        kind = Some(kind.map_or(k, |p| p.promote(k)));
    }
    Ok(super::scalar_types::HostType::dtype_obj(
        kind.unwrap_or(Kind::Float64),
    ))
}

/// `np.unpackbits(a, axis)` of a uint8 array, most significant bit first.
fn unpackbits(a: &Args) -> Result<Obj> {
    let x = arg(a, 0, "a")?;
    if x.kind != Kind::UInt8 {
        bail!(
            TypeError,
            "Expected an input array of unsigned byte data type"
        );
    }
    let Some(axis) = axes(a, 1, x.shape.len())? else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: numpy.unpackbits without axis"
        );
    };
    let axis = axis[0];
    let outer: usize = x.shape[..axis].iter().product();
    let inner: usize = x.shape[axis + 1..].iter().product();
    let n = x.shape[axis];
    let mut data = vec![0.0; x.size() * 8];
    for o in 0..outer {
        for j in 0..n {
            for i in 0..inner {
                let byte = x.data[(o * n + j) * inner + i] as u8;
                for bit in 0..8 {
                    let at = (o * n * 8 + j * 8 + bit) * inner + i;
                    data[at] = ((byte >> (7 - bit)) & 1) as f64;
                }
            }
        }
    }
    let mut shape = x.shape.clone();
    shape[axis] = n * 8;
    wrap_host(HostArray {
        shape,
        data,
        kind: Kind::UInt8,
    })
}
