//! Elementwise operations: unary math, binary arithmetic and comparisons with
//! NumPy broadcasting and promotion, `where`, integer powers and dtype
//! conversion.
//!
//! Integer semantics follow what `jnp` does on XLA, which never traps:
//! arithmetic wraps, `x // 0` is XLA's division by zero (-1) with the floor
//! correction applied (so `5 // 0 == -2`, `0 // 0 == -1`), and `x % 0 == 0`.

use super::broadcast::broadcast_shapes;
use super::shape_ops::fmt_shape;
use super::strided::zip_broadcast;
use super::{special_fns, xla_math, xla_trig, Array, Buffer, DType, C64};
use crate::bail;
use crate::error::Result;
use std::sync::Arc;

pub use super::special::{erf, erf_inv};

/// A one-operand elementwise operation (`jnp` / `lax` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum UnaryOp {
    /// `-x`; wraps on int32, refused on bool.
    Neg,
    /// `|x|`; wraps on `i32::MIN`.
    Abs,
    /// -1, 0 or 1 (NaN stays NaN, -0. stays -0.).
    Sign,
    /// `e^x`.
    Exp,
    /// Natural logarithm.
    Log,
    /// `log(1 + x)`.
    Log1p,
    /// `e^x - 1`.
    Expm1,
    /// Square root.
    Sqrt,
    /// `1 / sqrt(x)`.
    Rsqrt,
    /// Hyperbolic tangent.
    Tanh,
    /// Inverse hyperbolic tangent (`jnp.arctanh`, `lax.atanh`).
    Atanh,
    /// `1 / (1 + e^-x)` (`jax.nn.sigmoid`).
    Logistic,
    /// Sine.
    Sin,
    /// Cosine.
    Cos,
    /// Tangent.
    Tan,
    /// Inverse sine (`jnp.arcsin`, `lax.asin`).
    Asin,
    /// Inverse cosine (`jnp.arccos`, `lax.acos`).
    Acos,
    /// Inverse tangent (`jnp.arctan`, `lax.atan`).
    Atan,
    /// Hyperbolic sine.
    Sinh,
    /// Hyperbolic cosine.
    Cosh,
    /// Inverse hyperbolic sine (`jnp.arcsinh`, `lax.asinh`).
    Asinh,
    /// Inverse hyperbolic cosine (`jnp.arccosh`, `lax.acosh`).
    Acosh,
    /// Cube root.
    Cbrt,
    /// Round toward -inf (identity on integers).
    Floor,
    /// Round toward +inf (identity on integers).
    Ceil,
    /// Round half to even, as `jnp.round` (identity on integers).
    Round,
    /// Logical not on bool, bitwise not on int32.
    Not,
    /// The error function.
    Erf,
    /// The inverse error function.
    ErfInv,
    /// `lax.lgamma`: `log |Γ(x)|`.
    Lgamma,
    /// `lax.digamma`: `d/dx lgamma(x)`.
    Digamma,
    /// `lax.erfc`: `1 - erf(x)`.
    Erfc,
    /// `lax.bessel_i0e`: `exp(-|x|) I0(x)`.
    BesselI0e,
    /// `lax.bessel_i1e`: `exp(-|x|) I1(x)`.
    BesselI1e,
    /// `jnp.isfinite`: a bool, always true for integers.
    IsFinite,
    /// `lax.real`: the real part of a complex64 (a float32).
    Real,
    /// `lax.imag`: the imaginary part of a complex64 (a float32).
    Imag,
    /// `lax.conj`: the complex conjugate.
    Conj,
}

impl UnaryOp {
    /// The `jnp` name, used in messages.
    pub fn name(self) -> &'static str {
        use UnaryOp::*;
        match self {
            Neg => "negative",
            Abs => "abs",
            Sign => "sign",
            Exp => "exp",
            Log => "log",
            Log1p => "log1p",
            Expm1 => "expm1",
            Sqrt => "sqrt",
            Rsqrt => "rsqrt",
            Tanh => "tanh",
            Atanh => "arctanh",
            Logistic => "logistic",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "arcsin",
            Acos => "arccos",
            Atan => "arctan",
            Sinh => "sinh",
            Cosh => "cosh",
            Asinh => "arcsinh",
            Acosh => "arccosh",
            Cbrt => "cbrt",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Not => "invert",
            Erf => "erf",
            ErfInv => "erf_inv",
            Lgamma => "lgamma",
            Digamma => "digamma",
            Erfc => "erfc",
            BesselI0e => "bessel_i0e",
            BesselI1e => "bessel_i1e",
            IsFinite => "isfinite",
            Real => "real",
            Imag => "imag",
            Conj => "conj",
        }
    }

    fn apply_f32(self, x: f32) -> f32 {
        use UnaryOp::*;
        match self {
            Neg => -x,
            Abs => x.abs(),
            Sign => {
                if x.is_nan() || x == 0.0 {
                    x
                } else {
                    x.signum()
                }
            }
            // XLA's own approximations, so the printed digits match JAX.
            Exp => xla_math::exp(x),
            Log => xla_math::log(x),
            Log1p => xla_math::log1p(x),
            Expm1 => xla_math::expm1(x),
            Sqrt => xla_math::sqrt(x),
            Rsqrt => xla_math::rsqrt(x),
            Tanh => xla_math::tanh(x),
            Atanh => xla_math::atanh(x),
            Logistic => xla_math::logistic(x),
            Sin => xla_math::sin(x),
            Cos => xla_math::cos(x),
            Tan => xla_trig::tan(x),
            Asin => xla_trig::asin(x),
            Acos => xla_trig::acos(x),
            Atan => xla_trig::atan(x),
            Sinh => xla_trig::sinh(x),
            Cosh => xla_trig::cosh(x),
            Asinh => xla_trig::asinh(x),
            Acosh => xla_trig::acosh(x),
            Cbrt => xla_trig::cbrt(x),
            Floor => x.floor(),
            Ceil => x.ceil(),
            Round => x.round_ties_even(),
            Erf => erf(x),
            ErfInv => erf_inv(x),
            Lgamma => special_fns::lgamma(x),
            Digamma => special_fns::digamma(x),
            Erfc => special_fns::erfc(x),
            BesselI0e => special_fns::bessel_i0e(x),
            BesselI1e => special_fns::bessel_i1e(x),
            Not | IsFinite | Real | Imag | Conj => {
                unreachable!("not a float-valued operation")
            }
        }
    }
}

