//! `jnp.cov`, `jnp.corrcoef`, `jnp.histogram` and
//! `jnp.histogram_bin_edges`, composed of other jnp functions in JAX's
//! order, so that rounding matches: the covariance is the product of the
//! centred data with its transpose divided by the degrees of freedom; a
//! histogram counts each value in the bin `searchsorted(edges, x, 'right')`
//! names (the last edge closing the last bin) with a scatter-add of the
//! weights.

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::compose::{flag, opt_int};
use super::composed::{call, item, jnp, method, slice};

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("cov", cov);
    b.func("corrcoef", corrcoef);
    b.func("histogram", histogram);
    b.func("histogram_bin_edges", |i, a| {
        let x = super::composed::arraylike_arg(&a, 0, "a", "histogram_bin_edges")?;
        let bins = a.get(Some(1), "bins").unwrap_or(Obj::Int(10));
        bin_edges(i, x, bins, a.opt(Some(2), "range"))
    });
}

fn shape(o: &Obj) -> Result<Vec<usize>> {
    Ok(to_value(o)?.shape())
}

fn transpose(interp: &mut Interp, x: Obj) -> Result<Obj> {
    jnp(interp, "transpose", vec![x])
}

/// `x` promoted to an inexact dtype (jointly with `y` when given).
fn inexact_args(m: Obj, y: Option<Obj>) -> Result<(Obj, Option<Obj>)> {
    let to =
        |v: crate::trace::Value| -> Result<Obj> { Ok(Obj::Array(super::compose::to_inexact(&v)?)) };
    match y {
        None => Ok((to(to_value(&m)?)?, None)),
        Some(y) => {
            let (m, y) = super::compose::promoted(&m, &y)?;
            Ok((to(m)?, Some(to(y)?)))
        }
    }
}

/// Refuses a `dtype` that is not inexact, with JAX's message.
fn check_dtype(interp: &mut Interp, dtype: &Option<Obj>, func: &str) -> Result<()> {
    if let Some(d) = dtype {
        if !super::dtype_of(d)?.is_inexact() {
            let text = interp.repr(d)?;
            bail!(
                ValueError,
                "{func}: dtype must be a subclass of float or complex; got dtype={text}"
            );
        }
    }
    Ok(())
}

/// `cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,
/// aweights=None, dtype=None)`.
fn cov(interp: &mut Interp, a: Args) -> Result<Obj> {
    let m = super::composed::arraylike_arg(&a, 0, "m", "cov")?;
    let y = a.opt(Some(1), "y");
    let rowvar = flag(&a, Some(2), "rowvar", true)?;
    let bias = flag(&a, Some(3), "bias", false)?;
    let ddof = opt_int(&a, Some(4), "ddof")?;
    let fweights = a.opt(Some(5), "fweights");
    let aweights = a.opt(Some(6), "aweights");
    let dtype = a.opt(Some(7), "dtype");
    let (m, y) = inexact_args(m, y)?;
    if let Some(y) = &y {
        if shape(y)?.len() > 2 {
            bail!(ValueError, "y has more than 2 dimensions");
        }
    }
    let m_ndim = shape(&m)?.len();
    if m_ndim > 2 {
        bail!(ValueError, "m has more than 2 dimensions");
    }
    check_dtype(interp, &dtype, "cov")?;
    let mut x = jnp(interp, "atleast_2d", vec![m])?;
    if !rowvar && m_ndim != 1 {
        x = transpose(interp, x)?;
    }
    if shape(&x)?[0] == 0 {
        let empty = jnp(interp, "array", vec![Obj::list(vec![])])?;
        return method(interp, &empty, "reshape", vec![Obj::Int(0), Obj::Int(0)]);
    }
    if let Some(y) = y {
        let mut y = jnp(interp, "atleast_2d", vec![y])?;
        if !rowvar && shape(&y)?[0] != 1 {
            y = transpose(interp, y)?;
        }
        x = jnp(
            interp,
            "concatenate",
            vec![Obj::tuple(vec![x, y]), Obj::Int(0)],
        )?;
    }
    let (vars, samples) = (shape(&x)?[0], shape(&x)?[1]);
    if samples == 0 {
        let dims = match vars {
            1 => vec![],
            n => vec![Obj::Int(n as i64); 2],
        };
        let dt = Obj::DType(to_value(&x)?.dtype());
        let kw = vec![("dtype", dt)];
        return call(
            interp,
            "full",
            vec![Obj::tuple(dims), Obj::Float(f64::NAN)],
            kw,
        );
    }
    let ddof = ddof.unwrap_or(if bias { 0 } else { 1 });
    let weights = Weights::of(interp, fweights, aweights, samples)?;
    covariance(interp, x, weights, ddof, dtype)
}

/// `cov`'s frequency and analytic weights, checked.
struct Weights {
    w: Option<Obj>,
    aweights: Option<Obj>,
}

