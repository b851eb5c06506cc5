//! `nnx.ConvTranspose`: the gradient-shaped convolution, as JAX's
//! `lax.conv_transpose` computes it with channels-last dimensions.
//!
//! The kernel is `kernel_size + (in_features, out_features)`, or
//! `kernel_size + (out_features, in_features)` with `transpose_kernel`
//! (then flipped in space and its channel axes swapped before use), drawn
//! like `nnx.Conv`'s. The transposed convolution is a convolution of the
//! input dilated by the strides with unit window strides, padded so that
//! 'SAME' gives `input * stride` outputs and 'VALID' every overlap, as
//! JAX's `_conv_transpose_padding` pads; explicit pairs are used as they
//! are. 'CIRCULAR' runs 'VALID' and then wraps the result onto periods of
//! `input * stride`, summing what overlaps, as Flax does.

use super::conv::{
    add_bias, canonical_padding, channels_last_specs, fold_batch, ints_of, kernel_and_bias,
    kernel_size_arg, masked_kernel, per_dim, refuse_dtypes, tuple_of, unfold_batch, Folded,
    Setting,
};
use super::display::FunctionRef;
use super::*;

fn conv_transpose_init(param: Rc<Class>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |interp, a| {
        let me = self_arg(&a, "ConvTranspose")?;
        let din = to_int(&a.req(Some(1), "in_features", "ConvTranspose")?)?;
        let dout = to_int(&a.req(Some(2), "out_features", "ConvTranspose")?)?;
        let kernel_size = kernel_size_arg(&a)?;
        if din < 0 || dout < 0 || kernel_size.iter().any(|&k| k < 0) {
            bail!(ValueError, "negative dimensions are not allowed");
        }
        refuse_dtypes(&a, "ConvTranspose")?;
        let use_bias = norm::flag(&a, "use_bias", true)?;
        let transpose = norm::flag(&a, "transpose_kernel", false)?;
        let given =
            |name: &str, at: Option<usize>, default: Obj| a.get(at, name).unwrap_or(default);
        let ks = Obj::tuple(kernel_size.iter().map(|&k| Obj::Int(k)).collect());
        set_iattr(&me, "kernel_size", ks);
        set_iattr(&me, "in_features", Obj::Int(din));
        set_iattr(&me, "out_features", Obj::Int(dout));
        set_iattr(&me, "strides", given("strides", Some(4), Obj::None));
        set_iattr(&me, "padding", given("padding", None, Obj::str("SAME")));
        set_iattr(
            &me,
            "kernel_dilation",
            given("kernel_dilation", None, Obj::None),
        );
        set_iattr(&me, "use_bias", Obj::Bool(use_bias));
        set_iattr(&me, "mask", given("mask", None, Obj::None));
        set_iattr(&me, "dtype", Obj::None);
        set_iattr(&me, "param_dtype", super::jnp_float32());
        set_iattr(&me, "precision", Obj::None);
        set_iattr(&me, "transpose_kernel", Obj::Bool(transpose));
        set_iattr(&me, "promote_dtype", Obj::lib(FunctionRef("promote_dtype")));
        set_iattr(&me, "preferred_element_type", Obj::None);
        let mut kshape: Vec<usize> = kernel_size.iter().map(|&k| k as usize).collect();
        match transpose {
            true => kshape.extend([dout as usize, din as usize]),
            false => kshape.extend([din as usize, dout as usize]),
        }
        set_iattr(&me, "kernel_shape", tuple_of(&kshape));
        let bias_size = use_bias.then_some(dout as usize);
        let (kernel, bias) = kernel_and_bias(interp, &a, &param, &kshape, bias_size)?;
        set_iattr(&me, "kernel", kernel);
        set_iattr(&me, "bias", bias);
        Ok(Obj::None)
    }
}

/// JAX's `_conv_transpose_padding` for a dilated kernel extent `k` and
/// stride `s`.
fn transpose_padding(k: usize, s: usize, same: bool) -> (usize, usize) {
    let (k, s) = (k as i64, s as i64);
    let (len, before) = if same {
        let len = k + s - 2;
        (len, if s > k - 1 { k - 1 } else { (len + 1) / 2 })
    } else {
        (k + s - 2 + (k - s).max(0), k - 1)
    };
    (before.max(0) as usize, (len - before).max(0) as usize)
}

/// The padding of the underlying convolution: pairs per spatial dimension.
fn lax_padding(padding: &Obj, ks: &[i64], (strides, kd): (&[usize], &[usize])) -> Result<Obj> {
    let pair =
        |(lo, hi): (usize, usize)| Obj::tuple(vec![Obj::Int(lo as i64), Obj::Int(hi as i64)]);
    let mode = match padding {
        Obj::Str(s) if s.as_ref() == "CIRCULAR" => "VALID".to_string(),
        Obj::Str(s) if matches!(s.as_ref(), "SAME" | "VALID") => s.to_string(),
        Obj::Str(s) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.ConvTranspose with padding='{s}'"
        ),
        other => return canonical_padding(other, ks.len()),
    };
    let pads = ks
        .iter()
        .zip(strides.iter().zip(kd))
        .map(|(&k, (&s, &d))| {
            let extent = if k == 0 { 0 } else { 1 + d * (k as usize - 1) };
            pair(transpose_padding(extent, s, mode == "SAME"))
        })
        .collect();
    Ok(Obj::tuple(pads))
}

