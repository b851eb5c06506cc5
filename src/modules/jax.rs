//! The `jax` module: devices, jit, the transformations (grad, value_and_grad,
//! vjp, jvp, vmap, pmap, shard_map, make_jaxpr); `jax.tree_util` is in
//! [`super::tree_util`].
//!
//! Every transformation flattens its arguments to array leaves, hands the
//! engine a closure that rebuilds the Python values from the leaves, calls the
//! Python function through the interpreter and flattens what it returns, then
//! rebuilds the output tree from the engine's flat results.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::error::Result;
use crate::ir::Aval;
use crate::primitives::MapKind;
use crate::sharding::PartitionSpec;
use crate::trace::{FrameAxes, Value};
use crate::{bail, err, ops as jops};

use super::random::{keyed_objs, keyed_values};
use super::sharding::{Device, NamedSharding};
use super::Builder;
use crate::python::builtins::to_int;
use crate::python::format::str_of;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::{iterate, truthy};
use crate::python::pytree::{
    broadcast_prefix, broadcast_prefix_keyed, flatten, leaf_values, unflatten, value_objs, TreeDef,
};
use crate::python::value::{Args, Obj};

/// Calls `f` on the values rebuilt from `vals` with the args-tuple structure
/// `in_def` (plus fixed keyword arguments), and flattens the result.
pub(crate) fn call_flat(
    interp: &mut Interp,
    f: &Obj,
    in_def: &TreeDef,
    kw: &[(String, Obj)],
    vals: &[Value],
    out_def: &RefCell<Option<TreeDef>>,
) -> Result<Vec<Value>> {
    let args = unflatten(interp, in_def, &value_objs(vals))?;
    let out = interp.call(f, Args::with(iterate(&args)?, kw.to_vec()))?;
    let (leaves, def) = flatten(interp, &out)?;
    *out_def.borrow_mut() = Some(def);
    leaf_values(&leaves).map_err(|e| {
        err!(
            TypeError,
            "the function returned a value that is not an array or a pytree of arrays: {}",
            e.message
        )
    })
}

/// [`call_flat`] for a transformation that carries typed PRNG keys: the
/// leaves `in_keys` marks are key data, passed to `f` as typed keys, and
/// `out_keys` receives which of the results were typed keys (their key data
/// is returned in their place).
#[allow(clippy::too_many_arguments)]
pub(crate) fn call_flat_keyed(
    interp: &mut Interp,
    f: &Obj,
    in_def: &TreeDef,
    kw: &[(String, Obj)],
    vals: &[Value],
    in_keys: &[bool],
    out_def: &RefCell<Option<TreeDef>>,
    out_keys: &RefCell<Vec<bool>>,
) -> Result<Vec<Value>> {
    let args = unflatten(interp, in_def, &keyed_objs(vals, in_keys)?)?;
    let out = interp.call(f, Args::with(iterate(&args)?, kw.to_vec()))?;
    let (leaves, def) = flatten(interp, &out)?;
    *out_def.borrow_mut() = Some(def);
    let (vals, keys) = keyed_values(&leaves).map_err(|e| {
        err!(
            TypeError,
            "the function returned a value that is not an array or a pytree of arrays: {}",
            e.message
        )
    })?;
    *out_keys.borrow_mut() = keys;
    Ok(vals)
}

pub(crate) fn func_name(f: &Obj) -> String {
    match f {
        Obj::Func(f) => f.name.clone(),
        Obj::Native(n) => n.name.clone(),
        _ => "function".into(),
    }
}

pub(crate) fn argnums_of(a: &Args) -> Result<(Vec<usize>, bool)> {
    match a.get(Some(1), "argnums") {
        None => Ok((vec![0], false)),
        Some(Obj::Tuple(t)) => Ok((
            t.iter()
                .map(|o| to_int(o).map(|i| i as usize))
                .collect::<Result<_>>()?,
            true,
        )),
        Some(Obj::List(l)) => {
            let v = l.borrow().clone();
            Ok((
                v.iter()
                    .map(|o| to_int(o).map(|i| i as usize))
                    .collect::<Result<_>>()?,
                true,
            ))
        }
        Some(o) => Ok((vec![to_int(&o)? as usize], false)),
    }
}

pub(crate) fn flag(a: &Args, name: &str) -> Result<bool> {
    match a.get(None, name) {
        Some(o) => truthy(&o, name),
        None => Ok(false),
    }
}

/// A differentiated function's result as (loss, auxiliary data): with
/// `has_aux` it must be a pair, as in JAX.
pub(crate) fn split_aux(out: Obj, has_aux: bool) -> Result<(Obj, Option<Obj>)> {
    if !has_aux {
        return Ok((out, None));
    }
    let parts = iterate(&out)?;
    if parts.len() != 2 {
        bail!(
            TypeError,
            "has_aux=True requires the function to return a pair (output, auxiliary data)"
        );
    }
    Ok((parts[0].clone(), Some(parts[1].clone())))
}

/// The core of grad and value_and_grad: (value, aux, grads) as objects.
/// The forward pass's host callbacks are recorded, and the backward pass
/// takes their results rather than calling them again.
fn grad_call(
    interp: &mut Interp,
    f: &Obj,
    argnums: &[usize],
    tuple_nums: bool,
    flags: (bool, bool),
    call: Args,
) -> Result<(Obj, Obj, Obj)> {
    super::callbacks::recording(interp, |i| {
        grad_call_recorded(i, f, argnums, tuple_nums, flags, call)
    })
}

