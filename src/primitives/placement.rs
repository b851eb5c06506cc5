//! Where the result of an eager operation on placed arrays lives: each
//! primitive family's sharding rule, for arrays at top level.
//!
//! The values are computed on the whole arrays either way; these rules only
//! say how JAX 0.10.2 lays the result out, so `y.sharding` after `y = x * 2`
//! answers as JAX does. Both kinds of mesh axis follow the same rules here
//! (JAX's sharding-in-types rules for `Explicit` axes, and what XLA's
//! propagation picks for `Auto` ones, which agree on these families):
//! elementwise operations keep their operands' specs dimension by dimension,
//! reductions drop the reduced dimensions, transposes permute the spec. Their
//! spellings differ: an explicit spec names every dimension (`P(None, None)`),
//! while XLA reports a replicated result as `P()`.
//!
//! A family without a rule here marks its result [`Placement::Unknown`]:
//! its values are right, and asking for its sharding fails with
//! `NotImplementedError` instead of guessing. Over explicit axes the
//! sharding is part of the result's type, which JAX checks at once, so there
//! the operation itself fails with `NotImplementedError`.

use std::sync::Arc;

use crate::array::Array;
use crate::array::{BinaryOp, ReduceOp};
use crate::error::Result;
use crate::ir::AxisSet;
use crate::ir::{Atom, Aval, Eqn, Jaxpr, Var};
use crate::mesh::{AxisType, Mesh};
use crate::sharding::{py_frozenset, MemoryKind, NamedSharding, PartitionSpec, Placement};

use super::Prim;

pub(super) type Entry = Option<Vec<String>>;

/// An operand as the rules see it: its shape and where it lives (None for
/// an array nobody placed).
#[derive(Clone, Copy)]
pub struct Operand<'a> {
    /// The global shape.
    pub shape: &'a [usize],
    /// The element type (for messages).
    pub dtype: crate::array::DType,
    /// The placement, if any.
    pub placement: Option<&'a Placement>,
}

impl Operand<'_> {
    fn ndim(&self) -> usize {
        self.shape.len()
    }
}

/// The placements of `prim`'s outputs `outs`, computed from operands `ins`.
pub fn propagate(
    prim: &Prim,
    ins: &[Array],
    outs: &[Array],
) -> Result<Vec<Option<Arc<Placement>>>> {
    let ops: Vec<Operand> = ins
        .iter()
        .map(|a| Operand {
            shape: a.shape(),
            dtype: a.dtype(),
            placement: a.placement(),
        })
        .collect();
    let shapes: Vec<&[usize]> = outs.iter().map(Array::shape).collect();
    rule(prim, &ops, &shapes)
}

/// The placements of the outputs of `prim` on operands `ins`, its outputs
/// having shapes `outs`.
pub fn rule(
    prim: &Prim,
    ins: &[Operand],
    outs: &[&[usize]],
) -> Result<Vec<Option<Arc<Placement>>>> {
    if let Some(placed) = own_rule(prim, ins, outs.len())? {
        return Ok(placed);
    }
    let unknown = || Some(Arc::new(Placement::Unknown(prim.name())));
    // An equation without results (a print, an inspection) places nothing.
    if outs.is_empty() {
        return Ok(vec![]);
    }
    let placed: Vec<&Placement> = ins.iter().filter_map(|o| o.placement).collect();
    let Some(first) = placed.first() else {
        return Ok(vec![None; outs.len()]);
    };
    if placed.iter().any(|p| matches!(p, Placement::Unknown(_))) {
        return Ok(vec![unknown(); outs.len()]);
    }
    same_abstract_mesh(&placed)?;
    let memory = common_memory(prim, &placed)?;
    if let Placement::Device(d) = first {
        let same = placed.iter().all(|p| **p == Placement::Device(*d));
        let p = if same {
            Some(Arc::new(Placement::Device(*d)))
        } else {
            unknown()
        };
        return Ok(vec![p; outs.len()]);
    }
    let Placement::Named(s) = first else {
        return Ok(vec![unknown(); outs.len()]);
    };
    let same_mesh = placed
        .iter()
        .all(|p| matches!(p, Placement::Named(o) if o.mesh == s.mesh));
    let spec = if same_mesh {
        out_spec(prim, ins, outs)?
    } else {
        None
    };
    if spec.is_none() && uses_explicit_axes(&placed) {
        crate::bail!(
            NotImplementedError,
            "not supported by shardlab yet: {} on arrays sharded over explicit mesh axes",
            prim.name()
        );
    }
    let (unreduced, reduced) = ur_rule(prim, ins)?;
    outs.iter()
        .map(|o| {
            Ok(match &spec {
                Some(entries) => {
                    let spec = spelled(&s.mesh, entries.clone(), o.len(), ins)
                        .with_ur(unreduced.clone(), reduced.clone())?;
                    Some(Arc::new(Placement::Named(
                        NamedSharding::new(s.mesh.clone(), spec).in_memory(memory),
                    )))
                }
                None => unknown(),
            })
        })
        .collect()
}

