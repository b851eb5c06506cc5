//! The `itertools` module. Most functions return the list of what CPython's
//! iterator yields, in the same order (tuples where CPython yields tuples).
//! The infinite iterators (`count`, `cycle`, `repeat` without `times`) are
//! real iterators: a `for` loop, `next`, `zip`, `map`, `islice` and
//! `takewhile` draw from them one item at a time (see
//! `crate::python::iterators`); materialising one is refused.

use std::cell::{Cell, RefCell};

use rustpython_parser::ast::Operator;

use crate::error::Result;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::{binop, iterate, py_eq, truthy};
use crate::python::value::{Args, Obj};
use crate::{bail, err};

use super::super::Builder;
use super::refuse;

/// The `itertools` module.
pub fn module() -> Obj {
    let mut b = Builder::new("itertools");
    b.attr("chain", Obj::lib(Chain))
        .func("product", product)
        .func("permutations", permutations)
        .func("combinations", |_, a| combinations(a, false))
        .func("combinations_with_replacement", |_, a| {
            combinations(a, true)
        })
        .func("islice", islice)
        .func("accumulate", accumulate)
        .func("repeat", repeat)
        .func("zip_longest", zip_longest)
        .func("starmap", starmap)
        .func("groupby", groupby)
        .func("pairwise", |_, a| {
            let items = iterate(&a.req(Some(0), "iterable", "pairwise")?)?;
            Ok(Obj::list(
                items.windows(2).map(|w| Obj::tuple(w.to_vec())).collect(),
            ))
        })
        .func("tee", |_, a| {
            let items = iterate(&a.req(Some(0), "iterable", "tee")?)?;
            let n = a.get(Some(1), "n").map(|n| to_int(&n)).transpose()?;
            let n = n.unwrap_or(2);
            if n < 0 {
                bail!(ValueError, "n must be >= 0");
            }
            Ok(Obj::tuple(
                (0..n).map(|_| Obj::list(items.clone())).collect(),
            ))
        })
        .func("count", |_, a| {
            let start = a.get(Some(0), "start").unwrap_or(Obj::Int(0));
            let step = a.get(Some(1), "step").unwrap_or(Obj::Int(1));
            Ok(Obj::lib(Endless::Count {
                next: RefCell::new(start),
                step,
            }))
        })
        .func("cycle", |_, a| {
            let items = iterate(&a.req(Some(0), "iterable", "cycle")?)?;
            Ok(Obj::lib(Endless::Cycle {
                items,
                at: Cell::new(0),
            }))
        });
    filters(&mut b);
    b.build()
}

/// `takewhile`, `dropwhile`, `filterfalse`, `compress`.
fn filters(b: &mut Builder) {
    b.func("takewhile", takewhile)
        .func("dropwhile", |i, a| {
            let f = a.req(Some(0), "predicate", "dropwhile")?;
            let items = iterate(&a.req(Some(1), "iterable", "dropwhile")?)?;
            let mut out = vec![];
            let mut dropping = true;
            for x in items {
                if dropping && truthy(&i.call(&f, Args::new(vec![x.clone()]))?, "dropwhile")? {
                    continue;
                }
                dropping = false;
                out.push(x);
            }
            Ok(Obj::list(out))
        })
        .func("filterfalse", |i, a| {
            let f = a.req(Some(0), "function", "filterfalse")?;
            let mut out = vec![];
            for x in iterate(&a.req(Some(1), "iterable", "filterfalse")?)? {
                let keep = match &f {
                    Obj::None => !truthy(&x, "filterfalse")?,
                    f => !truthy(&i.call(f, Args::new(vec![x.clone()]))?, "filterfalse")?,
                };
                if keep {
                    out.push(x);
                }
            }
            Ok(Obj::list(out))
        })
        .func("compress", |_, a| {
            let data = iterate(&a.req(Some(0), "data", "compress")?)?;
            let sel = iterate(&a.req(Some(1), "selectors", "compress")?)?;
            let mut out = vec![];
            for (x, s) in data.into_iter().zip(sel) {
                if truthy(&s, "compress")? {
                    out.push(x);
                }
            }
            Ok(Obj::list(out))
        });
}

/// An infinite iterator: `count(start, step)`, `cycle(items)`, `repeat(x)`.
pub enum Endless {
    /// `count(start, step)`: the next item and the step.
    Count { next: RefCell<Obj>, step: Obj },
    /// `cycle(items)`: the items and how many have been drawn.
    Cycle { items: Vec<Obj>, at: Cell<usize> },
    /// `repeat(x)`.
    Repeat(Obj),
}

