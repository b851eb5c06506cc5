//! Sampled functions, composed of other jnp functions in JAX's order:
//! `gradient` (central differences inside, one-sided at the edges, for
//! uniform or given spacings), `interp` (piecewise-linear interpolation,
//! periodic when asked), `unwrap` (phase jumps folded back by the
//! cumulative correction), `cross` (2- and 3-vectors along an axis) and the
//! geometric ranges `logspace` and `geomspace` (powers of a `linspace`).

use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::compose::flag;
use super::composed::{call, in_dim, item, jnp, method, slice};

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("gradient", gradient);
    b.func("interp", interp_fn);
    b.func("unwrap", unwrap);
    b.func("cross", cross);
    b.func("logspace", logspace);
    b.func("geomspace", geomspace);
}

fn shape(o: &Obj) -> Result<Vec<usize>> {
    Ok(to_value(o)?.shape())
}

fn inexact(o: Obj) -> Result<Obj> {
    Ok(Obj::Array(super::compose::to_inexact(&to_value(&o)?)?))
}

fn sub(i: &mut Interp, x: Obj, y: Obj) -> Result<Obj> {
    jnp(i, "subtract", vec![x, y])
}

fn mul(i: &mut Interp, x: Obj, y: Obj) -> Result<Obj> {
    jnp(i, "multiply", vec![x, y])
}

fn div(i: &mut Interp, x: Obj, y: Obj) -> Result<Obj> {
    jnp(i, "divide", vec![x, y])
}

/// `gradient(f, *varargs, axis=None, edge_order=None)`.
fn gradient(interp: &mut Interp, a: Args) -> Result<Obj> {
    if a.opt(None, "edge_order").is_some() {
        bail!(
            NotImplementedError,
            "The 'edge_order' argument to jnp.gradient is not supported."
        );
    }
    let f = a.req(Some(0), "f", "gradient")?;
    let mut all = vec![f];
    all.extend(a.pos.iter().skip(1).cloned());
    let all = promote_inexact(all)?;
    let (x, spacing) = (all[0].clone(), all[1..].to_vec());
    let ndim = shape(&x)?.len();
    let axes: Vec<usize> = match a.opt(None, "axis") {
        None => (0..ndim).collect(),
        Some(o @ (Obj::Tuple(_) | Obj::List(_))) => crate::python::ops::iterate(&o)?
            .iter()
            .map(|v| crate::ops::norm_axis(to_int(v)?, ndim))
            .collect::<Result<_>>()?,
        Some(o) => vec![crate::ops::norm_axis(to_int(&o)?, ndim)?],
    };
    if axes.is_empty() {
        return Ok(Obj::list(vec![]));
    }
    let dims = shape(&x)?;
    if axes.iter().map(|&i| dims[i]).min().unwrap_or(2) < 2 {
        bail!(
            ValueError,
            "Shape of array too small to calculate a numerical gradient, at least 2 elements are required."
        );
    }
    let dx: Vec<Obj> = match spacing.len() {
        0 => vec![Obj::Float(1.0); axes.len()],
        1 => vec![spacing[0].clone(); axes.len()],
        n if n == axes.len() => spacing,
        n => {
            let axis = a.opt(None, "axis").unwrap_or(Obj::None);
            let text = interp.repr(&axis)?;
            bail!(
                TypeError,
                "Invalid number of spacing arguments {n} for axis={text}"
            )
        }
    };
    let grads = axes
        .iter()
        .zip(dx)
        .map(|(&ax, h)| gradient_along(interp, &x, h, ax))
        .collect::<Result<Vec<_>>>()?;
    match grads.len() {
        1 => Ok(grads[0].clone()),
        _ => Ok(Obj::list(grads)),
    }
}