/// A two-operand elementwise operation (`jnp` / `lax` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum BinaryOp {
    /// `x + y` (logical or on bool).
    Add,
    /// `x - y` (refused on two bools, as NumPy does).
    Sub,
    /// `x * y` (logical and on bool).
    Mul,
    /// True division: integers divide as float32.
    Div,
    /// `x // y`: floor of the quotient (Python/NumPy sign convention).
    FloorDiv,
    /// `x % y`: remainder with the divisor's sign.
    Rem,
    /// `x ** y`.
    Pow,
    /// `jnp.maximum` (NaN propagates).
    Max,
    /// `jnp.minimum` (NaN propagates).
    Min,
    /// `jnp.arctan2(y=x, x=other)`.
    Atan2,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `&`: logical on bool, bitwise on integers.
    And,
    /// `|`: logical on bool, bitwise on int32.
    Or,
    /// `^`: logical on bool, bitwise on int32.
    Xor,
    /// `lax.complex(x, y)`: `x + y*1j` from two float32 operands.
    Complex,
    /// `lax.shift_left` (`<<`): zero when the shift is the bit width or more.
    ShiftLeft,
    /// `lax.shift_right_logical` (`>>` on uint32): zero-filling.
    ShiftRightLogical,
    /// `lax.shift_right_arithmetic` (`>>` on int32): sign-filling.
    ShiftRightArithmetic,
}

impl BinaryOp {
    /// The `jnp` name, used in messages.
    pub fn name(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "add",
            Sub => "subtract",
            Mul => "multiply",
            Div => "true_divide",
            FloorDiv => "floor_divide",
            Rem => "remainder",
            Pow => "power",
            Max => "maximum",
            Min => "minimum",
            Atan2 => "arctan2",
            Eq => "equal",
            Ne => "not_equal",
            Lt => "less",
            Le => "less_equal",
            Gt => "greater",
            Ge => "greater_equal",
            And => "bitwise_and",
            Or => "bitwise_or",
            Xor => "bitwise_xor",
            Complex => "complex",
            ShiftLeft => "left_shift",
            ShiftRightLogical | ShiftRightArithmetic => "right_shift",
        }
    }

    /// The operation `jnp` applies to operands of `dtype`: `>>` is the
    /// logical shift on uint32 and the arithmetic one on int32.
    pub fn for_dtype(self, dtype: DType) -> BinaryOp {
        match self {
            BinaryOp::ShiftRightArithmetic | BinaryOp::ShiftRightLogical if dtype == DType::U32 => {
                BinaryOp::ShiftRightLogical
            }
            BinaryOp::ShiftRightLogical => BinaryOp::ShiftRightArithmetic,
            op => op,
        }
    }

    /// True for the three shifts, which only integers accept.
    pub fn is_shift(self) -> bool {
        use BinaryOp::*;
        matches!(self, ShiftLeft | ShiftRightLogical | ShiftRightArithmetic)
    }

    /// True for the six comparisons, which produce bool.
    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(self, Eq | Ne | Lt | Le | Gt | Ge)
    }
}

fn compare<T: PartialOrd>(op: BinaryOp, a: T, b: T) -> bool {
    use BinaryOp::*;
    match op {
        Eq => a == b,
        Ne => a != b,
        Lt => a < b,
        Le => a <= b,
        Gt => a > b,
        Ge => a >= b,
        _ => unreachable!("not a comparison"),
    }
}

/// XLA's integer division: truncating, wrapping on `MIN / -1`, -1 when
/// dividing by zero.
fn xla_div(a: i32, b: i32) -> i32 {
    if b == 0 {
        -1
    } else {
        a.wrapping_div(b)
    }
}

/// XLA's integer remainder: sign of the dividend, `x rem 0 == x`.
fn xla_rem(a: i32, b: i32) -> i32 {
    if b == 0 {
        a
    } else {
        a.wrapping_rem(b)
    }
}

/// `jnp.floor_divide` on int32, built on XLA's division as jnp does.
fn floor_div_i32(a: i32, b: i32) -> i32 {
    let q = xla_div(a, b);
    let r = xla_rem(a, b);
    if r != 0 && a.signum() != b.signum() {
        q.wrapping_sub(1)
    } else {
        q
    }
}

/// `jnp.remainder` on int32: the divisor's sign, and 0 for a zero divisor.
fn rem_i32(a: i32, b: i32) -> i32 {
    if b == 0 {
        return 0;
    }
    let r = a.wrapping_rem(b);
    if r != 0 && (r < 0) != (b < 0) {
        r.wrapping_add(b)
    } else {
        r
    }
}

/// XLA's unsigned division: all ones when dividing by zero.
fn floor_div_u32(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(u32::MAX)
}

/// `jnp.remainder` on uint32: 0 for a zero divisor, as on int32.
fn rem_u32(a: u32, b: u32) -> u32 {
    a.checked_rem(b).unwrap_or(0)
}

/// `jnp.power` on uint32: square-and-multiply over the exponent's low 6
/// bits, wrapping.
fn pow_u32(mut x: u32, y: u32) -> u32 {
    let mut e = y;
    let mut acc = if x == 0 && y != 0 { 0 } else { 1u32 };
    for _ in 0..6 {
        if e & 1 == 1 {
            acc = acc.wrapping_mul(x);
        }
        x = x.wrapping_mul(x);
        e >>= 1;
    }
    acc
}

