//! `jax.jit(f).lower(*args).cost_analysis()`: XLA's count of the work in
//! the program as JAX lowers it, before XLA optimises it.
//!
//! XLA's `HloCostAnalysis` visits every instruction of the lowered module.
//! An instruction costs the bytes of each operand it reads plus the bytes
//! it writes; an elementwise one costs one flop per output element, or one
//! transcendental for the opcodes XLA counts as such; a dot costs two flops
//! per multiply-add; a reduction one flop per element folded in. Parameters,
//! constants and the calls of nested jitted functions cost nothing, and a
//! program with several results pays for the tuple that holds them (8 bytes
//! a result). The dictionary has only the keys whose totals are not zero:
//! `flops`, `transcendentals`, `bytes accessed`, and per operand index `i`
//! `utilization{i}{}` (how many instructions read operand `i`, or the part
//! of it they read) and `bytes accessed{i}{}`, and `bytes accessedout{}`.
//!
//! The lowering is modelled one jaxpr equation at a time: a scalar operand
//! of an elementwise equation over arrays becomes a `broadcast`, as JAX
//! lowers it. Counts are only as exact as the program is JAX's, so what
//! would differ is refused by name: equations whose lowering is more than
//! one instruction in ways not modelled here (cumulative sums, argmax,
//! padding, most special functions, control flow, collectives), the
//! patterns that JAX's lowering or XLA's simplifier fold away (see
//! `refuse_folded`), functions whose shardlab program is not spelled as
//! JAX's (a custom_jvp rule inlined shows as `stop_gradient`), programs
//! closing over arrays, and programs over placed arrays, whose lowered
//! module carries the sharding annotations that XLA also counts. The
//! optimised program's costs (`compile().cost_analysis()`) depend on
//! XLA's fusion and are refused too.

use crate::array::{BinaryOp, UnaryOp};
use crate::error::Result;
use crate::ir::{Atom, Aval, Jaxpr};
use crate::primitives::Prim;
use crate::python::value::Obj;
use crate::{bail, err};

/// The totals, per key.
#[derive(Default)]
struct Cost {
    flops: f64,
    transcendentals: f64,
    /// Per operand index: (utilization, bytes read).
    operands: Vec<(f64, f64)>,
    out_bytes: f64,
}

/// How an instruction reads one operand: its bytes and the part read.
struct Read {
    bytes: f64,
    part: f64,
}

impl Read {
    fn whole(bytes: f64) -> Read {
        Read { bytes, part: 1.0 }
    }
}

impl Cost {
    fn instr(&mut self, reads: &[Read], out_bytes: f64) {
        if self.operands.len() < reads.len() {
            self.operands.resize(reads.len(), (0.0, 0.0));
        }
        for (slot, r) in self.operands.iter_mut().zip(reads) {
            slot.0 += r.part;
            slot.1 += r.bytes;
        }
        self.out_bytes += out_bytes;
    }

    /// The dictionary, keys in XLA's order, zero totals left out.
    fn into_dict(self) -> Obj {
        let mut items: Vec<(String, f64)> = vec![
            ("flops".into(), self.flops),
            ("transcendentals".into(), self.transcendentals),
        ];
        let read: f64 = self.operands.iter().map(|o| o.1).sum();
        items.push(("bytes accessed".into(), read + self.out_bytes));
        // XLA's table holds the keys of operands 0 and 1 before the
        // output's; those of further operands come after, as first met.
        let (first, rest) = self.operands.split_at(self.operands.len().min(2));
        for (i, (util, _)) in first.iter().enumerate() {
            items.push((format!("utilization{i}{{}}"), *util));
        }
        for (i, (_, bytes)) in first.iter().enumerate() {
            items.push((format!("bytes accessed{i}{{}}"), *bytes));
        }
        items.push(("bytes accessedout{}".into(), self.out_bytes));
        for (i, (util, bytes)) in rest.iter().enumerate() {
            items.push((format!("utilization{}{{}}", i + 2), *util));
            items.push((format!("bytes accessed{}{{}}", i + 2), *bytes));
        }
        let dict: crate::python::dict::Dict = items
            .into_iter()
            .filter(|(_, v)| *v != 0.0)
            .map(|(k, v)| (Obj::str(k), Obj::Float(v)))
            .collect();
        Obj::Dict(std::rc::Rc::new(std::cell::RefCell::new(dict)))
    }
}

fn bytes(aval: &Aval) -> f64 {
    (aval.shape.iter().product::<usize>() * aval.dtype.itemsize()) as f64
}

fn elements(aval: &Aval) -> f64 {
    aval.shape.iter().product::<usize>() as f64
}

