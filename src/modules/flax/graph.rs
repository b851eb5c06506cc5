//! The functional graph API of nnx: `split`, `merge`, `graphdef`, `state`
//! (with filters), `clone` and `graph.flatten`.
//!
//! A `GraphDef` keeps a private deep copy of the node it was taken from
//! (modules, lists, dicts and variables, with sharing preserved); `merge`
//! copies it again and sets the variables found in the states at their
//! paths. The states `split` and `state` return hold the node's own
//! variables, as Flax's do: writing a variable through a state changes the
//! module. `merge` puts the states' variables themselves into the new node
//! unless `copy=True`; `clone` copies them.

use std::collections::HashMap;

use super::filters::{first_passing, path_obj, to_predicate, Pred};
use super::nnx::collect_vars;
use super::*;

/// The behaviour of `GraphDef` instances (`nnx.graphdef`): the structure
/// of a node without its state. A GraphDef is a pytree node without
/// children whose copy of the node is static, so it passes through
/// `jax.jit` as Flax's does.
struct GraphDefNode;

impl Object for GraphDefNode {
    fn type_name(&self) -> String {
        "GraphDef".into()
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        super::graphdef_text::graphdef_text(&graphdef_node(this)?).ok()
    }

    fn children(&self, _: &Obj) -> Option<Vec<String>> {
        Some(vec![])
    }
}

/// The class of the GraphDefs a run makes. It is the run's own (kept in
/// the run context, see `exec::run::local`): a program may set attributes
/// on it, and those must not reach the next run on the same thread.
struct GraphDefClass(Rc<Class>);

impl Default for GraphDefClass {
    fn default() -> Self {
        // `repr` through `__repr__`, which can refuse what it cannot print.
        let repr = Obj::native("GraphDef.__repr__", |_, a| {
            let me = a.req(Some(0), "self", "__repr__")?;
            let node = graphdef_node(&me).unwrap_or(Obj::None);
            Ok(Obj::str(super::graphdef_text::graphdef_text(&node)?))
        });
        let module = ("__module__".into(), Obj::str("flax.nnx.graphlib"));
        let mut c = Class::new("GraphDef", vec![], vec![("__repr__".into(), repr), module]);
        c.native = Some(Rc::new(GraphDefNode));
        GraphDefClass(Rc::new(c))
    }
}

/// The run's GraphDef class (a class of its own outside a run).
fn graphdef_class() -> Rc<Class> {
    match crate::exec::run::local::<GraphDefClass>() {
        Some(c) => c.0.clone(),
        None => GraphDefClass::default().0,
    }
}

/// The node copy a GraphDef holds, when `g` is one.
pub(super) fn graphdef_node(g: &Obj) -> Option<Obj> {
    match g {
        Obj::Instance(i)
            if i.class
                .native()
                .is_some_and(|n| n.downcast::<GraphDefNode>().is_some()) =>
        {
            iattr(i, "node")
        }
        _ => None,
    }
}

/// A deep copy of nnx nodes and containers; arrays and other values are
/// shared. A node met twice is copied once.
fn deep_clone(o: &Obj, memo: &mut HashMap<usize, Obj>) -> Obj {
    match o {
        Obj::Instance(i) if is_nnx_module(i) || is_variable(i) || is_state(i) => {
            let id = Rc::as_ptr(i) as usize;
            if let Some(done) = memo.get(&id) {
                return done.clone();
            }
            let out = Rc::new(Instance::new(i.class.clone()));
            if is_nnx_module(i) {
                super::trace_level::note_made(&out);
            }
            memo.insert(id, Obj::Instance(out.clone()));
            let mut attrs = i.attrs.borrow().clone();
            // nnx rebuilds a module's attributes sorted by name.
            if is_nnx_module(i) {
                attrs.sort_by(|a, b| key_order(&a.0, &b.0));
            }
            let copied = attrs
                .iter()
                .map(|(k, v)| (k.clone(), deep_clone(v, memo)))
                .collect();
            *out.attrs.borrow_mut() = copied;
            Obj::Instance(out)
        }
        Obj::List(l) => {
            let items: Vec<Obj> = l.borrow().clone();
            let copies = items.iter().map(|x| deep_clone(x, memo)).collect();
            super::pytree::list_like(o, copies)
        }
        Obj::Tuple(t) => Obj::tuple(t.iter().map(|x| deep_clone(x, memo)).collect()),
        Obj::Dict(d) => {
            let mut n = crate::python::dict::Dict::default();
            for (k, v) in d.borrow().items.iter() {
                n.set(k.clone(), deep_clone(v, memo));
            }
            Obj::Dict(Rc::new(RefCell::new(n)))
        }
        other => other.clone(),
    }
}