/// The placements of primitives that say themselves where their `n`
/// results live, rather than following their operands.
fn own_rule(prim: &Prim, ins: &[Operand], n: usize) -> Result<Option<Vec<Option<Arc<Placement>>>>> {
    Ok(Some(match prim {
        // A shard_map's results live on its mesh as its out_specs say.
        Prim::ShardMap(p) => shard_map_outs(p),
        // pmap's results have JAX's PmapSharding, which shardlab does not model.
        Prim::Map(m) if m.kind == super::MapKind::Pmap => {
            vec![Some(Arc::new(Placement::Unknown(prim.name()))); n]
        }
        Prim::Map(m) if m.kind == super::MapKind::Vmap => {
            match super::placement_vmap::vmap_outs(m, ins, n)? {
                Some(placed) => placed,
                None => return Ok(None),
            }
        }
        Prim::Scan(p) => match super::placement_scan::scan_outs(p, ins)? {
            Some(placed) => placed,
            None => return Ok(None),
        },
        Prim::ShardingConstraint(c) => vec![Some(Arc::new(c.placement())); n],
        Prim::DevicePut(d) => d
            .targets
            .iter()
            .zip(ins)
            .map(|(t, o)| t.placement(o.placement.cloned().map(Arc::new).as_ref()))
            .collect(),
        Prim::Jit(j) => {
            let placements: Vec<Option<Arc<Placement>>> = ins
                .iter()
                .map(|o| o.placement.cloned().map(Arc::new))
                .collect();
            propagate_jaxpr(&j.body, &placements)?
        }
        _ => return Ok(None),
    }))
}

/// Where a shard_map's results live: on its mesh as its out_specs say. A
/// map manual over some axes places them on the whole mesh, replicated
/// over the other axes; over explicit axes the spec then names every
/// dimension, as the result's type does in JAX.
fn shard_map_outs(p: &super::ShardMapParams) -> Vec<Option<Arc<Placement>>> {
    let mesh = p.whole_mesh.as_ref().unwrap_or(&p.mesh);
    let explicit = p.whole_mesh.is_some() && mesh.axis_types().contains(&AxisType::Explicit);
    p.out_specs
        .iter()
        .zip(p.body.out_avals())
        .map(|(spec, aval)| {
            let mut spec = spec.clone();
            if explicit && spec.entries.len() < aval.shape.len() {
                spec.entries.resize(aval.shape.len(), None);
            }
            let s = NamedSharding::new(mesh.clone(), spec);
            Some(Arc::new(Placement::Named(s)))
        })
        .collect()
}

/// JAX's check that operands on meshes agree as abstract meshes (axis
/// names, sizes and types): meshes of auto axes only may differ (their
/// devices are checked where the program is placed), any other difference
/// is a ValueError before anything runs.
pub fn same_abstract_mesh(placed: &[&Placement]) -> Result<()> {
    let mut seen: Option<&crate::mesh::Mesh> = None;
    for p in placed {
        let Placement::Named(s) = p else { continue };
        let m = &s.mesh;
        if let Some(first) = seen {
            let same = first.axis_names() == m.axis_names()
                && first.shape() == m.shape()
                && first.axis_types() == m.axis_types();
            let auto = |m: &crate::mesh::Mesh| m.axis_types().iter().all(|t| *t == AxisType::Auto);
            if !(same || auto(first) && auto(m)) {
                crate::bail!(
                    ValueError,
                    "Mesh for all inputs should be equal. Got one mesh: {} and another mesh: {}",
                    first.abstract_text(),
                    m.abstract_text()
                );
            }
        }
        seen = Some(m);
    }
    Ok(())
}

