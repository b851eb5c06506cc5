//! jnp's set functions: `isin`, `union1d`, `intersect1d`, `setdiff1d`,
//! `setxor1d`, and the array API's `unique_all`, `unique_counts`,
//! `unique_inverse`.
//!
//! `isin` compares every element with every test element, as JAX's
//! `method='compare_all'` does, so it runs under jit. The others have a
//! result whose length depends on the values: like JAX they need concrete
//! arrays without `size=` (a traced one is JAX's ConcretizationTypeError);
//! shardlab computes them on the host from the sorted distinct values, and
//! refuses `size=` of a traced array by name. `union1d` is `unique` of the
//! two arrays joined, as in JAX.

use std::cmp::Ordering;

use crate::array::{BinaryOp, ReduceOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::{from_f64, jnp_operands, to_value};
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::ops::{getattr, truthy};
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("isin", |_, a| isin(&a));
    b.func("union1d", union1d);
    b.func("intersect1d", |_, a| intersect1d(&a));
    b.func("setdiff1d", |_, a| setdiff1d(&a));
    b.func("setxor1d", |_, a| setxor1d(&a));
    b.func("unique_all", |i, a| {
        unique_result(
            i,
            &a,
            "unique_all",
            &["values", "indices", "inverse_indices", "counts"],
        )
    });
    b.func("unique_counts", |i, a| {
        unique_result(i, &a, "unique_counts", &["values", "counts"])
    });
    b.func("unique_inverse", |i, a| {
        unique_result(i, &a, "unique_inverse", &["values", "inverse_indices"])
    });
}

fn flag(a: &Args, index: Option<usize>, name: &str) -> Result<bool> {
    match a.opt(index, name) {
        Some(o) => truthy(&o, name),
        None => Ok(false),
    }
}

/// `isin(element, test_elements, assume_unique=False, invert=False)`.
fn isin(a: &Args) -> Result<Obj> {
    let e = to_value(&a.req(Some(0), "element", "isin")?)?;
    let t = to_value(&a.req(Some(1), "test_elements", "isin")?)?;
    let invert = flag(a, Some(3), "invert")?;
    let n: usize = t.shape().iter().product();
    let mut wide = e.shape();
    wide.push(1);
    let e1 = Obj::Array(jops::reshape(&e, &wide)?);
    let t1 = Obj::Array(jops::reshape(&t, &[n])?);
    let (e1, t1) = jnp_operands(BinaryOp::Eq, &e1, &t1)?;
    let eq = jops::binary(BinaryOp::Eq, &e1, &t1)?;
    let found = jops::reduce(ReduceOp::Any, &eq, Some(&[-1]), false)?;
    Ok(Obj::Array(if invert {
        jops::unary(crate::array::UnaryOp::Not, &found)?
    } else {
        found
    }))
}

/// The concrete values of `x`, flattened; a traced `x` is JAX's error.
fn host(x: &Value, func: &str) -> Result<Vec<f64>> {
    match x {
        Value::Concrete(c) => Ok(c.to_f64_vec()),
        Value::Traced(t) => bail!(
            ConcretizationTypeError,
            "Abstract tracer value encountered where concrete value is expected: traced array with shape {}\nThe error arose in {func}()",
            t.shape_text()
        ),
    }
}

fn refuse_size(a: &Args, func: &str) -> Result<()> {
    if a.opt(None, "size").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.{func}(size=...)"
        );
    }
    Ok(())
}

fn total(a: &f64, b: &f64) -> Ordering {
    a.partial_cmp(b)
        .unwrap_or_else(|| a.is_nan().cmp(&b.is_nan()))
}

/// The sorted distinct values, each with the index of its first occurrence.
fn distinct(v: &[f64]) -> Vec<(f64, usize)> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&i, &j| total(&v[i], &v[j]).then(i.cmp(&j)));
    let mut out: Vec<(f64, usize)> = vec![];
    for i in order {
        if out
            .last()
            .is_none_or(|(x, _)| total(x, &v[i]) != Ordering::Equal)
        {
            out.push((v[i], i));
        }
    }
    out
}

fn array(values: &[f64], like: &Value) -> Result<Obj> {
    Ok(Obj::Array(Value::Concrete(from_f64(
        &[values.len()],
        values,
        like.dtype(),
    )?)))
}

fn operands(a: &Args, func: &str) -> Result<(Value, Value)> {
    let x = a.req(Some(0), "ar1", func)?;
    let y = a.req(Some(1), "ar2", func)?;
    super::compose::promoted(&x, &y)
}

/// `intersect1d(ar1, ar2, assume_unique=False, return_indices=False)`.
fn intersect1d(a: &Args) -> Result<Obj> {
    refuse_size(a, "intersect1d")?;
    let (x, y) = operands(a, "intersect1d")?;
    let (dx, dy) = (
        distinct(&host(&x, "intersect1d")?),
        distinct(&host(&y, "intersect1d")?),
    );
    let mut common = vec![];
    let (mut i, mut j) = (0, 0);
    while i < dx.len() && j < dy.len() {
        match total(&dx[i].0, &dy[j].0) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                common.push((dx[i].0, dx[i].1, dy[j].1));
                i += 1;
                j += 1;
            }
        }
    }
    let values: Vec<f64> = common.iter().map(|c| c.0).collect();
    let out = array(&values, &x)?;
    if !flag(a, Some(3), "return_indices")? {
        return Ok(out);
    }
    let index = |k: usize| -> Result<Obj> {
        let idx: Vec<f64> = common
            .iter()
            .map(|c| if k == 1 { c.1 as f64 } else { c.2 as f64 })
            .collect();
        let a = from_f64(&[idx.len()], &idx, crate::array::DType::I32)?;
        Ok(Obj::Array(Value::Concrete(a)))
    };
    Ok(Obj::tuple(vec![out, index(1)?, index(2)?]))
}

