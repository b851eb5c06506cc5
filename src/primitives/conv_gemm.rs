//! The float32 convolution as matrix products, for speed.
//!
//! Each group of the convolution is one GEMM: the patch matrix holds, for
//! every output position, the input values under each kernel tap (zero
//! where the tap falls on padding or a dilation hole), taps in row-major
//! order with the input feature innermost; the kernel matrix holds the
//! kernel in the same order against the group's output features. The
//! product then runs through the same `sgemm` as `lax.dot_general`.
//!
//! The result keeps the bits of the direct loop in `conv.rs`, because
//! sgemm's x86 kernels compute each output as one chain of fused
//! multiply-adds over the contraction, in index order and from zero, as
//! long as the contraction fits one of its blocks (256 terms): exactly the
//! direct loop's sum (a zero patch entry adds `0 * w`, which leaves the sum
//! unchanged). A longer window takes its first 256 terms from sgemm and
//! continues each chain term by term with `f32::mul_add`, since sgemm would
//! start the next block from zero and add the partial sums. Where sgemm's
//! kernel does not fuse (wasm, x86 without FMA) every term goes that way,
//! so no answer depends on the machine.

use super::conv::{ConvParams, Geometry};
use crate::array::matmul::{row_major, sgemm_batched};

/// sgemm's block of the contraction: a longer sum is split into partial
/// sums added afterwards, which rounds differently from one chain.
const SGEMM_KC: usize = 256;

/// The most patch-matrix elements built at once (16 MiB of float32), so
/// a large batch is convolved in slices of output rows.
const PATCH_ELEMS: usize = 1 << 22;

