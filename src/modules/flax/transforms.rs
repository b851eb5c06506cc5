//! `nnx.vmap` on top of `jax.vmap`.
//!
//! Module arguments go in as their `State` (a pytree, batched along the
//! axis `in_axes` gives the module) and are rebuilt from their `GraphDef`
//! inside the mapped function; the states the function leaves them in come
//! out along the same axis and are written back into the caller's modules,
//! structure included (so a vmapped `__init__` builds a stacked module). A
//! module returned by the function comes back stacked along `out_axes`.
//! A `State` argument is handled as a module is, so the function's writes
//! to its variables reach the caller's variables.
//! As in Flax, a variable reached through several arguments must be mapped
//! along one axis ("Inconsistent aliasing detected"). A module argument's
//! axis may be a tree of axes (as `nnx.prefix` makes), one per variable;
//! it becomes a prefix of the module's state.

use std::cell::RefCell;

use super::graph::{graphdef_of, merge_parts};
use super::nnx::collect_vars;
use super::*;

/// Where the modules among the arguments are, and the modules themselves.
pub(super) struct ModuleArgs {
    pub index: Vec<usize>,
    pub originals: Vec<Rc<Instance>>,
}

fn all_state(nnx_state: &Rc<Class>, node: &Obj) -> Obj {
    super::graph::full_state(nnx_state, node)
}

/// The per-argument axes of `in_axes` for `n` arguments.
fn arg_axes(in_axes: &Obj, n: usize) -> Result<Vec<Obj>> {
    match in_axes {
        Obj::Tuple(_) | Obj::List(_) => {
            let v = iterate(in_axes)?;
            if v.len() != n {
                bail!(
                    ValueError,
                    "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)={}, len(args)={n}",
                    v.len()
                );
            }
            Ok(v)
        }
        other => Ok(vec![other.clone(); n]),
    }
}

fn check_axes(o: &Obj) -> Result<()> {
    if let Obj::Instance(i) = o {
        if i.class.name == "StateAxes" {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.vmap with nnx.StateAxes"
            );
        }
    }
    Ok(())
}

/// The graph nodes (modules, variables) among the leaves of `o`, in the
/// order JAX flattens it.
fn graph_leaves(o: &Obj, out: &mut Vec<Obj>) {
    match o {
        Obj::Instance(i) if is_nnx_module(i) || is_variable(i) => out.push(o.clone()),
        Obj::List(_) | Obj::Tuple(_) => {
            for x in iterate(o).unwrap_or_default() {
                graph_leaves(&x, out);
            }
        }
        Obj::Dict(d) => {
            let mut items = d.borrow().items.clone();
            items.sort_by(|a, b| key_order(&str_of(&a.0), &str_of(&b.0)));
            items.iter().for_each(|(_, v)| graph_leaves(v, out));
        }
        _ => {}
    }
}

/// A variable's occurrences: its path in its node and the axis it gets.
type PathPrefixes = Vec<(String, String)>;

/// Flax's check that a variable reached through several arguments is
/// mapped along one axis. Each graph node among the arguments adds its
/// variables' paths with its argument's axis; the check runs after each
/// node, so the error lists the occurrences up to the first conflict.
/// Axes given as trees of prefixes are not checked.
fn check_aliasing(args: &[Obj], axes: &[Obj]) -> Result<()> {
    let mut seen: Vec<(Rc<Instance>, PathPrefixes)> = vec![];
    for (a, ax) in args.iter().zip(axes) {
        if !matches!(ax, Obj::Int(_) | Obj::None) {
            continue;
        }
        let mut nodes = vec![];
        graph_leaves(a, &mut nodes);
        for n in nodes {
            let mut vars = vec![];
            collect_vars(&n, &mut vec![], &|_| true, &mut vars);
            for (path, v) in vars {
                let p = if path.is_empty() {
                    "<root>".to_string()
                } else {
                    path.join("/")
                };
                let entry = (p, str_of(ax));
                match seen.iter_mut().find(|(x, _)| Rc::ptr_eq(x, &v)) {
                    Some((_, l)) => l.push(entry),
                    None => seen.push((v, vec![entry])),
                }
            }
            let msgs: Vec<String> = seen
                .iter()
                .filter(|(_, l)| l.iter().any(|(_, x)| x != &l[0].1))
                .map(|(v, l)| {
                    let lines: Vec<String> = l.iter().map(|(p, x)| format!("  {p}: {x}")).collect();
                    format!("Node: {}\n{}", v.class.name, lines.join("\n"))
                })
                .collect();
            if !msgs.is_empty() {
                bail!(
                    ValueError,
                    "Inconsistent aliasing detected. The following nodes have different prefixes:\n{}",
                    msgs.join("\n")
                );
            }
        }
    }
    Ok(())
}

