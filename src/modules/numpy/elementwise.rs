//! Elementwise functions: the unary and binary ufuncs, `square`,
//! `reciprocal`, `round`, `where` and `clip`.

use crate::array::{Array, BinaryOp, DType, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::{operand_pair, to_value};
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;
use super::arr;

/// NumPy's names for the one-operand ufuncs.
const UNARY: &[(&str, UnaryOp)] = &[
    ("exp", UnaryOp::Exp),
    ("log", UnaryOp::Log),
    ("log1p", UnaryOp::Log1p),
    ("expm1", UnaryOp::Expm1),
    ("sqrt", UnaryOp::Sqrt),
    ("tanh", UnaryOp::Tanh),
    ("arctanh", UnaryOp::Atanh),
    ("sin", UnaryOp::Sin),
    ("cos", UnaryOp::Cos),
    ("tan", UnaryOp::Tan),
    ("arcsin", UnaryOp::Asin),
    ("arccos", UnaryOp::Acos),
    ("arctan", UnaryOp::Atan),
    ("sinh", UnaryOp::Sinh),
    ("cosh", UnaryOp::Cosh),
    ("arcsinh", UnaryOp::Asinh),
    ("arccosh", UnaryOp::Acosh),
    ("cbrt", UnaryOp::Cbrt),
    ("abs", UnaryOp::Abs),
    ("absolute", UnaryOp::Abs),
    ("negative", UnaryOp::Neg),
    ("sign", UnaryOp::Sign),
    ("floor", UnaryOp::Floor),
    ("ceil", UnaryOp::Ceil),
    ("rint", UnaryOp::Round),
    ("invert", UnaryOp::Not),
    ("bitwise_not", UnaryOp::Not),
    ("bitwise_invert", UnaryOp::Not),
];

/// The array API's spellings of the inverse trigonometric functions, which
/// jnp has beside NumPy's.
const ARRAY_API_UNARY: &[(&str, UnaryOp)] = &[
    ("asin", UnaryOp::Asin),
    ("acos", UnaryOp::Acos),
    ("atan", UnaryOp::Atan),
    ("asinh", UnaryOp::Asinh),
    ("acosh", UnaryOp::Acosh),
    ("atanh", UnaryOp::Atanh),
];

/// The two-operand ufuncs, each a single binary primitive.
const BINARY: &[(&str, BinaryOp)] = &[
    ("add", BinaryOp::Add),
    ("subtract", BinaryOp::Sub),
    ("multiply", BinaryOp::Mul),
    ("divide", BinaryOp::Div),
    ("true_divide", BinaryOp::Div),
    ("floor_divide", BinaryOp::FloorDiv),
    ("remainder", BinaryOp::Rem),
    ("mod", BinaryOp::Rem),
    ("power", BinaryOp::Pow),
    ("maximum", BinaryOp::Max),
    ("minimum", BinaryOp::Min),
    ("arctan2", BinaryOp::Atan2),
    ("equal", BinaryOp::Eq),
    ("not_equal", BinaryOp::Ne),
    ("less", BinaryOp::Lt),
    ("less_equal", BinaryOp::Le),
    ("greater", BinaryOp::Gt),
    ("greater_equal", BinaryOp::Ge),
    ("bitwise_and", BinaryOp::And),
    ("bitwise_or", BinaryOp::Or),
    ("bitwise_xor", BinaryOp::Xor),
    ("left_shift", BinaryOp::ShiftLeft),
    ("bitwise_left_shift", BinaryOp::ShiftLeft),
    ("right_shift", BinaryOp::ShiftRightArithmetic),
    ("bitwise_right_shift", BinaryOp::ShiftRightArithmetic),
];

/// Adds the elementwise functions to `b`; `numpy` selects NumPy's double
/// precision `round`.
pub(super) fn register(b: &mut Builder, numpy: bool) {
    for &(name, op) in UNARY {
        b.func(name, unary(op));
    }
    if !numpy {
        for &(name, op) in ARRAY_API_UNARY {
            b.func(name, unary(op));
        }
    }
    register_float_predicates(b);
    register_complex_parts(b);
    for &(name, op) in BINARY {
        b.func(name, binary(op));
    }
    register_logical(b);
    b.func("square", |_, a| square(&a));
    b.func("reciprocal", |_, a| reciprocal(&a));
    b.func("where", |_, a| where_(&a));
    b.func("clip", |_, a| clip(&a));
    for name in ["round", "around"] {
        b.func(name, move |_, a| round(&a, numpy));
    }
}

/// The logical ufuncs, which first take each operand's truth value.
fn register_logical(b: &mut Builder) {
    for (name, op) in [
        ("logical_and", BinaryOp::And),
        ("logical_or", BinaryOp::Or),
        ("logical_xor", BinaryOp::Xor),
    ] {
        b.func(name, logical(name, op));
    }
    b.func("logical_not", |_, a| {
        let x = arr(&a, 0, "x", "logical_not")?;
        // A Python scalar's negation stays weakly typed, as in JAX.
        let not = jops::unary(UnaryOp::Not, &truth(&x)?)?;
        Ok(Obj::Array(jops::convert_weak(
            &not,
            DType::Bool,
            x.aval().weak,
        )?))
    });
}

/// `isnan` (`x != x`), `isinf` (`|x| == inf`) and `isfinite`, as JAX
/// computes them; integer and bool arrays are never NaN or infinite.
fn register_float_predicates(b: &mut Builder) {
    b.func("isnan", |_, a| {
        let x = arr(&a, 0, "x", "isnan")?;
        Ok(Obj::Array(jops::not_equal(&x, &x)?))
    });
    b.func("isinf", |_, a| {
        let x = arr(&a, 0, "x", "isinf")?;
        if x.dtype() == DType::C64 {
            // Infinite when either part is.
            let inf = jops::scalar(f64::INFINITY, DType::F32);
            let part = |op| jops::equal(&jops::abs(&jops::unary(op, &x)?)?, &inf);
            let (re, im) = (part(UnaryOp::Real)?, part(UnaryOp::Imag)?);
            return Ok(Obj::Array(jops::binary(BinaryOp::Or, &re, &im)?));
        }
        if !x.dtype().is_float() {
            return Ok(Obj::Array(constant_bool(&x, false)?));
        }
        let inf = jops::scalar(f64::INFINITY, DType::F32);
        Ok(Obj::Array(jops::equal(&jops::abs(&x)?, &inf)?))
    });
    b.func("isfinite", |_, a| {
        let x = arr(&a, 0, "x", "isfinite")?;
        if !x.dtype().is_inexact() {
            return Ok(Obj::Array(constant_bool(&x, true)?));
        }
        Ok(Obj::Array(jops::unary(UnaryOp::IsFinite, &x)?))
    });
}

/// `real`, `imag`, `conj`/`conjugate` and `angle`: on a real array, the
/// array itself, zeros, itself and `arctan2(0, x)`, as jnp defines them.
fn register_complex_parts(b: &mut Builder) {
    b.func("real", |_, a| {
        let x = arr(&a, 0, "val", "real")?;
        Ok(Obj::Array(if x.dtype() == DType::C64 {
            jops::unary(UnaryOp::Real, &x)?
        } else {
            x
        }))
    });
    b.func("imag", |_, a| {
        let x = arr(&a, 0, "val", "imag")?;
        Ok(Obj::Array(if x.dtype() == DType::C64 {
            jops::unary(UnaryOp::Imag, &x)?
        } else {
            let zero = Array::full(&[], 0.0, x.dtype()).with_weak(x.aval().weak);
            jops::broadcast_to(&Value::Concrete(zero), &x.shape())?
        }))
    });
    for name in ["conj", "conjugate"] {
        b.func(name, move |_, a| {
            let x = arr(&a, 0, "x", name)?;
            Ok(Obj::Array(if x.dtype() == DType::C64 {
                jops::unary(UnaryOp::Conj, &x)?
            } else {
                x
            }))
        });
    }
    b.func("angle", |_, a| {
        let z = arr(&a, 0, "z", "angle")?;
        let deg = match a.opt(Some(1), "deg") {
            Some(d) => crate::python::ops::truthy(&d, "deg")?,
            None => false,
        };
        let (re, im) = if z.dtype() == DType::C64 {
            (
                jops::unary(UnaryOp::Real, &z)?,
                jops::unary(UnaryOp::Imag, &z)?,
            )
        } else {
            let re = jops::convert(&z, DType::F32)?;
            let zero = jops::broadcast_to(&jops::scalar(0.0, DType::F32), &re.shape())?;
            (re, zero)
        };
        let radians = jops::binary(BinaryOp::Atan2, &im, &re)?;
        if !deg {
            return Ok(Obj::Array(radians));
        }
        // jnp.degrees: one multiplication by 180/pi in the result's dtype.
        let k = super::compose::like(&radians, 180.0 / std::f64::consts::PI);
        Ok(Obj::Array(jops::binary(BinaryOp::Mul, &radians, &k)?))
    });
}

/// A bool array of `x`'s shape holding `v` everywhere.
fn constant_bool(x: &Value, v: bool) -> Result<Value> {
    jops::broadcast_to(
        &jops::scalar(if v { 1.0 } else { 0.0 }, DType::Bool),
        &x.shape(),
    )
}

fn unary(op: UnaryOp) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| {
        // JAX runs these under jit, where a ref argument is a tracer.
        if a.get(Some(0), "x")
            .is_some_and(|x| crate::modules::refs::slot_of(&x).is_some())
        {
            bail!(
                TypeError,
                "{} requires ndarray or scalar arguments, got <class \
                 'jax._src.interpreters.partial_eval.DynamicJaxprTracer'> at position 0.",
                op.name()
            );
        }
        let x = arr(&a, 0, "x", op.name())?;
        let needs_float = !matches!(
            op,
            UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Sign | UnaryOp::Not | UnaryOp::IsFinite
        );
        let x = if needs_float && !x.dtype().is_inexact() {
            jops::convert(&x, DType::F32)?
        } else {
            x
        };
        Ok(Obj::Array(jops::unary(op, &x)?))
    }
}

