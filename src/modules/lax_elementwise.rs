//! `jax.lax`'s elementwise functions beyond the arithmetic ones: the
//! comparisons, the bitwise and shift operations, `rem`, `atan2`,
//! `square`, `reciprocal`, `exp2`, `is_finite`, `population_count`,
//! `clz`, `mulhi` and `select`.
//!
//! Like the rest of lax, the binary ones take operands of one dtype (a
//! Python scalar counts as its default dtype) where `jax.numpy` would
//! promote. `rem` is C's remainder, with the sign of the dividend: the
//! engine's remainder takes the divisor's sign, so the magnitude comes from
//! the absolute values (exact) and the dividend's sign is put back, which
//! keeps the derivatives JAX gives. The bit counts are written with shifts
//! and masks on the unsigned 32-bit pattern, so they run wherever the
//! engine runs; `mulhi` of 32-bit integers multiplies 16-bit halves, whose
//! products are exact in 32 bits, and corrects the unsigned high word for
//! negative signed operands.

use crate::array::{BinaryOp, DType, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::primitives::Prim;
use crate::python::array::{binary_operands, to_value};
use crate::python::value::{Args, Obj};
use crate::trace::{bind1, Value};

use super::Builder;

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    let binary = [
        ("atan2", BinaryOp::Atan2),
        ("eq", BinaryOp::Eq),
        ("ne", BinaryOp::Ne),
        ("lt", BinaryOp::Lt),
        ("le", BinaryOp::Le),
        ("gt", BinaryOp::Gt),
        ("ge", BinaryOp::Ge),
        ("bitwise_and", BinaryOp::And),
        ("bitwise_or", BinaryOp::Or),
        ("bitwise_xor", BinaryOp::Xor),
        ("shift_left", BinaryOp::ShiftLeft),
        ("shift_right_logical", BinaryOp::ShiftRightLogical),
        ("shift_right_arithmetic", BinaryOp::ShiftRightArithmetic),
    ];
    for (name, op) in binary {
        b.func(name, move |_, a| {
            let (x, y) = operands(&a, name)?;
            check_kind(name, op, x.dtype())?;
            Ok(Obj::Array(jops::binary(op, &x, &y)?))
        });
    }
    b.func("rem", |_, a| {
        let (x, y) = operands(&a, "rem")?;
        Ok(Obj::Array(rem(&x, &y)?))
    });
    b.func("bitwise_not", |_, a| {
        let x = operand(&a, "bitwise_not")?;
        if x.dtype().is_float() || x.dtype() == DType::C64 {
            return rejected("not", x.dtype(), "integer, bool");
        }
        Ok(Obj::Array(jops::unary(UnaryOp::Not, &x)?))
    });
    b.func("square", |_, a| {
        Ok(Obj::Array(jops::integer_pow(&operand(&a, "square")?, 2)?))
    });
    b.func("reciprocal", |_, a| {
        let x = operand(&a, "reciprocal")?;
        Ok(Obj::Array(jops::integer_pow(&x, -1)?))
    });
    b.func("exp2", |_, a| {
        let x = operand(&a, "exp2")?;
        inexact("exp2", x.dtype())?;
        // XLA computes 2**x as exp(log(2) * x), log(2) rounded to x's dtype.
        let ln2 = jops::scalar(std::f64::consts::LN_2, x.dtype());
        Ok(Obj::Array(jops::exp(&jops::mul(&ln2, &x)?)?))
    });
    b.func("is_finite", |_, a| {
        let x = operand(&a, "is_finite")?;
        if !x.dtype().is_float() {
            return rejected("is_finite", x.dtype(), "floating");
        }
        Ok(Obj::Array(jops::unary(UnaryOp::IsFinite, &x)?))
    });
    b.func("population_count", |_, a| {
        let x = operand(&a, "population_count")?;
        Ok(Obj::Array(population_count(&x)?))
    });
    b.func("clz", |_, a| Ok(Obj::Array(clz(&operand(&a, "clz")?)?)));
    b.func("mulhi", |_, a| {
        let (x, y) = operands(&a, "mulhi")?;
        Ok(Obj::Array(mulhi(&x, &y)?))
    });
    b.func("select", |_, a| {
        // select(pred, on_true, on_false) is select_n(pred, on_false, on_true).
        let pred = a.req(Some(0), "pred", "select")?;
        let on_true = a.req(Some(1), "on_true", "select")?;
        let on_false = a.req(Some(2), "on_false", "select")?;
        let args = Args {
            pos: vec![pred, on_false, on_true],
            ..Args::default()
        };
        super::control::select_n(&args)
    });
}

fn operand(a: &Args, func: &str) -> Result<Value> {
    to_value(&a.req(Some(0), "x", func)?)
}

