//! `conv_general_dilated`: the n-dimensional convolution behind `lax.conv`,
//! `jnp.convolve` and `nnx.Conv`.
//!
//! The operands are read through their dimension numbers: `lhs_spec` names
//! the (batch, feature, spatial...) dimensions of the input, `rhs_spec` the
//! (output feature, input feature, spatial...) dimensions of the kernel and
//! `out_spec` where the result's (batch, feature, spatial...) go, so no
//! operand is transposed first. The input is padded (padding may be
//! negative, cropping it) and dilated (`lhs_dilation` puts zeros between its
//! elements), the kernel is dilated (`rhs_dilation`), and each output
//! element is the window's sum of products. `feature_group_count` splits the
//! input and output features into groups convolved separately;
//! `batch_group_count` does the same with the input batch and the output
//! features.
//!
//! The sum runs over the kernel's spatial positions in row-major order with
//! the input feature innermost, each product fused into the running sum
//! (`mul_add`). XLA's CPU backend (YNNPACK, in JAX 0.10.2) sums a small
//! window the same way, so those results carry JAX's bits (measured for
//! windows of up to 108 terms, up to 12 input features); for more input
//! features it picks other orders (with 16 or 32 input features and 32
//! outputs, two interleaved chains, even and odd terms, added at the end),
//! and the last digits may differ. float32 runs as matrix products
//! (`conv_gemm.rs`) with exactly this order; the loop here serves int32.
//!
//! The convolution is bilinear, so its derivative in each operand is again a
//! convolution, and so is each transpose: the input's cotangent convolves
//! the output cotangent with the spatially reversed kernel, the kernel's
//! convolves the input with the output cotangent, with the padding and
//! dilations JAX computes for them.

use std::sync::Arc;

use crate::array::fmt_shape as tuple;
use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::primitives::{join_vma, Prim};
use crate::trace::{bind1, Value};

/// The parameters of one convolution, as JAX's `conv_general_dilated_p`
/// holds them after its wrapper has resolved string padding and dimension
/// numbers.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct ConvParams {
    /// The step of the window over each spatial dimension.
    pub window_strides: Vec<usize>,
    /// Elements added (removed, when negative) before and after each
    /// spatial dimension of the dilated input.
    pub padding: Vec<(i64, i64)>,
    /// The input's dilation in each spatial dimension.
    pub lhs_dilation: Vec<usize>,
    /// The kernel's dilation in each spatial dimension.
    pub rhs_dilation: Vec<usize>,
    /// The input's (batch, feature, spatial...) dimensions.
    pub lhs_spec: Vec<usize>,
    /// The kernel's (output feature, input feature, spatial...) dimensions.
    pub rhs_spec: Vec<usize>,
    /// The output's (batch, feature, spatial...) dimensions.
    pub out_spec: Vec<usize>,
    /// Groups of input features convolved separately.
    pub feature_group_count: usize,
    /// Groups of the input batch convolved separately.
    pub batch_group_count: usize,
}

/// A padding parameter as the jaxpr printer shows it: `((1, 1), (0, 2))`.
pub(super) fn padding_text(padding: &[(i64, i64)]) -> String {
    let pads: Vec<String> = padding
        .iter()
        .map(|(lo, hi)| format!("({lo}, {hi})"))
        .collect();
    if pads.len() == 1 {
        format!("({},)", pads[0])
    } else {
        format!("({})", pads.join(", "))
    }
}

/// JAX's repr of a `ConvDimensionNumbers`.
pub fn dimension_numbers_repr(lhs: &[usize], rhs: &[usize], out: &[usize]) -> String {
    format!(
        "ConvDimensionNumbers(lhs_spec={}, rhs_spec={}, out_spec={})",
        tuple(lhs),
        tuple(rhs),
        tuple(out)
    )
}

/// The size of a dimension of `n` elements dilated by `d`.
fn dilate(n: usize, d: usize) -> usize {
    if n == 0 {
        0
    } else {
        (n - 1) * d + 1
    }
}

