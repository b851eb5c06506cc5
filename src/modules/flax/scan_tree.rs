//! `nnx.scan` in tree mode (`graph=False`, or `graph_updates=False`).
//!
//! Here a module argument is a pytree of its variables and `in_axes` may
//! give it a tree of axes (as `nnx.prefix` makes): each variable is scanned
//! along its axis or, with `None`, broadcast. Unlike graph mode, a
//! broadcast variable travels through the loop with the carry, so what the
//! steps write into it (a counter, say) is kept and written back at the
//! end; a scanned variable comes out stacked along its axis. The step runs
//! on the caller's own variables, their values swapped for the step's
//! slices, and everything is restored if the call fails.

use super::batch::{has_host_leaves, leading_size, slice_tree, stack_trees};
use super::nnx::collect_vars;
use super::scan::{is_carry, out_spec, Axis, OutAxes, Spec};
use super::*;

/// How one positional argument enters the step.
enum Arg {
    /// The loop carry; `true` when it is a module (its variables carry).
    Carry(bool),
    /// A plain value scanned along its axis (moved to the front).
    Scanned(Obj),
    /// Passed to every step as it is (a module's variables are listed
    /// apart).
    Fixed,
}

/// The variables of a call, by what the loop does with them.
#[derive(Default)]
struct Vars {
    carried: Vec<Rc<Instance>>,
    broadcast: Vec<Rc<Instance>>,
    scanned: Vec<(Rc<Instance>, i64)>,
}

impl Vars {
    fn all(&self) -> Vec<Rc<Instance>> {
        let mut v = self.carried.clone();
        v.extend(self.broadcast.iter().cloned());
        v.extend(self.scanned.iter().map(|(x, _)| x.clone()));
        v
    }
}

fn value(v: &Instance) -> Obj {
    iattr(v, "value").unwrap_or(Obj::None)
}

fn values(vars: &[Rc<Instance>]) -> Obj {
    Obj::list(vars.iter().map(|v| value(v)).collect())
}

fn set_values(vars: &[Rc<Instance>], vals: &Obj) -> Result<()> {
    for (v, x) in vars.iter().zip(iterate(vals)?) {
        set_iattr(v, "value", x);
    }
    Ok(())
}

/// The axis `axes` gives a module argument's variable at `path`.
fn var_axis(axes: &Obj, path: &[String]) -> Result<Obj> {
    if matches!(axes, Obj::Int(_) | Obj::None) {
        return Ok(axes.clone());
    }
    super::prefix::axis_at(axes, path)
}

/// Sorts one argument into `vars` (a module) or an [`Arg`].
fn sort_arg(interp: &mut Interp, a: &Obj, axes: &Obj, vars: &mut Vars) -> Result<Arg> {
    let is_module = matches!(a, Obj::Instance(i) if is_nnx_module(i));
    if is_carry(axes) {
        if is_module {
            let mut found = vec![];
            collect_vars(a, &mut vec![], &|_| true, &mut found);
            vars.carried.extend(found.into_iter().map(|(_, v)| v));
        }
        return Ok(Arg::Carry(is_module));
    }
    if !is_module {
        return match axes {
            Obj::Int(k) => Ok(Arg::Scanned(super::scan::move_axis(interp, a, *k, 0)?)),
            Obj::None => Ok(Arg::Fixed),
            _ => bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.scan with a tree of axes for an argument that is not a module"
            ),
        };
    }
    let mut found = vec![];
    collect_vars(a, &mut vec![], &|_| true, &mut found);
    for (path, v) in found {
        match var_axis(axes, &path)? {
            Obj::Int(k) => vars.scanned.push((v, k)),
            _ => vars.broadcast.push(v),
        }
    }
    Ok(Arg::Fixed)
}

/// Flax refuses a variable reached twice in tree mode; shardlab does not
/// build that error's text, so it refuses by name.
fn check_no_aliases(vars: &Vars) -> Result<()> {
    let all = vars.all();
    for (k, v) in all.iter().enumerate() {
        if all[..k].iter().any(|w| Rc::ptr_eq(v, w)) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.scan with graph=False over a Variable reached twice"
            );
        }
    }
    Ok(())
}

/// One call: the sorted arguments and what the step needs.
struct Call {
    spec: Rc<Spec>,
    kw: Vec<(String, Obj)>,
    pos: Vec<Obj>,
    args: Vec<Arg>,
    vars: Vars,
    outs: OutAxes,
}

