//! Operations that move a `BCOO`'s entries without combining values across
//! arrays: `transpose`, `sort_indices`, `sum_duplicates` (summing entries
//! at one index, in their stored order), the full `sum`, and the
//! constructors `eye` and `empty`.

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::ops::getitem;
use crate::python::value::{Args, Obj};

use super::{int_arg, int_tuple, jnp, last_axis, method, new_bcoo, refuse, shape_of, Parts};

fn perm_text(p: &[usize]) -> String {
    format!("{p:?}")
}

/// `mat.transpose(axes=None)` (`mat.T` reverses the axes): the sparse
/// columns of `indices` and the batch and dense axes of `data` permuted.
pub fn transpose(interp: &mut Interp, mat: &Obj, axes: Option<Obj>) -> Result<Obj> {
    let p = Parts::of(mat)?;
    let ndim = p.shape.len();
    let perm: Vec<usize> = match axes {
        None => (0..ndim).rev().collect(),
        Some(a) => shape_of(&a)?,
    };
    let mut sorted = perm.clone();
    sorted.sort_unstable();
    if sorted != (0..ndim).collect::<Vec<_>>() {
        bail!(
            TypeError,
            "transpose permutation isn't a permutation of operand dimensions, got permutation {} for shape {}",
            perm_text(&perm),
            super::int_tuple_text(&p.shape)
        );
    }
    let (n_batch, n_sparse, _, _) = p.layout()?;
    let batch_perm = &perm[..n_batch];
    let sparse_perm: Vec<usize> = perm[n_batch..n_batch + n_sparse]
        .iter()
        .map(|d| d.wrapping_sub(n_batch))
        .collect();
    let dense_perm: Vec<usize> = perm[n_batch + n_sparse..]
        .iter()
        .map(|d| d.wrapping_sub(n_batch + n_sparse))
        .collect();
    if batch_perm.iter().any(|&d| d >= n_batch) {
        bail!(NotImplementedError, "transpose permutation cannot permute batch axes with non-batch axes; got permutation {}, with n_batch={n_batch}.", perm_text(&perm));
    }
    if dense_perm.iter().any(|&d| d >= ndim) {
        bail!(NotImplementedError, "transpose permutation cannot permute dense axes with non-dense axes; got permutation {}, with n_dense={}.", perm_text(&perm), ndim - n_batch - n_sparse);
    }
    let cols = Obj::list(sparse_perm.iter().map(|&d| Obj::Int(d as i64)).collect());
    let picked = getitem(interp, &p.indices, &Obj::tuple(vec![Obj::Ellipsis, cols]))?;
    let ind_axes: Vec<usize> = batch_perm
        .iter()
        .copied()
        .chain([n_batch, n_batch + 1])
        .collect();
    let indices = jnp(
        interp,
        "transpose",
        vec![picked, int_tuple(&ind_axes)],
        vec![],
    )?;
    let data_axes: Vec<usize> = batch_perm
        .iter()
        .copied()
        .chain([n_batch])
        .chain(dense_perm.iter().map(|d| d + n_batch + 1))
        .collect();
    let data = jnp(
        interp,
        "transpose",
        vec![p.data.clone(), int_tuple(&data_axes)],
        vec![],
    )?;
    let sorted = sparse_perm.iter().enumerate().all(|(i, &d)| i == d) && p.sorted;
    let out = Parts {
        data,
        indices,
        shape: perm.iter().map(|&d| p.shape[d]).collect(),
        sorted,
        unique: p.unique,
    };
    new_bcoo(interp, out)
}

pub fn bcoo_transpose(interp: &mut Interp, a: Args) -> Result<Obj> {
    let mat = a.req(Some(0), "mat", "bcoo_transpose")?;
    let perm = a.req(None, "permutation", "bcoo_transpose")?;
    transpose(interp, &mat, Some(perm))
}

/// The layout a `BCOO` operation here handles: no batch dimensions and at
/// least one sparse dimension.
fn unbatched(p: &Parts, what: &str) -> Result<(usize, usize)> {
    let (n_batch, n_sparse, n_dense, nse) = p.layout()?;
    if n_batch > 0 || n_sparse == 0 {
        return refuse(&format!(
            "{what} of a BCOO with batch dimensions or no sparse dimensions"
        ));
    }
    let _ = n_dense;
    Ok((n_sparse, nse))
}