fn grad_call_recorded(
    interp: &mut Interp,
    f: &Obj,
    argnums: &[usize],
    tuple_nums: bool,
    (has_aux, holomorphic): (bool, bool),
    call: Args,
) -> Result<(Obj, Obj, Obj)> {
    check_argnums(argnums, call.pos.len())?;
    let mut defs = vec![];
    let mut diff = vec![];
    for &k in argnums {
        let (leaves, def) = flatten(interp, &call.pos[k])?;
        diff.extend(leaf_values(&leaves)?);
        defs.push(def);
    }
    let aux_def = AuxDef::default();
    let indices: Vec<usize> = (0..diff.len()).collect();
    let (outs, grads) = {
        let defs = &defs;
        let call = &call;
        let aux_def = &aux_def;
        // The function is traced with the interpreter, then the program
        // runs with it lent to its host callbacks: two borrows in turn.
        let cell = RefCell::new(&mut *interp);
        let body = |vals: &[Value]| -> Result<Vec<Value>> {
            let mut guard = cell.borrow_mut();
            let interp: &mut Interp = &mut guard;
            let mut args = call.pos.clone();
            for (&k, arg) in argnums.iter().zip(unflatten_each(interp, defs, vals)?) {
                args[k] = arg;
            }
            let out = interp.call(f, Args::with(args, call.kw.clone()))?;
            let (loss, aux) = split_aux(out, has_aux)?;
            let loss = match &loss {
                Obj::Array(_) | Obj::Float(_) | Obj::Int(_) | Obj::Bool(_) | Obj::Complex(..) => {
                    crate::python::array::to_value(&loss)?
                }
                other => bail!(
                    TypeError,
                    "Gradient only defined for scalar-output functions. Output was {}",
                    crate::python::format::repr_of(other)
                ),
            };
            loss_and_aux_leaves(interp, loss, aux, aux_def)
        };
        let lend = |jaxpr: &crate::ir::Jaxpr,
                    eval: &mut dyn FnMut() -> crate::transforms::Evaluated| {
            lend_to_callbacks(&cell, jaxpr, eval)
        };
        crate::transforms::value_and_grad_lending(body, &diff, &indices, holomorphic, &lend)?
    };
    // What the backward pass printed (custom_vjp rules).
    super::debug_print::show_eager_prints(interp)?;
    let (value, aux) = value_and_aux(interp, &outs, &aux_def)?;
    let mut per_arg = unflatten_each(interp, &defs, &grads)?;
    let g = if tuple_nums {
        Obj::tuple(per_arg)
    } else {
        per_arg.pop().unwrap_or(Obj::None)
    };
    Ok((value, aux, g))
}

/// Evaluates a differentiated program with the interpreter in `cell` lent
/// to its host callbacks (custom_vjp backward rules run then, on data).
pub(crate) fn lend_to_callbacks(
    cell: &RefCell<&mut Interp>,
    jaxpr: &crate::ir::Jaxpr,
    eval: &mut dyn FnMut() -> crate::transforms::Evaluated,
) -> crate::transforms::Evaluated {
    let calls_back = jaxpr
        .eqns
        .iter()
        .any(|e| super::callbacks::calls_back(&e.prim));
    let out = match cell.try_borrow_mut() {
        Ok(mut guard) if calls_back => super::callbacks::replaying(&mut guard, eval),
        _ => eval(),
    };
    // The forward program runs again for the residuals; what it
    // prints was shown when it ran first.
    crate::exec::take_eager_prints();
    out
}

/// Fails as JAX does when an argnum is past the positional arguments given.
pub(crate) fn check_argnums(argnums: &[usize], n: usize) -> Result<()> {
    for &k in argnums {
        if k >= n {
            bail!(
                TypeError,
                "differentiating with respect to argnums={k} requires at least {} positional arguments to be passed by the caller, but got only {n} positional arguments.",
                k + 1
            );
        }
    }
    Ok(())
}

/// Consecutive runs of `vals` rebuilt into one tree per def.
pub(crate) fn unflatten_each(
    interp: &mut Interp,
    defs: &[TreeDef],
    vals: &[Value],
) -> Result<Vec<Obj>> {
    let mut out = vec![];
    let mut offset = 0;
    for def in defs {
        let m = def.num_leaves();
        out.push(unflatten(
            interp,
            def,
            &value_objs(&vals[offset..offset + m]),
        )?);
        offset += m;
    }
    Ok(out)
}

/// The structure of a differentiated function's aux output, kept while it
/// is traced: its tree, and those of its leaves that are not arrays
/// (Python numbers, strings, None), which come back as they are, as in JAX,
/// rather than through the trace.
#[derive(Default)]
pub(crate) struct AuxDef(RefCell<Option<(TreeDef, Vec<Option<Obj>>)>>);

/// The flat outputs of a differentiated function: the loss, then the array
/// leaves of the aux output, whose structure is kept in `aux_def` to
/// rebuild it afterwards.
pub(crate) fn loss_and_aux_leaves(
    interp: &mut Interp,
    loss: Value,
    aux: Option<Obj>,
    aux_def: &AuxDef,
) -> Result<Vec<Value>> {
    let mut flat = vec![loss];
    if let Some(aux) = aux {
        let (leaves, def) = flatten(interp, &aux)?;
        let mut kept = Vec::with_capacity(leaves.len());
        for leaf in leaves {
            match leaf {
                Obj::Array(v) => {
                    flat.push(v);
                    kept.push(None);
                }
                other => kept.push(Some(other)),
            }
        }
        *aux_def.0.borrow_mut() = Some((def, kept));
    }
    Ok(flat)
}

/// The value and the aux output (None without one) from the flat outputs
/// that [`loss_and_aux_leaves`] made.
pub(crate) fn value_and_aux(
    interp: &mut Interp,
    outs: &[Value],
    aux_def: &AuxDef,
) -> Result<(Obj, Obj)> {
    let value = Obj::Array(outs[0].clone());
    let aux = match aux_def.0.borrow().as_ref() {
        Some((def, kept)) => {
            let mut traced = outs[1..].iter();
            let leaves: Vec<Obj> = kept
                .iter()
                .map(|k| match k {
                    Some(o) => o.clone(),
                    None => traced.next().cloned().map_or(Obj::None, Obj::Array),
                })
                .collect();
            unflatten(interp, def, &leaves)?
        }
        None => Obj::None,
    };
    Ok((value, aux))
}