/// The operands promoted to one inexact dtype (`promote_dtypes_inexact`),
/// weak when all of them are.
fn promote_inexact(xs: Vec<Obj>) -> Result<Vec<Obj>> {
    let vs: Vec<crate::trace::Value> = xs.iter().map(to_value).collect::<Result<_>>()?;
    let Some(first) = vs.first() else {
        return Ok(vec![]);
    };
    let (mut dt, mut weak) = (first.aval().dtype, first.aval().weak);
    for v in &vs[1..] {
        (dt, weak) = dt.join(weak, v.aval().dtype, v.aval().weak);
    }
    vs.iter()
        .map(|v| {
            let v = crate::ops::convert_weak(v, dt, weak)?;
            Ok(Obj::Array(super::compose::to_inexact(&v)?))
        })
        .collect()
}

/// The gradient of `x` along `axis` with spacing `h` (a scalar or the
/// sample coordinates).
fn gradient_along(interp: &mut Interp, x: &Obj, h: Obj, axis: usize) -> Result<Obj> {
    let i = interp;
    let s = |i: &mut Interp, lo, hi| in_dim(i, x, lo, hi, axis);
    let (a0, a1) = (s(i, Some(1), Some(2))?, s(i, Some(0), Some(1))?);
    let mut upper = sub(i, a0, a1)?;
    let (b0, b1) = (s(i, Some(-1), None)?, s(i, Some(-2), Some(-1))?);
    let mut lower = sub(i, b0, b1)?;
    let inner = match shape(&h)?.len() {
        0 => {
            let (c0, c1) = (s(i, Some(2), None)?, s(i, None, Some(-2))?);
            let d = sub(i, c0, c1)?;
            let half = mul(i, d, Obj::Float(0.5))?;
            lower = div(i, lower, h.clone())?;
            upper = div(i, upper, h.clone())?;
            div(i, half, h)?
        }
        1 => {
            let n = shape(x)?[axis];
            if shape(&h)?[0] != n {
                bail!(
                    ValueError,
                    "Spacing arrays must have the same length as the dimension along which the gradient is calculated."
                );
            }
            let mut dims = vec![Obj::Int(1); shape(x)?.len()];
            dims[axis] = Obj::Int(n as i64);
            let h = method(i, &h, "reshape", dims)?;
            let t = |i: &mut Interp, lo, hi| in_dim(i, &h, lo, hi, axis);
            let (h0, h1) = (t(i, Some(1), Some(2))?, t(i, Some(0), Some(1))?);
            let du = sub(i, h0, h1)?;
            upper = div(i, upper, du)?;
            let (h0, h1) = (t(i, Some(-1), None)?, t(i, Some(-2), Some(-1))?);
            let dl = sub(i, h0, h1)?;
            lower = div(i, lower, dl)?;
            let (h0, h1) = (t(i, Some(1), Some(-1))?, t(i, Some(0), Some(-2))?);
            let dx1 = sub(i, h0, h1)?;
            let (h0, h1) = (t(i, Some(2), None)?, t(i, Some(1), Some(-1))?);
            let dx2 = sub(i, h0, h1)?;
            nonuniform(i, x, axis, dx1, dx2)?
        }
        _ => bail!(ValueError, "Spacing arrays must be 1D arrays or scalars."),
    };
    let parts = Obj::tuple(vec![upper, inner, lower]);
    jnp(i, "concatenate", vec![parts, Obj::Int(axis as i64)])
}

/// The second-order central difference for uneven spacings `dx1`, `dx2`.
fn nonuniform(i: &mut Interp, x: &Obj, axis: usize, dx1: Obj, dx2: Obj) -> Result<Obj> {
    let sum = jnp(i, "add", vec![dx1.clone(), dx2.clone()])?;
    let neg = jnp(i, "negative", vec![dx2.clone()])?;
    let d = mul(i, dx1.clone(), sum.clone())?;
    let ca = div(i, neg, d)?;
    let diff = sub(i, dx2.clone(), dx1.clone())?;
    let d = mul(i, dx1.clone(), dx2.clone())?;
    let cb = div(i, diff, d)?;
    let d = mul(i, dx2, sum)?;
    let cc = div(i, dx1, d)?;
    let x0 = in_dim(i, x, None, Some(-2), axis)?;
    let x1 = in_dim(i, x, Some(1), Some(-1), axis)?;
    let x2 = in_dim(i, x, Some(2), None, axis)?;
    let t0 = mul(i, ca, x0)?;
    let t1 = mul(i, cb, x1)?;
    let t2 = mul(i, cc, x2)?;
    let s = jnp(i, "add", vec![t0, t1])?;
    jnp(i, "add", vec![s, t2])
}

