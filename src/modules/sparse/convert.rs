//! Between dense and `BCOO`: `fromdense` (the nonzero entries, in row-major
//! order, padded to `nse` with zeros at out-of-range indices), `todense` (a
//! scatter-add of the stored values, so duplicates add up) and the gather
//! that reads a dense array at a `BCOO`'s indices.

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::{
    at_get_fill, int_arg, int_tuple, is_bcoo, jnp, last_axis, method, new_bcoo, scatter_add,
    sum_keeping_dtype, Parts,
};

/// The index arrays that address the entries of a layout with `n_batch`
/// batch dimensions: one `arange` per batch dimension, shaped to broadcast
/// against `batch + (nse,)`, then one column of `indices` per sparse
/// dimension (broadcast over the batch shape).
fn entry_index(
    interp: &mut Interp,
    indices: &Obj,
    batch: &[usize],
    n_sparse: usize,
) -> Result<Vec<Obj>> {
    let n_batch = batch.len();
    let mut out = vec![];
    for (b, &size) in batch.iter().enumerate() {
        let mut shape = vec![1usize; n_batch + 1];
        shape[b] = size;
        let r = jnp(interp, "arange", vec![Obj::Int(size as i64)], vec![])?;
        out.push(jnp(interp, "reshape", vec![r, int_tuple(&shape)], vec![])?);
    }
    for i in 0..n_sparse {
        out.push(last_axis(interp, indices, i)?);
    }
    Ok(out)
}

/// `mat.todense()` and `sparse.bcoo_todense(mat)`.
pub fn todense_of(interp: &mut Interp, mat: &Obj) -> Result<Obj> {
    let p = Parts::of(mat)?;
    let (n_batch, n_sparse, _, _) = p.layout()?;
    let mut data = p.data.clone();
    if n_sparse == 0 {
        data = sum_keeping_dtype(interp, &data, n_batch, n_batch > 0)?;
    }
    let idx = entry_index(interp, &p.indices, &p.shape[..n_batch], n_sparse)?;
    scatter_add(&p.shape, p.data_value()?.dtype(), &idx, &data)
}

pub fn bcoo_todense(interp: &mut Interp, a: Args) -> Result<Obj> {
    let mat = a.req(Some(0), "mat", "bcoo_todense")?;
    todense_of(interp, &mat)
}

/// `sparse.todense(arr)`: a sparse array made dense, anything else as is.
pub fn todense(interp: &mut Interp, a: Args) -> Result<Obj> {
    let arr = a.req(Some(0), "arr", "todense")?;
    if is_bcoo(&arr) {
        return todense_of(interp, &arr);
    }
    Ok(arr)
}

/// The values of the dense `arr` at the entries of `indices` (zero at the
/// padding's out-of-range indices): JAX's `_bcoo_extract` for unique
/// indices.
pub fn extract(interp: &mut Interp, indices: &Obj, arr: &Obj) -> Result<Obj> {
    let ind = to_value(indices)?.shape();
    let shape = to_value(arr)?.shape();
    let n_batch = ind.len() - 2;
    let n_sparse = ind[ind.len() - 1];
    if n_sparse == 0 && n_batch == 0 {
        return super::refuse("BCOO with no sparse or batch dimensions");
    }
    let idx = entry_index(interp, indices, &shape[..n_batch], n_sparse)?;
    let out = at_get_fill(interp, arr, idx)?;
    if n_sparse == 0 && ind[n_batch] != 1 {
        return super::refuse("BCOO with no sparse dimensions and nse > 1");
    }
    Ok(out)
}

/// The `nse` argument: given, or the largest number of nonzero entries of
/// any batch (which needs the values, so a traced `mat` cannot use it).
fn nse_for(
    interp: &mut Interp,
    a: &Args,
    mat: &Obj,
    n_batch: usize,
    n_dense: usize,
) -> Result<usize> {
    if let Some(n) = a.opt(None, "nse") {
        return Ok(crate::python::builtins::to_int(&n)?.max(0) as usize);
    }
    let counts = stored_per_batch(interp, mat, n_batch, n_dense)?;
    let most = method(
        interp,
        &counts,
        "max",
        vec![],
        vec![("initial", Obj::Int(0))],
    )?;
    let v = to_value(&most)?;
    let concrete = v.concrete("the nse argument of bcoo_fromdense: pass a concrete nse to use BCOO.fromdense in traced code")?;
    Ok(concrete.to_f64_vec().first().copied().unwrap_or(0.0) as usize)
}

/// Whether each sparse entry is stored: nonzero anywhere in its block.
fn stored_mask(interp: &mut Interp, mat: &Obj, n_dense: usize) -> Result<Obj> {
    let zero = Obj::Int(0);
    let ne = interp.compare(&rustpython_parser::ast::CmpOp::NotEq, mat, &zero)?;
    if n_dense == 0 {
        return Ok(ne);
    }
    let axes: Vec<Obj> = (1..=n_dense).map(|i| Obj::Int(-(i as i64))).collect();
    method(interp, &ne, "any", vec![Obj::tuple(axes)], vec![])
}

