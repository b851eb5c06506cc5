//! Contractions: `lax.dot_general` and the `jnp` functions built on it
//! (`matmul`, `dot`).
//!
//! float32 products run through `matrixmultiply::sgemm`, one call per batch
//! element. An operand whose batch, free and contracting axes each walk the
//! buffer as one strided axis (a plain or transposed matrix, say) is passed
//! with those strides as it is; any other is first transposed into a
//! contiguous `[batch, rows, contraction]` or `[batch, contraction, cols]`
//! block.

use super::broadcast::broadcast_shapes;
use super::shape_ops::fmt_shape;
use super::{strides, Array, Buffer, DType, C64};
use crate::error::Result;
use crate::{bail, err};

/// Where one operand's elements sit: for its batch, row and column groups of
/// axes, the stride (in elements) with which each group advances, each group
/// being walked as a single axis.
pub(crate) type Layout = [isize; 3];

/// The layout of a contiguous row-major `[nb, rows, cols]` block.
pub(crate) fn row_major(rows: usize, cols: usize) -> Layout {
    [(rows * cols) as isize, cols as isize, 1]
}

/// The layout in which the axes `groups` (batch, rows, columns) of a
/// row-major array of `shape` can be read in place, or `None` when some group
/// does not walk its part of the buffer as one strided axis (each axis's
/// stride equal to the next's times the next's size, axes of size 1 aside).
fn layout_of(shape: &[usize], groups: [&[usize]; 3]) -> Option<Layout> {
    let st = strides(shape);
    let mut out = [1isize; 3];
    for (g, dims) in groups.iter().enumerate() {
        let mut prev: Option<usize> = None;
        for &d in dims.iter().filter(|&&d| shape[d] != 1) {
            if prev.is_some_and(|p| st[p] != st[d] * shape[d]) {
                return None;
            }
            prev = Some(d);
        }
        if let Some(p) = prev {
            out[g] = st[p] as isize;
        }
    }
    Some(out)
}

/// `C[b] = A[b] @ B[b]` for `A: [nb, m, k]` and `B: [nb, k, n]` read in
/// place with the layouts `la` and `lb` (any strides: matrixmultiply packs
/// its operands itself, so a transposed operand costs no copy); `C` is
/// row-major.
pub(crate) fn sgemm_batched(
    a: &[f32],
    la: Layout,
    b: &[f32],
    lb: Layout,
    nb: usize,
    (m, k, n): (usize, usize, usize),
) -> Vec<f32> {
    let mut c = vec![0.0f32; nb * m * n];
    if k == 0 || m == 0 || n == 0 {
        return c;
    }
    for i in 0..nb {
        let cb = &mut c[i * m * n..(i + 1) * m * n];
        let (ao, bo) = (i as isize * la[0], i as isize * lb[0]);
        // SAFETY: every element (i, r, p) of A at `ao + r * la[1] + p * la[2]`
        // lies in `a` (the layouts come from `a`'s and `b`'s own shapes, or
        // describe contiguous blocks of exactly nb*m*k and nb*k*n elements),
        // likewise for B, and `cb` holds m*n row-major elements exclusively
        // borrowed.
        unsafe {
            matrixmultiply::sgemm(
                m,
                k,
                n,
                1.0,
                a.as_ptr().offset(ao),
                la[1],
                la[2],
                b.as_ptr().offset(bo),
                lb[1],
                lb[2],
                0.0,
                cb.as_mut_ptr(),
                n as isize,
                1,
            );
        }
    }
    c
}

/// The same batched product on wrapping int32.
fn igemm_batched(a: &[i32], b: &[i32], nb: usize, m: usize, k: usize, n: usize) -> Vec<i32> {
    let mut c = vec![0i32; nb * m * n];
    for bi in 0..nb {
        for i in 0..m {
            for p in 0..k {
                let av = a[bi * m * k + i * k + p];
                let brow = &b[bi * k * n + p * n..bi * k * n + (p + 1) * n];
                let crow = &mut c[bi * m * n + i * n..bi * m * n + (i + 1) * n];
                for (cv, &bv) in crow.iter_mut().zip(brow) {
                    *cv = cv.wrapping_add(av.wrapping_mul(bv));
                }
            }
        }
    }
    c
}

