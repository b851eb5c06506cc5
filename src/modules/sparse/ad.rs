//! `sparse.grad` and `sparse.value_and_grad`: `jax.grad` where a `BCOO`
//! argument is differentiated through its stored values only, and its
//! gradient is a `BCOO` with the same indices (`jax.grad` itself would
//! also ask for the gradient of the integer indices).

use std::rc::Rc;

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::{bool_arg, is_bcoo, new_bcoo, Parts};

/// The argument positions `argnums` names.
fn positions(interp: &mut Interp, argnums: &Obj) -> Result<Vec<usize>> {
    let items = match argnums {
        Obj::Int(_) => vec![argnums.clone()],
        o => interp.iterate(o)?,
    };
    items
        .iter()
        .map(|o| crate::python::builtins::to_int(o).map(|n| n as usize))
        .collect()
}

/// `sparse.grad(fun, argnums=0, has_aux=False)` (`value_and_grad` when
/// `with_value`).
pub fn grad(interp: &mut Interp, a: Args, with_value: bool) -> Result<Obj> {
    let name = if with_value { "value_and_grad" } else { "grad" };
    let fun = a.req(Some(0), "fun", name)?;
    let argnums = a.get(Some(1), "argnums").unwrap_or(Obj::Int(0));
    let has_aux = bool_arg(interp, &a, Some(2), "has_aux", false)?;
    if a.kw.iter().any(|(k, _)| k != "argnums" && k != "has_aux") {
        return super::refuse(&format!("sparse.{name} with other keyword arguments"));
    }
    let spec = Rc::new((fun, argnums, has_aux, with_value));
    Ok(Obj::native(format!("{name}_fun"), move |i, args| {
        let (fun, argnums, has_aux, with_value) = &*spec;
        call(i, fun, argnums, *has_aux, *with_value, args)
    }))
}

fn call(
    interp: &mut Interp,
    fun: &Obj,
    argnums: &Obj,
    has_aux: bool,
    with_value: bool,
    args: Args,
) -> Result<Obj> {
    let at = positions(interp, argnums)?;
    if let Some(&bad) = at.iter().find(|&&n| n >= args.pos.len()) {
        bail!(
            ValueError,
            "argnums {bad} out of bounds for a function of {} positional arguments",
            args.pos.len()
        );
    }
    // What is differentiated: a BCOO's values, or the argument itself.
    let diff: Vec<Obj> = at
        .iter()
        .map(|&n| match &args.pos[n] {
            o if is_bcoo(o) => Parts::of(o).map(|p| p.data),
            o => Ok(o.clone()),
        })
        .collect::<Result<_>>()?;
    let base = Rc::new(args);
    let spots = Rc::new(at.clone());
    let (f, b, s) = (fun.clone(), base.clone(), spots.clone());
    let inner = Obj::native("fun_flat", move |i, ga: Args| {
        let mut pos = b.pos.clone();
        for (k, &n) in s.iter().enumerate() {
            let new = ga.pos.get(k).cloned().unwrap_or(Obj::None);
            pos[n] = rebuild(i, &pos[n], new)?;
        }
        i.call(&f, Args::with(pos, b.kw.clone()))
    });
    let jax = super::super::import(interp, "jax")?;
    let vg = crate::python::ops::getattr(interp, &jax, "value_and_grad")?;
    let nums = Obj::tuple((0..at.len()).map(|k| Obj::Int(k as i64)).collect());
    let kw = vec![
        ("argnums".to_string(), nums),
        ("has_aux".to_string(), Obj::Bool(has_aux)),
    ];
    let g = interp.call(&vg, Args::with(vec![inner], kw))?;
    let out = interp.call(&g, Args::new(diff))?;
    let parts = interp.iterate(&out)?;
    let [value, grads] = &parts[..] else {
        bail!(ValueError, "value_and_grad returned {} values", parts.len());
    };
    let grads = interp.iterate(grads)?;
    let mut back = vec![];
    for (g, &n) in grads.into_iter().zip(&at) {
        back.push(rebuild(interp, &base.pos[n], g)?);
    }
    // As JAX: one gradient alone, several as a tuple.
    let grads = match back.len() {
        1 => back.pop().unwrap_or(Obj::None),
        _ => Obj::tuple(back),
    };
    Ok(match (with_value, has_aux) {
        (true, _) => Obj::tuple(vec![value.clone(), grads]),
        (false, false) => grads,
        (false, true) => {
            let va = interp.iterate(value)?;
            Obj::tuple(vec![grads, va.get(1).cloned().unwrap_or(Obj::None)])
        }
    })
}

/// `like` with `values` in place: a `BCOO` with new stored values, or the
/// new value itself.
fn rebuild(interp: &mut Interp, like: &Obj, values: Obj) -> Result<Obj> {
    if !is_bcoo(like) {
        return Ok(values);
    }
    let p = Parts::of(like)?;
    new_bcoo(interp, p.with(values, p.indices.clone()))
}
