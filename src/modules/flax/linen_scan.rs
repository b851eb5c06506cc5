//! linen's `nn.scan`: a module (or a function of modules) scanned with
//! `jax.lax.scan`, its variables lifted as Flax lifts them.
//!
//! - Collections in `variable_axes` are stacked along their axis: each step
//!   reads its slice and the steps' variables come out stacked, so `init`
//!   makes one set per step.
//! - Collections in `variable_broadcast` are shared by every step. Flax
//!   traces the body once before the loop to compute them from its
//!   loop-invariant part (op by op), then again in the loop; here the body
//!   runs once eagerly on the first step's values, keeping only what it
//!   made in those collections, then the scan reads them. As in Flax, the
//!   `make_rng` counters go on from the first run to the loop's trace.
//! - Streams in `split_rngs` are passed in: a split one gives step `i` the
//!   `i`-th key of `split(key, length)` of the stream's root key, and an
//!   unsplit one the same key at every step; the names folded into keys drawn
//!   inside stay the modules' paths. Streams not listed are not passed in.
//!
//! The body is traced by `lax.scan` as Flax's is, so its arithmetic is fused
//! as XLA fuses it; each trace starts from the counters the first run left.

use super::linen::{nested_get, nested_make, with_run};
use super::linen_lift::{dict_option, lift_target, module_paths, stream_roots, Body, Cols, Lift};
use super::recurrent::lib_attr;
use super::*;
use crate::python::ops::is_same;

/// The options of one `nn.scan`.
struct Options {
    axes: Vec<(Cols, i64)>,
    broadcast: Cols,
    split: Vec<(Cols, bool)>,
    in_axes: Obj,
    out_axes: Obj,
    length: Option<Obj>,
    reverse: Obj,
    unroll: Obj,
}

fn options(a: &Args) -> Result<Options> {
    let refuse = |name: &str| {
        err!(
            NotImplementedError,
            "not supported by shardlab yet: flax.linen.scan with {name}"
        )
    };
    if !matches!(a.opt(None, "variable_carry"), None | Some(Obj::Bool(false))) {
        return Err(refuse("variable_carry"));
    }
    if !matches!(a.opt(None, "data_transform"), None | Some(Obj::None)) {
        return Err(refuse("data_transform"));
    }
    let mut axes = vec![];
    for (cols, ax) in dict_option(
        &a.opt(None, "variable_axes").unwrap_or(Obj::None),
        "variable_axes",
    )? {
        match ax {
            Obj::Int(n) => axes.push((cols, n)),
            _ => return Err(refuse("variable_axes other than integer axes")),
        }
    }
    let mut split = vec![];
    for (cols, s) in dict_option(
        &a.opt(None, "split_rngs").unwrap_or(Obj::None),
        "split_rngs",
    )? {
        split.push((cols, truthy(&s, "split_rngs")?));
    }
    let broadcast = Cols::parse(
        &a.opt(None, "variable_broadcast")
            .unwrap_or(Obj::Bool(false)),
        "variable_broadcast",
    )?;
    Ok(Options {
        axes,
        broadcast,
        split,
        in_axes: a.opt(None, "in_axes").unwrap_or(Obj::Int(0)),
        out_axes: a.opt(None, "out_axes").unwrap_or(Obj::Int(0)),
        length: a.opt(None, "length").filter(|l| !matches!(l, Obj::None)),
        reverse: a.opt(None, "reverse").unwrap_or(Obj::Bool(false)),
        unroll: a.opt(None, "unroll").unwrap_or(Obj::Int(1)),
    })
}

/// Whether `o` is `nn.broadcast`.
pub(super) fn is_broadcast(o: &Obj) -> bool {
    matches!(o, Obj::Instance(i) if i.class.name == "_Broadcast")
}

/// `nn.scan(target, ...)`.
pub(super) fn scan(interp: &mut Interp, a: Args) -> Result<Obj> {
    let opts = Rc::new(options(&a)?);
    let body: Body =
        Rc::new(move |interp, args, callee| scan_call(interp, opts.clone(), args, callee));
    lift_target(interp, "scan", &a, body)
}

