//! The order in which XLA's CPU backend adds up a float32 reduction over one
//! dimension, so that a sum or product shows the digits JAX shows.
//!
//! Float addition is not associative: the last bits of `jnp.sum(x)` depend on
//! the order of the additions. XLA's CPU compiler rewrites a reduction over a
//! dimension longer than 32 into a `reduce_window` (windows of 32, stride 32,
//! padded "SAME" with the init value, the smaller half of the padding in
//! front), followed by the same reduction of the windows' results, rewritten
//! again while it is still longer than 32. Every window, and a reduction of
//! 32 or fewer elements, accumulates from the init value left to right; a
//! dimension of size 1 is not reduced at all.
//!
//! Measured against JAX 0.10.2 on random float32 inputs, this order gives the
//! same bits for every reduction over one dimension of an array with fewer
//! than [`XLA_ORDER_LIMIT`] elements (1-D lengths 1..4095, and one axis of 2-D
//! and 3-D arrays). Reductions over several dimensions, and larger arrays,
//! follow orders we do not reproduce (XLA regroups the dimensions, or hands
//! the reduction to a vectorised library); there [`super::reduce`] sums in f64
//! and rounds once, the order-free answer nearest the exact sum.

/// The window XLA's tree reduction rewriter uses on CPU.
const WINDOW: usize = 32;

/// Reductions of arrays with at least this many elements are not rewritten
/// into windows by XLA's CPU backend.
pub(crate) const XLA_ORDER_LIMIT: usize = 4096;

/// Reduces one run with `op` from `init`, in XLA's order.
pub(crate) fn xla_reduce_f32(run: &[f32], init: f32, op: fn(f32, f32) -> f32) -> f32 {
    if let [v] = run {
        return *v;
    }
    if run.len() <= WINDOW {
        return run.iter().fold(init, |acc, &v| op(acc, v));
    }
    let windows = run.len().div_ceil(WINDOW);
    // The padding holds `init`, which leaves an accumulator unchanged, so
    // the front padding only shifts where the windows start.
    let front = (windows * WINDOW - run.len()) / 2;
    let sums: Vec<f32> = (0..windows)
        .map(|w| {
            let start = (w * WINDOW).saturating_sub(front);
            let end = ((w + 1) * WINDOW - front).min(run.len());
            run[start..end].iter().fold(init, |acc, &v| op(acc, v))
        })
        .collect();
    xla_reduce_f32(&sums, init, op)
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
        assert_eq!(xla_reduce_f32(&[1e8, 1.0, -1e8], 0.0, add), 0.0);
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
        assert_eq!(xla_reduce_f32(&v, 0.0, add), 16.0);
        // Left to right the 15 trailing ones survive: 31.
        let sequential: f32 = v.iter().fold(0.0, |a, &b| a + b);
        assert_eq!(sequential, 31.0);
    }

    #[test]
    fn window_sums_are_windowed_again() {
        // 2000 elements: 63 windows, 8 padding slots in front. Window 0 is
        // 1e8 and 23 ones, each lost: 1e8. Window 62 is 23 ones then -1e8:
        // -99999977 rounds to -99999976. The 61 between hold 32 ones each.
        // The 63 window sums make 2 windows: 1e8 + 31 * 32 = 100000992 and
        // 30 * 32 - 99999976 = -99999016, both exact. Sum: 1976, as JAX
        // 0.10.2 prints.
        let mut v = vec![1.0f32; 2000];
        v[0] = 1e8;
        v[1999] = -1e8;
        assert_eq!(xla_reduce_f32(&v, 0.0, add), 1976.0);
    }
}
