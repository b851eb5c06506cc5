//! What the real libraries define, as `tests/jax/gen_names.py` wrote it into
//! `names.json` from JAX 0.10.2, Flax 0.12.8, Optax 0.2.8 and NumPy 2.4.6:
//! the public names of each module, the public attributes of the real types
//! behind library objects, and the keyword parameters of each function.
//!
//! They decide how shardlab fails where it falls short. A name the real
//! library has and shardlab lacks is a `NotImplementedError`; a name neither
//! has is the `AttributeError` JAX would raise. The same holds for keyword
//! arguments: a library function that was given a keyword and never looked
//! at it would silently compute something else (`jnp.all(x, where=m)`
//! ignoring the mask), so [`check_keywords`] refuses it after the call.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::error::Result;
use crate::python::value::{Args, Obj};

const NAMES: &str = include_str!("names.json");

/// `names.json`, parsed once (it is constant data).
fn names() -> &'static serde_json::Value {
    static NAMES_JSON: OnceLock<serde_json::Value> = OnceLock::new();
    NAMES_JSON.get_or_init(|| serde_json::from_str(NAMES).unwrap_or(serde_json::Value::Null))
}

/// True when `names.json` lists `name` under `table` (`"modules"` or
/// `"types"`) and `key`: a program that uses it meets a feature shardlab
/// lacks, not a typo.
pub(super) fn listed(table: &str, key: &str, name: &str) -> bool {
    names()[table][key]
        .as_array()
        .is_some_and(|list| list.iter().any(|n| n.as_str() == Some(name)))
}

/// True when the real `module` has the public attribute `name`.
pub(super) fn real_name(module: &str, name: &str) -> bool {
    listed("modules", module, name)
}

/// The public names of the real `module`.
#[cfg(feature = "optax")]
pub(super) fn real_names(module: &str) -> Vec<String> {
    names()["modules"][module]
        .as_array()
        .map(|l| {
            l.iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The keyword parameters of a real function: each name with the repr of
/// its default when that is a simple value, and whether it takes
/// `**kwargs`.
struct Signature {
    params: HashMap<String, Option<String>>,
    var_keyword: bool,
}

fn signature(function: &str) -> Option<Signature> {
    let text = names()["signatures"][function].as_str()?;
    let mut sig = Signature {
        params: HashMap::new(),
        var_keyword: false,
    };
    for p in text.split(", ").filter(|p| !p.is_empty()) {
        if p == "**" {
            sig.var_keyword = true;
            continue;
        }
        let (name, default) = match p.split_once('=') {
            Some((n, "?")) => (n, None),
            Some((n, d)) => (n, Some(d.to_string())),
            None => (p, None),
        };
        sig.params.insert(name.to_string(), default);
    }
    Some(sig)
}

/// Refuses the keyword arguments of a call of the library function
/// `function` (`jax.numpy.all`) that the implementation never looked up.
/// A keyword whose value is the real default changes nothing and passes;
/// one the real function has is `NotImplementedError` naming it; one it has
/// not is the `TypeError` Python raises. Functions `names.json` has no
/// signature for are not checked.
pub(crate) fn check_keywords(function: &str, args: &Args) -> Result<()> {
    let unread = args.unread();
    if unread.is_empty() {
        return Ok(());
    }
    let Some(sig) = signature(function) else {
        return Ok(());
    };
    for (name, value) in unread {
        match sig.params.get(name.as_str()) {
            Some(Some(default)) if is_default(value, default) => {}
            Some(_) => crate::bail!(
                NotImplementedError,
                "not supported by shardlab yet: {function}({name}=...)"
            ),
            None if sig.var_keyword => crate::bail!(
                NotImplementedError,
                "not supported by shardlab yet: {function}({name}=...)"
            ),
            None => {
                let short = function.rsplit('.').next().unwrap_or(function);
                crate::bail!(
                    TypeError,
                    "{short}() got an unexpected keyword argument '{name}'"
                )
            }
        }
    }
    Ok(())
}

/// Whether `value` is the default written as `default` (Python's repr of
/// None, a bool, an int, a float or a str).
fn is_default(value: &Obj, default: &str) -> bool {
    match value {
        Obj::None | Obj::Bool(_) | Obj::Int(_) | Obj::Float(_) | Obj::Str(_) => {
            crate::python::format::repr_of(value) == default
        }
        _ => false,
    }
}

/// The decorator a library function returns when called without its
/// function (`@jax.jit(static_argnums=1)`): called on the function, it calls
/// `f` with the function first and the keywords given here, and checks
/// those keywords then, when `f` has looked at them.
pub(crate) fn decorator(
    function: &'static str,
    a: &Args,
    f: fn(&mut crate::python::interp::Interp, Args) -> Result<Obj>,
) -> Obj {
    a.read_all();
    let kw = a.kw.clone();
    Obj::native(function, move |i, b| {
        let merged = Args::with(b.pos, kw.clone());
        let given = merged.clone();
        let out = f(i, merged)?;
        check_keywords(function, &given)?;
        Ok(out)
    })
}
