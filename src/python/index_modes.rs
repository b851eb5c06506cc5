//! Out-of-bounds indices in `x.at[idx]`, by JAX's `mode=`.
//!
//! JAX's gathers and scatters take a mode for indices outside the array:
//! - `get()` by default (and with `mode='clip'` or `'promise_in_bounds'`)
//!   clamps them to the nearest edge, as `x[idx]` does;
//! - `get(mode='fill')` (or `'drop'`) gives `fill_value` there (NaN for
//!   inexact types, the most negative value for signed integers, the
//!   largest for unsigned, True for bool);
//! - the updates (`set`, `add`, ...) by default (and with `'fill'`, `'drop'`
//!   or `'promise_in_bounds'`, which XLA's CPU backend drops) leave out the
//!   updates that fall outside, while `mode='clip'` clamps their indices.
//!
//! Both non-clamping forms are built on one idea: every concrete integer
//! index outside its axis is replaced by the axis's length, and the array is
//! extended by one slot along each such axis, holding the fill value for a
//! gather or "no position" for a scatter. The ordinary indexing code then
//! does the rest, for any mix of integers, integer arrays and slices.

use crate::array::{Array, DType};
use crate::error::Result;
use crate::ops as jops;
use crate::trace::Value;
use crate::{bail, err};

use super::array::to_value;
use super::format::str_of;
use super::value::{Args, Obj};

/// What happens to indices outside the array.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Mode {
    /// Clamp them to the nearest edge.
    Clip,
    /// A gather fills them in; a scatter drops them.
    FillOrDrop,
}

/// The mode of `x.at[idx].how(..., mode=...)`.
pub fn mode_of(a: &Args, how: &str) -> Result<Mode> {
    let gather = how == "get";
    Ok(match a.get(None, "mode") {
        None | Some(Obj::None) => default_mode(gather),
        Some(m) => match str_of(&m).as_str() {
            "clip" => Mode::Clip,
            "fill" | "drop" => Mode::FillOrDrop,
            "promise_in_bounds" => default_mode(gather),
            other => bail!(ValueError, "Unknown gather mode \"{other}\""),
        },
    })
}

fn default_mode(gather: bool) -> Mode {
    if gather {
        Mode::Clip
    } else {
        Mode::FillOrDrop
    }
}

/// `key` with each concrete integer index outside its axis replaced by the
/// axis's length, and the axes where that happened; None when every index
/// is inside (or the key holds parts this does not follow, such as traced
/// arrays, which the caller handles). Without `wrap` (JAX's
/// `wrap_negative_indices=False`) a negative index is outside too.
pub fn sentinel_key(key: &Obj, shape: &[usize], wrap: bool) -> Result<Option<(Obj, Vec<usize>)>> {
    let items: Vec<Obj> = match key {
        Obj::Tuple(t) => t.to_vec(),
        other => vec![other.clone()],
    };
    let consumes = |o: &Obj| match o {
        Obj::None | Obj::Ellipsis => 0,
        Obj::Array(v) if v.dtype() == DType::Bool => v.ndim(),
        _ => 1,
    };
    let used: usize = items.iter().map(consumes).sum();
    let mut ax = 0usize;
    let (mut out, mut dims) = (Vec::with_capacity(items.len()), vec![]);
    for item in &items {
        if matches!(item, Obj::Ellipsis) {
            ax += shape.len().saturating_sub(used);
        }
        let n = shape.get(ax).copied().unwrap_or(0) as i64;
        let replaced = match item {
            Obj::Int(i) => outside(*i, n, wrap).then_some(Obj::Int(n)),
            Obj::Array(Value::Concrete(a)) if is_int(a.dtype()) => sentinel_array(a, n, wrap)?,
            Obj::List(_) => match to_value(item)? {
                Value::Concrete(a) if is_int(a.dtype()) => sentinel_array(&a, n, wrap)?,
                _ => None,
            },
            _ => None,
        };
        if let Some(r) = replaced {
            dims.push(ax);
            out.push(r);
        } else {
            out.push(item.clone());
        }
        ax += consumes(item);
    }
    if dims.is_empty() {
        return Ok(None);
    }
    let key = match key {
        Obj::Tuple(_) => Obj::tuple(out),
        _ => out.remove(0),
    };
    Ok(Some((key, dims)))
}

fn is_int(d: DType) -> bool {
    matches!(d, DType::I32 | DType::U32)
}

fn outside(i: i64, n: i64, wrap: bool) -> bool {
    i < if wrap { -n } else { 0 } || i >= n
}

/// An integer index array with the entries outside `[-n, n)` (`[0, n)`
/// without `wrap`) set to `n` and the negative ones counted from the end,
/// or None when none is outside.
fn sentinel_array(a: &Array, n: i64, wrap: bool) -> Result<Option<Obj>> {
    let vals = a.to_f64_vec();
    if !vals.iter().any(|&v| outside(v as i64, n, wrap)) {
        return Ok(None);
    }
    let fixed: Vec<i32> = vals
        .iter()
        .map(|&v| match v as i64 {
            // In the extended axis `-1` would be the extra slot, so the
            // negative indices inside count from the end of the real one.
            v if outside(v, n, wrap) => n as i32,
            v if v < 0 => (v + n) as i32,
            v => v as i32,
        })
        .collect();
    Ok(Some(Obj::Array(Value::Concrete(Array::from_i32(
        a.shape(),
        fixed,
    )?))))
}

/// `x` extended by one slot holding `fill` at the end of each axis in `dims`.
pub fn extend(x: &Value, dims: &[usize], fill: &Value) -> Result<Value> {
    let mut cur = x.clone();
    for &d in dims {
        let mut slab = cur.shape();
        slab[d] = 1;
        let slot = jops::broadcast_to(fill, &slab)?;
        cur = jops::concatenate(&[cur, slot], d as i64)?;
    }
    Ok(cur)
}

/// The value a gather in fill mode gives outside the array: `fill_value`,
/// or JAX's default for the dtype.
pub fn fill_value(a: &Args, dtype: DType) -> Result<Value> {
    let v = match a.get(None, "fill_value") {
        Some(Obj::None) | None => match dtype {
            DType::Bool => 1.0,
            d if d.is_inexact() => f64::NAN,
            // JAX fills with the type's smallest signed or largest unsigned value.
            d if d.is_unsigned() => crate::array::narrow::int_bounds(d).1 as f64,
            d => crate::array::narrow::int_bounds(d).0 as f64,
        },
        Some(v) => {
            let v = to_value(&v).map_err(|_| err!(TypeError, "fill_value must be a scalar"))?;
            return jops::convert(&v, dtype);
        }
    };
    match dtype {
        DType::C64 => jops::convert(&jops::scalar(v, DType::F32), DType::C64),
        d => Ok(jops::scalar(v, d)),
    }
}
