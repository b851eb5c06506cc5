//! Cumulative reductions along one axis: `cumsum`, `cumprod`, `cummax`,
//! `cummin` and `cumlogsumexp`, each forward or `reverse`.
//!
//! On CPU, JAX lowers these to a reduce-window that XLA rewrites into a
//! two-level scan over blocks of 16 elements: a running reduction inside
//! each block, a scan (again by blocks) of the block totals, and the total
//! of all earlier blocks combined with each element of a later block. The
//! float32 results depend on that association, so [`scan_line`] follows it;
//! measured against JAX on lines of thousands of elements it gives the same
//! bits, where a plain running sum does not.
//!
//! `cumsum` is linear: its derivative is itself, and its transpose is the
//! cumsum running the other way.

use crate::array::{xla_math, Array, Buffer, DType};
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::primitives::Prim;
use crate::trace::{bind1, Value};

/// Which cumulative reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum CumOp {
    /// Running sum.
    Sum,
    /// Running product.
    Prod,
    /// Running maximum.
    Max,
    /// Running minimum.
    Min,
    /// Running `log(sum(exp(x)))`.
    LogSumExp,
}

impl CumOp {
    /// JAX's primitive name.
    pub fn name(self) -> &'static str {
        match self {
            CumOp::Sum => "cumsum",
            CumOp::Prod => "cumprod",
            CumOp::Max => "cummax",
            CumOp::Min => "cummin",
            CumOp::LogSumExp => "cumlogsumexp",
        }
    }
}

/// The length of XLA's blocks when it rewrites a long scan.
const BLOCK: usize = 16;

/// The inclusive scan of `v` under `f` (from the end when `reverse`),
/// associated as XLA's rewritten reduce-window is: blocks of [`BLOCK`]
/// counted from the start, each element of a block reduced left to right
/// over its window inside the block, the block totals scanned the same way
/// (recursively), and each block's elements combined with the total of the
/// blocks before it (after it, when `reverse`).
fn scan_line<T: Copy>(v: &[T], reverse: bool, f: &impl Fn(T, T) -> T) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(v.len());
    for chunk in v.chunks(BLOCK) {
        if reverse {
            for k in 0..chunk.len() {
                out.push(chunk[k + 1..].iter().fold(chunk[k], |a, &x| f(a, x)));
            }
        } else {
            let mut acc = chunk[0];
            out.push(acc);
            for &x in &chunk[1..] {
                acc = f(acc, x);
                out.push(acc);
            }
        }
    }
    if v.len() <= BLOCK {
        return out;
    }
    let totals: Vec<T> = out
        .chunks(BLOCK)
        .map(|c| if reverse { c[0] } else { c[c.len() - 1] })
        .collect();
    let others = scan_line(&totals, reverse, f);
    let blocks = totals.len();
    for (b, chunk) in out.chunks_mut(BLOCK).enumerate() {
        let other = match reverse {
            false if b > 0 => others[b - 1],
            true if b + 1 < blocks => others[b + 1],
            _ => continue,
        };
        for x in chunk.iter_mut() {
            *x = f(other, *x);
        }
    }
    out
}

/// Applies `scan_line` to every line of `data` (row-major, `shape`) along
/// `axis`.
fn scan_axis<T: Copy>(
    data: &[T],
    shape: &[usize],
    axis: usize,
    reverse: bool,
    f: &impl Fn(T, T) -> T,
) -> Vec<T> {
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut out = data.to_vec();
    if n == 0 {
        return out;
    }
    for o in 0..outer {
        for i in 0..inner {
            let idx = |k: usize| (o * n + k) * inner + i;
            let line: Vec<T> = (0..n).map(|k| data[idx(k)]).collect();
            for (k, v) in scan_line(&line, reverse, f).into_iter().enumerate() {
                out[idx(k)] = v;
            }
        }
    }
    out
}

fn logaddexp(a: f32, b: f32) -> f32 {
    let m = a.max(b);
    if m == f32::NEG_INFINITY {
        return m;
    }
    // XLA's exp and log1p, as JAX's logaddexp composes them.
    m + xla_math::log1p(xla_math::exp(-(a - b).abs()))
}

fn nan_max(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else {
        a.max(b)
    }
}

fn nan_min(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else {
        a.min(b)
    }
}

