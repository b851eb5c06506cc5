//! The methods of a `jnp.ufunc` (see `ufunc`): `reduce`, `accumulate`,
//! `at`, `outer` and `reduceat`, each checking its arguments as JAX does
//! and then running JAX's own function for the ufunc or the loop JAX
//! writes, traced under `jax.jit` with the method's static arguments
//! fixed.

use crate::bail;
use crate::error::Result;
use crate::python::builtins::to_int;
use crate::python::format::str_of;
use crate::python::interp::Interp;
use crate::python::ops::{iterate, truthy};
use crate::python::value::{Args, Obj};

use super::composed::call as jnp;
use super::ufunc::{call_in, item, method, Ufunc};

/// The array function JAX's `reduce` is for a ufunc, if it has one that
/// is a jnp function.
fn own_reduce(name: &str) -> Option<&'static str> {
    Some(match name {
        "add" => "sum",
        "multiply" => "prod",
        "minimum" => "min",
        "maximum" => "max",
        "logical_and" => "all",
        "logical_or" => "any",
        _ => return None,
    })
}

/// Runs `body(interp, args)` as a jitted function of `args`.
fn jitted(
    interp: &mut Interp,
    name: &str,
    args: Vec<Obj>,
    body: impl Fn(&mut Interp, Vec<Obj>) -> Result<Obj> + 'static,
) -> Result<Obj> {
    let f = Obj::native(name.to_string(), move |i, a| body(i, a.pos));
    let jit = call_in(interp, "jax", "jit", vec![f], vec![])?;
    interp.call(&jit, Args::new(args))
}

/// `x.shape` as numbers.
fn shape_of(interp: &mut Interp, x: &Obj) -> Result<Vec<i64>> {
    let s = crate::python::ops::getattr(interp, x, "shape")?;
    iterate(&s)?.iter().map(to_int).collect()
}

/// `axis` made non-negative for an array of `ndim` dimensions.
fn canonical_axis(axis: &Obj, ndim: usize) -> Result<usize> {
    crate::ops::norm_axis(to_int(axis)?, ndim)
}

/// The keyword arguments among `kw` that were given (not None).
fn given(kw: Vec<(&str, Option<Obj>)>) -> Vec<(&str, Obj)> {
    kw.into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect()
}

fn refuse_arity(u: &Ufunc, what: &str) -> Result<()> {
    let (nin, nout) = u.arity();
    if nin != 2 {
        bail!(ValueError, "{what} only supported for binary ufuncs");
    }
    if nout != 1 {
        bail!(
            ValueError,
            "{what} only supported for functions returning a single value"
        );
    }
    Ok(())
}

fn refuse_out(a: &Args, index: usize, what: &str) -> Result<()> {
    if a.opt(Some(index), "out").is_some() {
        bail!(NotImplementedError, "out argument of {what}()");
    }
    Ok(())
}

/// What `reduce` was given besides the array.
#[derive(Clone)]
pub(super) struct ReduceArgs {
    pub(super) axis: Obj,
    pub(super) dtype: Option<Obj>,
    pub(super) keepdims: bool,
    pub(super) initial: Option<Obj>,
    pub(super) where_: Option<Obj>,
}

/// `ufunc.reduce(a, axis=0, dtype=None, out=None, keepdims=False,
/// initial=None, where=None)`.
pub(super) fn reduce(interp: &mut Interp, u: &Ufunc, this: &Obj, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "a", "reduce")?;
    refuse_arity(u, "reduce")?;
    refuse_out(&a, 3, &format!("{}.reduce", u.name()))?;
    let r = ReduceArgs {
        axis: a.get(Some(1), "axis").unwrap_or(Obj::Int(0)),
        dtype: a.opt(Some(2), "dtype"),
        keepdims: a
            .opt(Some(4), "keepdims")
            .is_some_and(|k| truthy(&k, "keepdims").unwrap_or(false)),
        initial: a.opt(Some(5), "initial"),
        where_: a.opt(Some(6), "where"),
    };
    if let Some(w) = &r.where_ {
        if matches!(u.identity(), Obj::None) && r.initial.is_none() {
            bail!(
                ValueError,
                "reduction operation '{}' does not have an identity, so to use a where mask one has to specify 'initial'.",
                u.name()
            );
        }
        let w = jnp(interp, "asarray", vec![w.clone()], vec![])?;
        let d = crate::python::ops::getattr(interp, &w, "dtype")?;
        if str_of(&d) != "bool" {
            bail!(
                ValueError,
                "where argument must have dtype=bool; got dtype={}",
                str_of(&d)
            );
        }
    }
    let own = own_reduce(u.name()).filter(|_| u.builtin());
    if let Some(f) = own {
        let kw = given(vec![
            ("axis", Some(r.axis.clone())),
            ("dtype", r.dtype.clone()),
            ("keepdims", Some(Obj::Bool(r.keepdims))),
            ("initial", r.initial.clone()),
            ("where", r.where_.clone()),
        ]);
        return jnp(interp, f, vec![x], kw);
    }
    if u.builtin() && u.name().starts_with("logaddexp") {
        return super::ufunc_logsumexp::reduce(interp, u.name(), x, &r);
    }
    let me = this.clone();
    let args = vec![
        x,
        r.initial.clone().unwrap_or(Obj::None),
        r.where_.clone().unwrap_or(Obj::None),
    ];
    let identity = u.identity().clone();
    jitted(interp, "reduce", args, move |i, v| {
        reduce_via_loop(i, &me, &identity, &r, v)
    })
}

