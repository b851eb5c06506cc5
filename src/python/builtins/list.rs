//! The methods of `list` and `tuple`.

use crate::{bail, err};

use super::super::format::repr_of;
use super::super::interp::Interp;
use super::super::ops::{iterate, py_eq};
use super::super::value::{Args, Obj};
use super::{bound, sort_items, to_int};
use crate::error::Result;

/// The `list` method `name`, bound to `recv`.
pub fn method(recv: &Obj, name: &str) -> Option<Obj> {
    Some(match (recv, name) {
        (Obj::List(_), "append") => bound(recv, name, |_, r, a| {
            if let Obj::List(l) = r {
                l.borrow_mut().push(a.req(Some(0), "object", "append")?);
            }
            Ok(Obj::None)
        }),
        (Obj::List(_), "extend") => bound(recv, name, |i, r, a| {
            let items = i.iterate(&a.req(Some(0), "iterable", "extend")?)?;
            if let Obj::List(l) = r {
                l.borrow_mut().extend(items);
            }
            Ok(Obj::None)
        }),
        (Obj::List(_), "insert") => bound(recv, name, insert),
        (Obj::List(_), "pop") => bound(recv, name, pop),
        (Obj::List(_), "reverse") => bound(recv, name, |_, r, _| {
            if let Obj::List(l) = r {
                l.borrow_mut().reverse();
            }
            Ok(Obj::None)
        }),
        (Obj::List(_), "sort") => bound(recv, name, |i, r, a| {
            if let Obj::List(l) = r {
                let mut items = l.borrow().clone();
                sort_items(i, &mut items, a.get(None, "key"), a.get(None, "reverse"))?;
                *l.borrow_mut() = items;
            }
            Ok(Obj::None)
        }),
        (Obj::List(_) | Obj::Tuple(_), "index") => bound(recv, name, |_, r, a| {
            let x = a.req(Some(0), "value", "index")?;
            iterate(r)?
                .iter()
                .position(|y| py_eq(y, &x))
                .map(|p| Obj::Int(p as i64))
                .ok_or_else(|| err!(ValueError, "{} is not in list", repr_of(&x)))
        }),
        (Obj::List(_) | Obj::Tuple(_), "count") => bound(recv, name, |_, r, a| {
            let x = a.req(Some(0), "value", "count")?;
            Ok(Obj::Int(
                iterate(r)?.iter().filter(|y| py_eq(y, &x)).count() as i64,
            ))
        }),
        (Obj::List(_), "copy") => bound(recv, name, |_, r, _| Ok(Obj::list(iterate(r)?))),
        (Obj::List(_), "clear") => bound(recv, name, |_, r, _| {
            if let Obj::List(l) = r {
                // Dropped after the borrow ends: an element's cleanup may
                // look at the list.
                let old = std::mem::take(&mut *l.borrow_mut());
                drop(old);
            }
            Ok(Obj::None)
        }),
        (Obj::List(_), "remove") => bound(recv, name, |_, r, a| {
            remove(r, &a.req(Some(0), "value", "remove")?)
        }),
        _ => return None,
    })
}

/// `list.insert(i, x)`: a negative index counts from the end; indices past
/// either end insert there.
fn insert(_: &mut Interp, list: &Obj, a: Args) -> Result<Obj> {
    let i = to_int(&a.req(Some(0), "index", "insert")?)?;
    let v = a.req(Some(1), "object", "insert")?;
    if let Obj::List(l) = list {
        let n = l.borrow().len() as i64;
        let i = if i < 0 { (i + n).max(0) } else { i.min(n) };
        l.borrow_mut().insert(i as usize, v);
    }
    Ok(Obj::None)
}

/// `list.pop(i=-1)`, with CPython's IndexErrors.
fn pop(_: &mut Interp, list: &Obj, a: Args) -> Result<Obj> {
    let Obj::List(l) = list else {
        return Ok(Obj::None);
    };
    let n = l.borrow().len() as i64;
    if n == 0 {
        bail!(IndexError, "pop from empty list");
    }
    let i = a
        .get(Some(0), "index")
        .map(|x| to_int(&x))
        .transpose()?
        .unwrap_or(-1);
    let j = if i < 0 { i + n } else { i };
    if j < 0 || j >= n {
        bail!(IndexError, "pop index out of range");
    }
    Ok(l.borrow_mut().remove(j as usize))
}

/// `list.remove(x)`: drops the first element equal to `x`.
fn remove(list: &Obj, x: &Obj) -> Result<Obj> {
    let Obj::List(l) = list else {
        return Ok(Obj::None);
    };
    let at = l.borrow().iter().position(|v| py_eq(v, x));
    match at {
        Some(i) => {
            l.borrow_mut().remove(i);
            Ok(Obj::None)
        }
        None => Err(err!(ValueError, "list.remove(x): x not in list")),
    }
}
