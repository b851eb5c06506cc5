//! `isscalar`, `iterable` and the index-expression builders `s_` and
//! `index_exp`, which `numpy` and `jax.numpy` share.
//!
//! `numpy.isscalar` is true of Python's numbers and strings and of NumPy's
//! scalar types only; `jax.numpy.isscalar` also counts any array of rank
//! 0 (a JAX array, a NumPy array, a traced value). `iterable` is whether
//! `iter()` accepts the object, so a rank-0 array is not.

use crate::error::{ErrorKind, Result};
use crate::python::bytes::Bytes;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};

use super::super::Builder;

/// Adds the predicates and the index builders; `numpy` selects NumPy's
/// `isscalar`.
pub(super) fn register(b: &mut Builder, numpy: bool) {
    if numpy {
        b.func("isscalar", |_, a| {
            Ok(Obj::Bool(python_scalar(&a.req(
                Some(0),
                "element",
                "isscalar",
            )?)))
        });
    } else {
        b.func("isscalar", jnp_isscalar);
    }
    b.func("iterable", |i, a| {
        let y = a.req(Some(0), "y", "iterable")?;
        match i.iter_of(&y) {
            Ok(_) => Ok(Obj::Bool(true)),
            Err(e) if e.kind == ErrorKind::TypeError => Ok(Obj::Bool(false)),
            Err(e) => Err(e),
        }
    });
    b.attr("s_", Obj::lib(IndexExpression { tuple: false }));
    b.attr("index_exp", Obj::lib(IndexExpression { tuple: true }));
}

/// What NumPy counts as a scalar: Python's numbers, strings and bytes, and
/// NumPy's scalar objects.
fn python_scalar(o: &Obj) -> bool {
    match o {
        Obj::Bool(_) | Obj::Int(_) | Obj::Float(_) | Obj::Complex(..) | Obj::Str(_) => true,
        Obj::Lib(_) => o.downcast::<Bytes>().is_some() || super::scalar::is_scalar(o),
        _ => false,
    }
}

/// `jnp.isscalar`: NumPy's scalars and every array of rank 0.
fn jnp_isscalar(i: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "element", "isscalar")?;
    if python_scalar(&x) {
        return Ok(Obj::Bool(true));
    }
    let array = matches!(&x, Obj::Array(_)) || super::ndarray::is_ndarray(&x);
    if !array {
        return Ok(Obj::Bool(false));
    }
    let ndim = crate::python::ops::getattr(i, &x, "ndim")?;
    Ok(Obj::Bool(matches!(ndim, Obj::Int(0))))
}

/// `np.s_` (the key itself) and `np.index_exp` (the key as a tuple).
struct IndexExpression {
    tuple: bool,
}

impl Object for IndexExpression {
    fn type_name(&self) -> String {
        "IndexExpression".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("numpy.lib._index_tricks_impl")
    }

    fn getitem(&self, _: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(Ok(match key {
            Obj::Tuple(_) => key.clone(),
            k if self.tuple => Obj::tuple(vec![k.clone()]),
            k => k.clone(),
        }))
    }
}
