//! Partitioning rules of the structural families: the ones that move,
//! select or regroup elements without arithmetic (reshape, slices, pads,
//! reversals, concatenation, gathers, broadcasts, argmax and the
//! reductions that have no collective).
//!
//! Most of them touch some dimensions and leave the others alone: a
//! touched dimension must be whole on every device, an untouched one keeps
//! its split, and each device applies the operation to its block with the
//! block's sizes. A reshape regroups dimensions; a group keeps the split of
//! its leading dimension, which is what lets a batch dimension merged with
//! another (or split off one) stay split.

use crate::array::ReduceOp;
use crate::error::Result;
use crate::mesh::Mesh;
use crate::primitives::Prim;
use crate::trace::{bind1, Value};

use super::layout::{fit, Entry, Layout};
use super::lower::Local;

/// The block shape of a value of `global` shape laid out as `layout`.
fn block_shape(mesh: &Mesh, global: &[usize], layout: &[Entry]) -> Vec<usize> {
    global
        .iter()
        .zip(layout)
        .map(|(&n, e)| match e {
            Some(axes) => n / mesh.axes_size(axes).unwrap_or(1).max(1),
            None => n,
        })
        .collect()
}

/// `x` laid out as its layout with the dimensions `touched` made whole.
fn untouched(x: &Local, touched: &[usize]) -> Layout {
    (0..x.layout.len())
        .map(|d| {
            if touched.contains(&d) {
                None
            } else {
                x.layout[d].clone()
            }
        })
        .collect()
}

/// The families that touch some dimensions and keep the rest: the
/// operation applied per block, or None for a family not handled here.
pub fn dimwise(mesh: &Mesh, prim: &Prim, ins: &[Local], out: &[usize]) -> Result<Option<Local>> {
    let Some(x) = ins.first() else {
        return Ok(None);
    };
    let all: Vec<usize> = (0..x.global.len()).collect();
    let touched: Vec<usize> = match prim {
        Prim::Slice {
            starts,
            limits,
            strides,
        } => all
            .iter()
            .copied()
            .filter(|&d| (starts[d], limits[d], strides[d]) != (0, x.global[d], 1))
            .collect(),
        Prim::Pad { lo, hi } => all.iter().copied().filter(|&d| lo[d] + hi[d] > 0).collect(),
        Prim::Rev(axes) => axes.clone(),
        Prim::Concatenate(axis) => vec![*axis],
        Prim::DynamicSlice(sizes) => all
            .iter()
            .copied()
            .filter(|&d| sizes[d] != x.global[d])
            .collect(),
        Prim::DynamicUpdateSlice => {
            let u = &ins[1].global;
            all.iter()
                .copied()
                .filter(|&d| u[d] != x.global[d])
                .collect()
        }
        Prim::ArgReduce { axis, .. } => vec![*axis],
        Prim::Cumulative { axis, .. } => vec![*axis],
        Prim::Reduce { op, axes }
            if !matches!(op, ReduceOp::Sum | ReduceOp::Max | ReduceOp::Min) =>
        {
            axes.clone()
        }
        Prim::Take(axis) => vec![*axis],
        Prim::BroadcastInDim { shape, dims } => {
            return broadcast_in_dim(mesh, x, shape, dims).map(Some);
        }
        _ => return Ok(None),
    };
    let layout = untouched(x, &touched);
    let local = per_block(mesh, prim, ins, &layout, out)?;
    Ok(Some(local))
}

/// Applies `prim` to blocks laid out as `layout` (operand 0, and any
/// operand of the same rank that is concatenated or written with it);
/// scalar operands (start indices) and a gather's indices stay whole.
fn per_block(
    mesh: &Mesh,
    prim: &Prim,
    ins: &[Local],
    layout: &Layout,
    out: &[usize],
) -> Result<Local> {
    let x = &ins[0];
    let values: Vec<Value> = ins
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let shares = i == 0
                || (matches!(prim, Prim::Concatenate(_) | Prim::DynamicUpdateSlice)
                    && o.global.len() == x.global.len());
            let target = if shares {
                layout.clone()
            } else {
                vec![None; o.global.len()]
            };
            o.to(mesh, &target)
        })
        .collect::<Result<_>>()?;
    let out_layout = result_layout(prim, layout, out);
    let local_prim = localized(mesh, prim, &x.global, layout);
    Ok(Local {
        value: bind1(local_prim, &values)?,
        layout: out_layout,
        global: out.to_vec(),
    })
}

