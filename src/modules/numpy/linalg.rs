//! Products and contractions: `matmul`, `dot`, `vdot`, `outer`, `einsum`,
//! and the `linalg` submodule.

use crate::array::DType;
use crate::error::Result;
use crate::python::array::{operand_pair, reshape_value, to_value};
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, err, ops as jops};

use super::super::Builder;
use super::{arr, axes_arg, keepdims};

/// Adds the products and the `linalg` submodule to `b`.
pub(super) fn register(b: &mut Builder, numpy: bool) {
    b.func("matmul", |_, a| matmul(&a));
    b.func("dot", |_, a| dot(&a));
    b.func("vdot", |_, a| vdot(&a));
    b.func("outer", |_, a| outer(&a));
    b.func("inner", |_, a| inner(&a));
    b.func("tensordot", |_, a| tensordot(&a));
    b.func("einsum", |_, a| einsum(&a));
    let mut linalg = Builder::new(if numpy {
        "numpy.linalg"
    } else {
        "jax.numpy.linalg"
    });
    linalg.func("norm", |_, a| norm(&a));
    if !numpy && cfg!(feature = "linalg") {
        crate::modules::linalg::register_numpy(&mut linalg);
    }
    b.attr("linalg", linalg.build());
}

fn matmul(a: &Args) -> Result<Obj> {
    Ok(Obj::Array(jops::matmul(
        &arr(a, 0, "a", "matmul")?,
        &arr(a, 1, "b", "matmul")?,
    )?))
}

/// `dot`: a product with a scalar, a matrix product up to 2-D `b`, and
/// beyond that a contraction of `a`'s last axis with `b`'s second to last.
fn dot(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "dot")?;
    let y = arr(a, 1, "b", "dot")?;
    if x.ndim() == 0 || y.ndim() == 0 {
        let (x, y) = operand_pair(&Obj::Array(x), &Obj::Array(y))?;
        return Ok(Obj::Array(jops::mul(&x, &y)?));
    }
    if y.ndim() <= 2 {
        return Ok(Obj::Array(jops::matmul(&x, &y)?));
    }
    let cb = y.ndim() - 2;
    Ok(Obj::Array(jops::dot_general(
        &x,
        &y,
        (&[x.ndim() - 1], &[cb]),
        (&[], &[]),
    )?))
}

fn vdot(a: &Args) -> Result<Obj> {
    let x = reshape_value(&arr(a, 0, "a", "vdot")?, &[-1])?;
    // vdot conjugates its first operand.
    let x = if x.dtype() == DType::C64 {
        jops::unary(crate::array::UnaryOp::Conj, &x)?
    } else {
        x
    };
    let y = reshape_value(&arr(a, 1, "b", "vdot")?, &[-1])?;
    Ok(Obj::Array(jops::matmul(&x, &y)?))
}

fn outer(a: &Args) -> Result<Obj> {
    let x = reshape_value(&arr(a, 0, "a", "outer")?, &[-1, 1])?;
    let y = reshape_value(&arr(a, 1, "b", "outer")?, &[1, -1])?;
    Ok(Obj::Array(jops::mul(&x, &y)?))
}

/// `inner`: a product with a scalar, otherwise a contraction of the last
/// axes of both operands.
fn inner(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "inner")?;
    let y = arr(a, 1, "b", "inner")?;
    if x.ndim() == 0 || y.ndim() == 0 {
        let (x, y) = operand_pair(&Obj::Array(x), &Obj::Array(y))?;
        return Ok(Obj::Array(jops::mul(&x, &y)?));
    }
    Ok(Obj::Array(jops::dot_general(
        &x,
        &y,
        (&[x.ndim() - 1], &[y.ndim() - 1]),
        (&[], &[]),
    )?))
}

