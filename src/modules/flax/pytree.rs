//! `nnx.Pytree` (the base of `nnx.Module`), `nnx.data`, `nnx.static`,
//! `nnx.dataclass` and `nnx.is_data`.
//!
//! An attribute is a pytree child when its value is data (arrays,
//! variables, nnx objects, containers holding them) or when it was
//! assigned through `nnx.data(...)`; `nnx.static(...)` keeps it out even
//! when it holds data. An attribute keeps the status its first value (or
//! its dataclass field's `static` metadata) gave it. The names are kept on the instance under
//! `_nnx_data` and `_nnx_static`, which reprs and the graph functions skip.

use super::*;

/// A value assigned with `nnx.data` or `nnx.static`, unwrapped by the
/// assignment.
struct Marked {
    value: Obj,
    data: bool,
}

impl Object for Marked {
    fn type_name(&self) -> String {
        if self.data { "DataAttr" } else { "StaticAttr" }.into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let kind = if self.data { "data" } else { "static" };
        Some(format!("{kind}({})", repr_of(&self.value)))
    }
}

fn names(i: &Instance, slot: &str) -> Vec<String> {
    match iattr(i, slot) {
        Some(Obj::Tuple(t)) => t.iter().map(str_of).collect(),
        _ => vec![],
    }
}

fn set_names(i: &Instance, slot: &str, v: Vec<String>) {
    set_iattr(
        i,
        slot,
        Obj::tuple(v.into_iter().map(|s| Obj::str(&s)).collect()),
    );
}

/// Whether the attribute `name` of `i` is a pytree child: the status it
/// was given when first assigned (or by `nnx.data`/`nnx.static`), else
/// whether its value is data.
pub(super) fn is_child(i: &Instance, name: &str, v: &Obj) -> bool {
    if name.starts_with("_nnx") {
        return false;
    }
    recorded(i, name).unwrap_or_else(|| is_data(v))
}

/// The data (true) or static (false) status recorded for `name`.
fn recorded(i: &Instance, name: &str) -> Option<bool> {
    if names(i, "_nnx_static").iter().any(|n| n == name) {
        Some(false)
    } else if names(i, "_nnx_data").iter().any(|n| n == name) {
        Some(true)
    } else {
        None
    }
}

/// Records `name` as data or static, replacing an earlier status.
fn record(me: &Instance, name: &str, data: bool) {
    let (add, drop) = if data {
        ("_nnx_data", "_nnx_static")
    } else {
        ("_nnx_static", "_nnx_data")
    };
    let mut keep = names(me, add);
    if !keep.iter().any(|n| n == name) {
        keep.push(name.to_string());
    }
    set_names(me, add, keep);
    if iattr(me, drop).is_some() {
        let rest = names(me, drop).into_iter().filter(|n| n != name).collect();
        set_names(me, drop, rest);
    }
}

/// The status a dataclass field declares with `nnx.data()`,
/// `nnx.static()` or `field(metadata={'static': ...})`.
fn field_status(c: &Class, name: &str) -> Option<bool> {
    let meta = crate::modules::std::dataclasses::field_metadata(c, name)?;
    let Obj::Dict(d) = meta else {
        return None;
    };
    let st = d.borrow().get(&Obj::str("static"))?;
    Some(!truthy(&st, "static").ok()?)
}

/// `<class 'module.Name'>`, classes of the program being in `__main__`.
fn class_text(c: &Rc<Class>) -> String {
    let own = c
        .attrs
        .borrow()
        .iter()
        .find(|(k, _)| k == "__module__")
        .map(|(_, v)| v.clone());
    match own {
        Some(m @ Obj::Str(_)) => format!("<class '{}.{}'>", str_of(&m), c.name),
        _ => format!("<class '__main__.{}'>", c.name),
    }
}

fn type_text(v: &Obj) -> String {
    match v {
        Obj::Array(_) => "<class 'jaxlib._jax.ArrayImpl'>".into(),
        Obj::Instance(i) => class_text(&i.class),
        other => format!("<class '{}'>", other.type_name()),
    }
}

