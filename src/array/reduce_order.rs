//! The order in which XLA's CPU backend adds up a float32 reduction, so that a
//! sum or product shows the digits JAX shows.
//!
//! Float addition is not associative: the last bits of `jnp.sum(x)` depend on
//! the order of the additions. XLA's CPU compiler rewrites a reduction whose
//! reduced dimensions include one longer than 32 into a `reduce_window` (a
//! window of 32 along each long reduced dimension, the whole dimension along a
//! short one, stride equal to the window, padded "SAME" with the init value,
//! the smaller half of the padding in front), followed by the same reduction
//! of the windows' results, rewritten again while a dimension is still longer
//! than 32. Every window, and a reduction with no dimension longer than 32,
//! accumulates from the init value in row-major order.
//!
//! Measured against JAX 0.10.2 on random float32 inputs, this order gives the
//! same bits for every reduction of fewer than [`XLA_ORDER_LIMIT`] elements
//! (1-D lengths 1..4095, and 2-D and 3-D reductions over any set of axes). From
//! that size XLA hands reductions to a vectorised library whose order we do
//! not reproduce; there [`super::reduce`] sums in f64 and rounds once, the
//! order-free answer nearest the exact sum.

/// The window XLA's tree reduction rewriter uses on CPU.
const WINDOW: usize = 32;

/// Reductions of arrays with at least this many elements are not rewritten
/// into windows by XLA's CPU backend.
pub(crate) const XLA_ORDER_LIMIT: usize = 4096;

/// Reduces one run, laid out row-major over `dims` (the reduced dimensions
/// in order), with `op` from `init`, in XLA's order.
pub(crate) fn xla_reduce_f32(
    run: &[f32],
    dims: &[usize],
    init: f32,
    op: fn(f32, f32) -> f32,
) -> f32 {
    // XLA drops reduced dimensions of size 1: a run of one is its value.
    if let [v] = run {
        return *v;
    }
    if dims.iter().all(|&d| d <= WINDOW) {
        return run.iter().fold(init, |acc, &v| op(acc, v));
    }
    let window: Vec<usize> = dims.iter().map(|&d| d.min(WINDOW)).collect();
    let out: Vec<usize> = dims
        .iter()
        .zip(&window)
        .map(|(&d, &w)| d.div_ceil(w))
        .collect();
    // "SAME" padding puts the smaller half in front; padding holds `init`,
    // which leaves an accumulator unchanged, so it is skipped.
    let front: Vec<usize> = dims
        .iter()
        .zip(&window)
        .zip(&out)
        .map(|((&d, &w), &o)| (o * w - d) / 2)
        .collect();
    let strides = row_major_strides(dims);
    let windows: Vec<f32> = row_major_indices(&out)
        .map(|o| {
            let mut acc = init;
            for w in row_major_indices(&window) {
                if let Some(flat) = source_index(&o, &w, &window, &front, dims, &strides) {
                    acc = op(acc, run[flat]);
                }
            }
            acc
        })
        .collect();
    xla_reduce_f32(&windows, &out, init, op)
}

/// The flat index of element `w` of window `o`, or `None` in the padding.
fn source_index(
    o: &[usize],
    w: &[usize],
    window: &[usize],
    front: &[usize],
    dims: &[usize],
    strides: &[usize],
) -> Option<usize> {
    let mut flat = 0;
    for k in 0..dims.len() {
        let padded = o[k] * window[k] + w[k];
        let i = padded.checked_sub(front[k]).filter(|&i| i < dims[k])?;
        flat += i * strides[k];
    }
    Some(flat)
}

fn row_major_strides(dims: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; dims.len()];
    for k in (0..dims.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * dims[k + 1];
    }
    strides
}

/// Every multi-index of `dims`, last dimension fastest.
fn row_major_indices(dims: &[usize]) -> impl Iterator<Item = Vec<usize>> + '_ {
    let total: usize = dims.iter().product();
    let strides = row_major_strides(dims);
    (0..total).map(move |flat| {
        dims.iter()
            .zip(&strides)
            .map(|(&d, &s)| (flat / s) % d)
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(a: f32, b: f32) -> f32 {
        a + b
    }

    #[test]
    fn short_runs_add_left_to_right() {
        // (1e8 + 1) + (-1e8) loses the 1 in float32, left to right.
        assert_eq!(xla_reduce_f32(&[1e8, 1.0, -1e8], &[3], 0.0, add), 0.0);
    }

    #[test]
    fn a_long_run_is_split_into_padded_windows() {
        // 33 elements: 31 padding slots, 15 of them in front, so the windows
        // hold elements 0..17 and 17..33. Float32 spacing at 1e8 is 8.
        let mut v = vec![1.0f32; 33];
        v[16] = 1e8;
        v[17] = -1e8;
        // Window one: 16 + 1e8 = 100000016 exactly. Window two: each 1 added
        // to -1e8 is lost. Their sum: 16 (JAX 0.10.2 prints 16.0).
        assert_eq!(xla_reduce_f32(&v, &[33], 0.0, add), 16.0);
        // Left to right the 15 trailing ones survive: 31.
        let sequential: f32 = v.iter().fold(0.0, |a, &b| a + b);
        assert_eq!(sequential, 31.0);
    }

    #[test]
    fn a_long_dimension_beside_a_short_one_gets_windows() {
        // [2, 33] reduced over both axes: windows of [2, 32], padded 15 in
        // front along the columns. Window one holds columns 0..17 of both
        // rows, read row by row: 1e8 (row 0), 3 (row 1, column 7), then -1e8
        // (row 1, column 16). 1e8 + 3 rounds to 1e8, so the 3 is lost: 0, as
        // JAX 0.10.2 prints; the exact sum is 3.
        let mut v = vec![0.0f32; 66];
        v[16] = 1e8;
        v[33 + 16] = -1e8;
        v[33 + 7] = 3.0;
        assert_eq!(xla_reduce_f32(&v, &[2, 33], 0.0, add), 0.0);
    }
}
