//! Reductions over axes: sum, product, max, min, any, all, mean, argmax and
//! argmin, with `jnp`'s result dtypes.
//!
//! Float32 sums and products over one dimension of arrays smaller than
//! [`XLA_ORDER_LIMIT`] add in XLA's CPU order (see
//! [`super::reduce_order`]), so they show JAX's last digits. Other float sums
//! accumulate in f64 and round once: the float32 nearest the exact sum, which
//! agrees with XLA's own orders to within their rounding error.

use super::reduce_order::{xla_reduce_f32, XLA_ORDER_LIMIT};
use super::shape_ops::{check_axes, check_axis, fmt_shape};
use super::{Array, Buffer, DType};
use crate::bail;
use crate::error::Result;

/// A reduction, as `lax.reduce_*` / `jnp.sum`, `jnp.prod`, `jnp.max`, ...
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum ReduceOp {
    /// Sum; bool and int32 sum to int32.
    Sum,
    /// Product; bool and int32 multiply to int32 (wrapping).
    Prod,
    /// Maximum; NaN propagates. Fails on an empty axis.
    Max,
    /// Minimum; NaN propagates. Fails on an empty axis.
    Min,
    /// Logical or of `x != 0`, a bool.
    Any,
    /// Logical and of `x != 0`, a bool.
    All,
}

impl ReduceOp {
    /// The NumPy name of the reduction, used in messages.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::Any => "any",
            ReduceOp::All => "all",
        }
    }
}

/// Sum of f32 values accumulated in f64 from XLA's init value +0, rounded
/// once. A single value is its own sum, as XLA drops a reduced dimension of
/// size 1 (so -0 stays -0).
pub(crate) fn sum_f32(x: &[f32]) -> f32 {
    match x {
        [v] => *v,
        _ => x.iter().fold(0.0f64, |acc, &v| acc + v as f64) as f32,
    }
}

/// Sums of the columns of the row-major `[run, n]` matrix `x`: for each
/// column, the same f64 additions in the same order as [`sum_f32`] of that
/// column alone (so the same bits), done a row at a time over contiguous
/// memory instead of gathering each column first.
fn sum_leading_f32(x: &[f32], run: usize, n: usize) -> Vec<f32> {
    if run == 1 {
        return x[..n].to_vec();
    }
    let mut acc = vec![0.0f64; n];
    for row in x.chunks_exact(n).take(run) {
        for (a, &v) in acc.iter_mut().zip(row) {
            *a += v as f64;
        }
    }
    acc.into_iter().map(|a| a as f32).collect()
}

fn f32_max(acc: f32, v: f32) -> f32 {
    if acc.is_nan() || v.is_nan() {
        f32::NAN
    } else if v > acc {
        v
    } else {
        acc
    }
}

fn f32_min(acc: f32, v: f32) -> f32 {
    if acc.is_nan() || v.is_nan() {
        f32::NAN
    } else if v < acc {
        v
    } else {
        acc
    }
}

impl Array {
    /// Moves the reduced `axes` to the end so each output element reduces one
    /// contiguous run. Returns the rearranged array, the kept shape and the
    /// run length.
    fn runs_over(&self, op: &str, axes: &[usize]) -> Result<(Array, Vec<usize>, usize)> {
        check_axes(op, axes, self.shape())?;
        let kept: Vec<usize> = (0..self.ndim()).filter(|a| !axes.contains(a)).collect();
        let mut perm = kept.clone();
        let mut sorted = axes.to_vec();
        sorted.sort_unstable();
        perm.extend(&sorted);
        let moved = self.transpose(&perm)?;
        let kept_shape: Vec<usize> = kept.iter().map(|&a| self.shape()[a]).collect();
        let run: usize = sorted.iter().map(|&a| self.shape()[a]).product();
        Ok((moved, kept_shape, run))
    }

    /// The shape of a reduction's result: `axes` removed, or kept as size 1.
    fn reduced_shape(&self, axes: &[usize], keepdims: bool) -> Vec<usize> {
        (0..self.ndim())
            .filter_map(|a| match (axes.contains(&a), keepdims) {
                (false, _) => Some(self.shape()[a]),
                (true, true) => Some(1),
                (true, false) => None,
            })
            .collect()
    }

