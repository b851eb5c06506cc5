//! Python's standard-library modules, one file each.

pub mod collections;
pub mod contextlib;
pub mod dataclasses;
pub mod r#enum;
pub mod re;
