//! The importable modules: `jax` and its submodules, `numpy`, `flax`,
//! `optax` and Python's standard modules (in `std`). Each is built on first
//! import and cached by dotted name.

pub mod callbacks;
pub mod checkify;
pub mod config;
pub mod control;
pub mod conv;
pub mod cost_analysis;
pub mod custom;
pub mod debug_info;
pub mod debug_print;
#[cfg(feature = "flax")]
pub mod flax;
pub mod jacobian;
pub mod jax;
mod jax_utilities;
pub mod jaxpr_api;
pub mod jit;
pub mod jit_aot;
pub mod jit_donation;
pub mod jit_refs;
pub mod jit_shardings;
pub mod lax;
mod lax_conv_local;
mod lax_conv_transpose;
mod lax_dot;
mod lax_elementwise;
mod lax_gather;
mod lax_map_batched;
mod lax_numeric;
mod lax_precision;
mod lax_reductions;
mod lax_scan_ops;
mod lax_shape;
mod lax_structural;
pub mod linalg;
pub mod linalg_decomp;
pub mod linalg_lstsq;
pub mod linalg_lu;
pub mod linalg_wrappers;
pub mod loop_refs;
pub mod named_tuple;
pub mod nn;
pub mod nn_activations;
pub mod nn_attention;
mod nn_orthogonal;
pub mod numpy;
#[cfg(feature = "optax")]
pub mod optax;
pub mod partial_manual;
pub mod py_ops;
pub mod random;
pub mod random_dists;
pub mod random_gamma;
pub mod real_api;
pub mod refs;
pub mod remat;
pub mod rich;
pub mod scan_sharding;
pub mod scipy;
pub mod scipy_expm;
pub mod scipy_fft;
pub mod scipy_linalg_dft;
pub mod scipy_linalg_pascal;
pub mod scipy_linalg_special;
pub mod scipy_rotation_math;
pub mod scipy_signal;
pub mod scipy_spatial_transform;
pub mod scipy_special_entropy;
pub mod scipy_special_gamma;
mod scipy_stats;
pub mod shape_dtype;
pub mod sharding;
pub mod sparse;
pub mod std;
pub mod test_util;
pub mod tree_util;
pub mod vjp_fun;
pub mod vmap_refs;

use ::std::cell::RefCell;
use ::std::rc::Rc;

use crate::bail;
use crate::error::Result;

use crate::python::import::Library;
use crate::python::interp::Interp;
use crate::python::value::{Args, Module, Obj};

use real_api::{listed, real_name};

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
        let checked = full.clone();
        let g = move |i: &mut Interp, a: Args| {
            if a.kw.is_empty() {
                return f(i, a);
            }
            let given = a.clone();
            let out = f(i, a)?;
            real_api::check_keywords(&checked, &given)?;
            Ok(out)
        };
        self.attrs.push((name.to_string(), Obj::native(full, g)));
        self
    }

    /// Adds any attribute.
    pub fn attr(&mut self, name: &str, v: Obj) -> &mut Self {
        self.attrs.push((name.to_string(), v));
        self
    }

    /// An attribute added before.
    pub fn get(&self, name: &str) -> Option<Obj> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }

    /// Sets an attribute added before to another value.
    pub fn replace(&mut self, name: &str, v: Obj) -> &mut Self {
        self.attrs.retain(|(k, _)| k != name);
        self.attr(name, v)
    }

    /// The finished module object.
    pub fn build(&mut self) -> Obj {
        Obj::Module(Rc::new(Module {
            name: self.name.clone(),
            attrs: RefCell::new(::std::mem::take(&mut self.attrs)),
        }))
    }
}

/// `obj.name(*pos, **kw)`, for library code written in terms of another
/// library's Python-level functions (as JAX writes `jnp.add.reduce` with
/// `jnp.sum`).
pub fn call_method(
    interp: &mut Interp,
    obj: &Obj,
    name: &str,
    pos: Vec<Obj>,
    kw: Vec<(&str, Obj)>,
) -> Result<Obj> {
    let f = crate::python::ops::getattr(interp, obj, name)?;
    let kw = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    interp.call(&f, Args::with(pos, kw))
}