/// The memory the results live in: their operands', as in JAX. Operands in
/// different memories JAX refuses or moves, which shardlab does not model.
fn common_memory(prim: &Prim, placed: &[&Placement]) -> Result<MemoryKind> {
    let kinds: Vec<MemoryKind> = placed
        .iter()
        .filter_map(|p| match p {
            Placement::Named(s) => Some(s.memory_kind),
            _ => None,
        })
        .collect();
    let memory = kinds.first().copied().unwrap_or_default();
    if kinds.iter().any(|k| *k != memory) {
        crate::bail!(
            NotImplementedError,
            "not supported by shardlab yet: {} on operands in different memory kinds",
            prim.name()
        );
    }
    Ok(memory)
}

/// An operand's type as JAX prints it: `float32[3,2]{U:k}`.
fn type_text(o: &Operand) -> String {
    crate::sharding::aval_text(o.shape, o.dtype, o.placement)
}

/// The unreduced and reduced axes of an operand.
fn ur_of(o: &Operand) -> (AxisSet, AxisSet) {
    match o.placement {
        Some(Placement::Named(s)) => (s.spec.unreduced.clone(), s.spec.reduced.clone()),
        _ => (AxisSet::new(), AxisSet::new()),
    }
}

/// JAX's rules for the unreduced and reduced axes of a result (the
/// `ur_rule` of each primitive): a sum of partial sums stays partial, a
/// partial sum times a value reduced over the same axes stays partial, a
/// transpose or a sum keeps both; elementwise functions keep reduced axes
/// and refuse unreduced ones, which would need the all-reduce first.
fn ur_rule(prim: &Prim, ins: &[Operand]) -> Result<(AxisSet, AxisSet)> {
    let urs: Vec<(AxisSet, AxisSet)> = ins.iter().map(ur_of).collect();
    if urs.iter().all(|(u, r)| u.is_empty() && r.is_empty()) {
        return Ok((AxisSet::new(), AxisSet::new()));
    }
    let first = urs.first().cloned().unwrap_or_default();
    let any_u = urs.iter().any(|(u, _)| !u.is_empty());
    match prim {
        Prim::DotGeneral { out_sharding, .. } => {
            if any_u {
                let t = |i: usize| ins.get(i).map(type_text).unwrap_or_default();
                crate::bail!(
                    ShardingTypeError,
                    "lhs or rhs passed to dot_general cannot be unreduced. Got lhs=ShapedArray({}) and rhs=ShapedArray({})",
                    t(0),
                    t(1)
                );
            }
            let u = out_sharding
                .as_ref()
                .map(|s| s.spec.unreduced.clone())
                .unwrap_or_default();
            Ok((u, AxisSet::new()))
        }
        Prim::Transpose(_) | Prim::Convert(..) | Prim::Reduce { op: ReduceOp::Sum, .. } => {
            Ok(first)
        }
        Prim::Binary(BinaryOp::Add) => add_ur(&urs),
        Prim::Binary(BinaryOp::Mul) if any_u => mul_ur(ins, &urs),
        Prim::Unary(_) | Prim::IntegerPow(_) | Prim::Binary(_) if !any_u => {
            Ok((AxisSet::new(), nary_reduced(&urs)?))
        }
        Prim::Unary(_) | Prim::IntegerPow(_) | Prim::Binary(_) => crate::bail!(
            NotImplementedError,
            "unreduced rule for {} is not implemented. Please file an issue at https://github.com/jax-ml/jax/issues",
            prim.name()
        ),
        _ => crate::bail!(
            NotImplementedError,
            "not supported by shardlab yet: {} of an unreduced or reduced array",
            prim.name()
        ),
    }
}

/// `add`'s rule: unreduced operands must agree, and stay unreduced.
fn add_ur(urs: &[(AxisSet, AxisSet)]) -> Result<(AxisSet, AxisSet)> {
    let first = urs.first().cloned().unwrap_or_default();
    let reduced = nary_reduced(urs)?;
    let (x, y) = (&first.0, &urs.get(1).cloned().unwrap_or_default().0);
    match (x.is_empty(), y.is_empty()) {
        (true, true) => {}
        (false, false) if x != y => crate::bail!(
            ShardingTypeError,
            "lhs and rhs to `add` must be unreduced along the same mesh axes. Got lhs={}, rhs={}",
            py_frozenset(x),
            py_frozenset(y)
        ),
        (false, false) => {}
        (x_only, _) => {
            let (l, r) = if x_only {
                ("rhs", "lhs")
            } else {
                ("lhs", "rhs")
            };
            crate::bail!(
                ShardingTypeError,
                "{l} is unreduced while {r} is not. `add` operation does not allow this because there will be implicit communication. Please reduce {l} via `reshard` before calling `add`."
            )
        }
    }
    Ok((x.clone(), reduced))
}

