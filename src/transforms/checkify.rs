//! `checkify`: an interpreter of a jaxpr that carries an error value
//! through the program as data, as JAX's `checkify_jaxpr` does.
//!
//! The error is a set of effects, one per kind of failure and payload type
//! (a failed `check` with float32 arguments, a NaN, a division by zero, an
//! out-of-bounds index). Each effect holds a boolean (did it happen), the
//! code of the first site where it happened and that site's payload (the
//! message's arguments, or the bad index). Every update is an ordinary
//! operation (`or`, `select`), so the error is traced into `jit`, `cond`,
//! `scan` and `while` bodies as extra inputs and outputs, and comes out of
//! a `vmap` batched like any other output. The sites themselves (message
//! text, primitive name) are static and kept apart, by code; the site with
//! the lowest code among the effects that happened is the one reported.

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::array::{Array, BinaryOp, DType, ReduceOp, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ir::{Atom, Aval, Eqn, Jaxpr, Var};
use crate::ops;
use crate::primitives::{
    CondParams, DebugPrintParams, JitParams, MapKind, MapParams, Prim, ScanParams, WhileParams,
};
use crate::trace::{at_source, bind, FrameAxes, Value};

/// The kinds of failure, in the order JAX sorts their classes by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorClass {
    /// `DivisionByZeroError` (`div_checks`).
    DivisionByZero,
    /// `FailedCheckError` (`user_checks`).
    FailedCheck,
    /// `NaNError` (`nan_checks`).
    NaN,
    /// `OOBError` (`index_checks`).
    OutOfBounds,
}

impl ErrorClass {
    /// The class's name in `jax.experimental.checkify`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::DivisionByZero => "DivisionByZeroError",
            ErrorClass::FailedCheck => "FailedCheckError",
            ErrorClass::NaN => "NaNError",
            ErrorClass::OutOfBounds => "OOBError",
        }
    }

    /// Every class.
    pub const ALL: [ErrorClass; 4] = [
        ErrorClass::DivisionByZero,
        ErrorClass::FailedCheck,
        ErrorClass::NaN,
        ErrorClass::OutOfBounds,
    ];
}

/// An effect: a kind of failure with the types of its payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectKey {
    /// The kind.
    pub class: ErrorClass,
    /// The payload's types.
    pub payload: Vec<Aval>,
}

impl EffectKey {
    fn sort_key(&self) -> (ErrorClass, Vec<(Vec<usize>, &'static str)>) {
        let p = self.payload.iter();
        (
            self.class,
            p.map(|a| (a.shape.clone(), a.dtype.name())).collect(),
        )
    }
}

impl PartialOrd for EffectKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for EffectKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.sort_key().cmp(&other.sort_key())
    }
}

/// What a code stands for: where a failure was detected and how its
/// message reads.
#[derive(Debug, Clone)]
pub enum Site {
    /// A `checkify.check`: the format and its arguments' layout (the
    /// payload holds the arguments that are arrays).
    Check(Arc<DebugPrintParams>),
    /// A primitive that produced a NaN.
    NaN(String),
    /// A division with a zero divisor.
    DivisionByZero,
    /// An index out of bounds of an operand of this shape; the payload is
    /// the index, the axis and the axis's size.
    OutOfBounds(Vec<usize>),
}

/// One effect's values.
#[derive(Debug, Clone)]
pub struct Effect {
    /// Which effect.
    pub key: EffectKey,
    /// Whether it happened.
    pub pred: Value,
    /// The code of the first site where it happened.
    pub code: Value,
    /// That site's payload.
    pub payload: Vec<Value>,
}

/// The error value: its effects, sorted.
#[derive(Debug, Clone, Default)]
pub struct ErrorValue {
    /// The effects.
    pub effects: Vec<Effect>,
}

impl ErrorValue {
    /// The effects' keys.
    pub fn keys(&self) -> Vec<EffectKey> {
        self.effects.iter().map(|e| e.key.clone()).collect()
    }