/// `round(x, decimals=0)`: halves to even. JAX scales, rounds and unscales
/// in float32; NumPy's own arrays are float64 there, so `numpy.round` does
/// the arithmetic in double precision before storing float32.
fn round(a: &Args, numpy: bool) -> Result<Obj> {
    let x = arr(a, 0, "a", "round")?;
    let decimals = match a.opt(Some(1), "decimals") {
        Some(d) => to_int(&d)?,
        None => 0,
    };
    if x.dtype() == DType::C64 {
        // Each part rounds on its own, and the parts are put back together.
        let re = round_value(jops::unary(UnaryOp::Real, &x)?, decimals, numpy)?;
        let im = round_value(jops::unary(UnaryOp::Imag, &x)?, decimals, numpy)?;
        return Ok(Obj::Array(jops::binary(BinaryOp::Complex, &re, &im)?));
    }
    round_value(x, decimals, numpy).map(Obj::Array)
}

/// `round` of a real array.
fn round_value(x: Value, decimals: i64, numpy: bool) -> Result<Value> {
    if !x.dtype().is_float() {
        if decimals >= 0 {
            return Ok(x);
        }
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: round of integers to negative decimals"
        );
    }
    if decimals == 0 {
        return jops::unary(UnaryOp::Round, &x);
    }
    let factor = 10f64.powi(decimals.clamp(-300, 300) as i32);
    if numpy {
        if let Value::Concrete(c) = &x {
            let data: Vec<f32> = c
                .to_f64_vec()
                .iter()
                .map(|&v| ((v * factor).round_ties_even() / factor) as f32)
                .collect();
            return Ok(Value::Concrete(Array::from_f32(c.shape(), data)?));
        }
    }
    let f = Value::Concrete(Array::scalar_f32(factor as f32));
    let scaled = jops::unary(UnaryOp::Round, &jops::binary(BinaryOp::Mul, &x, &f)?)?;
    // jnp.round is jitted, so its factor is a compiled constant, which XLA
    // divides by as a multiplication by its reciprocal, whatever the shape
    // (`round(3.7975998, 4)` is 3.7975998, not 3.7976). A staged division
    // by a constant runs that way already (see exec).
    if crate::trace::all_eager() {
        let recip = jops::binary(BinaryOp::Div, &Value::Concrete(Array::scalar_f32(1.0)), &f)?;
        return jops::binary(BinaryOp::Mul, &scaled, &recip);
    }
    jops::binary(BinaryOp::Div, &scaled, &f)
}