fn grad(_: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "fun", "grad")?;
    let (argnums, tuple_nums) = argnums_of(&a)?;
    let has_aux = flag(&a, "has_aux")?;
    let holomorphic = flag(&a, "holomorphic")?;
    Ok(Obj::native(
        format!("grad({})", func_name(&f)),
        move |i, call| {
            let (_, aux, g) = grad_call(i, &f, &argnums, tuple_nums, (has_aux, holomorphic), call)?;
            Ok(if has_aux { Obj::tuple(vec![g, aux]) } else { g })
        },
    ))
}

fn value_and_grad(_: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "fun", "value_and_grad")?;
    let (argnums, tuple_nums) = argnums_of(&a)?;
    let has_aux = flag(&a, "has_aux")?;
    let holomorphic = flag(&a, "holomorphic")?;
    Ok(Obj::native(
        format!("value_and_grad({})", func_name(&f)),
        move |i, call| {
            let (v, aux, g) = grad_call(i, &f, &argnums, tuple_nums, (has_aux, holomorphic), call)?;
            let value = if has_aux { Obj::tuple(vec![v, aux]) } else { v };
            Ok(Obj::tuple(vec![value, g]))
        },
    ))
}

pub(crate) fn vjp(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "fun", "vjp")?;
    let primals = Obj::tuple(a.pos[1..].to_vec());
    let (leaves, in_def) = flatten(interp, &primals)?;
    let vals = leaf_values(&leaves)?;
    let out_def = RefCell::new(None);
    let (outs, pullback) = {
        let (f, in_def, out_def) = (&f, &in_def, &out_def);
        crate::transforms::vjp(
            |v: &[Value]| call_flat(interp, f, in_def, &[], v, out_def),
            &vals,
        )?
    };
    let out_def = out_def.into_inner().unwrap_or(TreeDef::None);
    let out = unflatten(interp, &out_def, &value_objs(&outs))?;
    let back = super::vjp_fun::make(interp, pullback, in_def)?;
    Ok(Obj::tuple(vec![out, back]))
}

pub(crate) fn jvp(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "fun", "jvp")?;
    let primals = a.req(Some(1), "primals", "jvp")?;
    let tangents = a.req(Some(2), "tangents", "jvp")?;
    if let Some(h) = a.opt(None, "has_aux") {
        if truthy(&h, "has_aux")? {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.jvp with has_aux=True"
            );
        }
    }
    let (pl, in_def) = flatten(interp, &primals)?;
    let (tl, _) = flatten(interp, &tangents)?;
    let (pv, tv) = (leaf_values(&pl)?, leaf_values(&tl)?);
    let out_def = RefCell::new(None);
    let (outs, touts) = {
        let (f, in_def, out_def) = (&f, &in_def, &out_def);
        crate::transforms::jvp(
            |v: &[Value]| call_flat(interp, f, in_def, &[], v, out_def),
            &pv,
            &tv,
        )?
    };
    let out_def = out_def.into_inner().unwrap_or(TreeDef::None);
    Ok(Obj::tuple(vec![
        unflatten(interp, &out_def, &value_objs(&outs))?,
        unflatten(interp, &out_def, &value_objs(&touts))?,
    ]))
}

/// A map's axis: its name, and for a pmap given `devices=`, how many.
struct MapAxis {
    name: Option<String>,
    devices: Option<usize>,
}

/// JAX's errors for a pmap over more positions than its `devices=` (it
/// splits the mapped axis over them first): a size they do not divide, or
/// more than one position per device.
fn check_pmap_devices(n: usize, vals: &[Value], axes: &[Option<usize>]) -> Result<()> {
    let mapped = vals
        .iter()
        .zip(axes)
        .find_map(|(v, a)| a.map(|a| (v.shape(), a)));
    let Some((shape, axis)) = mapped else {
        return Ok(());
    };
    let size = shape.get(axis).copied().unwrap_or(0);
    if size <= n || n == 0 {
        return Ok(());
    }
    if size % n != 0 {
        let mesh = format!("Mesh('_internal_pmap_axis_name': {n}, axis_types=(Auto,))");
        let tiles: Vec<String> = (0..shape.len())
            .map(|d| if d == axis { n.to_string() } else { "1".into() })
            .collect();
        bail!(
            ValueError,
            "Sharding NamedSharding(mesh={mesh}, spec=P('_internal_pmap_axis_name',), memory_kind=device) implies that array axis {axis} is partitioned {n} times, but the dimension size is {size} (full shape: {}, per-dimension tiling factors: [{}] should evenly divide the shape)",
            crate::array::fmt_shape(&shape),
            tiles.join(", ")
        );
    }
    let mut shard = shape.clone();
    shard[axis] = size / n;
    bail!(
        ValueError,
        "cannot select an axis to squeeze out which has size not equal to one, got shape={} and dimensions=({axis},)",
        crate::array::fmt_shape(&shard)
    )
}

