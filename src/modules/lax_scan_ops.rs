//! `lax.top_k`, `lax.approx_max_k`/`approx_min_k` (exact, as JAX computes
//! them on CPU) and `lax.associative_scan`.
//!
//! The k largest are a stable sort of the reversed line, reversed back, so
//! equal values keep the lower index first as JAX's `top_k` does, then the
//! first k. `associative_scan` is the parallel prefix scan: combine the
//! pairs, scan the half, combine again for the even positions and
//! interleave, so a non-exact operator rounds as it does in JAX.

use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::primitives::Prim;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::ops::truthy;
use crate::python::pytree::{flatten, unflatten, TreeDef};
use crate::python::value::{Args, Obj};
use crate::trace::{bind, Value};

use super::Builder;

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("top_k", |_, a| {
        let x = to_value(&a.req(Some(0), "operand", "top_k")?)?;
        let k = to_int(&a.req(Some(1), "k", "top_k")?)?;
        let axis = a.opt(Some(2), "axis").map(|o| to_int(&o)).transpose()?;
        k_extreme(&x, k, axis.unwrap_or(-1), true, "top_k")
    });
    for (name, largest) in [("approx_max_k", true), ("approx_min_k", false)] {
        b.func(name, move |_, a| {
            let x = to_value(&a.req(Some(0), "operand", name)?)?;
            let k = to_int(&a.req(Some(1), "k", name)?)?;
            let axis = a
                .opt(Some(2), "reduction_dimension")
                .map(|o| to_int(&o))
                .transpose()?;
            if let Some(o) = a.opt(Some(6), "aggregate_to_topk") {
                if !truthy(&o, "aggregate_to_topk")? {
                    bail!(
                        NotImplementedError,
                        "not supported by shardlab yet: jax.lax.{name}(aggregate_to_topk=False)"
                    );
                }
            }
            k_extreme(&x, k, axis.unwrap_or(-1), largest, name)
        });
    }
    b.func("associative_scan", associative_scan);
}

/// The k largest (or smallest) along `axis`, sorted, and their indices.
fn k_extreme(x: &Value, k: i64, axis: i64, largest: bool, name: &str) -> Result<Obj> {
    if x.ndim() == 0 {
        bail!(TypeError, "{name} operand must have >= 1 dimension, got []");
    }
    let axis = jops::norm_axis(axis, x.ndim())?;
    let n = x.shape()[axis];
    if k < 0 {
        bail!(
            ValueError,
            "k argument to {name} must be nonnegative, got {k}"
        );
    }
    if k as usize > n {
        bail!(
            ValueError,
            "k argument to {name} must be no larger than size of the reduction dimension, got {k} for dimension size {n}"
        );
    }
    let iota = Value::Concrete(Array::iota(&x.shape(), axis, DType::I32)?);
    let prim = Prim::Sort { dimension: axis };
    let (values, indices) = if largest {
        let outs = bind(prim, &[jops::rev(x, &[axis])?, jops::rev(&iota, &[axis])?])?;
        (jops::rev(&outs[0], &[axis])?, jops::rev(&outs[1], &[axis])?)
    } else {
        let outs = bind(prim, &[x.clone(), iota])?;
        (outs[0].clone(), outs[1].clone())
    };
    let first =
        |v: &Value| -> Result<Obj> { Ok(Obj::Array(slice_axis(v, axis, 0, k as usize, 1)?)) };
    let pair = vec![first(&values)?, first(&indices)?];
    // `top_k` gives a tuple, the approximate forms a list.
    Ok(if name == "top_k" {
        Obj::tuple(pair)
    } else {
        Obj::list(pair)
    })
}

fn slice_axis(x: &Value, d: usize, start: usize, limit: usize, stride: usize) -> Result<Value> {
    let shape = x.shape();
    let mut starts = vec![0; shape.len()];
    let mut limits = shape.clone();
    let mut strides = vec![1; shape.len()];
    starts[d] = start;
    limits[d] = limit.max(start);
    strides[d] = stride;
    jops::slice(x, &starts, &limits, &strides)
}

/// What one scan works on: the operator, the tree of the elements and
/// the axis.
struct Scan<'a> {
    f: &'a Obj,
    def: &'a TreeDef,
    axis: usize,
}

