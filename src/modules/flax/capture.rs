//! `nnx.capture`, `Module.sow` and `Module.perturb`: intermediate values
//! collected while a function runs on a module.
//!
//! `capture(fn, *var_types, init=None, method_outputs=None)` gives every
//! module of the graph a `__captures__` attribute (data): a tuple holding,
//! for each captured variable type and each type found in `init` at that
//! module's path, a variable of that type whose value is a dict. While the
//! function runs, `sow(type, name, value)` appends `value` to the tuple
//! under `name` in the dict of exactly that type (and returns whether it
//! found one), and `perturb(name, value)` returns `value` plus the
//! perturbation stored under `name` (zeros the first time). With
//! `method_outputs`, each public method and `__call__` defined by a
//! module's own class sows its result under the method's name. Afterwards
//! the dicts of the captured types become states (one per type, by module
//! path) and the attributes are removed.

use super::*;
use crate::python::dict::Dict as PyDict;
use crate::python::ops::{binop, setitem};
use rustpython_parser::ast::Operator;

/// The classes capture works with.
#[derive(Clone)]
pub(super) struct CaptureClasses {
    pub variable: Rc<Class>,
    pub perturbation: Rc<Class>,
    pub state: Rc<Class>,
}

const CAPTURES: &str = "__captures__";

/// The modules of the graph under `node` with their paths, each once.
fn iter_modules(node: &Obj) -> Vec<(Vec<String>, Rc<Instance>)> {
    fn walk(
        o: &Obj,
        path: &mut Vec<String>,
        seen: &mut Vec<usize>,
        out: &mut Vec<(Vec<String>, Rc<Instance>)>,
    ) {
        let kids: Vec<(String, Obj)> = match o {
            Obj::Instance(i) if is_nnx_module(i) => {
                let id = Rc::as_ptr(i) as usize;
                if seen.contains(&id) {
                    return;
                }
                seen.push(id);
                out.push((path.clone(), i.clone()));
                pytree_children(i)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|n| n != CAPTURES)
                    .filter_map(|n| iattr(i, &n).map(|v| (n, v)))
                    .collect()
            }
            Obj::List(_) | Obj::Tuple(_) => iterate(o)
                .unwrap_or_default()
                .into_iter()
                .enumerate()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            Obj::Dict(d) => {
                let mut items: Vec<(String, Obj)> = d
                    .borrow()
                    .items
                    .iter()
                    .map(|(k, v)| (str_of(k), v.clone()))
                    .collect();
                items.sort_by(|a, b| key_order(&a.0, &b.0));
                items
            }
            _ => vec![],
        };
        for (k, v) in kids {
            path.push(k);
            walk(&v, path, seen, out);
            path.pop();
        }
    }
    let mut out = vec![];
    walk(node, &mut vec![], &mut vec![], &mut out);
    out
}

/// The variables a state holds directly, by name, with the state's path.
type VarsAtPath = (Vec<String>, Vec<(String, Rc<Instance>)>);

/// The variables of `init` grouped by the path of the state holding them.
fn init_by_path(init: &Obj) -> Vec<VarsAtPath> {
    fn walk(s: &Instance, path: &mut Vec<String>, out: &mut Vec<VarsAtPath>) {
        for (k, v) in s.attrs.borrow().iter() {
            match v {
                Obj::Instance(var) if is_variable(var) => {
                    let entry = match out.iter_mut().position(|(p, _)| p == path) {
                        Some(at) => &mut out[at].1,
                        None => {
                            out.push((path.clone(), vec![]));
                            let last = out.len() - 1;
                            &mut out[last].1
                        }
                    };
                    entry.push((k.clone(), var.clone()));
                }
                Obj::Instance(sub) if is_state(sub) => {
                    path.push(k.clone());
                    walk(sub, path, out);
                    path.pop();
                }
                _ => {}
            }
        }
    }
    let mut out = vec![];
    if let Obj::Instance(s) = init {
        if is_state(s) {
            walk(s, &mut vec![], &mut out);
        }
    }
    out
}

/// The dict a capture variable holds.
fn captured_dict(var: &Instance) -> Result<Obj> {
    match iattr(var, "value") {
        Some(d @ Obj::Dict(_)) => Ok(d),
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: a {} in __captures__ whose value is not a dict",
            var.class.name
        ),
    }
}

fn dict_get(d: &Obj, key: &Obj) -> Option<Obj> {
    match d {
        Obj::Dict(d) => d.borrow().get(key),
        _ => None,
    }
}

/// The capture variables of `module` (its `__captures__` tuple).
fn captures_of(module: &Instance) -> Result<Option<Vec<Rc<Instance>>>> {
    let Some(t) = iattr(module, CAPTURES) else {
        return Ok(None);
    };
    let vars = iterate(&t)?
        .into_iter()
        .filter_map(|v| match v {
            Obj::Instance(i) => Some(i),
            _ => None,
        })
        .collect();
    Ok(Some(vars))
}

