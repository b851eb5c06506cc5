//! `nnx.Conv`: a convolution over channels-last inputs with a kernel of
//! shape `kernel_size + (in_features // feature_group_count, out_features)`.
//!
//! The kernel's key and then the bias's are drawn from the `params` stream,
//! as Flax draws them, and the default initializers are Flax's
//! (`lecun_normal` for the kernel, zeros for the bias), so the parameters
//! are Flax's bit for bit. Attributes are set in Flax's order, which is the
//! order `nnx.display` prints them in.

use super::display::FunctionRef;
use super::*;

pub(super) fn tuple_of(v: &[usize]) -> Obj {
    Obj::tuple(v.iter().map(|&d| Obj::Int(d as i64)).collect())
}

/// One parameter: `init(key, shape, float32)` when the program gives an
/// initializer, `default` otherwise.
pub(super) fn init_param(
    interp: &mut Interp,
    init: Option<Obj>,
    key: Obj,
    shape: &[usize],
    default: impl Fn(&Obj, &[usize]) -> Result<Obj>,
) -> Result<Obj> {
    match init {
        Some(f) => interp.call(
            &f,
            Args::new(vec![key.clone(), tuple_of(shape), super::jnp_float32()]),
        ),
        None => default(&key, shape),
    }
}

fn conv_init(c: &norm::NormClasses) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let c = c.clone();
    move |interp, a| {
        let me = self_arg(&a, "Conv")?;
        let din = to_int(&a.req(Some(1), "in_features", "Conv")?)?;
        let dout = to_int(&a.req(Some(2), "out_features", "Conv")?)?;
        let kernel_size = kernel_size_arg(&a)?;
        let groups = match a.opt(None, "feature_group_count") {
            Some(o) => to_int(&o)?,
            None => 1,
        };
        if din < 0 || dout < 0 || groups <= 0 || kernel_size.iter().any(|&k| k < 0) {
            bail!(ValueError, "negative dimensions are not allowed");
        }
        refuse_dtypes(&a, "Conv")?;
        let use_bias = match a.get(None, "use_bias") {
            Some(o) => truthy(&o, "use_bias")?,
            None => true,
        };
        let mut kshape: Vec<usize> = kernel_size.iter().map(|&k| k as usize).collect();
        kshape.push((din / groups) as usize);
        kshape.push(dout as usize);
        set_iattr(&me, "kernel_shape", tuple_of(&kshape));
        let bias_size = use_bias.then_some(dout as usize);
        let (kernel, bias) = kernel_and_bias(interp, &a, &c.param, &kshape, bias_size)?;
        set_iattr(&me, "kernel", kernel);
        set_iattr(&me, "bias", bias);
        settings(&me, &a, (din, dout, groups), &kernel_size, use_bias);
        set_iattr(&me, "mask", a.get(None, "mask").unwrap_or(Obj::None));
        Ok(Obj::None)
    }
}

/// `kernel_size` (the fourth argument), an int or a sequence of ints.
pub(super) fn kernel_size_arg(a: &Args) -> Result<Vec<i64>> {
    ints_of(&a.req(Some(3), "kernel_size", "Conv")?)
}

/// A `kernel_size` as ints: an int is one spatial dimension.
pub(super) fn ints_of(o: &Obj) -> Result<Vec<i64>> {
    match o {
        Obj::Int(k) => Ok(vec![*k]),
        other => iterate(other)?.iter().map(to_int).collect(),
    }
}

/// Refuses the dtype and precision settings shardlab's convolutions lack.
pub(super) fn refuse_dtypes(a: &Args, layer: &str) -> Result<()> {
    for name in ["dtype", "precision", "preferred_element_type"] {
        if a.opt(None, name).is_some() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.{layer} with {name}="
            );
        }
    }
    Ok(())
}

