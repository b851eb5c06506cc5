//! Multiply-adds as XLA's CPU backend compiles them.
//!
//! XLA compiles a program with floating-point contraction allowed, so a
//! float32 `add` or `sub` of a `mul` whose product has no other use is one
//! fused multiply-add, rounded once (when both operands of the add are such
//! products, the first is fused). A program run here does the same, so that
//! a jitted `x * span + lo` (as in `jax.random.uniform`) gives JAX's bits
//! rather than the twice-rounded result of separate operations, and
//! constant factors are folded together as XLA folds them. Eager
//! operations are not fused: JAX runs them one at a time too.

use std::collections::HashMap;

use crate::array::broadcast::broadcast_shapes;
use crate::array::{Array, BinaryOp, DType};
use crate::error::Result;
use crate::ir::{Atom, Eqn, Jaxpr, Var};
use crate::primitives::Prim;

/// The float32 products of `jaxpr`, each output of a `mul` mapped to the
/// operands it is computed from, and whether an `add` may fuse it (its
/// output is read exactly once).
///
/// XLA also folds constant factors together: `(a * c1) * c2`, with scalar
/// constants and an inner product read once, is `a * (c1 * c2)`, the
/// constants multiplied in float32 (so `jax.random.normal(...) * 0.02`
/// scales by `sqrt(2) * 0.02`). Those products get the folded operands.
pub(super) fn products(jaxpr: &Jaxpr) -> HashMap<Var, ([Atom; 2], bool)> {
    let same = common_subexpressions(jaxpr);
    let canon = |v: &Var| *same.get(v).unwrap_or(v);
    let mut uses: HashMap<Var, usize> = HashMap::new();
    let kept = jaxpr.eqns.iter().filter(|e| match e.outputs.first() {
        Some(out) => !same.contains_key(out),
        None => true,
    });
    for a in kept.flat_map(|e| e.inputs.iter()).chain(&jaxpr.outvars) {
        if let Atom::Var(v) = a {
            *uses.entry(canon(v)).or_default() += 1;
        }
    }
    for (repeat, first) in &same {
        let n = uses.get(first).copied().unwrap_or(0);
        uses.insert(*repeat, n);
    }
    let mut products: HashMap<Var, ([Atom; 2], bool)> = HashMap::new();
    for e in &jaxpr.eqns {
        let (Prim::Binary(BinaryOp::Mul), [a, b], [out]) =
            (&e.prim, e.inputs.as_slice(), e.outputs.as_slice())
        else {
            continue;
        };
        if jaxpr.avals[out.0 as usize].dtype != DType::F32 {
            continue;
        }
        let operands = fold_constants(a, b, &products, &uses).unwrap_or([a.clone(), b.clone()]);
        // XLA folds a product of constants before it fuses anything.
        let computed = operands.iter().any(|x| matches!(x, Atom::Var(_)));
        products.insert(*out, (operands, computed && uses.get(out) == Some(&1)));
    }
    products
}

/// The outputs of elementwise equations that repeat an earlier one (the
/// same operation on the same operands), each mapped to the earlier
/// output. XLA eliminates common subexpressions before it fuses, so a
/// product written twice in the source (`(a * b - c) * (a * b)`) is one
/// product read twice there, and no add may fuse it.
fn common_subexpressions(jaxpr: &Jaxpr) -> HashMap<Var, Var> {
    let mut same: HashMap<Var, Var> = HashMap::new();
    let mut seen: HashMap<Expr, Var> = HashMap::new();
    for e in &jaxpr.eqns {
        let [out] = e.outputs.as_slice() else {
            continue;
        };
        let operand = |a: &Atom| match a {
            Atom::Var(v) => Operand::Var(*same.get(v).unwrap_or(v)),
            Atom::Lit(x) => match (x.ndim(), x.f32_data()) {
                (0, Ok(d)) => d
                    .first()
                    .map_or(Operand::Distinct(*out), |f| Operand::Scalar(f.to_bits())),
                _ => Operand::Distinct(*out),
            },
        };
        let operands: Vec<Operand> = e.inputs.iter().map(operand).collect();
        let op = match e.prim {
            Prim::Unary(op) => Op::Unary(op),
            Prim::Binary(op) => Op::Binary(op),
            Prim::IntegerPow(n) => Op::Pow(n),
            Prim::Convert(d, weak) => Op::Convert(d, weak),
            _ => continue,
        };
        match seen.get(&(op, operands.clone())) {
            Some(first) => {
                same.insert(*out, *first);
            }
            None => {
                seen.insert((op, operands), *out);
            }
        }
    }
    same
}

/// An elementwise operation, as [`common_subexpressions`] compares them.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Op {
    Unary(crate::array::UnaryOp),
    Binary(BinaryOp),
    Pow(i32),
    Convert(DType, bool),
}

/// An operand: a variable (the first of its repeats), a float32 scalar
/// constant by its bits, or anything else, which matches nothing.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Operand {
    Var(Var),
    Scalar(u32),
    Distinct(Var),
}

type Expr = (Op, Vec<Operand>);

/// A float32 scalar constant.
fn scalar_constant(a: &Atom) -> Option<f32> {
    match a {
        Atom::Lit(x) if x.ndim() == 0 && x.dtype() == DType::F32 => {
            x.f32_data().ok()?.first().copied()
        }
        _ => None,
    }
}