/// The two operands of a binary lax function, of one dtype.
fn operands(a: &Args, name: &str) -> Result<(Value, Value)> {
    let x = to_value(&a.req(Some(0), "x", name)?)?;
    let y = to_value(&a.req(Some(1), "y", name)?)?;
    super::lax::same_dtypes(name, &x, &y)?;
    binary_operands(BinaryOp::Add, &Obj::Array(x), &Obj::Array(y))
}

fn inexact(name: &str, d: DType) -> Result<()> {
    if d.is_float() || d == DType::C64 {
        return Ok(());
    }
    rejected(name, d, "floating, complexfloating")
}

/// JAX's error for a dtype a unary primitive does not take.
fn rejected<T>(name: &str, d: DType, accepted: &str) -> Result<T> {
    bail!(
        TypeError,
        "{name} does not accept dtype {}. Accepted dtypes are subtypes of {accepted}.",
        d.name()
    )
}

/// The dtypes JAX's primitive accepts, with its message.
fn check_kind(name: &str, op: BinaryOp, d: DType) -> Result<()> {
    use BinaryOp::*;
    let (ok, accepted) = match op {
        Atan2 => (d.is_float() || d == DType::C64, "floating, complexfloating"),
        And | Or | Xor => (d.is_int() || d == DType::Bool, "integer, bool"),
        ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => (d.is_int(), "integer"),
        _ => (true, ""),
    };
    if ok {
        return Ok(());
    }
    let prim = match op {
        And => "and",
        Or => "or",
        Xor => "xor",
        _ => name,
    };
    bail!(
        TypeError,
        "{prim} does not accept dtype {} at position 0. Accepted dtypes at position 0 are \
         subtypes of {accepted}.",
        d.name()
    )
}

/// C's remainder: `|x| mod |y|` with the sign of `x` (negative zero
/// included).
pub(super) fn rem(x: &Value, y: &Value) -> Result<Value> {
    let d = x.dtype();
    if !(d.is_float() || d.is_int()) {
        return rejected("rem", d, "integer, floating");
    }
    if d.is_unsigned() {
        return jops::binary(BinaryOp::Rem, x, y);
    }
    let m = jops::binary(BinaryOp::Rem, &jops::abs(x)?, &jops::abs(y)?)?;
    let zero = jops::scalar(0.0, d);
    let mut negative = jops::binary(BinaryOp::Lt, x, &zero)?;
    if d.is_float() {
        // -0.0 is told from 0.0 by the sign of its reciprocal.
        let inv = jops::div(&jops::scalar(1.0, d), x)?;
        let neg_zero = jops::binary(
            BinaryOp::And,
            &jops::binary(BinaryOp::Eq, x, &zero)?,
            &jops::binary(BinaryOp::Lt, &inv, &zero)?,
        )?;
        negative = jops::binary(BinaryOp::Or, &negative, &neg_zero)?;
    }
    let negative = jops::broadcast_to(&negative, &m.shape())?;
    jops::select(&negative, &jops::neg(&m)?, &m)
}

/// The bits of an integer array as uint32, zero-extended from its width,
/// and that width.
fn bits_u32(x: &Value, func: &str) -> Result<(Value, u32)> {
    let width = match x.dtype() {
        DType::I8 | DType::U8 => 8,
        DType::I16 | DType::U16 => 16,
        DType::I32 | DType::U32 => 32,
        other => return rejected(func, other, "integer"),
    };
    let u = match x.dtype() {
        DType::U32 => x.clone(),
        DType::I32 => bind1(Prim::BitcastConvert(DType::U32), std::slice::from_ref(x))?,
        _ => {
            let wide = jops::convert(x, DType::I32)?;
            let u = bind1(Prim::BitcastConvert(DType::U32), &[wide])?;
            let mask = jops::scalar(((1u64 << width) - 1) as f64, DType::U32);
            jops::binary(BinaryOp::And, &u, &mask)?
        }
    };
    Ok((u, width))
}

fn u32c(v: u32) -> Value {
    jops::scalar(f64::from(v), DType::U32)
}

fn shr(x: &Value, n: u32) -> Result<Value> {
    jops::binary(BinaryOp::ShiftRightLogical, x, &u32c(n))
}

fn and(x: &Value, m: u32) -> Result<Value> {
    jops::binary(BinaryOp::And, x, &u32c(m))
}

