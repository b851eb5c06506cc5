//! `nnx.recursive_map` and `nnx.view`.
//!
//! `recursive_map(f, node)` first copies the graph's structure (modules,
//! lists, dicts) while sharing its variables, then walks the copy depth
//! first, children in the order nnx keeps them (attribute names sorted,
//! list positions, dict keys sorted), calls `f(path, x)` on every leaf,
//! variable and container after its children, and puts what `f` returns
//! in the parent's place. A node met again through a shared reference
//! gets the result of its first visit.
//!
//! `view(node, **kwargs)` is a `recursive_map` that calls each module's
//! `set_view` with the keyword arguments it names, so the view shares the
//! model's variables while `deterministic` and the like differ.

use std::collections::HashMap;

use super::filters::to_predicate;
use super::*;
use crate::python::ops::compare;
use rustpython_parser::ast::CmpOp;

/// The identity of a node nnx tracks by reference, if it is one.
fn node_id(o: &Obj) -> Option<usize> {
    match o {
        Obj::Instance(i) if is_nnx_module(i) || is_variable(i) => Some(Rc::as_ptr(i) as usize),
        Obj::List(l) => Some(Rc::as_ptr(l) as usize),
        Obj::Dict(d) => Some(Rc::as_ptr(d) as usize),
        _ => None,
    }
}

/// A copy of the structure of `o` with its variables (and anything that
/// is not a module, list, dict or tuple) shared.
fn clone_structure(o: &Obj, memo: &mut HashMap<usize, Obj>) -> Obj {
    if let Some(id) = node_id(o) {
        if let Some(done) = memo.get(&id) {
            return done.clone();
        }
    }
    match o {
        Obj::Instance(i) if is_nnx_module(i) => {
            let out = Rc::new(Instance::new(i.class.clone()));
            super::trace_level::note_made(&out);
            memo.insert(Rc::as_ptr(i) as usize, Obj::Instance(out.clone()));
            // nnx rebuilds a cloned module's attributes sorted by name.
            let mut attrs = i.attrs.borrow().clone();
            attrs.sort_by(|a, b| key_order(&a.0, &b.0));
            let copied = attrs
                .iter()
                .map(|(k, v)| (k.clone(), clone_structure(v, memo)))
                .collect();
            *out.attrs.borrow_mut() = copied;
            Obj::Instance(out)
        }
        Obj::List(l) => {
            let out = super::pytree::list_like(o, vec![]);
            memo.insert(Rc::as_ptr(l) as usize, out.clone());
            let items: Vec<Obj> = l
                .borrow()
                .iter()
                .map(|x| clone_structure(x, memo))
                .collect();
            if let Obj::List(new) = &out {
                *new.borrow_mut() = items;
            }
            out
        }
        Obj::Tuple(t) => Obj::tuple(t.iter().map(|x| clone_structure(x, memo)).collect()),
        Obj::Dict(d) => {
            let mut n = d.borrow().clone();
            for (_, v) in n.items.iter_mut() {
                *v = clone_structure(v, memo);
            }
            let out = Obj::Dict(Rc::new(RefCell::new(n)));
            memo.insert(Rc::as_ptr(d) as usize, out.clone());
            out
        }
        other => other.clone(),
    }
}

/// The children of a node with their keys, in nnx's order.
fn children(o: &Obj) -> Vec<(Obj, Obj)> {
    match o {
        Obj::Instance(i) if is_nnx_module(i) => {
            let mut attrs: Vec<(String, Obj)> = i
                .attrs
                .borrow()
                .iter()
                .filter(|(k, _)| !k.starts_with("_nnx"))
                .cloned()
                .collect();
            attrs.sort_by(|a, b| a.0.cmp(&b.0));
            attrs.into_iter().map(|(k, v)| (Obj::str(k), v)).collect()
        }
        Obj::List(l) => l
            .borrow()
            .iter()
            .enumerate()
            .map(|(k, v)| (Obj::Int(k as i64), v.clone()))
            .collect(),
        Obj::Tuple(t) => t
            .iter()
            .enumerate()
            .map(|(k, v)| (Obj::Int(k as i64), v.clone()))
            .collect(),
        Obj::Dict(d) => {
            let mut items = d.borrow().items.clone();
            items.sort_by(|a, b| key_order(&str_of(&a.0), &str_of(&b.0)));
            items
        }
        _ => vec![],
    }
}

/// Puts `v` under `key` in `node`; tuples cannot change.
fn set_child(node: &Obj, key: &Obj, v: Obj) -> Result<()> {
    match node {
        Obj::Instance(i) => set_iattr(i, &str_of(key), v),
        Obj::List(l) => {
            let k = to_int(key)? as usize;
            if let Some(slot) = l.borrow_mut().get_mut(k) {
                *slot = v;
            }
        }
        Obj::Dict(d) => d.borrow_mut().set(key.clone(), v),
        other => bail!(
            ValueError,
            "Cannot update key '{}' for node of type '<class '{}'>' because the node does not support mutation.",
            str_of(key),
            other.type_name()
        ),
    }
    Ok(())
}

struct Walk<'a> {
    f: &'a Obj,
    visited: HashMap<usize, Option<Obj>>,
}

