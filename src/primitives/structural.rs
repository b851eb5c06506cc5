//! Primitives that move elements without arithmetic: reshape, transpose,
//! broadcast_in_dim, concatenate, slices, pad, rev, gather (take) and its
//! transpose scatter-add. All are linear in their data operand, so each
//! tangent rule applies the same primitive and each cotangent rule is the
//! adjoint data movement.

use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::ops;
use crate::primitives::{join_vma, Prim};
use crate::trace::{bind1, Value};

fn same_rank(name: &str, what: &[usize], shape: &[usize]) -> Result<()> {
    if what.len() != shape.len() {
        bail!(
            TypeError,
            "{name}: {} parameters given for an operand of rank {} (shape {shape:?})",
            what.len(),
            shape.len()
        );
    }
    Ok(())
}

/// Shape rule.
pub fn abstract_eval(prim: &Prim, ins: &[Aval]) -> Result<Vec<Aval>> {
    let x = &ins[0];
    if let Prim::ScatterAdd { axis, shape } = prim {
        if *axis >= shape.len() {
            bail!(
                ValueError,
                "scatter-add: axis {axis} out of bounds for {shape:?}"
            );
        }
        return Ok(vec![Aval {
            shape: shape.clone(),
            dtype: ins[1].dtype,
            vma: join_vma(ins),
            weak: false,
        }]);
    }
    let shape = match regrouped_shape(prim, ins)? {
        Some(shape) => shape,
        None => selected_shape(prim, ins)?,
    };
    let dtype = match prim {
        Prim::Concatenate(_) => ins.iter().map(|a| a.dtype).max().unwrap_or(x.dtype),
        _ => x.dtype,
    };
    Ok(vec![Aval {
        shape,
        dtype,
        vma: join_vma(ins),
        weak: false,
    }])
}

/// The result shape of the primitives that regroup their operands'
/// elements (reshape, transpose, broadcast, concatenate), or None for
/// another primitive.
fn regrouped_shape(prim: &Prim, ins: &[Aval]) -> Result<Option<Vec<usize>>> {
    let s = &ins[0].shape;
    Ok(Some(match prim {
        Prim::Reshape(new) => {
            if new.iter().product::<usize>() != s.iter().product::<usize>() {
                bail!(
                    TypeError,
                    "cannot reshape array of shape {s:?} (size {}) into shape {new:?} (size {})",
                    s.iter().product::<usize>(),
                    new.iter().product::<usize>()
                );
            }
            new.clone()
        }
        Prim::Transpose(perm) => {
            let mut seen = perm.clone();
            seen.sort_unstable();
            if seen != (0..s.len()).collect::<Vec<_>>() {
                bail!(ValueError, "transpose permutation {perm:?} is not a permutation of the axes of shape {s:?}");
            }
            perm.iter().map(|&p| s[p]).collect()
        }
        Prim::BroadcastInDim { shape, dims } => {
            same_rank("broadcast_in_dim", dims, s)?;
            for (i, &d) in dims.iter().enumerate() {
                if d >= shape.len() || (s[i] != 1 && s[i] != shape[d]) {
                    bail!(TypeError, "broadcast_in_dim: operand shape {s:?} cannot be broadcast to {shape:?} with dimensions {dims:?}");
                }
            }
            shape.clone()
        }
        Prim::Concatenate(axis) => {
            let mut out = s.clone();
            if *axis >= s.len() {
                bail!(
                    ValueError,
                    "concatenate: axis {axis} out of bounds for shape {s:?}"
                );
            }
            out[*axis] = 0;
            for a in ins {
                let ok = a.shape.len() == s.len()
                    && (0..s.len()).all(|d| d == *axis || a.shape[d] == s[d]);
                if !ok {
                    bail!(
                        TypeError,
                        "Cannot concatenate arrays with shapes that differ in dimensions other \
                         than the one being concatenated: concatenating along dimension {axis} \
                         for shapes {:?}",
                        ins.iter().map(|a| a.shape.clone()).collect::<Vec<_>>()
                    );
                }
                out[*axis] += a.shape[*axis];
            }
            out
        }
        _ => return Ok(None),
    }))
}

