//! Methods of builtin types taken from the type (`dict.keys`,
//! `str.join`, `list.__getitem__`): functions whose first argument is the
//! receiver, as CPython's method descriptors are.

use crate::bail;
use crate::python::value::{Args, Obj};

/// The special methods a builtin type's object answers through the
/// interpreter's operators.
const SPECIAL: [&str; 8] = [
    "__getitem__",
    "__setitem__",
    "__delitem__",
    "__contains__",
    "__len__",
    "__eq__",
    "__repr__",
    "__str__",
];

/// An empty object of builtin type `t`, to ask which methods it has.
fn empty(t: &str) -> Option<Obj> {
    Some(match t {
        "dict" => Obj::Dict(Default::default()),
        "list" => Obj::List(Default::default()),
        "str" => Obj::str(""),
        "tuple" => Obj::tuple(vec![]),
        "set" => Obj::Set(Default::default()),
        _ => return None,
    })
}

/// `t.name` as a function of the receiver and the method's arguments, if
/// `t` has such a method.
pub fn unbound(t: &str, name: &str) -> Option<Obj> {
    let e = empty(t)?;
    if !SPECIAL.contains(&name) && super::method(&e, name).is_none() {
        return None;
    }
    let (t, name) = (t.to_string(), name.to_string());
    let qualified = format!("{t}.{name}");
    Some(Obj::native(qualified, move |i, a| {
        // An instance of a class extending `t` is its value of `t`.
        let Some(recv) = a.pos.first().map(|r| r.plain().clone()) else {
            bail!(TypeError, "unbound method {t}.{name}() needs an argument");
        };
        if recv.type_name() != t {
            bail!(
                TypeError,
                "descriptor '{name}' for '{t}' objects doesn't apply to a '{}' object",
                recv.type_name()
            );
        }
        let rest: Vec<Obj> = a.pos[1..].to_vec();
        let arg = |k: usize| -> crate::error::Result<Obj> {
            match rest.get(k) {
                Some(v) => Ok(v.clone()),
                None => bail!(
                    TypeError,
                    "expected {} arguments, got {}",
                    k + 1,
                    rest.len()
                ),
            }
        };
        match name.as_str() {
            "__getitem__" => crate::python::ops::getitem(i, &recv, &arg(0)?),
            "__setitem__" => i.setitem(&recv, arg(0)?, arg(1)?).map(|_| Obj::None),
            "__delitem__" => i.delitem(&recv, &arg(0)?).map(|_| Obj::None),
            "__contains__" => {
                let op = rustpython_parser::ast::CmpOp::In;
                i.compare(&op, &arg(0)?, &recv)
            }
            "__len__" => i.len(&recv).map(Obj::Int),
            "__eq__" => Ok(Obj::Bool(crate::python::ops::py_eq(&recv, &arg(0)?))),
            "__repr__" => i.repr(&recv).map(Obj::str),
            "__str__" => i.str(&recv).map(Obj::str),
            _ => {
                let Some(m) = super::method(&recv, &name) else {
                    bail!(AttributeError, "'{t}' object has no attribute '{name}'");
                };
                i.call(&m, Args::with(rest, a.kw.clone()))
            }
        }
    }))
}
