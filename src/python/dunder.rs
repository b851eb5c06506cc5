//! The special methods of a program's classes: what `repr`, `str`, truth,
//! `len`, iteration, operators, comparisons, `in`, item assignment and
//! `with` do when an operand is an instance that defines `__repr__`,
//! `__add__`, `__eq__`, `__iter__`, `__enter__`, ...
//!
//! Each `Interp` method here looks for the special method first and falls
//! back to the plain object rules of `ops` and `format`, so values without
//! special methods cost one pattern match.

use std::rc::Rc;

use rustpython_parser::ast::{CmpOp, Operator, UnaryOp};

use crate::bail;
use crate::error::{ErrorKind, Result};

use super::format;
use super::interp::Interp;
use super::ops;
use super::value::{Args, Obj};

/// The special method `name` of `o`'s class, when `o` is an instance that
/// has one.
fn special(o: &Obj, name: &str) -> Option<Obj> {
    match o {
        Obj::Instance(i) => i.class.lookup(name),
        _ => None,
    }
}

fn binop_names(op: &Operator) -> (&'static str, &'static str, &'static str) {
    match op {
        Operator::Add => ("__add__", "__radd__", "__iadd__"),
        Operator::Sub => ("__sub__", "__rsub__", "__isub__"),
        Operator::Mult => ("__mul__", "__rmul__", "__imul__"),
        Operator::MatMult => ("__matmul__", "__rmatmul__", "__imatmul__"),
        Operator::Div => ("__truediv__", "__rtruediv__", "__itruediv__"),
        Operator::FloorDiv => ("__floordiv__", "__rfloordiv__", "__ifloordiv__"),
        Operator::Mod => ("__mod__", "__rmod__", "__imod__"),
        Operator::Pow => ("__pow__", "__rpow__", "__ipow__"),
        Operator::LShift => ("__lshift__", "__rlshift__", "__ilshift__"),
        Operator::RShift => ("__rshift__", "__rrshift__", "__irshift__"),
        Operator::BitOr => ("__or__", "__ror__", "__ior__"),
        Operator::BitXor => ("__xor__", "__rxor__", "__ixor__"),
        Operator::BitAnd => ("__and__", "__rand__", "__iand__"),
    }
}

fn is_not_implemented(o: &Obj) -> bool {
    matches!(o, Obj::Type("NotImplemented"))
}

impl Interp {
    fn call_special(&mut self, f: &Obj, this: &Obj, rest: Vec<Obj>) -> Result<Obj> {
        let mut pos = vec![this.clone()];
        pos.extend(rest);
        self.call(f, Args::new(pos))
    }

    /// `this.name(other)` when `this` has that special method and it does
    /// not return `NotImplemented`.
    fn try_special(&mut self, this: &Obj, name: &str, other: &Obj) -> Result<Option<Obj>> {
        let Some(f) = special(this, name) else {
            return Ok(None);
        };
        let r = self.call_special(&f, this, vec![other.clone()])?;
        Ok((!is_not_implemented(&r)).then_some(r))
    }