/// Checks one side's dimension list: in range and not repeated.
/// complex64 GEMM on row-major blocks, accumulating each output in index
/// order of the contracted dimension, as a complex dot product.
fn cgemm_batched(a: &[C64], b: &[C64], nb: usize, m: usize, k: usize, n: usize) -> Vec<C64> {
    let mut out = vec![C64::default(); nb * m * n];
    for bi in 0..nb {
        let (ab, bb) = (&a[bi * m * k..][..m * k], &b[bi * k * n..][..k * n]);
        for i in 0..m {
            for j in 0..n {
                out[(bi * m + i) * n + j] =
                    (0..k).fold(C64::default(), |acc, p| acc + ab[i * k + p] * bb[p * n + j]);
            }
        }
    }
    out
}

/// JAX's checks of `dot_general`'s dimension numbers against the operands'
/// shapes `ls` and `rs`, with its messages.
fn check_dot_general(
    ls: &[usize],
    rs: &[usize],
    (lc, rc): (&[usize], &[usize]),
    (lb, rb): (&[usize], &[usize]),
) -> Result<()> {
    if lc.len() != rc.len() || lb.len() != rb.len() {
        bail!(
            TypeError,
            "dot_general requires equal numbers of lhs and rhs contracting ({:?} vs {:?}) and batch ({:?} vs {:?}) dimensions, for shapes {} and {}",
            lc,
            rc,
            lb,
            rb,
            fmt_shape(ls),
            fmt_shape(rs)
        );
    }
    check_dims("lhs batch", lb, ls, &[])?;
    check_dims("rhs batch", rb, rs, &[])?;
    check_dims("lhs contracting", lc, ls, lb)?;
    check_dims("rhs contracting", rc, rs, rb)?;
    for (kind, l, r) in [("batch", lb, rb), ("contracting", lc, rc)] {
        for (&a, &b) in l.iter().zip(r) {
            if ls[a] != rs[b] {
                bail!(
                    TypeError,
                    "dot_general requires {kind} dimensions to have the same size: lhs dimension {a} has size {} but rhs dimension {b} has size {} (shapes {} and {})",
                    ls[a],
                    rs[b],
                    fmt_shape(ls),
                    fmt_shape(rs)
                );
            }
        }
    }
    Ok(())
}

fn check_dims(what: &str, dims: &[usize], shape: &[usize], other: &[usize]) -> Result<()> {
    for (i, &d) in dims.iter().enumerate() {
        if d >= shape.len() || dims[..i].contains(&d) || other.contains(&d) {
            bail!(
                TypeError,
                "dot_general requires {what} dimensions to be distinct, in range and not also batch dimensions; got {:?} for shape {}",
                dims,
                fmt_shape(shape)
            );
        }
    }
    Ok(())
}

