//! The parts of `checkify` that index: the out-of-bounds test of an
//! indexing primitive with its payload (which index, on which axis, of
//! what size), and the reduction of an error that came out of a `vmap`
//! batched to the error of one element.

use crate::array::{Array, BinaryOp, DType, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ops;
use crate::primitives::Prim;
use crate::trace::Value;

use super::checkify::{Effect, ErrorValue};

fn int_vector(v: &[usize]) -> Result<Value> {
    let data = v.iter().map(|&x| x as i32).collect();
    Ok(Value::Concrete(Array::from_i32(&[v.len()], data)?))
}

/// Whether `prim`, given `ins`, indexes out of bounds, and the payload of
/// the first index that does: `[index, axis, size]` (int32).
pub fn out_of_bounds(prim: &Prim, ins: &[Value]) -> Result<(Value, Value)> {
    let shape = ins[0].shape();
    let i32s = |vs: &[Value]| -> Result<Vec<Value>> {
        vs.iter()
            .map(|v| ops::reshape(&ops::convert(v, DType::I32)?, &[1]))
            .collect()
    };
    // The indices, the largest start each may have, and the axis each is on.
    let (indices, upper, axes) = match prim {
        Prim::DynamicSlice(sizes) => {
            let starts = ops::concatenate(&i32s(&ins[1..])?, 0)?;
            let upper: Vec<usize> = shape.iter().zip(sizes).map(|(d, s)| d - s).collect();
            (starts, upper, (0..shape.len()).collect::<Vec<_>>())
        }
        Prim::DynamicUpdateSlice => {
            let starts = ops::concatenate(&i32s(&ins[2..])?, 0)?;
            let sizes = ins[1].shape();
            let upper: Vec<usize> = shape
                .iter()
                .zip(&sizes)
                .map(|(d, s)| d.saturating_sub(*s))
                .collect();
            (starts, upper, (0..shape.len()).collect())
        }
        Prim::Take(axis) => {
            // Negative indices count from the end (JAX's gathers get them
            // counted so).
            let idx = ops::convert(&ins[1], DType::I32)?;
            let size = ops::scalar(shape[*axis] as f64, DType::I32);
            let negative = ops::binary(BinaryOp::Lt, &idx, &ops::zeros_like(&idx))?;
            let idx = ops::select(&negative, &ops::binary(BinaryOp::Add, &idx, &size)?, &idx)?;
            let n = idx.shape().iter().product::<usize>();
            let flat = ops::reshape(&idx, &[n])?;
            let upper = vec![shape[*axis].saturating_sub(1); n];
            (flat, upper, vec![*axis; n])
        }
        p => bail!(RuntimeError, "checkify: {} does not index", p.name()),
    };
    let zero = ops::scalar(0.0, DType::I32);
    let below = ops::binary(BinaryOp::Lt, &indices, &zero)?;
    let above = ops::binary(BinaryOp::Gt, &indices, &int_vector(&upper)?)?;
    let mask = ops::binary(BinaryOp::Or, &below, &above)?;
    let failed = ops::reduce(crate::array::ReduceOp::Any, &mask, None, false)?;
    // The first index that is out of bounds (the first of all when none is).
    let ok = ops::convert(&ops::unary(UnaryOp::Not, &mask)?, DType::I32)?;
    let first = ops::arg_reduce(&ok, None, false, true)?;
    let sizes: Vec<usize> = axes.iter().map(|&a| shape[a]).collect();
    let payload = [
        ops::take(&indices, &first, 0)?,
        ops::take(&int_vector(&axes)?, &first, 0)?,
        ops::take(&int_vector(&sizes)?, &first, 0)?,
    ];
    Ok((failed, ops::stack(&payload, 0)?))
}

/// The error of one element of an error batched along its leading axis:
/// for each effect, the last element where it happened, or the last
/// element when it happened nowhere (JAX picks the last of a stable sort
/// of the predicates).
pub fn reduce_batched(err: &ErrorValue) -> Result<ErrorValue> {
    let mut effects = vec![];
    for e in &err.effects {
        let n = e.pred.shape().first().copied().unwrap_or(1);
        let reversed = ops::rev(&ops::convert(&e.pred, DType::I32)?, &[0])?;
        let from_end = ops::arg_reduce(&reversed, Some(0), false, false)?;
        let last = ops::scalar((n - 1) as f64, DType::I32);
        let at = ops::binary(BinaryOp::Sub, &last, &from_end)?;
        let pick = |v: &Value| ops::take(v, &at, 0);
        effects.push(Effect {
            key: e.key.clone(),
            pred: pick(&e.pred)?,
            code: pick(&e.code)?,
            payload: e.payload.iter().map(pick).collect::<Result<_>>()?,
        });
    }
    Ok(ErrorValue { effects })
}