    /// The flat values, as JAX flattens its `Error`: every predicate, every
    /// code, then every payload.
    pub fn leaves(&self) -> Vec<Value> {
        let mut out: Vec<Value> = self.effects.iter().map(|e| e.pred.clone()).collect();
        out.extend(self.effects.iter().map(|e| e.code.clone()));
        for e in &self.effects {
            out.extend(e.payload.iter().cloned());
        }
        out
    }

    /// The error of effects `keys` made of `leaves` (as [`Self::leaves`]
    /// gives them).
    pub fn from_leaves(keys: &[EffectKey], leaves: &[Value]) -> Result<ErrorValue> {
        let n = keys.len();
        let width: usize = 2 * n + keys.iter().map(|k| k.payload.len()).sum::<usize>();
        if leaves.len() != width {
            bail!(
                ValueError,
                "checkify: an error of {width} values was given {}",
                leaves.len()
            );
        }
        let mut rest = leaves[2 * n..].iter();
        let effects = keys
            .iter()
            .enumerate()
            .map(|(i, k)| Effect {
                key: k.clone(),
                pred: leaves[i].clone(),
                code: leaves[n + i].clone(),
                payload: rest.by_ref().take(k.payload.len()).cloned().collect(),
            })
            .collect();
        Ok(ErrorValue { effects })
    }

    /// The error with an effect that never happened added for each key it
    /// lacks, so that every branch or step of a program carries the same
    /// error type.
    pub fn with_placeholders(&self, keys: &BTreeSet<EffectKey>) -> ErrorValue {
        let mut out = self.clone();
        for k in keys {
            if out.effects.iter().any(|e| &e.key == k) {
                continue;
            }
            let payload = k
                .payload
                .iter()
                .map(|a| Value::Concrete(Array::full(&a.shape, 1.0, a.dtype).with_weak(a.weak)))
                .collect();
            out.insert(Effect {
                key: k.clone(),
                pred: Value::Concrete(Array::scalar_bool(false)),
                code: Value::Concrete(Array::scalar_i32(-1)),
                payload,
            });
        }
        out
    }

    fn insert(&mut self, e: Effect) {
        let at = self.effects.partition_point(|x| x.key < e.key);
        self.effects.insert(at, e);
    }

    /// Records a site of `key` that failed where `failed` holds: the effect
    /// keeps its first failure's code and payload.
    pub fn update(
        &mut self,
        key: EffectKey,
        failed: Value,
        code: i32,
        payload: Vec<Value>,
    ) -> Result<()> {
        let code_v = Value::Concrete(Array::scalar_i32(code).with_weak(true));
        let Some(e) = self.effects.iter_mut().find(|e| e.key == key) else {
            self.insert(Effect {
                key,
                pred: failed,
                code: code_v,
                payload,
            });
            return Ok(());
        };
        let old = e.pred.clone();
        e.pred = ops::binary(BinaryOp::Or, &old, &failed)?;
        e.code = ops::select(&old, &e.code, &code_v)?;
        for (p, new) in e.payload.iter_mut().zip(payload) {
            *p = ops::select(&old, p, &new)?;
        }
        Ok(())
    }
}

/// JAX's error for a `check` that was staged without being checkified.
pub fn functionalization_error() -> crate::error::Error {
    crate::err!(
        ValueError,
        "Cannot abstractly evaluate a checkify.check which was not functionalized. This probably means you tried to stage (jit/scan/pmap/...) a `check` without functionalizing it through `checkify.checkify`."
    )
}