/// The result dtype of `ufunc(one, one, ...)` for ones of `x`'s dtype.
fn result_dtype(interp: &mut Interp, me: &Obj, xs: &[&Obj]) -> Result<Obj> {
    let mut ones = vec![];
    for x in xs {
        let d = crate::python::ops::getattr(interp, x, "dtype")?;
        let shape = Obj::tuple(vec![]);
        ones.push(jnp(interp, "ones", vec![shape], vec![("dtype", d)])?);
    }
    let mut pos = vec![me.clone()];
    pos.extend(ones);
    let s = call_in(interp, "jax", "eval_shape", pos, vec![])?;
    crate::python::ops::getattr(interp, &s, "dtype")
}

/// JAX's reduction of a ufunc that has no reduction of its own: a
/// `fori_loop` over the leading axis.
fn reduce_via_loop(
    interp: &mut Interp,
    me: &Obj,
    identity: &Obj,
    r: &ReduceArgs,
    v: Vec<Obj>,
) -> Result<Obj> {
    let [x, initial, where_] = <[Obj; 3]>::try_from(v)
        .map_err(|_| crate::err!(TypeError, "reduce takes three traced arguments"))?;
    let arr = jnp(interp, "asarray", vec![x], vec![])?;
    let initial = match initial {
        Obj::None => identity.clone(),
        i => i,
    };
    let dtype = match &r.dtype {
        Some(d) => d.clone(),
        None => result_dtype(interp, me, &[&arr, &arr])?,
    };
    let (arr, mask, final_shape) = arrange(interp, arr, where_, r)?;
    let moved = shape_of(interp, &arr)?;
    let n = moved.first().copied().unwrap_or(1);
    if n == 0 {
        if matches!(initial, Obj::None) {
            bail!(
                ValueError,
                "zero-size array to reduction operation {} which has no identity",
                str_of(&crate::python::ops::getattr(interp, me, "__name__")?)
            );
        }
        let full = vec![int_tuple(&final_shape), initial, dtype];
        return call_in(interp, "jax.lax", "full", full, vec![]);
    }
    let (start, first) = match initial {
        Obj::None => (1, item(interp, &arr, Obj::Int(0))?),
        i => (0, i),
    };
    let first = jnp(interp, "asarray", vec![first], vec![])?;
    let first = method(interp, &first, "astype", vec![dtype.clone()], vec![])?;
    let rest = int_tuple(&moved[1..]);
    let start_value = jnp(interp, "broadcast_to", vec![first, rest], vec![])?;
    let body = reduce_body(me.clone(), arr, mask, dtype);
    let loop_args = vec![Obj::Int(start), Obj::Int(n), body, start_value];
    let out = call_in(interp, "jax.lax", "fori_loop", loop_args, vec![])?;
    match r.keepdims {
        true => method(
            interp,
            &out,
            "reshape",
            vec![int_tuple(&final_shape)],
            vec![],
        ),
        false => Ok(out),
    }
}

