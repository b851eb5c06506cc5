//! Cholesky factors and triangular solves as JAX's three front ends spell
//! them: `jnp.linalg`, `jax.lax.linalg` and `jax.scipy.linalg`, all built on
//! the `cholesky` and `triangular_solve` primitives. What is not modelled
//! yet refuses by name.

use crate::array::linalg::TriangularSolve;
use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::primitives::linalg::{self as plin, conj, mt};
use crate::python::array::to_value;
use crate::python::ops::truthy;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{ops, python::interp::Interp};

use super::Builder;

/// An operand promoted to an inexact dtype, as `promote_dtypes_inexact`.
pub(super) fn inexact_arg(a: &Args, i: usize, name: &str, func: &str) -> Result<Value> {
    let v = to_value(&a.req(Some(i), name, func)?)?;
    if matches!(v.dtype(), DType::Bool | DType::I32) {
        return ops::convert(&v, DType::F32);
    }
    Ok(v)
}

pub(super) fn flag(a: &Args, index: Option<usize>, name: &str, default: bool) -> Result<bool> {
    match a.opt(index, name) {
        Some(v) => truthy(&v, name),
        None => Ok(default),
    }
}

pub(super) fn matrices(v: &Value, func: &str) -> Result<()> {
    if v.ndim() < 2 {
        bail!(
            ValueError,
            "{func} requires an argument with at least 2 dimensions, got {}",
            v.ndim()
        );
    }
    Ok(())
}

/// `(x + x^H) / 2`, JAX's `symmetrize`.
pub(super) fn symmetrized(x: &Value) -> Result<Value> {
    symmetrize(x)
}

fn symmetrize(x: &Value) -> Result<Value> {
    if x.ndim() < 2 {
        // The transpose of the two last axes fails first, as in JAX.
        let n = x.ndim() as i64;
        let perm: Vec<String> = (0..n - 2)
            .chain([n - 1, n - 2])
            .map(|d| d.to_string())
            .collect();
        bail!(
            TypeError,
            "transpose permutation isn't a permutation of operand dimensions, got permutation ({}) for operand shape {}.",
            perm.join(", "),
            crate::array::shape_tuple(&x.shape())
        );
    }
    let h = conj(&mt(x)?)?;
    let two = crate::array::Array::full(&[], 2.0, x.dtype()).with_weak(true);
    ops::div(&ops::add(x, &h)?, &Value::Concrete(two))
}

/// `lax.linalg.cholesky`: the lower factor, upper triangle zeroed.
fn lower_factor(x: &Value, symmetrize_input: bool, func: &str) -> Result<Value> {
    let x = if symmetrize_input {
        symmetrize(x)?
    } else {
        x.clone()
    };
    matrices(&x, func)?;
    plin::triangle(&plin::cholesky(&x)?, 0, true)
}

fn lax_cholesky(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "x", "cholesky")?;
    let sym = flag(&a, Some(1), "symmetrize_input", true)?;
    Ok(Obj::Array(lower_factor(&x, sym, "cholesky")?))
}

fn jnp_cholesky(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "cholesky")?;
    let sym = flag(&a, None, "symmetrize_input", true)?;
    let l = lower_factor(&x, sym, "cholesky")?;
    Ok(Obj::Array(if flag(&a, None, "upper", false)? {
        conj(&mt(&l)?)?
    } else {
        l
    }))
}

pub(super) fn scipy_cholesky(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "cholesky")?;
    let l = lower_factor(&x, true, "cholesky")?;
    Ok(Obj::Array(if flag(&a, Some(1), "lower", false)? {
        l
    } else {
        conj(&mt(&l)?)?
    }))
}

/// Two operands promoted to one inexact dtype.
pub(super) fn inexact_pair(a: &Args, func: &str) -> Result<(Value, Value)> {
    let x = inexact_arg(a, 0, "a", func)?;
    let y = inexact_arg(a, 1, "b", func)?;
    let d = x.dtype().promote(y.dtype());
    Ok((ops::convert(&x, d)?, ops::convert(&y, d)?))
}

