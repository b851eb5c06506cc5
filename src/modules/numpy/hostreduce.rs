//! Reductions of host arrays in double precision: `sum`, `prod`, `mean`,
//! `max`, `min`, `std`, `var`, `argmax`, `argmin`, `any`, `all` and the
//! running `cumsum` / `cumprod`.
//!
//! Sums over the innermost axes use NumPy's pairwise summation (blocks of
//! eight partial sums), sums over outer axes add row after row, as NumPy
//! does, so the last bits agree with NumPy's.

use crate::bail;
use crate::error::Result;
use crate::python::value::{Args, Obj};

use super::host::{HostArray, Kind};
use super::hostfuncs::{arg, axes, wrap_host};

/// Whether `numpy.NAME` is a reduction implemented here.
pub fn is_reduction(short: &str) -> bool {
    matches!(
        short,
        "sum"
            | "prod"
            | "mean"
            | "max"
            | "min"
            | "amax"
            | "amin"
            | "std"
            | "var"
            | "argmax"
            | "argmin"
            | "any"
            | "all"
            | "cumsum"
            | "cumprod"
    )
}

/// NumPy's pairwise sum of `a`.
fn pairwise(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        return a.iter().fold(-0.0, |s, &x| s + x);
    }
    if n <= 128 {
        let mut r = [0.0; 8];
        r.copy_from_slice(&a[..8]);
        let whole = n - n % 8;
        for chunk in a[8..whole].chunks(8) {
            for (acc, &x) in r.iter_mut().zip(chunk) {
                *acc += x;
            }
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &a[whole..] {
            res += x;
        }
        return res;
    }
    let mut n2 = n / 2;
    n2 -= n2 % 8;
    pairwise(&a[..n2]) + pairwise(&a[n2..])
}

/// The groups of values each output element reduces, and the output shape.
struct Groups {
    shape: Vec<usize>,
    groups: Vec<Vec<f64>>,
    /// The reduced axes are the innermost ones (NumPy sums them pairwise).
    inner: bool,
}