/// `mul`'s rule: one unreduced operand times one reduced over the same axes.
fn mul_ur(ins: &[Operand], urs: &[(AxisSet, AxisSet)]) -> Result<(AxisSet, AxisSet)> {
    let first = urs.first().cloned().unwrap_or_default();
    let reduced = nary_reduced(urs)?;
    let y = urs.get(1).cloned().unwrap_or_default();
    let (xu, yu) = (&first.0, &y.0);
    if !xu.is_empty() && !yu.is_empty() {
        crate::bail!(
            ShardingTypeError,
            "lhs and rhs to `mul` cannot be unreduced since mul is bilinear. Got lhs={}, rhs={}",
            py_frozenset(xu),
            py_frozenset(yu)
        );
    }
    let (u, other_r, side, other) = if xu.is_empty() {
        (yu, &first.1, "LHS", "RHS")
    } else {
        (xu, &y.1, "RHS", "LHS")
    };
    if u != other_r {
        let t = |i: usize| ins.get(i).map(type_text).unwrap_or_default();
        crate::bail!(
            ShardingTypeError,
            "{side} should be reduced along the same axes {other} is unreduced on. Got lhs={} and rhs={}",
            t(0),
            t(1)
        );
    }
    Ok((u.clone(), reduced))
}

/// JAX's reduced axes of an n-ary elementwise result: those of its reduced
/// operands, which must agree.
fn nary_reduced(urs: &[(AxisSet, AxisSet)]) -> Result<AxisSet> {
    let mut seen: Vec<&AxisSet> = urs
        .iter()
        .map(|(_, r)| r)
        .filter(|r| !r.is_empty())
        .collect();
    seen.dedup();
    match seen.as_slice() {
        [] => Ok(AxisSet::new()),
        [one] => Ok((*one).clone()),
        _ => crate::bail!(
            ShardingTypeError,
            "All inputs should be reduced across the same mesh axes."
        ),
    }
}

/// The placements of a program's outputs from those of its inputs, equation
/// by equation with the rules above: what a jitted function's outputs get.
/// Outputs that depend on no placed value come back unplaced (None).
pub fn propagate_jaxpr(
    jaxpr: &Jaxpr,
    ins: &[Option<Arc<Placement>>],
) -> Result<Vec<Option<Arc<Placement>>>> {
    let env = propagate_eqns(&jaxpr.avals, &jaxpr.invars, &jaxpr.eqns, ins)?;
    Ok(jaxpr
        .outvars
        .iter()
        .map(|a| atom_placement(&env, a))
        .collect())
}

/// The placement of every variable (indexed by [`Var`]) of a program given
/// as its parts, so that a program still being traced can be asked too.
pub fn propagate_eqns(
    avals: &[Aval],
    invars: &[Var],
    eqns: &[Eqn],
    ins: &[Option<Arc<Placement>>],
) -> Result<Vec<Option<Arc<Placement>>>> {
    let mut env: Vec<Option<Arc<Placement>>> = vec![None; avals.len()];
    for (v, p) in invars.iter().zip(ins) {
        env[v.0 as usize] = p.clone();
    }
    for eqn in eqns {
        let placements: Vec<Option<Arc<Placement>>> =
            eqn.inputs.iter().map(|a| atom_placement(&env, a)).collect();
        if placements.iter().all(Option::is_none) && !has_own_rule(&eqn.prim) {
            continue;
        }
        let lit_shapes: Vec<(Vec<usize>, crate::array::DType)> = eqn
            .inputs
            .iter()
            .map(|a| match a {
                Atom::Var(v) => (avals[v.0 as usize].shape.clone(), avals[v.0 as usize].dtype),
                Atom::Lit(x) => (x.shape().to_vec(), x.dtype()),
            })
            .collect();
        let ops: Vec<Operand> = lit_shapes
            .iter()
            .zip(&placements)
            .map(|((shape, dtype), p)| Operand {
                shape,
                dtype: *dtype,
                placement: p.as_deref(),
            })
            .collect();
        let outs: Vec<&[usize]> = eqn
            .outputs
            .iter()
            .map(|v| avals[v.0 as usize].shape.as_slice())
            .collect();
        for (v, p) in eqn.outputs.iter().zip(rule(&eqn.prim, &ops, &outs)?) {
            env[v.0 as usize] = p;
        }
    }
    Ok(env)
}

