//! `enum`: `Enum`, `IntEnum`, `StrEnum`, `auto` and `unique`.
//!
//! An enumeration is a library object ([`EnumClass`]) made from the class a
//! `class Color(Enum):` body produced: its plain attributes become members
//! ([`Member`]: `.name`, `.value`, `<Color.RED: 1>`, `Color.RED`), looked up
//! as `Color.RED`, `Color(1)` and `Color['RED']`, iterated in order and
//! counted by `len`. [`enum_class`] does that conversion when the `class`
//! statement runs (the base classes' native behaviour, [`EnumMeta`], stands
//! for Python's `EnumMeta`); members keep the order of the class body.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use crate::error::Result;
use crate::{bail, err};

use crate::modules::Builder;
use crate::python::format::{repr_of, str_of};
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::py_eq;
use crate::python::value::{Args, Class, Dict, Obj};

/// What kind of enumeration a class is, by the base it derives from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Plain,
    Int,
    Str,
}

const KIND_ATTR: &str = "__enum_kind__";

/// The `enum` module.
pub fn module() -> Obj {
    let base = |name: &str, kind: &str, bases: Vec<Rc<Class>>| {
        let mut class = Class::new(name, bases, vec![(KIND_ATTR.to_string(), Obj::str(kind))]);
        class.native = Some(Rc::new(EnumMeta));
        Rc::new(class)
    };
    let plain = base("Enum", "plain", vec![]);
    let int = base("IntEnum", "int", vec![plain.clone()]);
    let strs = base("StrEnum", "str", vec![plain.clone()]);
    Builder::new("enum")
        .attr("Enum", Obj::Class(plain))
        .attr("IntEnum", Obj::Class(int))
        .attr("StrEnum", Obj::Class(strs))
        .func("auto", |_, _| Ok(Obj::lib(Auto)))
        .func("unique", unique)
        .build()
}

/// `auto()`: a value chosen when the enumeration is made.
struct Auto;

/// What `class Color(Enum):` does: the new class becomes an enumeration.
struct EnumMeta;

impl Object for EnumMeta {
    fn type_name(&self) -> String {
        "EnumType".into()
    }

    fn subclass_created(&self, interp: &mut Interp, class: &Rc<Class>) -> Option<Result<Obj>> {
        Some(enum_class(interp, class))
    }
}

impl Object for Auto {
    fn type_name(&self) -> String {
        "auto".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("auto(_auto_null)".into())
    }
}

fn kind_of(c: &Class) -> Option<Kind> {
    match c.lookup(KIND_ATTR) {
        Some(Obj::Str(s)) => Some(match &*s {
            "int" => Kind::Int,
            "str" => Kind::Str,
            _ => Kind::Plain,
        }),
        _ => None,
    }
}

/// `@unique`: makes the enumeration and refuses aliases.
fn unique(interp: &mut Interp, a: Args) -> Result<Obj> {
    let e = match a.req(Some(0), "enumeration", "unique")? {
        Obj::Class(c) => enum_class(interp, &c)?,
        other if other.downcast::<EnumClass>().is_some() => other,
        other => bail!(
            TypeError,
            "unique() expects an enumeration, not {}",
            other.type_name()
        ),
    };
    if let Some(ec) = e.downcast::<EnumClass>() {
        let dups: Vec<String> = ec
            .names
            .iter()
            .filter_map(|(n, m)| {
                let canon = &m.downcast::<Member>()?.name;
                (canon != n).then(|| format!("{n} -> {canon}"))
            })
            .collect();
        if !dups.is_empty() {
            bail!(
                ValueError,
                "duplicate values found in <enum '{}'>: {}",
                ec.name,
                dups.join(", ")
            );
        }
    }
    Ok(e)
}

/// The attributes of a class body that become members, in member order.
fn candidates(c: &Class) -> Vec<(String, Obj)> {
    c.attrs
        .borrow()
        .iter()
        .filter(|(k, v)| {
            let sunder = k.len() > 2 && k.starts_with('_') && k.ends_with('_');
            !k.starts_with("__")
                && !sunder
                && !matches!(
                    v,
                    Obj::Func(_) | Obj::Native(_) | Obj::Method(_) | Obj::Class(_)
                )
        })
        .cloned()
        .collect()
}

/// The value `auto()` stands for after the values `before`.
fn auto_value(kind: Kind, name: &str, before: &[Obj]) -> Obj {
    if kind == Kind::Str {
        return Obj::str(name.to_lowercase());
    }
    match before.last() {
        Some(Obj::Int(i)) => Obj::Int(i + 1),
        _ => Obj::Int(1),
    }
}

