//! `jnp.unique` of a traced array with `size=`: JAX's algorithm on the
//! trace. The slices are sorted lexicographically (`lexsort`), a mask marks
//! where each run of equal slices starts, and `nonzero(mask, size=size)`
//! picks the first `size` run starts (padding with position 0, the smallest
//! slice). `fill_value` replaces the padding; the first-occurrence indices,
//! the inverse map and the counts are read off the same mask.

use crate::bail;
use crate::error::Result;
use crate::python::value::Obj;
use crate::trace::Value;

use super::super::py_ops::Ops;
use super::unique::Wanted;

/// What `unique` was asked, for a traced array.
pub(super) struct Request {
    pub want: Wanted,
    pub equal_nan: bool,
    pub size: usize,
    pub fill: Option<Obj>,
    pub axis: Option<usize>,
}

fn slice(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> Obj {
    let part = |v: Option<i64>| v.map_or(Obj::None, Obj::Int);
    Obj::Slice(std::rc::Rc::new([part(start), part(stop), part(step)]))
}

fn ints(v: impl IntoIterator<Item = usize>) -> Obj {
    Obj::tuple(v.into_iter().map(|d| Obj::Int(d as i64)).collect())
}

/// The sorted slices, the mask of run starts and the sorting permutation.
fn sorted_mask(o: &Ops, aux: &Obj, dims: &[usize], equal_nan: bool) -> Result<(Obj, Obj, Obj)> {
    let (n, rest) = (dims[0], dims[1..].iter().product::<usize>());
    let rows = o.jnp("reshape", vec![aux.clone(), ints([n, rest])])?;
    let keys = o.at(&o.attr(&rows, "T")?, slice(None, None, Some(-1)))?;
    let perm = o.jnp("lexsort", vec![keys])?;
    let sorted = o.at(aux, perm.clone())?;
    let (next, prev) = (
        o.at(&sorted, slice(Some(1), None, None))?,
        o.at(&sorted, slice(None, Some(-1), None))?,
    );
    let mut neq = o.cmp(rustpython_parser::ast::CmpOp::NotEq, &next, &prev)?;
    let inexact = matches!(aux, Obj::Array(v) if v.dtype().is_inexact());
    if inexact && equal_nan {
        let both = o.and(&o.jnp("isnan", vec![next])?, &o.jnp("isnan", vec![prev])?)?;
        neq = o.and(&neq, &o.invert(&both)?)?;
    }
    if dims.len() > 1 {
        let kw = vec![("axis", ints(1..dims.len()))];
        neq = o.jnp_kw("any", vec![neq], kw)?;
    }
    let ones = o.jnp_kw(
        "ones",
        vec![Obj::Int(n as i64)],
        vec![("dtype", Obj::Type("bool"))],
    )?;
    let mask = o.set(&ones, slice(Some(1), None, None), &neq)?;
    Ok((sorted, mask, perm))
}

/// `nonzero(mask, size=size)[0]`.
fn starts(o: &Ops, mask: &Obj, size: usize) -> Result<Obj> {
    let kw = vec![("size", Obj::Int(size as i64))];
    o.item(&o.jnp_kw("nonzero", vec![mask.clone()], kw)?, 0)
}

/// `unique(x, size=size, ...)` of a traced `x`.
pub(super) fn unique(o: &Ops, x: &Value, r: Request) -> Result<Obj> {
    let shape = x.shape();
    let xo = Obj::Array(x.clone());
    let aux = match r.axis {
        None => o.jnp("ravel", vec![xo])?,
        Some(axis) => o.jnp("moveaxis", vec![xo, Obj::Int(axis as i64), Obj::Int(0)])?,
    };
    let dims = match &aux {
        Obj::Array(v) => v.shape(),
        _ => vec![],
    };
    if dims.first() == Some(&0) && r.size > 0 && r.fill.is_none() {
        bail!(
            ValueError,
            "jnp.unique: for zero-sized input with nonzero size argument, fill_value must be specified"
        );
    }
    if dims.iter().product::<usize>() == 0 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.unique of a traced empty array"
        );
    }
    let n = dims[0];
    let (sorted, mask, perm) = sorted_mask(o, &aux, &dims, r.equal_nan)?;
    let ind = starts(o, &mask, r.size)?;
    let mut result = o.at(&sorted, ind.clone())?;
    if let Some(fill) = r.fill {
        let dtype = o.attr(&result, "dtype")?;
        let fill = o.call(
            &o.attr(&o.jnp("asarray", vec![fill])?, "astype")?,
            vec![dtype],
        )?;
        let count = o.call(&o.attr(&mask, "sum")?, vec![])?;
        let arange = o.jnp("arange", vec![Obj::Int(r.size as i64)])?;
        let valid = o.cmp(rustpython_parser::ast::CmpOp::Lt, &arange, &count)?;
        let valid = o.jnp("expand_dims", vec![valid, ints(1..dims.len())])?;
        result = o.select(&valid, &result, &fill)?;
    }
    if let Some(axis) = r.axis {
        result = o.jnp("moveaxis", vec![result, Obj::Int(0), Obj::Int(axis as i64)])?;
    }
    let mut out = vec![result];
    if r.want.index {
        out.push(o.at(&perm, ind)?);
    }
    if r.want.inverse {
        let cumsum = o.jnp("cumsum", vec![mask.clone()])?;
        let imask = o.sub(&cumsum, &Obj::Int(1))?;
        // JAX scatters `imask` to the positions `perm`; `perm` is a
        // permutation, so gathering at its inverse gives the same integers.
        let kw = vec![("stable", Obj::Bool(true))];
        let back = o.jnp_kw("argsort", vec![perm], kw)?;
        let mut inv = o.at(&imask, back)?;
        if r.axis.is_none() {
            inv = o.jnp("reshape", vec![inv, ints(shape)])?;
        }
        out.push(inv);
    }
    if r.want.counts {
        let idx = starts(o, &mask, r.size + 1)?;
        let tail = o.at(&idx, slice(Some(1), None, None))?;
        let ends = o.select(&tail, &tail, &Obj::Int(n as i64))?;
        // `idx.at[1:].set(ends)`, written as the join it amounts to.
        let first = o.at(&idx, slice(None, Some(1), None))?;
        let idx = o.jnp("concatenate", vec![Obj::list(vec![first, ends])])?;
        out.push(o.jnp("diff", vec![idx])?);
    }
    Ok(match out.len() {
        1 => out.remove(0),
        _ => Obj::tuple(out),
    })
}