impl Array {
    /// `lax.dot_general(lhs, rhs, ((lc, rc), (lb, rb)))`. The result's axes
    /// are the batch dimensions (in `lb`'s order), then `lhs`'s free
    /// dimensions, then `rhs`'s, each in their original order. Operands
    /// promote; bool operands multiply as integers and give bool.
    pub fn dot_general(
        lhs: &Array,
        rhs: &Array,
        contracting: (&[usize], &[usize]),
        batch: (&[usize], &[usize]),
    ) -> Result<Array> {
        let (lc, rc) = contracting;
        let (lb, rb) = batch;
        let (ls, rs) = (lhs.shape(), rhs.shape());
        check_dot_general(ls, rs, contracting, batch)?;
        let lfree: Vec<usize> = (0..ls.len())
            .filter(|d| !lb.contains(d) && !lc.contains(d))
            .collect();
        let rfree: Vec<usize> = (0..rs.len())
            .filter(|d| !rb.contains(d) && !rc.contains(d))
            .collect();
        let nb: usize = lb.iter().map(|&d| ls[d]).product();
        let m: usize = lfree.iter().map(|&d| ls[d]).product();
        let k: usize = lc.iter().map(|&d| ls[d]).product();
        let n: usize = rfree.iter().map(|&d| rs[d]).product();
        let lperm: Vec<usize> = lb.iter().chain(&lfree).chain(lc).copied().collect();
        let rperm: Vec<usize> = rb.iter().chain(rc).chain(&rfree).copied().collect();
        let dtype = lhs.dtype().promote(rhs.dtype());
        let compute = if dtype == DType::Bool {
            DType::I32
        } else {
            dtype
        };
        let (a, b) = (lhs.astype(compute), rhs.astype(compute));
        // float32 operands are read in place when their axes allow it, and
        // transposed into contiguous blocks otherwise.
        let (a, la) = match layout_of(ls, [lb, &lfree, lc]) {
            Some(l) if compute == DType::F32 => (a, l),
            _ => (a.transpose(&lperm)?, row_major(m, k)),
        };
        let (b, lbl) = match layout_of(rs, [rb, rc, &rfree]) {
            Some(l) if compute == DType::F32 => (b, l),
            _ => (b.transpose(&rperm)?, row_major(k, n)),
        };
        let mut out_shape: Vec<usize> = lb.iter().map(|&d| ls[d]).collect();
        out_shape.extend(lfree.iter().map(|&d| ls[d]));
        out_shape.extend(rfree.iter().map(|&d| rs[d]));
        let buffer = match (a.buffer(), b.buffer()) {
            (Buffer::F32(x), Buffer::F32(y)) => {
                Buffer::F32(sgemm_batched(x, la, y, lbl, nb, (m, k, n)).into())
            }
            (Buffer::I32(x), Buffer::I32(y)) => {
                Buffer::I32(igemm_batched(x, y, nb, m, k, n).into())
            }
            (Buffer::C64(x), Buffer::C64(y)) => {
                Buffer::C64(cgemm_batched(x, y, nb, m, k, n).into())
            }
            _ => unreachable!("operands were cast to one numeric dtype"),
        };
        let out = Array::from_buffer(&out_shape, buffer)?;
        Ok(if dtype == DType::Bool {
            out.astype(DType::Bool)
        } else {
            out
        })
    }

    /// `jnp.matmul(a, b)` / `a @ b`: a 1-D operand acts as a row (left) or
    /// column (right) vector and its axis is dropped from the result; leading
    /// batch dimensions broadcast.
    pub fn matmul(a: &Array, b: &Array) -> Result<Array> {
        if a.ndim() == 0 || b.ndim() == 0 {
            bail!(
                ValueError,
                "matmul: operands must have at least one dimension, got shapes {} and {}",
                fmt_shape(a.shape()),
                fmt_shape(b.shape())
            );
        }
        let a2 = if a.ndim() == 1 {
            a.expand_dims(0)?
        } else {
            a.clone()
        };
        let b2 = if b.ndim() == 1 {
            b.expand_dims(1)?
        } else {
            b.clone()
        };
        let (an, bn) = (a2.ndim(), b2.ndim());
        let k = a2.shape()[an - 1];
        if k != b2.shape()[bn - 2] {
            bail!(
                TypeError,
                "matmul: contracting dimensions differ: lhs shape {} has {} in its last dimension but rhs shape {} has {} in dimension {}",
                fmt_shape(a.shape()),
                k,
                fmt_shape(b.shape()),
                b2.shape()[bn - 2],
                b.ndim().saturating_sub(2)
            );
        }
        let batch =
            broadcast_shapes(&a2.shape()[..an - 2], &b2.shape()[..bn - 2]).map_err(|_| {
                err!(
                    ValueError,
                    "matmul: batch dimensions of shapes {} and {} cannot be broadcast together",
                    fmt_shape(a.shape()),
                    fmt_shape(b.shape())
                )
            })?;
        let nbd = batch.len();
        let mut ash = batch.clone();
        ash.extend(&a2.shape()[an - 2..]);
        let mut bsh = batch.clone();
        bsh.extend(&b2.shape()[bn - 2..]);
        let bd: Vec<usize> = (0..nbd).collect();
        let out = Array::dot_general(
            &a2.broadcast_to(&ash)?,
            &b2.broadcast_to(&bsh)?,
            (&[nbd + 1], &[nbd]),
            (&bd, &bd),
        )?;
        let mut squeeze = Vec::new();
        if a.ndim() == 1 {
            squeeze.push(nbd);
        }
        if b.ndim() == 1 {
            squeeze.push(nbd + 1);
        }
        out.squeeze(&squeeze)
    }