impl Endless {
    fn name(&self) -> &'static str {
        match self {
            Endless::Count { .. } => "count",
            Endless::Cycle { .. } => "cycle",
            Endless::Repeat(_) => "repeat",
        }
    }

    /// The next item; `count` adds its step to the previous item, as
    /// CPython does, so float steps accumulate the same rounding.
    fn advance(&self, interp: &mut Interp) -> Result<Option<Obj>> {
        Ok(match self {
            Endless::Count { next, step } => {
                let cur = next.borrow().clone();
                let after = binop(interp, &Operator::Add, &cur, step, false)?;
                *next.borrow_mut() = after;
                Some(cur)
            }
            Endless::Cycle { items, at } => {
                if items.is_empty() {
                    return Ok(None);
                }
                let k = at.get();
                at.set(k + 1);
                Some(items[k % items.len()].clone())
            }
            Endless::Repeat(x) => Some(x.clone()),
        })
    }
}

impl Object for Endless {
    fn type_name(&self) -> String {
        self.name().into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        use crate::python::format::repr_of;
        Some(match self {
            Endless::Count {
                next,
                step: Obj::Int(1),
            } => format!("count({})", repr_of(&next.borrow())),
            Endless::Count { next, step } => {
                format!("count({}, {})", repr_of(&next.borrow()), repr_of(step))
            }
            Endless::Repeat(x) => format!("repeat({})", repr_of(x)),
            Endless::Cycle { .. } => "<itertools.cycle object>".into(),
        })
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(crate::python::iterators::next_method(this, name))
    }

    fn next(&self, interp: &mut Interp, _: &Obj) -> Option<Result<Option<Obj>>> {
        Some(self.advance(interp))
    }

    fn is_iterator(&self) -> bool {
        true
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        if let Endless::Cycle { items, .. } = self {
            if items.is_empty() {
                return Some(Ok(vec![]));
            }
        }
        Some(Err(refuse(&format!(
            "materialising the infinite itertools.{}() (draw from it with a for loop, next() or itertools.islice)",
            self.name()
        ))))
    }
}

/// The first `n` items of an iterable, or all of them when `n` is None;
/// an iterator gives up only the items drawn.
fn prefix(interp: &mut Interp, it: &Obj, n: Option<i64>) -> Result<Vec<Obj>> {
    if !interp.is_iterator(it) {
        let mut items = interp.iterate(it)?;
        if let Some(n) = n {
            items.truncate(n.max(0) as usize);
        }
        return Ok(items);
    }
    let Some(n) = n else {
        return interp.drain(it);
    };
    let mut out = vec![];
    while (out.len() as i64) < n {
        match interp.next_item(it)? {
            Some(x) => out.push(x),
            None => break,
        }
    }
    Ok(out)
}

/// `chain(*iterables)` and `chain.from_iterable(iterable)`.
struct Chain;

impl Object for Chain {
    fn type_name(&self) -> String {
        "type".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("<class 'itertools.chain'>".into())
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok((name == "from_iterable").then(|| {
            Obj::native("itertools.chain.from_iterable", |_, a| {
                let mut out = vec![];
                for it in iterate(&a.req(Some(0), "iterable", "from_iterable")?)? {
                    out.extend(iterate(&it)?);
                }
                Ok(Obj::list(out))
            })
        }))
    }

