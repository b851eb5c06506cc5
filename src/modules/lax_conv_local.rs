//! `lax.conv_general_dilated_patches` and `lax.conv_general_dilated_local`:
//! the unshared (locally connected) convolution behind `nn.ConvLocal`.
//!
//! As in JAX, the patches are themselves a convolution: one feature group
//! per input feature, whose kernel is the identity over the window's
//! positions, so each output feature holds one input value of the window
//! (feature-major, then the window's positions in row-major order). The
//! local convolution then contracts those patches with a kernel that has
//! its own weights at every output position: a `dot_general` batched over
//! the output's spatial dimensions.

use crate::array::Array;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::to_value;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::conv::{conv_general, defaults_only, dimension_numbers, Options};
use super::Builder;

/// `jnp.moveaxis(x, src, dst)` for several axes at once.
fn moveaxes(x: &Value, src: &[usize], dst: &[usize]) -> Result<Value> {
    let n = x.ndim();
    let mut perm: Vec<usize> = (0..n).filter(|d| !src.contains(d)).collect();
    let mut pairs: Vec<(usize, usize)> = dst.iter().copied().zip(src.iter().copied()).collect();
    pairs.sort_unstable();
    for (d, s) in pairs {
        perm.insert(d, s);
    }
    jops::transpose(x, &perm)
}

fn filter_shape(o: &Obj) -> Result<Vec<usize>> {
    iterate(o)?
        .iter()
        .map(|v| Ok(crate::python::builtins::to_int(v)?.max(0) as usize))
        .collect()
}

/// The window's arguments shared by both functions.
struct Window {
    filter: Vec<usize>,
    strides: Obj,
    padding: Obj,
    lhs_dilation: Option<Obj>,
    rhs_dilation: Option<Obj>,
    dimension_numbers: Option<Obj>,
}

/// The patches of `lhs`: for each output position, the window's input
/// values, as JAX computes them (a grouped convolution with an identity
/// kernel).
fn patches(lhs: &Value, w: &Window) -> Result<Value> {
    let mut rhs_shape = vec![1, 1];
    rhs_shape.extend(&w.filter);
    let [lhs_spec, rhs_spec, _] =
        dimension_numbers(w.dimension_numbers.as_ref(), &lhs.shape(), &rhs_shape)?;
    let size: usize = w.filter.iter().product();
    let channels = lhs.shape()[lhs_spec[1]];
    let eye = Value::Concrete(Array::eye(size, size, 0, lhs.dtype()));
    let rhs = jops::broadcast_in_dim(&eye, &[channels, size, size], &[1, 2])?;
    let mut kernel_shape = vec![channels * size, 1];
    kernel_shape.extend(&w.filter);
    let rhs = jops::reshape(&rhs, &kernel_shape)?;
    let rhs = moveaxes(&rhs, &[0, 1], &[rhs_spec[0], rhs_spec[1]])?;
    let o = Options {
        lhs_dilation: w.lhs_dilation.as_ref(),
        rhs_dilation: w.rhs_dilation.as_ref(),
        dimension_numbers: w.dimension_numbers.as_ref(),
        feature_group_count: channels,
        batch_group_count: 1,
    };
    conv_general(lhs, &rhs, &w.strides, &w.padding, o)
}

/// The unshared convolution of `lhs` with `rhs`, whose spatial dimensions
/// are the output's and whose input feature dimension holds a whole window.
fn local(lhs: &Value, rhs: &Value, w: &Window) -> Result<Value> {
    let p = patches(lhs, w)?;
    let mut rhs_shape = vec![1, 1];
    rhs_shape.extend(&w.filter);
    let [_, rhs_spec, out_spec] =
        dimension_numbers(w.dimension_numbers.as_ref(), &lhs.shape(), &rhs_shape)?;
    let lhs_b: Vec<usize> = out_spec[2..].to_vec();
    let mut order: Vec<usize> = (0..lhs_b.len()).collect();
    order.sort_by_key(|&k| lhs_b[k]);
    let rhs_b: Vec<usize> = order.iter().map(|&k| rhs_spec[2 + k]).collect();
    let mut lhs_b = lhs_b;
    lhs_b.sort_unstable();
    let out = jops::dot_general(&p, rhs, (&[out_spec[1]], &[rhs_spec[1]]), (&lhs_b, &rhs_b))?;
    let n = out.ndim();
    moveaxes(&out, &[n - 2, n - 1], &[out_spec[0], out_spec[1]])
}

/// Reads the window arguments: `filter_shape` at `filter_at`, then the
/// strides and padding at the positions after `lhs` (and `rhs`).
fn window(a: &Args, func: &str, first: usize, filter_at: usize, dil_at: usize) -> Result<Window> {
    Ok(Window {
        filter: filter_shape(&a.req(Some(filter_at), "filter_shape", func)?)?,
        strides: a.req(Some(first), "window_strides", func)?,
        padding: a.req(Some(first + 1), "padding", func)?,
        lhs_dilation: a.opt(Some(dil_at), "lhs_dilation"),
        rhs_dilation: a.opt(Some(dil_at + 1), "rhs_dilation"),
        dimension_numbers: a.opt(Some(dil_at + 2), "dimension_numbers"),
    })
}

/// Registers both functions in `jax.lax`.
pub fn register(b: &mut Builder) {
    b.func("conv_general_dilated_patches", |_, a| {
        let f = "conv_general_dilated_patches";
        let lhs = to_value(&a.req(Some(0), "lhs", f)?)?;
        defaults_only(&a, &[(7, "precision"), (8, "preferred_element_type")])?;
        let w = window(&a, f, 2, 1, 4)?;
        Ok(Obj::Array(patches(&lhs, &w)?))
    });
    b.func("conv_general_dilated_local", |_, a| {
        let f = "conv_general_dilated_local";
        let lhs = to_value(&a.req(Some(0), "lhs", f)?)?;
        let rhs = to_value(&a.req(Some(1), "rhs", f)?)?;
        defaults_only(&a, &[(8, "precision")])?;
        let w = window(&a, f, 2, 4, 5)?;
        Ok(Obj::Array(local(&lhs, &rhs, &w)?))
    });
}

/// `conv_general_dilated_local` with the window given as Rust values, as
/// `nn.ConvLocal` calls it.
pub(super) fn conv_local_with(
    (lhs, rhs): (&Value, &Value),
    filter: &[usize],
    strides: &[usize],
    padding: &Obj,
    dilations: (&[usize], &[usize]),
    specs: [Vec<usize>; 3],
) -> Result<Value> {
    let tuple = |v: &[usize]| Obj::tuple(v.iter().map(|&d| Obj::Int(d as i64)).collect());
    let w = Window {
        filter: filter.to_vec(),
        strides: tuple(strides),
        padding: padding.clone(),
        lhs_dilation: Some(tuple(dilations.0)),
        rhs_dilation: Some(tuple(dilations.1)),
        dimension_numbers: Some(super::conv::dimension_numbers_obj(specs)),
    };
    local(lhs, rhs, &w)
}
