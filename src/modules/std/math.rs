//! The `math` module, with CPython's results and errors: float functions
//! return floats, `floor`/`ceil`/`trunc`/`factorial`/`gcd`/`comb`/`perm`
//! return ints, and arguments outside a function's domain raise
//! `ValueError: math domain error`.

use rustpython_parser::ast::Operator;

use crate::error::{Error, Result};
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::ops::{binop, iterate};
use crate::python::value::{Args, Obj};
use crate::{bail, err};

use super::super::Builder;
use super::{refuse, to_f64};

/// Python's OverflowError.
fn overflow(what: &str) -> Error {
    err!(OverflowError, "{what}")
}

fn domain() -> Error {
    err!(ValueError, "math domain error")
}

fn arg(a: &Args, i: usize, name: &str, func: &str) -> Result<f64> {
    to_f64(&a.req(Some(i), name, func)?)
}

/// CPython's `math_1`: a NaN from a non-NaN argument is a domain error, an
/// infinity from a finite one an overflow (or a domain error for functions
/// that cannot overflow, such as `log(0)`).
fn checked(x: f64, r: f64, can_overflow: bool) -> Result<Obj> {
    if r.is_nan() && !x.is_nan() {
        return Err(domain());
    }
    if r.is_infinite() && x.is_finite() {
        return Err(if can_overflow {
            overflow("math range error")
        } else {
            domain()
        });
    }
    Ok(Obj::Float(r))
}

/// A one-argument float function: name, function, whether it can overflow.
type Unary = (&'static str, fn(f64) -> f64, bool);

/// The one-argument float functions.
const UNARY: &[Unary] = &[
    ("sqrt", f64::sqrt, false),
    ("exp", f64::exp, true),
    ("expm1", f64::exp_m1, true),
    ("log2", f64::log2, false),
    ("log10", f64::log10, false),
    ("log1p", f64::ln_1p, false),
    ("sin", f64::sin, false),
    ("cos", f64::cos, false),
    ("tan", f64::tan, false),
    ("asin", f64::asin, false),
    ("acos", f64::acos, false),
    ("atan", f64::atan, false),
    ("sinh", f64::sinh, true),
    ("cosh", f64::cosh, true),
    ("tanh", f64::tanh, false),
    ("asinh", f64::asinh, false),
    ("acosh", f64::acosh, false),
    ("atanh", f64::atanh, false),
    ("fabs", f64::abs, false),
];

/// The `math` module.
pub fn module() -> Obj {
    let mut b = Builder::new("math");
    b.attr("pi", Obj::Float(std::f64::consts::PI))
        .attr("e", Obj::Float(std::f64::consts::E))
        .attr("tau", Obj::Float(std::f64::consts::TAU))
        .attr("inf", Obj::Float(f64::INFINITY))
        .attr("nan", Obj::Float(f64::NAN));
    for &(name, f, can_overflow) in UNARY {
        b.func(name, move |_, a| {
            let x = arg(&a, 0, "x", name)?;
            checked(x, f(x), can_overflow)
        });
    }
    b.func("log", log);
    b.func("pow", pow);
    b.func("atan2", |_, a| {
        let y = arg(&a, 0, "y", "atan2")?;
        Ok(Obj::Float(y.atan2(arg(&a, 1, "x", "atan2")?)))
    });
    b.func("degrees", |_, a| {
        Ok(Obj::Float(
            arg(&a, 0, "x", "degrees")? * (180.0 / std::f64::consts::PI),
        ))
    });
    b.func("radians", |_, a| {
        Ok(Obj::Float(
            arg(&a, 0, "x", "radians")? * (std::f64::consts::PI / 180.0),
        ))
    });
    b.func("copysign", |_, a| {
        let x = arg(&a, 0, "x", "copysign")?;
        Ok(Obj::Float(x.copysign(arg(&a, 1, "y", "copysign")?)))
    });
    for (name, f) in [
        ("isnan", f64::is_nan as fn(f64) -> bool),
        ("isinf", f64::is_infinite),
        ("isfinite", f64::is_finite),
    ] {
        b.func(name, move |_, a| Ok(Obj::Bool(f(arg(&a, 0, "x", name)?))));
    }
    float_parts(&mut b);
    rounding(&mut b);
    integers(&mut b);
    b.func("isclose", isclose);
    b.func("prod", prod);
    b.func("fsum", |_, a| {
        fsum(&iterate(&a.req(Some(0), "seq", "fsum")?)?)
    });
    b.func("hypot", |_, a| {
        let v: Vec<f64> = a.pos.iter().map(to_f64).collect::<Result<_>>()?;
        Ok(Obj::Float(vector_norm(&v)))
    });
    b.func("dist", dist);
    b.build()
}

fn log(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = arg(&a, 0, "x", "log")?;
    let num = checked(x, x.ln(), false)?;
    let Some(base) = a.get(Some(1), "base") else {
        return Ok(num);
    };
    let base = to_f64(&base)?;
    let Obj::Float(den) = checked(base, base.ln(), false)? else {
        return Err(domain());
    };
    if den == 0.0 {
        bail!(ZeroDivisionError, "float division by zero");
    }
    let Obj::Float(n) = num else {
        return Err(domain());
    };
    Ok(Obj::Float(n / den))
}

fn pow(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = arg(&a, 0, "x", "pow")?;
    let y = arg(&a, 1, "y", "pow")?;
    let r = x.powf(y);
    if r.is_nan() && !x.is_nan() && !y.is_nan() {
        return Err(domain());
    }
    if r.is_infinite() && x.is_finite() && y.is_finite() {
        return Err(if x == 0.0 {
            domain()
        } else {
            overflow("math range error")
        });
    }
    Ok(Obj::Float(r))
}

/// C's `frexp`: `x == m * 2**e` with `0.5 <= |m| < 1` (`(x, 0)` for zero,
/// infinities and NaN).
fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        let (m, e) = frexp(x * 2f64.powi(54));
        return (m, e - 54);
    }
    let m = f64::from_bits((bits & !(0x7ff_u64 << 52)) | (1022_u64 << 52));
    (m, exp - 1022)
}