/// Flax's tree mode fails on a variable reached twice among the
/// arguments (with a message shardlab does not build), so `what` (the
/// transform and its mode) is refused by name there.
pub(super) fn check_no_aliases(args: &[Obj], what: &str) -> Result<()> {
    let mut nodes = vec![];
    for a in args {
        graph_leaves(a, &mut nodes);
    }
    let mut seen: Vec<Rc<Instance>> = vec![];
    for n in &nodes {
        let mut vars = vec![];
        collect_vars(n, &mut vec![], &|_| true, &mut vars);
        for (_, v) in vars {
            if seen.iter().any(|w| Rc::ptr_eq(w, &v)) {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: {what} over a Variable reached twice"
                );
            }
            seen.push(v);
        }
    }
    Ok(())
}

/// The options of one `nnx.vmap`.
#[derive(Clone)]
struct VmapOptions {
    in_axes: Obj,
    out_axes: Obj,
    axis_size: Option<usize>,
    /// `transform_metadata` when it names a partition.
    metadata: Option<Rc<super::spmd_axes::AxisMetadata>>,
}

/// One call of a vmapped function.
fn vmap_call(
    interp: &mut Interp,
    st: &Rc<Class>,
    f: &Obj,
    opts: &VmapOptions,
    call: Args,
) -> Result<Obj> {
    let axes = arg_axes(&opts.in_axes, call.pos.len())?;
    axes.iter().try_for_each(check_axes)?;
    check_aliasing(&call.pos, &axes)?;
    let (mods, mut args, defs) = split_modules(st, &call.pos);
    let mut axes = axes;
    for &k in &mods.index {
        let module = matches!(&call.pos[k], Obj::Instance(i) if is_nnx_module(i));
        if module && !is_axis(&axes[k]) {
            if opts.metadata.is_some() {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx.vmap with transform_metadata and a tree of in_axes for a module"
                );
            }
            axes[k] = super::prefix::state_prefix(st, &call.pos[k], &axes[k])?;
        }
    }
    let f = match &opts.metadata {
        Some(m) => {
            let mod_axes = mods.index.iter().map(|&k| (k, axes[k].clone())).collect();
            with_axis_metadata(f, mod_axes, opts.out_axes.clone(), m.clone())
        }
        None => f.clone(),
    };
    let seen = Rc::new(Graphdefs::default());
    let mut pure = vmap_pure(&f, st, call.kw.clone(), (&mods.index, &defs), &seen);
    if let Some(n) = opts.axis_size {
        // The mapped axis gets its size from an argument the function never
        // sees, so that it is mapped even when no argument is.
        let jnp = crate::modules::import(interp, "jax.numpy")?;
        let zeros = crate::python::ops::getattr(interp, &jnp, "zeros")?;
        args.push(interp.call(&zeros, Args::new(vec![Obj::Int(n as i64)]))?);
        axes.push(Obj::Int(0));
        let inner = pure;
        pure = Obj::native("nnx.vmap.sized", move |i, mut a| {
            a.pos.pop();
            i.call(&inner, a)
        });
    }
    let mod_axes: Vec<Obj> = mods.index.iter().map(|&k| axes[k].clone()).collect();
    let mut r = run_vmapped(interp, &pure, &args, &axes)?;
    r[0] = move_batch_axis(interp, &r[0], &opts.out_axes)?;
    let mut states = vec![];
    for (s, ax) in r[1..].iter().zip(&mod_axes) {
        states.push(move_batch_axis(interp, s, ax)?);
    }
    write_back(&mods, &seen, &r[0], &states)
}

