//! Classes as Python has them: the method resolution order, `super()`,
//! `property`, `classmethod` and `staticmethod`, attribute assignment
//! through properties, and `__init_subclass__`.
//!
//! A function defined in a class body remembers its class (CPython's
//! `__class__` cell), so `super()` with no arguments finds the class from
//! the innermost running function and the instance from its first argument,
//! as CPython does.

use std::rc::{Rc, Weak};

use crate::error::Result;
use crate::{bail, err};

use super::interp::Interp;
use super::object::Object;
use super::value::{Args, Class, Obj};

impl Class {
    /// The method resolution order: the class, then its bases by C3
    /// linearisation (depth first where C3 cannot decide, as for a class
    /// whose bases disagree).
    pub fn mro(self: &Rc<Class>) -> Vec<Rc<Class>> {
        let mut seqs: Vec<Vec<Rc<Class>>> = self.bases.iter().map(|b| b.mro()).collect();
        seqs.push(self.bases.clone());
        let mut out = vec![self.clone()];
        loop {
            seqs.retain(|s| !s.is_empty());
            let Some(head) = seqs
                .iter()
                .map(|s| s[0].clone())
                .find(|c| !seqs.iter().any(|s| s[1..].iter().any(|x| Rc::ptr_eq(x, c))))
            else {
                // Inconsistent hierarchy: fall back to the remaining heads.
                for s in &seqs {
                    for c in s {
                        if !out.iter().any(|x| Rc::ptr_eq(x, c)) {
                            out.push(c.clone());
                        }
                    }
                }
                return out;
            };
            for s in seqs.iter_mut() {
                if Rc::ptr_eq(&s[0], &head) {
                    s.remove(0);
                }
            }
            out.push(head);
        }
    }
}

/// `functools.cached_property(func)`: computed on first access and then
/// kept in the instance's attributes, which later lookups find first.
pub struct CachedProperty {
    /// The function computing the value.
    pub func: Obj,
}

impl Object for CachedProperty {
    fn type_name(&self) -> String {
        "cached_property".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "func" => Some(self.func.clone()),
            "attrname" => Some(Obj::str(func_name(&self.func))),
            _ => None,
        })
    }
}

/// The `__name__` of a function (what `cached_property` stores under).
fn func_name(f: &Obj) -> String {
    match f {
        Obj::Func(f) => f.name.clone(),
        Obj::Native(n) => n.name.rsplit('.').next().unwrap_or(&n.name).to_string(),
        _ => String::new(),
    }
}

/// `property(fget, fset)`.
pub struct Property {
    /// The getter.
    pub fget: Obj,
    /// The setter, if any.
    pub fset: Option<Obj>,
}

impl Object for Property {
    fn type_name(&self) -> String {
        "property".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let fget = self.fget.clone();
        Ok(match name {
            "setter" => Some(Obj::native("property.setter", move |_, a| {
                let fset = a.req(Some(0), "fset", "setter")?;
                Ok(Obj::lib(Property {
                    fget: fget.clone(),
                    fset: Some(fset),
                }))
            })),
            "fget" => Some(self.fget.clone()),
            _ => None,
        })
    }
}

/// `classmethod(f)`.
pub struct ClassMethod(pub Obj);

impl Object for ClassMethod {
    fn type_name(&self) -> String {
        "classmethod".into()
    }
}

/// `staticmethod(f)`.
pub struct StaticMethod(pub Obj);

impl Object for StaticMethod {
    fn type_name(&self) -> String {
        "staticmethod".into()
    }

    fn callable(&self) -> bool {
        true
    }

    fn call(&self, interp: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        Some(interp.call(&self.0, args))
    }
}

/// `super()`: attribute lookup that starts after `class` in the MRO of
/// `this`'s class.
pub struct Super {
    class: Rc<Class>,
    this: Obj,
}

impl Object for Super {
    fn type_name(&self) -> String {
        "super".into()
    }

