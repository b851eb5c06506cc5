//! Walking strided views without listing their indices: copies of a view
//! (transposes, slices, broadcasts, reversals) into a fresh row-major buffer,
//! and elementwise maps over two operands broadcast against each other.
//!
//! A view is an output shape, a stride per output axis (in elements, possibly
//! zero or negative) and an offset into the source. Axes are first merged
//! where the view is contiguous across them, so that most views become one
//! or two axes; the innermost axis is then copied in a tight loop and the
//! outer ones advance like an odometer.

use std::sync::Arc;

use super::numel;

/// Side of the square tiles in which a transposing copy is done. Small on
/// purpose: the lines of a tile are a whole row of the matrix apart, often a
/// multiple of 4 KiB, so they compete for the same few cache sets (on a
/// 1024 x 1024 float32 matrix, 8 was about three times faster than 32).
const TILE: usize = 8;

/// Drops axes of size 1 and merges each pair of neighbouring axes that the
/// view walks as one (outer stride = inner stride * inner size). Never
/// returns an empty shape: a view of one element becomes `[1]`.
fn simplify(shape: &[usize], strides: &[isize]) -> (Vec<usize>, Vec<isize>) {
    let mut sh: Vec<usize> = Vec::with_capacity(shape.len());
    let mut st: Vec<isize> = Vec::with_capacity(shape.len());
    for (&n, &s) in shape.iter().zip(strides) {
        if n == 1 {
            continue;
        }
        match (sh.last_mut(), st.last_mut()) {
            (Some(pn), Some(ps)) if *ps == s * n as isize => {
                *pn *= n;
                *ps = s;
            }
            _ => {
                sh.push(n);
                st.push(s);
            }
        }
    }
    if sh.is_empty() {
        sh.push(1);
        st.push(0);
    }
    (sh, st)
}

/// Calls `f(offset)` for the start of every innermost line of the view over
/// `outer` (the axes other than the innermost), row-major.
fn for_each_line(outer: &[usize], strides: &[isize], offset: isize, mut f: impl FnMut(isize)) {
    if outer.contains(&0) {
        return;
    }
    let nd = outer.len();
    let mut counter = vec![0usize; nd];
    let mut pos = offset;
    loop {
        f(pos);
        let mut k = nd;
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            counter[k] += 1;
            pos += strides[k];
            if counter[k] < outer[k] {
                break;
            }
            pos -= strides[k] * outer[k] as isize;
            counter[k] = 0;
        }
    }
}

/// A buffer of `n` elements, all `fill`, to be overwritten in place: built
/// straight into the `Arc` (one allocation, no copy out of a `Vec`).
fn filled<T: Copy>(n: usize, fill: T) -> Arc<[T]> {
    std::iter::repeat_n(fill, n).collect()
}

/// The elements of the view (`shape`, `strides`, `offset`) of `src`, in
/// row-major order of `shape`.
pub(crate) fn gather<T: Copy>(
    src: &[T],
    shape: &[usize],
    strides: &[isize],
    offset: isize,
) -> Arc<[T]> {
    let n = numel(shape);
    if n == 0 {
        return Arc::from([]);
    }
    let (sh, st) = simplify(shape, strides);
    let nd = sh.len();
    if nd == 1 && st[0] == 1 {
        let p = offset as usize;
        return Arc::from(&src[p..p + n]);
    }
    let mut arc = filled(n, src[offset as usize]);
    let out = Arc::get_mut(&mut arc).expect("a fresh Arc is unique");
    // A transposing view (the innermost output axis is not the source's
    // contiguous one, but the one before it is): copy in square tiles.
    if nd >= 2 && st[nd - 2] == 1 && st[nd - 1] > 1 {
        let (rows, cols, cs) = (sh[nd - 2], sh[nd - 1], st[nd - 1] as usize);
        let mut blocks = out.chunks_exact_mut(rows * cols);
        for_each_line(&sh[..nd - 2], &st[..nd - 2], offset, |pos| {
            let dst = blocks.next().expect("one block per outer index");
            let start = pos as usize;
            for r0 in (0..rows).step_by(TILE) {
                let r1 = (r0 + TILE).min(rows);
                for c0 in (0..cols).step_by(TILE) {
                    for c in c0..(c0 + TILE).min(cols) {
                        let line = &src[start + c * cs + r0..start + c * cs + r1];
                        for (r, &v) in (r0..r1).zip(line) {
                            dst[r * cols + c] = v;
                        }
                    }
                }
            }
        });
        return arc;
    }
    let (len, step) = (sh[nd - 1], st[nd - 1]);
    let mut lines = out.chunks_exact_mut(len);
    for_each_line(&sh[..nd - 1], &st[..nd - 1], offset, |pos| {
        let dst = lines.next().expect("one line per outer index");
        let p = pos as usize;
        match step {
            1 => dst.copy_from_slice(&src[p..p + len]),
            0 => dst.fill(src[p]),
            _ => {
                for (j, d) in dst.iter_mut().enumerate() {
                    *d = src[(pos + j as isize * step) as usize];
                }
            }
        }
    });
    arc
}

