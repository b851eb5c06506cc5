//! NamedTuple classes of the libraries: Optax's states, and the dimension
//! numbers of `lax.gather` and `lax.conv_general_dilated`. Instances are
//! pytree nodes over their fields that print as NamedTuples, compare and
//! index like tuples, and are tuples to `isinstance`.

use std::rc::Rc;

use crate::error::Result;
use crate::modules::std::collections;
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Class, Instance, Obj};
use crate::{bail, err};

const FIELDS: &str = "_fields";

/// A field of [`named_class`] and the function giving its default.
pub(crate) type OwnedField = (String, Option<fn() -> Obj>);

/// A NamedTuple class: `_fields`, construction by position or name with
/// defaults, `_replace` and `_asdict`, the Python module optax defines it
/// in (for `type(x)`), and the class attributes `extra`.
pub(crate) fn named_class(
    name: &str,
    module: Option<&str>,
    bases: Vec<Rc<Class>>,
    fields: Vec<OwnedField>,
    extra: Vec<(String, Obj)>,
) -> Rc<Class> {
    let names = Obj::tuple(fields.iter().map(|(f, _)| Obj::str(f)).collect());
    let mut attrs = vec![
        (FIELDS.to_string(), names),
        ("__init__".to_string(), tuple_init(name, fields)),
        (
            "_replace".to_string(),
            Obj::native("_replace", collections::replace),
        ),
        (
            "_asdict".to_string(),
            Obj::native("_asdict", collections::asdict),
        ),
    ];
    if let Some(m) = module {
        attrs.push(("__module__".to_string(), Obj::str(m)));
    }
    attrs.extend(extra);
    let mut class = Class::new(name, bases, attrs);
    class.native = Some(Rc::new(NamedTuple));
    Rc::new(class)
}

/// `Class.__init__(self, *fields)`: each field by position or by name, or
/// its default.
fn tuple_init(name: &str, fields: Vec<OwnedField>) -> Obj {
    let cls = name.to_string();
    Obj::native(format!("{name}.__init__"), move |_, a| {
        let Some(Obj::Instance(this)) = a.pos.first() else {
            bail!(TypeError, "{cls}.__init__ needs an instance");
        };
        if a.pos.len() > fields.len() + 1 {
            bail!(
                TypeError,
                "{cls}.__new__() takes {} positional arguments but {} were given",
                fields.len() + 1,
                a.pos.len()
            );
        }
        if let Some((k, _)) =
            a.kw.iter()
                .find(|(k, _)| !fields.iter().any(|(f, _)| f == k))
        {
            bail!(
                TypeError,
                "{cls}.__new__() got an unexpected keyword argument '{k}'"
            );
        }
        for (i, (f, default)) in fields.iter().enumerate() {
            let given = a.pos.get(i + 1).cloned();
            let v = given
                .or_else(|| a.kw.iter().find(|(k, _)| k == f).map(|(_, v)| v.clone()))
                .or_else(|| default.map(|d| d()));
            let Some(v) = v else {
                bail!(
                    TypeError,
                    "{cls}.__new__() missing 1 required positional argument: '{f}'"
                );
            };
            this.set(f, v);
        }
        Ok(Obj::None)
    })
}

/// What optax's NamedTuple states are: pytree nodes over their fields that
/// print as NamedTuples and index like tuples.
struct NamedTuple;

impl Object for NamedTuple {
    fn type_name(&self) -> String {
        "NamedTuple".into()
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        let Obj::Instance(i) = this else { return None };
        instance_repr(i)
    }

    fn children(&self, this: &Obj) -> Option<Vec<String>> {
        let Obj::Instance(i) = this else { return None };
        if i.class.name.starts_with("GradientTransformation") {
            return Some(vec![]);
        }
        fields_of(i)
    }

    fn items(&self, this: &Obj) -> Option<Result<Vec<Obj>>> {
        let Obj::Instance(i) = this else { return None };
        let fields = fields_of(i)?;
        Some(fields.iter().map(|f| field(this, f)).collect())
    }

    /// A NamedTuple equals any tuple of equal items (its class aside), item
    /// by item as tuples compare.
    fn eq(&self, this: &Obj, other: &Obj) -> Option<bool> {
        let mine = self.items(this)?.ok()?;
        let theirs = match other {
            Obj::Tuple(t) => t.to_vec(),
            Obj::Instance(i) if fields_of(i).is_some() => self.items(other)?.ok()?,
            _ => return Some(false),
        };
        Some(
            mine.len() == theirs.len()
                && mine
                    .iter()
                    .zip(&theirs)
                    .all(|(a, b)| crate::python::ops::item_eq(a, b)),
        )
    }

    /// NamedTuples are tuples (`isinstance(state, tuple)`).
    fn builtin_base(&self) -> Option<&'static str> {
        Some("tuple")
    }

    fn getitem(&self, _: &mut Interp, this: &Obj, key: &Obj) -> Option<Result<Obj>> {
        let Obj::Instance(i) = this else { return None };
        let fields = fields_of(i)?;
        let Obj::Int(k) = key else {
            return Some(Err(err!(
                TypeError,
                "tuple indices must be integers or slices, not {}",
                key.type_name()
            )));
        };
        let n = fields.len() as i64;
        let k = if *k < 0 { k + n } else { *k };
        if k < 0 || k >= n {
            return Some(Err(err!(IndexError, "tuple index out of range")));
        }
        Some(field(this, &fields[k as usize]))
    }
}

fn fields_of(i: &Instance) -> Option<Vec<String>> {
    match i.class.lookup(FIELDS) {
        Some(Obj::Tuple(t)) => Some(t.iter().map(crate::python::format::str_of).collect()),
        _ => None,
    }
}

/// `repr` of an optax state, as a NamedTuple prints.
fn instance_repr(i: &Instance) -> Option<String> {
    let fields = fields_of(i)?;
    let parts: Vec<String> = fields
        .iter()
        .map(|f| format!("{f}={}", i.get(f).map(|v| repr_of(&v)).unwrap_or_default()))
        .collect();
    Some(format!("{}({})", i.class.name, parts.join(", ")))
}

/// A field of a NamedTuple instance.
pub(crate) fn field(o: &Obj, name: &str) -> Result<Obj> {
    match o {
        Obj::Instance(i) => i.get(name).ok_or_else(|| {
            err!(
                AttributeError,
                "'{}' object has no attribute '{name}'",
                i.class.name
            )
        }),
        other => bail!(
            TypeError,
            "expected an optax state, got {}",
            other.type_name()
        ),
    }
}

/// An instance `name(field=value, ...)` of a NamedTuple class of its own.
pub(crate) fn instance(name: &str, fields: Vec<(&str, Obj)>) -> Obj {
    let class = named_class(
        name,
        None,
        vec![],
        fields.iter().map(|(k, _)| (k.to_string(), None)).collect(),
        vec![],
    );
    Obj::Instance(Rc::new(Instance::with_attrs(
        class,
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )))
}
