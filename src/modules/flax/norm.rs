//! `nnx.BatchNorm`, `nnx.LayerNorm` and `nnx.RMSNorm`.
//!
//! Each layer draws one `params` key for its scale and one for its bias (when
//! it has them), in that order, as Flax does, so the keys later layers draw
//! stay where Flax has them. Statistics are computed in float32 the way
//! Flax's `_compute_stats` does by default (`use_fast_variance`): the mean
//! of `x` and of `x**2`, and `max(0, E[x²] - E[x]²)` as the variance. The
//! normalisation is `(x - mean) * (rsqrt(var + eps) * scale) + bias`, in
//! that order of operations, which keeps the results bit-exact with Flax's
//! eager run.

use super::*;

/// The classes a normalisation layer is built from.
#[derive(Clone)]
pub(super) struct NormClasses {
    pub module: Rc<Class>,
    pub param: Rc<Class>,
    pub batch_stat: Rc<Class>,
}

/// Which of the three layers a class is.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Batch,
    Layer,
    Rms,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Batch => "BatchNorm",
            Kind::Layer => "LayerNorm",
            Kind::Rms => "RMSNorm",
        }
    }
}

pub(super) fn flag(a: &Args, name: &str, default: bool) -> Result<bool> {
    match a.get(None, name) {
        Some(o) => truthy(&o, name),
        None => Ok(default),
    }
}

pub(super) fn float_arg(a: &Args, name: &str, default: f64) -> Result<f64> {
    match a.get(None, name) {
        Some(o) => crate::python::builtins::to_float(&o),
        None => Ok(default),
    }
}

/// A scale or bias parameter: `init(key, shape, float32)` when the program
/// gives an initializer, ones or zeros otherwise. The key is drawn either way.
pub(super) fn init_param(
    interp: &mut Interp,
    a: &Args,
    init_name: &str,
    ones: bool,
    rngs: &Obj,
    n: usize,
) -> Result<Obj> {
    let key = super::nnx::rngs_next(rngs, "params")?;
    match a.opt(None, init_name) {
        Some(init) => interp.call(
            &init,
            Args::new(vec![
                key,
                Obj::tuple(vec![Obj::Int(n as i64)]),
                super::jnp_float32(),
            ]),
        ),
        None => Ok(Obj::Array(Value::Concrete(if ones {
            crate::random::initializers::ones(&[n])?
        } else {
            crate::random::initializers::zeros(&[n])?
        }))),
    }
}

fn norm_init(kind: Kind, c: &NormClasses) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let c = c.clone();
    move |interp, a| {
        let me = self_arg(&a, kind.name())?;
        let n = to_int(&a.req(Some(1), "num_features", kind.name())?)?;
        if n < 0 {
            bail!(ValueError, "negative dimensions are not allowed");
        }
        let n = n as usize;
        if a.opt(None, "axis_name").is_some() || a.opt(None, "axis_index_groups").is_some() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: {} with axis_name",
                kind.name()
            );
        }
        let rngs = a.req(None, "rngs", kind.name())?;
        let stat = |v| instance(&c.batch_stat, vec![("value".into(), Obj::Array(v))]);
        if kind == Kind::Batch {
            let zeros = Value::Concrete(crate::random::initializers::zeros(&[n])?);
            let ones = Value::Concrete(crate::random::initializers::ones(&[n])?);
            set_iattr(&me, "mean", stat(zeros));
            set_iattr(&me, "var", stat(ones));
        }
        let param = |v| instance(&c.param, vec![("value".into(), v)]);
        let use_scale = flag(&a, "use_scale", true)?;
        let scale = match use_scale {
            true => param(init_param(interp, &a, "scale_init", true, &rngs, n)?),
            false => Obj::None,
        };
        set_iattr(&me, "scale", scale);
        let use_bias = flag(&a, "use_bias", true)?;
        if kind != Kind::Rms {
            let bias = match use_bias {
                true => param(init_param(interp, &a, "bias_init", false, &rngs, n)?),
                false => Obj::None,
            };
            set_iattr(&me, "bias", bias);
        }
        set_attrs(&me, kind, &a, n, use_bias, use_scale)
    }
}

/// The layer's settings, in the order Flax sets them (they print in it).
fn set_attrs(
    me: &Instance,
    kind: Kind,
    a: &Args,
    n: usize,
    use_bias: bool,
    use_scale: bool,
) -> Result<Obj> {
    let eps = if kind == Kind::Batch { 1e-5 } else { 1e-6 };
    set_iattr(me, "num_features", Obj::Int(n as i64));
    if kind == Kind::Batch {
        let ura = a
            .get(None, "use_running_average")
            .unwrap_or(Obj::Bool(false));
        set_iattr(me, "use_running_average", ura);
        set_iattr(me, "axis", a.get(None, "axis").unwrap_or(Obj::Int(-1)));
        let momentum = float_arg(a, "momentum", 0.99)?;
        set_iattr(me, "momentum", Obj::Float(momentum));
    }
    set_iattr(me, "epsilon", Obj::Float(float_arg(a, "epsilon", eps)?));
    set_iattr(me, "dtype", a.get(None, "dtype").unwrap_or(Obj::None));
    set_iattr(me, "param_dtype", super::jnp_float32());
    if kind != Kind::Rms {
        set_iattr(me, "use_bias", Obj::Bool(use_bias));
    }
    set_iattr(me, "use_scale", Obj::Bool(use_scale));
    if kind != Kind::Batch {
        for name in ["reduction_axes", "feature_axes"] {
            set_iattr(me, name, a.get(None, name).unwrap_or(Obj::Int(-1)));
        }
    }
    statistics_settings(me, a)
}