/// Primitives that may place their outputs whatever their operands are.
pub fn has_own_rule(prim: &Prim) -> bool {
    match prim {
        Prim::ShardingConstraint(_) | Prim::DevicePut(_) | Prim::Jit(_) | Prim::ShardMap(_) => true,
        // A vmap whose body places something itself (a draw with
        // `out_sharding`) places its stacked result.
        Prim::Map(m) if m.kind == super::MapKind::Vmap => {
            m.body.eqns.iter().any(|e| has_own_rule(&e.prim))
        }
        // So does a scan whose body does.
        Prim::Scan(s) => s.body.eqns.iter().any(|e| has_own_rule(&e.prim)),
        _ => false,
    }
}

fn atom_placement(env: &[Option<Arc<Placement>>], a: &Atom) -> Option<Arc<Placement>> {
    match a {
        Atom::Var(v) => env.get(v.0 as usize).cloned().flatten(),
        Atom::Lit(x) => x.placement_rc(),
    }
}

/// Whether any operand is split over an explicit mesh axis.
fn uses_explicit_axes(placed: &[&Placement]) -> bool {
    placed.iter().any(|p| match p {
        Placement::Named(s) => s
            .spec
            .used_axes()
            .iter()
            .any(|a| s.mesh.axis_type(a).ok() == Some(AxisType::Explicit)),
        _ => false,
    })
}

/// The spec entries of the (first) output, one per dimension, or None when
/// the family has no rule or the operands' specs conflict.
fn out_spec(prim: &Prim, ins: &[Operand], outs: &[&[usize]]) -> Result<Option<Vec<Entry>>> {
    let Some(out) = outs.first() else {
        return Ok(None);
    };
    if let Prim::DotGeneral {
        contracting,
        batch,
        out_sharding,
    } = prim
    {
        if let Some(s) = out_sharding {
            let mut e = s.spec.entries().to_vec();
            e.resize(out.len(), None);
            return Ok(Some(e));
        }
        return dot_general(ins, contracting, batch);
    }
    if matches!(
        prim,
        Prim::Slice { .. } | Prim::DynamicSlice(_) | Prim::Rev(_) | Prim::Take(_)
    ) {
        return super::placement_slicing::spec(prim, ins, out);
    }
    let spec = simple(prim, ins, out);
    if let (Some(e), Prim::Binary(_) | Prim::Select) = (&spec, prim) {
        return elementwise_checked(prim, ins, out, e);
    }
    Ok(spec)
}

/// An elementwise result must not split two dimensions over one mesh
/// axis (operands split over one axis along different dimensions): over
/// explicit axes that is JAX's ShardingTypeError, over auto axes XLA
/// follows the first split operand ([`first_wins`]).
fn elementwise_checked(
    prim: &Prim,
    ins: &[Operand],
    out: &[usize],
    e: &[Entry],
) -> Result<Option<Vec<Entry>>> {
    let used: Vec<&String> = e.iter().flatten().flatten().collect();
    if !used.iter().enumerate().any(|(i, a)| used[..i].contains(a)) {
        return Ok(Some(e.to_vec()));
    }
    let explicit = ins
        .iter()
        .any(|a| a.placement.is_some_and(|p| uses_explicit_axes(&[p])));
    if !explicit {
        return Ok(first_wins(ins, out));
    }
    let inputs: Vec<String> = ins
        .iter()
        .map(|a| typed_short(a.shape, a.dtype, &entries(a, a.ndim())))
        .collect();
    let dtype = match prim {
        Prim::Binary(op) if op.is_comparison() => crate::array::DType::Bool,
        // select(pred, on_false, on_true) has the type of its cases.
        Prim::Select => ins.get(1).map_or(crate::array::DType::Bool, |a| a.dtype),
        _ => ins.first().map_or(crate::array::DType::F32, |a| a.dtype),
    };
    crate::bail!(
        ShardingTypeError,
        "{} operation with inputs: {} produces an illegally sharded result: {}",
        prim.name(),
        inputs.join(", "),
        typed_short(out, dtype, e)
    )
}