/// `base` with the view (`shape`, `strides`, `offset`) of it overwritten by
/// `upd`'s elements, taken in row-major order of `shape`. The view's strides
/// must not make two elements coincide.
pub(crate) fn scatter<T: Copy>(
    base: &[T],
    upd: &[T],
    shape: &[usize],
    strides: &[isize],
    offset: isize,
) -> Arc<[T]> {
    let mut arc: Arc<[T]> = Arc::from(base);
    if upd.is_empty() {
        return arc;
    }
    let out = Arc::get_mut(&mut arc).expect("a fresh Arc is unique");
    let (sh, st) = simplify(shape, strides);
    let nd = sh.len();
    let (len, step) = (sh[nd - 1], st[nd - 1]);
    let mut lines = upd.chunks_exact(len);
    for_each_line(&sh[..nd - 1], &st[..nd - 1], offset, |pos| {
        let line = lines.next().expect("one line per outer index");
        let p = pos as usize;
        if step == 1 {
            out[p..p + len].copy_from_slice(line);
        } else {
            for (j, &v) in line.iter().enumerate() {
                out[(pos + j as isize * step) as usize] = v;
            }
        }
    });
    arc
}

/// The strides with which an operand of `shape` is read when broadcast to
/// `out` (trailing axes aligned): its row-major stride, or 0 where it has
/// size 1 or lacks the axis.
fn broadcast_strides(shape: &[usize], out: &[usize]) -> Vec<isize> {
    let st = super::strides(shape);
    let lead = out.len() - shape.len();
    (0..out.len())
        .map(|k| {
            if k < lead || shape[k - lead] == 1 {
                0
            } else {
                st[k - lead] as isize
            }
        })
        .collect()
}

/// `f(a[i], b[i])` for every element of `out`, the broadcast shape of
/// `a_shape` and `b_shape`, in row-major order. Equal shapes and a
/// one-element operand are single passes; otherwise the innermost axis is a
/// tight loop in which each operand advances by 1 or stays put.
pub(crate) fn zip_broadcast<A: Copy, B: Copy, R: Copy>(
    a: &[A],
    a_shape: &[usize],
    b: &[B],
    b_shape: &[usize],
    out: &[usize],
    f: impl Fn(A, B) -> R,
) -> Arc<[R]> {
    let n = numel(out);
    // Slice iterators zipped and mapped have an exact length, so these
    // collect straight into the Arc.
    if a.len() == n && b.len() == n {
        return a.iter().zip(b).map(|(&p, &q)| f(p, q)).collect();
    }
    if a.len() == 1 && b.len() == n {
        let p = a[0];
        return b.iter().map(|&q| f(p, q)).collect();
    }
    if b.len() == 1 && a.len() == n {
        let q = b[0];
        return a.iter().map(|&p| f(p, q)).collect();
    }
    if n == 0 {
        return Arc::from([]);
    }
    let (sh, ta, tb) = merged_axes(
        &broadcast_strides(a_shape, out),
        &broadcast_strides(b_shape, out),
        out,
    );
    let nd = sh.len();
    let (len, da, db) = (sh[nd - 1], ta[nd - 1], tb[nd - 1]);
    let outer = &sh[..nd - 1];
    let mut arc = filled(n, f(a[0], b[0]));
    let res = Arc::get_mut(&mut arc).expect("a fresh Arc is unique");
    // Both operands advance together through the outer axes: an odometer
    // over them carries both positions.
    let mut counter = vec![0usize; outer.len()];
    let (mut pa, mut pb) = (0isize, 0isize);
    for dst in res.chunks_exact_mut(len) {
        fill_row(dst, (a, pa, da), (b, pb, db), &f);
        for k in (0..outer.len()).rev() {
            counter[k] += 1;
            pa += ta[k];
            pb += tb[k];
            if counter[k] < outer[k] {
                break;
            }
            pa -= ta[k] * outer[k] as isize;
            pb -= tb[k] * outer[k] as isize;
            counter[k] = 0;
        }
    }
    arc
}

