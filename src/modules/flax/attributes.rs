//! Setting module attributes across a graph: `Module.set_attributes`,
//! `Module.train`, `Module.eval` and `nnx.with_attributes`.
//!
//! Each selected module (every module by default, or those a filter
//! passes given its path) that has an attribute of a given name gets the
//! new value; a name no selected module has is an error unless
//! `raise_if_not_found=False`. `train()`/`eval()` set `deterministic` and
//! `use_running_average` to False/True where modules have them.

use std::collections::BTreeSet;

use super::filters::{to_predicate, Pred};
use super::*;

/// The keyword arguments that name attributes (the others are options).
fn attribute_kwargs(a: &Args) -> Vec<(String, Obj)> {
    a.read_all();
    a.kw.iter()
        .filter(|(k, _)| !matches!(k.as_str(), "raise_if_not_found" | "graph" | "only"))
        .cloned()
        .collect()
}

/// Sets `attrs` on `module` where it has them; removes the names set from
/// `missing`.
fn set_present(
    interp: &mut Interp,
    module: &Obj,
    attrs: &[(String, Obj)],
    missing: &mut BTreeSet<String>,
) -> Result<()> {
    let Obj::Instance(i) = module else {
        return Ok(());
    };
    for (name, value) in attrs {
        if crate::python::ops::getattr(interp, module, name).is_ok() {
            missing.remove(name);
            set_iattr(i, name, value.clone());
        }
    }
    Ok(())
}

fn check_found(missing: &BTreeSet<String>, raise: bool) -> Result<()> {
    if missing.is_empty() || !raise {
        return Ok(());
    }
    let names: Vec<String> = missing.iter().map(|n| format!("'{n}'")).collect();
    bail!(
        ValueError,
        "Could not find at least one instance of the following attributes: [{}]",
        names.join(", ")
    )
}

fn raise_flag(a: &Args) -> Result<bool> {
    match a.opt(None, "raise_if_not_found") {
        Some(v) => truthy(&v, "raise_if_not_found"),
        None => Ok(true),
    }
}

/// The modules under `node` with their paths, children first.
fn modules_of(interp: &mut Interp, node: &Obj) -> Result<Vec<(Obj, Obj)>> {
    let nnx = crate::modules::import(interp, "flax.nnx")?;
    let f = crate::python::ops::getattr(interp, &nnx, "iter_modules")?;
    let it = interp.call(&f, Args::new(vec![node.clone()]))?;
    iterate(&it)?
        .into_iter()
        .map(|pair| match iterate(&pair)?.as_slice() {
            [p, m] => Ok((p.clone(), m.clone())),
            _ => bail!(RuntimeError, "iter_modules gave a malformed entry"),
        })
        .collect()
}

/// `module.set_attributes(*filters, raise_if_not_found=True, **attrs)`.
fn set_attributes(interp: &mut Interp, a: Args, raise: bool) -> Result<Obj> {
    let me = a.req(Some(0), "self", "set_attributes")?;
    let preds: Vec<Pred> = match a.pos.len() {
        0 | 1 => vec![Pred::Everything],
        _ => a.pos[1..].iter().map(to_predicate).collect::<Result<_>>()?,
    };
    let attrs = attribute_kwargs(&a);
    let mut missing: BTreeSet<String> = attrs.iter().map(|(k, _)| k.clone()).collect();
    for (path, module) in modules_of(interp, &me)? {
        for p in &preds {
            if p.eval(interp, &path, &module)? {
                set_present(interp, &module, &attrs, &mut missing)?;
                break;
            }
        }
    }
    check_found(&missing, raise && raise_flag(&a)?)?;
    Ok(Obj::None)
}

/// `module.train(**attrs)` / `module.eval(**attrs)`.
fn mode(interp: &mut Interp, a: Args, training: bool) -> Result<Obj> {
    let flag = Obj::Bool(!training);
    let mut kw = vec![
        ("deterministic".to_string(), flag.clone()),
        ("use_running_average".to_string(), flag),
    ];
    kw.extend(a.kw.iter().cloned());
    set_attributes(interp, Args::with(a.pos.clone(), kw), false)
}

/// `nnx.with_attributes(node, *, only=..., raise_if_not_found=True,
/// **attrs)`: a copy of `node` (sharing its variables) with the
/// attributes set, the original unchanged.
fn with_attributes(interp: &mut Interp, a: Args) -> Result<Obj> {
    let node = a.req(Some(0), "node", "with_attributes")?;
    let pred = to_predicate(&a.get(None, "only").unwrap_or(Obj::Ellipsis))?;
    let attrs = attribute_kwargs(&a);
    let missing: Rc<RefCell<BTreeSet<String>>> =
        Rc::new(RefCell::new(attrs.iter().map(|(k, _)| k.clone()).collect()));
    let left = missing.clone();
    let f = Obj::native("set_attributes_fn", move |i, c| {
        let path = c.req(Some(0), "path", "set_attributes_fn")?;
        let m = c.req(Some(1), "node", "set_attributes_fn")?;
        if super::graph_iter::is_module(&m) && pred.eval(i, &path, &m)? {
            set_present(i, &m, &attrs, &mut left.borrow_mut())?;
        }
        Ok(m)
    });
    let out = super::recursive::recursive_map(interp, &f, &node)?;
    check_found(&missing.borrow(), raise_flag(&a)?)?;
    Ok(out)
}

/// The methods `nnx.Module` gets.
pub(super) fn module_methods() -> Vec<(String, Obj)> {
    vec![
        (
            "set_attributes".into(),
            Obj::native("Module.set_attributes", |i, a| set_attributes(i, a, true)),
        ),
        (
            "train".into(),
            Obj::native("Module.train", |i, a| mode(i, a, true)),
        ),
        (
            "eval".into(),
            Obj::native("Module.eval", |i, a| mode(i, a, false)),
        ),
    ]
}

/// Adds `with_attributes` to `flax.nnx`.
pub(super) fn register(b: &mut Builder) {
    b.func("with_attributes", with_attributes);
}