/// `mat.sort_indices()`: entries sorted by index (lexicographically), a
/// stable sort, as `lax.sort` with the index columns as keys.
pub fn sort_indices(interp: &mut Interp, mat: &Obj, _: Args) -> Result<Obj> {
    let p = Parts::of(mat)?;
    let (n_sparse, nse) = unbatched(&p, "sort_indices")?;
    let dtype = to_value(&p.indices)?.dtype();
    let mut ops = vec![];
    for i in 0..n_sparse {
        ops.push(last_axis(interp, &p.indices, i)?);
    }
    ops.push(jnp(
        interp,
        "arange",
        vec![Obj::Int(nse as i64)],
        vec![("dtype", Obj::DType(dtype))],
    )?);
    let lax = super::super::import(interp, "jax.lax")?;
    let sort = crate::python::ops::getattr(interp, &lax, "sort")?;
    let kw = vec![("num_keys".to_string(), Obj::Int(n_sparse as i64))];
    let out = interp.call(&sort, Args::with(vec![Obj::tuple(ops)], kw))?;
    let mut out = interp.iterate(&out)?;
    let perm = out.pop().unwrap_or(Obj::None);
    let indices = jnp(interp, "column_stack", vec![Obj::list(out)], vec![])?;
    let data = getitem(interp, &p.data, &perm)?;
    let out = Parts {
        sorted: true,
        ..p.with(data, indices)
    };
    new_bcoo(interp, out)
}

pub fn bcoo_sort_indices(interp: &mut Interp, a: Args) -> Result<Obj> {
    let mat = a.req(Some(0), "mat", "bcoo_sort_indices")?;
    sort_indices(interp, &mat, Args::new(vec![]))
}

/// The sparse shape as a `(1, n_sparse)` row of `indices`' dtype: the
/// index that marks an unused entry.
fn fill_row(interp: &mut Interp, p: &Parts, n_sparse: usize) -> Result<Obj> {
    let dtype = Obj::DType(to_value(&p.indices)?.dtype());
    let row = jnp(
        interp,
        "array",
        vec![int_tuple(&p.shape[..n_sparse])],
        vec![("dtype", dtype)],
    )?;
    jnp(interp, "expand_dims", vec![row, Obj::Int(0)], vec![])
}

/// How many distinct in-range indices there are (needs their values).
fn distinct_count(ind: &Obj, shape: &[usize]) -> Result<usize> {
    let v = to_value(ind)?;
    let a =
        v.concrete("the nse argument of bcoo_sum_duplicates: pass a concrete nse in traced code")?;
    let n_sparse = shape.len();
    let flat = a.to_f64_vec();
    let mut rows: Vec<Vec<i64>> = flat
        .chunks(n_sparse.max(1))
        .map(|r| r.iter().map(|&x| x as i64).collect::<Vec<_>>())
        .filter(|r| r.iter().zip(shape).all(|(&i, &s)| i < s as i64))
        .collect();
    rows.sort();
    rows.dedup();
    Ok(rows.len())
}

/// `mat.sum_duplicates(nse=None, remove_zeros=True)` and
/// `sparse.bcoo_sum_duplicates(mat, nse=None)`.
pub fn sum_duplicates(interp: &mut Interp, mat: &Obj, a: Args) -> Result<Obj> {
    let remove_zeros = super::bool_arg(interp, &a, Some(1), "remove_zeros", true)?;
    let nse = a.opt(Some(0), "nse");
    sum_dups(interp, mat, nse, remove_zeros)
}

pub fn bcoo_sum_duplicates(interp: &mut Interp, a: Args) -> Result<Obj> {
    let mat = a.req(Some(0), "mat", "bcoo_sum_duplicates")?;
    sum_dups(interp, &mat, a.opt(Some(1), "nse"), false)
}

