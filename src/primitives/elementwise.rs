//! Elementwise primitives: unary and binary functions, integer_pow, select and
//! convert_element_type. Binary operands broadcast as in NumPy, so each
//! cotangent is summed back to its operand's shape.

use crate::array::{broadcast_shapes, Array, BinaryOp, DType, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::ops::{self, scalar};
use crate::primitives::{join_vma, Prim};
use crate::trace::Value;

/// JAX's name for a unary primitive: lax's name where it differs from the
/// NumPy-style name the array operation carries.
pub fn unary_name(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "neg",
        UnaryOp::Not => "not",
        UnaryOp::IsFinite => "is_finite",
        UnaryOp::Atanh => "atanh",
        UnaryOp::Asin => "asin",
        UnaryOp::Acos => "acos",
        UnaryOp::Atan => "atan",
        UnaryOp::Asinh => "asinh",
        UnaryOp::Acosh => "acosh",
        other => other.name(),
    }
}

/// JAX's name for a binary primitive.
pub fn binary_name(op: BinaryOp) -> &'static str {
    use BinaryOp::*;
    match op {
        Add => "add",
        Sub => "sub",
        Mul => "mul",
        Div => "div",
        FloorDiv => "floor_divide",
        Rem => "rem",
        Pow => "pow",
        Max => "max",
        Min => "min",
        Atan2 => "atan2",
        Eq => "eq",
        Ne => "ne",
        Lt => "lt",
        Le => "le",
        Gt => "gt",
        Ge => "ge",
        And => "and",
        Or => "or",
        Xor => "xor",
        Complex => "complex",
        ShiftLeft => "shift_left",
        ShiftRightLogical => "shift_right_logical",
        ShiftRightArithmetic => "shift_right_arithmetic",
    }
}

fn unary_dtype(op: UnaryOp, d: DType) -> DType {
    use UnaryOp::*;
    match op {
        Abs | Real | Imag if d == DType::C64 => DType::F32,
        Conj => d,
        _ if d == DType::C64 => d,
        Neg | Abs | Sign | Not => d,
        IsFinite => DType::Bool,
        // A float function keeps a float operand's type (bfloat16 stays).
        _ if d.is_float() => d,
        _ => DType::F32,
    }
}

fn binary_dtype(op: BinaryOp, a: &Aval, b: &Aval) -> DType {
    use BinaryOp::*;
    let joined = a.dtype.promote_weak(a.weak, b.dtype, b.weak);
    match op {
        Eq | Ne | Lt | Le | Gt | Ge => DType::Bool,
        Complex => DType::C64,
        _ if joined == DType::C64 => DType::C64,
        Div | Atan2 if joined.is_float() => joined,
        Div | Atan2 => DType::F32,
        Pow if joined == DType::Bool => DType::I32,
        _ => joined,
    }
}

/// Shape rule of the elementwise family.
pub fn abstract_eval(prim: &Prim, ins: &[Aval]) -> Result<Vec<Aval>> {
    let vma = join_vma(ins);
    let (shape, dtype) = match prim {
        Prim::Unary(op) => (ins[0].shape.clone(), unary_dtype(*op, ins[0].dtype)),
        Prim::Binary(op) => (
            broadcast_shapes(&ins[0].shape, &ins[1].shape).map_err(|_| {
                crate::err!(
                    TypeError,
                    "{} got incompatible shapes for broadcasting: {}, {}.",
                    binary_name(*op),
                    crate::ir::fmt_shape(&ins[0].shape),
                    crate::ir::fmt_shape(&ins[1].shape)
                )
            })?,
            binary_dtype(*op, &ins[0], &ins[1]),
        ),
        Prim::IntegerPow(_) => (ins[0].shape.clone(), ins[0].dtype),
        Prim::Select => {
            let s = broadcast_shapes(&ins[0].shape, &ins[1].shape)
                .and_then(|s| broadcast_shapes(&s, &ins[2].shape))?;
            (s, ins[1].dtype.promote(ins[2].dtype))
        }
        Prim::Clamp => {
            for (bound, name) in [(&ins[0], "min"), (&ins[2], "max")] {
                if !bound.shape.is_empty() && bound.shape != ins[1].shape {
                    bail!(
                        TypeError,
                        "clamp requires {name}.shape == operand.shape or {name}.shape == (), got \
                         {name}.shape={}, operand.shape={}.",
                        crate::ir::fmt_shape(&bound.shape),
                        crate::ir::fmt_shape(&ins[1].shape)
                    );
                }
            }
            (ins[1].shape.clone(), ins[1].dtype)
        }
        Prim::Convert(d, _) => (ins[0].shape.clone(), *d),
        _ => bail!(
            RuntimeError,
            "not an elementwise primitive: {}",
            prim.name()
        ),
    };
    Ok(vec![Aval {
        shape,
        dtype,
        vma,
        weak: false,
    }])
}

