//! Iterators: objects that `next(x)` advances one item at a time.
//!
//! Most of the interpreter materialises an iterable into a `Vec` before
//! using it, which is quick and right for anything finite. An *iterator*
//! (a generator, `iter(list)`, `itertools.count()`, an instance whose class
//! defines `__next__`, or the lazy `map`/`filter`/`zip`/`enumerate` built
//! over one of these) may be endless or may have side effects per item, so
//! the places where Python draws items one by one (`for`, `next`, `zip`,
//! `itertools.islice`) draw them one by one here too, through
//! [`Interp::next_item`]. A library type becomes an iterator by answering
//! [`Object::next`].
//!
//! `map`, `filter`, `zip` and `enumerate` build a lazy object when one of
//! their arguments is an iterator, and a list otherwise (what the list gives
//! is the same items as CPython's iterator, in the same order; only the
//! repr of the unconsumed object differs).

use std::cell::{Cell, RefCell};

use crate::error::Result;
use crate::{bail, err};

use super::interp::Interp;
use super::object::Object;
use super::value::{Args, Obj};

/// Items one materialised iterable may hold before it is refused.
const MAX_ITEMS: usize = 10_000_000;

impl Interp {
    /// True when `x` is an iterator (`next(x)` advances it).
    pub fn is_iterator(&self, x: &Obj) -> bool {
        match x {
            Obj::Lib(o) => o.is_iterator(),
            Obj::Instance(i) => {
                i.class.lookup("__next__").is_some()
                    || i.class.native().is_some_and(|n| n.is_iterator())
            }
            _ => false,
        }
    }

    /// `next(it)`: the next item, or None once the iterator is exhausted.
    pub fn next_item(&mut self, it: &Obj) -> Result<Option<Obj>> {
        if let Some(b) = it.behaviour() {
            if let Some(r) = b.next(self, it) {
                return r;
            }
        }
        if let Obj::Instance(inst) = it {
            if let Some(f) = inst.class.lookup("__next__") {
                return match self.call(&f, Args::new(vec![it.clone()])) {
                    Ok(v) => Ok(Some(v)),
                    Err(e) if e.type_name() == "StopIteration" => {
                        self.forget_raised(&e);
                        Ok(None)
                    }
                    Err(e) => Err(e),
                };
            }
        }
        bail!(TypeError, "'{}' object is not an iterator", it.type_name())
    }

    /// `iter(x)`: `x` itself when it is an iterator, what its `__iter__`
    /// returns, or an iterator over its items.
    pub fn iter_of(&mut self, x: &Obj) -> Result<Obj> {
        if self.is_iterator(x) {
            return Ok(x.clone());
        }
        if let Obj::Instance(inst) = x {
            if let Some(f) = inst.class.lookup("__iter__") {
                return self.call(&f, Args::new(vec![x.clone()]));
            }
        }
        Ok(list_iterator(self.iterate(x)?))
    }

    /// What a `for` loop walks: an iterator to draw from one item at a time
    /// (`Ok`), or the items themselves (`Err`) for a finite collection.
    pub fn for_source(&mut self, x: &Obj) -> Result<std::result::Result<Obj, Vec<Obj>>> {
        if self.is_iterator(x) {
            return Ok(Ok(x.clone()));
        }
        if let Obj::Instance(inst) = x {
            if let Some(f) = inst.class.lookup("__iter__") {
                let it = self.call(&f, Args::new(vec![x.clone()]))?;
                if self.is_iterator(&it) {
                    return Ok(Ok(it));
                }
                return Ok(Err(self.iterate(&it)?));
            }
        }
        Ok(Err(self.iterate(x)?))
    }

    /// Walks `x` one item at a time until `stop` says so, as `any` and `all`
    /// do (an endless iterator is fine when an item decides); true when it
    /// stopped early.
    pub fn walk_until(
        &mut self,
        x: &Obj,
        stop: &mut dyn FnMut(&mut Interp, Obj) -> Result<bool>,
    ) -> Result<bool> {
        match self.for_source(x)? {
            Ok(it) => {
                while let Some(item) = self.next_item(&it)? {
                    self.tick()?;
                    if stop(self, item)? {
                        return Ok(true);
                    }
                }
            }
            Err(items) => {
                for item in items {
                    if stop(self, item)? {
                        return Ok(true);
                    }
                }
            }
        }
        Ok(false)
    }

    /// Every remaining item of an iterator, refused past [`MAX_ITEMS`].
    pub fn drain(&mut self, it: &Obj) -> Result<Vec<Obj>> {
        let mut out = vec![];
        while let Some(x) = self.next_item(it)? {
            out.push(x);
            if out.len() > MAX_ITEMS {
                bail!(
                    MemoryError,
                    "an iterator gave over {MAX_ITEMS} items, more than shardlab holds in one list"
                );
            }
            self.tick()?;
        }
        Ok(out)
    }

    /// The lazy `map`/`filter`/`zip`/`enumerate` over `sources`, or None when
    /// none of them is an iterator (the caller then builds the list).
    pub fn lazy(&mut self, kind: Lazy, sources: &[Obj]) -> Result<Option<Obj>> {
        if !sources.iter().any(|s| self.is_iterator(s)) {
            return Ok(None);
        }
        let sources = sources
            .iter()
            .map(|s| self.iter_of(s))
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(Obj::lib(LazyIter {
            kind,
            sources,
            done: Cell::new(false),
        })))
    }
}

