//! `nnx.split_rngs` and `nnx.restore_rngs`.
//!
//! Every `RngStream` found in the node (modules, `Rngs`, containers) that
//! the `only` filter selects draws its next key, which is split into
//! `splits` keys with zero counts; the streams' previous keys and counts
//! (counted after the draw, as Flax keeps them) are kept in a
//! `SplitBackups`, which restores them on `restore_rngs` or at the end of a
//! `with` block. Without a node it is a decorator that splits the rng
//! streams among the function's arguments for the duration of each call.
//!
//! `nnx.reseed(node, name=seed, ...)` gives the streams of those names the
//! first key a fresh stream of that seed draws, with a zero count.

use std::collections::HashSet;

use super::super::random::key_obj;
use super::rngs::{split_keys, stream_keys, stream_next, var_slot, Counts};
use super::*;

/// The streams under `o`, each once, in attribute order.
fn find_streams(o: &Obj, seen: &mut HashSet<usize>, out: &mut Vec<(String, Rc<Instance>)>) {
    match o {
        Obj::Instance(i) => {
            if !seen.insert(Rc::as_ptr(i) as usize) {
                return;
            }
            if i.class.name == "RngStream" {
                let tag = str_of(&iattr(i, "tag").unwrap_or(Obj::str("default")));
                out.push((tag, i.clone()));
            } else if is_nnx_module(i) {
                let attrs = i.attrs.borrow().clone();
                for (_, v) in attrs {
                    find_streams(&v, seen, out);
                }
            }
        }
        Obj::List(l) => {
            let items = l.borrow().clone();
            items.iter().for_each(|x| find_streams(x, seen, out));
        }
        Obj::Tuple(t) => t.iter().for_each(|x| find_streams(x, seen, out)),
        Obj::Dict(d) => {
            let items = d.borrow().items.clone();
            items.iter().for_each(|(_, v)| find_streams(v, seen, out));
        }
        _ => {}
    }
}

/// Which streams `only` selects: all (`...`) or those of one name.
fn selects(only: &Option<Obj>, tag: &str) -> Result<bool> {
    match only {
        None | Some(Obj::Ellipsis) => Ok(true),
        Some(o @ Obj::Str(_)) => Ok(str_of(o) == tag),
        Some(other) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.split_rngs with only={}",
            repr_of(other)
        ),
    }
}

/// Splits the selected streams of `node`; the backups as a list of
/// `(stream, key, count)`.
fn split_node(node: &Obj, splits: &Obj, only: &Option<Obj>) -> Result<Obj> {
    let mut streams = vec![];
    find_streams(node, &mut HashSet::new(), &mut streams);
    let mut backups = vec![];
    for (tag, s) in streams {
        if selects(only, &tag)? {
            backups.push(renew_stream(&s, &tag, Some(splits))?);
        }
    }
    Ok(Obj::list(backups))
}

/// Gives stream `s` its next key, split by `splits` when given, with zero
/// counts; its backup `(stream, key, count)` as it was after that draw.
fn renew_stream(s: &Rc<Instance>, tag: &str, splits: Option<&Obj>) -> Result<Obj> {
    let key = stream_next(s)?;
    let (kv, cv) = (var_slot(s, "key")?, var_slot(s, "count")?);
    let old_key = iattr(&kv, "value").unwrap_or(Obj::None);
    let old_count = iattr(&cv, "value").unwrap_or(Obj::None);
    let backup = Obj::tuple(vec![Obj::Instance(s.clone()), old_key, old_count]);
    let (new_key, count_shape) = match crate::modules::random::traced_key(&key) {
        Some((data, _)) => {
            let data = match splits {
                Some(n) => crate::random::traced::split(&data, &size_shape(n)?)?,
                None => data,
            };
            let shape = data.shape();
            let batch = shape[..shape.len().saturating_sub(1)].to_vec();
            (super::super::random::typed_key_of(data)?, batch)
        }
        None => {
            let keys = super::super::random::keys_of(&key)
                .ok_or_else(|| err!(TypeError, "the stream {tag} holds no key"))?;
            let keys = match splits {
                Some(n) => split_keys(&keys, n)?,
                None => keys,
            };
            let batch = keys.batch.clone();
            (key_obj(keys)?, batch)
        }
    };
    set_iattr(&kv, "value", new_key);
    let n = count_shape.iter().product();
    set_iattr(
        &cv,
        "value",
        Obj::lib(Counts {
            data: vec![0; n],
            shape: count_shape,
        }),
    );
    Ok(backup)
}

/// A size argument: an int or a tuple of ints.
fn size_shape(n: &Obj) -> Result<Vec<usize>> {
    Ok(match n {
        Obj::Tuple(t) => t
            .iter()
            .map(|d| Ok(to_int(d)? as usize))
            .collect::<Result<_>>()?,
        other => vec![to_int(other)? as usize],
    })
}