fn groups(h: &HostArray, axes: Option<Vec<usize>>, keepdims: bool) -> Groups {
    let nd = h.shape.len();
    let axes = axes.unwrap_or_else(|| (0..nd).collect());
    let kept: Vec<usize> = (0..nd).filter(|d| !axes.contains(d)).collect();
    let out_n: usize = kept.iter().map(|&d| h.shape[d]).product();
    let mut groups = vec![vec![]; out_n];
    for (i, &v) in h.data.iter().enumerate() {
        let mut rem = i;
        let mut idx = vec![0; nd];
        for d in (0..nd).rev() {
            idx[d] = rem % h.shape[d].max(1);
            rem /= h.shape[d].max(1);
        }
        let o = kept.iter().fold(0, |o, &d| o * h.shape[d] + idx[d]);
        groups[o].push(v);
    }
    let shape = (0..nd)
        .filter_map(|d| match (axes.contains(&d), keepdims) {
            (false, _) => Some(h.shape[d]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    let inner = axes.iter().all(|&d| d >= nd - axes.len());
    Groups {
        shape,
        groups,
        inner,
    }
}

fn sum(g: &[f64], inner: bool) -> f64 {
    if inner {
        pairwise(g)
    } else {
        g.iter().fold(0.0, |s, &x| s + x)
    }
}

/// What one output element is made of its group.
type Reducer<'a> = Box<dyn Fn(&[f64]) -> Result<f64> + 'a>;

/// `numpy.NAME(a, axis=None, ...)`.
pub fn reduce(short: &str, a: &Args) -> Result<Obj> {
    let x = arg(a, 0, "a")?;
    if short == "cumsum" || short == "cumprod" {
        return cumulative(short, &x, a);
    }
    let ax = axes(a, 1, x.shape.len())?;
    let keep = match a.opt(None, "keepdims") {
        Some(o) => crate::python::ops::truthy(&o, "keepdims")?,
        None => false,
    };
    if a.opt(None, "dtype").is_some() || a.opt(None, "out").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: numpy.{short} with dtype or out on float64 arrays"
        );
    }
    let ddof = match a.opt(None, "ddof") {
        Some(o) => crate::python::builtins::to_int(&o)? as f64,
        None => 0.0,
    };
    let g = groups(&x, ax, keep);
    let int = match x.kind {
        Kind::Float32 | Kind::Float64 => x.kind,
        _ => Kind::Int64,
    };
    let float = if x.kind.is_float() {
        x.kind
    } else {
        Kind::Float64
    };
    let inner = g.inner;
    let (kind, f): (Kind, Reducer) = match short {
        "sum" => (int, Box::new(move |v| Ok(sum(v, inner)))),
        "prod" => (int, Box::new(|v| Ok(v.iter().product()))),
        "mean" => (float, Box::new(move |v| Ok(sum(v, inner) / v.len() as f64))),
        "var" | "std" => {
            let sqrt = short == "std";
            (float, Box::new(move |v| Ok(variance(v, inner, ddof, sqrt))))
        }
        "max" | "amax" | "min" | "amin" => {
            let max = short.ends_with("max");
            (x.kind, Box::new(move |v| extreme(v, max, short)))
        }
        "argmax" | "argmin" => {
            let max = short == "argmax";
            (Kind::Int64, Box::new(move |v| arg_extreme(v, max, short)))
        }
        "any" => (
            Kind::Bool,
            Box::new(|v| Ok(v.iter().any(|&b| b != 0.0) as i64 as f64)),
        ),
        _ => (
            Kind::Bool,
            Box::new(|v| Ok(v.iter().all(|&b| b != 0.0) as i64 as f64)),
        ),
    };
    let data = g
        .groups
        .iter()
        .map(|v| f(v).map(|r| kind.cast(r)))
        .collect::<Result<_>>()?;
    wrap_host(HostArray {
        shape: g.shape.clone(),
        data,
        kind,
    })
}

/// NumPy's `var`: the mean of the squared deviations from the mean.
fn variance(v: &[f64], inner: bool, ddof: f64, sqrt: bool) -> f64 {
    let n = v.len() as f64;
    let m = sum(v, inner) / n;
    let sq: Vec<f64> = v.iter().map(|&x| (x - m) * (x - m)).collect();
    let var = sum(&sq, inner) / (n - ddof).max(0.0);
    if sqrt {
        var.sqrt()
    } else {
        var
    }
}

fn extreme(v: &[f64], max: bool, name: &str) -> Result<f64> {
    let Some(&first) = v.first() else {
        bail!(
            ValueError,
            "zero-size array to reduction operation {} which has no identity",
            if name.ends_with("max") {
                "maximum"
            } else {
                "minimum"
            }
        );
    };
    Ok(v.iter().fold(first, |m, &x| {
        if m.is_nan() || x.is_nan() {
            f64::NAN
        } else if (max && x > m) || (!max && x < m) {
            x
        } else {
            m
        }
    }))
}

fn arg_extreme(v: &[f64], max: bool, name: &str) -> Result<f64> {
    if v.is_empty() {
        bail!(ValueError, "attempt to get {name} of an empty sequence");
    }
    if let Some(i) = v.iter().position(|x| x.is_nan()) {
        return Ok(i as f64);
    }
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if (max && x > v[best]) || (!max && x < v[best]) {
            best = i;
        }
    }
    Ok(best as f64)
}

/// `np.cumsum` / `np.cumprod` (over the flattened array without an axis).
fn cumulative(short: &str, x: &HostArray, a: &Args) -> Result<Obj> {
    let kind = match x.kind {
        Kind::Float32 | Kind::Float64 => x.kind,
        _ => Kind::Int64,
    };
    let ax = axes(a, 1, x.shape.len())?;
    let (shape, axis) = match ax.as_deref() {
        None => (vec![x.size()], 0),
        Some([d]) => (x.shape.clone(), *d),
        Some(_) => bail!(TypeError, "an integer is required for the axis"),
    };
    let n = shape.get(axis).copied().unwrap_or(1);
    let inner: usize = shape[axis + 1..].iter().product();
    let mut data = x.data.clone();
    for i in 0..data.len() {
        let pos = (i / inner.max(1)) % n.max(1);
        if pos > 0 {
            let prev = data[i - inner];
            data[i] = if short == "cumsum" {
                prev + data[i]
            } else {
                prev * data[i]
            };
        }
        data[i] = kind.cast(data[i]);
    }
    wrap_host(HostArray { shape, data, kind })
}
