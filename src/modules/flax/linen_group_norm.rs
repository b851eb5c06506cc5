//! linen's `GroupNorm` and `InstanceNorm`.
//!
//! The statistics are the nnx layers' (`group_norm::group_stats`,
//! `group_norm::instance_reduction`), except that linen repeats a group's
//! statistics along their last axis where nnx uses axis 1 (the two agree
//! for the default reduction axes). Scale and bias are made through the
//! module's `param`, scale first, over the feature axes, as Flax's
//! `_normalize` makes them; the layer checks its groups against the input's
//! channels at call time, with Flax's messages.

use super::group_norm::{group_reduction, group_stats, instance_reduction};
use super::linen_layers::{
    add_layers, field, input, norm_tail, normalized_output, refuse_dtypes, LayerSpec,
};
use super::norm::{axes_of, compute_stats};
use super::*;

/// `(num_groups, group_size)` for `channels`, checked as Flax checks them.
fn groups_of(me: &Instance, channels: usize) -> Result<(usize, usize)> {
    let opt = |n: &str| -> Result<Option<i64>> {
        match field(me, n) {
            Obj::None => Ok(None),
            o => Ok(Some(to_int(&o)?)),
        }
    };
    let c = channels as i64;
    let groups = match (opt("num_groups")?, opt("group_size")?) {
        (Some(_), Some(_)) | (None, None) => bail!(
            ValueError,
            "Either `num_groups` or `group_size` should be specified. If `group_size` is to be specified, pass `num_groups=None` as argument to override the default `num_groups` value of 32."
        ),
        (None, Some(size)) => {
            if size == 0 || c % size != 0 {
                bail!(
                    ValueError,
                    "Number of channels ({c}) is not multiple of the group size ({size})."
                );
            }
            c / size
        }
        (Some(g), None) => g,
    };
    if groups <= 0 || c % groups != 0 {
        bail!(
            ValueError,
            "Number of groups ({groups}) does not divide the number of channels ({c})."
        );
    }
    Ok((groups as usize, (c / groups) as usize))
}

fn fast_variance(me: &Instance) -> Result<bool> {
    truthy(&field(me, "use_fast_variance"), "use_fast_variance")
}

/// `GroupNorm.__call__(x, *, mask=None)`.
fn group_norm_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "GroupNorm")?;
    let x = input(&a, "GroupNorm")?;
    refuse_dtypes(&me, &x, "GroupNorm")?;
    let nd = x.ndim();
    let reduction = group_reduction(&field(&me, "reduction_axes"), nd)?;
    if nd == 0 || reduction.last() != Some(&(nd - 1)) {
        bail!(
            ValueError,
            "The reduction axes must include the final dimension as this is assumed to be the feature axis."
        );
    }
    let groups = groups_of(&me, x.shape()[nd - 1])?;
    let xf = jops::convert(&x, DType::F32)?;
    let (mean, var) = group_stats(&xf, &reduction, groups, fast_variance(&me)?, None)?;
    let features = [nd - 1];
    normalized_output(
        interp,
        &me,
        (&x, &xf),
        (&mean, &var),
        (&reduction[..reduction.len() - 1], &features),
        true,
    )
}

/// `InstanceNorm.__call__(x, *, mask=None)`.
fn instance_norm_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "InstanceNorm")?;
    let x = input(&a, "InstanceNorm")?;
    refuse_dtypes(&me, &x, "InstanceNorm")?;
    let nd = x.ndim();
    let features = axes_of(&field(&me, "feature_axes"), nd)?;
    let reduction = instance_reduction(&features, nd)?;
    let xf = jops::convert(&x, DType::F32)?;
    let (mean, var) = compute_stats(&xf, &reduction, true, fast_variance(&me)?)?;
    normalized_output(
        interp,
        &me,
        (&x, &xf),
        (&mean, &var),
        (&reduction, &features),
        true,
    )
}

/// Adds `GroupNorm` and `InstanceNorm` to `flax.linen`.
pub(super) fn register(b: &mut Builder, module: &Rc<Class>, inits: &Obj) -> Result<()> {
    let stats_tail = [
        ("axis_name", Some(Obj::None)),
        ("axis_index_groups", Some(Obj::None)),
        ("use_fast_variance", Some(Obj::Bool(true))),
        ("force_float32_reductions", Some(Obj::Bool(true))),
    ];
    let mut group: Vec<(&str, Option<Obj>)> = vec![
        ("num_groups", Some(Obj::Int(32))),
        ("group_size", Some(Obj::None)),
        ("epsilon", Some(Obj::Float(1e-6))),
    ];
    norm_tail(inits, &mut group)?;
    group.push(("reduction_axes", Some(Obj::None)));
    group.extend(stats_tail.clone());
    let mut inst: Vec<(&str, Option<Obj>)> = vec![("epsilon", Some(Obj::Float(1e-6)))];
    norm_tail(inits, &mut inst)?;
    inst.push(("feature_axes", Some(Obj::Int(-1))));
    inst.extend(stats_tail);
    let layers: Vec<LayerSpec> = vec![
        ("GroupNorm", group, group_norm_call),
        ("InstanceNorm", inst, instance_norm_call),
    ];
    add_layers(b, module, layers);
    Ok(())
}