/// XLA's shifts on 32-bit words: a shift by the bit width or more (or a
/// negative one, read as unsigned) gives 0, or the sign fill for the
/// arithmetic shift.
fn shift_u32(op: BinaryOp, a: u32, b: u32) -> u32 {
    match op {
        BinaryOp::ShiftLeft => a.checked_shl(b).unwrap_or(0),
        BinaryOp::ShiftRightLogical => a.checked_shr(b).unwrap_or(0),
        _ => (a as i32).checked_shr(b).unwrap_or((a as i32) >> 31) as u32,
    }
}

/// `jnp.power` on int32 as JAX computes it: square-and-multiply over the
/// exponent's low 6 bits only (any larger power overflows for |x| > 1), and
/// `0 ** y == 0` for `y != 0`. Negative exponents thus give JAX's wrapped
/// values rather than an error.
/// Wrapping products are the same on the two's-complement bits, so this is
/// [`pow_u32`] on them.
fn pow_i32(x: i32, y: i32) -> i32 {
    pow_u32(x as u32, y as u32) as i32
}

/// NumPy's float floor division (via fmod, so the quotient is consistent with
/// the remainder); a zero divisor gives `x / 0`.
fn floor_div_f32(a: f32, b: f32) -> f32 {
    if b == 0.0 {
        return a / b;
    }
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && (b < 0.0) != (m < 0.0) {
        div -= 1.0;
    }
    if div == 0.0 {
        return 0.0f32.copysign(a / b);
    }
    let f = div.floor();
    if div - f > 0.5 {
        f + 1.0
    } else {
        f
    }
}

/// `jnp.remainder` on float32: the divisor's sign (NaN for a zero divisor).
fn rem_f32(a: f32, b: f32) -> f32 {
    let r = a % b;
    if r != 0.0 && (r < 0.0) != (b < 0.0) {
        r + b
    } else {
        r
    }
}

/// `jnp.maximum`: NaN propagates; 0. beats -0.
fn max_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if a > b || (a == b && b.is_sign_negative()) {
        a
    } else {
        b
    }
}

/// `jnp.minimum`: NaN propagates; -0. beats 0.
fn min_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if a < b || (a == b && a.is_sign_negative()) {
        a
    } else {
        b
    }
}

/// A float32 binary operation over broadcast operands. The four arithmetic
/// operations get loops of their own, free of an indirect call per element; the
/// others go through the function pointer `f`.
fn float_binary(
    op: BinaryOp,
    x: &[f32],
    sx: &[usize],
    y: &[f32],
    sy: &[usize],
    shape: &[usize],
    f: fn(f32, f32) -> f32,
) -> Arc<[f32]> {
    match op {
        BinaryOp::Add => zip_broadcast(x, sx, y, sy, shape, |p, q| p + q),
        BinaryOp::Sub => zip_broadcast(x, sx, y, sy, shape, |p, q| p - q),
        BinaryOp::Mul => zip_broadcast(x, sx, y, sy, shape, |p, q| p * q),
        BinaryOp::Div => zip_broadcast(x, sx, y, sy, shape, |p, q| p / q),
        _ => zip_broadcast(x, sx, y, sy, shape, f),
    }
}

impl Array {
    /// Applies a unary operation. Transcendental operations on int32 or bool
    /// compute in float32, as `jnp` promotes them.
    pub fn unary(&self, op: UnaryOp) -> Result<Array> {
        use UnaryOp::*;
        let shape = self.shape();
        if let Buffer::C64(d) = self.buffer() {
            return complex_unary(op, d, shape);
        }
        if matches!(op, Real | Imag | Conj) {
            bail!(
                TypeError,
                "{} does not accept dtype {}. Accepted dtypes are subtypes of complexfloating.",
                op.name(),
                self.dtype().name()
            );
        }
        let buffer = match (op, self.buffer()) {
            (IsFinite, Buffer::F32(d)) => Buffer::Bool(d.iter().map(|v| v.is_finite()).collect()),
            (IsFinite, _) => Buffer::Bool(vec![true; self.size()].into()),
            (Not, Buffer::Bool(d)) => Buffer::Bool(d.iter().map(|&v| !v).collect()),
            (Not, Buffer::I32(d)) => Buffer::I32(d.iter().map(|&v| !v).collect()),
            (Not, Buffer::U32(d)) => Buffer::U32(d.iter().map(|&v| !v).collect()),
            (Neg, Buffer::U32(d)) => Buffer::U32(d.iter().map(|v| v.wrapping_neg()).collect()),
            (Sign, Buffer::U32(d)) => Buffer::U32(d.iter().map(|&v| (v != 0) as u32).collect()),
            (Floor | Ceil | Round | Abs, Buffer::U32(_)) => self.buffer().clone(),
            (Not, Buffer::F32(_)) => bail!(
                TypeError,
                "invert is only defined for integer and boolean types, got a float32 array of shape {}",
                fmt_shape(shape)
            ),
            (Neg, Buffer::Bool(_)) => bail!(
                TypeError,
                "negative is not supported for bool arrays (shape {}); use logical_not",
                fmt_shape(shape)
            ),
            (Neg, Buffer::I32(d)) => Buffer::I32(d.iter().map(|v| v.wrapping_neg()).collect()),
            (Abs, Buffer::I32(d)) => Buffer::I32(d.iter().map(|v| v.wrapping_abs()).collect()),
            (Sign, Buffer::I32(d)) => Buffer::I32(d.iter().map(|v| v.signum()).collect()),
            (Floor | Ceil | Round, Buffer::I32(_) | Buffer::Bool(_))
            | (Abs | Sign, Buffer::Bool(_)) => self.buffer().clone(),
            (_, Buffer::F32(d)) => Buffer::F32(d.iter().map(|&v| op.apply_f32(v)).collect()),
            (_, _) => return self.astype(DType::F32).unary(op),
        };
        Array::from_buffer(shape, buffer)
    }

