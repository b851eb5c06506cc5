//! Elementwise functions JAX composes from other jnp functions: `sinc`,
//! `copysign`, `fmod`, `gcd`, `lcm`, `nextafter` and `pow` (the array
//! API's name of `power`).
//!
//! `sinc` keeps JAX's derivative rule at zero (the Maclaurin series of
//! sin(x)/x, as a `custom_jvp`), so every derivative order at 0 is JAX's.
//! `fmod` is the remainder of the magnitudes given the dividend's sign,
//! which is exactly C's truncated remainder; integer division by zero
//! divides by one instead, as JAX's does. `gcd` runs Euclid's algorithm
//! in a `while_loop` over the whole array until every divisor is zero.

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::ops::getattr;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::composed::{call, jnp as f, lib_function, pair};

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("sinc", sinc);
    b.func("copysign", copysign);
    b.func("fmod", fmod);
    b.func("gcd", |i, a| {
        let (x, y) = integer_pair(i, &a, "gcd")?;
        gcd(i, x, y)
    });
    b.func("lcm", lcm);
    b.func("nextafter", nextafter);
    b.func("pow", |i, a| {
        let x = a.req(Some(0), "x1", "pow")?;
        let y = a.req(Some(1), "x2", "pow")?;
        call(i, "power", vec![x, y], vec![])
    });
}

/// The argument promoted to an inexact dtype (`promote_args_inexact`).
fn inexact(x: Obj) -> Result<Obj> {
    let v = crate::python::array::to_value(&x)?;
    Ok(Obj::Array(super::compose::to_inexact(&v)?))
}

/// Two arguments promoted together to an inexact dtype.
fn inexact_pair(a: &Args, func: &str) -> Result<(Obj, Obj)> {
    let x = a.req(Some(0), "x1", func)?;
    let y = a.req(Some(1), "x2", func)?;
    let (x, y) = super::compose::promoted(&x, &y)?;
    Ok((inexact(Obj::Array(x))?, inexact(Obj::Array(y))?))
}

/// `sinc(x)`: sin(pi x) / (pi x), 1 at 0.
fn sinc(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact(a.req(Some(0), "x", "sinc")?)?;
    let zero = f(interp, "zeros_like", vec![x.clone()])?;
    let eq_zero = f(interp, "equal", vec![x.clone(), zero])?;
    let pi_x = f(
        interp,
        "multiply",
        vec![Obj::Float(std::f64::consts::PI), x.clone()],
    )?;
    let one = f(interp, "ones_like", vec![x])?;
    let safe = f(interp, "where", vec![eq_zero.clone(), one, pi_x.clone()])?;
    let sin = f(interp, "sin", vec![safe.clone()])?;
    let ratio = f(interp, "divide", vec![sin, safe])?;
    let series = maclaurin(interp)?;
    let at_zero = interp.call(&series, Args::new(vec![Obj::Int(0), pi_x]))?;
    f(interp, "where", vec![eq_zero, at_zero, ratio])
}

/// The k-th derivative of sin(x)/x at 0, shaped like `x`, as a
/// `custom_jvp` whose derivative is the next term.
fn maclaurin(interp: &mut Interp) -> Result<Obj> {
    let custom_jvp = lib_function(interp, "jax", "custom_jvp")?;
    let term = Obj::native("_sinc_maclaurin", |i, c| {
        let k = crate::python::builtins::to_int(&c.req(Some(0), "k", "_sinc_maclaurin")?)?;
        let x = c.req(Some(1), "x", "_sinc_maclaurin")?;
        let zero = f(i, "multiply", vec![x, Obj::Int(0)])?;
        if k % 2 == 1 {
            return Ok(zero);
        }
        let sign = if (k / 2) % 2 == 0 { 1.0 } else { -1.0 };
        f(i, "add", vec![zero, Obj::Float(sign / (k + 1) as f64)])
    });
    let kw = vec![("nondiff_argnums".into(), Obj::tuple(vec![Obj::Int(0)]))];
    let series = interp.call(&custom_jvp, Args::with(vec![term], kw))?;
    let rule = Obj::native("_sinc_maclaurin_jvp", |i, c| {
        let k = crate::python::builtins::to_int(&c.req(Some(0), "k", "jvp")?)?;
        let x = first(&c.req(Some(1), "primals", "jvp")?)?;
        let t = first(&c.req(Some(2), "tangents", "jvp")?)?;
        let series = maclaurin(i)?;
        let out = i.call(&series, Args::new(vec![Obj::Int(k), x.clone()]))?;
        let next = i.call(&series, Args::new(vec![Obj::Int(k + 1), x]))?;
        let tangent = f(i, "multiply", vec![next, t])?;
        Ok(Obj::tuple(vec![out, tangent]))
    });
    let defjvp = getattr(interp, &series, "defjvp")?;
    interp.call(&defjvp, Args::new(vec![rule]))?;
    Ok(series)
}

fn first(o: &Obj) -> Result<Obj> {
    match crate::python::ops::iterate(o)?.into_iter().next() {
        Some(x) => Ok(x),
        None => bail!(ValueError, "not enough values to unpack"),
    }
}

