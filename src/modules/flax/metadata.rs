//! Metadata an initializer attaches to the variable it makes.
//!
//! `nnx.with_metadata(init, **metadata)` wraps an initializer so that its
//! result is an `nnx.VariableMetadata` (the array and the metadata); a
//! variable made from one keeps the array as its value and the metadata as
//! its own (printed after the value). A variable whose metadata names an
//! `out_sharding` is placed with it when it is made, as Flax's eager
//! sharding does: `reshard` on a mesh of Explicit axes, a sharding
//! constraint on one of Auto axes.

use std::cell::RefCell;
use std::rc::Rc;

use super::{iattr, instance, new_class, set_iattr};
use crate::error::Result;
use crate::mesh::AxisType;
use crate::python::format::{repr_of, str_of};
use crate::python::interp::Interp;
use crate::python::value::{Args, Class, Dict, Instance, Obj};
use crate::{bail, err};

/// The hooks `with_metadata` takes besides metadata; Flax deprecates them
/// and shardlab does not run them.
const HOOKS: [&str; 5] = [
    "on_set_value",
    "on_get_value",
    "on_create_value",
    "on_add_axis",
    "on_remove_axis",
];

/// `nnx.VariableMetadata`: a dataclass of the value, the hooks and the
/// metadata.
pub(super) fn variable_metadata_class() -> Rc<Class> {
    new_class(
        "VariableMetadata",
        vec![],
        vec![
            ("__module__".into(), Obj::str("flax.nnx.variablelib")),
            ("__nnx_variable_metadata__".into(), Obj::Bool(true)),
            (
                "__repr__".into(),
                Obj::native("VariableMetadata.__repr__", |_, a| {
                    let Some(Obj::Instance(me)) = a.pos.first() else {
                        bail!(TypeError, "__repr__ needs a VariableMetadata");
                    };
                    Ok(Obj::str(metadata_repr(me)))
                }),
            ),
        ],
    )
}

fn metadata_repr(me: &Instance) -> String {
    let mut fields = vec!["raw_value".to_string()];
    fields.extend(HOOKS.iter().map(|h| h.to_string()));
    fields.push("metadata".into());
    let parts: Vec<String> = fields
        .iter()
        .map(|f| format!("{f}={}", repr_of(&iattr(me, f).unwrap_or(Obj::None))))
        .collect();
    format!("VariableMetadata({})", parts.join(", "))
}

fn is_variable_metadata(o: &Obj) -> Option<&Rc<Instance>> {
    match o {
        Obj::Instance(i) if super::marked(i, "__nnx_variable_metadata__") => Some(i),
        _ => None,
    }
}

fn dict_obj(items: &[(String, Obj)]) -> Obj {
    let mut d = Dict::default();
    for (k, v) in items {
        d.set(Obj::str(k), v.clone());
    }
    Obj::Dict(Rc::new(RefCell::new(d)))
}

/// `nnx.with_metadata(initializer, **metadata)`.
pub(super) fn with_metadata(class: Rc<Class>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |interp, a| {
        let init = a.req(Some(0), "initializer", "with_metadata")?;
        let mut metadata = vec![];
        for (k, v) in &a.kw {
            if HOOKS.contains(&k.as_str()) {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx.with_metadata({k}=...)"
                );
            }
            if k != "initializer" {
                metadata.push((k.clone(), v.clone()));
            }
        }
        if a.pos.len() > 1 {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.with_metadata with positional hooks"
            );
        }
        // The wrapper keeps the initializer's name, as functools.wraps does.
        let name = match crate::python::ops::getattr(interp, &init, "__name__") {
            Ok(n) => str_of(&n),
            Err(_) => "wrapper".into(),
        };
        let class = class.clone();
        Ok(Obj::native(name, move |interp, b| {
            let raw = interp.call(&init, b)?;
            let mut attrs = vec![("raw_value".to_string(), raw)];
            attrs.extend(HOOKS.iter().map(|h| (h.to_string(), Obj::tuple(vec![]))));
            attrs.push(("metadata".into(), dict_obj(&metadata)));
            Ok(instance(&class, attrs))
        }))
    }
}