/// Whether sgemm's kernel on this machine fuses each product into its sum
/// (the kernels matrixmultiply picks at run time: AVX-512, or FMA with
/// AVX2).
fn fused_kernel() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            || (std::arch::is_x86_feature_detected!("fma")
                && std::arch::is_x86_feature_detected!("avx2"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// One group's slice of the problem: which input batch block and input
/// features it reads, and which output features it writes.
struct Group {
    batch0: usize,
    first_in: usize,
    first_out: usize,
    per_out: usize,
}

/// The convolution of row-major `lhs` (shape `ls`) with `rhs` (shape `rs`)
/// into an output of shape `oshape`, one GEMM per group and row slice.
pub(super) fn convolve_f32(
    p: &ConvParams,
    (lhs, ls): (&[f32], &[usize]),
    (rhs, rs): (&[f32], &[usize]),
    oshape: &[usize],
) -> Vec<f32> {
    let g = Geometry::new(p, ls, rs, oshape);
    let mut out = vec![0f32; oshape.iter().product()];
    let groups = p.feature_group_count.max(p.batch_group_count);
    let per_out = oshape[p.out_spec[1]] / groups;
    let k = g.taps.len() * g.per_group_in;
    let npos: usize = p.out_spec[2..].iter().map(|&d| oshape[d]).product();
    let rows = g.out_batch * npos;
    if k == 0 || per_out == 0 || rows == 0 {
        return out;
    }
    let slice = (PATCH_ELEMS / k).max(1);
    for index in 0..groups {
        let grp = Group {
            batch0: if p.batch_group_count > 1 {
                index * g.out_batch
            } else {
                0
            },
            first_in: if p.feature_group_count > 1 {
                index * g.per_group_in
            } else {
                0
            },
            first_out: index * per_out,
            per_out,
        };
        let kmat = kernel_matrix(p, &g, rhs, &grp);
        for start in (0..rows).step_by(slice) {
            let m = slice.min(rows - start);
            let a = patch_matrix(p, &g, lhs, &grp, start..start + m);
            let c = chain(&a, &kmat, (m, k, per_out));
            scatter(p, &g, &grp, start, &c, &mut out);
        }
    }
    out
}

/// The product of the row-major `[m, k]` patch matrix `a` and `[k, n]`
/// kernel matrix `b`, each output one chain of fused multiply-adds in
/// index order: sgemm runs the first block of the contraction, and any
/// further terms continue each chain one by one.
fn chain(a: &[f32], b: &[f32], (m, k, n): (usize, usize, usize)) -> Vec<f32> {
    let head = if fused_kernel() { k.min(SGEMM_KC) } else { 0 };
    let mut c = sgemm_batched(
        a,
        [0, k as isize, 1],
        b,
        row_major(head, n),
        1,
        (m, head, n),
    );
    if k > head {
        for (patch, sums) in a.chunks_exact(k).zip(c.chunks_exact_mut(n)) {
            for (t, &x) in patch.iter().enumerate().skip(head) {
                for (acc, &w) in sums.iter_mut().zip(&b[t * n..][..n]) {
                    *acc = x.mul_add(w, *acc);
                }
            }
        }
    }
    c
}

/// The group's kernel as a row-major `[taps * in_features, out_features]`
/// matrix, taps in row-major order and the input feature innermost.
fn kernel_matrix(p: &ConvParams, g: &Geometry, rhs: &[f32], grp: &Group) -> Vec<f32> {
    let pgi = g.per_group_in;
    let (ro, ri) = (g.rstr[p.rhs_spec[0]], g.rstr[p.rhs_spec[1]]);
    let mut kmat = vec![0f32; g.taps.len() * pgi * grp.per_out];
    for (t, (roff, _)) in g.taps.iter().enumerate() {
        for i in 0..pgi {
            let row = &mut kmat[(t * pgi + i) * grp.per_out..][..grp.per_out];
            for (o, slot) in row.iter_mut().enumerate() {
                *slot = rhs[(grp.first_out + o) * ro + roff + i * ri];
            }
        }
    }
    kmat
}

/// The output position of output row `row`: its batch index, returned,
/// and its spatial coordinates, written to `pos` (rows run over the batch
/// and then the spatial positions in row-major order).
fn row_position(p: &ConvParams, g: &Geometry, row: usize, pos: &mut [usize]) -> usize {
    let mut rem = row;
    for (s, x) in pos.iter_mut().enumerate().rev() {
        let size = g.oshape[p.out_spec[s + 2]];
        *x = rem % size;
        rem /= size;
    }
    rem
}

/// The patch matrix of output rows `rows` for the group: row-major
/// `[rows, taps * in_features]`, zero where a tap misses the input.
fn patch_matrix(
    p: &ConvParams,
    g: &Geometry,
    lhs: &[f32],
    grp: &Group,
    rows: std::ops::Range<usize>,
) -> Vec<f32> {
    let pgi = g.per_group_in;
    let k = g.taps.len() * pgi;
    let (lb, lc) = (g.lstr[p.lhs_spec[0]], g.lstr[p.lhs_spec[1]]);
    let mut a = vec![0f32; rows.len() * k];
    let mut pos = vec![0usize; p.nsp()];
    for (patch, row) in a.chunks_exact_mut(k).zip(rows) {
        let n = row_position(p, g, row, &mut pos);
        let base = (grp.batch0 + n) * lb + grp.first_in * lc;
        for ((_, dil), tap) in g.taps.iter().zip(patch.chunks_exact_mut(pgi)) {
            if let Some(loff) = g.lhs_offset(p, &pos, dil) {
                for (i, slot) in tap.iter_mut().enumerate() {
                    *slot = lhs[base + loff + i * lc];
                }
            }
        }
    }
    a
}

/// Writes the GEMM's row-major `[rows, out_features]` block `c`, whose
/// first row is output row `start`, into the output buffer.
fn scatter(p: &ConvParams, g: &Geometry, grp: &Group, start: usize, c: &[f32], out: &mut [f32]) {
    let (ob, of) = (g.ostr[p.out_spec[0]], g.ostr[p.out_spec[1]]);
    let mut pos = vec![0usize; p.nsp()];
    for (r, values) in c.chunks_exact(grp.per_out).enumerate() {
        let n = row_position(p, g, start + r, &mut pos);
        let at: usize = n * ob
            + pos
                .iter()
                .enumerate()
                .map(|(s, &x)| x * g.ostr[p.out_spec[s + 2]])
                .sum::<usize>();
        for (o, &v) in values.iter().enumerate() {
            out[at + (grp.first_out + o) * of] = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic values in [-2, 2) with many distinct bits.
    fn values(n: usize, seed: u64) -> Vec<f32> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
            })
            .collect()
    }

    fn params(spatial: usize, groups: (usize, usize)) -> ConvParams {
        ConvParams {
            window_strides: vec![2; spatial],
            padding: vec![(1, 2); spatial],
            lhs_dilation: vec![1; spatial],
            rhs_dilation: vec![2; spatial],
            lhs_spec: (0..spatial + 2).collect(),
            rhs_spec: (0..spatial + 2).collect(),
            out_spec: (0..spatial + 2).collect(),
            feature_group_count: groups.0,
            batch_group_count: groups.1,
        }
    }

    /// The matrix products give the direct loop's bits, for windows
    /// within one sgemm block and beyond it, with feature and batch
    /// groups, strides, padding and dilations.
    #[test]
    fn gemm_path_matches_the_direct_loop_bit_for_bit() -> crate::error::Result<()> {
        let cases = [
            (params(2, (1, 1)), vec![2, 5, 9, 7], vec![6, 5, 3, 3]),
            (params(2, (1, 1)), vec![1, 40, 8, 8], vec![9, 40, 3, 3]),
            (params(1, (3, 1)), vec![2, 6, 11], vec![9, 2, 4]),
            (params(2, (1, 2)), vec![4, 3, 6, 6], vec![4, 3, 2, 2]),
            (params(3, (1, 1)), vec![1, 2, 5, 4, 6], vec![3, 2, 2, 3, 2]),
        ];
        for (i, (p, ls, rs)) in cases.iter().enumerate() {
            let oshape = p.out_shape(ls, rs)?;
            let lhs = values(ls.iter().product(), 2 * i as u64 + 1);
            let rhs = values(rs.iter().product(), 2 * i as u64 + 2);
            let fast = convolve_f32(p, (&lhs, ls), (&rhs, rs), &oshape);
            let direct = super::super::conv::convolve(
                p,
                (&lhs, ls),
                (&rhs, rs),
                &oshape,
                |a: f32, b: f32, acc: f32| a.mul_add(b, acc),
            );
            let same = fast
                .iter()
                .zip(&direct)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same && fast.len() == direct.len(), "case {i}");
        }
        Ok(())
    }
}
