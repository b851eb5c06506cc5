//! `nnx.scan` on top of `jax.lax.scan`, and `nnx.Carry`.
//!
//! Each positional argument is scanned along an axis (an int in
//! `in_axes`), broadcast to every step (`None`) or is the loop carry
//! (`nnx.Carry`). A module argument goes in as its `State` and is rebuilt
//! from its `GraphDef` in every step: a scanned module's state is sliced
//! step by step and the states the steps leave it in come out stacked and
//! are written back; a carried module's state is the carry, written back
//! at the end; a broadcast module's changes are dropped, as in Flax. The
//! output is split by `out_axes` into the carry and values stacked along
//! their axes (modules among them come back stacked).
//!
//! States holding rng streams cannot be traced (shardlab's keys are host
//! values), so such calls run the step once per slice (see `batch`); a
//! step that prints would print once per slice instead of once while
//! tracing, so that is refused.
//!
//! With `graph=False` or `graph_updates=False` (tree mode) the call goes
//! to `scan_tree` instead.

use std::cell::RefCell;

use super::batch::{has_host_leaves, leading_size, slice_tree, stack_trees};
use super::graph::{full_state, graphdef_of, merge_parts};
use super::*;

/// What `in_axes`/`out_axes` say about one value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Axis {
    Carry,
    Index(i64),
    Broadcast,
}

pub(super) fn is_carry(o: &Obj) -> bool {
    matches!(o, Obj::Class(c) if matches!(c.lookup("__nnx_carry__"), Some(Obj::Bool(true))))
}

fn axis_of(o: &Obj) -> Result<Axis> {
    match o {
        _ if is_carry(o) => Ok(Axis::Carry),
        Obj::None => Ok(Axis::Broadcast),
        Obj::Int(i) => Ok(Axis::Index(*i)),
        Obj::Instance(i) if i.class.name == "StateAxes" => bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.scan with nnx.StateAxes"
        ),
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.scan with axes {}",
            repr_of(other)
        ),
    }
}

/// The options of one `nnx.scan`.
pub(super) struct Spec {
    pub(super) f: Obj,
    st: Rc<Class>,
    pub(super) in_axes: Obj,
    pub(super) out_axes: Obj,
    pub(super) length: Option<Obj>,
    pub(super) reverse: Obj,
    pub(super) unroll: Obj,
    /// Tree mode (`graph=False` or `graph_updates=False`).
    tree: bool,
}

/// `out_axes` as the output's parts: the whole output, or a tuple's items.
pub(super) enum OutAxes {
    Whole(Axis),
    Items(Vec<Axis>),
}

pub(super) fn out_spec(o: &Obj) -> Result<OutAxes> {
    let check = |a: &Axis, at: &str| -> Result<()> {
        if *a == Axis::Broadcast {
            bail!(
                ValueError,
                "Cannot broadcast output state. Got out_axes=None at: out_axes{at}"
            );
        }
        Ok(())
    };
    match o {
        Obj::Tuple(_) | Obj::List(_) => {
            let items = iterate(o)?
                .iter()
                .map(axis_of)
                .collect::<Result<Vec<_>>>()?;
            for (k, a) in items.iter().enumerate() {
                check(a, &format!("[{k}]"))?;
            }
            Ok(OutAxes::Items(items))
        }
        other => {
            let a = axis_of(other)?;
            check(&a, "")?;
            Ok(OutAxes::Whole(a))
        }
    }
}

/// The axis of every positional argument.
fn arg_axes(in_axes: &Obj, n: usize) -> Result<Vec<Axis>> {
    super::scan_tree::arg_axes(in_axes, n)?
        .iter()
        .map(axis_of)
        .collect()
}

fn carry_count(axes: &[Axis]) -> usize {
    axes.iter().filter(|a| **a == Axis::Carry).count()
}

