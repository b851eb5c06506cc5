//! `jax.scipy.linalg.pascal` and `invpascal`: binomial coefficients in
//! float32 through `exp(lgamma(n + 1) - lgamma(n - k + 1) - lgamma(k + 1))`
//! as JAX computes them (so entries are near, not exactly, integers), the
//! lower matrix, its transpose, or the symmetric product of the two.

use crate::array::{DType, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ops;
use crate::python::builtins::to_int;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::Builder;

/// Adds the functions to `b`.
pub fn register(b: &mut Builder) {
    b.func("pascal", |_, a| {
        let (n, kind) = args(&a, "pascal", "on")?;
        let (i, j) = grid(n)?;
        let lower = binom(&i, &j)?;
        Ok(Obj::Array(by_kind(lower, kind, false)?))
    });
    b.func("invpascal", |_, a| {
        let (n, kind) = args(&a, "invpascal", "one")?;
        let (i, j) = grid(n)?;
        let minus_one = ops::scalar(-1.0, DType::F32);
        let sign = ops::pow(&minus_one, &ops::sub(&i, &j)?)?;
        let lower = ops::mul(&sign, &binom(&i, &j)?)?;
        Ok(Obj::Array(by_kind(lower, kind, true)?))
    });
}

#[derive(Clone, Copy)]
enum Kind {
    Symmetric,
    Lower,
    Upper,
}

/// `(n, kind=None)`; JAX's two messages differ by one word (`on`/`one`).
fn args(a: &Args, func: &str, word: &str) -> Result<(usize, Kind)> {
    let n = to_int(&a.req(Some(0), "n", func)?)?.max(0) as usize;
    let kind = match a.opt(Some(1), "kind") {
        None => Kind::Symmetric,
        Some(Obj::Str(s)) if &*s == "symmetric" => Kind::Symmetric,
        Some(Obj::Str(s)) if &*s == "lower" => Kind::Lower,
        Some(Obj::Str(s)) if &*s == "upper" => Kind::Upper,
        Some(o) => bail!(
            ValueError,
            "Expected kind to be {word} of: ['symmetric', 'lower', 'upper']; got {}",
            crate::python::format::str_of(&o)
        ),
    };
    Ok((n, kind))
}

/// The row and column indices, as float32 columns and rows.
fn grid(n: usize) -> Result<(Value, Value)> {
    let a = Value::Concrete(crate::array::Array::arange(0.0, n as f64, 1.0, DType::F32)?);
    Ok((ops::reshape(&a, &[n, 1])?, ops::reshape(&a, &[1, n])?))
}

/// JAX's `_binom`: zero where `k > n` (the lgamma of a pole is infinite).
fn binom(n: &Value, k: &Value) -> Result<Value> {
    let one = ops::scalar(1.0, DType::F32);
    let lg = |v: &Value| ops::unary(UnaryOp::Lgamma, &ops::add(v, &one)?);
    let a = lg(n)?;
    let b = lg(&ops::sub(n, k)?)?;
    let c = lg(k)?;
    ops::exp(&ops::sub(&ops::sub(&a, &b)?, &c)?)
}

/// The lower matrix, its transpose, or the symmetric product: `L L^T` for
/// the matrix, `L^T L` for its inverse.
fn by_kind(lower: Value, kind: Kind, inverse: bool) -> Result<Value> {
    let upper = ops::transpose(&lower, &[1, 0])?;
    match kind {
        Kind::Lower => Ok(lower),
        Kind::Upper => Ok(upper),
        Kind::Symmetric if inverse => ops::matmul(&upper, &lower),
        Kind::Symmetric => ops::matmul(&lower, &upper),
    }
}