fn outside_capture(method: &str) -> crate::error::Error {
    err!(
        NotImplementedError,
        "not supported by shardlab yet: Module.{method} outside nnx.capture"
    )
}

fn variable_type(o: &Obj, method: &str) -> Result<Rc<Class>> {
    match o {
        Obj::Class(c) => Ok(c.clone()),
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: Module.{method} with a variable type given by name"
        ),
    }
}

/// Appends `value` under `name` in `module`'s capture of type `vt`;
/// false when it captures no such type.
fn sow_into(
    interp: &mut Interp,
    module: &Instance,
    vt: &Rc<Class>,
    name: &Obj,
    value: Obj,
    reduce: Option<&Obj>,
    init: Option<&Obj>,
) -> Result<bool> {
    let Some(vars) = captures_of(module)? else {
        return Err(outside_capture("sow"));
    };
    let Some(var) = vars.iter().find(|v| Rc::ptr_eq(&v.class, vt)) else {
        return Ok(false);
    };
    let dict = captured_dict(var)?;
    let start = match (dict_get(&dict, name), init) {
        (Some(old), _) => old,
        (None, Some(f)) => interp.call(f, Args::default())?,
        (None, None) => Obj::tuple(vec![]),
    };
    let new = match reduce {
        Some(f) => interp.call(f, Args::new(vec![start, value]))?,
        None => binop(
            interp,
            &Operator::Add,
            &start,
            &Obj::tuple(vec![value]),
            false,
        )?,
    };
    setitem(&dict, name.clone(), new)?;
    Ok(true)
}

/// `Module.sow(variable_type, name, value, reduce_fn, init_fn)`.
fn sow(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "sow")?;
    let vt = variable_type(&a.req(Some(1), "variable_type", "sow")?, "sow")?;
    let name = a.req(Some(2), "name", "sow")?;
    let value = a.req(Some(3), "value", "sow")?;
    let reduce = a.get(Some(4), "reduce_fn");
    let init = a.get(Some(5), "init_fn");
    let found = sow_into(
        interp,
        &me,
        &vt,
        &name,
        value,
        reduce.as_ref(),
        init.as_ref(),
    )?;
    Ok(Obj::Bool(found))
}

/// `jax.tree.map(jnp.zeros_like, value)`.
fn zeros_like_tree(interp: &mut Interp, value: &Obj) -> Result<Obj> {
    let tree = super::super::import(interp, "jax.tree")?;
    let map = crate::python::ops::getattr(interp, &tree, "map")?;
    let jnp = super::super::import(interp, "jax.numpy")?;
    let zeros_like = crate::python::ops::getattr(interp, &jnp, "zeros_like")?;
    interp.call(&map, Args::new(vec![zeros_like, value.clone()]))
}

/// `Module.perturb(name, value, variable_type=Perturbation)`.
fn perturb(interp: &mut Interp, a: Args, perturbation: &Rc<Class>) -> Result<Obj> {
    let me = self_arg(&a, "perturb")?;
    let name = a.req(Some(1), "name", "perturb")?;
    let value = a.req(Some(2), "value", "perturb")?;
    let vt = match a.get(Some(3), "variable_type") {
        Some(o) => variable_type(&o, "perturb")?,
        None => perturbation.clone(),
    };
    let Some(vars) = captures_of(&me)? else {
        return Err(outside_capture("perturb"));
    };
    let Some(var) = vars.iter().find(|v| Rc::ptr_eq(&v.class, &vt)) else {
        return Ok(value);
    };
    let dict = captured_dict(var)?;
    let old = match dict_get(&dict, &name) {
        Some(old) => old,
        None => {
            let zeros = zeros_like_tree(interp, &value)?;
            setitem(&dict, name.clone(), zeros.clone())?;
            zeros
        }
    };
    binop(interp, &Operator::Add, &old, &value, false)
}

/// Gives each module its `__captures__`: a variable per type with a dict
/// of the values `init` has at the module's path.
fn install(
    interp: &mut Interp,
    modules: &[(Vec<String>, Rc<Instance>)],
    types: &[Rc<Class>],
    init: &Obj,
) -> Result<()> {
    let by_path = init_by_path(init);
    for (path, m) in modules {
        let mut dicts: Vec<(Rc<Class>, PyDict)> = types
            .iter()
            .map(|t| (t.clone(), PyDict::default()))
            .collect();
        if let Some((_, vars)) = by_path.iter().find(|(p, _)| p == path) {
            for (name, var) in vars {
                let at = match dicts.iter().position(|(c, _)| Rc::ptr_eq(c, &var.class)) {
                    Some(at) => at,
                    None => {
                        dicts.push((var.class.clone(), PyDict::default()));
                        dicts.len() - 1
                    }
                };
                let value = iattr(var, "value").unwrap_or(Obj::None);
                dicts[at].1.set(Obj::str(name), value);
            }
        }
        let mut vars = vec![];
        for (c, d) in dicts {
            let dict = Obj::Dict(Rc::new(RefCell::new(d)));
            vars.push(interp.call(&Obj::Class(c), Args::new(vec![dict]))?);
        }
        super::pytree::assign_data(m, CAPTURES, Obj::tuple(vars))?;
    }
    Ok(())
}

