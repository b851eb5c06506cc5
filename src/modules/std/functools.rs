//! The `functools` module: `partial`, `reduce`, `wraps`/`update_wrapper`,
//! `cache`/`lru_cache` (memoised on hashable arguments, with `cache_info`
//! and `cache_clear`) and `total_ordering`.

use std::cell::{Cell, RefCell};

use crate::error::Result;
use crate::python::dict::check_hashable;
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::iterate;
use crate::python::value::{Args, Dict, Obj};
use crate::{bail, err};

use super::super::Builder;
use super::record::Record;

/// The `functools` module.
pub fn module() -> Obj {
    let mut b = Builder::new("functools");
    b.func("partial", partial)
        .func("reduce", reduce)
        .func("cache", |_, a| {
            let f = a.req(Some(0), "user_function", "cache")?;
            Ok(Obj::lib(Cached::new(f, None)))
        })
        .func("lru_cache", lru_cache)
        .func("wraps", |_, a| {
            a.req(Some(0), "wrapped", "wraps")?;
            Ok(Obj::native("functools.wraps.<locals>.decorator", |_, a| {
                a.req(Some(0), "wrapper", "update_wrapper")
            }))
        })
        .func("update_wrapper", |_, a| {
            a.req(Some(1), "wrapped", "update_wrapper")?;
            a.req(Some(0), "wrapper", "update_wrapper")
        })
        .func("total_ordering", |_, a| {
            a.req(Some(0), "cls", "total_ordering")
        })
        .func("cached_property", |_, a| {
            let func = a.req(Some(0), "func", "cached_property")?;
            Ok(Obj::lib(crate::python::classes::CachedProperty { func }))
        });
    b.build()
}

/// `functools.partial(f, *args, **kwargs)`.
pub fn partial(_: &mut Interp, a: Args) -> Result<Obj> {
    let Some(f) = a.pos.first().cloned() else {
        bail!(TypeError, "partial() missing required argument: 'func'");
    };
    Ok(Obj::lib(Partial {
        func: f,
        args: a.pos[1..].to_vec(),
        keywords: a.kw.clone(),
    }))
}

/// A `functools.partial` object: calls `func` with the bound arguments
/// first (later keywords replacing bound ones), and prints as Python does.
struct Partial {
    func: Obj,
    args: Vec<Obj>,
    keywords: Vec<(String, Obj)>,
}

impl Object for Partial {
    fn type_name(&self) -> String {
        "functools.partial".into()
    }

    fn call(&self, interp: &mut Interp, _: &Obj, call: Args) -> Option<Result<Obj>> {
        let mut pos = self.args.clone();
        pos.extend(call.pos);
        let mut kw = self.keywords.clone();
        for (k, v) in call.kw {
            kw.retain(|(x, _)| *x != k);
            kw.push((k, v));
        }
        Some(interp.call(&self.func, Args::with(pos, kw)))
    }

    fn callable(&self) -> bool {
        true
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "func" => Some(self.func.clone()),
            "args" => Some(Obj::tuple(self.args.clone())),
            "keywords" => {
                let mut d = Dict::default();
                for (k, v) in &self.keywords {
                    d.set(Obj::str(k), v.clone());
                }
                Some(Obj::Dict(std::rc::Rc::new(RefCell::new(d))))
            }
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        // A built-in function shows as the Python function it stands for.
        let func = match &self.func {
            Obj::Native(n) => format!(
                "<function {} at {:#x}>",
                n.name.rsplit('.').next().unwrap_or(&n.name),
                std::rc::Rc::as_ptr(n) as usize
            ),
            other => repr_of(other),
        };
        let mut parts = vec![func];
        parts.extend(self.args.iter().map(repr_of));
        parts.extend(
            self.keywords
                .iter()
                .map(|(k, v)| format!("{k}={}", repr_of(v))),
        );
        Some(format!("functools.partial({})", parts.join(", ")))
    }
}

/// `functools.reduce(function, iterable[, initial])`.
pub fn reduce(i: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "function", "reduce")?;
    let items = iterate(&a.req(Some(1), "iterable", "reduce")?)?;
    fold(i, &f, items, a.get(Some(2), "initial"))
}

/// Folds `items` with the two-argument `f`, from `initial` or else the
/// first item (what `functools.reduce` and `jax.tree.reduce` do).
pub fn fold(i: &mut Interp, f: &Obj, items: Vec<Obj>, initial: Option<Obj>) -> Result<Obj> {
    let mut it = items.into_iter();
    let mut acc = match initial {
        Some(v) => v,
        None => it.next().ok_or_else(|| {
            err!(
                TypeError,
                "reduce() of empty iterable with no initial value"
            )
        })?,
    };
    for x in it {
        acc = i.call(f, Args::new(vec![acc, x]))?;
    }
    Ok(acc)
}

