//! The small building blocks optax exports for writing transformations:
//! `stateless`, `stateless_with_tree_map`, `init_empty_state`,
//! `with_extra_args_support`, `named_chain`; the transformations
//! `keep_params_nonnegative` and `normalize_by_update_norm`; and the tree
//! helpers `incremental_update` and `scale_gradient`.
//!
//! Optax builds several of them as a plain `GradientTransformation` (no
//! extra arguments), and a program can tell: they are made with that class.

use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::pytree::{flatten, unflatten};
use crate::python::value::{Args, Obj};
use crate::{bail, ops as jops};

use super::super::Builder;
use super::base::{call_init, call_update, empty, state, transformation, tree_map, wrap};
use super::compose::{add, call, div, mul, sub, tree};

/// What a transformation needs the parameters for, when they are missing.
pub(super) const NO_PARAMS: &str = "You are using a transformation that requires the current value of parameters, but you are not passing `params` when calling `update`.";

/// A plain `GradientTransformation(init, update)`.
fn plain(init: Obj, update: Obj) -> Obj {
    state(
        "GradientTransformation",
        vec![("init", init), ("update", update)],
    )
}

/// A plain transformation with an `EmptyState` and this update.
pub(super) fn plain_empty(update: Obj) -> Obj {
    plain(init_empty_state(), update)
}

fn init_empty_state() -> Obj {
    Obj::native("init_empty_state", |_, _| Ok(empty()))
}

/// An update function `(updates, state, params=None) -> (f(...), state)`.
fn update_fn(f: impl Fn(&mut Interp, &Obj, Option<Obj>) -> Result<Obj> + 'static) -> Obj {
    Obj::native("update_fn", move |interp, a| {
        let u = a.req(Some(0), "updates", "update_fn")?;
        let st = a.req(Some(1), "state", "update_fn")?;
        let p = a.opt(Some(2), "params").filter(|p| !matches!(p, Obj::None));
        Ok(Obj::tuple(vec![f(interp, &u, p)?, st]))
    })
}

/// `stateless(f)`: `f(updates, params)`, with an `EmptyState`.
fn stateless(a: &Args) -> Result<Obj> {
    let f = a.req(Some(0), "f", "stateless")?;
    let update = update_fn(move |interp, u, p| {
        interp.call(&f, Args::new(vec![u.clone(), p.unwrap_or(Obj::None)]))
    });
    Ok(plain(init_empty_state(), update))
}

/// `stateless_with_tree_map(f)`: `f(update, param)` leaf by leaf (`param`
/// None without parameters).
fn stateless_with_tree_map(a: &Args) -> Result<Obj> {
    let f = a.req(Some(0), "f", "stateless_with_tree_map")?;
    let update = update_fn(move |interp, u, p| {
        let fun = match &p {
            Some(_) => f.clone(),
            None => {
                let f = f.clone();
                Obj::native("<lambda>", move |interp, a| {
                    let x = a.req(Some(0), "u", "<lambda>")?;
                    interp.call(&f, Args::new(vec![x, Obj::None]))
                })
            }
        };
        let mut trees = vec![fun, u.clone()];
        trees.extend(p);
        call(interp, "jax.tree", "map", trees, vec![])
    });
    Ok(plain(init_empty_state(), update))
}

/// `with_extra_args_support(tx)`: `tx` itself when it takes extra
/// arguments, else `tx` with an update that drops them.
fn with_extra_args_support(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let tx = a.req(Some(0), "tx", "with_extra_args_support")?;
    if let Obj::Instance(i) = &tx {
        if i.class.name == "GradientTransformationExtraArgs" {
            return Ok(tx);
        }
    }
    let init = crate::python::ops::getattr(interp, &tx, "init")?;
    let update = Obj::native("update", move |interp, a| {
        let u = a.req(Some(0), "updates", "update")?;
        let st = a.req(Some(1), "state", "update")?;
        let p = a.opt(Some(2), "params");
        let (u, s) = call_update(interp, &tx, &u, &st, p.as_ref(), &[])?;
        Ok(Obj::tuple(vec![u, s]))
    });
    Ok(wrap(init, update))
}