/// Implementation on arrays.
pub fn apply(prim: &Prim, ins: &[Array]) -> Result<Vec<Array>> {
    let out = match prim {
        Prim::Unary(op) => ins[0].unary(*op)?,
        Prim::Binary(op) => ins[0].binary(*op, &ins[1])?,
        Prim::IntegerPow(n) => ins[0].integer_pow(*n)?,
        Prim::Select => Array::select(&ins[0], &ins[1], &ins[2])?,
        Prim::Clamp => ins[1]
            .binary(BinaryOp::Max, &ins[0])?
            .binary(BinaryOp::Min, &ins[2])?,
        Prim::Convert(d, _) => ins[0].astype(*d),
        _ => bail!(
            RuntimeError,
            "not an elementwise primitive: {}",
            prim.name()
        ),
    };
    Ok(vec![out])
}

/// A cotangent in its primal's dtype: a complex cotangent of a real operand
/// (mixed into a complex operation) keeps its real part, as the transpose
/// of JAX's implicit conversion does.
fn to_dtype_of(ct: Value, primal: &Value) -> Result<Value> {
    if ct.dtype() == primal.dtype() {
        Ok(ct)
    } else if ct.dtype() == DType::C64 {
        ops::convert(&ops::unary(UnaryOp::Real, &ct)?, primal.dtype())
    } else {
        ops::convert(&ct, primal.dtype())
    }
}

/// Whether a value has a derivative: float32 or complex64.
fn is_float(v: &Value) -> bool {
    v.dtype().is_inexact()
}

/// Tangent of `real`/`imag`/`conj` (linear maps: the map of the tangent),
/// or None for the other unary operations.
fn complex_part_jvp(op: UnaryOp, g: &Value) -> Option<Result<Value>> {
    match op {
        UnaryOp::Real | UnaryOp::Imag | UnaryOp::Conj => Some(ops::unary(op, g)),
        _ => None,
    }
}

/// Cotangent of `real`/`imag`/`conj`, JAX's transposes: `complex(ct, 0)`,
/// `complex(0, -ct)` and `conj(ct)`.
fn complex_part_vjp(op: UnaryOp, ct: &Value) -> Option<Result<Value>> {
    let zero = || ops::zeros_like(ct);
    match op {
        UnaryOp::Real => Some(ops::binary(BinaryOp::Complex, ct, &zero())),
        UnaryOp::Imag => {
            Some(ops::neg(ct).and_then(|n| ops::binary(BinaryOp::Complex, &zero(), &n)))
        }
        UnaryOp::Conj => Some(ops::unary(op, ct)),
        _ => None,
    }
}

