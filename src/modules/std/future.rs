//! The `__future__` module: its features, so that
//! `from __future__ import annotations` (and the older ones) import, each
//! printing and answering as CPython 3.11's `_Feature`.

use crate::error::Result;
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::Obj;

use super::super::Builder;

/// A release as `sys.version_info` writes it.
type Release = (i64, i64, i64, &'static str, i64);

/// Each feature: name, optional release, mandatory release, compiler flag.
const FEATURES: &[(&str, Release, Option<Release>, i64)] = &[
    (
        "nested_scopes",
        (2, 1, 0, "beta", 1),
        Some((2, 2, 0, "alpha", 0)),
        0x10,
    ),
    (
        "generators",
        (2, 2, 0, "alpha", 1),
        Some((2, 3, 0, "final", 0)),
        0,
    ),
    (
        "division",
        (2, 2, 0, "alpha", 2),
        Some((3, 0, 0, "alpha", 0)),
        0x20000,
    ),
    (
        "absolute_import",
        (2, 5, 0, "alpha", 1),
        Some((3, 0, 0, "alpha", 0)),
        0x40000,
    ),
    (
        "with_statement",
        (2, 5, 0, "alpha", 1),
        Some((2, 6, 0, "alpha", 0)),
        0x80000,
    ),
    (
        "print_function",
        (2, 6, 0, "alpha", 2),
        Some((3, 0, 0, "alpha", 0)),
        0x100000,
    ),
    (
        "unicode_literals",
        (2, 6, 0, "alpha", 2),
        Some((3, 0, 0, "alpha", 0)),
        0x200000,
    ),
    (
        "barry_as_FLUFL",
        (3, 1, 0, "alpha", 2),
        Some((4, 0, 0, "alpha", 0)),
        0x400000,
    ),
    (
        "generator_stop",
        (3, 5, 0, "beta", 1),
        Some((3, 7, 0, "alpha", 0)),
        0x800000,
    ),
    ("annotations", (3, 7, 0, "beta", 1), None, 0x1000000),
];

fn release(r: &Release) -> Obj {
    Obj::tuple(vec![
        Obj::Int(r.0),
        Obj::Int(r.1),
        Obj::Int(r.2),
        Obj::str(r.3),
        Obj::Int(r.4),
    ])
}

/// One `__future__` feature.
struct Feature {
    optional: Obj,
    mandatory: Obj,
    flag: i64,
}

impl Object for Feature {
    fn type_name(&self) -> String {
        "_Feature".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let value = |v: Obj| Some(Obj::native(name, move |_, _| Ok(v.clone())));
        Ok(match name {
            "optional" => Some(self.optional.clone()),
            "mandatory" => Some(self.mandatory.clone()),
            "compiler_flag" => Some(Obj::Int(self.flag)),
            "getOptionalRelease" => value(self.optional.clone()),
            "getMandatoryRelease" => value(self.mandatory.clone()),
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!(
            "_Feature({}, {}, {})",
            repr_of(&self.optional),
            repr_of(&self.mandatory),
            self.flag
        ))
    }
}

/// The `__future__` module.
pub fn module() -> Obj {
    let mut b = Builder::new("__future__");
    let mut names = vec![];
    for (name, optional, mandatory, flag) in FEATURES {
        names.push(Obj::str(name));
        let feature = Feature {
            optional: release(optional),
            mandatory: mandatory.as_ref().map(release).unwrap_or(Obj::None),
            flag: *flag,
        };
        b.attr(name, Obj::lib(feature));
    }
    b.attr("all_feature_names", Obj::list(names));
    b.build()
}