/// `[a, c1 * c2]` when `x * y` is `(a * c1) * c2` as [`products`] folds it.
fn fold_constants(
    x: &Atom,
    y: &Atom,
    products: &HashMap<Var, ([Atom; 2], bool)>,
    uses: &HashMap<Var, usize>,
) -> Option<[Atom; 2]> {
    let (inner, c2) = match (x, y) {
        (Atom::Var(v), c) | (c, Atom::Var(v)) => (v, scalar_constant(c)?),
        _ => return None,
    };
    if uses.get(inner) != Some(&1) {
        return None;
    }
    let ([p, q], _) = products.get(inner)?;
    let (a, c1) = match (p, q) {
        (a @ Atom::Var(_), c) | (c, a @ Atom::Var(_)) => (a, scalar_constant(c)?),
        _ => return None,
    };
    let folded = Array::from_f32(&[], vec![c1 * c2]).ok()?;
    Some([a.clone(), Atom::Lit(folded)])
}

/// Which operand of a fused multiply-add is negated: `a * b - c` is
/// `fma(a, b, -c)` and `c - a * b` is `fma(-a, b, c)`, as LLVM contracts a
/// subtraction (the negation is exact, so one rounding remains).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Negate {
    None,
    Addend,
    Factor,
}

/// The operands `(a, b, c)` of `a * b + c` when `eqn` is a float32 `add`
/// or `sub` that fuses one of `products`, and which of them to negate.
/// When both operands are fusible products, the first is fused, as LLVM
/// does when their uses are equal (each is read once).
pub(super) fn multiply_add<'a>(
    eqn: &'a Eqn,
    jaxpr: &Jaxpr,
    products: &'a HashMap<Var, ([Atom; 2], bool)>,
) -> Option<([&'a Atom; 3], Negate)> {
    let (Prim::Binary(op @ (BinaryOp::Add | BinaryOp::Sub)), [x, y], [out]) =
        (&eqn.prim, eqn.inputs.as_slice(), eqn.outputs.as_slice())
    else {
        return None;
    };
    if jaxpr.avals[out.0 as usize].dtype != DType::F32 {
        return None;
    }
    let product = |a: &Atom| match a {
        Atom::Var(v) => products.get(v).filter(|(_, fusible)| *fusible),
        Atom::Lit(_) => None,
    };
    let sub = *op == BinaryOp::Sub;
    if let Some(([a, b], _)) = product(x) {
        return Some(([a, b, y], if sub { Negate::Addend } else { Negate::None }));
    }
    product(y).map(|([a, b], _)| ([a, b, x], if sub { Negate::Factor } else { Negate::None }))
}

/// The operands a `mul` equation is computed from (see [`products`]).
pub(super) fn mul_operands<'a>(
    eqn: &'a Eqn,
    products: &'a HashMap<Var, ([Atom; 2], bool)>,
) -> &'a [Atom] {
    match (&eqn.prim, eqn.outputs.as_slice()) {
        (Prim::Binary(BinaryOp::Mul), [out]) => products
            .get(out)
            .map_or(eqn.inputs.as_slice(), |(ops, _)| ops.as_slice()),
        _ => eqn.inputs.as_slice(),
    }
}

/// `a * b + c` rounded once, the operands broadcast together; the result
/// is weakly typed when the add's would be (every operand weak). None when
/// an operand is not float32.
pub(super) fn fused(a: &Array, b: &Array, c: &Array, negate: Negate) -> Result<Option<Array>> {
    if [a, b, c].iter().any(|x| x.dtype() != DType::F32) {
        return Ok(None);
    }
    let shape = broadcast_shapes(&broadcast_shapes(a.shape(), b.shape())?, c.shape())?;
    let shape = shape.as_slice();
    let weak = a.is_weak() && b.is_weak() && c.is_weak();
    let (a, b, c) = (
        a.broadcast_to(shape)?,
        b.broadcast_to(shape)?,
        c.broadcast_to(shape)?,
    );
    let data = a
        .f32_data()?
        .iter()
        .zip(b.f32_data()?)
        .zip(c.f32_data()?)
        .map(|((&a, &b), &c)| match negate {
            Negate::None => a.mul_add(b, c),
            Negate::Addend => a.mul_add(b, -c),
            Negate::Factor => (-a).mul_add(b, c),
        })
        .collect();
    Ok(Some(Array::from_f32(shape, data)?.with_weak(weak)))
}

/// Refuses a compiled program that widens a computed narrow float: XLA
/// fuses the computation with the widening `convert_element_type` and may
/// skip the rounding to the narrow type in between (excess precision, on
/// by default), so `jnp.exp(x).sum()` of a bfloat16 `x` sums unrounded
/// exponentials there; shardlab rounds every narrow result.
pub(super) fn refuse_excess_precision(jaxpr: &Jaxpr) -> Result<()> {
    let mut computed: HashMap<Var, &Prim> = HashMap::new();
    for e in &jaxpr.eqns {
        let widens = matches!(e.prim, Prim::Convert(d, _) if !d.is_narrow() && d.is_inexact());
        if let (true, Some(Atom::Var(v))) = (widens, e.inputs.first()) {
            if let Some(p) = computed.get(v) {
                crate::bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: {} computed by {} and widened by \
                     convert_element_type under jax.jit (XLA may keep it unrounded)",
                    jaxpr.avals[v.0 as usize].dtype.name(),
                    p.name()
                );
            }
        }
        let arithmetic = matches!(
            e.prim,
            Prim::Unary(_) | Prim::Binary(_) | Prim::IntegerPow(_) | Prim::DotGeneral { .. }
        );
        for out in &e.outputs {
            let d = jaxpr.avals[out.0 as usize].dtype;
            if arithmetic && d.is_narrow() && d.is_float() {
                computed.insert(*out, &e.prim);
            }
        }
    }
    Ok(())
}
