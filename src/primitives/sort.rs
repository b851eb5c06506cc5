//! `sort`: operands sorted together along one dimension by the first
//! operand, stably, as `lax.sort(..., num_keys=1, is_stable=True)`; what
//! `jnp.sort` and `jnp.argsort` (which sorts an iota along) bind.
//!
//! Floats compare as JAX's comparator orders them: -0.0 equal to 0.0 (so
//! they keep their order), every NaN after +inf.

use std::cmp::Ordering;

use crate::array::{Array, Buffer, DType};
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::primitives::{join_vma, Prim};

/// JAX's order of float keys.
fn float_order(a: f32, b: f32) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// Shape rule: every operand keeps its shape; all must share it.
pub fn abstract_eval(prim: &Prim, ins: &[Aval]) -> Result<Vec<Aval>> {
    let Prim::Sort { dimension } = prim else {
        bail!(RuntimeError, "not a sort: {}", prim.name());
    };
    let shape = &ins[0].shape;
    if ins.iter().any(|a| &a.shape != shape) {
        bail!(TypeError, "sort: all operands must have the same shape");
    }
    if *dimension >= shape.len() {
        bail!(
            ValueError,
            "axis {dimension} is out of bounds for array of dimension {}",
            shape.len()
        );
    }
    let vma = join_vma(ins);
    Ok(ins
        .iter()
        .map(|a| Aval {
            shape: a.shape.clone(),
            dtype: a.dtype,
            vma: vma.clone(),
            weak: a.weak,
        })
        .collect())
}

/// The permutation that sorts each line of the key along `dimension`,
/// as indices of the flat buffer, line by line.
fn permutation(key: &Array, dimension: usize) -> Vec<usize> {
    let shape = key.shape();
    let n = shape[dimension];
    let inner: usize = shape[dimension + 1..].iter().product();
    let outer: usize = shape[..dimension].iter().product();
    let cmp: Box<dyn Fn(usize, usize) -> Ordering> = match key.buffer() {
        Buffer::F32(d) => Box::new(move |i, j| float_order(d[i], d[j])),
        Buffer::I32(d) => Box::new(move |i, j| d[i].cmp(&d[j])),
        Buffer::U32(d) => Box::new(move |i, j| d[i].cmp(&d[j])),
        Buffer::Bool(d) => Box::new(move |i, j| d[i].cmp(&d[j])),
        // Refused by the complex64 gate of the primitives.
        Buffer::C64(_) => Box::new(|i, j| i.cmp(&j)),
    };
    let mut perm = Vec::with_capacity(key.size());
    for o in 0..outer {
        for i in 0..inner {
            let mut line: Vec<usize> = (0..n).map(|k| (o * n + k) * inner + i).collect();
            line.sort_by(|&a, &b| cmp(a, b));
            perm.extend(line);
        }
    }
    perm
}

/// Moves the elements of `x` by `perm` (as [`permutation`] lists them).
fn gather<T: Copy>(d: &[T], perm: &[usize], shape: &[usize], dimension: usize) -> Vec<T> {
    let n = shape[dimension];
    let inner: usize = shape[dimension + 1..].iter().product();
    let mut out = d.to_vec();
    for (line, chunk) in perm.chunks(n.max(1)).enumerate() {
        let (o, i) = (line / inner.max(1), line % inner.max(1));
        for (k, &src) in chunk.iter().enumerate() {
            out[(o * n + k) * inner + i] = d[src];
        }
    }
    out
}

/// Implementation on arrays.
pub fn apply(prim: &Prim, ins: &[Array]) -> Result<Vec<Array>> {
    let Prim::Sort { dimension } = prim else {
        bail!(RuntimeError, "not a sort: {}", prim.name());
    };
    let shape = ins[0].shape().to_vec();
    if ins[0].size() == 0 {
        return Ok(ins.to_vec());
    }
    let perm = permutation(&ins[0], *dimension);
    ins.iter()
        .map(|x| {
            let buf = match x.buffer() {
                Buffer::F32(d) => Buffer::F32(gather(d, &perm, &shape, *dimension).into()),
                Buffer::I32(d) => Buffer::I32(gather(d, &perm, &shape, *dimension).into()),
                Buffer::U32(d) => Buffer::U32(gather(d, &perm, &shape, *dimension).into()),
                Buffer::Bool(d) => Buffer::Bool(gather(d, &perm, &shape, *dimension).into()),
                Buffer::C64(d) => Buffer::C64(gather(d, &perm, &shape, *dimension).into()),
            };
            Array::from_buffer(&shape, buf)
        })
        .collect()
}

/// Sorting is not differentiable in shardlab yet; integer operands (the
/// indices of argsort) have no derivative.
pub fn no_derivative(primals: &[crate::trace::Value]) -> Result<Vec<Option<crate::trace::Value>>> {
    if primals.iter().any(|p| p.dtype() == DType::F32) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: differentiation of sort"
        );
    }
    Ok(vec![None; primals.len()])
}