/// The costs of `jaxpr` lowered as a whole program.
pub fn lowered(jaxpr: &Jaxpr) -> Result<Obj> {
    let jaxpr = jaxpr.without_dead_code();
    let mut cost = Cost::default();
    add_program(&mut cost, &jaxpr)?;
    if jaxpr.outvars.len() > 1 {
        let reads: Vec<Read> = jaxpr
            .outvars
            .iter()
            .map(|_| Read {
                bytes: 0.0,
                part: 1.0,
            })
            .collect();
        cost.instr(&reads, 8.0 * jaxpr.outvars.len() as f64);
    }
    Ok(cost.into_dict())
}

fn add_program(cost: &mut Cost, jaxpr: &Jaxpr) -> Result<()> {
    for eqn in &jaxpr.eqns {
        let ins: Vec<Aval> = eqn.inputs.iter().map(|a| atom_aval(jaxpr, a)).collect();
        if eqn
            .inputs
            .iter()
            .any(|a| matches!(a, Atom::Lit(x) if x.ndim() > 0))
        {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: cost_analysis of a program that closes over arrays"
            );
        }
        let outs: Vec<Aval> = eqn.outputs.iter().map(|v| jaxpr.aval(*v).clone()).collect();
        refuse_folded(jaxpr, eqn, &outs[0])?;
        add_eqn(cost, &eqn.prim, &ins, &outs)?;
    }
    Ok(())
}

fn atom_aval(jaxpr: &Jaxpr, a: &Atom) -> Aval {
    match a {
        Atom::Var(v) => jaxpr.aval(*v).clone(),
        Atom::Lit(x) => Aval::of(x),
    }
}

/// What JAX's lowering or XLA's simplifier folds away before counting,
/// which this model does not follow: a reshape of a reshape or broadcast,
/// a constant array (`broadcast_in_dim` of a literal, as gradients seed
/// their cotangents), adding 0 or multiplying by 1, and an operand that
/// NumPy broadcasting widens (JAX reshapes it first).
fn refuse_folded(jaxpr: &Jaxpr, eqn: &crate::ir::Eqn, out: &Aval) -> Result<()> {
    let refuse = |what: &str| {
        Err(err!(
            NotImplementedError,
            "not supported by shardlab yet: cost_analysis of a program with {what}"
        ))
    };
    let producer = |a: &Atom| match a {
        Atom::Var(v) => jaxpr.eqns.iter().find(|e| e.outputs.contains(v)),
        Atom::Lit(_) => None,
    };
    match &eqn.prim {
        Prim::Reshape(_) => {
            if let Some(e) = producer(&eqn.inputs[0]) {
                if matches!(e.prim, Prim::Reshape(_) | Prim::BroadcastInDim { .. }) {
                    return refuse(&format!("a reshape of a {}", e.prim.name()));
                }
            }
        }
        Prim::BroadcastInDim { .. } if matches!(eqn.inputs[0], Atom::Lit(_)) => {
            return refuse("a constant array");
        }
        Prim::Binary(op @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul)) => {
            let identity = if *op == BinaryOp::Mul { 1.0 } else { 0.0 };
            let folds = eqn
                .inputs
                .iter()
                .any(|a| matches!(a, Atom::Lit(x) if x.to_f64_vec().first() == Some(&identity)));
            if folds {
                return refuse(&format!("{} by the literal {identity}", op.name()));
            }
        }
        _ => {}
    }
    let widened = eqn
        .inputs
        .iter()
        .any(|a| matches!(a, Atom::Var(v) if jaxpr.aval(*v).shape != out.shape));
    if widened && is_elementwise(&eqn.prim) {
        return refuse("an operand broadcast to another shape");
    }
    Ok(())
}

fn is_elementwise(prim: &Prim) -> bool {
    matches!(
        prim,
        Prim::Unary(_) | Prim::Binary(_) | Prim::Select | Prim::Clamp
    )
}

