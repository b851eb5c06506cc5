//! The importable modules: `jax` and its submodules, `numpy`, `functools`,
//! `math`. Each is built on first import and cached by dotted name.

pub mod flax;
pub mod jax;
pub mod lax;
pub mod nn;
pub mod numpy;
pub mod optax;
pub mod random;
pub mod sharding;
pub mod std;

use ::std::cell::RefCell;
use ::std::rc::Rc;

use crate::error::Result;
use crate::{bail, err};

use crate::python::import::Library;
use crate::python::interp::Interp;
use crate::python::value::{Args, Module, Obj};

/// A module under construction: a name and attributes.
pub struct Builder {
    name: String,
    attrs: Vec<(String, Obj)>,
}

impl Builder {
    /// An empty module called `name`.
    pub fn new(name: &str) -> Builder {
        Builder {
            name: name.to_string(),
            attrs: vec![],
        }
    }

    /// Adds a function.
    pub fn func(
        &mut self,
        name: &str,
        f: impl Fn(&mut Interp, Args) -> Result<Obj> + 'static,
    ) -> &mut Self {
        let full = format!("{}.{name}", self.name);
        self.attrs.push((name.to_string(), Obj::native(full, f)));
        self
    }

    /// Adds any attribute.
    pub fn attr(&mut self, name: &str, v: Obj) -> &mut Self {
        self.attrs.push((name.to_string(), v));
        self
    }

    /// The finished module object.
    pub fn build(&mut self) -> Obj {
        Obj::Module(Rc::new(Module {
            name: self.name.clone(),
            attrs: RefCell::new(::std::mem::take(&mut self.attrs)),
        }))
    }
}

/// The modules as the interpreter core sees them.
pub struct Modules;

impl Library for Modules {
    fn import(&self, interp: &mut Interp, name: &str) -> Result<Obj> {
        build(interp, name)
    }

    fn missing_attr(&self, interp: &mut Interp, module: &str, name: &str) -> Result<Obj> {
        module_attr_missing(interp, module, name)
    }
}

/// Imports a module by dotted name (`import jax.numpy as jnp`), through the
/// interpreter's cache.
pub fn import(interp: &mut Interp, name: &str) -> Result<Obj> {
    interp.import(name)
}

/// Builds the module `name`.
fn build(interp: &mut Interp, name: &str) -> Result<Obj> {
    let m = match name {
        "jax" => jax::module(interp)?,
        "jax.numpy" => numpy::jnp_module(interp),
        "numpy" => numpy::np_module(interp),
        "jax.lax" => lax::module(),
        "jax.sharding" => sharding::module(),
        "jax.tree_util" => jax::tree_util_module("jax.tree_util"),
        "jax.tree" => jax::tree_util_module("jax.tree"),
        "jax.debug" => jax::debug_module(),
        "jax.experimental" => {
            let sm = import(interp, "jax.experimental.shard_map")?;
            let mu = import(interp, "jax.experimental.mesh_utils")?;
            Builder::new("jax.experimental")
                .attr("shard_map", sm)
                .attr("mesh_utils", mu)
                .build()
        }
        "jax.experimental.shard_map" => Builder::new("jax.experimental.shard_map")
            .func("shard_map", jax::shard_map)
            .build(),
        "jax.experimental.mesh_utils" => Builder::new("jax.experimental.mesh_utils")
            .func("create_device_mesh", sharding::create_device_mesh)
            .build(),
        "functools" => Builder::new("functools")
            .func("partial", partial)
            .func("reduce", reduce)
            .build(),
        "math" => math_module(),
        "typing" => Builder::new("typing").build(),
        "jax.random" => random::module(),
        "jax.nn" => nn::module(),
        "jax.nn.initializers" => nn::initializers_module("jax.nn.initializers"),
        "jax.scipy" => {
            let sp = import(interp, "jax.scipy.special")?;
            Builder::new("jax.scipy").attr("special", sp).build()
        }
        "jax.scipy.special" => nn::scipy_special_module(),
        "flax" => {
            let linen = import(interp, "flax.linen")?;
            let nnx = import(interp, "flax.nnx")?;
            Builder::new("flax")
                .attr("linen", linen)
                .attr("nnx", nnx)
                .build()
        }
        "flax.linen" => flax::linen_module(interp)?,
        "flax.nnx" => flax::nnx_module(interp)?,
        "optax" => optax::module(),
        "collections" => self::std::collections::module(),
        "dataclasses" => self::std::dataclasses::module(),
        "enum" => self::std::r#enum::module(),
        "contextlib" => self::std::contextlib::module(),
        "re" => self::std::re::module(),
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: import {name}"
        ),
    };
    Ok(m)
}

