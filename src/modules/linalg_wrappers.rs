//! The thin `jnp.linalg` functions of the array API, each a composition of
//! other operations as JAX writes it: `matmul`, `matrix_transpose`,
//! `outer`, `cross`, `diagonal`, `trace`, `vector_norm`, `matrix_norm`,
//! `matrix_power`, `multi_dot`, `tensorinv`, `tensorsolve`, `vecdot`,
//! `tensordot`; and `jnp.vecdot`.

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::ops;
use crate::primitives::linalg::{conj, mt};
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::Builder;

/// Calls `jax.numpy.NAME` with the given arguments.
pub(crate) fn jnp_call(interp: &mut Interp, name: &str, args: Args) -> Result<Obj> {
    let jnp = super::import(interp, "jax.numpy")?;
    let f = crate::python::ops::getattr(interp, &jnp, name)?;
    interp.call(&f, args)
}

fn value(a: &Args, i: usize, name: &str, func: &str) -> Result<Value> {
    to_value(&a.req(Some(i), name, func)?)
}

fn int_kw(a: &Args, i: Option<usize>, name: &str, default: i64) -> Result<i64> {
    match a.opt(i, name) {
        None | Some(Obj::None) => Ok(default),
        Some(o) => crate::python::builtins::to_int(&o),
    }
}

fn matrix_transpose(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = value(&a, 0, "x", "matrix_transpose")?;
    if x.ndim() < 2 {
        bail!(
            ValueError,
            "matrix_transpose requires at least 2 dimensions; got ndim={}",
            x.ndim()
        );
    }
    Ok(Obj::Array(mt(&x)?))
}

fn outer(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = value(&a, 0, "x1", "outer")?;
    let y = value(&a, 1, "x2", "outer")?;
    if x.ndim() != 1 || y.ndim() != 1 {
        bail!(
            ValueError,
            "Input arrays must be one-dimensional, but they are x1.ndim={} x2.ndim={}",
            x.ndim(),
            y.ndim()
        );
    }
    let (x, y) = crate::python::array::operand_pair(
        &Obj::Array(ops::expand_dims(&x, 1)?),
        &Obj::Array(ops::expand_dims(&y, 0)?),
    )?;
    Ok(Obj::Array(ops::mul(&x, &y)?))
}

/// Component `i` along the last axis.
fn comp(x: &Value, i: usize) -> Result<Value> {
    let s = x.shape();
    let nd = s.len();
    let mut lo = vec![0; nd];
    let mut hi = s.clone();
    lo[nd - 1] = i;
    hi[nd - 1] = i + 1;
    ops::squeeze(&ops::slice(x, &lo, &hi, &vec![1; nd])?, Some(&[-1]))
}

fn cross(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = value(&a, 0, "x1", "cross")?;
    let y = value(&a, 1, "x2", "cross")?;
    let axis = int_kw(&a, None, "axis", -1)?;
    let (ax, ay) = (
        ops::norm_axis(axis, x.ndim())?,
        ops::norm_axis(axis, y.ndim())?,
    );
    let (lx, ly) = (x.shape()[ax], y.shape()[ay]);
    if lx != 3 || ly != 3 {
        bail!(
            ValueError,
            "Both input arrays must be (arrays of) 3-dimensional vectors, but they have \
             x1.shape[axis]={lx} and x2.shape[axis]={ly}"
        );
    }
    let (x, y) = crate::python::array::operand_pair(&Obj::Array(x), &Obj::Array(y))?;
    let x = ops::moveaxis(&x, ax, x.ndim() - 1)?;
    let y = ops::moveaxis(&y, ay, y.ndim() - 1)?;
    let (a0, a1, a2) = (comp(&x, 0)?, comp(&x, 1)?, comp(&x, 2)?);
    let (b0, b1, b2) = (comp(&y, 0)?, comp(&y, 1)?, comp(&y, 2)?);
    let term = |p: &Value, q: &Value, r: &Value, s: &Value| -> Result<Value> {
        ops::sub(&ops::mul(p, q)?, &ops::mul(r, s)?)
    };
    let c = ops::stack(
        &[
            term(&a1, &b2, &a2, &b1)?,
            term(&a2, &b0, &a0, &b2)?,
            term(&a0, &b1, &a1, &b0)?,
        ],
        0,
    )?;
    let out_axis = ops::norm_axis(axis, c.ndim())?;
    Ok(Obj::Array(ops::moveaxis(&c, 0, out_axis)?))
}