impl Weights {
    fn of(interp: &mut Interp, f: Option<Obj>, a: Option<Obj>, n: usize) -> Result<Weights> {
        let mut w = None;
        for (o, name) in [(&f, "fweights"), (&a, "aweights")] {
            let Some(o) = o else { continue };
            if matches!(o, Obj::List(_) | Obj::Tuple(_)) {
                bail!(
                    TypeError,
                    "cov requires ndarray or scalar arguments, got <class '{}'> at position 0.",
                    o.type_name()
                );
            }
            let s = shape(o)?;
            if s.len() > 1 {
                bail!(RuntimeError, "cannot handle multidimensional {name}");
            }
            if s.first() != Some(&n) {
                bail!(RuntimeError, "incompatible numbers of samples and {name}");
            }
            if name == "fweights" && !to_value(o)?.dtype().is_int() {
                bail!(TypeError, "fweights must be integer.");
            }
            let abs = jnp(interp, "abs", vec![o.clone()])?;
            w = Some(match w {
                None => abs,
                Some(fw) => jnp(interp, "multiply", vec![fw, abs])?,
            });
        }
        let aweights = match a {
            Some(a) => Some(jnp(interp, "abs", vec![a])?),
            None => None,
        };
        Ok(Weights { w, aweights })
    }
}

/// The weighted covariance of the rows of `x`.
fn covariance(
    interp: &mut Interp,
    mut x: Obj,
    weights: Weights,
    ddof: i64,
    dtype: Option<Obj>,
) -> Result<Obj> {
    let mut w = weights.w;
    if let Some(d) = &dtype {
        x = method(interp, &x, "astype", vec![d.clone()])?;
        if let Some(wv) = w {
            w = Some(method(interp, &wv, "astype", vec![d.clone()])?);
        }
    }
    let kw = vec![
        ("axis", Obj::Int(1)),
        ("weights", w.clone().unwrap_or(Obj::None)),
        ("returned", Obj::Bool(true)),
    ];
    let out = call(interp, "average", vec![x.clone()], kw)?;
    let (avg, w_sum) = super::composed::pair(&out)?;
    let w_sum = item(interp, &w_sum, Obj::Int(0))?;
    let samples = shape(&x)?[1] as i64;
    let fact = match (&w, &weights.aweights) {
        (None, _) => Obj::Int(samples - ddof),
        (Some(_), _) if ddof == 0 => w_sum,
        (Some(_), None) => jnp(interp, "subtract", vec![w_sum, Obj::Int(ddof)])?,
        (Some(wv), Some(aw)) => {
            let prod = jnp(interp, "multiply", vec![wv.clone(), aw.clone()])?;
            let total = jnp(interp, "sum", vec![prod])?;
            let scaled = jnp(interp, "multiply", vec![Obj::Int(ddof), total])?;
            let ratio = jnp(interp, "divide", vec![scaled, w_sum.clone()])?;
            jnp(interp, "subtract", vec![w_sum, ratio])?
        }
    };
    let column = Obj::tuple(vec![slice(None, None), Obj::None]);
    let avg = item(interp, &avg, column)?;
    let x = jnp(interp, "subtract", vec![x, avg])?;
    let xw = match &w {
        None => x.clone(),
        Some(wv) => {
            let row = item(interp, wv, Obj::tuple(vec![Obj::None, slice(None, None)]))?;
            jnp(interp, "multiply", vec![x.clone(), row])?
        }
    };
    let xt = transpose(interp, xw)?;
    let xt = jnp(interp, "conj", vec![xt])?;
    let product = jnp(interp, "dot", vec![x, xt])?;
    let c = jnp(interp, "true_divide", vec![product, fact])?;
    jnp(interp, "squeeze", vec![c])
}

/// `corrcoef(x, y=None, rowvar=True, dtype=None)`: the covariance scaled
/// by the standard deviations, clipped to [-1, 1].
fn corrcoef(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = super::composed::arraylike_arg(&a, 0, "x", "corrcoef")?;
    let y = a.get(Some(1), "y").unwrap_or(Obj::None);
    let rowvar = a.get(Some(2), "rowvar").unwrap_or(Obj::Bool(true));
    let dtype = a.opt(Some(3), "dtype");
    check_dtype(interp, &dtype, "corrcoef")?;
    let kw = vec![("dtype", dtype.unwrap_or(Obj::None))];
    let c = call(interp, "cov", vec![x, y, rowvar], kw)?;
    if shape(&c)?.is_empty() {
        return jnp(interp, "divide", vec![c.clone(), c]);
    }
    let d = jnp(interp, "diag", vec![c.clone()])?;
    let re = jnp(interp, "real", vec![d])?;
    let sd = jnp(interp, "sqrt", vec![re])?;
    let dt = Obj::DType(to_value(&c)?.dtype());
    let sd = method(interp, &sd, "astype", vec![dt])?;
    let col = item(interp, &sd, Obj::tuple(vec![slice(None, None), Obj::None]))?;
    let row = item(interp, &sd, Obj::tuple(vec![Obj::None, slice(None, None)]))?;
    let c = jnp(interp, "divide", vec![c, col])?;
    let c = jnp(interp, "divide", vec![c, row])?;
    let complex = to_value(&c)?.dtype() == DType::C64;
    let re = jnp(interp, "real", vec![c.clone()])?;
    let re = jnp(interp, "clip", vec![re, Obj::Int(-1), Obj::Int(1)])?;
    if !complex {
        return Ok(re);
    }
    let im = jnp(interp, "imag", vec![c])?;
    let im = jnp(interp, "clip", vec![im, Obj::Int(-1), Obj::Int(1)])?;
    let lax_complex = super::composed::lib_function(interp, "jax.lax", "complex")?;
    interp.call(&lax_complex, Args::new(vec![re, im]))
}