/// A method replaced to sow its result, and what it replaced.
struct Wrapped {
    class: Rc<Class>,
    name: String,
    original: Obj,
}

/// Replaces the public methods and `__call__` defined by the modules'
/// own classes with ones that sow their results as `vt`.
fn wrap_methods(modules: &[(Vec<String>, Rc<Instance>)], vt: &Rc<Class>) -> Vec<Wrapped> {
    let mut done: Vec<Wrapped> = vec![];
    for (_, m) in modules {
        let class = &m.class;
        if done.iter().any(|w| Rc::ptr_eq(&w.class, class)) {
            continue;
        }
        let methods: Vec<(String, Obj)> = class
            .attrs
            .borrow()
            .iter()
            .filter(|(k, v)| {
                matches!(v, Obj::Func(_) | Obj::Native(_))
                    && (!k.starts_with('_') || k == "__call__")
            })
            .cloned()
            .collect();
        for (name, original) in methods {
            let (orig, key, vt) = (original.clone(), Obj::str(&name), vt.clone());
            let wrapper = Obj::native("capture.method", move |interp, call| {
                let me = self_arg(&call, "method")?;
                let out = interp.call(&orig, call)?;
                sow_into(interp, &me, &vt, &key, out.clone(), None, None)?;
                Ok(out)
            });
            set_class_attr(class, &name, wrapper);
            done.push(Wrapped {
                class: class.clone(),
                name,
                original,
            });
        }
    }
    done
}

fn set_class_attr(class: &Class, name: &str, v: Obj) {
    if let Some(slot) = class.attrs.borrow_mut().iter_mut().find(|(k, _)| k == name) {
        slot.1 = v;
    }
}

/// Takes the captured dicts of `types` out of the modules as one state
/// per type (each variable in the first type it is an instance of) and
/// removes every `__captures__`.
fn extract(
    interp: &mut Interp,
    classes: &CaptureClasses,
    node: &Obj,
    types: &[Rc<Class>],
) -> Result<Vec<Obj>> {
    let mut groups: Vec<Vec<(Vec<String>, Obj)>> = vec![vec![]; types.len()];
    for (path, m) in iter_modules(node) {
        let Some(vars) = captures_of(&m)? else {
            continue;
        };
        for var in vars {
            if !types.iter().any(|t| Rc::ptr_eq(t, &var.class)) {
                continue;
            }
            let Obj::Dict(d) = captured_dict(&var)? else {
                continue;
            };
            let items = d.borrow().items.clone();
            for (k, v) in items {
                let copy = interp.call(&Obj::Class(var.class.clone()), Args::new(vec![v]))?;
                let mut p = path.clone();
                p.push(str_of(&k));
                let at = types
                    .iter()
                    .position(|t| derives(&var.class, t))
                    .unwrap_or(0);
                groups[at].push((p, copy));
            }
        }
        super::pytree::remove_attr(&m, CAPTURES);
    }
    let builder = super::graph::StateClass(classes.state.clone());
    Ok(groups.into_iter().map(|g| builder.build(g)).collect())
}

/// Runs the captured function once.
fn run(interp: &mut Interp, classes: &CaptureClasses, spec: &Spec, call: Args) -> Result<Obj> {
    let module = match &spec.module {
        Some(m) => m.clone(),
        None => call.pos.first().cloned().ok_or_else(|| {
            err!(
                TypeError,
                "the captured function needs the module as its first argument"
            )
        })?,
    };
    let modules = iter_modules(&module);
    install(interp, &modules, &spec.types, &spec.init)?;
    let wrapped = match &spec.method_outputs {
        Some(vt) => wrap_methods(&modules, vt),
        None => vec![],
    };
    let result = interp.call(&spec.fun, call);
    for w in wrapped {
        set_class_attr(&w.class, &w.name, w.original);
    }
    let result = result?;
    let states = extract(interp, classes, &module, &spec.types)?;
    if spec.types.is_empty() {
        return Ok(result);
    }
    let mut out = vec![result];
    out.extend(states);
    Ok(Obj::tuple(out))
}

