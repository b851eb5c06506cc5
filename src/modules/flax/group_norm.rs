//! `nnx.GroupNorm` and `nnx.InstanceNorm`.
//!
//! Both are LayerNorm with other axes, and share its statistics and its
//! normalisation (`norm::compute_stats`, `norm::normalize`) so the results
//! stay bit-exact with Flax. GroupNorm splits the channels into
//! `num_groups` groups of `group_size`, takes the statistics of each group
//! over the reduction axes, and repeats them back over the group's channels
//! along axis 1, as Flax does (whatever axis 1 is). InstanceNorm takes the
//! statistics over every axis but the batch (axis 0) and the feature axes.
//! Scale and bias are drawn from the `params` stream in that order, each
//! only when the layer has it, as Flax draws them.

use super::norm::{
    attr_f64, axes_of, compute_stats, flag, float_arg, float_input, init_param, normalize,
    var_value, NormClasses,
};
use super::*;

/// Draws the scale and the bias (when the layer uses them).
fn scale_and_bias(
    interp: &mut Interp,
    me: &Instance,
    a: &Args,
    c: &NormClasses,
    n: usize,
) -> Result<(bool, bool)> {
    let rngs = a.req(None, "rngs", "GroupNorm")?;
    let param = |v| instance(&c.param, vec![("value".into(), v)]);
    let use_scale = flag(a, "use_scale", true)?;
    let scale = match use_scale {
        true => param(init_param(interp, a, "scale_init", true, &rngs, n)?),
        false => Obj::None,
    };
    set_iattr(me, "scale", scale);
    let use_bias = flag(a, "use_bias", true)?;
    let bias = match use_bias {
        true => param(init_param(interp, a, "bias_init", false, &rngs, n)?),
        false => Obj::None,
    };
    set_iattr(me, "bias", bias);
    Ok((use_scale, use_bias))
}

fn refuse_axis_name(a: &Args, layer: &str) -> Result<()> {
    if a.opt(None, "axis_name").is_some() || a.opt(None, "axis_index_groups").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: {layer} with axis_name"
        );
    }
    Ok(())
}

fn num_features(a: &Args, layer: &str) -> Result<i64> {
    let n = to_int(&a.req(Some(1), "num_features", layer)?)?;
    if n < 0 {
        bail!(ValueError, "negative dimensions are not allowed");
    }
    Ok(n)
}

/// `(num_groups, group_size)` from the arguments, checked as Flax checks
/// them: exactly one of the two given, and dividing the features.
fn groups_of(a: &Args, n: i64) -> Result<(i64, i64)> {
    let groups = match a.get(Some(2), "num_groups") {
        Some(Obj::None) => None,
        Some(o) => Some(o),
        None => Some(Obj::Int(32)),
    };
    let size = a.opt(Some(3), "group_size");
    match (groups, size) {
        (None, Some(s)) => {
            let s = to_int(&s)?;
            if s == 0 || n % s != 0 {
                bail!(
                    ValueError,
                    "Number of features ({n}) is not multiple of the group size ({s})."
                );
            }
            Ok((n / s, s))
        }
        (Some(g), None) => {
            // Only a Python int (or bool) counts, as Flax's isinstance check.
            let g = match g {
                Obj::Int(v) => v,
                Obj::Bool(v) => v as i64,
                _ => 0,
            };
            if g <= 0 || n % g != 0 {
                bail!(
                    ValueError,
                    "Number of groups ({}) does not divide the number of channels ({n}).",
                    repr_of(&a.get(Some(2), "num_groups").unwrap_or(Obj::None))
                );
            }
            Ok((g, n / g))
        }
        _ => bail!(
            ValueError,
            "Either `num_groups` or `group_size` should be specified. If `group_size` is to be specified, pass `num_groups=None` as argument to override the default `num_groups` value of 32."
        ),
    }
}