/// `module.name(*pos, **kw)`, the module imported first.
pub fn call_in(
    interp: &mut Interp,
    module: &str,
    name: &str,
    pos: Vec<Obj>,
    kw: Vec<(&str, Obj)>,
) -> Result<Obj> {
    let m = import(interp, module)?;
    call_method(interp, &m, name, pos, kw)
}

/// The modules as the interpreter core sees them.
pub struct Modules;

impl Library for Modules {
    fn import(&self, interp: &mut Interp, name: &str) -> Result<Obj> {
        build(interp, name)
    }

    fn missing_object_attr(&self, type_name: &str, name: &str) -> crate::error::Error {
        if listed("types", type_name, name) {
            crate::err!(
                NotImplementedError,
                "not supported by shardlab yet: {type_name}.{name}"
            )
        } else {
            crate::err!(
                AttributeError,
                "'{type_name}' object has no attribute '{name}'"
            )
        }
    }

    fn missing_attr(&self, interp: &mut Interp, module: &str, name: &str) -> Result<Obj> {
        module_attr_missing(interp, module, name)
    }

    fn dtype_attr(&self, d: crate::array::DType, name: &str) -> Result<Option<Obj>> {
        numpy::dtype_attr(d, name)
    }

    fn type_of(&self, o: &Obj) -> Option<Obj> {
        #[cfg(feature = "flax")]
        return flax::list_type_of(o);
        #[cfg(not(feature = "flax"))]
        {
            let _ = o;
            None
        }
    }

    fn array_attr(
        &self,
        interp: &mut Interp,
        x: &crate::array::Array,
        name: &str,
    ) -> Result<Option<Obj>> {
        sharding::placed::array_attr(interp, x, name)
    }
}

/// Imports a module by dotted name (`import jax.numpy as jnp`), through the
/// interpreter's cache.
pub fn import(interp: &mut Interp, name: &str) -> Result<Obj> {
    interp.import(name)
}

/// Builds the module `name`.
fn build(interp: &mut Interp, name: &str) -> Result<Obj> {
    let m = match jax_module(interp, name)? {
        Some(m) => m,
        None => match library_module(interp, name)? {
            Some(m) => m,
            None => match std_module(interp, name)? {
                Some(m) => m,
                None => bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: import {name}"
                ),
            },
        },
    };
    track_cycles(interp, &m);
    Ok(m)
}

