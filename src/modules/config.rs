//! `jax.config` and the one piece of `jax._src` programs reach for.
//!
//! `jax.config.update(name, value)` changes how JAX computes, so shardlab
//! accepts an option only where it behaves as asked: options that change
//! nothing on a CPU simulation (compilation caches, logging, the matmul
//! precision, which the CPU backend ignores), values equal to JAX 0.10.2's
//! defaults, and the CPU device count, which sets the run's devices as
//! `XLA_FLAGS` does. Any other value of a known option is refused by name
//! (64-bit types, NaN checking, disabling jit, another PRNG); a name JAX
//! does not have is its AttributeError. Reading `jax.config.NAME` gives the
//! value in force.
//!
//! `jax._src.xla_bridge.backends_are_initialized()` answers whether the
//! program has asked for its devices yet, which is what guards a program's
//! `jax.config.update('jax_num_cpu_devices', n)`.

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};

/// Whether the program has asked for its devices (run state).
#[derive(Default)]
pub struct Backends {
    pub initialized: bool,
}

/// Options that change nothing in shardlab's simulation, whatever their value.
const INERT: &[&str] = &[
    "jax_compilation_cache_dir",
    "jax_persistent_cache_min_compile_time_secs",
    "jax_persistent_cache_min_entry_size_bytes",
    "jax_default_matmul_precision",
    "jax_log_compiles",
    "jax_traceback_filtering",
    "jax_use_shardy_partitioner",
    "jax_enable_compilation_cache",
    "jax_explain_cache_misses",
    "jax_include_full_tracebacks_in_locations",
    "jax_raise_persistent_cache_errors",
];

/// Options shardlab models only at JAX's default value: the name and the
/// default, as Python prints it.
const DEFAULTS: &[(&str, &str)] = &[
    ("jax_enable_x64", "False"),
    ("jax_debug_nans", "False"),
    ("jax_debug_infs", "False"),
    ("jax_disable_jit", "False"),
    ("jax_default_prng_impl", "threefry2x32"),
    ("jax_threefry_partitionable", "True"),
    ("jax_enable_checks", "False"),
    ("jax_numpy_rank_promotion", "allow"),
    ("jax_numpy_dtype_promotion", "standard"),
    ("jax_platform_name", "cpu"),
    ("jax_platforms", "cpu"),
    ("jax_check_tracer_leaks", "False"),
];

/// The `jax.config` object.
pub fn config() -> Obj {
    Obj::lib(Config)
}

struct Config;

impl Object for Config {
    fn type_name(&self) -> String {
        "Config".into()
    }

    fn getattr(&self, interp: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        if name == "update" {
            return Ok(Some(Obj::native("update", update)));
        }
        if name == "jax_num_cpu_devices" {
            let n = super::jax::device_count(interp);
            return Ok(Some(Obj::Int(n as i64)));
        }
        Ok(DEFAULTS
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| match *v {
                "True" => Obj::Bool(true),
                "False" => Obj::Bool(false),
                s => Obj::str(s),
            }))
    }
}

/// `jax.config.update(name, value)`.
fn update(interp: &mut Interp, a: Args) -> Result<Obj> {
    let name = match a.req(Some(0), "name", "update")? {
        Obj::Str(s) => s.to_string(),
        o => bail!(
            TypeError,
            "config option name must be a string, not {}",
            o.type_name()
        ),
    };
    let value = a.req(Some(1), "val", "update")?;
    if name == "jax_num_cpu_devices" {
        return set_cpu_devices(interp, &value);
    }
    if INERT.contains(&name.as_str()) {
        return Ok(Obj::None);
    }
    let Some((_, default)) = DEFAULTS.iter().find(|(k, _)| *k == name) else {
        bail!(AttributeError, "Unrecognized config option: {name}");
    };
    if crate::python::format::str_of(&value) == *default {
        return Ok(Obj::None);
    }
    bail!(
        NotImplementedError,
        "not supported by shardlab yet: jax.config.update('{name}', {})",
        crate::python::format::repr_of(&value)
    )
}

/// `jax_num_cpu_devices`: the run's device count, before the program has
/// asked for its devices (JAX's RuntimeError after).
fn set_cpu_devices(interp: &mut Interp, value: &Obj) -> Result<Obj> {
    let n = crate::python::builtins::to_int(value)?;
    if interp.state::<Backends>().initialized {
        bail!(
            RuntimeError,
            "jax_num_cpu_devices config should be updated before backends are initialized i.e. \
             before any JAX operation is executed. You should initialize this config immediately \
             after `import jax`."
        );
    }
    // The command line's limit (`--devices`).
    if !(1..=64).contains(&n) {
        bail!(ValueError, "shardlab simulates 1 to 64 devices, not {n}");
    }
    crate::exec::run::set_devices(n as usize);
    Ok(Obj::None)
}

/// `jax._src`: only `xla_bridge.backends_are_initialized` is modelled.
pub fn src_module(xla_bridge: Obj) -> Obj {
    super::Builder::new("jax._src")
        .attr("xla_bridge", xla_bridge)
        .build()
}

/// `jax._src.xla_bridge`.
pub fn xla_bridge_module() -> Obj {
    super::Builder::new("jax._src.xla_bridge")
        .func("backends_are_initialized", |i, _| {
            Ok(Obj::Bool(i.state::<Backends>().initialized))
        })
        .build()
}
