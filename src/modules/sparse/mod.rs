//! `jax.experimental.sparse`: the batched-coordinate array `BCOO` and the
//! functions around it.
//!
//! A `BCOO` is an instance of a class with native behaviour, so that it is
//! a pytree node over its `data` and `indices` (with its shape and index
//! flags as static data) exactly as JAX registers it: `jit`, `grad` and the
//! tree functions see through it without knowing about sparsity. Every
//! operation is written as JAX writes its implementation, in terms of
//! `jax.numpy` calls (scatter-add for `todense`, gather and scatter-add for
//! products), so traced inputs work and the sums run in JAX's order, which
//! keeps float results bit-identical.

mod ad;
mod bcoo;
mod convert;
mod dot;
mod elementwise;
mod layout;
mod sparsify;

use std::rc::Rc;

use crate::bail;
use crate::error::Result;
use rustpython_parser::ast::CmpOp;

use crate::array::DType;
use crate::ops as jops;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::ops::{getattr, getitem};
use crate::python::value::{Args, Class, Instance, Obj};
use crate::trace::Value;

use super::Builder;

pub use bcoo::Parts;

/// The class `BCOO`, made once per run.
#[derive(Default)]
struct State {
    class: Option<Rc<Class>>,
}

/// The run's `BCOO` class.
fn bcoo_class(interp: &mut Interp) -> Rc<Class> {
    if let Some(c) = &interp.state::<State>().class {
        return c.clone();
    }
    let c = Rc::new(bcoo::class());
    interp.state::<State>().class = Some(c.clone());
    c
}

/// True when `o` is a `BCOO`.
pub fn is_bcoo(o: &Obj) -> bool {
    matches!(o, Obj::Instance(i) if i.class.native().is_some_and(|b| b.downcast::<bcoo::BcooNode>().is_some()))
}

/// A new `BCOO` from its buffers, checked as JAX's constructor checks them.
fn new_bcoo(interp: &mut Interp, p: Parts) -> Result<Obj> {
    p.validate()?;
    let class = bcoo_class(interp);
    let inst = Instance::with_attrs(
        class,
        vec![
            ("data".into(), p.data),
            ("indices".into(), p.indices),
            ("shape".into(), int_tuple(&p.shape)),
            ("indices_sorted".into(), Obj::Bool(p.sorted)),
            ("unique_indices".into(), Obj::Bool(p.unique)),
        ],
    );
    Ok(Obj::Instance(Rc::new(inst)))
}

/// The module.
pub fn module(interp: &mut Interp) -> Obj {
    let class = bcoo_class(interp);
    let mut b = Builder::new("jax.experimental.sparse");
    b.attr("BCOO", Obj::Class(class))
        .func("bcoo_fromdense", convert::fromdense)
        .func("bcoo_todense", convert::bcoo_todense)
        .func("todense", convert::todense)
        .func("bcoo_dot_general", dot::bcoo_dot_general)
        .func("bcoo_transpose", layout::bcoo_transpose)
        .func("bcoo_sort_indices", layout::bcoo_sort_indices)
        .func("bcoo_sum_duplicates", layout::bcoo_sum_duplicates)
        .func("bcoo_multiply_dense", elementwise::bcoo_multiply_dense)
        .func("eye", layout::eye)
        .func("empty", layout::empty)
        .func("sparsify", sparsify::sparsify)
        .func("grad", |i, a| ad::grad(i, a, false))
        .func("value_and_grad", |i, a| ad::grad(i, a, true));
    b.build()
}

/// Calls `jax.numpy.NAME`.
fn jnp(interp: &mut Interp, name: &str, pos: Vec<Obj>, kw: Vec<(&str, Obj)>) -> Result<Obj> {
    let kw = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    super::linalg_wrappers::jnp_call(interp, name, Args::with(pos, kw))
}

/// Calls the method `name` of `o`.
fn method(
    interp: &mut Interp,
    o: &Obj,
    name: &str,
    pos: Vec<Obj>,
    kw: Vec<(&str, Obj)>,
) -> Result<Obj> {
    crate::modules::call_method(interp, o, name, pos, kw)
}