/// One equation's instructions.
fn add_eqn(cost: &mut Cost, prim: &Prim, ins: &[Aval], outs: &[Aval]) -> Result<()> {
    let out = &outs[0];
    match prim {
        Prim::Unary(op) => elementwise(cost, ins, out, unary_kind(*op)?),
        Prim::Binary(op) => elementwise(cost, ins, out, binary_kind(*op)?),
        Prim::Select | Prim::Clamp => elementwise(cost, ins, out, Kind::Flop),
        Prim::Convert(dtype, _) if *dtype == ins[0].dtype => {}
        Prim::Convert(..) => elementwise(cost, ins, out, Kind::Flop),
        Prim::IntegerPow(n) if *n >= 2 => {
            for _ in 0..multiplies(*n as u32) {
                elementwise(cost, &[out.clone(), out.clone()], out, Kind::Flop);
            }
        }
        Prim::Name(_) => {}
        Prim::Reduce { .. } => {
            let init = bytes(&Aval {
                shape: vec![],
                ..ins[0].clone()
            });
            cost.flops += elements(&ins[0]) - elements(out);
            cost.instr(
                &[Read::whole(bytes(&ins[0])), Read::whole(init)],
                bytes(out),
            );
        }
        Prim::DotGeneral { contracting, .. } => {
            let k: usize = contracting.0.iter().map(|&d| ins[0].shape[d]).product();
            cost.flops += 2.0 * elements(out) * k as f64;
            cost.instr(
                &[Read::whole(bytes(&ins[0])), Read::whole(bytes(&ins[1]))],
                bytes(out),
            );
        }
        Prim::Reshape(_) | Prim::BroadcastInDim { .. } | Prim::Rev(_) => {
            cost.instr(&[Read::whole(bytes(&ins[0]))], bytes(out));
        }
        // XLA counts no bytes for a transpose before layouts are assigned.
        Prim::Transpose(_) => cost.instr(&[Read::whole(0.0)], 0.0),
        Prim::Slice { .. } => {
            let part = elements(out) / elements(&ins[0]).max(1.0);
            cost.instr(
                &[Read {
                    bytes: bytes(out),
                    part,
                }],
                bytes(out),
            );
        }
        Prim::Concatenate(_) => {
            let reads: Vec<Read> = ins.iter().map(|a| Read::whole(bytes(a))).collect();
            cost.instr(&reads, bytes(out));
        }
        Prim::Jit(j) => add_program(cost, &j.body.without_dead_code())?,
        other => {
            return Err(err!(
                NotImplementedError,
                "not supported by shardlab yet: cost_analysis of a program with {}",
                other.name()
            ))
        }
    }
    Ok(())
}

/// What XLA counts an elementwise instruction as.
#[derive(Clone, Copy)]
enum Kind {
    Flop,
    Transcendental,
}

/// The opcodes that XLA counts as transcendentals; the other unary
/// operations modelled are one instruction of one flop.
fn unary_kind(op: UnaryOp) -> Result<Kind> {
    use UnaryOp::*;
    Ok(match op {
        Exp | Log | Log1p | Expm1 | Sqrt | Rsqrt | Cbrt | Tanh | Sin | Cos | Erf => {
            Kind::Transcendental
        }
        Neg | Abs | Sign | Floor | Ceil | Round | Not | IsFinite => Kind::Flop,
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: cost_analysis of a program with {}",
            other.name()
        ),
    })
}

fn binary_kind(op: BinaryOp) -> Result<Kind> {
    use BinaryOp::*;
    Ok(match op {
        Pow | Atan2 => Kind::Transcendental,
        Add | Sub | Mul | Div | Rem | Max | Min | Eq | Ne | Lt | Le | Gt | Ge | And | Or | Xor
        | ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => Kind::Flop,
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: cost_analysis of a program with {}",
            other.name()
        ),
    })
}

/// An elementwise equation: a broadcast for each operand of another shape
/// (a scalar), then the instruction itself.
fn elementwise(cost: &mut Cost, ins: &[Aval], out: &Aval, kind: Kind) {
    let out_bytes = bytes(out);
    let mut reads = Vec::with_capacity(ins.len());
    for a in ins {
        if a.shape != out.shape {
            let widened = Aval {
                shape: out.shape.clone(),
                ..a.clone()
            };
            cost.instr(&[Read::whole(bytes(a))], bytes(&widened));
            reads.push(Read::whole(bytes(&widened)));
        } else {
            reads.push(Read::whole(bytes(a)));
        }
    }
    match kind {
        Kind::Flop => cost.flops += elements(out),
        Kind::Transcendental => cost.transcendentals += elements(out),
    }
    cost.instr(&reads, out_bytes);
}

/// The multiplies of JAX's `integer_pow` lowering: square-and-multiply over
/// the exponent's bits.
fn multiplies(mut n: u32) -> u32 {
    let mut count = 0;
    let mut acc = false;
    while n > 0 {
        if n & 1 == 1 {
            count += u32::from(acc);
            acc = true;
        }
        n >>= 1;
        if n > 0 {
            count += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::multiplies;

    #[test]
    fn integer_pow_multiplies() {
        // x**2 = x*x; x**3 = x * (x*x); x**4 = (x*x)*(x*x); x**5 = x * x^4.
        assert_eq!([2, 3, 4, 5, 8].map(multiplies), [1, 2, 2, 3, 3]);
    }
}