/// The primitives whose results are checked for NaNs (JAX's list, by the
/// names its jaxprs give them).
const NAN_PRIMITIVES: &[&str] = &[
    "acos",
    "acosh",
    "add",
    "asin",
    "asinh",
    "atan2",
    "atan",
    "atanh",
    "bessel_i0e",
    "bessel_i1e",
    "cbrt",
    "conv_general_dilated",
    "cos",
    "cosh",
    "cumlogsumexp",
    "cummax",
    "cummin",
    "cumprod",
    "cumsum",
    "digamma",
    "dot_general",
    "erf_inv",
    "erf",
    "erfc",
    "exp",
    "expm1",
    "fft",
    "igamma_grad_a",
    "igamma",
    "igammac",
    "integer_pow",
    "lgamma",
    "linear_solve",
    "log1p",
    "log",
    "logistic",
    "mul",
    "pad",
    "pow",
    "psum",
    "reduce",
    "reduce_prod",
    "reduce_sum",
    "reduce_window",
    "reduce_window_sum",
    "regularized_incomplete_beta",
    "rem",
    "rng_uniform",
    "rsqrt",
    "sin",
    "sinh",
    "sqrt",
    "sub",
    "tan",
    "tanh",
    "div",
];

/// Whether `prim` divides (JAX's `div`: true and floor division).
fn divides(prim: &Prim) -> bool {
    matches!(prim, Prim::Binary(BinaryOp::Div | BinaryOp::FloorDiv))
}

/// Whether `prim`'s results are checked for NaNs.
fn makes_nans(prim: &Prim) -> bool {
    divides(prim) || NAN_PRIMITIVES.contains(&prim.name().as_str())
}

/// Whether `prim` indexes (and is checked for out-of-bounds indices).
fn indexes(prim: &Prim) -> bool {
    matches!(
        prim,
        Prim::DynamicSlice(_) | Prim::DynamicUpdateSlice | Prim::Take(_)
    )
}

/// The effect of the out-of-bounds checks (an int32[3] payload).
fn oob_key() -> EffectKey {
    EffectKey {
        class: ErrorClass::OutOfBounds,
        payload: vec![Aval::new(&[3], DType::I32)],
    }
}

fn plain_key(class: ErrorClass) -> EffectKey {
    EffectKey {
        class,
        payload: vec![],
    }
}

/// The checkify interpreter: the enabled kinds of failure and the sites
/// met so far.
pub struct Checkify {
    enabled: Vec<ErrorClass>,
    /// Every site met, with its code.
    pub sites: Vec<(i32, Site)>,
    next_code: i32,
}

impl Checkify {
    /// An interpreter checking `enabled`, numbering sites from `first_code`.
    pub fn new(enabled: Vec<ErrorClass>, first_code: i32) -> Checkify {
        Checkify {
            enabled,
            sites: vec![],
            next_code: first_code,
        }
    }

    /// The code the next site will get.
    pub fn next_code(&self) -> i32 {
        self.next_code
    }

    fn on(&self, c: ErrorClass) -> bool {
        self.enabled.contains(&c)
    }

    fn site(&mut self, s: Site) -> i32 {
        let code = self.next_code;
        self.next_code += 1;
        self.sites.push((code, s));
        code
    }

    /// The effects running `jaxpr` can add to the error.
    pub fn effects_of(&self, jaxpr: &Jaxpr) -> BTreeSet<EffectKey> {
        let mut out = BTreeSet::new();
        for eqn in &jaxpr.eqns {
            self.eqn_effects(jaxpr, eqn, &mut out);
        }
        out
    }

    fn eqn_effects(&self, jaxpr: &Jaxpr, eqn: &Eqn, out: &mut BTreeSet<EffectKey>) {
        match &eqn.prim {
            Prim::DebugPrint(d) if d.check.is_some() => {
                if self.on(ErrorClass::FailedCheck) {
                    let payload = eqn.inputs[1..]
                        .iter()
                        .map(|a| atom_aval(jaxpr, a))
                        .collect();
                    out.insert(EffectKey {
                        class: ErrorClass::FailedCheck,
                        payload,
                    });
                }
                return;
            }
            Prim::CustomJvp(c) => {
                out.extend(self.effects_of(&c.call));
                return;
            }
            p => {
                for sub in p.sub_jaxprs() {
                    out.extend(self.effects_of(sub));
                }
            }
        }
        if divides(&eqn.prim) && self.on(ErrorClass::DivisionByZero) {
            out.insert(plain_key(ErrorClass::DivisionByZero));
        }
        if makes_nans(&eqn.prim) && self.on(ErrorClass::NaN) && floating(jaxpr, eqn) {
            out.insert(plain_key(ErrorClass::NaN));
        }
        if indexes(&eqn.prim) && self.on(ErrorClass::OutOfBounds) {
            out.insert(oob_key());
        }
    }