    /// `repr(o)`, calling `__repr__` of instances, inside containers too.
    pub fn repr(&mut self, o: &Obj) -> Result<String> {
        check_live(o)?;
        if let Some(f) = special(o, "__repr__") {
            let r = self.call_special(&f, o, vec![])?;
            return match r {
                Obj::Str(s) => Ok(s.to_string()),
                other => bail!(
                    TypeError,
                    "__repr__ returned non-string (type {})",
                    other.type_name()
                ),
            };
        }
        // Containers count against Python's recursion limit as CPython's
        // repr counts them; anything else only against the native one.
        let (_repr, _native) = match o.plain() {
            Obj::List(_) | Obj::Tuple(_) | Obj::Dict(_) => {
                (Some(super::depth::repr_level()?), None)
            }
            _ => (None, Some(super::depth::enter()?)),
        };
        match o.plain() {
            Obj::List(l) => format::repr_once(Rc::as_ptr(l) as *const u8 as usize, "[...]", || {
                let items = l.borrow().clone();
                Ok(format!("[{}]", self.join_reprs(&items)?))
            }),
            Obj::Tuple(t) if t.len() == 1 => Ok(format!("({},)", self.repr(&t[0])?)),
            Obj::Tuple(t) => Ok(format!("({})", self.join_reprs(t)?)),
            Obj::Dict(d) if d.borrow().default_factory.is_none() => {
                format::repr_once(Rc::as_ptr(d) as *const u8 as usize, "{...}", || {
                    let (items, ordered) = (d.borrow().items.clone(), d.borrow().ordered);
                    let mut parts = vec![];
                    for (k, v) in &items {
                        let (k, v) = (self.repr(k)?, self.repr(v)?);
                        parts.push(match ordered {
                            true => format!("({k}, {v})"),
                            false => format!("{k}: {v}"),
                        });
                    }
                    // Python 3.11 spells an OrderedDict as a call on its pairs.
                    Ok(match (ordered, parts.is_empty()) {
                        (true, true) => "OrderedDict()".into(),
                        (true, false) => format!("OrderedDict([{}])", parts.join(", ")),
                        _ => format!("{{{}}}", parts.join(", ")),
                    })
                })
            }
            _ => Ok(format::repr_of(o)),
        }
    }

    fn join_reprs(&mut self, items: &[Obj]) -> Result<String> {
        let mut parts = Vec::with_capacity(items.len());
        for x in items {
            parts.push(self.repr(x)?);
        }
        Ok(parts.join(", "))
    }

    /// `str(o)`, calling `__str__` (or `__repr__`) of instances.
    pub fn str(&mut self, o: &Obj) -> Result<String> {
        check_live(o)?;
        match o {
            Obj::Str(s) => Ok(s.to_string()),
            Obj::Instance(_) => match special(o, "__str__") {
                Some(f) => match self.call_special(&f, o, vec![])? {
                    Obj::Str(s) => Ok(s.to_string()),
                    other => bail!(
                        TypeError,
                        "__str__ returned non-string (type {})",
                        other.type_name()
                    ),
                },
                None if special(o, "__repr__").is_some() || !std::ptr::eq(o.plain(), o) => {
                    self.repr(o)
                }
                None => Ok(format::str_of(o)),
            },
            Obj::List(_) | Obj::Tuple(_) | Obj::Dict(_) => self.repr(o),
            _ => Ok(format::str_of(o)),
        }
    }

    /// `format(o, spec)`: instances without `__format__` format as `str`.
    pub fn format(&mut self, o: &Obj, spec: &str) -> Result<String> {
        check_live(o)?;
        if let Some(f) = special(o, "__format__") {
            return Ok(format::str_of(&self.call_special(
                &f,
                o,
                vec![Obj::str(spec)],
            )?));
        }
        match o {
            Obj::Instance(_) | Obj::List(_) | Obj::Tuple(_) | Obj::Dict(_) if spec.is_empty() => {
                self.str(o)
            }
            _ => format::format_value(o, spec),
        }
    }

    /// Python's truth value, through `__bool__` and `__len__`.
    pub fn truth(&mut self, o: &Obj, what: &str) -> Result<bool> {
        if let Some(f) = special(o, "__bool__") {
            let r = self.call_special(&f, o, vec![])?;
            return ops::truthy(&r, what);
        }
        if let Some(f) = special(o, "__len__") {
            let r = self.call_special(&f, o, vec![])?;
            return Ok(super::builtins::to_int(&r)? != 0);
        }
        ops::truthy(o.plain(), what)
    }

    /// `len(o)`, through `__len__`.
    pub fn len(&mut self, o: &Obj) -> Result<i64> {
        if let Some(f) = special(o, "__len__") {
            let r = self.call_special(&f, o, vec![])?;
            return super::builtins::to_int(&r);
        }
        super::builtins::len_of(o.plain())
    }