/// Flax's circular wrap: `y` padded along each spatial dimension to a
/// whole number of periods (`input * stride`, the extra element before the
/// data, or after it with `transpose_kernel`), then folded and summed.
fn wrap_circular(y: Value, periods: &[usize], transpose: bool) -> Result<Value> {
    let shape = y.shape();
    let nd = shape.len();
    let (mut lo, mut hi) = (vec![0; nd], vec![0; nd]);
    for (i, &p) in periods.iter().enumerate() {
        let diff = (p as i64 - shape[i + 1] as i64).rem_euclid(2 * p as i64) as usize;
        (lo[i + 1], hi[i + 1]) = match transpose {
            true => (diff / 2, diff.div_ceil(2)),
            false => (diff.div_ceil(2), diff / 2),
        };
    }
    let mut y = jops::pad(&y, &lo, &hi)?;
    for (i, &p) in periods.iter().enumerate() {
        let s = y.shape();
        let mut folded = s[..i + 1].to_vec();
        folded.extend([s[i + 1] / p.max(1), p]);
        folded.extend_from_slice(&s[i + 2..]);
        y = jops::sum(&jops::reshape(&y, &folded)?, Some(&[i as i64 + 1]), false)?;
    }
    Ok(y)
}

/// The transposed convolution of `x` with `kernel` (already masked, as
/// stored: `transpose_kernel` is applied here), plus `bias`, with the batch
/// shape restored.
pub(super) fn conv_transpose_apply(
    get: Setting,
    f: Folded,
    kernel: Value,
    bias: &Obj,
) -> Result<Value> {
    let (x, ks) = (&f.x, &f.ks);
    let nsp = ks.len();
    let strides = per_dim(Some(get("strides")), nsp)?;
    let kd = per_dim(Some(get("kernel_dilation")), nsp)?;
    let transpose = truthy(&get("transpose_kernel"), "transpose_kernel")?;
    let nd = kernel.ndim();
    let kernel = if transpose {
        let spatial: Vec<usize> = (0..nd - 2).collect();
        let mut perm: Vec<usize> = (0..nd).collect();
        perm.swap(nd - 2, nd - 1);
        jops::transpose(&jops::rev(&kernel, &spatial)?, &perm)?
    } else {
        kernel
    };
    let padding = get("padding");
    let pads = lax_padding(&padding, ks, (&strides, &kd))?;
    let y = crate::modules::conv::conv_with(
        x,
        &kernel,
        &vec![1; nsp],
        &pads,
        (&strides, &kd),
        channels_last_specs(x.ndim()),
        1,
    )?;
    let y = match &padding {
        Obj::Str(s) if s.as_ref() == "CIRCULAR" => {
            let xs = x.shape();
            let periods: Vec<usize> = (0..nsp).map(|i| xs[i + 1] * strides[i]).collect();
            wrap_circular(y, &periods, transpose)?
        }
        _ => y,
    };
    let y = add_bias(y, bias)?;
    unfold_batch(&y, f.batch)
}

/// The input with its batch dimensions folded into one, as
/// `ConvTranspose.__call__` takes it (it pads nothing beforehand).
pub(super) fn conv_transpose_prepare(get: Setting, x: &Value) -> Result<Folded> {
    let ks = ints_of(&get("kernel_size"))?;
    let (x, batch) = fold_batch(x, ks.len())?;
    Ok(Folded { x, batch, ks })
}

fn conv_transpose_call(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "ConvTranspose.__call__")?;
    let x = to_value(&a.req(Some(1), "inputs", "ConvTranspose.__call__")?)?;
    let get = |n: &str| iattr(&me, n).unwrap_or(Obj::None);
    let f = conv_transpose_prepare(&get, &x)?;
    let kernel = masked_kernel(&get("mask"), super::nnx::value_of(&get("kernel"))?)?;
    Ok(Obj::Array(conv_transpose_apply(
        &get,
        f,
        kernel,
        &get("bias"),
    )?))
}

/// `nnx.ConvTranspose`.
pub(super) fn conv_transpose_class(module: &Rc<Class>, param: &Rc<Class>) -> Rc<Class> {
    new_class(
        "ConvTranspose",
        vec![module.clone()],
        vec![
            (
                "__init__".into(),
                Obj::native("ConvTranspose.__init__", conv_transpose_init(param.clone())),
            ),
            (
                "__call__".into(),
                Obj::native("ConvTranspose.__call__", conv_transpose_call),
            ),
        ],
    )
}
