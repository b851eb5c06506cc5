//! Moving a host array's elements: indexing, assignment through an index,
//! broadcasting, and the functions that only rearrange elements
//! (`reshape`, `transpose`, `concatenate`, `stack`, `split`, `tile`, ...).
//!
//! The engine already knows where every element goes; it is asked with an
//! int32 array of element numbers in place of the values (the same call on
//! `arange(n)`), and the 64-bit values are then gathered by those numbers.
//! This keeps one definition of NumPy's indexing and shape rules.

use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::python::array::{array_getitem, at_update};
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::host::{broadcast_index, broadcast_shapes, HostArray, Kind};
use super::hostfuncs::wrap_host;
use super::ndarray::{check_bounds, unwrap};

/// Whether `numpy.NAME` only rearranges elements.
pub fn is_movement(short: &str) -> bool {
    is_sequence_fn(short)
        || matches!(
            short,
            "reshape"
                | "transpose"
                | "split"
                | "array_split"
                | "hsplit"
                | "vsplit"
                | "tile"
                | "roll"
                | "rot90"
                | "flip"
                | "fliplr"
                | "flipud"
                | "expand_dims"
                | "squeeze"
                | "swapaxes"
                | "moveaxis"
                | "ravel"
                | "broadcast_to"
                | "repeat"
                | "atleast_1d"
                | "atleast_2d"
                | "atleast_3d"
                | "take"
                | "copy"
        )
}

/// Functions whose first argument is a sequence of arrays.
fn is_sequence_fn(short: &str) -> bool {
    matches!(
        short,
        "concatenate" | "stack" | "hstack" | "vstack" | "column_stack" | "dstack"
    )
}

/// An int32 array numbering the elements of `shape` from `base`.
fn iota(shape: &[usize], base: usize) -> Result<Value> {
    let n: usize = shape.iter().product();
    let data: Vec<i32> = (base..base + n).map(|i| i as i32).collect();
    Ok(Value::Concrete(Array::from_i32(shape, data)?))
}

/// The element numbers an engine result holds, gathered from `data`.
fn gather(o: Obj, data: &[f64], kind: Kind) -> Result<Obj> {
    match o {
        Obj::Array(v) => {
            let a = v.concrete_for(crate::trace::Conversion::Array)?;
            let idx = a.to_f64_vec();
            wrap_host(HostArray {
                shape: a.shape().to_vec(),
                data: idx.iter().map(|&i| data[i as usize]).collect(),
                kind,
            })
        }
        Obj::Tuple(t) => Ok(Obj::tuple(
            t.iter()
                .map(|x| gather(x.clone(), data, kind))
                .collect::<Result<_>>()?,
        )),
        Obj::List(l) => Ok(Obj::list(
            l.borrow()
                .iter()
                .map(|x| gather(x.clone(), data, kind))
                .collect::<Result<_>>()?,
        )),
        other => Ok(other),
    }
}

/// `x[key]`.
pub fn getitem(h: &HostArray, key: &Obj) -> Result<Obj> {
    check_bounds(&h.shape, key)?;
    let key = unwrap(key.clone())?;
    let sel = array_getitem(&iota(&h.shape, 0)?, &key)?;
    gather(Obj::Array(sel), &h.data, h.kind)
}

/// `x[key] = v`: the new elements of `x`.
pub fn setitem(h: &HostArray, key: &Obj, v: &Obj) -> Result<HostArray> {
    check_bounds(&h.shape, key)?;
    let key = unwrap(key.clone())?;
    let src = HostArray::from_obj(v)?;
    if let Obj::Array(m) = &key {
        if m.dtype() == DType::Bool && m.shape() == h.shape {
            return mask_set(h, m, &src);
        }
    }
    let ids = iota(&h.shape, 0)?;
    let sel = array_getitem(&ids, &key)?;
    let target = HostArray {
        shape: sel.shape().to_vec(),
        data: vec![0.0; sel.shape().iter().product()],
        kind: h.kind,
    };
    let vals = broadcast_into(&target, &src)?;
    // Each chosen place receives -(1 + its number in the selection).
    let n = vals.size() as i32;
    let codes: Vec<i32> = (0..n).map(|i| -1 - i).collect();
    let codes = Array::from_i32(&target.shape, codes)?;
    let placed = at_update(&ids, &key, &Obj::Array(Value::Concrete(codes)), "set")?;
    let placed = placed
        .concrete_for(crate::trace::Conversion::Array)?
        .to_f64_vec();
    let data = placed
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            if c >= 0.0 {
                h.data[i]
            } else {
                vals.data[(-c - 1.0) as usize]
            }
        })
        .collect();
    Ok(HostArray { data, ..h.clone() })
}

/// `x[mask] = v` for a boolean mask of `x`'s shape.
fn mask_set(h: &HostArray, mask: &Value, src: &HostArray) -> Result<HostArray> {
    let m = mask
        .concrete_for(crate::trace::Conversion::Array)?
        .to_f64_vec();
    let count = m.iter().filter(|&&b| b != 0.0).count();
    let target = HostArray {
        shape: vec![count],
        data: vec![0.0; count],
        kind: h.kind,
    };
    let vals = broadcast_into(&target, src)?;
    let mut out = h.clone();
    let mut k = 0;
    for (i, &b) in m.iter().enumerate() {
        if b != 0.0 {
            out.data[i] = vals.data[k];
            k += 1;
        }
    }
    Ok(out)
}

/// `src` broadcast to `target`'s shape and cast to its kind.
pub fn broadcast_into(target: &HostArray, src: &HostArray) -> Result<HostArray> {
    let out = broadcast_shapes(&[&target.shape, &src.shape])?;
    if out != target.shape {
        bail!(
            ValueError,
            "could not broadcast input array from shape {} into shape {}",
            super::host::shape_str(&src.shape),
            super::host::shape_str(&target.shape)
        );
    }
    let n: usize = out.iter().product();
    let data = (0..n)
        .map(|i| {
            target
                .kind
                .cast(src.data[broadcast_index(&src.shape, &out, i)])
        })
        .collect();
    Ok(HostArray {
        shape: out,
        data,
        kind: target.kind,
    })
}

/// `numpy.NAME(x, ...)` for a function that only rearranges elements.
pub fn movement(interp: &mut Interp, short: &str, a: &Args) -> Result<Obj> {
    let first = a.req(Some(0), "a", short)?;
    let parts: Vec<HostArray> = if is_sequence_fn(short) {
        crate::python::ops::iterate(&first)?
            .iter()
            .map(HostArray::from_obj)
            .collect::<Result<_>>()?
    } else {
        vec![HostArray::from_obj(&first)?]
    };
    let mut data = vec![];
    let mut ids = vec![];
    let mut kind = parts.first().map_or(Kind::Float64, |p| p.kind);
    for p in &parts {
        ids.push(Obj::Array(iota(&p.shape, data.len())?));
        data.extend_from_slice(&p.data);
        kind = kind.promote(p.kind);
    }
    let first = if is_sequence_fn(short) {
        Obj::list(ids)
    } else {
        ids.remove(0)
    };
    let mut pos = vec![first];
    for o in a.pos.iter().skip(1) {
        pos.push(unwrap(o.clone())?);
    }
    let kw =
        a.kw.iter()
            .map(|(k, v)| Ok((k.clone(), unwrap(v.clone())?)))
            .collect::<Result<_>>()?;
    let f = super::jnp_function(interp, short)?;
    let out = crate::trace::untraced(|| interp.call(&f, Args::with(pos, kw)))?;
    gather(out, &data, kind)
}
