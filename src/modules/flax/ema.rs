//! `nnx.EMA`: an exponential moving average of a model's variables.
//!
//! `params` is a `State` of copies of the selected variables; `update`
//! moves each towards the model's variable at the same path
//! (`decay * ema + (1 - decay) * x`, in float32 as JAX computes it with
//! Python floats); `apply_to` rebuilds the model with the EMA's own
//! variables in place of the tracked ones, so the view follows later
//! updates.

use super::filters::to_predicate;
use super::graph::{full_state, graphdef_of, group_vars, merge_parts, state_of};
use super::nnx::collect_vars;
use super::*;

fn tracked(interp: &mut Interp, node: &Obj, only: &Obj) -> Result<super::graph::PathVarList> {
    let pred = to_predicate(only)?;
    let mut groups = group_vars(interp, node, &[pred], false)?;
    Ok(groups.pop().unwrap_or_default())
}

fn ema_init(st: &Rc<Class>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let st = st.clone();
    move |interp, a| {
        let me = self_arg(&a, "EMA")?;
        let params = a.req(Some(1), "params", "EMA")?;
        let decay = a.req(Some(2), "decay", "EMA")?;
        let only = a.get(None, "only").unwrap_or(Obj::Ellipsis);
        if matches!(a.get(None, "graph"), Some(Obj::Bool(false))) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.EMA with graph=False"
            );
        }
        let vars = tracked(interp, &params, &only)?;
        set_iattr(&me, "graph", Obj::None);
        set_iattr(&me, "decay", decay);
        set_iattr(&me, "filter", only);
        set_iattr(&me, "params", state_of(&st, &vars));
        Ok(Obj::None)
    }
}

fn ema_update(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "EMA.update")?;
    let updates = a.req(Some(1), "updates", "update")?;
    let only = iattr(&me, "filter").unwrap_or(Obj::Ellipsis);
    let d = match iattr(&me, "decay") {
        Some(Obj::Float(f)) => f,
        Some(Obj::Int(i)) => i as f64,
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.EMA with decay={}",
            repr_of(&other.unwrap_or(Obj::None))
        ),
    };
    let news = tracked(interp, &updates, &only)?;
    let mut emas = vec![];
    collect_vars(
        &iattr(&me, "params").unwrap_or(Obj::None),
        &mut vec![],
        &|_| true,
        &mut emas,
    );
    if emas.len() != news.len() {
        bail!(
            ValueError,
            "the updates have {} variables where the EMA tracks {}",
            news.len(),
            emas.len()
        );
    }
    for ((path, ema), (npath, new)) in emas.iter().zip(&news) {
        if path != npath {
            bail!(
                ValueError,
                "the updates have a variable at {} where the EMA tracks {}",
                npath.join("/"),
                path.join("/")
            );
        }
        let e = to_value(&iattr(ema, "value").unwrap_or(Obj::None))?;
        let x = to_value(&iattr(new, "value").unwrap_or(Obj::None))?;
        let kept = jops::mul(&jops::scalar(d, e.dtype()), &e)?;
        let moved = jops::mul(&jops::scalar(1.0 - d, x.dtype()), &x)?;
        set_iattr(ema, "value", Obj::Array(jops::add(&kept, &moved)?));
    }
    Ok(Obj::None)
}

/// Puts `var` at `path` in `node` in place of what is there.
fn put_at(node: &Obj, path: &[String], var: &Obj) -> Result<()> {
    let Some((last, parents)) = path.split_last() else {
        return Ok(());
    };
    let mut cur = node.clone();
    for p in parents {
        cur = child(&cur, p)?;
    }
    let what = "nnx.EMA.apply_to with variables inside";
    set_child(&cur, last, var.clone(), what)
}

/// Sets the entry `key` of an nnx node (an object's attribute, a list's
/// item by its position, a dict's entry by its key's text) to `value`;
/// other containers are refused, named after `what`.
pub(super) fn set_child(cur: &Obj, key: &str, value: Obj, what: &str) -> Result<()> {
    match cur {
        Obj::Instance(i) => set_iattr(i, key, value),
        Obj::List(l) => {
            let k: usize = key.parse().map_err(|_| err!(KeyError, "{key}"))?;
            if let Some(slot) = l.borrow_mut().get_mut(k) {
                *slot = value;
            }
        }
        Obj::Dict(d) => {
            let found = d
                .borrow()
                .items
                .iter()
                .find(|(k, _)| str_of(k) == key)
                .map(|(k, _)| k.clone());
            if let Some(k) = found {
                d.borrow_mut().set(k, value);
            }
        }
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: {what} {}",
            other.type_name()
        ),
    }
    Ok(())
}

fn child(o: &Obj, name: &str) -> Result<Obj> {
    let found = match o {
        Obj::Instance(i) => iattr(i, name),
        Obj::List(_) | Obj::Tuple(_) => name
            .parse::<usize>()
            .ok()
            .and_then(|k| iterate(o).ok()?.get(k).cloned()),
        Obj::Dict(d) => d
            .borrow()
            .items
            .iter()
            .find(|(k, _)| str_of(k) == name)
            .map(|(_, v)| v.clone()),
        _ => None,
    };
    found.ok_or_else(|| err!(KeyError, "{name}"))
}

fn ema_apply_to(st: &Rc<Class>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let st = st.clone();
    move |_, a| {
        let me = self_arg(&a, "EMA.apply_to")?;
        let model = a.req(Some(1), "model", "apply_to")?;
        let view = merge_parts(&graphdef_of(&model), &[full_state(&st, &model)])?;
        let mut emas = vec![];
        collect_vars(
            &iattr(&me, "params").unwrap_or(Obj::None),
            &mut vec![],
            &|_| true,
            &mut emas,
        );
        for (path, ema) in emas {
            put_at(&view, &path, &Obj::Instance(ema))?;
        }
        Ok(view)
    }
}

/// The `nnx.EMA` class.
pub(super) fn ema_class(module: &Rc<Class>, st: &Rc<Class>) -> Rc<Class> {
    new_class(
        "EMA",
        vec![module.clone()],
        vec![
            ("__init__".into(), Obj::native("EMA.__init__", ema_init(st))),
            ("update".into(), Obj::native("EMA.update", ema_update)),
            (
                "apply_to".into(),
                Obj::native("EMA.apply_to", ema_apply_to(st)),
            ),
        ],
    )
}
