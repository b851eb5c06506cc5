//! `nnx.to_pure_dict` and `nnx.replace_by_pure_dict`: a State as nested
//! plain dicts of arrays (what checkpoints store), and back.
//!
//! `to_pure_dict` takes each variable's value (or `extract_fn(variable)`)
//! in the sorted order of a flat state, keyed by its path, list positions
//! as ints. `replace_by_pure_dict` finds each path of the dict in the state
//! (a key matches by its text, so '0' finds position 0 as Flax's integer
//! retry does) and puts there a copy of the variable holding the new value
//! (or `replace_fn(variable, value)`), leaving the variables themselves,
//! and so the modules they came from, as they were.

use super::*;

fn to_pure_dict(interp: &mut Interp, a: Args) -> Result<Obj> {
    let state = a.req(Some(0), "state", "to_pure_dict")?;
    let extract = a.opt(Some(1), "extract_fn");
    let mut vars = vec![];
    super::nnx::collect_vars(&state, &mut vec![], &|_| true, &mut vars);
    let mut entries: Vec<(Vec<String>, Obj)> = vars
        .into_iter()
        .map(|(p, v)| (p, Obj::Instance(v)))
        .collect();
    super::graph::sort_paths(&mut entries);
    let mut pairs = vec![];
    for (path, var) in entries {
        let value = match (&extract, &var) {
            (Some(f), _) => interp.call(f, Args::new(vec![var.clone()]))?,
            (None, Obj::Instance(v)) => iattr(v, "value").unwrap_or(Obj::None),
            (None, other) => other.clone(),
        };
        pairs.push((super::filters::path_obj(&path), value));
    }
    super::traverse_util::unflatten(interp, pairs, None, true)
}

/// The leaves of a nested dict with the keys on their paths, depth first.
fn flat_items(o: &Obj, path: &mut Vec<Obj>, out: &mut Vec<(Vec<Obj>, Obj)>) {
    match o {
        Obj::Dict(d) => {
            let items = d.borrow().items.clone();
            for (k, v) in items {
                path.push(k);
                flat_items(&v, path, out);
                path.pop();
            }
        }
        leaf => out.push((path.clone(), leaf.clone())),
    }
}

/// The state (or sub-state) holding the entry at the end of `path`.
fn parent_of(state: &Rc<Instance>, path: &[Obj]) -> Option<(Rc<Instance>, String)> {
    let (last, inner) = path.split_last()?;
    let mut cur = state.clone();
    for k in inner {
        match iattr(&cur, &str_of(k)) {
            Some(Obj::Instance(s)) if is_state(&s) => cur = s,
            _ => return None,
        }
    }
    let name = str_of(last);
    iattr(&cur, &name).map(|_| (cur, name))
}

fn replace_by_pure_dict(interp: &mut Interp, a: Args) -> Result<Obj> {
    let state = a.req(Some(0), "state", "replace_by_pure_dict")?;
    let pure = a.req(Some(1), "pure_dict", "replace_by_pure_dict")?;
    let replace = a.opt(Some(2), "replace_fn");
    let Obj::Instance(root) = &state else {
        bail!(TypeError, "replace_by_pure_dict() needs an nnx.State");
    };
    let mut leaves = vec![];
    flat_items(&pure, &mut vec![], &mut leaves);
    for (path, value) in leaves {
        let Some((parent, name)) = parent_of(root, &path) else {
            bail!(
                ValueError,
                "key in pure_dict not available in state: {}",
                repr_of(&Obj::tuple(path))
            );
        };
        let current = iattr(&parent, &name).unwrap_or(Obj::None);
        let new = match (&replace, &current) {
            (Some(f), _) => interp.call(f, Args::new(vec![current.clone(), value]))?,
            (None, Obj::Instance(v)) if is_variable(v) => super::nnx::with_value(v, value),
            (None, _) => value,
        };
        set_iattr(&parent, &name, new);
    }
    Ok(Obj::None)
}

/// `Variable.replace(value=..., **metadata)`: a copy of the variable with
/// the value and metadata given, the rest as they were.
pub(super) fn variable_replace(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "replace")?;
    let value = match a.get(Some(1), "value") {
        Some(v) => v,
        None => iattr(&me, "value").unwrap_or(Obj::None),
    };
    let copy = super::nnx::with_value(&me, value);
    if let Obj::Instance(c) = &copy {
        for (k, v) in a.kw.iter().filter(|(k, _)| k != "value") {
            set_iattr(c, k, v.clone());
        }
    }
    Ok(copy)
}

/// Adds `to_pure_dict` and `replace_by_pure_dict`.
pub(super) fn register(b: &mut Builder) {
    b.func("to_pure_dict", to_pure_dict);
    b.func("replace_by_pure_dict", replace_by_pure_dict);
}
