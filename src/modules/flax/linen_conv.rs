//! linen's `Conv` and `ConvTranspose`.
//!
//! Unlike the nnx layers, a linen convolution learns its input features
//! from the first input it sees, so its kernel is made inside `__call__`
//! (after the input's batch dimensions are folded and, for `Conv`, after
//! the 'CIRCULAR'/'REFLECT'/'CAUSAL' padding), through the module's
//! `param`: the kernel's `params` key is drawn before the bias's, as Flax
//! draws them. The arithmetic is the nnx layers' (`conv::conv_apply`,
//! `conv_transpose::conv_transpose_apply`), which keeps Flax's order of
//! operations, so `init` then `apply` gives Flax's digits.

use super::conv::{check_mask, conv_apply, conv_prepare, Folded};
use super::conv_transpose::{conv_transpose_apply, conv_transpose_prepare};
use super::linen::param;
use super::linen_layers::{add_layers, field, LayerSpec};
use super::*;

/// Refuses the settings shardlab's linen convolutions do not model.
fn refuse_settings(me: &Instance, x: &Value, layer: &str) -> Result<()> {
    let custom = [
        "precision",
        "promote_dtype",
        "preferred_element_type",
        "conv_general_dilated",
        "conv_general_dilated_cls",
    ];
    super::linen_attention::refuse(me, x, &custom, layer)
}

/// The layer's kernel of `kernel_size + tail` and, with `use_bias`, its
/// bias over `features`, made (or read) in that order; the kernel is
/// multiplied by the layer's mask.
fn kernel_and_bias(
    interp: &mut Interp,
    me: &Rc<Instance>,
    f: &Folded,
    tail: [i64; 2],
) -> Result<(Value, Obj)> {
    let mut shape: Vec<usize> = f.ks.iter().map(|&k| k.max(0) as usize).collect();
    shape.extend(tail.iter().map(|&d| d.max(0) as usize));
    let mask = field(me, "mask");
    if !matches!(mask, Obj::None) {
        check_mask(&to_value(&mask)?.shape(), &shape)?;
    }
    let dtype = field(me, "param_dtype");
    let dims = |s: &[usize]| Obj::tuple(s.iter().map(|&d| Obj::Int(d as i64)).collect());
    let init = field(me, "kernel_init");
    let kernel = param(
        interp,
        me,
        "kernel",
        &init,
        vec![dims(&shape), dtype.clone()],
    )?;
    let kernel = super::conv::masked_kernel(&mask, to_value(&kernel)?)?;
    if !truthy(&field(me, "use_bias"), "use_bias")? {
        return Ok((kernel, Obj::None));
    }
    let features = to_int(&field(me, "features"))?;
    let init = field(me, "bias_init");
    let bias = param(
        interp,
        me,
        "bias",
        &init,
        vec![dims(&[features.max(0) as usize]), dtype],
    )?;
    Ok((kernel, bias))
}

/// The features (last axis) of a prepared input.
fn in_features(f: &Folded) -> i64 {
    f.x.shape().last().copied().unwrap_or(0) as i64
}

/// `Conv.__call__(inputs)`.
fn conv_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Conv.__call__")?;
    let x = to_value(&a.req(Some(1), "inputs", "Conv.__call__")?)?;
    refuse_settings(&me, &x, "Conv")?;
    let get = |n: &str| field(&me, n);
    let f = conv_prepare(&get, &x)?;
    let groups = to_int(&get("feature_group_count"))?;
    let din = in_features(&f);
    if groups <= 0 || din % groups != 0 {
        bail!(AssertionError, "");
    }
    let features = to_int(&get("features"))?;
    let (kernel, bias) = kernel_and_bias(interp, &me, &f, [din / groups, features])?;
    Ok(Obj::Array(conv_apply(&get, f, &kernel, &bias)?))
}

/// `ConvTranspose.__call__(inputs)`.
fn conv_transpose_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "ConvTranspose.__call__")?;
    let x = to_value(&a.req(Some(1), "inputs", "ConvTranspose.__call__")?)?;
    refuse_settings(&me, &x, "ConvTranspose")?;
    let get = |n: &str| field(&me, n);
    let f = conv_transpose_prepare(&get, &x)?;
    let din = in_features(&f);
    let features = to_int(&get("features"))?;
    let tail = match truthy(&get("transpose_kernel"), "transpose_kernel")? {
        true => [features, din],
        false => [din, features],
    };
    let (kernel, bias) = kernel_and_bias(interp, &me, &f, tail)?;
    Ok(Obj::Array(conv_transpose_apply(&get, f, kernel, &bias)?))
}

/// `nn.ConvLocal` needs `lax.conv_general_dilated_local`, which shardlab
/// lacks; the class exists so that the refusal names it.
fn conv_local_call(_: &mut Interp, _: Args) -> Result<Obj> {
    bail!(
        NotImplementedError,
        "not supported by shardlab yet: flax.linen.ConvLocal"
    )
}

/// Adds `Conv`, `ConvTranspose` and `ConvLocal` to `flax.linen`.
/// `kernel_init` is Flax's default, `lecun_normal()`.
pub(super) fn register(b: &mut Builder, module: &Rc<Class>, inits: &Obj, kernel_init: &Obj) {
    let get = |n: &str| match inits {
        Obj::Module(m) => m.get(n).unwrap_or(Obj::None),
        _ => Obj::None,
    };
    let none = || Some(Obj::None);
    let one = || Some(Obj::Int(1));
    let head = |strides: Option<Obj>| -> Vec<(&'static str, Option<Obj>)> {
        vec![
            ("features", None),
            ("kernel_size", None),
            ("strides", strides),
            ("padding", Some(Obj::str("SAME"))),
        ]
    };
    let tail = |fields: &mut Vec<(&'static str, Option<Obj>)>| {
        fields.extend([
            ("use_bias", Some(Obj::Bool(true))),
            ("mask", none()),
            ("dtype", none()),
            ("param_dtype", Some(super::jnp_float32())),
            ("precision", none()),
            ("kernel_init", Some(kernel_init.clone())),
            ("bias_init", Some(get("zeros"))),
        ]);
    };
    let mut conv = head(one());
    conv.extend([
        ("input_dilation", one()),
        ("kernel_dilation", one()),
        ("feature_group_count", one()),
    ]);
    tail(&mut conv);
    conv.extend([
        ("promote_dtype", none()),
        ("conv_general_dilated", none()),
        ("conv_general_dilated_cls", none()),
    ]);
    let mut transpose = head(none());
    transpose.push(("kernel_dilation", none()));
    tail(&mut transpose);
    transpose.extend([
        ("transpose_kernel", Some(Obj::Bool(false))),
        ("promote_dtype", none()),
        ("preferred_element_type", none()),
    ]);
    let local = conv.clone();
    let layers: Vec<LayerSpec> = vec![
        ("Conv", conv, conv_call),
        ("ConvTranspose", transpose, conv_transpose_call),
        ("ConvLocal", local, conv_local_call),
    ];
    add_layers(b, module, layers);
}