    /// Runs `jaxpr` on `args` (binding as it goes), updating `err`.
    pub fn eval(
        &mut self,
        jaxpr: &Jaxpr,
        mut err: ErrorValue,
        args: &[Value],
    ) -> Result<(ErrorValue, Vec<Value>)> {
        jaxpr.check_arity(args.len())?;
        let mut env: HashMap<Var, Value> = HashMap::new();
        for (v, a) in jaxpr.invars.iter().zip(args) {
            env.insert(*v, a.clone());
        }
        for eqn in &jaxpr.eqns {
            let ins: Vec<Value> = eqn.inputs.iter().map(|a| read(&env, a)).collect();
            let outs = at_source(eqn, || self.eqn(jaxpr, eqn, &mut err, &ins))?;
            for (v, o) in eqn.outputs.iter().zip(outs) {
                env.insert(*v, o);
            }
        }
        let outs = jaxpr.outvars.iter().map(|a| read(&env, a)).collect();
        Ok((err, outs))
    }

    /// One equation: the programs it calls are checkified; a check updates
    /// the error; any other primitive is bound, then checked as enabled.
    fn eqn(
        &mut self,
        jaxpr: &Jaxpr,
        eqn: &Eqn,
        err: &mut ErrorValue,
        ins: &[Value],
    ) -> Result<Vec<Value>> {
        let sub_effects: BTreeSet<EffectKey> = eqn
            .prim
            .sub_jaxprs()
            .into_iter()
            .flat_map(|j| self.effects_of(j))
            .collect();
        let structured = !eqn.prim.sub_jaxprs().is_empty();
        if structured && sub_effects.is_empty() {
            return bind(eqn.prim.clone(), ins);
        }
        match &eqn.prim {
            Prim::DebugPrint(d) if d.check.is_some() => {
                self.discharge_check(d, err, ins)?;
                return Ok(vec![]);
            }
            Prim::Jit(j) => return self.jit(j, err, ins, &sub_effects),
            Prim::Cond(c) => return self.cond(c, err, ins, &sub_effects),
            Prim::Scan(s) => return self.scan(s, err, ins, &sub_effects),
            Prim::While(w) => return self.while_loop(w, err, ins, &sub_effects),
            Prim::Map(m) if m.kind == MapKind::Vmap => return self.vmap(m, err, ins, &sub_effects),
            // Inlined: the values are the same, and the checks inside run.
            Prim::Remat(r) => return self.inline(&r.body, err, ins),
            Prim::CustomJvp(c) => return self.inline(&c.call, err, ins),
            p if structured => bail!(
                NotImplementedError,
                "not supported by shardlab yet: checkify of {} with checks inside",
                p.name()
            ),
            _ => {}
        }
        let outs = bind(eqn.prim.clone(), ins)?;
        self.automatic(jaxpr, eqn, err, ins, &outs)?;
        Ok(outs)
    }

    fn inline(&mut self, body: &Jaxpr, err: &mut ErrorValue, ins: &[Value]) -> Result<Vec<Value>> {
        let (e, outs) = self.eval(body, std::mem::take(err), ins)?;
        *err = e;
        Ok(outs)
    }

    /// A `check`: fails where its predicate is false.
    fn discharge_check(
        &mut self,
        d: &Arc<DebugPrintParams>,
        err: &mut ErrorValue,
        ins: &[Value],
    ) -> Result<()> {
        if !self.on(ErrorClass::FailedCheck) {
            return Ok(());
        }
        let failed = ops::unary(UnaryOp::Not, &ins[0])?;
        let failed = ops::convert_weak(&failed, DType::Bool, false)?;
        let key = EffectKey {
            class: ErrorClass::FailedCheck,
            payload: ins[1..].iter().map(|v| v.aval()).collect(),
        };
        let Some(mark) = d.check else {
            bail!(RuntimeError, "checkify: a print is not a check");
        };
        self.sites.push((mark.code, Site::Check(d.clone())));
        err.update(key, failed, mark.code, ins[1..].to_vec())
    }

