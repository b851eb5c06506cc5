//! Comparing what the entry function returned with a case's expected value:
//! the same structure (tuples, lists, dicts with the same keys), arrays of
//! the same shape and dtype, and elements within tolerance, as
//! `numpy.allclose` has it: `|got - expected| <= atol + rtol * |expected|`,
//! NaN equal to NaN.

use serde_json::{json, Value};

/// A value, from either side, in one form.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Array {
        shape: Vec<usize>,
        dtype: String,
        data: Vec<f64>,
    },
    /// A Python scalar: `type` is `int`, `float`, `bool` or `NoneType`.
    Scalar {
        kind: String,
        value: f64,
    },
    List(Vec<Val>),
    Tuple(Vec<Val>),
    Dict(Vec<(String, Val)>),
    /// Anything else the function returned, by its type name.
    Other(String),
}

/// How far the returned value is from the expected one.
#[derive(Debug, Clone, Default)]
pub struct Comparison {
    /// What differs, each with where (`[0]['w']`); empty when they match.
    pub mismatches: Vec<String>,
    /// Largest `|got - expected|` over compared elements.
    pub max_abs_error: f64,
    /// Largest `|got - expected| / |expected|` over compared elements
    /// whose expected value is not 0.
    pub max_rel_error: f64,
}