/// A variable subtree of a lifted module: its collection, the module's
/// path and the axis it is stacked along.
#[derive(Clone, PartialEq)]
pub(super) struct Slot {
    pub col: String,
    pub path: Vec<String>,
    pub axis: i64,
}

pub(super) fn subtree(vars: &Rc<RefCell<Dict>>, col: &str, path: &[String]) -> Option<Obj> {
    let (last, parent) = match path.split_last() {
        Some((last, parent)) => (last.clone(), parent),
        None => return vars.borrow().get(&Obj::str(col)),
    };
    let mut full = vec![col.to_string()];
    full.extend(parent.iter().cloned());
    nested_get(vars, &full).and_then(|d| d.borrow().get(&Obj::str(&last)))
}

pub(super) fn set_subtree(vars: &Rc<RefCell<Dict>>, col: &str, path: &[String], v: Option<Obj>) {
    let (key, parent) = match path.split_last() {
        Some((last, parent)) => {
            let mut full = vec![col.to_string()];
            full.extend(parent.iter().cloned());
            (last.clone(), nested_make(vars, &full))
        }
        None => (col.to_string(), vars.clone()),
    };
    let mut d = parent.borrow_mut();
    match v {
        Some(v) => d.set(Obj::str(key), v),
        None => {
            let _ = d.remove(&Obj::str(key));
        }
    }
}

/// The subtrees of the lifted modules in the collections `variable_axes`
/// maps, in the run's collection order.
fn axis_slots(vars: &Rc<RefCell<Dict>>, opts: &Options, paths: &[Vec<String>]) -> Vec<Slot> {
    let cols: Vec<String> = vars.borrow().items.iter().map(|(k, _)| str_of(k)).collect();
    let mut out = vec![];
    for col in cols {
        let Some(axis) = opts.axes.iter().find(|(c, _)| c.has(&col)).map(|(_, a)| *a) else {
            continue;
        };
        for p in paths {
            if subtree(vars, &col, p).is_some() {
                out.push(Slot {
                    col: col.clone(),
                    path: p.clone(),
                    axis,
                });
            }
        }
    }
    out
}

/// Each leaf of `tree` with its axis `src` moved to `dst` (negative axes
/// count from the end).
pub(super) fn move_leaves(tree: &Obj, src: i64, dst: i64) -> Result<Obj> {
    let (leaves, def) = flatten_known(tree)?;
    let mut out = vec![];
    for l in leaves {
        let v = to_value(&l)?;
        let nd = v.ndim() as i64;
        let norm = |a: i64| if a < 0 { a + nd } else { a };
        let (s, d) = (norm(src), norm(dst));
        if s < 0 || d < 0 || s >= nd || d >= nd {
            bail!(
                ValueError,
                "axis {src} is out of bounds for an array of {nd} dimensions"
            );
        }
        out.push(Obj::Array(jops::moveaxis(&v, s as usize, d as usize)?));
    }
    unflatten_known(&def, &out)
}

/// The run's state the body changes, kept to put back after each trace:
/// the counters of the lifted modules and what their slots held.
pub(super) struct Saved {
    counters: Vec<((Vec<String>, String), u32)>,
}

pub(super) fn save_counters(interp: &mut Interp, paths: &[Vec<String>]) -> Result<Saved> {
    with_run(interp, |run| {
        let counters = run
            .counters
            .iter()
            .filter(|((p, _), _)| paths.iter().any(|l| p.starts_with(l)))
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        Ok(Saved { counters })
    })
}

pub(super) fn restore_counters(
    interp: &mut Interp,
    paths: &[Vec<String>],
    saved: &Saved,
) -> Result<()> {
    with_run(interp, |run| {
        run.counters
            .retain(|(p, _), _| !paths.iter().any(|l| p.starts_with(l)));
        run.counters.extend(saved.counters.iter().cloned());
        Ok(())
    })
}