    /// Applies a binary operation with broadcasting and JAX's promotion
    /// ([`DType::promote_weak`], reading the operands' weak bits).
    /// Comparisons give bool; `Div` and `Atan2` of integers give float32.
    pub fn binary(&self, op: BinaryOp, other: &Array) -> Result<Array> {
        use BinaryOp::*;
        let shape = broadcast_shapes(self.shape(), other.shape()).map_err(|_| {
            crate::err!(
                ValueError,
                "{}: shapes {} and {} cannot be broadcast together",
                op.name(),
                fmt_shape(self.shape()),
                fmt_shape(other.shape())
            )
        })?;
        let mut dtype = self
            .dtype()
            .promote_weak(self.is_weak(), other.dtype(), other.is_weak());
        if op == Complex {
            return complex_from_parts(self, other, &shape);
        }
        if dtype == DType::C64 {
            return complex_binary(op, self, other, &shape);
        }
        if matches!(op, Div | Atan2) {
            dtype = DType::F32;
        }
        check_binary(op, dtype, self.shape(), other.shape())?;
        // Bool arithmetic runs on 0/1 integers.
        let compute =
            if dtype == DType::Bool && !matches!(op, And | Or | Xor) && !op.is_comparison() {
                DType::I32
            } else {
                dtype
            };
        let a = self.astype(compute);
        let mut b = other.astype(compute);
        let mut op = op;
        // XLA divides by a broadcast divisor (a scalar, or a size-1
        // dimension) by multiplying with its reciprocal, computed once: JAX
        // on CPU gives `47. / 5` as 9.400001, not 9.4.
        if op == Div && compute == DType::F32 && b.shape() != shape.as_slice() {
            if let Buffer::F32(y) = b.buffer() {
                let recip: Vec<f32> = y.iter().map(|q| 1.0 / q).collect();
                b = Array::from_buffer(b.shape(), Buffer::F32(recip.into()))?;
                op = Mul;
            }
        }
        let buffer = binary_buffer(op, &a, &b, &shape);
        let out = Array::from_buffer(&shape, buffer)?;
        // Bool operands: add/mul/max/min return bool as in jnp; floor_divide,
        // remainder and power return int32 (jnp's int8 is not represented).
        if dtype == DType::Bool && compute == DType::I32 && matches!(op, Add | Mul | Max | Min) {
            return Ok(out.astype(DType::Bool));
        }
        Ok(out)
    }

    /// `lax.integer_pow(x, n)`: repeated multiplication by squaring (so `n = 2`
    /// is exactly `x * x`); a negative `n` takes the reciprocal of `x^|n|`,
    /// which int32 refuses.
    pub fn integer_pow(&self, n: i32) -> Result<Array> {
        fn pow_by_squaring<T: Copy + std::ops::Mul<Output = T>>(x: T, mut e: u32, one: T) -> T {
            let mut acc: Option<T> = None;
            let mut base = x;
            while e > 0 {
                if e & 1 == 1 {
                    acc = Some(match acc {
                        None => base,
                        Some(a) => a * base,
                    });
                }
                e >>= 1;
                if e > 0 {
                    base = base * base;
                }
            }
            acc.unwrap_or(one)
        }
        let e = n.unsigned_abs();
        match self.buffer() {
            Buffer::C64(d) => {
                let out: Vec<super::C64> = d.iter().map(|x| x.powi(n)).collect();
                Array::from_buffer(self.shape(), Buffer::C64(out.into()))
            }
            Buffer::F32(d) => {
                let out: Vec<f32> = d
                    .iter()
                    .map(|&x| {
                        let p = pow_by_squaring(x, e, 1.0f32);
                        if n < 0 {
                            1.0 / p
                        } else {
                            p
                        }
                    })
                    .collect();
                Array::from_f32(self.shape(), out)
            }
            Buffer::I32(d) => {
                if n < 0 {
                    bail!(
                        ValueError,
                        "integer_pow: integers to negative integer powers are not allowed (exponent {n}, int32 operand of shape {})",
                        fmt_shape(self.shape())
                    );
                }
                #[derive(Clone, Copy)]
                struct W(i32);
                impl std::ops::Mul for W {
                    type Output = W;
                    fn mul(self, o: W) -> W {
                        W(self.0.wrapping_mul(o.0))
                    }
                }
                let out: Vec<i32> = d
                    .iter()
                    .map(|&x| pow_by_squaring(W(x), e, W(1)).0)
                    .collect();
                Array::from_i32(self.shape(), out)
            }
            Buffer::U32(d) => {
                if n < 0 {
                    bail!(
                        ValueError,
                        "integer_pow: integers to negative integer powers are not allowed (exponent {n}, uint32 operand of shape {})",
                        fmt_shape(self.shape())
                    );
                }
                let out: Vec<u32> = d.iter().map(|&x| x.wrapping_pow(e)).collect();
                Array::from_u32(self.shape(), out)
            }
            Buffer::Bool(_) => self.astype(DType::I32).integer_pow(n),
        }
    }

