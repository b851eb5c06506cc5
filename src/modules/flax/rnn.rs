//! `nnx.RNN` and `nnx.Bidirectional`: a cell run over the time axis.
//!
//! `RNN` takes the time axis to be 0 (`time_major`) or the one before the
//! features, flips the sequence first when `reverse` (and flips the
//! outputs back when also `keep_order`), asks the cell for its initial
//! carry unless one is given, and steps the cell once per time step,
//! stacking the outputs along the time axis, which is what Flax's scan over
//! the cell computes. Its own `carry` stream (`RngStream(0, tag='carry')`
//! unless `rngs` says otherwise) feeds `initialize_carry`, as in Flax.
//! `Bidirectional` runs a forward and a reversed RNN with
//! `return_carry=True` and merges their outputs (by concatenating the
//! features unless `merge_fn` is given).

use super::recurrent::RecurrentClasses;
use super::*;
use crate::python::ops::getattr;

/// The stream an RNN keeps from its `rngs` argument: a fresh
/// `RngStream(0, tag='carry')` for True, a fork of an `Rngs`' `carry`
/// stream, None for False.
fn own_stream(interp: &mut Interp, c: &RecurrentClasses, rngs: Obj, layer: &str) -> Result<Obj> {
    match &rngs {
        Obj::Bool(true) => {
            let kw = vec![("tag".to_string(), Obj::str("carry"))];
            interp.call(
                &Obj::Class(c.stream.clone()),
                Args::with(vec![Obj::Int(0)], kw),
            )
        }
        Obj::Bool(false) => Ok(Obj::None),
        Obj::Instance(i) if derives(&i.class, &c.rngs) => fork_carry(interp, &rngs),
        Obj::Instance(i) if derives(&i.class, &c.stream) && layer == "Bidirectional" => Ok(rngs),
        other => bail!(
            ValueError,
            "Expected rngs to be a jax.Array, int, Rngs, or bool. Got {}.",
            format!("<class '{}'>", other.type_name())
        ),
    }
}

fn fork_carry(interp: &mut Interp, rngs: &Obj) -> Result<Obj> {
    let carry = getattr(interp, rngs, "carry")?;
    let fork = getattr(interp, &carry, "fork")?;
    interp.call(&fork, Args::default())
}

fn rnn_init(c: &RecurrentClasses) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let c = c.clone();
    move |interp, a| {
        let me = self_arg(&a, "RNN")?;
        for name in ["state_axes", "broadcast_rngs"] {
            if a.opt(None, name).is_some() {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx.RNN with {name}"
                );
            }
        }
        set_iattr(&me, "cell", a.req(Some(1), "cell", "RNN")?);
        for name in ["time_major", "return_carry", "reverse", "keep_order"] {
            let v = norm::flag(&a, name, false)?;
            set_iattr(&me, name, Obj::Bool(v));
        }
        set_iattr(&me, "unroll", a.get(None, "unroll").unwrap_or(Obj::Int(1)));
        let rngs = a.get(None, "rngs").unwrap_or(Obj::Bool(true));
        let stream = own_stream(interp, &c, rngs, "RNN")?;
        set_iattr(&me, "rngs", stream);
        set_iattr(&me, "broadcast_rngs", Obj::None);
        Ok(Obj::None)
    }
}

/// A call's setting, or the layer's when the call leaves it None.
pub(super) fn setting(a: &Args, me: &Instance, name: &str) -> Result<bool> {
    match a.opt(None, name) {
        Some(v) => truthy(&v, name),
        None => truthy(&iattr(me, name).unwrap_or(Obj::Bool(false)), name),
    }
}

/// The sequence `x` indexed at `t` along `axis`.
pub(super) fn step(x: &Value, axis: usize, t: usize) -> Result<Value> {
    let shape = x.shape();
    let mut lo = vec![0; shape.len()];
    let mut hi = shape.clone();
    lo[axis] = t;
    hi[axis] = t + 1;
    let part = jops::slice(x, &lo, &hi, &vec![1; shape.len()])?;
    let mut kept = shape;
    kept.remove(axis);
    jops::reshape(&part, &kept)
}

