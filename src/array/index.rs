//! Indexing: integer-array indexing along an axis (`x[idx]` / `jnp.take`),
//! its transpose (`scatter_add`), and basic integer indexing.
//!
//! Array indices follow `x[idx]` in JAX: negative indices count from the
//! end, and anything still out of range is clamped into bounds (JAX's default
//! gather mode for indexing), never an error.

use super::shape_ops::{check_axis, fmt_shape};
use super::{Array, Buffer, DType};
use crate::bail;
use crate::error::Result;

/// Wraps negative indices once and clamps into `[0, n - 1]`.
fn clamp_index(i: i32, n: usize) -> usize {
    let n = n as i64;
    let mut i = i as i64;
    if i < 0 {
        i += n;
    }
    i.clamp(0, n - 1) as usize
}

/// The indices of `indices` as positions along an axis of size `n`.
fn resolve(
    op: &str,
    indices: &Array,
    n: usize,
    shape: &[usize],
    axis: usize,
) -> Result<Vec<usize>> {
    if indices.dtype() == DType::F32 {
        bail!(
            IndexError,
            "{op}: indices must be integers, got a float32 array of shape {}",
            fmt_shape(indices.shape())
        );
    }
    let idx = indices.astype(DType::I32);
    let idx = idx.i32_data()?;
    if n == 0 && !idx.is_empty() {
        bail!(
            IndexError,
            "{op}: cannot index axis {axis} of size 0 (shape {})",
            fmt_shape(shape)
        );
    }
    Ok(idx.iter().map(|&i| clamp_index(i, n)).collect())
}

impl Array {
    /// `x[(slice(None),) * axis + (idx,)]`: picks positions `indices` (int32,
    /// any shape) along `axis`; the result's shape is `x.shape[:axis] +
    /// indices.shape + x.shape[axis+1:]`.
    pub fn take(&self, indices: &Array, axis: usize) -> Result<Array> {
        check_axis("take", axis, self.shape())?;
        let n = self.shape()[axis];
        let pos = resolve("take", indices, n, self.shape(), axis)?;
        let outer: usize = self.shape()[..axis].iter().product();
        let inner: usize = self.shape()[axis + 1..].iter().product();
        let mut flat = Vec::with_capacity(outer * pos.len() * inner);
        for o in 0..outer {
            for &p in &pos {
                let base = (o * n + p) * inner;
                flat.extend(base..base + inner);
            }
        }
        let mut shape = self.shape()[..axis].to_vec();
        shape.extend(indices.shape());
        shape.extend(&self.shape()[axis + 1..]);
        Ok(self.gather_flat(&shape, &flat))
    }

    /// The transpose of [`Array::take`]: zeros of `shape` (in `updates`'
    /// dtype; bool accumulates as int32) into which each slice of `updates`
    /// is added at its (wrapped, clamped) index along `axis`. Repeated indices
    /// accumulate.
    pub fn scatter_add(
        axis: usize,
        indices: &Array,
        updates: &Array,
        shape: &[usize],
    ) -> Result<Array> {
        check_axis("scatter_add", axis, shape)?;
        let n = shape[axis];
        let pos = resolve("scatter_add", indices, n, shape, axis)?;
        let mut want = shape[..axis].to_vec();
        want.extend(indices.shape());
        want.extend(&shape[axis + 1..]);
        if updates.shape() != want.as_slice() {
            bail!(
                ValueError,
                "scatter_add: updates of shape {} do not match shape {} expected for indices of shape {} along axis {axis} of shape {}",
                fmt_shape(updates.shape()),
                fmt_shape(&want),
                fmt_shape(indices.shape()),
                fmt_shape(shape)
            );
        }
        let outer: usize = shape[..axis].iter().product();
        let inner: usize = shape[axis + 1..].iter().product();
        let targets: Vec<usize> = (0..outer)
            .flat_map(|o| pos.iter().map(move |&p| (o * n + p) * inner))
            .collect();
        fn acc<T: Copy + Default>(
            total: usize,
            src: &[T],
            targets: &[usize],
            inner: usize,
            add: fn(T, T) -> T,
        ) -> Vec<T> {
            let mut out = vec![T::default(); total];
            for (chunk, &t) in src.chunks(inner.max(1)).zip(targets) {
                for (j, &v) in chunk.iter().enumerate() {
                    out[t + j] = add(out[t + j], v);
                }
            }
            out
        }
        let total: usize = shape.iter().product();
        let src = if updates.dtype() == DType::Bool {
            updates.astype(DType::I32)
        } else {
            updates.clone()
        };
        let buffer = match src.buffer() {
            Buffer::F32(d) => Buffer::F32(acc(total, d, &targets, inner, |a, b| a + b).into()),
            Buffer::I32(d) => Buffer::I32(acc(total, d, &targets, inner, i32::wrapping_add).into()),
            Buffer::U32(d) => Buffer::U32(acc(total, d, &targets, inner, u32::wrapping_add).into()),
            Buffer::C64(d) => Buffer::C64(acc(total, d, &targets, inner, |a, b| a + b).into()),
            Buffer::Bool(_) => unreachable!("bool updates were cast to int32"),
        };
        Array::from_buffer(shape, buffer)
    }

