//! Evaluating `cond`, `while` and `scan` equations on the lanes of a
//! [`Comm`].
//!
//! The bodies run with [`eval_lanes`] on the caller's lanes, as a `jit` body
//! does, so a collective inside a loop body meets the same collective on
//! every other lane. Lanes may disagree where a program branches on data:
//! a vmap with a batched predicate, or devices whose data differ. Then every
//! lane runs every branch that some lane takes, and keeps its own branch's
//! results (what JAX does for a batched `cond`, which it turns into a
//! select); a `while` keeps stepping while any lane's predicate holds, and a
//! lane whose predicate is false keeps its carry (as JAX's batched `while`).
//! On its own thread a device is a single lane, so it runs only its own
//! branch and its own number of steps.

use super::comm::Comm;
use super::{eval_lanes, eval_planned, Plan};
use crate::array::Array;
use crate::bail;
use crate::error::Result;
use crate::primitives::{CondParams, ScanParams, WhileParams};

/// `ins[i][lane]` regrouped: the first `n` operands, then the rest.
fn split(mut ins: Vec<Vec<Array>>, n: usize) -> (Vec<Vec<Array>>, Vec<Vec<Array>>) {
    let rest = ins.split_off(n.min(ins.len()));
    (ins, rest)
}

/// The per-lane value of a scalar operand.
fn scalars(xs: &[Array]) -> Vec<f64> {
    xs.iter().map(|a| a.get_f64(0)).collect()
}

/// Runs the branch each lane's index selects (clamped into range, as XLA
/// clamps it).
pub fn eval_cond(p: &CondParams, ins: Vec<Vec<Array>>, comm: &dyn Comm) -> Result<Vec<Vec<Array>>> {
    let (index, ops) = split(ins, 1);
    let Some(index) = index.into_iter().next() else {
        bail!(TypeError, "cond takes an index operand");
    };
    let last = p.branches.len().saturating_sub(1);
    let chosen: Vec<usize> = scalars(&index)
        .iter()
        .map(|&i| (i.max(0.0) as usize).min(last))
        .collect();
    let mut taken: Vec<usize> = chosen.clone();
    taken.sort_unstable();
    taken.dedup();
    if let [only] = taken[..] {
        return eval_lanes(&p.branches[only], ops, comm);
    }
    let mut results: Vec<(usize, Vec<Vec<Array>>)> = vec![];
    for &b in &taken {
        results.push((b, eval_lanes(&p.branches[b], ops.clone(), comm)?));
    }
    let n_out = results[0].1.len();
    Ok((0..n_out)
        .map(|o| {
            chosen
                .iter()
                .enumerate()
                .map(|(lane, b)| {
                    let at = results.iter().position(|(k, _)| k == b).unwrap_or(0);
                    results[at].1[o][lane].clone()
                })
                .collect()
        })
        .collect())
}

/// Steps the carry while some lane's predicate holds.
pub fn eval_while(
    p: &WhileParams,
    ins: Vec<Vec<Array>>,
    comm: &dyn Comm,
) -> Result<Vec<Vec<Array>>> {
    let (cconsts, rest) = split(ins, p.cond_nconsts);
    let (bconsts, mut carry) = split(rest, p.body_nconsts);
    let mut holds: Vec<bool> = vec![];
    let (cond_plan, body_plan) = (Plan::of(&p.cond, comm)?, Plan::of(&p.body, comm)?);
    loop {
        if let Some(reason) = comm.stopped() {
            bail!(
                Cancelled,
                "stopped in a while loop{}: {reason}",
                still_looping(&holds, comm)
            );
        }
        let mut args = cconsts.clone();
        args.extend(carry.iter().cloned());
        let pred = eval_planned(&p.cond, &cond_plan, args, comm)
            .map_err(|e| on_devices(e, &holds, comm))?;
        holds = pred
            .first()
            .map(|l| scalars(l).iter().map(|&v| v != 0.0).collect())
            .unwrap_or_default();
        if !holds.iter().any(|&h| h) {
            return Ok(carry);
        }
        let mut args = bconsts.clone();
        args.extend(carry.iter().cloned());
        let next = eval_planned(&p.body, &body_plan, args, comm)
            .map_err(|e| on_devices(e, &holds, comm))?;
        carry = next
            .into_iter()
            .zip(carry)
            .map(|(new, old)| {
                new.into_iter()
                    .zip(old)
                    .zip(&holds)
                    .map(|((n, o), &h)| if h { n } else { o })
                    .collect()
            })
            .collect();
    }
}