fn lax_triangular_solve(_: &mut Interp, a: Args) -> Result<Obj> {
    // lax does not promote: the shape rule checks the dtypes.
    let x = to_value(&a.req(Some(0), "a", "triangular_solve")?)?;
    let y = to_value(&a.req(Some(1), "b", "triangular_solve")?)?;
    let p = TriangularSolve {
        left_side: flag(&a, None, "left_side", false)?,
        lower: flag(&a, None, "lower", false)?,
        transpose_a: flag(&a, None, "transpose_a", false)?,
        conjugate_a: flag(&a, None, "conjugate_a", false)?,
        unit_diagonal: flag(&a, None, "unit_diagonal", false)?,
    };
    Ok(Obj::Array(plin::triangular_solve(&x, &y, p)?))
}

/// `trans` of `solve_triangular`: 0/'N', 1/'T' or 2/'C'.
fn trans_arg(a: &Args) -> Result<(bool, bool)> {
    let t = match a.opt(Some(2), "trans") {
        None => return Ok((false, false)),
        Some(Obj::Int(i)) => i.to_string(),
        Some(o) => crate::python::format::str_of(&o),
    };
    Ok(match t.as_str() {
        "0" | "N" => (false, false),
        "1" | "T" => (true, false),
        "2" | "C" => (true, true),
        _ => bail!(ValueError, "Invalid 'trans' value {t}"),
    })
}

fn solve_triangular(_: &mut Interp, a: Args) -> Result<Obj> {
    let (x, y) = inexact_pair(&a, "solve_triangular")?;
    matrices(&x, "solve_triangular")?;
    let (transpose_a, conjugate_a) = trans_arg(&a)?;
    let p = TriangularSolve {
        left_side: true,
        lower: flag(&a, Some(3), "lower", false)?,
        transpose_a,
        conjugate_a,
        unit_diagonal: flag(&a, Some(4), "unit_diagonal", false)?,
    };
    let vector = x.ndim() == y.ndim() + 1;
    let (xs, ys) = (x.shape(), y.shape());
    let rows = if vector {
        ys.last()
    } else {
        ys.get(ys.len().wrapping_sub(2))
    };
    if let (Some(&r), Some(&n)) = (rows, xs.last()) {
        if r != n {
            let sig = if vector {
                "(n,n),(n)->(n)"
            } else {
                "(n,n),(n,k)->(n,k)"
            };
            bail!(
                ValueError,
                "inconsistent size for core dimension 'n': {r} vs {n} on vectorized function \
                 with excluded=frozenset() and signature='{sig}'"
            );
        }
    }
    let y = if vector { ops::expand_dims(&y, -1)? } else { y };
    let out = plin::triangular_solve(&x, &y, p)?;
    Ok(Obj::Array(if vector {
        ops::squeeze(&out, Some(&[-1]))?
    } else {
        out
    }))
}

/// `sqrt(sum(real(x * conj(x))))` over `axes`.
pub(super) fn frobenius(x: &Value, axes: Option<&[i64]>, keep: bool) -> Result<Value> {
    let sq = ops::mul(x, &conj(x)?)?;
    let sq = if sq.dtype() == DType::C64 {
        ops::unary(crate::array::UnaryOp::Real, &sq)?
    } else {
        sq
    };
    ops::sqrt(&ops::sum(&sq, axes, keep)?)
}

/// An `ord` as a number (`inf` included) or a name.
pub(super) enum Ord {
    Num(f64),
    Name(String),
}

pub(super) fn ord_of(o: &Obj) -> Result<Ord> {
    Ok(match o {
        Obj::Str(s) => Ord::Name(s.to_string()),
        other => match other.as_number() {
            Some(v) => Ord::Num(v),
            None => bail!(TypeError, "norm: ord must be a number or a string"),
        },
    })
}

