//! The one function of `unicode_names2` that `rustpython-parser` calls.

/// The character named `name` (a Unicode name or alias, any case), as
/// Python's `"\N{name}"` reads it.
#[cfg(not(target_arch = "wasm32"))]
pub fn character(name: &str) -> Option<char> {
    names::character(name)
}

/// No names in wasm: the browser engine leaves the table out of its download.
#[cfg(target_arch = "wasm32")]
pub fn character(_name: &str) -> Option<char> {
    None
}
