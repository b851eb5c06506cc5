//! `jax.tree_util` and `jax.tree`: the pytree functions over the core's
//! flattening (`crate::python::pytree`), the key path entries (`DictKey`,
//! `SequenceKey`, `GetAttrKey`, `FlattenedIndexKey`), `PyTreeDef` objects,
//! registration of the program's classes as pytree nodes, and `Partial`.
//!
//! The key classes and `Partial` are made once per run and kept in the
//! interpreter's run state, so that the key objects flattening makes are
//! instances of the classes the program imported; registrations go to the
//! run's [`Registry`].

use std::cell::RefCell;
use std::rc::Rc;

use crate::bail;
use crate::error::Result;

use super::Builder;
use crate::python::format::{repr_of, str_of};
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::{getattr, iterate};
use crate::python::pytree::{
    flatten_full, flatten_up_to, unflatten, KeyEntry, Registered, Registry, TreeDef,
};
use crate::python::value::{Args, Class, Dict, Instance, Obj};

mod broadcast;
mod errors;
pub(crate) mod keys;
mod treedef;

pub use treedef::treedef_obj;

/// The classes `jax.tree_util` makes once per run.
#[derive(Default)]
struct Classes {
    made: Option<Made>,
}

#[derive(Clone)]
struct Made {
    keys: keys::KeyClasses,
    partial: Rc<Class>,
}

fn classes(interp: &mut Interp) -> Result<Made> {
    if let Some(m) = &interp.state::<Classes>().made {
        return Ok(m.clone());
    }
    let made = Made {
        keys: keys::KeyClasses::new(),
        partial: partial_class(interp)?,
    };
    interp.state::<Classes>().made = Some(made.clone());
    Ok(made)
}

/// `jax.tree_util` (`short` false) or `jax.tree` (`short` true).
pub fn module(interp: &mut Interp, name: &str) -> Result<Obj> {
    let made = classes(interp)?;
    let short = name == "jax.tree";
    let mut b = Builder::new(name);
    let pick = |long: &'static str, brief: &'static str| if short { brief } else { long };
    b.func(pick("tree_map", "map"), |i, a| map(i, a, false));
    b.func(pick("tree_map_with_path", "map_with_path"), |i, a| {
        map(i, a, true)
    });
    b.func(pick("tree_leaves", "leaves"), |i, a| {
        let (leaves, _, _) = flatten_args(i, &a, "tree_leaves", false)?;
        Ok(Obj::list(leaves))
    });
    b.func(pick("tree_leaves_with_path", "leaves_with_path"), |i, a| {
        let (leaves, paths, _) = flatten_args(i, &a, "tree_leaves_with_path", true)?;
        Ok(Obj::list(with_paths(i, leaves, paths)?))
    });
    b.func(pick("tree_structure", "structure"), |i, a| {
        let (_, _, def) = flatten_args(i, &a, "tree_structure", false)?;
        treedef_obj(i, def)
    });
    b.func(pick("tree_flatten", "flatten"), |i, a| {
        let (leaves, _, def) = flatten_args(i, &a, "tree_flatten", false)?;
        Ok(Obj::tuple(vec![Obj::list(leaves), treedef_obj(i, def)?]))
    });
    b.func(
        pick("tree_flatten_with_path", "flatten_with_path"),
        |i, a| {
            let (leaves, paths, def) = flatten_args(i, &a, "tree_flatten_with_path", true)?;
            let pairs = with_paths(i, leaves, paths)?;
            Ok(Obj::tuple(vec![Obj::list(pairs), treedef_obj(i, def)?]))
        },
    );
    b.func(pick("tree_unflatten", "unflatten"), |i, a| {
        let def = treedef::arg(&a, 0, "treedef", "tree_unflatten")?;
        let leaves = i.iterate(&a.req(Some(1), "leaves", "tree_unflatten")?)?;
        unflatten(i, &def, &leaves)
    });
    b.func(pick("tree_reduce", "reduce"), reduce);
    b.func(pick("tree_all", "all"), |i, a| {
        let (leaves, _, _) = flatten_args(i, &a, "tree_all", false)?;
        for l in &leaves {
            if !i.truth(l, "tree_all")? {
                return Ok(Obj::Bool(false));
            }
        }
        Ok(Obj::Bool(true))
    });
    b.func(pick("tree_transpose", "transpose"), transpose);
    b.func(pick("tree_broadcast", "broadcast"), broadcast::broadcast);
    b.func(
        pick("tree_reduce_associative", "reduce_associative"),
        broadcast::reduce_associative,
    );
    if short {
        b.func("static", static_field);
    }
    if !short {
        long_only(&mut b, &made);
    }
    Ok(b.build())
}