/// A convolution's kernel of shape `kshape` and (when `use_bias`) its bias
/// of `bias_size`, as `Param`s: the kernel's key is drawn
/// first, then the bias's, from the `params` stream; by default with
/// `lecun_normal` and zeros, as Flax's convolutions draw them.
pub(super) fn kernel_and_bias(
    interp: &mut Interp,
    a: &Args,
    param: &Rc<Class>,
    kshape: &[usize],
    bias_size: Option<usize>,
) -> Result<(Obj, Obj)> {
    let rngs = a.req(None, "rngs", "Conv")?;
    let key = super::nnx::rngs_next(&rngs, "params")?;
    let kernel = init_param(interp, a.opt(None, "kernel_init"), key, kshape, |k, s| {
        super::nnx::default_draw(
            k,
            s,
            crate::random::initializers::lecun_normal,
            crate::random::traced_init::lecun_normal,
        )
    })?;
    let kernel = super::metadata::new_variable(interp, param, kernel, &[])?;
    let Some(dout) = bias_size else {
        return Ok((kernel, Obj::None));
    };
    let key = super::nnx::rngs_next(&rngs, "params")?;
    let zeros = |_: &Obj, s: &[usize]| {
        Ok(Obj::Array(Value::Concrete(
            crate::random::initializers::zeros(s)?,
        )))
    };
    let b = init_param(interp, a.opt(None, "bias_init"), key, &[dout], zeros)?;
    Ok((
        kernel,
        super::metadata::new_variable(interp, param, b, &[])?,
    ))
}

/// The layer's settings, in the order Flax sets them (they print in it).
fn settings(
    me: &Instance,
    a: &Args,
    (din, dout, groups): (i64, i64, i64),
    kernel_size: &[i64],
    use_bias: bool,
) {
    set_iattr(me, "in_features", Obj::Int(din));
    set_iattr(me, "out_features", Obj::Int(dout));
    let ks = Obj::tuple(kernel_size.iter().map(|&k| Obj::Int(k)).collect());
    set_iattr(me, "kernel_size", ks);
    let given = |name: &str, default: Obj| a.get(None, name).unwrap_or(default);
    set_iattr(me, "strides", given("strides", Obj::Int(1)));
    set_iattr(me, "padding", given("padding", Obj::str("SAME")));
    set_iattr(me, "input_dilation", given("input_dilation", Obj::Int(1)));
    set_iattr(me, "kernel_dilation", given("kernel_dilation", Obj::Int(1)));
    set_iattr(me, "feature_group_count", Obj::Int(groups));
    set_iattr(me, "use_bias", Obj::Bool(use_bias));
    set_iattr(me, "mask", Obj::None);
    set_iattr(me, "dtype", Obj::None);
    set_iattr(me, "param_dtype", super::jnp_float32());
    set_iattr(me, "precision", Obj::None);
    let conv = Obj::lib(FunctionRef("conv_general_dilated"));
    set_iattr(me, "conv_general_dilated", conv);
    set_iattr(me, "promote_dtype", Obj::lib(FunctionRef("promote_dtype")));
    set_iattr(me, "preferred_element_type", Obj::None);
}

/// Flax's `maybe_broadcast`: an int (or None, meaning 1) repeated for every
/// spatial dimension, or the sequence as given.
pub(super) fn per_dim(o: Option<Obj>, n: usize) -> Result<Vec<usize>> {
    let v: Vec<i64> = match o {
        None | Some(Obj::None) => vec![1; n],
        Some(Obj::Int(i)) => vec![i; n],
        Some(other) => iterate(&other)?.iter().map(to_int).collect::<Result<_>>()?,
    };
    Ok(v.into_iter().map(|x| x.max(0) as usize).collect())
}

/// Flax's `canonicalize_padding`: 'SAME'/'VALID' pass through, an int pads
/// both sides of every dimension, a sequence gives each dimension an int or
/// a pair.
pub(super) fn canonical_padding(o: &Obj, n: usize) -> Result<Obj> {
    let pair = |i: i64| Obj::tuple(vec![Obj::Int(i), Obj::Int(i)]);
    match o {
        Obj::Str(s) if matches!(s.as_ref(), "SAME" | "VALID" | "SAME_LOWER") => Ok(o.clone()),
        Obj::Str(s) if matches!(s.as_ref(), "CIRCULAR" | "REFLECT" | "CAUSAL") => {
            Ok(Obj::str("VALID"))
        }
        Obj::Str(s) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.Conv with padding='{s}'"
        ),
        Obj::Int(i) => Ok(Obj::tuple(vec![pair(*i); n])),
        other => {
            let items = iterate(other)?;
            let pairs = items
                .iter()
                .map(|x| match x {
                    Obj::Int(i) => Ok(pair(*i)),
                    p => Ok(p.clone()),
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(Obj::tuple(pairs))
        }
    }
}

/// `x` along `axis` with `lo` elements before and `hi` after, taken
/// periodically (`wrap`) or mirrored without the edge (`reflect`), as
/// `jnp.pad` does with those modes.
fn pad_axis(x: &Value, axis: usize, (lo, hi): (usize, usize), wrap: bool) -> Result<Value> {
    let shape = x.shape();
    let n = shape[axis];
    let limit = if wrap { n } else { n.saturating_sub(1) };
    if lo > limit || hi > limit {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.Conv padding wider than the input"
        );
    }
    let part = |from: usize, to: usize| -> Result<Value> {
        let mut starts = vec![0; shape.len()];
        let mut limits = shape.clone();
        starts[axis] = from;
        limits[axis] = to;
        jops::slice(x, &starts, &limits, &vec![1; shape.len()])
    };
    let (before, after) = if wrap {
        (part(n - lo, n)?, part(0, hi)?)
    } else {
        (
            jops::rev(&part(1, lo + 1)?, &[axis])?,
            jops::rev(&part(n - 1 - hi, n - 1)?, &[axis])?,
        )
    };
    jops::concatenate(&[before, x.clone(), after], axis as i64)
}

