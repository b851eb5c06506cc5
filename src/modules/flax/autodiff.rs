//! `nnx.vjp`, `nnx.jvp` and `nnx.remat` on top of `jax.vjp`, `jax.jvp` and
//! `jax.checkpoint`.
//!
//! Flax runs its transforms in one of two ways. In tree mode (`graph=False`,
//! or `graph_updates=False`) a module is a plain pytree: the transformed
//! function receives copies of the arguments, the variables it writes leave
//! it as extra outputs and are then written into the caller's variables,
//! and a module's cotangent or tangent is a module of the same structure.
//! Flax 0.12.8 refuses vjp and jvp in graph mode with graph updates (the
//! default) with NotImplementedError, so they run in tree mode only. remat
//! passes each module as its state and rebuilds it inside, as `nnx.vmap`
//! does; rematerialization never changes a number, so both of its modes
//! give the same values.

use super::nnx::collect_vars;
use super::transforms::{check_no_aliases, split_modules, vmap_pure, write_back, Graphdefs};
use super::*;
use crate::python::ops::is_same;

/// A boolean transform option, `default` when absent or None.
pub(super) fn flag(a: &Args, name: &str, default: bool) -> Result<bool> {
    match a.opt(None, name) {
        Some(o) => truthy(&o, name),
        None => Ok(default),
    }
}

/// Whether a transform runs in Flax's tree mode: `graph=False` or
/// `graph_updates=False`.
pub(super) fn tree_mode(a: &Args) -> Result<bool> {
    Ok(!flag(a, "graph", true)? || !flag(a, "graph_updates", true)?)
}

/// Flax refuses a bound method of a module as the transformed function.
pub(super) fn check_unbound(f: &Obj, name: &str) -> Result<()> {
    if let Obj::Method(m) = f {
        if matches!(&m.0, Obj::Instance(i) if is_nnx_module(i)) {
            bail!(
                ValueError,
                "nnx.{name} does not support bound methods. Use the decorator form @nnx.{name} or call nnx.{name}(MyClass.method)(instance, ...) with the unbound method."
            );
        }
    }
    Ok(())
}

/// The variables the arguments hold, in the order they are walked.
pub(super) fn vars_in(args: &[Obj]) -> Vec<Rc<Instance>> {
    let mut out = vec![];
    for a in args {
        collect_vars(a, &mut vec![], &|_| true, &mut out);
    }
    out.into_iter().map(|(_, v)| v).collect()
}

/// Which of the arguments' variables a tree-mode call wrote, by their
/// index in [`vars_in`] order.
#[derive(Default)]
pub(super) struct Written(RefCell<Vec<usize>>);

/// Calls `f` on copies of `args` and returns its result with the new
/// values of the variables it wrote (a tuple), noting which they are.
pub(super) fn call_on_copies(
    interp: &mut Interp,
    f: &Obj,
    args: &[Obj],
    written: &Written,
) -> Result<(Obj, Obj)> {
    let (leaves, def) = flatten_known(&Obj::tuple(args.to_vec()))?;
    let copies = iterate(&unflatten_known(&def, &leaves)?)?;
    let vars = vars_in(&copies);
    let value = |v: &Rc<Instance>| iattr(v, "value").unwrap_or(Obj::None);
    let before: Vec<Obj> = vars.iter().map(value).collect();
    let out = interp.call(f, Args::new(copies))?;
    let (mut index, mut values) = (vec![], vec![]);
    for (k, (v, old)) in vars.iter().zip(&before).enumerate() {
        let now = value(v);
        if !is_same(&now, old) {
            index.push(k);
            values.push(now);
        }
    }
    *written.0.borrow_mut() = index;
    Ok((out, Obj::tuple(values)))
}

/// Writes the values a tree-mode call left in its copies into the
/// caller's variables.
pub(super) fn apply_written(args: &[Obj], written: &Written, values: &Obj) -> Result<()> {
    let vars = vars_in(args);
    for (&k, v) in written.0.borrow().iter().zip(iterate(values)?) {
        if let Some(var) = vars.get(k) {
            set_iattr(var, "value", v);
        }
    }
    Ok(())
}

/// The `jax` function `name`.
pub(super) fn jax_fn(interp: &mut Interp, name: &str) -> Result<Obj> {
    let jax = crate::modules::import(interp, "jax")?;
    crate::python::ops::getattr(interp, &jax, name)
}

