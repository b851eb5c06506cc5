//! What linen's lifted transforms (`nn.scan`, `nn.remat`, ...) share: the
//! class form and the function form of a transform, the module paths a
//! transform lifts, and the keys its streams start from inside it.
//!
//! Flax lifts a module's scope into the transformed function: its variables
//! become the function's arguments and results, and its rng streams start
//! from keys the transform hands in (split per step for a scan) while the
//! names folded into them stay those of the module's path. A run here keeps
//! one variable tree and one set of counters, so a transform swaps the
//! lifted modules' variables in and out around the body, and a [`Lift`]
//! records which keys `make_rng` starts from under the lifted paths.

use super::linen::{module_path, with_run};
use super::recurrent::lib_attr;
use super::*;

/// A lifted transform running: the module paths it lifted and the streams
/// visible under them, each with the key it starts from.
#[derive(Clone)]
pub(super) struct Lift {
    pub paths: Vec<Vec<String>>,
    pub keys: Vec<(String, Obj)>,
}

impl Lift {
    /// Whether the module at `path` is one of the lifted modules or inside one.
    pub fn covers(&self, path: &[String]) -> bool {
        self.paths.iter().any(|p| path.starts_with(p))
    }
}

/// `fold_in(key, uint32(hash))`, through `jax.random` so that a traced key
/// folds as a concrete one does.
pub(super) fn fold_in_hash(interp: &mut Interp, key: Obj, hash: u32) -> Result<Obj> {
    let uint32 = lib_attr(interp, "jax.numpy", "uint32")?;
    let data = interp.call(&uint32, Args::new(vec![Obj::Int(hash as i64)]))?;
    let fold_in = lib_attr(interp, "jax.random", "fold_in")?;
    interp.call(&fold_in, Args::new(vec![key, data]))
}

/// The streams the module at `path` sees, with the keys they start from:
/// those of the innermost transform lifting it, else the run's own.
pub(super) fn stream_roots(interp: &mut Interp, path: &[String]) -> Result<Vec<(String, Obj)>> {
    let (lifted, given) = with_run(interp, |run| Ok((run.lift_keys(path), run.streams())))?;
    match lifted {
        Some(keys) => Ok(keys),
        None => given
            .into_iter()
            .map(|(n, k, typed)| Ok((n, one_key(k, typed)?)))
            .collect(),
    }
}

/// A collection filter of a transform's options: a name, `True` for every
/// collection, `False` for none, or a list or tuple of names.
#[derive(Clone)]
pub(super) enum Cols {
    All,
    Names(Vec<String>),
}

impl Cols {
    pub fn parse(o: &Obj, what: &str) -> Result<Cols> {
        match o {
            Obj::Bool(true) => Ok(Cols::All),
            Obj::Bool(false) | Obj::None => Ok(Cols::Names(vec![])),
            Obj::Str(s) => Ok(Cols::Names(vec![s.to_string()])),
            Obj::List(_) | Obj::Tuple(_) => {
                let mut out = vec![];
                for item in iterate(o)? {
                    match item {
                        Obj::Str(s) => out.push(s.to_string()),
                        _ => bail!(
                            NotImplementedError,
                            "not supported by shardlab yet: {what} filters other than collection names"
                        ),
                    }
                }
                Ok(Cols::Names(out))
            }
            _ => bail!(
                NotImplementedError,
                "not supported by shardlab yet: {what} filters other than collection names"
            ),
        }
    }

    pub fn has(&self, col: &str) -> bool {
        match self {
            Cols::All => true,
            Cols::Names(n) => n.iter().any(|c| c == col),
        }
    }
}

/// The entries of a dict option such as `variable_axes` or `split_rngs`,
/// each key parsed as a [`Cols`] filter.
pub(super) fn dict_option(o: &Obj, what: &str) -> Result<Vec<(Cols, Obj)>> {
    match super::frozen_dict::unfreeze_obj(o) {
        Obj::Dict(d) => d
            .borrow()
            .items
            .iter()
            .map(|(k, v)| Ok((Cols::parse(k, what)?, v.clone())))
            .collect(),
        Obj::None => Ok(vec![]),
        other => bail!(
            TypeError,
            "{what} must be a dict, got {}",
            other.type_name()
        ),
    }
}

