//! linen's `nn.vmap`: a module (or a function of modules) mapped with
//! `jax.vmap`, its variables lifted as Flax lifts them.
//!
//! - A collection of `variable_axes` with an integer axis is mapped along
//!   it: each instance reads its slice and `init` makes one set per instance,
//!   stacked on that axis. One with axis `None` is shared: made once and read
//!   by every instance (Flax requires it not to depend on mapped values).
//! - Streams in `split_rngs` are passed in: a split one gives instance `i`
//!   the `i`-th key of `split(key, axis_size)` of the stream's root key, an
//!   unsplit one the same key; the names folded in stay the modules' paths.
//!
//! The mapped function returns every variable it made or changed in the
//! lifted collections, mapped along axis 0; shared ones are then checked
//! equal across instances and kept once.

use super::linen::with_run;
use super::linen_lift::{dict_option, lift_target, module_paths, stream_roots, Body, Cols, Lift};
use super::linen_scan::{
    move_leaves, place_outputs, restore_counters, save_counters, set_subtree, subtree, Saved,
};
use super::recurrent::lib_attr;
use super::*;

/// The options of one `nn.vmap`.
struct Options {
    axes: Vec<(Cols, Option<i64>)>,
    split: Vec<(Cols, bool)>,
    in_axes: Obj,
    out_axes: Obj,
    axis_size: Option<i64>,
}

fn options(a: &Args) -> Result<Options> {
    if !matches!(a.opt(None, "spmd_axis_name"), None | Some(Obj::None)) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: flax.linen.vmap with spmd_axis_name"
        );
    }
    let mut axes = vec![];
    let given = a.opt(None, "variable_axes").unwrap_or(Obj::None);
    for (cols, ax) in dict_option(&given, "variable_axes")? {
        match ax {
            Obj::Int(n) => axes.push((cols, Some(n))),
            Obj::None => axes.push((cols, None)),
            _ => bail!(
                NotImplementedError,
                "not supported by shardlab yet: flax.linen.vmap with variable_axes other than integers and None"
            ),
        }
    }
    let mut split = vec![];
    let given = a.opt(None, "split_rngs").unwrap_or(Obj::None);
    for (cols, s) in dict_option(&given, "split_rngs")? {
        split.push((cols, truthy(&s, "split_rngs")?));
    }
    let axis_size = match a.opt(None, "axis_size") {
        None | Some(Obj::None) => None,
        Some(n) => Some(to_int(&n)?),
    };
    Ok(Options {
        axes,
        split,
        in_axes: a.opt(None, "in_axes").unwrap_or(Obj::Int(0)),
        out_axes: a.opt(None, "out_axes").unwrap_or(Obj::Int(0)),
        axis_size,
    })
}

/// `nn.vmap(target, ...)`.
pub(super) fn vmap(interp: &mut Interp, a: Args) -> Result<Obj> {
    let opts = Rc::new(options(&a)?);
    let body: Body = Rc::new(move |interp, args, callee| vmap_call(interp, &opts, args, callee));
    lift_target(interp, "vmap", &a, body)
}

/// The axis the collection `col` is lifted with: `Some(Some(axis))`
/// mapped, `Some(None)` shared, `None` not lifted.
fn col_axis(opts: &Options, col: &str) -> Option<Option<i64>> {
    opts.axes.iter().find(|(c, _)| c.has(col)).map(|(_, a)| *a)
}

/// The lifted modules' subtrees in the collections `variable_axes` names:
/// `(collection, path, axis)`.
type Slots = Vec<(String, Vec<String>, Option<i64>)>;

fn slots(vars: &Rc<RefCell<Dict>>, opts: &Options, paths: &[Vec<String>]) -> Slots {
    let cols: Vec<String> = vars.borrow().items.iter().map(|(k, _)| str_of(k)).collect();
    let mut out = vec![];
    for col in cols {
        let Some(axis) = col_axis(opts, &col) else {
            continue;
        };
        for p in paths {
            if subtree(vars, &col, p).is_some() {
                out.push((col.clone(), p.clone(), axis));
            }
        }
    }
    out
}

