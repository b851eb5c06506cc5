//! The program a case runs: the learner's source unchanged, then a call of
//! the entry function on the case's arguments. Appending keeps every line
//! of the learner's code where the learner sees it, so errors point at
//! their own line and column.
//!
//! The appended code names only `_shardlab_*` globals, imports inside a
//! function (so it neither needs nor changes the learner's imports), and
//! sets the global `result` to a description of the returned value that
//! keeps what JSON alone would lose: each array's shape and dtype, and
//! tuples apart from lists.

use serde_json::Value;

use super::problem::{Case, MeshSpec};

/// Names the call's scope binds, which the entry function must not have.
pub const RESERVED: &[&str] = &["jax", "jnp", "np", "Mesh", "P", "NamedSharding", "result"];

/// Describes a returned value as JSON (see [`super::compare::Got`]).
const DESCRIBE: &str = r#"
def _shardlab_describe(v):
    if isinstance(v, tuple):
        return {"tuple": [_shardlab_describe(x) for x in v]}
    if isinstance(v, list):
        return {"list": [_shardlab_describe(x) for x in v]}
    if isinstance(v, dict):
        return {"dict": {str(k): _shardlab_describe(x) for k, x in v.items()}}
    if v is None or isinstance(v, (bool, int, float)):
        return {"scalar": v, "type": type(v).__name__}
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        import jax.numpy as jnp
        return {"array": jnp.ravel(v), "shape": list(v.shape), "dtype": str(v.dtype)}
    return {"other": type(v).__name__}
"#;

/// The learner's source followed by the call of `entry` for `case`.
pub fn program(source: &str, entry: &str, case: &Case) -> Result<String, String> {
    let mesh = case.mesh.as_ref();
    let args = case
        .args
        .iter()
        .map(|a| literal(a, mesh))
        .collect::<Result<Vec<_>, _>>()?;
    let kwargs = case
        .kwargs
        .iter()
        .map(|(k, v)| Ok(format!("{k}={}", literal(v, mesh)?)))
        .collect::<Result<Vec<_>, String>>()?;
    let call_args = args
        .into_iter()
        .chain(kwargs)
        .collect::<Vec<_>>()
        .join(", ");
    let mut text = String::with_capacity(source.len() + 1024);
    text.push_str(source);
    if !source.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(DESCRIBE);
    text.push_str(&format!(
        "
def _shardlab_call():
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    return {entry}({call_args})

result = _shardlab_describe(_shardlab_call())
"
    ));
    Ok(text)
}

/// Lines of `source` as the learner wrote it: an error past them is in the
/// appended call.
pub fn line_count(source: &str) -> usize {
    source.lines().count()
}