fn map_call(
    interp: &mut Interp,
    kind: MapKind,
    f: &Obj,
    axis: &MapAxis,
    in_axes: &Obj,
    out_axes: &Obj,
    call: Args,
) -> Result<Obj> {
    let what = if kind == MapKind::Pmap {
        "pmap"
    } else {
        "vmap"
    };
    let args = Obj::tuple(call.pos.clone());
    let (leaves, in_def) = flatten(interp, &args)?;
    let refs = super::vmap_refs::MapRefs::of(&leaves);
    if refs.any() && kind == MapKind::Pmap {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: pmap of a function of array refs"
        );
    }
    let (vals, in_keys) = keyed_values(&refs.plain_leaves()?)?;
    let axes = leaf_axes(what, in_axes, &in_def, &vals, &in_keys)?;
    if let Some(n) = axis.devices {
        check_pmap_devices(n, &vals, &axes)?;
    }
    let out_ax = match out_axes {
        Obj::Int(_) | Obj::Bool(_) => vec![to_int(out_axes)?],
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: {what} out_axes={}",
            str_of(other)
        ),
    };
    refs.check_axes(&axes, &out_ax)?;
    let out_def = RefCell::new(None);
    let out_keys = RefCell::new(vec![]);
    let outs = {
        let (f, in_def, out_def, kw) = (f, &in_def, &out_def, &call.kw);
        let (in_keys, out_keys, refs, leaf_axes) = (&in_keys, &out_keys, &refs, &axes);
        let ip = &mut *interp;
        let body: jops::BodyFn = Box::new(move |v: &[Value]| {
            if kind == MapKind::Vmap {
                use crate::trace::refs::{set_policy, Direct, RefPolicy};
                set_policy(RefPolicy::Direct(Direct::Vmap));
            }
            if refs.any() || kind == MapKind::Vmap {
                refs.call_body(ip, f, in_def, kw, v, in_keys, leaf_axes, out_def, out_keys)
            } else {
                call_flat_keyed(ip, f, in_def, kw, v, in_keys, out_def, out_keys)
            }
        });
        let given = out_ax.clone();
        let out_ax: Vec<usize> = out_ax.iter().map(|&a| a.max(0) as usize).collect();
        let outs = jops::map_traced(kind, body, axis.name.as_deref(), &axes, &out_ax, &vals)?;
        // A negative out_axes is placed first, which is right only when it
        // names an output's first axis.
        for (&a, v) in given.iter().cycle().zip(&outs.1) {
            if a < 0 && v.ndim() as i64 + a != 0 {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: {what} out_axes={a} of a {}-d result",
                    v.ndim()
                );
            }
        }
        outs
    };
    let mut outs = super::callbacks::bind_lending(interp, outs.0, &outs.1)?;
    refs.write_back(&mut outs, &axes)?;
    let out_def = out_def.into_inner().unwrap_or(TreeDef::None);
    unflatten(
        interp,
        &out_def,
        &keyed_objs(&outs, &out_keys.into_inner())?,
    )
}

/// Each argument leaf's mapped axis (None: not mapped), from `in_axes` as a
/// prefix of the arguments' tree, checked against the leaf's rank.
fn leaf_axes(
    what: &str,
    in_axes: &Obj,
    in_def: &TreeDef,
    vals: &[Value],
    in_keys: &[bool],
) -> Result<Vec<Option<usize>>> {
    let in_axes = match in_axes {
        Obj::List(l) => Obj::tuple(l.borrow().clone()),
        o => o.clone(),
    };
    let per_leaf = broadcast_prefix(
        &in_axes,
        in_def,
        &|o| matches!(o, Obj::Int(_) | Obj::None),
        &format!("{what} in_axes"),
    )?;
    let mut axes = vec![];
    for ((o, v), &key) in per_leaf.iter().zip(vals).zip(in_keys) {
        axes.push(match o {
            Obj::None => None,
            o => {
                let ax = to_int(o)?;
                // A typed key's axes are those of its key data but the last.
                let nd = v.ndim() as i64 - i64::from(key);
                if ax < -nd || ax >= nd.max(1) {
                    bail!(
                        ValueError,
                        "{what} was requested to map its argument along axis {ax}, which implies that its rank should be at least {}, but is only {nd} (its shape is {:?})",
                        if ax < 0 { -ax } else { ax + 1 },
                        v.shape()
                    );
                }
                Some(if ax < 0 { (ax + nd) as usize } else { ax as usize })
            }
        });
    }
    Ok(axes)
}

fn axis_name_arg(a: &Args, index: Option<usize>) -> Result<Option<String>> {
    match a.opt(index, "axis_name") {
        None => Ok(None),
        Some(Obj::Str(s)) => Ok(Some(s.to_string())),
        Some(o) => bail!(
            TypeError,
            "axis_name must be a string, got {}",
            o.type_name()
        ),
    }
}

fn vmap(_: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "fun", "vmap")?;
    let in_axes = a.get(Some(1), "in_axes").unwrap_or(Obj::Int(0));
    let out_axes = a.get(Some(2), "out_axes").unwrap_or(Obj::Int(0));
    let axis = MapAxis {
        name: axis_name_arg(&a, Some(3))?,
        devices: None,
    };
    Ok(Obj::native(
        format!("vmap({})", func_name(&f)),
        move |i, call| {
            let out = map_call(i, MapKind::Vmap, &f, &axis, &in_axes, &out_axes, call);
            super::debug_print::show_eager_prints(i)?;
            out
        },
    ))
}

fn pmap(_: &mut Interp, a: Args) -> Result<Obj> {
    let Some(f) = a.get(Some(0), "fun") else {
        return Ok(super::real_api::decorator("jax.pmap", &a, pmap));
    };
    let axis_name = axis_name_arg(&a, Some(1))?;
    let in_axes = a.get(None, "in_axes").unwrap_or(Obj::Int(0));
    let out_axes = a.get(None, "out_axes").unwrap_or(Obj::Int(0));
    // Which simulated devices run the map changes no value (the map's
    // ranks are its axis indices whichever devices hold them); how many
    // there are bounds the mapped size.
    let devices = match a.get(None, "devices") {
        None | Some(Obj::None) => None,
        Some(d) => Some(crate::python::builtins::len_of(&d)?.max(0) as usize),
    };
    let axis = MapAxis {
        name: axis_name,
        devices,
    };
    Ok(Obj::native(
        format!("pmap({})", func_name(&f)),
        move |i, call| {
            let out = map_call(i, MapKind::Pmap, &f, &axis, &in_axes, &out_axes, call);
            super::debug_print::show_eager_prints(i)?;
            out
        },
    ))
}

fn spec_or_none(o: &Obj) -> bool {
    matches!(o, Obj::None) || o.downcast::<PartitionSpec>().is_some()
}

fn to_spec(o: &Obj) -> PartitionSpec {
    match o {
        o if o.downcast::<PartitionSpec>().is_some() => {
            o.downcast::<PartitionSpec>().cloned().unwrap_or_default()
        }
        _ => PartitionSpec::replicated(),
    }
}

/// How a `shard_map` runs: whether it tracks VMA, and whether its mesh is
/// the context mesh (its equation then names the abstract mesh, as JAX's
/// does) rather than one passed as `mesh=`.
struct MapOpts {
    check_vma: bool,
    abstract_mesh: bool,
    /// The mesh of a map manual over some of its axes (see
    /// `ShardMapParams::whole_mesh`).
    whole_mesh: Option<crate::mesh::Mesh>,
}