/// The vector norm of `x` over `axes` (all of them when `None`).
pub(super) fn vector_norm(x: &Value, ord: Ord, axes: Option<&[i64]>, keep: bool) -> Result<Value> {
    let abs = || ops::abs(x);
    let reduce = |op, v: &Value| ops::reduce(op, v, axes, keep);
    use crate::array::ReduceOp as R;
    match ord {
        Ord::Name(n) => bail!(ValueError, "Invalid order '{n}' for vector norm."),
        Ord::Num(2.0) => frobenius(x, axes, keep),
        Ord::Num(p) if p == f64::INFINITY => reduce(R::Max, &abs()?),
        Ord::Num(p) if p == f64::NEG_INFINITY => reduce(R::Min, &abs()?),
        Ord::Num(0.0) => {
            let nz = ops::not_equal(x, &ops::zeros_like(x))?;
            let real = if x.dtype() == DType::C64 {
                DType::F32
            } else {
                x.dtype()
            };
            reduce(R::Sum, &ops::convert(&nz, real.max(DType::F32))?)
        }
        Ord::Num(1.0) => reduce(R::Sum, &abs()?),
        Ord::Num(p) => {
            let a = abs()?;
            let d = a.dtype();
            let s = reduce(R::Sum, &ops::pow(&a, &ops::scalar(p, d))?)?;
            ops::pow(&s, &ops::scalar(1.0 / p, d))
        }
    }
}

fn matrix_norm(x: &Value, ord: Ord, (row, col): (i64, i64), keep: bool) -> Result<Value> {
    use crate::array::ReduceOp as R;
    let nd = x.ndim();
    let (row, col) = (
        ops::norm_axis(row, nd)? as i64,
        ops::norm_axis(col, nd)? as i64,
    );
    // The inner sum runs over one axis, the outer max or min over the
    // other, renumbered when the first is dropped.
    let nested = |inner: i64, outer: i64, op: R| -> Result<Value> {
        let outer = if !keep && outer > inner {
            outer - 1
        } else {
            outer
        };
        let s = ops::sum(&ops::abs(x)?, Some(&[inner]), keep)?;
        ops::reduce(op, &s, Some(&[outer]), keep)
    };
    match ord {
        Ord::Name(n) if n == "fro" || n == "f" => frobenius(x, Some(&[row, col]), keep),
        Ord::Num(1.0) => nested(row, col, R::Max),
        Ord::Num(-1.0) => nested(row, col, R::Min),
        Ord::Num(p) if p == f64::INFINITY => nested(col, row, R::Max),
        Ord::Num(p) if p == f64::NEG_INFINITY => nested(col, row, R::Min),
        Ord::Name(n) if n == "nuc" => singular_norm(x, (row, col), keep, R::Sum),
        Ord::Num(2.0) => singular_norm(x, (row, col), keep, R::Max),
        Ord::Num(-2.0) => singular_norm(x, (row, col), keep, R::Min),
        Ord::Name(n) => bail!(ValueError, "Invalid order '{n}' for matrix norm."),
        Ord::Num(p) => bail!(ValueError, "Invalid order '{p}' for matrix norm."),
    }
}

/// A norm of the singular values of the matrices over axes `(row, col)`
/// (already normalized): their sum, largest or smallest.
fn singular_norm(
    x: &Value,
    (row, col): (i64, i64),
    keep: bool,
    op: crate::array::ReduceOp,
) -> Result<Value> {
    let nd = x.ndim();
    let rest: Vec<usize> = (0..nd)
        .filter(|&d| d != row as usize && d != col as usize)
        .collect();
    let perm: Vec<usize> = rest
        .iter()
        .copied()
        .chain([row as usize, col as usize])
        .collect();
    let moved = ops::transpose(x, &perm)?;
    let s = super::linalg_decomp::singular_values(&moved)?;
    let y = ops::reduce(op, &s, Some(&[-1]), false)?;
    if !keep {
        return Ok(y);
    }
    let mut shape = x.shape();
    shape[row as usize] = 1;
    shape[col as usize] = 1;
    ops::reshape(&y, &shape)
}