/// C's `ldexp`: `x * 2**i`, in steps that keep the power of two finite.
fn ldexp(mut x: f64, mut i: i64) -> f64 {
    while i > 1000 && x.is_finite() && x != 0.0 {
        x *= 2f64.powi(1000);
        i -= 1000;
    }
    while i < -1000 && x != 0.0 {
        x *= 2f64.powi(-1000);
        i += 1000;
    }
    x * 2f64.powi(i.clamp(-1100, 1100) as i32)
}

/// `frexp`, `ldexp`, `modf` and `fmod`.
fn float_parts(b: &mut Builder) {
    b.func("frexp", |_, a| {
        let (m, e) = frexp(arg(&a, 0, "x", "frexp")?);
        Ok(Obj::tuple(vec![Obj::Float(m), Obj::Int(e as i64)]))
    });
    b.func("ldexp", |_, a| {
        let x = arg(&a, 0, "x", "ldexp")?;
        let i = to_int(&a.req(Some(1), "i", "ldexp")?)?;
        let r = ldexp(x, i);
        if r.is_infinite() && x.is_finite() {
            return Err(overflow("math range error"));
        }
        Ok(Obj::Float(r))
    });
    b.func("modf", |_, a| {
        let x = arg(&a, 0, "x", "modf")?;
        if x.is_infinite() {
            return Ok(Obj::tuple(vec![
                Obj::Float(0f64.copysign(x)),
                Obj::Float(x),
            ]));
        }
        let int = x.trunc();
        Ok(Obj::tuple(vec![
            Obj::Float((x - int).copysign(x)),
            Obj::Float(int),
        ]))
    });
    b.func("fmod", |_, a| {
        let x = arg(&a, 0, "x", "fmod")?;
        let y = arg(&a, 1, "y", "fmod")?;
        if y.is_infinite() && x.is_finite() {
            return Ok(Obj::Float(x));
        }
        let r = x % y;
        if r.is_nan() && !x.is_nan() && !y.is_nan() {
            return Err(domain());
        }
        Ok(Obj::Float(r))
    });
}

/// A float rounded to an int as `floor`, `ceil` and `trunc` give it.
fn float_to_int(x: f64) -> Result<Obj> {
    if x.is_nan() {
        bail!(ValueError, "cannot convert float NaN to integer");
    }
    if x.is_infinite() {
        return Err(overflow("cannot convert float infinity to integer"));
    }
    if x.abs() >= 9.223_372_036_854_776e18 {
        return Err(refuse("integers beyond 64 bits"));
    }
    Ok(Obj::Int(x as i64))
}

/// `floor`, `ceil`, `trunc`: ints stay ints.
fn rounding(b: &mut Builder) {
    for (name, f) in [
        ("floor", f64::floor as fn(f64) -> f64),
        ("ceil", f64::ceil),
        ("trunc", f64::trunc),
    ] {
        b.func(name, move |_, a| match a.req(Some(0), "x", name)? {
            Obj::Int(i) => Ok(Obj::Int(i)),
            Obj::Bool(v) => Ok(Obj::Int(v as i64)),
            o => float_to_int(f(to_f64(&o)?)),
        });
    }
}