/// The metadata of a variable made from `value` with keyword metadata
/// `kw`: a `VariableMetadata` gives its value and adds its metadata after
/// the keywords (replacing equal names); `sharding` and `sharding_names`
/// are the old names of `out_sharding`.
pub(super) fn unpack(value: Obj, kw: &[(String, Obj)]) -> Result<(Obj, Vec<(String, Obj)>)> {
    let mut metadata: Vec<(String, Obj)> = kw.to_vec();
    let value = match is_variable_metadata(&value) {
        None => value,
        Some(m) => {
            if let Some(Obj::Dict(d)) = iattr(m, "metadata") {
                for (k, v) in d.borrow().items.iter() {
                    put(&mut metadata, &str_of(k), v.clone());
                }
            }
            iattr(m, "raw_value").unwrap_or(Obj::None)
        }
    };
    for old in ["sharding", "sharding_names"] {
        if let Some(pos) = metadata.iter().position(|(k, _)| k == old) {
            let (_, v) = metadata.remove(pos);
            put(&mut metadata, "out_sharding", v);
        }
    }
    // A plain Variable (hijax=False, ref=False) is what shardlab makes;
    // the other kinds are refused.
    let mut kept = vec![];
    for (k, v) in metadata {
        let mode = matches!(k.as_str(), "hijax" | "ref");
        if mode && !crate::python::ops::truthy(&v, &k)? {
            continue;
        }
        if mode || HOOKS.contains(&k.as_str()) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: Variable metadata {k}"
            );
        }
        kept.push((k, v));
    }
    Ok((value, kept))
}

fn put(metadata: &mut Vec<(String, Obj)>, key: &str, v: Obj) {
    match metadata.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = v,
        None => metadata.push((key.to_string(), v)),
    }
}

/// The variable of `class` made from `value` and keyword metadata, with
/// its value placed by its `out_sharding`.
pub(super) fn new_variable(
    interp: &mut Interp,
    class: &Rc<Class>,
    value: Obj,
    kw: &[(String, Obj)],
) -> Result<Obj> {
    let me = Rc::new(Instance::with_attrs(class.clone(), vec![]));
    fill_variable(interp, &me, value, kw)?;
    Ok(Obj::Instance(me))
}

/// Sets a new variable's value and metadata.
pub(super) fn fill_variable(
    interp: &mut Interp,
    me: &Rc<Instance>,
    value: Obj,
    kw: &[(String, Obj)],
) -> Result<()> {
    let (value, mut metadata) = unpack(value, kw)?;
    // Flax places the value only with eager sharding (the default), and
    // shows the metadata only when it is off.
    let eager = match metadata.iter().position(|(k, _)| k == "eager_sharding") {
        Some(i) => crate::python::ops::truthy(&metadata.remove(i).1, "eager_sharding")?,
        None => using_eager_sharding(interp),
    };
    if !eager {
        metadata.push(("eager_sharding".into(), Obj::Bool(false)));
    }
    let value = match metadata.iter().find(|(k, _)| k == "out_sharding") {
        Some((_, s)) if eager && !matches!(s, Obj::None) => shard_value(interp, value, s)?,
        _ => value,
    };
    set_iattr(me, "value", value);
    for (k, v) in metadata {
        set_iattr(me, &k, v);
    }
    Ok(())
}

