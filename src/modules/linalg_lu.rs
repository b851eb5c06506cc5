//! Linear systems and determinants through the LU factorization, as JAX's
//! front ends spell them: `jnp.linalg.solve`, `inv`, `det`, `slogdet`,
//! `jax.lax.linalg.lu`, `lu_pivots_to_permutation`, `lu_solve`, and
//! `jax.scipy.linalg.lu`, `lu_factor`, `lu_solve`, `solve`, `inv`, `det`,
//! `cho_factor`, `cho_solve`. Each follows JAX's formulas: the closed forms
//! for 2 x 2 and 3 x 3 determinants, the LU route beyond.

use crate::array::linalg::TriangularSolve;
use crate::array::{Array, DType, ReduceOp};
use crate::bail;
use crate::error::Result;
use crate::ops;
use crate::primitives::linalg::{self as plin, mt};
use crate::primitives::lu as plu;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::linalg::{flag, inexact_arg, inexact_pair};
use super::Builder;

/// `a[..., i, j]`.
fn entry(a: &Value, i: usize, j: usize) -> Result<Value> {
    let s = a.shape();
    let nd = s.len();
    let mut starts = vec![0; nd];
    let mut limits = s.clone();
    (starts[nd - 2], starts[nd - 1]) = (i, j);
    (limits[nd - 2], limits[nd - 1]) = (i + 1, j + 1);
    let e = ops::slice(a, &starts, &limits, &vec![1; nd])?;
    ops::reshape(&e, &s[..nd - 2])
}

/// The diagonal `a[..., i, i]` of each matrix, `[..., min(m, n)]`.
fn diagonal(a: &Value) -> Result<Value> {
    let s = a.shape();
    let k = s[s.len() - 1].min(s[s.len() - 2]);
    let parts: Vec<Value> = (0..k)
        .map(|i| ops::expand_dims(&entry(a, i, i)?, -1))
        .collect::<Result<_>>()?;
    ops::concatenate(&parts, -1)
}

fn shape_str(s: &[usize]) -> String {
    crate::array::shape_tuple(s)
}

/// `a` `[..., m, m]` and `b` broadcast to one batch, with `b` as
/// `[..., m, k]` (a vector `b` gains a trailing axis): the shared core of
/// the `vectorize`d solves. Returns whether `b` was a vector.
fn solve_operands(a: &Value, b: &Value, sig: &str) -> Result<(Value, Value, bool)> {
    let (sa, sb) = (a.shape(), b.shape());
    let vector = b.ndim() == 1;
    let core_b = if vector { 1 } else { 2 };
    if sb.len() < core_b {
        bail!(ValueError, "b must have at least {core_b} dimensions");
    }
    let m = sa[sa.len() - 1];
    let rows = sb[sb.len() - core_b];
    if rows != m || sa[sa.len() - 2] != m {
        let (x, y) = if sa[sa.len() - 2] != m {
            (sa[sa.len() - 2], m)
        } else {
            (rows, m)
        };
        let sig = if vector {
            format!("({sig},{sig}),({sig})->({sig})")
        } else {
            format!("({sig},{sig}),({sig},n)->({sig},n)")
        };
        bail!(
            ValueError,
            "inconsistent size for core dimension '{}': {x} vs {y} on vectorized function with \
             excluded=frozenset() and signature='{sig}'",
            &sig[1..2]
        );
    }
    let batch = crate::array::broadcast_shapes(&sa[..sa.len() - 2], &sb[..sb.len() - core_b])?;
    let b = if vector {
        ops::expand_dims(b, -1)?
    } else {
        b.clone()
    };
    let k = b.shape()[b.ndim() - 1];
    let with = |tail: [usize; 2]| -> Vec<usize> { batch.iter().copied().chain(tail).collect() };
    Ok((
        ops::broadcast_to(a, &with([m, m]))?,
        ops::broadcast_to(&b, &with([m, k]))?,
        vector,
    ))
}

