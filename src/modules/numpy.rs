//! `jax.numpy` and `numpy`: array creation, elementwise and reduction
//! functions, shape manipulation, linear algebra and comparisons.
//!
//! Both modules share one implementation on shardlab arrays (float32, int32,
//! bool). `numpy` adds device arrays for building meshes and returns Python
//! bools from `allclose`/`array_equal`, as NumPy does.

mod rng;

use crate::array::{Array, BinaryOp, DType, ReduceOp, UnaryOp};
use crate::error::Result;
use crate::trace::Value;
use crate::{bail, err, ops as jops};

use super::sharding::{Device, DeviceArray};
use super::Builder;
use crate::python::array::{check_size, operand_pair, reshape_value, to_value};
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};

fn arr(a: &Args, i: usize, name: &str, func: &str) -> Result<Value> {
    to_value(&a.req(Some(i), name, func)?)
}

fn dtype_arg(a: &Args, index: Option<usize>) -> Result<Option<DType>> {
    match a.opt(index, "dtype") {
        None => Ok(None),
        Some(o) => Ok(Some(dtype_of(&o)?)),
    }
}

/// A dtype from `jnp.float32`, `'float32'`, `float`, `int`, `bool`.
pub fn dtype_of(o: &Obj) -> Result<DType> {
    Ok(match o {
        Obj::DType(d) => *d,
        Obj::Type("float") => DType::F32,
        Obj::Type("int") => DType::I32,
        Obj::Type("bool") => DType::Bool,
        Obj::Str(s) => match &**s {
            "float32" | "float64" | "float" | "f4" | "float16" | "bfloat16" => DType::F32,
            "int32" | "int64" | "int" | "i4" | "int8" | "int16" | "uint8" | "uint32" => DType::I32,
            "bool" => DType::Bool,
            other => bail!(TypeError, "data type '{other}' not understood"),
        },
        other => bail!(
            TypeError,
            "Cannot interpret '{}' as a data type",
            crate::python::format::repr_of(other)
        ),
    })
}

fn axes_arg(a: &Args, index: Option<usize>) -> Result<Option<Vec<i64>>> {
    match a.opt(index, "axis") {
        None => Ok(None),
        Some(o @ (Obj::Tuple(_) | Obj::List(_))) => Ok(Some(
            iterate(&o)?.iter().map(to_int).collect::<Result<_>>()?,
        )),
        Some(o) => Ok(Some(vec![to_int(&o)?])),
    }
}

fn keepdims(a: &Args, index: Option<usize>) -> Result<bool> {
    match a.get(index, "keepdims") {
        None => Ok(false),
        Some(o) => crate::python::ops::truthy(&o, "keepdims"),
    }
}

/// A shape given as an int or a sequence of ints, checked: no negative
/// dimension, and a size the allocation limit allows.
pub(crate) fn shape_of(o: &Obj) -> Result<Vec<usize>> {
    let dims: Vec<i64> = match o {
        Obj::Tuple(_) | Obj::List(_) => iterate(o)?.iter().map(to_int).collect::<Result<_>>()?,
        other => vec![to_int(other)?],
    };
    if let Some(d) = dims.iter().find(|&&d| d < 0) {
        bail!(ValueError, "negative dimensions are not allowed, got {d}");
    }
    let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    check_size(shape.iter().product())?;
    Ok(shape)
}

fn reduction(op: ReduceOp, a: &Args, func: &str) -> Result<Obj> {
    let x = arr(a, 0, "a", func)?;
    let axes = axes_arg(a, Some(1))?;
    let r = jops::reduce(op, &x, axes.as_deref(), keepdims(a, None)?)?;
    Ok(Obj::Array(r))
}

fn mean(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "mean")?;
    let axes = axes_arg(a, Some(1))?;
    Ok(Obj::Array(jops::mean(
        &x,
        axes.as_deref(),
        keepdims(a, None)?,
    )?))
}

fn var(a: &Args, sqrt: bool) -> Result<Obj> {
    let x = arr(a, 0, "a", "var")?;
    let x = jops::convert(&x, DType::F32)?;
    let axes = axes_arg(a, Some(1))?;
    let m = jops::mean(&x, axes.as_deref(), true)?;
    let d = jops::sub(&x, &m)?;
    let v = jops::mean(&jops::mul(&d, &d)?, axes.as_deref(), keepdims(a, None)?)?;
    Ok(Obj::Array(if sqrt { jops::sqrt(&v)? } else { v }))
}