/// The families whose rule cannot fail.
fn simple(prim: &Prim, ins: &[Operand], out: &[usize]) -> Option<Vec<Entry>> {
    match prim {
        Prim::Unary(_)
        | Prim::Convert(..)
        | Prim::IntegerPow(_)
        | Prim::StopGradient
        | Prim::Name(_) => Some(entries(ins.first()?, out.len())),
        Prim::Binary(_) | Prim::Select | Prim::Clamp => {
            broadcast(ins, out).or_else(|| first_wins(ins, out))
        }
        Prim::Reduce { axes, .. } => {
            let e = entries(ins.first()?, ins.first()?.ndim());
            Some(
                e.into_iter()
                    .enumerate()
                    .filter(|(d, _)| !axes.contains(d))
                    .map(|(_, x)| x)
                    .collect(),
            )
        }
        Prim::ArgReduce { axis, .. } => {
            let mut e = entries(ins.first()?, ins.first()?.ndim());
            (*axis < e.len()).then(|| {
                e.remove(*axis);
                e
            })
        }
        Prim::Transpose(perm) => {
            let e = entries(ins.first()?, ins.first()?.ndim());
            perm.iter().map(|&p| e.get(p).cloned()).collect()
        }
        Prim::Reshape(_) => reshape(ins.first()?, out),
        // Operand dimension i becomes output dimension dims[i]; the new
        // dimensions are whole.
        Prim::BroadcastInDim { dims, .. } => {
            let e = entries(ins.first()?, ins.first()?.ndim());
            let mut o = vec![None; out.len()];
            for (entry, &d) in e.into_iter().zip(dims) {
                *o.get_mut(d)? = entry;
            }
            Some(o)
        }
        Prim::Concatenate(axis) => concatenate(ins, out.len(), *axis),
        _ => None,
    }
}

/// `concatenate`: operands laid out alike give their layout. Otherwise,
/// over auto axes, XLA takes the first split operand that keeps the
/// concatenated dimension whole, else the first split operand; over
/// explicit axes JAX raises, which has no rule here.
fn concatenate(ins: &[Operand], ndim: usize, axis: usize) -> Option<Vec<Entry>> {
    let first = entries(ins.first()?, ndim);
    if ins.iter().all(|a| entries(a, ndim) == first) {
        return Some(first);
    }
    let placed: Vec<&Placement> = ins.iter().filter_map(|o| o.placement).collect();
    if uses_explicit_axes(&placed) {
        return None;
    }
    let split: Vec<Vec<Entry>> = ins
        .iter()
        .map(|a| entries(a, ndim))
        .filter(|e| e.iter().any(Option::is_some))
        .collect();
    let whole = split
        .iter()
        .find(|e| e.get(axis).is_some_and(Option::is_none));
    whole.or(split.first()).cloned()
}

/// JAX's reshape rule where only dimensions of size 1 come or go: the
/// other dimensions keep their axes in order, the new ones are whole. Other
/// reshapes of a split array have no rule here.
fn reshape(x: &Operand, out: &[usize]) -> Option<Vec<Entry>> {
    let e = entries(x, x.ndim());
    if e.iter().all(Option::is_none) {
        return Some(vec![None; out.len()]);
    }
    let kept =
        |shape: &[usize]| -> Vec<usize> { shape.iter().copied().filter(|&n| n != 1).collect() };
    if kept(x.shape) != kept(out) {
        return None;
    }
    let mut axes = x
        .shape
        .iter()
        .zip(e)
        .filter(|(&n, _)| n != 1)
        .map(|(_, a)| a);
    Some(
        out.iter()
            .map(|&n| if n == 1 { None } else { axes.next().flatten() })
            .collect(),
    )
}

type Dims = (Vec<usize>, Vec<usize>);

