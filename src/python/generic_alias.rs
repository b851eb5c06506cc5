//! `list[int]`, `dict[str, int]`, `tuple[int, ...]`: Python's
//! `types.GenericAlias`, which subscripting a builtin container type makes
//! (annotations, type aliases). It prints as CPython prints it, calls its
//! origin type (`list[int]([1, 2])` is a list), joins unions, and is
//! refused by `isinstance` as CPython refuses a parameterized generic.

use crate::bail;
use crate::error::Result;

use super::format::repr_of;
use super::interp::Interp;
use super::object::Object;
use super::value::{Args, Obj};

/// A builtin type subscripted: its origin and its arguments.
pub struct GenericAlias {
    /// The builtin type (`list`, `dict`, ...).
    pub origin: &'static str,
    /// The subscript's items (`tuple[()]` has none).
    pub args: Vec<Obj>,
}

/// `origin[key]` for a builtin container type.
pub fn subscript(origin: &'static str, key: &Obj) -> Obj {
    let args = match key {
        Obj::Tuple(t) => t.to_vec(),
        other => vec![other.clone()],
    };
    Obj::lib(GenericAlias { origin, args })
}

/// An argument as CPython names it: `int`, `list[int]`, `...`.
fn arg_text(o: &Obj) -> String {
    match o {
        Obj::Ellipsis => "...".into(),
        _ => super::union::member_text(o),
    }
}

impl Object for GenericAlias {
    fn type_name(&self) -> String {
        "GenericAlias".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("types")
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let args = if self.args.is_empty() {
            "()".to_string()
        } else {
            let parts: Vec<String> = self.args.iter().map(arg_text).collect();
            parts.join(", ")
        };
        Some(format!("{}[{args}]", self.origin))
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "__origin__" => Some(Obj::Type(self.origin)),
            "__args__" => Some(Obj::tuple(self.args.clone())),
            _ => None,
        })
    }

    fn callable(&self) -> bool {
        true
    }

    fn call(&self, interp: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        Some(super::builtins::call_type(interp, self.origin, args))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.downcast::<GenericAlias>().is_some_and(|o| {
            o.origin == self.origin
                && o.args.len() == self.args.len()
                && o.args
                    .iter()
                    .zip(&self.args)
                    .all(|(a, b)| repr_of(a) == repr_of(b))
        }))
    }
}

/// CPython's refusal of `isinstance(x, list[int])`.
pub fn refuse_isinstance(t: &Obj) -> Result<()> {
    let parameterized = match t {
        Obj::Tuple(ts) => ts.iter().any(|t| t.downcast::<GenericAlias>().is_some()),
        t => t.downcast::<GenericAlias>().is_some(),
    };
    if parameterized {
        bail!(
            TypeError,
            "isinstance() argument 2 cannot be a parameterized generic"
        );
    }
    Ok(())
}