/// The input padded as Flax pads it for the padding modes the convolution
/// itself lacks: 'CIRCULAR' wraps and 'REFLECT' mirrors each spatial
/// dimension by half the dilated kernel (the extra one after), 'CAUSAL'
/// puts zeros before the one spatial dimension; the convolution is then
/// 'VALID'.
fn pre_pad(x: Value, mode: &str, (ks, kd): (&[i64], &[usize])) -> Result<Value> {
    match mode {
        "CIRCULAR" | "REFLECT" => {
            let mut x = x;
            for (k, (&size, &d)) in ks.iter().zip(kd).enumerate() {
                let dilated = ((size - 1) * d as i64 + 1).max(1) as usize;
                let pads = ((dilated - 1) / 2, dilated / 2);
                x = pad_axis(&x, k + 1, pads, mode == "CIRCULAR")?;
            }
            Ok(x)
        }
        "CAUSAL" => {
            if ks.len() != 1 {
                bail!(
                    ValueError,
                    "Causal padding is only implemented for 1D convolutions."
                );
            }
            let left = kd[0] * (ks[0].max(1) as usize - 1);
            jops::pad(&x, &[0, left, 0], &[0, 0, 0])
        }
        _ => Ok(x),
    }
}

/// The kernel times the layer's mask, when it has one.
pub(super) fn masked_kernel(mask: &Obj, kernel: Value) -> Result<Value> {
    let mask = match mask {
        Obj::None => return Ok(kernel),
        m => to_value(m)?,
    };
    check_mask(&mask.shape(), &kernel.shape())?;
    jops::mul(&kernel, &mask)
}

/// Flax's check that a weight mask has the kernel's shape.
pub(super) fn check_mask(mask: &[usize], kernel: &[usize]) -> Result<()> {
    if mask == kernel {
        return Ok(());
    }
    let text = |s: &[usize]| {
        let items: Vec<String> = s.iter().map(|d| d.to_string()).collect();
        match items.len() {
            1 => format!("({},)", items[0]),
            _ => format!("({})", items.join(", ")),
        }
    };
    bail!(
        ValueError,
        "Mask needs to have the same shape as weights. Shapes are: {}, {}",
        text(mask),
        text(kernel)
    )
}

/// A convolution layer's setting by its Flax name: an nnx layer's
/// attribute or a linen layer's field.
pub(super) type Setting<'a> = &'a dyn Fn(&str) -> Obj;

/// A convolution's input made ready: batch dimensions folded into one,
/// float32, padded for the padding modes the convolution itself lacks.
pub(super) struct Folded {
    pub x: Value,
    pub batch: Option<Vec<usize>>,
    pub ks: Vec<i64>,
}

/// `x` folded and pre-padded as `Conv.__call__` does before it makes or
/// uses its kernel (whose input features are those of the padded input).
pub(super) fn conv_prepare(get: Setting, x: &Value) -> Result<Folded> {
    let ks = ints_of(&get("kernel_size"))?;
    let nsp = ks.len();
    let (x, batch) = fold_batch(x, nsp)?;
    let kd = per_dim(Some(get("kernel_dilation")), nsp)?;
    let x = match get("padding") {
        Obj::Str(mode) => pre_pad(x, &mode, (&ks, &kd))?,
        _ => x,
    };
    Ok(Folded { x, batch, ks })
}

