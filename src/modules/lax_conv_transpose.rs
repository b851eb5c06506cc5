//! `lax.conv_transpose`: the gradient-shaped ("transposed") convolution,
//! which JAX writes as a `conv_general_dilated` whose input is dilated by
//! the strides, with padding chosen so that 'SAME' and 'VALID' give the
//! output sizes of the forward convolution's input. `transpose_kernel`
//! flips the kernel's spatial dimensions and swaps its two feature
//! dimensions first, which makes the result the true gradient of a forward
//! convolution with that kernel. `padtype_to_pads` is the padding rule of
//! the string modes, exposed as JAX exposes it.

use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::builtins::to_int;
use crate::python::ops::{iterate, truthy};
use crate::python::value::{Args, Obj};

use super::conv::{conv_general, defaults_only, dimension_numbers, operands, Options};
use super::Builder;

/// Adds `conv_transpose` and `padtype_to_pads` to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("conv_transpose", |_, a| conv_transpose(&a));
    b.func("padtype_to_pads", |_, a| {
        let f = "padtype_to_pads";
        let dims = |i: usize, n: &str| -> Result<Vec<usize>> {
            super::lax_structural::ints(&a.req(Some(i), n, f)?)
        };
        let (shape, window, strides) = (
            dims(0, "in_shape")?,
            dims(1, "window_shape")?,
            dims(2, "window_strides")?,
        );
        let kind = match a.req(Some(3), "padding", f)? {
            Obj::Str(s) => s.to_string(),
            other => bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.lax.padtype_to_pads with padding={}",
                crate::python::format::repr_of(&other)
            ),
        };
        let pads = super::conv::padtype_to_pads(&kind, &shape, &window, &strides)?;
        let pairs = pads
            .into_iter()
            .map(|(lo, hi)| Obj::tuple(vec![Obj::Int(lo), Obj::Int(hi)]));
        Ok(Obj::list(pairs.collect()))
    });
}

/// The layouts JAX assumes without dimension numbers: features last, the
/// kernel's input and output features after its spatial dimensions.
fn default_layout(ndim: usize) -> Result<Obj> {
    let specs = match ndim {
        2 => ["NC", "IO", "NC"],
        3 => ["NHC", "HIO", "NHC"],
        4 => ["NHWC", "HWIO", "NHWC"],
        5 => ["NHWDC", "HWDIO", "NHWDC"],
        _ => bail!(ValueError, "No 4+ dimensional dimension_number defaults."),
    };
    Ok(Obj::tuple(specs.iter().map(|s| Obj::str(*s)).collect()))
}

/// The (before, after) padding of one spatial dimension with a kernel of
/// effective size `k` and stride `s` for the forward padding `p`.
fn transpose_padding(k: i64, s: i64, p: &Obj) -> Result<(i64, i64)> {
    let (before, total) = match p {
        Obj::Str(m) if &**m == "SAME" => {
            let total = k + s - 2;
            let before = if s > k - 1 { k - 1 } else { (total + 1) / 2 };
            (before, total)
        }
        Obj::Str(m) if &**m == "VALID" => (k - 1, k + s - 2 + (k - s).max(0)),
        Obj::Tuple(_) | Obj::List(_) => {
            let pads = iterate(p)?
                .iter()
                .map(|q| Ok(k - to_int(q)? - 1))
                .collect::<Result<Vec<_>>>()?;
            (pads.first().copied().unwrap_or(0), pads.iter().sum())
        }
        other => bail!(
            ValueError,
            "Invalid padding mode: {}",
            crate::python::format::str_of(other)
        ),
    };
    Ok((before, total - before))
}

fn ints(o: &Obj) -> Result<Vec<i64>> {
    iterate(o)?.iter().map(to_int).collect()
}

/// `lax.conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None,
/// dimension_numbers=None, transpose_kernel=False, precision=None,
/// preferred_element_type=None, use_consistent_padding=False)`.
fn conv_transpose(a: &Args) -> Result<Obj> {
    let f = "conv_transpose";
    let (x, mut y) = operands(a, f)?;
    defaults_only(a, &[(8, "preferred_element_type")])?;
    if let Some(p) = a.opt(Some(7), "precision") {
        super::lax_dot::check_precision(&p)?;
    }
    let (ls, rs) = (x.shape(), y.shape());
    if ls.len() != rs.len() || ls.len() < 2 {
        bail!(
            TypeError,
            "conv_transpose requires lhs and rhs of one rank, at least 2, got {} and {}",
            ls.len(),
            rs.len()
        );
    }
    let strides_obj = a.req(Some(2), "strides", f)?;
    let strides = ints(&strides_obj)?;
    let padding = a.req(Some(3), "padding", f)?;
    let nsp = ls.len() - 2;
    let dilation_obj = a.opt(Some(4), "rhs_dilation");
    let dilation = match &dilation_obj {
        Some(d) => ints(d)?,
        None => vec![1; nsp],
    };
    let dn = match a.opt(Some(5), "dimension_numbers") {
        Some(d) => d,
        None => default_layout(ls.len())?,
    };
    let [_, rhs_spec, _] = dimension_numbers(Some(&dn), &ls, &rs)?;
    let consistent = match a.opt(Some(9), "use_consistent_padding") {
        Some(o) => truthy(&o, "use_consistent_padding")?,
        None => false,
    };
    let by_mode = matches!(&padding, Obj::Str(m) if matches!(&**m, "SAME" | "VALID"));
    let pads = if consistent || by_mode {
        let per_dim: Vec<Obj> = match &padding {
            Obj::Str(_) => vec![padding.clone(); nsp],
            other => iterate(other)?,
        };
        let mut pads = vec![];
        for (i, p) in per_dim.iter().enumerate().take(nsp) {
            let k = rs[rhs_spec[i + 2]] as i64;
            let r = dilation.get(i).copied().unwrap_or(1);
            let effective = if k == 0 { 0 } else { (k - 1) * r + 1 };
            let (lo, hi) = transpose_padding(effective, strides[i], p)?;
            pads.push(Obj::tuple(vec![Obj::Int(lo), Obj::Int(hi)]));
        }
        Obj::list(pads)
    } else {
        padding
    };
    let transpose_kernel = match a.opt(Some(6), "transpose_kernel") {
        Some(o) => truthy(&o, "transpose_kernel")?,
        None => false,
    };
    if transpose_kernel {
        y = jops::rev(&y, &rhs_spec[2..])?;
        let mut perm: Vec<usize> = (0..rs.len()).collect();
        perm.swap(rhs_spec[0], rhs_spec[1]);
        y = jops::transpose(&y, &perm)?;
    }
    let one = Obj::tuple(vec![Obj::Int(1); nsp]);
    let o = Options {
        lhs_dilation: Some(&strides_obj),
        rhs_dilation: dilation_obj.as_ref(),
        dimension_numbers: Some(&dn),
        feature_group_count: 1,
        batch_group_count: 1,
    };
    Ok(Obj::Array(conv_general(&x, &y, &one, &pads, o)?))
}