impl ConvParams {
    /// The parameters in the order the jaxpr printer shows them.
    pub fn params(&self) -> Vec<(String, String)> {
        let padding = padding_text(&self.padding);
        vec![
            (
                "batch_group_count".into(),
                self.batch_group_count.to_string(),
            ),
            (
                "dimension_numbers".into(),
                dimension_numbers_repr(&self.lhs_spec, &self.rhs_spec, &self.out_spec),
            ),
            (
                "feature_group_count".into(),
                self.feature_group_count.to_string(),
            ),
            ("lhs_dilation".into(), tuple(&self.lhs_dilation)),
            ("out_sharding".into(), "None".into()),
            ("padding".into(), padding),
            ("precision".into(), "None".into()),
            ("preferred_element_type".into(), "None".into()),
            ("rhs_dilation".into(), tuple(&self.rhs_dilation)),
            ("window_strides".into(), tuple(&self.window_strides)),
        ]
    }

    /// The number of spatial dimensions.
    pub(super) fn nsp(&self) -> usize {
        self.rhs_spec.len().saturating_sub(2)
    }

    /// The output shape for operands of shapes `lhs` and `rhs`, or JAX's
    /// error for operands these parameters do not fit.
    pub fn out_shape(&self, lhs: &[usize], rhs: &[usize]) -> Result<Vec<usize>> {
        if lhs.len() != rhs.len() {
            bail!(
                ValueError,
                "conv_general_dilated lhs and rhs must have the same number of dimensions, \
                 but got {} and {}.",
                crate::array::shape_tuple(lhs),
                crate::array::shape_tuple(rhs)
            );
        }
        self.check_groups(lhs, rhs)?;
        let nsp = self.nsp();
        if nsp != self.window_strides.len() {
            bail!(
                ValueError,
                "conv_general_dilated window and window_strides must have the same number of \
                 dimensions, but got {} and {}",
                nsp,
                self.window_strides.len()
            );
        }
        if self.padding.len() != nsp {
            bail!(
                TypeError,
                "Wrong number of explicit pads for convolution: expected {}, got {}.",
                nsp,
                self.padding.len()
            );
        }
        let mut out = vec![0; lhs.len()];
        out[self.out_spec[0]] = lhs[self.lhs_spec[0]] / self.batch_group_count;
        out[self.out_spec[1]] = rhs[self.rhs_spec[0]];
        let mut padded = Vec::with_capacity(nsp);
        for s in 0..nsp {
            let n = dilate(lhs[self.lhs_spec[s + 2]], self.lhs_dilation[s]) as i64;
            padded.push(n + self.padding[s].0 + self.padding[s].1);
        }
        if padded.iter().any(|&p| p < 0) {
            let pads: Vec<String> = self
                .padding
                .iter()
                .map(|(a, b)| format!("({a}, {b})"))
                .collect();
            // JAX formats the sizes as NumPy integers.
            let sizes: Vec<String> = (0..nsp)
                .map(|s| format!("np.int64({})", lhs[self.lhs_spec[s + 2]]))
                .collect();
            let sizes = if nsp == 1 {
                format!("({},)", sizes[0])
            } else {
                format!("({})", sizes.join(", "))
            };
            bail!(
                ValueError,
                "Negative padding is larger than the size of the corresponding dimension: \
                 got padding=({}) for lhs_shape[2:]={}",
                pads.join(", "),
                sizes
            );
        }
        for s in 0..nsp {
            let k = dilate(rhs[self.rhs_spec[s + 2]], self.rhs_dilation[s]) as i64;
            let room = padded[s] - k;
            out[self.out_spec[s + 2]] = if room < 0 {
                0
            } else {
                (room as usize) / self.window_strides[s] + 1
            };
        }
        Ok(out)
    }

