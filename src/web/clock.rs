//! Time in wasm: `std::time::Instant` is not implemented on
//! wasm32-unknown-unknown, so deadlines read JavaScript's clocks.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// Milliseconds on a monotonic clock (`performance.now()`, present in
/// browsers, their workers and Node).
pub fn now_ms() -> f64 {
    performance_now()
}