/// JAX's own modules, or None for another name.
fn jax_module(interp: &mut Interp, name: &str) -> Result<Option<Obj>> {
    Ok(Some(match name {
        "jax" => jax::module(interp)?,
        "jax.numpy" => numpy::jnp_module(interp),
        "jax.lax" => lax::with_rounding_method(interp, lax::module())?,
        "jax.sharding" => sharding::module(),
        "jax.tree_util" => tree_util::module(interp, "jax.tree_util")?,
        "jax.tree" => tree_util::module(interp, "jax.tree")?,
        "jax.dtypes" => numpy::jax_dtypes::module(interp)?,
        "jax.debug" => jax::debug_module(),
        "jax.ref" => refs::module(),
        #[cfg(feature = "test-util")]
        "jax.test_util" => test_util::module(),
        #[cfg(feature = "test-util")]
        "jax._src.test_util" => test_util::private_module(),
        #[cfg(not(feature = "test-util"))]
        "jax.test_util" | "jax._src.test_util" => return Err(left_out("test-util", name)),
        "jax.ad_checkpoint" => remat::ad_checkpoint_module(),
        "jax.extend" => {
            let core = import(interp, "jax.extend.core")?;
            Builder::new("jax.extend").attr("core", core).build()
        }
        "jax.extend.core" => jaxpr_api::extend_core_module(),
        "jax._src.util" => jaxpr_api::util_module(),
        "jax.errors" => {
            let mut b = Builder::new("jax.errors");
            let classes: Vec<(&str, Obj)> = interp.exceptions.jax_classes().collect();
            for (name, class) in classes {
                b.attr(name, class);
            }
            b.build()
        }
        "jax.experimental" => {
            let sm = import(interp, "jax.experimental.shard_map")?;
            let mu = import(interp, "jax.experimental.mesh_utils")?;
            Builder::new("jax.experimental")
                .attr("shard_map", sm)
                .attr("mesh_utils", mu)
                .func("io_callback", callbacks::io_callback)
                .build()
        }
        #[cfg(feature = "checkify")]
        "jax.experimental.checkify" => checkify::module(interp),
        #[cfg(feature = "sparse")]
        "jax.experimental.sparse" => sparse::module(interp),
        "jax.experimental.shard_map" => Builder::new("jax.experimental.shard_map")
            .func("shard_map", jax::shard_map)
            .build(),
        "jax._src" => {
            let bridge = import(interp, "jax._src.xla_bridge")?;
            config::src_module(bridge)
        }
        "jax._src.xla_bridge" => config::xla_bridge_module(),
        "jax.experimental.mesh_utils" => Builder::new("jax.experimental.mesh_utils")
            .func("create_device_mesh", sharding::create_device_mesh)
            .build(),
        "jax.random" => sharding::context::placing_functions(random::module()),
        #[cfg(feature = "nn")]
        "jax.nn" => nn::module(),
        #[cfg(feature = "nn")]
        "jax.nn.initializers" => nn::initializers_module("jax.nn.initializers"),
        #[cfg(not(feature = "nn"))]
        "jax.nn" | "jax.nn.initializers" => return Err(left_out("nn", name)),
        #[cfg(feature = "linalg")]
        "jax.lax.linalg" => linalg::lax_module(),
        _ if name == "jax.scipy" || name.starts_with("jax.scipy.") => {
            return scipy_module(interp, name)
        }
        #[cfg(not(feature = "checkify"))]
        "jax.experimental.checkify" => return Err(left_out("checkify", name)),
        #[cfg(not(feature = "sparse"))]
        "jax.experimental.sparse" => return Err(left_out("sparse", name)),
        #[cfg(not(feature = "linalg"))]
        "jax.lax.linalg" => return Err(left_out("linalg", name)),
        _ => return Ok(None),
    }))
}

/// `jax.scipy` and its submodules, or None for another name.
#[cfg(feature = "scipy")]
fn scipy_module(interp: &mut Interp, name: &str) -> Result<Option<Obj>> {
    Ok(Some(match name {
        "jax.scipy" => {
            let sp = import(interp, "jax.scipy.special")?;
            let la = import(interp, "jax.scipy.linalg")?;
            let st = import(interp, "jax.scipy.stats")?;
            let fft = import(interp, "jax.scipy.fft")?;
            let signal = import(interp, "jax.scipy.signal")?;
            let spatial = import(interp, "jax.scipy.spatial")?;
            Builder::new("jax.scipy")
                .attr("spatial", spatial)
                .attr("special", sp)
                .attr("linalg", la)
                .attr("stats", st)
                .attr("fft", fft)
                .attr("signal", signal)
                .build()
        }
        "jax.scipy.stats" => scipy::stats_module(),
        "jax.scipy.spatial" => {
            let transform = import(interp, "jax.scipy.spatial.transform")?;
            scipy_spatial_transform::spatial_module(transform)
        }
        "jax.scipy.spatial.transform" => scipy_spatial_transform::module(),
        "jax.scipy.fft" => scipy_fft::module(),
        "jax.scipy.signal" => scipy_signal::module(),
        "jax.scipy.linalg" => linalg::scipy_module(),
        "jax.scipy.special" => nn::scipy_special_module(),
        _ => return Ok(None),
    }))
}

