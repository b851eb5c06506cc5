//! `jax.scipy.stats.sem` and `jax.scipy.stats.mode`, composed of the jnp
//! functions JAX composes them of (`std`/`nanstd` over `sqrt` of the
//! count; `unique` with `return_counts` per slice), so their dtypes,
//! weak types and errors are jnp's.
//!
//! JAX's `mode` maps `unique(..., size=n)` over the slices with `vmap`,
//! which needs a traced `unique`; shardlab runs `unique` on each concrete
//! slice instead, and refuses a traced array by name.

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::format::str_of;
use crate::python::interp::Interp;
use crate::python::ops::{getitem, truthy};
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::numpy::jnp_call;
use super::Builder;

/// Adds `sem` and `mode` to `jax.scipy.stats`.
pub(super) fn register(b: &mut Builder) {
    b.func("sem", sem);
    b.func("mode", mode);
}

/// An array argument that is not a list or tuple (`check_arraylike`).
fn arraylike(a: &Args, func: &str) -> Result<Obj> {
    let o = a.req(Some(0), "a", func)?;
    if matches!(o, Obj::List(_) | Obj::Tuple(_)) {
        bail!(
            TypeError,
            "{func} requires ndarray or scalar arguments, got <class '{}'> at position 0.",
            o.type_name()
        );
    }
    Ok(o)
}

/// The `axis` argument: None, or an integer (default 0).
fn axis_arg(a: &Args) -> Result<Option<i64>> {
    match a.get(Some(1), "axis") {
        Some(Obj::None) => Ok(None),
        Some(o) => Ok(Some(to_int(&o)?)),
        None => Ok(Some(0)),
    }
}

fn nan_policy(a: &Args, i: usize) -> String {
    a.opt(Some(i), "nan_policy")
        .map_or_else(|| "propagate".into(), |o| str_of(&o))
}

/// `sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False)`:
/// the standard deviation over the square root of the number of values.
fn sem(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = arraylike(&a, "sem")?;
    let b = match to_value(&x)? {
        v if v.dtype().is_narrow() && v.dtype().is_float() => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.scipy.stats.sem of {} arrays",
            v.dtype().name()
        ),
        v => super::scipy::inexact(vec![v])?.remove(0),
    };
    let dtype = b.dtype();
    let axis = axis_arg(&a)?;
    let axis_obj = axis.map_or(Obj::None, Obj::Int);
    let ddof = a.opt(Some(2), "ddof").unwrap_or(Obj::Int(1));
    let keepdims = a.opt(None, "keepdims").unwrap_or(Obj::Bool(false));
    let policy = nan_policy(&a, 3);
    let b = Obj::Array(b);
    let kw = || vec![("ddof", ddof.clone()), ("keepdims", keepdims.clone())];
    let (spread, count) = match policy.as_str() {
        "propagate" => {
            let shape = to_value(&b)?.shape();
            let size = match axis {
                None => shape.iter().product::<usize>(),
                Some(k) => {
                    let at = if k < 0 { k + shape.len() as i64 } else { k };
                    match usize::try_from(at).ok().and_then(|i| shape.get(i)) {
                        Some(&s) => s,
                        None => bail!(IndexError, "tuple index out of range"),
                    }
                }
            };
            let std = jnp_call(interp, "std", vec![b, axis_obj], kw())?;
            (std, Obj::Int(size as i64))
        }
        "omit" => {
            let nan = jnp_call(interp, "isnan", vec![b.clone()], vec![])?;
            let kept = interp.unary(&rustpython_parser::ast::UnaryOp::Invert, &nan)?;
            let count = jnp_call(
                interp,
                "sum",
                vec![kept, axis_obj.clone()],
                vec![("keepdims", keepdims.clone())],
            )?;
            let std = jnp_call(interp, "nanstd", vec![b, axis_obj], kw())?;
            (std, count)
        }
        other => bail!(ValueError, "{other} is not supported"),
    };
    // JAX jits `sem`, and XLA computes `std / sqrt(count)` as
    // `std * rsqrt(count)`, its rsqrt being `1 / sqrt` rounded twice
    // (folded to a constant when the count is one).
    let count = crate::ops::convert(&to_value(&count)?, dtype)?;
    let one = crate::ops::scalar(1.0, dtype);
    let scale = crate::ops::div(&one, &crate::ops::sqrt(&count)?)?;
    Ok(Obj::Array(crate::ops::mul(&to_value(&spread)?, &scale)?))
}