/// `jax.tree.static(**kwargs)`: `dataclasses.field(**kwargs)` whose
/// metadata also says `static=True`, which `register_dataclass` reads to
/// keep the field in the tree's structure rather than among its leaves.
fn static_field(interp: &mut Interp, a: Args) -> Result<Obj> {
    if !a.pos.is_empty() {
        let n = a.pos.len();
        let verb = if n == 1 { "was" } else { "were" };
        bail!(
            TypeError,
            "static() takes 0 positional arguments but {n} {verb} given"
        );
    }
    let mut metadata = Dict::default();
    metadata.set(Obj::str("static"), Obj::Bool(true));
    match a.opt(None, "metadata") {
        None | Some(Obj::None) => {}
        Some(Obj::Dict(d)) => {
            for (k, v) in d.borrow().items.iter() {
                metadata.set(k.clone(), v.clone());
            }
        }
        Some(_) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.tree.static with metadata that is not a dict"
        ),
    }
    // Every keyword goes on to `field`, which checks them.
    let mut kw = vec![];
    for (k, _) in a.kw.iter().filter(|(k, _)| k != "metadata") {
        if let Some(v) = a.get(None, k) {
            kw.push((k.clone(), v));
        }
    }
    kw.push((
        "metadata".into(),
        Obj::Dict(Rc::new(RefCell::new(metadata))),
    ));
    let dataclasses = super::import(interp, "dataclasses")?;
    let field = getattr(interp, &dataclasses, "field")?;
    interp.call(&field, Args::with(vec![], kw))
}