/// The errors Flax raises for data assigned as static: explicitly, or
/// implicitly to an attribute that holds static values.
fn check_status(me: &Rc<Instance>, name: &str, value: &Obj) -> Result<()> {
    let owner = class_text(&me.class);
    if let Some(m) = value.downcast::<Marked>() {
        if !m.data && is_data(&m.value) {
            bail!(
                ValueError,
                "Found data in value of type '{}' annotated with nnx.static(...) when setting attribute '{name}' of Pytree type '{owner}'.",
                type_text(&m.value)
            );
        }
        return Ok(());
    }
    let Some(current) = iattr(me, name) else {
        return Ok(());
    };
    let value_is_data = matches!(value, Obj::Array(_))
        || matches!(value, Obj::Instance(i) if is_variable(i) || is_nnx_module(i));
    if value_is_data && !is_child(me, name, &current) {
        bail!(
            ValueError,
            "Cannot assign data value of type '{}' to static attribute '{name}' of Pytree type '{owner}'. To override the status explicitly wrap the value with nnx.data on assignment:\n\n  _.{name} = nnx.data(...)\n\n",
            type_text(value)
        );
    }
    Ok(())
}

/// `Pytree.__setattr__`: unwraps `nnx.data`/`nnx.static` and remembers
/// which it was.
fn pytree_setattr(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "__setattr__")?;
    let name = str_of(&a.req(Some(1), "name", "__setattr__")?);
    let mut value = a.req(Some(2), "value", "__setattr__")?;
    check_status(&me, &name, &value)?;
    if let Some(m) = value.downcast::<Marked>() {
        record(&me, &name, m.data);
        value = m.value.clone();
    } else if !name.starts_with("_nnx") && recorded(&me, &name).is_none() {
        // An attribute keeps the status of its first value: assigning a
        // string to a data attribute leaves it data.
        let data = field_status(&me.class, &name).unwrap_or_else(|| is_data(&value));
        record(&me, &name, data);
    }
    set_iattr(&me, &name, value);
    Ok(Obj::None)
}

/// The `nnx.Pytree` class: nnx's root of objects that are pytree nodes.
pub(super) fn pytree_class() -> Rc<Class> {
    nnx_root_class(
        "Pytree",
        vec![
            ("__nnx_module__".into(), Obj::Bool(true)),
            (
                "__setattr__".into(),
                Obj::native("Pytree.__setattr__", pytree_setattr),
            ),
        ],
    )
}

/// `nnx.data(value)` / `nnx.static(value)` mark a value on assignment;
/// with keyword arguments only they are `dataclasses.field(...)` whose
/// metadata says `static`, for `nnx.dataclass` fields.
fn marker(interp: &mut Interp, a: Args, data: bool) -> Result<Obj> {
    let func = if data { "data" } else { "static" };
    if let Some(value) = a.pos.first() {
        if !a.kw.is_empty() {
            bail!(
                TypeError,
                "nnx.{func}() accepts either a single positional argument or keyword arguments, but not both."
            );
        }
        return Ok(Obj::lib(Marked {
            value: value.clone(),
            data,
        }));
    }
    let mut meta = Dict::default();
    let mut kw = vec![];
    for (k, v) in a.kw {
        match (k.as_str(), &v) {
            ("metadata", Obj::Dict(d)) => {
                if d.borrow().get(&Obj::str("static")).is_some() {
                    bail!(
                        ValueError,
                        "Cannot use 'static' key in metadata argument for nnx.{func}."
                    );
                }
                for (mk, mv) in d.borrow().items.iter() {
                    meta.set(mk.clone(), mv.clone());
                }
            }
            ("metadata", Obj::None) => {}
            _ => kw.push((k, v)),
        }
    }
    meta.set(Obj::str("static"), Obj::Bool(!data));
    kw.push(("metadata".into(), Obj::Dict(Rc::new(RefCell::new(meta)))));
    let dc = super::super::import(interp, "dataclasses")?;
    let field = crate::python::ops::getattr(interp, &dc, "field")?;
    interp.call(&field, Args { pos: vec![], kw })
}

/// `nnx.data`, `nnx.static` and `nnx.is_data`.
pub(super) fn register(b: &mut Builder) {
    b.func("dataclass", |interp, a| {
        let dc = super::super::import(interp, "dataclasses")?;
        let f = crate::python::ops::getattr(interp, &dc, "dataclass")?;
        interp.call(&f, a)
    });
    b.func("data", |interp, a| marker(interp, a, true));
    b.func("static", |interp, a| marker(interp, a, false));
    b.func("is_data", |_, a| {
        let v = a.req(Some(0), "value", "is_data")?;
        Ok(Obj::Bool(match &v {
            Obj::Array(_) => true,
            Obj::Instance(i) => is_variable(i) || is_nnx_module(i),
            _ => false,
        }))
    });
}