/// Derivative of a unary function at `x` (with output `y`), times `g`: the
/// tangent when `transposed` is false, the cotangent when it is true. The two
/// differ only in the grouping of their products: JAX transposes its tangent
/// rule factor by factor, and the rounding (and so every higher derivative)
/// follows the grouping.
fn unary_deriv(
    op: UnaryOp,
    x: &Value,
    y: &Value,
    g: &Value,
    transposed: bool,
) -> Result<Option<Value>> {
    use UnaryOp::*;
    let f = DType::F32;
    if x.dtype() == DType::C64 && matches!(op, Abs) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: complex64 in differentiation of abs"
        );
    }
    Ok(Some(match op {
        Neg => ops::neg(g)?,
        Abs => ops::mul(g, &ops::sign(x)?)?,
        Exp => ops::mul(g, y)?,
        Log => ops::div(g, x)?,
        Log1p => ops::div(g, &ops::add(x, &scalar(1.0, f))?)?,
        Expm1 => ops::mul(g, &ops::add(y, &scalar(1.0, f))?)?,
        Sqrt => ops::mul(g, &ops::div(&scalar(0.5, f), y)?)?,
        Rsqrt => ops::mul(g, &ops::mul_scalar(&ops::div(y, x)?, -0.5)?)?,
        // JAX's grouping, (g + g y)(1 - y), so that rounding (and higher
        // derivatives) agree with it to the last bit.
        Tanh if transposed => {
            let d = ops::mul(g, &ops::sub(&scalar(1.0, f), y)?)?;
            ops::add(&d, &ops::mul(&d, y)?)?
        }
        Tanh => {
            let g_plus = ops::add(g, &ops::mul(g, y)?)?;
            ops::mul(&g_plus, &ops::sub(&scalar(1.0, f), y)?)?
        }
        Logistic => ops::mul(g, &ops::mul(y, &ops::sub(&scalar(1.0, f), y)?)?)?,
        // JAX's rule, g / (1 - x) times 1 / (1 + x), in its grouping.
        Atanh => {
            let r = ops::integer_pow(&ops::add(&scalar(1.0, f), x)?, -1)?;
            let one_minus = ops::sub(&scalar(1.0, f), x)?;
            match transposed {
                true => ops::div(&ops::mul(&r, g)?, &one_minus)?,
                false => ops::mul(&r, &ops::div(g, &one_minus)?)?,
            }
        }
        Sin => ops::mul(g, &ops::cos(x)?)?,
        Cos => ops::neg(&ops::mul(g, &ops::sin(x)?)?)?,
        // JAX's rule divides: g / (1 + x^2).
        Atan => ops::div(
            g,
            &ops::add(&scalar(1.0, x.dtype()), &ops::integer_pow(x, 2)?)?,
        )?,
        Tan | Asin | Acos | Sinh | Cosh | Asinh | Acosh | Cbrt => {
            ops::mul(g, &trig_factor(op, x, y)?)?
        }
        Erf | ErfInv | Erfc | Lgamma | BesselI0e | BesselI1e | Digamma => {
            special_deriv(op, x, y, g, transposed)?
        }
        Sign | Floor | Ceil | Round | Not | IsFinite => return Ok(None),
        Real | Imag | Conj => bail!(
            NotImplementedError,
            "not supported by shardlab yet: complex64 in differentiation of {}",
            unary_name(op)
        ),
    }))
}

/// `unary_deriv` for the error, gamma and Bessel functions.
fn special_deriv(op: UnaryOp, x: &Value, y: &Value, g: &Value, transposed: bool) -> Result<Value> {
    use UnaryOp::*;
    Ok(match op {
        Erf => {
            let k = 2.0 / std::f64::consts::PI.sqrt();
            let e = ops::exp(&ops::neg(&ops::integer_pow(x, 2)?)?)?;
            scaled_product(g, &e, k, transposed)?
        }
        ErfInv => {
            let k = std::f64::consts::PI.sqrt() / 2.0;
            let e = ops::exp(&ops::integer_pow(y, 2)?)?;
            scaled_product(g, &e, k, transposed)?
        }
        Lgamma => ops::mul(g, &ops::unary(Digamma, x)?)?,
        Erfc => {
            let k = -2.0 / std::f64::consts::PI.sqrt();
            let e = ops::exp(&ops::neg(&ops::integer_pow(x, 2)?)?)?;
            scaled_product(g, &e, k, transposed)?
        }
        BesselI0e => {
            let d = ops::sub(&ops::unary(BesselI1e, x)?, &ops::mul(&ops::sign(x)?, y)?)?;
            ops::mul(g, &d)?
        }
        BesselI1e => ops::mul(g, &bessel_i1e_slope(x, y)?)?,
        // Its derivative is polygamma(1, x), which shardlab lacks.
        Digamma => bail!(
            NotImplementedError,
            "not supported by shardlab yet: differentiation of digamma"
        ),
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: differentiation of {}",
            unary_name(op)
        ),
    })
}