/// The settings every normalisation layer ends with: no cross-device
/// statistics, the variance formula, and the dtype promotion.
pub(super) fn statistics_settings(me: &Instance, a: &Args) -> Result<Obj> {
    use super::display::FunctionRef;
    set_iattr(me, "axis_name", Obj::None);
    set_iattr(me, "axis_index_groups", Obj::None);
    let fast = flag(a, "use_fast_variance", true)?;
    set_iattr(me, "use_fast_variance", Obj::Bool(fast));
    set_iattr(me, "promote_dtype", Obj::lib(FunctionRef("promote_dtype")));
    Ok(Obj::None)
}

/// Axes given as an int or a sequence of ints, made non-negative and sorted.
pub(super) fn axes_of(o: &Obj, ndim: usize) -> Result<Vec<usize>> {
    let list = match o {
        Obj::Int(_) => vec![o.clone()],
        other => iterate(other)?,
    };
    let mut out = list
        .iter()
        .map(|x| jops::norm_axis(to_int(x)?, ndim))
        .collect::<Result<Vec<_>>>()?;
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Mean and variance of `x` over `axes`, as Flax's `_compute_stats`.
pub(super) fn compute_stats(
    x: &Value,
    axes: &[usize],
    use_mean: bool,
    fast: bool,
) -> Result<(Value, Value)> {
    let ax: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    let sq = |v: &Value| jops::integer_pow(v, 2);
    if !use_mean {
        let var = jops::mean(&sq(x)?, Some(&ax), false)?;
        return Ok((jops::zeros_like(&var), var));
    }
    let mu = jops::mean(x, Some(&ax), false)?;
    let var = if fast {
        let mu2 = jops::mean(&sq(x)?, Some(&ax), false)?;
        jops::maximum(&jops::scalar(0.0, DType::F32), &jops::sub(&mu2, &sq(&mu)?)?)?
    } else {
        let mut kept = x.shape();
        for &a in axes {
            kept[a] = 1;
        }
        let centred = jops::sub(x, &jops::reshape(&mu, &kept)?)?;
        jops::mean(&sq(&centred)?, Some(&ax), false)?
    };
    Ok((mu, var))
}

/// Flax's `_normalize`: `(x - mean) * (rsqrt(var + eps) * scale) + bias`.
pub(super) fn normalize(
    x: &Value,
    stats: (&Value, &Value),
    affine: (Option<&Value>, Option<&Value>),
    reduction: &[usize],
    features: &[usize],
    eps: f64,
) -> Result<Value> {
    let shape = x.shape();
    let mut stats_shape = shape.clone();
    for &a in reduction {
        stats_shape[a] = 1;
    }
    let mut feature_shape = vec![1; shape.len()];
    for &a in features {
        feature_shape[a] = shape[a];
    }
    let mean = jops::reshape(stats.0, &stats_shape)?;
    let var = jops::reshape(stats.1, &stats_shape)?;
    let y = jops::sub(x, &mean)?;
    let eps = jops::scalar(eps, DType::F32);
    let mut mul = jops::unary(crate::array::UnaryOp::Rsqrt, &jops::add(&var, &eps)?)?;
    if let Some(s) = affine.0 {
        mul = jops::mul(&mul, &jops::reshape(s, &feature_shape)?)?;
    }
    let mut y = jops::mul(&y, &mul)?;
    if let Some(b) = affine.1 {
        y = jops::add(&y, &jops::reshape(b, &feature_shape)?)?;
    }
    Ok(y)
}

/// The value of a variable attribute, or None when the layer has none.
pub(super) fn var_value(me: &Instance, name: &str) -> Result<Option<Value>> {
    match iattr(me, name) {
        None | Some(Obj::None) => Ok(None),
        Some(Obj::Instance(v)) if is_variable(&v) => {
            Ok(Some(to_value(&iattr(&v, "value").unwrap_or(Obj::None))?))
        }
        Some(other) => Ok(Some(to_value(&other)?)),
    }
}

fn set_var_value(me: &Instance, name: &str, v: Value) {
    if let Some(Obj::Instance(var)) = iattr(me, name) {
        set_iattr(&var, "value", Obj::Array(v));
    }
}

pub(super) fn float_input(a: &Args, func: &str) -> Result<Value> {
    if a.opt(None, "mask").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: {func} with mask"
        );
    }
    let x = to_value(&a.req(Some(1), "x", func)?)?;
    jops::convert(&x, DType::F32)
}

