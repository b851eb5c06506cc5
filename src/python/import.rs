//! How the core reaches the importable modules without knowing them.
//!
//! `import jax.numpy as jnp` asks the interpreter's [`Library`] for the
//! module by its dotted name; the module object is then cached for the run.
//! The modules themselves live outside the core (in `crate::modules`), which
//! hands the core a `Library` when a run starts.

use crate::array::Array;
use crate::bail;
use crate::error::{Error, Result};

use super::interp::Interp;
use super::value::Obj;

/// The importable modules, as the core sees them.
pub trait Library {
    /// Builds the module `name` (`"jax.numpy"`), or fails with
    /// `NotImplementedError` (or `ModuleNotFoundError`) naming it.
    fn import(&self, interp: &mut Interp, name: &str) -> Result<Obj>;

    /// `module.name` when the module has no such attribute: a submodule not
    /// imported yet, or an error that says what became of a removed name.
    fn missing_attr(&self, interp: &mut Interp, module: &str, name: &str) -> Result<Obj> {
        let _ = interp;
        bail!(
            AttributeError,
            "module '{module}' has no attribute '{name}'"
        )
    }

    /// The error for `obj.name` when a library object of type `type_name`
    /// has no such attribute: a library knows whether the real type has it
    /// (a feature shardlab lacks) or not (the program's mistake).
    fn missing_object_attr(&self, type_name: &str, name: &str) -> Error {
        crate::err!(
            AttributeError,
            "'{type_name}' object has no attribute '{name}'"
        )
    }

    /// An attribute of a dtype object beyond its name and size (`.char`,
    /// `.byteorder`, `.newbyteorder`), which a library's NumPy defines.
    fn dtype_attr(&self, d: crate::array::DType, name: &str) -> Result<Option<Obj>> {
        let _ = (d, name);
        Ok(None)
    }

    /// `type(o)` for a builtin value a library made and gives a type of
    /// its own (an `nnx.List` is a list to the core), or None.
    fn type_of(&self, o: &Obj) -> Option<Obj> {
        let _ = o;
        None
    }

    /// An attribute of a concrete array that a library defines (where the
    /// array lives: `x.sharding`, `x.addressable_shards`), or None.
    fn array_attr(&self, interp: &mut Interp, x: &Array, name: &str) -> Result<Option<Obj>> {
        let _ = (interp, x, name);
        Ok(None)
    }
}

/// No modules at all: every import fails.
pub struct NoLibrary;

impl Library for NoLibrary {
    fn import(&self, _: &mut Interp, name: &str) -> Result<Obj> {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: import {name}"
        )
    }
}

impl Interp {
    /// The module `name`, built on first import and cached for the run.
    pub fn import(&mut self, name: &str) -> Result<Obj> {
        if let Some(m) = self.modules.get(name) {
            return Ok(m.clone());
        }
        let library = self.library.clone();
        let m = library.import(self, name)?;
        self.modules.insert(name.to_string(), m.clone());
        Ok(m)
    }
}
