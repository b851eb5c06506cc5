//! Python's `complex`: literals such as `1j`, `complex(re, im)`, arithmetic
//! with ints, floats and other complexes, `.real`, `.imag`, `.conjugate()`,
//! `abs`, `==`, and CPython's repr (`(1+2j)`, `2j`, `(-0+1j)`).
//!
//! Arithmetic follows CPython's `complexobject.c` step for step (an int or a
//! float operand is first made a complex with a zero imaginary part), so
//! signed zeros, infinities and NaNs come out as they do in CPython.

use rustpython_parser::ast::Operator;

use super::format::float_repr;
use super::value::Obj;
use crate::error::Result;
use crate::{bail, err};

/// The operand as `(re, im)` when it is a number (bool, int, float, complex).
pub fn as_complex(o: &Obj) -> Option<(f64, f64)> {
    match o {
        Obj::Complex(re, im) => Some((*re, *im)),
        other => other.as_number().map(|x| (x, 0.0)),
    }
}

/// CPython's repr of a complex: the real part is left out when it is +0.
pub fn repr(re: f64, im: f64) -> String {
    let part = |x: f64| {
        let s = float_repr(x, false);
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    };
    if re == 0.0 && re.is_sign_positive() {
        return format!("{}j", part(im));
    }
    let im_text = part(im);
    let sign = if im_text.starts_with('-') { "" } else { "+" };
    format!("({}{sign}{im_text}j)", part(re))
}

fn mul(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// Smith's division, as CPython's `_Py_c_quot`.
fn quot(a: (f64, f64), b: (f64, f64)) -> Result<(f64, f64)> {
    let (abs_re, abs_im) = (b.0.abs(), b.1.abs());
    if abs_re >= abs_im {
        if abs_re == 0.0 {
            bail!(ZeroDivisionError, "complex division by zero");
        }
        let ratio = b.1 / b.0;
        let denom = b.0 + b.1 * ratio;
        Ok(((a.0 + a.1 * ratio) / denom, (a.1 - a.0 * ratio) / denom))
    } else if abs_im >= abs_re {
        let ratio = b.0 / b.1;
        let denom = b.0 * ratio + b.1;
        Ok(((a.0 * ratio + a.1) / denom, (a.1 * ratio - a.0) / denom))
    } else {
        // One of the divisor's parts is NaN.
        Ok((f64::NAN, f64::NAN))
    }
}

/// `x ** n` for a non-negative integer by repeated squaring (`c_powu`).
fn powu(x: (f64, f64), n: i64) -> (f64, f64) {
    let (mut r, mut p, mut mask) = ((1.0, 0.0), x, 1i64);
    while mask > 0 && n >= mask {
        if n & mask != 0 {
            r = mul(r, p);
        }
        mask <<= 1;
        p = mul(p, p);
    }
    r
}

/// CPython's `complex ** complex`: integral exponents up to 100 multiply,
/// others go through the polar form.
fn pow(a: (f64, f64), b: (f64, f64)) -> Result<(f64, f64)> {
    if b.1 == 0.0 && b.0 == b.0.floor() && b.0.abs() <= 100.0 {
        let n = b.0 as i64;
        return if n >= 0 {
            Ok(powu(a, n))
        } else {
            quot((1.0, 0.0), powu(a, -n))
        };
    }
    if b == (0.0, 0.0) {
        return Ok((1.0, 0.0));
    }
    if a == (0.0, 0.0) {
        if b.1 != 0.0 || b.0 < 0.0 {
            bail!(ZeroDivisionError, "0.0 to a negative or complex power");
        }
        return Ok((0.0, 0.0));
    }
    let vabs = a.0.hypot(a.1);
    let mut len = vabs.powf(b.0);
    let at = a.1.atan2(a.0);
    let mut phase = at * b.0;
    if b.1 != 0.0 {
        len /= (at * b.1).exp();
        phase += b.1 * vabs.ln();
    }
    Ok((len * phase.cos(), len * phase.sin()))
}

/// `a OP b` where at least one operand is a complex and both are numbers;
/// None when the operator does not apply to numbers at all.
pub fn binop(op: &Operator, a: &Obj, b: &Obj) -> Result<Option<Obj>> {
    let (Some(x), Some(y)) = (as_complex(a), as_complex(b)) else {
        return Ok(None);
    };
    let (re, im) = match op {
        Operator::Add => (x.0 + y.0, x.1 + y.1),
        Operator::Sub => (x.0 - y.0, x.1 - y.1),
        Operator::Mult => mul(x, y),
        Operator::Div => quot(x, y)?,
        Operator::Pow => pow(x, y)?,
        _ => bail!(
            TypeError,
            "unsupported operand type(s) for {}: '{}' and '{}'",
            symbol(op),
            a.type_name(),
            b.type_name()
        ),
    };
    Ok(Some(Obj::Complex(re, im)))
}

fn symbol(op: &Operator) -> &'static str {
    match op {
        Operator::FloorDiv => "//",
        Operator::Mod => "%",
        Operator::MatMult => "@",
        Operator::LShift => "<<",
        Operator::RShift => ">>",
        Operator::BitOr => "|",
        Operator::BitXor => "^",
        _ => "&",
    }
}

/// Whether two numbers, at least one complex, are equal.
pub fn eq(a: &Obj, b: &Obj) -> Option<bool> {
    match (a, b) {
        (Obj::Complex(..), _) | (_, Obj::Complex(..)) => {
            Some(matches!((as_complex(a), as_complex(b)), (Some(x), Some(y)) if x == y))
        }
        _ => None,
    }
}

/// `complex()`, `complex(re)`, `complex(re, im)` with numbers (strings are
/// not parsed).
pub fn construct(args: &[Obj]) -> Result<Obj> {
    let part = |o: Option<&Obj>, which: &str| -> Result<(f64, f64)> {
        match o {
            None => Ok((0.0, 0.0)),
            Some(Obj::Str(_)) => bail!(
                NotImplementedError,
                "not supported by shardlab yet: complex() of a string"
            ),
            Some(o) => as_complex(o).ok_or_else(|| {
                err!(
                    TypeError,
                    "complex() {which} must be a number, not '{}'",
                    o.type_name()
                )
            }),
        }
    };
    if args.len() > 2 {
        bail!(
            TypeError,
            "complex() takes at most 2 arguments ({} given)",
            args.len()
        );
    }
    let re = part(args.first(), "first argument")?;
    let im = part(args.get(1), "second argument")?;
    // complex(a, b) is a + b*1j with both parts possibly complex.
    Ok(Obj::Complex(re.0 - im.1, re.1 + im.0))
}

/// `z.real`, `z.imag`, `z.conjugate`.
pub fn attr(re: f64, im: f64, name: &str) -> Option<Obj> {
    Some(match name {
        "real" => Obj::Float(re),
        "imag" => Obj::Float(im),
        "conjugate" => Obj::native("complex.conjugate", move |_, _| Ok(Obj::Complex(re, -im))),
        _ => return None,
    })
}