    /// The automatic checks of a primitive just bound.
    fn automatic(
        &mut self,
        jaxpr: &Jaxpr,
        eqn: &Eqn,
        err: &mut ErrorValue,
        ins: &[Value],
        outs: &[Value],
    ) -> Result<()> {
        if divides(&eqn.prim) && self.on(ErrorClass::DivisionByZero) {
            let zero = ops::binary(BinaryOp::Eq, &ins[1], &ops::zeros_like(&ins[1]))?;
            let any = ops::reduce(ReduceOp::Any, &zero, None, false)?;
            let code = self.site(Site::DivisionByZero);
            err.update(plain_key(ErrorClass::DivisionByZero), any, code, vec![])?;
        }
        if makes_nans(&eqn.prim) && self.on(ErrorClass::NaN) && floating(jaxpr, eqn) {
            let mut any: Option<Value> = None;
            for o in outs {
                let nan = ops::binary(BinaryOp::Ne, o, o)?;
                let this = ops::reduce(ReduceOp::Any, &nan, None, false)?;
                any = Some(match any {
                    Some(a) => ops::binary(BinaryOp::Or, &a, &this)?,
                    None => this,
                });
            }
            if let Some(any) = any {
                let code = self.site(Site::NaN(eqn.prim.name()));
                err.update(plain_key(ErrorClass::NaN), any, code, vec![])?;
            }
        }
        if indexes(&eqn.prim) && self.on(ErrorClass::OutOfBounds) {
            let (failed, payload) = super::checkify_bounds::out_of_bounds(&eqn.prim, ins)?;
            let code = self.site(Site::OutOfBounds(ins[0].shape()));
            err.update(oob_key(), failed, code, vec![payload])?;
        }
        Ok(())
    }

    /// Traces `f` into a program whose inputs are values of `lead`, the
    /// error's leaves, then values of `avals`, and whose outputs are the
    /// new error's leaves, then `f`'s. `f` gets the error and the other
    /// values (`lead`'s, then `avals`').
    fn trace_sub(
        &mut self,
        err: &ErrorValue,
        lead: &[Aval],
        avals: &[Aval],
        axes: FrameAxes,
        f: impl FnOnce(&mut Self, ErrorValue, &[Value]) -> Result<(ErrorValue, Vec<Value>)>,
    ) -> Result<Jaxpr> {
        let keys = err.keys();
        let leaves: Vec<Aval> = err.leaves().iter().map(|v| v.aval()).collect();
        let (nl, ne) = (lead.len(), leaves.len());
        let mut in_avals = lead.to_vec();
        in_avals.extend(leaves);
        in_avals.extend(avals.iter().cloned());
        let traced = crate::trace::trace(&in_avals, axes, |vals| {
            let e = ErrorValue::from_leaves(&keys, &vals[nl..nl + ne])?;
            let mut rest = vals[..nl].to_vec();
            rest.extend(vals[nl + ne..].iter().cloned());
            let (e, outs) = f(self, e, &rest)?;
            if e.keys() != keys {
                bail!(RuntimeError, "checkify: a body changed the error's type");
            }
            let mut leaves = e.leaves();
            leaves.extend(outs);
            Ok(leaves)
        })?;
        closed(traced)
    }

    /// `body` checkified: the error's leaves, then its inputs, in; the
    /// new error's leaves, then its outputs, out.
    fn checked_body(&mut self, e: &ErrorValue, body: &Jaxpr, axes: FrameAxes) -> Result<Jaxpr> {
        let avals = in_avals(body);
        self.trace_sub(e, &[], &avals, axes, |me, e, v| me.eval(body, e, v))
    }

