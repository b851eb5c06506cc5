//! `jax.lax`'s reductions and orderings: `reduce_sum`/`prod`/`max`/`min`,
//! `reduce_and`/`or`/`xor`, `reduce` with a known monoid, `argmax`/
//! `argmin`, `sort` (several operands, several keys) and `sort_key_val`,
//! with `batch_matmul` and `bitcast_convert_type`.
//!
//! `reduce` runs the engine's reduction when its computation is one of
//! lax's or jax.numpy's own `add`, `mul`, `max` or `min` (an arbitrary
//! Python computation is refused by name) and combines the result with the
//! initial value. Several sort keys are a lexicographic order: stable sorts
//! by the last key first, then by each earlier one. Every sort is stable.

use crate::array::{DType, ReduceOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::primitives::Prim;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::ops::{iterate, truthy};
use crate::python::value::{Args, Obj};
use crate::trace::{bind, bind1, Value};

use super::Builder;

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    register_reductions(b);
    b.func("reduce", |_, a| reduce(&a));
    register_arg_reductions(b);
    b.func("sort", |_, a| sort(&a));
    b.func("sort_key_val", |_, a| sort_key_val(&a));
    b.func("batch_matmul", |_, a| batch_matmul(&a));
    b.func("bitcast_convert_type", |_, a| bitcast_convert_type(&a));
}

/// The monoid reductions over listed axes; the logical ones take only
/// booleans, as lax does.
fn register_reductions(b: &mut Builder) {
    let reductions = [
        ("reduce_sum", ReduceOp::Sum),
        ("reduce_prod", ReduceOp::Prod),
        ("reduce_max", ReduceOp::Max),
        ("reduce_min", ReduceOp::Min),
        ("reduce_and", ReduceOp::All),
        ("reduce_or", ReduceOp::Any),
    ];
    for (name, op) in reductions {
        b.func(name, move |_, a| {
            let x = to_value(&a.req(Some(0), "operand", name)?)?;
            let axes = axes(&a.req(Some(1), "axes", name)?, x.ndim())?;
            if matches!(op, ReduceOp::All | ReduceOp::Any) {
                boolean_only(name, &x)?;
            }
            Ok(Obj::Array(jops::reduce(op, &x, Some(&axes), false)?))
        });
    }
    b.func("reduce_xor", |_, a| reduce_xor(&a));
}

/// `lax.reduce_xor`: the parity of the number of true elements, as there is
/// no xor reduction primitive.
fn reduce_xor(a: &Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "operand", "reduce_xor")?)?;
    let axes = axes(&a.req(Some(1), "axes", "reduce_xor")?, x.ndim())?;
    boolean_only("reduce_xor", &x)?;
    let count = jops::sum(&jops::convert(&x, DType::I32)?, Some(&axes), false)?;
    let odd = jops::binary(
        crate::array::BinaryOp::And,
        &count,
        &jops::scalar(1.0, DType::I32),
    )?;
    Ok(Obj::Array(jops::convert(&odd, DType::Bool)?))
}

/// `lax.argmax` and `lax.argmin`, whose index dtype must be an integer.
fn register_arg_reductions(b: &mut Builder) {
    for (name, min) in [("argmax", false), ("argmin", true)] {
        b.func(name, move |_, a| {
            let x = to_value(&a.req(Some(0), "operand", name)?)?;
            let axis = to_int(&a.req(Some(1), "axis", name)?)?;
            let d = super::numpy::dtype_of(&a.req(Some(2), "index_dtype", name)?)?;
            if !d.is_int() {
                bail!(
                    TypeError,
                    "index_dtype must be an integer type, but got {}",
                    d.name()
                );
            }
            let i = jops::arg_reduce(&x, Some(axis), false, min)?;
            Ok(Obj::Array(jops::convert(&i, d)?))
        });
    }
}

