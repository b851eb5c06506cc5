//! Argument checks and data layouts shared by the fabric collectives and the
//! single-thread ones, so that both accept the same calls, fail with the same
//! errors, and move the same words to the same places.
//!
//! Every layout here is a view of a row-major array as 3-d blocks
//! `[outer, p, inner]`, where `p` is the group size: gathering places member
//! `r`'s data at `[:, r, :]`, scattering sends `[:, r, :]` to member `r`.

use crate::array::{numel, Array, Buffer};
use crate::bail;
use crate::error::Result;
use crate::fabric::Elems;
use crate::mesh::Mesh;
use crate::primitives::collectives::IndexGroups;

/// A device's group for a collective over `axes`: the members' positions in
/// rank order and the device's own rank. With `groups` (JAX's
/// `axis_index_groups`), the devices along `axes` are split further and the
/// rank is the place in the listed group. Fails (NameError, ValueError) on an
/// unknown or repeated axis.
pub(crate) fn group_of(
    mesh: &Mesh,
    position: usize,
    axes: &[String],
    groups: Option<&IndexGroups>,
) -> Result<(Vec<usize>, usize)> {
    let members = mesh.group(position, axes)?;
    let rank = mesh.index_along(position, axes)?;
    match groups {
        None => Ok((members, rank)),
        Some(g) => g.split(&members, rank),
    }
}

/// Checks JAX's `axis_index_groups` of the collective `name` against the
/// size of `axes` before anything moves (the same on every device, so all
/// fail alike). Only the reductions accept groups of unequal sizes.
pub(crate) fn check_groups(
    mesh: &Mesh,
    axes: &[String],
    groups: Option<&IndexGroups>,
    name: &str,
) -> Result<()> {
    let Some(g) = groups else { return Ok(()) };
    let n = mesh.group(0, axes)?.len();
    let uneven = matches!(name, "psum" | "pmax" | "pmin" | "pmean");
    g.check(n, name, uneven)
}

/// `axes` sorted into the mesh's order. JAX's `ppermute` ranks the members
/// of a group along its named axes taken in mesh order, whatever order they
/// are listed in (unlike `axis_index`, `all_gather` and the others), so a
/// permutation over `('y', 'x')` means the same as over `('x', 'y')`.
pub(crate) fn in_mesh_order(mesh: &Mesh, axes: &[String]) -> Vec<String> {
    mesh.axis_names()
        .iter()
        .filter(|a| axes.contains(a))
        .cloned()
        .collect()
}

/// The groups of a collective over `axes` (split by `groups` when given),
/// each in rank order: every device is in exactly one.
pub(crate) fn all_groups(
    mesh: &Mesh,
    axes: &[String],
    groups: Option<&IndexGroups>,
) -> Result<Vec<Vec<usize>>> {
    let mut out = Vec::new();
    for position in 0..mesh.size() {
        if mesh.index_along(position, axes)? != 0 {
            continue;
        }
        let full = mesh.group(position, axes)?;
        match groups {
            None => out.push(full),
            Some(g) => {
                for sub in g.groups() {
                    let rank = sub.first().copied().unwrap_or(0);
                    out.push(g.split(&full, rank)?.0);
                }
            }
        }
    }
    Ok(out)
}

/// Where `all_gather` puts each member's array: member `r`'s flat data
/// becomes `[:, r, :]` of `[outer, p, inner]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GatherPlan {
    pub out_shape: Vec<usize>,
    pub outer: usize,
    pub inner: usize,
}