/// The result shape of the primitives that select or pad elements.
fn selected_shape(prim: &Prim, ins: &[Aval]) -> Result<Vec<usize>> {
    let s = &ins[0].shape;
    Ok(match prim {
        Prim::Slice {
            starts,
            limits,
            strides,
        } => slice_shape(starts, limits, strides, s)?,
        Prim::DynamicSlice(sizes) => dynamic_slice_shape(sizes, s, ins.len() - 1)?,
        Prim::DynamicUpdateSlice => {
            let u = &ins[1].shape;
            if u.len() != s.len() || (0..s.len()).any(|d| u[d] > s[d]) {
                bail!(
                    TypeError,
                    "dynamic_update_slice: update shape {u:?} does not fit in operand shape {s:?}"
                );
            }
            s.clone()
        }
        Prim::Pad { lo, hi } => {
            same_rank("pad", lo, s)?;
            same_rank("pad", hi, s)?;
            (0..s.len()).map(|d| s[d] + lo[d] + hi[d]).collect()
        }
        Prim::StopGradient => s.clone(),
        Prim::Rev(axes) => {
            if axes.iter().any(|&a| a >= s.len()) {
                bail!(
                    ValueError,
                    "rev: axes {axes:?} out of bounds for shape {s:?}"
                );
            }
            s.clone()
        }
        Prim::Take(axis) => {
            if *axis >= s.len() {
                bail!(
                    ValueError,
                    "take: axis {axis} out of bounds for shape {s:?}"
                );
            }
            let mut out = s[..*axis].to_vec();
            out.extend_from_slice(&ins[1].shape);
            out.extend_from_slice(&s[*axis + 1..]);
            out
        }
        _ => bail!(RuntimeError, "not a structural primitive: {}", prim.name()),
    })
}

/// The shape `slice` selects, or JAX's error for bounds that do not fit `s`.
fn slice_shape(
    starts: &[usize],
    limits: &[usize],
    strides: &[usize],
    s: &[usize],
) -> Result<Vec<usize>> {
    same_rank("slice", starts, s)?;
    same_rank("slice", limits, s)?;
    same_rank("slice", strides, s)?;
    (0..s.len())
        .map(|d| {
            if starts[d] > limits[d] || limits[d] > s[d] || strides[d] == 0 {
                bail!(
                    IndexError,
                    "slice [{}:{}:{}] out of bounds for dimension {d} of size {}",
                    starts[d],
                    limits[d],
                    strides[d],
                    s[d]
                );
            }
            Ok((limits[d] - starts[d]).div_ceil(strides[d]))
        })
        .collect()
}

/// `dynamic_slice`'s result is `sizes`, which must fit in `s`, with one
/// start index per dimension.
fn dynamic_slice_shape(sizes: &[usize], s: &[usize], n_starts: usize) -> Result<Vec<usize>> {
    same_rank("dynamic_slice", sizes, s)?;
    if n_starts != s.len() {
        bail!(
            TypeError,
            "dynamic_slice: {} start indices for rank {}",
            n_starts,
            s.len()
        );
    }
    if let Some(d) = (0..s.len()).find(|&d| sizes[d] > s[d]) {
        bail!(
            TypeError,
            "dynamic_slice: slice size {} larger than dimension {d} of size {}",
            sizes[d],
            s[d]
        );
    }
    Ok(sizes.to_vec())
}

fn starts_of(ins: &[Array]) -> Result<Vec<i64>> {
    ins.iter().map(|a| Ok(a.get_f64(0) as i64)).collect()
}