    /// The feature and batch group checks of JAX's shape rule.
    fn check_groups(&self, lhs: &[usize], rhs: &[usize]) -> Result<()> {
        let fg = self.feature_group_count;
        let bg = self.batch_group_count;
        let lhs_features = lhs[self.lhs_spec[1]];
        let rhs_in = rhs[self.rhs_spec[1]];
        let rhs_out = rhs[self.rhs_spec[0]];
        if fg == 0 {
            bail!(
                ValueError,
                "conv_general_dilated feature_group_count must be a positive integer, got {fg}."
            );
        }
        if lhs_features % fg != 0 {
            bail!(ValueError, "conv_general_dilated feature_group_count must divide lhs feature dimension size, but {fg} does not divide {lhs_features}.");
        }
        if lhs_features / fg != rhs_in {
            bail!(ValueError, "conv_general_dilated lhs feature dimension size divided by feature_group_count must equal the rhs input feature dimension size, but {lhs_features} // {fg} != {rhs_in}.");
        }
        if rhs_out % fg != 0 {
            bail!(ValueError, "conv_general_dilated rhs output feature dimension size must be a multiple of feature_group_count, but {rhs_out} is not a multiple of {fg}.");
        }
        if bg == 0 {
            bail!(
                ValueError,
                "conv_general_dilated batch_group_count must be a positive integer, got {bg}."
            );
        }
        let batch = lhs[self.lhs_spec[0]];
        if bg > 1 && batch % bg != 0 {
            bail!(ValueError, "conv_general_dilated batch_group_count must divide lhs batch dimension size, but {bg} does not divide {batch}.");
        }
        if rhs_out % bg != 0 {
            bail!(ValueError, "conv_general_dilated rhs output feature dimension size must be a multiple of batch_group_count, but {rhs_out} is not a multiple of {bg}.");
        }
        if bg > 1 && fg > 1 {
            bail!(ValueError, "At most one of batch_group_count and feature_group_count may be > 1, got batch_group_count={bg} and feature_group_count={fg}");
        }
        Ok(())
    }
}

fn params(prim: &Prim) -> Result<&ConvParams> {
    match prim {
        Prim::Conv(p) => Ok(p),
        _ => bail!(RuntimeError, "not conv_general_dilated: {}", prim.name()),
    }
}

/// Shape rule.
pub fn abstract_eval(prim: &Prim, ins: &[Aval]) -> Result<Vec<Aval>> {
    let p = params(prim)?;
    let (x, y) = (&ins[0], &ins[1]);
    if x.dtype != y.dtype {
        bail!(
            TypeError,
            "lax.conv_general_dilated requires arguments to have the same dtypes, got {}, {}.",
            x.dtype.name(),
            y.dtype.name()
        );
    }
    if x.dtype == DType::Bool {
        bail!(
            TypeError,
            "conv_general_dilated does not accept dtype bool. Accepted dtypes are subtypes of number."
        );
    }
    Ok(vec![Aval {
        shape: p.out_shape(&x.shape, &y.shape)?,
        dtype: x.dtype,
        vma: join_vma(ins),
        weak: false,
    }])
}

/// The operands' geometry, resolved once for the loops of [`convolve`].
pub(super) struct Geometry {
    pub(super) lstr: Vec<usize>,
    pub(super) rstr: Vec<usize>,
    /// The output's dimensions, and row-major strides.
    pub(super) oshape: Vec<usize>,
    pub(super) ostr: Vec<usize>,
    /// Input features per group, and output features per feature group and
    /// per batch group.
    pub(super) per_group_in: usize,
    per_fgroup_out: usize,
    per_bgroup_out: usize,
    pub(super) out_batch: usize,
    /// Each kernel spatial position: its offset in the kernel's buffer and
    /// its dilated offset in each spatial dimension.
    pub(super) taps: Vec<(usize, Vec<i64>)>,
    /// The dilated input's size in each spatial dimension.
    lhs_dilated: Vec<i64>,
}

