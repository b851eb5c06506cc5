//! `nnx.pop(node, *filters)`: takes the variables passing the filters out
//! of the modules holding them and hands them back in states (the
//! variables themselves, as Flax does).

use super::filters::{first_passing, to_predicate, Pred};
use super::graph::StateClass;
use super::*;

type Groups = Vec<Vec<(Vec<String>, Obj)>>;

/// Removes the variables under module `o` that pass a filter, grouping
/// them by the first filter they pass; a module met twice is visited once.
fn pop_from(
    interp: &mut Interp,
    o: &Obj,
    preds: &[Pred],
    path: &mut Vec<String>,
    seen: &mut Vec<usize>,
    groups: &mut Groups,
) -> Result<()> {
    let Obj::Instance(i) = o else { return Ok(()) };
    let id = Rc::as_ptr(i) as usize;
    if !is_nnx_module(i) || seen.contains(&id) {
        return Ok(());
    }
    seen.push(id);
    for name in pytree_children(i).unwrap_or_default() {
        let Some(v) = iattr(i, &name) else { continue };
        path.push(name.clone());
        match &v {
            Obj::Instance(x) if is_variable(x) => {
                if let Some(k) = first_passing(interp, preds, path, &v, false)? {
                    groups[k].push((path.clone(), v.clone()));
                    i.attrs.borrow_mut().retain(|(n, _)| *n != name);
                }
            }
            Obj::Instance(_) => pop_from(interp, &v, preds, path, seen, groups)?,
            Obj::List(_) | Obj::Tuple(_) | Obj::Dict(_) => {
                let mut inner = vec![];
                super::nnx::collect_vars(&v, path, &|_| true, &mut inner);
                for (p, var) in inner {
                    let var = Obj::Instance(var);
                    if first_passing(interp, preds, &p, &var, false)?.is_some() {
                        bail!(
                            NotImplementedError,
                            "not supported by shardlab yet: flax.nnx.pop of a variable held in a list, tuple or dict"
                        );
                    }
                }
            }
            _ => {}
        }
        path.pop();
    }
    Ok(())
}

/// `nnx.pop(node, *filters)`: one state per filter, or the state alone
/// for a single filter.
pub(super) fn pop(interp: &mut Interp, state: &Rc<Class>, a: Args) -> Result<Obj> {
    let node = a.req(Some(0), "node", "pop")?;
    if a.pos.len() < 2 {
        bail!(ValueError, "Expected at least one filter");
    }
    let preds = a.pos[1..]
        .iter()
        .map(to_predicate)
        .collect::<Result<Vec<_>>>()?;
    let mut groups: Groups = vec![vec![]; preds.len()];
    pop_from(interp, &node, &preds, &mut vec![], &mut vec![], &mut groups)?;
    let builder = StateClass(state.clone());
    let mut states: Vec<Obj> = groups.into_iter().map(|g| builder.build(g)).collect();
    Ok(match states.len() {
        1 => states.remove(0),
        _ => Obj::tuple(states),
    })
}
