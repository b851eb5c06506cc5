//! `jax.scipy.linalg.expm`: JAX's scaling-and-squaring with Padé
//! approximants, in float32 its three (orders 3, 5 and 7). The 1-norm of
//! `A` picks the order (against JAX's float32 thresholds) and the number of
//! halvings `s`; `P = U + V` and `Q = V - U` of the scaled matrix give
//! `R = Q^-1 P`, squared `s` times (NaN beyond `max_squarings`). The order
//! and the halvings are chosen from values, so `A` must be concrete: under
//! a trace `expm` refuses by name. Batched inputs are mapped one matrix at
//! a time, as `jnp.vectorize` maps them.

use crate::array::{Array, DType, ReduceOp};
use crate::bail;
use crate::error::Result;
use crate::ops;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::linalg::{flag, inexact_arg};
use super::Builder;

/// The Padé coefficients of orders 3, 5 and 7.
const PADE: [&[f64]; 3] = [
    &[120., 60., 12., 1.],
    &[30240., 15120., 3360., 420., 30., 1.],
    &[
        17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.,
    ],
];

/// `sum_k c[k] * powers[k]`, the terms added left to right as JAX writes
/// them (highest power first, the identity last).
fn poly(powers: &[Value], coeffs: &[f64]) -> Result<Value> {
    let mut acc: Option<Value> = None;
    for (p, &c) in powers.iter().zip(coeffs).rev() {
        let term = ops::mul_scalar(p, c)?;
        acc = Some(match acc {
            None => term,
            Some(a) => ops::add(&a, &term)?,
        });
    }
    match acc {
        Some(a) => Ok(a),
        None => bail!(RuntimeError, "expm: empty Padé polynomial"),
    }
}

/// `(U, V)` of the Padé approximant of order `2 * order + 3`.
fn pade(a: &Value, order: usize) -> Result<(Value, Value)> {
    let n = a.shape()[0];
    let eye = Value::Concrete(Array::eye(n, n, 0, a.dtype()));
    let a2 = ops::matmul(a, a)?;
    let mut even = vec![eye, a2.clone()];
    if order >= 1 {
        even.push(ops::matmul(&a2, &a2)?);
    }
    if order >= 2 {
        let a6 = ops::matmul(&even[2], &a2)?;
        even.push(a6);
    }
    let b = PADE[order];
    let odd: Vec<f64> = b.iter().skip(1).step_by(2).copied().collect();
    let evn: Vec<f64> = b.iter().step_by(2).copied().collect();
    let u = ops::matmul(a, &poly(&even, &odd)?)?;
    let v = poly(&even, &evn)?;
    Ok((u, v))
}

fn scalar_of(v: &Value) -> Result<f32> {
    let a = v.concrete("jax.scipy.linalg.expm").map_err(|_| {
        crate::err!(
            NotImplementedError,
            "not supported by shardlab yet: jax.scipy.linalg.expm under a trace"
        )
    })?;
    let d = a.f32_data()?;
    Ok(d.first().copied().unwrap_or(f32::NAN))
}

/// `expm` of one square matrix.
fn expm_one(a: &Value, upper: bool, max_squarings: i64) -> Result<Value> {
    let l1 = ops::reduce(
        ReduceOp::Max,
        &ops::sum(&ops::abs(a)?, Some(&[0]), false)?,
        None,
        false,
    )?;
    let l1 = ops::convert(&l1, DType::F32)?;
    let norm = scalar_of(&l1)?;
    let maxnorm = 3.925_724_8_f32;
    let squarings = (norm / maxnorm).log2().floor().max(0.0);
    let scale = 2f32.powf(squarings);
    let scaled = ops::div(a, &ops::scalar(f64::from(scale), a.dtype()))?;
    let conds = [0.425_873_f32, 1.880_152_7_f32];
    let order = conds.iter().filter(|&&c| c <= norm).count();
    let (u, v) = pade(&scaled, order)?;
    let p = ops::add(&u, &v)?;
    let q = ops::add(&ops::neg(&u)?, &v)?;
    if squarings.is_nan() || f64::from(squarings) > max_squarings as f64 {
        let nan = ops::scalar(f64::NAN, a.dtype());
        return ops::broadcast_to(&nan, &a.shape());
    }
    let mut r = if upper {
        let p_solve = crate::array::linalg::TriangularSolve {
            left_side: true,
            lower: false,
            transpose_a: false,
            conjugate_a: false,
            unit_diagonal: false,
        };
        crate::primitives::linalg::triangular_solve(&q, &p, p_solve)?
    } else {
        super::linalg_lu::solve_values(&q, &p)?
    };
    for _ in 0..squarings as i64 {
        r = ops::matmul(&r, &r)?;
    }
    Ok(r)
}

fn expm(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "A", "expm")?;
    let s = x.shape();
    if s.len() < 2 || s[s.len() - 1] != s[s.len() - 2] {
        bail!(
            ValueError,
            "Expected A to be a (batched) square matrix, got A.shape={}.",
            crate::array::shape_tuple(&s)
        );
    }
    let upper = flag(&a, None, "upper_triangular", false)?;
    let max_sq = match a.opt(None, "max_squarings") {
        None | Some(Obj::None) => 16,
        Some(o) => crate::python::builtins::to_int(&o)?,
    };
    let n = s[s.len() - 1];
    let count: usize = s[..s.len() - 2].iter().product();
    let flat = ops::reshape(&x, &[count, n, n])?;
    let mut outs = Vec::with_capacity(count);
    for i in 0..count {
        let m = ops::slice(&flat, &[i, 0, 0], &[i + 1, n, n], &[1, 1, 1])?;
        let m = ops::reshape(&m, &[n, n])?;
        outs.push(expm_one(&m, upper, max_sq)?);
    }
    let out = if outs.is_empty() {
        Value::Concrete(Array::zeros(&s, x.dtype()))
    } else {
        ops::reshape(&ops::stack(&outs, 0)?, &s)?
    };
    Ok(Obj::Array(out))
}

/// Adds `expm` to `jax.scipy.linalg`.
pub fn register(b: &mut Builder) {
    b.func("expm", expm);
}