/// Implementation on arrays.
pub fn apply(prim: &Prim, ins: &[Array]) -> Result<Vec<Array>> {
    let x = &ins[0];
    Ok(vec![match prim {
        Prim::Reshape(s) => x.reshape(s)?,
        Prim::Transpose(p) => x.transpose(p)?,
        Prim::BroadcastInDim { shape, dims } => x.broadcast_in_dim(shape, dims)?,
        Prim::Concatenate(axis) => Array::concatenate(ins, *axis)?,
        Prim::Slice {
            starts,
            limits,
            strides,
        } => x.slice(starts, limits, Some(strides))?,
        Prim::DynamicSlice(sizes) => x.dynamic_slice(&starts_of(&ins[1..])?, sizes)?,
        Prim::DynamicUpdateSlice => x.dynamic_update_slice(&ins[1], &starts_of(&ins[2..])?)?,
        Prim::Pad { lo, hi } => x.pad(lo, hi, 0.0)?,
        Prim::Rev(axes) => x.rev(axes)?,
        Prim::StopGradient => x.clone(),
        Prim::Take(axis) => x.take(&ins[1], *axis)?,
        Prim::ScatterAdd { axis, shape } => Array::scatter_add(*axis, &ins[0], &ins[1], shape)?,
        _ => bail!(RuntimeError, "not a structural primitive: {}", prim.name()),
    }])
}

fn zeros(shape: &[usize]) -> Value {
    Value::Concrete(Array::zeros(shape, DType::F32))
}

fn materialize(t: &Option<Value>, like: &Value) -> Value {
    t.clone().unwrap_or_else(|| ops::zeros_like(like))
}

/// Forward-mode rule: the same data movement applied to the tangents.
pub fn jvp(prim: &Prim, p: &[Value], t: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
    if matches!(prim, Prim::StopGradient) {
        return Ok(vec![None]);
    }
    if !p[0].dtype().is_inexact() && !matches!(prim, Prim::ScatterAdd { .. }) {
        return Ok(vec![None]);
    }
    let out = match prim {
        Prim::Concatenate(_) => {
            if t.iter().all(|x| x.is_none()) {
                return Ok(vec![None]);
            }
            let ts: Vec<Value> = t.iter().zip(p).map(|(x, v)| materialize(x, v)).collect();
            bind1(prim.clone(), &ts)?
        }
        Prim::DynamicUpdateSlice => {
            if t[0].is_none() && t[1].is_none() {
                return Ok(vec![None]);
            }
            let mut ins = vec![materialize(&t[0], &p[0]), materialize(&t[1], &p[1])];
            ins.extend_from_slice(&p[2..]);
            bind1(prim.clone(), &ins)?
        }
        Prim::ScatterAdd { .. } => match &t[1] {
            Some(tu) => bind1(prim.clone(), &[p[0].clone(), tu.clone()])?,
            None => return Ok(vec![None]),
        },
        _ => match &t[0] {
            Some(tx) => {
                let mut ins = vec![tx.clone()];
                ins.extend_from_slice(&p[1..]);
                bind1(prim.clone(), &ins)?
            }
            None => return Ok(vec![None]),
        },
    };
    Ok(vec![Some(out)])
}