/// A value of the problem format as a Python expression (see
/// [`super::problem`]).
pub fn literal(v: &Value, mesh: Option<&MeshSpec>) -> Result<String, String> {
    Ok(match v {
        Value::Null => "None".into(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Number(n) => number(n),
        Value::String(s) => serde_json::to_string(s).map_err(|e| e.to_string())?,
        Value::Array(items) => format!("[{}]", join(items, mesh)?),
        Value::Object(o) => tagged(o, mesh)?,
    })
}

fn join(items: &[Value], mesh: Option<&MeshSpec>) -> Result<String, String> {
    Ok(items
        .iter()
        .map(|x| literal(x, mesh))
        .collect::<Result<Vec<_>, _>>()?
        .join(", "))
}

fn number(n: &serde_json::Number) -> String {
    match (n.as_i64(), n.as_f64()) {
        (Some(i), _) if !n.is_f64() => i.to_string(),
        (_, Some(f)) => format!("{f:?}"),
        _ => n.to_string(),
    }
}

/// `{"array": ...}`, `{"tuple": ...}`, `{"dict": ...}`, `{"mesh": true}`
/// or `{"expr": ...}`.
fn tagged(o: &serde_json::Map<String, Value>, mesh: Option<&MeshSpec>) -> Result<String, String> {
    if let Some(data) = o.get("array") {
        return array(o, data);
    }
    only(o, &[])?;
    if let Some(Value::Array(items)) = o.get("tuple") {
        let inner = join(items, mesh)?;
        return Ok(match items.len() {
            1 => format!("({inner},)"),
            _ => format!("({inner})"),
        });
    }
    if let Some(Value::Object(d)) = o.get("dict") {
        let entries = d
            .iter()
            .map(|(k, v)| {
                Ok(format!(
                    "{}: {}",
                    literal(&Value::String(k.clone()), mesh)?,
                    literal(v, mesh)?
                ))
            })
            .collect::<Result<Vec<_>, String>>()?;
        return Ok(format!("{{{}}}", entries.join(", ")));
    }
    if let Some(Value::String(e)) = o.get("expr") {
        if e.contains('\n') {
            return Err("an expr argument is one line of Python".into());
        }
        return Ok(format!("({e})"));
    }
    if o.get("mesh") == Some(&Value::Bool(true)) {
        let m = mesh.ok_or("a {\"mesh\": true} argument needs the case's mesh")?;
        let shape = m
            .shape
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let axes = m
            .axes
            .iter()
            .map(|a| format!("'{a}'"))
            .collect::<Vec<_>>()
            .join(", ");
        return Ok(format!(
            "Mesh(np.array(jax.devices()[:{}]).reshape(({shape},)), ({axes},))",
            m.size()
        ));
    }
    Err(format!(
        "a value object must be one of {{\"array\", \"dtype\"}}, {{\"tuple\"}}, {{\"dict\"}}, \
         {{\"expr\"}} or {{\"mesh\": true}}, not {}",
        Value::Object(o.clone())
    ))
}

/// An object has exactly one key (the tag) besides `allowed`.
fn only(o: &serde_json::Map<String, Value>, allowed: &[&str]) -> Result<(), String> {
    let extra = o.keys().filter(|k| !allowed.contains(&k.as_str())).count();
    if extra != 1 {
        return Err(format!(
            "a value object has one tag, not {}",
            Value::Object(o.clone())
        ));
    }
    Ok(())
}

/// `jnp.array(nested, dtype=jnp.D)`, reshaped when a `shape` is given.
fn array(o: &serde_json::Map<String, Value>, data: &Value) -> Result<String, String> {
    only(o, &["dtype", "shape"])?;
    let dtype = match o.get("dtype") {
        Some(Value::String(d)) => dtype(d)?,
        None => return Err("an array needs its dtype".into()),
        Some(other) => return Err(format!("dtype must be a string, not {other}")),
    };
    let nested = numbers(data)?;
    let reshape = match o.get("shape") {
        None => String::new(),
        Some(Value::Array(dims)) if dims.iter().all(|d| d.as_u64().is_some()) => {
            let dims = dims
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            format!(".reshape(({dims},))").replace("(,)", "()")
        }
        Some(other) => return Err(format!("shape must be a list of sizes, not {other}")),
    };
    Ok(format!("jnp.array({nested}, dtype=jnp.{dtype}){reshape}"))
}

/// The dtypes an array of a problem may have.
pub fn dtype(d: &str) -> Result<&'static str, String> {
    match d {
        "float32" => Ok("float32"),
        "int32" => Ok("int32"),
        "bool" => Ok("bool_"),
        other => Err(format!(
            "dtype must be float32, int32 or bool, not '{other}'"
        )),
    }
}

/// Nested lists of numbers or booleans as Python text.
fn numbers(v: &Value) -> Result<String, String> {
    match v {
        Value::Number(n) => Ok(number(n)),
        Value::Bool(b) => Ok(if *b { "True" } else { "False" }.into()),
        Value::Array(items) => Ok(format!(
            "[{}]",
            items
                .iter()
                .map(numbers)
                .collect::<Result<Vec<_>, _>>()?
                .join(", ")
        )),
        Value::String(s) if ["nan", "inf", "-inf"].contains(&s.as_str()) => {
            Ok(format!("float('{s}')"))
        }
        other => Err(format!(
            "array elements are numbers or booleans, not {other}"
        )),
    }
}
