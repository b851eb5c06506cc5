//! The autoregressive cache of `nnx.MultiHeadAttention`: `init_cache`
//! makes zeroed `nnx.Cache` variables for keys and values and an int32
//! position; each decode step writes the new key and value at that
//! position, advances it and masks the positions not written yet.

use super::*;
use crate::python::ops::getattr;

fn cache_var(interp: &mut Interp, value: Value) -> Result<Obj> {
    let nnx = crate::modules::import(interp, "flax.nnx")?;
    let cache = getattr(interp, &nnx, "Cache")?;
    interp.call(&cache, Args::new(vec![Obj::Array(value)]))
}

/// `init_cache(input_shape, dtype=float32)`.
pub(super) fn init_cache(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "init_cache")?;
    let shape: Vec<i64> = iterate(&a.req(Some(1), "input_shape", "init_cache")?)?
        .iter()
        .map(to_int)
        .collect::<Result<_>>()?;
    let dtype = match a.opt(Some(2), "dtype") {
        Some(d) => crate::modules::numpy::dtype_of(&d)?,
        None => DType::F32,
    };
    let get = |n: &str| to_int(&iattr(&me, n).unwrap_or(Obj::None));
    let mut cache_shape: Vec<usize> = shape[..shape.len().saturating_sub(1)]
        .iter()
        .map(|&d| d.max(0) as usize)
        .collect();
    cache_shape.push(get("num_kv_heads")? as usize);
    cache_shape.push(get("head_dim")? as usize);
    for name in ["cached_key", "cached_value"] {
        let zeros = Value::Concrete(crate::array::Array::full(&cache_shape, 0.0, dtype));
        let var = cache_var(interp, zeros)?;
        set_iattr(&me, name, var);
    }
    let index = Value::Concrete(crate::array::Array::full(&[], 0.0, DType::I32));
    let var = cache_var(interp, index)?;
    set_iattr(&me, "cache_index", var);
    Ok(Obj::None)
}

fn var_of(me: &Instance, name: &str) -> Result<Rc<Instance>> {
    match iattr(me, name) {
        Some(Obj::Instance(v)) => Ok(v),
        _ => bail!(
            ValueError,
            "Autoregressive cache not initialized, call ``init_cache`` first."
        ),
    }
}

fn shape_text(s: &[usize]) -> String {
    let items: Vec<String> = s.iter().map(|d| d.to_string()).collect();
    match items.len() {
        1 => format!("({},)", items[0]),
        _ => format!("({})", items.join(", ")),
    }
}

/// One decode step: the cached keys and values with `key` and `value`
/// written at the current position, and the mask combined with the
/// positions written so far.
pub(super) fn decode_step(
    interp: &mut Interp,
    me: &Instance,
    (key, value): (Obj, Obj),
    mask: Option<Obj>,
) -> Result<(Obj, Obj, Option<Obj>)> {
    let (ck, cv, ci) = (
        var_of(me, "cached_key")?,
        var_of(me, "cached_value")?,
        var_of(me, "cache_index")?,
    );
    let cached_key = super::nnx::value_of(&Obj::Instance(ck.clone()))?;
    let cached_value = super::nnx::value_of(&Obj::Instance(cv.clone()))?;
    let cshape = cached_key.shape();
    let n = cshape.len();
    if n < 3 {
        bail!(ValueError, "Autoregressive cache shape error");
    }
    let (batch, max_length) = (&cshape[..n - 3], cshape[n - 3]);
    let mut expected = batch.to_vec();
    expected.extend([1, cshape[n - 2], cshape[n - 1]]);
    let (key, value) = (to_value(&key)?, to_value(&value)?);
    if key.shape() != expected {
        bail!(
            ValueError,
            "Autoregressive cache shape error, expected key shape {} instead got {}.",
            shape_text(&expected),
            shape_text(&key.shape())
        );
    }
    let cur = super::nnx::value_of(&Obj::Instance(ci.clone()))?;
    let zero = jops::scalar(0.0, cur.dtype());
    let mut starts = vec![zero.clone(); batch.len()];
    starts.extend([cur.clone(), zero.clone(), zero]);
    let key = jops::dynamic_update_slice(&cached_key, &key, &starts)?;
    let value = jops::dynamic_update_slice(&cached_value, &value, &starts)?;
    set_iattr(&ck, "value", Obj::Array(key.clone()));
    set_iattr(&cv, "value", Obj::Array(value.clone()));
    let next = jops::add(&cur, &jops::scalar(1.0, cur.dtype()))?;
    set_iattr(&ci, "value", Obj::Array(next));
    let positions: Vec<i32> = (0..max_length as i32).collect();
    let positions = Value::Concrete(crate::array::Array::from_i32(&[max_length], positions)?);
    let written = jops::less_equal(&positions, &jops::convert(&cur, DType::I32)?)?;
    let mut to = batch.to_vec();
    to.extend([1, 1, max_length]);
    let written = Obj::Array(jops::broadcast_to(&written, &to)?);
    let mask =
        super::masks::combine_masks(interp, Args::new(vec![mask.unwrap_or(Obj::None), written]))?;
    Ok((Obj::Array(key), Obj::Array(value), Some(mask)))
}