/// `jnp.linalg.solve(a, b)`.
pub fn solve_values(a: &Value, b: &Value) -> Result<Value> {
    if a.ndim() < 2 {
        bail!(
            ValueError,
            "left hand array must be at least two dimensional; got a.shape={}",
            shape_str(&a.shape())
        );
    }
    let (sa, sb) = (a.shape(), b.shape());
    let n = sa.len();
    if sb.len() > 1
        && n == sb.len() + 1
        && sa[n - 1] == sb[sb.len() - 1]
        && sa[n - 1] != sb[sb.len() - 2]
    {
        bail!(
            ValueError,
            "Invalid shapes for solve: {}, {}. Prior to JAX v0.5.0, this would have been treated \
             as a batched 1-dimensional solve. To recover this behavior, use solve(a, b[..., \
             None]).squeeze(-1).",
            shape_str(&sa),
            shape_str(&sb)
        );
    }
    let (a, b, vector) = solve_operands(a, b, "m")?;
    let x = plu::lu_solve(&a, &b, false)?;
    if vector {
        ops::squeeze(&x, Some(&[-1]))
    } else {
        Ok(x)
    }
}

fn jnp_solve(_: &mut Interp, a: Args) -> Result<Obj> {
    let (x, y) = inexact_pair(&a, "solve")?;
    Ok(Obj::Array(solve_values(&x, &y)?))
}

fn square_or(a: &Value, msg: &str) -> Result<()> {
    let s = a.shape();
    if s.len() < 2 || s[s.len() - 1] != s[s.len() - 2] {
        bail!(ValueError, "{msg}",);
    }
    Ok(())
}

fn jnp_inv(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "inv")?;
    let s = x.shape();
    square_or(
        &x,
        &format!(
            "Argument to inv must have shape [..., n, n], got {}.",
            shape_str(&s)
        ),
    )?;
    let n = s[s.len() - 1];
    let eye = ops::broadcast_to(&Value::Concrete(Array::eye(n, n, 0, x.dtype())), &s)?;
    Ok(Obj::Array(solve_values(&x, &eye)?))
}

/// The closed-form 2 x 2 determinant, `a00 a11 - a01 a10`.
fn det_2x2(a: &Value) -> Result<Value> {
    let e = |i, j| entry(a, i, j);
    ops::sub(
        &ops::mul(&e(0, 0)?, &e(1, 1)?)?,
        &ops::mul(&e(0, 1)?, &e(1, 0)?)?,
    )
}

/// The closed-form 3 x 3 determinant, its six products in JAX's order.
fn det_3x3(a: &Value) -> Result<Value> {
    let e = |i, j| entry(a, i, j);
    let prod3 = |p: [(usize, usize); 3]| -> Result<Value> {
        ops::mul(
            &ops::mul(&e(p[0].0, p[0].1)?, &e(p[1].0, p[1].1)?)?,
            &e(p[2].0, p[2].1)?,
        )
    };
    let terms = [
        prod3([(0, 0), (1, 1), (2, 2)])?,
        prod3([(0, 1), (1, 2), (2, 0)])?,
        prod3([(0, 2), (1, 0), (2, 1)])?,
        prod3([(0, 2), (1, 1), (2, 0)])?,
        prod3([(0, 0), (1, 2), (2, 1)])?,
        prod3([(0, 1), (1, 0), (2, 2)])?,
    ];
    let mut acc = ops::add(&ops::add(&terms[0], &terms[1])?, &terms[2])?;
    for t in &terms[3..] {
        acc = ops::sub(&acc, t)?;
    }
    Ok(acc)
}

/// The real part of a complex value; a real one is itself.
fn real(x: &Value) -> Result<Value> {
    if x.dtype() == DType::C64 {
        ops::unary(crate::array::UnaryOp::Real, x)
    } else {
        Ok(x.clone())
    }
}

/// `sign(d), real(log(abs(d)))` of a closed-form determinant.
fn sign_log(det: &Value) -> Result<(Value, Value)> {
    Ok((ops::sign(det)?, real(&ops::log(&ops::abs(det)?)?)?))
}

/// The number of true entries along the last axis, as int32.
fn count_true(x: &Value) -> Result<Value> {
    ops::sum(&ops::convert(x, DType::I32)?, Some(&[-1]), false)
}

/// `trace(solve(a, da))`, JAX's derivative of `log(det(a))`, as a term
/// that is exactly zero in value: `a` enters it once through its tangent
/// (`a - stop_gradient(a)`), and the solve is with the constant `a`.
fn logdet_tangent(a: &Value) -> Result<Value> {
    let fixed = ops::stop_gradient(a)?;
    let da = ops::sub(a, &fixed)?;
    let x = plu::lu_solve(&fixed, &da, false)?;
    let n = a.shape()[a.ndim() - 1];
    let eye = ops::broadcast_to(
        &Value::Concrete(Array::eye(n, n, 0, DType::Bool)),
        &x.shape(),
    )?;
    let diag = ops::select(&eye, &x, &ops::zeros_like(&x))?;
    ops::sum(&ops::sum(&diag, Some(&[-1]), false)?, Some(&[-1]), false)
}

