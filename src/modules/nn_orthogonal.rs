//! `jax.nn.initializers.orthogonal(scale, column_axis)`: a uniformly random
//! orthogonal matrix, reshaped to the parameter's shape.
//!
//! As JAX's `random.orthogonal` does, a standard normal matrix of
//! `max(n, m) x min(n, m)` (`n` rows are the elements per column, `m` the
//! columns) is factored by QR, and Q's columns are multiplied by the signs
//! of R's diagonal so the draw is unique; it is transposed when there are
//! fewer rows than columns. The same computation serves the host draw and a
//! staged one (a traced key), so both give JAX's values.

use crate::array::{Array, BinaryOp, DType, UnaryOp};
use crate::error::Result;
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::nn::initializer;
use crate::python::builtins::{to_float, to_int};
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

/// Rows and columns of the matrix for `shape` with its columns along
/// `column_axis`.
fn rows_cols(shape: &[usize], column_axis: usize) -> (usize, usize) {
    let m = shape[column_axis];
    (shape.iter().product::<usize>() / m.max(1), m)
}

/// Q of the normal draw `z` (`max(n, m) x min(n, m)`) with its columns'
/// signs fixed, shaped as `shape`, times `scale`.
fn orthogonal_from(z: &Value, shape: &[usize], column_axis: usize, scale: f32) -> Result<Value> {
    let (n, m) = rows_cols(shape, column_axis);
    let (q, r) = super::linalg_decomp::qr_values(z, false)?;
    let k = n.min(m);
    let flat = jops::reshape(&r, &[k * k])?;
    let idx: Vec<i32> = (0..k).map(|i| (i * k + i) as i32).collect();
    let diag = jops::take(&flat, &Value::Concrete(Array::from_i32(&[k], idx)?), 0)?;
    let signs = jops::reshape(&jops::unary(UnaryOp::Sign, &diag)?, &[1, k])?;
    let mut x = jops::binary(BinaryOp::Mul, &q, &signs)?;
    if n < m {
        x = jops::transpose(&x, &[1, 0])?;
    }
    let mut rest: Vec<usize> = shape.to_vec();
    rest.remove(column_axis);
    rest.push(m);
    let x = jops::moveaxis(&jops::reshape(&x, &rest)?, shape.len() - 1, column_axis)?;
    jops::binary(BinaryOp::Mul, &jops::scalar(scale as f64, DType::F32), &x)
}

/// The checks and the normal matrix's shape for a parameter of `shape`.
fn draw_shape(shape: &[usize], column_axis: i64) -> Result<(usize, [usize; 2])> {
    if shape.len() < 2 {
        bail!(
            ValueError,
            "orthogonal initializer requires at least a 2D shape"
        );
    }
    let axis = jops::norm_axis(column_axis, shape.len())?;
    let (n, m) = rows_cols(shape, axis);
    Ok((axis, [n.max(m), n.min(m)]))
}

/// `orthogonal(scale=1.0, column_axis=-1)`.
pub(super) fn orthogonal(_: &mut Interp, a: Args) -> Result<Obj> {
    let scale = match a.get(Some(0), "scale") {
        Some(o) => to_float(&o)? as f32,
        None => 1.0,
    };
    let column_axis = match a.get(Some(1), "column_axis") {
        Some(o) => to_int(&o)?,
        None => -1,
    };
    let host = move |key, shape: &[usize]| -> Result<Array> {
        if shape.contains(&0) {
            return crate::random::initializers::zeros(shape);
        }
        let (axis, zs) = draw_shape(shape, column_axis)?;
        let z = Value::Concrete(crate::random::distributions::normal(key, &zs)?);
        let q = orthogonal_from(&z, shape, axis, scale)?;
        Ok(q.concrete("orthogonal")?.clone())
    };
    let staged = move |key: &Value, shape: &[usize]| -> Result<Value> {
        if shape.contains(&0) {
            return Ok(Value::Concrete(crate::random::initializers::zeros(shape)?));
        }
        let (axis, zs) = draw_shape(shape, column_axis)?;
        let z = crate::random::traced::normal(key, &zs)?;
        orthogonal_from(&z, shape, axis, scale)
    };
    Ok(initializer(
        "orthogonal",
        std::rc::Rc::new(host),
        std::rc::Rc::new(staged),
    ))
}