/// `interp(x, xp, fp, left=None, right=None, period=None)`.
fn interp_fn(interp: &mut Interp, a: Args) -> Result<Obj> {
    let names = ["x", "xp", "fp"];
    let mut ops = vec![];
    for (k, name) in names.iter().enumerate() {
        let o = a.req(Some(k), name, "interp")?;
        if matches!(o, Obj::List(_) | Obj::Tuple(_)) {
            bail!(
                TypeError,
                "interp requires ndarray or scalar arguments, got <class '{}'> at position {k}.",
                o.type_name()
            );
        }
        ops.push(o);
    }
    if shape(&ops[1])? != shape(&ops[2])? || shape(&ops[1])?.len() != 1 {
        bail!(
            ValueError,
            "xp and fp must be one-dimensional arrays of equal size"
        );
    }
    let pair = promote_inexact(vec![ops[0].clone(), ops[1].clone()])?;
    let (mut x, mut xp) = (pair[0].clone(), pair[1].clone());
    let mut fp = inexact(ops[2].clone())?;
    let left = side(a.opt(Some(3), "left"), "left")?;
    let right = side(a.opt(Some(4), "right"), "right")?;
    if to_value(&x)?.dtype() == crate::array::DType::C64 {
        bail!(ValueError, "jnp.interp: complex x values not supported.");
    }
    let period = a.opt(Some(5), "period");
    if let Some(p) = &period {
        (x, xp, fp) = periodic(interp, p, x, xp, fp)?;
    }
    let i = interp;
    let n = shape(&xp)?[0] as i64;
    let kw = vec![("side", Obj::str("right"))];
    let idx = call(i, "searchsorted", vec![xp.clone(), x.clone()], kw)?;
    let idx = jnp(i, "clip", vec![idx, Obj::Int(1), Obj::Int(n - 1)])?;
    let prev = sub(i, idx.clone(), Obj::Int(1))?;
    let (f1, f0) = (item(i, &fp, idx.clone())?, item(i, &fp, prev.clone())?);
    let df = sub(i, f1, f0.clone())?;
    let (x1, x0) = (item(i, &xp, idx)?, item(i, &xp, prev)?);
    let dx = sub(i, x1, x0.clone())?;
    let delta = sub(i, x.clone(), x0)?;
    // NumPy's spacing of float32's epsilon: 2**-46.
    let eps = Obj::Float(2f64.powi(-46));
    let adx = jnp(i, "abs", vec![dx.clone()])?;
    let dx0 = jnp(i, "less_equal", vec![adx, eps])?;
    let safe = jnp(i, "where", vec![dx0.clone(), Obj::Int(1), dx])?;
    let step = div(i, delta, safe)?;
    let step = mul(i, step, df)?;
    let line = jnp(i, "add", vec![f0.clone(), step])?;
    let mut f = jnp(i, "where", vec![dx0, f0, line])?;
    if period.is_none() {
        for (bound, at, cmp) in [(left, 0, "less"), (right, -1, "greater")] {
            let Side::Value(v) = bound else { continue };
            let v = match v {
                Some(v) => v,
                None => item(i, &fp, Obj::Int(at))?,
            };
            let edge = item(i, &xp, Obj::Int(at))?;
            let out = jnp(i, cmp, vec![x.clone(), edge])?;
            f = jnp(i, "where", vec![out, v, f])?;
        }
    }
    Ok(f)
}

/// What lies beyond an end of `xp`: a value (the end's `fp` when None),
/// or the line extrapolated.
enum Side {
    Value(Option<Obj>),
    Extrapolate,
}