    /// `jnp.sum` / `prod` / `max` / `min` / `any` / `all` over `axes` (empty:
    /// no reduction, but the dtype rules still apply).
    pub fn reduce(&self, op: ReduceOp, axes: &[usize], keepdims: bool) -> Result<Array> {
        check_axes(op.name(), axes, self.shape())?;
        let out_shape = self.reduced_shape(axes, keepdims);
        // Size-1 dimensions are not reduced; one dimension left is a run.
        let long_axes = axes.iter().filter(|&&a| self.shape()[a] > 1).count();
        let xla_order = self.size() < XLA_ORDER_LIMIT && long_axes <= 1;
        // A large float32 sum over leading axes reads the buffer as it is, as
        // a [run, kept] matrix summed down its columns.
        let leading = axes.iter().all(|&a| a < axes.len());
        if let (ReduceOp::Sum, Buffer::F32(d), true, false) =
            (op, self.buffer(), leading, xla_order)
        {
            let run: usize = self.shape()[..axes.len()].iter().product();
            let n: usize = self.shape()[axes.len()..].iter().product();
            if run > 0 && n > 0 {
                return Array::from_f32(&out_shape, sum_leading_f32(d, run, n));
            }
        }
        let (moved, _, run) = self.runs_over(op.name(), axes)?;
        if run == 0 && matches!(op, ReduceOp::Max | ReduceOp::Min) {
            bail!(
                ValueError,
                "zero-size array to reduction operation {} which has no identity: axes {:?} of shape {} are empty",
                op.name(),
                axes,
                fmt_shape(self.shape())
            );
        }
        let runs = Runs {
            run,
            n: crate::array::numel(&out_shape),
            xla_order,
        };
        let buffer = match (op, moved.buffer()) {
            (ReduceOp::Any | ReduceOp::All, _) => {
                let nz: Vec<bool> = moved.to_f64_vec().iter().map(|&v| v != 0.0).collect();
                Buffer::Bool(runs.any_all(&nz, op == ReduceOp::All).into())
            }
            (_, Buffer::F32(d)) => Buffer::F32(runs.f32(d, op).into()),
            (ReduceOp::Sum, Buffer::C64(d)) => Buffer::C64(runs.sum_c64(d).into()),
            (ReduceOp::Prod, Buffer::C64(d)) => {
                let one = super::C64::real(1.0);
                let out: Vec<super::C64> = (0..runs.n)
                    .map(|i| runs.of(d, i).iter().fold(one, |a, &b| a * b))
                    .collect();
                Buffer::C64(out.into())
            }
            (_, Buffer::C64(_)) => bail!(
                NotImplementedError,
                "not supported by shardlab yet: complex64 in reduce_{}",
                op.name()
            ),
            (_, Buffer::U32(d)) => Buffer::U32(runs.u32(d, op).into()),
            (_, Buffer::I32(d)) => Buffer::I32(runs.i32(d, op).into()),
            (_, Buffer::Bool(d)) => {
                let ints: Vec<i32> = d.iter().map(|&b| b as i32).collect();
                let out = runs.i32(&ints, op);
                // max/min of bool stay bool, as in jnp.
                if matches!(op, ReduceOp::Max | ReduceOp::Min) {
                    Buffer::Bool(out.iter().map(|&v| v != 0).collect())
                } else {
                    Buffer::I32(out.into())
                }
            }
        };
        Array::from_buffer(&out_shape, buffer)
    }

    /// `jnp.mean` over `axes`: a float32 result (ints are converted first);
    /// an empty reduction gives NaN.
    pub fn mean(&self, axes: &[usize], keepdims: bool) -> Result<Array> {
        check_axes("mean", axes, self.shape())?;
        let count: usize = axes.iter().map(|&a| self.shape()[a]).product();
        let s = self
            .astype(DType::F32)
            .reduce(ReduceOp::Sum, axes, keepdims)?;
        let d = s.f32_data()?;
        let out: Vec<f32> = d.iter().map(|&v| v / count as f32).collect();
        Array::from_f32(s.shape(), out)
    }