/// Checks `all_gather`'s `axis` against `shape` and lays out the result.
pub(crate) fn gather_plan(
    shape: &[usize],
    p: usize,
    axis: usize,
    tiled: bool,
) -> Result<GatherPlan> {
    let ndim = shape.len();
    let out_ndim = if tiled { ndim } else { ndim + 1 };
    if axis >= out_ndim {
        bail!(
            ValueError,
            "all_gather: axis {axis} is out of bounds for array of dimension {out_ndim} \
             (the operand has shape {:?}{})",
            shape,
            if tiled { "" } else { " and gains one axis" }
        );
    }
    let mut out_shape = shape.to_vec();
    if tiled {
        out_shape[axis] *= p;
    } else {
        out_shape.insert(axis, p);
    }
    Ok(GatherPlan {
        out_shape,
        outer: numel(&shape[..axis]),
        inner: numel(&shape[axis..]),
    })
}

/// How `psum_scatter` and `all_to_all` cut an operand into the `p` pieces
/// sent to the members: piece `r` is `[:, r, :]` of `[outer, p, inner]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SplitPlan {
    pub outer: usize,
    pub inner: usize,
}

impl SplitPlan {
    fn along(shape: &[usize], p: usize, axis: usize) -> SplitPlan {
        SplitPlan {
            outer: numel(&shape[..axis]),
            inner: numel(&shape[axis..]) / p,
        }
    }

    /// Words in each piece.
    pub fn piece_words(&self) -> usize {
        self.outer * self.inner
    }
}

/// Checks `psum_scatter`'s arguments and returns the split of the operand and
/// the shape of each member's result.
pub(crate) fn scatter_plan(
    shape: &[usize],
    p: usize,
    dim: usize,
    tiled: bool,
) -> Result<(SplitPlan, Vec<usize>)> {
    if dim >= shape.len() {
        bail!(
            IndexError,
            "psum_scatter: scatter_dimension {dim} is out of range for an operand of \
             shape {:?} ({} dimensions)",
            shape,
            shape.len()
        );
    }
    let size = shape[dim];
    let mut out_shape = shape.to_vec();
    if tiled {
        if size % p != 0 {
            bail!(
                ValueError,
                "psum_scatter: tiled reduce_scatter operand scatter dimension size {size} \
                 (dimension {dim} of shape {:?}) must be divisible by shard_count {p}",
                shape
            );
        }
        out_shape[dim] = size / p;
    } else {
        if size != p {
            bail!(
                ValueError,
                "psum_scatter: reduce_scatter operand scatter dimension size {size} \
                 (dimension {dim} of shape {:?}) must match shard count {p}; pass \
                 tiled=True to scatter a dimension that is a multiple of it",
                shape
            );
        }
        out_shape.remove(dim);
    }
    Ok((SplitPlan::along(shape, p, dim), out_shape))
}

/// `all_to_all`'s layout: how the operand is split and where the received
/// pieces go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AllToAllPlan {
    pub split: SplitPlan,
    pub gather: GatherPlan,
}

/// Checks `all_to_all`'s arguments and lays out the exchange.
///
/// Tiled, the operand is cut into `p` pieces along `split_axis` and the
/// received pieces are concatenated along `concat_axis` in rank order.
/// Untiled, `split_axis` must have size `p`; it is removed and a new axis of
/// size `p` appears at `concat_axis` of the result. JAX does that with a unit
/// axis inserted before the tiled exchange and squeezed after it, which only
/// changes shapes, so the exchange itself is the tiled one on those shapes.
pub(crate) fn all_to_all_plan(
    shape: &[usize],
    p: usize,
    split_axis: usize,
    concat_axis: usize,
    tiled: bool,
) -> Result<AllToAllPlan> {
    let ndim = shape.len();
    for (name, axis) in [("split_axis", split_axis), ("concat_axis", concat_axis)] {
        if axis >= ndim {
            bail!(
                IndexError,
                "all_to_all: {name} {axis} is out of range for an operand of shape {:?} \
                 ({ndim} dimensions)",
                shape
            );
        }
    }
    let size = shape[split_axis];
    if tiled {
        if size % p != 0 {
            bail!(
                ValueError,
                "all_to_all: the size of split_axis {split_axis} ({size}, in shape {:?}) \
                 has to be divisible by the size of the named axes ({p})",
                shape
            );
        }
        return Ok(tiled_all_to_all(shape, p, split_axis, concat_axis, None));
    }
    if size != p {
        bail!(
            ValueError,
            "all_to_all requires the size of the mapped axes ({p}) to equal \
             x.shape[split_axis] (split_axis {split_axis} of shape {:?} has size {size}); \
             pass tiled=True to split a multiple of it",
            shape
        );
    }
    let mut expanded = shape.to_vec();
    let (split, concat) = match split_axis.cmp(&concat_axis) {
        std::cmp::Ordering::Equal => (split_axis, concat_axis),
        std::cmp::Ordering::Less => {
            expanded.insert(concat_axis + 1, 1);
            (split_axis, concat_axis + 1)
        }
        std::cmp::Ordering::Greater => {
            expanded.insert(concat_axis, 1);
            (split_axis + 1, concat_axis)
        }
    };
    let squeeze = (split != concat).then_some(split);
    Ok(tiled_all_to_all(&expanded, p, split, concat, squeeze))
}