fn group_norm_init(c: &NormClasses) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let c = c.clone();
    move |interp, a| {
        let me = self_arg(&a, "GroupNorm")?;
        refuse_axis_name(&a, "GroupNorm")?;
        let n = num_features(&a, "GroupNorm")?;
        set_iattr(&me, "feature_axis", Obj::Int(-1));
        let (groups, size) = groups_of(&a, n)?;
        set_iattr(&me, "num_groups", Obj::Int(groups));
        set_iattr(&me, "group_size", Obj::Int(size));
        let (use_scale, use_bias) = scale_and_bias(interp, &me, &a, &c, n as usize)?;
        let eps = float_arg(&a, "epsilon", 1e-6)?;
        let reduction = a.get(None, "reduction_axes").unwrap_or(Obj::None);
        settings(
            &me,
            &a,
            eps,
            (use_bias, use_scale),
            ("reduction_axes", reduction),
        )
    }
}

/// The settings both layers share, in the order Flax sets them (they print
/// in it), with the one each has of its own (`reduction_axes` or
/// `feature_axes`) among them.
fn settings(
    me: &Instance,
    a: &Args,
    eps: f64,
    (use_bias, use_scale): (bool, bool),
    own: (&str, Obj),
) -> Result<Obj> {
    set_iattr(me, "epsilon", Obj::Float(eps));
    set_iattr(me, "dtype", a.get(None, "dtype").unwrap_or(Obj::None));
    set_iattr(me, "param_dtype", super::jnp_float32());
    set_iattr(me, "use_bias", Obj::Bool(use_bias));
    set_iattr(me, "use_scale", Obj::Bool(use_scale));
    set_iattr(me, own.0, own.1);
    norm::statistics_settings(me, a)
}

fn int_attr(me: &Instance, name: &str) -> Result<usize> {
    Ok(to_int(&iattr(me, name).unwrap_or(Obj::Int(1)))?.max(1) as usize)
}

fn fast_variance(me: &Instance) -> Result<bool> {
    truthy(
        &iattr(me, "use_fast_variance").unwrap_or(Obj::Bool(true)),
        "use_fast_variance",
    )
}

/// `stats` repeated `times` times along `axis`, as `jnp.repeat` does.
fn repeat_axis(stats: &Value, axis: usize, times: usize) -> Result<Value> {
    let shape = stats.shape();
    if shape.len() <= axis {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: GroupNorm statistics without a group axis"
        );
    }
    let mut wide = shape.clone();
    wide.insert(axis + 1, times);
    let spread = jops::broadcast_to(&jops::expand_dims(stats, axis as i64 + 1)?, &wide)?;
    let mut merged = shape;
    merged[axis] *= times;
    jops::reshape(&spread, &merged)
}

/// GroupNorm's mean and variance of `x` (channels last, split into
/// `groups` of `size`) over the `reduction` axes, the last of which is the
/// channels, repeated back over each group's channels along `axis` (nnx
/// repeats along axis 1, linen along the last axis of the statistics).
pub(super) fn group_stats(
    x: &Value,
    reduction: &[usize],
    (groups, size): (usize, usize),
    fast: bool,
    axis: Option<usize>,
) -> Result<(Value, Value)> {
    let nd = x.ndim();
    let mut group_shape = x.shape();
    group_shape.pop();
    group_shape.extend([groups, size]);
    let grouped = jops::reshape(x, &group_shape)?;
    let mut stat_axes = reduction[..reduction.len().saturating_sub(1)].to_vec();
    stat_axes.push(nd);
    let (mean, var) = compute_stats(&grouped, &stat_axes, true, fast)?;
    let axis = axis.unwrap_or_else(|| mean.ndim().saturating_sub(1));
    Ok((
        repeat_axis(&mean, axis, size)?,
        repeat_axis(&var, axis, size)?,
    ))
}

/// GroupNorm's default reduction axes: all but the batch (axis 0).
pub(super) fn group_reduction(given: &Obj, nd: usize) -> Result<Vec<usize>> {
    match given {
        Obj::None => {
            let mut r: Vec<Obj> = (1..nd.saturating_sub(1) as i64).map(Obj::Int).collect();
            r.push(Obj::Int(-1));
            axes_of(&Obj::list(r), nd)
        }
        o => axes_of(o, nd),
    }
}