impl Call {
    /// `((carry, carried values, broadcast values), (ys, scanned values))`
    /// of one step, from the carry and this step's slices.
    fn step(&self, interp: &mut Interp, carry: &Obj, xs: &Obj) -> Result<Obj> {
        let c = iterate(carry)?;
        let x = iterate(xs)?;
        set_values(&self.vars.carried, &c[1])?;
        set_values(&self.vars.broadcast, &c[2])?;
        let scanned: Vec<Rc<Instance>> = self.vars.scanned.iter().map(|(v, _)| v.clone()).collect();
        set_values(&scanned, &x[0])?;
        let mut plain = iterate(&x[1])?.into_iter();
        let mut pos = vec![];
        for (a, orig) in self.args.iter().zip(&self.pos) {
            pos.push(match a {
                Arg::Carry(true) | Arg::Fixed => orig.clone(),
                Arg::Carry(false) => c[0].clone(),
                Arg::Scanned(_) => plain.next().unwrap_or(Obj::None),
            });
        }
        let out = interp.call(&self.spec.f, Args::with(pos.clone(), self.kw.clone()))?;
        let (carry_out, ys) = self.split_out(out, &pos)?;
        let carry = Obj::tuple(vec![
            carry_out,
            values(&self.vars.carried),
            values(&self.vars.broadcast),
        ]);
        let ys = Obj::tuple(vec![Obj::tuple(ys), values(&scanned)]);
        Ok(Obj::tuple(vec![carry, ys]))
    }

    /// The plain carry and the scanned outputs of the function's result; a
    /// carried module must come back as itself.
    fn split_out(&self, out: Obj, pos: &[Obj]) -> Result<(Obj, Vec<Obj>)> {
        let (carry, ys) = match &self.outs {
            OutAxes::Whole(Axis::Carry) => (Some(out), vec![]),
            OutAxes::Whole(_) => (None, vec![out]),
            OutAxes::Items(axes) => {
                let items = match &out {
                    Obj::Tuple(t) if t.len() == axes.len() => t.to_vec(),
                    _ => bail!(
                        ValueError,
                        "nnx.scan out_axes has {} entries but the function returned {}",
                        axes.len(),
                        repr_of(&out)
                    ),
                };
                let mut carry = None;
                let mut ys = vec![];
                for (it, ax) in items.into_iter().zip(axes) {
                    match ax {
                        Axis::Carry => carry = Some(it),
                        _ => ys.push(it),
                    }
                }
                (carry, ys)
            }
        };
        if ys.iter().any(super::scan::holds_module) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.scan with graph=False returning modules"
            );
        }
        let at = self.args.iter().position(|a| matches!(a, Arg::Carry(_)));
        let carry = match (at, carry) {
            (Some(k), Some(c)) if matches!(self.args[k], Arg::Carry(true)) => {
                let same = matches!((&c, &pos[k]), (Obj::Instance(a), Obj::Instance(b)) if Rc::ptr_eq(a, b));
                if !same {
                    bail!(
                        ValueError,
                        "nnx.scan: the carry must come out of the function as the module that went in"
                    );
                }
                Obj::None
            }
            (_, c) => c.unwrap_or(Obj::None),
        };
        Ok((carry, ys))
    }

    /// The carry the loop starts from and the values it scans over.
    fn inputs(&self) -> (Obj, Obj) {
        let mut carry = Obj::None;
        let mut plain = vec![];
        for (a, orig) in self.args.iter().zip(&self.pos) {
            match a {
                Arg::Carry(false) => carry = orig.clone(),
                Arg::Scanned(x) => plain.push(x.clone()),
                _ => {}
            }
        }
        let scanned: Vec<Obj> = self.vars.scanned.iter().map(|(v, _)| value(v)).collect();
        let scanned = Obj::list(scanned);
        (
            Obj::tuple(vec![
                carry,
                values(&self.vars.carried),
                values(&self.vars.broadcast),
            ]),
            Obj::tuple(vec![scanned, Obj::list(plain)]),
        )
    }
}

/// Runs the steps one by one on the host (for rng streams, whose keys
/// cannot be traced): the final carry and the stacked outputs.
fn host_loop(interp: &mut Interp, call: &Call) -> Result<(Obj, Obj)> {
    let (mut carry, xs) = call.inputs();
    let n = match &call.spec.length {
        Some(l) => usize::try_from(to_int(l)?).unwrap_or(0),
        None => leading_size(&xs)?.ok_or_else(|| {
            err!(
                ValueError,
                "scan got no values to scan over and `length` not provided."
            )
        })?,
    };
    let order: Vec<usize> = if truthy(&call.spec.reverse, "reverse")? {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    };
    let mut ys = vec![Obj::None; n];
    for i in order {
        let printed = interp.out.len();
        let r = iterate(&call.step(interp, &carry, &slice_tree(&xs, i)?)?)?;
        if interp.out.len() != printed {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: printing inside nnx.scan over rng streams"
            );
        }
        carry = r[0].clone();
        ys[i] = r[1].clone();
    }
    Ok((carry, stack_trees(&ys)?))
}

