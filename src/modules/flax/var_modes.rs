//! The modes of nnx Variables: `nnx.var_defaults` and `nnx.with_vars`.
//!
//! Flax's Variables can be "hijax" (a JAX type of their own, mutable inside
//! `jax.jit`) or hold a mutable array reference (`ref`). shardlab's
//! Variables are the plain kind, Flax's default; so the defaults are always
//! `hijax=False, ref=False`, asking for those is accepted, and asking for
//! the other kinds is refused by name. `with_vars` to the plain kind copies
//! the graph's structure around the same Variables, as Flax's does when no
//! Variable needs converting; `mutable=` reads a Variable's `mutable`, which
//! only hijax Variables have, so it fails as Flax's does.

use super::graph::{graphdef_of, StateClass};
use super::nnx::collect_vars;
use super::*;
use crate::python::ops::getattr;

/// The two settings `var_defaults` reports, in Flax's order.
const MODES: [&str; 2] = ["hijax", "ref"];

/// Refuses a request for a Variable kind other than the plain one.
fn plain_only(a: &Args, what: &str) -> Result<()> {
    for name in MODES {
        if let Some(v) = a.opt(None, name) {
            if truthy(&v, name)? {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: flax.nnx.{what}({name}=True)"
                );
            }
        }
    }
    Ok(())
}

/// `nnx.VarDefaults`: a read-only mapping of the two settings.
fn var_defaults_class() -> Rc<Class> {
    let get = |a: &Args| -> Result<Obj> {
        let key = str_of(&a.req(Some(1), "key", "__getitem__")?);
        match MODES.contains(&key.as_str()) {
            true => Ok(Obj::Bool(false)),
            false => Err(err!(
                AttributeError,
                "'VarDefaults' object has no attribute '{key}'"
            )),
        }
    };
    let keys = || Obj::list(MODES.iter().map(|k| Obj::str(*k)).collect());
    new_class(
        "VarDefaults",
        vec![],
        vec![
            ("__module__".into(), Obj::str("flax.nnx.variablelib")),
            ("hijax".into(), Obj::Bool(false)),
            ("ref".into(), Obj::Bool(false)),
            (
                "__repr__".into(),
                Obj::native("VarDefaults.__repr__", |_, _| {
                    Ok(Obj::str("VarDefaults(hijax=False, ref=False)"))
                }),
            ),
            (
                "__getitem__".into(),
                Obj::native("VarDefaults.__getitem__", move |_, a| get(&a)),
            ),
            (
                "__len__".into(),
                Obj::native("VarDefaults.__len__", |_, _| Ok(Obj::Int(2))),
            ),
            (
                "__iter__".into(),
                Obj::native("VarDefaults.__iter__", move |i, _| i.iter_of(&keys())),
            ),
            (
                "keys".into(),
                Obj::native("VarDefaults.keys", move |_, _| Ok(keys())),
            ),
            (
                "__eq__".into(),
                Obj::native("VarDefaults.__eq__", |_, a| {
                    let same = matches!(a.pos.get(1), Some(Obj::Instance(o)) if o.class.name == "VarDefaults");
                    Ok(Obj::Bool(same))
                }),
            ),
        ],
    )
}

/// `nnx.var_defaults(*, hijax=None, ref=None)`: the defaults, or a context
/// (also a decorator) that keeps them.
fn var_defaults(defaults: &Rc<Class>, a: &Args) -> Result<Obj> {
    plain_only(a, "var_defaults")?;
    if MODES.iter().all(|m| a.opt(None, m).is_none()) {
        return Ok(instance(defaults, vec![]));
    }
    let context = new_class(
        "VarDefaultsContext",
        vec![],
        vec![
            ("__module__".into(), Obj::str("flax.nnx.variablelib")),
            (
                "__enter__".into(),
                Obj::native("VarDefaultsContext.__enter__", |_, _| Ok(Obj::None)),
            ),
            (
                "__exit__".into(),
                Obj::native("VarDefaultsContext.__exit__", |_, _| Ok(Obj::Bool(false))),
            ),
            (
                "__call__".into(),
                Obj::native("VarDefaultsContext.__call__", |_, a| {
                    let f = a.req(Some(1), "f", "VarDefaultsContext")?;
                    let name = crate::modules::jax::func_name(&f);
                    Ok(Obj::native(name, move |i, call| i.call(&f, call)))
                }),
            ),
        ],
    );
    Ok(instance(&context, vec![]))
}

/// `nnx.with_vars(node, *, hijax=None, ref=None, mutable=None, only=...,
/// allow_duplicates=False)`.
fn with_vars(interp: &mut Interp, st: &Rc<Class>, a: &Args) -> Result<Obj> {
    let node = a.req(Some(0), "node", "with_vars")?;
    plain_only(a, "with_vars")?;
    let _ = (a.get(None, "only"), a.get(None, "allow_duplicates"));
    let mut vars = vec![];
    collect_vars(&node, &mut vec![], &|_| true, &mut vars);
    if a.opt(None, "mutable").is_some() {
        if let Some((_, v)) = vars.first() {
            return Err(no_mutable(interp, v));
        }
    }
    if matches!(&node, Obj::Instance(i) if is_variable(i)) {
        return Ok(node);
    }
    let own = vars
        .into_iter()
        .map(|(p, v)| (p, Obj::Instance(v)))
        .collect();
    let state = StateClass(st.clone()).build(own);
    super::graph::merge_sharing(&graphdef_of(&node), &[state])
}

/// The error of asking a plain Variable for its `mutable`: the lookup
/// falls through to its value, an array or a tracer.
fn no_mutable(interp: &mut Interp, v: &Rc<Instance>) -> crate::error::Error {
    match iattr(v, "value") {
        Some(Obj::Array(Value::Concrete(_))) => err!(
            AttributeError,
            "'jaxlib._jax.ArrayImpl' object has no attribute 'mutable'"
        ),
        Some(Obj::Array(_)) => err!(
            AttributeError,
            "DynamicJaxprTracer has no attribute mutable"
        ),
        _ => match getattr(interp, &Obj::Instance(v.clone()), "mutable") {
            Err(e) => e,
            Ok(_) => err!(
                AttributeError,
                "'Variable' object has no attribute 'mutable'"
            ),
        },
    }
}

/// The `hijax` or `ref` property of every Variable: false.
pub(super) fn variable_mode(name: &'static str) -> Obj {
    let fget = Obj::native(format!("Variable.{name}"), |_, _| Ok(Obj::Bool(false)));
    Obj::lib(crate::python::classes::Property { fget, fset: None })
}

/// Adds `var_defaults`, `VarDefaults` and `with_vars` to `flax.nnx`.
pub(super) fn register(b: &mut Builder, state: &Rc<Class>) {
    let defaults = var_defaults_class();
    b.attr("VarDefaults", Obj::Class(defaults.clone()));
    b.func("var_defaults", move |_, a| var_defaults(&defaults, &a));
    let st = state.clone();
    b.func("with_vars", move |interp, a| with_vars(interp, &st, &a));
}