/// `lax.sort_key_val`: sorts `values` by `keys`; only the stable sort is
/// modelled.
fn sort_key_val(a: &Args) -> Result<Obj> {
    let keys = to_value(&a.req(Some(0), "keys", "sort_key_val")?)?;
    let values = to_value(&a.req(Some(1), "values", "sort_key_val")?)?;
    let dim = a
        .opt(Some(2), "dimension")
        .map(|o| to_int(&o))
        .transpose()?;
    let dim = jops::norm_axis(dim.unwrap_or(-1), keys.ndim())?;
    if let Some(s) = a.opt(Some(3), "is_stable") {
        if !truthy(&s, "is_stable")? {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.lax.sort_key_val with is_stable=False"
            );
        }
    }
    let out = sorted(&[keys, values], dim, 1)?;
    Ok(Obj::tuple(out.into_iter().map(Obj::Array).collect()))
}

/// `lax.bitcast_convert_type` between the 32-bit word types; other widths
/// change the shape and are refused.
fn bitcast_convert_type(a: &Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "operand", "bitcast_convert_type")?)?;
    let o = a.req(Some(1), "new_dtype", "bitcast_convert_type")?;
    let d = super::numpy::dtype_of(&o)?;
    let word = |d: DType| matches!(d, DType::F32 | DType::I32 | DType::U32);
    if d == x.dtype() {
        return Ok(Obj::Array(x));
    }
    if !word(d) || !word(x.dtype()) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.lax.bitcast_convert_type from {} to {}",
            x.dtype().name(),
            d.name()
        );
    }
    Ok(Obj::Array(bind1(Prim::BitcastConvert(d), &[x])?))
}

fn axes(o: &Obj, ndim: usize) -> Result<Vec<i64>> {
    iterate(o)?
        .iter()
        .map(|i| Ok(jops::norm_axis(to_int(i)?, ndim)? as i64))
        .collect()
}

/// shardlab's `reduce_and`/`or`/`xor` are the logical ones; JAX's bitwise
/// reductions of integers are not supported yet.
fn boolean_only(name: &str, x: &Value) -> Result<()> {
    match x.dtype() {
        DType::Bool => Ok(()),
        d if d.is_int() => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.lax.{name} of {}",
            d.name()
        ),
        d => bail!(
            TypeError,
            "{} does not accept dtype {}. Accepted dtypes are subtypes of bool, integer.",
            name,
            d.name()
        ),
    }
}

/// The reduction a known computation stands for, or None.
fn monoid(computation: &Obj) -> Option<(ReduceOp, crate::array::BinaryOp)> {
    use crate::array::BinaryOp as B;
    let Obj::Native(n) = computation else {
        return None;
    };
    match n.name.as_str() {
        "jax.lax.add" | "jax.numpy.add" => Some((ReduceOp::Sum, B::Add)),
        "jax.lax.mul" | "jax.numpy.multiply" => Some((ReduceOp::Prod, B::Mul)),
        "jax.lax.max" | "jax.numpy.maximum" => Some((ReduceOp::Max, B::Max)),
        "jax.lax.min" | "jax.numpy.minimum" => Some((ReduceOp::Min, B::Min)),
        _ => None,
    }
}

/// `lax.reduce(operands, init_values, computation, dimensions)` for one
/// operand and a known computation.
fn reduce(a: &Args) -> Result<Obj> {
    let x = a.req(Some(0), "operands", "reduce")?;
    let init = a.req(Some(1), "init_values", "reduce")?;
    let computation = a.req(Some(2), "computation", "reduce")?;
    let Some((op, combine)) = monoid(&computation) else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.lax.reduce with a computation other than lax's add, mul, max or min"
        );
    };
    if matches!(x, Obj::Tuple(_) | Obj::List(_) | Obj::Dict(_)) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.lax.reduce of several operands"
        );
    }
    let x = to_value(&x)?;
    let init = to_value(&init)?;
    if init.dtype() != x.dtype() {
        bail!(
            TypeError,
            "reduce: operand and init_value must have the same dtype, got {} and {}",
            x.dtype().name(),
            init.dtype().name()
        );
    }
    let dims = axes(&a.req(Some(3), "dimensions", "reduce")?, x.ndim())?;
    let r = jops::reduce(op, &x, Some(&dims), false)?;
    Ok(Obj::Array(jops::binary(combine, &init, &r)?))
}

