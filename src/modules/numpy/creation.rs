//! Array creation: `array`, `asarray`, `arange`, `zeros`, `ones`, `empty`,
//! `full`, the `*_like` functions, `eye`, `identity`, and the
//! arrays of devices that `numpy.array` builds for meshes.

use crate::array::{Array, DType};
use crate::error::Result;
use crate::python::array::{check_size, to_value};
use crate::python::builtins::to_int;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, err, ops as jops};

use super::super::sharding::{Device, DeviceArray};
use super::super::Builder;
use super::{arr, dtype_arg, shape_of};

/// Adds the creation functions to `b`; with `numpy`, `array` and `asarray`
/// also build arrays of devices.
pub(super) fn register(b: &mut Builder, numpy: bool) {
    b.func("array", move |_, a| array_fn(&a, numpy));
    b.func("asarray", move |_, a| array_fn(&a, numpy));
    b.func("arange", |_, a| arange(&a));
    for (name, value) in [("zeros", 0.0), ("ones", 1.0), ("empty", 0.0)] {
        b.func(name, move |_, a| {
            creation(
                &a.req(Some(0), "shape", name)?,
                value,
                dtype_arg(&a, Some(1))?,
            )
        });
    }
    b.func("full", |_, a| full(&a));
    b.func("zeros_like", |_, a| like(&a, Some(0.0), "zeros_like"));
    b.func("ones_like", |_, a| like(&a, Some(1.0), "ones_like"));
    b.func("full_like", |_, a| like(&a, None, "full_like"));
    b.func("eye", |_, a| eye(&a));
    b.func("identity", |_, a| {
        let n = to_int(&a.req(Some(0), "n", "identity")?)? as usize;
        check_size(n.saturating_mul(n))?;
        Ok(Obj::Array(Value::Concrete(Array::eye(
            n,
            n,
            0,
            dtype_arg(&a, Some(1))?.unwrap_or(DType::F32),
        ))))
    });
}

/// `full(shape, fill_value, dtype=None)`: the dtype defaults to the fill
/// value's.
pub(in crate::modules) fn full(a: &Args) -> Result<Obj> {
    let v = a.req(Some(1), "fill_value", "full")?;
    let shape = shape_of(&a.req(Some(0), "shape", "full")?)?;
    let given = dtype_arg(a, Some(2))?;
    Ok(Obj::Array(filled(&v, &shape, given, None)?))
}

/// An array of `shape` filled with `fill` (a number, or an array that
/// broadcasts to `shape`, traced or not). The dtype is `given`, else
/// `inherited` (the `*_like` functions' array's), else the fill's; without
/// a given dtype a Python number fills a weakly typed array.
fn filled(
    fill: &Obj,
    shape: &[usize],
    given: Option<DType>,
    inherited: Option<Value>,
) -> Result<Value> {
    let fill = to_value(fill)?;
    let (dtype, weak) = match (given, &inherited) {
        (Some(d), _) => (d, false),
        (None, Some(x)) => (x.dtype(), x.aval().weak),
        (None, None) => (fill.dtype(), fill.aval().weak),
    };
    check_size(shape.iter().product())?;
    // A concrete fill is converted at once: only the broadcast is staged.
    let fill = match &fill {
        Value::Concrete(_) => crate::trace::untraced(|| jops::convert_weak(&fill, dtype, weak))?,
        Value::Traced(_) => jops::convert_weak(&fill, dtype, weak)?,
    };
    // Under a trace JAX stages the fill as a broadcast of the scalar.
    if fill.ndim() == 0 && dtype != DType::C64 && !crate::trace::tracing() {
        if let Value::Concrete(c) = &fill {
            return Ok(Value::Concrete(
                Array::full(shape, c.get_f64(0), dtype).with_weak(weak),
            ));
        }
    }
    jops::broadcast_to(&fill, shape)
}

/// `eye(N, M=None, k=0, dtype=float32)`.
fn eye(a: &Args) -> Result<Obj> {
    let n = to_int(&a.req(Some(0), "N", "eye")?)? as usize;
    let m = a
        .opt(Some(1), "M")
        .map(|o| to_int(&o))
        .transpose()?
        .map(|m| m as usize)
        .unwrap_or(n);
    let k = a
        .get(Some(2), "k")
        .map(|o| to_int(&o))
        .transpose()?
        .unwrap_or(0);
    check_size(n.saturating_mul(m))?;
    Ok(Obj::Array(Value::Concrete(Array::eye(
        n,
        m,
        k,
        dtype_arg(a, Some(3))?.unwrap_or(DType::F32),
    ))))
}

fn creation(shape: &Obj, value: f64, dtype: Option<DType>) -> Result<Obj> {
    let shape = shape_of(shape)?;
    let dtype = Some(dtype.unwrap_or(DType::F32));
    Ok(Obj::Array(filled(&Obj::Float(value), &shape, dtype, None)?))
}

pub(in crate::modules) fn like(a: &Args, value: Option<f64>, func: &str) -> Result<Obj> {
    let x = arr(a, 0, "a", func)?;
    let (fill, dt_index) = match value {
        Some(v) => (Obj::Float(v), 1),
        None => (a.req(Some(1), "fill_value", func)?, 2),
    };
    // Without a dtype the result keeps the dtype and weak type of `a`.
    let given = dtype_arg(a, Some(dt_index))?;
    // A given shape replaces `a`'s (and with it `a`'s placement).
    if let Some(o) = a.opt(Some(dt_index + 1), "shape") {
        let shape = shape_of(&o)?;
        return Ok(Obj::Array(filled(&fill, &shape, given, Some(x.clone()))?));
    }
    let out = filled(&fill, &x.shape(), given, Some(x.clone()))?;
    // Outside a trace JAX gives the result `a`'s sharding, spec as written.
    Ok(Obj::Array(jops::placed_like(out, &x)))
}