/// `jax.scipy` and its submodules, left out of this engine.
#[cfg(not(feature = "scipy"))]
fn scipy_module(_: &mut Interp, name: &str) -> Result<Option<Obj>> {
    Err(left_out("scipy", name))
}

/// The libraries built on JAX (and NumPy, SciPy, rich), or None for
/// another name.
fn library_module(interp: &mut Interp, name: &str) -> Result<Option<Obj>> {
    Ok(Some(match name {
        "numpy" => numpy::np_module(interp),
        #[cfg(feature = "scipy")]
        "scipy" => {
            let sp = import(interp, "scipy.special")?;
            Builder::new("scipy").attr("special", sp).build()
        }
        #[cfg(feature = "scipy")]
        "scipy.special" => scipy::host_special_module(),
        #[cfg(not(feature = "scipy"))]
        "scipy" | "scipy.special" => return Err(left_out("scipy", name)),
        #[cfg(feature = "flax")]
        _ if name == "flax" || name.starts_with("flax.") => return flax_module(interp, name),
        #[cfg(feature = "optax")]
        _ if name == "optax" || name.starts_with("optax.") => return optax_module(interp, name),
        #[cfg(not(feature = "flax"))]
        _ if name == "flax" || name.starts_with("flax.") => return Err(left_out("flax", name)),
        #[cfg(not(feature = "optax"))]
        _ if name == "optax" || name.starts_with("optax.") => return Err(left_out("optax", name)),
        #[cfg(not(feature = "rich"))]
        _ if name == "rich" || name.starts_with("rich.") => return Err(left_out("rich", name)),
        #[cfg(feature = "rich")]
        _ if name == "rich" || name.starts_with("rich.") => match rich::module(name) {
            Some(m) => m,
            None => bail!(
                NotImplementedError,
                "not supported by shardlab yet: import {name}"
            ),
        },
        _ => return Ok(None),
    }))
}

/// Flax's modules, or None for another name.
#[cfg(feature = "flax")]
fn flax_module(interp: &mut Interp, name: &str) -> Result<Option<Obj>> {
    Ok(Some(match name {
        "flax" => {
            let linen = import(interp, "flax.linen")?;
            let nnx = import(interp, "flax.nnx")?;
            let errors = import(interp, "flax.errors")?;
            let traverse_util = import(interp, "flax.traverse_util")?;
            let core = import(interp, "flax.core")?;
            let structs = import(interp, "flax.struct")?;
            Builder::new("flax")
                .attr("core", core)
                .attr("struct", structs)
                .attr("linen", linen)
                .attr("nnx", nnx)
                .attr("errors", errors)
                .attr("traverse_util", traverse_util)
                .build()
        }
        "flax.traverse_util" => flax::traverse_util::traverse_util_module(),
        "flax.struct" => flax::struct_dataclass::struct_module(),
        "flax.core" => flax::frozen_dict::core_module(interp)?,
        "flax.core.frozen_dict" => flax::frozen_dict::frozen_dict_module(interp, name)?,
        "flax.nnx.traversals" => {
            let nnx = import(interp, "flax.nnx")?;
            crate::python::ops::getattr(interp, &nnx, "traversals")?
        }
        "flax.errors" => {
            let mut b = Builder::new("flax.errors");
            let classes: Vec<(&str, Obj)> = interp.exceptions.flax_classes().collect();
            for (name, class) in classes {
                b.attr(name, class);
            }
            b.build()
        }
        "flax.linen" => flax::linen_module(interp)?,
        "flax.nnx" => flax::nnx_module(interp)?,
        "flax.linen.initializers" => {
            let linen = import(interp, "flax.linen")?;
            crate::python::ops::getattr(interp, &linen, "initializers")?
        }
        "flax.nnx.bridge" => {
            let nnx = import(interp, "flax.nnx")?;
            crate::python::ops::getattr(interp, &nnx, "bridge")?
        }
        _ => return Ok(None),
    }))
}