/// The result's layout: the kept splits, in the result's dimensions.
fn result_layout(prim: &Prim, layout: &Layout, out: &[usize]) -> Layout {
    match prim {
        Prim::ArgReduce { axis, .. } => {
            let mut l = layout.clone();
            l.remove(*axis);
            l
        }
        Prim::Reduce { axes, .. } => (0..layout.len())
            .filter(|d| !axes.contains(d))
            .map(|d| layout[d].clone())
            .collect(),
        Prim::Take(axis) => {
            // The gathered axis becomes the indices' dimensions (whole).
            let extra = out.len() + 1 - layout.len();
            let mut l = layout[..*axis].to_vec();
            l.extend(std::iter::repeat_n(None, extra));
            l.extend(layout[axis + 1..].iter().cloned());
            l
        }
        _ => layout.clone(),
    }
}

/// `prim` with the sizes it names made those of the blocks.
fn localized(mesh: &Mesh, prim: &Prim, global: &[usize], layout: &Layout) -> Prim {
    let block = block_shape(mesh, global, layout);
    match prim {
        Prim::Slice {
            starts,
            limits,
            strides,
        } => Prim::Slice {
            starts: starts.clone(),
            limits: limits
                .iter()
                .enumerate()
                .map(|(d, &l)| if layout[d].is_some() { block[d] } else { l })
                .collect(),
            strides: strides.clone(),
        },
        Prim::DynamicSlice(sizes) => Prim::DynamicSlice(
            sizes
                .iter()
                .enumerate()
                .map(|(d, &s)| if layout[d].is_some() { block[d] } else { s })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `broadcast_in_dim`: each operand dimension keeps its split where it
/// keeps its size; the new dimensions are whole.
fn broadcast_in_dim(mesh: &Mesh, x: &Local, shape: &[usize], dims: &[usize]) -> Result<Local> {
    let mut out: Layout = vec![None; shape.len()];
    let mut keep: Layout = vec![None; x.global.len()];
    for (i, &d) in dims.iter().enumerate() {
        if x.global[i] == shape[d] {
            out[d] = x.layout[i].clone();
            keep[i] = x.layout[i].clone();
        }
    }
    let value = x.to(mesh, &keep)?;
    let local_shape = block_shape(mesh, shape, &out);
    let prim = Prim::BroadcastInDim {
        shape: local_shape,
        dims: dims.to_vec(),
    };
    Ok(Local {
        value: bind1(prim, &[value])?,
        layout: out,
        global: shape.to_vec(),
    })
}

/// `reshape`: dimensions are matched in groups of equal size (size-1
/// dimensions aside); a group keeps the split of its leading input
/// dimension on its leading output dimension when that divides evenly, so
/// each device's block stays one contiguous run of the group's elements.
pub fn reshape(mesh: &Mesh, x: &Local, out: &[usize]) -> Result<Local> {
    let mut keep: Layout = vec![None; x.global.len()];
    let mut result: Layout = vec![None; out.len()];
    for (ins, outs) in groups(&x.global, out) {
        let (Some(&i), Some(&o)) = (ins.first(), outs.first()) else {
            continue;
        };
        if let Some(axes) = &x.layout[i] {
            keep[i] = Some(axes.clone());
            result[o] = Some(axes.clone());
        }
    }
    let result = fit(mesh, result, out);
    for (ins, outs) in groups(&x.global, out) {
        if let (Some(&i), Some(&o)) = (ins.first(), outs.first()) {
            if result[o].is_none() {
                keep[i] = None;
            }
        }
    }
    let value = x.to(mesh, &keep)?;
    let local = Prim::Reshape(block_shape(mesh, out, &result));
    Ok(Local {
        value: bind1(local, &[value])?,
        layout: result,
        global: out.to_vec(),
    })
}

/// Pairs the dimensions of `a` and `b` (same element count) into groups
/// of equal product, skipping dimensions of size 1.
fn groups(a: &[usize], b: &[usize]) -> Vec<(Vec<usize>, Vec<usize>)> {
    let ia: Vec<usize> = (0..a.len()).filter(|&d| a[d] != 1).collect();
    let ib: Vec<usize> = (0..b.len()).filter(|&d| b[d] != 1).collect();
    let (mut i, mut j) = (0, 0);
    let mut out = vec![];
    while i < ia.len() && j < ib.len() {
        let (mut ga, mut gb) = (vec![ia[i]], vec![ib[j]]);
        let (mut pa, mut pb) = (a[ia[i]], b[ib[j]]);
        i += 1;
        j += 1;
        while pa != pb {
            if pa < pb && i < ia.len() {
                pa *= a[ia[i]];
                ga.push(ia[i]);
                i += 1;
            } else if pb < pa && j < ib.len() {
                pb *= b[ib[j]];
                gb.push(ib[j]);
                j += 1;
            } else {
                break;
            }
        }
        out.push((ga, gb));
    }
    out
}