/// Checks the axes as Flax does before it scans.
fn check_axes(spec: &Spec, ins: &[Axis], outs: &OutAxes) -> Result<()> {
    let out_carries = match outs {
        OutAxes::Whole(a) => usize::from(*a == Axis::Carry),
        OutAxes::Items(v) => carry_count(v),
    };
    if carry_count(ins) > 1 || out_carries > 1 {
        bail!(
            ValueError,
            "Found multiple Carry definitions in {}",
            if out_carries > 1 {
                "out_axes"
            } else {
                "in_axes"
            }
        );
    }
    if (carry_count(ins) == 0) != (out_carries == 0) {
        bail!(
            ValueError,
            "If one of in_axes or out_axes has Carry, the other must also have Carry. Got in_axes={} and out_axes={}",
            repr_of(&spec.in_axes),
            repr_of(&spec.out_axes)
        );
    }
    Ok(())
}

fn module_of(o: &Obj) -> Option<Rc<Instance>> {
    match o {
        Obj::Instance(i) if is_nnx_module(i) => Some(i.clone()),
        _ => None,
    }
}

/// Moves axis `from` of every leaf of `tree` to `to`.
pub(super) fn move_axis(interp: &mut Interp, tree: &Obj, from: i64, to: i64) -> Result<Obj> {
    if from == to {
        return Ok(tree.clone());
    }
    let (leaves, def) = flatten_known(tree)?;
    let jnp = crate::modules::import(interp, "jax.numpy")?;
    let moveaxis = crate::python::ops::getattr(interp, &jnp, "moveaxis")?;
    let mut out = vec![];
    for leaf in leaves {
        let args = vec![leaf, Obj::Int(from), Obj::Int(to)];
        out.push(interp.call(&moveaxis, Args::new(args))?);
    }
    unflatten_known(&def, &out)
}

/// The arguments of one call as the step sees them: module arguments as
/// their states (scanned ones with their axis moved to the front).
struct Prepared {
    axes: Vec<Axis>,
    defs: Vec<Option<Obj>>,
    pure: Vec<Obj>,
    originals: Vec<Obj>,
}

/// Whether a container holds a module (modules only count at the top
/// level of an argument here).
pub(super) fn holds_module(o: &Obj) -> bool {
    match o {
        Obj::Instance(i) => is_nnx_module(i),
        Obj::List(l) => l.borrow().iter().any(holds_module),
        Obj::Tuple(t) => t.iter().any(holds_module),
        Obj::Dict(d) => d.borrow().items.iter().any(|(_, v)| holds_module(v)),
        _ => false,
    }
}

fn prepare(interp: &mut Interp, st: &Rc<Class>, axes: Vec<Axis>, args: &[Obj]) -> Result<Prepared> {
    let mut p = Prepared {
        axes,
        defs: vec![],
        pure: vec![],
        originals: args.to_vec(),
    };
    for (a, ax) in args.iter().zip(p.axes.clone()) {
        let (def, mut pure) = match module_of(a) {
            Some(_) => (Some(graphdef_of(a)), full_state(st, a)),
            None if holds_module(a) => bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.scan over modules inside containers"
            ),
            None => (None, a.clone()),
        };
        if let Axis::Index(k) = ax {
            pure = move_axis(interp, &pure, k, 0)?;
        }
        p.defs.push(def);
        p.pure.push(pure);
    }
    Ok(p)
}

/// One step of the scan, and the structure it saw, for the way back.
struct Step {
    f: Obj,
    st: Rc<Class>,
    kw: Vec<(String, Obj)>,
    prep: Prepared,
    outs: OutAxes,
    carry_def: RefCell<Option<Obj>>,
    after_defs: RefCell<Vec<Obj>>,
    y_defs: RefCell<Vec<Option<Obj>>>,
}

impl Step {
    fn args(&self, carry: &Obj, xs: &[Obj]) -> Result<Vec<Obj>> {
        let mut xs = xs.iter();
        let mut args = vec![];
        for (k, ax) in self.prep.axes.iter().enumerate() {
            let pure = match ax {
                Axis::Carry => carry.clone(),
                Axis::Index(_) => xs.next().cloned().unwrap_or(Obj::None),
                Axis::Broadcast => self.prep.pure[k].clone(),
            };
            args.push(match &self.prep.defs[k] {
                Some(def) => merge_parts(def, &[pure])?,
                None => pure,
            });
        }
        Ok(args)
    }