impl Geometry {
    pub(super) fn new(p: &ConvParams, ls: &[usize], rs: &[usize], oshape: &[usize]) -> Geometry {
        let nsp = p.nsp();
        let rstr = crate::array::strides(rs);
        let ksz: Vec<usize> = (0..nsp).map(|s| rs[p.rhs_spec[s + 2]]).collect();
        let mut taps = vec![];
        let count: usize = ksz.iter().product();
        for t in 0..count {
            let mut rem = t;
            let mut k = vec![0usize; nsp];
            for s in (0..nsp).rev() {
                k[s] = rem % ksz[s];
                rem /= ksz[s];
            }
            let off = (0..nsp).map(|s| k[s] * rstr[p.rhs_spec[s + 2]]).sum();
            let dil = (0..nsp)
                .map(|s| (k[s] * p.rhs_dilation[s]) as i64)
                .collect();
            taps.push((off, dil));
        }
        let out_features = oshape[p.out_spec[1]];
        Geometry {
            lstr: crate::array::strides(ls),
            rstr,
            oshape: oshape.to_vec(),
            ostr: crate::array::strides(oshape),
            per_group_in: rs[p.rhs_spec[1]],
            per_fgroup_out: (out_features / p.feature_group_count).max(1),
            per_bgroup_out: (out_features / p.batch_group_count).max(1),
            out_batch: oshape[p.out_spec[0]],
            taps,
            lhs_dilated: (0..nsp)
                .map(|s| dilate(ls[p.lhs_spec[s + 2]], p.lhs_dilation[s]) as i64)
                .collect(),
        }
    }

    /// The input's buffer offset of the window tap `dil` for the output
    /// position `pos`, or None where the tap falls on padding or on a hole
    /// of the dilation.
    pub(super) fn lhs_offset(&self, p: &ConvParams, pos: &[usize], dil: &[i64]) -> Option<usize> {
        let mut off = 0;
        for (s, &d) in dil.iter().enumerate() {
            let at = (pos[s] * p.window_strides[s]) as i64 - p.padding[s].0 + d;
            if at < 0 || at >= self.lhs_dilated[s] {
                return None;
            }
            let ld = p.lhs_dilation[s] as i64;
            if at % ld != 0 {
                return None;
            }
            off += (at / ld) as usize * self.lstr[p.lhs_spec[s + 2]];
        }
        Some(off)
    }
}

/// The convolution of row-major `lhs` (shape `ls`) with `rhs` (shape
/// `rs`) into an output of shape `oshape`, each product folded into the
/// running sum by `fma(a, b, acc)`.
pub(super) fn convolve<T: Copy + Default>(
    p: &ConvParams,
    (lhs, ls): (&[T], &[usize]),
    (rhs, rs): (&[T], &[usize]),
    oshape: &[usize],
    fma: impl Fn(T, T, T) -> T,
) -> Vec<T> {
    let g = Geometry::new(p, ls, rs, oshape);
    let nsp = p.nsp();
    let total: usize = oshape.iter().product();
    let lc = g.lstr[p.lhs_spec[1]];
    let ri = g.rstr[p.rhs_spec[1]];
    let mut out = vec![T::default(); total];
    let mut pos = vec![0usize; nsp];
    for (flat, slot) in out.iter_mut().enumerate() {
        let coord = |d: usize| (flat / g.ostr[d]) % g.oshape[d];
        let n = coord(p.out_spec[0]);
        let o = coord(p.out_spec[1]);
        for (s, x) in pos.iter_mut().enumerate() {
            *x = coord(p.out_spec[s + 2]);
        }
        let batch = if p.batch_group_count > 1 {
            (o / g.per_bgroup_out) * g.out_batch + n
        } else {
            n
        };
        let first_in = (o / g.per_fgroup_out) * g.per_group_in;
        let base_l = batch * g.lstr[p.lhs_spec[0]] + first_in * lc;
        let base_r = o * g.rstr[p.rhs_spec[0]];
        let mut acc = T::default();
        for (roff, dil) in &g.taps {
            let Some(loff) = g.lhs_offset(p, &pos, dil) else {
                continue;
            };
            for i in 0..g.per_group_in {
                acc = fma(
                    lhs[base_l + loff + i * lc],
                    rhs[base_r + roff + i * ri],
                    acc,
                );
            }
        }
        *slot = acc;
    }
    out
}

