//! Questions about complex numbers: `iscomplex` and `isreal` test each
//! element's imaginary part (JAX compares `imag(x)` with zero), while
//! `iscomplexobj` and `isrealobj` look only at the dtype.

use crate::array::{BinaryOp, DType, UnaryOp};
use crate::error::Result;
use crate::ops as jops;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;
use super::arr;

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("iscomplex", |_, a| {
        imag_compared(&arr(&a, 0, "x", "iscomplex")?, BinaryOp::Ne)
    });
    b.func("isreal", |_, a| {
        imag_compared(&arr(&a, 0, "x", "isreal")?, BinaryOp::Eq)
    });
    b.func("iscomplexobj", |_, a| {
        Ok(Obj::Bool(complex_obj(&a, "iscomplexobj")?))
    });
    b.func("isrealobj", |_, a| {
        Ok(Obj::Bool(!complex_obj(&a, "isrealobj")?))
    });
}

/// `imag(x) op 0`: the imaginary part of a real array is zeros of its dtype.
fn imag_compared(x: &Value, op: BinaryOp) -> Result<Obj> {
    let im = match x.dtype() {
        DType::C64 => jops::unary(UnaryOp::Imag, x)?,
        d => jops::broadcast_to(&jops::scalar(0.0, d), &x.shape())?,
    };
    let zero = jops::scalar(0.0, im.dtype());
    Ok(Obj::Array(jops::binary(op, &im, &zero)?))
}

/// Whether the argument's dtype is complex; None is not.
fn complex_obj(a: &Args, name: &str) -> Result<bool> {
    Ok(match a.req(Some(0), "x", name)? {
        Obj::None => false,
        Obj::Complex(..) => true,
        Obj::Array(x) => x.dtype() == DType::C64,
        other => crate::python::array::to_value(&other).is_ok_and(|v| v.dtype() == DType::C64),
    })
}