/// The number of set bits of a uint32 array (the classic halving sums).
fn popcount_u32(x: &Value) -> Result<Value> {
    let x = jops::sub(x, &and(&shr(x, 1)?, 0x5555_5555)?)?;
    let x = jops::add(&and(&x, 0x3333_3333)?, &and(&shr(&x, 2)?, 0x3333_3333)?)?;
    let x = and(&jops::add(&x, &shr(&x, 4)?)?, 0x0f0f_0f0f)?;
    let x = jops::add(&x, &shr(&x, 8)?)?;
    let x = jops::add(&x, &shr(&x, 16)?)?;
    and(&x, 0x3f)
}

/// Back from a uint32 count to `x`'s dtype (the counts are small).
fn back(count: &Value, x: &Value) -> Result<Value> {
    let i = bind1(
        Prim::BitcastConvert(DType::I32),
        std::slice::from_ref(count),
    )?;
    jops::convert(&i, x.dtype())
}

/// `lax.population_count`: the set bits of each element.
fn population_count(x: &Value) -> Result<Value> {
    let (u, _) = bits_u32(x, "population_count")?;
    back(&popcount_u32(&u)?, x)
}

/// `lax.clz`: the zero bits above the highest set bit, within the dtype's
/// width: every bit below the highest is set, and the unset ones counted.
fn clz(x: &Value) -> Result<Value> {
    let (mut u, width) = bits_u32(x, "clz")?;
    for s in [1, 2, 4, 8, 16] {
        u = jops::binary(BinaryOp::Or, &u, &shr(&u, s)?)?;
    }
    let count = jops::sub(&u32c(width), &popcount_u32(&u)?)?;
    back(&count, x)
}

/// The high 32 bits of the product of two uint32 arrays.
fn mulhi_u32(a: &Value, b: &Value) -> Result<Value> {
    let mul = |p: &Value, q: &Value| jops::mul(p, q);
    let (a0, a1) = (and(a, 0xffff)?, shr(a, 16)?);
    let (b0, b1) = (and(b, 0xffff)?, shr(b, 16)?);
    let (lo, m1, m2, hi) = (
        mul(&a0, &b0)?,
        mul(&a1, &b0)?,
        mul(&a0, &b1)?,
        mul(&a1, &b1)?,
    );
    let t = jops::add(
        &jops::add(&shr(&lo, 16)?, &and(&m1, 0xffff)?)?,
        &and(&m2, 0xffff)?,
    )?;
    let carry = jops::add(&jops::add(&shr(&m1, 16)?, &shr(&m2, 16)?)?, &shr(&t, 16)?)?;
    jops::add(&hi, &carry)
}

/// `lax.mulhi`: the high half of the double-width product.
fn mulhi(x: &Value, y: &Value) -> Result<Value> {
    let d = x.dtype();
    let (wide, width) = match d {
        DType::U32 => return mulhi_u32(x, y),
        DType::I32 => {
            let cast = |v: &Value| bind1(Prim::BitcastConvert(DType::U32), std::slice::from_ref(v));
            let (ux, uy) = (cast(x)?, cast(y)?);
            // A negative operand, read unsigned, adds 2^32 times the other.
            let zero = jops::scalar(0.0, DType::I32);
            let zero_u = u32c(0);
            let fix_x = jops::select(&jops::binary(BinaryOp::Lt, x, &zero)?, &uy, &zero_u)?;
            let fix_y = jops::select(&jops::binary(BinaryOp::Lt, y, &zero)?, &ux, &zero_u)?;
            let r = jops::sub(&jops::sub(&mulhi_u32(&ux, &uy)?, &fix_x)?, &fix_y)?;
            return bind1(Prim::BitcastConvert(DType::I32), &[r]);
        }
        DType::I8 | DType::I16 => (DType::I32, if d == DType::I8 { 8 } else { 16 }),
        DType::U8 | DType::U16 => (DType::U32, if d == DType::U8 { 8 } else { 16 }),
        other => bail!(
            TypeError,
            "mulhi does not accept dtype {} at position 0. Accepted dtypes at position 0 are \
             subtypes of integer.",
            other.name()
        ),
    };
    // Narrow products fit in 32 bits.
    let p = jops::mul(&jops::convert(x, wide)?, &jops::convert(y, wide)?)?;
    let shift = jops::scalar(f64::from(width), wide);
    let op = if wide == DType::I32 {
        BinaryOp::ShiftRightArithmetic
    } else {
        BinaryOp::ShiftRightLogical
    };
    jops::convert(&jops::binary(op, &p, &shift)?, d)
}

/// `lax.div` of integers: C's division, rounding toward zero. `x - rem(x, y)`
/// is a multiple of `y`, so the floor division of it is exact.
pub(super) fn int_div(x: &Value, y: &Value) -> Result<Value> {
    let whole = jops::binary(BinaryOp::Sub, x, &rem(x, y)?)?;
    jops::binary(BinaryOp::FloorDiv, &whole, y)
}
