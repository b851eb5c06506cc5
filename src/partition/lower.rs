//! Each primitive family's partitioning rule: how one equation of the global
//! program becomes per-device equations on blocks, with the collectives its
//! layouts need.
//!
//! The result layout of an equation comes from the family's sharding rule
//! (`primitives::placement`), the same rule that says where an eager
//! result lives, so what a program computes on each device and what
//! `x.sharding` reports agree. Where that rule leaves the layout open, a
//! family picks the one that moves least data (a contraction keeps its
//! operands' free splits); where a family has no rule here, every device
//! gathers its operands whole and computes the whole result, which is slow
//! but never wrong.

use crate::array::ReduceOp;
use crate::error::Result;
use crate::ir::Eqn;
use crate::mesh::Mesh;
use crate::ops;
use crate::primitives::Prim;
use crate::trace::{bind, bind1, Value};

use super::layout::{fit, reshard, whole, Entry, Layout};

/// A value of the per-device program: this device's block, and how the
/// global value is laid out over the mesh.
#[derive(Clone)]
pub struct Local {
    /// The block.
    pub value: Value,
    /// The global value's layout.
    pub layout: Layout,
    /// The global value's shape.
    pub global: Vec<usize>,
}

impl Local {
    /// This value moved to `layout`.
    pub fn to(&self, mesh: &Mesh, layout: &[Entry]) -> Result<Value> {
        reshard(mesh, &self.value, &self.layout, layout, &self.global)
    }
}

/// What the sharding rule asked of one result: a layout, or None when it
/// left the choice open.
pub type Wanted = Option<Layout>;

/// Lowers `eqn` applied to `ins`; its results have global shapes `outs`.
pub fn lower_eqn(
    mesh: &Mesh,
    eqn: &Eqn,
    ins: &[Local],
    outs: &[Vec<usize>],
    wanted: &[Wanted],
) -> Result<Vec<Local>> {
    let want = |i: usize| wanted.get(i).cloned().flatten();
    let one = |local: Local| vec![local];
    match &eqn.prim {
        Prim::Unary(_)
        | Prim::Binary(_)
        | Prim::Select
        | Prim::Clamp
        | Prim::Convert(..)
        | Prim::IntegerPow(_)
        | Prim::StopGradient
        | Prim::Name(_) => {
            let target = fit(mesh, want(0).unwrap_or_default(), &outs[0]);
            elementwise(mesh, &eqn.prim, ins, &outs[0], target).map(one)
        }
        Prim::Reduce {
            op: op @ (ReduceOp::Sum | ReduceOp::Max | ReduceOp::Min),
            axes,
        } => reduce(&eqn.prim, *op, axes, &ins[0], &outs[0]).map(one),
        Prim::Transpose(perm) => {
            let layout = perm.iter().map(|&p| ins[0].layout[p].clone()).collect();
            let value = bind1(eqn.prim.clone(), &[ins[0].value.clone()])?;
            Ok(one(Local {
                value,
                layout,
                global: outs[0].clone(),
            }))
        }
        Prim::DotGeneral {
            contracting, batch, ..
        } => {
            let dims = Dims {
                contracting: contracting.clone(),
                batch: batch.clone(),
            };
            dot_general(mesh, &eqn.prim, &dims, ins, &outs[0], want(0)).map(one)
        }
        Prim::ShardingConstraint(c) if c.sharding.mesh == *mesh => {
            let target = fit(mesh, c.sharding.spec.entries().to_vec(), &outs[0]);
            let value = ins[0].to(mesh, &target)?;
            Ok(one(Local {
                value,
                layout: target,
                global: outs[0].clone(),
            }))
        }
        Prim::Jit(j) => super::lower_jaxpr(mesh, &j.body, ins.to_vec()),
        Prim::Reshape(_) => super::shape::reshape(mesh, &ins[0], &outs[0]).map(one),
        _ => match super::shape::dimwise(mesh, &eqn.prim, ins, &outs[0])? {
            Some(local) if outs.len() == 1 => Ok(one(local)),
            _ => whole_then_split(mesh, &eqn.prim, ins, outs, wanted),
        },
    }
}