fn side(o: Option<Obj>, name: &str) -> Result<Side> {
    match o {
        Some(Obj::Str(s)) if &*s == "extrapolate" => Ok(Side::Extrapolate),
        Some(Obj::Str(s)) => bail!(
            ValueError,
            "the only valid string value of `{name}` is 'extrapolate', but got: {}",
            crate::python::format::repr_of(&Obj::Str(s))
        ),
        other => Ok(Side::Value(other)),
    }
}

/// `x` and `xp` reduced modulo the period, `xp` sorted and extended by one
/// period-shifted point on each side.
fn periodic(interp: &mut Interp, p: &Obj, x: Obj, xp: Obj, fp: Obj) -> Result<(Obj, Obj, Obj)> {
    let i = interp;
    if !shape(p)?.is_empty() {
        let text = i.repr(p)?;
        bail!(ValueError, "period must be a scalar; got {text}");
    }
    let p = jnp(i, "abs", vec![p.clone()])?;
    let x = jnp(i, "remainder", vec![x, p.clone()])?;
    let xp = jnp(i, "remainder", vec![xp, p.clone()])?;
    let order = call(
        i,
        "argsort",
        vec![xp.clone()],
        vec![("stable", Obj::Bool(true))],
    )?;
    let xp = item(i, &xp, order.clone())?;
    let fp = item(i, &fp, order)?;
    let last = item(i, &xp, slice(Some(-1), None))?;
    let first = item(i, &xp, slice(None, Some(1)))?;
    let before = sub(i, last, p.clone())?;
    let after = jnp(i, "add", vec![first, p])?;
    let xp = jnp(i, "concatenate", vec![Obj::list(vec![before, xp, after])])?;
    let fl = item(i, &fp, slice(Some(-1), None))?;
    let ff = item(i, &fp, slice(None, Some(1)))?;
    let fp = jnp(i, "concatenate", vec![Obj::list(vec![fl, fp, ff])])?;
    Ok((x, xp, fp))
}

/// `unwrap(p, discont=None, axis=-1, period=2*pi)`.
fn unwrap(interp: &mut Interp, a: Args) -> Result<Obj> {
    let i = interp;
    let p = a.req(Some(0), "p", "unwrap")?;
    if matches!(p, Obj::List(_) | Obj::Tuple(_)) {
        bail!(
            TypeError,
            "unwrap requires ndarray or scalar arguments, got <class '{}'> at position 0.",
            p.type_name()
        );
    }
    let period = a
        .opt(Some(3), "period")
        .unwrap_or(Obj::Float(2.0 * std::f64::consts::PI));
    let (p, period) = super::compose::promoted(&p, &period)?;
    let (p, period) = (Obj::Array(p), Obj::Array(period));
    let dtype = to_value(&p)?.dtype();
    if dtype == crate::array::DType::C64 {
        bail!(ValueError, "jnp.unwrap does not support complex inputs.");
    }
    let ndim = shape(&p)?.len();
    let axis = to_int(&a.opt(Some(2), "axis").unwrap_or(Obj::Int(-1)))?;
    let axis = crate::ops::norm_axis(axis, ndim)?;
    if shape(&p)?[axis] == 0 {
        return Ok(p);
    }
    let interval = match dtype.is_int() {
        true => jnp(i, "floor_divide", vec![period.clone(), Obj::Int(2)])?,
        false => div(i, period.clone(), Obj::Int(2))?,
    };
    let discont = match a.opt(Some(1), "discont") {
        Some(d) => d,
        None => div(i, period.clone(), Obj::Int(2))?,
    };
    let dd = call(
        i,
        "diff",
        vec![p.clone()],
        vec![("axis", Obj::Int(axis as i64))],
    )?;
    let shifted = jnp(i, "add", vec![dd.clone(), interval.clone()])?;
    let m = jnp(i, "remainder", vec![shifted, period])?;
    let ddmod = sub(i, m, interval.clone())?;
    let neg = jnp(i, "negative", vec![interval.clone()])?;
    let at_neg = jnp(i, "equal", vec![ddmod.clone(), neg])?;
    let up = jnp(i, "greater", vec![dd.clone(), Obj::Int(0)])?;
    let both = jnp(i, "logical_and", vec![at_neg, up])?;
    let ddmod = jnp(i, "where", vec![both, interval, ddmod])?;
    let small = jnp(i, "abs", vec![dd.clone()])?;
    let small = jnp(i, "less", vec![small, discont])?;
    let fix = sub(i, ddmod, dd)?;
    let correct = jnp(i, "where", vec![small, Obj::Int(0), fix])?;
    let head = in_dim(i, &p, Some(0), Some(1), axis)?;
    let tail = in_dim(i, &p, Some(1), None, axis)?;
    let cum = call(
        i,
        "cumsum",
        vec![correct],
        vec![("axis", Obj::Int(axis as i64))],
    )?;
    let tail = jnp(i, "add", vec![tail, cum])?;
    jnp(
        i,
        "concatenate",
        vec![Obj::tuple(vec![head, tail]), Obj::Int(axis as i64)],
    )
}

