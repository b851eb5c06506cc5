//! JAX's weak-type rule: which results of a primitive are weakly typed.
//!
//! A weakly typed value (a Python scalar, or what is computed from Python
//! scalars only) has a dtype that gives way in promotion. Most primitives
//! give a weak result exactly when their operands are all weak; when a weak
//! operand meets a strong one of a lower kind (a Python float with an int32
//! array), promotion takes the weak operand's kind and the result stays weak.
//! Reductions, index results and conversions decide for themselves, and the
//! primitives that run a traced program take the types its outputs had.

use crate::ir::Aval;

use super::Prim;

/// Whether two operands' promotion is weakly typed: the weak bit of their
/// join in JAX's lattice ([`crate::array::DType::join`]). Both weak gives a
/// weak result; a weak operand of a higher kind than the strong one (a
/// Python float with an int array) gives a weak result of its kind.
pub fn promoted(a: &Aval, b: &Aval) -> bool {
    a.dtype.join(a.weak, b.dtype, b.weak).1
}

/// The weak bit of the results of `prim` on operands `ins`, or None when the
/// shape rule already set it (programs that keep their outputs' types).
pub fn rule(prim: &Prim, ins: &[Aval]) -> Option<bool> {
    let all = |xs: &[Aval]| !xs.is_empty() && xs.iter().all(|a| a.weak);
    Some(match prim {
        Prim::Binary(_) => promoted(&ins[0], &ins[1]),
        Prim::Select => promoted(&ins[1], &ins[2]),
        Prim::Clamp => ins[1].weak,
        Prim::Convert(_, weak) => *weak,
        Prim::Reduce { .. } | Prim::ArgReduce { .. } | Prim::Cumulative { .. } => false,
        Prim::DynamicSlice(_) | Prim::Take(_) | Prim::ScatterAdd { .. } => all(&ins[..1]),
        Prim::DynamicUpdateSlice | Prim::DotGeneral { .. } => all(&ins[..2]),
        Prim::Sort { .. } => return None,
        Prim::Linalg(_) | Prim::Fft { .. } | Prim::Threefry2x32 | Prim::BitcastConvert(_) => false,
        Prim::Unary(_)
        | Prim::IntegerPow(_)
        | Prim::Reshape(_)
        | Prim::Transpose(_)
        | Prim::BroadcastInDim { .. }
        | Prim::Concatenate(_)
        | Prim::Slice { .. }
        | Prim::Pad { .. }
        | Prim::Rev(_)
        | Prim::StopGradient
        | Prim::Conv(_)
        | Prim::ReduceWindow(_)
        | Prim::Collective(_)
        | Prim::ShardingConstraint(_) => all(ins),
        _ => return None,
    })
}