impl Walk<'_> {
    fn visit(&mut self, interp: &mut Interp, node: &Obj, path: &mut Vec<Obj>) -> Result<Obj> {
        let id = node_id(node);
        if let Some(id) = id {
            match self.visited.get(&id) {
                Some(Some(done)) => return Ok(done.clone()),
                Some(None) => {
                    let p: Vec<String> = path.iter().map(str_of).collect();
                    bail!(
                        ValueError,
                        "Found cycle in the graph at path '{}'. Node of type <class '{}'> has already been visited but has not been returned yet.",
                        p.join("/"),
                        node.type_name()
                    );
                }
                None => {
                    self.visited.insert(id, None);
                }
            }
        }
        let is_leaf = matches!(node, Obj::Instance(i) if is_variable(i));
        if !is_leaf {
            for (key, value) in children(node) {
                path.push(key.clone());
                let new = self.visit(interp, &value, path)?;
                path.pop();
                if !matches!(compare(&CmpOp::Is, &new, &value)?, Obj::Bool(true)) {
                    set_child(node, &key, new)?;
                }
            }
        }
        let out = interp.call(
            self.f,
            Args::new(vec![Obj::tuple(path.clone()), node.clone()]),
        )?;
        if let Some(id) = id {
            self.visited.insert(id, Some(out.clone()));
        }
        Ok(out)
    }
}

/// `nnx.recursive_map(f, node)`.
pub(super) fn recursive_map(interp: &mut Interp, f: &Obj, node: &Obj) -> Result<Obj> {
    let copy = clone_structure(node, &mut HashMap::new());
    let mut walk = Walk {
        f,
        visited: HashMap::new(),
    };
    walk.visit(interp, &copy, &mut vec![])
}

/// The keyword arguments a `set_view` accepts: its named parameters, or
/// all of them when it takes `**kwargs`.
fn view_params(set_view: &Obj, class: &Rc<Class>) -> Option<Vec<String>> {
    match set_view {
        Obj::Func(f) => {
            if f.params.kwarg.is_some() {
                return None;
            }
            let named = f.params.args.iter().chain(&f.params.kwonlyargs);
            Some(named.map(|a| a.def.arg.as_str().to_string()).collect())
        }
        _ => match class.lookup("__set_view_params__") {
            Some(Obj::Tuple(t)) => Some(t.iter().map(str_of).collect()),
            _ => None,
        },
    }
}

fn view(interp: &mut Interp, a: Args) -> Result<Obj> {
    let node = a.req(Some(0), "node", "view")?;
    // Every other keyword names an attribute to set; unknown ones fail below.
    a.read_all();
    let only = to_predicate(&a.get(None, "only").unwrap_or(Obj::Ellipsis))?;
    let strict = match a.get(None, "raise_if_not_found") {
        Some(o) => truthy(&o, "raise_if_not_found")?,
        None => true,
    };
    let options: Vec<(String, Obj)> =
        a.kw.iter()
            .filter(|(k, _)| !matches!(k.as_str(), "only" | "raise_if_not_found" | "graph"))
            .cloned()
            .collect();
    let remaining = Rc::new(RefCell::new(
        options.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(),
    ));
    let set_modes = {
        let (options, remaining) = (options.clone(), remaining.clone());
        let only = only.clone();
        Obj::native("view.set_view", move |interp, call| {
            let path = call.req(Some(0), "path", "set_view")?;
            let node = call.req(Some(1), "node", "set_view")?;
            let Obj::Instance(i) = &node else {
                return Ok(node);
            };
            let Some(method) = i.class.lookup("set_view") else {
                return Ok(node);
            };
            if !only.eval(interp, &path, &node)? {
                return Ok(node);
            }
            let kw: Vec<(String, Obj)> = match view_params(&method, &i.class) {
                None => {
                    remaining.borrow_mut().clear();
                    options.clone()
                }
                Some(names) => {
                    remaining.borrow_mut().retain(|k| !names.contains(k));
                    options
                        .iter()
                        .filter(|(k, _)| names.contains(k))
                        .cloned()
                        .collect()
                }
            };
            let bound = crate::python::ops::getattr(interp, &node, "set_view")?;
            interp.call(&bound, Args::with(vec![], kw))?;
            Ok(node)
        })
    };
    let out = recursive_map(interp, &set_modes, &node)?;
    let mut left = remaining.borrow().clone();
    if strict && !left.is_empty() {
        left.sort();
        let names: Vec<String> = left.iter().map(|k| repr_of(&Obj::str(k))).collect();
        bail!(
            ValueError,
            "Unused keys found in nnx.view: [{}]",
            names.join(", ")
        );
    }
    Ok(out)
}

/// A native `set_view` that sets each of `names` given a value other
/// than None, with the names recorded for `view` and the lines
/// `view_info` prints for them.
pub(super) fn set_view_attrs(
    names: &'static [&'static str],
    info: &'static str,
) -> Vec<(String, Obj)> {
    let method = Obj::native("set_view", move |_, a| {
        let me = self_arg(&a, "set_view")?;
        for (k, v) in &a.kw {
            if !names.contains(&k.as_str()) {
                bail!(
                    TypeError,
                    "set_view() got an unexpected keyword argument '{k}'"
                );
            }
            if !matches!(v, Obj::None) {
                set_iattr(&me, k, v.clone());
            }
        }
        Ok(Obj::None)
    });
    vec![
        ("set_view".into(), method),
        (
            "__set_view_params__".into(),
            Obj::tuple(names.iter().map(Obj::str).collect()),
        ),
        ("__set_view_info__".into(), Obj::str(info)),
    ]
}

/// Adds `recursive_map` and `view` to `flax.nnx`.
pub(super) fn register(b: &mut Builder) {
    b.func("recursive_map", |interp, a| {
        if matches!(a.get(None, "graph"), Some(Obj::Bool(false))) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.recursive_map with graph=False"
            );
        }
        let f = a.req(Some(0), "f", "recursive_map")?;
        let node = a.req(Some(1), "node", "recursive_map")?;
        recursive_map(interp, &f, &node)
    });
    b.func("view", view);
    b.func("view_info", super::view_info::view_info);
}