/// The factor JAX's rule multiplies the tangent by for the trigonometric,
/// hyperbolic and cube-root functions (`atan`'s rule divides instead).
fn trig_factor(op: UnaryOp, x: &Value, y: &Value) -> Result<Value> {
    use UnaryOp::*;
    let one = || scalar(1.0, x.dtype());
    let sq = |v: &Value| ops::integer_pow(v, 2);
    Ok(match op {
        Tan => ops::add(&one(), &sq(y)?)?,
        Asin => ops::unary(Rsqrt, &ops::sub(&one(), &sq(x)?)?)?,
        Acos => ops::neg(&ops::unary(Rsqrt, &ops::sub(&one(), &sq(x)?)?)?)?,
        Sinh => ops::unary(Cosh, x)?,
        Cosh => ops::unary(Sinh, x)?,
        Asinh => ops::unary(Rsqrt, &ops::add(&sq(x)?, &one())?)?,
        Acosh => ops::unary(Rsqrt, &ops::sub(&sq(x)?, &one())?)?,
        Cbrt => ops::mul_scalar(&ops::integer_pow(y, -2)?, 1.0 / 3.0)?,
        _ => bail!(RuntimeError, "{} has no trigonometric factor", op.name()),
    })
}

/// The slope of `bessel_i1e` at `x` (value `y`): `i0e(x) - y (sign(x) +
/// 1/x)`, and 1/2 where `|x|` is within float32's epsilon of 0, as JAX's
/// rule writes it.
fn bessel_i1e_slope(x: &Value, y: &Value) -> Result<Value> {
    let eps = scalar(f32::EPSILON as f64, x.dtype());
    let not_tiny = ops::greater(&ops::abs(x)?, &eps)?;
    let eps_full = ops::broadcast_to(&eps, &x.shape())?;
    let safe = ops::select(&not_tiny, x, &eps_full)?;
    let recip = ops::div(&scalar(1.0, x.dtype()), &safe)?;
    let term = ops::mul(y, &ops::add(&ops::sign(&safe)?, &recip)?)?;
    let slope = ops::sub(&ops::unary(UnaryOp::BesselI0e, &safe)?, &term)?;
    let half = ops::broadcast_to(&scalar(0.5, x.dtype()), &x.shape())?;
    ops::select(&not_tiny, &slope, &half)
}

/// `k (g e)` as a tangent; its transpose `(k g) e` as a cotangent.
fn scaled_product(g: &Value, e: &Value, k: f64, transposed: bool) -> Result<Value> {
    if transposed {
        ops::mul(&ops::mul_scalar(g, k)?, e)
    } else {
        ops::mul_scalar(&ops::mul(g, e)?, k)
    }
}

/// The weights with which `max`/`min` pass a gradient to `x` (1 where x is the
/// result alone, 0.5 at ties), as JAX balances ties.
fn balanced(x: &Value, y: &Value, out: &Value) -> Result<Value> {
    let f = DType::F32;
    let x_is = ops::convert(&ops::equal(x, out)?, f)?;
    let y_is = ops::convert(&ops::equal(y, out)?, f)?;
    ops::div(&x_is, &ops::add(&scalar(1.0, f), &y_is)?)
}

/// The tangent of `x / y` along `y`, grouped as JAX's rule groups it,
/// `(-g x) y^-2`, so that rounding agrees to the last bit (division's
/// tangent along `x` is `g / y`, not `g * (1 / y)`, for the same reason).
fn div_rhs_term(g: &Value, x: &Value, y: &Value) -> Result<Value> {
    ops::mul(&ops::mul(&ops::neg(g)?, x)?, &ops::integer_pow(y, -2)?)
}