/// `f` with the mapped axis taken out of its mapped modules' sharding
/// metadata on entry and put back on exit, and put into the metadata of a
/// module it returns (see `spmd_axes`).
fn with_axis_metadata(
    f: &Obj,
    mod_axes: Vec<(usize, Obj)>,
    out_axes: Obj,
    m: Rc<super::spmd_axes::AxisMetadata>,
) -> Obj {
    let f = f.clone();
    let axis = |o: &Obj| -> Result<Option<usize>> {
        match o {
            Obj::Int(k) => usize::try_from(*k).map(Some).map_err(|_| {
                err!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx.vmap with transform_metadata and a negative axis"
                )
            }),
            _ => Ok(None),
        }
    };
    Obj::native("nnx.vmap.metadata", move |i, a| {
        for (k, ax) in &mod_axes {
            if let (Some(node), Some(ax)) = (a.pos.get(*k), axis(ax)?) {
                super::spmd_axes::remove_axis(node, ax, &m)?;
            }
        }
        let out = i.call(&f, a.clone())?;
        for (k, ax) in &mod_axes {
            if let (Some(node), Some(ax)) = (a.pos.get(*k), axis(ax)?) {
                super::spmd_axes::add_axis(node, ax, &m)?;
            }
        }
        if let Some(ax) = axis(&out_axes)? {
            super::spmd_axes::add_axis(&out, ax, &m)?;
        }
        Ok(out)
    })
}

/// Writes the states the pure function left its modules in back into the
/// caller's modules, and rebuilds its result when it returned a module.
pub(super) fn write_back(
    mods: &ModuleArgs,
    seen: &Graphdefs,
    out: &Obj,
    states: &[Obj],
) -> Result<Obj> {
    let after_defs = seen.after.borrow().clone();
    for ((orig, def), state) in mods.originals.iter().zip(&after_defs).zip(states) {
        if let Obj::Instance(rebuilt) = merge_parts(def, std::slice::from_ref(state))? {
            super::graph::sync_into(orig, &rebuilt);
        }
    }
    let def = seen.out.borrow().clone();
    match def {
        Some(def) => merge_parts(&def, std::slice::from_ref(out)),
        None => Ok(out.clone()),
    }
}

/// The modules among a call's positional arguments: where they are, the
/// objects themselves, the arguments with each module replaced by its whole
/// state, and each module's graphdef.
pub(super) fn split_modules(st: &Rc<Class>, pos: &[Obj]) -> (ModuleArgs, Vec<Obj>, Vec<Obj>) {
    let mut mods = ModuleArgs {
        index: vec![],
        originals: vec![],
    };
    let mut args = pos.to_vec();
    let mut defs = vec![];
    for (k, a) in pos.iter().enumerate() {
        if let Obj::Instance(i) = a {
            // A State's variables are graph nodes too: what the function
            // writes into them comes back into the caller's variables.
            if is_nnx_module(i) || is_state(i) {
                mods.index.push(k);
                mods.originals.push(i.clone());
                defs.push(graphdef_of(a));
                args[k] = all_state(st, a);
            }
        }
    }
    (mods, args, defs)
}

/// The graphdefs a vmapped function's call leaves behind: of the modules
/// it was given, afterwards, and of the module it returned.
#[derive(Default)]
pub(super) struct Graphdefs {
    pub after: RefCell<Vec<Obj>>,
    pub out: RefCell<Option<Obj>>,
}

/// The pure function jax.vmap maps: it merges each module from its state,
/// calls `f`, and returns the result (a module as its state) followed by
/// every module's state afterwards, keeping their graphdefs in `seen`.
pub(super) fn vmap_pure(
    f: &Obj,
    st: &Rc<Class>,
    kw: Vec<(String, Obj)>,
    (index, defs): (&[usize], &[Obj]),
    seen: &Rc<Graphdefs>,
) -> Obj {
    let (f, st) = (f.clone(), st.clone());
    let (index, defs) = (index.to_vec(), defs.to_vec());
    let seen = seen.clone();
    Obj::native("nnx.vmap.pure", move |i, a| {
        let mut pos = a.pos.clone();
        let mut inner = vec![];
        for (k, &at) in index.iter().enumerate() {
            let m = merge_parts(&defs[k], &[pos[at].clone()])?;
            pos[at] = m.clone();
            inner.push(m);
        }
        let mut out = i.call(&f, Args::with(pos, kw.clone()))?;
        if matches!(&out, Obj::Instance(o) if is_nnx_module(o)) {
            *seen.out.borrow_mut() = Some(graphdef_of(&out));
            out = all_state(&st, &out);
        }
        let states: Vec<Obj> = inner.iter().map(|m| all_state(&st, m)).collect();
        *seen.after.borrow_mut() = inner.iter().map(graphdef_of).collect();
        let mut flat = vec![out];
        flat.extend(states);
        Ok(Obj::tuple(flat))
    })
}

