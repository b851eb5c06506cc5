//! linen's `RNN` and `Bidirectional`.
//!
//! Flax runs a cell over time through `nn.scan` with the parameters
//! broadcast (made once, from the same keys a direct call draws) and no
//! other collection or stream lifted; stepping the cell once per time step
//! in the RNN's own scope computes the same values, so that is what `RNN`
//! does. A cell that draws other keys or makes or changes other variables
//! would see them scanned differently, so that is refused by name, as are
//! scan settings other than Flax's defaults.
//!
//! The time axis is 0 (`time_major`) or the one before the cell's feature
//! axes; `reverse` flips the sequence first (keeping each sequence's padding
//! at its end when `seq_lengths` is given, as Flax's `flip_sequences` does)
//! and `keep_order` flips the outputs back. With `seq_lengths` and
//! `return_carry`, the carry returned is each sequence's carry at its last
//! valid step; the outputs at padding steps are computed, not zeroed.

use super::linen::{call_in_scope, footprint};
use super::linen_layers::{field, layer_class};
use super::recurrent::{call1, lib_attr};
use super::rnn::{one_direction, setting, step};
use super::*;
use crate::python::ops::{binop, getattr, getitem};
use rustpython_parser::ast::Operator;

/// Refuses scan settings other than the defaults `RNN` is computed with.
fn refuse_scan_settings(me: &Instance) -> Result<()> {
    let empty = |o: &Obj| match super::frozen_dict::unfreeze_obj(o) {
        Obj::Dict(d) => d.borrow().items.is_empty(),
        _ => false,
    };
    let defaults = [
        ("variable_axes", empty(&field(me, "variable_axes"))),
        (
            "variable_broadcast",
            matches!(field(me, "variable_broadcast"), Obj::Str(s) if &*s == "params"),
        ),
        (
            "variable_carry",
            matches!(field(me, "variable_carry"), Obj::Bool(false)),
        ),
        ("split_rngs", params_not_split(&field(me, "split_rngs"))),
    ];
    for (name, ok) in defaults {
        if !ok {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: linen RNN with {name} other than its default"
            );
        }
    }
    Ok(())
}

/// Whether `split_rngs` is `{'params': False}`.
fn params_not_split(o: &Obj) -> bool {
    let plain = super::frozen_dict::unfreeze_obj(o);
    let Obj::Dict(d) = plain else { return false };
    let d = d.borrow();
    d.items.len() == 1 && matches!(d.get(&Obj::str("params")), Some(Obj::Bool(false)))
}

fn jnp(interp: &mut Interp, name: &str, args: Args) -> Result<Obj> {
    let f = lib_attr(interp, "jax.numpy", name)?;
    interp.call(&f, args)
}

/// Flax's `flip_sequences`: the sequence reversed along its time axis, or,
/// with `seq_lengths`, each sequence's valid steps reversed in place.
fn flip_sequences(
    interp: &mut Interp,
    x: &Value,
    seq_lengths: Option<&Obj>,
    (batch_dims, time_major): (usize, bool),
) -> Result<Value> {
    let time_axis = if time_major { 0 } else { batch_dims };
    let Some(lengths) = seq_lengths else {
        return jops::rev(x, &[time_axis]);
    };
    let steps = x.shape()[time_axis] as i64;
    let kw = vec![("axis".to_string(), Obj::Int(time_axis as i64))];
    let lengths = jnp(interp, "expand_dims", Args::with(vec![lengths.clone()], kw))?;
    let order = vec![Obj::Int(steps - 1), Obj::Int(-1), Obj::Int(-1)];
    let idxs = jnp(interp, "arange", Args::new(order))?;
    let mut shape = vec![Obj::Int(1); batch_dims];
    let at = if time_major { 0 } else { batch_dims };
    shape.insert(at, Obj::Int(steps));
    let idxs = jnp(interp, "reshape", Args::new(vec![idxs, Obj::list(shape)]))?;
    let idxs = binop(interp, &Operator::Add, &idxs, &lengths, false)?;
    let idxs = binop(interp, &Operator::Mod, &idxs, &Obj::Int(steps), false)?;
    let mut full = to_value(&idxs)?.shape();
    full.resize(x.ndim().max(full.len()), 1);
    let full = Obj::list(full.into_iter().map(|d| Obj::Int(d as i64)).collect());
    let idxs = jnp(interp, "reshape", Args::new(vec![idxs, full]))?;
    let kw = vec![("axis".to_string(), Obj::Int(time_axis as i64))];
    let args = Args::with(vec![Obj::Array(x.clone()), idxs], kw);
    to_value(&jnp(interp, "take_along_axis", args)?)
}