fn shard_map_call(
    interp: &mut Interp,
    f: &Obj,
    mesh: &crate::mesh::Mesh,
    in_specs: &Obj,
    out_specs: &Obj,
    opts: &MapOpts,
    call: Args,
) -> Result<Obj> {
    let check_vma = opts.check_vma;
    let args = Obj::tuple(call.pos.clone());
    let (leaves, in_def) = flatten(interp, &args)?;
    let vals = leaf_values(&leaves)?;
    let specs = shard_map_in_specs(mesh, in_specs, &in_def, &vals)?;
    // The out_specs tree is a prefix of the output tree, which is known only
    // after tracing: a first trace with no out_specs finds the structure.
    let out_def = RefCell::new(None);
    let printed = interp.out.len();
    let first = {
        let (out_def, in_def, kw) = (&out_def, &in_def, &call.kw);
        let body: jops::BodyFn =
            Box::new(|v: &[Value]| call_flat(interp, f, in_def, kw, v, out_def));
        jops::shard_map(body, mesh, &specs, &[], check_vma, &vals)
    };
    let Some(def) = out_def.borrow_mut().take() else {
        super::debug_print::show_eager_prints(interp)?;
        return first.map(|_| Obj::None);
    };
    // The structure-finding run's prints are not the call's.
    crate::exec::take_eager_prints();
    if let Err(e) = first {
        if !e.message.starts_with("shard_map out_specs has 0 entries") {
            return Err(e);
        }
    }
    interp.out.truncate(printed);
    let out_specs = match out_specs {
        Obj::List(l) => Obj::tuple(l.borrow().clone()),
        o => o.clone(),
    };
    let keyed = broadcast_prefix_keyed(&out_specs, &def, &spec_or_none, "shard_map out_specs")?;
    let outs_spec: Vec<PartitionSpec> = keyed.iter().map(|(_, s)| to_spec(s)).collect();
    let names = jops::MapNames {
        fun_name: func_name(f),
        out_keys: keyed.into_iter().map(|(k, _)| k).collect(),
        first_only: false,
        abstract_mesh: opts.abstract_mesh,
        whole_mesh: opts.whole_mesh.clone(),
    };
    let outs = {
        let (out_def, in_def, kw) = (&out_def, &in_def, &call.kw);
        let body: jops::BodyFn =
            Box::new(|v: &[Value]| call_flat(interp, f, in_def, kw, v, out_def));
        jops::shard_map_named(body, &names, mesh, &specs, &outs_spec, check_vma, &vals)
    };
    super::debug_print::show_eager_prints(interp)?;
    unflatten(interp, &def, &value_objs(&outs?))
}

/// The in_specs of one call, one per argument leaf: the given tree
/// broadcast over the arguments, or (when absent) the arguments' own specs,
/// which JAX infers only over explicit mesh axes. Over explicit axes a given
/// spec must be the argument's.
fn shard_map_in_specs(
    mesh: &crate::mesh::Mesh,
    in_specs: &Obj,
    in_def: &crate::python::pytree::TreeDef,
    vals: &[Value],
) -> Result<Vec<PartitionSpec>> {
    let explicit = mesh
        .axis_types()
        .iter()
        .all(|t| *t == crate::mesh::AxisType::Explicit);
    if matches!(in_specs, Obj::Ellipsis) {
        return inferred_in_specs(mesh, explicit, vals);
    }
    let in_specs = match in_specs {
        Obj::List(l) => Obj::tuple(l.borrow().clone()),
        o => o.clone(),
    };
    let specs: Vec<PartitionSpec> =
        broadcast_prefix(&in_specs, in_def, &spec_or_none, "shard_map in_specs")?
            .iter()
            .map(to_spec)
            .collect();
    if explicit {
        check_explicit_in_specs(mesh, &specs, vals)?;
    }
    Ok(specs)
}

/// The spec an argument is placed by on `mesh`, as long as its rank (an
/// array placed nowhere is replicated); None when it is placed otherwise.
fn own_in_spec(mesh: &crate::mesh::Mesh, v: &Value) -> Option<PartitionSpec> {
    let named = |p: Option<&crate::sharding::Placement>, ndim: usize| match p {
        Some(crate::sharding::Placement::Named(s)) if s.mesh == *mesh => {
            let mut e = s.spec.entries().to_vec();
            e.resize(ndim, None);
            Some(PartitionSpec::new(e))
        }
        _ => None,
    };
    match v {
        Value::Concrete(a) => match a.placement() {
            None => Some(PartitionSpec::new(vec![None; a.ndim()])),
            p => named(p, a.ndim()),
        },
        // Inside jit, an argument's sharding is its type's.
        Value::Traced(t) => {
            let p = crate::trace::tracer_placement(t).ok().flatten();
            named(p.as_deref(), t.aval.shape.len())
        }
    }
}

/// `in_specs` left out: each argument's own spec, which only an all
/// Explicit mesh lets shard_map read.
fn inferred_in_specs(
    mesh: &crate::mesh::Mesh,
    explicit: bool,
    vals: &[Value],
) -> Result<Vec<PartitionSpec>> {
    if !explicit {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: shard_map without in_specs on a mesh whose axes are not all Explicit"
        );
    }
    vals.iter()
        .map(|v| {
            own_in_spec(mesh, v).ok_or_else(|| {
                err!(
                    NotImplementedError,
                    "not supported by shardlab yet: inferring shard_map in_specs from a traced or differently placed argument"
                )
            })
        })
        .collect()
}