/// The collections of the lifted modules that the scan does not lift, to
/// check the body leaves them as they were.
fn unlifted(vars: &Rc<RefCell<Dict>>, opts: &Options, paths: &[Vec<String>]) -> Vec<(String, Obj)> {
    let cols: Vec<String> = vars.borrow().items.iter().map(|(k, _)| str_of(k)).collect();
    let mut out = vec![];
    for col in cols {
        if opts.broadcast.has(&col) || opts.axes.iter().any(|(c, _)| c.has(&col)) {
            continue;
        }
        for p in paths {
            if let Some(t) = subtree(vars, &col, p) {
                let mut leaves = vec![];
                if let Ok((ls, _)) = flatten_known(&t) {
                    leaves = ls;
                }
                for (k, l) in leaves.into_iter().enumerate() {
                    out.push((format!("{col}/{}/{k}", p.join("/")), l));
                }
            }
        }
    }
    out
}

/// Each argument's scan axis: `Some(axis)`, or `None` for `nn.broadcast`.
fn arg_axes(in_axes: &Obj, n: usize) -> Result<Vec<Option<i64>>> {
    super::linen_lift::arg_axes(in_axes, n, ("scan", "nn.broadcast"), is_broadcast)
}

/// The number of steps: `length`, or the leading size the scanned
/// arguments share.
fn scan_length(scanned: &[Obj], length: Option<&Obj>) -> Result<usize> {
    let mut sizes = vec![];
    for x in scanned {
        for l in flatten_known(x)?.0 {
            let n = to_value(&l)?.shape().first().copied().unwrap_or(0);
            if !sizes.contains(&n) {
                sizes.push(n);
            }
        }
    }
    match (length, sizes.as_slice()) {
        (_, [_, _, ..]) => bail!(ValueError, "Inconsistent scan lengths: {sizes:?}"),
        (Some(l), _) => Ok(to_int(l)?.max(0) as usize),
        (None, [n]) => Ok(*n),
        (None, _) => bail!(ValueError, "length should be specified manually."),
    }
}

/// What a step of the scan needs besides its slices.
struct Step {
    opts: Rc<Options>,
    paths: Vec<Vec<String>>,
    vars: Rc<RefCell<Dict>>,
    /// The slots stacked before the scan, with what they held.
    slots_in: Vec<(Slot, Obj)>,
    fixed_keys: Vec<(String, Obj)>,
    split_names: Vec<String>,
    callee: Obj,
    head: Vec<Obj>,
    args: Vec<(Obj, Option<i64>)>,
    kw: Vec<(String, Obj)>,
    saved: Saved,
    slots_out: RefCell<Vec<Slot>>,
}

/// One step: the lifted modules' slots hold the step's slices and their
/// streams start from the step's keys while `callee` runs; returns
/// `(carry, (y, stacked slots))` and puts the slots back.
fn step(
    interp: &mut Interp,
    s: &Step,
    carry: Obj,
    slices: &[Obj],
    keys: &[Obj],
    xs: &[Obj],
) -> Result<Obj> {
    restore_counters(interp, &s.paths, &s.saved)?;
    for ((slot, _), v) in s.slots_in.iter().zip(slices) {
        set_subtree(&s.vars, &slot.col, &slot.path, Some(v.clone()));
    }
    let mut lift_keys = s.fixed_keys.clone();
    lift_keys.extend(s.split_names.iter().cloned().zip(keys.iter().cloned()));
    let lift = Lift {
        paths: s.paths.clone(),
        keys: lift_keys,
    };
    let mut pos = s.head.clone();
    pos.push(carry);
    let mut scanned = xs.iter();
    for (a, ax) in &s.args {
        pos.push(match ax {
            Some(_) => scanned.next().cloned().unwrap_or(Obj::None),
            None => a.clone(),
        });
    }
    with_run(interp, |run| {
        run.lifts.push(lift);
        Ok(())
    })?;
    let r = interp.call(&s.callee, Args::with(pos, s.kw.clone()));
    let slots_out = with_run(interp, |run| {
        run.lifts.pop();
        Ok(run.mutable.clone())
    })
    .map(|mutable| {
        let all = axis_slots(&s.vars, &s.opts, &s.paths);
        all.into_iter()
            .filter(|sl| mutable.allows(&sl.col))
            .collect::<Vec<_>>()
    })?;
    let outs: Vec<Obj> = slots_out
        .iter()
        .map(|sl| subtree(&s.vars, &sl.col, &sl.path).unwrap_or(Obj::None))
        .collect();
    for sl in &slots_out {
        set_subtree(&s.vars, &sl.col, &sl.path, None);
    }
    for (slot, orig) in &s.slots_in {
        set_subtree(&s.vars, &slot.col, &slot.path, Some(orig.clone()));
    }
    let r = r?;
    *s.slots_out.borrow_mut() = slots_out;
    let [c, y] = <[Obj; 2]>::try_from(iterate(&r)?)
        .map_err(|_| err!(ValueError, "a scanned function returns (carry, output)"))?;
    Ok(Obj::tuple(vec![c, Obj::tuple(vec![y, Obj::list(outs)])]))
}