/// Each leaf of the stacked carries (time first) at its sequence's last
/// valid step: `x[seq_lengths - 1, arange(batch)]`.
fn select_last_carry(interp: &mut Interp, carries: &Obj, seq_lengths: &Obj) -> Result<Obj> {
    let last = binop(interp, &Operator::Sub, seq_lengths, &Obj::Int(1), false)?;
    let (leaves, def) = flatten_known(carries)?;
    let mut out = Vec::new();
    for leaf in leaves {
        let batch = to_value(&leaf)?.shape().get(1).copied().unwrap_or(0);
        let rows = jnp(interp, "arange", Args::new(vec![Obj::Int(batch as i64)]))?;
        out.push(getitem(
            interp,
            &leaf,
            &Obj::tuple(vec![last.clone(), rows]),
        )?);
    }
    unflatten_known(&def, &out)
}

/// The time axis and the number of batch dimensions of an input of `nd`
/// dimensions for a cell with `features` feature axes.
fn axes(nd: usize, features: usize, time_major: bool) -> Result<(usize, usize)> {
    if nd < features + 1 {
        bail!(
            ValueError,
            "RNN inputs need a time axis before the cell's {features} feature axes, got {nd} dimensions"
        );
    }
    Ok(match time_major {
        true => (0, nd - features - 1),
        false => (nd - features - 1, nd - features - 1),
    })
}

/// The carry to start from: the one given, else the cell's
/// `initialize_carry(init_key or key(0), input shape without time)`.
fn first_carry(
    interp: &mut Interp,
    a: &Args,
    cell: &Obj,
    x: &Value,
    time_axis: usize,
) -> Result<Obj> {
    if let Some(c) = a.opt(None, "initial_carry") {
        return Ok(c);
    }
    let key = match a.opt(None, "init_key") {
        Some(k) => k,
        None => {
            let make = lib_attr(interp, "jax.random", "key")?;
            call1(interp, &make, Obj::Int(0))?
        }
    };
    let mut shape = x.shape();
    shape.remove(time_axis);
    let shape = Obj::tuple(shape.into_iter().map(|d| Obj::Int(d as i64)).collect());
    let init = getattr(interp, cell, "initialize_carry")?;
    interp.call(&init, Args::new(vec![key, shape]))
}

/// `scan_fn`: the cell on one step, returning `(carry, output)`, or
/// `(carry, (carry, output))` when the carries are kept.
fn scan_fn(cell: Obj, keep_carries: bool) -> Obj {
    Obj::native("scan_fn", move |interp, a| {
        let carry = a.req(Some(0), "carry", "scan_fn")?;
        let x = a.req(Some(1), "x", "scan_fn")?;
        let out = interp.call(&cell, Args::new(vec![carry, x]))?;
        let [next, y] = <[Obj; 2]>::try_from(iterate(&out)?)
            .map_err(|_| err!(ValueError, "a cell returns (carry, output)"))?;
        Ok(match keep_carries {
            true => Obj::tuple(vec![next.clone(), Obj::tuple(vec![next, y])]),
            false => Obj::tuple(vec![next, y]),
        })
    })
}