/// The array (and mask) with the reduced axis in front, raveled when
/// `axis` is None, and the shape of the result.
fn arrange(
    interp: &mut Interp,
    mut arr: Obj,
    where_: Obj,
    r: &ReduceArgs,
) -> Result<(Obj, Obj, Vec<i64>)> {
    let shape = shape_of(interp, &arr)?;
    let mut mask = match where_ {
        Obj::None => Obj::None,
        w => jnp(interp, "broadcast_to", vec![w, int_tuple(&shape)], vec![])?,
    };
    let (axis, final_shape) = match &r.axis {
        Obj::Tuple(_) => bail!(NotImplementedError, "tuple of axes"),
        Obj::None => {
            arr = method(interp, &arr, "ravel", vec![], vec![])?;
            if !matches!(mask, Obj::None) {
                mask = method(interp, &mask, "ravel", vec![], vec![])?;
            }
            (
                0,
                if r.keepdims {
                    vec![1; shape.len()]
                } else {
                    vec![]
                },
            )
        }
        a => {
            let ax = canonical_axis(a, shape.len())?;
            let mut f = shape.clone();
            if r.keepdims {
                f[ax] = 1;
            } else {
                f.remove(ax);
            }
            (ax, f)
        }
    };
    if axis != 0 {
        let to_front = |i: &mut Interp, o: Obj| {
            jnp(
                i,
                "moveaxis",
                vec![o, Obj::Int(axis as i64), Obj::Int(0)],
                vec![],
            )
        };
        arr = to_front(interp, arr)?;
        if !matches!(mask, Obj::None) {
            mask = to_front(interp, mask)?;
        }
    }
    Ok((arr, mask, final_shape))
}

/// The loop body of [`reduce_via_loop`]: the running value folded with
/// row `i` (where the mask, if any, allows it).
fn reduce_body(me2: Obj, arr2: Obj, mask: Obj, dtype: Obj) -> Obj {
    Obj::native("body_fun", move |i, a| {
        let [k, val] = <[Obj; 2]>::try_from(a.pos)
            .map_err(|_| crate::err!(TypeError, "body_fun takes two arguments"))?;
        let row = item(i, &arr2, k.clone())?;
        let row = method(i, &row, "astype", vec![dtype.clone()], vec![])?;
        let next = i.call(&me2, Args::new(vec![val.clone(), row]))?;
        match &mask {
            Obj::None => Ok(next),
            m => {
                let keep = item(i, m, k)?;
                jnp(i, "where", vec![keep, next, val], vec![])
            }
        }
    })
}

pub(super) fn int_tuple(xs: &[i64]) -> Obj {
    Obj::tuple(xs.iter().map(|&n| Obj::Int(n)).collect())
}

/// `ufunc.accumulate(a, axis=0, dtype=None, out=None)`.
pub(super) fn accumulate(interp: &mut Interp, u: &Ufunc, this: &Obj, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "a", "accumulate")?;
    refuse_arity(u, "accumulate")?;
    refuse_out(&a, 3, &format!("{}.accumulate", u.name()))?;
    let axis = a.get(Some(1), "axis").unwrap_or(Obj::Int(0));
    let dtype = a.opt(Some(2), "dtype");
    let own = match u.name() {
        "add" if u.builtin() => Some("cumsum"),
        "multiply" if u.builtin() => Some("cumprod"),
        _ => None,
    };
    if let Some(f) = own {
        let kw = given(vec![("axis", Some(axis)), ("dtype", dtype)]);
        return jnp(interp, f, vec![x], kw);
    }
    if matches!(axis, Obj::None | Obj::Tuple(_)) {
        bail!(ValueError, "accumulate does not allow multiple axes");
    }
    let me = this.clone();
    jitted(interp, "accumulate", vec![x], move |i, v| {
        accumulate_via_scan(i, &me, &axis, dtype.clone(), v)
    })
}

/// JAX's accumulation of a ufunc that has none of its own: a `scan` over
/// the leading axis carrying the step and the running value.
fn accumulate_via_scan(
    interp: &mut Interp,
    me: &Obj,
    axis: &Obj,
    dtype: Option<Obj>,
    v: Vec<Obj>,
) -> Result<Obj> {
    let x = v.into_iter().next().unwrap_or(Obj::None);
    let arr = jnp(interp, "asarray", vec![x], vec![])?;
    let dtype = match dtype {
        Some(d) => d,
        None => result_dtype(interp, me, &[&arr, &arr])?,
    };
    let shape = shape_of(interp, &arr)?;
    let ax = canonical_axis(axis, shape.len())?;
    if shape.iter().product::<i64>() == 0 {
        let full = vec![int_tuple(&shape), Obj::Int(0), dtype];
        return call_in(interp, "jax.lax", "full", full, vec![]);
    }
    let ax_obj = Obj::Int(ax as i64);
    let arr = jnp(
        interp,
        "moveaxis",
        vec![arr, ax_obj.clone(), Obj::Int(0)],
        vec![],
    )?;
    let first = item(interp, &arr, Obj::Int(0))?;
    let first = method(interp, &first, "astype", vec![dtype.clone()], vec![])?;
    let (me2, arr2, first2) = (me.clone(), arr.clone(), first.clone());
    let step = Obj::native("scan_fun", move |i, a| {
        let carry = a.pos.first().cloned().unwrap_or(Obj::None);
        let [k, acc] = <[Obj; 2]>::try_from(iterate(&carry)?)
            .map_err(|_| crate::err!(TypeError, "scan_fun's carry is (i, x)"))?;
        let acc = method(i, &acc, "astype", vec![dtype.clone()], vec![])?;
        let row = item(i, &arr2, k.clone())?;
        let row = method(i, &row, "astype", vec![dtype.clone()], vec![])?;
        let next = i.call(&me2, Args::new(vec![acc, row]))?;
        let is_first = jnp(i, "equal", vec![k.clone(), Obj::Int(0)], vec![])?;
        let y = jnp(i, "where", vec![is_first, first2.clone(), next], vec![])?;
        let k1 = jnp(i, "add", vec![k, Obj::Int(1)], vec![])?;
        Ok(Obj::tuple(vec![Obj::tuple(vec![k1, y.clone()]), y]))
    });
    let init = Obj::tuple(vec![Obj::Int(0), first]);
    let length = Obj::Int(shape[ax]);
    let kw = vec![("length", length)];
    let out = call_in(interp, "jax.lax", "scan", vec![step, init, Obj::None], kw)?;
    let result = item(interp, &out, Obj::Int(1))?;
    jnp(
        interp,
        "moveaxis",
        vec![result, Obj::Int(0), ax_obj],
        vec![],
    )
}