/// Runs `pure` under jax.vmap with every output stacked along axis 0, or
/// per slice when the arguments hold host values or the traced run made
/// keys from mapped seeds.
fn run_vmapped(interp: &mut Interp, pure: &Obj, args: &[Obj], axes: &[Obj]) -> Result<Vec<Obj>> {
    let jax = crate::modules::import(interp, "jax")?;
    let vmap = crate::python::ops::getattr(interp, &jax, "vmap")?;
    let mapped = interp.call(
        &vmap,
        Args::with(
            vec![pure.clone()],
            vec![
                ("in_axes".into(), Obj::tuple(axes.to_vec())),
                ("out_axes".into(), Obj::Int(0)),
            ],
        ),
    )?;
    let mut host = false;
    for a in args {
        host = host || super::batch::has_host_leaves(a)?;
    }
    if host {
        return iterate(&host_vmap(interp, pure, args, axes)?);
    }
    let printed = interp.out.len();
    match interp.call(&mapped, Args::new(args.to_vec())) {
        Err(e) if needs_host(&e) => {
            // Keys made from mapped seeds cannot be traced: the function
            // runs per slice instead (what it printed while tracing is
            // dropped; printing per slice is refused).
            interp.out.truncate(printed);
            iterate(&host_vmap(interp, pure, args, axes)?)
        }
        r => iterate(&r?),
    }
}

/// Whether a traced `vmap` failed only because it made keys from traced
/// seeds, which running per slice avoids.
fn needs_host(e: &crate::error::Error) -> bool {
    matches!(e.kind, crate::error::ErrorKind::NotImplementedError)
        && e.message.contains("with a traced seed")
}

/// Whether `o` is one axis (an int or `None`) rather than a tree of them.
fn is_axis(o: &Obj) -> bool {
    matches!(o, Obj::Int(_) | Obj::None)
}

/// The leaves of `tree` with the axis each gets from `axes`, a single axis
/// or a tree prefix of `tree` with axes at its leaves.
fn leaf_axes(
    tree: &Obj,
    axes: &Obj,
) -> Result<(Vec<Obj>, crate::python::pytree::TreeDef, Vec<Obj>)> {
    let (leaves, def) = flatten_known(tree)?;
    let per_leaf = if is_axis(axes) {
        vec![axes.clone(); leaves.len()]
    } else {
        crate::python::pytree::broadcast_prefix(axes, &def, &is_axis, "vmap in_axes")?
    };
    Ok((leaves, def, per_leaf))
}

/// The mapped function run once per slice on the host, for arguments that
/// hold rng streams (whose keys shardlab cannot trace; see `batch`). A
/// function that prints would print once per slice rather than once while
/// tracing, so that is refused.
fn host_vmap(interp: &mut Interp, pure: &Obj, args: &[Obj], axes: &[Obj]) -> Result<Obj> {
    let mut moved = vec![];
    let mut n = None;
    for (a, ax) in args.iter().zip(axes) {
        let (leaves, def, per_leaf) = leaf_axes(a, ax)?;
        let mut front = vec![];
        for (leaf, axis) in leaves.into_iter().zip(&per_leaf) {
            front.push(match *axis {
                Obj::Int(k) => {
                    let m = move_to_front(interp, &leaf, k)?;
                    n = n.or(super::batch::leading_size(&m)?);
                    Some(m)
                }
                _ => None,
            });
        }
        moved.push((leaves_or(front, a)?, def));
    }
    let Some(n) = n else {
        bail!(
            ValueError,
            "vmap must have at least one non-None value in in_axes"
        );
    };
    let mut outs = vec![];
    for i in 0..n {
        let mut step = vec![];
        for (leaves, def) in &moved {
            let mut sliced = vec![];
            for (leaf, mapped) in leaves {
                sliced.push(match mapped {
                    true => super::batch::slice_tree(leaf, i)?,
                    false => leaf.clone(),
                });
            }
            step.push(unflatten_known(def, &sliced)?);
        }
        let printed = interp.out.len();
        outs.push(interp.call(pure, Args::new(step))?);
        if interp.out.len() != printed {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: printing inside nnx.vmap over rng streams"
            );
        }
    }
    super::batch::stack_trees(&outs)
}

