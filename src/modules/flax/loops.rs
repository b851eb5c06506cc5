//! `nnx.fori_loop(lower, upper, body_fun, init_val, *, unroll=None)` and
//! `nnx.while_loop(cond_fun, body_fun, init_val)`.
//!
//! nnx modules are pytrees, so the loop itself is `jax.lax`'s over the
//! carry; what nnx adds is graph updates: the variables of the modules in
//! `init_val` take the values the loop ends with, and the modules handed
//! back are the ones passed in.

use std::collections::HashSet;

use super::*;

/// The variables under `o` (modules, containers), each once, in nnx's
/// order (attributes sorted by name).
fn variables(o: &Obj, seen: &mut HashSet<usize>, out: &mut Vec<Rc<Instance>>) {
    match o {
        Obj::Instance(i) if is_variable(i) && seen.insert(Rc::as_ptr(i) as usize) => {
            out.push(i.clone());
        }
        Obj::Instance(i) if is_variable(i) => {}
        Obj::Instance(i) if is_nnx_module(i) => {
            if !seen.insert(Rc::as_ptr(i) as usize) {
                return;
            }
            let mut attrs = i.attrs.borrow().clone();
            attrs.sort_by(|a, b| a.0.cmp(&b.0));
            attrs.iter().for_each(|(_, v)| variables(v, seen, out));
        }
        Obj::List(l) => l.borrow().iter().for_each(|v| variables(v, seen, out)),
        Obj::Tuple(t) => t.iter().for_each(|v| variables(v, seen, out)),
        Obj::Dict(d) => {
            let mut items = d.borrow().items.clone();
            items.sort_by(|a, b| key_order(&str_of(&a.0), &str_of(&b.0)));
            items.iter().for_each(|(_, v)| variables(v, seen, out));
        }
        _ => {}
    }
}

/// The loop's result with the input's modules and variables in place of
/// their copies, which are otherwise of the same structure.
fn reuse_nodes(input: &Obj, output: &Obj) -> Obj {
    match (input, output) {
        (Obj::Instance(i), _) if is_nnx_module(i) || is_variable(i) => input.clone(),
        (Obj::Tuple(a), Obj::Tuple(b)) if a.len() == b.len() => Obj::tuple(
            a.iter()
                .zip(b.iter())
                .map(|(x, y)| reuse_nodes(x, y))
                .collect(),
        ),
        (Obj::List(a), Obj::List(b)) if a.borrow().len() == b.borrow().len() => {
            let items = a
                .borrow()
                .iter()
                .zip(b.borrow().iter())
                .map(|(x, y)| reuse_nodes(x, y))
                .collect();
            Obj::list(items)
        }
        _ => output.clone(),
    }
}

/// Writes the final values of the loop's variables into the input's.
fn update_inputs(input: &Obj, output: &Obj) -> Result<Obj> {
    let (mut before, mut after) = (vec![], vec![]);
    variables(input, &mut HashSet::new(), &mut before);
    variables(output, &mut HashSet::new(), &mut after);
    if before.len() != after.len() {
        bail!(
            ValueError,
            "the loop body returned {} variables where its input held {}",
            after.len(),
            before.len()
        );
    }
    for (b, a) in before.iter().zip(&after) {
        if !Rc::ptr_eq(b, a) {
            set_iattr(b, "value", iattr(a, "value").unwrap_or(Obj::None));
        }
    }
    Ok(reuse_nodes(input, output))
}

fn lax_call(interp: &mut Interp, name: &str, a: Args) -> Result<Obj> {
    let lax = crate::modules::import(interp, "jax.lax")?;
    let f = crate::python::ops::getattr(interp, &lax, name)?;
    interp.call(&f, a)
}

fn refuse_tree_mode(a: &Args, func: &str) -> Result<()> {
    for name in ["graph", "graph_updates"] {
        if let Some(g) = a.opt(None, name) {
            if !matches!(g, Obj::None) && !truthy(&g, name)? {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx.{func}({name}=False)"
                );
            }
        }
    }
    Ok(())
}

/// Adds `fori_loop` and `while_loop` to `flax.nnx`.
pub(super) fn register(b: &mut Builder) {
    b.func("fori_loop", |interp, a| {
        refuse_tree_mode(&a, "fori_loop")?;
        let init = a.req(Some(3), "init_val", "fori_loop")?;
        let pos = vec![
            a.req(Some(0), "lower", "fori_loop")?,
            a.req(Some(1), "upper", "fori_loop")?,
            a.req(Some(2), "body_fun", "fori_loop")?,
            init.clone(),
        ];
        let mut kw = vec![];
        if let Some(u) = a.opt(None, "unroll") {
            kw.push(("unroll".to_string(), u));
        }
        let out = lax_call(interp, "fori_loop", Args::with(pos, kw))?;
        update_inputs(&init, &out)
    });
    b.func("while_loop", |interp, a| {
        refuse_tree_mode(&a, "while_loop")?;
        let init = a.req(Some(2), "init_val", "while_loop")?;
        let pos = vec![
            a.req(Some(0), "cond_fun", "while_loop")?,
            a.req(Some(1), "body_fun", "while_loop")?,
            init.clone(),
        ];
        let out = lax_call(interp, "while_loop", Args::new(pos))?;
        update_inputs(&init, &out)
    });
}