    /// `jnp.where(cond, on_true, on_false)`: all three broadcast together;
    /// `cond` is taken as `cond != 0`; the branches promote.
    pub fn select(cond: &Array, on_true: &Array, on_false: &Array) -> Result<Array> {
        let fail = || {
            crate::err!(
                ValueError,
                "where: shapes {}, {} and {} cannot be broadcast together",
                fmt_shape(cond.shape()),
                fmt_shape(on_true.shape()),
                fmt_shape(on_false.shape())
            )
        };
        let s = broadcast_shapes(on_true.shape(), on_false.shape()).map_err(|_| fail())?;
        let shape = broadcast_shapes(cond.shape(), &s).map_err(|_| fail())?;
        let dtype = on_true.dtype().promote(on_false.dtype());
        let c = cond.astype(DType::Bool).broadcast_to(&shape)?;
        let t = on_true.astype(dtype).broadcast_to(&shape)?;
        let f = on_false.astype(dtype).broadcast_to(&shape)?;
        let c = c.bool_data()?;
        fn pick<T: Copy>(c: &[bool], t: &[T], f: &[T]) -> Vec<T> {
            c.iter()
                .zip(t.iter().zip(f))
                .map(|(&c, (&t, &f))| if c { t } else { f })
                .collect()
        }
        let buffer = match (t.buffer(), f.buffer()) {
            (Buffer::F32(t), Buffer::F32(f)) => Buffer::F32(pick(c, t, f).into()),
            (Buffer::I32(t), Buffer::I32(f)) => Buffer::I32(pick(c, t, f).into()),
            (Buffer::U32(t), Buffer::U32(f)) => Buffer::U32(pick(c, t, f).into()),
            (Buffer::Bool(t), Buffer::Bool(f)) => Buffer::Bool(pick(c, t, f).into()),
            (Buffer::C64(t), Buffer::C64(f)) => Buffer::C64(pick(c, t, f).into()),
            _ => unreachable!("both branches were cast to one dtype"),
        };
        Array::from_buffer(&shape, buffer)
    }

    /// `x.astype(dtype)`: float to int truncates toward zero (saturating, NaN
    /// to 0, as XLA converts: -1.5 becomes uint32 0); int32 and uint32 keep
    /// their bits (-1 is 4294967295); anything to bool is `x != 0`; bool to
    /// number is 0/1.
    pub fn astype(&self, dtype: DType) -> Array {
        if self.dtype() == dtype {
            return self.clone();
        }
        if self.dtype().is_narrow() || dtype.is_narrow() {
            return super::narrow::astype(self, dtype);
        }
        let buffer = match (self.buffer(), dtype) {
            (Buffer::F32(d), DType::I32) => Buffer::I32(d.iter().map(|&v| v as i32).collect()),
            (Buffer::F32(d), DType::Bool) => Buffer::Bool(d.iter().map(|&v| v != 0.0).collect()),
            (Buffer::I32(d), DType::F32) => Buffer::F32(d.iter().map(|&v| v as f32).collect()),
            (Buffer::I32(d), DType::Bool) => Buffer::Bool(d.iter().map(|&v| v != 0).collect()),
            (Buffer::Bool(d), DType::F32) => {
                Buffer::F32(d.iter().map(|&v| v as u8 as f32).collect())
            }
            (Buffer::Bool(d), DType::I32) => Buffer::I32(d.iter().map(|&v| v as i32).collect()),
            (Buffer::F32(d), DType::U32) => Buffer::U32(d.iter().map(|&v| v as u32).collect()),
            (Buffer::I32(d), DType::U32) => Buffer::U32(d.iter().map(|&v| v as u32).collect()),
            (Buffer::Bool(d), DType::U32) => Buffer::U32(d.iter().map(|&v| v as u32).collect()),
            (Buffer::U32(d), DType::I32) => Buffer::I32(d.iter().map(|&v| v as i32).collect()),
            (Buffer::U32(d), DType::F32) => Buffer::F32(d.iter().map(|&v| v as f32).collect()),
            (Buffer::U32(d), DType::Bool) => Buffer::Bool(d.iter().map(|&v| v != 0).collect()),
            // A real value gets a zero imaginary part; a complex one keeps
            // its real part (what JAX does, with a ComplexWarning).
            (_, DType::C64) => Buffer::C64(
                self.astype(DType::F32)
                    .to_f64_vec()
                    .iter()
                    .map(|&v| C64::real(v as f32))
                    .collect(),
            ),
            (Buffer::C64(d), DType::Bool) => {
                Buffer::Bool(d.iter().map(|v| v.re != 0.0 || v.im != 0.0).collect())
            }
            (Buffer::C64(d), _) => {
                let re: Vec<f32> = d.iter().map(|v| v.re).collect();
                return Array::from_buffer(self.shape(), Buffer::F32(re.into()))
                    .expect("conversion keeps the element count")
                    .astype(dtype);
            }
            _ => unreachable!("same-dtype conversion returned above"),
        };
        Array::from_buffer(self.shape(), buffer).expect("conversion keeps the element count")
    }
}

/// The dtype errors of `op` on operands of `dtype` (shapes `sa`, `sb`), as
/// jnp raises them.
fn check_binary(op: BinaryOp, dtype: DType, sa: &[usize], sb: &[usize]) -> Result<()> {
    use BinaryOp::*;
    if dtype == DType::Bool && matches!(op, Sub) {
        bail!(
            TypeError,
            "subtract: the numpy boolean subtract, the `-` operator, is not supported on two bool arrays (shapes {} and {}); use logical_xor",
            fmt_shape(sa),
            fmt_shape(sb)
        );
    }
    if op.is_shift() && !dtype.is_int() {
        bail!(
            TypeError,
            "{} is only defined for integer types, got {} operands of shapes {} and {}",
            op.name(),
            dtype.name(),
            fmt_shape(sa),
            fmt_shape(sb)
        );
    }
    if dtype == DType::F32 && matches!(op, And | Or | Xor) {
        bail!(
            TypeError,
            "{} is only defined for integer and boolean types, got float32 operands of shapes {} and {}",
            op.name(),
            fmt_shape(sa),
            fmt_shape(sb)
        );
    }
    Ok(())
}