/// The cell scanned over the time axis with `jax.lax.scan` (compiled as
/// Flax's scan is, so the step's arithmetic is fused as XLA fuses it): the
/// last carry, the stacked carries (when `keep_carries`) and the outputs.
/// When initializing, the cell first runs once on the first step to make
/// its parameters, which the scan then reads, as Flax's broadcast
/// parameters are made outside the loop.
fn run_cell(
    interp: &mut Interp,
    (me, cell): (&Instance, &Obj),
    carry: Obj,
    (x, time_axis): (&Value, usize),
    keep_carries: bool,
) -> Result<(Obj, Option<Obj>, Obj)> {
    if x.shape()[time_axis] == 0 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: linen RNN over an empty time axis"
        );
    }
    let before = footprint(interp)?;
    if super::linen::with_run(interp, |run| Ok(run.initializing()))? {
        let first = Obj::Array(step(x, time_axis, 0)?);
        interp.call(cell, Args::new(vec![carry.clone(), first]))?;
    }
    let xs = Obj::Array(jops::moveaxis(x, time_axis, 0)?);
    let scan = lib_attr(interp, "jax.lax", "scan")?;
    let kw = vec![("unroll".to_string(), field(me, "unroll"))];
    let body = scan_fn(cell.clone(), keep_carries);
    let out = interp.call(&scan, Args::with(vec![body, carry, xs], kw))?;
    if !before.same(&footprint(interp)?) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: linen RNN over a cell that draws keys or makes variables beyond params"
        );
    }
    let [carry, ys] = <[Obj; 2]>::try_from(iterate(&out)?)
        .map_err(|_| err!(ValueError, "scan returns (carry, outputs)"))?;
    let (carries, ys) = match keep_carries {
        true => {
            let [c, y] = <[Obj; 2]>::try_from(iterate(&ys)?)
                .map_err(|_| err!(ValueError, "scan returns (carries, outputs)"))?;
            (Some(c), y)
        }
        false => (None, ys),
    };
    Ok((carry, carries, move_axis(&ys, time_axis)?))
}

/// Each leaf of `tree` with its axis 0 moved to `axis`.
fn move_axis(tree: &Obj, axis: usize) -> Result<Obj> {
    if axis == 0 {
        return Ok(tree.clone());
    }
    let (leaves, def) = flatten_known(tree)?;
    let moved = leaves
        .iter()
        .map(|l| Ok(Obj::Array(jops::moveaxis(&to_value(l)?, 0, axis)?)))
        .collect::<Result<Vec<_>>>()?;
    unflatten_known(&def, &moved)
}

/// The body of `RNN.__call__`, run in the RNN's scope.
fn rnn_body(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "RNN.__call__")?;
    refuse_scan_settings(&me)?;
    let x = to_value(&a.req(Some(1), "inputs", "RNN.__call__")?)?;
    let return_carry = setting(&a, &me, "return_carry")?;
    let time_major = setting(&a, &me, "time_major")?;
    let reverse = setting(&a, &me, "reverse")?;
    let keep_order = setting(&a, &me, "keep_order")?;
    let cell = field(&me, "cell");
    let features = to_int(&getattr(interp, &cell, "num_feature_axes")?)?.max(0) as usize;
    let (time_axis, batch_dims) = axes(x.ndim(), features, time_major)?;
    let lengths = a.opt(None, "seq_lengths");
    let flip = (batch_dims, time_major);
    let x = match reverse {
        true => flip_sequences(interp, &x, lengths.as_ref(), flip)?,
        false => x,
    };
    let carry = first_carry(interp, &a, &cell, &x, time_axis)?;
    let slice_carry = lengths.is_some() && return_carry;
    let (mut carry, carries, outputs) =
        run_cell(interp, (&me, &cell), carry, (&x, time_axis), slice_carry)?;
    if let (Some(carries), Some(lengths)) = (carries, &lengths) {
        carry = select_last_carry(interp, &carries, lengths)?;
    }
    let outputs = match reverse && keep_order {
        true => {
            let (leaves, def) = flatten_known(&outputs)?;
            let mut flipped = Vec::new();
            for l in leaves {
                let v = flip_sequences(interp, &to_value(&l)?, lengths.as_ref(), flip)?;
                flipped.push(Obj::Array(v));
            }
            unflatten_known(&def, &flipped)?
        }
        false => outputs,
    };
    Ok(match return_carry {
        true => Obj::tuple(vec![carry, outputs]),
        false => outputs,
    })
}