    /// The items of an iterable, through `__iter__` and `__next__`.
    pub fn iterate(&mut self, o: &Obj) -> Result<Vec<Obj>> {
        if self.is_iterator(o) && !matches!(o, Obj::Instance(_)) {
            return self.drain(o);
        }
        if let Some(f) = special(o, "__iter__") {
            let it = self.call_special(&f, o, vec![])?;
            if self.is_iterator(&it) {
                return self.drain(&it);
            }
            return self.iterate(&it);
        }
        if special(o, "__getitem__").is_some() && special(o, "__len__").is_some() {
            let n = self.len(o)?;
            let f = special(o, "__getitem__").map_or(Obj::None, |f| f);
            let mut out = vec![];
            for k in 0..n {
                out.push(self.call_special(&f, o, vec![Obj::Int(k)])?);
            }
            return Ok(out);
        }
        ops::iterate(o.plain())
    }

    /// A binary operator, through `__add__`/`__radd__`/`__iadd__` and
    /// friends.
    pub fn binop(&mut self, op: &Operator, a: &Obj, b: &Obj, inplace: bool) -> Result<Obj> {
        if matches!(a, Obj::Instance(_)) || matches!(b, Obj::Instance(_)) {
            let (fwd, rev, inp) = binop_names(op);
            if inplace {
                if let Some(r) = self.try_special(a, inp, b)? {
                    return Ok(r);
                }
            }
            if let Some(r) = self.try_special(a, fwd, b)? {
                return Ok(r);
            }
            if let Some(r) = self.try_special(b, rev, a)? {
                return Ok(r);
            }
        }
        let r = ops::binop(self, op, a.plain(), b.plain(), inplace)?;
        // `s += [4]` on a list subclass extends its value in place: the
        // result is still the instance.
        if inplace && !std::ptr::eq(a.plain(), a) && ops::is_same(&r, a.plain()) {
            return Ok(a.clone());
        }
        Ok(r)
    }

    /// A unary operator, through `__neg__`, `__pos__`, `__invert__`; `not`
    /// through the truth value.
    pub fn unary(&mut self, op: &UnaryOp, v: &Obj) -> Result<Obj> {
        let name = match op {
            UnaryOp::Not => return Ok(Obj::Bool(!self.truth(v, "a 'not' expression")?)),
            UnaryOp::USub => "__neg__",
            UnaryOp::UAdd => "__pos__",
            UnaryOp::Invert => "__invert__",
        };
        match special(v, name) {
            Some(f) => self.call_special(&f, v, vec![]),
            None => ops::unaryop(op, v),
        }
    }

    /// A comparison, through `__eq__`, `__lt__`, ... (reflected as Python
    /// reflects them) and `__contains__`.
    pub fn compare(&mut self, op: &CmpOp, a: &Obj, b: &Obj) -> Result<Obj> {
        let pair = match op {
            CmpOp::Eq => Some(("__eq__", "__eq__")),
            CmpOp::NotEq => Some(("__ne__", "__ne__")),
            CmpOp::Lt => Some(("__lt__", "__gt__")),
            CmpOp::LtE => Some(("__le__", "__ge__")),
            CmpOp::Gt => Some(("__gt__", "__lt__")),
            CmpOp::GtE => Some(("__ge__", "__le__")),
            CmpOp::In | CmpOp::NotIn => {
                if let Some(f) = special(b, "__contains__") {
                    let r = self.call_special(&f, b, vec![a.clone()])?;
                    let t = ops::truthy(&r, "__contains__")?;
                    return Ok(Obj::Bool(t == matches!(op, CmpOp::In)));
                }
                if matches!(b, Obj::Instance(_)) {
                    let items = self.iterate(b)?;
                    let mut found = false;
                    for x in &items {
                        let r = self.compare(&CmpOp::Eq, x, a)?;
                        if ops::truthy(&r, "in")? {
                            found = true;
                            break;
                        }
                    }
                    return Ok(Obj::Bool(found == matches!(op, CmpOp::In)));
                }
                None
            }
            CmpOp::Is | CmpOp::IsNot => None,
        };
        if let Some((fwd, rev)) = pair {
            if matches!(a, Obj::Instance(_)) || matches!(b, Obj::Instance(_)) {
                if let Some(r) = self.try_special(a, fwd, b)? {
                    return Ok(r);
                }
                if let Some(r) = self.try_special(b, rev, a)? {
                    return Ok(r);
                }
                if matches!(op, CmpOp::NotEq) && special(a, "__eq__").is_some() {
                    let r = self.compare(&CmpOp::Eq, a, b)?;
                    return Ok(Obj::Bool(!ops::truthy(&r, "==")?));
                }
            }
        }
        ops::compare(op, a.plain(), b.plain())
    }