/// `dot_general`: batch dimensions, then lhs's free dimensions, then rhs's
/// keep their axes. Sharded contracting dimensions leave the result's
/// sharding open (JAX asks for `out_sharding`; XLA's choice is not
/// modelled), and so does an axis that would split two result dimensions.
fn dot_general(ins: &[Operand], contracting: &Dims, batch: &Dims) -> Result<Option<Vec<Entry>>> {
    let [lhs, rhs] = ins else {
        return Ok(None);
    };
    let (le, re) = (entries(lhs, lhs.ndim()), entries(rhs, rhs.ndim()));
    let spec_text = |e: &[Entry], dims: &[usize]| {
        let names: Vec<String> = dims
            .iter()
            .map(|&d| match &e[d] {
                None => "None".to_string(),
                Some(a) if a.len() == 1 => format!("'{}'", a[0]),
                Some(a) => crate::mesh::fmt_names(a),
            })
            .collect();
        if names.len() == 1 {
            format!("({},)", names[0])
        } else {
            format!("({})", names.join(", "))
        }
    };
    let explicit = [lhs, rhs]
        .iter()
        .any(|a| a.placement.is_some_and(|p| uses_explicit_axes(&[p])));
    let (mut both, mut one) = (false, false);
    for (&l, &r) in contracting.0.iter().zip(&contracting.1) {
        match (&le[l], &re[r]) {
            (Some(a), Some(b)) if a != b && explicit => crate::bail!(
                ShardingTypeError,
                "dot_general requires contracting dimensions to have consistent sharding, got {} and {}.",
                spec_text(&le, &contracting.0),
                spec_text(&re, &contracting.1)
            ),
            (Some(_), Some(_)) => both = true,
            (Some(_), None) | (None, Some(_)) => one = true,
            (None, None) => {}
        }
    }
    if both && explicit {
        crate::bail!(
            ShardingTypeError,
            "Contracting dimensions are sharded and it is ambiguous how the output should be sharded. Please specify the output sharding via the `out_sharding` parameter. Got lhs_contracting_spec={} and rhs_contracting_spec={}",
            spec_text(&le, &contracting.0),
            spec_text(&re, &contracting.1)
        );
    }
    // Over auto axes a split contraction is XLA's to lay out; over
    // explicit ones a split on one side only is gathered first.
    if (both || one) && !explicit {
        return Ok(None);
    }
    let free = |e: &[Entry], c: &[usize], b: &[usize]| -> Vec<Entry> {
        (0..e.len())
            .filter(|d| !c.contains(d) && !b.contains(d))
            .map(|d| e[d].clone())
            .collect()
    };
    let mut out: Vec<Entry> = vec![];
    for (&l, &r) in batch.0.iter().zip(&batch.1) {
        match (&le[l], &re[r]) {
            (a, b) if a == b || b.is_none() => out.push(a.clone()),
            (None, b) => out.push(b.clone()),
            _ => return Ok(None),
        }
    }
    out.extend(free(&le, &contracting.0, &batch.0));
    out.extend(free(&re, &contracting.1, &batch.1));
    let used: Vec<&String> = out.iter().flatten().flatten().collect();
    let repeated = used.iter().enumerate().any(|(i, a)| used[..i].contains(a));
    if repeated && explicit {
        let short = |o: &Operand, e: &[Entry]| typed_short(o.shape, o.dtype, e);
        crate::bail!(
            ShardingTypeError,
            "dot_general operation with inputs: {}, {} produces an illegally sharded result: {}",
            short(lhs, &le),
            short(rhs, &re),
            typed_short(&out_shape(lhs, rhs, contracting, batch), lhs.dtype, &out)
        );
    }
    Ok((!repeated).then_some(out))
}

/// `f32[8@Y,4]`: a type with its explicit splits, as JAX's messages write it.
pub(super) fn typed_short(shape: &[usize], dtype: crate::array::DType, e: &[Entry]) -> String {
    let dims: Vec<String> = shape
        .iter()
        .enumerate()
        .map(|(d, n)| match e.get(d).cloned().flatten() {
            Some(axes) if axes.len() == 1 => format!("{n}@{}", axes[0]),
            Some(axes) => format!("{n}@({})", axes.join(",")),
            None => n.to_string(),
        })
        .collect();
    format!("{}[{}]", dtype.short_name(), dims.join(","))
}

/// The result shape of a `dot_general`: batch, lhs free, rhs free.
fn out_shape(lhs: &Operand, rhs: &Operand, contracting: &Dims, batch: &Dims) -> Vec<usize> {
    let free = |o: &Operand, c: &[usize], b: &[usize]| -> Vec<usize> {
        (0..o.ndim())
            .filter(|d| !c.contains(d) && !b.contains(d))
            .map(|d| o.shape[d])
            .collect()
    };
    let mut shape: Vec<usize> = batch.0.iter().map(|&d| lhs.shape[d]).collect();
    shape.extend(free(lhs, &contracting.0, &batch.0));
    shape.extend(free(rhs, &contracting.1, &batch.1));
    shape
}