/// A case's `expected` as a [`Val`], or what is wrong with it.
pub fn expected(v: &Value) -> Result<Val, String> {
    Ok(match v {
        Value::Null => scalar("NoneType", 0.0),
        Value::Bool(b) => scalar("bool", f64::from(u8::from(*b))),
        Value::Number(n) if n.is_f64() => scalar("float", n.as_f64().unwrap_or(f64::NAN)),
        Value::Number(n) => scalar("int", n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => return Err(format!("an expected value cannot be the string {s:?}")),
        Value::Array(items) => Val::List(items.iter().map(expected).collect::<Result<_, _>>()?),
        Value::Object(o) => {
            if let Some(data) = o.get("array") {
                let dtype = o.get("dtype").and_then(Value::as_str).unwrap_or("");
                super::call::dtype(dtype)?;
                let (mut shape, mut flat) = (vec![], vec![]);
                flatten(data, 0, &mut shape, &mut flat)?;
                if let Some(s) = o.get("shape").and_then(Value::as_array) {
                    shape = s
                        .iter()
                        .filter_map(Value::as_u64)
                        .map(|d| d as usize)
                        .collect();
                    if shape.iter().product::<usize>() != flat.len() {
                        return Err(format!(
                            "array of {} elements cannot have shape {shape:?}",
                            flat.len()
                        ));
                    }
                }
                Val::Array {
                    shape,
                    dtype: dtype.into(),
                    data: flat,
                }
            } else if let Some(Value::Array(items)) = o.get("tuple") {
                Val::Tuple(items.iter().map(expected).collect::<Result<_, _>>()?)
            } else if let Some(Value::Object(d)) = o.get("dict") {
                Val::Dict(
                    d.iter()
                        .map(|(k, v)| Ok((k.clone(), expected(v)?)))
                        .collect::<Result<_, String>>()?,
                )
            } else {
                return Err(format!(
                    "an expected value object is an array, tuple or dict, not {v}"
                ));
            }
        }
    })
}

/// Checks an expected value when a problem is read.
pub fn expected_is_valid(v: &Value) -> Result<(), String> {
    expected(v).map(|_| ())
}

fn scalar(kind: &str, value: f64) -> Val {
    Val::Scalar {
        kind: kind.into(),
        value,
    }
}

/// Nested lists into `shape` and row-major `flat`; every list at one depth
/// must have the same length.
fn flatten(
    v: &Value,
    depth: usize,
    shape: &mut Vec<usize>,
    flat: &mut Vec<f64>,
) -> Result<(), String> {
    match v {
        Value::Array(items) => {
            match shape.get(depth) {
                None if shape.len() == depth => shape.push(items.len()),
                Some(&n) if n == items.len() => {}
                _ => return Err("array rows must all have the same length".into()),
            }
            items
                .iter()
                .try_for_each(|x| flatten(x, depth + 1, shape, flat))
        }
        _ if shape.len() > depth => Err("array rows must all have the same length".into()),
        other => {
            flat.push(element(other).ok_or_else(|| format!("{other} is not an array element"))?);
            Ok(())
        }
    }
}

/// One element as JSON has it: a number, a boolean, or (for floats JSON
/// cannot hold) `"NaN"`, `"Infinity"`, `"-Infinity"`, `"nan"`, `"inf"`.
fn element(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::String(s) => match s.as_str() {
            "NaN" | "nan" => Some(f64::NAN),
            "Infinity" | "inf" => Some(f64::INFINITY),
            "-Infinity" | "-inf" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// What the appended call set `result` to (see `call::DESCRIBE`) as a
/// [`Val`].
pub fn got(v: &Value) -> Result<Val, String> {
    let bad = || format!("unexpected description of the returned value: {v}");
    let o = v.as_object().ok_or_else(bad)?;
    let items = |key: &str| -> Result<Vec<Val>, String> {
        o.get(key)
            .and_then(Value::as_array)
            .ok_or_else(bad)?
            .iter()
            .map(got)
            .collect()
    };
    if let Some(flat) = o.get("array") {
        let data = match flat {
            Value::Array(xs) => xs
                .iter()
                .map(|x| element(x).ok_or_else(bad))
                .collect::<Result<_, _>>()?,
            x => vec![element(x).ok_or_else(bad)?],
        };
        let shape = o.get("shape").and_then(Value::as_array).ok_or_else(bad)?;
        return Ok(Val::Array {
            shape: shape
                .iter()
                .filter_map(Value::as_u64)
                .map(|d| d as usize)
                .collect(),
            dtype: o.get("dtype").and_then(Value::as_str).unwrap_or("").into(),
            data,
        });
    }
    if let Some(value) = o.get("scalar") {
        let kind = o.get("type").and_then(Value::as_str).unwrap_or("NoneType");
        return Ok(scalar(kind, element(value).unwrap_or(0.0)));
    }
    if o.contains_key("tuple") {
        return Ok(Val::Tuple(items("tuple")?));
    }
    if o.contains_key("list") {
        return Ok(Val::List(items("list")?));
    }
    if let Some(Value::Object(d)) = o.get("dict") {
        return Ok(Val::Dict(
            d.iter()
                .map(|(k, v)| Ok((k.clone(), got(v)?)))
                .collect::<Result<_, String>>()?,
        ));
    }
    Ok(Val::Other(
        o.get("other").and_then(Value::as_str).unwrap_or("?").into(),
    ))
}

/// Compares `got` with `expected` within `rtol` and `atol`.
pub fn compare(got: &Val, expected: &Val, rtol: f64, atol: f64) -> Comparison {
    let mut c = Comparison::default();
    walk(got, expected, "", rtol, atol, &mut c);
    c
}

/// `result`, or `result[0]['w']`, for messages.
fn place(path: &str) -> String {
    format!("result{path}")
}

fn walk(got: &Val, want: &Val, path: &str, rtol: f64, atol: f64, c: &mut Comparison) {
    match (got, want) {
        (Val::Tuple(g), Val::Tuple(w)) | (Val::List(g), Val::List(w)) => {
            if g.len() != w.len() {
                c.mismatches.push(format!(
                    "{}: expected {} items, got {}",
                    place(path),
                    w.len(),
                    g.len()
                ));
                return;
            }
            for (i, (g, w)) in g.iter().zip(w).enumerate() {
                walk(g, w, &format!("{path}[{i}]"), rtol, atol, c);
            }
        }
        (Val::Dict(g), Val::Dict(w)) => {
            let keys = |d: &[(String, Val)]| d.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
            let (mut gk, mut wk) = (keys(g), keys(w));
            gk.sort();
            wk.sort();
            if gk != wk {
                c.mismatches
                    .push(format!("{}: expected keys {wk:?}, got {gk:?}", place(path)));
                return;
            }
            for (k, w) in w {
                if let Some((_, g)) = g.iter().find(|(gk, _)| gk == k) {
                    walk(g, w, &format!("{path}['{k}']"), rtol, atol, c);
                }
            }
        }
        (
            Val::Array {
                shape: gs,
                dtype: gd,
                data: g,
            },
            Val::Array {
                shape: ws,
                dtype: wd,
                data: w,
            },
        ) => {
            if gs != ws {
                c.mismatches.push(format!(
                    "{}: expected shape {}, got {}",
                    place(path),
                    crate::array::fmt_shape(ws),
                    crate::array::fmt_shape(gs)
                ));
            } else if gd != wd {
                c.mismatches
                    .push(format!("{}: expected dtype {wd}, got {gd}", place(path)));
            } else {
                elements(g, w, ws, path, rtol, atol, c);
            }
        }
        // A JAX function returns a 0-d array where a number is expected.
        (Val::Array { shape, data, .. }, Val::Scalar { kind, value })
            if shape.is_empty() && kind != "NoneType" =>
        {
            elements(data, &[*value], &[], path, rtol, atol, c);
        }
        (Val::Scalar { kind: gk, value: g }, Val::Scalar { kind: wk, value: w })
            if gk == wk || (is_number(gk) && is_number(wk)) =>
        {
            elements(&[*g], &[*w], &[], path, rtol, atol, c);
        }
        _ => c.mismatches.push(format!(
            "{}: expected {}, got {}",
            place(path),
            kind_text(want),
            kind_text(got)
        )),
    }
}

fn is_number(kind: &str) -> bool {
    kind == "int" || kind == "float"
}

/// Compares elements, recording the worst errors and the first element
/// out of tolerance (with how many are).
fn elements(
    g: &[f64],
    w: &[f64],
    shape: &[usize],
    path: &str,
    rtol: f64,
    atol: f64,
    c: &mut Comparison,
) {
    let mut bad = 0;
    let mut first = None;
    for (i, (&g, &w)) in g.iter().zip(w).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= atol + rtol * w.abs();
        let err = (g - w).abs();
        if err.is_finite() {
            c.max_abs_error = c.max_abs_error.max(err);
            if w != 0.0 {
                c.max_rel_error = c.max_rel_error.max(err / w.abs());
            }
        } else if !ok {
            c.max_abs_error = f64::INFINITY;
        }
        if !ok {
            bad += 1;
            first.get_or_insert((i, g, w));
        }
    }
    if let Some((i, g, w)) = first {
        let at = if shape.is_empty() {
            String::new()
        } else {
            index_text(i, shape)
        };
        let others = if bad > 1 {
            format!(" ({bad} of {} elements differ)", w_len(shape))
        } else {
            String::new()
        };
        let (w, g) = (num_text(w), num_text(g));
        c.mismatches.push(format!(
            "{}{at}: expected {w}, got {g}{others}",
            place(path)
        ));
    }
}

/// A number as short as it prints: float32 values as float32.
fn num_text(x: f64) -> String {
    if f64::from(x as f32) == x {
        format!("{}", x as f32)
    } else {
        format!("{x}")
    }
}

fn w_len(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// The multi-index of row-major element `i`: `[1, 2]`.
fn index_text(mut i: usize, shape: &[usize]) -> String {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d].max(1);
        i /= shape[d].max(1);
    }
    format!("{idx:?}")
}

/// What a value is, for a message about a mismatch of kinds.
fn kind_text(v: &Val) -> String {
    match v {
        Val::Array { shape, dtype, .. } => {
            format!("an array {dtype}{}", crate::array::fmt_shape(shape))
        }
        Val::Scalar { kind, .. } if kind == "NoneType" => "None".into(),
        Val::Scalar { kind, .. } => format!("a Python {kind}"),
        Val::List(x) => format!("a list of {}", x.len()),
        Val::Tuple(x) => format!("a tuple of {}", x.len()),
        Val::Dict(_) => "a dict".into(),
        Val::Other(t) => format!("a {t}"),
    }
}

/// A [`Val`] in the problem format (arrays as nested lists with a dtype),
/// to show the learner beside the expected value.
pub fn to_json(v: &Val) -> Value {
    match v {
        Val::Array { shape, dtype, data } => {
            json!({"array": nest(data, shape, dtype), "dtype": dtype})
        }
        Val::Scalar { kind, value } => match kind.as_str() {
            "NoneType" => Value::Null,
            "bool" => json!(*value != 0.0),
            "int" => json!(*value as i64),
            _ => number(*value),
        },
        Val::List(x) => Value::Array(x.iter().map(to_json).collect()),
        Val::Tuple(x) => json!({"tuple": x.iter().map(to_json).collect::<Vec<_>>()}),
        Val::Dict(d) => {
            json!({"dict": d.iter().map(|(k, v)| (k.clone(), to_json(v))).collect::<serde_json::Map<_, _>>()})
        }
        Val::Other(t) => json!({"other": t}),
    }
}

fn number(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or_else(|| json!(format!("{x}")), Value::Number)
}

fn nest(data: &[f64], shape: &[usize], dtype: &str) -> Value {
    let Some((&n, rest)) = shape.split_first() else {
        let x = data.first().copied().unwrap_or(f64::NAN);
        return match dtype {
            "bool" => json!(x != 0.0),
            "int32" => json!(x as i64),
            _ => number(x),
        };
    };
    let inner: usize = rest.iter().product();
    Value::Array(
        (0..n)
            .map(|i| nest(&data[(i * inner).min(data.len())..], rest, dtype))
            .collect(),
    )
}
