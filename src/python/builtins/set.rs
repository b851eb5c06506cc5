//! The methods and operators of `set` and `frozenset`.

use rustpython_parser::ast::{CmpOp, Operator};

use crate::bail;
use crate::error::Result;

use super::super::ops::iterate;
use super::super::set::Set;
use super::super::value::Obj;
use super::bound;

/// `a | b`, `a & b`, `a - b`, `a ^ b` of two sets (None for other
/// operators). The result is a frozenset when `a` is one, as in Python.
pub fn set_binop(op: &Operator, a: &Set, b: &Set) -> Result<Option<Obj>> {
    let mut out = Set::empty(a.frozen);
    match op {
        Operator::BitOr => {
            out.merge(a)?;
            out.merge(b)?;
        }
        Operator::BitAnd => {
            // CPython walks the smaller set and keeps what the larger holds.
            let (small, large) = if b.len() < a.len() { (b, a) } else { (a, b) };
            for x in small.items() {
                if large.contains(&x) {
                    out.add(x)?;
                }
            }
        }
        Operator::Sub => {
            for x in a.items() {
                if !b.contains(&x) {
                    out.add(x)?;
                }
            }
        }
        Operator::BitXor => {
            out.merge(a)?;
            for x in b.items() {
                if !out.discard(&x) {
                    out.add(x)?;
                }
            }
        }
        _ => return Ok(None),
    }
    Ok(Some(Obj::set(out)))
}

/// `a < b`, `a <= b`, `a > b`, `a >= b` of sets: subset and superset tests.
pub fn set_compare(op: &CmpOp, a: &Set, b: &Set) -> Option<bool> {
    let subset = |x: &Set, y: &Set| x.items().iter().all(|k| y.contains(k));
    Some(match op {
        CmpOp::LtE => subset(a, b),
        CmpOp::Lt => a.len() < b.len() && subset(a, b),
        CmpOp::GtE => subset(b, a),
        CmpOp::Gt => b.len() < a.len() && subset(b, a),
        _ => return None,
    })
}

fn other_set(o: &Obj) -> Result<Set> {
    match o {
        Obj::Set(s) => Ok(s.borrow().clone()),
        other => Set::from_items(iterate(other)?),
    }
}

fn operator_method(op: Operator) -> impl Fn(&mut super::Interp, &Obj, super::Args) -> Result<Obj> {
    move |_, r, a| {
        let Obj::Set(me) = r else {
            return Ok(Obj::None);
        };
        let mut acc = me.borrow().clone();
        for o in &a.pos {
            if let Some(Obj::Set(next)) = set_binop(&op, &acc, &other_set(o)?)? {
                acc = next.borrow().clone();
            }
        }
        Ok(Obj::set(acc))
    }
}

/// The `set` method `name`, bound to `recv`.
pub fn method(recv: &Obj, name: &str) -> Option<Obj> {
    let Obj::Set(s) = recv else { return None };
    let frozen = s.borrow().frozen;
    Some(match name {
        "union" => bound(recv, name, operator_method(Operator::BitOr)),
        "intersection" => bound(recv, name, operator_method(Operator::BitAnd)),
        "difference" => bound(recv, name, operator_method(Operator::Sub)),
        "symmetric_difference" => bound(recv, name, operator_method(Operator::BitXor)),
        "issubset" | "issuperset" | "isdisjoint" => {
            let which = name.to_string();
            bound(recv, name, move |_, r, a| {
                let (Obj::Set(me), Some(o)) = (r, a.pos.first()) else {
                    bail!(TypeError, "{which}() takes exactly one argument");
                };
                let other = other_set(o)?;
                let me = me.borrow();
                Ok(Obj::Bool(match which.as_str() {
                    "issubset" => me.items().iter().all(|k| other.contains(k)),
                    "issuperset" => other.items().iter().all(|k| me.contains(k)),
                    _ => !me.items().iter().any(|k| other.contains(k)),
                }))
            })
        }
        "copy" => bound(recv, name, |_, r, _| match r {
            Obj::Set(s) => {
                let s = s.borrow();
                let mut copy = Set::empty(s.frozen);
                copy.merge(&s)?;
                Ok(Obj::set(copy))
            }
            _ => Ok(Obj::None),
        }),
        _ if frozen => return None,
        "add" => bound(recv, name, |_, r, a| {
            if let (Obj::Set(s), Some(x)) = (r, a.pos.first()) {
                s.borrow_mut().add(x.clone())?;
            }
            Ok(Obj::None)
        }),
        "update" => bound(recv, name, |i, r, a| {
            if let Obj::Set(s) = r {
                for o in &a.pos {
                    for x in i.iterate(o)? {
                        s.borrow_mut().add(x)?;
                    }
                }
            }
            Ok(Obj::None)
        }),
        "discard" | "remove" => {
            let strict = name == "remove";
            bound(recv, name, move |i, r, a| {
                if let (Obj::Set(s), Some(x)) = (r, a.pos.first()) {
                    if !s.borrow_mut().discard(x) && strict {
                        return Err(i.key_error(x));
                    }
                }
                Ok(Obj::None)
            })
        }
        "pop" => bound(recv, name, |_, r, _| match r {
            Obj::Set(s) => s
                .borrow_mut()
                .pop()
                .ok_or_else(|| crate::err!(KeyError, "'pop from an empty set'")),
            _ => Ok(Obj::None),
        }),
        "clear" => bound(recv, name, |_, r, _| {
            if let Obj::Set(s) = r {
                let frozen = s.borrow().frozen;
                *s.borrow_mut() = Set::empty(frozen);
            }
            Ok(Obj::None)
        }),
        _ => return None,
    })
}