    fn getattr(&self, interp: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let start = match &self.this {
            Obj::Instance(i) => i.class.clone(),
            Obj::Class(c) => c.clone(),
            _ => return Ok(None),
        };
        let mro = start.mro();
        let after = mro
            .iter()
            .position(|c| Rc::ptr_eq(c, &self.class))
            .map_or(0, |p| p + 1);
        for c in &mro[after..] {
            let found = c.attrs.borrow().iter().find(|(k, _)| k == name).cloned();
            if let Some((_, v)) = found {
                return Ok(Some(bind(interp, &self.this, v)?));
            }
        }
        if let Some(x) = super::builtin_base::attr(&self.this, name) {
            return Ok(Some(x));
        }
        // object.__init__ and friends accept and do nothing.
        if name == "__init__" || name == "__init_subclass__" {
            return Ok(Some(Obj::native("object.__init__", |_, _| Ok(Obj::None))));
        }
        Ok(None)
    }
}

/// What `this.name` gives for a class attribute `v`: a bound method for a
/// function, the getter's value for a property, the class-bound function
/// for a classmethod, the function itself for a staticmethod.
pub fn bind(interp: &mut Interp, this: &Obj, v: Obj) -> Result<Obj> {
    let class_of = |this: &Obj| match this {
        Obj::Instance(i) => Obj::Class(i.class.clone()),
        other => other.clone(),
    };
    Ok(match &v {
        Obj::Func(_) | Obj::Native(_) if matches!(this, Obj::Instance(_)) => {
            Obj::Method(Rc::new((this.clone(), v)))
        }
        Obj::Lib(o) if o.binds_as_method() && matches!(this, Obj::Instance(_)) => {
            Obj::Method(Rc::new((this.clone(), v.clone())))
        }
        Obj::Lib(o) => {
            if let Some(p) = o.downcast::<Property>() {
                if matches!(this, Obj::Instance(_)) {
                    return interp.call(&p.fget, Args::new(vec![this.clone()]));
                }
                v
            } else if let (Some(c), Obj::Instance(i)) = (o.downcast::<CachedProperty>(), this) {
                let value = interp.call(&c.func, Args::new(vec![this.clone()]))?;
                let name = func_name(&c.func);
                let mut attrs = i.attrs.borrow_mut();
                match attrs.iter_mut().find(|(k, _)| *k == name) {
                    Some(slot) => slot.1 = value.clone(),
                    None => attrs.push((name, value.clone())),
                }
                value
            } else if let Some(m) = o.downcast::<ClassMethod>() {
                Obj::Method(Rc::new((class_of(this), m.0.clone())))
            } else if let Some(s) = o.downcast::<StaticMethod>() {
                s.0.clone()
            } else {
                v
            }
        }
        _ => v,
    })
}

/// Records `class` as the defining class of the functions in its body (for
/// `super()`), looking through the method wrappers.
pub fn adopt_methods(class: &Rc<Class>) {
    for (_, v) in class.attrs.borrow().iter() {
        let f = match v {
            Obj::Lib(o) => o
                .downcast::<ClassMethod>()
                .map(|m| m.0.clone())
                .or_else(|| o.downcast::<StaticMethod>().map(|m| m.0.clone()))
                .or_else(|| o.downcast::<Property>().map(|p| p.fget.clone()))
                .or_else(|| o.downcast::<CachedProperty>().map(|p| p.func.clone())),
            other => Some(other.clone()),
        };
        if let Some(Obj::Func(f)) = f {
            *f.owner.borrow_mut() = Rc::downgrade(class);
        }
    }
}

impl Interp {
    /// `super()` with no arguments, inside a method.
    pub fn zero_arg_super(&mut self) -> Result<Obj> {
        let Some((func, scope)) = self.frames.last().cloned() else {
            bail!(RuntimeError, "super(): no arguments");
        };
        let class: Option<Rc<Class>> = Weak::upgrade(&func.owner.borrow());
        let Some(class) = class else {
            bail!(RuntimeError, "super(): __class__ cell not found");
        };
        let first = func
            .params
            .posonlyargs
            .iter()
            .chain(&func.params.args)
            .next()
            .map(|a| a.def.arg.to_string());
        let this = first.and_then(|n| scope.vars.borrow().get(&n).cloned());
        let Some(this) = this else {
            bail!(RuntimeError, "super(): no arguments");
        };
        Ok(Obj::lib(Super { class, this }))
    }