/// `op` on `a` and `b` (cast to one dtype), broadcast to `shape`.
fn binary_buffer(op: BinaryOp, a: &Array, b: &Array, shape: &[usize]) -> Buffer {
    use BinaryOp::*;
    let (sa, sb) = (a.shape(), b.shape());
    match (a.buffer(), b.buffer()) {
        (Buffer::F32(x), Buffer::F32(y)) => {
            if op.is_comparison() {
                Buffer::Bool(zip_broadcast(x, sa, y, sb, shape, |p, q| compare(op, p, q)))
            } else {
                let f: fn(f32, f32) -> f32 = match op {
                    Add => |p, q| p + q,
                    Sub => |p, q| p - q,
                    Mul => |p, q| p * q,
                    Div => |p, q| p / q,
                    FloorDiv => floor_div_f32,
                    Rem => rem_f32,
                    Pow => xla_math::pow,
                    Max => max_f32,
                    Min => min_f32,
                    Atan2 => xla_math::atan2,
                    _ => unreachable!("handled above"),
                };
                Buffer::F32(float_binary(op, x, sa, y, sb, shape, f))
            }
        }
        (Buffer::I32(x), Buffer::I32(y)) => {
            if op.is_comparison() {
                Buffer::Bool(zip_broadcast(x, sa, y, sb, shape, |p, q| compare(op, p, q)))
            } else {
                let f: fn(i32, i32) -> i32 = match op {
                    Add => i32::wrapping_add,
                    Sub => i32::wrapping_sub,
                    Mul => i32::wrapping_mul,
                    FloorDiv => floor_div_i32,
                    Rem => rem_i32,
                    Pow => pow_i32,
                    Max => |p, q| p.max(q),
                    Min => |p, q| p.min(q),
                    And => |p, q| p & q,
                    Or => |p, q| p | q,
                    Xor => |p, q| p ^ q,
                    ShiftLeft => |p, q| shift_u32(ShiftLeft, p as u32, q as u32) as i32,
                    ShiftRightLogical => {
                        |p, q| shift_u32(ShiftRightLogical, p as u32, q as u32) as i32
                    }
                    ShiftRightArithmetic => {
                        |p, q| shift_u32(ShiftRightArithmetic, p as u32, q as u32) as i32
                    }
                    _ => unreachable!("float-valued operations compute in f32"),
                };
                Buffer::I32(zip_broadcast(x, sa, y, sb, shape, f))
            }
        }
        (Buffer::U32(x), Buffer::U32(y)) => u32_binary(op, x, sa, y, sb, shape),
        (Buffer::Bool(x), Buffer::Bool(y)) => {
            Buffer::Bool(zip_broadcast(x, sa, y, sb, shape, |p, q| match op {
                And => p & q,
                Or => p | q,
                Xor => p ^ q,
                _ => compare(op, p, q),
            }))
        }
        _ => unreachable!("both operands were cast to one dtype"),
    }
}

/// A binary operation on uint32 elements: wrapping arithmetic, XLA's
/// unsigned division, bitwise operations and shifts.
fn u32_binary(
    op: BinaryOp,
    x: &[u32],
    sa: &[usize],
    y: &[u32],
    sb: &[usize],
    shape: &[usize],
) -> Buffer {
    use BinaryOp::*;
    if op.is_comparison() {
        return Buffer::Bool(zip_broadcast(x, sa, y, sb, shape, |p, q| compare(op, p, q)));
    }
    let f: fn(u32, u32) -> u32 = match op {
        Add => u32::wrapping_add,
        Sub => u32::wrapping_sub,
        Mul => u32::wrapping_mul,
        FloorDiv => floor_div_u32,
        Rem => rem_u32,
        Pow => pow_u32,
        Max => |p, q| p.max(q),
        Min => |p, q| p.min(q),
        And => |p, q| p & q,
        Or => |p, q| p | q,
        Xor => |p, q| p ^ q,
        ShiftLeft => |p, q| shift_u32(ShiftLeft, p, q),
        ShiftRightLogical => |p, q| shift_u32(ShiftRightLogical, p, q),
        ShiftRightArithmetic => |p, q| shift_u32(ShiftRightArithmetic, p, q),
        _ => unreachable!("float-valued operations compute in f32"),
    };
    Buffer::U32(zip_broadcast(x, sa, y, sb, shape, f))
}

/// A unary operation on complex64 elements: the arithmetic and elementary
/// functions JAX defines on complex numbers; the rest are refused.
fn complex_unary(op: UnaryOp, d: &[C64], shape: &[usize]) -> Result<Array> {
    use UnaryOp::*;
    let real = |f: fn(C64) -> f32| Buffer::F32(d.iter().map(|&z| f(z)).collect());
    let map = |f: fn(C64) -> C64| Buffer::C64(d.iter().map(|&z| f(z)).collect());
    let buffer = match op {
        Neg => map(|z| -z),
        Conj => map(C64::conj),
        Exp => map(C64::exp),
        Log => map(C64::ln),
        Sin => map(C64::sin),
        Cos => map(C64::cos),
        Sqrt => map(C64::sqrt),
        Tan => map(C64::tan),
        Tanh => map(C64::tanh),
        Sinh => map(C64::sinh),
        Cosh => map(C64::cosh),
        Asin => map(C64::asin),
        Acos => map(C64::acos),
        Atan => map(C64::atan),
        Asinh => map(C64::asinh),
        Acosh => map(C64::acosh),
        Atanh => map(C64::atanh),
        Sign => map(C64::sign),
        Log1p => map(C64::ln_1p),
        Expm1 => map(C64::exp_m1),
        Abs => real(C64::abs),
        Real => real(|z| z.re),
        Imag => real(|z| z.im),
        IsFinite => Buffer::Bool(
            d.iter()
                .map(|z| z.re.is_finite() && z.im.is_finite())
                .collect(),
        ),
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: complex64 in {}",
            other.name()
        ),
    };
    Array::from_buffer(shape, buffer)
}