/// `ufunc.outer(A, B)`: the ufunc mapped over every pair, as JAX maps it
/// (`vmap` of `vmap` over the raveled operands).
pub(super) fn outer(interp: &mut Interp, u: &Ufunc, this: &Obj, a: Args) -> Result<Obj> {
    refuse_arity(u, "outer")?;
    let x = a.req(Some(0), "A", "outer")?;
    let y = a.req(Some(1), "B", "outer")?;
    let me = this.clone();
    jitted(interp, "outer", vec![x, y], move |i, v| {
        let [x, y] = <[Obj; 2]>::try_from(v)
            .map_err(|_| crate::err!(TypeError, "outer takes two arrays"))?;
        let (sx, sy) = (shape_of(i, &x)?, shape_of(i, &y)?);
        let flat = |i: &mut Interp, o: Obj| jnp(i, "ravel", vec![o], vec![]);
        let (fx, fy) = (flat(i, x)?, flat(i, y)?);
        let axes = |a: Obj, b: Obj| vec![("in_axes", Obj::tuple(vec![a, b]))];
        let inner = call_in(
            i,
            "jax",
            "vmap",
            vec![me.clone()],
            axes(Obj::None, Obj::Int(0)),
        )?;
        let outer = call_in(i, "jax", "vmap", vec![inner], axes(Obj::Int(0), Obj::None))?;
        let r = i.call(&outer, Args::new(vec![fx, fy]))?;
        let shape: Vec<i64> = sx.into_iter().chain(sy).collect();
        method(i, &r, "reshape", vec![int_tuple(&shape)], vec![])
    })
}

/// The index tuple of `indices`, as JAX reads an index: a list is refused
/// (multidimensional indexing takes a tuple), anything else is one index.
pub(super) fn index_tuple(indices: &Obj) -> Result<Vec<Obj>> {
    match indices {
        Obj::Tuple(t) => Ok(t.to_vec()),
        Obj::List(_) => bail!(
            TypeError,
            "Using a non-tuple sequence for multidimensional indexing is not allowed; use `arr[array(seq)]` instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 for more information."
        ),
        o => Ok(vec![o.clone()]),
    }
}

/// `ufunc.at(a, indices, b=None, /, *, inplace=True)`.
pub(super) fn at(interp: &mut Interp, u: &Ufunc, this: &Obj, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "a", "at")?;
    let indices = a.req(Some(1), "indices", "at")?;
    let b = a.opt(Some(2), "b");
    if a.get(None, "inplace")
        .is_none_or(|o| truthy(&o, "inplace").unwrap_or(true))
    {
        bail!(
            NotImplementedError,
            "Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like\nnp.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.\n>>> arr = jnp.add.at(arr, ind, val, inplace=False)\n"
        );
    }
    super::ufunc_at::at(interp, u, this, x, indices, b)
}

/// `ufunc.reduceat(a, indices, axis=0, dtype=None, out=None)`.
pub(super) fn reduceat(interp: &mut Interp, u: &Ufunc, this: &Obj, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "a", "reduceat")?;
    let indices = a.req(Some(1), "indices", "reduceat")?;
    refuse_arity(u, "reduceat")?;
    refuse_out(&a, 4, &format!("{}.reduceat", u.name()))?;
    let axis = a.get(Some(2), "axis").unwrap_or(Obj::Int(0));
    super::ufunc_at::reduceat(interp, this, x, indices, axis)
}