/// Flax 0.12.8's refusal of vjp and jvp in graph mode with graph updates.
fn check_tree_only(a: &Args, name: &str) -> Result<()> {
    if flag(a, "graph", true)? && flag(a, "graph_updates", true)? {
        bail!(
            NotImplementedError,
            "graph-mode with graph_updates is not supported for nnx.{name}. Set graph=False or graph_updates=False."
        );
    }
    Ok(())
}

/// `nnx.vjp(f, *primals, has_aux=False, graph=..., graph_updates=...)`,
/// also as a decorator and with the primals given later.
fn vjp(interp: &mut Interp, a: Args) -> Result<Obj> {
    check_tree_only(&a, "vjp")?;
    if let Some(r) = a.opt(None, "reduce_axes") {
        if truthy(&r, "reduce_axes")? {
            bail!(
                NotImplementedError,
                "reduce_axes argument to vjp is deprecated"
            );
        }
    }
    let has_aux = flag(&a, "has_aux", false)?;
    let kw = a.kw.clone();
    match a.pos.split_first() {
        None => Ok(Obj::native("nnx.vjp", move |i, b| {
            vjp(i, Args::with(b.pos, kw.clone()))
        })),
        Some((f, [])) => {
            check_unbound(f, "vjp")?;
            let f = f.clone();
            Ok(Obj::native("nnx.vjp", move |i, b| {
                let mut pos = vec![f.clone()];
                pos.extend(b.pos);
                vjp(i, Args::with(pos, kw.clone()))
            }))
        }
        Some((f, primals)) => {
            check_unbound(f, "vjp")?;
            vjp_call(interp, f, primals, has_aux)
        }
    }
}

/// A pytree like `o` of zeros.
fn zeros_tree(o: &Obj) -> Result<Obj> {
    let (leaves, def) = flatten_known(o)?;
    let zeros: Vec<Obj> = leaf_values(&leaves)?
        .iter()
        .map(|v| Obj::Array(jops::zeros_like(v)))
        .collect();
    unflatten_known(&def, &zeros)
}

/// The writes and the auxiliary data leave the function as more outputs;
/// the pullback given back takes the output's cotangent alone and gives
/// them zero cotangents.
fn vjp_call(interp: &mut Interp, f: &Obj, primals: &[Obj], has_aux: bool) -> Result<Obj> {
    check_no_aliases(primals, "nnx.vjp")?;
    let written = Rc::new(Written::default());
    let pure = {
        let (f, written) = (f.clone(), written.clone());
        Obj::native("nnx.vjp.pure", move |i, b| {
            let (out, updates) = call_on_copies(i, &f, &b.pos, &written)?;
            let (out, aux) = split_aux(out, has_aux)?;
            Ok(Obj::tuple(vec![out, updates, aux.unwrap_or(Obj::None)]))
        })
    };
    let jvjp = jax_fn(interp, "vjp")?;
    let mut pos = vec![pure];
    pos.extend(primals.iter().cloned());
    let r = interp.call(&jvjp, Args::new(pos))?;
    let (all, raw_fn) = pair_of(&r)?;
    let [out, updates, aux] = <[Obj; 3]>::try_from(iterate(&all)?)
        .map_err(|_| err!(RuntimeError, "nnx.vjp: the function's outputs were lost"))?;
    apply_written(primals, &written, &updates)?;
    let zeros = Obj::tuple(vec![zeros_tree(&updates)?, zeros_tree(&aux)?]);
    let vjp_fn = Obj::native("vjp_fn", move |i, b| {
        let g = b.req(Some(0), "g", "vjp_fn")?;
        let mut cts = vec![g];
        cts.extend(iterate(&zeros)?);
        i.call(&raw_fn, Args::new(vec![Obj::tuple(cts)]))
    });
    let mut res = vec![out, vjp_fn];
    if has_aux {
        res.push(aux);
    }
    Ok(Obj::tuple(res))
}

/// The two items of a pair a transform returned.
fn pair_of(o: &Obj) -> Result<(Obj, Obj)> {
    let [a, b] = <[Obj; 2]>::try_from(iterate(o)?)
        .map_err(|_| err!(RuntimeError, "a transform returned no pair"))?;
    Ok((a, b))
}