    /// The carry and the scanned outputs of `f`'s result.
    fn split_out(&self, out: Obj) -> Result<(Option<Obj>, Vec<Obj>)> {
        match &self.outs {
            OutAxes::Whole(Axis::Carry) => Ok((Some(out), vec![])),
            OutAxes::Whole(_) => Ok((None, vec![out])),
            OutAxes::Items(axes) => {
                let Obj::Tuple(items) = &out else {
                    bail!(
                        TypeError,
                        "nnx.scan with a tuple out_axes expects the function to return a tuple, got {}",
                        out.type_name()
                    );
                };
                if items.len() != axes.len() {
                    bail!(
                        ValueError,
                        "nnx.scan out_axes has {} entries but the function returned {} values",
                        axes.len(),
                        items.len()
                    );
                }
                let mut carry = None;
                let mut ys = vec![];
                for (it, ax) in items.iter().zip(axes) {
                    match ax {
                        Axis::Carry => carry = Some(it.clone()),
                        _ => ys.push(it.clone()),
                    }
                }
                Ok((carry, ys))
            }
        }
    }

    /// The carry as the loop passes it on.
    fn carry_out(&self, args: &[Obj], out: Option<Obj>) -> Result<Obj> {
        let Some(at) = self.prep.axes.iter().position(|a| *a == Axis::Carry) else {
            return Ok(Obj::None);
        };
        let out = out.unwrap_or(Obj::None);
        if self.prep.defs[at].is_none() {
            if holds_module(&out) {
                bail!(
                    ValueError,
                    "Carry references must be the same between iterations: the carry went in without a module and came out with one"
                );
            }
            return Ok(out);
        }
        let same =
            matches!((&args[at], &out), (Obj::Instance(a), Obj::Instance(b)) if Rc::ptr_eq(a, b));
        if !same {
            bail!(
                ValueError,
                "Carry references must be the same between iterations. Got arg={} and out={} at carry",
                repr_of(&args[at]),
                repr_of(&out)
            );
        }
        *self.carry_def.borrow_mut() = Some(graphdef_of(&out));
        Ok(full_state(&self.st, &out))
    }

    /// `(carry, (scanned module states, ys))` of one step.
    fn run(&self, interp: &mut Interp, carry: &Obj, xs: &[Obj]) -> Result<(Obj, Obj)> {
        let args = self.args(carry, xs)?;
        let out = interp.call(&self.f, Args::with(args.clone(), self.kw.clone()))?;
        let (c, ys) = self.split_out(out)?;
        let carry = self.carry_out(&args, c)?;
        let mut states = vec![];
        let mut after = vec![];
        for (k, ax) in self.prep.axes.iter().enumerate() {
            if matches!(ax, Axis::Index(_)) && self.prep.defs[k].is_some() {
                after.push(graphdef_of(&args[k]));
                states.push(full_state(&self.st, &args[k]));
            }
        }
        *self.after_defs.borrow_mut() = after;
        let mut pure_ys = vec![];
        let mut y_defs = vec![];
        for y in ys {
            if module_of(&y).is_some() {
                y_defs.push(Some(graphdef_of(&y)));
                pure_ys.push(full_state(&self.st, &y));
            } else if holds_module(&y) {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx.scan returning modules inside containers"
                );
            } else {
                y_defs.push(None);
                pure_ys.push(y);
            }
        }
        *self.y_defs.borrow_mut() = y_defs;
        let ys = Obj::tuple(vec![Obj::tuple(states), Obj::tuple(pure_ys)]);
        Ok((carry, ys))
    }
}

/// The scanned inputs and the carry the loop starts from.
fn loop_inputs(step: &Step) -> (Obj, Obj) {
    let mut carry = Obj::None;
    let mut xs = vec![];
    for (k, ax) in step.prep.axes.iter().enumerate() {
        match ax {
            Axis::Carry => carry = step.prep.pure[k].clone(),
            Axis::Index(_) => xs.push(step.prep.pure[k].clone()),
            Axis::Broadcast => {}
        }
    }
    (carry, Obj::tuple(xs))
}