/// `slogdet` through the LU factors: the diagonal's product in log space,
/// the sign from the pivots' parity (and the negative diagonal entries).
/// The factors are of the constant `a`; the derivative is JAX's rule,
/// `d log|det a| = re tr(a^-1 da)` (and for complex `a` the sign turns by
/// the imaginary part), added where the matrix is not singular.
fn slogdet_lu(a: &Value) -> Result<(Value, Value)> {
    let (sign, logdet, is_zero) = slogdet_lu_value(&ops::stop_gradient(a)?)?;
    let t = logdet_tangent(a)?;
    let re = real(&t)?;
    let with_t = ops::add(&logdet, &re)?;
    let logdet = ops::select(&is_zero, &logdet, &with_t)?;
    if a.dtype() != DType::C64 {
        return Ok((sign, logdet));
    }
    let turn = ops::mul(&ops::sub(&t, &ops::convert(&re, DType::C64)?)?, &sign)?;
    let turned = ops::add(&sign, &turn)?;
    Ok((ops::select(&is_zero, &sign, &turned)?, logdet))
}

/// The value of [`slogdet_lu`] and which matrices are singular.
fn slogdet_lu_value(a: &Value) -> Result<(Value, Value, Value)> {
    let d = a.dtype();
    let (lu, piv, _) = plu::lu(a)?;
    let diag = diagonal(&lu)?;
    let zero = ops::zeros_like(&diag);
    let is_zero = ops::reduce(
        ReduceOp::Any,
        &ops::equal(&diag, &zero)?,
        Some(&[-1]),
        false,
    )?;
    let n = piv.shape()[piv.ndim() - 1];
    let iota = Value::Concrete(Array::iota(&[n], 0, DType::I32)?);
    let mut parity = count_true(&ops::not_equal(&piv, &iota)?)?;
    let sign = if d == DType::C64 {
        let mag = ops::convert(&ops::abs(&diag)?, d)?;
        ops::reduce(ReduceOp::Prod, &ops::div(&diag, &mag)?, Some(&[-1]), false)?
    } else {
        parity = ops::add(&parity, &count_true(&ops::less(&diag, &zero)?)?)?;
        ops::scalar(1.0, d)
    };
    // -2 * (parity % 2) + 1, in int32, then in the matrix's dtype.
    let odd = ops::binary(
        crate::array::BinaryOp::Rem,
        &parity,
        &ops::scalar(2.0, DType::I32),
    )?;
    let flip = ops::add(
        &ops::mul(&odd, &ops::scalar(-2.0, DType::I32))?,
        &ops::scalar(1.0, DType::I32),
    )?;
    let signed = ops::mul(&sign, &ops::convert(&flip, d)?)?;
    let sign = ops::select(&is_zero, &ops::zeros_like(&signed), &signed)?;
    let logs = ops::convert(&ops::log(&ops::abs(&diag)?)?, d)?;
    let total = ops::sum(&logs, Some(&[-1]), false)?;
    let ninf = ops::broadcast_to(&ops::scalar(f64::NEG_INFINITY, d), &total.shape())?;
    let logdet = ops::select(&is_zero, &ninf, &total)?;
    Ok((sign, real(&logdet)?, is_zero))
}

/// `jnp.linalg.slogdet` on a promoted operand.
pub fn slogdet_values(a: &Value, method: Option<&str>) -> Result<(Value, Value)> {
    let s = a.shape();
    if s.len() < 2 || s[s.len() - 1] != s[s.len() - 2] {
        bail!(
            ValueError,
            "Argument to slogdet() must have shape [..., n, n], got {}",
            shape_str(&s)
        );
    }
    match method {
        None | Some("lu") => {}
        Some("qr") => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.linalg.slogdet with method='qr'"
        ),
        Some(m) => bail!(
            ValueError,
            "Unknown slogdet method '{m}'. Supported methods are 'lu' (`None`), and 'qr'."
        ),
    }
    match s[s.len() - 1] {
        1 => sign_log(&entry(a, 0, 0)?),
        2 => sign_log(&det_2x2(a)?),
        _ => slogdet_lu(a),
    }
}