/// The axes `tensordot` contracts: an int `n` (the last `n` of `a` with the
/// first `n` of `b`) or a pair of axis lists.
fn tensordot_axes(a: &Args, xd: usize, yd: usize) -> Result<(Vec<usize>, Vec<usize>)> {
    let axes = a.get(Some(2), "axes").unwrap_or(Obj::Int(2));
    if let Obj::Int(n) = axes {
        let n = n as usize;
        if n > xd || n > yd {
            bail!(
                TypeError,
                "Number of tensordot axes (axes {n}) exceeds input ranks ({xd} and {yd})"
            );
        }
        return Ok(((xd - n..xd).collect(), (0..n).collect()));
    }
    let parts = crate::python::ops::iterate(&axes)?;
    if parts.len() != 2 {
        bail!(
            TypeError,
            "tensordot axes argument must be an int or a pair of sequences"
        );
    }
    let side = |o: &Obj, nd: usize| -> Result<Vec<usize>> {
        let items = match o {
            Obj::Int(i) => vec![Obj::Int(*i)],
            other => crate::python::ops::iterate(other)?,
        };
        items
            .iter()
            .map(|i| match i {
                Obj::Int(i) => jops::norm_axis(*i, nd),
                _ => bail!(TypeError, "tensordot axes must be integers"),
            })
            .collect()
    };
    Ok((side(&parts[0], xd)?, side(&parts[1], yd)?))
}

fn tensordot(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "tensordot")?;
    let y = arr(a, 1, "b", "tensordot")?;
    let (cx, cy) = tensordot_axes(a, x.ndim(), y.ndim())?;
    if cx.len() != cy.len() {
        bail!(
            TypeError,
            "tensordot requires axes lists to have equal length, got {cx:?} and {cy:?}."
        );
    }
    Ok(Obj::Array(jops::dot_general(
        &x,
        &y,
        (&cx, &cy),
        (&[], &[]),
    )?))
}

/// `linalg.norm` with every `ord` JAX computes without a singular value
/// decomposition (see `modules::linalg`).
fn norm(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "x", "norm")?;
    let axes = axes_arg(a, Some(2))?;
    let ord = a.opt(Some(1), "ord");
    Ok(Obj::Array(crate::modules::linalg::norm(
        &x,
        ord.as_ref(),
        axes.as_deref(),
        keepdims(a, Some(3))?,
    )?))
}

/// `jnp.einsum` with one or two operands, lowered to sums, dot_general and a transpose.
fn einsum(a: &Args) -> Result<Obj> {
    let (spec, operands) = match a.req(Some(0), "subscripts", "einsum")? {
        Obj::Str(s) => (s.replace(' ', ""), a.pos[1..].to_vec()),
        _ => super::einsum_interleaved::spec_and_operands(&a.pos)?,
    };
    let ops: Vec<Value> = operands.iter().map(to_value).collect::<Result<_>>()?;
    let ranks: Vec<usize> = ops.iter().map(|v| v.ndim()).collect();
    let spec = super::einsum_interleaved::expand_ellipsis(&spec, &ranks)?;
    let (ins, out) = einsum_subscripts(&spec);
    let labels: Vec<Vec<char>> = ins.split(',').map(|s| s.chars().collect()).collect();
    if labels.len() != ops.len() || labels.is_empty() || labels.len() > 2 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: einsum '{spec}' with {} operands",
            ops.len()
        );
    }
    let out: Vec<char> = out.chars().collect();
    let mut reduced = sum_private_labels(&labels, &ops, &out)?;
    let (res_labels, result) = if reduced.len() == 1 {
        reduced
            .pop()
            .ok_or_else(|| err!(ValueError, "einsum needs an operand"))?
    } else {
        let b = reduced
            .pop()
            .ok_or_else(|| err!(ValueError, "einsum needs two operands"))?;
        let a = reduced
            .pop()
            .ok_or_else(|| err!(ValueError, "einsum needs two operands"))?;
        contract_pair(a, b, &out)?
    };
    let perm: Vec<usize> =
        out.iter()
            .map(|c| {
                res_labels.iter().position(|x| x == c).ok_or_else(|| {
                    err!(ValueError, "einsum output label '{c}' is not in the inputs")
                })
            })
            .collect::<Result<_>>()?;
    if perm.len() != res_labels.len() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: einsum '{spec}'"
        );
    }
    let identity = perm.iter().enumerate().all(|(i, &p)| i == p);
    Ok(Obj::Array(if identity {
        result
    } else {
        jops::transpose(&result, &perm)?
    }))
}

