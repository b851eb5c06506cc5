//! Structured control flow: `cond` (one of several branch programs, chosen by
//! an index), `while` (a body program repeated while a predicate program
//! holds) and `scan` (a body program run once per index of a leading axis,
//! threading a carry and stacking per-step outputs).
//!
//! Their bodies are closed jaxprs whose inputs are laid out as JAX lays them
//! out: the values closed over first (consts), then the carry, then the
//! per-step slices. Evaluating an equation runs the bodies on the caller's
//! lanes (`exec::control`), so collectives inside them work under shard_map,
//! pmap and vmap as in a `jit` body.
//!
//! The derivative rules build new control-flow equations from traced
//! derivative bodies: the tangent of a `cond` is a `cond` of the branches'
//! tangent programs, the tangent of a loop is a loop carrying tangents beside
//! primals. The transpose of a `scan` runs a forward scan that records the
//! carry entering each step, then a scan in the opposite direction whose
//! body recomputes that step's forward pass and pulls the cotangents back
//! through it, accumulating the cotangents of the consts in its carry.
//! A `while` has no transpose, as in JAX: its trip count is not known when
//! the backward pass is built.

use super::placement_scan::Placed;
use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::ir::{Aval, Jaxpr};
use crate::ops;
use crate::primitives::Prim;
use crate::trace::{bind, trace, FrameAxes, Value};
use crate::transforms::{jvp_jaxpr_eval, match_vma, vjp_jaxpr_eval};
use std::sync::Arc;

/// Parameters of a `cond` equation: operand 0 is the int32 branch index,
/// the rest are every branch's inputs.
#[derive(Debug, Clone)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct CondParams {
    /// One program per index value, all of the same type.
    pub branches: Vec<Jaxpr>,
}

/// Parameters of a `while` equation: the operands are the predicate's
/// consts, the body's consts, then the carry.
#[derive(Debug, Clone)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct WhileParams {
    /// The predicate: consts and carry in, one boolean scalar out.
    pub cond: Jaxpr,
    /// The step: consts and carry in, the next carry out.
    pub body: Jaxpr,
    /// How many leading operands are the predicate's consts.
    pub cond_nconsts: usize,
    /// How many operands after those are the body's consts.
    pub body_nconsts: usize,
}

/// Parameters of a `scan` equation: the operands are the consts, the
/// initial carry and the scanned arrays (each with a leading axis of
/// `length`); the results are the final carry and the stacked outputs.
#[derive(Debug, Clone)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct ScanParams {
    /// The step: consts, carry, one slice of each scanned array in; the
    /// next carry and one slice of each output out.
    pub body: Jaxpr,
    /// The number of steps.
    pub length: usize,
    /// True to run the steps from the last index to the first.
    pub reverse: bool,
    /// The unrolling factor JAX's compiler is given (no effect on values).
    pub unroll: usize,
    /// How many leading operands are consts.
    pub num_consts: usize,
    /// How many operands after those are the carry.
    pub num_carry: usize,
}

fn is_float(a: &Aval) -> bool {
    a.dtype == DType::F32
}

/// JAX's long form of an aval in messages: `float32[3]`, `int32[]{V:x}`.
pub fn aval_text(a: &Aval) -> String {
    let short = a.to_string();
    let rest = short.split_once('[').map_or("", |(_, r)| r);
    format!("{}[{rest}", a.dtype.name())
}

/// Traces `f` into a closed program on inputs of `avals`.
fn trace_closed<F>(avals: &[Aval], f: F) -> Result<Jaxpr>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    trace_closed_placed(avals, vec![], f)
}

/// [`trace_closed`] on inputs placed at `placements`, so that rules that
/// read where a value lives (a cotangent's sharding) see it in the body.
fn trace_closed_placed<F>(avals: &[Aval], placements: Vec<Placed>, f: F) -> Result<Jaxpr>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    let traced = if placements.iter().all(Option::is_none) {
        trace(avals, FrameAxes::default(), f)?
    } else {
        crate::trace::trace_placed(avals, placements, f)?
    };
    if !traced.captured.is_empty() {
        bail!(
            RuntimeError,
            "a derivative program of a control-flow body closed over an outer value"
        );
    }
    Ok(traced.jaxpr)
}