/// The convolution of the prepared input with `kernel` (already masked),
/// plus `bias`, with the batch shape restored.
pub(super) fn conv_apply(get: Setting, f: Folded, kernel: &Value, bias: &Obj) -> Result<Value> {
    let nsp = f.ks.len();
    let kd = per_dim(Some(get("kernel_dilation")), nsp)?;
    let groups = to_int(&get("feature_group_count"))?.max(1) as usize;
    let y = crate::modules::conv::conv_with(
        &f.x,
        kernel,
        &per_dim(Some(get("strides")), nsp)?,
        &canonical_padding(&get("padding"), nsp)?,
        (&per_dim(Some(get("input_dilation")), nsp)?, &kd),
        channels_last_specs(f.x.ndim()),
        groups,
    )?;
    let y = add_bias(y, bias)?;
    unfold_batch(&y, f.batch)
}

fn conv_call(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Conv.__call__")?;
    let x = to_value(&a.req(Some(1), "inputs", "Conv.__call__")?)?;
    let get = |n: &str| iattr(&me, n).unwrap_or(Obj::None);
    let f = conv_prepare(&get, &x)?;
    let kernel = masked_kernel(&get("mask"), super::nnx::value_of(&get("kernel"))?)?;
    Ok(Obj::Array(conv_apply(&get, f, &kernel, &get("bias"))?))
}

/// The input as float32 with its batch dimensions (all those before the
/// `nsp` spatial ones and the features) folded into one, as Flax's
/// convolutions take it, and the batch shape to restore when there was not
/// exactly one.
pub(super) fn fold_batch(x: &Value, nsp: usize) -> Result<(Value, Option<Vec<usize>>)> {
    let nb = x.ndim() as i64 - (nsp as i64 + 1);
    let shape = x.shape();
    let (x, batch) = if nb != 1 {
        let rest = &shape[nb.max(0) as usize..];
        let size: usize = rest.iter().product::<usize>().max(1);
        let mut s = vec![shape.iter().product::<usize>() / size];
        s.extend_from_slice(rest);
        (
            jops::reshape(x, &s)?,
            Some(shape[..nb.max(0) as usize].to_vec()),
        )
    } else {
        (x.clone(), None)
    };
    let x = if x.dtype() == DType::F32 {
        x
    } else {
        jops::convert(&x, DType::F32)?
    };
    Ok((x, batch))
}

/// The output with the batch shape `fold_batch` folded restored.
pub(super) fn unfold_batch(y: &Value, batch: Option<Vec<usize>>) -> Result<Value> {
    match batch {
        Some(mut s) => {
            s.extend_from_slice(&y.shape()[1..]);
            jops::reshape(y, &s)
        }
        None => Ok(y.clone()),
    }
}

/// `y` plus the layer's bias (when it has one) along its last axis.
pub(super) fn add_bias(y: Value, bias: &Obj) -> Result<Value> {
    match bias {
        Obj::None => Ok(y),
        b => {
            let b = super::nnx::value_of(b)?;
            let mut s = vec![1; y.ndim() - 1];
            s.push(b.shape().iter().product());
            jops::add(&y, &jops::reshape(&b, &s)?)
        }
    }
}

/// The dimension numbers of a channels-last convolution with an
/// `spatial..., in, out` kernel over `nd` dimensions.
pub(super) fn channels_last_specs(nd: usize) -> [Vec<usize>; 3] {
    let mut lhs_spec = vec![0, nd - 1];
    lhs_spec.extend(1..nd - 1);
    let mut rhs_spec = vec![nd - 1, nd - 2];
    rhs_spec.extend(0..nd - 2);
    [lhs_spec.clone(), rhs_spec, lhs_spec]
}

/// `nnx.Conv`.
pub(super) fn conv_class(c: &norm::NormClasses) -> Rc<Class> {
    new_class(
        "Conv",
        vec![c.module.clone()],
        vec![
            (
                "__init__".into(),
                Obj::native("Conv.__init__", conv_init(c)),
            ),
            ("__call__".into(), Obj::native("Conv.__call__", conv_call)),
        ],
    )
}

/// Adds `Conv`, `ConvTranspose` and the pooling functions to `flax.nnx`.
pub(super) fn register(b: &mut Builder, c: &norm::NormClasses) {
    b.attr("Conv", Obj::Class(conv_class(c)));
    let transpose = super::conv_transpose::conv_transpose_class(&c.module, &c.param);
    b.attr("ConvTranspose", Obj::Class(transpose));
    crate::modules::conv::register_pooling(b);
}
