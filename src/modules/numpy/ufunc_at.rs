//! The indexed methods of a `jnp.ufunc`: `at` (the ufunc applied in place
//! at indices, returned as a new array) and `reduceat` (reductions over
//! the segments that indices start). `add`, `multiply` and `subtract` have
//! `at` of their own (`.at[...].add` and its kin); every other case is
//! JAX's loop: a `scan` over the broadcast indices for `at`, a `fori_loop`
//! over the axis for `reduceat`.

use crate::bail;
use crate::error::Result;
use crate::python::format::str_of;
use crate::python::interp::Interp;
use crate::python::ops::{getattr, iterate};
use crate::python::value::{Args, Obj};

use super::composed::call as jnp;
use super::ufunc::{call_in, item, method, Ufunc};
use super::ufunc_methods::{index_tuple, int_tuple};

/// `ufunc.at(a, indices, b)` once its arguments are checked.
pub(super) fn at(
    interp: &mut Interp,
    u: &Ufunc,
    this: &Obj,
    x: Obj,
    indices: Obj,
    b: Option<Obj>,
) -> Result<Obj> {
    let own = match u.name() {
        "add" if u.builtin() => Some("add"),
        "multiply" if u.builtin() => Some("mul"),
        "subtract" if u.builtin() => Some("subtract"),
        _ => None,
    };
    let x = jnp(interp, "asarray", vec![x], vec![])?;
    if let (Some(op), Some(b)) = (own, b.clone()) {
        return own_at(interp, op, x, indices, b);
    }
    let me = this.clone();
    let (nin, _) = u.arity();
    if nin != 1 + usize::from(b.is_some()) {
        bail!(
            TypeError,
            "{}.at() takes {} operands after the indices",
            u.name(),
            nin - 1
        );
    }
    at_via_scan(interp, &me, x, indices, b)
}

/// `a.at[indices].op(b)`, through int32 for bool arrays as JAX's does.
fn own_at(interp: &mut Interp, op: &str, x: Obj, indices: Obj, b: Obj) -> Result<Obj> {
    let dtype = str_of(&getattr(interp, &x, "dtype")?);
    let boolean = dtype == "bool" && op != "subtract";
    let (x, b) = match boolean {
        true => {
            let int32 = Obj::str("int32");
            let x = method(interp, &x, "astype", vec![int32.clone()], vec![])?;
            let b = jnp(
                interp,
                "asarray",
                vec![b],
                vec![("dtype", Obj::str("bool"))],
            )?;
            (x, method(interp, &b, "astype", vec![int32], vec![])?)
        }
        false => (x, b),
    };
    let at = getattr(interp, &x, "at")?;
    let r = item(interp, &at, indices)?;
    let out = method(interp, &r, op, vec![b], vec![])?;
    match boolean {
        true => method(interp, &out, "astype", vec![Obj::str("bool")], vec![]),
        false => Ok(out),
    }
}

/// `a.at[idx].set(ufunc(a.at[idx].get(), *args))`.
fn set_applied(interp: &mut Interp, me: &Obj, a: &Obj, idx: Obj, args: Vec<Obj>) -> Result<Obj> {
    let at = getattr(interp, a, "at")?;
    let r = item(interp, &at, idx)?;
    let old = method(interp, &r, "get", vec![], vec![])?;
    let mut pos = vec![old];
    pos.extend(args);
    let new = interp.call(me, Args::new(pos))?;
    method(interp, &r, "set", vec![new], vec![])
}