    /// `x[..., i, ...]` with a Python integer at `axis`: removes the axis.
    /// Negative `i` counts from the end; out of range is an IndexError.
    pub fn index(&self, i: i64, axis: usize) -> Result<Array> {
        check_axis("index", axis, self.shape())?;
        let n = self.shape()[axis] as i64;
        if i < -n || i >= n {
            bail!(
                IndexError,
                "index {i} is out of bounds for axis {axis} with size {n}"
            );
        }
        let p = if i < 0 { i + n } else { i } as usize;
        let mut starts = vec![0; self.ndim()];
        let mut limits = self.shape().to_vec();
        starts[axis] = p;
        limits[axis] = p + 1;
        self.slice(&starts, &limits, None)?.squeeze(&[axis])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iota(shape: &[usize]) -> Array {
        let n: usize = shape.iter().product();
        Array::from_f32(shape, (0..n).map(|i| i as f32).collect()).unwrap()
    }

    #[test]
    fn take_wraps_then_clamps_like_jax_indexing() {
        // JAX 0.10.2: jnp.arange(5.)[jnp.array([0, -1, 5, -7])] == [0, 4, 4, 0].
        let v = iota(&[5]);
        let idx = Array::from_i32(&[4], vec![0, -1, 5, -7]).unwrap();
        assert_eq!(v.take(&idx, 0).unwrap().to_f64_vec(), vec![0., 4., 4., 0.]);
    }

    #[test]
    fn take_along_inner_axis_with_2d_indices() {
        let x = iota(&[2, 3]);
        let idx = Array::from_i32(&[2, 2], vec![2, 0, 1, 1]).unwrap();
        let t = x.take(&idx, 1).unwrap();
        assert_eq!(t.shape(), &[2, 2, 2]);
        assert_eq!(t.to_f64_vec(), vec![2., 0., 1., 1., 5., 3., 4., 4.]);
        assert!(x.take(&iota(&[1]), 0).is_err());
    }

    #[test]
    fn scatter_add_is_takes_transpose() {
        let idx = Array::from_i32(&[3], vec![1, 1, -1]).unwrap();
        let upd = Array::from_f32(&[2, 3], vec![1., 2., 3., 4., 5., 6.]).unwrap();
        let s = Array::scatter_add(1, &idx, &upd, &[2, 4]).unwrap();
        assert_eq!(s.to_f64_vec(), vec![0., 3., 0., 3., 0., 9., 0., 6.]);
        let e = Array::scatter_add(1, &idx, &upd, &[2, 4, 1]).unwrap_err();
        assert!(
            e.message.contains("(2, 3)") && e.message.contains("(2, 3, 1)"),
            "{}",
            e.message
        );
    }

    #[test]
    fn integer_index_removes_axis() {
        let x = iota(&[2, 3]);
        assert_eq!(x.index(-1, 0).unwrap().to_f64_vec(), vec![3., 4., 5.]);
        assert_eq!(x.index(2, 1).unwrap().to_f64_vec(), vec![2., 5.]);
        let e = x.index(3, 1).unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::IndexError);
        assert_eq!(e.message, "index 3 is out of bounds for axis 1 with size 3");
    }
}