/// The bin edges: `bins` itself when it is 1-D, else `bins` equal bins
/// over `range` (the data's extent by default; widened by 1/2 on each side
/// when empty).
pub(super) fn bin_edges(interp: &mut Interp, x: Obj, bins: Obj, range: Option<Obj>) -> Result<Obj> {
    if matches!(bins, Obj::Str(_)) {
        bail!(
            NotImplementedError,
            "string values for `bins` not implemented."
        );
    }
    let x = jnp(interp, "asarray", vec![x])?;
    let dtype = super::compose::to_inexact(&to_value(&x)?)?.dtype();
    let dt = Obj::DType(dtype);
    if !matches!(bins, Obj::Int(_)) && to_value(&bins)?.ndim() == 1 {
        return call(interp, "asarray", vec![bins], vec![("dtype", dt)]);
    }
    let n = crate::python::builtins::to_int(&bins)?;
    let range = match range {
        Some(r) => call(interp, "asarray", vec![r], vec![("dtype", dt.clone())])?,
        None => {
            let lo = method(interp, &x, "min", vec![])?;
            let hi = method(interp, &x, "max", vec![])?;
            let both = Obj::list(vec![lo, hi]);
            let stacked = jnp(interp, "stack", vec![both])?;
            method(interp, &stacked, "astype", vec![dt.clone()])?
        }
    };
    if shape(&range)? != [2] {
        let text = interp.repr(&range)?;
        bail!(
            ValueError,
            "`range` must be either None or a sequence of scalars, got {text}"
        );
    }
    let flat = jnp(interp, "ptp", vec![range.clone()])?;
    let flat = jnp(interp, "equal", vec![flat, Obj::Int(0)])?;
    let lo = item(interp, &range, Obj::Int(0))?;
    let hi = item(interp, &range, Obj::Int(1))?;
    let lo_wide = jnp(interp, "subtract", vec![lo.clone(), Obj::Float(0.5)])?;
    let hi_wide = jnp(interp, "add", vec![hi.clone(), Obj::Float(0.5)])?;
    let lo = jnp(interp, "where", vec![flat.clone(), lo_wide, lo])?;
    let hi = jnp(interp, "where", vec![flat, hi_wide, hi])?;
    call(
        interp,
        "linspace",
        vec![lo, hi, Obj::Int(n + 1)],
        vec![("dtype", dt)],
    )
}

/// `histogram(a, bins=10, range=None, weights=None, density=None)`:
/// `(counts, bin_edges)`.
fn histogram(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = super::composed::arraylike_arg(&a, 0, "a", "histogram")?;
    let bins = a.get(Some(1), "bins").unwrap_or(Obj::Int(10));
    let range = a.opt(Some(2), "range");
    let density = flag(&a, Some(4), "density", false)?;
    if let Obj::Str(s) = &bins {
        bail!(
            TypeError,
            "asarray: expected ArrayLike, got {s} of type <class 'str'>."
        );
    }
    let (x, weights) = match a.opt(Some(3), "weights") {
        None => {
            let (x, _) = inexact_args(x, None)?;
            let w = jnp(interp, "ones_like", vec![x.clone()])?;
            (x, w)
        }
        Some(w) => {
            if shape(&x)? != shape(&w)? {
                bail!(ValueError, "weights should have the same shape as a.");
            }
            let (x, w) = inexact_args(x, Some(w))?;
            (x, w.unwrap_or(Obj::None))
        }
    };
    let edges = bin_edges(interp, x.clone(), bins, range)?;
    let kw = vec![("side", Obj::str("right"))];
    let idx = call(interp, "searchsorted", vec![edges.clone(), x.clone()], kw)?;
    let n = shape(&edges)?[0];
    let last = item(interp, &edges, Obj::Int(-1))?;
    let at_last = jnp(interp, "equal", vec![x, last])?;
    let idx = jnp(interp, "where", vec![at_last, Obj::Int(n as i64 - 1), idx])?;
    let wdt = Obj::DType(to_value(&weights)?.dtype());
    let zeros = jnp(interp, "zeros", vec![Obj::Int(n as i64), wdt])?;
    let at = crate::python::ops::getattr(interp, &zeros, "at")?;
    let at = item(interp, &at, idx)?;
    let counts = method(interp, &at, "add", vec![weights])?;
    let mut counts = item(interp, &counts, slice(Some(1), None))?;
    if density {
        let widths = jnp(interp, "diff", vec![edges.clone()])?;
        let total = method(interp, &counts, "sum", vec![])?;
        counts = jnp(interp, "divide", vec![counts, widths])?;
        counts = jnp(interp, "divide", vec![counts, total])?;
    }
    Ok(Obj::tuple(vec![counts, edges]))
}
