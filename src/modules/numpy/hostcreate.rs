//! NumPy's creation functions on the host: `array`, `asarray`, `zeros`,
//! `ones`, `empty`, `full`, the `*_like` functions, `arange`, `linspace`,
//! `eye` and `identity`, with NumPy's default dtypes (float64 for floats,
//! int64 for Python ints) and its arithmetic for the values.

use crate::error::Result;
use crate::python::array::check_size;
use crate::python::builtins::to_int;
use crate::python::value::{Args, Obj};

use super::host::{HostArray, Kind};
use super::hostfuncs::{kind_arg, wrap_host};
use super::ndarray::NdArray;
use super::shape_of;

/// Whether `numpy.NAME` builds an array.
pub fn is_creation(short: &str) -> bool {
    matches!(
        short,
        "array"
            | "asarray"
            | "zeros"
            | "ones"
            | "empty"
            | "full"
            | "zeros_like"
            | "ones_like"
            | "full_like"
            | "empty_like"
            | "arange"
            | "linspace"
            | "eye"
            | "identity"
    )
}

/// `numpy.NAME(...)` on the host, or None to leave it to the engine's path
/// (JAX arrays converted to their own 32-bit dtypes, arrays of devices).
pub fn create(short: &str, a: &Args, host: bool, engine: bool) -> Option<Result<Obj>> {
    let dtype = match a.opt(None, "dtype") {
        Some(d) => match kind_arg(&d) {
            Ok(k) => Some(k),
            Err(e) => return Some(Err(e)),
        },
        None => None,
    };
    // Of a JAX array, NumPy keeps the array's own dtype unless a 64-bit
    // one is asked for.
    if engine && !host && !dtype.is_some_and(Kind::is_host) {
        return None;
    }
    let r = match short {
        "array" | "asarray" => return from_data(a, short, dtype),
        "zeros" | "empty" => filled(a, 0.0, short, dtype),
        "ones" => filled(a, 1.0, short, dtype),
        "full" => full(a, dtype),
        "zeros_like" | "empty_like" => like(a, Some(0.0), dtype),
        "ones_like" => like(a, Some(1.0), dtype),
        "full_like" => like(a, None, dtype),
        "arange" => arange(a, dtype),
        "linspace" => linspace(a, dtype),
        _ => eye(a, short, dtype),
    };
    Some(r)
}

/// `np.array(data)` / `np.asarray(data)`; None for data that is not
/// numbers (arrays of devices).
fn from_data(a: &Args, short: &str, dtype: Option<Kind>) -> Option<Result<Obj>> {
    let o = a.opt(Some(0), "object")?;
    if short == "asarray" && dtype.is_none() {
        if let Some(n) = o.downcast::<NdArray>() {
            if n.is_host() {
                return Some(Ok(o.clone()));
            }
        }
    }
    let h = HostArray::from_obj(&o).ok()?;
    if let Some(k @ Kind::UInt8) = dtype {
        // NumPy casts arrays but refuses Python ints out of the range.
        let python = !super::ndarray::is_ndarray(&o) && !matches!(o, Obj::Array(_));
        if let Some(v) = h.data.iter().find(|&&v| python && k.cast(v) != v) {
            return Some(Err(crate::err!(
                OverflowError,
                "Python integer {} out of bounds for uint8",
                *v as i64
            )));
        }
    }
    let h = match dtype {
        Some(k) => h.astype(k),
        None => h,
    };
    // `np.array(2.5)` is a 0-d array, not a scalar.
    if h.shape.is_empty() {
        return Some(Ok(Obj::lib(NdArray::host_array(h))));
    }
    Some(wrap_host(h))
}

fn filled(a: &Args, value: f64, short: &str, dtype: Option<Kind>) -> Result<Obj> {
    let shape = shape_of(&a.req(Some(0), "shape", short)?)?;
    let dtype = match dtype {
        Some(k) => k,
        None => match a.opt(Some(1), "dtype") {
            Some(d) => kind_arg(&d)?,
            None => Kind::Float64,
        },
    };
    make(shape, value, dtype)
}

fn make(shape: Vec<usize>, value: f64, kind: Kind) -> Result<Obj> {
    let n: usize = shape.iter().product();
    check_size(n)?;
    wrap_host(HostArray {
        shape,
        data: vec![kind.cast(value); n],
        kind,
    })
}

fn full(a: &Args, dtype: Option<Kind>) -> Result<Obj> {
    let shape = shape_of(&a.req(Some(0), "shape", "full")?)?;
    let fill = HostArray::from_obj(&a.req(Some(1), "fill_value", "full")?)?;
    let kind = dtype.unwrap_or(fill.kind);
    let target = HostArray {
        data: vec![0.0; shape.iter().product()],
        shape,
        kind,
    };
    check_size(target.size())?;
    wrap_host(super::hostmove::broadcast_into(&target, &fill)?)
}