/// `jnp.linalg.norm(x, ord, axis, keepdims)`.
pub fn norm(x: &Value, ord: Option<&Obj>, axes: Option<&[i64]>, keep: bool) -> Result<Value> {
    let x = if matches!(x.dtype(), DType::Bool | DType::I32) {
        ops::convert(x, DType::F32)?
    } else {
        x.clone()
    };
    let Some(ord) = ord else {
        return frobenius(&x, axes, keep);
    };
    let all: Vec<i64> = (0..x.ndim() as i64).collect();
    let axes = axes.unwrap_or(&all);
    match axes {
        [a] => vector_norm(&x, ord_of(ord)?, Some(&[*a]), keep),
        [r, c] => matrix_norm(&x, ord_of(ord)?, (*r, *c), keep),
        _ => {
            let shown: Vec<String> = axes.iter().map(|a| a.to_string()).collect();
            bail!(
                ValueError,
                "Improper number of axes for norm: axis=({}). Pass one axis to compute a vector-norm, or two axes to compute a matrix-norm.",
                shown.join(", ")
            )
        }
    }
}

/// `jnp.tril(m, k)` / `jnp.triu(m, k)`.
fn triangle_call(a: &Args, lower: bool) -> Result<Obj> {
    let func = if lower { "tril" } else { "triu" };
    let x = to_value(&a.req(Some(0), "m", func)?)?;
    if x.ndim() < 2 {
        bail!(
            ValueError,
            "Argument to jax.numpy.{func} must be at least 2D"
        );
    }
    let k = match a.opt(Some(1), "k") {
        Some(o) => crate::python::builtins::to_int(&o)?,
        None => 0,
    };
    Ok(Obj::Array(plin::triangle(&x, k, lower)?))
}

/// Adds `tril` and `triu` to `jax.numpy`.
pub fn register_jnp(b: &mut Builder) {
    b.func("tril", |_, a| triangle_call(&a, true));
    b.func("triu", |_, a| triangle_call(&a, false));
    super::linalg_wrappers::register_jnp(b);
}

/// The `jnp.linalg` functions not modelled yet (the nonsymmetric
/// eigenproblem, LAPACK `geev`): each refuses by name.
const NOT_YET: [&str; 2] = ["eig", "eigvals"];

/// Adds the decompositions to `jnp.linalg`.
pub fn register_numpy(b: &mut Builder) {
    b.func("cholesky", jnp_cholesky);
    super::linalg_lu::register_numpy(b);
    super::linalg_decomp::register_numpy(b);
    super::linalg_wrappers::register_numpy(b);
    for name in NOT_YET {
        b.func(name, move |_, _| {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.numpy.linalg.{name}"
            )
        });
    }
}

/// `jax.lax.linalg`.
pub fn lax_module() -> Obj {
    let mut b = Builder::new("jax.lax.linalg");
    b.func("cholesky", lax_cholesky);
    b.func("triangular_solve", lax_triangular_solve);
    super::linalg_lu::register_lax(&mut b);
    super::linalg_decomp::register_lax(&mut b);
    b.build()
}

/// `jax.scipy.linalg`.
pub fn scipy_module() -> Obj {
    let mut b = Builder::new("jax.scipy.linalg");
    b.func("cholesky", scipy_cholesky);
    b.func("solve_triangular", solve_triangular);
    super::linalg_lu::register_scipy(&mut b);
    super::scipy_linalg_special::register(&mut b);
    super::linalg_decomp::register_scipy(&mut b);
    super::scipy_expm::register(&mut b);
    super::scipy_linalg_dft::register(&mut b);
    super::scipy_linalg_pascal::register(&mut b);
    b.build()
}