/// JAX's `at` for a ufunc without one of its own: the indices broadcast
/// together and raveled, then a `scan` applying the ufunc at one index
/// at a time, so repeated indices accumulate.
fn at_via_scan(interp: &mut Interp, me: &Obj, x: Obj, indices: Obj, b: Option<Obj>) -> Result<Obj> {
    let dtype = {
        let mut xs = vec![&x];
        if let Some(b) = &b {
            xs.push(b);
        }
        one_dtype(interp, me, &xs)?
    };
    let a = method(interp, &x, "astype", vec![dtype.clone()], vec![])?;
    let b = match b {
        Some(b) => {
            let b = jnp(interp, "asarray", vec![b], vec![])?;
            Some(method(interp, &b, "astype", vec![dtype], vec![])?)
        }
        None => None,
    };
    let idx = index_tuple(&indices)?;
    if idx.is_empty() {
        return Ok(a);
    }
    let shape = index_shape(interp, &idx)?;
    let args: Vec<Obj> = b.into_iter().collect();
    if shape.is_empty() {
        return set_applied(interp, me, &a, Obj::tuple(idx), args);
    }
    let count: i64 = shape.iter().product();
    let (flat_args, flat_idx) = flattened(interp, args, idx, &shape)?;
    let me2 = me.clone();
    let step = Obj::native("scan_fun", move |i, s| {
        let carry = s.pos.first().cloned().unwrap_or(Obj::None);
        let [k, a] = <[Obj; 2]>::try_from(iterate(&carry)?)
            .map_err(|_| crate::err!(TypeError, "scan_fun's carry is (i, a)"))?;
        let mut at = vec![];
        for ind in &flat_idx {
            at.push(match ind.type_name() == "slice" {
                true => ind.clone(),
                false => item(i, ind, k.clone())?,
            });
        }
        let mut vals = vec![];
        for arg in &flat_args {
            vals.push(item(i, arg, k.clone())?);
        }
        let a = set_applied(i, &me2, &a, Obj::tuple(at), vals)?;
        let k1 = jnp(i, "add", vec![k, Obj::Int(1)], vec![])?;
        Ok(Obj::tuple(vec![Obj::tuple(vec![k1, a]), Obj::None]))
    });
    let init = Obj::tuple(vec![Obj::Int(0), a]);
    let kw = vec![("length", Obj::Int(count))];
    let out = call_in(interp, "jax.lax", "scan", vec![step, init, Obj::None], kw)?;
    let carry = item(interp, &out, Obj::Int(0))?;
    item(interp, &carry, Obj::Int(1))
}

/// The shape the array indices among `idx` broadcast to (empty when
/// there are none).
fn index_shape(interp: &mut Interp, idx: &[Obj]) -> Result<Vec<i64>> {
    let mut shapes = vec![];
    for i in idx.iter().filter(|o| o.type_name() != "slice") {
        shapes.push(jnp(interp, "shape", vec![i.clone()], vec![])?);
    }
    if shapes.is_empty() {
        return Ok(vec![]);
    }
    let s = call_in(interp, "jax.lax", "broadcast_shapes", shapes, vec![])?;
    iterate(&s)?
        .iter()
        .map(crate::python::builtins::to_int)
        .collect()
}

/// The operands broadcast to the indices' `shape` and raveled along it,
/// and the array indices broadcast and raveled (slices kept).
fn flattened(
    interp: &mut Interp,
    args: Vec<Obj>,
    idx: Vec<Obj>,
    shape: &[i64],
) -> Result<(Vec<Obj>, Vec<Obj>)> {
    let is_slice = |o: &Obj| o.type_name() == "slice";
    let count: i64 = shape.iter().product();
    let mut flat_args = vec![];
    for arg in args {
        let rest: Vec<i64> = arg_shape_rest(interp, &arg, shape.len())?;
        let full: Vec<i64> = shape.iter().chain(&rest).copied().collect();
        let arg = jnp(interp, "broadcast_to", vec![arg, int_tuple(&full)], vec![])?;
        let flat: Vec<i64> = std::iter::once(count).chain(rest).collect();
        flat_args.push(method(
            interp,
            &arg,
            "reshape",
            vec![int_tuple(&flat)],
            vec![],
        )?);
    }
    let mut flat_idx = vec![];
    for i in idx {
        flat_idx.push(match is_slice(&i) {
            true => i,
            false => {
                let bi = jnp(interp, "broadcast_to", vec![i, int_tuple(shape)], vec![])?;
                method(interp, &bi, "ravel", vec![], vec![])?
            }
        });
    }
    Ok((flat_args, flat_idx))
}

/// The dimensions of `arg` past the first `n`.
fn arg_shape_rest(interp: &mut Interp, arg: &Obj, n: usize) -> Result<Vec<i64>> {
    let s = getattr(interp, arg, "shape")?;
    let s: Vec<i64> = iterate(&s)?
        .iter()
        .map(crate::python::builtins::to_int)
        .collect::<Result<_>>()?;
    Ok(s.get(n..).map(<[i64]>::to_vec).unwrap_or_default())
}

/// The dtype of the ufunc applied to scalar ones of the operands' dtypes.
fn one_dtype(interp: &mut Interp, me: &Obj, xs: &[&Obj]) -> Result<Obj> {
    let mut pos = vec![me.clone()];
    for x in xs {
        let x = jnp(interp, "asarray", vec![(*x).clone()], vec![])?;
        let d = getattr(interp, &x, "dtype")?;
        pos.push(jnp(
            interp,
            "ones",
            vec![Obj::tuple(vec![])],
            vec![("dtype", d)],
        )?);
    }
    let s = call_in(interp, "jax", "eval_shape", pos, vec![])?;
    getattr(interp, &s, "dtype")
}

