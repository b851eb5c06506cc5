//! The `copy` module: `copy` and `deepcopy`.
//!
//! Lists, dicts, sets and instances of the program's classes are copied;
//! immutable values (numbers, strings, tuples of immutables, JAX arrays,
//! dtypes) and functions, classes and modules are returned as they are, as
//! CPython returns them; a JAX array is copied into a buffer of its own,
//! as JAX's `__copy__`/`__deepcopy__` copy it. A class's `__copy__` / `__deepcopy__(memo)` is
//! called where it has one. `deepcopy` keeps sharing and cycles: an object
//! met twice is copied once (the memo is keyed by the object's address).
//! Objects a library defines are refused by name: copying one needs to know
//! which of its parts are mutable, and returning it uncopied would let the
//! copy and the original change together.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::ops::is_same;
use crate::python::value::{Args, Instance, Obj};
use crate::trace::Value;

use super::super::Builder;

/// The `copy` module.
pub fn module() -> Obj {
    let mut b = Builder::new("copy");
    b.func("copy", |i, a| {
        let x = a.req(Some(0), "x", "copy")?;
        shallow(i, &x)
    })
    .func("deepcopy", |i, a| {
        let x = a.req(Some(0), "x", "deepcopy")?;
        if a.opt(Some(1), "memo")
            .is_some_and(|m| !matches!(m, Obj::None))
        {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: copy.deepcopy with a memo argument"
            );
        }
        Deep::default().copy(i, &x)
    });
    b.build()
}

/// Whether `x` is returned as it is by both copies.
fn kept(x: &Obj) -> bool {
    match x {
        Obj::None
        | Obj::Bool(_)
        | Obj::Int(_)
        | Obj::Float(_)
        | Obj::Complex(..)
        | Obj::Str(_)
        | Obj::Slice(_)
        | Obj::Ellipsis
        | Obj::Range(..)
        | Obj::DType(_)
        | Obj::Func(_)
        | Obj::Native(_)
        | Obj::Class(_)
        | Obj::Module(_)
        | Obj::Type(_) => true,
        Obj::Set(s) => s.borrow().frozen,
        // Classes are copied as themselves (`jnp.float32`).
        Obj::Lib(_) => x.class_name().is_some(),
        _ => false,
    }
}

fn refuse(x: &Obj, what: &str) -> Result<Obj> {
    bail!(
        NotImplementedError,
        "not supported by shardlab yet: copy.{what} of a {} object",
        x.type_name()
    )
}

/// `copy.copy(x)`.
fn shallow(interp: &mut Interp, x: &Obj) -> Result<Obj> {
    if kept(x) {
        return Ok(x.clone());
    }
    Ok(match x {
        Obj::Array(a) => own_buffer(a)?,
        Obj::Tuple(_) => x.clone(),
        Obj::List(l) => Obj::list(l.borrow().clone()),
        Obj::Dict(d) => Obj::Dict(Rc::new(RefCell::new(d.borrow().clone()))),
        Obj::Set(s) => Obj::set(s.borrow().clone()),
        Obj::Instance(i) => {
            if let Some(f) = i.class.lookup("__copy__") {
                return interp.call(&f, Args::new(vec![x.clone()]));
            }
            if i.class.native().is_some() {
                return refuse(x, "copy");
            }
            let attrs = i.attrs.borrow().clone();
            let base = i.base.as_ref().map(|b| shallow(interp, b)).transpose()?;
            new_instance(interp, i, attrs, base)?
        }
        _ => return refuse(x, "copy"),
    })
}

/// A new instance of `like`'s class with `attrs` and, for a class that
/// extends a builtin, `base`'s items.
fn new_instance(
    interp: &mut Interp,
    like: &Instance,
    attrs: Vec<(String, Obj)>,
    base: Option<Obj>,
) -> Result<Obj> {
    let inst = Rc::new(Instance::with_attrs(like.class.clone(), attrs));
    match (&inst.base, base) {
        (Some(Obj::List(mine)), Some(Obj::List(items))) => {
            *mine.borrow_mut() = items.borrow().clone();
        }
        (Some(Obj::Dict(mine)), Some(Obj::Dict(items))) => {
            *mine.borrow_mut() = items.borrow().clone();
        }
        _ => {}
    }
    interp.cycles.instance(&inst);
    Ok(Obj::Instance(inst))
}

/// One `deepcopy` call: the copies made so far, by the address of what
/// they copy.
#[derive(Default)]
struct Deep {
    memo: HashMap<usize, Obj>,
}