/// Each argument's mapped axis (`None` for an unmapped one).
fn arg_axes(in_axes: &Obj, n: usize) -> Result<Vec<Option<i64>>> {
    super::linen_lift::arg_axes(in_axes, n, ("vmap", "None"), |o| matches!(o, Obj::None))
}

/// The mapped size the arguments and stacked variables share, or
/// `axis_size`.
fn axis_size(trees: &[(Obj, i64)], given: Option<i64>) -> Result<usize> {
    let mut sizes = vec![];
    for (t, axis) in trees {
        for l in flatten_known(t)?.0 {
            let shape = to_value(&l)?.shape();
            let ax = if *axis < 0 {
                *axis + shape.len() as i64
            } else {
                *axis
            };
            let n = shape.get(ax.max(0) as usize).copied().unwrap_or(0);
            if !sizes.contains(&n) {
                sizes.push(n);
            }
        }
    }
    match (given, sizes.as_slice()) {
        (_, [_, _, ..]) => bail!(ValueError, "Inconsistent batch axis sizes: {sizes:?}"),
        (Some(n), _) => Ok(n.max(0) as usize),
        (None, [n]) => Ok(*n),
        (None, _) => bail!(ValueError, "axis_size should be specified manually."),
    }
}

/// What the mapped function needs besides its arguments.
struct Mapped {
    paths: Vec<Vec<String>>,
    vars: Rc<RefCell<Dict>>,
    opts: Rc<Options>,
    slots_in: Vec<(String, Vec<String>, Obj)>,
    fixed_keys: Vec<(String, Obj)>,
    split_names: Vec<String>,
    callee: Obj,
    module: Obj,
    kw: Vec<(String, Obj)>,
    saved: Saved,
    slots_out: RefCell<Slots>,
}

/// One instance: the mapped slots hold the instance's slices and the
/// streams start from its keys while the callee runs; returns
/// `(y, [variables made or changed])` and puts the slots back.
fn instance(
    interp: &mut Interp,
    m: &Mapped,
    slices: &[Obj],
    keys: &[Obj],
    args: &[Obj],
) -> Result<Obj> {
    restore_counters(interp, &m.paths, &m.saved)?;
    for ((col, path, _), v) in m.slots_in.iter().zip(slices) {
        set_subtree(&m.vars, col, path, Some(v.clone()));
    }
    let mut lift_keys = m.fixed_keys.clone();
    lift_keys.extend(m.split_names.iter().cloned().zip(keys.iter().cloned()));
    let lift = Lift {
        paths: m.paths.clone(),
        keys: lift_keys,
    };
    let mut pos = vec![m.module.clone()];
    pos.extend(args.iter().cloned());
    with_run(interp, |run| {
        run.lifts.push(lift);
        Ok(())
    })?;
    let r = interp.call(&m.callee, Args::with(pos, m.kw.clone()));
    let mutable = with_run(interp, |run| {
        run.lifts.pop();
        Ok(run.mutable.clone())
    })?;
    let out_slots: Slots = slots(&m.vars, &m.opts, &m.paths)
        .into_iter()
        .filter(|(col, _, _)| mutable.allows(col))
        .collect();
    let outs: Vec<Obj> = out_slots
        .iter()
        .map(|(col, path, _)| subtree(&m.vars, col, path).unwrap_or(Obj::None))
        .collect();
    for (col, path, _) in &out_slots {
        set_subtree(&m.vars, col, path, None);
    }
    for (col, path, orig) in &m.slots_in {
        set_subtree(&m.vars, col, path, Some(orig.clone()));
    }
    let r = r?;
    *m.slots_out.borrow_mut() = out_slots;
    Ok(Obj::tuple(vec![r, Obj::list(outs)]))
}

/// A variable shared by the instances, mapped out along axis 0: kept once,
/// after checking every instance made the same value.
fn shared(interp: &mut Interp, tree: &Obj, size: usize) -> Result<Obj> {
    let first = super::linen_scan::index_leaves(interp, tree, 0)?;
    let equal = lib_attr(interp, "jax.numpy", "array_equal")?;
    for i in 1..size {
        let other = super::linen_scan::index_leaves(interp, tree, i as i64)?;
        let (a, _) = flatten_known(&first)?;
        let (b, _) = flatten_known(&other)?;
        for (x, y) in a.into_iter().zip(b) {
            let same = interp.call(&equal, Args::new(vec![x, y]))?;
            if !truthy(&same, "array_equal")? {
                bail!(
                    ValueError,
                    "a variable of a collection vmap shares (variable_axes None) depends on the mapped values"
                );
            }
        }
    }
    Ok(first)
}