/// The names only `jax.tree_util` has.
fn long_only(b: &mut Builder, made: &Made) {
    made.keys.add_to(b);
    b.attr("Partial", Obj::Class(made.partial.clone()));
    b.func("keystr", keys::keystr);
    b.func("register_pytree_node", |i, a| {
        let cls = class_arg(&a, "register_pytree_node")?;
        let node = Registered {
            class: cls.clone(),
            flatten: Some(a.req(Some(1), "flatten_func", "register_pytree_node")?),
            unflatten: Some(a.req(Some(2), "unflatten_func", "register_pytree_node")?),
            flatten_with_keys: a.opt(Some(3), "flatten_with_keys_func"),
        };
        i.state::<Registry>().register(node)?;
        Ok(Obj::None)
    });
    b.func("register_pytree_with_keys", |i, a| {
        let cls = class_arg(&a, "register_pytree_with_keys")?;
        let node = Registered {
            class: cls.clone(),
            flatten_with_keys: Some(a.req(
                Some(1),
                "flatten_with_keys",
                "register_pytree_with_keys",
            )?),
            unflatten: Some(a.req(Some(2), "unflatten_func", "register_pytree_with_keys")?),
            flatten: a.opt(Some(3), "flatten_func"),
        };
        i.state::<Registry>().register(node)?;
        Ok(Obj::None)
    });
    b.func("register_pytree_node_class", |i, a| {
        register_class(i, a, false)
    });
    b.func("register_pytree_with_keys_class", |i, a| {
        register_class(i, a, true)
    });
    b.func("register_static", |i, a| {
        let cls = class_arg(&a, "register_static")?;
        let node = Registered {
            class: cls.clone(),
            flatten: None,
            flatten_with_keys: None,
            unflatten: None,
        };
        i.state::<Registry>().register(node)?;
        Ok(Obj::Class(cls))
    });
    b.func(
        "register_dataclass",
        super::std::dataclasses::register_dataclass,
    );
    b.func("treedef_is_leaf", |_, a| {
        let def = treedef::arg(&a, 0, "treedef", "treedef_is_leaf")?;
        Ok(Obj::Bool(def.num_nodes() == 1))
    });
    b.func("treedef_children", |i, a| {
        let def = treedef::arg(&a, 0, "treedef", "treedef_children")?;
        treedef::children(i, &def)
    });
    b.func("all_leaves", |i, a| {
        let is_leaf = a.opt(Some(1), "is_leaf");
        for x in i.iterate(&a.req(Some(0), "iterable", "all_leaves")?)? {
            let (_, _, def) = flatten_full(i, &x, is_leaf.as_ref(), false)?;
            if !matches!(def, TreeDef::Leaf) {
                return Ok(Obj::Bool(false));
            }
        }
        Ok(Obj::Bool(true))
    });
    b.func("treedef_tuple", |i, a| {
        let defs = iterate(&a.req(Some(0), "treedefs", "treedef_tuple")?)?
            .iter()
            .map(|d| treedef::of(d, "treedef_tuple").map(|d| (*d).clone()))
            .collect::<Result<Vec<_>>>()?;
        treedef_obj(i, TreeDef::Tuple(defs))
    });
}

fn class_arg(a: &Args, func: &str) -> Result<Rc<Class>> {
    match a.req(Some(0), "nodetype", func)? {
        Obj::Class(c) => Ok(c),
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: {func} of {} (only classes defined in the program)",
            repr_of(&other)
        ),
    }
}

/// `register_pytree_node_class(cls)` and `register_pytree_with_keys_class(cls)`:
/// the class's own `tree_flatten` (or `tree_flatten_with_keys`) and
/// `tree_unflatten` methods.
fn register_class(i: &mut Interp, a: Args, keys: bool) -> Result<Obj> {
    let what = if keys {
        "register_pytree_with_keys_class"
    } else {
        "register_pytree_node_class"
    };
    let cls = class_arg(&a, what)?;
    let obj = Obj::Class(cls.clone());
    let flatten = cls.lookup("tree_flatten");
    let node = Registered {
        class: cls,
        flatten_with_keys: if keys {
            Some(getattr(i, &obj, "tree_flatten_with_keys")?)
        } else {
            None
        },
        flatten: if keys {
            flatten
        } else {
            Some(getattr(i, &obj, "tree_flatten")?)
        },
        unflatten: Some(getattr(i, &obj, "tree_unflatten")?),
    };
    i.state::<Registry>().register(node)?;
    Ok(obj)
}

/// The tree (argument 0) flattened with the call's `is_leaf`.
fn flatten_args(
    i: &mut Interp,
    a: &Args,
    func: &str,
    paths: bool,
) -> Result<(Vec<Obj>, Vec<Vec<KeyEntry>>, TreeDef)> {
    let tree = a.req(Some(0), "tree", func)?;
    let is_leaf = a.opt(Some(1), "is_leaf");
    let (leaves, p, def) = flatten_full(i, &tree, is_leaf.as_ref(), paths)?;
    Ok((leaves, p.unwrap_or_default(), def))
}

/// `(key_path, leaf)` pairs.
fn with_paths(i: &mut Interp, leaves: Vec<Obj>, paths: Vec<Vec<KeyEntry>>) -> Result<Vec<Obj>> {
    let made = classes(i)?;
    Ok(paths
        .iter()
        .zip(leaves)
        .map(|(p, l)| Obj::tuple(vec![made.keys.path(p), l]))
        .collect())
}

