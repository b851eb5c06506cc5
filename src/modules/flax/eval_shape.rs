//! `nnx.eval_shape(f, *args, **kwargs)`: `jax.eval_shape` over a function
//! of NNX objects, typically a model's constructor, giving the abstract
//! model (its variables hold `ShapeDtypeStruct`s) without computing any
//! parameter.
//!
//! The function is made pure as `nnx.vmap` makes it (modules in and out as
//! their states); a module it returns is rebuilt from its graphdef around
//! the abstract state. The arguments' modules are left as they were: an
//! abstract evaluation has no values to write into them.

use super::transforms::{split_modules, vmap_pure, Graphdefs};
use super::*;

fn eval_shape(interp: &mut Interp, st: &Rc<Class>, a: Args) -> Result<Obj> {
    let Some((f, operands)) = a.pos.split_first() else {
        bail!(
            TypeError,
            "eval_shape() missing 1 required positional argument: 'f'"
        );
    };
    let (mods, args, defs) = split_modules(st, operands);
    let seen = Rc::new(Graphdefs::default());
    let pure = vmap_pure(f, st, a.kw.clone(), (&mods.index, &defs), &seen);
    let jax = crate::modules::import(interp, "jax")?;
    let shaped = crate::python::ops::getattr(interp, &jax, "eval_shape")?;
    let mut pos = vec![pure];
    pos.extend(args);
    let r = iterate(&interp.call(&shaped, Args::new(pos))?)?;
    let out = r.first().cloned().unwrap_or(Obj::None);
    let def = seen.out.borrow().clone();
    match def {
        Some(def) => super::graph::merge_parts(&def, &[out]),
        None => Ok(out),
    }
}

/// Adds `eval_shape`.
pub(super) fn register(b: &mut Builder, state: &Rc<Class>) {
    let st = state.clone();
    b.func("eval_shape", move |interp, a| eval_shape(interp, &st, a));
}