fn group_norm_call(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "GroupNorm.__call__")?;
    let x = float_input(&a, "GroupNorm")?;
    let nd = x.ndim();
    let given = iattr(&me, "reduction_axes").unwrap_or(Obj::None);
    let reduction = group_reduction(&given, nd)?;
    let groups = (int_attr(&me, "num_groups")?, int_attr(&me, "group_size")?);
    let (mean, var) = group_stats(&x, &reduction, groups, fast_variance(&me)?, Some(1))?;
    let (scale, bias) = (var_value(&me, "scale")?, var_value(&me, "bias")?);
    let y = normalize(
        &x,
        (&mean, &var),
        (scale.as_ref(), bias.as_ref()),
        &reduction[..reduction.len().saturating_sub(1)],
        &[nd - 1],
        attr_f64(&me, "epsilon", 1e-6)?,
    )?;
    Ok(Obj::Array(y))
}

fn instance_norm_init(c: &NormClasses) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let c = c.clone();
    move |interp, a| {
        let me = self_arg(&a, "InstanceNorm")?;
        refuse_axis_name(&a, "InstanceNorm")?;
        let n = num_features(&a, "InstanceNorm")?;
        let (use_scale, use_bias) = scale_and_bias(interp, &me, &a, &c, n as usize)?;
        set_iattr(&me, "num_features", Obj::Int(n));
        let eps = float_arg(&a, "epsilon", 1e-6)?;
        let features = a.get(None, "feature_axes").unwrap_or(Obj::Int(-1));
        settings(
            &me,
            &a,
            eps,
            (use_bias, use_scale),
            ("feature_axes", features),
        )
    }
}

/// InstanceNorm's reduction axes: all but the batch (axis 0) and the
/// feature axes, which may not include the batch.
pub(super) fn instance_reduction(features: &[usize], nd: usize) -> Result<Vec<usize>> {
    if features.contains(&0) {
        bail!(
            ValueError,
            "The channel axes cannot include the leading dimension as this is assumed to be the batch axis."
        );
    }
    Ok((1..nd).filter(|i| !features.contains(i)).collect())
}

fn instance_norm_call(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "InstanceNorm.__call__")?;
    let x = float_input(&a, "InstanceNorm")?;
    let nd = x.ndim();
    let features = axes_of(&iattr(&me, "feature_axes").unwrap_or(Obj::Int(-1)), nd)?;
    let reduction = instance_reduction(&features, nd)?;
    let (mean, var) = compute_stats(&x, &reduction, true, fast_variance(&me)?)?;
    let (scale, bias) = (var_value(&me, "scale")?, var_value(&me, "bias")?);
    let y = normalize(
        &x,
        (&mean, &var),
        (scale.as_ref(), bias.as_ref()),
        &reduction,
        &features,
        attr_f64(&me, "epsilon", 1e-6)?,
    )?;
    Ok(Obj::Array(y))
}

/// Adds `GroupNorm`, `InstanceNorm` and `PReLU` to `flax.nnx`.
pub(super) fn register(b: &mut Builder, c: &NormClasses) {
    let class = |name: &str, init: Obj, call: Obj| {
        new_class(
            name,
            vec![c.module.clone()],
            vec![("__init__".into(), init), ("__call__".into(), call)],
        )
    };
    let group = class(
        "GroupNorm",
        Obj::native("GroupNorm.__init__", group_norm_init(c)),
        Obj::native("GroupNorm.__call__", group_norm_call),
    );
    let inst = class(
        "InstanceNorm",
        Obj::native("InstanceNorm.__init__", instance_norm_init(c)),
        Obj::native("InstanceNorm.__call__", instance_norm_call),
    );
    b.attr("GroupNorm", Obj::Class(group));
    let prelu = super::prelu::prelu_class(&c.module, &c.param);
    b.attr("PReLU", Obj::Class(prelu));
    b.attr("InstanceNorm", Obj::Class(inst));
}
