//! linen's `Conv`, `ConvTranspose` and `ConvLocal`.
//!
//! Unlike the nnx layers, a linen convolution learns its input features
//! from the first input it sees, so its kernel is made inside `__call__`
//! (after the input's batch dimensions are folded and, for `Conv`, after
//! the 'CIRCULAR'/'REFLECT'/'CAUSAL' padding), through the module's
//! `param`: the kernel's `params` key is drawn before the bias's, as Flax
//! draws them. The arithmetic is the nnx layers' (`conv::conv_apply`,
//! `conv_transpose::conv_transpose_apply`), which keeps Flax's order of
//! operations, so `init` then `apply` gives Flax's digits. `ConvLocal`
//! learns its kernel's spatial shape too: one kernel per output position
//! of the shared-weight convolution, applied by
//! `lax.conv_general_dilated_local`.

use super::conv::{
    canonical_padding, channels_last_specs, check_mask, conv_apply, conv_prepare, per_dim,
    unfold_batch, Folded,
};
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

/// The layer's kernel of `kernel_shape` and, with `use_bias`, its bias of
/// `bias_shape`, made (or read) in that order; the kernel is multiplied by
/// the layer's mask.
fn kernel_and_bias(
    interp: &mut Interp,
    me: &Rc<Instance>,
    shape: &[usize],
    bias_shape: &[usize],
) -> Result<(Value, Obj)> {
    let mask = field(me, "mask");
    if !matches!(mask, Obj::None) {
        check_mask(&to_value(&mask)?.shape(), shape)?;
    }
    let dtype = field(me, "param_dtype");
    let dims = |s: &[usize]| Obj::tuple(s.iter().map(|&d| Obj::Int(d as i64)).collect());
    let init = field(me, "kernel_init");
    let kernel = param(
        interp,
        me,
        "kernel",
        &init,
        vec![dims(shape), dtype.clone()],
    )?;
    let kernel = super::conv::masked_kernel(&mask, to_value(&kernel)?)?;
    if !truthy(&field(me, "use_bias"), "use_bias")? {
        return Ok((kernel, Obj::None));
    }
    let init = field(me, "bias_init");
    let bias = param(interp, me, "bias", &init, vec![dims(bias_shape), dtype])?;
    Ok((kernel, bias))
}

/// The kernel shape `kernel_size + tail` and the bias shape `(features,)`
/// of a shared-weight convolution.
fn shared_shapes(me: &Instance, f: &Folded, tail: [i64; 2]) -> Result<(Vec<usize>, Vec<usize>)> {
    let mut shape: Vec<usize> = f.ks.iter().map(|&k| k.max(0) as usize).collect();
    shape.extend(tail.iter().map(|&d| d.max(0) as usize));
    let features = to_int(&field(me, "features"))?.max(0) as usize;
    Ok((shape, vec![features]))
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
    let (shape, bias_shape) = shared_shapes(&me, &f, [din / groups, features])?;
    let (kernel, bias) = kernel_and_bias(interp, &me, &shape, &bias_shape)?;
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
    let (shape, bias_shape) = shared_shapes(&me, &f, tail)?;
    let (kernel, bias) = kernel_and_bias(interp, &me, &shape, &bias_shape)?;
    Ok(Obj::Array(conv_transpose_apply(&get, f, kernel, &bias)?))
}

/// `ConvLocal.__call__(inputs)`: a kernel and a bias of their own at each
/// output position, their shapes taken from the output shape of the
/// shared-weight convolution, applied by `conv_general_dilated_local`.
fn conv_local_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "ConvLocal.__call__")?;
    let x = to_value(&a.req(Some(1), "inputs", "ConvLocal.__call__")?)?;
    refuse_settings(&me, &x, "ConvLocal")?;
    let get = |n: &str| field(&me, n);
    let f = conv_prepare(&get, &x)?;
    let groups = to_int(&get("feature_group_count"))?;
    if groups != 1 {
        bail!(
            NotImplementedError,
            "`lax.conv_general_dilated_local` does not support `feature_group_count != 1`, got `{groups}`."
        );
    }
    let nsp = f.ks.len();
    let filter: Vec<usize> = f.ks.iter().map(|&k| k.max(0) as usize).collect();
    let din = in_features(&f).max(0) as usize;
    let features = to_int(&get("features"))?.max(0) as usize;
    let strides = per_dim(Some(get("strides")), nsp)?;
    let dilations = (
        per_dim(Some(get("input_dilation")), nsp)?,
        per_dim(Some(get("kernel_dilation")), nsp)?,
    );
    let padding = canonical_padding(&get("padding"), nsp)?;
    let specs = channels_last_specs(f.x.ndim());
    let mut shared = filter.clone();
    shared.extend([din, features]);
    let out = crate::modules::conv::conv_with_shape(
        (&f.x.shape(), &shared),
        &strides,
        &padding,
        (&dilations.0, &dilations.1),
        specs.clone(),
    )?;
    let mut shape = out[1..out.len() - 1].to_vec();
    shape.extend([filter.iter().product::<usize>() * din, features]);
    check_local_mask(&get("mask"), &shape)?;
    let (kernel, bias) = kernel_and_bias(interp, &me, &shape, &out[1..])?;
    let y = crate::modules::lax_conv_local::conv_local_with(
        (&f.x, &kernel),
        &filter,
        &strides,
        &padding,
        (&dilations.0, &dilations.1),
        specs,
    )?;
    let y = match bias {
        Obj::None => y,
        b => {
            let b = to_value(&b)?;
            let mut s = vec![1; y.ndim() - b.ndim()];
            s.extend(b.shape());
            jops::add(&y, &jops::reshape(&b, &s)?)?
        }
    };
    Ok(Obj::Array(unfold_batch(&y, f.batch)?))
}

/// Flax's mask check for `ConvLocal`, whose kernel shape holds the
/// window's size as a NumPy integer (`np.prod`), as its message shows.
fn check_local_mask(mask: &Obj, kernel: &[usize]) -> Result<()> {
    if matches!(mask, Obj::None) {
        return Ok(());
    }
    let mask = to_value(mask)?.shape();
    if mask == kernel {
        return Ok(());
    }
    let n = kernel.len();
    let dims: Vec<String> = kernel
        .iter()
        .enumerate()
        .map(|(i, d)| match i + 2 == n {
            true => format!("np.int64({d})"),
            false => d.to_string(),
        })
        .collect();
    let mask: Vec<String> = mask.iter().map(|d| d.to_string()).collect();
    let text = |v: &[String]| match v.len() {
        1 => format!("({},)", v[0]),
        _ => format!("({})", v.join(", ")),
    };
    bail!(
        ValueError,
        "Mask needs to have the same shape as weights. Shapes are: {}, {}",
        text(&mask),
        text(&dims)
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
