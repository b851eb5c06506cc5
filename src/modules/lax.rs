//! `jax.lax`: the named-axis collectives and the lower-level array operations.

use crate::array::DType;
use crate::error::Result;
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::Builder;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::format::str_of;
use crate::python::interp::Interp;
use crate::python::ops::{iterate, truthy};
use crate::python::pytree::{flatten, unflatten};
use crate::python::value::{Args, Obj};

/// Axis names from a string or a tuple/list of strings.
pub fn axis_names(o: &Obj) -> Result<Vec<String>> {
    match o {
        Obj::Str(s) => Ok(vec![s.to_string()]),
        Obj::Tuple(_) | Obj::List(_) => iterate(o)?
            .iter()
            .map(|x| match x {
                Obj::Str(s) => Ok(s.to_string()),
                other => bail!(
                    TypeError,
                    "axis names must be strings, got {}",
                    other.type_name()
                ),
            })
            .collect(),
        other => bail!(
            TypeError,
            "axis_name must be a string or a tuple of strings, got {}",
            other.type_name()
        ),
    }
}

fn axes_of(a: &Args, func: &str) -> Result<Vec<String>> {
    axis_names(&a.req(Some(1), "axis_name", func)?)
}

/// Applies `f` to every leaf of the pytree argument 0 (collectives map over pytrees).
fn tree_apply(a: &Args, func: &str, f: &dyn Fn(&Value) -> Result<Value>) -> Result<Obj> {
    let x = a.req(Some(0), "x", func)?;
    let (leaves, def) = flatten(&x);
    let mut out = vec![];
    for l in &leaves {
        out.push(Obj::Array(f(&to_value(l)?)?));
    }
    unflatten(&def, &out)
}

fn flag(a: &Args, name: &str, default: bool) -> Result<bool> {
    match a.get(None, name) {
        Some(o) => truthy(&o, name),
        None => Ok(default),
    }
}

fn collective(b: &mut Builder, name: &'static str, f: fn(&Value, &[String]) -> Result<Value>) {
    b.func(name, move |_, a| {
        let axes = axes_of(&a, name)?;
        tree_apply(&a, name, &|x| f(x, &axes))
    });
}

/// The `jax.lax` module.
pub fn module() -> Obj {
    let mut b = Builder::new("jax.lax");
    register_collectives(&mut b);
    register_slicing(&mut b);
    b.func("dot_general", |_, a| dot_general(&a));
    b.func("convert_element_type", |_, a| {
        let x = to_value(&a.req(Some(0), "operand", "convert_element_type")?)?;
        let d = super::numpy::dtype_of(&a.req(Some(1), "new_dtype", "convert_element_type")?)?;
        Ok(Obj::Array(jops::convert(&x, d)?))
    });
    b.func("fori_loop", fori_loop);
    b.build()
}

/// The collectives over named axes, and `axis_index`/`axis_size`.
fn register_collectives(b: &mut Builder) {
    collective(b, "psum", jops::psum);
    collective(b, "pmean", jops::pmean);
    collective(b, "pmax", jops::pmax);
    collective(b, "pmin", jops::pmin);
    b.func("pcast", |_, a| {
        let axes = axes_of(&a, "pcast")?;
        tree_apply(&a, "pcast", &|x| jops::pvary(x, &axes))
    });
    b.func("all_gather", |_, a| all_gather(&a));
    b.func("psum_scatter", |_, a| {
        let axes = axes_of(&a, "psum_scatter")?;
        let dim = a
            .get(None, "scatter_dimension")
            .map(|o| to_int(&o))
            .transpose()?
            .unwrap_or(0);
        let tiled = flag(&a, "tiled", false)?;
        tree_apply(&a, "psum_scatter", &|x| {
            jops::psum_scatter(x, &axes, dim, tiled)
        })
    });
    b.func("ppermute", |_, a| ppermute(&a));
    b.func("all_to_all", |_, a| {
        let axes = axes_of(&a, "all_to_all")?;
        let split = to_int(&a.req(Some(2), "split_axis", "all_to_all")?)?;
        let concat = to_int(&a.req(Some(3), "concat_axis", "all_to_all")?)?;
        let tiled = flag(&a, "tiled", false)?;
        tree_apply(&a, "all_to_all", &|x| {
            jops::all_to_all(x, &axes, split, concat, tiled)
        })
    });
    b.func("axis_index", |_, a| {
        let axes = axis_names(&a.req(Some(0), "axis_name", "axis_index")?)?;
        Ok(Obj::Array(jops::axis_index(&axes)?))
    });
    b.func("axis_size", |_, a| {
        let axes = axis_names(&a.req(Some(0), "axis_name", "axis_size")?)?;
        Ok(Obj::Int(jops::axis_size(&axes)? as i64))
    });
}