/// An operand's spec, one entry per dimension (unplaced: all None).
pub(super) fn entries(a: &Operand, ndim: usize) -> Vec<Entry> {
    let mut e = match a.placement {
        Some(Placement::Named(s)) => s.spec.entries().to_vec(),
        _ => vec![],
    };
    e.resize(ndim, None);
    e
}

/// NumPy broadcasting of specs: each output dimension takes the axes of the
/// operands whose matching dimension has the output's size; operands that
/// disagree have no rule here (JAX raises for explicit axes).
fn broadcast(ins: &[Operand], out_shape: &[usize]) -> Option<Vec<Entry>> {
    let rank = out_shape.len();
    let mut out: Vec<Entry> = vec![None; rank];
    for a in ins {
        let e = entries(a, a.ndim());
        let offset = rank.checked_sub(a.ndim())?;
        for (d, entry) in e.into_iter().enumerate() {
            let Some(axes) = entry else { continue };
            match &out[d + offset] {
                None => out[d + offset] = Some(axes),
                Some(have) if *have == axes => {}
                Some(_) => return None,
            }
        }
    }
    Some(out)
}

/// Operands split in conflicting ways over auto axes: XLA's propagation
/// lays the result out as the first split operand (`y + x` as `y`, `x + y`
/// as `x`) and moves the others. Over explicit axes JAX refuses instead.
fn first_wins(ins: &[Operand], out_shape: &[usize]) -> Option<Vec<Entry>> {
    let placed: Vec<&Placement> = ins.iter().filter_map(|o| o.placement).collect();
    if uses_explicit_axes(&placed) {
        return None;
    }
    let first = ins
        .iter()
        .find(|o| entries(o, o.ndim()).iter().any(Option::is_some))?;
    let offset = out_shape.len().checked_sub(first.ndim())?;
    let mut out: Vec<Entry> = vec![None; out_shape.len()];
    for (d, entry) in entries(first, first.ndim()).into_iter().enumerate() {
        // A broadcast dimension of size 1 holds no split of the result's.
        if first.shape[d] == out_shape[d + offset] {
            out[d + offset] = entry;
        }
    }
    Some(out)
}

/// The spec as JAX spells it. Over a mesh with an explicit axis the
/// sharding is part of the type, which names every dimension. Otherwise it
/// is XLA's: JAX gives the result the sharding of its first operand when
/// that is laid out the same way, spelled as that operand's, and else
/// spells XLA's sharding without trailing `None`s (`P()` when replicated).
fn spelled(mesh: &Mesh, mut e: Vec<Entry>, ndim: usize, ins: &[Operand]) -> PartitionSpec {
    e.resize(ndim, None);
    if mesh.axis_types().contains(&AxisType::Explicit) {
        return PartitionSpec::new(e);
    }
    // Only the first operand counts (JAX's `maybe_recover_user_shardings`
    // compares with the first input's sharding): an unplaced first operand,
    // `0.1 * x` or `jnp.zeros(n) + x`, leaves XLA's spelling.
    let first = ins.first();
    let same = first.and_then(|o| match o.placement {
        Some(Placement::Named(s)) if s.mesh == *mesh && o.ndim() == ndim => {
            let mut theirs = s.spec.entries().to_vec();
            theirs.resize(ndim, None);
            (theirs == e).then(|| s.spec.clone())
        }
        _ => None,
    });
    if let Some(spec) = same {
        return spec;
    }
    while e.last() == Some(&None) {
        e.pop();
    }
    PartitionSpec::new(e)
}

/// A jitted function's output placement `p` (of `ndim` dimensions) as JAX
/// spells it, given the placements of the function's inputs of `shapes`
/// (see [`spelled`]).
pub fn respelled(
    p: Arc<Placement>,
    ndim: usize,
    inputs: &[(Vec<usize>, Option<Arc<Placement>>)],
) -> Arc<Placement> {
    let Placement::Named(s) = &*p else {
        return p;
    };
    let ops: Vec<Operand> = inputs
        .iter()
        .map(|(shape, p)| Operand {
            shape,
            dtype: crate::array::DType::F32,
            placement: p.as_deref(),
        })
        .collect();
    let spec = spelled(&s.mesh, s.spec.entries().to_vec(), ndim, &ops);
    Arc::new(Placement::Named(
        NamedSharding::new(s.mesh.clone(), spec).in_memory(s.memory_kind),
    ))
}
