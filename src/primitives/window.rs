//! Windowed reductions: `reduce_window_sum` and `reduce_window_max`, what
//! `lax.reduce_window` binds for `lax.add` from 0 and `lax.max` from -inf,
//! and what Flax's `avg_pool` and `max_pool` are built on.
//!
//! The operand is dilated (`base_dilation`), padded with the reduction's
//! identity, and each output element reduces one window (dilated by
//! `window_dilation`) from the identity, in row-major order of the window,
//! as XLA's CPU loops do.
//!
//! The windowed sum is linear: its tangent is the windowed sum of the
//! tangent, and its transpose sums the output cotangent over the windows
//! that hold each input element, itself a windowed sum of the cotangent
//! dilated by the strides (JAX pads the cotangent in the interior instead,
//! which puts the same zeros in the same places).

use std::sync::Arc;

use crate::array::fmt_shape as tuple;
use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::primitives::{join_vma, Prim};
use crate::trace::{bind1, Value};

/// Which windowed reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum WindowOp {
    /// Sum, from 0.
    Sum,
    /// Maximum, from -inf.
    Max,
}

/// The parameters of a windowed reduction.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct WindowParams {
    /// Which reduction.
    pub op: WindowOp,
    /// The window's size in each dimension.
    pub window_dimensions: Vec<usize>,
    /// The window's step in each dimension.
    pub window_strides: Vec<usize>,
    /// Elements of the identity added before and after each dimension.
    pub padding: Vec<(i64, i64)>,
    /// The operand's dilation.
    pub base_dilation: Vec<usize>,
    /// The window's dilation.
    pub window_dilation: Vec<usize>,
}

fn dilate(n: usize, d: usize) -> usize {
    if n == 0 {
        0
    } else {
        (n - 1) * d + 1
    }
}

impl WindowParams {
    /// JAX's primitive name.
    pub fn name(&self) -> &'static str {
        match self.op {
            WindowOp::Sum => "reduce_window_sum",
            WindowOp::Max => "reduce_window_max",
        }
    }

    /// The parameters in the order the jaxpr printer shows them.
    pub fn params(&self) -> Vec<(String, String)> {
        let padding = super::conv::padding_text(&self.padding);
        vec![
            ("base_dilation".into(), tuple(&self.base_dilation)),
            ("padding".into(), padding),
            ("window_dilation".into(), tuple(&self.window_dilation)),
            ("window_dimensions".into(), tuple(&self.window_dimensions)),
            ("window_strides".into(), tuple(&self.window_strides)),
        ]
    }

    /// The output shape for an operand of shape `x`.
    pub fn out_shape(&self, x: &[usize]) -> Result<Vec<usize>> {
        let n = x.len();
        let lens = [
            self.window_dimensions.len(),
            self.window_strides.len(),
            self.padding.len(),
            self.base_dilation.len(),
            self.window_dilation.len(),
        ];
        if lens.iter().any(|&l| l != n) {
            bail!(
                TypeError,
                "reduce_window: the window has {} dimensions but the operand has shape {}",
                self.window_dimensions.len(),
                crate::array::shape_tuple(x)
            );
        }
        if self.window_strides.contains(&0) {
            bail!(TypeError, "reduce_window: window_strides must be positive");
        }
        let mut out = vec![];
        for (d, &size) in x.iter().enumerate() {
            let padded =
                dilate(size, self.base_dilation[d]) as i64 + self.padding[d].0 + self.padding[d].1;
            let w = dilate(self.window_dimensions[d], self.window_dilation[d]) as i64;
            out.push(if padded < w {
                0
            } else {
                ((padded - w) as usize) / self.window_strides[d] + 1
            });
        }
        Ok(out)
    }
}

fn params(prim: &Prim) -> Result<&WindowParams> {
    match prim {
        Prim::ReduceWindow(p) => Ok(p),
        _ => bail!(RuntimeError, "not a windowed reduction: {}", prim.name()),
    }
}

/// Shape rule.
pub fn abstract_eval(prim: &Prim, ins: &[Aval]) -> Result<Vec<Aval>> {
    let p = params(prim)?;
    let x = &ins[0];
    if x.dtype == DType::Bool {
        bail!(
            TypeError,
            "{} does not accept dtype bool. Accepted dtypes are subtypes of number.",
            p.name()
        );
    }
    Ok(vec![Aval {
        shape: p.out_shape(&x.shape)?,
        dtype: x.dtype,
        vma: join_vma(ins),
        weak: false,
    }])
}