fn arange(a: &Args) -> Result<Obj> {
    let nums: Vec<Obj> = a.pos.iter().take(3).cloned().collect();
    let mut nums = nums;
    for k in ["start", "stop", "step"] {
        if let Some(v) = a.get(None, k) {
            nums.push(v);
        }
    }
    let all_int = nums.iter().all(|o| matches!(o, Obj::Int(_) | Obj::Bool(_)));
    // One number is the stop, as `jnp.arange(n)` names it.
    let names: &[&str] = if nums.len() == 1 {
        &["stop"]
    } else {
        &["start", "stop", "step"]
    };
    let f: Vec<f64> = nums
        .iter()
        .zip(names.iter().chain(std::iter::repeat(&"step")))
        .map(|(o, name)| match o {
            Obj::Array(v) => Ok(v
                .concrete_for(crate::trace::Conversion::Concrete(format!(
                    "It arose in the jnp.arange argument '{name}'"
                )))?
                .get_f64(0)),
            o => o.as_number().ok_or_else(|| {
                err!(
                    TypeError,
                    "arange: expected a number, got {}",
                    o.type_name()
                )
            }),
        })
        .collect::<Result<_>>()?;
    let (start, stop, step) = match f.len() {
        1 => (0.0, f[0], 1.0),
        2 => (f[0], f[1], 1.0),
        3 => (f[0], f[1], f[2]),
        _ => bail!(TypeError, "arange() requires stop to be specified."),
    };
    let dtype = dtype_arg(a, None)?.unwrap_or(if all_int { DType::I32 } else { DType::F32 });
    let n = ((stop - start) / step).ceil().max(0.0) as usize;
    check_size(n)?;
    Ok(Obj::Array(Value::Concrete(Array::arange(
        start, stop, step, dtype,
    )?)))
}

fn array_fn(a: &Args, numpy: bool) -> Result<Obj> {
    let o = a.req(Some(0), "object", "array")?;
    // A range is a sequence of its ints, as JAX reads it.
    let o = match o {
        Obj::Range(..) => Obj::list(crate::python::ops::iterate(&o)?),
        o => o,
    };
    if numpy {
        // NumPy needs the data: a tracer has none (`__array__` fails).
        for leaf in crate::python::pytree::flatten_known(&o)?.0 {
            if let Obj::Array(v) = leaf {
                v.concrete_for(crate::trace::Conversion::Array)?;
            }
        }
        if let Some(d) = device_array(&o)? {
            return Ok(d);
        }
    } else if matches!(o, Obj::None) {
        bail!(ValueError, "None is not a valid value for jnp.array");
    }
    let requested = dtype_arg(a, Some(1))?;
    let v = match requested {
        Some(d) => crate::python::array::to_value_as(&o, d)?,
        None => to_value(&o)?,
    };
    Ok(Obj::Array(match requested {
        Some(d) => jops::astype_dropping_imag(&v, d)?,
        // A NumPy array has no weak type.
        None if numpy => jops::convert_weak(&v, v.dtype(), false)?,
        None => v,
    }))
}

fn device_array(o: &Obj) -> Result<Option<Obj>> {
    fn collect(
        o: &Obj,
        shape: &mut Vec<usize>,
        ids: &mut Vec<usize>,
        depth: usize,
    ) -> Result<bool> {
        match o {
            o if o.downcast::<Device>().is_some() => {
                ids.extend(o.downcast::<Device>().map(|d| d.0));
                Ok(true)
            }
            o if o.downcast::<DeviceArray>().is_some() => {
                let Some(d) = o.downcast::<DeviceArray>() else {
                    return Ok(false);
                };
                if depth == shape.len() {
                    shape.extend(&d.shape);
                }
                ids.extend(&d.ids);
                Ok(true)
            }
            Obj::List(_) | Obj::Tuple(_) => {
                let items = iterate(o)?;
                if depth == shape.len() {
                    shape.push(items.len());
                }
                for it in &items {
                    if !collect(it, shape, ids, depth + 1)? {
                        return Ok(false);
                    }
                }
                Ok(!items.is_empty())
            }
            _ => Ok(false),
        }
    }
    let mut shape = vec![];
    let mut ids = vec![];
    if o.downcast::<DeviceArray>().is_some() {
        return Ok(Some(o.clone()));
    }
    if collect(o, &mut shape, &mut ids, 0)? {
        return Ok(Some(Obj::lib(DeviceArray { shape, ids })));
    }
    Ok(None)
}

/// `devices[k]` on an array of devices.
pub fn devices_getitem(d: &DeviceArray, k: &Obj) -> Result<Obj> {
    let items = d.rows();
    match k {
        Obj::Slice(_) => {
            let sub = crate::python::ops::getitem_list(&items, k)?;
            Ok(device_array(&Obj::list(sub))?.unwrap_or(Obj::list(vec![])))
        }
        Obj::Tuple(t) if !t.is_empty() => {
            let first = devices_getitem(d, &t[0])?;
            if t.len() == 1 {
                return Ok(first);
            }
            match first.downcast::<DeviceArray>() {
                Some(d) => devices_getitem(d, &Obj::tuple(t[1..].to_vec())),
                None => Ok(first),
            }
        }
        _ => {
            let i = to_int(k)?;
            let n = items.len() as i64;
            let j = if i < 0 { i + n } else { i };
            items.get(j as usize).cloned().ok_or_else(|| {
                err!(
                    IndexError,
                    "index {i} is out of bounds for axis 0 with size {n}"
                )
            })
        }
    }
}