/// `lru_cache(f)`, `lru_cache(maxsize)` and `lru_cache(maxsize=..., typed=...)`.
fn lru_cache(_: &mut Interp, a: Args) -> Result<Obj> {
    let first = a.get(Some(0), "maxsize");
    let maxsize = match &first {
        None => Some(128),
        Some(Obj::None) => None,
        Some(Obj::Int(n)) => Some((*n).max(0) as usize),
        Some(f @ (Obj::Func(_) | Obj::Native(_) | Obj::Method(_) | Obj::Lib(_))) => {
            return Ok(Obj::lib(Cached::new(f.clone(), Some(128))));
        }
        Some(_) => bail!(
            TypeError,
            "Expected first argument to be an integer, a callable, or None"
        ),
    };
    Ok(Obj::native(
        "functools.lru_cache.<locals>.decorating_function",
        move |_, a| {
            let f = a.req(Some(0), "user_function", "lru_cache")?;
            Ok(Obj::lib(Cached::new(f, maxsize)))
        },
    ))
}

/// A function wrapped by `functools.cache` or `lru_cache`.
pub struct Cached {
    func: Obj,
    /// None for an unbounded cache.
    maxsize: Option<usize>,
    /// Results by argument key, least recently used first.
    memo: RefCell<Dict>,
    hits: Cell<i64>,
    misses: Cell<i64>,
}

impl Cached {
    fn new(func: Obj, maxsize: Option<usize>) -> Cached {
        Cached {
            func,
            maxsize,
            memo: RefCell::new(Dict::default()),
            hits: Cell::new(0),
            misses: Cell::new(0),
        }
    }

    /// The key of a call: the positional arguments, then a marker and the
    /// keyword arguments in order, as CPython's `_make_key`.
    fn key(args: &Args) -> Result<Obj> {
        let mut parts = args.pos.clone();
        if !args.kw.is_empty() {
            parts.push(Obj::str("<functools kwd_mark>"));
            for (k, v) in &args.kw {
                parts.push(Obj::str(k));
                parts.push(v.clone());
            }
        }
        let key = Obj::tuple(parts);
        check_hashable(&key)?;
        Ok(key)
    }

    fn call_through(&self, interp: &mut Interp, args: Args) -> Result<Obj> {
        let key = Self::key(&args)?;
        let found = self.memo.borrow().get(&key);
        if let Some(v) = found {
            self.hits.set(self.hits.get() + 1);
            if self.maxsize.is_some() {
                let mut memo = self.memo.borrow_mut();
                memo.remove(&key);
                memo.set(key, v.clone());
            }
            return Ok(v);
        }
        self.misses.set(self.misses.get() + 1);
        let v = interp.call(&self.func, args)?;
        if self.maxsize != Some(0) {
            let mut memo = self.memo.borrow_mut();
            memo.set(key, v.clone());
            if self.maxsize.is_some_and(|m| memo.len() > m) {
                let oldest = memo.items[0].0.clone();
                memo.remove(&oldest);
            }
        }
        Ok(v)
    }

    fn info(&self) -> Obj {
        let maxsize = match self.maxsize {
            Some(m) => Obj::Int(m as i64),
            None => Obj::None,
        };
        Obj::lib(Record::new(
            "CacheInfo",
            vec![
                ("hits", Obj::Int(self.hits.get())),
                ("misses", Obj::Int(self.misses.get())),
                ("maxsize", maxsize),
                ("currsize", Obj::Int(self.memo.borrow().len() as i64)),
            ],
        ))
    }
}

impl Object for Cached {
    fn type_name(&self) -> String {
        "functools._lru_cache_wrapper".into()
    }

    fn getattr(&self, interp: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let this = this.clone();
        Ok(match name {
            "cache_info" => Some(Obj::native("cache_info", move |_, _| {
                this.downcast::<Cached>()
                    .map(Cached::info)
                    .ok_or_else(|| err!(TypeError, "not a cached function"))
            })),
            "cache_clear" => Some(Obj::native("cache_clear", move |_, _| {
                if let Some(c) = this.downcast::<Cached>() {
                    c.memo.borrow_mut().clear();
                    c.hits.set(0);
                    c.misses.set(0);
                }
                Ok(Obj::None)
            })),
            "__wrapped__" => Some(self.func.clone()),
            "__name__" | "__qualname__" | "__doc__" | "__module__" => {
                Some(crate::python::ops::getattr(interp, &self.func, name)?)
            }
            _ => None,
        })
    }

    fn call(&self, interp: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        Some(self.call_through(interp, args))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(repr_of(&self.func))
    }
}