/// Reverse-mode rule: the adjoint data movement.
pub fn vjp(prim: &Prim, p: &[Value], cts: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
    let Some(ct) = &cts[0] else {
        return Ok(vec![None; p.len()]);
    };
    if matches!(prim, Prim::StopGradient) {
        return Ok(vec![None]);
    }
    let x = &p[0];
    let xs = x.shape();
    let float = |v: &Value| v.dtype().is_inexact();
    let mut out: Vec<Option<Value>> = vec![None; p.len()];
    match prim {
        Prim::Reshape(_) => out[0] = Some(ops::reshape(ct, &xs)?),
        Prim::Transpose(perm) => {
            let mut inv = vec![0; perm.len()];
            for (i, &q) in perm.iter().enumerate() {
                inv[q] = i;
            }
            out[0] = Some(ops::transpose(ct, &inv)?);
        }
        Prim::BroadcastInDim { shape, dims } => {
            out[0] = Some(broadcast_in_dim_transpose(ct, shape, dims, &xs)?)
        }
        Prim::Concatenate(axis) => out = concatenate_transpose(ct, p, *axis)?,
        Prim::Slice {
            starts,
            limits,
            strides,
        } => out[0] = Some(slice_transpose(ct, starts, limits, strides, &xs)?),
        Prim::DynamicSlice(_) => {
            out[0] = Some(ops::dynamic_update_slice(&zeros(&xs), ct, &p[1..])?);
        }
        Prim::DynamicUpdateSlice => {
            let us = p[1].shape();
            out[0] = Some(ops::dynamic_update_slice(ct, &zeros(&us), &p[2..])?);
            if float(&p[1]) {
                out[1] = Some(ops::dynamic_slice(ct, &p[2..], &us)?);
            }
        }
        Prim::Pad { lo, .. } => {
            let limits: Vec<usize> = (0..xs.len()).map(|d| lo[d] + xs[d]).collect();
            out[0] = Some(ops::slice(ct, lo, &limits, &vec![1; xs.len()])?);
        }
        Prim::Rev(axes) => out[0] = Some(ops::rev(ct, axes)?),
        Prim::Take(axis) => {
            out[0] = Some(bind1(
                Prim::ScatterAdd {
                    axis: *axis,
                    shape: xs.clone(),
                },
                &[p[1].clone(), ct.clone()],
            )?);
        }
        Prim::ScatterAdd { axis, .. } => {
            out[1] = Some(ops::take(ct, &p[0], *axis as i64)?);
        }
        _ => bail!(RuntimeError, "not a structural primitive: {}", prim.name()),
    }
    if !float(x) && !matches!(prim, Prim::ScatterAdd { .. } | Prim::Concatenate(_)) {
        out[0] = None;
    }
    Ok(out)
}

/// `broadcast_in_dim`'s cotangent: summed over the dimensions the broadcast
/// added or stretched from size 1, then shaped as the operand `xs`.
fn broadcast_in_dim_transpose(
    ct: &Value,
    shape: &[usize],
    dims: &[usize],
    xs: &[usize],
) -> Result<Value> {
    let summed: Vec<i64> = (0..shape.len())
        .filter(|d| match dims.iter().position(|x| x == d) {
            None => true,
            Some(i) => xs[i] == 1 && shape[*d] != 1,
        })
        .map(|d| d as i64)
        .collect();
    let s = ops::sum(ct, Some(&summed), false)?;
    ops::reshape(&s, xs)
}

/// `concatenate`'s cotangents: each float operand's piece of `ct` along
/// `axis`.
fn concatenate_transpose(ct: &Value, p: &[Value], axis: usize) -> Result<Vec<Option<Value>>> {
    let mut out = vec![None; p.len()];
    let mut start = 0;
    let full = ct.shape();
    for (i, v) in p.iter().enumerate() {
        let vs = v.shape();
        let mut starts = vec![0; vs.len()];
        let mut limits = full.clone();
        starts[axis] = start;
        limits[axis] = start + vs[axis];
        start += vs[axis];
        if v.dtype().is_inexact() {
            out[i] = Some(ops::slice(ct, &starts, &limits, &vec![1; vs.len()])?);
        }
    }
    Ok(out)
}

/// A unit-stride `slice`'s cotangent: `ct` padded back to the operand's
/// shape `xs`.
fn slice_transpose(
    ct: &Value,
    starts: &[usize],
    limits: &[usize],
    strides: &[usize],
    xs: &[usize],
) -> Result<Value> {
    if strides.iter().any(|&s| s != 1) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: gradient of a strided slice"
        );
    }
    let hi: Vec<usize> = (0..xs.len()).map(|d| xs[d] - limits[d]).collect();
    ops::pad(ct, starts, &hi)
}