/// Runs a convolution on arrays.
pub fn conv(lhs: &Array, rhs: &Array, p: &ConvParams) -> Result<Array> {
    let oshape = p.out_shape(lhs.shape(), rhs.shape())?;
    let (ls, rs) = (lhs.shape(), rhs.shape());
    match (lhs.dtype(), rhs.dtype()) {
        (DType::F32, DType::F32) => {
            let data = super::conv_gemm::convolve_f32(
                p,
                (lhs.f32_data()?, ls),
                (rhs.f32_data()?, rs),
                &oshape,
            );
            Array::from_f32(&oshape, data)
        }
        (DType::I32, DType::I32) => {
            let data = convolve(
                p,
                (lhs.i32_data()?, ls),
                (rhs.i32_data()?, rs),
                &oshape,
                |a: i32, b: i32, acc: i32| acc.wrapping_add(a.wrapping_mul(b)),
            );
            Array::from_i32(&oshape, data)
        }
        (a, b) => bail!(
            TypeError,
            "lax.conv_general_dilated requires arguments to have the same dtypes, got {}, {}.",
            a.name(),
            b.name()
        ),
    }
}

/// Implementation on arrays.
pub fn apply(prim: &Prim, ins: &[Array]) -> Result<Vec<Array>> {
    Ok(vec![conv(&ins[0], &ins[1], params(prim)?)?])
}

/// Binds a convolution with parameters `p`.
pub fn bind_conv(x: &Value, y: &Value, p: ConvParams) -> Result<Value> {
    bind1(Prim::Conv(Arc::new(p)), &[x.clone(), y.clone()])
}

/// Forward-mode rule: bilinear, so d(x * y) = dx * y + x * dy.
pub fn jvp(prim: &Prim, pr: &[Value], t: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
    let p = params(prim)?;
    let a = match &t[0] {
        Some(tx) => Some(bind_conv(tx, &pr[1], p.clone())?),
        None => None,
    };
    let b = match &t[1] {
        Some(ty) => Some(bind_conv(&pr[0], ty, p.clone())?),
        None => None,
    };
    Ok(vec![super::elementwise::add_opt(a, b)?])
}

/// JAX's `_reshape_axis_into`: moves axis `src` next to `dst` and merges
/// them (src's index varying slowest).
fn reshape_axis_into(src: usize, dst: usize, x: &Value) -> Result<Value> {
    let shape = x.shape();
    let mut perm: Vec<usize> = (0..shape.len()).filter(|&i| i != src).collect();
    perm.insert(dst, src);
    let mut new_shape: Vec<usize> = shape
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != src)
        .map(|(_, &n)| n)
        .collect();
    new_shape[dst] *= shape[src];
    let moved = if perm.iter().enumerate().all(|(i, &d)| i == d) {
        x.clone()
    } else {
        crate::ops::transpose(x, &perm)?
    };
    crate::ops::reshape(&moved, &new_shape)
}

/// JAX's `_reshape_axis_out_of`: splits axis `src` into `(size1, rest)`.
fn reshape_axis_out_of(src: usize, size1: usize, x: &Value) -> Result<Value> {
    let mut shape = x.shape();
    let rest = shape[src] / size1;
    shape.splice(src..=src, [size1, rest]);
    crate::ops::reshape(x, &shape)
}

fn swap_first(spec: &[usize]) -> Vec<usize> {
    let mut s = spec.to_vec();
    s.swap(0, 1);
    s
}

/// The spatial sizes of `shape` named by `spec[2..]`.
fn spatial(shape: &[usize], spec: &[usize]) -> Vec<usize> {
    spec[2..].iter().map(|&d| shape[d]).collect()
}

