//! Products of a `BCOO` with dense arrays: `@` and `bcoo_dot_general`.
//! The rows of the dense operand are gathered at the stored indices,
//! multiplied by the stored values, then scatter-added into the output in
//! stored order, as JAX computes it (a dense matmul would round
//! differently).

use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::{at_get_fill, int_tuple, is_bcoo, jnp, last_axis, method, refuse, scatter_add, Parts};

/// JAX's error for `jnp.matmul` of these shapes, raised on stand-in
/// zeros; Ok when the shapes fit.
fn check_matmul(interp: &mut Interp, lhs: &[usize], rhs: &[usize]) -> Result<()> {
    let a = jnp(interp, "zeros", vec![int_tuple(lhs)], vec![])?;
    let b = jnp(interp, "zeros", vec![int_tuple(rhs)], vec![])?;
    let f = super::super::import(interp, "jax")?;
    let eval_shape = crate::python::ops::getattr(interp, &f, "eval_shape")?;
    let jnp_mod = super::super::import(interp, "jax.numpy")?;
    let matmul = crate::python::ops::getattr(interp, &jnp_mod, "matmul")?;
    interp.call(&eval_shape, Args::new(vec![matmul, a, b]))?;
    Ok(())
}

/// `mat @ v`, or `v @ mat` when `swap`, for `mat` and `v` of one or two
/// dimensions, with `jnp.matmul`'s type promotion.
pub fn matmul(interp: &mut Interp, mat: &Obj, v: &Obj, swap: bool) -> Result<Obj> {
    let p = Parts::of(mat)?;
    let v = jnp(interp, "asarray", vec![v.clone()], vec![])?;
    let vs = to_value(&v)?.shape();
    if p.shape.len() > 2 || vs.len() > 2 || p.shape.is_empty() || vs.is_empty() {
        return refuse("matmul of a BCOO array with more than two dimensions or none");
    }
    let (lhs, rhs) = if swap {
        (&vs, &p.shape)
    } else {
        (&p.shape, &vs)
    };
    let fits = lhs[lhs.len() - 1] == rhs[if rhs.len() == 1 { 0 } else { rhs.len() - 2 }];
    if !fits {
        check_matmul(interp, lhs, rhs)?;
    }
    let dtype = jnp(
        interp,
        "result_type",
        vec![p.data.clone(), v.clone()],
        vec![],
    )?;
    let data = method(interp, &p.data, "astype", vec![dtype.clone()], vec![])?;
    let v = method(interp, &v, "astype", vec![dtype], vec![])?;
    let p = p.with(data, p.indices.clone());
    let contract_mat = if swap { 0 } else { p.shape.len() - 1 };
    let contract_v = if swap {
        vs.len() - 1
    } else if vs.len() == 1 {
        0
    } else {
        vs.len() - 2
    };
    let out = sparse_dense_dot(interp, &p, &v, &[contract_mat], &[contract_v])?;
    if !swap {
        return Ok(out);
    }
    // The sparse operand's free dimensions come first: move them last.
    let nd = to_value(&out)?.ndim();
    let n_swap = p.shape.len() - 1;
    let perm: Vec<usize> = (n_swap..nd).chain(0..n_swap).collect();
    jnp(interp, "transpose", vec![out, int_tuple(&perm)], vec![])
}

/// The dimensions of `0..n` not in `used`, in order.
fn remaining(n: usize, used: &[usize]) -> Vec<usize> {
    (0..n).filter(|d| !used.contains(d)).collect()
}

