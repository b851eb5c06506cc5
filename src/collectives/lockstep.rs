//! The collectives for every device at once, in one thread.
//!
//! Used where many virtual devices are evaluated by one thread (vmap, and
//! runs without threads). Each function takes the operands of all devices,
//! indexed by mesh position, and returns the results in the same order, bit
//! for bit what the fabric collectives in [`super`] give: the same checks,
//! the same layouts, and the same rank-order [`fold`].

use super::layout::{
    all_groups, all_to_all_plan, array_words, check_groups, gather_plan, in_mesh_order,
    perm_sources, place, scatter_plan, split_pieces, BLOCK,
};
use super::reduce::{fold, mean_words, ReduceOp};
use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::mesh::Mesh;
use crate::primitives::collectives::IndexGroups;

/// Checks that there is one operand per device, all of one shape and dtype
/// (the same program runs everywhere, so anything else is a caller's bug).
fn check_operands(mesh: &Mesh, xs: &[Array], name: &str) -> Result<()> {
    if xs.len() != mesh.size() {
        bail!(
            ValueError,
            "{name}: got {} operands for a mesh of {} devices; pass one per device",
            xs.len(),
            mesh.size()
        );
    }
    if let Some(i) = xs
        .iter()
        .position(|x| x.shape() != xs[0].shape() || x.dtype() != xs[0].dtype())
    {
        bail!(
            ValueError,
            "{name}: the operands differ between devices: device 0 has {}{:?}, device {i} \
             has {}{:?}",
            xs[0].dtype().short_name(),
            xs[0].shape(),
            xs[i].dtype().short_name(),
            xs[i].shape()
        );
    }
    Ok(())
}

/// Reduces the arrays at `members` (words of `dtype`) in rank order. Works
/// through the elements block by block, folding every member into a block
/// while it is in the cache; each element still sees the members in rank
/// order, so the bits are those of the fabric collectives.
fn reduce_arrays(op: ReduceOp, xs: &[Array], members: &[usize]) -> Vec<u32> {
    let dtype = xs[0].dtype();
    let mut acc = xs[members[0]].to_words();
    let mut block = [0u32; BLOCK];
    for start in (0..acc.len()).step_by(BLOCK) {
        let len = BLOCK.min(acc.len() - start);
        for &m in &members[1..] {
            array_words(&xs[m], start, &mut block[..len]);
            fold(op, dtype, &mut acc[start..start + len], &block[..len]);
        }
    }
    acc
}

/// Reduces the word vectors at `members` (words of `dtype`) in rank order.
fn reduce_words(op: ReduceOp, dtype: DType, words: &[Vec<u32>], members: &[usize]) -> Vec<u32> {
    let mut acc = words[members[0]].clone();
    for &m in &members[1..] {
        fold(op, dtype, &mut acc, &words[m]);
    }
    acc
}

/// Checks the operands, `axes` and `groups`, and returns every group over
/// `axes` (split by `groups` when given).
fn prepare(
    mesh: &Mesh,
    xs: &[Array],
    axes: &[String],
    groups: Option<&IndexGroups>,
    name: &str,
) -> Result<Vec<Vec<usize>>> {
    check_operands(mesh, xs, name)?;
    check_groups(mesh, axes, groups, name)?;
    all_groups(mesh, axes, groups)
}

/// [`super::axis_index`] of every device.
pub fn axis_index(mesh: &Mesh, axes: &[String]) -> Result<Vec<Array>> {
    (0..mesh.size())
        .map(|p| super::axis_index(mesh, p, axes))
        .collect()
}

/// [`super::psum`] of every device.
pub fn psum(mesh: &Mesh, xs: &[Array], axes: &[String]) -> Result<Vec<Array>> {
    preduce(mesh, xs, axes, None, ReduceOp::Sum)
}

/// [`super::pmax`] of every device.
pub fn pmax(mesh: &Mesh, xs: &[Array], axes: &[String]) -> Result<Vec<Array>> {
    preduce(mesh, xs, axes, None, ReduceOp::Max)
}

/// [`super::pmin`] of every device.
pub fn pmin(mesh: &Mesh, xs: &[Array], axes: &[String]) -> Result<Vec<Array>> {
    preduce(mesh, xs, axes, None, ReduceOp::Min)
}

/// [`super::preduce`] of every device.
pub fn preduce(
    mesh: &Mesh,
    xs: &[Array],
    axes: &[String],
    index_groups: Option<&IndexGroups>,
    op: ReduceOp,
) -> Result<Vec<Array>> {
    let groups = prepare(mesh, xs, axes, index_groups, op.name())?;
    if axes.is_empty() {
        return Ok(xs.to_vec());
    }
    let (shape, dtype) = (xs[0].shape(), xs[0].dtype());
    let mut out = vec![None; xs.len()];
    for members in &groups {
        let sum = Array::from_words(
            shape,
            op.result_dtype(dtype),
            &reduce_arrays(op, xs, members),
        )?;
        for &m in members {
            out[m] = Some(sum.clone());
        }
    }
    Ok(out.into_iter().flatten().collect())
}