/// The body of `Bidirectional.__call__`: the forward RNN, then the backward
/// one (reversed, keeping order), each returning its carry, and their
/// outputs merged by `merge_fn`.
fn bidirectional_body(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Bidirectional.__call__")?;
    let x = a.req(Some(1), "inputs", "Bidirectional.__call__")?;
    let time_major = setting(&a, &me, "time_major")?;
    let return_carry = setting(&a, &me, "return_carry")?;
    let keys = match a.opt(None, "init_key") {
        Some(k) => {
            let split = lib_attr(interp, "jax.random", "split")?;
            iterate(&call1(interp, &split, k)?)?
        }
        None => vec![Obj::None, Obj::None],
    };
    let carries = match a.opt(None, "initial_carry") {
        Some(pair) => iterate(&pair)?,
        None => vec![Obj::None, Obj::None],
    };
    let mut results = Vec::new();
    for (k, name) in ["forward_rnn", "backward_rnn"].iter().enumerate() {
        let pick = |v: &[Obj]| v.get(k).cloned().unwrap_or(Obj::None);
        let given = vec![
            ("initial_carry".to_string(), pick(&carries)),
            ("init_key".to_string(), pick(&keys)),
        ];
        let rnn = field(&me, name);
        results.push(one_direction(
            interp,
            &rnn,
            (&x, &a),
            (k == 1, time_major),
            given,
        )?);
    }
    let [(fc, fy), (bc, by)] =
        <[(Obj, Obj); 2]>::try_from(results).map_err(|_| err!(ValueError, "two directions"))?;
    let tree_map = lib_attr(interp, "jax.tree_util", "tree_map")?;
    let merged = interp.call(&tree_map, Args::new(vec![field(&me, "merge_fn"), fy, by]))?;
    Ok(match return_carry {
        true => Obj::tuple(vec![Obj::tuple(vec![fc, bc]), merged]),
        false => merged,
    })
}

/// A `__call__` that runs `body` in the module's scope.
fn scoped(name: &str, body: fn(&mut Interp, Args) -> Result<Obj>) -> Obj {
    let body = Obj::native(format!("{name}.__call__"), body);
    Obj::native(format!("{name}.__call__"), move |interp, a| {
        let me = self_arg(&a, "__call__")?;
        call_in_scope(interp, &me, &body, a)
    })
}

/// Adds `RNN` and `Bidirectional` to `flax.linen`.
pub(super) fn register(interp: &mut Interp, b: &mut Builder, module: &Rc<Class>) -> Result<()> {
    let f = || Some(Obj::Bool(false));
    let frozen = lib_attr(interp, "flax.core", "FrozenDict")?;
    let mut d = Dict::default();
    d.set(Obj::str("params"), Obj::Bool(false));
    let split = Obj::Dict(Rc::new(RefCell::new(d)));
    let split = call1(interp, &frozen, split)?;
    let empty = interp.call(&frozen, Args::default())?;
    let rnn_fields = vec![
        ("cell", None),
        ("time_major", f()),
        ("return_carry", f()),
        ("reverse", f()),
        ("keep_order", f()),
        ("unroll", Some(Obj::Int(1))),
        ("variable_axes", Some(empty)),
        ("variable_broadcast", Some(Obj::str("params"))),
        ("variable_carry", f()),
        ("split_rngs", Some(split)),
    ];
    let call = vec![("__call__".to_string(), scoped("RNN", rnn_body))];
    b.attr(
        "RNN",
        Obj::Class(layer_class(module, "RNN", rnn_fields, call)),
    );
    let concatenate = Obj::native("_concatenate", |_, a| {
        let x = to_value(&a.req(Some(0), "a", "_concatenate")?)?;
        let y = to_value(&a.req(Some(1), "b", "_concatenate")?)?;
        Ok(Obj::Array(jops::concatenate(&[x, y], -1)?))
    });
    let bi_fields = vec![
        ("forward_rnn", None),
        ("backward_rnn", None),
        ("merge_fn", Some(concatenate)),
        ("time_major", f()),
        ("return_carry", f()),
    ];
    let call = vec![(
        "__call__".to_string(),
        scoped("Bidirectional", bidirectional_body),
    )];
    let bi = layer_class(module, "Bidirectional", bi_fields, call);
    b.attr("Bidirectional", Obj::Class(bi));
    Ok(())
}
