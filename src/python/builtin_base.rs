//! Classes that extend `dict` or `list` (`class Config(dict)`).
//!
//! Each instance carries a value of the builtin type ([`Instance::base`]),
//! made empty when the instance is made. The class's own attributes come
//! first, as they precede the builtin in Python's method resolution order;
//! where the class defines nothing, the builtin's methods and operators act
//! on that value: `d.keys()`, `d['k']`, `len(d)`, iteration, `==`, `repr`.
//! Operators reach it through [`Obj::plain`] in the fallbacks of `dunder`;
//! attributes through [`attr`], from `getattr` and `super()`.
//!
//! The builtin's `__init__` fills the value as `dict(...)` or `list(...)`
//! would: it runs when the class has no `__init__` of its own, or when one
//! calls `super().__init__(...)`.

use crate::bail;
use crate::error::Result;

use super::builtins;
use super::interp::Interp;
use super::value::{Args, Instance, Obj};

/// `this.name` from the builtin type `this` extends, if it has one of
/// that name: `__init__`, a special method, or a plain method bound to the
/// instance's value.
pub fn attr(this: &Obj, name: &str) -> Option<Obj> {
    let Obj::Instance(i) = this else { return None };
    let (t, base) = (i.class.builtin_base()?, i.base.as_ref()?);
    if name == "__init__" {
        let this = this.clone();
        return Some(Obj::native(format!("{t}.__init__"), move |interp, a| {
            init(interp, &this, a).map(|_| Obj::None)
        }));
    }
    if name.starts_with("__") {
        let f = builtins::unbound::unbound(t, name)?;
        return Some(Obj::Method(std::rc::Rc::new((this.clone(), f))));
    }
    builtins::method(base, name)
}

/// The builtin's `__init__`: replaces the instance's value by what
/// `dict(*args, **kwargs)` or `list(*args)` makes of the arguments.
pub fn init(interp: &mut Interp, this: &Obj, args: Args) -> Result<()> {
    let Obj::Instance(i) = this else {
        return Ok(());
    };
    let Some(t) = i.class.builtin_base() else {
        return Ok(());
    };
    if args.pos.len() > 1 {
        bail!(
            TypeError,
            "{t} expected at most 1 argument, got {}",
            args.pos.len()
        );
    }
    if t == "list" && !args.kw.is_empty() {
        bail!(TypeError, "list() takes no keyword arguments");
    }
    let made = builtins::call_type(interp, t, args)?;
    fill(i, made);
    Ok(())
}

/// Moves the items of a fresh builtin value into the instance's own.
fn fill(i: &Instance, made: Obj) {
    match (&i.base, made) {
        (Some(Obj::Dict(mine)), Obj::Dict(new)) => {
            let new = std::mem::take(&mut *new.borrow_mut());
            *mine.borrow_mut() = new;
        }
        (Some(Obj::List(mine)), Obj::List(new)) => {
            let new = std::mem::take(&mut *new.borrow_mut());
            *mine.borrow_mut() = new;
        }
        _ => {}
    }
}
