//! Python's standard modules that programs import next to JAX: `os`, `sys`,
//! `typing`, `__future__`, `time`, `abc`, `string`, `pprint`, `math`,
//! `functools`, `hashlib`, `array`, `itertools`, `operator`, `collections`, `copy`, `dataclasses`, `enum`,
//! `contextlib`, `re`, `logging`, `warnings` and `pdb` (whose debugger is
//! refused), with CPython 3.11's behaviour.
//!
//! What a program cannot do here (touch files, start processes, exit the
//! interpreter) is refused with `NotImplementedError` naming the function,
//! never silently skipped.

pub mod abc;
pub mod array;
pub mod collections;
pub mod collections_abc;
pub mod contextlib;
pub mod copy;
pub mod dataclasses;
pub mod r#enum;
pub mod functools;
pub mod future;
pub mod hashlib;
pub mod itertools;
pub mod logging;
pub mod math;
pub mod operator;
pub mod os;
pub mod pdb;
pub mod pprint;
pub mod re;
pub mod record;
pub mod string;
pub mod sys;
pub mod time;
pub mod types;
pub mod typing;
pub mod warnings;

use crate::err;
use crate::error::{Error, Result};
use crate::python::value::Obj;

/// `NotImplementedError: not supported by shardlab yet: WHAT`.
pub fn refuse(what: &str) -> Error {
    err!(NotImplementedError, "not supported by shardlab yet: {what}")
}

/// Names CPython's modules have that shardlab does not provide (yet); asking
/// for one is refused with `NotImplementedError` rather than called missing.
const UNSUPPORTED: &[(&str, &str)] = &[
    (
        "math",
        "cbrt erf erfc exp2 gamma lgamma nextafter remainder ulp",
    ),
    (
        "functools",
        "cmp_to_key partialmethod singledispatch singledispatchmethod",
    ),
    (
        "sys",
        "stdin modules path getsizeof exc_info settrace setprofile getrefcount executable \
         path_hooks meta_path builtin_module_names flags byteorder",
    ),
    (
        "time",
        "asctime ctime gmtime localtime mktime strftime strptime struct_time thread_time \
         thread_time_ns clock_gettime get_clock_info",
    ),
    ("string", "Formatter Template capwords"),
    ("pprint", "PrettyPrinter saferepr isreadable isrecursive"),
    ("copy", "replace"),
    (
        "abc",
        "abstractproperty abstractclassmethod abstractstaticmethod",
    ),
    (
        "typing",
        "get_type_hints get_origin get_args dataclass_transform",
    ),
];

/// The error for `module.name` when a standard module lacks `name`, or None
/// when the usual `AttributeError` applies.
pub fn missing_attr(module: &str, name: &str) -> Option<Error> {
    if module == "os" || module == "os.path" {
        return Some(os::refusal(&format!("{module}.{name}")));
    }
    UNSUPPORTED
        .iter()
        .any(|(m, names)| *m == module && names.split_whitespace().any(|n| n == name))
        .then(|| refuse(&format!("{module}.{name}")))
}

/// A real number argument as CPython's `float()` of it in `math`: bools,
/// ints, floats and one-element concrete arrays.
pub fn to_f64(v: &Obj) -> Result<f64> {
    match v {
        Obj::Array(x) => {
            let a = x.concrete("a Python float conversion")?;
            if a.size() != 1 {
                return Err(err!(
                    TypeError,
                    "only length-1 arrays can be converted to Python scalars"
                ));
            }
            Ok(a.get_f64(0))
        }
        o => o
            .as_number()
            .ok_or_else(|| err!(TypeError, "must be real number, not {}", o.type_name())),
    }
}