/// The input's cotangent: the output cotangent convolved with the
/// spatially reversed kernel, strides and input dilation exchanged.
fn transpose_lhs(ct: &Value, rhs: &Value, lhs_shape: &[usize], p: &ConvParams) -> Result<Value> {
    let nsp = p.nsp();
    let rhs_shape = rhs.shape();
    let mut rhs = rhs.clone();
    let mut fg = p.feature_group_count;
    let bg = p.batch_group_count;
    if fg > 1 || bg > 1 {
        let groups = fg.max(bg);
        rhs = reshape_axis_out_of(p.rhs_spec[0], groups, &rhs)?;
        rhs = reshape_axis_into(p.rhs_spec[0], p.rhs_spec[1], &rhs)?;
        fg = groups;
    }
    let ins = spatial(lhs_shape, &p.lhs_spec);
    let ks = spatial(&rhs_shape, &p.rhs_spec);
    let outs = spatial(&ct.shape(), &p.out_spec);
    let padding = (0..nsp)
        .map(|s| {
            let l = dilate(ins[s], p.lhs_dilation[s]) as i64;
            let k = dilate(ks[s], p.rhs_dilation[s]) as i64;
            let o = dilate(outs[s], p.window_strides[s]) as i64;
            let before = k - p.padding[s].0 - 1;
            (before, l + k - 1 - o - before)
        })
        .collect();
    let revd = crate::ops::rev(&rhs, &p.rhs_spec[2..])?;
    let t = ConvParams {
        window_strides: p.lhs_dilation.clone(),
        padding,
        lhs_dilation: p.window_strides.clone(),
        rhs_dilation: p.rhs_dilation.clone(),
        lhs_spec: p.out_spec.clone(),
        rhs_spec: swap_first(&p.rhs_spec),
        out_spec: p.lhs_spec.clone(),
        feature_group_count: fg,
        batch_group_count: 1,
    };
    let mut out = bind_conv(ct, &revd, t)?;
    if bg > 1 {
        out = reshape_axis_out_of(p.lhs_spec[1], bg, &out)?;
        out = reshape_axis_into(p.lhs_spec[1], p.lhs_spec[0], &out)?;
    }
    Ok(out)
}

/// The kernel's cotangent: the input convolved with the output cotangent,
/// strides and kernel dilation exchanged, feature groups becoming batch
/// groups (and the reverse).
fn transpose_rhs(ct: &Value, lhs: &Value, rhs_shape: &[usize], p: &ConvParams) -> Result<Value> {
    let nsp = p.nsp();
    let (mut fg, mut bg) = (p.feature_group_count, p.batch_group_count);
    if bg > 1 {
        (fg, bg) = (bg, 1);
    } else if fg > 1 {
        (fg, bg) = (1, fg);
    }
    let ins = spatial(&lhs.shape(), &p.lhs_spec);
    let ks = spatial(rhs_shape, &p.rhs_spec);
    let outs = spatial(&ct.shape(), &p.out_spec);
    let padding = (0..nsp)
        .map(|s| {
            let l = dilate(ins[s], p.lhs_dilation[s]) as i64;
            let k = dilate(ks[s], p.rhs_dilation[s]) as i64;
            let o = dilate(outs[s], p.window_strides[s]) as i64;
            let lo = p.padding[s].0;
            (lo, (o - l) + (k - lo - 1))
        })
        .collect();
    let t = ConvParams {
        window_strides: p.rhs_dilation.clone(),
        padding,
        lhs_dilation: p.lhs_dilation.clone(),
        rhs_dilation: p.window_strides.clone(),
        lhs_spec: swap_first(&p.lhs_spec),
        rhs_spec: swap_first(&p.out_spec),
        out_spec: swap_first(&p.rhs_spec),
        feature_group_count: fg,
        batch_group_count: bg,
    };
    bind_conv(lhs, ct, t)
}

/// Reverse-mode rule: the transposes of the bilinear map in each operand.
pub fn vjp(prim: &Prim, pr: &[Value], cts: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
    let p = params(prim)?;
    let Some(ct) = &cts[0] else {
        return Ok(vec![None, None]);
    };
    if pr[0].dtype() != DType::F32 {
        return Ok(vec![None, None]);
    }
    // The kernel's cotangent first, in the order JAX emits them.
    let ct_rhs = if ct.shape().contains(&0) {
        None
    } else {
        Some(transpose_rhs(ct, &pr[0], &pr[1].shape(), p)?)
    };
    let ct_lhs = transpose_lhs(ct, &pr[1], &pr[0].shape(), p)?;
    Ok(vec![Some(ct_lhs), ct_rhs])
}