/// The contraction of the unbatched `BCOO` `p` over its sparse dimensions
/// `lc` with the dense `rhs` over `rc`: free sparse dimensions, dense
/// dimensions, then the free dimensions of `rhs`.
fn sparse_dense_dot(
    interp: &mut Interp,
    p: &Parts,
    rhs: &Obj,
    lc: &[usize],
    rc: &[usize],
) -> Result<Obj> {
    let (n_batch, n_sparse, _, _) = p.layout()?;
    if n_batch > 0 {
        return refuse("products of a BCOO array with batch dimensions");
    }
    if lc.iter().any(|&d| d >= n_sparse) {
        return refuse("contracting a dense dimension of a BCOO array");
    }
    let sparse_perm: Vec<usize> = lc.iter().copied().chain(remaining(n_sparse, lc)).collect();
    let cols = Obj::list(sparse_perm.iter().map(|&d| Obj::Int(d as i64)).collect());
    let indices =
        crate::python::ops::getitem(interp, &p.indices, &Obj::tuple(vec![Obj::Ellipsis, cols]))?;
    let rv = to_value(rhs)?;
    let rhs_perm: Vec<usize> = rc.iter().copied().chain(remaining(rv.ndim(), rc)).collect();
    let rhs = jnp(
        interp,
        "transpose",
        vec![rhs.clone(), int_tuple(&rhs_perm)],
        vec![],
    )?;
    let mut idx = vec![];
    for i in 0..n_sparse {
        idx.push(last_axis(interp, &indices, i)?);
    }
    let idx_out = idx.split_off(lc.len());
    let (gathered, batch) = if idx.is_empty() {
        (rhs, vec![])
    } else {
        (at_get_fill(interp, &rhs, idx)?, vec![Obj::Int(0)])
    };
    let lax = super::super::import(interp, "jax.lax")?;
    let dot = crate::python::ops::getattr(interp, &lax, "dot_general")?;
    let none = || Obj::tuple(vec![]);
    let dims = Obj::tuple(vec![
        Obj::tuple(vec![none(), none()]),
        Obj::tuple(vec![Obj::tuple(batch.clone()), Obj::tuple(batch)]),
    ]);
    let prod = interp.call(&dot, Args::new(vec![p.data.clone(), gathered, dims]))?;
    if idx_out.is_empty() {
        return super::sum_keeping_dtype(interp, &prod, 0, false);
    }
    let free: Vec<usize> = remaining(n_sparse, lc)
        .iter()
        .map(|&d| p.shape[d])
        .collect();
    let rest = &to_value(&prod)?.shape()[1..];
    let out_shape: Vec<usize> = free.iter().chain(rest).copied().collect();
    scatter_add(&out_shape, to_value(&prod)?.dtype(), &idx_out, &prod)
}

/// `sparse.bcoo_dot_general(lhs, rhs, *, dimension_numbers)` with one
/// operand a `BCOO` without batch dimensions and no batch dimensions in
/// the contraction.
pub fn bcoo_dot_general(interp: &mut Interp, a: Args) -> Result<Obj> {
    let lhs = a.req(Some(0), "lhs", "bcoo_dot_general")?;
    let rhs = a.req(Some(1), "rhs", "bcoo_dot_general")?;
    let dn = a.req(None, "dimension_numbers", "bcoo_dot_general")?;
    let parts = interp.iterate(&dn)?;
    let [contract, batch] = &parts[..] else {
        bail!(TypeError, "dimension_numbers must be ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))");
    };
    let pair = |i: &mut Interp, o: &Obj| -> Result<(Vec<usize>, Vec<usize>)> {
        let two = i.iterate(o)?;
        let [l, r] = &two[..] else {
            bail!(
                TypeError,
                "dimension_numbers must hold pairs of dimension lists"
            );
        };
        Ok((dims(i, l)?, dims(i, r)?))
    };
    let (lc, rc) = pair(interp, contract)?;
    let (lb, rb) = pair(interp, batch)?;
    if !lb.is_empty() || !rb.is_empty() {
        return refuse("bcoo_dot_general with batch dimensions");
    }
    match (is_bcoo(&lhs), is_bcoo(&rhs)) {
        (true, true) => refuse("bcoo_dot_general of two BCOO arrays"),
        (true, false) => {
            let rhs = jnp(interp, "asarray", vec![rhs], vec![])?;
            sparse_dense_dot(interp, &Parts::of(&lhs)?, &rhs, &lc, &rc)
        }
        (false, true) => {
            let p = Parts::of(&rhs)?;
            let lhs = jnp(interp, "asarray", vec![lhs], vec![])?;
            let out = sparse_dense_dot(interp, &p, &lhs, &rc, &lc)?;
            let nd = to_value(&out)?.ndim();
            let n_swap = p.shape.len() - rc.len();
            let perm: Vec<usize> = (n_swap..nd).chain(0..n_swap).collect();
            jnp(interp, "transpose", vec![out, int_tuple(&perm)], vec![])
        }
        (false, false) => {
            let lax = super::super::import(interp, "jax.lax")?;
            let dot = crate::python::ops::getattr(interp, &lax, "dot_general")?;
            interp.call(&dot, Args::new(vec![lhs, rhs, dn]))
        }
    }
}

fn dims(interp: &mut Interp, o: &Obj) -> Result<Vec<usize>> {
    interp
        .iterate(o)?
        .iter()
        .map(|d| crate::python::builtins::to_int(d).map(|d| d as usize))
        .collect()
}
