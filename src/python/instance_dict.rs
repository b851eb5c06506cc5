//! An instance's `__dict__` (what `vars(obj)` gives): a dict that reads
//! and writes the instance's own attributes, so `vars(obj).update(...)`
//! and `vars(obj)[name] = value` set them as in Python. Reading methods
//! (`items`, `keys`, `get`, iteration, `repr`) answer from the attributes
//! as they are when called; the writing methods other than `update` and
//! item assignment are refused by name.

use std::cell::RefCell;
use std::rc::Rc;

use crate::bail;
use crate::error::Result;

use super::dict::Dict;
use super::format::{repr_of, str_of};
use super::interp::Interp;
use super::object::Object;
use super::ops::iterate;
use super::value::{Args, Instance, Obj};

/// The `__dict__` of one instance.
pub struct InstanceDict(pub Rc<Instance>);

/// `vars(obj)` / `obj.__dict__` for an instance.
pub fn instance_dict(i: &Rc<Instance>) -> Obj {
    Obj::Lib(Rc::new(InstanceDict(i.clone())))
}

impl InstanceDict {
    /// The attributes as a plain dict, as they are now.
    fn snapshot(&self) -> Obj {
        let d: Dict = self
            .0
            .attrs
            .borrow()
            .iter()
            .map(|(k, v)| (Obj::str(k), v.clone()))
            .collect();
        Obj::Dict(Rc::new(RefCell::new(d)))
    }

    fn set(&self, key: &Obj, v: Obj) -> Result<()> {
        let Obj::Str(k) = key else {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: a __dict__ key that is not a str ({})",
                key.type_name()
            );
        };
        super::ops::setattr(&Obj::Instance(self.0.clone()), k, v)
    }

    /// `update(other=(), **kw)`: a mapping or pairs, then the keywords.
    fn update(&self, interp: &mut Interp, a: &Args) -> Result<()> {
        if let Some(other) = a.pos.first() {
            match other {
                Obj::Dict(d) => {
                    let items = d.borrow().items.clone();
                    for (k, v) in items {
                        self.set(&k, v)?;
                    }
                }
                _ => {
                    for pair in interp.iterate(other)? {
                        let kv = iterate(&pair)?;
                        if kv.len() != 2 {
                            bail!(
                                ValueError,
                                "dictionary update sequence element has length {}; 2 is required",
                                kv.len()
                            );
                        }
                        self.set(&kv[0], kv[1].clone())?;
                    }
                }
            }
        }
        for (k, v) in &a.kw {
            self.set(&Obj::str(k), v.clone())?;
        }
        Ok(())
    }
}

impl Object for InstanceDict {
    fn type_name(&self) -> String {
        "dict".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(repr_of(&self.snapshot()))
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(Ok(self
            .0
            .attrs
            .borrow()
            .iter()
            .map(|(k, _)| Obj::str(k))
            .collect()))
    }

    fn getitem(&self, interp: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(super::ops::getitem(interp, &self.snapshot(), key))
    }

    fn setitem(&self, _: &Obj, key: &Obj, v: &Obj) -> Option<Result<()>> {
        Some(self.set(key, v.clone()))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(super::ops::py_eq(&self.snapshot(), other))
    }

    fn getattr(&self, interp: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        match name {
            "update" => {
                let me = this.clone();
                Ok(Some(Obj::native("update", move |i, a| {
                    if let Some(d) = me.downcast::<InstanceDict>() {
                        d.update(i, &a)?;
                    }
                    Ok(Obj::None)
                })))
            }
            "pop" | "popitem" | "setdefault" | "clear" | "__delitem__" => bail!(
                NotImplementedError,
                "not supported by shardlab yet: {}() on an instance's __dict__",
                str_of(&Obj::str(name))
            ),
            _ => super::ops::getattr(interp, &self.snapshot(), name).map(Some),
        }
    }
}
