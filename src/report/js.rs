//! The report (or anything holding [`ArrayData`]) as a JavaScript value,
//! built with serde-wasm-bindgen, array elements as typed arrays.
//!
//! One mechanism decides the form of `ArrayData.data`: while [`to_js`] runs,
//! a flag of this thread is set and `ArrayData` serialises its elements as a
//! `Float32Array`, `Int32Array`, `Uint32Array` (key data, which a float
//! would round) or `Uint8Array` (bools as 0/1) by dtype;
//! otherwise (every JSON output) as a list of numbers.

use std::cell::Cell;

use js_sys::{Float32Array, Int32Array, Uint32Array, Uint8Array};
use serde::{Serialize, Serializer};
use wasm_bindgen::JsValue;

use super::ArrayData;

thread_local! {
    /// Set while [`to_js`] serialises: serde's `Serialize` takes no
    /// argument to say "typed arrays, please", and the flag must reach
    /// `ArrayData` many levels down.
    static TYPED: Cell<bool> = const { Cell::new(false) };
}

/// True while [`to_js`] runs on this thread.
pub fn typed_arrays() -> bool {
    TYPED.with(Cell::get)
}

/// Clears the flag when [`to_js`] returns, however it returns.
struct Typed;

impl Drop for Typed {
    fn drop(&mut self) {
        TYPED.with(|t| t.set(false));
    }
}

/// `value` as a JavaScript value: structs and maps as plain objects, `None`
/// as `null`, and every `ArrayData.data` as a typed array.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, serde_wasm_bindgen::Error> {
    TYPED.with(|t| t.set(true));
    let _typed = Typed;
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
}

/// An array's elements as the typed array of its dtype.
pub struct TypedData<'a>(pub &'a ArrayData);

impl Serialize for TypedData<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let data = &self.0.data;
        let array: JsValue = match self.0.dtype {
            "int32" => {
                Int32Array::from(&data.iter().map(|&v| v as i32).collect::<Vec<_>>()[..]).into()
            }
            "uint32" => {
                Uint32Array::from(&data.iter().map(|&v| v as u32).collect::<Vec<_>>()[..]).into()
            }
            "bool" => {
                Uint8Array::from(&data.iter().map(|&v| v as u8).collect::<Vec<_>>()[..]).into()
            }
            _ => Float32Array::from(&data.iter().map(|&v| v as f32).collect::<Vec<_>>()[..]).into(),
        };
        serde_wasm_bindgen::preserve::serialize(&array, s)
    }
}