/// Runs the steps one by one on the host: the final carry and the stacked
/// per-step outputs.
fn host_loop(interp: &mut Interp, spec: &Spec, step: &Step) -> Result<(Obj, Obj)> {
    let (mut carry, xs) = loop_inputs(step);
    let n = match &spec.length {
        Some(l) => usize::try_from(to_int(l)?).unwrap_or(0),
        None => leading_size(&xs)?.ok_or_else(|| {
            err!(
                ValueError,
                "scan got no values to scan over and `length` not provided."
            )
        })?,
    };
    let order: Vec<usize> = if truthy(&spec.reverse, "reverse")? {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    };
    let mut ys = vec![Obj::None; n];
    for i in order {
        let x = iterate(&slice_tree(&xs, i)?)?;
        let printed = interp.out.len();
        let (c, y) = step.run(interp, &carry, &x)?;
        if interp.out.len() != printed {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: printing inside nnx.scan over rng streams"
            );
        }
        carry = c;
        ys[i] = y;
    }
    Ok((carry, stack_trees(&ys)?))
}

/// Runs the steps under `jax.lax.scan`.
fn traced(interp: &mut Interp, spec: &Spec, step: Rc<Step>) -> Result<(Obj, Obj)> {
    let (carry, xs) = loop_inputs(&step);
    let body = Obj::native("nnx.scan.body", move |i, a| {
        let carry = a.req(Some(0), "carry", "scan")?;
        let xs = iterate(&a.req(Some(1), "xs", "scan")?)?;
        let (c, y) = step.run(i, &carry, &xs)?;
        Ok(Obj::tuple(vec![c, y]))
    });
    lax_scan(interp, spec, body, carry, xs)
}

/// `jax.lax.scan(body, carry, xs)` with the spec's `length`, `reverse` and
/// `unroll`: the final carry and the stacked outputs.
pub(super) fn lax_scan(
    interp: &mut Interp,
    spec: &Spec,
    body: Obj,
    carry: Obj,
    xs: Obj,
) -> Result<(Obj, Obj)> {
    let lax = crate::modules::import(interp, "jax.lax")?;
    let scan = crate::python::ops::getattr(interp, &lax, "scan")?;
    let mut kw = vec![
        ("reverse".to_string(), spec.reverse.clone()),
        ("unroll".to_string(), spec.unroll.clone()),
    ];
    if let Some(l) = &spec.length {
        kw.push(("length".into(), l.clone()));
    }
    let r = interp.call(&scan, Args::with(vec![body, carry, xs], kw))?;
    let parts = iterate(&r)?;
    Ok((parts[0].clone(), parts[1].clone()))
}

/// Writes `state` (shaped by `def`) into the caller's module `orig`.
fn write_back(orig: &Obj, def: &Obj, state: Obj) -> Result<()> {
    if let (Obj::Instance(o), Obj::Instance(n)) = (orig, merge_parts(def, &[state])?) {
        super::graph::sync_into(o, &n);
    }
    Ok(())
}

/// Puts the results back: module states into the caller's modules, the
/// carry and the stacked outputs into the shape `out_axes` gives.
fn finish(interp: &mut Interp, step: &Step, carry: Obj, stacked: Obj) -> Result<Obj> {
    let prep = &step.prep;
    let mut carry_obj = carry.clone();
    if let Some(at) = prep.axes.iter().position(|a| *a == Axis::Carry) {
        if let Some(def) = step.carry_def.borrow().clone() {
            write_back(&prep.originals[at], &def, carry)?;
            carry_obj = prep.originals[at].clone();
        }
    }
    let parts = iterate(&stacked)?;
    let states = iterate(&parts[0])?;
    let after = step.after_defs.borrow().clone();
    let mut s = states.into_iter().zip(after);
    for (k, ax) in prep.axes.iter().enumerate() {
        if let (Axis::Index(a), true) = (ax, prep.defs[k].is_some()) {
            if let Some((state, def)) = s.next() {
                let state = move_axis(interp, &state, 0, *a)?;
                write_back(&prep.originals[k], &def, state)?;
            }
        }
    }
    let y_axes: Vec<i64> = match &step.outs {
        OutAxes::Whole(Axis::Index(a)) => vec![*a],
        OutAxes::Items(v) => v
            .iter()
            .filter_map(|a| {
                if let Axis::Index(k) = a {
                    Some(*k)
                } else {
                    None
                }
            })
            .collect(),
        OutAxes::Whole(_) => vec![],
    };
    let y_defs = step.y_defs.borrow().clone();
    let mut ys = vec![];
    for ((y, a), def) in iterate(&parts[1])?.iter().zip(y_axes).zip(y_defs) {
        let y = move_axis(interp, y, 0, a)?;
        ys.push(match def {
            Some(def) => merge_parts(&def, &[y])?,
            None => y,
        });
    }
    Ok(match &step.outs {
        OutAxes::Whole(Axis::Carry) => carry_obj,
        OutAxes::Whole(_) => ys.pop().unwrap_or(Obj::None),
        OutAxes::Items(v) => {
            let mut ys = ys.into_iter();
            Obj::tuple(
                v.iter()
                    .map(|a| match a {
                        Axis::Carry => carry_obj.clone(),
                        _ => ys.next().unwrap_or(Obj::None),
                    })
                    .collect(),
            )
        }
    })
}