/// Elementwise families: every operand moves to the result's layout (a
/// broadcast dimension of size 1 stays whole), then each device computes
/// its block.
fn elementwise(
    mesh: &Mesh,
    prim: &Prim,
    ins: &[Local],
    out: &[usize],
    target: Layout,
) -> Result<Local> {
    let values: Vec<Value> = ins
        .iter()
        .map(|x| {
            let offset = out.len() - x.global.len().min(out.len());
            let aligned: Layout = (0..x.global.len())
                .map(|d| match out.get(d + offset) {
                    Some(&n) if n == x.global[d] => target[d + offset].clone(),
                    _ => None,
                })
                .collect();
            x.to(mesh, &aligned)
        })
        .collect::<Result<_>>()?;
    Ok(Local {
        value: bind1(prim.clone(), &values)?,
        layout: target,
        global: out.to_vec(),
    })
}

/// Sums, maxima and minima: each device reduces its block, then the blocks'
/// partial results are combined over the axes that split a reduced
/// dimension (`psum`, `pmax`, `pmin`).
fn reduce(prim: &Prim, op: ReduceOp, axes: &[usize], x: &Local, out: &[usize]) -> Result<Local> {
    let partial = bind1(prim.clone(), std::slice::from_ref(&x.value))?;
    let split: Vec<String> = axes
        .iter()
        .filter_map(|&d| x.layout.get(d).cloned().flatten())
        .flatten()
        .collect();
    let value = if split.is_empty() {
        partial
    } else {
        match op {
            ReduceOp::Max => ops::pmax(&partial, &split)?,
            ReduceOp::Min => ops::pmin(&partial, &split)?,
            _ => ops::psum(&partial, &split)?,
        }
    };
    let layout = (0..x.layout.len())
        .filter(|d| !axes.contains(d))
        .map(|d| x.layout[d].clone())
        .collect();
    Ok(Local {
        value,
        layout,
        global: out.to_vec(),
    })
}

/// A `dot_general`'s dimension numbers.
struct Dims {
    contracting: (Vec<usize>, Vec<usize>),
    batch: (Vec<usize>, Vec<usize>),
}

/// `dot_general`: batch dimensions split alike on both sides, contracting
/// dimensions split alike (each device multiplies its blocks, then the
/// partial products are summed: `psum`, or `psum_scatter` when the result
/// is to be split over the summed axes), free dimensions keep their splits
/// where no axis would split the result twice.
fn dot_general(
    mesh: &Mesh,
    prim: &Prim,
    dims: &Dims,
    ins: &[Local],
    out: &[usize],
    wanted: Wanted,
) -> Result<Local> {
    let [lhs, rhs] = ins else {
        return whole_then_split(mesh, prim, ins, &[out.to_vec()], &[wanted])
            .map(|mut v| v.remove(0));
    };
    let (mut lt, mut rt) = (lhs.layout.clone(), rhs.layout.clone());
    let mut used: Vec<String> = vec![];
    let sizes = (&lhs.global, &rhs.global);
    pair_up(mesh, &mut lt, &mut rt, &dims.batch, sizes, &mut used);
    keep_free(&mut lt, [&dims.contracting.0, &dims.batch.0], &mut used);
    let before = used.len();
    pair_up(mesh, &mut lt, &mut rt, &dims.contracting, sizes, &mut used);
    let summed: Vec<String> = used[before..].to_vec();
    keep_free(&mut rt, [&dims.contracting.1, &dims.batch.1], &mut used);
    let product = bind1(prim.clone(), &[lhs.to(mesh, &lt)?, rhs.to(mesh, &rt)?])?;
    let mut layout: Layout = dims.batch.0.iter().map(|&d| lt[d].clone()).collect();
    let keep = |t: &Layout, skip: [&Vec<usize>; 2]| -> Vec<Entry> {
        (0..t.len())
            .filter(|d| skip.iter().all(|s| !s.contains(d)))
            .map(|d| t[d].clone())
            .collect()
    };
    layout.extend(keep(&lt, [&dims.contracting.0, &dims.batch.0]));
    layout.extend(keep(&rt, [&dims.contracting.1, &dims.batch.1]));
    let target = wanted.map(|w| fit(mesh, w, out));
    let (value, layout) = sum_partials(product, layout, &summed, target.as_ref())?;
    let local = Local {
        value,
        layout,
        global: out.to_vec(),
    };
    finish(mesh, local, target)
}