/// `cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None)`.
fn cross(interp: &mut Interp, a: Args) -> Result<Obj> {
    let i = interp;
    let mut vs = vec![];
    for (k, name) in ["a", "b"].iter().enumerate() {
        let o = a.req(Some(k), name, "cross")?;
        if matches!(o, Obj::List(_) | Obj::Tuple(_)) {
            bail!(
                TypeError,
                "cross requires ndarray or scalar arguments, got <class '{}'> at position {k}.",
                o.type_name()
            );
        }
        vs.push(o);
    }
    let axis_of = |k: usize, name: &str| -> Result<Obj> {
        match a.opt(None, "axis") {
            Some(ax) => Ok(ax),
            None => Ok(a.opt(Some(k), name).unwrap_or(Obj::Int(-1))),
        }
    };
    let (aa, ab, ac) = (
        axis_of(2, "axisa")?,
        axis_of(3, "axisb")?,
        axis_of(4, "axisc")?,
    );
    let x = jnp(i, "moveaxis", vec![vs[0].clone(), aa, Obj::Int(-1)])?;
    let y = jnp(i, "moveaxis", vec![vs[1].clone(), ab, Obj::Int(-1)])?;
    let (nx, ny) = (last_dim(&x)?, last_dim(&y)?);
    if !matches!(nx, 2 | 3) || !matches!(ny, 2 | 3) {
        bail!(
            ValueError,
            "Dimension must be either 2 or 3 for cross product"
        );
    }
    let part = |i: &mut Interp, v: &Obj, k: i64, n: usize| -> Result<Obj> {
        let first = item(i, v, Obj::tuple(vec![Obj::Ellipsis, Obj::Int(0)]))?;
        match k < n as i64 {
            true => item(i, v, Obj::tuple(vec![Obj::Ellipsis, Obj::Int(k)])),
            false => jnp(i, "zeros_like", vec![first]),
        }
    };
    let (x0, x1, x2) = (
        part(i, &x, 0, nx)?,
        part(i, &x, 1, nx)?,
        part(i, &x, 2, nx)?,
    );
    let (y0, y1, y2) = (
        part(i, &y, 0, ny)?,
        part(i, &y, 1, ny)?,
        part(i, &y, 2, ny)?,
    );
    let term = |i: &mut Interp, p: &Obj, q: &Obj, r: &Obj, s: &Obj| -> Result<Obj> {
        let l = mul(i, p.clone(), q.clone())?;
        let rr = mul(i, r.clone(), s.clone())?;
        sub(i, l, rr)
    };
    if nx == 2 && ny == 2 {
        return term(i, &x0, &y1, &x1, &y0);
    }
    let c0 = term(i, &x1, &y2, &x2, &y1)?;
    let c1 = term(i, &x2, &y0, &x0, &y2)?;
    let c2 = term(i, &x0, &y1, &x1, &y0)?;
    let c = jnp(i, "array", vec![Obj::list(vec![c0, c1, c2])])?;
    jnp(i, "moveaxis", vec![c, Obj::Int(0), ac])
}

