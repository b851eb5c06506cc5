//! `lax.dot`: a matrix or vector product as one `dot_general`, contracting
//! the last axis of `lhs` with the first of `rhs` unless
//! `dimension_numbers` says otherwise.
//!
//! `precision` only chooses among the accelerators' reduced-precision
//! passes; on the CPU every choice computes the same float32 product, so it
//! is read (and checked) but changes nothing. `preferred_element_type`
//! gives the result's dtype: the operands are converted to it first, which
//! is how XLA's CPU code computes a product with a wider result (exact for
//! integers widened to a larger integer type). The jaxpr shows the
//! conversions instead of the parameter.

use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};

use super::Builder;

/// Adds `dot` to `jax.lax`.
pub fn register(b: &mut Builder) {
    b.func("dot", dot);
}

/// `dot(lhs, rhs, *, dimension_numbers=None, precision=None,
/// preferred_element_type=None, out_sharding=None)`.
fn dot(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "lhs", "dot")?)?;
    let y = to_value(&a.req(Some(1), "rhs", "dot")?)?;
    if let Some(p) = a.opt(None, "precision") {
        check_precision(&p)?;
    }
    if a.opt(None, "out_sharding").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.lax.dot with out_sharding="
        );
    }
    let (contracting, batch) = match a.opt(None, "dimension_numbers") {
        Some(d) => dimension_numbers(&d)?,
        None => {
            let (xs, ys) = (x.shape(), y.shape());
            let simple = (1..=2).contains(&xs.len())
                && (1..=2).contains(&ys.len())
                && xs.last() == ys.first();
            if !simple {
                bail!(
                    ValueError,
                    "jax.lax.dot: dimension_numbers must be specified when not performing simple un-batched matrix-matrix, matrix-vector, or vector-vector products; got lhs_shape={} rhs_shape={}",
                    crate::array::shape_tuple(&xs),
                    crate::array::shape_tuple(&ys)
                );
            }
            ((vec![xs.len() - 1], vec![0]), (vec![], vec![]))
        }
    };
    let (x, y) = match a.opt(None, "preferred_element_type") {
        Some(Obj::None) | None => (x, y),
        Some(d) => {
            let d = super::numpy::dtype_of(&d)?;
            (jops::convert(&x, d)?, jops::convert(&y, d)?)
        }
    };
    Ok(Obj::Array(jops::dot_general(
        &x,
        &y,
        (&contracting.0, &contracting.1),
        (&batch.0, &batch.1),
    )?))
}

type Dims = (Vec<usize>, Vec<usize>);

/// `((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))`.
fn dimension_numbers(o: &Obj) -> Result<(Dims, Dims)> {
    let shape_error = || {
        crate::err!(
            TypeError,
            "dot dimension_numbers must be ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))"
        )
    };
    let ints = |o: &Obj| -> Result<Vec<usize>> {
        match o {
            Obj::Int(i) => Ok(vec![*i as usize]),
            o => iterate(o)?
                .iter()
                .map(|i| to_int(i).map(|v| v as usize))
                .collect(),
        }
    };
    let pair = |o: &Obj| -> Result<Dims> {
        let p = iterate(o)?;
        match p.as_slice() {
            [l, r] => Ok((ints(l)?, ints(r)?)),
            _ => Err(shape_error()),
        }
    };
    match iterate(o)?.as_slice() {
        [c, b] => Ok((pair(c)?, pair(b)?)),
        _ => Err(shape_error()),
    }
}

/// A precision JAX accepts: None, a `Precision` name or value
/// (`'highest'`, `'float32'`, ...), or a pair of them.
pub(super) fn check_precision(p: &Obj) -> Result<()> {
    const NAMES: [&str; 9] = [
        "default",
        "high",
        "highest",
        "bfloat16",
        "tensorfloat32",
        "float32",
        "DEFAULT",
        "HIGH",
        "HIGHEST",
    ];
    match p {
        Obj::None => Ok(()),
        Obj::Str(s) if NAMES.contains(&&**s) => Ok(()),
        o if o.downcast::<super::lax_precision::Member>().is_some() => Ok(()),
        Obj::Tuple(_) | Obj::List(_) => {
            let items = iterate(p)?;
            if items.len() != 2 {
                bail!(
                    ValueError,
                    "jax.lax.dot: precision must be None, a Precision or a pair of them"
                );
            }
            items.iter().try_for_each(check_precision)
        }
        Obj::Str(s) => bail!(
            ValueError,
            "jax.lax.dot: unrecognized precision '{s}'; expected one of 'default', 'high', 'highest', 'bfloat16', 'tensorfloat32' or 'float32'"
        ),
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.lax.dot with precision={}",
            crate::python::format::repr_of(other)
        ),
    }
}