/// `jnp.linalg.det` on a promoted operand.
pub fn det_values(a: &Value) -> Result<Value> {
    let s = a.shape();
    if s.len() < 2 || s[s.len() - 1] != s[s.len() - 2] {
        bail!(
            ValueError,
            "Argument to _det() must have shape [..., n, n], got {}",
            shape_str(&s)
        );
    }
    match s[s.len() - 1] {
        2 => det_2x2(a),
        3 => det_3x3(a),
        _ => {
            let (sign, logdet) = slogdet_values(a, None)?;
            ops::mul(&sign, &ops::convert(&ops::exp(&logdet)?, sign.dtype())?)
        }
    }
}

fn jnp_det(_: &mut Interp, a: Args) -> Result<Obj> {
    Ok(Obj::Array(det_values(&inexact_arg(&a, 0, "a", "det")?)?))
}

/// A named tuple of `fields`, made as `collections.namedtuple` makes one.
pub(super) fn named_result(
    interp: &mut Interp,
    name: &str,
    fields: &[&str],
    values: Vec<Value>,
) -> Result<Obj> {
    let collections = super::import(interp, "collections")?;
    let make = crate::python::ops::getattr(interp, &collections, "namedtuple")?;
    let names = Obj::list(fields.iter().map(|f| Obj::str(*f)).collect());
    let class = interp.call(&make, Args::new(vec![Obj::str(name), names]))?;
    interp.call(
        &class,
        Args::new(values.into_iter().map(Obj::Array).collect()),
    )
}

fn jnp_slogdet(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "slogdet")?;
    let method = match a.opt(None, "method") {
        None | Some(Obj::None) => None,
        Some(o) => Some(crate::python::format::str_of(&o)),
    };
    let (sign, logdet) = slogdet_values(&x, method.as_deref())?;
    named_result(
        interp,
        "SlogdetResult",
        &["sign", "logabsdet"],
        vec![sign, logdet],
    )
}

fn lax_lu(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "x", "lu")?)?;
    let (lu, piv, perm) = plu::lu(&x)?;
    // JAX returns the three outputs as a list.
    Ok(Obj::list(vec![
        Obj::Array(lu),
        Obj::Array(piv),
        Obj::Array(perm),
    ]))
}

fn int_arg(a: &Args, i: usize, name: &str, func: &str) -> Result<i64> {
    crate::python::builtins::to_int(&a.req(Some(i), name, func)?)
}

fn lax_pivots(_: &mut Interp, a: Args) -> Result<Obj> {
    let p = to_value(&a.req(Some(0), "pivots", "lu_pivots_to_permutation")?)?;
    let size = int_arg(&a, 1, "permutation_size", "lu_pivots_to_permutation")?;
    Ok(Obj::Array(plu::pivots_to_permutation(
        &p,
        size.max(0) as usize,
    )?))
}

fn tri(lower: bool, unit: bool, transpose: bool, conjugate: bool) -> TriangularSolve {
    TriangularSolve {
        left_side: true,
        lower,
        transpose_a: transpose,
        conjugate_a: conjugate,
        unit_diagonal: unit,
    }
}

/// `lu_solve` on one batch: `lu` `[..., m, m]`, `perm` `[..., m]`, `b`
/// `[..., m, k]`; `trans` 0 solves `a x = b`, 1 `a^T x = b`, 2 `a^H x = b`.
fn lu_solve_core(lu: &Value, perm: &Value, b: &Value, trans: i64) -> Result<Value> {
    match trans {
        0 => {
            let x = plu::permute_rows(b, perm)?;
            let x = plin::triangular_solve(lu, &x, tri(true, true, false, false))?;
            plin::triangular_solve(lu, &x, tri(false, false, false, false))
        }
        1 | 2 => {
            let c = trans == 2;
            let x = plin::triangular_solve(lu, b, tri(false, false, true, c))?;
            let x = plin::triangular_solve(lu, &x, tri(true, true, true, c))?;
            plu::permute_rows(&x, &plu::inverse_permutation(perm)?)
        }
        t => bail!(ValueError, "'trans' value must be 0, 1, or 2, got {t}"),
    }
}