    fn jit(
        &mut self,
        j: &JitParams,
        err: &mut ErrorValue,
        ins: &[Value],
        effects: &BTreeSet<EffectKey>,
    ) -> Result<Vec<Value>> {
        let e = err.with_placeholders(effects);
        let body = self.checked_body(&e, &j.body, FrameAxes::default())?;
        let leaves = e.leaves();
        let mut donated = vec![false; leaves.len()];
        donated.extend(j.donated.iter().cloned());
        let params = JitParams {
            name: j.name.clone(),
            body,
            donated,
            keep_unused: j.keep_unused,
        };
        self.bind_with_error(Prim::Jit(Arc::new(params)), &[], e, ins, err)
    }

    /// Binds `prim` on `before`, the error's leaves and `ins`; its first
    /// results are the new error's leaves.
    fn bind_with_error(
        &mut self,
        prim: Prim,
        before: &[Value],
        e: ErrorValue,
        ins: &[Value],
        err: &mut ErrorValue,
    ) -> Result<Vec<Value>> {
        let leaves = e.leaves();
        let n = leaves.len();
        let mut operands = before.to_vec();
        operands.extend(leaves);
        operands.extend(ins.iter().cloned());
        let mut outs = bind(prim, &operands)?;
        let rest = outs.split_off(n);
        *err = ErrorValue::from_leaves(&e.keys(), &outs)?;
        Ok(rest)
    }

    fn cond(
        &mut self,
        c: &CondParams,
        err: &mut ErrorValue,
        ins: &[Value],
        effects: &BTreeSet<EffectKey>,
    ) -> Result<Vec<Value>> {
        let e = err.with_placeholders(effects);
        let mut branches = vec![];
        for b in &c.branches {
            branches.push(self.checked_body(&e, b, FrameAxes::default())?);
        }
        let prim = Prim::Cond(Arc::new(CondParams { branches }));
        self.bind_with_error(prim, &ins[..1], e, &ins[1..], err)
    }

    fn scan(
        &mut self,
        s: &ScanParams,
        err: &mut ErrorValue,
        ins: &[Value],
        effects: &BTreeSet<EffectKey>,
    ) -> Result<Vec<Value>> {
        let e = err.with_placeholders(effects);
        let nc = s.num_consts;
        let avals = in_avals(&s.body);
        // The error is carried: it goes after the consts.
        let body = self.trace_sub(
            &e,
            &avals[..nc],
            &avals[nc..],
            FrameAxes::default(),
            |me, e, v| me.eval(&s.body, e, v),
        )?;
        let params = ScanParams {
            body,
            length: s.length,
            reverse: s.reverse,
            unroll: s.unroll,
            num_consts: nc,
            num_carry: s.num_carry + e.leaves().len(),
        };
        let prim = Prim::Scan(Arc::new(params));
        self.bind_with_error(prim, &ins[..nc], e, &ins[nc..], err)
    }

    /// A while loop: the predicate's checks run before the loop and after
    /// every step (as part of the step), so the loop's own predicate
    /// carries the error and ignores it.
    fn while_loop(
        &mut self,
        w: &WhileParams,
        err: &mut ErrorValue,
        ins: &[Value],
        effects: &BTreeSet<EffectKey>,
    ) -> Result<Vec<Value>> {
        let (cn, bn) = (w.cond_nconsts, w.body_nconsts);
        let (c_consts, rest) = ins.split_at(cn);
        let (b_consts, carry) = rest.split_at(bn);
        let mut cond_in = c_consts.to_vec();
        cond_in.extend(carry.iter().cloned());
        let (e, _) = self.eval(&w.cond, std::mem::take(err), &cond_in)?;
        let e = e.with_placeholders(effects);
        let cond_avals = in_avals(&w.cond);
        let body_avals = in_avals(&w.body);
        let mut lead = cond_avals[..cn].to_vec();
        lead.extend(body_avals[..bn].iter().cloned());
        let body = self.trace_sub(
            &e,
            &lead,
            &body_avals[bn..],
            FrameAxes::default(),
            |me, e, v| {
                let (c, b) = v.split_at(cn);
                let (e, out) = me.eval(&w.body, e, b)?;
                let mut cond_in = c.to_vec();
                cond_in.extend(out.iter().cloned());
                let (e, _) = me.eval(&w.cond, e, &cond_in)?;
                Ok((e, out))
            },
        )?;
        let cond = self.while_predicate(w, &e)?;
        let params = WhileParams {
            cond,
            body,
            cond_nconsts: cn,
            body_nconsts: cn + bn,
        };
        let mut before = c_consts.to_vec();
        before.extend(c_consts.iter().cloned());
        before.extend(b_consts.iter().cloned());
        self.bind_with_error(Prim::While(Arc::new(params)), &before, e, carry, err)
    }