/// Partial derivatives of a binary op: `(d out/d x, d out/d y)` as multipliers
/// (None for zero), evaluated at the primals.
fn binary_partials(
    op: BinaryOp,
    x: &Value,
    y: &Value,
    out: &Value,
) -> Result<(Option<Value>, Option<Value>)> {
    use BinaryOp::*;
    let f = DType::F32;
    let one = scalar(1.0, f);
    Ok(match op {
        // Sums and division build their tangents term by term (above).
        Add | Sub | Div => bail!(
            RuntimeError,
            "{} has no partials as multipliers",
            binary_name(op)
        ),
        Mul => (Some(y.clone()), Some(x.clone())),
        Pow => {
            // d/dx x^y = y x^(y-1); d/dy x^y = log(x) x^y, taken as 0 where x == 0.
            let dx = ops::mul(y, &ops::pow(x, &ops::sub(y, &one)?)?)?;
            let zero = scalar(0.0, f);
            let is_zero = ops::equal(x, &zero)?;
            let safe_x = ops::select(&is_zero, &one, x)?;
            let dy = ops::select(&is_zero, &zero, &ops::mul(&ops::log(&safe_x)?, out)?)?;
            (Some(dx), Some(dy))
        }
        Max | Min => (Some(balanced(x, y, out)?), Some(balanced(y, x, out)?)),
        Atan2 => {
            let denom = ops::add(&ops::integer_pow(x, 2)?, &ops::integer_pow(y, 2)?)?;
            (
                Some(ops::div(y, &denom)?),
                Some(ops::neg(&ops::div(x, &denom)?)?),
            )
        }
        Rem => {
            let q = ops::unary(UnaryOp::Floor, &ops::div(x, y)?)?;
            (Some(one), Some(ops::neg(&q)?))
        }
        FloorDiv | Eq | Ne | Lt | Le | Gt | Ge | And | Or | Xor | ShiftLeft | ShiftRightLogical
        | ShiftRightArithmetic => (None, None),
        Complex => bail!(
            NotImplementedError,
            "not supported by shardlab yet: complex64 in differentiation of complex"
        ),
    })
}

/// Forward-mode rule.
pub fn jvp(
    prim: &Prim,
    p: &[Value],
    t: &[Option<Value>],
    outs: &[Value],
) -> Result<Vec<Option<Value>>> {
    if !is_float(&outs[0]) {
        return Ok(vec![None]);
    }
    let out = &outs[0];
    let tangent = match prim {
        Prim::Unary(op) => match &t[0] {
            Some(g) => match complex_part_jvp(*op, g) {
                Some(r) => Some(r?),
                None => unary_deriv(*op, &p[0], out, g, false)?,
            },
            None => None,
        },
        Prim::Binary(op) => binary_jvp(*op, p, t, out)?,
        Prim::IntegerPow(n) => match &t[0] {
            Some(g) => Some(pow_deriv(&p[0], *n, g)?),
            None => None,
        },
        Prim::Select => select_jvp(p, t, out)?,
        Prim::Clamp => clamp_jvp(p, t, out)?,
        Prim::Convert(..) => match &t[0] {
            Some(g) if is_float(&p[0]) => Some(to_dtype_of(g.clone(), out)?),
            _ => None,
        },
        _ => None,
    };
    Ok(vec![tangent])
}

