//! The program devices run: a jaxpr-like list of equations over typed variables.
//!
//! The front end traces a user's function into a [`Jaxpr`] (see `trace`), the
//! transformations rewrite jaxprs (see `transforms`), and the evaluators run
//! them on every device (see `exec`). Devices never see the user's code, only
//! this.

mod dead;
mod print;
pub mod str_repr;
mod unprintable;

pub use print::{equation as equation_text, str_repr, typed as typed_text, Types};

/// Shapes print as Python tuples everywhere: `(3,)`, `(2, 4)`.
pub use crate::array::fmt_shape;

use std::collections::BTreeSet;
use std::fmt;

use crate::array::{Array, DType};
use crate::primitives::Prim;

/// The mesh axes a value varies over (JAX's "varying manual axes", VMA).
/// Empty means the value is the same on every device of the enclosing map.
pub type AxisSet = BTreeSet<String>;

/// The abstract value of a variable: what tracing knows without data.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct Aval {
    /// Dimensions.
    pub shape: Vec<usize>,
    /// Element type.
    pub dtype: DType,
    /// Mesh axes the value varies over, inside a `shard_map` with `check_vma`.
    pub vma: AxisSet,
    /// JAX's `weak_type`: the value came from a Python scalar (see
    /// [`crate::array::Array::is_weak`]). Jaxprs do not print it; `str` of
    /// the type does, as a `~` prefix.
    pub weak: bool,
}

impl Aval {
    /// An aval that varies over no axis.
    pub fn new(shape: &[usize], dtype: DType) -> Aval {
        Aval {
            shape: shape.to_vec(),
            dtype,
            vma: AxisSet::new(),
            weak: false,
        }
    }

    /// The aval of a concrete array.
    pub fn of(a: &Array) -> Aval {
        Aval::new(a.shape(), a.dtype()).with_weak(a.is_weak())
    }

    /// The same type, weakly typed or not.
    pub fn with_weak(&self, weak: bool) -> Aval {
        Aval {
            weak,
            ..self.clone()
        }
    }

    /// Same shape, dtype and VMA, weakly typed or not (JAX's `typematch`).
    pub fn typematch(&self, other: &Aval) -> bool {
        self.shape == other.shape && self.dtype == other.dtype && self.vma == other.vma
    }

    /// `str` of JAX's `ShapedArray`: the short form with a `~` before a weak
    /// type (`~float32[]`), as `jax.typeof` and tracer reprs print it.
    pub fn str_text(&self, short: &str) -> String {
        if self.weak {
            format!("~{short}")
        } else {
            short.to_string()
        }
    }

    /// The same shape and dtype with another VMA.
    pub fn with_vma(&self, vma: AxisSet) -> Aval {
        Aval {
            shape: self.shape.clone(),
            dtype: self.dtype,
            vma,
            weak: self.weak,
        }
    }

    /// The same VMA and dtype with another shape.
    pub fn with_shape(&self, shape: Vec<usize>) -> Aval {
        Aval {
            shape,
            dtype: self.dtype,
            vma: self.vma.clone(),
            weak: self.weak,
        }
    }

    /// The same shape and VMA with another dtype.
    pub fn with_dtype(&self, dtype: DType) -> Aval {
        Aval {
            shape: self.shape.clone(),
            dtype,
            vma: self.vma.clone(),
            weak: self.weak,
        }
    }
}

impl fmt::Display for Aval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
        write!(f, "{}[{}]", self.dtype.short_name(), dims.join(","))?;
        if !self.vma.is_empty() {
            let names: Vec<&str> = self.vma.iter().map(|s| s.as_str()).collect();
            if names.len() == 1 {
                write!(f, "{{V:{}}}", names[0])?;
            } else {
                write!(f, "{{V:({})}}", names.join(","))?;
            }
        }
        Ok(())
    }
}

/// A variable of a jaxpr, an index into [`Jaxpr::avals`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct Var(pub u32);

/// An equation operand: a variable or a constant folded into the program.
#[derive(Debug, Clone)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum Atom {
    /// A variable bound earlier in the same jaxpr.
    Var(Var),
    /// A constant (a literal scalar or an array closed over by the traced function).
    Lit(Array),
}

/// One equation: `outputs = prim(inputs)`.
#[derive(Debug, Clone)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct Eqn {
    /// The primitive and its parameters.
    pub prim: Prim,
    /// Operands.
    pub inputs: Vec<Atom>,
    /// Results, one variable each.
    pub outputs: Vec<Var>,
    /// Where in the program the equation was made (JAX's source info):
    /// what `print_saved_residuals` names a saved value by, and the line
    /// the run report gives a collective. Sent to the browser's device
    /// workers with the program, so their collective logs carry it too.
    #[cfg_attr(target_arch = "wasm32", serde(default))]
    pub source: Option<crate::trace::Source>,
    /// The library function that made this equation when the jaxpr does
    /// not name it (`pmean` for its sum): what the run report shows.
    #[cfg_attr(target_arch = "wasm32", serde(default))]
    pub called_as: Option<String>,
}

/// A traced program: typed inputs, equations in order, outputs.
#[derive(Debug, Clone)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct Jaxpr {
    /// The aval of every variable, indexed by `Var`.
    pub avals: Vec<Aval>,
    /// Inputs.
    pub invars: Vec<Var>,
    /// Equations, in evaluation order.
    pub eqns: Vec<Eqn>,
    /// Outputs.
    pub outvars: Vec<Atom>,
}

impl Jaxpr {
    /// The TypeError for running the program on `given` inputs when it
    /// takes another number.
    pub fn check_arity(&self, given: usize) -> crate::error::Result<()> {
        if given != self.invars.len() {
            crate::bail!(
                TypeError,
                "program takes {} inputs, got {given}",
                self.invars.len()
            );
        }
        Ok(())
    }

    /// The aval of a variable.
    pub fn aval(&self, v: Var) -> &Aval {
        &self.avals[v.0 as usize]
    }

    /// The aval of an operand.
    pub fn atom_aval(&self, a: &Atom) -> Aval {
        match a {
            Atom::Var(v) => self.aval(*v).clone(),
            Atom::Lit(x) => Aval::of(x),
        }
    }

    /// Avals of the inputs.
    pub fn in_avals(&self) -> Vec<Aval> {
        self.invars.iter().map(|v| self.aval(*v).clone()).collect()
    }

    /// Avals of the outputs.
    pub fn out_avals(&self) -> Vec<Aval> {
        self.outvars.iter().map(|a| self.atom_aval(a)).collect()
    }
}
