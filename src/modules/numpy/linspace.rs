//! `jnp.linspace(start, stop, num=50, endpoint=True, retstep=False,
//! dtype=None, axis=0)` computed as JAX computes it: each point is
//! `start * (1 - t) + stop * t` with `t = i / div` in the computation
//! dtype, and the stop itself appended when `endpoint`. So the points are
//! JAX's float32 values (not a double-precision ramp rounded once), array
//! endpoints give one ramp per element along `axis`, and traced endpoints
//! work under `jit` and `grad`.

use crate::array::{Array, BinaryOp, DType, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::compose::flag;

/// Registers `linspace`.
pub(super) fn register(b: &mut super::super::Builder) {
    b.func("linspace", linspace);
}

fn linspace(_: &mut Interp, a: Args) -> Result<Obj> {
    let start = a.req(Some(0), "start", "linspace")?;
    let stop = a.req(Some(1), "stop", "linspace")?;
    let num = to_int(&a.get(Some(2), "num").unwrap_or(Obj::Int(50)))?;
    let endpoint = flag(&a, Some(3), "endpoint", true)?;
    let retstep = flag(&a, Some(4), "retstep", false)?;
    let dtype = super::dtype_arg(&a, Some(5))?;
    let axis = to_int(&a.get(Some(6), "axis").unwrap_or(Obj::Int(0)))?;
    if a.opt(None, "device").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.linspace(device=...)"
        );
    }
    if num < 0 {
        bail!(
            ValueError,
            "Number of samples, {num}, must be non-negative."
        );
    }
    let (s, e) = super::compose::promoted(&start, &stop)?;
    let dtype = match dtype {
        Some(d) => d,
        None => super::compose::to_inexact(&s)?.dtype(),
    };
    let compute = match dtype.is_inexact() {
        true => dtype,
        false => DType::F32,
    };
    let (out, delta) = ramp(&s, &e, num as usize, endpoint, axis, compute)?;
    let out = match dtype.is_int() && !out.dtype().is_int() {
        true => jops::unary(UnaryOp::Floor, &out)?,
        false => out,
    };
    let out = Obj::Array(jops::convert_weak(&out, dtype, false)?);
    match retstep {
        true => Ok(Obj::tuple(vec![out, Obj::Array(delta)])),
        false => Ok(out),
    }
}

/// The points (in `compute`) and the step between them.
fn ramp(
    s: &Value,
    e: &Value,
    num: usize,
    endpoint: bool,
    axis: i64,
    compute: DType,
) -> Result<(Value, Value)> {
    let s = jops::convert_weak(s, compute, false)?;
    let e = jops::convert_weak(e, compute, false)?;
    let mut bounds = crate::array::broadcast::broadcast_shapes(&s.shape(), &e.shape())?;
    let (s, e) = (
        jops::broadcast_to(&s, &bounds)?,
        jops::broadcast_to(&e, &bounds)?,
    );
    let axis = match axis < 0 {
        true => bounds.len() as i64 + axis + 1,
        false => axis,
    };
    if axis < 0 || axis as usize > bounds.len() {
        bail!(
            ValueError,
            "axis {axis} is out of bounds for array of dimension {}",
            bounds.len() + 1
        );
    }
    let axis = axis as usize;
    let bare = bounds.clone();
    bounds.insert(axis, 1);
    let div = if endpoint { num.saturating_sub(1) } else { num };
    let full = |v: f64| Value::Concrete(Array::full(&[], v, compute));
    if num > 1 {
        if let Some(points) = xla_cpu_points(&s, &e, num, endpoint)? {
            let diff = jops::binary(BinaryOp::Sub, &e, &s)?;
            let delta = jops::binary(BinaryOp::Div, &diff, &full(div as f64))?;
            return Ok((points, delta));
        }
        let diff = jops::binary(BinaryOp::Sub, &e, &s)?;
        let delta = jops::binary(BinaryOp::Div, &diff, &full(div as f64))?;
        let mut iota_shape = vec![1; bounds.len()];
        iota_shape[axis] = div;
        let iota = Value::Concrete(Array::iota(&iota_shape, axis, DType::F32)?);
        let divisor = Value::Concrete(Array::full(&[], div as f64, DType::F32));
        let t = jops::binary(BinaryOp::Div, &iota, &divisor)?;
        let t = jops::convert_weak(&t, compute, false)?;
        let one_minus = jops::binary(BinaryOp::Sub, &full(1.0), &t)?;
        let lo = jops::binary(BinaryOp::Mul, &jops::reshape(&s, &bounds)?, &one_minus)?;
        let hi = jops::binary(BinaryOp::Mul, &jops::reshape(&e, &bounds)?, &t)?;
        let mut out = jops::binary(BinaryOp::Add, &lo, &hi)?;
        if endpoint {
            let last = jops::reshape(&e, &bounds)?;
            out = jops::concatenate(&[out, last], axis as i64)?;
        }
        return Ok((out, delta));
    }
    let mut shape = bare;
    shape.insert(axis, num);
    let delta = match (num, endpoint) {
        (1, false) => jops::binary(BinaryOp::Sub, &e, &s)?,
        _ => full(f64::NAN),
    };
    let out = match num {
        1 => jops::reshape(&s, &bounds)?,
        _ => Value::Concrete(Array::full(&shape, 0.0, compute)),
    };
    Ok((out, delta))
}

/// The points of concrete scalar float32 endpoints, computed as XLA does
/// (`Array::linspace`). `None` for traced or array endpoints and other
/// dtypes: they take the composed path, whose last bit can differ from
/// XLA's fused multiply-adds.
fn xla_cpu_points(s: &Value, e: &Value, num: usize, endpoint: bool) -> Result<Option<Value>> {
    match (s, e) {
        (Value::Concrete(s), Value::Concrete(e))
            if s.dtype() == DType::F32 && s.ndim() == 0 && e.ndim() == 0 =>
        {
            let (s, e) = (s.f32_data()?[0], e.f32_data()?[0]);
            Ok(Some(Value::Concrete(Array::linspace(s, e, num, endpoint)?)))
        }
        _ => Ok(None),
    }
}