/// Places `value` by `sharding` on the mesh in context.
fn shard_value(interp: &mut Interp, value: Obj, sharding: &Obj) -> Result<Obj> {
    let Some(mesh) = crate::modules::sharding::context::context_mesh(interp) else {
        if sharding.type_name() == "NamedSharding" {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: a variable's out_sharding given as a NamedSharding outside a mesh context"
            );
        }
        bail!(
            ValueError,
            "An auto mesh context or metadata is required if creating a variable with annotation out_sharding={}. For more guidance, see https://flax.readthedocs.io/en/latest/flip/4844-var-eager-sharding.html.",
            repr_of(sharding)
        );
    };
    let types = mesh.axis_types();
    // Axis names given as a tuple or list are a PartitionSpec, as Flax
    // reads them.
    let sharding = match sharding {
        Obj::Tuple(_) | Obj::List(_) => {
            let module = crate::modules::import(interp, "jax.sharding")?;
            let spec = crate::python::ops::getattr(interp, &module, "PartitionSpec")?;
            let names = crate::python::ops::iterate(sharding)?;
            interp.call(&spec, Args::new(names))?
        }
        other => other.clone(),
    };
    let args = Args::new(vec![value, sharding]);
    if types.iter().all(|t| *t == AxisType::Explicit) {
        crate::modules::sharding::constraint::reshard(interp, args)
    } else if types.iter().all(|t| *t == AxisType::Auto) {
        crate::modules::sharding::constraint::with_sharding_constraint(interp, args)
    } else {
        Err(err!(
            ValueError,
            "Mesh must have all axes as Explicit or all axes as Auto. Got mixed axis types: {}",
            types
                .iter()
                .map(|t| format!("AxisType.{}", t.name()))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}

/// The values `nnx.use_eager_sharding` set, innermost last (run state):
/// empty means Flax's default, on.
#[derive(Default)]
struct EagerSharding(Vec<bool>);

/// `nnx.using_eager_sharding()`.
pub(super) fn using_eager_sharding(interp: &mut Interp) -> bool {
    interp
        .state::<EagerSharding>()
        .0
        .last()
        .copied()
        .unwrap_or(true)
}

/// `nnx.use_eager_sharding(value)`: sets the value now (replacing the one
/// in force) and returns a context manager that puts the previous one back
/// when its block ends, as Flax's config contexts do.
pub(super) fn use_eager_sharding(interp: &mut Interp, a: Args) -> Result<Obj> {
    let value =
        crate::python::ops::truthy(&a.req(Some(0), "value", "use_eager_sharding")?, "value")?;
    let stack = &mut interp.state::<EagerSharding>().0;
    let previous = stack.last().copied();
    match stack.last_mut() {
        Some(top) => *top = value,
        None => stack.push(value),
    }
    let enter = Obj::native("use_eager_sharding.__enter__", move |i, _| {
        if let Some(p) = previous {
            let stack = &mut i.state::<EagerSharding>().0;
            let at = stack.len().saturating_sub(1);
            stack.insert(at, p);
        }
        Ok(Obj::None)
    });
    let exit = Obj::native("use_eager_sharding.__exit__", |i, _| {
        i.state::<EagerSharding>().0.pop();
        Ok(Obj::Bool(false))
    });
    let class = Rc::new(Class::new(
        "use_eager_sharding",
        vec![],
        vec![
            ("__enter__".into(), enter),
            ("__exit__".into(), exit),
            ("__module__".into(), Obj::str("flax.nnx.variablelib")),
        ],
    ));
    Ok(instance(&class, vec![]))
}

/// The metadata Flax gives every variable, after its own.
fn required_metadata() -> Vec<(String, Obj)> {
    vec![
        ("hijax".into(), Obj::Bool(false)),
        ("ref".into(), Obj::Bool(false)),
        ("eager_sharding".into(), Obj::Bool(true)),
    ]
}

/// `variable.get_metadata(name=None, default=MISSING, *, exclude_required=None)`.
pub(super) fn get_metadata(_: &mut Interp, a: Args) -> Result<Obj> {
    let Some(Obj::Instance(me)) = a.pos.first() else {
        bail!(TypeError, "get_metadata() needs a variable as self");
    };
    let mut metadata: Vec<(String, Obj)> = me
        .attrs
        .borrow()
        .iter()
        .filter(|(k, _)| k != "value")
        .cloned()
        .collect();
    let name = a.opt(Some(1), "name");
    let default = a.get(Some(2), "default");
    let exclude = a.opt(None, "exclude_required");
    match name {
        Some(_) if exclude.is_some() => bail!(
            TypeError,
            "Cannot specify both 'name' and 'exclude_required' arguments."
        ),
        Some(n) => {
            metadata.extend(required_metadata());
            let key = str_of(&n);
            match metadata.into_iter().find(|(k, _)| *k == key) {
                Some((_, v)) => Ok(v),
                None => default.ok_or_else(|| err!(KeyError, "{}", repr_of(&n))),
            }
        }
        None => {
            if let Some(d) = default {
                bail!(
                    TypeError,
                    "Cannot provide a default value when 'name' is not provided. Got default={}",
                    str_of(&d)
                );
            }
            let keep_required = match exclude {
                Some(e) => !crate::python::ops::truthy(&e, "exclude_required")?,
                None => true,
            };
            if keep_required {
                metadata.extend(required_metadata());
            }
            Ok(dict_obj(&metadata))
        }
    }
}