/// `reduceat`'s operands, checked as JAX checks them.
struct Operands {
    a: Obj,
    ind: Obj,
    shape: Vec<i64>,
    ind_len: i64,
    /// The axis, non-negative.
    ax: i64,
}

fn reduceat_operands(interp: &mut Interp, x: Obj, indices: Obj, axis: &Obj) -> Result<Operands> {
    let a = jnp(interp, "asarray", vec![x], vec![])?;
    let idx = index_tuple(&indices)?;
    let [ind] = <[Obj; 1]>::try_from(idx)
        .map_err(|_| crate::err!(ValueError, "reduceat: indices must be one-dimensional"))?;
    let ind = jnp(interp, "asarray", vec![ind], vec![])?;
    let shape = arg_shape_rest(interp, &a, 0)?;
    if shape.is_empty() {
        bail!(
            ValueError,
            "reduceat: a must have 1 or more dimension, got a.shape=()"
        );
    }
    let ind_shape = arg_shape_rest(interp, &ind, 0)?;
    if ind_shape.len() != 1 {
        let shown: Vec<String> = ind_shape.iter().map(i64::to_string).collect();
        let tail = if shown.len() == 1 { "," } else { "" };
        bail!(
            ValueError,
            "reduceat: indices must be one-dimensional, got indices.shape=({}{tail})",
            shown.join(", ")
        );
    }
    if matches!(*axis, Obj::None | Obj::Tuple(_) | Obj::List(_)) {
        bail!(ValueError, "reduceat requires a single integer axis.");
    }
    let ax = crate::ops::norm_axis(crate::python::builtins::to_int(axis)?, shape.len())? as i64;
    Ok(Operands {
        a,
        ind,
        ind_len: ind_shape[0],
        shape,
        ax,
    })
}

/// `ufunc.reduceat(a, indices, axis)`: JAX's loop. The result starts as
/// the elements at `indices`; step `i` folds element `i` of the axis into
/// every segment it lies strictly inside.
pub(super) fn reduceat(
    interp: &mut Interp,
    me: &Obj,
    x: Obj,
    indices: Obj,
    axis: Obj,
) -> Result<Obj> {
    let Operands {
        a,
        ind,
        shape,
        ind_len,
        ax,
    } = reduceat_operands(interp, x, indices, &axis)?;
    let n = shape.len() as i64;
    let axis_kw = || vec![("axis", Obj::Int(ax))];
    let out = jnp(interp, "take", vec![a.clone(), ind.clone()], axis_kw())?;
    let size = Obj::Int(shape[ax as usize]);
    let appended = jnp(interp, "append", vec![ind, size.clone()], vec![])?;
    let others = int_tuple(&(0..n).filter(|&d| d != ax).collect::<Vec<_>>());
    let bounds = call_in(
        interp,
        "jax.lax",
        "expand_dims",
        vec![appended, others],
        vec![],
    )?;
    let len = ind_len + 1;
    let slice = |i: &mut Interp, lo: i64, hi: i64| {
        let pos = vec![bounds.clone(), Obj::Int(lo), Obj::Int(hi)];
        call_in(
            i,
            "jax.lax",
            "slice_in_dim",
            pos,
            vec![("axis", Obj::Int(ax))],
        )
    };
    let (starts, ends) = (slice(interp, 0, len - 1)?, slice(interp, 1, len)?);
    let me2 = me.clone();
    let body = Obj::native("loop_body", move |i, s| {
        let [k, acc] = <[Obj; 2]>::try_from(s.pos)
            .map_err(|_| crate::err!(TypeError, "loop_body takes two arguments"))?;
        let after = jnp(i, "greater", vec![k.clone(), starts.clone()], vec![])?;
        let before = jnp(i, "less", vec![k.clone(), ends.clone()], vec![])?;
        let inside = jnp(i, "bitwise_and", vec![after, before], vec![])?;
        let at = call_in(
            i,
            "jax.lax",
            "expand_dims",
            vec![k, int_tuple(&[0])],
            vec![],
        )?;
        let elem = jnp(i, "take", vec![a.clone(), at], vec![("axis", Obj::Int(ax))])?;
        let folded = i.call(&me2, Args::new(vec![acc.clone(), elem]))?;
        jnp(i, "where", vec![inside, folded, acc], vec![])
    });
    let pos = vec![Obj::Int(0), size, body, out];
    call_in(interp, "jax.lax", "fori_loop", pos, vec![])
}
