//! `nnx.List` as a class: an nnx list is a Python list to the core (so
//! every list operation applies), yet `type(l)` is Flax's class
//! `flax.nnx.helpers.List`, which is `nnx.List` itself: calling it makes
//! another nnx list, and `isinstance` knows the lists it made.

use super::*;

/// The class `nnx.List`.
pub(super) struct ListType;

impl ListType {
    /// The class object, as `nnx.List` exports it.
    pub(super) fn obj() -> Obj {
        Obj::lib(ListType)
    }
}

impl Object for ListType {
    fn type_name(&self) -> String {
        "type".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("<class 'flax.nnx.helpers.List'>".into())
    }

    fn class_name(&self) -> Option<String> {
        Some("flax.nnx.helpers.List".into())
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "__name__" | "__qualname__" => Some(Obj::str("List")),
            "__module__" => Some(Obj::str("flax.nnx.helpers")),
            _ => None,
        })
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.downcast::<ListType>().is_some())
    }

    fn instancecheck(&self, obj: &Obj) -> Option<bool> {
        Some(super::pytree::is_nnx_list(obj))
    }

    fn callable(&self) -> bool {
        true
    }

    /// `nnx.List(iterable=())`.
    fn call(&self, _: &mut Interp, _: &Obj, a: Args) -> Option<Result<Obj>> {
        let items = match a.get(Some(0), "iterable") {
            Some(o) => iterate(&o),
            None => Ok(vec![]),
        };
        Some(items.map(super::pytree::nnx_list))
    }
}

/// `type(o)` when `o` is an nnx list.
pub fn list_type_of(o: &Obj) -> Option<Obj> {
    super::pytree::is_nnx_list(o).then(ListType::obj)
}