/// An integer argument: ints and bools, not floats (CPython 3.10+).
fn int_arg(v: &Obj) -> Result<i64> {
    to_int(v)
}

fn gcd2(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

fn big() -> Error {
    refuse("integers beyond 64 bits")
}

/// `n! / (n-k)!`, or `n! / (k! (n-k)!)` when `choose`.
fn falling(n: i64, k: i64, choose: bool) -> Result<Obj> {
    if k > n {
        return Ok(Obj::Int(0));
    }
    let k = if choose { k.min(n - k) } else { k };
    let mut r: u128 = 1;
    for i in 0..k {
        r = r.checked_mul((n - i) as u128).ok_or_else(big)?;
        if choose {
            r /= (i + 1) as u128;
        }
    }
    i64::try_from(r).map(Obj::Int).map_err(|_| big())
}

fn nonneg(v: i64, what: &str) -> Result<i64> {
    if v < 0 {
        bail!(ValueError, "{what} must be a non-negative integer");
    }
    Ok(v)
}

/// `gcd`, `lcm`, `factorial`, `comb`, `perm`, `isqrt`.
fn integers(b: &mut Builder) {
    b.func("gcd", |_, a| {
        let mut g = 0;
        for x in &a.pos {
            g = gcd2(g, int_arg(x)?);
        }
        Ok(Obj::Int(g))
    });
    b.func("lcm", |_, a| {
        let mut l: i64 = 1;
        for x in &a.pos {
            let x = int_arg(x)?;
            if l == 0 || x == 0 {
                l = 0;
                continue;
            }
            l = (l / gcd2(l, x)).checked_mul(x).ok_or_else(big)?.abs();
        }
        Ok(Obj::Int(l))
    });
    b.func("factorial", |_, a| {
        let n = int_arg(&a.req(Some(0), "n", "factorial")?)?;
        if n < 0 {
            bail!(ValueError, "factorial() not defined for negative values");
        }
        falling(n, n, false)
    });
    b.func("comb", |_, a| {
        let n = nonneg(int_arg(&a.req(Some(0), "n", "comb")?)?, "n")?;
        let k = nonneg(int_arg(&a.req(Some(1), "k", "comb")?)?, "k")?;
        falling(n, k, true)
    });
    b.func("perm", |_, a| {
        let n = nonneg(int_arg(&a.req(Some(0), "n", "perm")?)?, "n")?;
        let k = match a.opt(Some(1), "k") {
            Some(k) => nonneg(int_arg(&k)?, "k")?,
            None => n,
        };
        falling(n, k, false)
    });
    b.func("isqrt", |_, a| {
        let n = int_arg(&a.req(Some(0), "n", "isqrt")?)?;
        if n < 0 {
            bail!(ValueError, "isqrt() argument must be nonnegative");
        }
        let mut r = (n as f64).sqrt() as i64;
        while r.checked_mul(r).is_none_or(|s| s > n) {
            r -= 1;
        }
        while (r + 1).checked_mul(r + 1).is_some_and(|s| s <= n) {
            r += 1;
        }
        Ok(Obj::Int(r))
    });
}

fn isclose(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = arg(&a, 0, "a", "isclose")?;
    let y = arg(&a, 1, "b", "isclose")?;
    let rel = a.get(None, "rel_tol").map(|v| to_f64(&v)).transpose()?;
    let abs = a.get(None, "abs_tol").map(|v| to_f64(&v)).transpose()?;
    let (rel, abs) = (rel.unwrap_or(1e-9), abs.unwrap_or(0.0));
    if rel < 0.0 || abs < 0.0 {
        bail!(ValueError, "tolerances must be non-negative");
    }
    if x == y {
        return Ok(Obj::Bool(true));
    }
    if x.is_infinite() || y.is_infinite() {
        return Ok(Obj::Bool(false));
    }
    let diff = (y - x).abs();
    Ok(Obj::Bool(
        diff <= (rel * y).abs() || diff <= (rel * x).abs() || diff <= abs,
    ))
}

fn prod(i: &mut Interp, a: Args) -> Result<Obj> {
    let mut acc = a.get(None, "start").unwrap_or(Obj::Int(1));
    for x in iterate(&a.req(Some(0), "iterable", "prod")?)? {
        acc = binop(i, &Operator::Mult, &acc, &x, false)?;
    }
    Ok(acc)
}

/// CPython's `math.fsum`: the correctly rounded sum, by Shewchuk's exact
/// partial sums.
fn fsum(items: &[Obj]) -> Result<Obj> {
    let mut partials: Vec<f64> = vec![];
    let (mut special, mut inf_sum) = (0.0f64, 0.0f64);
    for item in items {
        let mut x = to_f64(item)?;
        let xsave = x;
        let mut kept = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[kept] = lo;
                kept += 1;
            }
            x = hi;
        }
        partials.truncate(kept);
        if x != 0.0 {
            if !x.is_finite() {
                if xsave.is_finite() {
                    return Err(overflow("intermediate overflow in fsum"));
                }
                if xsave.is_infinite() {
                    inf_sum += xsave;
                }
                special += xsave;
                partials.clear();
            } else {
                partials.push(x);
            }
        }
    }
    if special != 0.0 {
        if inf_sum.is_nan() {
            bail!(ValueError, "-inf + inf in fsum");
        }
        return Ok(Obj::Float(special));
    }
    Ok(Obj::Float(round_partials(&partials)))
}