/// Zeros standing for a symbolic zero of `aval` (varying as it does).
fn zeros_of(aval: &Aval) -> Result<Value> {
    let z = ops::zeros_like(&Value::Concrete(crate::array::Array::zeros(
        &aval.shape,
        aval.dtype,
    )));
    match_vma(z, aval)
}

/// `v`, or zeros of `aval` when `v` is a symbolic zero.
fn instantiate(v: Option<Value>, aval: &Aval) -> Result<Value> {
    match v {
        Some(v) => match_vma(v, aval),
        None => zeros_of(aval),
    }
}

/// The avals of `vals`.
fn avals_of(vals: &[Value]) -> Vec<Aval> {
    vals.iter().map(|v| v.aval()).collect()
}

/// Checks that `got` matches `want` (shape, dtype and VMA; JAX's
/// `typematch` leaves the weak bit out).
fn check_types(what: &str, want: &[Aval], got: &[Aval]) -> Result<()> {
    if want.len() != got.len() || want.iter().zip(got).any(|(a, b)| !a.typematch(b)) {
        let show = |v: &[Aval]| v.iter().map(aval_text).collect::<Vec<_>>().join(", ");
        bail!(
            TypeError,
            "{what} must have identical types, got [{}] and [{}]",
            show(want),
            show(got)
        );
    }
    Ok(())
}

impl CondParams {
    /// Shape rule: every branch takes the operands and all return the same
    /// types, which are the results.
    pub fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>> {
        let Some((index, ops)) = ins.split_first() else {
            bail!(TypeError, "cond takes an index operand");
        };
        if index.dtype != DType::I32 || !index.shape.is_empty() {
            bail!(
                TypeError,
                "cond index must be an int32 scalar, got {}",
                aval_text(index)
            );
        }
        let Some(first) = self.branches.first() else {
            bail!(ValueError, "Empty branch sequence");
        };
        let outs = first.out_avals();
        for b in &self.branches {
            let want: Vec<Aval> = ops.iter().map(|a| a.with_vma(Default::default())).collect();
            let got: Vec<Aval> = b
                .in_avals()
                .iter()
                .map(|a| a.with_vma(Default::default()))
                .collect();
            check_types("cond branch inputs and operands", &want, &got)?;
            check_types("cond branch outputs", &outs, &b.out_avals())?;
        }
        Ok(outs)
    }