/// Runs the steps under `jax.lax.scan`.
fn traced(interp: &mut Interp, call: Rc<Call>) -> Result<(Obj, Obj)> {
    let (carry, xs) = call.inputs();
    let spec = call.spec.clone();
    let body = Obj::native("nnx.scan.body", move |i, a| {
        let carry = a.req(Some(0), "carry", "scan")?;
        let xs = a.req(Some(1), "xs", "scan")?;
        call.step(i, &carry, &xs)
    });
    super::scan::lax_scan(interp, &spec, body, carry, xs)
}

/// Writes the loop's results into the variables and assembles the output.
fn finish(interp: &mut Interp, call: &Call, carry: Obj, stacked: Obj) -> Result<Obj> {
    let c = iterate(&carry)?;
    set_values(&call.vars.carried, &c[1])?;
    set_values(&call.vars.broadcast, &c[2])?;
    let parts = iterate(&stacked)?;
    for ((v, k), x) in call.vars.scanned.iter().zip(iterate(&parts[1])?) {
        set_iattr(v, "value", super::scan::move_axis(interp, &x, 0, *k)?);
    }
    let carry_obj = match call.args.iter().position(|a| matches!(a, Arg::Carry(_))) {
        Some(k) if matches!(call.args[k], Arg::Carry(true)) => call.pos[k].clone(),
        _ => c[0].clone(),
    };
    let mut ys = vec![];
    let y_axes: Vec<i64> = match &call.outs {
        OutAxes::Whole(Axis::Index(a)) => vec![*a],
        OutAxes::Items(v) => v
            .iter()
            .filter_map(|a| match a {
                Axis::Index(k) => Some(*k),
                _ => None,
            })
            .collect(),
        OutAxes::Whole(_) => vec![],
    };
    for (y, a) in iterate(&parts[0])?.iter().zip(y_axes) {
        ys.push(super::scan::move_axis(interp, y, 0, a)?);
    }
    let mut ys = ys.into_iter();
    Ok(match &call.outs {
        OutAxes::Whole(Axis::Carry) => carry_obj,
        OutAxes::Whole(_) => ys.next().unwrap_or(Obj::None),
        OutAxes::Items(v) => Obj::tuple(
            v.iter()
                .map(|a| match a {
                    Axis::Carry => carry_obj.clone(),
                    _ => ys.next().unwrap_or(Obj::None),
                })
                .collect(),
        ),
    })
}

/// The axes object of every positional argument.
pub(super) fn arg_axes(in_axes: &Obj, n: usize) -> Result<Vec<Obj>> {
    match in_axes {
        Obj::Tuple(_) | Obj::List(_) => {
            let v = iterate(in_axes)?;
            if v.len() != n {
                bail!(
                    ValueError,
                    "nnx.scan in_axes has {} entries but the function got {n} positional arguments",
                    v.len()
                );
            }
            Ok(v)
        }
        o if is_carry(o) && n != 1 => bail!(
            ValueError,
            "When in_axes=Carry, the function must take exactly one argument, got {n} arguments."
        ),
        other => Ok(vec![other.clone(); n]),
    }
}

/// One call of an `nnx.scan` in tree mode.
pub(super) fn scan_call(interp: &mut Interp, spec: &Rc<Spec>, a: Args) -> Result<Obj> {
    let axes = arg_axes(&spec.in_axes, a.pos.len())?;
    let outs = out_spec(&spec.out_axes)?;
    let carries = axes.iter().filter(|x| is_carry(x)).count();
    let out_carries = match &outs {
        OutAxes::Whole(x) => usize::from(*x == Axis::Carry),
        OutAxes::Items(v) => v.iter().filter(|x| **x == Axis::Carry).count(),
    };
    if carries > 1 || out_carries > 1 || (carries == 0) != (out_carries == 0) {
        bail!(
            ValueError,
            "nnx.scan needs one Carry in both in_axes and out_axes, or none in either; got in_axes={} and out_axes={}",
            repr_of(&spec.in_axes),
            repr_of(&spec.out_axes)
        );
    }
    let mut vars = Vars::default();
    let mut args = vec![];
    for (x, ax) in a.pos.iter().zip(&axes) {
        args.push(sort_arg(interp, x, ax, &mut vars)?);
    }
    check_no_aliases(&vars)?;
    let saved: Vec<(Rc<Instance>, Obj)> = vars
        .all()
        .into_iter()
        .map(|v| (v.clone(), value(&v)))
        .collect();
    let call = Rc::new(Call {
        spec: spec.clone(),
        kw: a.kw.clone(),
        pos: a.pos.clone(),
        args,
        vars,
        outs,
    });
    let (carry, xs) = call.inputs();
    let host = has_host_leaves(&carry)? || has_host_leaves(&xs)?;
    let r = if host {
        host_loop(interp, &call)
    } else {
        traced(interp, call.clone())
    };
    match r {
        Ok((carry, stacked)) => finish(interp, &call, carry, stacked),
        Err(e) => {
            for (v, x) in saved {
                set_iattr(&v, "value", x);
            }
            Err(e)
        }
    }
}
