//! Named tuples the standard modules return (`sys.float_info`,
//! `functools`' `CacheInfo`): fields by name and by position, and CPython's
//! `Name(field=value, ...)` repr.

use std::cell::RefCell;
use std::rc::Rc;

use crate::error::Result;
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::{getitem, py_eq};
use crate::python::value::{Dict, Obj};

/// An immutable named tuple.
pub struct Record {
    /// `type(x).__name__`.
    pub type_name: String,
    /// The name its repr starts with (`sys.float_info`).
    pub repr_name: String,
    /// Fields in order.
    pub fields: Vec<(String, Obj)>,
}

impl Record {
    /// A record whose repr starts with its type name.
    pub fn new(name: &str, fields: Vec<(&str, Obj)>) -> Record {
        Record {
            type_name: name.to_string(),
            repr_name: name.to_string(),
            fields: fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        }
    }

    fn values(&self) -> Vec<Obj> {
        self.fields.iter().map(|(_, v)| v.clone()).collect()
    }
}

impl Object for Record {
    fn type_name(&self) -> String {
        self.type_name.clone()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        if let Some((_, v)) = self.fields.iter().find(|(k, _)| k == name) {
            return Ok(Some(v.clone()));
        }
        Ok(match name {
            "_fields" => Some(Obj::tuple(
                self.fields.iter().map(|(k, _)| Obj::str(k)).collect(),
            )),
            "_asdict" => {
                let d: Dict = self
                    .fields
                    .iter()
                    .map(|(k, v)| (Obj::str(k), v.clone()))
                    .collect();
                let d = Obj::Dict(Rc::new(RefCell::new(d)));
                Some(Obj::native("_asdict", move |_, _| Ok(d.clone())))
            }
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let body: Vec<String> = self
            .fields
            .iter()
            .map(|(k, v)| format!("{k}={}", repr_of(v)))
            .collect();
        Some(format!("{}({})", self.repr_name, body.join(", ")))
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(Ok(self.values()))
    }

    fn getitem(&self, interp: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(getitem(interp, &Obj::tuple(self.values()), key))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        let mine = Obj::tuple(self.values());
        Some(match other {
            Obj::Lib(o) => match o.downcast::<Record>() {
                Some(r) => py_eq(&mine, &Obj::tuple(r.values())),
                None => false,
            },
            other => py_eq(&mine, other),
        })
    }
}