fn rnn_call(c: &RecurrentClasses) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let c = c.clone();
    move |interp, a| {
        let me = self_arg(&a, "RNN.__call__")?;
        if a.opt(None, "seq_lengths").is_some() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.RNN with seq_lengths"
            );
        }
        let x = to_value(&a.req(Some(1), "inputs", "RNN.__call__")?)?;
        let return_carry = setting(&a, &me, "return_carry")?;
        let time_major = setting(&a, &me, "time_major")?;
        let reverse = setting(&a, &me, "reverse")?;
        let keep_order = setting(&a, &me, "keep_order")?;
        let nd = x.ndim();
        if nd < 2 {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.RNN over an input without a time axis"
            );
        }
        let time_axis = if time_major { 0 } else { nd - 2 };
        let x = if reverse {
            jops::rev(&x, &[time_axis])?
        } else {
            x
        };
        let cell = iattr(&me, "cell").unwrap_or(Obj::None);
        let mut carry = match a.opt(None, "initial_carry") {
            Some(init) => init,
            None => first_carry(interp, &c, &me, &a, (&cell, &x, time_axis))?,
        };
        let mut outputs = Vec::new();
        for t in 0..x.shape()[time_axis] {
            let xt = Obj::Array(step(&x, time_axis, t)?);
            let out = interp.call(&cell, Args::new(vec![carry, xt]))?;
            let pair = iterate(&out)?;
            let [next, y] = <[Obj; 2]>::try_from(pair)
                .map_err(|_| err!(ValueError, "a cell returns (carry, output)"))?;
            carry = next;
            outputs.push(to_value(&y)?);
        }
        let mut ys = jops::stack(&outputs, time_axis as i64)?;
        if reverse && keep_order {
            ys = jops::rev(&ys, &[time_axis])?;
        }
        Ok(match return_carry {
            true => Obj::tuple(vec![carry, Obj::Array(ys)]),
            false => Obj::Array(ys),
        })
    }
}

/// The cell's initial carry for inputs shaped as `x` without its time axis,
/// from the call's `rngs` (an `Rngs` gives a fork of its `carry` stream) or
/// the layer's own stream.
fn first_carry(
    interp: &mut Interp,
    c: &RecurrentClasses,
    me: &Instance,
    a: &Args,
    (cell, x, time_axis): (&Obj, &Value, usize),
) -> Result<Obj> {
    let rngs = match a.opt(None, "rngs") {
        Some(r @ Obj::Instance(_)) if matches!(&r, Obj::Instance(i) if derives(&i.class, &c.rngs)) => {
            fork_carry(interp, &r)?
        }
        Some(r) => r,
        None => iattr(me, "rngs").unwrap_or(Obj::None),
    };
    let mut shape = x.shape();
    shape.remove(time_axis);
    let shape = Obj::tuple(shape.into_iter().map(|d| Obj::Int(d as i64)).collect());
    let init = getattr(interp, cell, "initialize_carry")?;
    interp.call(&init, Args::new(vec![shape, rngs]))
}

fn bidirectional_init(c: &RecurrentClasses) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let c = c.clone();
    move |interp, a| {
        let me = self_arg(&a, "Bidirectional")?;
        set_iattr(
            &me,
            "forward_rnn",
            a.req(Some(1), "forward_rnn", "Bidirectional")?,
        );
        set_iattr(
            &me,
            "backward_rnn",
            a.req(Some(2), "backward_rnn", "Bidirectional")?,
        );
        let merge = a.opt(None, "merge_fn").unwrap_or(Obj::None);
        set_iattr(&me, "merge_fn", merge);
        for name in ["time_major", "return_carry"] {
            let v = norm::flag(&a, name, false)?;
            set_iattr(&me, name, Obj::Bool(v));
        }
        let rngs = a.get(None, "rngs").unwrap_or(Obj::Bool(true));
        let stream = own_stream(interp, &c, rngs, "Bidirectional")?;
        set_iattr(&me, "rngs", stream);
        Ok(Obj::None)
    }
}