/// [`super::pmean`] of every device.
pub fn pmean(
    mesh: &Mesh,
    xs: &[Array],
    axes: &[String],
    index_groups: Option<&IndexGroups>,
) -> Result<Vec<Array>> {
    let groups = prepare(mesh, xs, axes, index_groups, "pmean")?;
    let (shape, dtype) = (xs[0].shape(), xs[0].dtype());
    let mut out = vec![None; xs.len()];
    for members in &groups {
        let sum = if axes.is_empty() {
            xs[members[0]].to_words()
        } else {
            reduce_arrays(ReduceOp::Sum, xs, members)
        };
        let divisor = index_groups.map_or(members.len(), IndexGroups::size);
        let mean = Array::from_words(shape, DType::F32, &mean_words(&sum, dtype, divisor))?;
        for &m in members {
            out[m] = Some(mean.clone());
        }
    }
    Ok(out.into_iter().flatten().collect())
}

/// [`super::all_gather`] of every device.
pub fn all_gather(
    mesh: &Mesh,
    xs: &[Array],
    axes: &[String],
    index_groups: Option<&IndexGroups>,
    axis: usize,
    tiled: bool,
) -> Result<Vec<Array>> {
    let groups = prepare(mesh, xs, axes, index_groups, "all_gather")?;
    if axes.is_empty() {
        return Ok(xs.to_vec());
    }
    let words: Vec<Vec<u32>> = xs.iter().map(Array::to_words).collect();
    let p = groups[0].len();
    let plan = gather_plan(xs[0].shape(), p, axis, tiled)?;
    let mut out = vec![None; xs.len()];
    for members in &groups {
        let mut gathered = vec![0u32; xs[0].size() * p];
        for (r, &m) in members.iter().enumerate() {
            place(&mut gathered, &plan, p, r, 0, &words[m]);
        }
        let gathered = Array::from_words(&plan.out_shape, xs[0].dtype(), &gathered)?;
        for &m in members {
            out[m] = Some(gathered.clone());
        }
    }
    Ok(out.into_iter().flatten().collect())
}

/// [`super::psum_scatter`] of every device.
pub fn psum_scatter(
    mesh: &Mesh,
    xs: &[Array],
    axes: &[String],
    index_groups: Option<&IndexGroups>,
    scatter_dimension: usize,
    tiled: bool,
) -> Result<Vec<Array>> {
    let groups = prepare(mesh, xs, axes, index_groups, "psum_scatter")?;
    if axes.is_empty() {
        return Ok(xs.to_vec());
    }
    let words: Vec<Vec<u32>> = xs.iter().map(Array::to_words).collect();
    let p = groups[0].len();
    let dtype = xs[0].dtype();
    let (split, out_shape) = scatter_plan(xs[0].shape(), p, scatter_dimension, tiled)?;
    let pieces: Vec<Vec<u32>> = words.iter().map(|w| split_pieces(w, &split, p)).collect();
    let c = split.piece_words();
    let mut out = vec![None; xs.len()];
    for members in &groups {
        let sum = reduce_words(ReduceOp::Sum, dtype, &pieces, members);
        for (r, &m) in members.iter().enumerate() {
            let part = &sum[r * c..(r + 1) * c];
            out[m] = Some(Array::from_words(
                &out_shape,
                ReduceOp::Sum.result_dtype(dtype),
                part,
            )?);
        }
    }
    Ok(out.into_iter().flatten().collect())
}

/// [`super::ppermute`] of every device.
pub fn ppermute(
    mesh: &Mesh,
    xs: &[Array],
    axes: &[String],
    perm: &[(usize, usize)],
) -> Result<Vec<Array>> {
    prepare(mesh, xs, axes, None, "ppermute")?;
    let groups = all_groups(mesh, &in_mesh_order(mesh, axes), None)?;
    let source_of = perm_sources(perm, groups[0].len())?;
    let zeros = Array::zeros(xs[0].shape(), xs[0].dtype());
    let mut out = vec![None; xs.len()];
    for members in &groups {
        for (r, &m) in members.iter().enumerate() {
            out[m] = Some(match source_of[r] {
                Some(s) => xs[members[s]].clone(),
                None => zeros.clone(),
            });
        }
    }
    Ok(out.into_iter().flatten().collect())
}

/// [`super::all_to_all`] of every device.
pub fn all_to_all(
    mesh: &Mesh,
    xs: &[Array],
    axes: &[String],
    index_groups: Option<&IndexGroups>,
    split_axis: usize,
    concat_axis: usize,
    tiled: bool,
) -> Result<Vec<Array>> {
    if let Some(g) = index_groups {
        check_operands(mesh, xs, "all_to_all")?;
        if g.all_to_all_is_identity(super::axis_size(mesh, axes)?)? {
            return Ok(xs.to_vec());
        }
    }
    let groups = prepare(mesh, xs, axes, index_groups, "all_to_all")?;
    if axes.is_empty() {
        return Ok(xs.to_vec());
    }
    let words: Vec<Vec<u32>> = xs.iter().map(Array::to_words).collect();
    let p = groups[0].len();
    let plan = all_to_all_plan(xs[0].shape(), p, split_axis, concat_axis, tiled)?;
    let pieces: Vec<Vec<u32>> = words
        .iter()
        .map(|w| split_pieces(w, &plan.split, p))
        .collect();
    let c = plan.split.piece_words();
    let mut out = vec![None; xs.len()];
    for members in &groups {
        for (r, &m) in members.iter().enumerate() {
            let mut received = vec![0u32; c * p];
            for (i, &src) in members.iter().enumerate() {
                place(
                    &mut received,
                    &plan.gather,
                    p,
                    i,
                    0,
                    &pieces[src][r * c..(r + 1) * c],
                );
            }
            out[m] = Some(Array::from_words(
                &plan.gather.out_shape,
                xs[0].dtype(),
                &received,
            )?);
        }
    }
    Ok(out.into_iter().flatten().collect())
}
