//! The messages the coordinator sends to device workers, read and written
//! field by field as plain JavaScript objects.
//!
//! A message holds only what structured cloning copies exactly: numbers,
//! strings, typed arrays and shared buffers (which are shared, not copied).

use js_sys::{Object, Reflect, SharedArrayBuffer, Uint32Array};
use serde::{Deserialize, Serialize};
use wasm_bindgen::{JsCast, JsValue};

use crate::array::DType;
use crate::err;
use crate::error::Result;
use crate::ir::Jaxpr;
use crate::mesh::Mesh;

/// What a device runs and with which inputs, as JSON (the input data
/// travels beside it as words).
#[derive(Serialize, Deserialize)]
pub struct Program {
    /// The per-device program.
    pub body: Jaxpr,
    /// The mesh its axis names refer to.
    pub mesh: Mesh,
    /// Shape and type of each input, in order; their words follow each
    /// other in the message's `inputs`.
    pub inputs: Vec<(Vec<usize>, DType)>,
}

/// Builds a message object from `(field, value)` pairs.
pub fn message(fields: &[(&str, JsValue)]) -> JsValue {
    let obj = Object::new();
    for (k, v) in fields {
        let _ = Reflect::set(&obj, &JsValue::from_str(k), v);
    }
    obj.into()
}

fn field(msg: &JsValue, name: &str) -> Result<JsValue> {
    let v = Reflect::get(msg, &JsValue::from_str(name))
        .map_err(|_| err!(RuntimeError, "a device job is not an object"))?;
    if v.is_undefined() {
        return Err(err!(RuntimeError, "a device job has no field {name:?}"));
    }
    Ok(v)
}

/// A numeric field as a non-negative integer.
pub fn usize_field(msg: &JsValue, name: &str) -> Result<usize> {
    let v = field(msg, name)?
        .as_f64()
        .ok_or_else(|| err!(RuntimeError, "device job field {name:?} is not a number"))?;
    if !(v >= 0.0 && v.fract() == 0.0 && v <= u32::MAX as f64) {
        return Err(err!(
            RuntimeError,
            "device job field {name:?} is not a count: {v}"
        ));
    }
    Ok(v as usize)
}

/// A numeric field; `default` when absent.
pub fn f64_field(msg: &JsValue, name: &str, default: f64) -> f64 {
    field(msg, name)
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(default)
}

/// A numeric field that may be -1 for "none".
pub fn opt_field(msg: &JsValue, name: &str) -> Option<usize> {
    let v = f64_field(msg, name, -1.0);
    (v >= 0.0 && v.fract() == 0.0 && v <= u32::MAX as f64).then_some(v as usize)
}

/// A string field.
pub fn str_field(msg: &JsValue, name: &str) -> Result<String> {
    field(msg, name)?
        .as_string()
        .ok_or_else(|| err!(RuntimeError, "device job field {name:?} is not a string"))
}

/// A shared-buffer field.
pub fn sab_field(msg: &JsValue, name: &str) -> Result<SharedArrayBuffer> {
    field(msg, name)?
        .dyn_into::<SharedArrayBuffer>()
        .map_err(|_| {
            err!(
                RuntimeError,
                "device job field {name:?} is not a SharedArrayBuffer"
            )
        })
}

/// A `Uint32Array` field, copied into wasm memory.
pub fn words_field(msg: &JsValue, name: &str) -> Result<Vec<u32>> {
    Ok(field(msg, name)?
        .dyn_into::<Uint32Array>()
        .map_err(|_| {
            err!(
                RuntimeError,
                "device job field {name:?} is not a Uint32Array"
            )
        })?
        .to_vec())
}

/// Bytes of a log buffer for `devices` devices with `cap` bytes each.
///
/// Devices write their collective logs back (when a report is recorded)
/// into a shared buffer the coordinator sized beforehand: word `d` holds the
/// byte length of device `d`'s log (JSON), whose bytes follow at
/// [`log_at`]. A log longer than `cap` leaves only its length, and the
/// coordinator asks for it again in a buffer large enough.
pub fn log_buffer_bytes(devices: usize, cap: usize) -> usize {
    devices * 4 + devices * cap
}

/// Byte offset of device `d`'s log in a log buffer.
pub fn log_at(devices: usize, cap: usize, d: usize) -> usize {
    devices * 4 + d * cap
}