/// Leaf `i` of every leaf of `tree` (`tree[i]` leaf by leaf).
pub(super) fn index_leaves(interp: &mut Interp, tree: &Obj, i: i64) -> Result<Obj> {
    let (leaves, def) = flatten_known(tree)?;
    let mut out = vec![];
    for l in leaves {
        out.push(crate::python::ops::getitem(interp, &l, &Obj::Int(i))?);
    }
    unflatten_known(&def, &out)
}

/// The scanned module or function called with `a`: `(carry, ys)`.
fn scan_call(interp: &mut Interp, opts: Rc<Options>, a: Args, callee: &Obj) -> Result<Obj> {
    if a.pos.len() < 2 {
        bail!(TypeError, "a scanned function takes a module and a carry");
    }
    let paths = module_paths(interp, &a.pos)?;
    let Some(first) = paths.first().cloned() else {
        bail!(
            TypeError,
            "a scanned function takes a bound linen module first"
        );
    };
    let vars = with_run(interp, |run| Ok(run.variables.clone()))?;
    let args = a.pos[2..].to_vec();
    let axes = arg_axes(&opts.in_axes, args.len())?;
    let mut scanned = vec![];
    for (x, ax) in args.iter().zip(&axes) {
        if let Some(ax) = ax {
            scanned.push(move_leaves(x, *ax, 0)?);
        }
    }
    let length = scan_length(&scanned, opts.length.as_ref())?;
    let (fixed_keys, split_names, step_keys) = step_streams(interp, &opts, &first, length)?;
    let before = unlifted(&vars, &opts, &paths);
    let saved = save_counters(interp, &paths)?;
    let mut st = Step {
        opts: opts.clone(),
        paths: paths.clone(),
        vars: vars.clone(),
        slots_in: vec![],
        fixed_keys,
        split_names,
        callee: callee.clone(),
        head: vec![a.pos[0].clone()],
        args: args.into_iter().zip(axes).collect(),
        kw: a.kw.clone(),
        saved,
        slots_out: RefCell::new(vec![]),
    };
    for slot in axis_slots(&vars, &opts, &paths) {
        let orig = subtree(&vars, &slot.col, &slot.path).unwrap_or(Obj::None);
        st.slots_in.push((slot, orig));
    }
    let mut slices = vec![];
    for (slot, orig) in &st.slots_in {
        slices.push(move_leaves(orig, slot.axis, 0)?);
    }
    // Flax traces the body twice, first to find the broadcast variables,
    // then in the loop, with the counters going on from one to the other.
    if length > 0 {
        trace_first(interp, &st, &a.pos[1], [&slices, &step_keys, &scanned])?;
        st.saved = save_counters(interp, &paths)?;
    }
    let xs = Obj::tuple(vec![
        Obj::list(slices),
        Obj::list(step_keys),
        Obj::list(scanned),
    ]);
    let st = Rc::new(st);
    let inner = st.clone();
    let body = Obj::native("scan_fn", move |interp, b| {
        let carry = b.req(Some(0), "carry", "scan_fn")?;
        let x = iterate(&b.req(Some(1), "x", "scan_fn")?)?;
        let part = |k: usize| x.get(k).map(iterate).unwrap_or(Ok(vec![]));
        step(interp, &inner, carry, &part(0)?, &part(1)?, &part(2)?)
    });
    let lax_scan = lib_attr(interp, "jax.lax", "scan")?;
    let kw = vec![
        ("length".to_string(), Obj::Int(length as i64)),
        ("reverse".to_string(), opts.reverse.clone()),
        ("unroll".to_string(), opts.unroll.clone()),
    ];
    let out = interp.call(&lax_scan, Args::with(vec![body, a.pos[1].clone(), xs], kw))?;
    let [carry, rest] = <[Obj; 2]>::try_from(iterate(&out)?)
        .map_err(|_| err!(ValueError, "scan returns (carry, outputs)"))?;
    let [ys, stacked] = <[Obj; 2]>::try_from(iterate(&rest)?)
        .map_err(|_| err!(ValueError, "scan returns (outputs, variables)"))?;
    let slots_out = st.slots_out.borrow().clone();
    for (slot, v) in slots_out.iter().zip(iterate(&stacked)?) {
        let v = move_leaves(&v, 0, slot.axis)?;
        set_subtree(&vars, &slot.col, &slot.path, Some(v));
    }
    check_unlifted(&before, &unlifted(&vars, &opts, &paths))?;
    Ok(Obj::tuple(vec![carry, place_outputs(&ys, &opts.out_axes)?]))
}