    fn call(&self, _: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        if !args.kw.is_empty() {
            return Some(Err(err!(TypeError, "chain() takes no keyword arguments")));
        }
        let mut out = vec![];
        for it in &args.pos {
            match iterate(it) {
                Ok(items) => out.extend(items),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(Obj::list(out)))
    }
}

fn product(_: &mut Interp, a: Args) -> Result<Obj> {
    let repeat = a.get(None, "repeat").map(|r| to_int(&r)).transpose()?;
    let repeat = repeat.unwrap_or(1);
    if repeat < 0 {
        bail!(ValueError, "repeat argument cannot be negative");
    }
    let pools: Vec<Vec<Obj>> = a.pos.iter().map(iterate).collect::<Result<_>>()?;
    let pools: Vec<&Vec<Obj>> = (0..repeat).flat_map(|_| pools.iter()).collect();
    let total: usize = pools.iter().map(|p| p.len()).product();
    crate::python::array::check_size(total.saturating_mul(pools.len().max(1)))?;
    let mut out: Vec<Vec<Obj>> = vec![vec![]];
    for pool in pools {
        out = out
            .iter()
            .flat_map(|prefix| {
                pool.iter().map(move |x| {
                    let mut t = prefix.clone();
                    t.push(x.clone());
                    t
                })
            })
            .collect();
    }
    Ok(Obj::list(out.into_iter().map(Obj::tuple).collect()))
}

/// The optional length argument `r` (None means the pool's length).
fn length_arg(a: &Args, pool: usize, required: bool, func: &str) -> Result<usize> {
    let r = match a.opt(Some(1), "r") {
        Some(r) => to_int(&r)?,
        None if required => bail!(TypeError, "{func}() missing required argument 'r' (pos 2)"),
        None => pool as i64,
    };
    if r < 0 {
        bail!(ValueError, "r must be non-negative");
    }
    Ok(r as usize)
}

/// Index tuples in CPython's order: lexicographic over positions.
fn index_tuples(n: usize, r: usize, ok: &dyn Fn(&[usize], usize) -> bool) -> Vec<Vec<usize>> {
    let mut out = vec![];
    let mut cur = vec![];
    fn rec(
        n: usize,
        r: usize,
        cur: &mut Vec<usize>,
        ok: &dyn Fn(&[usize], usize) -> bool,
        out: &mut Vec<Vec<usize>>,
    ) {
        if cur.len() == r {
            out.push(cur.clone());
            return;
        }
        for i in 0..n {
            if ok(cur, i) {
                cur.push(i);
                rec(n, r, cur, ok, out);
                cur.pop();
            }
        }
    }
    rec(n, r, &mut cur, ok, &mut out);
    out
}

fn pick(pool: &[Obj], idx: Vec<Vec<usize>>) -> Obj {
    Obj::list(
        idx.into_iter()
            .map(|t| Obj::tuple(t.into_iter().map(|i| pool[i].clone()).collect()))
            .collect(),
    )
}

fn permutations(_: &mut Interp, a: Args) -> Result<Obj> {
    let pool = iterate(&a.req(Some(0), "iterable", "permutations")?)?;
    let r = length_arg(&a, pool.len(), false, "permutations")?;
    if r > pool.len() {
        return Ok(Obj::list(vec![]));
    }
    check_count(pool.len(), r, false)?;
    let idx = index_tuples(pool.len(), r, &|cur, i| !cur.contains(&i));
    Ok(pick(&pool, idx))
}

fn combinations(a: Args, replace: bool) -> Result<Obj> {
    let func = if replace {
        "combinations_with_replacement"
    } else {
        "combinations"
    };
    let pool = iterate(&a.req(Some(0), "iterable", func)?)?;
    let r = length_arg(&a, pool.len(), true, func)?;
    if !replace && r > pool.len() {
        return Ok(Obj::list(vec![]));
    }
    let from = if replace {
        pool.len() + r.max(1) - 1
    } else {
        pool.len()
    };
    check_count(from, r, true)?;
    let idx = index_tuples(pool.len(), r, &|cur, i| match cur.last() {
        None => true,
        Some(&l) => i > l || (replace && i == l),
    });
    Ok(pick(&pool, idx))
}

/// Refuses to enumerate more than ten million tuples: `count` is the
/// product `from * (from - 1) * ...` of `r` factors divided by `r!` when
/// `choose`.
fn check_count(from: usize, r: usize, choose: bool) -> Result<()> {
    let mut count = 1f64;
    for k in 0..r {
        count *= from.saturating_sub(k) as f64;
        if choose {
            count /= (k + 1) as f64;
        }
    }
    if count > 1e7 {
        bail!(
            MemoryError,
            "{count} tuples are more than shardlab holds in one list (10000000)"
        );
    }
    Ok(())
}

/// An `islice` bound: None or a non-negative int.
fn slice_arg(v: Option<Obj>, what: &str) -> Result<Option<i64>> {
    let bad = || {
        err!(
            ValueError,
            "{what} argument for islice() must be None or an integer: 0 <= x <= sys.maxsize."
        )
    };
    match v {
        None | Some(Obj::None) => Ok(None),
        Some(v) => match to_int(&v) {
            Ok(i) if i >= 0 => Ok(Some(i)),
            _ => Err(bad()),
        },
    }
}

fn islice(i: &mut Interp, a: Args) -> Result<Obj> {
    let it = a.req(Some(0), "iterable", "islice")?;
    let (start, stop, step) = match a.pos.len() {
        0..=1 => bail!(
            TypeError,
            "islice expected at least 2 arguments, got {}",
            a.pos.len()
        ),
        2 => (None, slice_arg(a.pos.get(1).cloned(), "Stop")?, None),
        _ => (
            slice_arg(a.pos.get(1).cloned(), "Indices")?,
            slice_arg(a.pos.get(2).cloned(), "Stop")?,
            match a.pos.get(3) {
                None | Some(Obj::None) => None,
                Some(s) => match to_int(s) {
                    Ok(s) if s > 0 => Some(s),
                    _ => bail!(
                        ValueError,
                        "Step for islice() must be a positive integer or None."
                    ),
                },
            },
        ),
    };
    let items = prefix(i, &it, stop)?;
    let (start, step) = (start.unwrap_or(0) as usize, step.unwrap_or(1) as usize);
    Ok(Obj::list(
        items.into_iter().skip(start).step_by(step).collect(),
    ))
}

fn takewhile(i: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "predicate", "takewhile")?;
    let it = a.req(Some(1), "iterable", "takewhile")?;
    let it = i.iter_of(&it)?;
    let mut out = vec![];
    while let Some(x) = i.next_item(&it)? {
        if !truthy(&i.call(&f, Args::new(vec![x.clone()]))?, "takewhile")? {
            break;
        }
        out.push(x);
        i.tick()?;
    }
    Ok(Obj::list(out))
}

