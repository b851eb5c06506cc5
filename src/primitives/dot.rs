//! dot_general: batched tensor contraction, the primitive behind matmul, dot
//! and einsum. Output dimensions are (batch, lhs free, rhs free), as in lax.

use std::sync::Arc;

use crate::array::Array;
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::ops;
use crate::primitives::{join_vma, Prim};
use crate::trace::Value;

struct Dims {
    contracting: (Vec<usize>, Vec<usize>),
    batch: (Vec<usize>, Vec<usize>),
}

fn dims(prim: &Prim) -> Result<Dims> {
    match prim {
        Prim::DotGeneral {
            contracting, batch, ..
        } => Ok(Dims {
            contracting: contracting.clone(),
            batch: batch.clone(),
        }),
        _ => bail!(RuntimeError, "not dot_general: {}", prim.name()),
    }
}

/// The dimensions of an operand that are neither batch nor contracted, ascending.
fn free(ndim: usize, batch: &[usize], contracting: &[usize]) -> Vec<usize> {
    (0..ndim)
        .filter(|d| !batch.contains(d) && !contracting.contains(d))
        .collect()
}

/// Shape rule, with errors naming both shapes and the mismatched dimensions.
pub fn abstract_eval(prim: &Prim, ins: &[Aval]) -> Result<Vec<Aval>> {
    let d = dims(prim)?;
    let (x, y) = (&ins[0].shape, &ins[1].shape);
    let check = |a: &[usize], b: &[usize], what: &str| -> Result<()> {
        if a.len() != b.len() || a.iter().chain(b).any(|&i| i >= x.len().max(y.len())) {
            bail!(
                TypeError,
                "dot_general: bad {what} dimensions {a:?} and {b:?} for shapes {x:?} and {y:?}"
            );
        }
        for (&i, &j) in a.iter().zip(b) {
            if i >= x.len() || j >= y.len() || x[i] != y[j] {
                bail!(
                    TypeError,
                    "dot_general requires {what} dimensions to have the same shape: lhs {x:?} \
                     dimension {i} and rhs {y:?} dimension {j} differ"
                );
            }
        }
        Ok(())
    };
    check(&d.contracting.0, &d.contracting.1, "contracting")?;
    check(&d.batch.0, &d.batch.1, "batch")?;
    let mut shape: Vec<usize> = d.batch.0.iter().map(|&i| x[i]).collect();
    shape.extend(
        free(x.len(), &d.batch.0, &d.contracting.0)
            .iter()
            .map(|&i| x[i]),
    );
    shape.extend(
        free(y.len(), &d.batch.1, &d.contracting.1)
            .iter()
            .map(|&i| y[i]),
    );
    Ok(vec![Aval {
        shape,
        dtype: ins[0].dtype.promote(ins[1].dtype),
        vma: join_vma(ins),
        weak: false,
    }])
}

/// Implementation on arrays (the GEMM kernel lives in `array::matmul`).
pub fn apply(prim: &Prim, ins: &[Array]) -> Result<Vec<Array>> {
    let d = dims(prim)?;
    Ok(vec![Array::dot_general(
        &ins[0],
        &ins[1],
        (&d.contracting.0, &d.contracting.1),
        (&d.batch.0, &d.batch.1),
    )?])
}

fn bind_dims(prim: &Prim, x: &Value, y: &Value) -> Result<Value> {
    let d = dims(prim)?;
    ops::dot_general(
        x,
        y,
        (&d.contracting.0, &d.contracting.1),
        (&d.batch.0, &d.batch.1),
    )
}

/// Forward-mode rule: bilinear, so d(x.y) = dx.y + x.dy.
pub fn jvp(prim: &Prim, p: &[Value], t: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
    let a = match &t[0] {
        Some(tx) => Some(bind_dims(prim, tx, &p[1])?),
        None => None,
    };
    let b = match &t[1] {
        Some(ty) => Some(bind_dims(prim, &p[0], ty)?),
        None => None,
    };
    Ok(vec![super::elementwise::add_opt(a, b)?])
}

