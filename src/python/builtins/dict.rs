//! The methods of `dict`.

use std::cell::RefCell;
use std::rc::Rc;

use crate::err;

use super::super::format::repr_of;
use super::super::value::Obj;
use super::dict_view::{view, View};

/// The `dict` method `name`, bound to `recv`.
pub fn method(recv: &Obj, name: &str) -> Option<Obj> {
    Some(match (recv, name) {
        (Obj::Dict(d), "keys" | "values" | "items") => {
            let (d, v) = (
                d.clone(),
                match name {
                    "keys" => View::Keys,
                    "values" => View::Values,
                    _ => View::Items,
                },
            );
            Obj::native(name, move |_, _| Ok(view(&d, v)))
        }
        (Obj::Dict(d), "get") => {
            let d = d.clone();
            Obj::native(name, move |_, a| {
                let k = a.req(Some(0), "key", "get")?;
                Ok(d.borrow()
                    .get(&k)
                    .unwrap_or_else(|| a.get(Some(1), "default").unwrap_or(Obj::None)))
            })
        }
        (Obj::Dict(d), "update") => {
            let d = d.clone();
            Obj::native(name, move |_, a| {
                if let Some(Obj::Dict(o)) = a.pos.first() {
                    let items = o.borrow().items.clone();
                    for (k, v) in items {
                        d.borrow_mut().set(k, v);
                    }
                }
                for (k, v) in a.kw {
                    d.borrow_mut().set(Obj::str(k), v);
                }
                Ok(Obj::None)
            })
        }
        (Obj::Dict(d), "pop") => {
            let d = d.clone();
            Obj::native(name, move |_, a| {
                let k = a.req(Some(0), "key", "pop")?;
                let v = d.borrow().get(&k);
                match v {
                    Some(v) => {
                        d.borrow_mut().remove(&k);
                        Ok(v)
                    }
                    None => a
                        .get(Some(1), "default")
                        .ok_or_else(|| err!(KeyError, "{}", repr_of(&k))),
                }
            })
        }
        (Obj::Dict(d), "copy") => {
            let d = d.clone();
            Obj::native(name, move |_, _| {
                Ok(Obj::Dict(Rc::new(RefCell::new(d.borrow().clone()))))
            })
        }
        (Obj::Dict(d), "setdefault") => {
            let d = d.clone();
            Obj::native(name, move |_, a| {
                let k = a.req(Some(0), "key", "setdefault")?;
                let existing = d.borrow().get(&k);
                match existing {
                    Some(v) => Ok(v),
                    None => {
                        let v = a.get(Some(1), "default").unwrap_or(Obj::None);
                        d.borrow_mut().set(k, v.clone());
                        Ok(v)
                    }
                }
            })
        }
        _ => return None,
    })
}