pub(super) fn attr_f64(me: &Instance, name: &str, default: f64) -> Result<f64> {
    match iattr(me, name) {
        Some(o) => crate::python::builtins::to_float(&o),
        None => Ok(default),
    }
}

fn batch_norm_call(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "BatchNorm.__call__")?;
    let x = float_input(&a, "BatchNorm")?;
    let ura = match a.opt(Some(2), "use_running_average") {
        Some(o) => o,
        None => iattr(&me, "use_running_average").unwrap_or(Obj::None),
    };
    if matches!(ura, Obj::None) {
        bail!(
            ValueError,
            "No `use_running_average` argument was provided to BatchNorm."
        );
    }
    let ndim = x.ndim();
    let features = axes_of(&iattr(&me, "axis").unwrap_or(Obj::Int(-1)), ndim)?;
    let reduction: Vec<usize> = (0..ndim).filter(|i| !features.contains(i)).collect();
    let (mut mean, mut var) = (
        var_value(&me, "mean")?.unwrap_or_else(|| jops::zeros_like(&x)),
        var_value(&me, "var")?.unwrap_or_else(|| jops::zeros_like(&x)),
    );
    if !truthy(&ura, "use_running_average")? {
        let fast = truthy(
            &iattr(&me, "use_fast_variance").unwrap_or(Obj::Bool(true)),
            "",
        )?;
        let (mu, v) = compute_stats(&x, &reduction, true, fast)?;
        let m = attr_f64(&me, "momentum", 0.99)?;
        let ema = |old: &Value, new: &Value| -> Result<Value> {
            jops::add(&jops::mul_scalar(old, m)?, &jops::mul_scalar(new, 1.0 - m)?)
        };
        set_var_value(&me, "mean", ema(&mean, &mu)?);
        set_var_value(&me, "var", ema(&var, &v)?);
        (mean, var) = (mu, v);
    }
    let eps = attr_f64(&me, "epsilon", 1e-5)?;
    let affine = (var_value(&me, "scale")?, var_value(&me, "bias")?);
    let y = normalize(
        &x,
        (&mean, &var),
        (affine.0.as_ref(), affine.1.as_ref()),
        &reduction,
        &features,
        eps,
    )?;
    Ok(Obj::Array(y))
}

/// LayerNorm and RMSNorm: statistics of the input itself over
/// `reduction_axes`, scale and bias over `feature_axes`.
fn layer_norm_call(kind: Kind) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| {
        let me = self_arg(&a, kind.name())?;
        let x = float_input(&a, kind.name())?;
        let ndim = x.ndim();
        let reduction = axes_of(&iattr(&me, "reduction_axes").unwrap_or(Obj::Int(-1)), ndim)?;
        let features = axes_of(&iattr(&me, "feature_axes").unwrap_or(Obj::Int(-1)), ndim)?;
        let fast = truthy(
            &iattr(&me, "use_fast_variance").unwrap_or(Obj::Bool(true)),
            "",
        )?;
        let (mean, var) = compute_stats(&x, &reduction, kind == Kind::Layer, fast)?;
        let eps = attr_f64(&me, "epsilon", 1e-6)?;
        let scale = var_value(&me, "scale")?;
        let bias = match kind {
            Kind::Layer => var_value(&me, "bias")?,
            _ => None,
        };
        let y = normalize(
            &x,
            (&mean, &var),
            (scale.as_ref(), bias.as_ref()),
            &reduction,
            &features,
            eps,
        )?;
        Ok(Obj::Array(y))
    }
}

fn norm_class(kind: Kind, c: &NormClasses) -> Rc<Class> {
    let call = match kind {
        Kind::Batch => Obj::native("BatchNorm.__call__", batch_norm_call),
        _ => Obj::native("LayerNorm.__call__", layer_norm_call(kind)),
    };
    let mut methods = vec![
        (
            "__init__".into(),
            Obj::native("norm.__init__", norm_init(kind, c)),
        ),
        ("__call__".into(), call),
    ];
    if let Kind::Batch = kind {
        methods.extend(super::recursive::set_view_attrs(
            &["use_running_average"],
            "  use_running_average: bool | None = None\n    if True, the stored batch statistics will be\n    used instead of computing the batch statistics on the input.",
        ));
    }
    new_class(kind.name(), vec![c.module.clone()], methods)
}

/// Adds the normalisation layers and `Embed` to `flax.nnx`.
pub(super) fn register(b: &mut Builder, c: &NormClasses) {
    for kind in [Kind::Batch, Kind::Layer, Kind::Rms] {
        b.attr(kind.name(), Obj::Class(norm_class(kind, c)));
    }
    b.attr(
        "Embed",
        Obj::Class(super::embed::embed_class(&c.module, &c.param)),
    );
    b.attr(
        "Einsum",
        Obj::Class(super::einsum::einsum_class(&c.module, &c.param)),
    );
}