impl Scan<'_> {
    /// `f(a, b)` on two lists of leaves, as trees.
    fn combine(&self, interp: &mut Interp, a: &[Value], b: &[Value]) -> Result<Vec<Value>> {
        let tree = |interp: &mut Interp, v: &[Value]| {
            let objs: Vec<Obj> = v.iter().cloned().map(Obj::Array).collect();
            unflatten(interp, self.def, &objs)
        };
        let (ta, tb) = (tree(interp, a)?, tree(interp, b)?);
        let out = interp.call(self.f, Args::new(vec![ta, tb]))?;
        let (leaves, _) = flatten(interp, &out)?;
        if leaves.len() != a.len() {
            bail!(
                ValueError,
                "associative_scan: the combining function must return a tree of the elements' structure"
            );
        }
        leaves.iter().map(to_value).collect()
    }

    fn part(&self, v: &[Value], start: usize, limit: usize, stride: usize) -> Result<Vec<Value>> {
        v.iter()
            .map(|x| slice_axis(x, self.axis, start, limit, stride))
            .collect()
    }

    fn scan(&self, interp: &mut Interp, elems: &[Value]) -> Result<Vec<Value>> {
        let n = elems[0].shape()[self.axis];
        if n < 2 {
            return Ok(elems.to_vec());
        }
        let evens = self.part(elems, 0, n - 1, 2)?;
        let odds = self.part(elems, 1, n, 2)?;
        let reduced = self.combine(interp, &evens, &odds)?;
        let odd_out = self.scan(interp, &reduced)?;
        let m = odd_out[0].shape()[self.axis];
        let later = self.part(elems, 2, n, 2)?;
        let even_rest = if n % 2 == 0 {
            let head = self.part(&odd_out, 0, m - 1, 1)?;
            self.combine(interp, &head, &later)?
        } else {
            self.combine(interp, &odd_out, &later)?
        };
        let first = self.part(elems, 0, 1, 1)?;
        let mut out = vec![];
        for ((f, r), o) in first.iter().zip(&even_rest).zip(&odd_out) {
            let even = jops::concatenate(&[f.clone(), r.clone()], self.axis as i64)?;
            out.push(interleave(&even, o, self.axis)?);
        }
        Ok(out)
    }
}

/// `a[0], b[0], a[1], b[1], ...` along `axis` (`a` one longer or as long).
fn interleave(a: &Value, b: &Value, axis: usize) -> Result<Value> {
    let na = a.shape()[axis];
    let nb = b.shape()[axis];
    let head = if na > nb {
        slice_axis(a, axis, 0, nb, 1)?
    } else {
        a.clone()
    };
    let pairs = jops::stack(&[head, b.clone()], (axis + 1) as i64)?;
    let mut flat = a.shape();
    flat[axis] = 2 * nb;
    let merged = jops::reshape(&pairs, &flat)?;
    if na > nb {
        let last = slice_axis(a, axis, nb, na, 1)?;
        return jops::concatenate(&[merged, last], axis as i64);
    }
    Ok(merged)
}

/// `lax.associative_scan(fn, elems, reverse=False, axis=0)`.
fn associative_scan(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "fn", "associative_scan")?;
    let elems = a.req(Some(1), "elems", "associative_scan")?;
    let reverse = match a.opt(Some(2), "reverse") {
        Some(o) => truthy(&o, "reverse")?,
        None => false,
    };
    let axis = a.opt(Some(3), "axis").map(|o| to_int(&o)).transpose()?;
    let (leaves, def) = flatten(interp, &elems)?;
    let mut vals = leaves.iter().map(to_value).collect::<Result<Vec<_>>>()?;
    let Some(first) = vals.first() else {
        return Ok(elems);
    };
    let axis = jops::norm_axis(axis.unwrap_or(0), first.ndim())?;
    let n = first.shape()[axis];
    if vals.iter().any(|v| v.shape().get(axis) != Some(&n)) {
        bail!(
            ValueError,
            "Array inputs to associative_scan must have the same first dimension."
        );
    }
    if reverse {
        vals = vals
            .iter()
            .map(|v| jops::rev(v, &[axis]))
            .collect::<Result<_>>()?;
    }
    let scan = Scan {
        f: &f,
        def: &def,
        axis,
    };
    let mut out = scan.scan(interp, &vals)?;
    if reverse {
        out = out
            .iter()
            .map(|v| jops::rev(v, &[axis]))
            .collect::<Result<_>>()?;
    }
    let objs: Vec<Obj> = out.into_iter().map(Obj::Array).collect();
    unflatten(interp, &def, &objs)
}