    /// `jnp.argmax(x, axis, keepdims)`: int32 index of the first maximum; the
    /// first NaN wins, as in NumPy.
    pub fn argmax(&self, axis: usize, keepdims: bool) -> Result<Array> {
        self.arg_extreme("argmax", axis, keepdims, |v, best| v > best)
    }

    /// `jnp.argmin(x, axis, keepdims)`: int32 index of the first minimum; the
    /// first NaN wins.
    pub fn argmin(&self, axis: usize, keepdims: bool) -> Result<Array> {
        self.arg_extreme("argmin", axis, keepdims, |v, best| v < best)
    }

    fn arg_extreme(
        &self,
        op: &str,
        axis: usize,
        keepdims: bool,
        better: fn(f64, f64) -> bool,
    ) -> Result<Array> {
        check_axis(op, axis, self.shape())?;
        if self.shape()[axis] == 0 {
            bail!(
                ValueError,
                "attempt to get {op} of an empty sequence: axis {axis} of shape {} has size 0",
                fmt_shape(self.shape())
            );
        }
        let (moved, _, run) = self.runs_over(op, &[axis])?;
        let v = moved.to_f64_vec();
        let out_shape = self.reduced_shape(&[axis], keepdims);
        let out: Vec<i32> = v
            .chunks(run)
            .map(|r| {
                let mut best = 0;
                for (i, &x) in r.iter().enumerate() {
                    if r[best].is_nan() {
                        break;
                    }
                    if x.is_nan() || better(x, r[best]) {
                        best = i;
                    }
                }
                best as i32
            })
            .collect();
        Array::from_i32(&out_shape, out)
    }
}

/// A reduction's input laid out as `n` runs of `run` values, one run per
/// output element, and whether sums follow XLA's order (small inputs).
struct Runs {
    run: usize,
    n: usize,
    xla_order: bool,
}