fn diagonal(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "diagonal")?;
    let offset = int_kw(&a, None, "offset", 0)?;
    let args = Args::with(
        vec![x],
        vec![
            ("offset".into(), Obj::Int(offset)),
            ("axis1".into(), Obj::Int(-2)),
            ("axis2".into(), Obj::Int(-1)),
        ],
    );
    jnp_call(interp, "diagonal", args)
}

fn trace(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "trace")?;
    let offset = int_kw(&a, None, "offset", 0)?;
    let mut kw = vec![
        ("offset".into(), Obj::Int(offset)),
        ("axis1".into(), Obj::Int(-2)),
        ("axis2".into(), Obj::Int(-1)),
    ];
    if let Some(d) = a.opt(None, "dtype") {
        kw.push(("dtype".into(), d));
    }
    jnp_call(interp, "trace", Args::with(vec![x], kw))
}

/// Axes as a list of ints: an int, a sequence, or `None` (all).
fn axes_of(o: Option<Obj>) -> Result<Option<Vec<i64>>> {
    match o {
        None | Some(Obj::None) => Ok(None),
        Some(Obj::Int(i)) => Ok(Some(vec![i])),
        Some(o) => crate::python::ops::iterate(&o)?
            .iter()
            .map(crate::python::builtins::to_int)
            .collect::<Result<Vec<_>>>()
            .map(Some),
    }
}

fn vector_norm(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = super::linalg::inexact_arg(&a, 0, "x", "vector_norm")?;
    let axes = axes_of(a.opt(None, "axis"))?;
    let keep = super::linalg::flag(&a, None, "keepdims", false)?;
    let ord = match a.opt(None, "ord") {
        None | Some(Obj::None) => super::linalg::Ord::Num(2.0),
        Some(o) => super::linalg::ord_of(&o)?,
    };
    if let super::linalg::Ord::Name(n) = &ord {
        let hint = match n.as_str() {
            "inf" => "Use 'jax.numpy.inf' instead.",
            "-inf" => "Use '-jax.numpy.inf' instead.",
            _ => "",
        };
        bail!(ValueError, "Invalid order '{n}' for vector norm.{hint}");
    }
    Ok(Obj::Array(super::linalg::vector_norm(
        &x,
        ord,
        axes.as_deref(),
        keep,
    )?))
}

fn matrix_norm(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "x", "matrix_norm")?)?;
    let keep = super::linalg::flag(&a, None, "keepdims", false)?;
    let ord = a.opt(None, "ord").unwrap_or_else(|| Obj::str("fro"));
    Ok(Obj::Array(super::linalg::norm(
        &x,
        Some(&ord),
        Some(&[-2, -1]),
        keep,
    )?))
}

/// `a^n` by repeated squaring in JAX's order (`n < 0` inverts first).
fn matrix_power(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = value(&a, 0, "a", "matrix_power")?;
    if x.ndim() < 2 {
        bail!(
            TypeError,
            "{}-dimensional array given. Array must be at least two-dimensional",
            x.ndim()
        );
    }
    let s = x.shape();
    if s[s.len() - 1] != s[s.len() - 2] {
        bail!(TypeError, "Last 2 dimensions of the array must be square");
    }
    let n = match a.req(Some(1), "n", "matrix_power")? {
        Obj::Int(n) => n,
        other => bail!(
            TypeError,
            "exponent must be an integer, got {}",
            crate::python::format::repr_of(&other)
        ),
    };
    if n == 0 {
        let k = s[s.len() - 1];
        let eye = crate::array::Array::eye(k, k, 0, x.dtype());
        return Ok(Obj::Array(ops::broadcast_to(&Value::Concrete(eye), &s)?));
    }
    let x = if n < 0 {
        if !x.dtype().is_inexact() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: matrix_power of an integer matrix with n < 0"
            );
        }
        let k = s[s.len() - 1];
        let eye = ops::broadcast_to(
            &Value::Concrete(crate::array::Array::eye(k, k, 0, x.dtype())),
            &s,
        )?;
        super::linalg_lu::solve_values(&x, &eye)?
    } else {
        x
    };
    let mut n = n.unsigned_abs();
    match n {
        1 => return Ok(Obj::Array(x)),
        2 => return Ok(Obj::Array(ops::matmul(&x, &x)?)),
        3 => return Ok(Obj::Array(ops::matmul(&ops::matmul(&x, &x)?, &x)?)),
        _ => {}
    }
    let (mut z, mut result): (Option<Value>, Option<Value>) = (None, None);
    while n > 0 {
        let next = match &z {
            None => x.clone(),
            Some(z) => ops::matmul(z, z)?,
        };
        let bit = n % 2;
        n /= 2;
        if bit == 1 {
            result = Some(match result {
                None => next.clone(),
                Some(r) => ops::matmul(&r, &next)?,
            });
        }
        z = Some(next);
    }
    match result {
        Some(r) => Ok(Obj::Array(r)),
        None => bail!(RuntimeError, "matrix_power produced no result"),
    }
}