/// The tangent of a binary primitive's result.
fn binary_jvp(
    op: BinaryOp,
    p: &[Value],
    t: &[Option<Value>],
    out: &Value,
) -> Result<Option<Value>> {
    match op {
        BinaryOp::Complex => {
            let zero = ops::zeros_like(out);
            let tx = t[0]
                .clone()
                .map(|g| ops::convert(&g, DType::C64))
                .transpose()?;
            let ty = match &t[1] {
                Some(g) => Some(ops::binary(BinaryOp::Complex, &ops::zeros_like(g), g)?),
                None => None,
            };
            add_opt(tx, ty)?.map(|v| ops::add(&v, &zero)).transpose()
        }
        // Sums pass tangents through unscaled, as JAX's linear rules do
        // (no `mul 1.0` equations in a differentiated program).
        BinaryOp::Add | BinaryOp::Sub => {
            let shape = out.shape();
            let tx = match &t[0] {
                Some(g) => Some(ops::broadcast_to(g, &shape)?),
                None => None,
            };
            let ty = match (&t[1], op) {
                (Some(g), BinaryOp::Sub) => Some(ops::broadcast_to(&ops::neg(g)?, &shape)?),
                (Some(g), _) => Some(ops::broadcast_to(g, &shape)?),
                (None, _) => None,
            };
            add_opt(tx, ty)
        }
        BinaryOp::Div => {
            let shape = out.shape();
            let tx = match &t[0] {
                Some(g) => Some(ops::broadcast_to(&ops::div(g, &p[1])?, &shape)?),
                None => None,
            };
            let ty = match &t[1] {
                Some(g) => Some(ops::broadcast_to(&div_rhs_term(g, &p[0], &p[1])?, &shape)?),
                None => None,
            };
            add_opt(tx, ty)
        }
        _ => {
            let (dx, dy) = binary_partials(op, &p[0], &p[1], out)?;
            let tx = match (&t[0], dx) {
                (Some(g), Some(d)) => Some(ops::broadcast_to(&ops::mul(g, &d)?, &out.shape())?),
                _ => None,
            };
            let ty = match (&t[1], dy) {
                (Some(g), Some(d)) => Some(ops::broadcast_to(&ops::mul(g, &d)?, &out.shape())?),
                _ => None,
            };
            add_opt(tx, ty)
        }
    }
}

/// The tangent of `select(which, x, y)`: each branch's where it is chosen.
fn select_jvp(p: &[Value], t: &[Option<Value>], out: &Value) -> Result<Option<Value>> {
    let zero = scalar(0.0, DType::F32);
    let tx = match &t[1] {
        Some(g) => Some(ops::select(&p[0], g, &zero)?),
        None => None,
    };
    let ty = match &t[2] {
        Some(g) => Some(ops::select(&p[0], &zero, g)?),
        None => None,
    };
    add_opt(tx, ty)?
        .map(|v| ops::broadcast_to(&v, &out.shape()))
        .transpose()
}

fn pow_deriv(x: &Value, n: i32, g: &Value) -> Result<Value> {
    match n {
        0 => ops::mul_scalar(g, 0.0),
        1 => Ok(g.clone()),
        _ => ops::mul(g, &ops::mul_scalar(&ops::integer_pow(x, n - 1)?, n as f64)?),
    }
}

/// Adds two optional tangents (None is zero).
pub fn add_opt(a: Option<Value>, b: Option<Value>) -> Result<Option<Value>> {
    Ok(match (a, b) {
        (Some(a), Some(b)) => Some(ops::add(&a, &b)?),
        (a, None) => a,
        (None, b) => b,
    })
}

/// Where each operand of `clamp(min, x, max)` is the result, as JAX's
/// derivative rules choose: min where it exceeds x (and is below max), x
/// strictly between the bounds, max where it is below x.
fn clamp_masks(p: &[Value]) -> Result<[Value; 3]> {
    let (lo, x, hi) = (&p[0], &p[1], &p[2]);
    let and = |a: &Value, b: &Value| ops::binary(BinaryOp::And, a, b);
    Ok([
        and(&ops::greater(lo, x)?, &ops::less(lo, hi)?)?,
        and(&ops::greater(x, lo)?, &ops::less(x, hi)?)?,
        ops::less(hi, x)?,
    ])
}

/// The tangent of `clamp(min, x, max)`: each operand's where it is the result.
fn clamp_jvp(p: &[Value], t: &[Option<Value>], out: &Value) -> Result<Option<Value>> {
    let masks = clamp_masks(p)?;
    let mut total = None;
    for (g, mask) in t.iter().zip(&masks) {
        if let Some(g) = g {
            let g = ops::broadcast_to(g, &out.shape())?;
            let part = ops::select(mask, &g, &ops::zeros_like(&g))?;
            total = add_opt(total, Some(part))?;
        }
    }
    Ok(total)
}