/// A copy of a variable: same type, value and metadata.
fn copy_var(v: &Instance) -> Obj {
    instance(&v.class, v.attrs.borrow().clone())
}

/// The filters of a call from position `from` on, as predicates; none
/// means everything.
fn preds_from(a: &Args, from: usize) -> Result<Vec<Pred>> {
    if a.pos.len() <= from {
        return Ok(vec![Pred::Everything]);
    }
    a.pos[from..].iter().map(to_predicate).collect()
}

/// Groups the variables of `node` by the first filter they pass.
pub(super) fn group_vars(
    interp: &mut Interp,
    node: &Obj,
    preds: &[Pred],
    exhaustive: bool,
) -> Result<Vec<PathVarList>> {
    let mut all = vec![];
    collect_vars(node, &mut vec![], &|_| true, &mut all);
    let mut groups: Vec<PathVarList> = vec![vec![]; preds.len()];
    for (path, var) in all {
        let v = Obj::Instance(var.clone());
        if let Some(k) = first_passing(interp, preds, &path, &v, exhaustive)? {
            groups[k].push((path, var));
        }
    }
    Ok(groups)
}

pub(super) type PathVarList = Vec<(Vec<String>, Rc<Instance>)>;

/// One state per filter: the variables and the arrays held outside
/// variables that pass it first.
fn grouped_states(
    interp: &mut Interp,
    nnx_state: &Rc<Class>,
    node: &Obj,
    preds: &[Pred],
    exhaustive: bool,
) -> Result<Vec<Obj>> {
    let groups = group_vars(interp, node, preds, exhaustive)?;
    let mut raw = vec![vec![]; preds.len()];
    super::raw_arrays::group_raw(interp, node, preds, exhaustive, &mut raw)?;
    let builder = StateClass(nnx_state.clone());
    Ok(groups
        .iter()
        .zip(raw)
        .map(|(vars, arrays)| {
            let mut entries: Vec<(Vec<String>, Obj)> = vars
                .iter()
                .map(|(p, v)| (p.clone(), Obj::Instance(v.clone())))
                .collect();
            entries.extend(arrays);
            builder.build(entries)
        })
        .collect())
}

pub(super) fn state_of(nnx_state: &Rc<Class>, vars: &PathVarList) -> Obj {
    let state = StateClass(nnx_state.clone());
    state.build(vars.iter().map(|(p, v)| (p.clone(), copy_var(v))).collect())
}

/// Builds states of the `State` class.
pub(super) struct StateClass(pub(super) Rc<Class>);

/// Sorts flat state entries by path, as Flax's flat states are, so the
/// nested state made from them lists its keys sorted.
pub(super) fn sort_paths(entries: &mut [(Vec<String>, Obj)]) {
    entries.sort_by(|a, b| {
        for (x, y) in a.0.iter().zip(&b.0) {
            let o = key_order(x, y);
            if o != std::cmp::Ordering::Equal {
                return o;
            }
        }
        a.0.len().cmp(&b.0.len())
    });
}

impl StateClass {
    /// The nested state of `entries`, sorted by path.
    pub(super) fn build(&self, mut entries: Vec<(Vec<String>, Obj)>) -> Obj {
        sort_paths(&mut entries);
        self.build_in_order(entries)
    }