fn tiled_all_to_all(
    shape: &[usize],
    p: usize,
    split_axis: usize,
    concat_axis: usize,
    squeeze: Option<usize>,
) -> AllToAllPlan {
    let split = SplitPlan::along(shape, p, split_axis);
    let mut piece = shape.to_vec();
    piece[split_axis] /= p;
    let mut out_shape = piece.clone();
    out_shape[concat_axis] *= p;
    if let Some(axis) = squeeze {
        out_shape.remove(axis);
    }
    AllToAllPlan {
        split,
        gather: GatherPlan {
            out_shape,
            outer: numel(&piece[..concat_axis]),
            inner: numel(&piece[concat_axis..]),
        },
    }
}

/// Checks a `ppermute` permutation over groups of `p` and returns, for each
/// rank, the rank it receives from.
pub(crate) fn perm_sources(perm: &[(usize, usize)], p: usize) -> Result<Vec<Option<usize>>> {
    let mut source_of = vec![None; p];
    let mut is_source = vec![false; p];
    for &(src, dst) in perm {
        if src >= p || dst >= p {
            bail!(
                IndexError,
                "ppermute: the pair ({src}, {dst}) names a rank outside the group; ranks \
                 along the named axes run from 0 to {}",
                p - 1
            );
        }
        if is_source[src] || source_of[dst].is_some() {
            bail!(
                ValueError,
                "ppermute sources and destinations must be unique, got {}",
                fmt_perm(perm)
            );
        }
        is_source[src] = true;
        source_of[dst] = Some(src);
    }
    Ok(source_of)
}

fn fmt_perm(perm: &[(usize, usize)]) -> String {
    let pairs: Vec<String> = perm.iter().map(|(a, b)| format!("({a}, {b})")).collect();
    if pairs.len() == 1 {
        format!("({},)", pairs[0])
    } else {
        format!("({})", pairs.join(", "))
    }
}

/// Reorders `[outer, p, inner]` words into `[p, outer, inner]`, making the
/// piece for each member contiguous.
pub(crate) fn split_pieces(words: &[u32], plan: &SplitPlan, p: usize) -> Vec<u32> {
    if plan.outer == 1 {
        return words.to_vec();
    }
    let (outer, inner) = (plan.outer, plan.inner);
    let mut out = Vec::with_capacity(words.len());
    for r in 0..p {
        for o in 0..outer {
            let start = (o * p + r) * inner;
            out.extend_from_slice(&words[start..start + inner]);
        }
    }
    out
}

/// Copies words `start..start + data.len()` of member `rank`'s flat data into
/// `[outer, p, inner]`-shaped `out` at `[:, rank, :]`.
pub(crate) fn place(
    out: &mut [u32],
    plan: &GatherPlan,
    p: usize,
    rank: usize,
    start: usize,
    data: &[u32],
) {
    gather_runs(plan, p, rank, start, data.len(), |done, dst, run| {
        out[dst..dst + run].copy_from_slice(&data[done..done + run]);
    });
}