impl Deep {
    fn copy(&mut self, interp: &mut Interp, x: &Obj) -> Result<Obj> {
        if kept(x) {
            return Ok(x.clone());
        }
        let _level = crate::python::depth::enter()?;
        let at = address(x);
        if let Some(done) = at.and_then(|a| self.memo.get(&a)) {
            return Ok(done.clone());
        }
        match x {
            Obj::Tuple(t) => {
                let items = self.all(interp, t)?;
                // A tuple of immutables is itself, as in CPython.
                if items.iter().zip(t.iter()).all(|(a, b)| is_same(a, b)) {
                    return Ok(x.clone());
                }
                Ok(Obj::tuple(items))
            }
            Obj::List(l) => {
                let out = Obj::list(vec![]);
                self.remember(at, &out);
                let items = l.borrow().clone();
                let copied = self.all(interp, &items)?;
                if let Obj::List(o) = &out {
                    *o.borrow_mut() = copied;
                }
                Ok(out)
            }
            Obj::Dict(d) => {
                let mut fresh = d.borrow().clone();
                fresh.clear();
                let out = Obj::Dict(Rc::new(RefCell::new(Default::default())));
                self.remember(at, &out);
                let items = d.borrow().items.clone();
                for (k, v) in items {
                    let k = self.copy(interp, &k)?;
                    let v = self.copy(interp, &v)?;
                    fresh.set(k, v);
                }
                if let Obj::Dict(o) = &out {
                    *o.borrow_mut() = fresh;
                }
                Ok(out)
            }
            Obj::Set(s) => {
                let mut fresh = crate::python::set::Set::empty(false);
                for item in s.borrow().items() {
                    fresh.add(self.copy(interp, &item)?)?;
                }
                Ok(Obj::set(fresh))
            }
            Obj::Instance(i) => self.instance(interp, x, i, at),
            Obj::Array(a) => own_buffer(a),
            _ => refuse(x, "deepcopy"),
        }
    }

    fn instance(
        &mut self,
        interp: &mut Interp,
        x: &Obj,
        i: &Instance,
        at: Option<usize>,
    ) -> Result<Obj> {
        if let Some(f) = i.class.lookup("__deepcopy__") {
            let memo = Obj::Dict(Default::default());
            return interp.call(&f, Args::new(vec![x.clone(), memo]));
        }
        if i.class.native().is_some() {
            return refuse(x, "deepcopy");
        }
        let out = new_instance(interp, i, vec![], None)?;
        self.remember(at, &out);
        let attrs = i.attrs.borrow().clone();
        let mut copied = Vec::with_capacity(attrs.len());
        for (k, v) in attrs {
            copied.push((k, self.copy(interp, &v)?));
        }
        let base = i.base.as_ref().map(|b| self.copy(interp, b)).transpose()?;
        if let Obj::Instance(o) = &out {
            *o.attrs.borrow_mut() = copied;
            match (&o.base, base) {
                (Some(Obj::List(mine)), Some(Obj::List(items))) => {
                    *mine.borrow_mut() = items.borrow().clone();
                }
                (Some(Obj::Dict(mine)), Some(Obj::Dict(items))) => {
                    *mine.borrow_mut() = items.borrow().clone();
                }
                _ => {}
            }
        }
        Ok(out)
    }

    fn all(&mut self, interp: &mut Interp, items: &[Obj]) -> Result<Vec<Obj>> {
        items.iter().map(|x| self.copy(interp, x)).collect()
    }

    fn remember(&mut self, at: Option<usize>, copy: &Obj) {
        if let Some(a) = at {
            self.memo.insert(a, copy.clone());
        }
    }
}

/// A concrete array in a buffer of its own; a traced one is itself (a
/// copy inside a transformation is the same value to JAX).
fn own_buffer(v: &Value) -> Result<Obj> {
    Ok(Obj::Array(match v {
        Value::Concrete(a) => Value::Concrete(a.with_own_buffer()),
        traced => traced.clone(),
    }))
}

/// The address of a mutable container or instance (what the memo keys).
fn address(x: &Obj) -> Option<usize> {
    Some(match x {
        Obj::List(l) => Rc::as_ptr(l) as *const u8 as usize,
        Obj::Dict(d) => Rc::as_ptr(d) as *const u8 as usize,
        Obj::Set(s) => Rc::as_ptr(s) as *const u8 as usize,
        Obj::Tuple(t) => Rc::as_ptr(t) as *const u8 as usize,
        Obj::Instance(i) => Rc::as_ptr(i) as *const u8 as usize,
        _ => return None,
    })
}