fn scan_call(interp: &mut Interp, spec: &Rc<Spec>, call: Args) -> Result<Obj> {
    let ins = arg_axes(&spec.in_axes, call.pos.len())?;
    let outs = out_spec(&spec.out_axes)?;
    check_axes(spec, &ins, &outs)?;
    let prep = prepare(interp, &spec.st, ins, &call.pos)?;
    let step = Rc::new(Step {
        f: spec.f.clone(),
        st: spec.st.clone(),
        kw: call.kw.clone(),
        prep,
        outs,
        carry_def: RefCell::new(None),
        after_defs: RefCell::new(vec![]),
        y_defs: RefCell::new(vec![]),
    });
    let mut host = false;
    for p in &step.prep.pure {
        host = host || has_host_leaves(p)?;
    }
    let (carry, stacked) = if host {
        host_loop(interp, spec, &step)?
    } else {
        traced(interp, spec, step.clone())?
    };
    finish(interp, &step, carry, stacked)
}

/// `nnx.scan(f, *, length, reverse, unroll, in_axes=(Carry, 0),
/// out_axes=(Carry, 0))`, also as a decorator, and `nnx.Carry`.
pub(super) fn register(b: &mut Builder, state: &Rc<Class>) {
    // A root class so that its repr names Flax's module.
    let carry = nnx_root_class(
        "Carry",
        vec![
            ("__nnx_carry__".into(), Obj::Bool(true)),
            (
                "__module__".into(),
                Obj::str("flax.nnx.transforms.iteration"),
            ),
        ],
    );
    let carry = Obj::Class(carry);
    b.attr("Carry", carry.clone());
    let st = state.clone();
    b.func("scan", move |_, a| {
        for name in ["transform_metadata", "_split_transpose"] {
            let given = match a.opt(None, name) {
                Some(Obj::Dict(d)) => !d.borrow().items.is_empty(),
                Some(Obj::Bool(false)) => false,
                other => other.is_some(),
            };
            if given {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx.scan with {name}"
                );
            }
        }
        // Flax's default is graph mode with graph updates; turning either
        // off selects tree mode.
        let mut tree = false;
        for name in ["graph", "graph_updates"] {
            if let Some(g) = a.opt(None, name) {
                tree = tree || !truthy(&g, name)?;
            }
        }
        let default = Obj::tuple(vec![carry.clone(), Obj::Int(0)]);
        let make = {
            let st = st.clone();
            let in_axes = a.get(None, "in_axes").unwrap_or(default.clone());
            let out_axes = a.get(None, "out_axes").unwrap_or(default);
            let length = a.opt(None, "length");
            let reverse = a.get(None, "reverse").unwrap_or(Obj::Bool(false));
            let unroll = a.get(None, "unroll").unwrap_or(Obj::Int(1));
            move |f: Obj| {
                let spec = Rc::new(Spec {
                    f,
                    st: st.clone(),
                    in_axes: in_axes.clone(),
                    out_axes: out_axes.clone(),
                    length: length.clone(),
                    reverse: reverse.clone(),
                    unroll: unroll.clone(),
                    tree,
                });
                Obj::native("nnx.scan", move |i, call| match spec.tree {
                    true => super::scan_tree::scan_call(i, &spec, call),
                    false => scan_call(i, &spec, call),
                })
            }
        };
        Ok(match a.pos.first() {
            Some(f) => make(f.clone()),
            None => Obj::native("nnx.scan", move |_, d| {
                Ok(make(d.req(Some(0), "f", "scan")?))
            }),
        })
    });
}