/// The contiguous runs in which words `start..start + len` of member
/// `rank`'s flat data land in the `[outer, p, inner]`-shaped result, as
/// `f(offset within the len words, offset in the result, run length)`.
pub(crate) fn gather_runs(
    plan: &GatherPlan,
    p: usize,
    rank: usize,
    start: usize,
    len: usize,
    mut f: impl FnMut(usize, usize, usize),
) {
    let inner = plan.inner;
    let mut done = 0;
    while done < len {
        let w = start + done;
        let (o, i) = (w / inner, w % inner);
        let run = (inner - i).min(len - done);
        f(done, (o * p + rank) * inner + i, run);
        done += run;
    }
}

/// Words converted at a time when an array is streamed rather than
/// converted whole: small enough to stay in the L1 cache.
pub(crate) const BLOCK: usize = 1024;

/// Elements `start..start + out.len()` of `x` as words.
pub(crate) fn array_words(x: &Array, start: usize, out: &mut [u32]) {
    buffer_words(x.buffer(), start, out)
}

/// Words `start..start + out.len()` of an array's buffer, as
/// [`Array::to_words`] gives them.
pub(crate) fn buffer_words(buffer: &Buffer, start: usize, out: &mut [u32]) {
    let end = start + out.len();
    match buffer {
        Buffer::F32(d) => Elems::F32(d).words(start, out),
        Buffer::I32(d) => Elems::I32(d).words(start, out),
        Buffer::U32(d) => Elems::U32(d).words(start, out),
        Buffer::Bool(d) => {
            for (o, &v) in out.iter_mut().zip(&d[start..end]) {
                *o = v as u32;
            }
        }
        Buffer::C64(_) => {
            unreachable!("complex64 values never reach the fabric: the primitives refuse them")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untiled_all_to_all_moves_the_mapped_axis() {
        // (8, 3) split 0 concat 1 -> (3, 8); (3, 8) split 1 concat 0 -> (8, 3).
        assert_eq!(
            all_to_all_plan(&[8, 3], 8, 0, 1, false)
                .unwrap()
                .gather
                .out_shape,
            vec![3, 8]
        );
        assert_eq!(
            all_to_all_plan(&[3, 8], 8, 1, 0, false)
                .unwrap()
                .gather
                .out_shape,
            vec![8, 3]
        );
        assert_eq!(
            all_to_all_plan(&[8, 3], 8, 0, 0, false)
                .unwrap()
                .gather
                .out_shape,
            vec![8, 3]
        );
    }

    #[test]
    fn pieces_and_placement_invert_each_other() {
        let words: Vec<u32> = (0..12).collect();
        // [2, 3, 2]: piece r is [:, r, :].
        let split = SplitPlan { outer: 2, inner: 2 };
        assert_eq!(
            split_pieces(&words, &split, 3),
            vec![0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11]
        );
        let gather = GatherPlan {
            out_shape: vec![2, 3, 2],
            outer: 2,
            inner: 2,
        };
        let mut out = vec![0; 12];
        place(&mut out, &gather, 3, 1, 1, &[20, 21, 22]);
        assert_eq!(out, vec![0, 0, 0, 20, 0, 0, 0, 0, 21, 22, 0, 0]);
    }

    #[test]
    fn bad_permutations_are_refused() {
        assert_eq!(
            perm_sources(&[(0, 1), (1, 0)], 2).unwrap(),
            vec![Some(1), Some(0)]
        );
        assert!(perm_sources(&[(0, 1), (1, 1)], 2)
            .unwrap_err()
            .message
            .contains("((0, 1), (1, 1))"));
        assert_eq!(
            perm_sources(&[(0, 2)], 2).unwrap_err().kind,
            crate::ErrorKind::IndexError
        );
    }
}