fn arg_reduce(a: &Args, min: bool) -> Result<Obj> {
    let x = arr(a, 0, "a", if min { "argmin" } else { "argmax" })?;
    let axis = a.opt(Some(1), "axis").map(|o| to_int(&o)).transpose()?;
    let keep = keepdims(a, None)?;
    let (x, axis) = match axis {
        Some(ax) => (x, Some(ax)),
        None => (reshape_value(&x, &[-1])?, Some(0)),
    };
    Ok(Obj::Array(jops::arg_reduce(&x, axis, keep, min)?))
}

fn unary(op: UnaryOp) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| {
        let x = arr(&a, 0, "x", op.name())?;
        let needs_float = !matches!(
            op,
            UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Sign | UnaryOp::Not | UnaryOp::IsFinite
        );
        let x = if needs_float && x.dtype() != DType::F32 {
            jops::convert(&x, DType::F32)?
        } else {
            x
        };
        Ok(Obj::Array(jops::unary(op, &x)?))
    }
}

/// `round(x, decimals=0)`: halves to even. JAX scales, rounds and unscales
/// in float32; NumPy's own arrays are float64 there, so `numpy.round` does
/// the arithmetic in double precision before storing float32.
fn round(a: &Args, numpy: bool) -> Result<Obj> {
    let x = arr(a, 0, "a", "round")?;
    let decimals = match a.opt(Some(1), "decimals") {
        Some(d) => to_int(&d)?,
        None => 0,
    };
    if x.dtype() != DType::F32 {
        if decimals >= 0 {
            return Ok(Obj::Array(x));
        }
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: round of integers to negative decimals"
        );
    }
    if decimals == 0 {
        return Ok(Obj::Array(jops::unary(UnaryOp::Round, &x)?));
    }
    let factor = 10f64.powi(decimals.clamp(-300, 300) as i32);
    if numpy {
        if let Value::Concrete(c) = &x {
            let data: Vec<f32> = c
                .to_f64_vec()
                .iter()
                .map(|&v| ((v * factor).round_ties_even() / factor) as f32)
                .collect();
            return Ok(Obj::Array(Value::Concrete(Array::from_f32(
                c.shape(),
                data,
            )?)));
        }
    }
    let f = Value::Concrete(Array::scalar_f32(factor as f32));
    let scaled = jops::unary(UnaryOp::Round, &jops::binary(BinaryOp::Mul, &x, &f)?)?;
    Ok(Obj::Array(jops::binary(BinaryOp::Div, &scaled, &f)?))
}

fn binary(op: BinaryOp) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| {
        let x = a.req(Some(0), "x1", op.name())?;
        let y = a.req(Some(1), "x2", op.name())?;
        let x = if matches!(x, Obj::Array(_)) || matches!(y, Obj::Array(_)) {
            x
        } else {
            Obj::Array(to_value(&x)?)
        };
        let (x, y) = crate::python::array::binary_operands(op, &x, &y)?;
        Ok(Obj::Array(jops::binary(op, &x, &y)?))
    }
}

fn values_list(o: &Obj) -> Result<Vec<Value>> {
    let items = iterate(o)?;
    let vals: Vec<Value> = items.iter().map(to_value).collect::<Result<_>>()?;
    let dtype = vals.iter().map(|v| v.dtype()).max().unwrap_or(DType::F32);
    vals.iter().map(|v| jops::convert(v, dtype)).collect()
}

fn close(a: &Args, func: &str) -> Result<Value> {
    let x = jops::convert(&arr(a, 0, "a", func)?, DType::F32)?;
    let y = jops::convert(&arr(a, 1, "b", func)?, DType::F32)?;
    let rtol = a
        .opt(Some(2), "rtol")
        .and_then(|o| o.as_number())
        .unwrap_or(1e-5);
    let atol = a
        .opt(Some(3), "atol")
        .and_then(|o| o.as_number())
        .unwrap_or(1e-8);
    let diff = jops::abs(&jops::sub(&x, &y)?)?;
    let tol = jops::add(
        &jops::scalar(atol, DType::F32),
        &jops::mul(&jops::scalar(rtol, DType::F32), &jops::abs(&y)?)?,
    )?;
    let ok = jops::less_equal(&diff, &tol)?;
    jops::reduce(ReduceOp::All, &ok, None, false)
}

fn array_equal(a: &Args) -> Result<Value> {
    let x = arr(a, 0, "a1", "array_equal")?;
    let y = arr(a, 1, "a2", "array_equal")?;
    if x.shape() != y.shape() {
        return Ok(Value::Concrete(Array::scalar_bool(false)));
    }
    let (x, y) = operand_pair(&Obj::Array(x), &Obj::Array(y))?;
    jops::reduce(ReduceOp::All, &jops::equal(&x, &y)?, None, false)
}

