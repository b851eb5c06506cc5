//! NumPy broadcasting: the common shape of two operands, materialising an
//! array at a broadcast shape, and the reverse (summing a broadcast result
//! back to the operand's shape, which is how gradients flow through it).

use super::shape_ops::fmt_shape;
use super::{Array, DType};
use crate::bail;
use crate::error::Result;

/// The shape NumPy broadcasting gives two shapes: aligned at the trailing
/// axis, each pair of sizes equal or one of them 1.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        // Sizes from the right; a missing leading axis acts as size 1.
        let da = if i < a.len() { a[a.len() - 1 - i] } else { 1 };
        let db = if i < b.len() { b[b.len() - 1 - i] } else { 1 };
        out[n - 1 - i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            bail!(
                ValueError,
                "Incompatible shapes for broadcasting: shapes {} and {} cannot be broadcast together",
                fmt_shape(a),
                fmt_shape(b)
            );
        };
    }
    Ok(out)
}

impl Array {
    /// `jnp.broadcast_to(x, shape)`: `x`'s axes align with the trailing axes
    /// of `shape`; each must equal the target size or be 1.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Array> {
        if self.shape() == shape {
            return Ok(self.clone());
        }
        let nd = self.ndim();
        let ok = nd <= shape.len()
            && self
                .shape()
                .iter()
                .zip(&shape[shape.len() - nd..])
                .all(|(&s, &t)| s == t || s == 1);
        if !ok {
            bail!(
                ValueError,
                "Incompatible shapes for broadcasting: {} and requested shape {}",
                fmt_shape(self.shape()),
                fmt_shape(shape)
            );
        }
        let dims: Vec<usize> = (shape.len() - nd..shape.len()).collect();
        self.broadcast_in_dim(shape, &dims)
    }

    /// Sums `self` (of a shape that `shape` broadcasts to) back down to
    /// `shape`: over the leading axes `shape` lacks and over every axis where
    /// `shape` has size 1. Bool sums to int32, as `jnp.sum` does.
    pub fn sum_to_shape(&self, shape: &[usize]) -> Result<Array> {
        if self.shape() == shape {
            return Ok(self.clone());
        }
        let nd = self.ndim();
        let ok = shape.len() <= nd
            && broadcast_shapes(self.shape(), shape).is_ok_and(|s| s == self.shape());
        if !ok {
            bail!(
                ValueError,
                "sum_to_shape: an array of shape {} is not a broadcast of shape {}",
                fmt_shape(self.shape()),
                fmt_shape(shape)
            );
        }
        let lead = nd - shape.len();
        let mut axes: Vec<usize> = (0..lead).collect();
        axes.extend(
            (0..shape.len())
                .filter(|&i| shape[i] == 1 && self.shape()[lead + i] != 1)
                .map(|i| lead + i),
        );
        let summed = self.sum_axes_keep_dtype(&axes)?;
        summed.reshape(shape)
    }

    /// Sum over `axes` (dropping them); bool becomes int32.
    fn sum_axes_keep_dtype(&self, axes: &[usize]) -> Result<Array> {
        let src = if self.dtype() == DType::Bool {
            self.astype(DType::I32)
        } else {
            self.clone()
        };
        src.reduce(super::reduce::ReduceOp::Sum, axes, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_broadcast_numpy_style() {
        assert_eq!(broadcast_shapes(&[3, 1], &[4]).unwrap(), vec![3, 4]);
        assert_eq!(broadcast_shapes(&[], &[2, 3]).unwrap(), vec![2, 3]);
        assert_eq!(
            broadcast_shapes(&[5, 1, 3], &[2, 1]).unwrap(),
            vec![5, 2, 3]
        );
        let e = broadcast_shapes(&[3, 4], &[5]).unwrap_err();
        assert!(
            e.message.contains("(3, 4)") && e.message.contains("(5,)"),
            "{}",
            e.message
        );
    }

    #[test]
    fn broadcast_to_repeats() {
        let a = Array::from_i32(&[2, 1], vec![1, 2]).unwrap();
        let b = a.broadcast_to(&[3, 2, 2]).unwrap();
        assert_eq!(
            b.to_f64_vec(),
            vec![1., 1., 2., 2., 1., 1., 2., 2., 1., 1., 2., 2.]
        );
        assert!(a.broadcast_to(&[3, 3]).is_err());
        assert!(a.broadcast_to(&[2]).is_err());
    }

    #[test]
    fn sum_to_shape_undoes_broadcasting() {
        let g = Array::from_f32(&[2, 2, 3], (0..12).map(|i| i as f32).collect()).unwrap();
        let s = g.sum_to_shape(&[2, 1]).unwrap();
        assert_eq!(s.shape(), &[2, 1]);
        // Row 0: elements 0,1,2 and 6,7,8; row 1: 3,4,5 and 9,10,11.
        assert_eq!(s.to_f64_vec(), vec![24.0, 42.0]);
        let t = g.sum_to_shape(&[3]).unwrap();
        assert_eq!(t.to_f64_vec(), vec![18.0, 22.0, 26.0]);
        assert_eq!(g.sum_to_shape(&[]).unwrap().to_f64_vec(), vec![66.0]);
        assert!(g.sum_to_shape(&[4]).is_err());
    }
}