/// `copysign(x1, x2)`: |x1| with the sign bit of x2.
fn copysign(interp: &mut Interp, a: Args) -> Result<Obj> {
    let (x, y) = inexact_pair(&a, "copysign")?;
    if crate::python::array::to_value(&x)?.dtype() == crate::array::DType::C64 {
        bail!(TypeError, "copysign does not support complex-valued inputs");
    }
    let neg = f(interp, "signbit", vec![y])?;
    let abs = f(interp, "abs", vec![x])?;
    let minus = f(interp, "negative", vec![abs.clone()])?;
    f(interp, "where", vec![neg, minus, abs])
}

/// `fmod(x1, x2)`: the remainder of truncated division, with the
/// dividend's sign.
fn fmod(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x1", "fmod")?;
    let y = a.req(Some(1), "x2", "fmod")?;
    let (xv, yv) = super::compose::promoted(&x, &y)?;
    if xv.dtype() == crate::array::DType::C64 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: complex64 in jax.numpy.fmod"
        );
    }
    let (x, mut y) = (Obj::Array(xv.clone()), Obj::Array(yv));
    if xv.dtype().is_int() {
        let zero = f(interp, "equal", vec![y.clone(), Obj::Int(0)])?;
        let one = f(interp, "ones_like", vec![y.clone()])?;
        y = f(interp, "where", vec![zero, one, y])?;
    }
    let ax = f(interp, "abs", vec![x.clone()])?;
    let ay = f(interp, "abs", vec![y])?;
    let r = f(interp, "remainder", vec![ax, ay])?;
    let neg = match xv.dtype().is_int() {
        true => f(interp, "less", vec![x, Obj::Int(0)])?,
        false => f(interp, "signbit", vec![x])?,
    };
    let minus = f(interp, "negative", vec![r.clone()])?;
    f(interp, "where", vec![neg, minus, r])
}

/// Two integer arguments of one dtype, broadcast together.
fn integer_pair(interp: &mut Interp, a: &Args, func: &str) -> Result<(Obj, Obj)> {
    let x = a.req(Some(0), "x1", func)?;
    let y = a.req(Some(1), "x2", func)?;
    let (x, y) = super::compose::promoted(&x, &y)?;
    if !x.dtype().is_int() {
        bail!(
            ValueError,
            "Arguments to jax.numpy.{func} must be integers."
        );
    }
    let both = f(
        interp,
        "broadcast_arrays",
        vec![Obj::Array(x), Obj::Array(y)],
    )?;
    pair(&both)
}

/// Euclid's algorithm on |x1| and |x2|, every element at once.
fn gcd(interp: &mut Interp, x: Obj, y: Obj) -> Result<Obj> {
    let x = f(interp, "abs", vec![x])?;
    let y = f(interp, "abs", vec![y])?;
    let cond = Obj::native("gcd_cond", |i, c| {
        let (_, b) = pair(&c.req(Some(0), "xs", "gcd")?)?;
        let nonzero = f(i, "not_equal", vec![b, Obj::Int(0)])?;
        f(i, "any", vec![nonzero])
    });
    let body = Obj::native("gcd_body", |i, c| {
        let (a, b) = pair(&c.req(Some(0), "xs", "gcd")?)?;
        let nonzero = f(i, "not_equal", vec![b.clone(), Obj::Int(0)])?;
        let zero = f(i, "zeros_like", vec![b.clone()])?;
        let r = f(i, "remainder", vec![a.clone(), b.clone()])?;
        let a2 = f(i, "where", vec![nonzero.clone(), b, a])?;
        let b2 = f(i, "where", vec![nonzero, r, zero])?;
        let swap = f(i, "less", vec![a2.clone(), b2.clone()])?;
        let hi = f(i, "where", vec![swap.clone(), b2.clone(), a2.clone()])?;
        let lo = f(i, "where", vec![swap, a2, b2])?;
        Ok(Obj::tuple(vec![hi, lo]))
    });
    let while_loop = lib_function(interp, "jax.lax", "while_loop")?;
    let init = Obj::tuple(vec![x, y]);
    let out = interp.call(&while_loop, Args::new(vec![cond, body, init]))?;
    Ok(pair(&out)?.0)
}

/// `lcm(x1, x2)`: |x1| * (|x2| // gcd), 0 where the gcd is 0.
fn lcm(interp: &mut Interp, a: Args) -> Result<Obj> {
    let (x, y) = integer_pair(interp, &a, "lcm")?;
    let x = f(interp, "abs", vec![x])?;
    let y = f(interp, "abs", vec![y])?;
    let d = gcd(interp, x.clone(), y.clone())?;
    let zero = f(interp, "equal", vec![d.clone(), Obj::Int(0)])?;
    let quotient = f(interp, "floor_divide", vec![y, d.clone()])?;
    let product = f(interp, "multiply", vec![x, quotient])?;
    let zeros = f(interp, "zeros_like", vec![d])?;
    f(interp, "where", vec![zero, zeros, product])
}

/// `nextafter(x1, x2)`: `lax.nextafter` of the inexact operands.
fn nextafter(interp: &mut Interp, a: Args) -> Result<Obj> {
    let (x, y) = inexact_pair(&a, "nextafter")?;
    let both = f(interp, "broadcast_arrays", vec![x, y])?;
    let (x, y) = pair(&both)?;
    let next = lib_function(interp, "jax.lax", "nextafter")?;
    interp.call(&next, Args::new(vec![x, y]))
}