fn last_dim(o: &Obj) -> Result<usize> {
    Ok(shape(o)?.last().copied().unwrap_or(0))
}

/// `logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None,
/// axis=0)`: `base ** linspace(start, stop)`.
fn logspace(interp: &mut Interp, a: Args) -> Result<Obj> {
    let start = a.req(Some(0), "start", "logspace")?;
    let stop = a.req(Some(1), "stop", "logspace")?;
    let num = a.get(Some(2), "num").unwrap_or(Obj::Int(50));
    let endpoint = flag(&a, Some(3), "endpoint", true)?;
    let base = a.get(Some(4), "base").unwrap_or(Obj::Float(10.0));
    let dtype = a.opt(Some(5), "dtype");
    let axis = a.get(Some(6), "axis").unwrap_or(Obj::Int(0));
    logspace_of(interp, start, stop, num, endpoint, base, dtype, axis)
}

/// The result dtype (given, or the inexact dtype of start and stop) and
/// start and stop converted to its inexact form.
fn space_operands(start: Obj, stop: Obj, dtype: Option<Obj>) -> Result<(Obj, Obj, Obj)> {
    let (s, e) = super::compose::promoted(&start, &stop)?;
    let dt = match dtype {
        Some(d) => super::dtype_of(&d)?,
        None => super::compose::to_inexact(&s)?.dtype(),
    };
    let compute = match dt.is_inexact() {
        true => dt,
        false => crate::array::DType::F32,
    };
    let s = crate::ops::convert(&s, compute)?;
    let e = crate::ops::convert(&e, compute)?;
    Ok((Obj::Array(s), Obj::Array(e), Obj::DType(dt)))
}

#[allow(clippy::too_many_arguments)]
fn logspace_of(
    interp: &mut Interp,
    start: Obj,
    stop: Obj,
    num: Obj,
    endpoint: bool,
    base: Obj,
    dtype: Option<Obj>,
    axis: Obj,
) -> Result<Obj> {
    let (s, e, dt) = space_operands(start, stop, dtype)?;
    let kw = vec![("endpoint", Obj::Bool(endpoint)), ("axis", axis)];
    let lin = call(interp, "linspace", vec![s, e, num], kw)?;
    let out = jnp(interp, "power", vec![base, lin])?;
    method(interp, &out, "astype", vec![dt])
}

/// `geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0)`:
/// a logspace between the logarithms of the magnitudes, with start's sign.
fn geomspace(interp: &mut Interp, a: Args) -> Result<Obj> {
    let i = interp;
    let start = a.req(Some(0), "start", "geomspace")?;
    let stop = a.req(Some(1), "stop", "geomspace")?;
    let num = a.get(Some(2), "num").unwrap_or(Obj::Int(50));
    let endpoint = flag(&a, Some(3), "endpoint", true)?;
    let dtype = a.opt(Some(4), "dtype");
    let axis = to_int(&a.get(Some(5), "axis").unwrap_or(Obj::Int(0)))?;
    let (s, e, dt) = space_operands(start, stop, dtype)?;
    let compute = Obj::DType(to_value(&s)?.dtype());
    let sign = jnp(i, "sign", vec![s.clone()])?;
    let ls = div(i, s, sign.clone())?;
    let ls = jnp(i, "log10", vec![ls])?;
    let le = div(i, e, sign.clone())?;
    let le = jnp(i, "log10", vec![le])?;
    let res = logspace_of(
        i,
        ls,
        le,
        num,
        endpoint,
        Obj::Float(10.0),
        Some(compute),
        Obj::Int(0),
    )?;
    let res = mul(i, sign, res)?;
    let ndim = shape(&res)?.len();
    let axis = crate::ops::norm_axis(axis, ndim)?;
    let res = match axis {
        0 => res,
        _ => jnp(i, "moveaxis", vec![res, Obj::Int(0), Obj::Int(axis as i64)])?,
    };
    method(i, &res, "astype", vec![dt])
}