/// `lax.linalg.lu_solve(lu, permutation, b, trans)` with its broadcasting:
/// `b` is a batch of vectors when it has one axis fewer than `lu`.
fn lu_solve_values(lu: &Value, perm: &Value, b: &Value, trans: i64) -> Result<Value> {
    let (sl, sb) = (lu.shape(), b.shape());
    if sl.len() < 2 || sl[sl.len() - 1] != sl[sl.len() - 2] {
        bail!(
            ValueError,
            "last two dimensions of LU decomposition must be equal, got shape {}",
            shape_str(&sl)
        );
    }
    if sb.is_empty() {
        bail!(
            ValueError,
            "b matrix must have rank >= 1, got shape {}",
            shape_str(&sb)
        );
    }
    let m = sl[sl.len() - 1];
    let vector = sl.len() == sb.len() + 1;
    let b = if vector {
        if sb[sb.len() - 1] != m {
            bail!(
                ValueError,
                "When LU decomposition matrix and b have the same number of dimensions, last axis \
                 of LU decomposition matrix (shape {}) and b array (shape {}) must match",
                shape_str(&sl),
                shape_str(&sb)
            );
        }
        ops::expand_dims(b, -1)?
    } else {
        if sb.len() < 2 || sb[sb.len() - 2] != m {
            bail!(
                ValueError,
                "When LU decomposition matrix and b different numbers of dimensions, last axis of \
                 LU decomposition matrix (shape {}) and second to last axis of b array (shape {}) \
                 must match",
                shape_str(&sl),
                shape_str(&sb)
            );
        }
        b.clone()
    };
    let sb2 = b.shape();
    let sp = perm.shape();
    let batch = crate::array::broadcast_shapes(&sl[..sl.len() - 2], &sp[..sp.len() - 1])?;
    let batch = crate::array::broadcast_shapes(&batch, &sb2[..sb2.len() - 2])?;
    let with = |tail: &[usize]| -> Vec<usize> { batch.iter().chain(tail).copied().collect() };
    let lu = ops::broadcast_to(lu, &with(&[m, m]))?;
    let perm = ops::broadcast_to(perm, &with(&[m]))?;
    let b = ops::broadcast_to(&b, &with(&sb2[sb2.len() - 2..]))?;
    let x = lu_solve_core(&lu, &perm, &b, trans)?;
    if vector {
        ops::squeeze(&x, Some(&[-1]))
    } else {
        Ok(x)
    }
}

fn trans_of(a: &Args, index: usize) -> Result<i64> {
    match a.opt(Some(index), "trans") {
        None => Ok(0),
        Some(o) => crate::python::builtins::to_int(&o),
    }
}

/// A pair `(x, y)` given as one tuple argument, unpacked as Python does.
fn pair(o: &Obj) -> Result<(Obj, Obj)> {
    let items = crate::python::ops::iterate(o)?;
    match <[Obj; 2]>::try_from(items) {
        Ok([x, y]) => Ok((x, y)),
        Err(v) if v.len() > 2 => bail!(ValueError, "too many values to unpack (expected 2)"),
        Err(v) => bail!(
            ValueError,
            "not enough values to unpack (expected 2, got {})",
            v.len()
        ),
    }
}

/// Two values promoted together to an inexact dtype.
fn promote_inexact(x: Value, y: Value) -> Result<(Value, Value)> {
    let d = x.dtype().promote(y.dtype()).max(DType::F32);
    Ok((ops::convert(&x, d)?, ops::convert(&y, d)?))
}

fn scipy_lu_factor(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "lu_factor")?;
    let (lu, piv, _) = plu::lu(&x)?;
    Ok(Obj::tuple(vec![Obj::Array(lu), Obj::Array(piv)]))
}

fn scipy_lu_solve(_: &mut Interp, a: Args) -> Result<Obj> {
    let (lu, piv) = pair(&a.req(Some(0), "lu_and_piv", "lu_solve")?)?;
    let b = to_value(&a.req(Some(1), "b", "lu_solve")?)?;
    let (lu, b) = promote_inexact(to_value(&lu)?, b)?;
    let piv = to_value(&piv)?;
    let m = lu.shape()[lu.ndim().saturating_sub(2)];
    let perm = plu::pivots_to_permutation(&piv, m)?;
    Ok(Obj::Array(lu_solve_values(
        &lu,
        &perm,
        &b,
        trans_of(&a, 2)?,
    )?))
}

