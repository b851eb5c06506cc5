//! `flax.linen.Dropout(rate, broadcast_dims=(), deterministic=None,
//! rng_collection='dropout')`: keeps each entry with probability
//! `1 - rate` (scaled by `1 / (1 - rate)`), the mask drawn from the
//! module's `make_rng(rng_collection)` unless a key is passed as `rng`.

use super::linen::{make_rng, module_path};
use super::*;

/// `deterministic` from the constructor or from the call, exactly one of
/// them (linen's `merge_param`).
fn merge_deterministic(field: Option<Obj>, call: Option<Obj>) -> Result<Obj> {
    let given = |o: &Option<Obj>| !matches!(o, None | Some(Obj::None));
    match (given(&field), given(&call)) {
        (false, false) => bail!(
            ValueError,
            "Parameter \"deterministic\" must be passed to the constructor or at call time."
        ),
        (true, true) => bail!(
            ValueError,
            "Parameter \"deterministic\" was passed to the constructor and at call time. Should be passed just once."
        ),
        (true, false) => Ok(field.unwrap_or(Obj::None)),
        (false, true) => Ok(call.unwrap_or(Obj::None)),
    }
}

/// `Dropout.__call__(inputs, deterministic=None, rng=None)`.
fn dropout_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Dropout.__call__")?;
    let x = a.req(Some(1), "inputs", "Dropout.__call__")?;
    let det = merge_deterministic(iattr(&me, "deterministic"), a.get(Some(2), "deterministic"))?;
    let rate = iattr(&me, "rate").unwrap_or(Obj::None);
    let r = rate
        .as_number()
        .ok_or_else(|| err!(TypeError, "Dropout rate must be a number"))?;
    let jnp = crate::modules::import(interp, "jax.numpy")?;
    if r == 0.0 || truthy(&det, "deterministic")? {
        return Ok(x);
    }
    if r == 1.0 {
        let f = crate::python::ops::getattr(interp, &jnp, "zeros_like")?;
        return interp.call(&f, Args::new(vec![x]));
    }
    let key = match a.get(Some(3), "rng") {
        Some(k) if !matches!(k, Obj::None) => k,
        _ => {
            let collection = str_of(&iattr(&me, "rng_collection").unwrap_or(Obj::str("dropout")));
            let path = module_path(interp, &me)?;
            make_rng(interp, &path, &collection)?
        }
    };
    super::rngs::dropout_mask_apply(interp, &me, &jnp, key, x, 1.0 - r)
}

/// The `nn.Dropout` class, a linen module with its four fields.
pub(super) fn dropout_class(module: &Rc<Class>) -> Rc<Class> {
    let mut ann = Dict::default();
    for f in ["rate", "broadcast_dims", "deterministic", "rng_collection"] {
        ann.set(Obj::str(f), Obj::None);
    }
    new_class(
        "Dropout",
        vec![module.clone()],
        vec![
            ("__linen_wrapped__".into(), Obj::Bool(true)),
            (
                "__annotations__".into(),
                Obj::Dict(Rc::new(RefCell::new(ann))),
            ),
            ("broadcast_dims".into(), Obj::tuple(vec![])),
            ("deterministic".into(), Obj::None),
            ("rng_collection".into(), Obj::str("dropout")),
            (
                "__call__".into(),
                Obj::native("Dropout.__call__", dropout_call),
            ),
        ],
    )
}