/// The devices still in a while loop that was stopped, where only some of
/// the lanes (devices in lockstep) were: ` on device 5`.
fn still_looping(holds: &[bool], comm: &dyn Comm) -> String {
    let Some(positions) = comm.device_positions() else {
        return String::new();
    };
    if positions.len() < 2 || holds.iter().all(|&h| h) {
        return String::new();
    }
    let looping: Vec<String> = positions
        .iter()
        .zip(holds)
        .filter(|(_, &h)| h)
        .map(|(p, _)| p.to_string())
        .collect();
    match looping.len() {
        1 => format!(" on device {}", looping[0]),
        _ => format!(" on devices {}", looping.join(", ")),
    }
}

/// A stop inside a while loop's body or condition, naming the devices
/// still looping after where it stopped (`stopped before gt (...) on
/// device 5: ...`).
fn on_devices(mut e: crate::error::Error, holds: &[bool], comm: &dyn Comm) -> crate::error::Error {
    let which = still_looping(holds, comm);
    if e.kind != crate::error::ErrorKind::Cancelled
        || which.is_empty()
        || e.message.contains(" on device")
    {
        return e;
    }
    if let Some((head, rest)) = e.message.clone().split_once(": ") {
        e.message = format!("{head}{which}: {rest}");
    }
    e
}

/// Runs the body once per index of the scanned arrays' leading axis.
pub fn eval_scan(p: &ScanParams, ins: Vec<Vec<Array>>, comm: &dyn Comm) -> Result<Vec<Vec<Array>>> {
    let lanes = comm.lanes();
    let (consts, rest) = split(ins, p.num_consts);
    let (mut carry, xs) = split(rest, p.num_carry);
    let out_avals = p.body.out_avals();
    let n_ys = out_avals.len().saturating_sub(p.num_carry);
    // ys[output][lane][step]
    let mut ys: Vec<Vec<Vec<Array>>> =
        vec![vec![Vec::with_capacity(p.length.min(1 << 16)); lanes]; n_ys];
    let plan = Plan::of(&p.body, comm)?;
    for k in 0..p.length {
        let i = if p.reverse { p.length - 1 - k } else { k };
        let mut args = consts.clone();
        args.extend(carry);
        for x in &xs {
            args.push(
                x.iter()
                    .map(|a| a.index(i as i64, 0))
                    .collect::<Result<_>>()?,
            );
        }
        let mut outs = eval_planned(&p.body, &plan, args, comm)?;
        let step_ys = outs.split_off(p.num_carry.min(outs.len()));
        carry = outs;
        for (y, lanes_y) in ys.iter_mut().zip(step_ys) {
            for (acc, a) in y.iter_mut().zip(lanes_y) {
                acc.push(a);
            }
        }
    }
    let mut result = carry;
    for (y, aval) in ys.into_iter().zip(&out_avals[p.num_carry..]) {
        let mut stacked = Vec::with_capacity(lanes);
        for mut steps in y {
            if p.reverse {
                steps.reverse();
            }
            stacked.push(if steps.is_empty() {
                let mut shape = vec![0];
                shape.extend(aval.shape.iter().copied());
                Array::zeros(&shape, aval.dtype)
            } else {
                Array::stack(&steps, 0)?
            });
        }
        result.push(stacked);
    }
    Ok(result)
}