fn accumulate(i: &mut Interp, a: Args) -> Result<Obj> {
    let items = iterate(&a.req(Some(0), "iterable", "accumulate")?)?;
    let func = a.opt(Some(1), "func");
    let mut out = vec![];
    let mut acc = a.opt(None, "initial");
    if let Some(x) = &acc {
        out.push(x.clone());
    }
    for x in items {
        let next = match (&acc, &func) {
            (None, _) => x,
            (Some(t), None) => binop(i, &Operator::Add, t, &x, false)?,
            (Some(t), Some(f)) => i.call(f, Args::new(vec![t.clone(), x]))?,
        };
        out.push(next.clone());
        acc = Some(next);
    }
    Ok(Obj::list(out))
}

fn repeat(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "object", "repeat")?;
    match a.get(Some(1), "times") {
        None => Ok(Obj::lib(Endless::Repeat(x))),
        Some(t) => {
            let n = to_int(&t)?.max(0) as usize;
            crate::python::array::check_size(n)?;
            Ok(Obj::list(vec![x; n]))
        }
    }
}

fn zip_longest(_: &mut Interp, a: Args) -> Result<Obj> {
    let fill = a.get(None, "fillvalue").unwrap_or(Obj::None);
    let lists: Vec<Vec<Obj>> = a.pos.iter().map(iterate).collect::<Result<_>>()?;
    let n = lists.iter().map(Vec::len).max().unwrap_or(0);
    Ok(Obj::list(
        (0..n)
            .map(|k| {
                Obj::tuple(
                    lists
                        .iter()
                        .map(|l| l.get(k).cloned().unwrap_or_else(|| fill.clone()))
                        .collect(),
                )
            })
            .collect(),
    ))
}

fn starmap(i: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "function", "starmap")?;
    let mut out = vec![];
    for args in iterate(&a.req(Some(1), "iterable", "starmap")?)? {
        out.push(i.call(&f, Args::new(iterate(&args)?))?);
    }
    Ok(Obj::list(out))
}

fn groupby(i: &mut Interp, a: Args) -> Result<Obj> {
    let items = iterate(&a.req(Some(0), "iterable", "groupby")?)?;
    let key = a.opt(Some(1), "key");
    let mut groups: Vec<(Obj, Vec<Obj>)> = vec![];
    for x in items {
        let k = match &key {
            Some(f) => i.call(f, Args::new(vec![x.clone()]))?,
            None => x.clone(),
        };
        match groups.last_mut() {
            Some((last, members)) if py_eq(last, &k) => members.push(x),
            _ => groups.push((k, vec![x])),
        }
    }
    Ok(Obj::list(
        groups
            .into_iter()
            .map(|(k, members)| Obj::tuple(vec![k, Obj::list(members)]))
            .collect(),
    ))
}