/// A binary operation with a complex64 result or complex64 operands:
/// arithmetic and (in)equality; the orderings are undefined on complex
/// numbers and the rest are not modelled.
fn complex_binary(op: BinaryOp, x: &Array, y: &Array, shape: &[usize]) -> Result<Array> {
    use BinaryOp::*;
    let a = x.astype(DType::C64);
    let b = y.astype(DType::C64);
    let (p, q) = (a.c64_data()?, b.c64_data()?);
    let (sa, sb) = (a.shape(), b.shape());
    let buffer = match op {
        Add => Buffer::C64(zip_broadcast(p, sa, q, sb, shape, |a, b| a + b)),
        Sub => Buffer::C64(zip_broadcast(p, sa, q, sb, shape, |a, b| a - b)),
        Mul => Buffer::C64(zip_broadcast(p, sa, q, sb, shape, |a, b| a * b)),
        Div => Buffer::C64(zip_broadcast(p, sa, q, sb, shape, |a, b| a / b)),
        Eq => Buffer::Bool(zip_broadcast(p, sa, q, sb, shape, |u, v| u == v)),
        Ne => Buffer::Bool(zip_broadcast(p, sa, q, sb, shape, |u, v| u != v)),
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: complex64 in {}",
            other.name()
        ),
    };
    Array::from_buffer(shape, buffer)
}