fn like(a: &Args, value: Option<f64>, dtype: Option<Kind>) -> Result<Obj> {
    let x = HostArray::from_obj(&a.req(Some(0), "a", "full_like")?)?;
    let kind = dtype.unwrap_or(x.kind);
    match value {
        Some(v) => make(x.shape, v, kind),
        None => {
            let fill = HostArray::from_obj(&a.req(Some(1), "fill_value", "full_like")?)?;
            let target = HostArray {
                data: vec![0.0; x.size()],
                shape: x.shape,
                kind,
            };
            wrap_host(super::hostmove::broadcast_into(&target, &fill)?)
        }
    }
}

/// `np.arange`: NumPy fills `start + i * delta`, with `delta` the
/// difference of the first two values.
fn arange(a: &Args, dtype: Option<Kind>) -> Result<Obj> {
    let nums: Vec<Obj> = a.pos.iter().take(3).cloned().collect();
    let parts: Vec<HostArray> = nums
        .iter()
        .map(HostArray::from_obj)
        .collect::<Result<_>>()?;
    let mut kind = Kind::Int64;
    for p in &parts {
        kind = kind.promote(p.kind);
    }
    // NumPy takes only scalars (or arrays of one element) as the ends.
    if parts.iter().any(|p| p.data.len() != 1) {
        crate::bail!(
            TypeError,
            "arange: scalar arguments expected instead of a sequence or array"
        );
    }
    let v: Vec<f64> = parts.iter().map(|p| p.data[0]).collect();
    let (start, stop, step) = match v[..] {
        [stop] => (0.0, stop, 1.0),
        [start, stop] => (start, stop, 1.0),
        [start, stop, step] => (start, stop, step),
        _ => crate::bail!(TypeError, "arange() requires stop to be specified."),
    };
    if step == 0.0 {
        crate::bail!(ZeroDivisionError, "division by zero");
    }
    let n = ((stop - start) / step).ceil().max(0.0) as usize;
    check_size(n)?;
    let delta = (start + step) - start;
    let kind = dtype.unwrap_or(kind);
    let data = (0..n)
        .map(|i| kind.cast(start + i as f64 * delta))
        .collect();
    wrap_host(HostArray {
        shape: vec![n],
        data,
        kind,
    })
}

/// `np.linspace`: `start + i * step`, the last value `stop` itself.
fn linspace(a: &Args, dtype: Option<Kind>) -> Result<Obj> {
    let start = HostArray::from_obj(&a.req(Some(0), "start", "linspace")?)?;
    let stop = HostArray::from_obj(&a.req(Some(1), "stop", "linspace")?)?;
    if !start.shape.is_empty() || !stop.shape.is_empty() {
        crate::bail!(
            NotImplementedError,
            "not supported by shardlab yet: numpy.linspace of arrays"
        );
    }
    let num = a.get(Some(2), "num").map(|o| to_int(&o)).transpose()?;
    let num = num.unwrap_or(50);
    if num < 0 {
        crate::bail!(
            ValueError,
            "Number of samples, {num}, must be non-negative."
        );
    }
    let endpoint = match a.get(Some(3), "endpoint") {
        Some(o) => crate::python::ops::truthy(&o, "endpoint")?,
        None => true,
    };
    let n = num as usize;
    check_size(n)?;
    let (s, e) = (start.data[0], stop.data[0]);
    let div = if endpoint { n.saturating_sub(1) } else { n } as f64;
    let delta = e - s;
    let step = delta / div;
    let mut data: Vec<f64> = (0..n)
        .map(|i| {
            if step == 0.0 {
                i as f64 / div * delta + s
            } else {
                i as f64 * step + s
            }
        })
        .collect();
    if endpoint && n > 1 {
        data[n - 1] = e;
    }
    let kind = dtype.unwrap_or(Kind::Float64);
    wrap_host(HostArray {
        shape: vec![n],
        data: data.into_iter().map(|x| kind.cast(x)).collect(),
        kind,
    })
}

fn eye(a: &Args, short: &str, dtype: Option<Kind>) -> Result<Obj> {
    let n = to_int(&a.req(Some(0), "N", short)?)?.max(0) as usize;
    let (m, k) = if short == "eye" {
        let m = a.opt(Some(1), "M").map(|o| to_int(&o)).transpose()?;
        let k = a.get(Some(2), "k").map(|o| to_int(&o)).transpose()?;
        (m.map_or(n, |m| m.max(0) as usize), k.unwrap_or(0))
    } else {
        (n, 0)
    };
    check_size(n.saturating_mul(m))?;
    let kind = dtype.unwrap_or(Kind::Float64);
    let data = (0..n * m)
        .map(|i| ((i % m) as i64 - (i / m) as i64 == k) as i64 as f64)
        .collect();
    wrap_host(HostArray {
        shape: vec![n, m],
        data,
        kind,
    })
}