/// Puts back the keys and counts a split kept.
fn restore(backups: &Obj) -> Result<()> {
    let list = match backups {
        Obj::Instance(i) => iattr(i, "backups").unwrap_or(Obj::list(vec![])),
        other => other.clone(),
    };
    for b in iterate(&list)? {
        let parts = iterate(&b)?;
        if let [Obj::Instance(s), key, count] = parts.as_slice() {
            set_iattr(&*var_slot(s, "key")?, "value", key.clone());
            set_iattr(&*var_slot(s, "count")?, "value", count.clone());
        }
    }
    Ok(())
}

fn backups_class() -> Rc<Class> {
    new_class(
        "SplitBackups",
        vec![],
        vec![
            (
                "__enter__".into(),
                Obj::native("SplitBackups.__enter__", |_, a| {
                    Ok(a.pos.first().cloned().unwrap_or(Obj::None))
                }),
            ),
            (
                "__exit__".into(),
                Obj::native("SplitBackups.__exit__", |_, a| {
                    restore(&a.req(Some(0), "self", "__exit__")?)?;
                    Ok(Obj::Bool(false))
                }),
            ),
        ],
    )
}

/// `nnx.reseed(node, **stream_seeds)` with the `scalars_only` policy.
fn reseed(a: &Args) -> Result<()> {
    let node = a.req(Some(0), "node", "reseed")?;
    // The other keywords name streams; as in Flax, a name the node has no
    // stream for changes nothing.
    a.read_all();
    if let Some(p) = a.opt(None, "policy") {
        if str_of(&p) != "scalars_only" || !matches!(p, Obj::Str(_)) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.reseed with policy={}",
                repr_of(&p)
            );
        }
    }
    let mut streams = vec![];
    find_streams(&node, &mut HashSet::new(), &mut streams);
    for (tag, s) in streams {
        let Some((_, seed)) = a.kw.iter().find(|(k, _)| *k == tag) else {
            continue;
        };
        let kv = var_slot(&s, "key")?;
        let shape = iattr(&kv, "value")
            .as_ref()
            .and_then(super::super::random::keys_of)
            .map(|k| k.batch)
            .unwrap_or_default();
        if !shape.is_empty() {
            bail!(
                ValueError,
                "Cannot reseed stream at path {} becuase it has a non-scalar key, found key with shape {}. If all your multi-dimensional keys have unique values on all dimensions, set policy=\"match_shape\", else provide a custom reseed policy.",
                tag,
                repr_of(&Obj::tuple(shape.iter().map(|&d| Obj::Int(d as i64)).collect()))
            );
        }
        let mut keys = stream_keys(seed)?;
        keys.keys = keys
            .keys
            .iter()
            .map(|k| crate::random::fold_in(*k, 0))
            .collect();
        set_iattr(&kv, "value", key_obj(keys)?);
        set_iattr(
            &*var_slot(&s, "count")?,
            "value",
            Obj::lib(Counts {
                data: vec![0],
                shape: vec![],
            }),
        );
    }
    Ok(())
}

/// The `split` argument of `fork_rngs` as `(filter, splits)` rules: None
/// forks every stream without splitting, an int or tuple splits every
/// stream, a mapping gives each filter its own.
fn fork_rules(split: Option<Obj>) -> Result<Vec<(Option<Obj>, Option<Obj>)>> {
    let split_of = |v: Obj| match v {
        Obj::None => None,
        v => Some(v),
    };
    Ok(match split {
        None | Some(Obj::None) => vec![(None, None)],
        Some(Obj::Dict(d)) => d
            .borrow()
            .items
            .iter()
            .map(|(k, v)| (Some(k.clone()), split_of(v.clone())))
            .collect(),
        Some(n) => vec![(None, Some(n))],
    })
}

/// `fork_rngs` with graph updates: every stream a rule selects is forked
/// in place; the backups restore them.
fn fork_node(node: &Obj, rules: &[(Option<Obj>, Option<Obj>)]) -> Result<Obj> {
    let mut streams = vec![];
    find_streams(node, &mut HashSet::new(), &mut streams);
    let mut backups = vec![];
    for (tag, s) in streams {
        for (only, splits) in rules {
            if selects(only, &tag)? {
                backups.push(renew_stream(&s, &tag, splits.as_ref())?);
            }
        }
    }
    Ok(Obj::list(backups))
}

/// `fork_rngs` without graph updates: a copy of `node` whose selected
/// streams are replaced by their forks (`stream.fork()`, or
/// `stream.split(n)`, which is what `fork(split=n)` computes).
fn forked_copy(
    interp: &mut Interp,
    node: &Obj,
    rules: &[(Option<Obj>, Option<Obj>)],
) -> Result<Obj> {
    let rules = rules.to_vec();
    let f = Obj::native("fork_stream", move |i, a| {
        let mut val = a.req(Some(1), "node", "fork_stream")?;
        let Some(s) = super::rngs::is_stream(&val) else {
            return Ok(val);
        };
        let tag = str_of(&iattr(&s, "tag").unwrap_or(Obj::str("default")));
        for (only, splits) in &rules {
            if selects(only, &tag)? {
                let (name, args) = match splits {
                    Some(n) => ("split", vec![n.clone()]),
                    None => ("fork", vec![]),
                };
                let m = crate::python::ops::getattr(i, &val, name)?;
                val = i.call(&m, Args::new(args))?;
                break;
            }
        }
        Ok(val)
    });
    super::recursive::recursive_map(interp, &f, node)
}