/// `lax.sort(operand, dimension=-1, is_stable=True, num_keys=1)`: one
/// array, or a sequence of arrays sorted together (a tuple back).
fn sort(a: &Args) -> Result<Obj> {
    let o = a.req(Some(0), "operand", "sort")?;
    let many = matches!(o, Obj::Tuple(_) | Obj::List(_));
    let xs: Vec<Value> = if many {
        iterate(&o)?.iter().map(to_value).collect::<Result<_>>()?
    } else {
        vec![to_value(&o)?]
    };
    let Some(first) = xs.first() else {
        bail!(TypeError, "sort requires at least one operand");
    };
    let dim = a
        .opt(Some(1), "dimension")
        .map(|o| to_int(&o))
        .transpose()?;
    let dim = jops::norm_axis(dim.unwrap_or(-1), first.ndim())?;
    let stable = match a.opt(Some(2), "is_stable") {
        Some(s) => truthy(&s, "is_stable")?,
        None => true,
    };
    // XLA's unstable sort orders equal keys its own way: only where that
    // cannot show (one integer operand) is a stable sort the same answer.
    if !stable && (xs.len() > 1 || !first.dtype().is_int()) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.lax.sort with is_stable=False of several or float operands"
        );
    }
    let keys = a.opt(Some(3), "num_keys").map(|o| to_int(&o)).transpose()?;
    let keys = keys.unwrap_or(1);
    if keys < 1 || keys as usize > xs.len() {
        bail!(
            ValueError,
            "num_keys={keys} must be >= 1 and <= the number of operands"
        );
    }
    let out = sorted(&xs, dim, keys as usize)?;
    if many {
        Ok(Obj::tuple(out.into_iter().map(Obj::Array).collect()))
    } else {
        Ok(Obj::Array(out[0].clone()))
    }
}

/// The operands sorted together by the first `keys` of them in order.
fn sorted(xs: &[Value], dim: usize, keys: usize) -> Result<Vec<Value>> {
    let shape = xs[0].shape();
    if xs.iter().any(|x| x.shape() != shape) {
        bail!(TypeError, "sort arguments must all have the same shape");
    }
    let mut out = xs.to_vec();
    for k in (0..keys).rev() {
        // The sorting operand goes first; the others follow in order.
        let mut ins = vec![out[k].clone()];
        ins.extend(
            out.iter()
                .enumerate()
                .filter(|(i, _)| *i != k)
                .map(|(_, v)| v.clone()),
        );
        let res = bind(Prim::Sort { dimension: dim }, &ins)?;
        let mut rest = res[1..].iter().cloned();
        out = (0..out.len())
            .map(|i| {
                if i == k {
                    Some(res[0].clone())
                } else {
                    rest.next()
                }
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| crate::err!(RuntimeError, "sort returned too few operands"))?;
    }
    Ok(out)
}

/// `lax.batch_matmul(lhs, rhs, precision=None)`: matrix products over the
/// leading dimensions.
fn batch_matmul(a: &Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "lhs", "batch_matmul")?)?;
    let y = to_value(&a.req(Some(1), "rhs", "batch_matmul")?)?;
    if let Some(p) = a.opt(Some(2), "precision") {
        super::lax_dot::check_precision(&p)?;
    }
    let n = x.ndim();
    if n < 2 || y.ndim() != n {
        bail!(
            ValueError,
            "Arguments to batch_matmul must be at least 2D and have the same rank, got {} and {}",
            n,
            y.ndim()
        );
    }
    let batch: Vec<usize> = (0..n - 2).collect();
    Ok(Obj::Array(jops::dot_general(
        &x,
        &y,
        (&[n - 1], &[n - 2]),
        (&batch, &batch),
    )?))
}
