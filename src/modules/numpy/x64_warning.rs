//! JAX's UserWarning when a `jax.numpy` creation function is asked for a
//! 64-bit dtype (`jnp.zeros(3, dtype=np.float64)`,
//! `jnp.array(x, dtype="int64")`): without x64 JAX makes the 32-bit array
//! and says so once per calling line, naming the dtype, the function and
//! the dtype it gives instead.
//!
//! The request is seen where the program names NumPy's or jnp's 64-bit
//! types or a 64-bit dtype's name.

use std::rc::Rc;

use crate::error::Result;
use crate::modules::std::warnings::{warn, Place};
use crate::python::interp::Interp;
use crate::python::value::{Args, Native, Obj};

use super::host::Kind;
use super::scalar_types::HostType;

/// The functions that warn, with the position of their dtype argument.
const CREATION: &[(&str, usize)] = &[
    ("zeros", 1),
    ("ones", 1),
    ("empty", 1),
    ("full", 2),
    ("array", 1),
    ("asarray", 1),
    ("zeros_like", 1),
    ("ones_like", 1),
    ("empty_like", 1),
    ("full_like", 2),
];

/// The 64-bit dtype a dtype argument requests, with the one JAX gives.
pub(super) fn wide(o: &Obj) -> Option<(&'static str, &'static str)> {
    if let Some(t) = o.downcast::<super::wide_types::WideType>() {
        return Some((t.name, t.narrow.name()));
    }
    if let Some(t) = o.downcast::<HostType>() {
        return match t.kind {
            Kind::Float64 => Some(("float64", "float32")),
            Kind::Int64 => Some(("int64", "int32")),
            _ => None,
        };
    }
    match o {
        Obj::Str(s) => match &**s {
            "float64" | "f8" | "double" => Some(("float64", "float32")),
            "int64" | "i8" => Some(("int64", "int32")),
            "uint64" | "u8" => Some(("uint64", "uint32")),
            "complex128" | "c16" => Some(("complex128", "complex64")),
            _ => None,
        },
        _ => None,
    }
}

/// Warns as JAX does when `jnp.NAME(...)`'s dtype argument is 64-bit.
fn check(interp: &mut Interp, name: &str, at: usize, a: &Args) -> Result<()> {
    let Some((asked, given)) = a.opt(Some(at), "dtype").as_ref().and_then(wide) else {
        return Ok(());
    };
    let text = format!(
        "Explicitly requested dtype {asked} requested in {name} is not available, and will be \
         truncated to dtype {given}. To enable more dtypes, set the jax_enable_x64 configuration \
         option or the JAX_ENABLE_X64 shell environment variable. See \
         https://github.com/jax-ml/jax#current-gotchas for more."
    );
    warn(interp, "UserWarning", &text, Place::Program(1))
}

/// Makes `jax.numpy`'s creation functions warn.
pub fn wrap_module(m: &Obj) {
    let Obj::Module(module) = m else { return };
    let mut attrs = module.attrs.borrow_mut();
    for (name, v) in attrs.iter_mut() {
        let Some(&(jax, at)) = CREATION.iter().find(|(n, _)| n == name) else {
            continue;
        };
        let Obj::Native(native) = v else { continue };
        let native: Rc<Native> = native.clone();
        *v = Obj::native(native.name.clone(), move |interp, a| {
            check(interp, jax, at, &a)?;
            (native.f)(interp, a)
        });
    }
}