/// Runs a cumulative reduction on an array.
pub fn cumulative(x: &Array, op: CumOp, axis: usize, reverse: bool) -> Result<Array> {
    let shape = x.shape().to_vec();
    let buf = match x.buffer() {
        Buffer::F32(d) => Buffer::F32(
            match op {
                CumOp::Sum => scan_axis(d, &shape, axis, reverse, &|a, b| a + b),
                CumOp::Prod => scan_axis(d, &shape, axis, reverse, &|a, b| a * b),
                CumOp::Max => scan_axis(d, &shape, axis, reverse, &nan_max),
                CumOp::Min => scan_axis(d, &shape, axis, reverse, &nan_min),
                CumOp::LogSumExp => scan_axis(d, &shape, axis, reverse, &logaddexp),
            }
            .into(),
        ),
        Buffer::I32(d) => Buffer::I32(
            match op {
                CumOp::Sum => scan_axis(d, &shape, axis, reverse, &|a: i32, b| a.wrapping_add(b)),
                CumOp::Prod => scan_axis(d, &shape, axis, reverse, &|a: i32, b| a.wrapping_mul(b)),
                CumOp::Max => scan_axis(d, &shape, axis, reverse, &|a: i32, b| a.max(b)),
                CumOp::Min => scan_axis(d, &shape, axis, reverse, &|a: i32, b| a.min(b)),
                CumOp::LogSumExp => bail!(TypeError, "cumlogsumexp does not accept dtype int32"),
            }
            .into(),
        ),
        Buffer::U32(d) => Buffer::U32(
            match op {
                CumOp::Sum => scan_axis(d, &shape, axis, reverse, &|a: u32, b| a.wrapping_add(b)),
                CumOp::Prod => scan_axis(d, &shape, axis, reverse, &|a: u32, b| a.wrapping_mul(b)),
                CumOp::Max => scan_axis(d, &shape, axis, reverse, &|a: u32, b| a.max(b)),
                CumOp::Min => scan_axis(d, &shape, axis, reverse, &|a: u32, b| a.min(b)),
                CumOp::LogSumExp => bail!(TypeError, "cumlogsumexp does not accept dtype uint32"),
            }
            .into(),
        ),
        _ => bail!(
            TypeError,
            "{} does not accept dtype {}",
            op.name(),
            x.dtype().name()
        ),
    };
    Array::from_buffer(&shape, buf)
}

/// Shape rule: the operand's shape and dtype.
pub fn abstract_eval(prim: &Prim, ins: &[Aval]) -> Result<Vec<Aval>> {
    let Prim::Cumulative { op, axis, .. } = prim else {
        bail!(RuntimeError, "not a cumulative reduction: {}", prim.name());
    };
    let x = &ins[0];
    if *axis >= x.shape.len() {
        bail!(
            ValueError,
            "axis {axis} is out of bounds for array of dimension {}",
            x.shape.len()
        );
    }
    let ok = match op {
        CumOp::LogSumExp => x.dtype == DType::F32,
        _ => matches!(x.dtype, DType::F32 | DType::I32 | DType::U32),
    };
    if !ok {
        bail!(
            TypeError,
            "{} does not accept dtype {}. Accepted dtypes are subtypes of {}.",
            op.name(),
            x.dtype.name(),
            if *op == CumOp::LogSumExp {
                "floating"
            } else {
                "number"
            }
        );
    }
    Ok(vec![x.clone()])
}

/// Implementation on arrays.
pub fn apply(prim: &Prim, ins: &[Array]) -> Result<Vec<Array>> {
    let Prim::Cumulative { op, axis, reverse } = prim else {
        bail!(RuntimeError, "not a cumulative reduction: {}", prim.name());
    };
    Ok(vec![cumulative(&ins[0], *op, *axis, *reverse)?])
}

fn unsupported(op: CumOp) -> crate::error::Error {
    crate::err!(
        NotImplementedError,
        "not supported by shardlab yet: differentiation of {}",
        op.name()
    )
}

/// Forward-mode rule: cumsum of the tangent (only cumsum so far).
pub fn jvp(prim: &Prim, t: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
    let Some(g) = &t[0] else {
        return Ok(vec![None]);
    };
    match prim {
        Prim::Cumulative { op: CumOp::Sum, .. } => {
            Ok(vec![Some(bind1(prim.clone(), std::slice::from_ref(g))?)])
        }
        Prim::Cumulative { op, .. } => Err(unsupported(*op)),
        _ => bail!(RuntimeError, "not a cumulative reduction: {}", prim.name()),
    }
}

/// Reverse-mode rule: cumsum transposes to the cumsum running the other way.
pub fn vjp(prim: &Prim, p: &[Value], cts: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
    let Some(ct) = &cts[0] else {
        return Ok(vec![None]);
    };
    if p[0].dtype() != DType::F32 {
        return Ok(vec![None]);
    }
    match prim {
        Prim::Cumulative {
            op: CumOp::Sum,
            axis,
            reverse,
        } => {
            let back = Prim::Cumulative {
                op: CumOp::Sum,
                axis: *axis,
                reverse: !*reverse,
            };
            Ok(vec![Some(bind1(back, std::slice::from_ref(ct))?)])
        }
        Prim::Cumulative { op, .. } => Err(unsupported(*op)),
        _ => bail!(RuntimeError, "not a cumulative reduction: {}", prim.name()),
    }
}