fn stored_per_batch(interp: &mut Interp, mat: &Obj, n_batch: usize, n_dense: usize) -> Result<Obj> {
    let mask = stored_mask(interp, mat, n_dense)?;
    let ndim = to_value(&mask)?.ndim();
    let axes: Vec<Obj> = (n_batch..ndim).map(|i| Obj::Int(i as i64)).collect();
    method(interp, &mask, "sum", vec![Obj::tuple(axes)], vec![])
}

/// `BCOO.fromdense(mat, *, nse=None, index_dtype=int32, n_dense=0,
/// n_batch=0)` and `sparse.bcoo_fromdense`.
pub fn fromdense(interp: &mut Interp, a: Args) -> Result<Obj> {
    let mat = a.req(Some(0), "mat", "fromdense")?;
    let mat = jnp(interp, "asarray", vec![mat], vec![])?;
    let n_batch = int_arg(&a, None, "n_batch", 0)? as usize;
    let n_dense = int_arg(&a, None, "n_dense", 0)? as usize;
    let index_dtype = a.opt(None, "index_dtype").unwrap_or(Obj::DType(DType::I32));
    let shape = to_value(&mat)?.shape();
    if n_batch + n_dense > shape.len() {
        bail!(
            ValueError,
            "Invalid n_batch={n_batch}, n_dense={n_dense} for an array of {} dimensions",
            shape.len()
        );
    }
    let nse = nse_for(interp, &a, &mat, n_batch, n_dense)?;
    let (data, indices) = fromdense_bufs(interp, &mat, nse, n_batch, n_dense, index_dtype)?;
    let p = Parts::canonical(data, indices, shape);
    new_bcoo(interp, p)
}

/// The nonzero positions of one batch's `mask`, `nse` of them, padded with
/// the sparse shape: an `(nse, n_sparse)` array.
fn nonzero_positions(
    interp: &mut Interp,
    mask: &Obj,
    nse: usize,
    index_dtype: &Obj,
) -> Result<Obj> {
    let shape = to_value(mask)?.shape();
    if shape.is_empty() {
        return jnp(
            interp,
            "zeros",
            vec![int_tuple(&[nse, 0]), index_dtype.clone()],
            vec![],
        );
    }
    let cols = jnp(
        interp,
        "nonzero",
        vec![mask.clone()],
        vec![
            ("size", Obj::Int(nse as i64)),
            ("fill_value", int_tuple(&shape)),
        ],
    )?;
    let stacked = jnp(interp, "stack", vec![cols], vec![("axis", Obj::Int(1))])?;
    method(
        interp,
        &stacked,
        "astype",
        vec![index_dtype.clone()],
        vec![],
    )
}

/// The data and indices of `mat` in a layout with `n_batch` and `n_dense`.
fn fromdense_bufs(
    interp: &mut Interp,
    mat: &Obj,
    nse: usize,
    n_batch: usize,
    n_dense: usize,
    index_dtype: Obj,
) -> Result<(Obj, Obj)> {
    let shape = to_value(mat)?.shape();
    let mask = stored_mask(interp, mat, n_dense)?;
    let batch = &shape[..n_batch];
    let n_sparse = shape.len() - n_batch - n_dense;
    let count: usize = batch.iter().product();
    let flat_shape: Vec<usize> = [&[count][..], &shape[n_batch..shape.len() - n_dense]].concat();
    let flat = jnp(
        interp,
        "reshape",
        vec![mask.clone(), int_tuple(&flat_shape)],
        vec![],
    )?;
    let mut per_batch = vec![];
    for b in 0..count {
        let m = crate::python::ops::getitem(interp, &flat, &Obj::Int(b as i64))?;
        per_batch.push(nonzero_positions(interp, &m, nse, &index_dtype)?);
    }
    let stacked = jnp(interp, "stack", vec![Obj::list(per_batch)], vec![])?;
    let ind_shape: Vec<usize> = [batch, &[nse, n_sparse][..]].concat();
    let indices = jnp(
        interp,
        "reshape",
        vec![stacked, int_tuple(&ind_shape)],
        vec![],
    )?;
    let data = extract(interp, &indices, mat)?;
    // Entries past the number actually stored are padding: zero them.
    let counts = stored_per_batch(interp, mat, n_batch, n_dense)?;
    let counts = jnp(interp, "expand_dims", vec![counts, Obj::Int(-1)], vec![])?;
    let iota = jnp(interp, "arange", vec![Obj::Int(nse as i64)], vec![])?;
    let lt = rustpython_parser::ast::CmpOp::Lt;
    let live = interp.compare(&lt, &iota, &counts)?;
    let tail: Vec<Obj> = (0..n_dense).map(|_| Obj::None).collect();
    let live = if tail.is_empty() {
        live
    } else {
        let mut key = vec![Obj::Ellipsis];
        key.extend(tail);
        crate::python::ops::getitem(interp, &live, &Obj::tuple(key))?
    };
    let data = jnp(interp, "where", vec![live, data, Obj::Int(0)], vec![])?;
    Ok((data, indices))
}