/// Makes the enumeration of the class `c` (a subclass of `Enum`).
pub fn enum_class(interp: &mut Interp, c: &Rc<Class>) -> Result<Obj> {
    let _ = interp;
    let Some(kind) = kind_of(c) else {
        bail!(TypeError, "{} is not an Enum subclass", c.name);
    };
    let mut values: Vec<Obj> = vec![];
    let mut prepared: Vec<(String, Obj)> = vec![];
    for (name, v) in candidates(c) {
        let v = if v.downcast::<Auto>().is_some() {
            auto_value(kind, &name, &values)
        } else {
            v
        };
        let v = match (kind, &v) {
            (Kind::Int, Obj::Int(_) | Obj::Bool(_))
            | (Kind::Str, Obj::Str(_))
            | (Kind::Plain, _) => v,
            (Kind::Int, other) => bail!(
                ValueError,
                "invalid literal for int() with base 10: {}",
                repr_of(other)
            ),
            (Kind::Str, other) => bail!(TypeError, "{} is not a string", repr_of(other)),
        };
        values.push(v.clone());
        prepared.push((name, v));
    }
    let class = c.clone();
    let e = Rc::new_cyclic(|me: &Weak<EnumClass>| {
        let mut members: Vec<Obj> = vec![];
        let mut names = vec![];
        for (name, value) in prepared {
            let existing = members.iter().find(|m| {
                m.downcast::<Member>()
                    .is_some_and(|m| py_eq(&m.value, &value))
            });
            let m = match existing {
                Some(m) => m.clone(),
                None => {
                    let m = Obj::lib(Member {
                        name: name.clone(),
                        value,
                        kind,
                        owner: me.clone(),
                    });
                    members.push(m.clone());
                    m
                }
            };
            names.push((name, m));
        }
        EnumClass {
            name: class.name.clone(),
            class,
            members,
            names,
        }
    });
    Ok(Obj::Lib(e))
}

/// An enumeration: the class of its members.
pub struct EnumClass {
    name: String,
    /// The class the body made (for its methods).
    class: Rc<Class>,
    /// The members, without aliases, in order.
    members: Vec<Obj>,
    /// Every name, aliases included, with its member.
    names: Vec<(String, Obj)>,
}

impl EnumClass {
    fn by_name(&self, name: &str) -> Option<Obj> {
        self.names
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, m)| m.clone())
    }

    fn members_dict(&self) -> Obj {
        let d: Dict = self
            .names
            .iter()
            .map(|(n, m)| (Obj::str(n), m.clone()))
            .collect();
        Obj::Dict(Rc::new(RefCell::new(d)))
    }
}

impl Object for EnumClass {
    fn type_name(&self) -> String {
        "EnumType".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        if let Some(m) = self.by_name(name) {
            return Ok(Some(m));
        }
        Ok(match name {
            "__name__" | "__qualname__" => Some(Obj::str(&self.name)),
            "__members__" | "_member_map_" => Some(self.members_dict()),
            "_member_names_" => Some(Obj::list(
                self.members
                    .iter()
                    .filter_map(|m| m.downcast::<Member>().map(|m| Obj::str(&m.name)))
                    .collect(),
            )),
            _ => self.class.lookup(name),
        })
    }

    fn call(&self, _: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        let Some(v) = args.get(Some(0), "value") else {
            return Some(Err(err!(
                TypeError,
                "{}() missing 1 required positional argument: 'value'",
                self.name
            )));
        };
        let found = self.members.iter().find(|m| {
            m.downcast::<Member>().is_some_and(|x| {
                py_eq(&x.value, &v)
                    || matches!((m, &v), (Obj::Lib(a), Obj::Lib(b)) if Rc::ptr_eq(a, b))
            })
        });
        Some(match found {
            Some(m) => Ok(m.clone()),
            None => Err(err!(
                ValueError,
                "{} is not a valid {}",
                repr_of(&v),
                self.name
            )),
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("<enum '{}'>", self.name))
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(Ok(self.members.clone()))
    }

    fn getitem(&self, _: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(
            self.by_name(&str_of(key))
                .filter(|_| matches!(key, Obj::Str(_)))
                .ok_or_else(|| err!(KeyError, "{}", repr_of(key))),
        )
    }
}

/// A member of an enumeration.
pub struct Member {
    name: String,
    value: Obj,
    kind: Kind,
    owner: Weak<EnumClass>,
}

impl Member {
    fn class_name(&self) -> String {
        self.owner
            .upgrade()
            .map(|e| e.name.clone())
            .unwrap_or_default()
    }
}

impl Object for Member {
    fn type_name(&self) -> String {
        self.class_name()
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "name" | "_name_" => Some(Obj::str(&self.name)),
            "value" | "_value_" => Some(self.value.clone()),
            "__class__" => self.owner.upgrade().map(|e| Obj::Lib(e)),
            _ => match self.owner.upgrade().and_then(|e| e.class.lookup(name)) {
                Some(f @ (Obj::Func(_) | Obj::Native(_))) => {
                    Some(Obj::Method(Rc::new((this.clone(), f))))
                }
                other => other,
            },
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!(
            "<{}.{}: {}>",
            self.class_name(),
            self.name,
            repr_of(&self.value)
        ))
    }

    fn str(&self, _: &Obj) -> Option<String> {
        Some(match self.kind {
            Kind::Plain => format!("{}.{}", self.class_name(), self.name),
            Kind::Int | Kind::Str => str_of(&self.value),
        })
    }

    fn eq(&self, this: &Obj, other: &Obj) -> Option<bool> {
        let same = matches!((this, other), (Obj::Lib(a), Obj::Lib(b)) if Rc::ptr_eq(a, b));
        Some(match self.kind {
            Kind::Plain => same,
            Kind::Int | Kind::Str => {
                let other = other
                    .downcast::<Member>()
                    .map(|m| m.value.clone())
                    .unwrap_or_else(|| other.clone());
                same || py_eq(&self.value, &other)
            }
        })
    }
}