/// The sum of exact nonoverlapping partials, rounded half to even.
fn round_partials(p: &[f64]) -> f64 {
    let mut n = p.len();
    if n == 0 {
        return 0.0;
    }
    n -= 1;
    let mut hi = p[n];
    let mut lo = 0.0;
    while n > 0 {
        let x = hi;
        n -= 1;
        let y = p[n];
        hi = x + y;
        lo = y - (hi - x);
        if lo != 0.0 {
            break;
        }
    }
    if n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0)) {
        let y = lo * 2.0;
        let x = hi + y;
        if y == x - hi {
            hi = x;
        }
    }
    hi
}

fn dist(_: &mut Interp, a: Args) -> Result<Obj> {
    let p = iterate(&a.req(Some(0), "p", "dist")?)?;
    let q = iterate(&a.req(Some(1), "q", "dist")?)?;
    if p.len() != q.len() {
        bail!(
            ValueError,
            "both points must have the same number of dimensions"
        );
    }
    let d: Vec<f64> = p
        .iter()
        .zip(&q)
        .map(|(x, y)| Ok(to_f64(x)? - to_f64(y)?))
        .collect::<Result<_>>()?;
    Ok(Obj::Float(vector_norm(&d)))
}

/// `x * y` as an exact sum `hi + lo`.
fn exact_mul(x: f64, y: f64) -> (f64, f64) {
    let hi = x * y;
    (hi, x.mul_add(y, -hi))
}

/// `a + b` as an exact sum `hi + lo`, for `|a| >= |b|`.
fn fast_sum(a: f64, b: f64) -> (f64, f64) {
    let hi = a + b;
    (hi, (a - hi) + b)
}

/// CPython's `vector_norm` (behind `hypot` and `dist`): the Euclidean norm,
/// scaled to avoid overflow and corrected to be (nearly always) correctly
/// rounded.
fn vector_norm(v: &[f64]) -> f64 {
    let abs: Vec<f64> = v.iter().map(|x| x.abs()).collect();
    let found_nan = abs.iter().any(|x| x.is_nan());
    let max = abs
        .iter()
        .copied()
        .filter(|x| !x.is_nan())
        .fold(0.0, f64::max);
    if max.is_infinite() {
        return max;
    }
    if found_nan {
        return f64::NAN;
    }
    if max == 0.0 || abs.len() <= 1 {
        return max;
    }
    let (_, max_e) = frexp(max);
    if max_e < -1023 {
        let scaled: Vec<f64> = abs.iter().map(|x| x / f64::MIN_POSITIVE).collect();
        return f64::MIN_POSITIVE * vector_norm(&scaled);
    }
    let scale = 2f64.powi(-max_e);
    let (mut csum, mut frac1, mut frac2) = (1.0f64, 0.0f64, 0.0f64);
    for &x in &abs {
        let x = x * scale;
        let (hi, lo) = exact_mul(x, x);
        let (s, slo) = fast_sum(csum, hi);
        csum = s;
        frac1 += lo;
        frac2 += slo;
    }
    let mut h = (csum - 1.0 + (frac1 + frac2)).sqrt();
    let (hi, lo) = exact_mul(-h, h);
    let (s, slo) = fast_sum(csum, hi);
    csum = s;
    frac1 += lo;
    frac2 += slo;
    let x = csum - 1.0 + (frac1 + frac2);
    h += x / (2.0 * h);
    h / scale
}
