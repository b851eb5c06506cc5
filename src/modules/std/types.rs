//! The `types` module: the builtin types that have no builtin name
//! (`types.EllipsisType`, `types.NoneType`), as annotations and type
//! aliases use them, and `types.UnionType`, what `int | str` makes.

use crate::python::value::Obj;

use super::super::Builder;

/// The `types` module.
pub fn module() -> Obj {
    Builder::new("types")
        .attr("EllipsisType", Obj::Type("ellipsis"))
        .attr("NoneType", Obj::Type("NoneType"))
        .attr("UnionType", Obj::Type("UnionType"))
        .build()
}