/// What one `capture` call was given.
struct Spec {
    fun: Obj,
    module: Option<Obj>,
    types: Vec<Rc<Class>>,
    init: Obj,
    method_outputs: Option<Rc<Class>>,
}

fn wrapper(classes: &CaptureClasses, spec: Spec) -> Obj {
    let (classes, spec) = (classes.clone(), Rc::new(spec));
    Obj::native("capture.wrapper", move |interp, call| {
        run(interp, &classes, &spec, call)
    })
}

/// `nnx.capture(fn, *var_types, init=None, method_outputs=None)`, or with
/// a variable type first, a decorator.
fn capture(classes: &CaptureClasses, a: Args) -> Result<Obj> {
    let fun = a.req(Some(0), "fn", "capture")?;
    let init = a.get(None, "init").unwrap_or(Obj::None);
    let method_outputs = match a.get(None, "method_outputs") {
        None | Some(Obj::None) => None,
        Some(Obj::Class(c)) => Some(c),
        Some(o) => bail!(
            TypeError,
            "method_outputs must be a Variable type, got {}",
            repr_of(&o)
        ),
    };
    let mut types = vec![];
    for t in a.pos.iter().skip(1) {
        match t {
            Obj::Class(c) => types.push(c.clone()),
            other => bail!(
                TypeError,
                "capture expects Variable types, got {}",
                repr_of(other)
            ),
        }
    }
    if let Obj::Class(c) = &fun {
        if derives(c, &classes.variable) {
            let mut all = vec![c.clone()];
            all.extend(types);
            let classes = classes.clone();
            return Ok(Obj::native("capture.partial", move |_, b| {
                let fun = b.req(Some(0), "fn", "capture")?;
                Ok(wrapper(
                    &classes,
                    Spec {
                        module: module_of(&fun),
                        fun,
                        types: all.clone(),
                        init: init.clone(),
                        method_outputs: method_outputs.clone(),
                    },
                ))
            }));
        }
    }
    Ok(wrapper(
        classes,
        Spec {
            module: module_of(&fun),
            fun,
            types,
            init,
            method_outputs,
        },
    ))
}

/// The module a bound method or a module itself stores captures in.
fn module_of(fun: &Obj) -> Option<Obj> {
    match fun {
        Obj::Instance(i) if is_nnx_module(i) => Some(fun.clone()),
        Obj::Method(m) => match &m.0 {
            Obj::Instance(i) if is_nnx_module(i) => Some(m.0.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// `nnx.merge_state(state, *states)`: one state with the entries of all,
/// later ones replacing earlier ones at the same path (which keeps its
/// place), in the order first met.
pub(super) fn merge_state(state: &Rc<Class>, a: Args) -> Result<Obj> {
    let first = a.req(Some(0), "state", "merge_state")?;
    if a.pos.len() == 1 {
        return Ok(first);
    }
    let mut flat: Vec<(Vec<String>, Obj)> = vec![];
    for s in &a.pos {
        let mut entries = vec![];
        flatten_state(s, &mut vec![], &mut entries)?;
        for (p, v) in entries {
            match flat.iter_mut().find(|(q, _)| *q == p) {
                Some(slot) => slot.1 = v,
                None => flat.push((p, v)),
            }
        }
    }
    Ok(super::graph::StateClass(state.clone()).build_in_order(flat))
}

/// The leaves of a state with their paths, in the state's order.
fn flatten_state(s: &Obj, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, Obj)>) -> Result<()> {
    match s {
        Obj::Instance(i) if is_state(i) => {
            for (k, v) in i.attrs.borrow().iter() {
                path.push(k.clone());
                flatten_state(v, path, out)?;
                path.pop();
            }
        }
        Obj::Dict(d) => {
            for (k, v) in d.borrow().items.iter() {
                path.push(str_of(k));
                flatten_state(v, path, out)?;
                path.pop();
            }
        }
        other if !path.is_empty() => out.push((path.clone(), other.clone())),
        other => bail!(
            TypeError,
            "merge_state expects States, got {}",
            other.type_name()
        ),
    }
    Ok(())
}

/// Adds `capture` and `merge_state` to `flax.nnx` and `sow` and `perturb`
/// to `module`.
pub(super) fn register(b: &mut Builder, module: &Rc<Class>, classes: &CaptureClasses) {
    let c = classes.clone();
    b.func("capture", move |_, a| capture(&c, a));
    let c = classes.clone();
    b.func("merge_state", move |_, a| merge_state(&c.state, a));
    let perturbation = classes.perturbation.clone();
    let mut attrs = module.attrs.borrow_mut();
    attrs.push(("sow".into(), Obj::native("Module.sow", sow)));
    attrs.push((
        "perturb".into(),
        Obj::native("Module.perturb", move |interp, a| {
            perturb(interp, a, &perturbation)
        }),
    ));
}