    /// The nested state of `entries` in the order given.
    pub(super) fn build_in_order(&self, entries: Vec<(Vec<String>, Obj)>) -> Obj {
        let root = Rc::new(Instance::new(self.0.clone()));
        for (path, v) in entries {
            let mut cur = root.clone();
            for (k, name) in path.iter().enumerate() {
                if k + 1 == path.len() {
                    set_iattr(&cur, name, v.clone());
                    continue;
                }
                let next = match iattr(&cur, name) {
                    Some(Obj::Instance(s)) if is_state(&s) => s,
                    _ => {
                        let s = Rc::new(Instance::new(self.0.clone()));
                        set_iattr(&cur, name, Obj::Instance(s.clone()));
                        s
                    }
                };
                cur = next;
            }
        }
        Obj::Instance(root)
    }
}

/// Sets every variable of `state` into the variable of `node` at the
/// same path (value and metadata).
pub(super) fn update_from(node: &Obj, state: &Obj) -> Result<()> {
    let mut targets = vec![];
    collect_vars(node, &mut vec![], &|_| true, &mut targets);
    let mut sources = vec![];
    collect_vars(state, &mut vec![], &|_| true, &mut sources);
    for (path, src) in sources {
        match targets.iter().find(|(p, _)| *p == path) {
            // The node holds that very variable (a state of its own).
            Some((_, dst)) if Rc::ptr_eq(dst, &src) => {}
            Some((_, dst)) => {
                for (k, v) in src.attrs.borrow().iter() {
                    set_iattr(dst, k, v.clone());
                }
            }
            None => bail!(
                ValueError,
                "the state has a variable at {} that the node does not have",
                path.join("/")
            ),
        }
    }
    // A pure state (`nnx.as_pure`) holds arrays where the variables were;
    // they become those variables' values.
    let mut arrays = vec![];
    pure_leaves(state, &mut vec![], &mut arrays);
    for (path, value) in arrays {
        match targets.iter().find(|(p, _)| *p == path) {
            Some((_, dst)) => set_iattr(dst, "value", value),
            // An array the module holds outside a variable.
            None if super::raw_arrays::set_raw(node, &path, value.clone())? => {}
            None => bail!(
                ValueError,
                "the state has a value at {} where the node has no variable",
                path.join("/")
            ),
        }
    }
    Ok(())
}

