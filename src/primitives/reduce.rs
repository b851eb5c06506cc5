//! Reductions over axes (reduce_sum, reduce_max, ...) and argmax/argmin.

use crate::array::{Array, DType, ReduceOp};
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::ops;
use crate::primitives::Prim;
use crate::trace::Value;

/// JAX's name for a reduction primitive.
pub fn reduce_name(op: ReduceOp) -> &'static str {
    match op {
        ReduceOp::Sum => "reduce_sum",
        ReduceOp::Prod => "reduce_prod",
        ReduceOp::Max => "reduce_max",
        ReduceOp::Min => "reduce_min",
        ReduceOp::Any => "reduce_or",
        ReduceOp::All => "reduce_and",
    }
}

fn removed(shape: &[usize], axes: &[usize]) -> Vec<usize> {
    (0..shape.len())
        .filter(|i| !axes.contains(i))
        .map(|i| shape[i])
        .collect()
}

/// Shape rule.
pub fn abstract_eval(prim: &Prim, ins: &[Aval]) -> Result<Vec<Aval>> {
    let x = &ins[0];
    match prim {
        Prim::Reduce { op, axes } => {
            if let Some(&a) = axes.iter().find(|&&a| a >= x.shape.len()) {
                bail!(
                    ValueError,
                    "reduction axis {a} out of range for shape {:?}",
                    x.shape
                );
            }
            if matches!(op, ReduceOp::Max | ReduceOp::Min) && axes.iter().any(|&a| x.shape[a] == 0)
            {
                bail!(
                    ValueError,
                    "zero-size array to reduction operation {} which has no identity",
                    reduce_name(*op)
                );
            }
            let dtype = match (op, x.dtype) {
                (ReduceOp::Any | ReduceOp::All, _) => DType::Bool,
                (ReduceOp::Sum | ReduceOp::Prod, DType::Bool) => DType::I32,
                (_, d) => d,
            };
            Ok(vec![Aval {
                shape: removed(&x.shape, axes),
                dtype,
                vma: x.vma.clone(),
                weak: false,
            }])
        }
        Prim::ArgReduce { axis, .. } => {
            if *axis >= x.shape.len() {
                bail!(
                    ValueError,
                    "axis {axis} out of range for shape {:?}",
                    x.shape
                );
            }
            if x.shape[*axis] == 0 {
                bail!(ValueError, "attempt to get argmax of an empty sequence");
            }
            Ok(vec![Aval {
                shape: removed(&x.shape, &[*axis]),
                dtype: DType::I32,
                vma: x.vma.clone(),
                weak: false,
            }])
        }
        _ => bail!(RuntimeError, "not a reduction: {}", prim.name()),
    }
}

/// Implementation on arrays.
pub fn apply(prim: &Prim, ins: &[Array]) -> Result<Vec<Array>> {
    Ok(vec![match prim {
        Prim::Reduce { op, axes } => ins[0].reduce(*op, axes, false)?,
        Prim::ArgReduce { min: false, axis } => ins[0].argmax(*axis, false)?,
        Prim::ArgReduce { min: true, axis } => ins[0].argmin(*axis, false)?,
        _ => bail!(RuntimeError, "not a reduction: {}", prim.name()),
    }])
}

/// Broadcasts a reduced value back over the reduced axes of `shape`.
fn unreduce(v: &Value, shape: &[usize], axes: &[usize]) -> Result<Value> {
    let dims: Vec<usize> = (0..shape.len()).filter(|i| !axes.contains(i)).collect();
    ops::broadcast_in_dim(v, shape, &dims)
}

/// The multiplier that routes a max/min/prod result's derivative to each
/// input element: for max/min the (tie-shared) indicator of the extremum, as
/// JAX's rule does; for prod, out / x.
fn routing(op: ReduceOp, x: &Value, out: &Value, axes: &[usize]) -> Result<Option<Value>> {
    let shape = x.shape();
    let f = DType::F32;
    Ok(match op {
        ReduceOp::Sum => None,
        ReduceOp::Max | ReduceOp::Min => {
            let hit = ops::convert(&ops::equal(x, &unreduce(out, &shape, axes)?)?, f)?;
            let count = ops::sum(
                &hit,
                Some(&axes.iter().map(|&a| a as i64).collect::<Vec<_>>()),
                false,
            )?;
            Some(ops::div(&hit, &unreduce(&count, &shape, axes)?)?)
        }
        ReduceOp::Prod => Some(ops::div(&unreduce(out, &shape, axes)?, x)?),
        ReduceOp::Any | ReduceOp::All => None,
    })
}

/// Forward-mode rule.
pub fn jvp(
    prim: &Prim,
    p: &[Value],
    t: &[Option<Value>],
    outs: &[Value],
) -> Result<Vec<Option<Value>>> {
    let (Prim::Reduce { op, axes }, Some(g)) = (prim, &t[0]) else {
        return Ok(vec![None]);
    };
    if !p[0].dtype().is_inexact() || matches!(op, ReduceOp::Any | ReduceOp::All) {
        return Ok(vec![None]);
    }
    let ax: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    let weighted = match routing(*op, &p[0], &outs[0], axes)? {
        Some(w) => ops::mul(g, &w)?,
        None => g.clone(),
    };
    Ok(vec![Some(ops::sum(&weighted, Some(&ax), false)?)])
}

/// Reverse-mode rule: the cotangent is broadcast back over the reduced axes.
pub fn vjp(
    prim: &Prim,
    p: &[Value],
    outs: &[Value],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>> {
    let (Prim::Reduce { op, axes }, Some(ct)) = (prim, &cts[0]) else {
        return Ok(vec![None]);
    };
    if !p[0].dtype().is_inexact() || matches!(op, ReduceOp::Any | ReduceOp::All) {
        return Ok(vec![None]);
    }
    let spread = unreduce(ct, &p[0].shape(), axes)?;
    Ok(vec![Some(match routing(*op, &p[0], &outs[0], axes)? {
        Some(w) => ops::mul(&spread, &w)?,
        None => spread,
    })])
}
