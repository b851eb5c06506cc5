//! `X | Y` of types: Python's `types.UnionType`, as annotations and
//! type aliases build it (`Index = int | slice | jax.Array`). It prints as
//! CPython prints it and `isinstance` checks each member.

use super::format::repr_of;
use super::object::Object;
use super::value::Obj;

/// A union of types, flattened: `(int | str) | None` has three members.
pub struct UnionType(pub Vec<Obj>);

/// Whether `o` may be a member of a union: a type, None, or a union.
fn type_like(o: &Obj) -> bool {
    match o {
        Obj::Type(_) | Obj::Class(_) | Obj::None => true,
        Obj::Lib(l) => matches!(
            l.type_name().as_str(),
            "type" | "UnionType" | "_SpecialForm" | "GenericAlias"
        ),
        _ => false,
    }
}

fn members(o: &Obj) -> Vec<Obj> {
    match o.downcast::<UnionType>() {
        Some(u) => u.0.clone(),
        None => vec![o.clone()],
    }
}

/// `a | b` when both are types, or None.
pub fn union(a: &Obj, b: &Obj) -> Option<Obj> {
    let both_none = matches!((a, b), (Obj::None, Obj::None));
    if !(type_like(a) && type_like(b)) || both_none {
        return None;
    }
    let mut all = members(a);
    for m in members(b) {
        if !all.iter().any(|x| repr_of(x) == repr_of(&m)) {
            all.push(m);
        }
    }
    Some(Obj::lib(UnionType(all)))
}

/// A member as CPython names it in a union: `int`, `jax.Array`, `None`.
pub(super) fn member_text(o: &Obj) -> String {
    match o {
        Obj::None => return "None".into(),
        Obj::Type("Array") => return "jax.Array".into(),
        _ => {}
    }
    let text = repr_of(o);
    match text
        .strip_prefix("<class '")
        .and_then(|t| t.strip_suffix("'>"))
    {
        Some(name) => name.strip_prefix("builtins.").unwrap_or(name).to_string(),
        None => text,
    }
}

impl Object for UnionType {
    fn type_name(&self) -> String {
        "UnionType".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("types")
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let parts: Vec<String> = self.0.iter().map(member_text).collect();
        Some(parts.join(" | "))
    }

    fn instancecheck(&self, obj: &Obj) -> Option<bool> {
        Some(self.0.iter().any(|t| match t {
            Obj::None => matches!(obj, Obj::None),
            t => super::builtins::isinstance(obj, t),
        }))
    }
}
