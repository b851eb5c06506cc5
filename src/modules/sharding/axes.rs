//! `jax.sharding.auto_axes` and `jax.sharding.explicit_axes`: run a function
//! with some axes of the context mesh switched to `Auto` (or `Explicit`).
//!
//! `auto_axes(f, out_sharding=...)`: the arguments' shardings lose the axes
//! that turn Auto (a type names Explicit axes only), `f` runs under the mesh
//! with those axes Auto, and its result is resharded to `out_sharding` once
//! the caller's mesh is back. When the axes are Auto already `f` runs as
//! is. `explicit_axes(f, in_sharding=...)` reshards the arguments to
//! `in_sharding` under the mesh with the axes Explicit, runs `f`, and its
//! result keeps only the axes that are Explicit in the caller's mesh. Both
//! as JAX 0.10.2 does; keyword arguments of `f` pass through untouched.

use std::rc::Rc;

use crate::error::Result;
use crate::mesh::{AxisType, Mesh};
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::pytree::{flatten, unflatten};
use crate::python::value::{Args, Obj};
use crate::sharding::{PartitionSpec, Placement};
use crate::{bail, err};

use super::context::{context_mesh, ContextMesh};
use super::placed::{type_of, type_spec, ShapedArray};

/// What a decorator does to the mesh axes of its body.
#[derive(Clone)]
struct Switch {
    /// The axis type the body sees.
    to: AxisType,
    /// The axes switched (all of the mesh's when `None`).
    axes: Option<Vec<String>>,
    /// `out_sharding` (auto_axes) or `in_sharding` (explicit_axes) given
    /// to the decorator; else each call passes it.
    sharding: Option<Obj>,
}

impl Switch {
    fn api(&self) -> &'static str {
        match self.to {
            AxisType::Explicit => "explicit_axes",
            _ => "auto_axes",
        }
    }

    fn keyword(&self) -> &'static str {
        match self.to {
            AxisType::Explicit => "in_sharding",
            _ => "out_sharding",
        }
    }
}

/// `jax.sharding.auto_axes(f=None, /, *, axes=None, out_sharding=None)`.
pub fn auto_axes(_: &mut Interp, a: Args) -> Result<Obj> {
    decorator(a, AxisType::Auto)
}

/// `jax.sharding.explicit_axes(f=None, /, *, axes=None, in_sharding=None)`.
pub fn explicit_axes(_: &mut Interp, a: Args) -> Result<Obj> {
    decorator(a, AxisType::Explicit)
}

fn decorator(a: Args, to: AxisType) -> Result<Obj> {
    let axes = match a.get(None, "axes") {
        None | Some(Obj::None) => None,
        Some(Obj::Str(s)) => Some(vec![s.to_string()]),
        Some(o) => Some(
            iterate(&o)?
                .iter()
                .map(|n| match n {
                    Obj::Str(s) => Ok(s.to_string()),
                    other => bail!(
                        TypeError,
                        "mesh axis names must be strings, got {}",
                        other.type_name()
                    ),
                })
                .collect::<Result<Vec<String>>>()?,
        ),
    };
    let mut switch = Switch {
        to,
        axes,
        sharding: None,
    };
    switch.sharding = a
        .get(None, switch.keyword())
        .filter(|o| !matches!(o, Obj::None));
    match a.get(Some(0), "f") {
        None | Some(Obj::None) => {
            let name = switch.api();
            Ok(Obj::native(name, move |_, a| {
                Ok(wrap(a.req(Some(0), "f", name)?, switch.clone()))
            }))
        }
        Some(f) => Ok(wrap(f, switch)),
    }
}

/// The decorated function.
fn wrap(f: Obj, switch: Switch) -> Obj {
    Obj::native(switch.api(), move |interp, mut a| {
        let sharding = match &switch.sharding {
            Some(s) => s.clone(),
            None => match a.take_kw(switch.keyword()) {
                Some(v) => v,
                None => bail!(
                    TypeError,
                    "Missing required keyword argument: '{}'",
                    switch.keyword()
                ),
            },
        };
        match switch.to {
            AxisType::Explicit => call_explicit(interp, &f, a, &switch, &sharding),
            _ => call_auto(interp, &f, a, &switch, &sharding),
        }
    })
}