/// Each leaf of `a`, moved (`Some`) or as it is, with whether it is mapped.
fn leaves_or(front: Vec<Option<Obj>>, a: &Obj) -> Result<Vec<(Obj, bool)>> {
    let (leaves, _) = flatten_known(a)?;
    Ok(front
        .into_iter()
        .zip(leaves)
        .map(|(m, l)| match m {
            Some(m) => (m, true),
            None => (l, false),
        })
        .collect())
}

fn move_to_front(interp: &mut Interp, leaf: &Obj, axis: i64) -> Result<Obj> {
    if axis == 0 {
        return Ok(leaf.clone());
    }
    let jnp = crate::modules::import(interp, "jax.numpy")?;
    let moveaxis = crate::python::ops::getattr(interp, &jnp, "moveaxis")?;
    interp.call(
        &moveaxis,
        Args::new(vec![leaf.clone(), Obj::Int(axis), Obj::Int(0)]),
    )
}

/// Every leaf of `tree` (stacked along axis 0) with that axis moved to the
/// leaf's axis in `axes` (one axis or a prefix tree of them), or its first
/// entry for `None`.
fn move_batch_axis(interp: &mut Interp, tree: &Obj, axes: &Obj) -> Result<Obj> {
    if matches!(axes, Obj::Int(0)) {
        return Ok(tree.clone());
    }
    let (leaves, def, per_leaf) = leaf_axes(tree, axes)?;
    let jnp = crate::modules::import(interp, "jax.numpy")?;
    let moveaxis = crate::python::ops::getattr(interp, &jnp, "moveaxis")?;
    let mut out = vec![];
    for (leaf, axis) in leaves.into_iter().zip(per_leaf) {
        out.push(match axis {
            Obj::Int(0) => leaf,
            Obj::Int(k) => {
                interp.call(&moveaxis, Args::new(vec![leaf, Obj::Int(0), Obj::Int(k)]))?
            }
            _ if super::batch::is_host_leaf(&leaf) => super::batch::slice_tree(&leaf, 0)?,
            _ => crate::python::ops::getitem(interp, &leaf, &Obj::Int(0))?,
        });
    }
    unflatten_known(&def, &out)
}

/// `nnx.vmap(f, in_axes=0, out_axes=0)`, also as a decorator with options.
pub(super) fn register(b: &mut Builder, state: &Rc<Class>) {
    let st = state.clone();
    b.func("vmap", move |interp, a| {
        for name in ["axis_name", "spmd_axis_name"] {
            if a.opt(None, name).is_some() {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx.vmap with {name}"
                );
            }
        }
        let metadata = match a.opt(None, "transform_metadata") {
            Some(m) => super::spmd_axes::axis_metadata(interp, &m)?.map(Rc::new),
            None => None,
        };
        let axis_size = match a.opt(None, "axis_size") {
            Some(n) => Some(
                usize::try_from(to_int(&n)?)
                    .map_err(|_| err!(ValueError, "axis_size must be a non-negative integer"))?,
            ),
            None => None,
        };
        let opts = VmapOptions {
            in_axes: a.get(None, "in_axes").unwrap_or(Obj::Int(0)),
            out_axes: a.get(None, "out_axes").unwrap_or(Obj::Int(0)),
            axis_size,
            metadata,
        };
        // Tree mode (graph=False or graph_updates=False) refuses a variable
        // reached twice, where graph mode maps it once.
        let mut tree = false;
        for name in ["graph", "graph_updates"] {
            if let Some(g) = a.opt(None, name) {
                tree = tree || !truthy(&g, name)?;
            }
        }
        let st = st.clone();
        let wrap = move |f: Obj| {
            let (st, opts) = (st.clone(), opts.clone());
            Obj::native("nnx.vmap", move |i, call| {
                if tree {
                    check_no_aliases(&call.pos, "nnx.vmap with graph=False")?;
                }
                vmap_call(i, &st, &f, &opts, call)
            })
        };
        Ok(match a.pos.first() {
            Some(f) => wrap(f.clone()),
            None => Obj::native("nnx.vmap", move |_, d| {
                Ok(wrap(d.req(Some(0), "f", "vmap")?))
            }),
        })
    });
    let axes_class = new_class(
        "StateAxes",
        vec![],
        vec![(
            "__init__".into(),
            Obj::native("StateAxes.__init__", |_, a| {
                let me = self_arg(&a, "StateAxes")?;
                set_iattr(&me, "_axes", a.req(Some(1), "filter_axes", "StateAxes")?);
                Ok(Obj::None)
            }),
        )],
    );
    b.attr("StateAxes", Obj::Class(axes_class));
}