fn binary(op: BinaryOp) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| {
        let x = a.req(Some(0), "x1", op.name())?;
        let y = a.req(Some(1), "x2", op.name())?;
        let x = if matches!(x, Obj::Array(_)) || matches!(y, Obj::Array(_)) {
            x
        } else {
            Obj::Array(to_value(&x)?)
        };
        let (x, y) = crate::python::array::jnp_operands(op, &x, &y)?;
        Ok(Obj::Array(jops::binary(op.for_dtype(x.dtype()), &x, &y)?))
    }
}

/// An operand of the logical functions as bool: `x != 0` unless it is
/// bool already, as jnp computes it (`ne a 0`).
fn truth(x: &Value) -> Result<Value> {
    if x.dtype() == DType::Bool {
        return Ok(x.clone());
    }
    jops::not_equal(x, &jops::scalar(0.0, x.dtype()))
}

/// `logical_and` / `logical_or` / `logical_xor`: the bitwise operation on
/// both operands as bool.
fn logical(name: &'static str, op: BinaryOp) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| {
        let x = truth(&to_value(&a.req(Some(0), "x1", name)?)?)?;
        let y = truth(&to_value(&a.req(Some(1), "x2", name)?)?)?;
        Ok(Obj::Array(jops::binary(op, &x, &y)?))
    }
}

fn square(a: &Args) -> Result<Obj> {
    Ok(Obj::Array(jops::integer_pow(
        &arr(a, 0, "x", "square")?,
        2,
    )?))
}