/// The output's axes with those over which both operands are contiguous
/// merged, so that a row or column broadcast has one long innermost axis:
/// the merged lengths and each operand's strides. Size-1 axes drop out.
fn merged_axes(sa: &[isize], sb: &[isize], out: &[usize]) -> (Vec<usize>, Vec<isize>, Vec<isize>) {
    let mut sh: Vec<usize> = Vec::new();
    let mut ta: Vec<isize> = Vec::new();
    let mut tb: Vec<isize> = Vec::new();
    for k in 0..out.len() {
        let len = out[k];
        if len == 1 {
            continue;
        }
        if let Some(last) = sh.len().checked_sub(1) {
            if ta[last] == sa[k] * len as isize && tb[last] == sb[k] * len as isize {
                sh[last] *= len;
                ta[last] = sa[k];
                tb[last] = sb[k];
                continue;
            }
        }
        sh.push(len);
        ta.push(sa[k]);
        tb.push(sb[k]);
    }
    (sh, ta, tb)
}

/// One innermost row of [`zip_broadcast`]: each operand is a buffer, the
/// row's start in it and its stride along the row (1 or 0 in the common
/// cases, which get tight loops).
#[inline]
fn fill_row<A: Copy, B: Copy, R: Copy>(
    dst: &mut [R],
    (a, pa, da): (&[A], isize, isize),
    (b, pb, db): (&[B], isize, isize),
    f: &impl Fn(A, B) -> R,
) {
    let len = dst.len();
    let (x, y) = (pa as usize, pb as usize);
    match (da, db) {
        (1, 1) => {
            for (d, (&p, &q)) in dst.iter_mut().zip(a[x..x + len].iter().zip(&b[y..y + len])) {
                *d = f(p, q);
            }
        }
        (0, 1) => {
            let p = a[x];
            for (d, &q) in dst.iter_mut().zip(&b[y..y + len]) {
                *d = f(p, q);
            }
        }
        (1, 0) => {
            let q = b[y];
            for (d, &p) in dst.iter_mut().zip(&a[x..x + len]) {
                *d = f(p, q);
            }
        }
        _ => {
            for (j, d) in dst.iter_mut().enumerate() {
                let j = j as isize;
                *d = f(a[(pa + j * da) as usize], b[(pb + j * db) as usize]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::simplify;

    fn gather(src: &[i32], shape: &[usize], strides: &[isize], offset: isize) -> Vec<i32> {
        super::gather(src, shape, strides, offset).to_vec()
    }

    fn zip_broadcast(
        a: &[i32],
        a_shape: &[usize],
        b: &[i32],
        b_shape: &[usize],
        out: &[usize],
        f: impl Fn(i32, i32) -> i32,
    ) -> Vec<i32> {
        super::zip_broadcast(a, a_shape, b, b_shape, out, f).to_vec()
    }

    #[test]
    fn simplify_merges_contiguous_axes_and_drops_ones() {
        assert_eq!(simplify(&[2, 3, 4], &[12, 4, 1]), (vec![24], vec![1]));
        assert_eq!(simplify(&[2, 1, 3], &[1, 7, 2]), (vec![2, 3], vec![1, 2]));
        assert_eq!(simplify(&[1, 1], &[5, 5]), (vec![1], vec![0]));
        // Broadcast axes merge only with other broadcast axes.
        assert_eq!(simplify(&[2, 3, 4], &[0, 0, 1]), (vec![6, 4], vec![0, 1]));
    }

    #[test]
    fn gather_transposes_in_tiles() {
        // A 3 x 40 matrix read as its 40 x 3 transpose and back: rows and
        // columns straddle a tile edge.
        let src: Vec<i32> = (0..120).collect();
        let t = gather(&src, &[40, 3], &[1, 40], 0);
        assert_eq!(&t[..7], &[0, 40, 80, 1, 41, 81, 2]);
        assert_eq!(t[3 * 39 + 2], 119);
        let back = gather(&t, &[3, 40], &[1, 3], 0);
        assert_eq!(back, src);
        // Batched: two 2 x 3 matrices, each transposed.
        let b: Vec<i32> = (0..12).collect();
        let bt = gather(&b, &[2, 3, 2], &[6, 1, 3], 0);
        assert_eq!(bt, vec![0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11]);
    }

    #[test]
    fn gather_slices_broadcasts_and_reverses() {
        let src: Vec<i32> = (0..12).collect();
        // Rows 1..3, columns 1..3 of a 3 x 4 matrix.
        assert_eq!(gather(&src, &[2, 2], &[4, 1], 5), vec![5, 6, 9, 10]);
        // Every other column.
        assert_eq!(gather(&src, &[3, 2], &[4, 2], 0), vec![0, 2, 4, 6, 8, 10]);
        // A row broadcast down and a column broadcast across.
        assert_eq!(gather(&src, &[2, 3], &[0, 1], 0), vec![0, 1, 2, 0, 1, 2]);
        assert_eq!(gather(&src, &[2, 3], &[1, 0], 4), vec![4, 4, 4, 5, 5, 5]);
        // Both axes of a 2 x 3 matrix reversed.
        assert_eq!(gather(&src, &[2, 3], &[-3, -1], 5), vec![5, 4, 3, 2, 1, 0]);
        // Scalars and empty views.
        assert_eq!(gather(&src, &[], &[], 7), vec![7]);
        assert!(gather(&src, &[0, 3], &[3, 1], 0).is_empty());
    }

    #[test]
    fn scatter_writes_a_window() {
        let base: Vec<i32> = (0..12).collect();
        // A 2 x 2 window of a 3 x 4 matrix at row 1, column 2.
        let out = super::scatter(&base, &[-1, -2, -3, -4], &[2, 2], &[4, 1], 6);
        assert_eq!(&out[..], &[0, 1, 2, 3, 4, 5, -1, -2, 8, 9, -3, -4]);
        // A column (the innermost axis has size 1, so the line is strided).
        let col = super::scatter(&base, &[-1, -2, -3], &[3, 1], &[4, 1], 1);
        assert_eq!(&col[..], &[0, -1, 2, 3, 4, -2, 6, 7, 8, -3, 10, 11]);
        // An empty update leaves the base as it was.
        let same = super::scatter(&base, &[], &[0, 2], &[4, 1], 0);
        assert_eq!(&same[..], &base[..]);
    }

    #[test]
    fn zip_broadcast_fast_paths_and_fallback() {
        let a = [1, 2, 3, 4, 5, 6];
        let add = |p: i32, q: i32| p * 10 + q;
        // Same shape, and a one-element operand on either side.
        assert_eq!(
            zip_broadcast(&a, &[2, 3], &a, &[2, 3], &[2, 3], add),
            vec![11, 22, 33, 44, 55, 66]
        );
        assert_eq!(
            zip_broadcast(&[7], &[], &a, &[2, 3], &[2, 3], add),
            vec![71, 72, 73, 74, 75, 76]
        );
        assert_eq!(
            zip_broadcast(&a, &[2, 3], &[7], &[1, 1], &[2, 3], add),
            vec![17, 27, 37, 47, 57, 67]
        );
        // Row broadcast: b has shape (3,).
        assert_eq!(
            zip_broadcast(&a, &[2, 3], &[7, 8, 9], &[3], &[2, 3], add),
            vec![17, 28, 39, 47, 58, 69]
        );
        // Column broadcast: b has shape (2, 1), and a (2, 1) against a (3,).
        assert_eq!(
            zip_broadcast(&a, &[2, 3], &[7, 8], &[2, 1], &[2, 3], add),
            vec![17, 27, 37, 48, 58, 68]
        );
        assert_eq!(
            zip_broadcast(&[1, 2], &[2, 1], &[7, 8, 9], &[3], &[2, 3], add),
            vec![17, 18, 19, 27, 28, 29]
        );
        // Both broadcast along the inner axis at different rates: (3, 1, 2)
        // against (2, 1) gives (3, 2, 2).
        let x = [1, 2, 3, 4, 5, 6];
        let got = zip_broadcast(&x, &[3, 1, 2], &[7, 8], &[2, 1], &[3, 2, 2], add);
        assert_eq!(got, vec![17, 27, 18, 28, 37, 47, 38, 48, 57, 67, 58, 68]);
        // Empty result.
        assert!(zip_broadcast(&[1; 0], &[0, 3], &[1, 2, 3], &[3], &[0, 3], add).is_empty());
    }
}