fn concrete_bool(v: Value, what: &str) -> Result<Obj> {
    Ok(Obj::Bool(v.concrete(what)?.get_f64(0) != 0.0))
}

/// `jnp.einsum` with one or two operands, lowered to sums, dot_general and a transpose.
fn einsum(a: &Args) -> Result<Obj> {
    let spec =
        crate::python::format::str_of(&a.req(Some(0), "subscripts", "einsum")?).replace(' ', "");
    let ops: Vec<Value> = a.pos[1..].iter().map(to_value).collect::<Result<_>>()?;
    let (ins, out) = match spec.split_once("->") {
        Some((i, o)) => (i.to_string(), o.to_string()),
        None => {
            let i = spec.clone();
            let mut counts = std::collections::BTreeMap::new();
            for c in i.chars().filter(|c| c.is_alphabetic()) {
                *counts.entry(c).or_insert(0) += 1;
            }
            (
                i,
                counts
                    .into_iter()
                    .filter(|(_, n)| *n == 1)
                    .map(|(c, _)| c)
                    .collect(),
            )
        }
    };
    let labels: Vec<Vec<char>> = ins.split(',').map(|s| s.chars().collect()).collect();
    if labels.len() != ops.len() || labels.is_empty() || labels.len() > 2 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: einsum '{spec}' with {} operands",
            ops.len()
        );
    }
    let out: Vec<char> = out.chars().collect();
    // Sum away labels that appear in only one operand and not in the output.
    let mut reduced = vec![];
    for (k, (lab, v)) in labels.iter().zip(&ops).enumerate() {
        if lab.len() != v.ndim() {
            bail!(
                ValueError,
                "einstein sum subscripts string contains too many subscripts for operand {k}"
            );
        }
        let others: Vec<char> = labels
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != k)
            .flat_map(|(_, l)| l.clone())
            .collect();
        let drop: Vec<i64> = lab
            .iter()
            .enumerate()
            .filter(|(_, c)| !out.contains(c) && !others.contains(c))
            .map(|(i, _)| i as i64)
            .collect();
        let v = if drop.is_empty() {
            v.clone()
        } else {
            jops::sum(v, Some(&drop), false)?
        };
        let lab: Vec<char> = lab
            .iter()
            .enumerate()
            .filter(|(i, _)| !drop.contains(&(*i as i64)))
            .map(|(_, c)| *c)
            .collect();
        reduced.push((lab, v));
    }
    let (result, res_labels) = if reduced.len() == 1 {
        let (l, v) = reduced
            .pop()
            .ok_or_else(|| err!(ValueError, "einsum needs an operand"))?;
        (l, v)
    } else {
        let (lb, vb) = reduced
            .pop()
            .ok_or_else(|| err!(ValueError, "einsum needs two operands"))?;
        let (la, va) = reduced
            .pop()
            .ok_or_else(|| err!(ValueError, "einsum needs two operands"))?;
        let batch: Vec<char> = la
            .iter()
            .filter(|c| lb.contains(c) && out.contains(c))
            .cloned()
            .collect();
        let contract: Vec<char> = la
            .iter()
            .filter(|c| lb.contains(c) && !out.contains(c))
            .cloned()
            .collect();
        let pos = |l: &[char], c: &char| l.iter().position(|x| x == c).unwrap_or(0);
        let ba: Vec<usize> = batch.iter().map(|c| pos(&la, c)).collect();
        let bb: Vec<usize> = batch.iter().map(|c| pos(&lb, c)).collect();
        let ca: Vec<usize> = contract.iter().map(|c| pos(&la, c)).collect();
        let cb: Vec<usize> = contract.iter().map(|c| pos(&lb, c)).collect();
        let r = jops::dot_general(&va, &vb, (&ca, &cb), (&ba, &bb))?;
        let mut labels = batch.clone();
        labels.extend(
            la.iter()
                .filter(|c| !batch.contains(c) && !contract.contains(c)),
        );
        labels.extend(
            lb.iter()
                .filter(|c| !batch.contains(c) && !contract.contains(c)),
        );
        (labels, r)
    }
    .swap();
    let perm: Vec<usize> =
        out.iter()
            .map(|c| {
                res_labels.iter().position(|x| x == c).ok_or_else(|| {
                    err!(ValueError, "einsum output label '{c}' is not in the inputs")
                })
            })
            .collect::<Result<_>>()?;
    if perm.len() != res_labels.len() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: einsum '{spec}'"
        );
    }
    let identity = perm.iter().enumerate().all(|(i, &p)| i == p);
    Ok(Obj::Array(if identity {
        result
    } else {
        jops::transpose(&result, &perm)?
    }))
}