fn reciprocal(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "x", "reciprocal")?;
    // Weak in, weak out: 1 / a Python scalar is weakly typed in JAX.
    let weak = x.aval().weak;
    let x = jops::convert_weak(&x, DType::F32, weak)?;
    let one = Value::Concrete(Array::full(&[], 1.0, DType::F32).with_weak(true));
    Ok(Obj::Array(jops::div(&one, &x)?))
}

/// `where(condition, x, y)` (named with a trailing underscore: `where` is
/// a Rust keyword).
fn where_(a: &Args) -> Result<Obj> {
    let c = arr(a, 0, "condition", "where")?;
    let (x, y) = match (a.get(Some(1), "x"), a.get(Some(2), "y")) {
        (None, None) => return super::nonzero::where_one(&c, a),
        (Some(x), Some(y)) => (to_value(&x)?, to_value(&y)?),
        _ => bail!(
            ValueError,
            "Either both or neither of the x and y arguments should be provided to \
             jax.numpy.where."
        ),
    };
    Ok(Obj::Array(where_values(c, x, y)?))
}

/// `jnp.where(c, x, y)` of arrays.
pub(crate) fn where_values(c: Value, x: Value, y: Value) -> Result<Value> {
    let (dt, weak) = common_type(&x, &y)?;
    // JAX's where is a jitted function named `_where`, taking the operands
    // as given: it gives both cases one dtype and one shape, then selects.
    let out = jops::jitted1("_where", &[c, x, y], |v| {
        let c = jops::convert(&v[0], DType::Bool)?;
        let x = jops::convert_weak(&v[1], dt, weak)?;
        let y = jops::convert_weak(&v[2], dt, weak)?;
        let shape = [c.shape(), x.shape(), y.shape()]
            .iter()
            .try_fold(vec![], |s, t| crate::array::broadcast_shapes(&s, t))?;
        let widen = |v: &Value| match v.shape() == shape {
            true => Ok(v.clone()),
            false => jops::broadcast_to(v, &shape),
        };
        jops::select(&widen(&c)?, &widen(&x)?, &widen(&y)?)
    })?;
    Ok(out)
}

/// The dtype and weak type jnp gives two operands together, found on
/// scalars of their types (so that no equation is recorded), after
/// checking that their shapes broadcast.
fn common_type(x: &Value, y: &Value) -> Result<(DType, bool)> {
    let scalar = |v: &Value| {
        Obj::Array(Value::Concrete(
            Array::zeros(&[], v.dtype()).with_weak(v.aval().weak),
        ))
    };
    let (p, q) = crate::trace::untraced(|| operand_pair(&scalar(x), &scalar(y)))?;
    let (ap, aq) = (p.aval(), q.aval());
    let (sx, sy) = (x.shape(), y.shape());
    if crate::array::broadcast_shapes(&sx, &sy).is_err() {
        bail!(
            ValueError,
            "Incompatible shapes for broadcasting: shapes=[{}, {}]",
            crate::ir::fmt_shape(&sx),
            crate::ir::fmt_shape(&sy)
        );
    }
    Ok((
        ap.dtype.promote_weak(ap.weak, aq.dtype, aq.weak),
        crate::primitives::weak::promoted(&ap, &aq),
    ))
}

fn clip(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "clip")?;
    let lo = a.opt(Some(1), "min").or_else(|| a.opt(None, "a_min"));
    let hi = a.opt(Some(2), "max").or_else(|| a.opt(None, "a_max"));
    // The bounds meet `x` as jnp's operands do; JAX's clip is a jitted
    // function taking `x` and the bounds given.
    let mut args = vec![x];
    for bound in [&lo, &hi].into_iter().flatten() {
        args.push(to_value(bound)?);
    }
    let (has_lo, has_hi) = (lo.is_some(), hi.is_some());
    let out = jops::jitted1("clip", &args, |v| {
        let mut x = v[0].clone();
        let mut rest = v[1..].iter();
        // A bound not given has no operand, so `max` alone is the first.
        if has_lo {
            if let Some(lo) = rest.next() {
                x = clip_step(lo, &x, jops::maximum)?;
            }
        }
        if has_hi {
            if let Some(hi) = rest.next() {
                x = clip_step(hi, &x, jops::minimum)?;
            }
        }
        Ok(x)
    })?;
    Ok(Obj::Array(out))
}

/// One bound of `clip`, as jnp's `maximum(bound, x)` or `minimum(bound,
/// x)`: a weakly typed bound of `x`'s dtype is made strong first.
fn clip_step(bound: &Value, x: &Value, op: fn(&Value, &Value) -> Result<Value>) -> Result<Value> {
    let p = match bound.aval().weak && !x.aval().weak && bound.dtype() == x.dtype() {
        true => jops::convert_weak(bound, bound.dtype(), false)?,
        false => bound.clone(),
    };
    let (p, q) = operand_pair(&Obj::Array(p), &Obj::Array(x.clone()))?;
    op(&p, &q)
}