/// Reduces every window of `data` (shape `shape`) with `f` from `init`.
fn reduce<T: Copy>(
    p: &WindowParams,
    data: &[T],
    shape: &[usize],
    init: T,
    f: impl Fn(T, T) -> T,
) -> Result<(Vec<usize>, Vec<T>)> {
    let oshape = p.out_shape(shape)?;
    let n = shape.len();
    let istr = crate::array::strides(shape);
    let ostr = crate::array::strides(&oshape);
    let wstr = crate::array::strides(&p.window_dimensions);
    let wcount: usize = p.window_dimensions.iter().product();
    let total: usize = oshape.iter().product();
    let mut out = Vec::with_capacity(total);
    for flat in 0..total {
        let mut acc = init;
        'taps: for t in 0..wcount {
            let mut off = 0;
            for d in 0..n {
                let o = (flat / ostr[d]) % oshape[d];
                let w = (t / wstr[d]) % p.window_dimensions[d];
                let at =
                    (o * p.window_strides[d] + w * p.window_dilation[d]) as i64 - p.padding[d].0;
                let b = p.base_dilation[d] as i64;
                if at < 0 || at % b != 0 || at / b >= shape[d] as i64 {
                    continue 'taps;
                }
                off += (at / b) as usize * istr[d];
            }
            acc = f(acc, data[off]);
        }
        out.push(acc);
    }
    Ok((oshape, out))
}

/// Runs a windowed reduction on an array.
pub fn reduce_window(x: &Array, p: &WindowParams) -> Result<Array> {
    let shape = x.shape();
    match (x.dtype(), p.op) {
        (DType::F32, WindowOp::Sum) => {
            let (s, d) = reduce(p, x.f32_data()?, shape, 0.0f32, |a, b| a + b)?;
            Array::from_f32(&s, d)
        }
        (DType::F32, WindowOp::Max) => {
            let max = |a: f32, b: f32| {
                if a.is_nan() || b.is_nan() {
                    f32::NAN
                } else {
                    a.max(b)
                }
            };
            let (s, d) = reduce(p, x.f32_data()?, shape, f32::NEG_INFINITY, max)?;
            Array::from_f32(&s, d)
        }
        (DType::I32, WindowOp::Sum) => {
            let (s, d) = reduce(p, x.i32_data()?, shape, 0i32, |a, b| a.wrapping_add(b))?;
            Array::from_i32(&s, d)
        }
        (DType::I32, WindowOp::Max) => {
            let (s, d) = reduce(p, x.i32_data()?, shape, i32::MIN, |a, b| a.max(b))?;
            Array::from_i32(&s, d)
        }
        (d, _) => bail!(TypeError, "{} does not accept dtype {}", p.name(), d.name()),
    }
}

/// Implementation on arrays.
pub fn apply(prim: &Prim, ins: &[Array]) -> Result<Vec<Array>> {
    Ok(vec![reduce_window(&ins[0], params(prim)?)?])
}

/// Binds a windowed reduction.
pub fn bind_window(x: &Value, p: WindowParams) -> Result<Value> {
    bind1(Prim::ReduceWindow(Arc::new(p)), std::slice::from_ref(x))
}

fn max_unsupported() -> crate::error::Error {
    crate::err!(
        NotImplementedError,
        "not supported by shardlab yet: differentiation of reduce_window_max"
    )
}

/// Forward-mode rule: the windowed sum of the tangent.
pub fn jvp(prim: &Prim, t: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
    let p = params(prim)?;
    let Some(g) = &t[0] else {
        return Ok(vec![None]);
    };
    match p.op {
        WindowOp::Sum => Ok(vec![Some(bind_window(g, p.clone())?)]),
        WindowOp::Max => Err(max_unsupported()),
    }
}

/// Reverse-mode rule: the windowed sum's transpose, with the padding of
/// JAX's `_conv_general_vjp_lhs_padding`.
pub fn vjp(prim: &Prim, pr: &[Value], cts: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
    let p = params(prim)?;
    let Some(ct) = &cts[0] else {
        return Ok(vec![None]);
    };
    if p.op == WindowOp::Max {
        return Err(max_unsupported());
    }
    if pr[0].dtype() != DType::F32 {
        return Ok(vec![None]);
    }
    let xs = pr[0].shape();
    let cs = ct.shape();
    let padding = (0..xs.len())
        .map(|d| {
            let l = dilate(xs[d], p.base_dilation[d]) as i64;
            let k = dilate(p.window_dimensions[d], p.window_dilation[d]) as i64;
            let o = dilate(cs[d], p.window_strides[d]) as i64;
            let before = k - p.padding[d].0 - 1;
            (before, l + k - 1 - o - before)
        })
        .collect();
    let back = WindowParams {
        op: WindowOp::Sum,
        window_dimensions: p.window_dimensions.clone(),
        window_strides: p.base_dilation.clone(),
        padding,
        base_dilation: p.window_strides.clone(),
        window_dilation: p.window_dilation.clone(),
    };
    Ok(vec![Some(bind_window(ct, back)?)])
}