/// `tree_map(f, tree, *rest, is_leaf=None)` and `tree_map_with_path`.
fn map(i: &mut Interp, a: Args, with_path: bool) -> Result<Obj> {
    let func = if with_path {
        "tree_map_with_path"
    } else {
        "tree_map"
    };
    let f = a.req(Some(0), "f", func)?;
    let tree = a.req(Some(1), "tree", func)?;
    let is_leaf = a.opt(None, "is_leaf");
    let (leaves, paths, def) = flatten_full(i, &tree, is_leaf.as_ref(), with_path)?;
    let mut rest = vec![];
    for r in a.pos.iter().skip(2) {
        match flatten_up_to(i, &def, r) {
            Ok(l) => rest.push(l),
            Err(e) => {
                let name = format!("{func} tree");
                return Err(
                    errors::prefix_error(i, &tree, r, is_leaf.as_ref(), &name)?.unwrap_or(e)
                );
            }
        }
    }
    let made = classes(i)?;
    let mut out = Vec::with_capacity(leaves.len());
    for (k, l) in leaves.into_iter().enumerate() {
        let mut args = vec![];
        if let Some(p) = &paths {
            args.push(made.keys.path(&p[k]));
        }
        args.push(l);
        args.extend(rest.iter().map(|r| r[k].clone()));
        out.push(i.call(&f, Args::new(args))?);
    }
    unflatten(i, &def, &out)
}

/// `tree_reduce(function, tree, initializer=<none>, is_leaf=None)`.
fn reduce(i: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "function", "tree_reduce")?;
    let tree = a.req(Some(1), "tree", "tree_reduce")?;
    let is_leaf = a.opt(Some(3), "is_leaf");
    let (leaves, _, _) = flatten_full(i, &tree, is_leaf.as_ref(), false)?;
    super::std::functools::fold(i, &f, leaves, a.get(Some(2), "initializer"))
}

/// `tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose)`.
fn transpose(i: &mut Interp, a: Args) -> Result<Obj> {
    let outer = treedef::arg(&a, 0, "outer_treedef", "tree_transpose")?;
    let tree = a.req(Some(2), "pytree_to_transpose", "tree_transpose")?;
    let (flat, _, def) = flatten_full(i, &tree, None, false)?;
    let inner = match a.opt(Some(1), "inner_treedef") {
        Some(d) => treedef::of(&d, "tree_transpose")?,
        None => {
            let first = flatten_up_to(i, &outer, &tree)?
                .into_iter()
                .next()
                .unwrap_or(Obj::None);
            Rc::new(flatten_full(i, &first, None, false)?.2)
        }
    };
    let (n_in, n_out) = (inner.num_leaves(), outer.num_leaves());
    if def.num_leaves() != n_in * n_out {
        let expected = treedef::compose(&outer, &inner);
        bail!(
            TypeError,
            "Mismatch\n{}\n != \n{}",
            treedef::repr(i, &def)?,
            treedef::repr(i, &expected)?
        );
    }
    let mut subtrees = vec![];
    for k in 0..n_in {
        let column: Vec<Obj> = (0..n_out).map(|o| flat[o * n_in + k].clone()).collect();
        subtrees.push(unflatten(i, &outer, &column)?);
    }
    unflatten(i, &inner, &subtrees)
}

// ------------------------------------------------------------------ Partial