/// `keep_params_nonnegative()`: an update that would take a parameter
/// below zero takes it to zero instead.
fn keep_params_nonnegative() -> Obj {
    let update = Obj::native("update_fn", |interp, a| {
        let u = a.req(Some(0), "updates", "update_fn")?;
        let st = a.req(Some(1), "state", "update_fn")?;
        let p = match a.get(Some(2), "params") {
            None => bail!(
                TypeError,
                "keep_params_nonnegative.<locals>.update_fn() missing 1 required positional argument: 'params'"
            ),
            Some(Obj::None) => bail!(ValueError, "{NO_PARAMS}"),
            Some(p) => p,
        };
        let u = tree_map(interp, &[&p, &u], |x| {
            let sum = jops::add(x[0], x[1])?;
            let below = jops::less(&sum, &jops::scalar(0.0, sum.dtype()))?;
            jops::select(&below, &jops::neg(x[0])?, x[1])
        })?;
        Ok(Obj::tuple(vec![u, st]))
    });
    plain(init_empty_state(), update)
}

/// `normalize_by_update_norm(scale_factor=1., eps=1e-6)`: the updates
/// divided by `(norm + eps) / scale_factor`.
fn normalize_by_update_norm(a: &Args) -> Result<Obj> {
    let scale = a.opt(Some(0), "scale_factor").unwrap_or(Obj::Float(1.0));
    let eps = a.opt(Some(1), "eps").unwrap_or(Obj::Float(1e-6));
    let update = update_fn(move |interp, u, _| {
        let norm = tree(interp, "norm", vec![u.clone()], vec![])?;
        let norm = add(interp, &norm, &eps)?;
        let g_norm = div(interp, &norm, &scale)?;
        leafwise(interp, &[u], |interp, x| div(interp, &x[0], &g_norm))
    });
    Ok(plain(init_empty_state(), update))
}

/// `f` over the leaves of `trees` (each with the first one's structure),
/// with the interpreter at hand.
fn leafwise(
    interp: &mut Interp,
    trees: &[&Obj],
    mut f: impl FnMut(&mut Interp, &[Obj]) -> Result<Obj>,
) -> Result<Obj> {
    let (first, def) = flatten(interp, trees[0])?;
    let mut rest = vec![];
    for t in &trees[1..] {
        rest.push(flatten(interp, t)?.0);
    }
    let mut out = vec![];
    for (i, x) in first.into_iter().enumerate() {
        let mut row = vec![x];
        for r in &rest {
            match r.get(i) {
                Some(y) => row.push(y.clone()),
                None => bail!(ValueError, "the trees have different structures"),
            }
        }
        out.push(f(interp, &row)?);
    }
    unflatten(interp, &def, &out)
}

/// `incremental_update(new_tensors, old_tensors, step_size)`: the moving
/// average `step_size * new + (1 - step_size) * old`, leaf by leaf.
fn incremental_update(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = "incremental_update";
    let new = a.req(Some(0), "new_tensors", f)?;
    let old = a.req(Some(1), "old_tensors", f)?;
    let step = a.req(Some(2), "step_size", f)?;
    let keep = sub(interp, &Obj::Float(1.0), &step)?;
    leafwise(interp, &[&new, &old], |interp, x| {
        let n = mul(interp, &step, &x[0])?;
        let o = mul(interp, &keep, &x[1])?;
        add(interp, &n, &o)
    })
}

