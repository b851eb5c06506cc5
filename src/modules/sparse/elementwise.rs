//! Elementwise arithmetic with a `BCOO`: `*` and `/` by a scalar or a
//! dense array of the same shape and unary minus keep the indices and
//! change only the values; `+` and `-` of two `BCOO`s stack their entries
//! (or add the values when both share one index buffer inside `sparsify`);
//! `+` of a `BCOO` and a dense array of the full shape is dense.

use rustpython_parser::ast::Operator;

use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::convert::{extract, todense_of};
use super::dot::matmul;
use super::{is_bcoo, jnp, method, new_bcoo, refuse, Parts};

/// `x op y` where one of them is a `BCOO`.
pub fn binary(interp: &mut Interp, op: &Operator, x: &Obj, y: &Obj) -> Result<Obj> {
    let both = is_bcoo(x) && is_bcoo(y);
    match op {
        Operator::MatMult if both => refuse("the product of two BCOO arrays"),
        Operator::MatMult if is_bcoo(x) => matmul(interp, x, y, false),
        Operator::MatMult => matmul(interp, y, x, true),
        Operator::Mult if both => refuse("the elementwise product of two BCOO arrays"),
        Operator::Mult if is_bcoo(x) => scaled(interp, x, y, false),
        Operator::Mult => scaled(interp, y, x, false),
        Operator::Div if is_bcoo(y) => bail!(
            NotImplementedError,
            "Division by a sparse array is not implemented because it would result in dense output. If this is your intent, use sparse.todense() to convert your arguments to a dense array."
        ),
        Operator::Div => scaled(interp, x, y, true),
        Operator::Add => add(interp, x, y),
        Operator::Sub if both => {
            let neg = negative(interp, y)?;
            add(interp, x, &neg)
        }
        Operator::Sub => bail!(
            NotImplementedError,
            "Subtraction between sparse and dense array."
        ),
        _ => refuse("this operator on a BCOO array"),
    }
}

/// `-mat`: the values negated.
pub fn negative(interp: &mut Interp, mat: &Obj) -> Result<Obj> {
    let p = Parts::of(mat)?;
    let data = jnp(interp, "negative", vec![p.data.clone()], vec![])?;
    new_bcoo(interp, p.with(data, p.indices.clone()))
}

/// `x + y` with at least one `BCOO`.
fn add(interp: &mut Interp, x: &Obj, y: &Obj) -> Result<Obj> {
    if !is_bcoo(x) {
        return add(interp, y, x);
    }
    let px = Parts::of(x)?;
    if !is_bcoo(y) {
        let dense = jnp(interp, "asarray", vec![y.clone()], vec![])?;
        if to_value(&dense)?.shape() != px.shape {
            bail!(
                NotImplementedError,
                "Addition between a sparse array X and a dense array Y is not implemented when the output shape is larger than Y.shape. This is to prevent silent densification of a large sparse array. If this is your intent, you can explicitly cast the sparse array to a dense matrix."
            );
        }
        let d = todense_of(interp, x)?;
        return jnp(interp, "add", vec![d, dense], vec![]);
    }
    let py = Parts::of(y)?;
    if px.shape != py.shape {
        bail!(
            NotImplementedError,
            "Addition between sparse matrices of different shapes."
        );
    }
    if super::sparsify::active(interp) && crate::python::ops::is_same(&px.indices, &py.indices) {
        let data = jnp(
            interp,
            "add",
            vec![px.data.clone(), py.data.clone()],
            vec![],
        )?;
        return new_bcoo(interp, px.with(data, px.indices.clone()));
    }
    let (bx, _, _, _) = px.layout()?;
    let (by, _, _, _) = py.layout()?;
    if bx != by || to_value(&px.data)?.ndim() != to_value(&py.data)?.ndim() {
        bail!(
            NotImplementedError,
            "Addition between sparse matrices with different batch/dense dimensions."
        );
    }
    let axis = vec![("axis", Obj::Int(bx as i64))];
    let pair = |a: &Obj, b: &Obj| Obj::list(vec![a.clone(), b.clone()]);
    let indices = jnp(
        interp,
        "concatenate",
        vec![pair(&px.indices, &py.indices)],
        axis.clone(),
    )?;
    let data = jnp(interp, "concatenate", vec![pair(&px.data, &py.data)], axis)?;
    let out = Parts {
        data,
        indices,
        shape: px.shape.clone(),
        sorted: false,
        unique: false,
    };
    new_bcoo(interp, out)
}

/// The values of `mat` times the dense `v` at the same positions (`v` a
/// scalar or of `mat`'s shape): JAX's `bcoo_multiply_dense`, which returns
/// the new values.
fn multiply_values(interp: &mut Interp, p: &Parts, v: &Obj) -> Result<Obj> {
    let vv = to_value(v)?;
    if vv.ndim() == 0 {
        return jnp(interp, "multiply", vec![p.data.clone(), v.clone()], vec![]);
    }
    if vv.shape() != p.shape {
        return refuse("multiplying a BCOO array by a dense array of another shape");
    }
    let (n_batch, _, _, _) = p.layout()?;
    if n_batch > 0 {
        return refuse("multiplying a BCOO array with batch dimensions by a dense array");
    }
    let picked = extract(interp, &p.indices, v)?;
    jnp(interp, "multiply", vec![p.data.clone(), picked], vec![])
}

pub fn bcoo_multiply_dense(interp: &mut Interp, a: Args) -> Result<Obj> {
    let mat = a.req(Some(0), "sp_mat", "bcoo_multiply_dense")?;
    let v = a.req(Some(1), "v", "bcoo_multiply_dense")?;
    let v = as_operand(interp, &v)?;
    multiply_values(interp, &Parts::of(&mat)?, &v)
}

/// `mat * v` (or `mat / v`, which multiplies by `1 / v` as JAX does): a
/// `BCOO` with the same indices.
fn scaled(interp: &mut Interp, mat: &Obj, v: &Obj, divide: bool) -> Result<Obj> {
    let p = Parts::of(mat)?;
    let mut v = as_operand(interp, v)?;
    let mut data = p.data.clone();
    if divide {
        // The quotient's dtype (float for integers), then the reciprocal.
        let probe = jnp(interp, "divide", vec![data.clone(), v.clone()], vec![])?;
        let dtype = Obj::DType(to_value(&probe)?.dtype());
        data = method(interp, &data, "astype", vec![dtype.clone()], vec![])?;
        let va = jnp(interp, "asarray", vec![v.clone()], vec![])?;
        let vd = method(interp, &va, "astype", vec![dtype], vec![])?;
        v = jnp(interp, "divide", vec![Obj::Float(1.0), vd], vec![])?;
    }
    let values = multiply_values(interp, &p.with(data, p.indices.clone()), &v)?;
    new_bcoo(interp, p.with(values, p.indices.clone()))
}

/// A Python number as is (so it stays weakly typed, as in JAX), anything
/// else as an array.
fn as_operand(interp: &mut Interp, v: &Obj) -> Result<Obj> {
    match v {
        Obj::Int(_) | Obj::Float(_) | Obj::Bool(_) | Obj::Complex(..) => Ok(v.clone()),
        _ => jnp(interp, "asarray", vec![v.clone()], vec![]),
    }
}
