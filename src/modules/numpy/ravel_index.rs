//! `jnp.unravel_index` and `jnp.ravel_multi_index`, JAX's compositions:
//! flat indices split by repeated floor division and remainder from the
//! last dimension (out-of-range indices clamped to the first or last
//! position), and multi-indices combined with the row-major (or
//! column-major) strides after `mode` checks, clips or wraps them.

use crate::array::{BinaryOp, DType};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;
use super::compose::where_v;

/// Adds the two functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("unravel_index", unravel_index);
    b.func("ravel_multi_index", ravel_multi_index);
}

/// An array argument as jnp's `ensure_arraylike` takes it (a list is a
/// TypeError naming the function).
fn arraylike(o: &Obj, func: &str, pos: usize) -> Result<Value> {
    if matches!(o, Obj::List(_) | Obj::Tuple(_)) {
        bail!(
            TypeError,
            "{func} requires ndarray or scalar arguments, got {} at position {pos}.",
            format_args!("<class '{}'>", o.type_name())
        );
    }
    crate::python::array::to_value(o)
}

/// A Python int scalar of `dtype`, weakly typed.
fn int_like(v: i64, dtype: DType) -> Value {
    crate::python::array::weak_scalar(v as f64, dtype)
}

/// `unravel_index(indices, shape)`.
fn unravel_index(_: &mut Interp, a: Args) -> Result<Obj> {
    let func = "unravel_index";
    let mut rest = arraylike(&a.req(Some(0), "indices", func)?, func, 0)?;
    if !rest.dtype().is_int() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.unravel_index of {} indices",
            rest.dtype().name()
        );
    }
    let shape_arg = a.req(Some(1), "shape", func)?;
    let dims: Vec<i64> = match &shape_arg {
        Obj::List(_) | Obj::Tuple(_) => iterate(&shape_arg)?
            .iter()
            .map(|d| match d {
                Obj::List(_) | Obj::Tuple(_) => bail!(
                    ValueError,
                    "unravel_index: shape should be a scalar or 1D sequence."
                ),
                d => to_int(d),
            })
            .collect::<Result<_>>()?,
        d => vec![to_int(d)?],
    };
    let dtype = rest.dtype();
    let mut parts = vec![None; dims.len()];
    for (i, &s) in dims.iter().enumerate().rev() {
        let s = int_like(s, dtype);
        let q = jops::binary(BinaryOp::FloorDiv, &rest, &s)?;
        parts[i] = Some(jops::binary(BinaryOp::Rem, &rest, &s)?);
        rest = q;
    }
    let above = jops::greater(&rest, &int_like(0, dtype))?;
    // Unsigned indices cannot fall below the first position.
    let unsigned = matches!(dtype, DType::U32 | DType::U16 | DType::U8);
    let below = match !unsigned {
        true => Some(jops::less(&rest, &int_like(-1, dtype))?),
        false => None,
    };
    let mut out = vec![];
    for (&s, part) in dims.iter().zip(parts.into_iter().flatten()) {
        let inner = match &below {
            Some(b) => where_v(b, &int_like(0, DType::I32), &part)?,
            None => part,
        };
        out.push(Obj::Array(where_v(
            &above,
            &int_like(s - 1, DType::I32),
            &inner,
        )?));
    }
    Ok(Obj::tuple(out))
}

/// `ravel_multi_index(multi_index, dims, mode='raise', order='C', *, dtype=None)`.
fn ravel_multi_index(_: &mut Interp, a: Args) -> Result<Obj> {
    let func = "ravel_multi_index";
    let index_obj = iterate(&a.req(Some(0), "multi_index", func)?)?;
    let dims: Vec<i64> = iterate(&a.req(Some(1), "dims", func)?)?
        .iter()
        .map(to_int)
        .collect::<Result<_>>()?;
    if index_obj.len() != dims.len() {
        bail!(
            AssertionError,
            "len(multi_index)={} != len(dims)={}",
            index_obj.len(),
            dims.len()
        );
    }
    let mut index = vec![];
    for (k, o) in index_obj.iter().enumerate() {
        index.push(arraylike(o, func, k)?);
    }
    let dtype = match a.opt(None, "dtype") {
        Some(d) => super::dtypes::dtype_of(&d)?,
        None => index.iter().fold(DType::I32, |acc, x| {
            acc.promote_weak(false, x.dtype(), x.aval().weak)
        }),
    };
    if !dtype.is_int() {
        bail!(
            ValueError,
            "dtype=dtype('{}') is not an integer type.",
            dtype.name()
        );
    }
    if index.iter().any(|x| !x.dtype().is_int()) {
        bail!(TypeError, "only int indices permitted");
    }
    let index = apply_mode(index, &dims, &a)?;
    let strides = strides(&dims, &a)?;
    let mut result = Value::Concrete(crate::array::Array::full(&[], 0.0, dtype));
    for (i, s) in index.iter().zip(strides) {
        let term = jops::mul(&jops::astype(i, dtype)?, &int_like(s, dtype))?;
        result = jops::add(&result, &term)?;
    }
    Ok(Obj::Array(result))
}

/// The indices after `mode`: checked (`'raise'`, concrete values only),
/// clipped, wrapped or left alone.
fn apply_mode(index: Vec<Value>, dims: &[i64], a: &Args) -> Result<Vec<Value>> {
    let mode = match a.opt(Some(2), "mode") {
        Some(Obj::Str(s)) => s.to_string(),
        Some(o) => crate::python::format::repr_of(&o),
        None => "raise".into(),
    };
    let mut out = vec![];
    for (i, &d) in index.into_iter().zip(dims) {
        let dt = i.dtype();
        out.push(match mode.as_str() {
            "raise" => {
                let Value::Concrete(c) = &i else {
                    bail!(
                        ConcretizationTypeError,
                        "Abstract tracer value encountered where concrete value is expected: the error occurred because ravel_multi_index was jit-compiled with mode='raise'. Use mode='wrap' or mode='clip' instead."
                    );
                };
                let values = c.to_f64_vec();
                if values.iter().any(|&v| v < 0.0 || v >= d as f64) {
                    bail!(ValueError, "invalid entry in coordinates array");
                }
                i
            }
            "clip" => jops::clamp(&int_like(0, dt), &i, &int_like(d - 1, dt))?,
            "wrap" => jops::binary(BinaryOp::Rem, &i, &int_like(d, dt))?,
            "ignore" => i,
            other => bail!(
                ValueError,
                "invalid mode='{other}'. Expected 'raise', 'wrap', 'clip', or 'ignore'."
            ),
        });
    }
    Ok(out)
}

/// The strides of `dims` in `order` (`'C'`: the last dimension varies
/// fastest; `'F'`: the first).
fn strides(dims: &[i64], a: &Args) -> Result<Vec<i64>> {
    let order = match a.opt(Some(3), "order") {
        Some(Obj::Str(s)) => s.to_string(),
        Some(o) => crate::python::format::repr_of(&o),
        None => "C".into(),
    };
    let mut acc = 1i64;
    let mut out = vec![0; dims.len()];
    let positions: Vec<usize> = match order.as_str() {
        "C" => (0..dims.len()).rev().collect(),
        "F" => (0..dims.len()).collect(),
        other => bail!(ValueError, "invalid order='{other}'. Expected 'C' or 'F'"),
    };
    for p in positions {
        out[p] = acc;
        acc = acc.wrapping_mul(dims[p]);
    }
    Ok(out)
}