/// On an all Explicit mesh the given specs must be the arguments' own:
/// JAX's ValueError for the first that is not.
fn check_explicit_in_specs(
    mesh: &crate::mesh::Mesh,
    specs: &[PartitionSpec],
    vals: &[Value],
) -> Result<()> {
    for (spec, v) in specs.iter().zip(vals) {
        // Inside jit an argument placed nowhere is replicated, as its
        // type says in JAX.
        let have = match v {
            Value::Traced(t) if crate::trace::placement_known(t) => own_in_spec(mesh, v)
                .or_else(|| Some(PartitionSpec::new(vec![None; t.aval.shape.len()]))),
            _ => own_in_spec(mesh, v),
        };
        let Some(have) = have else {
            continue;
        };
        let aval = v.aval();
        let mut want = spec.entries().to_vec();
        want.resize(aval.shape.len(), None);
        let want = PartitionSpec::new(want);
        if want != have {
            let p = crate::sharding::Placement::Named(crate::sharding::NamedSharding::new(
                mesh.clone(),
                have.clone(),
            ));
            bail!(
                ValueError,
                "in_specs passed to shard_map: {want} does not match the specs of the input: {have} for arg: {}. `in_specs` is an optional argument so you can omit specifying it and shard_map will infer the in_specs from the arguments. If you want to reshard your inputs, you can use `jax.reshard` on the arguments and then pass those args to shard_map.",
                super::sharding::placed::aval_text(&aval.shape, aval.dtype, Some(&p))
            );
        }
    }
    Ok(())
}

/// The mesh a shard_map runs on: the one given, which must match the
/// context mesh if one is set, or else the context mesh.
fn shard_map_mesh(interp: &mut Interp, given: Option<Obj>) -> Result<Rc<crate::mesh::Mesh>> {
    let context = super::sharding::context::context_mesh(interp);
    match (given, context) {
        (Some(m), ctx) if !matches!(m, Obj::None) => {
            let mesh = super::sharding::mesh_arg(&m, "shard_map")?;
            if let Some(ctx) = ctx {
                if *ctx != *mesh {
                    bail!(
                        ValueError,
                        "The context mesh {} should match the mesh passed to shard_map {}",
                        ctx.abstract_text(),
                        mesh.text()
                    );
                }
            }
            Ok(mesh)
        }
        (_, Some(ctx)) => Ok(ctx),
        (_, None) => bail!(
            ValueError,
            "The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to enter into a mesh context"
        ),
    }
}

/// `jax.shard_map` / `jax.experimental.shard_map.shard_map`.
pub fn shard_map(interp: &mut Interp, a: Args) -> Result<Obj> {
    let Some(f) = a.get(Some(0), "f") else {
        return Ok(super::real_api::decorator("jax.shard_map", &a, shard_map));
    };
    // Without a mesh argument the map uses the context mesh of each call,
    // as JAX resolves it when the function is called, not decorated.
    let given = a.get(Some(1), "mesh");
    if given.as_ref().is_some_and(|m| !matches!(m, Obj::None)) {
        shard_map_mesh(interp, given.clone())?;
    }
    // Absent in_specs are inferred from the arguments' shardings (`Infer`).
    let in_specs = a.get(Some(2), "in_specs").unwrap_or(Obj::Ellipsis);
    if matches!(in_specs, Obj::None) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: shard_map with in_specs=None (static inputs)"
        );
    }
    let out_specs = a.req(Some(3), "out_specs", "shard_map")?;
    let axis_names = match a.get(None, "axis_names") {
        Some(names) => super::partial_manual::axis_names_arg(&names)?,
        None => Default::default(),
    };
    let check = match a
        .get(None, "check_vma")
        .or_else(|| a.get(None, "check_rep"))
    {
        Some(o) => truthy(&o, "check_vma")?,
        None => true,
    };
    Ok(Obj::native(
        format!("shard_map({})", func_name(&f)),
        move |i, call| {
            let mesh = shard_map_mesh(i, given.clone())?;
            let all = mesh.axis_names().iter().all(|n| axis_names.contains(n));
            let opts = MapOpts {
                check_vma: check,
                abstract_mesh: given.as_ref().is_none_or(|m| matches!(m, Obj::None)),
                whole_mesh: None,
            };
            if axis_names.is_empty() || all {
                return shard_map_call(i, &f, &mesh, &in_specs, &out_specs, &opts, call);
            }
            let specs = (&in_specs, &out_specs);
            let opts = MapOpts {
                whole_mesh: Some((*mesh).clone()),
                ..opts
            };
            super::partial_manual::call(
                i,
                &mesh,
                &axis_names,
                specs,
                check,
                call,
                |i, sub, call| shard_map_call(i, &f, sub, &in_specs, &out_specs, &opts, call),
            )
        },
    ))
}

fn make_jaxpr(_: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "fun", "make_jaxpr")?;
    Ok(Obj::native("make_jaxpr", move |i, call| {
        let args = Obj::tuple(call.pos.clone());
        let (leaves, in_def) = flatten(i, &args)?;
        // JAX's jaxpr gives keys a key type (`key<fry>[]`) and draws with
        // its `random_*` primitives, which shardlab's programs do not have.
        if leaves
            .iter()
            .any(|l| super::random::typed_key_data(l).is_some())
        {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.make_jaxpr of a function of typed PRNG keys"
            );
        }
        // The program would show refs discharged, not JAX's state
        // equations (`get`, `swap`) on `Ref{...}` types.
        let uses = crate::trace::refs::uses();
        let refuse_refs = || {
            err!(
                NotImplementedError,
                "not supported by shardlab yet: jax.make_jaxpr of a function that uses array refs"
            )
        };
        if leaves.iter().any(|l| super::refs::slot_of(l).is_some()) {
            return Err(refuse_refs());
        }
        let vals = leaf_values(&leaves)?;
        let avals: Vec<Aval> = vals.iter().map(|v| v.aval()).collect();
        let out_def = RefCell::new(None);
        let traced = {
            let (f, in_def, out_def, kw) = (&f, &in_def, &out_def, &call.kw);
            crate::trace::trace(&avals, FrameAxes::default(), |v: &[Value]| {
                // make_jaxpr traces as jit does, and says so in its errors.
                crate::trace::set_debug_info(super::debug_info::of(f, in_def, "jit"));
                call_flat(i, f, in_def, kw, v, out_def)
            })
        };
        if crate::trace::refs::uses() != uses {
            return Err(refuse_refs());
        }
        let traced = traced?;
        let text = typed_jaxpr_text(&traced.jaxpr, &vals);
        Ok(super::jaxpr_api::closed_jaxpr(&traced.jaxpr, text))
    }))
}