/// `setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None)`:
/// the distinct values of `ar1` not in `ar2`, padded to `size` with
/// `fill_value` (0 by default) when given.
fn setdiff1d(a: &Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "ar1", "setdiff1d")?)?;
    let y = to_value(&a.req(Some(1), "ar2", "setdiff1d")?)?;
    let size = a.opt(None, "size").map(|o| to_int(&o)).transpose()?;
    let concrete = |v: &Value| matches!(v, Value::Concrete(_));
    if size.is_some() && !(concrete(&x) && concrete(&y)) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.setdiff1d(size=...) of a traced array"
        );
    }
    let hx = host(&x, "setdiff1d")?;
    let hy = host(&y, "setdiff1d")?;
    let mut keep: Vec<f64> = distinct(&hx)
        .into_iter()
        .map(|(v, _)| v)
        .filter(|v| !hy.iter().any(|w| w == v))
        .collect();
    if let Some(n) = size {
        let fill = match a.opt(None, "fill_value") {
            Some(o) => to_value(&o)?.concrete("setdiff1d")?.get_f64(0),
            None => 0.0,
        };
        keep.resize(n.max(0) as usize, fill);
    }
    array(&keep, &x)
}

/// `setxor1d(ar1, ar2, assume_unique=False)`: the values in exactly one.
fn setxor1d(a: &Args) -> Result<Obj> {
    refuse_size(a, "setxor1d")?;
    let (x, y) = operands(a, "setxor1d")?;
    let dx: Vec<f64> = distinct(&host(&x, "setxor1d")?)
        .into_iter()
        .map(|d| d.0)
        .collect();
    let dy: Vec<f64> = distinct(&host(&y, "setxor1d")?)
        .into_iter()
        .map(|d| d.0)
        .collect();
    let mut all: Vec<f64> = dx
        .iter()
        .filter(|v| !dy.contains(v))
        .chain(dy.iter().filter(|v| !dx.contains(v)))
        .copied()
        .collect();
    all.sort_by(total);
    array(&all, &x)
}

/// `union1d(ar1, ar2, *, size=None, fill_value=None)`: `unique` of both.
fn union1d(interp: &mut Interp, a: Args) -> Result<Obj> {
    let (x, y) = operands(&a, "union1d")?;
    let flat = |v: &Value| jops::reshape(v, &[v.shape().iter().product()]);
    let joined = jops::concatenate(&[flat(&x)?, flat(&y)?], 0)?;
    let mut kw = vec![];
    for name in ["size", "fill_value"] {
        if let Some(v) = a.opt(None, name) {
            kw.push((name.to_string(), v));
        }
    }
    let unique = super::jnp_function(interp, "unique")?;
    interp.call(&unique, Args::with(vec![Obj::Array(joined)], kw))
}

/// `unique_all`, `unique_counts` and `unique_inverse`: `unique` with the
/// wanted extras (NaNs kept apart), as a named tuple; the inverse indices
/// have the input's shape.
fn unique_result(interp: &mut Interp, a: &Args, func: &str, fields: &[&str]) -> Result<Obj> {
    let x = a.req(Some(0), "x", func)?;
    let mut kw: Vec<(String, Obj)> = vec![("equal_nan".into(), Obj::Bool(false))];
    for (field, name) in [
        ("indices", "return_index"),
        ("inverse_indices", "return_inverse"),
        ("counts", "return_counts"),
    ] {
        if fields.contains(&field) {
            kw.push((name.into(), Obj::Bool(true)));
        }
    }
    for name in ["size", "fill_value"] {
        if let Some(v) = a.opt(None, name) {
            kw.push((name.to_string(), v));
        }
    }
    let unique = super::jnp_function(interp, "unique")?;
    let out = interp.call(&unique, Args::with(vec![x.clone()], kw))?;
    let mut parts = crate::python::ops::iterate(&out)?;
    if let Some(at) = fields.iter().position(|f| *f == "inverse_indices") {
        let shape = to_value(&x)?.shape();
        parts[at] = Obj::Array(jops::reshape(&to_value(&parts[at])?, &shape)?);
    }
    let class = named_tuple(interp, func, fields)?;
    interp.call(&class, Args::new(parts))
}

/// The named tuple class JAX returns from `func`.
fn named_tuple(interp: &mut Interp, func: &str, fields: &[&str]) -> Result<Obj> {
    let name = match func {
        "unique_all" => "_UniqueAllResult",
        "unique_counts" => "_UniqueCountsResult",
        _ => "_UniqueInverseResult",
    };
    let collections = super::super::import(interp, "collections")?;
    let make = getattr(interp, &collections, "namedtuple")?;
    let names = Obj::list(fields.iter().map(|f| Obj::str(*f)).collect());
    interp.call(&make, Args::new(vec![Obj::str(name), names]))
}