/// Optax's modules, or None for another name.
#[cfg(feature = "optax")]
fn optax_module(interp: &mut Interp, name: &str) -> Result<Option<Obj>> {
    Ok(Some(match name {
        "optax" => optax::module(interp)?,
        "optax.transforms" => optax::transforms_module(interp)?,
        "optax.perturbations" => optax::perturbations_module(interp)?,
        "optax._src" | "optax._src.base" => optax::src_module(interp, name)?,
        _ => match optax::submodule(name) {
            Some(m) => m,
            None => bail!(
                NotImplementedError,
                "not supported by shardlab yet: import {name}"
            ),
        },
    }))
}

thread_local! {
    /// The feature of the last refusal by [`left_out`] in this thread's run.
    static LEFT_OUT: ::std::cell::Cell<Option<&'static str>> = const { ::std::cell::Cell::new(None) };
}

/// The refusal of `what` (`import name`'s name, or a module attribute) by
/// an engine built without the Cargo feature `feature` (the playground's
/// first engine). The playground's lab reads the phrase "built without its
/// `...` feature" to load the whole engine and run the program again; since
/// a program may catch the error, the refusal is also noted for
/// [`take_left_out`].
pub(crate) fn left_out(feature: &'static str, what: &str) -> crate::error::Error {
    LEFT_OUT.with(|l| l.set(Some(feature)));
    crate::err!(
        NotImplementedError,
        "not supported by shardlab yet: {what} in this engine: it was built without its \
         `{feature}` feature (the playground's first engine leaves it out, to load quickly)"
    )
}

/// The feature whose absence refused something since the last call, if
/// any: a run that reached one, even in an error it caught, would run
/// differently on the whole engine.
pub fn take_left_out() -> Option<&'static str> {
    LEFT_OUT.with(|l| l.take())
}

/// The feature this engine was built without that would have given
/// `module.name` (a name of the real module), or None.
fn left_out_attr(module: &str, name: &str) -> Option<&'static str> {
    let (feature, built) = match (module, name) {
        ("numpy", "random") => ("numpy-random", cfg!(feature = "numpy-random")),
        ("numpy", "testing") => ("numpy-testing", cfg!(feature = "numpy-testing")),
        ("jax.numpy", "fft") => ("fft", cfg!(feature = "fft")),
        ("jax.numpy.linalg", _) => ("linalg", cfg!(feature = "linalg")),
        ("jax.numpy", _) => ("jnp-compositions", cfg!(feature = "jnp-compositions")),
        _ => return None,
    };
    (!built).then_some(feature)
}

/// Python's standard modules, or None for another name.
fn std_module(interp: &mut Interp, name: &str) -> Result<Option<Obj>> {
    Ok(Some(match name {
        "functools" => self::std::functools::module(),
        "math" => self::std::math::module(),
        "typing" => self::std::typing::module(),
        "os" => self::std::os::module(interp)?,
        "os.path" => self::std::os::path_module(),
        "sys" => self::std::sys::module(),
        "types" => self::std::types::module(),
        "__future__" => self::std::future::module(),
        "time" => self::std::time::module(),
        "abc" => self::std::abc::module(),
        _ if self::std::os::is_os_name(name) => return Err(self::std::os::refusal(name)),
        _ => return more_std_module(interp, name),
    }))
}

/// The standard modules the first examples do not import, or None for
/// another name.
#[cfg(feature = "stdlib")]
fn more_std_module(interp: &mut Interp, name: &str) -> Result<Option<Obj>> {
    Ok(Some(match name {
        "collections" => self::std::collections::module(),
        "collections.abc" => self::std::collections_abc::module(),
        "dataclasses" => self::std::dataclasses::module(interp),
        "hashlib" => self::std::hashlib::module(),
        "array" => self::std::array::module(),
        "string" => self::std::string::module(),
        "pprint" => self::std::pprint::module(),
        "copy" => self::std::copy::module(),
        "warnings" => self::std::warnings::module(),
        "itertools" => self::std::itertools::module(),
        "operator" => self::std::operator::module(),
        "enum" => self::std::r#enum::module(),
        "contextlib" => self::std::contextlib::module(),
        "re" => self::std::re::module(),
        "logging" => self::std::logging::module(),
        "pdb" => self::std::pdb::module(),
        _ => return Ok(None),
    }))
}