/// `jax.tree_util.Partial`: a `functools.partial` that is a pytree node
/// whose children are its arguments and whose aux data is the function.
fn partial_class(interp: &mut Interp) -> Result<Rc<Class>> {
    let attrs = vec![
        (
            "__init__".to_string(),
            Obj::native("Partial.__init__", |_, a| {
                let Some(Obj::Instance(this)) = a.pos.first() else {
                    bail!(TypeError, "Partial.__init__ needs an instance");
                };
                let Some(func) = a.pos.get(1) else {
                    bail!(TypeError, "type 'Partial' takes at least one argument");
                };
                set_partial(this, func.clone(), a.pos[2..].to_vec(), &a.kw);
                Ok(Obj::None)
            }),
        ),
        (
            "__call__".to_string(),
            Obj::native("Partial.__call__", |i, a| {
                let Some(Obj::Instance(this)) = a.pos.first() else {
                    bail!(TypeError, "Partial.__call__ needs an instance");
                };
                let (func, mut pos, mut kw) = partial_parts(this)?;
                pos.extend(a.pos[1..].iter().cloned());
                for (k, v) in a.kw {
                    kw.retain(|(n, _)| *n != k);
                    kw.push((k, v));
                }
                i.call(&func, Args::with(pos, kw))
            }),
        ),
    ];
    let mut class = Class::new("Partial", vec![], attrs);
    class.native = Some(Rc::new(PartialRepr));
    let class = Rc::new(class);
    let c2 = class.clone();
    let node = Registered {
        class: class.clone(),
        flatten: Some(Obj::native("Partial.flatten", |_, a| {
            let Some(Obj::Instance(this)) = a.pos.first() else {
                bail!(TypeError, "Partial.flatten needs an instance");
            };
            let args = this.get("args").unwrap_or(Obj::tuple(vec![]));
            let kw = this.get("keywords").unwrap_or(Obj::None);
            let func = this.get("func").unwrap_or(Obj::None);
            Ok(Obj::tuple(vec![Obj::tuple(vec![args, kw]), func]))
        })),
        flatten_with_keys: None,
        unflatten: Some(Obj::native("Partial.unflatten", move |_, a| {
            let func = a.pos.first().cloned().unwrap_or(Obj::None);
            let parts = iterate(a.pos.get(1).unwrap_or(&Obj::None))?;
            let [args, kw] = parts.as_slice() else {
                bail!(ValueError, "Partial.unflatten needs (args, keywords)");
            };
            let this = Rc::new(Instance::new(c2.clone()));
            this.set("func", func);
            this.set("args", args.clone());
            this.set("keywords", kw.clone());
            Ok(Obj::Instance(this))
        })),
    };
    interp.state::<Registry>().register(node)?;
    Ok(class)
}

fn set_partial(this: &Instance, func: Obj, args: Vec<Obj>, kw: &[(String, Obj)]) {
    let mut d = Dict::default();
    for (k, v) in kw {
        d.set(Obj::str(k), v.clone());
    }
    this.set("func", func);
    this.set("args", Obj::tuple(args));
    this.set("keywords", Obj::Dict(Rc::new(std::cell::RefCell::new(d))));
}

/// A partial's function, positional arguments and keyword arguments.
type Parts = (Obj, Vec<Obj>, Vec<(String, Obj)>);

fn partial_parts(this: &Instance) -> Result<Parts> {
    let func = this.get("func").unwrap_or(Obj::None);
    let pos = iterate(&this.get("args").unwrap_or(Obj::tuple(vec![])))?;
    let kw = match this.get("keywords") {
        Some(Obj::Dict(d)) => d
            .borrow()
            .items
            .iter()
            .map(|(k, v)| (str_of(k), v.clone()))
            .collect(),
        _ => vec![],
    };
    Ok((func, pos, kw))
}

/// `Partial(func, *args, **keywords)` as `functools.partial` prints it.
struct PartialRepr;

impl Object for PartialRepr {
    fn type_name(&self) -> String {
        "Partial".into()
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        let Obj::Instance(i) = this else { return None };
        let (func, pos, kw) = partial_parts(i).ok()?;
        let mut parts = vec![repr_of(&func)];
        parts.extend(pos.iter().map(repr_of));
        parts.extend(kw.iter().map(|(k, v)| format!("{k}={}", repr_of(v))));
        Some(format!("Partial({})", parts.join(", ")))
    }
}