/// A traced program as `make_jaxpr` prints it: with the sharded types
/// (`f32[6@i]`) its values have over explicit mesh axes, from where its
/// arguments live. A program whose placements shardlab cannot follow
/// prints its plain types.
fn typed_jaxpr_text(jaxpr: &crate::ir::Jaxpr, args: &[Value]) -> String {
    let placements: Vec<Option<std::sync::Arc<crate::sharding::Placement>>> = args
        .iter()
        .map(|v| match v {
            Value::Concrete(a) => a.placement_rc(),
            Value::Traced(_) => None,
        })
        .collect();
    let explicit = placements.iter().flatten().any(|p| match &**p {
        crate::sharding::Placement::Named(s) => s
            .mesh
            .axis_types()
            .contains(&crate::mesh::AxisType::Explicit),
        _ => false,
    });
    if !explicit && !puts_explicit(jaxpr) {
        return jaxpr.to_string();
    }
    super::jit_aot::typed_text(jaxpr, &placements).unwrap_or_else(|_| jaxpr.to_string())
}

/// Whether `jaxpr` puts a value on a mesh with explicit axes, so that its
/// types carry shardings though its arguments have none.
fn puts_explicit(jaxpr: &crate::ir::Jaxpr) -> bool {
    jaxpr.eqns.iter().any(|e| match &e.prim {
        crate::primitives::Prim::DevicePut(d) => d.targets.iter().any(|t| {
            matches!(t, crate::primitives::PutTarget::Named(s)
                if s.mesh.axis_types().contains(&crate::mesh::AxisType::Explicit))
        }),
        p => p.sub_jaxprs().into_iter().any(puts_explicit),
    })
}

/// `jax.eval_shape(f, *args)`: traces `f` without running it and returns
/// the shapes and dtypes of its outputs.
pub(crate) fn eval_shape(i: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "fun", "eval_shape")?;
    let args = Obj::tuple(a.pos.get(1..).unwrap_or_default().to_vec());
    let (leaves, in_def) = flatten(i, &args)?;
    let avals: Vec<Aval> = leaves
        .iter()
        .map(super::shape_dtype::aval_of)
        .collect::<Result<_>>()?;
    let placements: Vec<Option<Arc<crate::sharding::Placement>>> = leaves
        .iter()
        .map(super::shape_dtype::placement_of)
        .collect::<Result<_>>()?;
    let out_def = RefCell::new(None);
    let traced = {
        let (f, in_def, out_def, kw) = (&f, &in_def, &out_def, &a.kw);
        let body = |v: &[Value]| call_flat(i, f, in_def, kw, v, out_def);
        if placements.iter().all(Option::is_none) {
            crate::trace::trace(&avals, FrameAxes::default(), body)?
        } else {
            crate::trace::trace_placed(&avals, placements.clone(), body)?
        }
    };
    let outs = eval_shape_outs(i, &traced, placements)?;
    let def = out_def
        .into_inner()
        .ok_or_else(|| err!(RuntimeError, "eval_shape: the function was not traced"))?;
    unflatten(i, &def, &outs)
}

/// The structs `eval_shape` returns for the outputs of `traced`, whose
/// inputs live at `placements`: with the shardings the sharding rules give
/// them where JAX's types carry one (see [`ShapeDtypeStruct::placed`]).
///
/// [`ShapeDtypeStruct::placed`]: super::shape_dtype::ShapeDtypeStruct::placed
fn eval_shape_outs(
    i: &mut Interp,
    traced: &crate::trace::Traced,
    mut placements: Vec<Option<Arc<crate::sharding::Placement>>>,
) -> Result<Vec<Obj>> {
    let context = super::sharding::context::context_mesh(i);
    placements.extend(super::scan_sharding::placements(&traced.captured)?);
    let placed = if placements.iter().all(Option::is_none) && context.is_none() {
        vec![None; traced.jaxpr.outvars.len()]
    } else {
        crate::primitives::placement::propagate_jaxpr(&traced.jaxpr, &placements)?
    };
    traced
        .jaxpr
        .outvars
        .iter()
        .zip(placed)
        .map(|(o, p)| {
            if let Some(crate::sharding::Placement::Unknown(what)) = p.as_deref() {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: the sharding of the result of {what} in eval_shape"
                );
            }
            let av = traced.jaxpr.atom_aval(o);
            let s = super::shape_dtype::ShapeDtypeStruct::placed(&av, p, context.as_deref());
            Ok(Obj::lib(s))
        })
        .collect()
}

/// The number of devices: `N` when the program has set
/// `os.environ["XLA_FLAGS"]` to `--xla_force_host_platform_device_count=N`
/// (the run's configuration then changes to `N`, so maps see it too), else
/// the configured count. Unlike JAX, which reads the flag once when its
/// backend starts, every query reads it again.
pub fn device_count(interp: &Interp) -> usize {
    let configured = crate::exec::config().devices;
    match super::std::os::forced_device_count(interp) {
        Some(n) if n != configured => {
            crate::exec::run::set_devices(n);
            n
        }
        _ => configured,
    }
}

/// The device count when the program asks for it: from then on JAX's
/// backends are initialized (see `jax._src.xla_bridge`).
fn asked_device_count(interp: &mut Interp) -> usize {
    interp.state::<super::config::Backends>().initialized = true;
    device_count(interp)
}

fn devices(interp: &mut Interp, _: Args) -> Result<Obj> {
    let n = asked_device_count(interp);
    Ok(Obj::list((0..n).map(|i| Obj::lib(Device(i))).collect()))
}