fn shapes(vs: &[Value]) -> String {
    let parts: Vec<String> = vs
        .iter()
        .map(|v| crate::array::shape_tuple(&v.shape()))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// The cheapest order of a chain of matrix products (by multiplications),
/// as an optimal contraction path finds it; returns the product.
fn chain(ms: &[Value], i: usize, j: usize, split: &[Vec<usize>]) -> Result<Value> {
    if i == j {
        return Ok(ms[i].clone());
    }
    let k = split[i][j];
    ops::matmul(&chain(ms, i, k, split)?, &chain(ms, k + 1, j, split)?)
}

fn multi_dot(_: &mut Interp, a: Args) -> Result<Obj> {
    let items = crate::python::ops::iterate(&a.req(Some(0), "arrays", "multi_dot")?)?;
    let vs: Vec<Value> = items.iter().map(to_value).collect::<Result<_>>()?;
    let k = vs.len();
    if k < 2 {
        bail!(
            ValueError,
            "multi_dot requires at least two arrays; got len(arrays)={k}"
        );
    }
    let ends_ok = |v: &Value| v.ndim() == 1 || v.ndim() == 2;
    if !ends_ok(&vs[0]) || !ends_ok(&vs[k - 1]) || vs[1..k - 1].iter().any(|v| v.ndim() != 2) {
        bail!(
            ValueError,
            "multi_dot: input arrays must all be two-dimensional, except for the first and last \
             array which may be 1 or 2 dimensional. Got array shapes {}",
            shapes(&vs)
        );
    }
    if vs
        .windows(2)
        .any(|w| w[0].shape()[w[0].ndim() - 1] != w[1].shape()[0])
    {
        bail!(
            ValueError,
            "multi_dot: last dimension of each array must match first dimension of following \
             array. Got array shapes {}",
            shapes(&vs)
        );
    }
    let (first_vec, last_vec) = (vs[0].ndim() == 1, vs[k - 1].ndim() == 1);
    let mut ms = vs.clone();
    if first_vec {
        ms[0] = ops::expand_dims(&ms[0], 0)?;
    }
    if last_vec {
        ms[k - 1] = ops::expand_dims(&ms[k - 1], 1)?;
    }
    let mut dims: Vec<usize> = ms.iter().map(|m| m.shape()[0]).collect();
    dims.push(ms[k - 1].shape()[1]);
    let split = chain_order(&dims);
    let mut out = chain(&ms, 0, k - 1, &split)?;
    if first_vec {
        out = ops::squeeze(&out, Some(&[0]))?;
    }
    if last_vec {
        out = ops::squeeze(&out, Some(&[-1]))?;
    }
    Ok(Obj::Array(out))
}

/// The split points of the cheapest parenthesization of matrices with
/// dimensions `dims[i] x dims[i + 1]`.
fn chain_order(dims: &[usize]) -> Vec<Vec<usize>> {
    let k = dims.len() - 1;
    let mut cost = vec![vec![0u128; k]; k];
    let mut split = vec![vec![0usize; k]; k];
    for len in 1..k {
        for i in 0..k - len {
            let j = i + len;
            cost[i][j] = u128::MAX;
            for s in i..j {
                let c = cost[i][s] + cost[s + 1][j] + (dims[i] * dims[s + 1] * dims[j + 1]) as u128;
                if c < cost[i][j] {
                    cost[i][j] = c;
                    split[i][j] = s;
                }
            }
        }
    }
    split
}

fn tensorinv(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = value(&a, 0, "a", "tensorinv")?;
    let ind = int_kw(&a, Some(1), "ind", 2)?;
    if ind <= 0 {
        bail!(ValueError, "ind must be a positive integer; got ind={ind}");
    }
    let s = x.shape();
    let ind = (ind as usize).min(s.len());
    let (head, tail) = (&s[..ind], &s[ind..]);
    let (rows, cols) = (
        head.iter().product::<usize>(),
        tail.iter().product::<usize>(),
    );
    if rows != cols {
        bail!(
            ValueError,
            "tensorinv is only possible when the product of the first `ind` dimensions equals \
             that of the remaining dimensions. got arr.shape={} with ind={ind}.",
            crate::array::shape_tuple(&s)
        );
    }
    let x = if x.dtype().is_inexact() {
        x
    } else {
        ops::convert(&x, DType::F32)?
    };
    let flat = ops::reshape(&x, &[rows, cols])?;
    let eye = Value::Concrete(crate::array::Array::eye(rows, rows, 0, x.dtype()));
    let inv = super::linalg_lu::solve_values(&flat, &eye)?;
    let out: Vec<usize> = tail.iter().chain(head).copied().collect();
    Ok(Obj::Array(ops::reshape(&inv, &out)?))
}

fn tensorsolve(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = value(&a, 0, "a", "tensorsolve")?;
    let y = value(&a, 1, "b", "tensorsolve")?;
    if !matches!(a.opt(Some(2), "axes"), None | Some(Obj::None)) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.linalg.tensorsolve with axes"
        );
    }
    let (sa, sb) = (x.shape(), y.shape());
    if sa.len() < sb.len() || sa[..sb.len()] != sb[..] {
        bail!(
            ValueError,
            "After moving axes to end, leading shape of a must match shape of b. got a.shape={}, \
             b.shape={}",
            crate::array::shape_tuple(&sa),
            crate::array::shape_tuple(&sb)
        );
    }
    let out_shape = sa[sb.len()..].to_vec();
    let (size, prod) = (
        sb.iter().product::<usize>(),
        out_shape.iter().product::<usize>(),
    );
    if size != prod {
        bail!(
            ValueError,
            "Input arrays must have prod(a.shape[:b.ndim]) == prod(a.shape[b.ndim:]); got \
             a.shape={}, b.ndim={}.",
            crate::array::shape_tuple(&sa),
            sb.len()
        );
    }
    let to_inexact = |v: Value| -> Result<Value> {
        if v.dtype().is_inexact() {
            Ok(v)
        } else {
            ops::convert(&v, DType::F32)
        }
    };
    let x = ops::reshape(&to_inexact(x)?, &[size, prod])?;
    let y = ops::reshape(&to_inexact(y)?, &[size])?;
    let sol = super::linalg_lu::solve_values(&x, &y)?;
    Ok(Obj::Array(ops::reshape(&sol, &out_shape)?))
}