/// The cotangents of `clamp(min, x, max)`, summed to each float operand's shape.
fn clamp_vjp(p: &[Value], ct: &Value) -> Result<Vec<Option<Value>>> {
    let masks = clamp_masks(p)?;
    let zero = ops::zeros_like(ct);
    let mut back = vec![];
    for (i, mask) in masks.iter().enumerate() {
        back.push(if is_float(&p[i]) {
            let c = ops::select(mask, ct, &zero)?;
            Some(to_dtype_of(ops::sum_to_shape(&c, &p[i].shape())?, &p[i])?)
        } else {
            None
        });
    }
    Ok(back)
}

/// Reverse-mode rule.
pub fn vjp(
    prim: &Prim,
    p: &[Value],
    outs: &[Value],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>> {
    let Some(ct) = &cts[0] else {
        return Ok(vec![None; p.len()]);
    };
    let out = &outs[0];
    Ok(match prim {
        Prim::Unary(op) => {
            vec![match complex_part_vjp(*op, ct) {
                Some(r) => Some(r?),
                None if is_float(&p[0]) => unary_deriv(*op, &p[0], out, ct, true)?,
                None => None,
            }]
        }
        Prim::Binary(op) => binary_vjp(*op, p, out, ct)?,
        Prim::IntegerPow(n) => vec![Some(pow_deriv(&p[0], *n, ct)?)],
        Prim::Select => {
            let zero = scalar(0.0, DType::F32);
            vec![
                None,
                back_to(&p[1], ops::select(&p[0], ct, &zero)?)?,
                back_to(&p[2], ops::select(&p[0], &zero, ct)?)?,
            ]
        }
        Prim::Clamp => clamp_vjp(p, ct)?,
        // A cotangent goes back in the operand's dtype (a complex one to a
        // real operand keeps its real part, as JAX's transpose converts).
        Prim::Convert(..) => vec![if is_float(&p[0]) {
            Some(to_dtype_of(ct.clone(), &p[0])?)
        } else {
            None
        }],
        _ => vec![None; p.len()],
    })
}

/// A cotangent summed to `primal`'s shape and given its dtype; none for an
/// operand that is not a float (it has no cotangent).
fn back_to(primal: &Value, c: Value) -> Result<Option<Value>> {
    if !is_float(primal) {
        return Ok(None);
    }
    let c = ops::sum_to_shape(&c, &primal.shape())?;
    Ok(Some(to_dtype_of(c, primal)?))
}

/// The cotangents of a binary primitive's operands.
fn binary_vjp(op: BinaryOp, p: &[Value], out: &Value, ct: &Value) -> Result<Vec<Option<Value>>> {
    Ok(match op {
        BinaryOp::Complex => {
            let re = ops::unary(UnaryOp::Real, ct)?;
            let im = ops::neg(&ops::unary(UnaryOp::Imag, ct)?)?;
            vec![
                Some(ops::sum_to_shape(&re, &p[0].shape())?),
                Some(ops::sum_to_shape(&im, &p[1].shape())?),
            ]
        }
        BinaryOp::Add | BinaryOp::Sub => {
            let cy = match op {
                BinaryOp::Sub => ops::neg(ct)?,
                _ => ct.clone(),
            };
            vec![back_to(&p[0], ct.clone())?, back_to(&p[1], cy)?]
        }
        BinaryOp::Div => {
            // The transposes of JAX's two tangent terms, factor by factor;
            // an integer divisor (a constant of the program) gets none, and
            // its negative power would not exist.
            let cy = if is_float(&p[1]) {
                let inv_square = ops::integer_pow(&p[1], -2)?;
                back_to(
                    &p[1],
                    ops::neg(&ops::mul(&ops::mul(ct, &inv_square)?, &p[0])?)?,
                )?
            } else {
                None
            };
            vec![back_to(&p[0], ops::div(ct, &p[1])?)?, cy]
        }
        _ => {
            let (dx, dy) = binary_partials(op, &p[0], &p[1], out)?;
            let back = |i: usize, d: Option<Value>| -> Result<Option<Value>> {
                match d {
                    Some(d) if is_float(&p[i]) => back_to(&p[i], ops::mul(ct, &d)?),
                    _ => Ok(None),
                }
            };
            vec![back(0, dx)?, back(1, dy)?]
        }
    })
}