/// The arrays a state holds in place of variables, with their paths.
fn pure_leaves(o: &Obj, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, Obj)>) {
    match o {
        Obj::Array(_) if !path.is_empty() => out.push((path.clone(), o.clone())),
        Obj::Instance(i) if super::is_state(i) => {
            for (k, v) in i.attrs.borrow().iter() {
                path.push(k.clone());
                pure_leaves(v, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

pub(super) fn graphdef_of(node: &Obj) -> Obj {
    let copy = deep_clone(node, &mut HashMap::new());
    instance(&graphdef_class(), vec![("node".into(), copy)])
}

/// `nnx.merge(graphdef, *states, copy=False)`: the new node holds the
/// states' variables themselves, or copies of them with `copy=True`.
fn merge(a: &Args) -> Result<Obj> {
    let g = a.req(Some(0), "graphdef", "merge")?;
    let copy = match a.get(None, "copy") {
        Some(c) => truthy(&c, "merge")?,
        None => false,
    };
    let Some(def) = graphdef_node(&g) else {
        bail!(TypeError, "merge expects a GraphDef, got {}", g.type_name());
    };
    let mut own = vec![];
    collect_vars(&def, &mut vec![], &|_| true, &mut own);
    let mut given = vec![];
    for st in &a.pos[1..] {
        collect_vars(st, &mut vec![], &|_| true, &mut given);
    }
    // Each variable of the graphdef's node is replaced by the state's
    // variable at its path when the copy below meets it.
    let mut memo = HashMap::new();
    for (path, var) in &given {
        if let Some((_, mine)) = own.iter().find(|(p, _)| p == path) {
            let used = match copy {
                true => copy_var(var),
                false => Obj::Instance(var.clone()),
            };
            memo.insert(Rc::as_ptr(mine) as usize, used);
        }
    }
    let node = deep_clone(&def, &mut memo);
    for st in &a.pos[1..] {
        update_from(&node, st)?;
    }
    Ok(node)
}

/// `nnx.merge(graphdef, *states)` holding the states' variables themselves.
pub(super) fn merge_sharing(g: &Obj, states: &[Obj]) -> Result<Obj> {
    let mut pos = vec![g.clone()];
    pos.extend(states.iter().cloned());
    merge(&Args::new(pos))
}

/// `nnx.merge(graphdef, *states)`.
pub(super) fn merge_parts(g: &Obj, states: &[Obj]) -> Result<Obj> {
    let Some(def) = graphdef_node(g) else {
        bail!(TypeError, "merge expects a GraphDef, got {}", g.type_name());
    };
    let node = deep_clone(&def, &mut HashMap::new());
    for st in states {
        update_from(&node, st)?;
    }
    Ok(node)
}

/// The state of every variable of `node`.
pub(super) fn full_state(nnx_state: &Rc<Class>, node: &Obj) -> Obj {
    let mut all = vec![];
    collect_vars(node, &mut vec![], &|_| true, &mut all);
    state_of(nnx_state, &all)
}

/// Whether `a` and `b` are one graph node or node leaf (a module, a
/// variable or an array).
fn same_node(a: &Obj, b: &Obj) -> bool {
    match (a, b) {
        (Obj::Instance(x), Obj::Instance(y)) => Rc::ptr_eq(x, y),
        (Obj::Array(Value::Concrete(x)), Obj::Array(Value::Concrete(y))) => x.is_same(y),
        _ => false,
    }
}

/// The paths at which each graph node and node leaf of `o` is met, in the
/// order first met; containers are walked but are not nodes.
fn node_paths(o: &Obj, path: &mut Vec<String>, seen: &mut Vec<(Obj, Vec<Vec<String>>)>) {
    let is_node = match o {
        Obj::Instance(i) => is_nnx_module(i) || is_variable(i),
        Obj::Array(_) => true,
        _ => false,
    };
    if is_node {
        if let Some((_, paths)) = seen.iter_mut().find(|(n, _)| same_node(n, o)) {
            paths.push(path.clone());
            return;
        }
        seen.push((o.clone(), vec![path.clone()]));
    }
    let children: Vec<(String, Obj)> = match o {
        Obj::Instance(i) if is_nnx_module(i) => pytree_children(i)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|n| iattr(i, &n).map(|v| (n, v)))
            .collect(),
        Obj::List(_) | Obj::Tuple(_) => iterate(o)
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        Obj::Dict(d) => d
            .borrow()
            .items
            .iter()
            .map(|(k, v)| (str_of(k), v.clone()))
            .collect(),
        _ => vec![],
    };
    for (k, v) in children {
        path.push(k);
        node_paths(&v, path, seen);
        path.pop();
    }
}

/// `nnx.find_duplicates(node)`: the paths of every node met more than once.
fn find_duplicates(a: &Args) -> Result<Obj> {
    let node = a.req(Some(0), "node", "find_duplicates")?;
    if a.get(None, "only").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: flax.nnx.find_duplicates(only=...)"
        );
    }
    let mut seen = vec![];
    node_paths(&node, &mut vec![], &mut seen);
    Ok(Obj::list(
        seen.into_iter()
            .filter(|(_, p)| p.len() > 1)
            .map(|(_, p)| Obj::list(p.iter().map(|x| path_obj(x)).collect()))
            .collect(),
    ))
}

/// Whether some NNX object of `node`'s graph is reached by two paths.
pub(super) fn has_duplicates(node: &Obj) -> bool {
    let mut seen = vec![];
    node_paths(node, &mut vec![], &mut seen);
    seen.iter()
        .any(|(o, p)| p.len() > 1 && matches!(o, Obj::Instance(_)))
}

/// Adds `split`, `merge`, `graphdef`, `state`, `update`, `clone`,
/// `map_state`, `find_duplicates` and `graph` to `flax.nnx`, and `State.from_flat_path`.
pub(super) fn register(b: &mut Builder, state: &Rc<Class>) {
    register_split_merge(b, state);
    register_graph_module(b);
    add_from_flat_path(state);
    state_methods(state);
}

/// `split`, `state`, `graphdef`, `merge`, `pop`, `update`, `clone`,
/// `map_state`: taking a graph of nodes apart and putting it together.
fn register_split_merge(b: &mut Builder, state: &Rc<Class>) {
    let st = state.clone();
    b.func("split", move |interp, a| {
        let node = a.req(Some(0), "node", "split")?;
        let preds = preds_from(&a, 1)?;
        let states = grouped_states(interp, &st, &node, &preds, true)?;
        let mut out = vec![graphdef_of(&node)];
        out.extend(states);
        Ok(Obj::tuple(out))
    });
    // `nnx.variables` is another name of `nnx.state` in Flax.
    for name in ["state", "variables"] {
        let st = state.clone();
        b.func(name, move |interp, a| {
            let node = a.req(Some(0), "node", name)?;
            let preds = preds_from(&a, 1)?;
            let states = grouped_states(interp, &st, &node, &preds, false)?;
            Ok(if states.len() == 1 {
                states.into_iter().next().unwrap_or(Obj::None)
            } else {
                Obj::tuple(states)
            })
        });
    }
    b.func("graphdef", |_, a| {
        Ok(graphdef_of(&a.req(Some(0), "node", "graphdef")?))
    });
    b.func("merge", |_, a| merge(&a));
    let st = state.clone();
    b.func("pop", move |interp, a| super::pop::pop(interp, &st, a));
    b.func("find_duplicates", |_, a| find_duplicates(&a));
    b.func("update", |_, a| {
        let node = a.req(Some(0), "node", "update")?;
        for st in &a.pos[1..] {
            update_from(&node, st)?;
        }
        Ok(Obj::None)
    });
    b.func("clone", |_, a| {
        Ok(deep_clone(
            &a.req(Some(0), "node", "clone")?,
            &mut HashMap::new(),
        ))
    });
    let st = state.clone();
    b.func("map_state", move |interp, a| {
        let f = a.req(Some(0), "f", "map_state")?;
        let state = a.req(Some(1), "state", "map_state")?;
        let mut all = vec![];
        collect_vars(&state, &mut vec![], &|_| true, &mut all);
        let entries = all
            .into_iter()
            .map(|(p, v)| {
                let args = vec![path_obj(&p), Obj::Instance(v)];
                Ok((p, interp.call(&f, Args::new(args))?))
            })
            .collect::<Result<_>>()?;
        Ok(StateClass(st.clone()).build(entries))
    });
}

/// `nnx.graph`, with its `flatten` and `Key`.
fn register_graph_module(b: &mut Builder) {
    let mut g = Builder::new("flax.nnx.graph");
    g.func("flatten", |_, a| {
        let node = a.req(Some(0), "node", "flatten")?;
        let mut all = vec![];
        collect_vars(&node, &mut vec![], &|_| true, &mut all);
        let flat: Vec<Obj> = all
            .iter()
            .map(|(p, v)| Obj::tuple(vec![path_obj(p), Obj::Instance(v.clone())]))
            .collect();
        Ok(Obj::tuple(vec![graphdef_of(&node), Obj::list(flat)]))
    });
    g.attr("Key", Obj::Type("str"));
    b.attr("graph", g.build());
}

/// `State.from_flat_path`, a State from `(path, value)` pairs.
fn add_from_flat_path(state: &Rc<Class>) {
    let st = state.clone();
    let from_flat = Obj::native("State.from_flat_path", move |_, a| {
        let flat = a.req(Some(0), "flat_state", "from_flat_path")?;
        let items = match &flat {
            Obj::Dict(d) => d.borrow().items.clone(),
            other => iterate(other)?
                .iter()
                .map(|kv| {
                    let p = iterate(kv)?;
                    Ok((p[0].clone(), p[1].clone()))
                })
                .collect::<Result<_>>()?,
        };
        let entries = items
            .iter()
            .map(|(k, v)| Ok((iterate(k)?.iter().map(str_of).collect(), v.clone())))
            .collect::<Result<_>>()?;
        Ok(StateClass(st.clone()).build(entries))
    });
    state.attrs.borrow_mut().push((
        "from_flat_path".into(),
        Obj::lib(crate::python::classes::StaticMethod(from_flat)),
    ));
}

/// `State.filter`, `State.split` and `State.merge`: their states hold the
/// same variables as `self`, as Flax's do.
fn state_methods(state: &Rc<Class>) {
    let mut methods = vec![];
    for (name, exhaustive) in [("filter", false), ("split", true)] {
        let st = state.clone();
        let f = Obj::native(format!("State.{name}"), move |interp, a| {
            let me = a.req(Some(0), "self", name)?;
            if a.pos.len() < 2 {
                bail!(TypeError, "State.{name}() expects at least one filter");
            }
            let preds = preds_from(&a, 1)?;
            let states = grouped_states(interp, &st, &me, &preds, exhaustive)?;
            Ok(match states.len() {
                1 => states.into_iter().next().unwrap_or(Obj::None),
                _ => Obj::tuple(states),
            })
        });
        methods.push((name.to_string(), f));
    }
    // A classmethod in Flax: `a.merge(b)` merges `b` alone.
    let st = state.clone();
    let merge = Obj::native("State.merge", move |_, a| {
        super::capture::merge_state(&st, a)
    });
    methods.push((
        "merge".into(),
        Obj::lib(crate::python::classes::StaticMethod(merge)),
    ));
    let st = state.clone();
    methods.push((
        "__init__".into(),
        Obj::native("State.__init__", move |_, a| {
            let me = a.req(Some(0), "self", "__init__")?;
            let mapping = a.req(Some(1), "mapping", "__init__")?;
            if let Obj::Instance(i) = &me {
                *i.attrs.borrow_mut() = state_entries(&st, &mapping)?;
            }
            Ok(Obj::None)
        }),
    ));
    state.attrs.borrow_mut().extend(methods);
}

/// The entries of `nnx.State(mapping)`: a dict (nested dicts become
/// nested states), a State or an iterable of key-value pairs.
fn state_entries(state: &Rc<Class>, mapping: &Obj) -> Result<Vec<(String, Obj)>> {
    let items: Vec<(Obj, Obj)> = match mapping {
        Obj::Dict(d) => d.borrow().items.clone(),
        Obj::Instance(i) if is_state(i) => i
            .attrs
            .borrow()
            .iter()
            .map(|(k, v)| (Obj::str(k), v.clone()))
            .collect(),
        other => iterate(other)?
            .iter()
            .map(|kv| {
                let p = iterate(kv)?;
                match p.as_slice() {
                    [k, v] => Ok((k.clone(), v.clone())),
                    _ => bail!(TypeError, "State expects key-value pairs"),
                }
            })
            .collect::<Result<_>>()?,
    };
    items
        .into_iter()
        .map(|(k, v)| {
            let v = match &v {
                Obj::Dict(_) => {
                    let inner = Rc::new(Instance::new(state.clone()));
                    *inner.attrs.borrow_mut() = state_entries(state, &v)?;
                    Obj::Instance(inner)
                }
                _ => v,
            };
            Ok((str_of(&k), v))
        })
        .collect()
}

/// Makes the node `orig` what `new` (a rebuilt copy) is, keeping the
/// caller's submodules and variables as objects where both have them at
/// the same attribute with the same type, as Flax's graph updates do (so
/// references held elsewhere, like a `SplitBackups`, still see them).
pub(super) fn sync_into(orig: &Rc<Instance>, new: &Rc<Instance>) {
    if Rc::ptr_eq(orig, new) {
        return;
    }
    if is_variable(orig) {
        *orig.attrs.borrow_mut() = new.attrs.borrow().clone();
        return;
    }
    let old = orig.attrs.borrow().clone();
    let mut out = vec![];
    for (k, v) in new.attrs.borrow().iter() {
        let kept = old
            .iter()
            .find(|(ok, _)| ok == k)
            .and_then(|(_, ov)| match (ov, v) {
                (Obj::Instance(a), Obj::Instance(b))
                    if Rc::ptr_eq(&a.class, &b.class)
                        && (is_nnx_module(a) || is_variable(a) || is_state(a)) =>
                {
                    sync_into(a, b);
                    Some(ov.clone())
                }
                _ => None,
            });
        out.push((k.clone(), kept.unwrap_or_else(|| v.clone())));
    }
    *orig.attrs.borrow_mut() = out;
}