/// The input and output subscripts of an einsum spec. Without `->` the
/// output is, as in NumPy, the labels used once, in alphabetical order.
fn einsum_subscripts(spec: &str) -> (String, String) {
    match spec.split_once("->") {
        Some((i, o)) => (i.to_string(), o.to_string()),
        None => {
            let mut counts = std::collections::BTreeMap::new();
            for c in spec.chars().filter(|c| c.is_alphabetic()) {
                *counts.entry(c).or_insert(0) += 1;
            }
            (
                spec.to_string(),
                counts
                    .into_iter()
                    .filter(|(_, n)| *n == 1)
                    .map(|(c, _)| c)
                    .collect(),
            )
        }
    }
}

/// Each operand with its labels after summing away the labels that appear
/// in only that operand and not in the output.
fn sum_private_labels(
    labels: &[Vec<char>],
    ops: &[Value],
    out: &[char],
) -> Result<Vec<(Vec<char>, Value)>> {
    let mut reduced = vec![];
    for (k, (lab, v)) in labels.iter().zip(ops).enumerate() {
        if lab.len() != v.ndim() {
            bail!(
                ValueError,
                "einstein sum subscripts string contains too many subscripts for operand {k}"
            );
        }
        let others: Vec<char> = labels
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != k)
            .flat_map(|(_, l)| l.clone())
            .collect();
        let drop: Vec<i64> = lab
            .iter()
            .enumerate()
            .filter(|(_, c)| !out.contains(c) && !others.contains(c))
            .map(|(i, _)| i as i64)
            .collect();
        let v = if drop.is_empty() {
            v.clone()
        } else {
            jops::sum(v, Some(&drop), false)?
        };
        let lab: Vec<char> = lab
            .iter()
            .enumerate()
            .filter(|(i, _)| !drop.contains(&(*i as i64)))
            .map(|(_, c)| *c)
            .collect();
        reduced.push((lab, v));
    }
    Ok(reduced)
}

/// Two labelled operands as one `dot_general`: shared labels kept in the
/// output are batch dimensions, the other shared ones are contracted. The
/// result's labels are the batch labels, then `a`'s free ones, then `b`'s.
fn contract_pair(
    (la, va): (Vec<char>, Value),
    (lb, vb): (Vec<char>, Value),
    out: &[char],
) -> Result<(Vec<char>, Value)> {
    let batch: Vec<char> = la
        .iter()
        .filter(|c| lb.contains(c) && out.contains(c))
        .cloned()
        .collect();
    let contract: Vec<char> = la
        .iter()
        .filter(|c| lb.contains(c) && !out.contains(c))
        .cloned()
        .collect();
    let pos = |l: &[char], c: &char| l.iter().position(|x| x == c).unwrap_or(0);
    let ba: Vec<usize> = batch.iter().map(|c| pos(&la, c)).collect();
    let bb: Vec<usize> = batch.iter().map(|c| pos(&lb, c)).collect();
    let ca: Vec<usize> = contract.iter().map(|c| pos(&la, c)).collect();
    let cb: Vec<usize> = contract.iter().map(|c| pos(&lb, c)).collect();
    let r = jops::dot_general(&va, &vb, (&ca, &cb), (&ba, &bb))?;
    let mut labels = batch.clone();
    labels.extend(
        la.iter()
            .filter(|c| !batch.contains(c) && !contract.contains(c)),
    );
    labels.extend(
        lb.iter()
            .filter(|c| !batch.contains(c) && !contract.contains(c)),
    );
    Ok((labels, r))
}
