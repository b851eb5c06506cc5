//! `nnx.cond` and `nnx.switch`: `jax.lax.cond` / `switch` over functions
//! that take and update NNX objects.
//!
//! Each module (or State) operand goes in as its whole state; every branch
//! is made pure the way `nnx.vmap` makes its function pure (it rebuilds
//! the modules, calls the branch, and returns its result followed by the
//! modules' states), so the branch JAX selects decides both the result and
//! what the modules hold afterwards, as in Flax.

use super::transforms::{split_modules, vmap_pure, write_back, Graphdefs};
use super::*;

/// Runs `lax.<api>(selector, pure branches..., *operands)` and writes the
/// selected branch's module states back.
fn run(
    interp: &mut Interp,
    st: &Rc<Class>,
    api: &str,
    (selector, branches): (Obj, Vec<Obj>),
    operands: &[Obj],
) -> Result<Obj> {
    let (mods, args, defs) = split_modules(st, operands);
    let seen = Rc::new(Graphdefs::default());
    let pure: Vec<Obj> = branches
        .iter()
        .map(|f| vmap_pure(f, st, vec![], (&mods.index, &defs), &seen))
        .collect();
    let lax = crate::modules::import(interp, "jax.lax")?;
    let f = crate::python::ops::getattr(interp, &lax, api)?;
    let mut pos = vec![selector];
    match api {
        "switch" => pos.push(Obj::list(pure)),
        _ => pos.extend(pure),
    }
    pos.extend(args);
    let r = iterate(&interp.call(&f, Args::new(pos))?)?;
    let Some((out, states)) = r.split_first() else {
        bail!(ValueError, "nnx.{api}: the branches returned nothing");
    };
    write_back(&mods, &seen, out, states)
}

/// Adds `cond` and `switch`.
pub(super) fn register(b: &mut Builder, state: &Rc<Class>) {
    let st = state.clone();
    b.func("cond", move |interp, a| {
        if a.pos.len() < 3 {
            bail!(
                TypeError,
                "cond() missing required positional arguments: 'pred', 'true_fun' and 'false_fun'"
            );
        }
        let branches = vec![a.pos[1].clone(), a.pos[2].clone()];
        run(
            interp,
            &st,
            "cond",
            (a.pos[0].clone(), branches),
            &a.pos[3..],
        )
    });
    let st = state.clone();
    b.func("switch", move |interp, a| {
        let index = a.req(Some(0), "index", "switch")?;
        let branches = iterate(&a.req(Some(1), "branches", "switch")?)?;
        let operands = a.pos.get(2..).unwrap_or_default();
        run(interp, &st, "switch", (index, branches), operands)
    });
}