/// `lax.complex(x, y)`: both operands must be float32.
fn complex_from_parts(x: &Array, y: &Array, shape: &[usize]) -> Result<Array> {
    if x.dtype() != DType::F32 || y.dtype() != DType::F32 {
        bail!(
            TypeError,
            "complex does not accept dtype {}. Accepted dtypes are subtypes of floating.",
            if x.dtype() != DType::F32 {
                x.dtype()
            } else {
                y.dtype()
            }
            .name()
        );
    }
    let (p, q) = (x.f32_data()?, y.f32_data()?);
    let z = zip_broadcast(p, x.shape(), q, y.shape(), shape, C64::new);
    Array::from_buffer(shape, Buffer::C64(z))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: &[f32]) -> Array {
        Array::from_f32(&[v.len()], v.to_vec()).unwrap()
    }

    fn i(v: &[i32]) -> Array {
        Array::from_i32(&[v.len()], v.to_vec()).unwrap()
    }

    #[test]
    fn integer_floor_division_and_remainder_follow_jax() {
        // jnp on int32 in JAX 0.10.2: a // b and a % b.
        let a = i(&[7, -7, 7, -7, 0, 5, -7, i32::MIN]);
        let b = i(&[2, 2, -2, -2, 0, 0, 0, -1]);
        let q = a.binary(BinaryOp::FloorDiv, &b).unwrap();
        assert_eq!(q.i32_data().unwrap(), &[3, -4, -4, 3, -1, -2, -2, i32::MIN]);
        let r = a.binary(BinaryOp::Rem, &b).unwrap();
        assert_eq!(r.i32_data().unwrap(), &[1, 1, -1, -1, 0, 0, 0, 0]);
        let d = a.binary(BinaryOp::Div, &b).unwrap();
        assert_eq!(d.dtype(), DType::F32);
        assert_eq!(d.f32_data().unwrap()[..2], [3.5, -3.5]);
    }

    #[test]
    fn float_floor_division_and_remainder() {
        let a = f(&[7., -7., 1., -1., 0., -0.]);
        let b = f(&[2., 2., 0., 0., 0., 3.]);
        let q = a.binary(BinaryOp::FloorDiv, &b).unwrap();
        let q = q.f32_data().unwrap();
        assert_eq!(q[..4], [3., -4., f32::INFINITY, f32::NEG_INFINITY]);
        assert!(q[4].is_nan());
        let r = a.binary(BinaryOp::Rem, &b).unwrap();
        let r = r.f32_data().unwrap();
        assert_eq!(r[..2], [1., 1.]);
        assert!(r[2].is_nan());
        assert!(r[5] == 0.0 && r[5].is_sign_negative());
    }

    #[test]
    fn broadcasting_errors_name_both_shapes() {
        let a = Array::zeros(&[3, 4], DType::F32);
        let e = a
            .binary(BinaryOp::Add, &f(&[1., 2., 3., 4., 5.]))
            .unwrap_err();
        assert_eq!(
            e.message,
            "add: shapes (3, 4) and (5,) cannot be broadcast together"
        );
        let ok = a.binary(BinaryOp::Mul, &f(&[1., 2., 3., 4.])).unwrap();
        assert_eq!(ok.shape(), &[3, 4]);
    }

    #[test]
    fn promotion_and_comparisons() {
        let s = i(&[1, 2]).binary(BinaryOp::Add, &f(&[0.5, 0.5])).unwrap();
        assert_eq!(s.dtype(), DType::F32);
        assert_eq!(s.to_f64_vec(), vec![1.5, 2.5]);
        let c = i(&[1, 2]).binary(BinaryOp::Lt, &f(&[1.5, 1.5])).unwrap();
        assert_eq!(c.bool_data().unwrap(), &[true, false]);
        let t = Array::from_bool(&[2], vec![true, false]).unwrap();
        let tt = t.binary(BinaryOp::Add, &t).unwrap();
        assert_eq!(tt.bool_data().unwrap(), &[true, false]);
        assert!(t.binary(BinaryOp::Sub, &t).is_err());
        let bits = i(&[6, 5]).binary(BinaryOp::Xor, &i(&[3, 3])).unwrap();
        assert_eq!(bits.i32_data().unwrap(), &[5, 6]);
        assert!(f(&[1.]).binary(BinaryOp::And, &f(&[1.])).is_err());
    }

    #[test]
    fn max_min_nan_and_signed_zero() {
        let m = f(&[1., f32::NAN, -0.])
            .binary(BinaryOp::Max, &f(&[f32::NAN, 2., 0.]))
            .unwrap();
        let m = m.f32_data().unwrap();
        assert!(m[0].is_nan() && m[1].is_nan());
        assert!(m[2] == 0.0 && m[2].is_sign_positive());
        let n = f(&[-0.]).binary(BinaryOp::Min, &f(&[0.])).unwrap();
        assert!(n.f32_data().unwrap()[0].is_sign_negative());
    }

    #[test]
    fn integer_power_wraps_like_jax() {
        // JAX 0.10.2: jnp.array([2, 3]) ** jnp.array([3, -1]) == [8, 2111105451].
        let p = i(&[2, 3]).binary(BinaryOp::Pow, &i(&[3, -1])).unwrap();
        assert_eq!(p.i32_data().unwrap(), &[8, 2111105451]);
        let q = f(&[2., -8.])
            .binary(BinaryOp::Pow, &f(&[0.5, 1. / 3.]))
            .unwrap();
        assert_eq!(q.f32_data().unwrap()[0], 2f32.sqrt());
        assert!(q.f32_data().unwrap()[1].is_nan());
    }

    #[test]
    fn unary_dtypes_and_rounding() {
        let r = f(&[0.5, 1.5, 2.5, -0.5, -1.5])
            .unary(UnaryOp::Round)
            .unwrap();
        assert_eq!(r.f32_data().unwrap(), &[0., 2., 2., -0., -2.]);
        assert!(r.f32_data().unwrap()[3].is_sign_negative());
        assert_eq!(
            i(&[1, -2]).unary(UnaryOp::Not).unwrap().i32_data().unwrap(),
            &[-2, 1]
        );
        let b = Array::from_bool(&[2], vec![true, false]).unwrap();
        assert_eq!(
            b.unary(UnaryOp::Not).unwrap().bool_data().unwrap(),
            &[false, true]
        );
        assert_eq!(
            i(&[-3, 0, 4])
                .unary(UnaryOp::Sign)
                .unwrap()
                .i32_data()
                .unwrap(),
            &[-1, 0, 1]
        );
        let e = i(&[0, 1]).unary(UnaryOp::Exp).unwrap();
        assert_eq!(e.dtype(), DType::F32);
        assert_eq!(e.f32_data().unwrap(), &[1.0, std::f32::consts::E]);
        assert_eq!(i(&[3]).unary(UnaryOp::Floor).unwrap().dtype(), DType::I32);
        let fin = f(&[1., f32::INFINITY, f32::NAN])
            .unary(UnaryOp::IsFinite)
            .unwrap();
        assert_eq!(fin.bool_data().unwrap(), &[true, false, false]);
        assert_eq!(
            i(&[i32::MIN])
                .unary(UnaryOp::Abs)
                .unwrap()
                .i32_data()
                .unwrap(),
            &[i32::MIN]
        );
        let s = f(&[0.]).unary(UnaryOp::Logistic).unwrap();
        assert_eq!(s.f32_data().unwrap(), &[0.5]);
    }

    #[test]
    fn uint32_wraps_divides_and_shifts_like_xla() {
        let u = |v: &[u32]| Array::from_u32(&[v.len()], v.to_vec()).unwrap();
        let w = u(&[7, 4_000_000_000]);
        let add = w
            .binary(BinaryOp::Add, &u(&[300_000_000, 300_000_000]))
            .unwrap();
        assert_eq!(add.u32_data().unwrap(), &[300_000_007, 5_032_704]);
        let div = w.binary(BinaryOp::FloorDiv, &u(&[0, 3])).unwrap();
        assert_eq!(div.u32_data().unwrap(), &[u32::MAX, 1_333_333_333]);
        let shr = w.binary(BinaryOp::ShiftRightLogical, &u(&[1, 32])).unwrap();
        assert_eq!(shr.u32_data().unwrap(), &[3, 0]);
        let sar = i(&[-8, -8]).binary(BinaryOp::ShiftRightArithmetic, &i(&[1, 40]));
        assert_eq!(sar.unwrap().i32_data().unwrap(), &[-4, -1]);
        let back = f(&[-1.5, 3e9, f32::NAN]).astype(DType::U32);
        assert_eq!(back.u32_data().unwrap(), &[0, 3_000_000_000, 0]);
        assert_eq!(i(&[-1]).astype(DType::U32).u32_data().unwrap(), &[u32::MAX]);
    }

    #[test]
    fn integer_pow_by_squaring() {
        let x = f(&[3., -2.]);
        assert_eq!(x.integer_pow(2).unwrap().f32_data().unwrap(), &[9., 4.]);
        assert_eq!(
            x.integer_pow(-2).unwrap().f32_data().unwrap(),
            &[1. / 9., 0.25]
        );
        assert_eq!(x.integer_pow(0).unwrap().f32_data().unwrap(), &[1., 1.]);
        assert_eq!(
            i(&[2, 3]).integer_pow(3).unwrap().i32_data().unwrap(),
            &[8, 27]
        );
        assert!(i(&[2]).integer_pow(-1).is_err());
    }

    #[test]
    fn select_broadcasts_all_three() {
        let c = Array::from_bool(&[2, 1], vec![true, false]).unwrap();
        let out = Array::select(&c, &i(&[1, 2, 3]), &Array::scalar_f32(-1.0)).unwrap();
        assert_eq!(out.shape(), &[2, 3]);
        assert_eq!(out.dtype(), DType::F32);
        assert_eq!(out.to_f64_vec(), vec![1., 2., 3., -1., -1., -1.]);
        assert!(Array::select(&f(&[1., 0.]), &i(&[1, 2, 3]), &i(&[1])).is_err());
    }

    #[test]
    fn astype_truncates_and_saturates() {
        // JAX 0.10.2: [1.7, -1.7, nan, 3e10, -3e10].astype(int32).
        let a = f(&[1.7, -1.7, f32::NAN, 3e10, -3e10]).astype(DType::I32);
        assert_eq!(a.i32_data().unwrap(), &[1, -1, 0, i32::MAX, i32::MIN]);
        let b = f(&[0.0, -0.0, 0.1]).astype(DType::Bool);
        assert_eq!(b.bool_data().unwrap(), &[false, false, true]);
    }
}