/// The paths of the linen modules among a transformed function's
/// positional arguments (bound ones; the first is the transformed module).
pub(super) fn module_paths(interp: &mut Interp, args: &[Obj]) -> Result<Vec<Vec<String>>> {
    let mut out = vec![];
    for a in args {
        if let Obj::Instance(i) = a {
            if super::linen::is_linen_module(i) {
                let p = module_path(interp, i)?;
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    Ok(out)
}

/// A transform's body: the transformed module or function's arguments in,
/// its result out.
pub(super) type Body = Rc<dyn Fn(&mut Interp, Args, &Obj) -> Result<Obj>>;

/// `nn.<transform>(target, **options)`: for a module class, a subclass
/// named `<Transform><Class>` whose `methods` (default `__call__`) run
/// through `body`; for a function `fn(module, *args)`, a function that does.
pub(super) fn lift_target(
    interp: &mut Interp,
    transform: &str,
    a: &Args,
    body: Body,
) -> Result<Obj> {
    let target = a.req(Some(0), "target", transform)?;
    let methods = match a.opt(None, "methods") {
        None | Some(Obj::None) => vec!["__call__".to_string()],
        Some(m) => iterate(&m)?.iter().map(str_of).collect(),
    };
    let _ = interp;
    match &target {
        Obj::Class(c) if matches!(c.lookup("__linen_module__"), Some(Obj::Bool(true))) => {
            super::linen::wrap_methods(c);
            let mut attrs = vec![("__linen_wrapped__".to_string(), Obj::Bool(true))];
            for m in methods {
                let inner = c
                    .lookup(&m)
                    .ok_or_else(|| err!(AttributeError, "'{}' has no method {m}", c.name))?;
                let body = body.clone();
                let label = format!("{transform}.{m}");
                attrs.push((m, Obj::native(label, move |i, a| body(i, a, &inner))));
            }
            let mut name = transform.to_string();
            if let Some(first) = name.get_mut(0..1) {
                first.make_ascii_uppercase();
            }
            let sub = new_class(&format!("{name}{}", c.name), vec![c.clone()], attrs);
            Ok(Obj::Class(sub))
        }
        _ => {
            let fun = target.clone();
            let label = match &fun {
                Obj::Func(f) => f.name.to_string(),
                _ => transform.to_string(),
            };
            // The function runs as a method of its first argument, so the
            // modules it makes become that module's children.
            let scoped = Obj::native(label.clone(), move |interp, a| match a.pos.first() {
                Some(Obj::Instance(me)) if super::linen::is_linen_module(me) => {
                    let me = me.clone();
                    super::linen::call_in_scope(interp, &me, &fun, a)
                }
                _ => interp.call(&fun, a),
            });
            Ok(Obj::native(label, move |i, a| body(i, a, &scoped)))
        }
    }
}

/// Each positional argument's axis under a transform's `in_axes` (one for
/// all, or one per argument): `Some(axis)`, or `None` where `unmapped`
/// marks the argument as passed whole (`nn.broadcast` for a scan, `None`
/// for a vmap). `names` are the transform's and the marker's names.
pub(super) fn arg_axes(
    in_axes: &Obj,
    n: usize,
    (transform, marker): (&str, &str),
    unmapped: fn(&Obj) -> bool,
) -> Result<Vec<Option<i64>>> {
    let one = |o: &Obj| {
        match o {
        Obj::Int(a) => Ok(Some(*a)),
        o if unmapped(o) => Ok(None),
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: flax.linen.{transform} with in_axes other than integers and {marker} per argument"
        ),
    }
    };
    match in_axes {
        Obj::Tuple(_) | Obj::List(_) => {
            let items = iterate(in_axes)?;
            if items.len() != n {
                bail!(
                    ValueError,
                    "in_axes has {} entries for {n} arguments",
                    items.len()
                );
            }
            items.iter().map(one).collect()
        }
        o => Ok(vec![one(o)?; n]),
    }
}