fn bidirectional_call(c: &RecurrentClasses) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let c = c.clone();
    move |interp, a| {
        let me = self_arg(&a, "Bidirectional.__call__")?;
        let x = a.req(Some(1), "inputs", "Bidirectional.__call__")?;
        let time_major = setting(&a, &me, "time_major")?;
        let return_carry = setting(&a, &me, "return_carry")?;
        let rngs = match a.opt(None, "rngs") {
            Some(r) => r,
            None => iattr(&me, "rngs").unwrap_or(Obj::None),
        };
        let rngs = match &rngs {
            Obj::Instance(i) if derives(&i.class, &c.rngs) => getattr(interp, &rngs, "carry")?,
            _ => rngs,
        };
        let carries = match a.opt(None, "initial_carry") {
            Some(pair) => iterate(&pair)?,
            None => vec![Obj::None, Obj::None],
        };
        let mut results = Vec::new();
        for (k, name) in ["forward_rnn", "backward_rnn"].iter().enumerate() {
            let rnn = iattr(&me, name).unwrap_or(Obj::None);
            let given = vec![
                (
                    "initial_carry".to_string(),
                    carries.get(k).cloned().unwrap_or(Obj::None),
                ),
                ("rngs".to_string(), rngs.clone()),
            ];
            results.push(one_direction(
                interp,
                &rnn,
                (&x, &a),
                (k == 1, time_major),
                given,
            )?);
        }
        let (fwd, bwd) = (results[0].clone(), results[1].clone());
        let merged = match iattr(&me, "merge_fn") {
            None | Some(Obj::None) => Obj::Array(jops::concatenate(
                &[to_value(&fwd.1)?, to_value(&bwd.1)?],
                -1,
            )?),
            Some(f) => interp.call(&f, Args::new(vec![fwd.1, bwd.1]))?,
        };
        Ok(match return_carry {
            true => Obj::tuple(vec![Obj::tuple(vec![fwd.0, bwd.0]), merged]),
            false => merged,
        })
    }
}

/// One direction of a `Bidirectional` (the backward one reversed, keeping
/// order): `rnn` on `x` with the call's `seq_lengths`, `time_major`,
/// the `given` arguments, and `return_carry=True`, as `(carry, outputs)`.
pub(super) fn one_direction(
    interp: &mut Interp,
    rnn: &Obj,
    (x, a): (&Obj, &Args),
    (backward, time_major): (bool, bool),
    given: Vec<(String, Obj)>,
) -> Result<(Obj, Obj)> {
    let mut kw = given;
    kw.extend([
        (
            "seq_lengths".to_string(),
            a.get(None, "seq_lengths").unwrap_or(Obj::None),
        ),
        ("return_carry".to_string(), Obj::Bool(true)),
        ("time_major".to_string(), Obj::Bool(time_major)),
        ("reverse".to_string(), Obj::Bool(backward)),
    ]);
    if backward {
        kw.push(("keep_order".to_string(), Obj::Bool(true)));
    }
    let out = interp.call(rnn, Args::with(vec![x.clone()], kw))?;
    let [carry, y] = <[Obj; 2]>::try_from(iterate(&out)?)
        .map_err(|_| err!(ValueError, "an RNN returns (carry, outputs)"))?;
    Ok((carry, y))
}

/// Adds `RNN` and `Bidirectional`.
pub(super) fn register(b: &mut Builder, c: &RecurrentClasses) {
    let rnn = new_class(
        "RNN",
        vec![c.module.clone()],
        vec![
            ("__init__".into(), Obj::native("RNN.__init__", rnn_init(c))),
            ("__call__".into(), Obj::native("RNN.__call__", rnn_call(c))),
        ],
    );
    let bi = new_class(
        "Bidirectional",
        vec![c.module.clone()],
        vec![
            (
                "__init__".into(),
                Obj::native("Bidirectional.__init__", bidirectional_init(c)),
            ),
            (
                "__call__".into(),
                Obj::native("Bidirectional.__call__", bidirectional_call(c)),
            ),
        ],
    );
    b.attr("RNN", Obj::Class(rnn));
    b.attr("Bidirectional", Obj::Class(bi));
}