/// The cotangent of one operand: contract the output cotangent with the other
/// operand over the other operand's free dimensions, then put the axes back in
/// this operand's order. `mine`/`other` are (batch, contracting) of each side;
/// `ct_free_other` are the cotangent's dimensions that belong to the other side.
fn transpose_side(
    ct: &Value,
    other: &Value,
    me: &Value,
    mine: (&[usize], &[usize]),
    theirs: (&[usize], &[usize]),
    ct_free_other: Vec<usize>,
) -> Result<Value> {
    let my_ndim = me.ndim();
    let nb = mine.0.len();
    let other_free = free(other.ndim(), theirs.0, theirs.1);
    let ct_batch: Vec<usize> = (0..nb).collect();
    // The contraction's dims: batch, then my free dims, then the other's
    // contracting dims in ascending order of the other's dimension index.
    let my_free = free(my_ndim, mine.0, mine.1);
    let mut sorted_theirs = theirs.1.to_vec();
    sorted_theirs.sort_unstable();
    let mut perm = vec![0; my_ndim];
    for (i, &d) in mine.0.iter().enumerate() {
        perm[d] = i;
    }
    for (j, &d) in my_free.iter().enumerate() {
        perm[d] = nb + j;
    }
    for (k, &d) in mine.1.iter().enumerate() {
        let r_k = sorted_theirs
            .iter()
            .position(|&s| s == theirs.1[k])
            .unwrap_or(0);
        perm[d] = nb + my_free.len() + r_k;
    }
    let r = ops::dot_general_to(
        ct,
        other,
        (&ct_free_other, &other_free),
        (&ct_batch, theirs.0),
        like_primal(me, &perm),
    )?;
    ops::transpose(&r, &perm)
}

/// Over explicit mesh axes, JAX gives an operand's cotangent the operand's
/// own sharding (the transposed contraction's `out_sharding`), which is
/// what settles a contraction over split dimensions there. `r` is that
/// contraction's result, whose dimension `perm[d]` becomes `me`'s `d`.
fn like_primal(me: &Value, perm: &[usize]) -> Option<Arc<crate::sharding::NamedSharding>> {
    use crate::sharding::{NamedSharding, PartitionSpec, Placement};
    let placement = match me {
        Value::Concrete(a) => a.placement_rc(),
        Value::Traced(t) => match &t.known {
            Some(a) => a.placement_rc(),
            None => crate::trace::tracer_placement(t).ok().flatten(),
        },
    };
    let Some(Placement::Named(s)) = placement.as_deref() else {
        return None;
    };
    if !s
        .mesh
        .axis_types()
        .contains(&crate::mesh::AxisType::Explicit)
    {
        return None;
    }
    let mut entries = vec![None; perm.len()];
    for (d, &k) in perm.iter().enumerate() {
        entries[k] = s.spec.entries().get(d).cloned().flatten();
    }
    let sharding = NamedSharding::new(s.mesh.clone(), PartitionSpec::new(entries));
    Some(Arc::new(sharding))
}

/// Reverse-mode rule (the transpose of a bilinear map in each argument).
pub fn vjp(prim: &Prim, p: &[Value], cts: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
    let Some(ct) = &cts[0] else {
        return Ok(vec![None, None]);
    };
    let d = dims(prim)?;
    let (x, y) = (&p[0], &p[1]);
    let nb = d.batch.0.len();
    let nxf = free(x.ndim(), &d.batch.0, &d.contracting.0).len();
    let nyf = free(y.ndim(), &d.batch.1, &d.contracting.1).len();
    let ct_x = transpose_side(
        ct,
        y,
        x,
        (&d.batch.0, &d.contracting.0),
        (&d.batch.1, &d.contracting.1),
        (nb + nxf..nb + nxf + nyf).collect(),
    )?;
    let ct_y = transpose_side(
        ct,
        x,
        y,
        (&d.batch.1, &d.contracting.1),
        (&d.batch.0, &d.contracting.0),
        (nb..nb + nxf).collect(),
    )?;
    Ok(vec![Some(ct_x), Some(ct_y)])
}