/// `jax.debug`.
pub fn debug_module() -> Obj {
    let mut b = Builder::new("jax.debug");
    b.func(
        "inspect_array_sharding",
        super::sharding::inspect::inspect_array_sharding,
    );
    b.func("visualize_array_sharding", |i, a| {
        let x = a.req(Some(0), "arr", "visualize_array_sharding")?;
        // Anything that converts to an array (a Flax variable too) is drawn.
        let arr = match crate::python::array::to_value(&x) {
            Ok(v) => v.concrete("visualize_array_sharding")?.clone(),
            Err(_) => bail!(
                TypeError,
                "visualize_array_sharding expects an array, got {}",
                x.type_name()
            ),
        };
        let p = super::sharding::placed::placement(i, &arr)?;
        let text = super::sharding::visualize::render(arr.shape(), &p)?;
        i.out.push_str(&text);
        Ok(Obj::None)
    });
    b.func("visualize_sharding", |i, a| {
        let shape: Vec<usize> = iterate(&a.req(Some(0), "shape", "visualize_sharding")?)?
            .iter()
            .map(|d| to_int(d).map(|d| d as usize))
            .collect::<Result<_>>()?;
        let s = a.req(Some(1), "sharding", "visualize_sharding")?;
        let p = if let Some(ns) = s.downcast::<NamedSharding>() {
            ns.placement()
        } else if let Some(sd) = s.downcast::<super::sharding::placed::SingleDeviceSharding>() {
            crate::sharding::Placement::Device(sd.0)
        } else {
            bail!(
                TypeError,
                "visualize_sharding expects a sharding, got {}",
                s.type_name()
            )
        };
        let text = super::sharding::visualize::render(&shape, &p)?;
        i.out.push_str(&text);
        Ok(Obj::None)
    });
    b.func("print", super::debug_print::print);
    b.func("breakpoint", super::debug_print::breakpoint);
    b.func("callback", super::callbacks::debug_callback);
    b.build()
}

/// The `jax` module.
pub fn module(interp: &mut Interp) -> Result<Obj> {
    device_count(interp);
    let mut b = Builder::new("jax");
    register_devices(&mut b);
    super::jit::register(&mut b);
    super::jax_utilities::register(&mut b);
    b.func("grad", grad);
    b.func("value_and_grad", value_and_grad);
    b.func("vjp", vjp);
    b.func("jvp", jvp);
    super::jacobian::register(&mut b);
    super::remat::register(&mut b);
    b.func("custom_jvp", super::custom::custom_jvp);
    b.func("custom_vjp", super::custom::custom_vjp);
    b.func("vmap", vmap);
    b.func("pmap", pmap);
    b.func("shard_map", shard_map);
    b.func("make_jaxpr", make_jaxpr);
    b.func("eval_shape", eval_shape);
    b.func("pure_callback", super::callbacks::pure_callback);
    b.attr("ShapeDtypeStruct", super::shape_dtype::class());
    register_sharding(&mut b);
    b.func("block_until_ready", |_, a| {
        a.req(Some(0), "x", "block_until_ready")
    });
    b.attr("Array", Obj::Type("Array"));
    super::refs::register(&mut b);
    b.attr("config", super::config::config());
    let m = b.build();
    // Register before importing submodules so `import jax.numpy` inside finds it.
    interp.modules.insert("jax".into(), m.clone());
    import_submodules(interp, &m)?;
    Ok(m)
}

/// How many devices and processes there are, and of which backend.
fn register_devices(b: &mut Builder) {
    b.func("devices", devices);
    b.func("local_devices", devices);
    b.func("device_count", |i, _| {
        Ok(Obj::Int(asked_device_count(i) as i64))
    });
    b.func("local_device_count", |i, _| {
        Ok(Obj::Int(asked_device_count(i) as i64))
    });
    b.func("process_index", |_, _| Ok(Obj::Int(0)));
    b.func("process_count", |_, _| Ok(Obj::Int(1)));
    b.func("default_backend", |_, _| Ok(Obj::str("cpu")));
}

/// Meshes, placing arrays on them and making arrays from shards.
fn register_sharding(b: &mut Builder) {
    b.func("make_mesh", super::sharding::make_mesh);
    b.func("device_put", super::sharding::placed::device_put);
    b.func("typeof", super::sharding::placed::type_of);
    {
        use super::sharding::make_array as m;
        b.func("make_array_from_callback", m::make_array_from_callback);
        b.func(
            "make_array_from_single_device_arrays",
            m::make_array_from_single_device_arrays,
        );
        b.func(
            "make_array_from_process_local_data",
            m::make_array_from_process_local_data,
        );
    }
    b.func("set_mesh", super::sharding::context::set_mesh);
    b.func("reshard", super::sharding::constraint::reshard);
}

/// Imports `jax`'s submodules into `m` (`jax.numpy`, `jax.lax`, ...).
fn import_submodules(interp: &mut Interp, m: &Obj) -> Result<()> {
    for sub in [
        "numpy",
        "lax",
        "sharding",
        "tree_util",
        "tree",
        "debug",
        "errors",
        "experimental",
        "ref",
    ] {
        let s = super::import(interp, &format!("jax.{sub}"))?;
        if let Obj::Module(mm) = m {
            mm.attrs.borrow_mut().push((sub.to_string(), s.clone()));
            // `jax.P` and `jax.NamedSharding` are `jax.sharding`'s own.
            if let (Obj::Module(sm), "sharding") = (&s, sub) {
                for name in ["P", "NamedSharding"] {
                    let found = sm.attrs.borrow().iter().find(|(n, _)| n == name).cloned();
                    if let Some(pair) = found {
                        mm.attrs.borrow_mut().push(pair);
                    }
                }
            }
        }
    }
    Ok(())
}

/// An object that prints as a fixed text: a `ClosedJaxpr` from
/// `make_jaxpr`, a `PyTreeDef` from `tree_structure`.
pub struct Printed {
    type_name: &'static str,
    text: String,
}

impl Printed {
    /// An object of type `type_name` printing as `text`.
    pub fn new(type_name: &'static str, text: String) -> Printed {
        Printed { type_name, text }
    }
}

impl Object for Printed {
    fn type_name(&self) -> String {
        self.type_name.into()
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        // `make_jaxpr(f)(x).jaxpr` prints the same program.
        Ok((name == "jaxpr" && self.type_name == "ClosedJaxpr").then(|| this.clone()))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(self.text.clone())
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(
            other
                .downcast::<Printed>()
                .is_some_and(|o| o.type_name == self.type_name && o.text == self.text),
        )
    }
}