/// `all_gather(x, axis_name, axis=0, tiled=False, to=...)`; `to='invarying'`
/// makes the result the same on every member of the axes.
fn all_gather(a: &Args) -> Result<Obj> {
    let axes = axes_of(a, "all_gather")?;
    let axis = a
        .get(None, "axis")
        .map(|o| to_int(&o))
        .transpose()?
        .unwrap_or(0);
    let tiled = flag(a, "tiled", false)?;
    let invariant = match a.get(None, "to") {
        None => false,
        Some(Obj::Str(s)) if &*s == "invarying" => true,
        Some(Obj::Str(s)) if &*s == "varying" => false,
        Some(o) => bail!(
            ValueError,
            "all_gather to= must be 'varying' or 'invarying', got {}",
            str_of(&o)
        ),
    };
    tree_apply(a, "all_gather", &|x| {
        jops::all_gather(x, &axes, axis, tiled, invariant)
    })
}

/// `ppermute(x, axis_name, perm)` with `perm` a sequence of
/// `(source, destination)` pairs.
fn ppermute(a: &Args) -> Result<Obj> {
    let axes = axes_of(a, "ppermute")?;
    let perm_obj = a.req(Some(2), "perm", "ppermute")?;
    let mut perm = vec![];
    for p in iterate(&perm_obj)? {
        let pair = iterate(&p)?;
        if pair.len() != 2 {
            bail!(
                ValueError,
                "ppermute perm entries must be (source, destination) pairs"
            );
        }
        perm.push((to_int(&pair[0])? as usize, to_int(&pair[1])? as usize));
    }
    tree_apply(a, "ppermute", &|x| jops::ppermute(x, &axes, &perm))
}

/// `dynamic_slice`, `dynamic_slice_in_dim` and `dynamic_update_slice`.
fn register_slicing(b: &mut Builder) {
    b.func("dynamic_slice", |_, a| {
        let x = to_value(&a.req(Some(0), "operand", "dynamic_slice")?)?;
        let starts = start_indices(&a.req(Some(1), "start_indices", "dynamic_slice")?)?;
        let sizes: Vec<usize> = iterate(&a.req(Some(2), "slice_sizes", "dynamic_slice")?)?
            .iter()
            .map(|o| to_int(o).map(|i| i as usize))
            .collect::<Result<_>>()?;
        Ok(Obj::Array(jops::dynamic_slice(&x, &starts, &sizes)?))
    });
    b.func("dynamic_slice_in_dim", |_, a| {
        let x = to_value(&a.req(Some(0), "operand", "dynamic_slice_in_dim")?)?;
        let start = jops::convert(
            &to_value(&a.req(Some(1), "start_index", "dynamic_slice_in_dim")?)?,
            DType::I32,
        )?;
        let size = to_int(&a.req(Some(2), "slice_size", "dynamic_slice_in_dim")?)? as usize;
        let axis = a
            .get(Some(3), "axis")
            .map(|o| to_int(&o))
            .transpose()?
            .unwrap_or(0);
        Ok(Obj::Array(jops::dynamic_slice_in_dim(
            &x, &start, size, axis,
        )?))
    });
    b.func("dynamic_update_slice", |_, a| {
        let x = to_value(&a.req(Some(0), "operand", "dynamic_update_slice")?)?;
        let u = to_value(&a.req(Some(1), "update", "dynamic_update_slice")?)?;
        let starts = start_indices(&a.req(Some(2), "start_indices", "dynamic_update_slice")?)?;
        Ok(Obj::Array(jops::dynamic_update_slice(&x, &u, &starts)?))
    });
}

/// Start indices as int32 scalars (they may be traced).
fn start_indices(o: &Obj) -> Result<Vec<Value>> {
    iterate(o)?
        .iter()
        .map(|o| to_value(o).and_then(|v| jops::convert(&v, DType::I32)))
        .collect()
}

/// `dot_general(lhs, rhs, ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)))`.
fn dot_general(a: &Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "lhs", "dot_general")?)?;
    let y = to_value(&a.req(Some(1), "rhs", "dot_general")?)?;
    let dims = iterate(&a.req(Some(2), "dimension_numbers", "dot_general")?)?;
    if dims.len() != 2 {
        bail!(TypeError, "dot_general dimension_numbers must be ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))");
    }
    let ints = |o: &Obj| -> Result<Vec<usize>> {
        iterate(o)?
            .iter()
            .map(|i| to_int(i).map(|v| v as usize))
            .collect()
    };
    let c = iterate(&dims[0])?;
    let bt = iterate(&dims[1])?;
    if c.len() != 2 || bt.len() != 2 {
        bail!(TypeError, "dot_general dimension_numbers must be ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))");
    }
    let (ca, cb, ba, bb) = (ints(&c[0])?, ints(&c[1])?, ints(&bt[0])?, ints(&bt[1])?);
    Ok(Obj::Array(jops::dot_general(
        &x,
        &y,
        (&ca, &cb),
        (&ba, &bb),
    )?))
}

/// `fori_loop(lower, upper, body_fun, init_val)`, run eagerly.
fn fori_loop(i: &mut Interp, a: Args) -> Result<Obj> {
    let lo = to_int(&a.req(Some(0), "lower", "fori_loop")?)?;
    let hi = to_int(&a.req(Some(1), "upper", "fori_loop")?)?;
    let f = a.req(Some(2), "body_fun", "fori_loop")?;
    let mut acc = a.req(Some(3), "init_val", "fori_loop")?;
    for k in lo..hi {
        acc = i.call(&f, Args::new(vec![Obj::Int(k), acc]))?;
    }
    Ok(acc)
}