/// The rng streams of the scanned modules: those shared by every step
/// (with their keys), and those split into one key per step (their names,
/// and the stacked keys).
#[allow(clippy::type_complexity)]
fn step_streams(
    interp: &mut Interp,
    opts: &Options,
    first: &[String],
    length: usize,
) -> Result<(Vec<(String, Obj)>, Vec<String>, Vec<Obj>)> {
    let split = lib_attr(interp, "jax.random", "split")?;
    let (mut fixed_keys, mut split_names, mut step_keys) = (vec![], vec![], vec![]);
    for (name, key) in stream_roots(interp, first)? {
        match opts.split.iter().find(|(c, _)| c.has(&name)) {
            Some((_, true)) => {
                let ks = interp.call(&split, Args::new(vec![key, Obj::Int(length as i64)]))?;
                split_names.push(name);
                step_keys.push(ks);
            }
            Some((_, false)) => fixed_keys.push((name, key)),
            None => {}
        }
    }
    Ok((fixed_keys, split_names, step_keys))
}

/// Runs the body once on the first slice of every scanned tree, as Flax
/// does before the loop to find the broadcast variables.
fn trace_first(interp: &mut Interp, st: &Step, carry: &Obj, trees: [&[Obj]; 3]) -> Result<()> {
    let mut firsts = vec![];
    for part in trees {
        let sliced: Vec<Obj> = part
            .iter()
            .map(|t| index_leaves(interp, t, 0))
            .collect::<Result<_>>()?;
        firsts.push(sliced);
    }
    step(
        interp,
        st,
        carry.clone(),
        &firsts[0],
        &firsts[1],
        &firsts[2],
    )?;
    Ok(())
}

/// Refuses a body that changed a collection of the lifted modules that
/// is neither stacked nor broadcast.
fn check_unlifted(before: &[(String, Obj)], after: &[(String, Obj)]) -> Result<()> {
    let same = before.len() == after.len()
        && before
            .iter()
            .zip(after)
            .all(|((p, a), (q, b))| p == q && is_same(a, b));
    if !same {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: flax.linen.scan over a module that changes a collection outside variable_axes and variable_broadcast"
        );
    }
    Ok(())
}

/// The stacked outputs with the step axis moved to `out_axes` (one axis
/// for all, or one per element of a tuple of outputs).
pub(super) fn place_outputs(ys: &Obj, out_axes: &Obj) -> Result<Obj> {
    match out_axes {
        Obj::Int(0) => Ok(ys.clone()),
        Obj::Int(n) => move_leaves(ys, 0, *n),
        Obj::Tuple(_) | Obj::List(_) => {
            let axes = iterate(out_axes)?;
            let parts = iterate(ys)?;
            if axes.len() != parts.len() {
                bail!(
                    ValueError,
                    "out_axes has {} entries for {} outputs",
                    axes.len(),
                    parts.len()
                );
            }
            let mut out = vec![];
            for (p, ax) in parts.iter().zip(&axes) {
                out.push(place_outputs(p, ax)?);
            }
            Ok(match ys {
                Obj::List(_) => Obj::list(out),
                _ => Obj::tuple(out),
            })
        }
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: flax.linen.scan with out_axes other than integers"
        ),
    }
}