trait Swap<A, B> {
    fn swap(self) -> (B, A);
}
impl<A, B> Swap<A, B> for (A, B) {
    fn swap(self) -> (B, A) {
        (self.1, self.0)
    }
}

fn split(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "ary", "split")?;
    let axis = a
        .opt(Some(2), "axis")
        .map(|o| to_int(&o))
        .transpose()?
        .unwrap_or(0);
    let ax = jops::norm_axis(axis, x.ndim())?;
    let n = x.shape()[ax];
    let sections = a.req(Some(1), "indices_or_sections", "split")?;
    let bounds: Vec<usize> = match &sections {
        Obj::List(_) | Obj::Tuple(_) => {
            let mut b = vec![0];
            for i in iterate(&sections)? {
                b.push((to_int(&i)?.max(0) as usize).min(n));
            }
            b.push(n);
            b
        }
        o => {
            let k = to_int(o)? as usize;
            if k == 0 || n % k != 0 {
                bail!(
                    ValueError,
                    "array split does not result in an equal division: {n} into {k}"
                );
            }
            (0..=k).map(|i| i * n / k).collect()
        }
    };
    let mut out = vec![];
    for w in bounds.windows(2) {
        let shape = x.shape();
        let mut starts = vec![0; shape.len()];
        let mut limits = shape.clone();
        starts[ax] = w[0];
        limits[ax] = w[1].max(w[0]);
        out.push(Obj::Array(jops::slice(
            &x,
            &starts,
            &limits,
            &vec![1; shape.len()],
        )?));
    }
    Ok(Obj::list(out))
}

fn creation(shape: &Obj, value: f64, dtype: Option<DType>) -> Result<Obj> {
    let shape = shape_of(shape)?;
    Ok(Obj::Array(Value::Concrete(Array::full(
        &shape,
        value,
        dtype.unwrap_or(DType::F32),
    ))))
}