    /// Forward mode: a `cond` of the branches' tangent programs, taking the
    /// operands and their nonzero tangents.
    pub fn jvp(&self, p: &[Value], t: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        let ops = &p[1..];
        let nz: Vec<usize> = (0..ops.len())
            .filter(|&i| t[i + 1].is_some() && is_float(&ops[i].aval()))
            .collect();
        let out_avals = self.branches[0].out_avals();
        let float_outs: Vec<usize> = (0..out_avals.len())
            .filter(|&i| is_float(&out_avals[i]))
            .collect();
        let mut in_avals = avals_of(ops);
        let tans: Vec<Value> = nz.iter().filter_map(|&i| t[i + 1].clone()).collect();
        in_avals.extend(avals_of(&tans));
        let branches = self
            .branches
            .iter()
            .map(|b| {
                trace_closed(&in_avals, |args| {
                    let (prim, tan) = args.split_at(ops.len());
                    let mut ts: Vec<Option<Value>> = vec![None; ops.len()];
                    for (&i, v) in nz.iter().zip(tan) {
                        ts[i] = Some(v.clone());
                    }
                    let (outs, touts) = jvp_jaxpr_eval(b, prim, &ts)?;
                    let mut all = outs;
                    for &i in &float_outs {
                        all.push(instantiate(touts[i].clone(), &out_avals[i])?);
                    }
                    Ok(all)
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut operands = p.to_vec();
        operands.extend(tans);
        let outs = bind(Prim::Cond(Arc::new(CondParams { branches })), &operands)?;
        let mut result = vec![None; out_avals.len()];
        for (&i, v) in float_outs.iter().zip(&outs[out_avals.len()..]) {
            result[i] = Some(v.clone());
        }
        Ok(result)
    }

    /// Reverse mode: a `cond` of the branches' cotangent programs, taking the
    /// operands and the nonzero output cotangents.
    pub fn vjp(&self, p: &[Value], cts: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        let ops = &p[1..];
        let nz: Vec<usize> = (0..cts.len()).filter(|&i| cts[i].is_some()).collect();
        let float_ins: Vec<usize> = (0..ops.len())
            .filter(|&i| is_float(&ops[i].aval()))
            .collect();
        let in_avals_ops = avals_of(ops);
        let given: Vec<Value> = nz.iter().filter_map(|&i| cts[i].clone()).collect();
        let mut in_avals = in_avals_ops.clone();
        in_avals.extend(avals_of(&given));
        let branches = self
            .branches
            .iter()
            .map(|b| {
                trace_closed(&in_avals, |args| {
                    let (prim, ct) = args.split_at(ops.len());
                    let mut c: Vec<Option<Value>> = vec![None; cts.len()];
                    for (&i, v) in nz.iter().zip(ct) {
                        c[i] = Some(v.clone());
                    }
                    let (_, in_cts) = vjp_jaxpr_eval(b, prim, &c)?;
                    float_ins
                        .iter()
                        .map(|&i| instantiate(in_cts[i].clone(), &in_avals_ops[i]))
                        .collect()
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut operands = p.to_vec();
        operands.extend(given);
        let outs = bind(Prim::Cond(Arc::new(CondParams { branches })), &operands)?;
        let mut result = vec![None; p.len()];
        for (&i, v) in float_ins.iter().zip(outs) {
            result[i + 1] = Some(v);
        }
        Ok(result)
    }
}

impl WhileParams {
    /// Parameters for the printer (the programs are printed by the printer).
    pub fn params(&self) -> Vec<(String, String)> {
        vec![
            ("body_nconsts".into(), self.body_nconsts.to_string()),
            ("cond_nconsts".into(), self.cond_nconsts.to_string()),
        ]
    }

    /// Shape rule: the carry keeps its type and the predicate is a boolean
    /// scalar.
    pub fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>> {
        let skip = self.cond_nconsts + self.body_nconsts;
        if ins.len() < skip {
            bail!(TypeError, "while takes its consts and carry as operands");
        }
        let carry = &ins[skip..];
        let outs = self.body.out_avals();
        check_types("while body output and input", carry, &outs)?;
        let pred = self.cond.out_avals();
        if pred.len() != 1 || pred[0].dtype != DType::Bool || !pred[0].shape.is_empty() {
            bail!(TypeError, "while cond_jaxpr must return a boolean scalar");
        }
        // The body's types, whose weak bits may differ from the carry's.
        Ok(outs)
    }

    /// Forward mode: a `while` carrying the tangents of the (float) carry
    /// beside it, the body's consts extended by their nonzero tangents.
    pub fn jvp(&self, p: &[Value], t: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        let (cn, bn) = (self.cond_nconsts, self.body_nconsts);
        let (cconsts, rest) = p.split_at(cn);
        let (bconsts, carry) = rest.split_at(bn);
        let bnz: Vec<usize> = (0..bn)
            .filter(|&i| t[cn + i].is_some() && is_float(&bconsts[i].aval()))
            .collect();
        let carry_avals = avals_of(carry);
        let fc: Vec<usize> = (0..carry.len())
            .filter(|&i| is_float(&carry_avals[i]))
            .collect();
        let btans: Vec<Value> = bnz.iter().filter_map(|&i| t[cn + i].clone()).collect();
        let ctans: Vec<Value> = fc
            .iter()
            .map(|&i| instantiate(t[cn + bn + i].clone(), &carry_avals[i]))
            .collect::<Result<_>>()?;
        let mut cond_avals = avals_of(cconsts);
        cond_avals.extend(carry_avals.iter().cloned());
        cond_avals.extend(avals_of(&ctans));
        let cond = trace_closed(&cond_avals, |args| {
            crate::trace::eval_jaxpr(&self.cond, &args[..cn + carry.len()])
        })?;
        let mut body_avals = avals_of(bconsts);
        body_avals.extend(avals_of(&btans));
        body_avals.extend(carry_avals.iter().cloned());
        body_avals.extend(avals_of(&ctans));
        let body = trace_closed(&body_avals, |args| {
            let (bc, rest) = args.split_at(bn);
            let (bt, rest) = rest.split_at(btans.len());
            let (c, ct) = rest.split_at(carry.len());
            let mut primals = bc.to_vec();
            primals.extend(c.iter().cloned());
            let mut ts: Vec<Option<Value>> = vec![None; bn + carry.len()];
            for (&i, v) in bnz.iter().zip(bt) {
                ts[i] = Some(v.clone());
            }
            for (&i, v) in fc.iter().zip(ct) {
                ts[bn + i] = Some(v.clone());
            }
            let (outs, touts) = jvp_jaxpr_eval(&self.body, &primals, &ts)?;
            let mut all = outs;
            for &i in &fc {
                all.push(instantiate(touts[i].clone(), &carry_avals[i])?);
            }
            Ok(all)
        })?;
        let mut operands = cconsts.to_vec();
        operands.extend(bconsts.iter().cloned());
        operands.extend(btans);
        operands.extend(carry.iter().cloned());
        operands.extend(ctans);
        let params = WhileParams {
            cond,
            body,
            cond_nconsts: cn,
            body_nconsts: bn + bnz.len(),
        };
        let outs = bind(Prim::While(Arc::new(params)), &operands)?;
        let mut result = vec![None; carry.len()];
        for (&i, v) in fc.iter().zip(&outs[carry.len()..]) {
            result[i] = Some(v.clone());
        }
        Ok(result)
    }

    /// Reverse mode is refused as JAX refuses it.
    pub fn vjp(&self) -> Result<Vec<Option<Value>>> {
        bail!(
            ValueError,
            "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop \
             with dynamic start/stop values. Try using lax.scan, or using fori_loop with static \
             start/stop."
        )
    }
}

impl ScanParams {
    /// Parameters for the printer, in JAX's order (the body is printed by
    /// the printer).
    pub fn params(&self) -> Vec<(String, String)> {
        let py = |b: bool| if b { "True" } else { "False" }.to_string();
        vec![
            ("length".into(), self.length.to_string()),
            ("num_carry".into(), self.num_carry.to_string()),
            ("num_consts".into(), self.num_consts.to_string()),
            ("reverse".into(), py(self.reverse)),
            ("unroll".into(), self.unroll.to_string()),
        ]
    }

    /// Shape rule: the carry keeps its type; each output gains a leading
    /// axis of `length`.
    pub fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>> {
        let (nc, nk) = (self.num_consts, self.num_carry);
        if ins.len() < nc + nk || self.body.invars.len() != ins.len() {
            bail!(
                TypeError,
                "scan body takes {} inputs, got {}",
                self.body.invars.len(),
                ins.len()
            );
        }
        for x in &ins[nc + nk..] {
            if x.shape.first() != Some(&self.length) {
                bail!(
                    ValueError,
                    "scan got value with leading axis size {:?}, expected {}",
                    x.shape.first(),
                    self.length
                );
            }
        }
        let outs = self.body.out_avals();
        check_types(
            "scan carry output and input",
            &ins[nc..nc + nk],
            &outs[..nk.min(outs.len())],
        )?;
        let mut result = outs[..nk].to_vec();
        for y in &outs[nk..] {
            let mut shape = vec![self.length];
            shape.extend(y.shape.iter().copied());
            result.push(y.with_shape(shape));
        }
        Ok(result)
    }

    fn with_body(&self, body: Jaxpr, num_consts: usize, num_carry: usize, reverse: bool) -> Prim {
        Prim::Scan(Arc::new(ScanParams {
            body,
            length: self.length,
            reverse,
            unroll: self.unroll,
            num_consts,
            num_carry,
        }))
    }

    /// Forward mode: a `scan` whose consts, carry and scanned arrays are
    /// extended by their tangents (zeros instantiated for the float carry,
    /// whose tangent may become nonzero along the way).
    pub fn jvp(&self, p: &[Value], t: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        let (nc, nk) = (self.num_consts, self.num_carry);
        let in_avals = avals_of(p);
        let nz = |range: std::ops::Range<usize>| -> Vec<usize> {
            range
                .filter(|&i| t[i].is_some() && is_float(&in_avals[i]))
                .collect()
        };
        let (cnz, xnz) = (nz(0..nc), nz(nc + nk..p.len()));
        let fc: Vec<usize> = (nc..nc + nk).filter(|&i| is_float(&in_avals[i])).collect();
        let ctans: Vec<Value> = cnz.iter().filter_map(|&i| t[i].clone()).collect();
        let ktans: Vec<Value> = fc
            .iter()
            .map(|&i| instantiate(t[i].clone(), &in_avals[i]))
            .collect::<Result<_>>()?;
        let xtans: Vec<Value> = xnz.iter().filter_map(|&i| t[i].clone()).collect();
        let out_avals = self.body.out_avals();
        let fy: Vec<usize> = (nk..out_avals.len())
            .filter(|&i| is_float(&out_avals[i]))
            .collect();
        // The body's inputs in the new layout, and where each came from.
        let step = |a: &Aval| a.with_shape(a.shape[1..].to_vec());
        let mut layout: Vec<(usize, bool)> = (0..nc).map(|i| (i, false)).collect();
        layout.extend(cnz.iter().map(|&i| (i, true)));
        layout.extend((nc..nc + nk).map(|i| (i, false)));
        layout.extend(fc.iter().map(|&i| (i, true)));
        layout.extend((nc + nk..p.len()).map(|i| (i, false)));
        layout.extend(xnz.iter().map(|&i| (i, true)));
        let body_avals: Vec<Aval> = layout
            .iter()
            .map(|&(i, _)| match i >= nc + nk {
                true => step(&in_avals[i]),
                false => in_avals[i].clone(),
            })
            .collect();
        let body = trace_closed(&body_avals, |args| {
            let mut primals: Vec<Value> = vec![];
            let mut ts: Vec<Option<Value>> = vec![None; p.len()];
            for (&(i, tangent), v) in layout.iter().zip(args) {
                match tangent {
                    true => ts[i] = Some(v.clone()),
                    false => primals.push(v.clone()),
                }
            }
            let (outs, touts) = jvp_jaxpr_eval(&self.body, &primals, &ts)?;
            let mut all = outs[..nk].to_vec();
            for &i in &fc {
                let k = i - nc;
                all.push(instantiate(touts[k].clone(), &out_avals[k])?);
            }
            all.extend(outs[nk..].iter().cloned());
            for &i in &fy {
                all.push(instantiate(touts[i].clone(), &out_avals[i])?);
            }
            Ok(all)
        })?;
        let mut operands = p[..nc].to_vec();
        operands.extend(ctans);
        operands.extend(p[nc..nc + nk].iter().cloned());
        operands.extend(ktans);
        operands.extend(p[nc + nk..].iter().cloned());
        operands.extend(xtans);
        let prim = self.with_body(body, nc + cnz.len(), nk + fc.len(), self.reverse);
        let outs = bind(prim, &operands)?;
        let mut result = vec![None; out_avals.len()];
        for (j, &i) in fc.iter().enumerate() {
            result[i - nc] = Some(outs[nk + j].clone());
        }
        let ys_at = nk + fc.len() + (out_avals.len() - nk);
        for (j, &i) in fy.iter().enumerate() {
            result[i] = Some(outs[ys_at + j].clone());
        }
        Ok(result)
    }
}

impl ScanParams {
    /// A forward scan like this one that also stacks the carry entering each
    /// step: the final carry, then those carries.
    fn record_carries(&self, p: &[Value]) -> Result<Vec<Value>> {
        let (nc, nk) = (self.num_consts, self.num_carry);
        let body = trace_closed(&self.body.in_avals(), |args| {
            let outs = crate::trace::eval_jaxpr(&self.body, args)?;
            let mut all = outs[..nk].to_vec();
            all.extend(args[nc..nc + nk].iter().cloned());
            Ok(all)
        })?;
        bind(self.with_body(body, nc, nk, self.reverse), p)
    }

    /// Reverse mode: the carries of the forward pass, then a scan in the
    /// opposite direction over them that pulls the cotangents back through
    /// each step, accumulating the consts' cotangents in its carry.
    pub fn vjp(
        &self,
        p: &[Value],
        outs: &[Value],
        cts: &[Option<Value>],
    ) -> Result<Vec<Option<Value>>> {
        let (nc, nk) = (self.num_consts, self.num_carry);
        let nx = p.len() - nc - nk;
        let in_avals = avals_of(p);
        let out_avals = avals_of(outs);
        let floats = |r: std::ops::Range<usize>, avals: &[Aval]| -> Vec<usize> {
            r.filter(|&i| is_float(&avals[i])).collect()
        };
        let fcon = floats(0..nc, &in_avals);
        let fk = floats(nc..nc + nk, &in_avals);
        let fx = floats(nc + nk..p.len(), &in_avals);
        let fy = floats(nk..outs.len(), &out_avals);
        let recorded = self.record_carries(p)?;
        let mut operands = p[..nc].to_vec();
        for &i in &fcon {
            operands.push(zeros_of(&in_avals[i])?);
        }
        for &i in &fk {
            operands.push(instantiate(cts[i - nc].clone(), &in_avals[i])?);
        }
        operands.extend(recorded[nk..].iter().cloned());
        operands.extend(p[nc + nk..].iter().cloned());
        for &i in &fy {
            operands.push(instantiate(cts[i].clone(), &out_avals[i])?);
        }
        let step = |a: Aval| a.with_shape(a.shape[1..].to_vec());
        let body_avals: Vec<Aval> = operands
            .iter()
            .enumerate()
            .map(|(i, v)| match i >= nc + fcon.len() + fk.len() {
                true => step(v.aval()),
                false => v.aval(),
            })
            .collect();
        let carried = fcon.len() + fk.len();
        let placed = super::placement_scan::value_placements(&operands)?;
        let ndims: Vec<usize> = operands.iter().map(Value::ndim).collect();
        let body_placed = super::placement_scan::step_placements(nc + carried, &placed, &ndims);
        let body = trace_closed_placed(&body_avals, body_placed, |args| {
            let (consts, rest) = args.split_at(nc);
            let (acc, rest) = rest.split_at(fcon.len());
            let (ctk, rest) = rest.split_at(fk.len());
            let (carry, rest) = rest.split_at(nk);
            let (xs, cty) = rest.split_at(nx);
            let mut primals = consts.to_vec();
            primals.extend(carry.iter().cloned());
            primals.extend(xs.iter().cloned());
            let mut out_cts: Vec<Option<Value>> = vec![None; outs.len()];
            for (&i, c) in fk.iter().zip(ctk) {
                out_cts[i - nc] = Some(c.clone());
            }
            for (&i, c) in fy.iter().zip(cty) {
                out_cts[i] = Some(c.clone());
            }
            let (_, in_cts) = vjp_jaxpr_eval(&self.body, &primals, &out_cts)?;
            let mut all = vec![];
            for (&i, a) in fcon.iter().zip(acc) {
                all.push(match &in_cts[i] {
                    Some(c) => ops::add(a, &match_vma(c.clone(), &in_avals[i])?)?,
                    None => a.clone(),
                });
            }
            for &i in &fk {
                all.push(instantiate(in_cts[i].clone(), &in_avals[i])?);
            }
            for &i in &fx {
                all.push(instantiate(in_cts[i].clone(), &step(in_avals[i].clone()))?);
            }
            Ok(all)
        })?;
        let back = bind(self.with_body(body, nc, carried, !self.reverse), &operands)?;
        let mut result = vec![None; p.len()];
        for (j, &i) in fcon.iter().chain(&fk).chain(&fx).enumerate() {
            result[i] = Some(back[j].clone());
        }
        Ok(result)
    }
}