impl Runs {
    /// The `i`th run of `d`.
    fn of<'a, T>(&self, d: &'a [T], i: usize) -> &'a [T] {
        &d[i * self.run..(i + 1) * self.run]
    }

    fn sum_f32(&self, r: &[f32]) -> f32 {
        match self.xla_order {
            true => xla_reduce_f32(r, 0.0, |a, b| a + b),
            false => sum_f32(r),
        }
    }

    fn any_all(&self, nz: &[bool], all: bool) -> Vec<bool> {
        (0..self.n)
            .map(|i| match all {
                true => self.of(nz, i).iter().all(|&b| b),
                false => self.of(nz, i).iter().any(|&b| b),
            })
            .collect()
    }

    fn f32(&self, d: &[f32], op: ReduceOp) -> Vec<f32> {
        (0..self.n)
            .map(|i| {
                let r = self.of(d, i);
                match op {
                    ReduceOp::Prod if self.xla_order => xla_reduce_f32(r, 1.0, |a, b| a * b),
                    ReduceOp::Prod => r.iter().product(),
                    ReduceOp::Max => r.iter().copied().fold(f32::NEG_INFINITY, f32_max),
                    ReduceOp::Min => r.iter().copied().fold(f32::INFINITY, f32_min),
                    _ => self.sum_f32(r),
                }
            })
            .collect()
    }

    /// Sums of complex runs: the real and imaginary parts summed apart.
    fn sum_c64(&self, d: &[super::C64]) -> Vec<super::C64> {
        (0..self.n)
            .map(|i| {
                let r = self.of(d, i);
                let re: Vec<f32> = r.iter().map(|v| v.re).collect();
                let im: Vec<f32> = r.iter().map(|v| v.im).collect();
                super::C64::new(self.sum_f32(&re), self.sum_f32(&im))
            })
            .collect()
    }

    /// Integer sums and products wrap, as XLA's do.
    fn u32(&self, d: &[u32], op: ReduceOp) -> Vec<u32> {
        (0..self.n)
            .map(|i| {
                let r = self.of(d, i);
                match op {
                    ReduceOp::Prod => r.iter().fold(1u32, |a, &b| a.wrapping_mul(b)),
                    ReduceOp::Max => r.iter().copied().max().unwrap_or(0),
                    ReduceOp::Min => r.iter().copied().min().unwrap_or(u32::MAX),
                    _ => r.iter().fold(0u32, |a, &b| a.wrapping_add(b)),
                }
            })
            .collect()
    }

    fn i32(&self, d: &[i32], op: ReduceOp) -> Vec<i32> {
        (0..self.n)
            .map(|i| {
                let r = self.of(d, i);
                match op {
                    ReduceOp::Prod => r.iter().fold(1i32, |a, &b| a.wrapping_mul(b)),
                    ReduceOp::Max => r.iter().copied().max().unwrap_or(i32::MIN),
                    ReduceOp::Min => r.iter().copied().min().unwrap_or(i32::MAX),
                    _ => r.iter().fold(0i32, |a, &b| a.wrapping_add(b)),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_over_leading_axes_match_sums_of_runs() {
        // [2, 2, 3] summed over axis 0, over axes (0, 1) and over all axes.
        let x = Array::from_f32(&[2, 2, 3], (0..12).map(|i| i as f32).collect()).unwrap();
        let s0 = x.reduce(ReduceOp::Sum, &[0], false).unwrap();
        assert_eq!(s0.shape(), &[2, 3]);
        assert_eq!(s0.to_f64_vec(), vec![6., 8., 10., 12., 14., 16.]);
        let s01 = x.reduce(ReduceOp::Sum, &[1, 0], true).unwrap();
        assert_eq!(s01.shape(), &[1, 1, 3]);
        assert_eq!(s01.to_f64_vec(), vec![18., 22., 26.]);
        assert_eq!(
            x.reduce(ReduceOp::Sum, &[0, 1, 2], false)
                .unwrap()
                .to_f64_vec(),
            vec![66.]
        );
        // Trailing and middle axes go through the general path: same values
        // as summing by hand.
        assert_eq!(
            x.reduce(ReduceOp::Sum, &[2], false).unwrap().to_f64_vec(),
            vec![3., 12., 21., 30.]
        );
        assert_eq!(
            x.reduce(ReduceOp::Sum, &[1], false).unwrap().to_f64_vec(),
            vec![3., 5., 7., 15., 17., 19.]
        );
        // A small sum adds left to right in float32, as XLA does: each 1
        // added to 2^24 is lost (JAX 0.10.2 prints 16777216).
        let big = Array::from_f32(&[3, 1], vec![16777216.0, 1.0, 1.0]).unwrap();
        let s = big.reduce(ReduceOp::Sum, &[0], false).unwrap();
        assert_eq!(s.f32_data().unwrap(), &[16777216.0]);
        // A large one accumulates in f64 and keeps them: 2^24 + 4096.
        let mut v = vec![1.0f32; 4097];
        v[0] = 16777216.0;
        let large = Array::from_f32(&[4097, 1], v).unwrap();
        let s = large.reduce(ReduceOp::Sum, &[0], false).unwrap();
        assert_eq!(s.f32_data().unwrap(), &[16781312.0]);
        // A reduced dimension of size 1 leaves -0. as it is; a longer sum
        // starts from +0., so -0. + -0. is +0. (JAX: [-0. 0.] and 0.).
        for cols in [2, 5000] {
            let mut v = vec![0.0f32; cols];
            v[0] = -0.0;
            let nz = Array::from_f32(&[1, cols], v).unwrap();
            let s = nz.reduce(ReduceOp::Sum, &[0], false).unwrap();
            assert_eq!(s.f32_data().unwrap()[0].to_bits(), (-0.0f32).to_bits());
            let all = Array::from_f32(&[2, cols], vec![-0.0; 2 * cols]).unwrap();
            let s = all.reduce(ReduceOp::Sum, &[0, 1], false).unwrap();
            assert_eq!(s.f32_data().unwrap()[0].to_bits(), 0.0f32.to_bits());
        }
    }

    fn f(shape: &[usize], v: &[f32]) -> Array {
        Array::from_f32(shape, v.to_vec()).unwrap()
    }

    #[test]
    fn sums_over_axes_with_keepdims() {
        let a = f(&[2, 3], &[1., 2., 3., 4., 5., 6.]);
        let s0 = a.reduce(ReduceOp::Sum, &[0], false).unwrap();
        assert_eq!(s0.to_f64_vec(), vec![5., 7., 9.]);
        let s1 = a.reduce(ReduceOp::Sum, &[1], true).unwrap();
        assert_eq!(s1.shape(), &[2, 1]);
        assert_eq!(s1.to_f64_vec(), vec![6., 15.]);
        let all = a.reduce(ReduceOp::Sum, &[0, 1], false).unwrap();
        assert_eq!(all.shape(), &[] as &[usize]);
        assert_eq!(all.to_f64_vec(), vec![21.]);
        assert_eq!(
            a.reduce(ReduceOp::Prod, &[1], false).unwrap().to_f64_vec(),
            vec![6., 120.]
        );
        assert!(a.reduce(ReduceOp::Sum, &[2], false).is_err());
        assert!(a.reduce(ReduceOp::Sum, &[0, 0], false).is_err());
    }

    #[test]
    fn float_sums_round_once() {
        // 0.1f32 summed 1000 times in f32 order drifts to 99.99905; the exact
        // sum of the 1000 float32 values is 100.0000015, which rounds to 100.
        let v = vec![0.1f32; 1000];
        assert_eq!(sum_f32(&v), 100.0);
        // Cancellation keeps the small term: 1e8 + 1 - 1e8.
        assert_eq!(sum_f32(&[1e8, 1.0, -1e8]), 1.0);
    }

    #[test]
    fn dtype_rules() {
        let b = Array::from_bool(&[3], vec![true, false, true]).unwrap();
        let s = b.reduce(ReduceOp::Sum, &[0], false).unwrap();
        assert_eq!(s.dtype(), DType::I32);
        assert_eq!(s.to_f64_vec(), vec![2.]);
        assert_eq!(
            b.reduce(ReduceOp::Max, &[0], false).unwrap().dtype(),
            DType::Bool
        );
        assert_eq!(
            b.reduce(ReduceOp::All, &[0], false).unwrap().to_f64_vec(),
            vec![0.]
        );
        assert_eq!(
            b.reduce(ReduceOp::Any, &[0], false).unwrap().to_f64_vec(),
            vec![1.]
        );
        let i = Array::from_i32(&[2], vec![3, -4]).unwrap();
        assert_eq!(
            i.reduce(ReduceOp::Min, &[0], false).unwrap().to_f64_vec(),
            vec![-4.]
        );
        let m = i.mean(&[0], false).unwrap();
        assert_eq!(m.dtype(), DType::F32);
        assert_eq!(m.to_f64_vec(), vec![-0.5]);
    }

    #[test]
    fn empty_reductions() {
        let e = Array::zeros(&[0, 2], DType::F32);
        assert_eq!(
            e.reduce(ReduceOp::Sum, &[0], false).unwrap().to_f64_vec(),
            vec![0., 0.]
        );
        assert_eq!(
            e.reduce(ReduceOp::Prod, &[0], false).unwrap().to_f64_vec(),
            vec![1., 1.]
        );
        let err = e.reduce(ReduceOp::Max, &[0], false).unwrap_err();
        assert!(
            err.message.contains("max") && err.message.contains("(0, 2)"),
            "{}",
            err.message
        );
        assert!(e.mean(&[0], false).unwrap().f32_data().unwrap()[0].is_nan());
    }

    #[test]
    fn max_propagates_nan() {
        let a = f(&[3], &[1., f32::NAN, 3.]);
        assert!(a
            .reduce(ReduceOp::Max, &[0], false)
            .unwrap()
            .f32_data()
            .unwrap()[0]
            .is_nan());
        assert!(a
            .reduce(ReduceOp::Min, &[0], false)
            .unwrap()
            .f32_data()
            .unwrap()[0]
            .is_nan());
    }

    #[test]
    fn argmax_first_occurrence_and_nan() {
        let a = f(&[2, 3], &[1., 5., 5., 7., f32::NAN, 9.]);
        assert_eq!(a.argmax(1, false).unwrap().to_f64_vec(), vec![1., 1.]);
        assert_eq!(a.argmin(1, false).unwrap().to_f64_vec(), vec![0., 1.]);
        let c = a.argmax(0, true).unwrap();
        assert_eq!(c.shape(), &[1, 3]);
        assert_eq!(c.dtype(), DType::I32);
        assert_eq!(c.to_f64_vec(), vec![1., 1., 1.]);
        assert!(Array::zeros(&[0], DType::F32).argmax(0, false).is_err());
    }
}