/// The mapped module or function called with `a`.
fn vmap_call(interp: &mut Interp, opts: &Rc<Options>, a: Args, callee: &Obj) -> Result<Obj> {
    let paths = module_paths(interp, &a.pos)?;
    let Some(first) = paths.first().cloned() else {
        bail!(
            TypeError,
            "a mapped function takes a bound linen module first"
        );
    };
    let vars = with_run(interp, |run| Ok(run.variables.clone()))?;
    let args = a.pos[1..].to_vec();
    let axes = arg_axes(&opts.in_axes, args.len())?;
    let mut sized: Vec<(Obj, i64)> = vec![];
    let mut slots_in = vec![];
    let mut slices = vec![];
    for (col, path, axis) in slots(&vars, opts, &paths) {
        let (Some(axis), Some(orig)) = (axis, subtree(&vars, &col, &path)) else {
            continue;
        };
        sized.push((orig.clone(), axis));
        slices.push(move_leaves(&orig, axis, 0)?);
        slots_in.push((col, path, orig));
    }
    for (x, ax) in args.iter().zip(&axes) {
        if let Some(ax) = ax {
            sized.push((x.clone(), *ax));
        }
    }
    let size = axis_size(&sized, opts.axis_size)?;
    let split = lib_attr(interp, "jax.random", "split")?;
    let (mut fixed_keys, mut split_names, mut keys) = (vec![], vec![], vec![]);
    for (name, key) in stream_roots(interp, &first)? {
        match opts.split.iter().find(|(c, _)| c.has(&name)) {
            Some((_, true)) => {
                keys.push(interp.call(&split, Args::new(vec![key, Obj::Int(size as i64)]))?);
                split_names.push(name);
            }
            Some((_, false)) => fixed_keys.push((name, key)),
            None => {}
        }
    }
    if sized.is_empty() && keys.is_empty() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: flax.linen.vmap with nothing mapped but axis_size"
        );
    }
    let m = Rc::new(Mapped {
        paths: paths.clone(),
        vars: vars.clone(),
        opts: opts.clone(),
        slots_in,
        fixed_keys,
        split_names,
        callee: callee.clone(),
        module: a.pos[0].clone(),
        kw: a.kw.clone(),
        saved: save_counters(interp, &paths)?,
        slots_out: RefCell::new(vec![]),
    });
    let inner = m.clone();
    let mapped = Obj::native("mapped", move |interp, b| {
        let part = |k: usize| b.pos.get(k).map(iterate).unwrap_or(Ok(vec![]));
        let rest = b.pos.get(2..).unwrap_or(&[]).to_vec();
        instance(interp, &inner, &part(0)?, &part(1)?, &rest)
    });
    let mut in_axes = vec![Obj::Int(0), Obj::Int(0)];
    in_axes.extend(axes.iter().map(|ax| ax.map(Obj::Int).unwrap_or(Obj::None)));
    let jax_vmap = lib_attr(interp, "jax", "vmap")?;
    let kw = vec![("in_axes".to_string(), Obj::tuple(in_axes))];
    let f = interp.call(&jax_vmap, Args::with(vec![mapped], kw))?;
    let mut call_args = vec![Obj::list(slices), Obj::list(keys)];
    call_args.extend(args);
    let out = interp.call(&f, Args::new(call_args))?;
    let [y, stacked] = <[Obj; 2]>::try_from(iterate(&out)?)
        .map_err(|_| err!(ValueError, "vmap returns (outputs, variables)"))?;
    let slots_out = m.slots_out.borrow().clone();
    for ((col, path, axis), v) in slots_out.iter().zip(iterate(&stacked)?) {
        let v = match axis {
            Some(axis) => move_leaves(&v, 0, *axis)?,
            None => shared(interp, &v, size)?,
        };
        set_subtree(&vars, col, path, Some(v));
    }
    place_outputs(&y, &opts.out_axes)
}