/// What a lazy iterator does with the items it draws.
pub enum Lazy {
    /// `map(func, *iterables)`.
    Map(Obj),
    /// `filter(func_or_None, iterable)`.
    Filter(Obj),
    /// `zip(*iterables)`.
    Zip,
    /// `enumerate(iterable, start)`: the next index.
    Enumerate(Cell<i64>),
}

/// A lazy `map`, `filter`, `zip` or `enumerate` object.
struct LazyIter {
    kind: Lazy,
    sources: Vec<Obj>,
    done: Cell<bool>,
}

impl LazyIter {
    /// One item from each source in turn, or None once any is exhausted
    /// (the earlier sources' items drawn this round are lost, as in CPython).
    fn draw_all(&self, i: &mut Interp) -> Result<Option<Vec<Obj>>> {
        let mut row = Vec::with_capacity(self.sources.len());
        for s in &self.sources {
            match i.next_item(s)? {
                Some(x) => row.push(x),
                None => return Ok(None),
            }
        }
        Ok(Some(row))
    }

    fn advance(&self, i: &mut Interp) -> Result<Option<Obj>> {
        if self.done.get() {
            return Ok(None);
        }
        let got = match &self.kind {
            Lazy::Map(f) => match self.draw_all(i)? {
                Some(row) => Some(i.call(f, Args::new(row))?),
                None => None,
            },
            Lazy::Zip => self.draw_all(i)?.map(Obj::tuple),
            Lazy::Enumerate(next) => match self.draw_all(i)?.and_then(|r| r.into_iter().next()) {
                Some(x) => {
                    let k = next.get();
                    next.set(k + 1);
                    Some(Obj::tuple(vec![Obj::Int(k), x]))
                }
                None => None,
            },
            Lazy::Filter(f) => self.filtered(i, f)?,
        };
        if got.is_none() {
            self.done.set(true);
        }
        Ok(got)
    }

    fn filtered(&self, i: &mut Interp, f: &Obj) -> Result<Option<Obj>> {
        while let Some(x) = self.draw_all(i)?.and_then(|r| r.into_iter().next()) {
            let keep = match f {
                Obj::None => i.truth(&x, "filter()")?,
                f => {
                    let r = i.call(f, Args::new(vec![x.clone()]))?;
                    i.truth(&r, "filter()")?
                }
            };
            if keep {
                return Ok(Some(x));
            }
            i.tick()?;
        }
        Ok(None)
    }
}

impl Object for LazyIter {
    fn type_name(&self) -> String {
        match self.kind {
            Lazy::Map(_) => "map",
            Lazy::Filter(_) => "filter",
            Lazy::Zip => "zip",
            Lazy::Enumerate(_) => "enumerate",
        }
        .into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("<{} object>", self.type_name()))
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(next_method(this, name))
    }

    fn next(&self, i: &mut Interp, _: &Obj) -> Option<Result<Option<Obj>>> {
        Some(self.advance(i))
    }

    fn is_iterator(&self) -> bool {
        true
    }
}

/// `it.__next__` (and `it.__iter__`) for an iterator object: Python code
/// may call them directly.
pub fn next_method(this: &Obj, name: &str) -> Option<Obj> {
    let me = this.clone();
    match name {
        "__next__" => Some(Obj::native("__next__", move |i, _| {
            match i.next_item(&me)? {
                Some(x) => Ok(x),
                None => Err(i.stop_iteration()),
            }
        })),
        "__iter__" => Some(Obj::native("__iter__", move |_, _| Ok(me.clone()))),
        _ => None,
    }
}

/// An iterator over materialised items (what `iter(list)` gives).
pub struct ListIterator {
    items: Vec<Obj>,
    next: RefCell<usize>,
}

impl Object for ListIterator {
    fn type_name(&self) -> String {
        "list_iterator".into()
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(next_method(this, name))
    }

    fn next(&self, _: &mut Interp, _: &Obj) -> Option<Result<Option<Obj>>> {
        let k = *self.next.borrow();
        let item = self.items.get(k).cloned();
        if item.is_some() {
            *self.next.borrow_mut() = k + 1;
        }
        Some(Ok(item))
    }

    fn is_iterator(&self) -> bool {
        true
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        let k = *self.next.borrow();
        *self.next.borrow_mut() = self.items.len();
        Some(Ok(self.items[k.min(self.items.len())..].to_vec()))
    }
}

/// An iterator over `items`.
pub fn list_iterator(items: Vec<Obj>) -> Obj {
    Obj::lib(ListIterator {
        items,
        next: RefCell::new(0),
    })
}

/// `next(it[, default])` and `iter(x)`.
pub fn install(interp: &mut Interp) {
    interp.builtins.insert(
        "next".into(),
        Obj::native("next", |i, a| {
            let it = a.req(Some(0), "iterator", "next")?;
            if !i.is_iterator(&it) {
                return Err(err!(
                    TypeError,
                    "'{}' object is not an iterator",
                    it.type_name()
                ));
            }
            match (i.next_item(&it)?, a.get(Some(1), "default")) {
                (Some(v), _) => Ok(v),
                (None, Some(d)) => Ok(d),
                (None, None) => Err(i.stop_iteration()),
            }
        }),
    );
    interp.builtins.insert(
        "iter".into(),
        Obj::native("iter", |i, a| {
            i.iter_of(&a.req(Some(0), "object", "iter")?)
        }),
    );
}
