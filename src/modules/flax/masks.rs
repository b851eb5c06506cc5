//! The attention mask helpers of `flax.nnx`: `make_attention_mask`,
//! `make_causal_mask` and `combine_masks`. They are compositions of
//! jax.numpy functions, called here as a program would call them so a
//! program's own `pairwise_fn` gets the same arrays Flax gives it.

use super::*;
use crate::python::ops::getattr;

fn jnp_call(interp: &mut Interp, name: &str, args: Args) -> Result<Obj> {
    let jnp = crate::modules::import(interp, "jax.numpy")?;
    let f = getattr(interp, &jnp, name)?;
    interp.call(&f, args)
}

fn astype(interp: &mut Interp, x: &Obj, dtype: Obj) -> Result<Obj> {
    let f = getattr(interp, x, "astype")?;
    interp.call(&f, Args::new(vec![dtype]))
}

fn dtype_arg(a: &Args, index: Option<usize>) -> Obj {
    a.opt(index, "dtype").unwrap_or(super::jnp_float32())
}

fn expand(interp: &mut Interp, x: Obj, axis: Obj) -> Result<Obj> {
    jnp_call(interp, "expand_dims", Args::new(vec![x, axis]))
}

/// `pairwise_fn(q[..., :, None], k[..., None, :])` with a heads axis of
/// size 1 before the last two and `extra_batch_dims` leading axes.
fn attention_mask(
    interp: &mut Interp,
    (q, k): (Obj, Obj),
    pairwise: Obj,
    extra: i64,
    dtype: Obj,
) -> Result<Obj> {
    let q = expand(interp, q, Obj::Int(-1))?;
    let k = expand(interp, k, Obj::Int(-2))?;
    let mask = interp.call(&pairwise, Args::new(vec![q, k]))?;
    let mask = expand(interp, mask, Obj::Int(-3))?;
    let lead = Obj::tuple((0..extra.max(0)).map(Obj::Int).collect());
    let mask = expand(interp, mask, lead)?;
    astype(interp, &mask, dtype)
}

fn make_attention_mask(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = "make_attention_mask";
    let q = a.req(Some(0), "query_input", f)?;
    let k = a.req(Some(1), "key_input", f)?;
    let pairwise = match a.opt(Some(2), "pairwise_fn") {
        Some(p) => p,
        None => {
            let jnp = crate::modules::import(interp, "jax.numpy")?;
            getattr(interp, &jnp, "multiply")?
        }
    };
    let extra = match a.opt(Some(3), "extra_batch_dims") {
        Some(o) => to_int(&o)?,
        None => 0,
    };
    attention_mask(interp, (q, k), pairwise, extra, dtype_arg(&a, Some(4)))
}

fn make_causal_mask(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "make_causal_mask")?;
    let extra = match a.opt(Some(1), "extra_batch_dims") {
        Some(o) => to_int(&o)?,
        None => 0,
    };
    let dtype = dtype_arg(&a, Some(2));
    let shape = getattr(interp, &x, "shape")?;
    let len = crate::python::ops::getitem(interp, &shape, &Obj::Int(-1))?;
    let idxs = jnp_call(
        interp,
        "arange",
        Args::with(vec![len], vec![("dtype".into(), Obj::DType(DType::I32))]),
    )?;
    let idxs = jnp_call(interp, "broadcast_to", Args::new(vec![idxs, shape]))?;
    let jnp = crate::modules::import(interp, "jax.numpy")?;
    let ge = getattr(interp, &jnp, "greater_equal")?;
    attention_mask(interp, (idxs.clone(), idxs), ge, extra, dtype)
}

/// `combine_masks(*masks, dtype=float32)`: the logical and of the masks
/// given (None ones skipped), or None when there are none.
pub(super) fn combine_masks(interp: &mut Interp, a: Args) -> Result<Obj> {
    let masks: Vec<Obj> = a
        .pos
        .iter()
        .filter(|m| !matches!(m, Obj::None))
        .cloned()
        .collect();
    let dtype = a.opt(None, "dtype").unwrap_or(super::jnp_float32());
    let Some(first) = masks.first() else {
        return Ok(Obj::None);
    };
    let ranks = masks
        .iter()
        .map(|m| Ok(to_value(m)?.ndim()))
        .collect::<Result<Vec<usize>>>()?;
    if ranks.iter().any(|&r| r != ranks[0]) {
        let text: Vec<String> = ranks.iter().map(|r| r.to_string()).collect();
        let tuple = match text.len() {
            1 => format!("({},)", text[0]),
            _ => format!("({})", text.join(", ")),
        };
        bail!(ValueError, "masks must have same rank, but got {tuple}.");
    }
    let mut mask = first.clone();
    for other in &masks[1..] {
        mask = jnp_call(interp, "logical_and", Args::new(vec![mask, other.clone()]))?;
    }
    astype(interp, &mask, dtype)
}

/// Adds the mask helpers to `flax.nnx`.
pub(super) fn register(b: &mut Builder) {
    b.func("make_attention_mask", make_attention_mask);
    b.func("make_causal_mask", make_causal_mask);
    b.func("combine_masks", combine_masks);
}
