//! The `abc` module: `ABC` and `ABCMeta` are classes a program may derive
//! from (or name as a metaclass), and `abstractmethod` marks nothing: it
//! returns the function, so an abstract class can still be instantiated.

use std::rc::Rc;

use crate::python::value::{Class, Obj};

use super::super::Builder;

/// The `abc` module.
pub fn module() -> Obj {
    let mut b = Builder::new("abc");
    b.attr(
        "ABC",
        Obj::Class(Rc::new(Class::new("ABC", vec![], vec![]))),
    )
    .attr(
        "ABCMeta",
        Obj::Class(Rc::new(Class::new("ABCMeta", vec![], vec![]))),
    )
    .func("abstractmethod", |_, a| {
        a.req(Some(0), "funcobj", "abstractmethod")
    })
    .func("update_abstractmethods", |_, a| {
        a.req(Some(0), "cls", "update_abstractmethods")
    })
    .func("get_cache_token", |_, _| Ok(Obj::Int(0)));
    b.build()
}