fn sum_dups(interp: &mut Interp, mat: &Obj, nse: Option<Obj>, remove_zeros: bool) -> Result<Obj> {
    let p = Parts::of(mat)?;
    let (n_sparse, nse_in) = unbatched(&p, "sum_duplicates")?;
    let fill = fill_row(interp, &p, n_sparse)?;
    let mut ind = p.indices.clone();
    let ge = rustpython_parser::ast::CmpOp::GtE;
    // Entries holding zero are dropped first (as unused entries are).
    if remove_zeros {
        let data_ndim = to_value(&p.data)?.ndim();
        let eq = interp.compare(&rustpython_parser::ast::CmpOp::Eq, &p.data, &Obj::Int(0))?;
        let axes: Vec<Obj> = (1..data_ndim).map(|d| Obj::Int(d as i64)).collect();
        let zero = method(interp, &eq, "all", vec![Obj::tuple(axes)], vec![])?;
        let zero = jnp(interp, "expand_dims", vec![zero, Obj::Int(1)], vec![])?;
        ind = jnp(interp, "where", vec![zero, fill.clone(), ind], vec![])?;
    }
    let oob = interp.compare(&ge, &ind, &fill)?;
    let oob = method(
        interp,
        &oob,
        "any",
        vec![Obj::Int(-1)],
        vec![("keepdims", Obj::Bool(true))],
    )?;
    let ind = jnp(interp, "where", vec![oob, fill.clone(), ind], vec![])?;
    let nse_out = match nse {
        Some(n) => crate::python::builtins::to_int(&n)?.max(0) as usize,
        None => distinct_count(&ind, &p.shape[..n_sparse])?,
    };
    let kw = vec![
        ("axis", Obj::Int(0)),
        ("return_inverse", Obj::Bool(true)),
        ("size", Obj::Int(nse_in as i64)),
        ("fill_value", fill.clone()),
    ];
    let found = jnp(interp, "unique", vec![ind], kw)?;
    let out = interp.iterate(&found)?;
    let [uniq, inverse] = &out[..] else {
        bail!(ValueError, "jnp.unique returned {} values", out.len());
    };
    let inverse = method(interp, inverse, "ravel", vec![], vec![])?;
    let indices = resize_indices(interp, uniq, &fill, nse_in, nse_out)?;
    let data_shape: Vec<usize> = [&[nse_out][..], &to_value(&p.data)?.shape()[1..]].concat();
    let dtype = to_value(&p.data)?.dtype();
    let data = super::scatter_add(&data_shape, dtype, &[inverse], &p.data)?;
    let out = Parts::canonical(data, indices, p.shape.clone());
    new_bcoo(interp, out)
}

/// The first `nse` rows of `indices`, or all of them padded with `fill`.
fn resize_indices(
    interp: &mut Interp,
    indices: &Obj,
    fill: &Obj,
    have: usize,
    nse: usize,
) -> Result<Obj> {
    if nse <= have {
        let rows = Obj::Slice(std::rc::Rc::new([
            Obj::None,
            Obj::Int(nse as i64),
            Obj::None,
        ]));
        return getitem(interp, indices, &rows);
    }
    let n_sparse = to_value(fill)?.shape()[1];
    let pad = jnp(
        interp,
        "broadcast_to",
        vec![fill.clone(), int_tuple(&[nse - have, n_sparse])],
        vec![],
    )?;
    jnp(
        interp,
        "concatenate",
        vec![Obj::list(vec![indices.clone(), pad])],
        vec![],
    )
}

/// `mat.sum()`: the sum of every stored value, as a dense 0-d array.
pub fn sum(interp: &mut Interp, mat: &Obj, a: Args) -> Result<Obj> {
    if !a.pos.is_empty() || !a.kw.is_empty() {
        return refuse("BCOO.sum with axis or other arguments");
    }
    sum_all(interp, &Parts::of(mat)?)
}

/// The sum over every axis, as JAX's reduction computes it: the values
/// at out-of-range indices (unused entries) zeroed, then summed in stored
/// order.
pub fn sum_all(interp: &mut Interp, p: &Parts) -> Result<Obj> {
    let (n_batch, n_sparse, n_dense, _) = p.layout()?;
    if n_batch > 0 || n_dense > 0 {
        return refuse("the sum of a BCOO with batch or dense dimensions");
    }
    let mut data = p.data.clone();
    if n_sparse > 0 {
        let fill = fill_row(interp, p, n_sparse)?;
        let lt = rustpython_parser::ast::CmpOp::Lt;
        let inside = interp.compare(&lt, &p.indices, &fill)?;
        let inside = jnp(interp, "all", vec![inside, Obj::Int(-1)], vec![])?;
        data = jnp(interp, "where", vec![inside, data, Obj::Int(0)], vec![])?;
    }
    method(interp, &data, "sum", vec![], vec![])
}

