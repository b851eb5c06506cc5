//! What the wasm test binaries share: the device worker pool.

use std::cell::RefCell;

use js_sys::Array as JsArray;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use shardlab::web::{start_workers, WorkerPool};

#[wasm_bindgen(inline_js = r#"
export function glue_url() {
  if (typeof location !== 'undefined') {
    return new URL('wasm-bindgen-test.js', location.href).href;
  }
  const script = process.argv[1];
  return 'file://' + script.slice(0, script.lastIndexOf('/')) + '/wasm-bindgen-test.js';
}
"#)]
extern "C" {
    /// The URL of the test's wasm-bindgen glue (which wasm-bindgen's test
    /// runner writes beside its page and its Node script), for the device
    /// workers to import.
    fn glue_url() -> String;
}

thread_local! {
    static POOL: RefCell<Option<WorkerPool>> = const { RefCell::new(None) };
}

/// A pool of `workers` device workers shared by the tests of one binary
/// (starting workers is slow).
pub async fn pool(workers: usize) -> WorkerPool {
    if let Some(p) = POOL.with(|p| p.borrow().clone()) {
        return p;
    }
    let started = JsFuture::from(start_workers(workers, &glue_url(), &wasm_bindgen::module()))
        .await
        .expect("device workers start");
    let p = WorkerPool::new(started.unchecked_into::<JsArray>()).expect("pool");
    POOL.with(|slot| *slot.borrow_mut() = Some(p.clone()));
    p
}