/// The standard modules the first examples do not import, left out of this
/// engine.
#[cfg(not(feature = "stdlib"))]
fn more_std_module(_: &mut Interp, name: &str) -> Result<Option<Obj>> {
    const NAMES: [&str; 16] = [
        "collections",
        "collections.abc",
        "dataclasses",
        "hashlib",
        "array",
        "string",
        "pprint",
        "copy",
        "warnings",
        "itertools",
        "operator",
        "enum",
        "contextlib",
        "re",
        "logging",
        "pdb",
    ];
    if NAMES.contains(&name) {
        return Err(left_out("stdlib", name));
    }
    Ok(None)
}

/// Hands the classes and instances a module defines to the run's cycle
/// breaker (see `python::cycles`): a library class whose methods refer back
/// to it, or an instance its class holds, would otherwise outlive the run.
fn track_cycles(interp: &mut Interp, m: &Obj) {
    let Obj::Module(module) = m else {
        return;
    };
    for (_, value) in module.attrs.borrow().iter() {
        match value {
            Obj::Class(c) => interp.cycles.class(c),
            Obj::Instance(i) => interp.cycles.instance(i),
            _ => {}
        }
    }
}

/// The error for a missing module attribute (or a submodule not yet imported).
fn module_attr_missing(interp: &mut Interp, module: &str, name: &str) -> Result<Obj> {
    let full = format!("{module}.{name}");
    match full.as_str() {
        "jax.numpy" | "jax.lax" | "jax.sharding" | "jax.tree_util" | "jax.tree" | "jax.dtypes" | "jax.debug" | "jax.experimental"
        | "jax.experimental.shard_map" | "jax.experimental.mesh_utils" | "jax.experimental.checkify" | "jax.experimental.sparse" | "jax.random" | "jax.nn"
        | "jax.scipy" | "jax.scipy.special" | "jax.scipy.linalg" | "jax.scipy.stats" | "jax.scipy.fft" | "jax.scipy.signal" | "jax.scipy.spatial" | "jax.scipy.spatial.transform" | "jax.lax.linalg" | "jax.nn.initializers" | "flax.linen" | "flax.nnx" | "flax.errors"
        | "flax.struct" | "flax.core" | "flax.core.frozen_dict"
        | "collections.abc" | "jax.extend" | "jax.extend.core" | "jax.test_util" | "jax.ad_checkpoint" | "optax.transforms" => {
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
        // JAX's private modules exist, but a program that reaches into
        // them needs what shardlab does not model.
        "jax._src" => import(interp, "jax._src"),
        // A submodule of rich is an attribute of the package once it, or a
        // module that imports it, has been imported.
        m if module == "rich"
            && ["rich.console", "rich.table", "rich.text", "rich.jupyter"]
                .iter()
                .any(|s| interp.modules.contains_key(*s) && rich::brought_by(s).contains(&name)) =>
        {
            import(interp, m)
        }
        "jax._src.util" => import(interp, "jax._src.util"),
        "jax._src.test_util" => import(interp, "jax._src.test_util"),
        m if m.starts_with("jax._src") => {
            bail!(NotImplementedError, "not supported by shardlab yet: {m}")
        }
        _ => match self::std::missing_attr(module, name) {
            Some(e) => Err(e),
            None if real_name(module, name) => match left_out_attr(module, name) {
                Some(feature) => Err(left_out(feature, &full)),
                None => bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: {module}.{name}"
                ),
            },
            None => bail!(AttributeError, "module '{module}' has no attribute '{name}'"),
        },
    }
}