    /// `jnp.dot(a, b)`: a product with a scalar, the inner product of two
    /// vectors, or a contraction of `a`'s last axis with `b`'s second-to-last
    /// (its only axis when 1-D); the result has `a`'s other axes then `b`'s.
    pub fn dot(a: &Array, b: &Array) -> Result<Array> {
        if a.ndim() == 0 || b.ndim() == 0 {
            return a.binary(super::BinaryOp::Mul, b);
        }
        let la = a.ndim() - 1;
        let rb = if b.ndim() == 1 { 0 } else { b.ndim() - 2 };
        if a.shape()[la] != b.shape()[rb] {
            bail!(
                TypeError,
                "dot: shapes {} and {} are not aligned: dimension {} of the first (size {}) != dimension {} of the second (size {})",
                fmt_shape(a.shape()),
                fmt_shape(b.shape()),
                la,
                a.shape()[la],
                rb,
                b.shape()[rb]
            );
        }
        Array::dot_general(a, b, (&[la], &[rb]), (&[], &[]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::numel;

    fn iota(shape: &[usize]) -> Array {
        Array::from_f32(shape, (0..numel(shape)).map(|i| i as f32).collect()).unwrap()
    }

    #[test]
    fn matmul_2d_by_hand() {
        // [[0,1,2],[3,4,5]] @ [[0,1],[2,3],[4,5]] = [[10,13],[28,40]]
        let c = Array::matmul(&iota(&[2, 3]), &iota(&[3, 2])).unwrap();
        assert_eq!(c.shape(), &[2, 2]);
        assert_eq!(c.to_f64_vec(), vec![10., 13., 28., 40.]);
        let ci = Array::matmul(
            &iota(&[2, 3]).astype(DType::I32),
            &iota(&[3, 2]).astype(DType::I32),
        )
        .unwrap();
        assert_eq!(ci.dtype(), DType::I32);
        assert_eq!(ci.to_f64_vec(), vec![10., 13., 28., 40.]);
    }

    #[test]
    fn matmul_vectors_and_batches() {
        let v = iota(&[3]);
        let m = iota(&[3, 2]);
        let vm = Array::matmul(&v, &m).unwrap();
        assert_eq!(vm.shape(), &[2]);
        assert_eq!(vm.to_f64_vec(), vec![10., 13.]);
        assert_eq!(Array::matmul(&v, &v).unwrap().shape(), &[] as &[usize]);
        assert_eq!(Array::matmul(&v, &v).unwrap().to_f64_vec(), vec![5.]);
        let a = iota(&[2, 1, 2, 3]);
        let b = iota(&[4, 3, 5]);
        let c = Array::matmul(&a, &b).unwrap();
        assert_eq!(c.shape(), &[2, 4, 2, 5]);
        let e = Array::matmul(&iota(&[2, 3]), &iota(&[4, 2])).unwrap_err();
        assert!(
            e.message.contains("(2, 3)") && e.message.contains("(4, 2)"),
            "{}",
            e.message
        );
    }

    #[test]
    fn layouts_read_in_place_or_not() {
        // [3, 4] contracted over axis 0 (a transposed lhs): rows step by 1,
        // the contraction by 4.
        assert_eq!(layout_of(&[3, 4], [&[], &[1], &[0]]), Some([1, 1, 4]));
        // Batch axis 1 of [4, 2, 3]: stride 3; rows (axis 0) 6; columns 1.
        assert_eq!(layout_of(&[4, 2, 3], [&[1], &[0], &[2]]), Some([3, 6, 1]));
        // Free axes 0 and 2 of [2, 3, 2] are not one strided axis.
        assert_eq!(layout_of(&[2, 3, 2], [&[], &[0, 2], &[1]]), None);
        // Axes of size 1 do not break a group.
        assert_eq!(layout_of(&[2, 1, 3], [&[], &[0, 1], &[2]]), Some([1, 3, 1]));
    }

    #[test]
    fn transposed_and_regrouped_operands_by_hand() {
        // a^T @ b^T for a = [[0,1],[2,3],[4,5]] (3x2), b = [[0,1,2],[3,4,5]]
        // (2x3): a^T = [[0,2,4],[1,3,5]], b^T = [[0,3],[1,4],[2,5]];
        // product [[10,28],[13,40]], both operands read with their strides.
        let a = iota(&[3, 2]);
        let b = iota(&[2, 3]);
        let o = Array::dot_general(&a, &b, (&[0], &[1]), (&[], &[])).unwrap();
        assert_eq!(o.shape(), &[2, 2]);
        assert_eq!(o.to_f64_vec(), vec![10., 28., 13., 40.]);
        // lhs [2, 2, 2] contracted over its middle axis: its free axes 0 and
        // 2 are not one strided axis, so it is transposed first. With
        // rhs = [1, 1]: o[i, j] = l[i, 0, j] + l[i, 1, j].
        let l = iota(&[2, 2, 2]);
        let ones = Array::full(&[2], 1.0, DType::F32);
        let o = Array::dot_general(&l, &ones, (&[1], &[0]), (&[], &[])).unwrap();
        assert_eq!(o.shape(), &[2, 2]);
        assert_eq!(o.to_f64_vec(), vec![2., 4., 10., 12.]);
    }

    #[test]
    fn dot_general_layout() {
        // Batch over lhs axis 1 / rhs axis 0; contract lhs 2 with rhs 1.
        let l = iota(&[4, 2, 3]);
        let r = iota(&[2, 3, 5]);
        let o = Array::dot_general(&l, &r, (&[2], &[1]), (&[1], &[0])).unwrap();
        assert_eq!(o.shape(), &[2, 4, 5]);
        // o[1, 2, 3] = sum_k l[2, 1, k] * r[1, k, 3]
        let want: f64 = (0..3)
            .map(|k| ((2 * 6 + 3 + k) * (15 + k * 5 + 3)) as f64)
            .sum();
        assert_eq!(o.get_f64(20 + 2 * 5 + 3), want);
        assert!(Array::dot_general(&l, &r, (&[2], &[2]), (&[1], &[0])).is_err());
    }

    #[test]
    fn dot_follows_jnp() {
        let a = iota(&[2, 3]);
        let b = iota(&[4, 3, 5]);
        assert_eq!(Array::dot(&a, &b).unwrap().shape(), &[2, 4, 5]);
        assert_eq!(
            Array::dot(&a, &iota(&[3])).unwrap().to_f64_vec(),
            vec![5., 14.]
        );
        assert_eq!(
            Array::dot(&Array::scalar_f32(2.), &a).unwrap().shape(),
            &[2, 3]
        );
        assert!(Array::dot(&a, &iota(&[2])).is_err());
    }
}
