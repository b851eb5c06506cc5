//! The key path entries of `jax.tree_util`: `DictKey(key)`,
//! `SequenceKey(idx)`, `GetAttrKey(name)` and `FlattenedIndexKey(key)`,
//! with JAX's reprs and strs, and `keystr`.

use std::rc::Rc;

use crate::bail;
use crate::error::Result;

use crate::modules::Builder;
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::py_eq;
use crate::python::pytree::KeyEntry;
use crate::python::value::{Args, Class, Obj};

/// Which key entry a class makes.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Dict,
    Sequence,
    Attr,
    Flat,
}

impl Kind {
    fn class_name(self) -> &'static str {
        match self {
            Kind::Dict => "DictKey",
            Kind::Sequence => "SequenceKey",
            Kind::Attr => "GetAttrKey",
            Kind::Flat => "FlattenedIndexKey",
        }
    }

    /// The attribute holding the entry's value.
    fn field(self) -> &'static str {
        match self {
            Kind::Dict | Kind::Flat => "key",
            Kind::Sequence => "idx",
            Kind::Attr => "name",
        }
    }
}

/// The behaviour of key entry instances.
struct KeyBehaviour(Kind);

impl KeyBehaviour {
    fn value(&self, this: &Obj) -> Option<Obj> {
        let Obj::Instance(i) = this else { return None };
        i.get(self.0.field())
    }
}

impl Object for KeyBehaviour {
    fn type_name(&self) -> String {
        self.0.class_name().into()
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        let v = self.value(this)?;
        Some(format!(
            "{}({}={})",
            self.0.class_name(),
            self.0.field(),
            repr_of(&v)
        ))
    }

    fn str(&self, this: &Obj) -> Option<String> {
        let v = self.value(this)?;
        Some(match self.0 {
            Kind::Dict => format!("[{}]", repr_of(&v)),
            Kind::Sequence => format!("[{}]", repr_of(&v)),
            Kind::Attr => format!(".{}", crate::python::format::str_of(&v)),
            Kind::Flat => format!("[<flat index {}>]", repr_of(&v)),
        })
    }

    fn eq(&self, this: &Obj, other: &Obj) -> Option<bool> {
        let same_kind = matches!(other, Obj::Instance(o)
            if o.class.native().is_some_and(|n| n.downcast::<KeyBehaviour>().is_some_and(|k| k.0 == self.0)));
        Some(
            same_kind
                && match (self.value(this), self.value(other)) {
                    (Some(a), Some(b)) => py_eq(&a, &b),
                    _ => false,
                },
        )
    }
}

fn key_class(kind: Kind) -> Rc<Class> {
    let field = kind.field();
    let init = Obj::native(
        format!("{}.__init__", kind.class_name()),
        move |_, a: Args| {
            let (Some(Obj::Instance(this)), Some(v)) = (a.pos.first(), a.get(Some(1), field))
            else {
                bail!(
                    TypeError,
                    "{}.__init__() missing required argument: '{field}'",
                    kind.class_name()
                );
            };
            this.set(field, v);
            Ok(Obj::None)
        },
    );
    let mut class = Class::new(kind.class_name(), vec![], vec![("__init__".into(), init)]);
    class.native = Some(Rc::new(KeyBehaviour(kind)));
    Rc::new(class)
}

/// The four key classes of a run.
#[derive(Clone)]
pub struct KeyClasses {
    dict: Rc<Class>,
    sequence: Rc<Class>,
    attr: Rc<Class>,
    flat: Rc<Class>,
}

impl KeyClasses {
    /// Makes the classes.
    pub fn new() -> KeyClasses {
        KeyClasses {
            dict: key_class(Kind::Dict),
            sequence: key_class(Kind::Sequence),
            attr: key_class(Kind::Attr),
            flat: key_class(Kind::Flat),
        }
    }

    /// Adds the classes to a module.
    pub fn add_to(&self, b: &mut Builder) {
        for c in [&self.dict, &self.sequence, &self.attr, &self.flat] {
            b.attr(&c.name, Obj::Class(c.clone()));
        }
    }

    fn make(class: &Rc<Class>, field: &str, v: Obj) -> Obj {
        let i = crate::python::value::Instance::new(class.clone());
        i.set(field, v);
        Obj::Instance(Rc::new(i))
    }

    /// The key object of one entry.
    pub fn entry(&self, e: &KeyEntry) -> Obj {
        match e {
            KeyEntry::Dict(k) => Self::make(&self.dict, "key", k.clone()),
            KeyEntry::Sequence(n) => Self::make(&self.sequence, "idx", Obj::Int(*n as i64)),
            KeyEntry::Attr(n) => Self::make(&self.attr, "name", Obj::str(n)),
            KeyEntry::Flat(n) => Self::make(&self.flat, "key", Obj::Int(*n as i64)),
            KeyEntry::Given(o) => o.clone(),
        }
    }

    /// A key path as the tuple of its entries.
    pub fn path(&self, p: &[KeyEntry]) -> Obj {
        Obj::tuple(p.iter().map(|e| self.entry(e)).collect())
    }
}

/// `keystr(keys, *, simple=False, separator='')`.
pub fn keystr(i: &mut Interp, a: Args) -> Result<Obj> {
    let keys = i.iterate(&a.req(Some(0), "keys", "keystr")?)?;
    let simple = match a.get(None, "simple") {
        Some(s) => i.truth(&s, "simple")?,
        None => false,
    };
    let sep = match a.get(None, "separator") {
        Some(s) => i.str(&s)?,
        None => String::new(),
    };
    let mut parts = vec![];
    for k in &keys {
        let inner = match (simple, k) {
            (true, Obj::Instance(inst)) => inst
                .class
                .native()
                .and_then(|n| n.downcast::<KeyBehaviour>().map(|b| b.0.field()))
                .and_then(|f| inst.get(f)),
            _ => None,
        };
        parts.push(i.str(inner.as_ref().unwrap_or(k))?);
    }
    Ok(Obj::str(parts.join(&sep)))
}