/// `mode(a, axis=0, nan_policy="propagate", keepdims=False)`: the most
/// common value of each slice along `axis` (the smallest among equally
/// common ones) and how often it occurs, as a `ModeResult`.
fn mode(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = arraylike(&a, "mode")?;
    let x = jnp_call(interp, "atleast_1d", vec![x], vec![])?;
    match nan_policy(&a, 2).as_str() {
        "propagate" => {}
        "omit" => bail!(
            NotImplementedError,
            "Logic for `nan_policy` of omit is not implemented"
        ),
        "raise" => bail!(
            NotImplementedError,
            "In order to best JIT compile `mode`, we cannot know whether `x` contains nans. Please check if nans exist in `x` outside of the `mode` function."
        ),
        other => bail!(
            ValueError,
            "Illegal nan_policy value '{other}'; expected one of {{'propagate', 'omit', 'raise'}}"
        ),
    }
    let v = to_value(&x)?;
    let shape = v.shape();
    let axis = match axis_arg(&a)? {
        Some(k) => Some(crate::ops::norm_axis(k, shape.len())?),
        None => None,
    };
    let keepdims = match a.opt(Some(3), "keepdims") {
        Some(o) => truthy(&o, "keepdims")?,
        None => false,
    };
    let out_shape: Vec<usize> = shape
        .iter()
        .enumerate()
        .filter_map(|(i, &s)| match (axis, keepdims) {
            (Some(k), _) if k != i => Some(s),
            (_, true) => Some(1),
            (_, false) => None,
        })
        .collect();
    if matches!(v, Value::Traced(_)) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.scipy.stats.mode of a traced array"
        );
    }
    let slices = match axis {
        None => crate::ops::reshape(&v, &[v.shape().iter().product(), 1])?,
        Some(k) => {
            let moved = crate::ops::moveaxis(&v, k, 0)?;
            let n = shape[k];
            let rest = shape.iter().product::<usize>().checked_div(n).unwrap_or(0);
            crate::ops::reshape(&moved, &[n, rest])?
        }
    };
    let (vals, counts) = slice_modes(interp, &Obj::Array(slices), v.dtype())?;
    let shape_obj = Obj::tuple(out_shape.iter().map(|&s| Obj::Int(s as i64)).collect());
    let vals = jnp_call(interp, "reshape", vec![vals, shape_obj.clone()], vec![])?;
    let counts = jnp_call(interp, "reshape", vec![counts, shape_obj], vec![])?;
    super::linalg_lu::named_result(
        interp,
        "ModeResult",
        &["mode", "count"],
        vec![to_value(&vals)?, to_value(&counts)?],
    )
}

/// The mode and its count of each column of the `(n, m)` matrix `x`.
fn slice_modes(interp: &mut Interp, x: &Obj, dtype: DType) -> Result<(Obj, Obj)> {
    let shape = to_value(x)?.shape();
    let (n, m) = (shape[0], shape[1]);
    let full = |interp: &mut Interp, fill: Obj, dt: DType| {
        let shape = Obj::tuple(vec![Obj::Int(m as i64)]);
        jnp_call(interp, "full", vec![shape, fill, Obj::DType(dt)], vec![])
    };
    // An empty slice has no mode: JAX gives NaN, counted 0.0.
    if n == 0 {
        let vals = full(interp, Obj::Float(f64::NAN), DType::F32)?;
        return Ok((vals, full(interp, Obj::Float(0.0), DType::F32)?));
    }
    if m == 0 {
        let vals = full(interp, Obj::Int(0), dtype)?;
        return Ok((vals, full(interp, Obj::Int(0), DType::I32)?));
    }
    let (mut vals, mut counts) = (vec![], vec![]);
    for k in 0..m {
        let index = Obj::tuple(vec![
            Obj::Slice(std::rc::Rc::new([Obj::None, Obj::None, Obj::None])),
            Obj::Int(k as i64),
        ]);
        let column = getitem(interp, x, &index)?;
        let kw = vec![
            ("return_counts", Obj::Bool(true)),
            ("size", Obj::Int(n as i64)),
        ];
        let found = jnp_call(interp, "unique", vec![column], kw)?;
        let (distinct, count) = (
            getitem(interp, &found, &Obj::Int(0))?,
            getitem(interp, &found, &Obj::Int(1))?,
        );
        let most = jnp_call(interp, "argmax", vec![count.clone()], vec![])?;
        vals.push(getitem(interp, &distinct, &most)?);
        counts.push(jnp_call(interp, "max", vec![count], vec![])?);
    }
    let vals = jnp_call(interp, "stack", vec![Obj::list(vals)], vec![])?;
    let counts = jnp_call(interp, "stack", vec![Obj::list(counts)], vec![])?;
    Ok((vals, counts))
}