/// The error for a missing module attribute (or a submodule not yet imported).
fn module_attr_missing(interp: &mut Interp, module: &str, name: &str) -> Result<Obj> {
    let full = format!("{module}.{name}");
    match full.as_str() {
        "jax.numpy" | "jax.lax" | "jax.sharding" | "jax.tree_util" | "jax.tree" | "jax.debug" | "jax.experimental"
        | "jax.experimental.shard_map" | "jax.experimental.mesh_utils" | "jax.random" | "jax.nn"
        | "jax.scipy" | "jax.scipy.special" | "jax.nn.initializers" | "flax.linen" | "flax.nnx" => {
            import(interp, &full)
        }
        "jax.tree_map" => bail!(
            AttributeError,
            "module 'jax' has no attribute 'tree_map' (it was removed in JAX v0.6.0: use jax.tree.map or jax.tree_util.tree_map)"
        ),
        "jax.lax.pvary" => bail!(
            AttributeError,
            "jax.lax.pvary was deprecated in JAX v0.8.2 and removed in JAX v0.10.0; use `jax.lax.pcast(..., to='varying')"
        ),
        _ => bail!(AttributeError, "module '{module}' has no attribute '{name}'"),
    }
}

/// `functools.partial(f, *args, **kwargs)`.
pub fn partial(_: &mut Interp, a: Args) -> Result<Obj> {
    let Some(f) = a.pos.first().cloned() else {
        bail!(TypeError, "partial() missing required argument: 'func'");
    };
    let bound_pos = a.pos[1..].to_vec();
    let bound_kw = a.kw.clone();
    Ok(Obj::native("functools.partial", move |i, call: Args| {
        let mut pos = bound_pos.clone();
        pos.extend(call.pos);
        let mut kw = bound_kw.clone();
        for (k, v) in call.kw {
            kw.retain(|(x, _)| *x != k);
            kw.push((k, v));
        }
        i.call(&f, Args { pos, kw })
    }))
}

fn reduce(i: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "function", "reduce")?;
    let items = crate::python::ops::iterate(&a.req(Some(1), "iterable", "reduce")?)?;
    let mut it = items.into_iter();
    let mut acc = match a.get(Some(2), "initial") {
        Some(v) => v,
        None => it.next().ok_or_else(|| {
            err!(
                TypeError,
                "reduce() of empty iterable with no initial value"
            )
        })?,
    };
    for x in it {
        acc = i.call(&f, Args::new(vec![acc, x]))?;
    }
    Ok(acc)
}

fn num(a: &Args, name: &str) -> Result<f64> {
    let v = a.req(Some(0), "x", name)?;
    match &v {
        Obj::Array(x) => Ok(x.concrete(&format!("math.{name}"))?.get_f64(0)),
        o => o
            .as_number()
            .ok_or_else(|| err!(TypeError, "must be real number, not {}", o.type_name())),
    }
}

fn math_module() -> Obj {
    let mut b = Builder::new("math");
    b.attr("pi", Obj::Float(::std::f64::consts::PI))
        .attr("e", Obj::Float(::std::f64::consts::E));
    b.attr("inf", Obj::Float(f64::INFINITY));
    for (name, f) in [
        ("sqrt", f64::sqrt as fn(f64) -> f64),
        ("exp", f64::exp),
        ("log", f64::ln),
        ("sin", f64::sin),
        ("cos", f64::cos),
        ("tanh", f64::tanh),
        ("fabs", f64::abs),
    ] {
        b.func(name, move |_, a| Ok(Obj::Float(f(num(&a, name)?))));
    }
    b.func("floor", |_, a| {
        Ok(Obj::Int(num(&a, "floor")?.floor() as i64))
    });
    b.func("ceil", |_, a| Ok(Obj::Int(num(&a, "ceil")?.ceil() as i64)));
    b.func("isclose", |_, a| {
        let x = a
            .req(Some(0), "a", "isclose")?
            .as_number()
            .unwrap_or(f64::NAN);
        let y = a
            .req(Some(1), "b", "isclose")?
            .as_number()
            .unwrap_or(f64::NAN);
        let rel = a
            .get(None, "rel_tol")
            .and_then(|v| v.as_number())
            .unwrap_or(1e-9);
        let abs = a
            .get(None, "abs_tol")
            .and_then(|v| v.as_number())
            .unwrap_or(0.0);
        Ok(Obj::Bool(
            (x - y).abs() <= (rel * x.abs().max(y.abs())).max(abs),
        ))
    });
    b.func("prod", |_, a| {
        let mut acc = 1i64;
        for x in crate::python::ops::iterate(&a.req(Some(0), "iterable", "prod")?)? {
            acc *= crate::python::builtins::to_int(&x)?;
        }
        Ok(Obj::Int(acc))
    });
    b.build()
}
