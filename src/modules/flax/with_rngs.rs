//! `nnx.with_rngs(node, split=..., fork=..., broadcast=..., only=...)`: a
//! copy of `node` whose `RngStream`s are replaced by split, broadcast or
//! forked streams, by the first filter of each rule that a stream passes
//! (a bare size means `{...: size}`). A stream that several rules name by
//! a filter other than `...`/`True` is an error; otherwise `split` wins
//! over `broadcast`, and `broadcast` over `fork`. Without a node it is a
//! decorator that does the same to a function's arguments on every call.

use super::filters::{to_predicate, Pred};
use super::rngs::is_stream;
use super::*;
use crate::python::ops::getattr;

/// A rule: the filter as given, its predicate and its size.
type Rule = (Obj, Pred, Obj);

/// What `with_rngs` was asked to do.
struct Rules {
    split: Vec<Rule>,
    broadcast: Vec<Rule>,
    fork: Vec<(Obj, Pred)>,
    only: Pred,
}

/// `{filter: size}` rules; a bare int or tuple is `{...: size}`.
fn sized_rules(o: Option<Obj>) -> Result<Vec<Rule>> {
    match o {
        None => Ok(vec![]),
        Some(n @ (Obj::Int(_) | Obj::Tuple(_))) => Ok(vec![(Obj::Ellipsis, Pred::Everything, n)]),
        Some(Obj::Dict(d)) => {
            let items = d.borrow().items.clone();
            items
                .into_iter()
                .map(|(f, v)| Ok((f.clone(), to_predicate(&f)?, v)))
                .collect()
        }
        Some(other) => bail!(
            TypeError,
            "with_rngs expects an int, a tuple or a mapping of filters to sizes, got {}",
            repr_of(&other)
        ),
    }
}

/// `fork`: a filter, or a list or tuple of filters.
fn fork_rules(o: Option<Obj>) -> Result<Vec<(Obj, Pred)>> {
    let filters = match o {
        None => vec![],
        Some(l @ (Obj::List(_) | Obj::Tuple(_))) => iterate(&l)?,
        Some(f) => vec![f],
    };
    filters
        .into_iter()
        .map(|f| Ok((f.clone(), to_predicate(&f)?)))
        .collect()
}

fn first_match<'a, T>(
    interp: &mut Interp,
    rules: &'a [T],
    pred: impl Fn(&T) -> &Pred,
    path: &Obj,
    val: &Obj,
) -> Result<Option<&'a T>> {
    for r in rules {
        if pred(r).eval(interp, path, val)? {
            return Ok(Some(r));
        }
    }
    Ok(None)
}

/// Whether a filter names streams specifically (not `...` or `True`).
fn specific(f: &Obj) -> bool {
    !matches!(f, Obj::Ellipsis | Obj::Bool(true))
}

impl Rules {
    /// The replacement of `val` at `path`: `val` itself unless it is a
    /// selected stream that some rule names.
    fn update(&self, interp: &mut Interp, path: &Obj, val: &Obj) -> Result<Obj> {
        if is_stream(val).is_none() || !self.only.eval(interp, path, val)? {
            return Ok(val.clone());
        }
        let split = first_match(interp, &self.split, |r| &r.1, path, val)?;
        let broadcast = first_match(interp, &self.broadcast, |r| &r.1, path, val)?;
        let fork = first_match(interp, &self.fork, |r| &r.1, path, val)?;
        let mut found: Vec<(&str, &Obj)> = vec![];
        if let Some(r) = split {
            found.push(("split", &r.0));
        }
        if let Some(r) = broadcast {
            found.push(("broadcast", &r.0));
        }
        if let Some(r) = fork {
            found.push(("fork", &r.0));
        }
        if found.len() > 1 && found.iter().filter(|(_, f)| specific(f)).count() > 1 {
            let lines: Vec<String> = found
                .iter()
                .map(|(rule, f)| format!("  - {rule} matches filter {}", repr_of(f)))
                .collect();
            bail!(
                ValueError,
                "RngStream at path {} matches multiple rules:\n{}",
                repr_of(path),
                lines.join("\n")
            );
        }
        let (method, arg) = match (split, broadcast, fork) {
            (Some(r), _, _) => ("split", Some(r.2.clone())),
            (None, Some(r), _) => ("broadcast", Some(r.2.clone())),
            (None, None, Some(_)) => ("fork", None),
            (None, None, None) => return Ok(val.clone()),
        };
        let m = getattr(interp, val, method)?;
        interp.call(&m, Args::new(arg.into_iter().collect()))
    }
}

/// Replaces the streams of `node` by [`Rules::update`], walking it as
/// `nnx.recursive_map` does.
fn apply(interp: &mut Interp, rules: &Rc<Rules>, node: &Obj) -> Result<Obj> {
    let r = rules.clone();
    let f = Obj::native("update_rngs", move |i, a| {
        let path = a.req(Some(0), "path", "update_rngs")?;
        let val = a.req(Some(1), "val", "update_rngs")?;
        r.update(i, &path, &val)
    });
    super::recursive::recursive_map(interp, &f, node)
}

/// `with_rngs` as a decorator: each call's arguments go through it first.
fn decorator(rules: Rc<Rules>) -> Obj {
    Obj::native("with_rngs_decorator", move |_, a| {
        let f = a.req(Some(0), "f", "with_rngs_decorator")?;
        let rules = rules.clone();
        Ok(Obj::native("with_rngs_wrapper", move |interp, call| {
            let mut d = Dict::default();
            for (k, v) in &call.kw {
                d.set(Obj::str(k), v.clone());
            }
            let kwargs = Obj::Dict(Rc::new(RefCell::new(d)));
            let both = Obj::tuple(vec![Obj::tuple(call.pos.clone()), kwargs]);
            let out = apply(interp, &rules, &both)?;
            let parts = iterate(&out)?;
            let (pos, kw) = match parts.as_slice() {
                [p, Obj::Dict(k)] => (iterate(p)?, k.borrow().items.clone()),
                _ => bail!(RuntimeError, "with_rngs lost the call's arguments"),
            };
            let kw = kw.into_iter().map(|(k, v)| (str_of(&k), v)).collect();
            interp.call(&f, Args::with(pos, kw))
        }))
    })
}

fn flag(a: &Args, name: &str) -> Result<Option<bool>> {
    a.opt(None, name).map(|g| truthy(&g, name)).transpose()
}

/// `nnx.with_rngs(node=MISSING, /, *, split=None, fork=None,
/// broadcast=None, only=True, graph=None, graph_updates=None)`.
fn with_rngs(interp: &mut Interp, a: Args) -> Result<Obj> {
    // Flax's defaults: graph mode on, graph updates on.
    let graph = flag(&a, "graph")?.unwrap_or(true);
    let graph_updates = flag(&a, "graph_updates")?.unwrap_or(true);
    if graph && graph_updates {
        bail!(
            NotImplementedError,
            "graph=True and graph_updates=True is not supported for `with_rngs`"
        );
    }
    let rules = Rc::new(Rules {
        split: sized_rules(a.opt(None, "split"))?,
        broadcast: sized_rules(a.opt(None, "broadcast"))?,
        fork: fork_rules(a.opt(None, "fork"))?,
        only: to_predicate(&a.get(None, "only").unwrap_or(Obj::Bool(true)))?,
    });
    match a.pos.first() {
        Some(node) => apply(interp, &rules, node),
        None => Ok(decorator(rules)),
    }
}

/// Adds `with_rngs` to `flax.nnx`.
pub(super) fn register(b: &mut Builder) {
    b.func("with_rngs", with_rngs);
}