/// Gives each pair of dimensions `(lhs[l], rhs[r])` of `pairs` one split,
/// the lhs's or else the rhs's, when no other dimension uses its axes and
/// it divides both sizes; the axes it takes are added to `used`.
fn pair_up(
    mesh: &Mesh,
    lt: &mut Layout,
    rt: &mut Layout,
    pairs: &(Vec<usize>, Vec<usize>),
    sizes: (&Vec<usize>, &Vec<usize>),
    used: &mut Vec<String>,
) {
    for (&l, &r) in pairs.0.iter().zip(&pairs.1) {
        let fits = |axes: &Vec<String>| {
            let n = mesh.axes_size(axes).unwrap_or(0);
            let fresh = axes.iter().all(|a| !used.contains(a));
            fresh && n > 0 && sizes.0[l] % n == 0 && sizes.1[r] % n == 0
        };
        let entry = lt[l]
            .clone()
            .filter(fits)
            .or_else(|| rt[r].clone().filter(fits));
        if let Some(axes) = &entry {
            used.extend(axes.iter().cloned());
        }
        lt[l] = entry.clone();
        rt[r] = entry;
    }
}

/// Keeps the splits of an operand's free dimensions (those not in `skip`)
/// whose axes are not `used` yet, and marks them used.
fn keep_free(t: &mut Layout, skip: [&Vec<usize>; 2], used: &mut Vec<String>) {
    for (d, entry) in t.iter_mut().enumerate() {
        if skip.iter().any(|s| s.contains(&d)) {
            continue;
        }
        match entry.take() {
            Some(axes) if axes.iter().all(|a| !used.contains(a)) => {
                used.extend(axes.iter().cloned());
                *entry = Some(axes);
            }
            _ => {}
        }
    }
}

/// Sums a contraction's partial products over `summed`: where the result
/// is wanted split over some of those axes along a dimension that is whole,
/// a `psum_scatter` leaves each device its block of the sum.
fn sum_partials(
    x: Value,
    mut layout: Layout,
    summed: &[String],
    target: Option<&Layout>,
) -> Result<(Value, Layout)> {
    if summed.is_empty() {
        return Ok((x, layout));
    }
    let scatter = target.and_then(|t| {
        (0..layout.len()).find_map(|d| match (&layout[d], &t[d]) {
            (None, Some(axes)) if axes.iter().all(|a| summed.contains(a)) => {
                Some((d, axes.clone()))
            }
            _ => None,
        })
    });
    let Some((d, axes)) = scatter else {
        return Ok((ops::psum(&x, summed)?, layout));
    };
    let mut x = ops::psum_scatter(&x, &axes, d as i64, true)?;
    let rest: Vec<String> = summed
        .iter()
        .filter(|a| !axes.contains(a))
        .cloned()
        .collect();
    if !rest.is_empty() {
        x = ops::psum(&x, &rest)?;
    }
    layout[d] = Some(axes);
    Ok((x, layout))
}

/// A result moved to the layout its rule wanted, if it wanted one.
fn finish(mesh: &Mesh, local: Local, target: Option<Layout>) -> Result<Local> {
    match target {
        Some(t) if t != local.layout => Ok(Local {
            value: local.to(mesh, &t)?,
            layout: t,
            global: local.global,
        }),
        _ => Ok(local),
    }
}

/// Any other family: every device gathers the operands whole and computes
/// the whole result, then keeps its block of each result the rule wants
/// split.
fn whole_then_split(
    mesh: &Mesh,
    prim: &Prim,
    ins: &[Local],
    outs: &[Vec<usize>],
    wanted: &[Wanted],
) -> Result<Vec<Local>> {
    let values: Vec<Value> = ins
        .iter()
        .map(|x| x.to(mesh, &whole(x.global.len())))
        .collect::<Result<_>>()?;
    let results = bind(prim.clone(), &values)?;
    results
        .into_iter()
        .zip(outs)
        .enumerate()
        .map(|(i, (value, shape))| {
            let local = Local {
                value,
                layout: whole(shape.len()),
                global: shape.clone(),
            };
            let target = wanted
                .get(i)
                .cloned()
                .flatten()
                .map(|w| fit(mesh, w, shape));
            finish(mesh, local, target)
        })
        .collect()
}