/// The mesh the body runs under: the context mesh with `switch`'s axes of
/// its type. `None` without a mesh.
fn switched(mesh: &Mesh, switch: &Switch) -> Result<Mesh> {
    let names = switch
        .axes
        .clone()
        .unwrap_or_else(|| mesh.axis_names().to_vec());
    let mut types = mesh.axis_types();
    for name in &names {
        let at = mesh
            .axis_names()
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| err!(KeyError, "'{name}'"))?;
        if types[at] == AxisType::Manual {
            bail!(
                NotImplementedError,
                "Going from `Manual` AxisType to `Auto` or `Explicit` AxisType is not allowed. Please file a bug at https://github.com/jax-ml/jax/issues with your use case"
            );
        }
        types[at] = switch.to;
    }
    mesh.clone().with_axis_types(types)
}

/// Runs `body` with `mesh` as the context mesh, then restores the caller's.
fn under<T>(
    interp: &mut Interp,
    mesh: Rc<Mesh>,
    body: impl FnOnce(&mut Interp) -> Result<T>,
) -> Result<T> {
    let saved = interp.state::<ContextMesh>().0.replace(mesh);
    let out = body(interp);
    interp.state::<ContextMesh>().0 = saved;
    out
}

/// The spec of `x`'s type with only the axes that are Explicit in `mesh`
/// (a type cannot name the others), one entry per dimension.
fn explicit_spec(interp: &mut Interp, x: &Obj, mesh: &Mesh) -> Result<PartitionSpec> {
    let ty = type_of(interp, Args::new(vec![x.clone()]))?;
    let Some(ty) = ty.downcast::<ShapedArray>() else {
        return Ok(PartitionSpec::replicated());
    };
    let mut spec = match ty.placement() {
        Some(Placement::Named(s)) => type_spec(&s.spec, mesh),
        _ => PartitionSpec::replicated(),
    };
    spec.entries.resize(ty.ndim(), None);
    Ok(spec)
}

/// `reshard(tree, specs)` where each leaf's spec is its type's spec over
/// the Explicit axes of `mesh`.
fn reshard_explicit(interp: &mut Interp, tree: Obj, mesh: &Mesh) -> Result<Obj> {
    let (leaves, def) = flatten(interp, &tree)?;
    let mut specs = vec![];
    for leaf in &leaves {
        specs.push(Obj::lib(explicit_spec(interp, leaf, mesh)?));
    }
    let specs = unflatten(interp, &def, &specs)?;
    super::constraint::reshard(interp, Args::new(vec![tree, specs]))
}

fn call_auto(
    interp: &mut Interp,
    f: &Obj,
    a: Args,
    switch: &Switch,
    out_sharding: &Obj,
) -> Result<Obj> {
    let Some(mesh) = context_mesh(interp) else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.sharding.auto_axes without a context mesh"
        );
    };
    let new = switched(&mesh, switch)?;
    let auto = |m: &Mesh| -> Vec<String> {
        let mut names: Vec<String> = m
            .axis_names()
            .iter()
            .filter(|n| m.axis_type(n).ok() == Some(AxisType::Auto))
            .cloned()
            .collect();
        names.sort();
        names
    };
    let mut asked = switch
        .axes
        .clone()
        .unwrap_or_else(|| mesh.axis_names().to_vec());
    asked.sort();
    asked.dedup();
    if auto(&mesh) == asked {
        return interp.call(f, a);
    }
    let new = Rc::new(new);
    let out = under(interp, new.clone(), |interp| {
        let args = reshard_explicit(interp, Obj::tuple(a.pos), &new)?;
        let args = Args::with(iterate(&args)?, a.kw);
        interp.call(f, args)
    })?;
    super::constraint::reshard(interp, Args::new(vec![out, out_sharding.clone()]))
}

fn call_explicit(
    interp: &mut Interp,
    f: &Obj,
    a: Args,
    switch: &Switch,
    in_sharding: &Obj,
) -> Result<Obj> {
    let Some(mesh) = context_mesh(interp) else {
        bail!(
            ValueError,
            "Context mesh cannot be empty. Please use `jax.set_mesh` API to enter into a mesh context when using `explicit_axes` API."
        );
    };
    let new = Rc::new(switched(&mesh, switch)?);
    let out = under(interp, new, |interp| {
        let args = super::constraint::reshard(
            interp,
            Args::new(vec![Obj::tuple(a.pos), in_sharding.clone()]),
        )?;
        let args = Args::with(iterate(&args)?, a.kw);
        interp.call(f, args)
    })?;
    reshard_explicit(interp, out, &mesh)
}
