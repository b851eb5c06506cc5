//! `dict.keys()`, `dict.values()` and `dict.items()`: live views of a dict.
//!
//! A view holds the dict itself, so it sees later insertions and deletions
//! (`k = d.keys(); d["c"] = 3; len(k)` is 3), prints as CPython does
//! (`dict_keys(['a', 'b'])`), and the keys and items views are set-like:
//! `&`, `|`, `-` and `^` with any iterable give a set, and `==` compares
//! them with sets as sets.

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_parser::ast::Operator;

use crate::error::Result;

use super::super::format::repr_of;
use super::super::interp::Interp;
use super::super::object::Object;
use super::super::set::Set;
use super::super::value::{Dict, Obj};
use super::set::set_binop;

/// Which view of the dict.
#[derive(Clone, Copy, PartialEq)]
pub enum View {
    Keys,
    Values,
    Items,
}

/// A live view of a dict.
pub struct DictView {
    dict: Rc<RefCell<Dict>>,
    view: View,
}

/// The view `view` of `dict`.
pub fn view(dict: &Rc<RefCell<Dict>>, view: View) -> Obj {
    Obj::lib(DictView {
        dict: dict.clone(),
        view,
    })
}

impl DictView {
    fn current(&self) -> Vec<Obj> {
        let d = self.dict.borrow();
        d.items
            .iter()
            .map(|(k, v)| match self.view {
                View::Keys => k.clone(),
                View::Values => v.clone(),
                View::Items => Obj::tuple(vec![k.clone(), v.clone()]),
            })
            .collect()
    }

    /// The view as a set, for the set-like views.
    fn as_set(&self) -> Option<Result<Set>> {
        (self.view != View::Values).then(|| Set::from_items(self.current()))
    }
}

/// The items of `o` as a set: a set itself, a set-like view, or any iterable.
fn set_of(interp: &mut Interp, o: &Obj) -> Result<Set> {
    match o {
        Obj::Set(s) => Set::from_items(s.borrow().items()),
        _ => match o.downcast::<DictView>().and_then(|v| v.as_set()) {
            Some(s) => s,
            None => Set::from_items(interp.iterate(o)?),
        },
    }
}

impl Object for DictView {
    fn type_name(&self) -> String {
        match self.view {
            View::Keys => "dict_keys",
            View::Values => "dict_values",
            View::Items => "dict_items",
        }
        .into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!(
            "{}({})",
            self.type_name(),
            repr_of(&Obj::list(self.current()))
        ))
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(Ok(self.current()))
    }

    fn binop(
        &self,
        interp: &mut Interp,
        _: &Obj,
        op: &Operator,
        other: &Obj,
        left: bool,
        _: bool,
    ) -> Option<Result<Obj>> {
        if !matches!(
            op,
            Operator::BitAnd | Operator::BitOr | Operator::Sub | Operator::BitXor
        ) {
            return None;
        }
        let mine = self.as_set()?;
        Some((|| {
            let (mine, theirs) = (mine?, set_of(interp, other)?);
            let (a, b) = if left { (mine, theirs) } else { (theirs, mine) };
            let mut a = a;
            a.frozen = false;
            Ok(set_binop(op, &a, &b)?.unwrap_or(Obj::None))
        })())
    }

    fn eq(&self, this: &Obj, other: &Obj) -> Option<bool> {
        let Some(Ok(mine)) = self.as_set() else {
            // A values view has no set semantics: `==` is identity.
            return Some(matches!((this, other), (Obj::Lib(a), Obj::Lib(b)) if Rc::ptr_eq(a, b)));
        };
        let theirs = match other {
            Obj::Set(s) => Set::from_items(s.borrow().items()).ok(),
            _ => other.downcast::<DictView>().and_then(|v| v.as_set()?.ok()),
        }?;
        Some(mine.len() == theirs.len() && mine.items().iter().all(|k| theirs.contains(k)))
    }
}