/// `vecdot`: `sum(conj(x1) * x2)` over `axis`, as a batched dot product.
fn vecdot(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = value(&a, 0, "x1", "vecdot")?;
    let y = value(&a, 1, "x2", "vecdot")?;
    let axis = int_kw(&a, None, "axis", -1)?;
    let (x, y) = crate::python::array::operand_pair(&Obj::Array(x), &Obj::Array(y))?;
    let (ax, ay) = (
        ops::norm_axis(axis, x.ndim())?,
        ops::norm_axis(axis, y.ndim())?,
    );
    let x = ops::moveaxis(&x, ax, x.ndim() - 1)?;
    let y = ops::moveaxis(&y, ay, y.ndim() - 1)?;
    let (lx, ly) = (x.shape()[x.ndim() - 1], y.shape()[y.ndim() - 1]);
    if lx != ly {
        bail!(
            ValueError,
            "vecdot: inconsistent size for core dimension 'n': {lx} vs {ly}"
        );
    }
    let sx = &x.shape()[..x.ndim() - 1];
    let sy = &y.shape()[..y.ndim() - 1];
    let batch = crate::array::broadcast_shapes(sx, sy)?;
    let full: Vec<usize> = batch.iter().copied().chain([lx]).collect();
    let x = ops::broadcast_to(&conj(&x)?, &full)?;
    let y = ops::broadcast_to(&y, &full)?;
    let nb = batch.len();
    let b: Vec<usize> = (0..nb).collect();
    Ok(Obj::Array(ops::dot_general(
        &x,
        &y,
        (&[nb], &[nb]),
        (&b, &b),
    )?))
}

fn delegate(name: &'static str) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |interp, a| jnp_call(interp, name, a)
}

/// Adds the thin functions to `jnp.linalg`.
pub fn register_numpy(b: &mut Builder) {
    b.func("matmul", delegate("matmul"));
    b.func("tensordot", delegate("tensordot"));
    b.func("matrix_transpose", matrix_transpose);
    b.func("outer", outer);
    b.func("cross", cross);
    b.func("diagonal", diagonal);
    b.func("trace", trace);
    b.func("vector_norm", vector_norm);
    b.func("matrix_norm", matrix_norm);
    b.func("matrix_power", matrix_power);
    b.func("multi_dot", multi_dot);
    b.func("tensorinv", tensorinv);
    b.func("tensorsolve", tensorsolve);
    b.func("vecdot", vecdot);
}

/// Adds `vecdot` to `jax.numpy`.
pub fn register_jnp(b: &mut Builder) {
    b.func("vecdot", vecdot);
}