/// `scale_gradient(inputs, scale)`: the inputs themselves, whose gradient
/// is scaled by `scale` on the way back.
fn scale_gradient(interp: &mut Interp, a: Args) -> Result<Obj> {
    let inputs = a.req(Some(0), "inputs", "scale_gradient")?;
    let scale = a.req(Some(1), "scale", "scale_gradient")?;
    for (v, same) in [(1.0, true), (0.0, false)] {
        let eq = interp.compare(&rustpython_parser::ast::CmpOp::Eq, &scale, &Obj::Float(v))?;
        if interp.truth(&eq, "scale_gradient")? {
            return match same {
                true => Ok(inputs),
                false => call(interp, "jax.lax", "stop_gradient", vec![inputs], vec![]),
            };
        }
    }
    let identity = Obj::native("_scale_gradient", |_, a| {
        a.req(Some(0), "inputs", "_scale_gradient")
    });
    let fwd = Obj::native("_scale_gradient_fwd", |_, a| {
        let x = a.req(Some(0), "inputs", "_scale_gradient_fwd")?;
        let s = a.req(Some(1), "scale", "_scale_gradient_fwd")?;
        Ok(Obj::tuple(vec![x, s]))
    });
    let bwd = Obj::native("_scale_gradient_bwd", |interp, a| {
        let s = a.req(Some(0), "scale", "_scale_gradient_bwd")?;
        let g = a.req(Some(1), "g", "_scale_gradient_bwd")?;
        let scaled = leafwise(interp, &[&g], |interp, x| mul(interp, &x[0], &s))?;
        Ok(Obj::tuple(vec![scaled, Obj::None]))
    });
    let f = call(interp, "jax", "custom_vjp", vec![identity], vec![])?;
    let defvjp = crate::python::ops::getattr(interp, &f, "defvjp")?;
    interp.call(&defvjp, Args::new(vec![fwd, bwd]))?;
    interp.call(&f, Args::new(vec![inputs, scale]))
}

/// `named_chain(*(name, transformation))`: a chain whose state is an
/// `OrderedDict` of the parts' states by name.
fn named_chain(a: &Args) -> Result<Obj> {
    let mut parts: Vec<(Obj, Obj)> = vec![];
    for p in &a.pos {
        match p {
            Obj::Tuple(t) if t.len() == 2 => parts.push((t[0].clone(), t[1].clone())),
            other => bail!(
                TypeError,
                "named_chain takes (name, transformation) pairs, got {}",
                other.type_name()
            ),
        }
    }
    for (i, (n, _)) in parts.iter().enumerate() {
        if parts[..i]
            .iter()
            .any(|(m, _)| crate::python::ops::py_eq(m, n))
        {
            let names = Obj::list(parts.iter().map(|(n, _)| n.clone()).collect());
            bail!(
                ValueError,
                "Named transformations must have unique names, but got {}",
                crate::python::format::repr_of(&names)
            );
        }
    }
    let parts2 = parts.clone();
    Ok(transformation(
        move |interp, p| {
            let mut states = vec![];
            for (n, tx) in &parts {
                states.push(Obj::tuple(vec![n.clone(), call_init(interp, tx, p)?]));
            }
            ordered_dict(interp, states)
        },
        move |interp, u, st, p, extra| {
            let mut u = u.clone();
            let mut states = vec![];
            for (n, tx) in &parts2 {
                let s = crate::python::ops::getitem(interp, st, n)?;
                let (nu, ns) = call_update(interp, tx, &u, &s, p, extra)?;
                u = nu;
                states.push(Obj::tuple(vec![n.clone(), ns]));
            }
            Ok((u, ordered_dict(interp, states)?))
        },
    ))
}

/// `collections.OrderedDict(pairs)`.
fn ordered_dict(interp: &mut Interp, pairs: Vec<Obj>) -> Result<Obj> {
    call(
        interp,
        "collections",
        "OrderedDict",
        vec![Obj::list(pairs)],
        vec![],
    )
}

/// Registers the functions on `optax`.
pub(super) fn register(b: &mut Builder) {
    b.func("stateless", |_, a| stateless(&a));
    b.func("stateless_with_tree_map", |_, a| {
        stateless_with_tree_map(&a)
    });
    b.func("init_empty_state", |_, _| Ok(empty()));
    b.func("with_extra_args_support", |i, a| {
        with_extra_args_support(i, &a)
    });
    b.func("keep_params_nonnegative", |_, _| {
        Ok(keep_params_nonnegative())
    });
    b.func("normalize_by_update_norm", |_, a| {
        normalize_by_update_norm(&a)
    });
    b.func("incremental_update", incremental_update);
    b.func("scale_gradient", scale_gradient);
    b.func("named_chain", |_, a| named_chain(&a));
}