    /// The loop's predicate on its consts, the error and the carry.
    fn while_predicate(&mut self, w: &WhileParams, e: &ErrorValue) -> Result<Jaxpr> {
        let cn = w.cond_nconsts;
        let avals = in_avals(&w.cond);
        let leaves: Vec<Aval> = e.leaves().iter().map(|v| v.aval()).collect();
        let n_err = leaves.len();
        let mut all = avals[..cn].to_vec();
        all.extend(leaves);
        all.extend(avals[cn..].iter().cloned());
        let traced = crate::trace::trace(&all, FrameAxes::default(), |v| {
            let mut args = v[..cn].to_vec();
            args.extend(v[cn + n_err..].iter().cloned());
            // Its checks were made part of the step; here they are dropped.
            let (_, outs) = self.eval(&w.cond, ErrorValue::default(), &args)?;
            Ok(outs)
        })?;
        closed(traced)
    }

    /// `vmap` inside the checkified function: the body's error comes out
    /// batched and is reduced to one, JAX's way (the last element that
    /// failed, or the last element when none did).
    fn vmap(
        &mut self,
        m: &MapParams,
        err: &mut ErrorValue,
        ins: &[Value],
        effects: &BTreeSet<EffectKey>,
    ) -> Result<Vec<Value>> {
        let e = err.with_placeholders(effects);
        let body = self.checked_body(&e, &m.body, m.frame())?;
        let n_err = e.leaves().len();
        let mut in_axes = vec![None; n_err];
        in_axes.extend(m.in_axes.iter().cloned());
        let mut out_axes = vec![0; n_err];
        out_axes.extend(m.out_axes.iter().cloned());
        let params = MapParams {
            kind: m.kind,
            axis_name: m.axis_name.clone(),
            size: m.size,
            in_axes,
            out_axes,
            body,
        };
        let mut batched = ErrorValue::default();
        let outs = self.bind_with_error(Prim::Map(Arc::new(params)), &[], e, ins, &mut batched)?;
        *err = super::checkify_bounds::reduce_batched(&batched)?;
        Ok(outs)
    }
}

/// The program of a traced function that closed over nothing.
fn closed(traced: crate::trace::Traced) -> Result<Jaxpr> {
    if !traced.captured.is_empty() || !traced.refs.is_empty() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: checkify of a body that closes over traced values"
        );
    }
    Ok(traced.jaxpr)
}

/// The values of a program's inputs' types.
fn in_avals(j: &Jaxpr) -> Vec<Aval> {
    j.invars.iter().map(|v| j.aval(*v).clone()).collect()
}

fn atom_aval(j: &Jaxpr, a: &Atom) -> Aval {
    match a {
        Atom::Var(v) => j.aval(*v).clone(),
        Atom::Lit(x) => Aval::of(x),
    }
}

/// Whether an equation has a floating (or complex) result, which is where
/// a NaN can appear.
fn floating(j: &Jaxpr, eqn: &Eqn) -> bool {
    eqn.outputs
        .iter()
        .any(|v| j.aval(*v).dtype.is_float() || j.aval(*v).dtype == DType::C64)
}

fn read(env: &HashMap<Var, Value>, a: &Atom) -> Value {
    match a {
        Atom::Var(v) => env[v].clone(),
        Atom::Lit(x) => Value::Concrete(x.clone()),
    }
}