/// `jax.scipy.linalg.lu(a, permute_l=False)`: `(p, l, u)` with `a = p l u`,
/// or `(p l, u)`.
fn scipy_lu(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "lu")?;
    let s = x.shape();
    if s.len() != 2 {
        bail!(
            ValueError,
            "{} values to unpack (expected 2)",
            if s.len() > 2 {
                "too many"
            } else {
                "not enough"
            }
        );
    }
    let (m, n) = (s[0], s[1]);
    let d = x.dtype();
    let (lu, _, perm) = plu::lu(&x)?;
    // p[i, j] = (perm[j] == i)
    let rows = Value::Concrete(Array::iota(&[m, m], 0, DType::I32)?);
    let p = ops::convert(&ops::equal(&ops::expand_dims(&perm, 0)?, &rows)?, d)?;
    let k = m.min(n);
    let low = ops::slice(&plin::triangle(&lu, -1, true)?, &[0, 0], &[m, k], &[1, 1])?;
    let l = ops::add(&low, &Value::Concrete(Array::eye(m, k, 0, d)))?;
    let u = ops::slice(&plin::triangle(&lu, 0, false)?, &[0, 0], &[k, n], &[1, 1])?;
    if flag(&a, Some(1), "permute_l", false)? {
        return Ok(Obj::tuple(vec![
            Obj::Array(ops::matmul(&p, &l)?),
            Obj::Array(u),
        ]));
    }
    Ok(Obj::tuple(vec![
        Obj::Array(p),
        Obj::Array(l),
        Obj::Array(u),
    ]))
}

fn cho_factor(interp: &mut Interp, a: Args) -> Result<Obj> {
    let lower = flag(&a, Some(1), "lower", false)?;
    let c = super::linalg::scipy_cholesky(interp, a)?;
    Ok(Obj::tuple(vec![c, Obj::Bool(lower)]))
}

/// The two triangular solves of `cho_solve` with the factor `c`.
fn cho_solve_values(c: &Value, b: &Value, lower: bool) -> Result<Value> {
    let (c, b, vector) = solve_operands(c, b, "n")?;
    let first = tri(lower, false, !lower, !lower);
    let second = tri(lower, false, lower, lower);
    let x = plin::triangular_solve(&c, &b, first)?;
    let x = plin::triangular_solve(&c, &x, second)?;
    if vector {
        ops::squeeze(&x, Some(&[-1]))
    } else {
        Ok(x)
    }
}

fn cho_solve(_: &mut Interp, a: Args) -> Result<Obj> {
    let (c, lower) = pair(&a.req(Some(0), "c_and_lower", "cho_solve")?)?;
    let lower = crate::python::ops::truthy(&lower, "lower")?;
    let b = to_value(&a.req(Some(1), "b", "cho_solve")?)?;
    let (c, b) = promote_inexact(to_value(&c)?, b)?;
    Ok(Obj::Array(cho_solve_values(&c, &b, lower)?))
}

fn scipy_solve(_: &mut Interp, a: Args) -> Result<Obj> {
    let (x, y) = inexact_pair(&a, "solve")?;
    let assume = match a.opt(None, "assume_a") {
        Some(o) => crate::python::format::str_of(&o),
        None => "gen".into(),
    };
    match assume.as_str() {
        "gen" | "sym" | "her" => Ok(Obj::Array(solve_values(&x, &y)?)),
        "pos" => {
            let lower = flag(&a, Some(2), "lower", false)?;
            let l = plin::triangle(&plin::cholesky(&super::linalg::symmetrized(&x)?)?, 0, true)?;
            let c = if lower { l } else { plin::conj(&mt(&l)?)? };
            Ok(Obj::Array(cho_solve_values(&c, &y, lower)?))
        }
        other => bail!(
            ValueError,
            "Expected assume_a to be one of ['gen', 'sym', 'her', 'pos']; got '{other}'"
        ),
    }
}

/// Adds `solve`, `inv`, `det` and `slogdet` to `jnp.linalg`.
pub fn register_numpy(b: &mut Builder) {
    b.func("solve", jnp_solve);
    b.func("inv", jnp_inv);
    b.func("det", jnp_det);
    b.func("slogdet", jnp_slogdet);
}

/// Adds `lu` and `lu_pivots_to_permutation` to `jax.lax.linalg`.
pub fn register_lax(b: &mut Builder) {
    b.func("lu", lax_lu);
    b.func("lu_pivots_to_permutation", lax_pivots);
}

/// Adds the LU and Cholesky solvers to `jax.scipy.linalg`.
pub fn register_scipy(b: &mut Builder) {
    b.func("lu", scipy_lu);
    b.func("lu_factor", scipy_lu_factor);
    b.func("lu_solve", scipy_lu_solve);
    b.func("solve", scipy_solve);
    b.func("inv", jnp_inv);
    b.func("det", jnp_det);
    b.func("cho_factor", cho_factor);
    b.func("cho_solve", cho_solve);
}