    /// `super(C, x)`.
    pub fn explicit_super(&mut self, class: &Obj, this: Obj) -> Result<Obj> {
        let Obj::Class(class) = class else {
            bail!(
                TypeError,
                "super() argument 1 must be a type, not {}",
                class.type_name()
            );
        };
        Ok(Obj::lib(Super {
            class: class.clone(),
            this,
        }))
    }

    /// `obj.name = v`, through a property's setter or a class's
    /// `__setattr__` where there is one.
    pub fn setattr(&mut self, obj: &Obj, name: &str, v: Obj) -> Result<()> {
        if let Obj::Instance(i) = obj {
            if let Some(Obj::Lib(o)) = i.class.lookup(name) {
                if let Some(p) = o.downcast::<Property>() {
                    let Some(fset) = p.fset.clone() else {
                        bail!(
                            AttributeError,
                            "property '{name}' of '{}' object has no setter",
                            i.class.name
                        );
                    };
                    self.call(&fset, Args::new(vec![obj.clone(), v]))?;
                    return Ok(());
                }
            }
            if let Some(f) = i.class.lookup("__setattr__") {
                self.call(&f, Args::new(vec![obj.clone(), Obj::str(name), v]))?;
                return Ok(());
            }
        }
        super::ops::setattr(obj, name, v)
    }

    /// The object a class statement binds: the class, or what a library
    /// base makes of it (an enumeration from `class Color(Enum)`), as a
    /// metaclass would.
    pub fn class_made(&mut self, class: Rc<Class>) -> Result<Obj> {
        let native = class.bases.iter().find_map(|b| b.native());
        if let Some(n) = native {
            if let Some(made) = n.subclass_created(self, &class) {
                return made;
            }
        }
        Ok(Obj::Class(class))
    }

    /// Calls the nearest base's `__init_subclass__` for a new class, with
    /// the class statement's keywords.
    pub fn init_subclass(&mut self, class: &Rc<Class>, kw: Vec<(String, Obj)>) -> Result<()> {
        let hook = class
            .bases
            .iter()
            .find_map(|b| b.lookup("__init_subclass__"));
        match hook {
            Some(f) => {
                let f = match &f {
                    Obj::Lib(o) => o
                        .downcast::<ClassMethod>()
                        .map(|m| m.0.clone())
                        .unwrap_or(f.clone()),
                    _ => f,
                };
                let mut args = Args::new(vec![Obj::Class(class.clone())]);
                args.kw = kw;
                self.call(&f, args)?;
                Ok(())
            }
            // `object.__init_subclass__` takes no keywords.
            None if !kw.is_empty() => bail!(
                TypeError,
                "{}.__init_subclass__() takes no keyword arguments",
                class.name
            ),
            None => Ok(()),
        }
    }
}

/// The builtins `property`, `classmethod`, `staticmethod` and `super`.
pub fn install(interp: &mut Interp) {
    let b = &mut interp.builtins;
    b.insert(
        "property".into(),
        Obj::native("property", |_, a| {
            let fget = a.req(Some(0), "fget", "property")?;
            let fset = a.opt(Some(1), "fset");
            Ok(Obj::lib(Property { fget, fset }))
        }),
    );
    b.insert(
        "classmethod".into(),
        Obj::native("classmethod", |_, a| {
            Ok(Obj::lib(ClassMethod(a.req(
                Some(0),
                "function",
                "classmethod",
            )?)))
        }),
    );
    b.insert(
        "staticmethod".into(),
        Obj::native("staticmethod", |_, a| {
            Ok(Obj::lib(StaticMethod(a.req(
                Some(0),
                "function",
                "staticmethod",
            )?)))
        }),
    );
    b.insert(
        "super".into(),
        Obj::native("super", |i, a| match a.pos.len() {
            0 => i.zero_arg_super(),
            2 => i.explicit_super(&a.pos[0], a.pos[1].clone()),
            n => Err(err!(
                TypeError,
                "super() takes 0 or 2 arguments ({n} given)"
            )),
        }),
    );
}