fn like(a: &Args, value: Option<f64>, func: &str) -> Result<Obj> {
    let x = arr(a, 0, "a", func)?;
    let (value, dt_index) = match value {
        Some(v) => (v, Some(1)),
        None => {
            let f = a.req(Some(1), "fill_value", func)?;
            (
                crate::python::builtins::first_scalar(&f)?
                    .as_number()
                    .unwrap_or(0.0),
                Some(2),
            )
        }
    };
    let dtype = dtype_arg(a, dt_index)?.unwrap_or(x.dtype());
    Ok(Obj::Array(Value::Concrete(Array::full(
        &x.shape(),
        value,
        dtype,
    ))))
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
    let f: Vec<f64> = nums
        .iter()
        .map(|o| match o {
            Obj::Array(v) => Ok(v.concrete("jnp.arange")?.get_f64(0)),
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
    if numpy {
        if let Some(d) = device_array(&o)? {
            return Ok(d);
        }
    }
    let v = to_value(&o)?;
    Ok(Obj::Array(match dtype_arg(a, Some(1))? {
        Some(d) => jops::convert(&v, d)?,
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

/// `jnp.float32(x)`: a scalar or array of the dtype.
pub fn cast_to(_: &mut Interp, d: DType, a: Args) -> Result<Obj> {
    let v = to_value(&a.req(Some(0), "x", d.name())?)?;
    Ok(Obj::Array(jops::convert(&v, d)?))
}

/// A `jax.numpy` function by name, for array methods (`x.sum()` is `jnp.sum(x)`).
pub fn jnp_function(interp: &mut Interp, name: &str) -> Result<Obj> {
    let m = super::import(interp, "jax.numpy")?;
    crate::python::ops::getattr(interp, &m, name)
}

fn fill(b: &mut Builder, numpy: bool) {
    b.attr("float32", Obj::DType(DType::F32))
        .attr("float64", Obj::DType(DType::F32))
        .attr("float16", Obj::DType(DType::F32))
        .attr("bfloat16", Obj::DType(DType::F32))
        .attr("int32", Obj::DType(DType::I32))
        .attr("int64", Obj::DType(DType::I32))
        .attr("int8", Obj::DType(DType::I32))
        .attr("uint8", Obj::DType(DType::I32))
        .attr("bool_", Obj::DType(DType::Bool))
        .attr("bool", Obj::DType(DType::Bool))
        .attr("pi", Obj::Float(std::f64::consts::PI))
        .attr("e", Obj::Float(std::f64::consts::E))
        .attr("inf", Obj::Float(f64::INFINITY))
        .attr("nan", Obj::Float(f64::NAN))
        .attr("newaxis", Obj::None)
        .attr("ndarray", Obj::Type("Array"));
    b.func("array", move |_, a| array_fn(&a, numpy));
    b.func("asarray", move |_, a| array_fn(&a, numpy));
    b.func("arange", |_, a| arange(&a));
    b.func("zeros", |_, a| {
        creation(
            &a.req(Some(0), "shape", "zeros")?,
            0.0,
            dtype_arg(&a, Some(1))?,
        )
    });
    b.func("ones", |_, a| {
        creation(
            &a.req(Some(0), "shape", "ones")?,
            1.0,
            dtype_arg(&a, Some(1))?,
        )
    });
    b.func("empty", |_, a| {
        creation(
            &a.req(Some(0), "shape", "empty")?,
            0.0,
            dtype_arg(&a, Some(1))?,
        )
    });
    b.func("full", |_, a| {
        let v = a.req(Some(1), "fill_value", "full")?;
        let default = match v {
            Obj::Int(_) => DType::I32,
            Obj::Bool(_) => DType::Bool,
            _ => DType::F32,
        };
        let value = crate::python::builtins::first_scalar(&v)?
            .as_number()
            .unwrap_or(0.0);
        creation(
            &a.req(Some(0), "shape", "full")?,
            value,
            Some(dtype_arg(&a, Some(2))?.unwrap_or(default)),
        )
    });
    b.func("zeros_like", |_, a| like(&a, Some(0.0), "zeros_like"));
    b.func("ones_like", |_, a| like(&a, Some(1.0), "ones_like"));
    b.func("full_like", |_, a| like(&a, None, "full_like"));
    b.func("linspace", |_, a| {
        let start = crate::python::builtins::first_scalar(&a.req(Some(0), "start", "linspace")?)?
            .as_number()
            .unwrap_or(0.0);
        let stop = crate::python::builtins::first_scalar(&a.req(Some(1), "stop", "linspace")?)?
            .as_number()
            .unwrap_or(0.0);
        let num = a
            .get(Some(2), "num")
            .map(|o| to_int(&o))
            .transpose()?
            .unwrap_or(50);
        let endpoint = match a.get(Some(3), "endpoint") {
            Some(o) => crate::python::ops::truthy(&o, "endpoint")?,
            None => true,
        };
        check_size(num.max(0) as usize)?;
        Ok(Obj::Array(Value::Concrete(Array::linspace(
            start,
            stop,
            num.max(0) as usize,
            endpoint,
        )?)))
    });
    b.func("eye", |_, a| {
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
        check_size(n * m)?;
        Ok(Obj::Array(Value::Concrete(Array::eye(
            n,
            m,
            k,
            dtype_arg(&a, Some(3))?.unwrap_or(DType::F32),
        ))))
    });
    b.func("identity", |_, a| {
        let n = to_int(&a.req(Some(0), "n", "identity")?)? as usize;
        check_size(n * n)?;
        Ok(Obj::Array(Value::Concrete(Array::eye(
            n,
            n,
            0,
            dtype_arg(&a, Some(1))?.unwrap_or(DType::F32),
        ))))
    });
    b.func("sum", |_, a| reduction(ReduceOp::Sum, &a, "sum"));
    b.func("prod", |_, a| reduction(ReduceOp::Prod, &a, "prod"));
    b.func("max", |_, a| reduction(ReduceOp::Max, &a, "max"));
    b.func("amax", |_, a| reduction(ReduceOp::Max, &a, "max"));
    b.func("min", |_, a| reduction(ReduceOp::Min, &a, "min"));
    b.func("amin", |_, a| reduction(ReduceOp::Min, &a, "min"));
    b.func("any", |_, a| reduction(ReduceOp::Any, &a, "any"));
    b.func("all", |_, a| reduction(ReduceOp::All, &a, "all"));
    b.func("mean", |_, a| mean(&a));
    b.func("var", |_, a| var(&a, false));
    b.func("std", |_, a| var(&a, true));
    b.func("argmax", |_, a| arg_reduce(&a, false));
    b.func("argmin", |_, a| arg_reduce(&a, true));
    for (name, op) in [
        ("exp", UnaryOp::Exp),
        ("log", UnaryOp::Log),
        ("log1p", UnaryOp::Log1p),
        ("expm1", UnaryOp::Expm1),
        ("sqrt", UnaryOp::Sqrt),
        ("tanh", UnaryOp::Tanh),
        ("sin", UnaryOp::Sin),
        ("cos", UnaryOp::Cos),
        ("abs", UnaryOp::Abs),
        ("absolute", UnaryOp::Abs),
        ("negative", UnaryOp::Neg),
        ("sign", UnaryOp::Sign),
        ("floor", UnaryOp::Floor),
        ("ceil", UnaryOp::Ceil),
        ("rint", UnaryOp::Round),
        ("logical_not", UnaryOp::Not),
        ("isfinite", UnaryOp::IsFinite),
    ] {
        b.func(name, unary(op));
    }
    for (name, op) in [
        ("add", BinaryOp::Add),
        ("subtract", BinaryOp::Sub),
        ("multiply", BinaryOp::Mul),
        ("divide", BinaryOp::Div),
        ("true_divide", BinaryOp::Div),
        ("floor_divide", BinaryOp::FloorDiv),
        ("remainder", BinaryOp::Rem),
        ("mod", BinaryOp::Rem),
        ("power", BinaryOp::Pow),
        ("maximum", BinaryOp::Max),
        ("minimum", BinaryOp::Min),
        ("arctan2", BinaryOp::Atan2),
        ("equal", BinaryOp::Eq),
        ("not_equal", BinaryOp::Ne),
        ("less", BinaryOp::Lt),
        ("less_equal", BinaryOp::Le),
        ("greater", BinaryOp::Gt),
        ("greater_equal", BinaryOp::Ge),
        ("logical_and", BinaryOp::And),
        ("logical_or", BinaryOp::Or),
        ("logical_xor", BinaryOp::Xor),
    ] {
        b.func(name, binary(op));
    }
    b.func("square", |_, a| {
        Ok(Obj::Array(jops::integer_pow(
            &arr(&a, 0, "x", "square")?,
            2,
        )?))
    });
    b.func("reciprocal", |_, a| {
        let x = jops::convert(&arr(&a, 0, "x", "reciprocal")?, DType::F32)?;
        Ok(Obj::Array(jops::div(&jops::scalar(1.0, DType::F32), &x)?))
    });
    b.func("where", |_, a| {
        let c = jops::convert(&arr(&a, 0, "condition", "where")?, DType::Bool)?;
        let x = a.req(Some(1), "x", "where")?;
        let y = a.req(Some(2), "y", "where")?;
        let (x, y) = operand_pair(&x, &y)?;
        let dt = x.dtype().promote(y.dtype());
        Ok(Obj::Array(jops::select(
            &c,
            &jops::convert(&x, dt)?,
            &jops::convert(&y, dt)?,
        )?))
    });
    b.func("clip", |_, a| {
        let mut x = Obj::Array(arr(&a, 0, "a", "clip")?);
        if let Some(lo) = a.opt(Some(1), "min").or_else(|| a.opt(None, "a_min")) {
            let (p, q) = operand_pair(&x, &lo)?;
            x = Obj::Array(jops::maximum(&p, &q)?);
        }
        if let Some(hi) = a.opt(Some(2), "max").or_else(|| a.opt(None, "a_max")) {
            let (p, q) = operand_pair(&x, &hi)?;
            x = Obj::Array(jops::minimum(&p, &q)?);
        }
        Ok(x)
    });
    b.func("matmul", |_, a| {
        Ok(Obj::Array(jops::matmul(
            &arr(&a, 0, "a", "matmul")?,
            &arr(&a, 1, "b", "matmul")?,
        )?))
    });
    b.func("dot", |_, a| {
        let x = arr(&a, 0, "a", "dot")?;
        let y = arr(&a, 1, "b", "dot")?;
        if x.ndim() == 0 || y.ndim() == 0 {
            let (x, y) = operand_pair(&Obj::Array(x), &Obj::Array(y))?;
            return Ok(Obj::Array(jops::mul(&x, &y)?));
        }
        if y.ndim() <= 2 {
            return Ok(Obj::Array(jops::matmul(&x, &y)?));
        }
        let cb = y.ndim() - 2;
        Ok(Obj::Array(jops::dot_general(
            &x,
            &y,
            (&[x.ndim() - 1], &[cb]),
            (&[], &[]),
        )?))
    });
    b.func("vdot", |_, a| {
        let x = reshape_value(&arr(&a, 0, "a", "vdot")?, &[-1])?;
        let y = reshape_value(&arr(&a, 1, "b", "vdot")?, &[-1])?;
        Ok(Obj::Array(jops::matmul(&x, &y)?))
    });
    b.func("outer", |_, a| {
        let x = reshape_value(&arr(&a, 0, "a", "outer")?, &[-1, 1])?;
        let y = reshape_value(&arr(&a, 1, "b", "outer")?, &[1, -1])?;
        Ok(Obj::Array(jops::mul(&x, &y)?))
    });
    b.func("einsum", |_, a| einsum(&a));
    b.func("reshape", |_, a| {
        let x = arr(&a, 0, "a", "reshape")?;
        let s = a.req(Some(1), "shape", "reshape")?;
        let dims: Vec<i64> = match &s {
            Obj::Tuple(_) | Obj::List(_) => {
                iterate(&s)?.iter().map(to_int).collect::<Result<_>>()?
            }
            o => vec![to_int(o)?],
        };
        Ok(Obj::Array(reshape_value(&x, &dims)?))
    });
    b.func("ravel", |_, a| {
        Ok(Obj::Array(reshape_value(
            &arr(&a, 0, "a", "ravel")?,
            &[-1],
        )?))
    });
    b.func("transpose", |_, a| {
        let x = arr(&a, 0, "a", "transpose")?;
        let perm: Vec<usize> = match a.opt(Some(1), "axes") {
            Some(p) => iterate(&p)?
                .iter()
                .map(|o| to_int(o).and_then(|i| jops::norm_axis(i, x.ndim())))
                .collect::<Result<_>>()?,
            None => (0..x.ndim()).rev().collect(),
        };
        Ok(Obj::Array(jops::transpose(&x, &perm)?))
    });
    b.func("swapaxes", |_, a| {
        let x = arr(&a, 0, "a", "swapaxes")?;
        let p = jops::norm_axis(to_int(&a.req(Some(1), "axis1", "swapaxes")?)?, x.ndim())?;
        let q = jops::norm_axis(to_int(&a.req(Some(2), "axis2", "swapaxes")?)?, x.ndim())?;
        let mut perm: Vec<usize> = (0..x.ndim()).collect();
        perm.swap(p, q);
        Ok(Obj::Array(jops::transpose(&x, &perm)?))
    });
    b.func("moveaxis", |_, a| {
        let x = arr(&a, 0, "a", "moveaxis")?;
        let s = jops::norm_axis(to_int(&a.req(Some(1), "source", "moveaxis")?)?, x.ndim())?;
        let d = jops::norm_axis(
            to_int(&a.req(Some(2), "destination", "moveaxis")?)?,
            x.ndim(),
        )?;
        Ok(Obj::Array(jops::moveaxis(&x, s, d)?))
    });
    b.func("expand_dims", |_, a| {
        let x = arr(&a, 0, "a", "expand_dims")?;
        let ax = to_int(&a.req(Some(1), "axis", "expand_dims")?)?;
        Ok(Obj::Array(jops::expand_dims(&x, ax)?))
    });
    b.func("squeeze", |_, a| {
        let x = arr(&a, 0, "a", "squeeze")?;
        let axes = axes_arg(&a, Some(1))?;
        Ok(Obj::Array(jops::squeeze(&x, axes.as_deref())?))
    });
    b.func("broadcast_to", |_, a| {
        let x = arr(&a, 0, "array", "broadcast_to")?;
        let s = shape_of(&a.req(Some(1), "shape", "broadcast_to")?)?;
        Ok(Obj::Array(jops::broadcast_to(&x, &s)?))
    });
    b.func("concatenate", |_, a| {
        let xs = values_list(&a.req(Some(0), "arrays", "concatenate")?)?;
        let axis = a
            .opt(Some(1), "axis")
            .map(|o| to_int(&o))
            .transpose()?
            .unwrap_or(0);
        Ok(Obj::Array(jops::concatenate(&xs, axis)?))
    });
    b.func("stack", |_, a| {
        let xs = values_list(&a.req(Some(0), "arrays", "stack")?)?;
        let axis = a
            .opt(Some(1), "axis")
            .map(|o| to_int(&o))
            .transpose()?
            .unwrap_or(0);
        Ok(Obj::Array(jops::stack(&xs, axis)?))
    });
    b.func("hstack", |_, a| {
        let xs = values_list(&a.req(Some(0), "tup", "hstack")?)?;
        let axis = if xs.first().map(|x| x.ndim()).unwrap_or(1) <= 1 {
            0
        } else {
            1
        };
        Ok(Obj::Array(jops::concatenate(&xs, axis)?))
    });
    b.func("vstack", |_, a| {
        let xs = values_list(&a.req(Some(0), "tup", "vstack")?)?;
        let xs: Vec<Value> = xs
            .iter()
            .map(|x| {
                if x.ndim() <= 1 {
                    reshape_value(x, &[1, -1])
                } else {
                    Ok(x.clone())
                }
            })
            .collect::<Result<_>>()?;
        Ok(Obj::Array(jops::concatenate(&xs, 0)?))
    });
    b.func("split", |_, a| split(&a));
    b.func("flip", |_, a| {
        let x = arr(&a, 0, "m", "flip")?;
        let axes: Vec<usize> = match axes_arg(&a, Some(1))? {
            Some(ax) => ax
                .iter()
                .map(|&i| jops::norm_axis(i, x.ndim()))
                .collect::<Result<_>>()?,
            None => (0..x.ndim()).collect(),
        };
        Ok(Obj::Array(jops::rev(&x, &axes)?))
    });
    b.func("take", |_, a| {
        let x = arr(&a, 0, "a", "take")?;
        let idx = arr(&a, 1, "indices", "take")?;
        match a.opt(Some(2), "axis") {
            Some(ax) => Ok(Obj::Array(jops::take(&x, &idx, to_int(&ax)?)?)),
            None => Ok(Obj::Array(jops::take(&reshape_value(&x, &[-1])?, &idx, 0)?)),
        }
    });
    for name in ["round", "around"] {
        b.func(name, move |_, a| round(&a, numpy));
    }
    b.func("astype", |_, a| {
        let x = arr(&a, 0, "x", "astype")?;
        let d = dtype_of(&a.req(Some(1), "dtype", "astype")?)?;
        Ok(Obj::Array(jops::convert(&x, d)?))
    });
    b.func("shape", |_, a| {
        let x = arr(&a, 0, "a", "shape")?;
        Ok(Obj::tuple(
            x.shape().iter().map(|&d| Obj::Int(d as i64)).collect(),
        ))
    });
    b.func("ndim", |_, a| {
        Ok(Obj::Int(arr(&a, 0, "a", "ndim")?.ndim() as i64))
    });
    b.func("size", |_, a| {
        Ok(Obj::Int(
            arr(&a, 0, "a", "size")?.shape().iter().product::<usize>() as i64,
        ))
    });
    b.func("allclose", move |_, a| {
        let v = close(&a, "allclose")?;
        if numpy {
            concrete_bool(v, "np.allclose")
        } else {
            Ok(Obj::Array(v))
        }
    });
    b.func("isclose", |_, a| {
        let x = jops::convert(&arr(&a, 0, "a", "isclose")?, DType::F32)?;
        let y = jops::convert(&arr(&a, 1, "b", "isclose")?, DType::F32)?;
        let diff = jops::abs(&jops::sub(&x, &y)?)?;
        let tol = jops::add(
            &jops::scalar(1e-8, DType::F32),
            &jops::mul(&jops::scalar(1e-5, DType::F32), &jops::abs(&y)?)?,
        )?;
        Ok(Obj::Array(jops::less_equal(&diff, &tol)?))
    });
    b.func("array_equal", move |_, a| {
        let v = array_equal(&a)?;
        if numpy {
            concrete_bool(v, "np.array_equal")
        } else {
            Ok(Obj::Array(v))
        }
    });
    let mut linalg = Builder::new(if numpy {
        "numpy.linalg"
    } else {
        "jax.numpy.linalg"
    });
    linalg.func("norm", |_, a| {
        let x = jops::convert(&arr(&a, 0, "x", "norm")?, DType::F32)?;
        let axes = axes_arg(&a, Some(2))?;
        let sq = jops::sum(&jops::mul(&x, &x)?, axes.as_deref(), keepdims(&a, None)?)?;
        Ok(Obj::Array(jops::sqrt(&sq)?))
    });
    b.attr("linalg", linalg.build());
}

/// The `jax.numpy` module.
pub fn jnp_module(_: &mut Interp) -> Obj {
    let mut b = Builder::new("jax.numpy");
    fill(&mut b, false);
    b.build()
}

/// The `numpy` module.
pub fn np_module(_: &mut Interp) -> Obj {
    let mut b = Builder::new("numpy");
    fill(&mut b, true);
    let mut testing = Builder::new("numpy.testing");
    testing.func("assert_allclose", |_, a| {
        let v = close(&a, "assert_allclose")?;
        if v.concrete("assert_allclose")?.get_f64(0) == 0.0 {
            bail!(AssertionError, "\nNot equal to tolerance");
        }
        Ok(Obj::None)
    });
    b.attr("testing", testing.build());
    b.attr("random", rng::module());
    b.build()
}