/// `zeros(shape, dtype).at[idx].add(v)` (out-of-range indices dropped, as
/// `.at[].add` drops them), for indices that may be traced: the index
/// arrays become one flat position into the leading `idx.len()` axes, with
/// the dropped entries sent to an extra slot that is cut off afterwards.
/// Entries are added in order, as XLA's scatter adds them.
fn scatter_add(shape: &[usize], dtype: DType, idx: &[Obj], v: &Obj) -> Result<Obj> {
    use crate::array::broadcast::broadcast_shapes;
    let r = idx.len();
    let (lead, rest) = shape.split_at(r);
    let total: usize = lead.iter().product();
    let idx: Vec<Value> = idx
        .iter()
        .map(|i| to_value(i).and_then(|v| jops::convert(&v, DType::I32)))
        .collect::<Result<_>>()?;
    let mut at_shape = vec![];
    for i in &idx {
        at_shape = broadcast_shapes(&at_shape, &i.shape())?;
    }
    let i32c = |n: usize| jops::scalar(n as f64, DType::I32);
    let mut flat = i32c(0);
    let mut valid = i32c(1);
    for (i, &n) in idx.iter().zip(lead) {
        // Negative indices count from the end, as in JAX.
        let neg = jops::less(i, &i32c(0))?;
        let i = jops::select(&neg, &jops::add(i, &i32c(n))?, i)?;
        let ok = jops::mul(
            &jops::convert(&jops::greater_equal(&i, &i32c(0))?, DType::I32)?,
            &jops::convert(&jops::less(&i, &i32c(n))?, DType::I32)?,
        )?;
        valid = jops::mul(&valid, &ok)?;
        flat = jops::add(&jops::mul(&flat, &i32c(n))?, &i)?;
    }
    let valid = jops::not_equal(&valid, &i32c(0))?;
    let flat = jops::select(&valid, &flat, &i32c(total))?;
    let flat = jops::broadcast_to(&flat, &at_shape)?;
    let count: usize = at_shape.iter().product();
    let flat = jops::reshape(&flat, &[count])?;
    let full: Vec<usize> = at_shape.iter().chain(rest).copied().collect();
    let v = jops::broadcast_to(&jops::convert(&to_value(v)?, dtype)?, &full)?;
    let v = jops::reshape(&v, &[&[count][..], rest].concat())?;
    let slots: Vec<usize> = [&[total + 1][..], rest].concat();
    let prim = crate::primitives::Prim::ScatterAdd {
        axis: 0,
        shape: slots.clone(),
    };
    let out = crate::trace::bind1(prim, &[flat, v])?;
    let mut limits = slots.clone();
    limits[0] = total;
    let out = jops::slice(&out, &vec![0; slots.len()], &limits, &vec![1; slots.len()])?;
    Ok(Obj::Array(jops::reshape(&out, shape)?))
}

/// `x.at[idx].get(mode='fill', fill_value=0)`: out-of-range indices (the
/// padding of unused entries) read as zero. Computed as a clamped gather
/// whose out-of-range reads are then replaced by zero, which gives the
/// same values and works with traced indices too.
fn at_get_fill(interp: &mut Interp, x: &Obj, idx: Vec<Obj>) -> Result<Obj> {
    let shape = to_value(x)?.shape();
    let mut inside: Option<Obj> = None;
    for (i, n) in idx.iter().zip(&shape) {
        let n = *n as i64;
        let lo = interp.compare(&CmpOp::GtE, i, &Obj::Int(-n))?;
        let hi = interp.compare(&CmpOp::Lt, i, &Obj::Int(n))?;
        let both = jnp(interp, "logical_and", vec![lo, hi], vec![])?;
        inside = Some(match inside {
            None => both,
            Some(prev) => jnp(interp, "logical_and", vec![prev, both], vec![])?,
        });
    }
    let rank = idx.len();
    let at = getattr(interp, x, "at")?;
    let slot = getitem(interp, &at, &Obj::tuple(idx))?;
    let got = method(
        interp,
        &slot,
        "get",
        vec![],
        vec![("mode", Obj::str("clip"))],
    )?;
    let Some(inside) = inside else {
        return Ok(got);
    };
    let mut key = vec![Obj::Ellipsis];
    key.extend((rank..shape.len()).map(|_| Obj::None));
    let inside = getitem(interp, &inside, &Obj::tuple(key))?;
    jnp(interp, "where", vec![inside, got, Obj::Int(0)], vec![])
}

/// `x.sum(axis, keepdims=keepdims, dtype=x.dtype)`: summed, then cast back
/// to its own dtype (for integers narrower than the sum's default, the
/// wrapped result is the same either way).
fn sum_keeping_dtype(interp: &mut Interp, x: &Obj, axis: usize, keepdims: bool) -> Result<Obj> {
    let dtype = Obj::DType(to_value(x)?.dtype());
    let keep = vec![("keepdims", Obj::Bool(keepdims))];
    let s = method(interp, x, "sum", vec![Obj::Int(axis as i64)], keep)?;
    method(interp, &s, "astype", vec![dtype], vec![])
}

/// `x[..., i]`.
fn last_axis(interp: &mut Interp, x: &Obj, i: usize) -> Result<Obj> {
    getitem(
        interp,
        x,
        &Obj::tuple(vec![Obj::Ellipsis, Obj::Int(i as i64)]),
    )
}

fn int_tuple(v: &[usize]) -> Obj {
    Obj::tuple(v.iter().map(|&d| Obj::Int(d as i64)).collect())
}

/// A shape as Python prints a tuple: `(3,)`, `(2, 3)`.
fn int_tuple_text(s: &[usize]) -> String {
    match s {
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            s.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A shape argument: a sequence of ints.
fn shape_of(o: &Obj) -> Result<Vec<usize>> {
    super::sharding::placed::shape_arg(o)
}

/// An int argument, `default` when missing or None.
fn int_arg(a: &Args, i: Option<usize>, name: &str, default: i64) -> Result<i64> {
    match a.opt(i, name) {
        None => Ok(default),
        Some(o) => crate::python::builtins::to_int(&o),
    }
}

/// A bool argument, `default` when missing.
fn bool_arg(
    interp: &mut Interp,
    a: &Args,
    i: Option<usize>,
    name: &str,
    default: bool,
) -> Result<bool> {
    match a.get(i, name) {
        None => Ok(default),
        Some(o) => interp.truth(&o, name),
    }
}

/// The refusal of a part of the module shardlab does not have.
fn refuse<T>(what: &str) -> Result<T> {
    bail!(NotImplementedError, "not supported by shardlab yet: {what}")
}
