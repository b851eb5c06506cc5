//! Primitives on the narrow dtypes (bfloat16, float16, int8, int16, uint8,
//! uint16): the one place their results are made.
//!
//! A primitive with a narrow operand or result computes on the wide values
//! (float32 for the floats, int32 for the integers) and each result is then
//! fitted to its narrow type ([`crate::array::Array::fit`]): rounded once to
//! nearest even, or wrapped to the integer's width. That is how XLA's CPU
//! backend computes elementwise operations, data movement, comparisons and
//! dot products of these types. What would need another accumulation order
//! or the bits of the narrow encoding (sums of narrow floats, bit counts,
//! bitcasts, collectives, ...) is refused by name in [`refusal`] instead.

use crate::array::{Array, BinaryOp, DType, ReduceOp, UnaryOp};
use crate::error::Result;
use crate::ir::Aval;

use super::cumulative::CumOp;
use super::window::WindowOp;
use super::{AxisEnv, Prim};

/// Whether `prim` on operands `ins` giving `outs` involves a narrow type.
pub fn involved(ins: &[Aval], outs: &[Aval]) -> bool {
    ins.iter().chain(outs).any(|a| a.dtype.is_narrow())
}

/// Whether shardlab computes `prim` on the narrow float operands as XLA
/// does (one rounding of the float32 result).
fn models_float(prim: &Prim) -> bool {
    match prim {
        Prim::Reduce { op, .. } => !matches!(op, ReduceOp::Sum | ReduceOp::Prod),
        Prim::Cumulative { op, .. } => matches!(op, CumOp::Max | CumOp::Min),
        Prim::ReduceWindow(w) => w.op == WindowOp::Max,
        // XLA accumulates a scatter's sums and a convolution's products in
        // its own order and precision.
        Prim::ScatterAdd { .. } | Prim::Conv(_) => false,
        _ => true,
    }
}

/// Whether shardlab computes `prim` on narrow integer operands as XLA
/// does: wrapped int32 arithmetic agrees with the narrow type's for all
/// but the operations that read the bits above the narrow width.
fn models_int(prim: &Prim) -> bool {
    !matches!(
        prim,
        Prim::Binary(BinaryOp::ShiftRightLogical) | Prim::Conv(_) | Prim::ReduceWindow(_)
    )
}

/// Whether `prim` is one that shardlab runs on narrow types at all.
fn models_any(prim: &Prim) -> bool {
    !matches!(
        prim,
        Prim::Collective(_)
            | Prim::Threefry2x32
            | Prim::BitcastConvert(_)
            | Prim::Linalg(_)
            | Prim::Fft { .. }
            | Prim::HostCallback(_)
            | Prim::Unary(UnaryOp::Real | UnaryOp::Imag | UnaryOp::Conj)
            | Prim::Binary(BinaryOp::Complex)
    )
}

/// The error for `prim` on narrow operands or results that shardlab does
/// not compute as JAX does, if any.
pub fn refusal(prim: &Prim, ins: &[Aval], outs: &[Aval]) -> Result<()> {
    let all = || ins.iter().chain(outs);
    let Some(d) = all().map(|a| a.dtype).find(|d| d.is_narrow()) else {
        return Ok(());
    };
    // A conversion is a rounding or a wrap, computed like any other result.
    let convert = matches!(prim, Prim::Convert(..));
    let float_in = ins
        .iter()
        .any(|a| a.dtype.is_narrow() && a.dtype.is_float());
    let int_in = ins.iter().any(|a| a.dtype.is_narrow() && a.dtype.is_int());
    let modelled = convert
        || (models_any(prim) && (!float_in || models_float(prim)) && (!int_in || models_int(prim)));
    if !modelled {
        crate::bail!(
            NotImplementedError,
            "not supported by shardlab yet: {} in {}",
            d.name(),
            prim.name()
        );
    }
    Ok(())
}

/// An operand as the wide primitive reads it. A float operand meeting a
/// narrow float result is first rounded to that type, as JAX converts a
/// weak Python float to bfloat16 before `x * 0.1`.
fn operand(x: &Array, out: DType) -> Array {
    let x = x.widened();
    if out.is_narrow() && out.is_float() && x.dtype() == DType::F32 {
        return x.fit(out).widened();
    }
    x
}

/// Runs `prim` on operands of which some are narrow, or whose results are:
/// on the wide values, each result fitted to its aval's dtype. A
/// conversion is [`Array::astype`], which rounds, wraps or saturates.
pub fn apply(prim: &Prim, ins: &[Array]) -> Result<Vec<Array>> {
    if let (Prim::Convert(d, _), [x]) = (prim, ins) {
        return Ok(vec![x.astype(*d)]);
    }
    let in_avals: Vec<Aval> = ins.iter().map(Aval::of).collect();
    let out_avals = prim.abstract_eval(&in_avals, &AxisEnv::default())?;
    let out = out_avals.first().map_or(DType::F32, |a| a.dtype);
    let wide_ins: Vec<Array> = ins.iter().map(|x| operand(x, out)).collect();
    let outs = prim.apply(&wide_ins)?;
    Ok(outs
        .into_iter()
        .zip(&out_avals)
        .map(|(a, aval)| a.fit(aval.dtype))
        .collect())
}