/// `nnx.fork_rngs(node=MISSING, /, *, split=None, graph=None,
/// graph_updates=None)`: graph updates (Flax's default) fork the streams in
/// place and hand back their backups; otherwise a forked copy. Without a
/// node, a decorator that does the same to each call's arguments.
fn fork_rngs(interp: &mut Interp, a: Args, class: &Rc<Class>) -> Result<Obj> {
    let flag = |name: &str| -> Result<bool> {
        Ok(match a.opt(None, name) {
            None | Some(Obj::None) => true,
            Some(v) => truthy(&v, name)?,
        })
    };
    let in_place = flag("graph")? && flag("graph_updates")?;
    let rules = fork_rules(a.opt(None, "split"))?;
    renew_streams(interp, a.pos.first(), rules, in_place, class)
}

/// Forks the streams of `node` by `rules`, in place with backups or in a
/// copy; without a node, a decorator that does it to each call's
/// arguments for the duration of the call.
fn renew_streams(
    interp: &mut Interp,
    node: Option<&Obj>,
    rules: Vec<(Option<Obj>, Option<Obj>)>,
    in_place: bool,
    class: &Rc<Class>,
) -> Result<Obj> {
    if let Some(node) = node {
        if in_place {
            let backups = fork_node(node, &rules)?;
            return Ok(instance(class, vec![("backups".into(), backups)]));
        }
        return forked_copy(interp, node, &rules);
    }
    Ok(Obj::native("fork_rngs", move |_, d| {
        let f = d.req(Some(0), "f", "fork_rngs")?;
        let rules = rules.clone();
        Ok(Obj::native("fork_rngs_wrapper", move |i, call| {
            let node = Obj::tuple(vec![
                Obj::tuple(call.pos.clone()),
                Obj::tuple(call.kw.iter().map(|(_, v)| v.clone()).collect()),
            ]);
            if !in_place {
                let copy = iterate(&forked_copy(i, &node, &rules)?)?;
                let (pos, kw) = match copy.as_slice() {
                    [p, k] => (iterate(p)?, iterate(k)?),
                    _ => bail!(RuntimeError, "fork_rngs lost the call's arguments"),
                };
                let names = call.kw.iter().map(|(n, _)| n.clone());
                return i.call(&f, Args::with(pos, names.zip(kw).collect()));
            }
            let backups = fork_node(&node, &rules)?;
            let r = i.call(&f, call);
            restore(&backups)?;
            r
        }))
    }))
}

/// `nnx.split_rngs(node, *, splits, only=...)` and its decorator form;
/// `nnx.restore_rngs(backups)`.
pub(super) fn register(b: &mut Builder) {
    let class = backups_class();
    let split_class = class.clone();
    b.func("split_rngs", move |i, a| {
        let splits = a.req(None, "splits", "split_rngs")?;
        let only = a.opt(None, "only");
        if let Some(sq) = a.opt(None, "squeeze") {
            if truthy(&sq, "squeeze")? {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx.split_rngs with squeeze"
                );
            }
        }
        let flag = |name: &str| -> Result<bool> {
            Ok(match a.opt(None, name) {
                None | Some(Obj::None) => true,
                Some(v) => truthy(&v, name)?,
            })
        };
        if !(flag("graph")? && flag("graph_updates")?) {
            let rules = vec![(only, Some(splits))];
            return renew_streams(i, a.pos.first(), rules, false, &split_class);
        }
        if let Some(node) = a.pos.first() {
            let backups = split_node(node, &splits, &only)?;
            return Ok(instance(&split_class, vec![("backups".into(), backups)]));
        }
        Ok(Obj::native("split_rngs", move |_, d| {
            let f = d.req(Some(0), "f", "split_rngs")?;
            let (splits, only) = (splits.clone(), only.clone());
            Ok(Obj::native("split_rngs_wrapper", move |i, call| {
                let node = Obj::tuple(vec![
                    Obj::tuple(call.pos.clone()),
                    Obj::tuple(call.kw.iter().map(|(_, v)| v.clone()).collect()),
                ]);
                let backups = split_node(&node, &splits, &only)?;
                let r = i.call(&f, call);
                restore(&backups)?;
                r
            }))
        }))
    });
    let fork_class = class.clone();
    b.func("fork_rngs", move |i, a| fork_rngs(i, a, &fork_class));
    b.func("reseed", |_, a| {
        reseed(&a)?;
        Ok(Obj::None)
    });
    b.func("restore_rngs", |_, a| {
        restore(&a.req(Some(0), "backups", "restore_rngs")?)?;
        Ok(Obj::None)
    });
}