/// `sparse.empty(shape, dtype=None, index_dtype='int32', n_batch=0,
/// n_dense=0, nse=0)`: every entry unused.
pub fn empty(interp: &mut Interp, a: Args) -> Result<Obj> {
    let shape = shape_of(&a.req(Some(0), "shape", "empty")?)?;
    let dtype = a.opt(Some(1), "dtype").unwrap_or(Obj::DType(DType::F32));
    let index_dtype = a
        .opt(Some(2), "index_dtype")
        .unwrap_or(Obj::DType(DType::I32));
    format_arg(&a)?;
    let n_batch = int_arg(&a, None, "n_batch", 0)?;
    let n_dense = int_arg(&a, None, "n_dense", 0)?;
    let nse = int_arg(&a, None, "nse", 0)?;
    let n_sparse = shape.len() as i64 - n_dense - n_batch;
    if n_sparse < 0 || n_dense < 0 || n_batch < 0 || nse < 0 {
        bail!(
            ValueError,
            "Invalid inputs: shape={}, n_dense={n_dense}, n_batch={n_batch}, nse={nse}",
            super::int_tuple_text(&shape)
        );
    }
    let (nb, ns) = (n_batch as usize, n_sparse as usize);
    let batch = &shape[..nb];
    let data_shape: Vec<usize> = [batch, &[nse as usize], &shape[nb + ns..]].concat();
    let data = jnp(interp, "zeros", vec![int_tuple(&data_shape), dtype], vec![])?;
    let ind_shape: Vec<usize> = [batch, &[nse as usize, ns]].concat();
    let fill = jnp(
        interp,
        "array",
        vec![int_tuple(&shape[nb..nb + ns])],
        vec![],
    )?;
    let indices = jnp(
        interp,
        "full",
        vec![int_tuple(&ind_shape), fill, index_dtype],
        vec![],
    )?;
    new_bcoo(interp, Parts::canonical(data, indices, shape))
}

/// Only the default `sparse_format='bcoo'` is built.
fn format_arg(a: &Args) -> Result<()> {
    match a.opt(None, "sparse_format") {
        None => Ok(()),
        Some(Obj::Str(s)) if &*s == "bcoo" => Ok(()),
        Some(Obj::Str(s)) => refuse(&format!("sparse arrays of format '{s}'")),
        Some(o) => bail!(ValueError, "sparse_format={} not recognized", o.type_name()),
    }
}

/// `sparse.eye(N, M=None, k=0, dtype=None, index_dtype='int32',
/// n_batch=0, n_dense=0)`: ones on the `k`-th diagonal.
pub fn eye(interp: &mut Interp, a: Args) -> Result<Obj> {
    let n = int_arg(&a, Some(0), "N", 0)?;
    let m = int_arg(&a, Some(1), "M", n)?;
    let k = int_arg(&a, Some(2), "k", 0)?;
    let dtype = a.opt(Some(3), "dtype").unwrap_or(Obj::DType(DType::F32));
    let index_dtype = a
        .opt(Some(4), "index_dtype")
        .unwrap_or(Obj::DType(DType::I32));
    format_arg(&a)?;
    if int_arg(&a, None, "n_batch", 0)? != 0 || int_arg(&a, None, "n_dense", 0)? != 0 {
        return refuse("sparse.eye with n_batch or n_dense");
    }
    let diag = if k > 0 { n.min(m - k) } else { (n + k).min(m) };
    if diag <= 0 {
        let kw = vec![
            ("dtype".to_string(), dtype),
            ("index_dtype".to_string(), index_dtype),
        ];
        return empty(
            interp,
            Args::with(vec![int_tuple(&[n as usize, m as usize])], kw),
        );
    }
    let data = jnp(interp, "ones", vec![Obj::Int(diag)], vec![("dtype", dtype)])?;
    let idx = jnp(
        interp,
        "arange",
        vec![Obj::Int(diag)],
        vec![("dtype", index_dtype)],
    )?;
    let add = |i: &mut Interp, by: i64| {
        let op = rustpython_parser::ast::Operator::Add;
        i.binop(&op, &idx, &Obj::Int(by), false)
    };
    let rows = add(interp, (-k).max(0))?;
    let cols = add(interp, k.max(0))?;
    let indices = jnp(
        interp,
        "column_stack",
        vec![Obj::list(vec![rows, cols])],
        vec![],
    )?;
    let shape = vec![n as usize, m as usize];
    new_bcoo(interp, Parts::canonical(data, indices, shape))
}