/// `nnx.jvp(f, primals, tangents, has_aux=False, graph=..., graph_updates=...)`,
/// also as a decorator and with the primals and tangents given later.
fn jvp(interp: &mut Interp, a: Args) -> Result<Obj> {
    check_tree_only(&a, "jvp")?;
    let has_aux = flag(&a, "has_aux", false)?;
    let kw = a.kw.clone();
    let Some(f) = a.get(Some(0), "f") else {
        return Ok(Obj::native("nnx.jvp", move |i, b| {
            jvp(i, Args::with(b.pos, kw.clone()))
        }));
    };
    check_unbound(&f, "jvp")?;
    let (Some(primals), Some(tangents)) = (a.get(Some(1), "primals"), a.get(Some(2), "tangents"))
    else {
        let kw: Vec<(String, Obj)> = kw.into_iter().filter(|(k, _)| k != "f").collect();
        return Ok(Obj::native("nnx.jvp", move |i, b| {
            let mut pos = vec![f.clone()];
            pos.extend(b.pos);
            jvp(i, Args::with(pos, kw.clone()))
        }));
    };
    jvp_call(interp, &f, &primals, &tangents, has_aux)
}

fn jvp_call(
    interp: &mut Interp,
    f: &Obj,
    primals: &Obj,
    tangents: &Obj,
    has_aux: bool,
) -> Result<Obj> {
    let primal_args = iterate(primals)?;
    check_no_aliases(&primal_args, "nnx.jvp")?;
    check_no_aliases(&iterate(tangents)?, "nnx.jvp")?;
    let written = Rc::new(Written::default());
    // The auxiliary data leaves as one more output (its tangent unused).
    let pure = {
        let (f, written) = (f.clone(), written.clone());
        Obj::native("nnx.jvp.pure", move |i, b| {
            let (out, updates) = call_on_copies(i, &f, &b.pos, &written)?;
            let (out, aux) = split_aux(out, has_aux)?;
            let mut res = vec![out, updates];
            res.extend(aux);
            Ok(Obj::tuple(res))
        })
    };
    let jjvp = jax_fn(interp, "jvp")?;
    let r = interp.call(
        &jjvp,
        Args::new(vec![
            pure,
            Obj::tuple(primal_args.clone()),
            tangents.clone(),
        ]),
    )?;
    let (p, t) = pair_of(&r)?;
    let p = iterate(&p)?;
    let t = iterate(&t)?;
    if let Some(updates) = p.get(1) {
        apply_written(&primal_args, &written, updates)?;
    }
    let mut res = vec![p[0].clone(), t[0].clone()];
    if has_aux {
        res.extend(p.get(2).cloned());
    }
    Ok(Obj::tuple(res))
}

/// `nnx.remat(f, *, prevent_cse=True, static_argnums=(), policy=None,
/// graph=..., graph_updates=...)`, also as a decorator with options.
fn remat(st: &Rc<Class>, a: Args) -> Result<Obj> {
    let tree = tree_mode(&a)?;
    let options: Vec<(String, Obj)> = ["prevent_cse", "static_argnums", "policy"]
        .into_iter()
        .filter_map(|k| a.get(None, k).map(|v| (k.to_string(), v)))
        .collect();
    let Some(f) = a.get(Some(0), "f") else {
        let (st, kw) = (st.clone(), a.kw.clone());
        return Ok(Obj::native("nnx.remat", move |_, b| {
            remat(&st, Args::with(b.pos, kw.clone()))
        }));
    };
    check_unbound(&f, "remat")?;
    let st = st.clone();
    Ok(Obj::native("nnx.remat", move |i, call| {
        if tree {
            check_no_aliases(&call.pos, "nnx.remat with graph=False")?;
        }
        remat_call(i, &st, &f, &options, call)
    }))
}

/// One call of a rematerialized function: modules go in as their states
/// and their states afterwards come back into them.
fn remat_call(
    interp: &mut Interp,
    st: &Rc<Class>,
    f: &Obj,
    options: &[(String, Obj)],
    call: Args,
) -> Result<Obj> {
    if !vars_in(&call.kw.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>()).is_empty() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.remat with a module passed by keyword"
        );
    }
    let (mods, args, defs) = split_modules(st, &call.pos);
    let seen = Rc::new(Graphdefs::default());
    let pure = vmap_pure(f, st, call.kw.clone(), (&mods.index, &defs), &seen);
    let checkpoint = jax_fn(interp, "checkpoint")?;
    let fun = interp.call(&checkpoint, Args::with(vec![pure], options.to_vec()))?;
    let r = iterate(&interp.call(&fun, Args::new(args))?)?;
    let Some((out, states)) = r.split_first() else {
        bail!(RuntimeError, "nnx.remat: the function returned nothing");
    };
    write_back(&mods, &seen, out, states)
}

pub(super) fn register(b: &mut Builder, state: &Rc<Class>) {
    b.func("vjp", vjp);
    b.func("jvp", jvp);
    let st = state.clone();
    b.func("remat", move |_, a| remat(&st, a));
}