    /// `container[key] = v`, through `__setitem__`.
    pub fn setitem(&mut self, container: &Obj, key: Obj, v: Obj) -> Result<()> {
        if let Some(f) = special(container, "__setitem__") {
            self.call_special(&f, container, vec![key, v])?;
            return Ok(());
        }
        ops::setitem(container.plain(), key, v)
    }

    /// `del container[key]`, through `__delitem__`.
    pub fn delitem(&mut self, container: &Obj, key: &Obj) -> Result<()> {
        if let Some(f) = special(container, "__delitem__") {
            self.call_special(&f, container, vec![key.clone()])?;
            return Ok(());
        }
        ops::delitem(container.plain(), key)
    }

    /// A library object's bound `__enter__` and `__exit__`, when it has both.
    fn bound_context(&mut self, cm: &Obj) -> Result<Option<(Obj, Obj)>> {
        let Obj::Lib(o) = cm else {
            return Ok(None);
        };
        let o = o.clone();
        let enter = o.getattr(self, cm, "__enter__")?;
        let exit = o.getattr(self, cm, "__exit__")?;
        Ok(enter.zip(exit))
    }

    /// `with cm as x: body`: `__enter__`, then `__exit__` with the
    /// exception (or three Nones); a true `__exit__` result swallows it.
    pub fn with_context(
        &mut self,
        cm: &Obj,
        body: &mut dyn FnMut(&mut Interp, Obj) -> Result<super::interp::Flow>,
    ) -> Result<super::interp::Flow> {
        // A class's methods take the instance; a library object's are bound.
        let (enter, exit, this) = match (special(cm, "__enter__"), special(cm, "__exit__")) {
            (Some(enter), Some(exit)) => (enter, exit, Some(cm)),
            _ => match self.bound_context(cm)? {
                Some((enter, exit)) => (enter, exit, None),
                // Library objects that are no context managers in JAX 0.10.2
                // but were in older versions (a `Mesh`) run the body as is.
                None => return body(self, cm.clone()),
            },
        };
        let call = |me: &mut Interp, f: &Obj, rest: Vec<Obj>| match this {
            Some(this) => me.call_special(f, this, rest),
            None => me.call(f, Args::new(rest)),
        };
        let value = call(self, &enter, vec![])?;
        match body(self, value) {
            Ok(flow) => {
                call(self, &exit, vec![Obj::None, Obj::None, Obj::None])?;
                Ok(flow)
            }
            Err(e) if e.kind == ErrorKind::Cancelled => Err(e),
            Err(e) => {
                let exc = self.exception_object(&e);
                let ty = match &exc {
                    Obj::Instance(i) => Obj::Class(i.class.clone()),
                    _ => Obj::None,
                };
                let r = call(self, &exit, vec![ty, exc, Obj::None])?;
                if ops::truthy(&r, "__exit__")? {
                    self.forget_raised(&e);
                    Ok(super::interp::Flow::Normal)
                } else {
                    Err(e)
                }
            }
        }
    }
}

/// Printing a deleted array reads its data: JAX's RuntimeError.
fn check_live(o: &Obj) -> Result<()> {
    match o {
        Obj::Array(crate::trace::Value::Concrete(a)) => crate::trace::deleted::check(a),
        _ => Ok(()),
    }
}
