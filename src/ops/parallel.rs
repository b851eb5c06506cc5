//! The SPMD operations: collectives over named axes (jax.lax.psum, ...) and
//! the maps that bind those names (shard_map, pmap, vmap).

use std::sync::Arc;

use crate::array::DType;
use crate::bail;
use crate::error::{ErrorKind, Result};
use crate::ir::Aval;
use crate::mesh::{fmt_names, Mesh};
use crate::primitives::collectives::{group_size, IndexGroups};
use crate::primitives::maps::spec_axes;
use crate::primitives::{CollectiveKind, MapKind, MapParams, Prim, ShardMapParams};
use crate::sharding::PartitionSpec;
use crate::trace::{axis_env, bind, bind1, trace, Value};

use super::{div, scalar};

/// True when VMA is tracked for every one of `axes` (inside shard_map with
/// check_vma), in which case collectives use their invariant-typed forms.
fn tracked(axes: &[String]) -> bool {
    let env = axis_env();
    !axes.is_empty() && axes.iter().all(|a| env.tracked.contains(a))
}

/// Makes `x` vary over `axes` if it is tracked and does not yet: JAX inserts
/// this pvary before a collective over axes the operand is invariant along.
fn vary_over(x: &Value, axes: &[String]) -> Result<Value> {
    if !tracked(axes) {
        return Ok(x.clone());
    }
    let vma = x.aval().vma;
    let missing: Vec<String> = axes.iter().filter(|a| !vma.contains(*a)).cloned().collect();
    if missing.is_empty() {
        return Ok(x.clone());
    }
    bind1(
        Prim::Collective(CollectiveKind::Pvary { axes: missing }),
        std::slice::from_ref(x),
    )
}

fn collective(kind: CollectiveKind, x: &Value) -> Result<Value> {
    let x = vary_over(x, kind.axes())?;
    bind1(Prim::Collective(kind), &[x])
}

/// `jax.lax.psum`.
pub fn psum(x: &Value, axes: &[String]) -> Result<Value> {
    psum_groups(x, axes, None)
}

/// `jax.lax.psum(x, axes, axis_index_groups=groups)`. With groups, a value
/// that is not traced is multiplied by the first group's size without any
/// collective, as in JAX; under shard_map with check_vma JAX refuses groups.
pub fn psum_groups(x: &Value, axes: &[String], groups: Option<&IndexGroups>) -> Result<Value> {
    let axes = axes.to_vec();
    if let Some(g) = groups {
        if axes.is_empty() {
            return Ok(x.clone());
        }
        // Booleans are converted first, which traces them inside a map body,
        // as JAX's conversion does.
        let x = bool_as_int(x)?;
        if matches!(x, Value::Concrete(_)) {
            return super::mul(&x, &scalar(g.size() as f64, x.dtype()));
        }
        if tracked(&axes) {
            bail!(NotImplementedError, "");
        }
    }
    if tracked(&axes) {
        collective(CollectiveKind::PsumInvariant { axes }, x)
    } else {
        bind1(
            Prim::Collective(CollectiveKind::Psum {
                axes,
                groups: groups.cloned(),
            }),
            std::slice::from_ref(x),
        )
    }
}

/// Booleans are summed as int32, as JAX's psum converts them.
fn bool_as_int(x: &Value) -> Result<Value> {
    if x.dtype() == DType::Bool {
        super::convert(x, DType::I32)
    } else {
        Ok(x.clone())
    }
}

/// `jax.lax.pmean`: psum divided by the group size.
pub fn pmean(x: &Value, axes: &[String]) -> Result<Value> {
    pmean_groups(x, axes, None)
}

/// `jax.lax.pmean(x, axes, axis_index_groups=groups)`: the divisor is the
/// first group's size, whatever the others', as in JAX.
pub fn pmean_groups(x: &Value, axes: &[String], groups: Option<&IndexGroups>) -> Result<Value> {
    let n = match groups {
        Some(g) => g.size(),
        None => group_size(axes, &axis_env())?,
    };
    // JAX sums first (ints as ints), then divides. The sum keeps the name
    // pmean, which its jaxpr loses, for the run report.
    let sum = crate::trace::called_as("pmean", || psum_groups(x, axes, groups))?;
    let sum = if sum.dtype() == DType::F32 {
        sum
    } else {
        super::convert(&sum, DType::F32)?
    };
    div(&sum, &scalar(n as f64, DType::F32))
}

/// `jax.lax.pmax`.
pub fn pmax(x: &Value, axes: &[String]) -> Result<Value> {
    pmax_groups(x, axes, None)
}

/// `jax.lax.pmax(x, axes, axis_index_groups=groups)`.
pub fn pmax_groups(x: &Value, axes: &[String], groups: Option<&IndexGroups>) -> Result<Value> {
    collective(
        CollectiveKind::Pmax {
            axes: axes.to_vec(),
            groups: groups.cloned(),
        },
        x,
    )
}

/// `jax.lax.pmin`.
pub fn pmin(x: &Value, axes: &[String]) -> Result<Value> {
    pmin_groups(x, axes, None)
}

/// `jax.lax.pmin(x, axes, axis_index_groups=groups)`.
pub fn pmin_groups(x: &Value, axes: &[String], groups: Option<&IndexGroups>) -> Result<Value> {
    collective(
        CollectiveKind::Pmin {
            axes: axes.to_vec(),
            groups: groups.cloned(),
        },
        x,
    )
}

/// `jax.lax.all_gather(x, axes, axis=axis, tiled=tiled, to=...)`: with
/// `invariant` (JAX's `to='invarying'`) the result is typed invariant over
/// `axes`, so it may be returned with an out_spec that does not name them.
pub fn all_gather(
    x: &Value,
    axes: &[String],
    axis: i64,
    tiled: bool,
    invariant: bool,
) -> Result<Value> {
    all_gather_groups(x, axes, None, axis, tiled, invariant)
}

/// [`all_gather`] with JAX's `axis_index_groups` (never with `invariant`).
pub fn all_gather_groups(
    x: &Value,
    axes: &[String],
    groups: Option<&IndexGroups>,
    axis: i64,
    tiled: bool,
    invariant: bool,
) -> Result<Value> {
    let rank = x.ndim() + usize::from(!tiled);
    let axis = super::norm_axis(axis, rank)?;
    let invariant = invariant && tracked(axes);
    collective(
        CollectiveKind::AllGather {
            axes: axes.to_vec(),
            groups: groups.cloned(),
            axis,
            tiled,
            invariant,
        },
        x,
    )
}

/// `jax.lax.psum_scatter(x, axes, scatter_dimension=dim, tiled=tiled)`.
pub fn psum_scatter(x: &Value, axes: &[String], dim: i64, tiled: bool) -> Result<Value> {
    psum_scatter_groups(x, axes, None, dim, tiled)
}

/// [`psum_scatter`] with JAX's `axis_index_groups`.
pub fn psum_scatter_groups(
    x: &Value,
    axes: &[String],
    groups: Option<&IndexGroups>,
    dim: i64,
    tiled: bool,
) -> Result<Value> {
    let dim = super::norm_axis(dim, x.ndim())?;
    collective(
        CollectiveKind::PsumScatter {
            axes: axes.to_vec(),
            groups: groups.cloned(),
            dim,
            tiled,
        },
        x,
    )
}

/// `jax.lax.ppermute(x, axes, perm)`.
pub fn ppermute(x: &Value, axes: &[String], perm: &[(usize, usize)]) -> Result<Value> {
    collective(
        CollectiveKind::Ppermute {
            axes: axes.to_vec(),
            perm: perm.to_vec(),
        },
        x,
    )
}

/// `jax.lax.all_to_all(x, axes, split_axis, concat_axis, tiled=tiled)`.
pub fn all_to_all(
    x: &Value,
    axes: &[String],
    split_axis: i64,
    concat_axis: i64,
    tiled: bool,
) -> Result<Value> {
    all_to_all_groups(x, axes, None, split_axis, concat_axis, tiled)
}

/// [`all_to_all`] with JAX's `axis_index_groups`.
pub fn all_to_all_groups(
    x: &Value,
    axes: &[String],
    groups: Option<&IndexGroups>,
    split_axis: i64,
    concat_axis: i64,
    tiled: bool,
) -> Result<Value> {
    let split_axis = super::norm_axis(split_axis, x.ndim())?;
    let concat_axis = super::norm_axis(concat_axis, x.ndim())?;
    collective(
        CollectiveKind::AllToAll {
            axes: axes.to_vec(),
            groups: groups.cloned(),
            split_axis,
            concat_axis,
            tiled,
        },
        x,
    )
}

/// `jax.lax.axis_index(axes)`.
pub fn axis_index(axes: &[String]) -> Result<Value> {
    bind1(
        Prim::Collective(CollectiveKind::AxisIndex {
            axes: axes.to_vec(),
        }),
        &[],
    )
}

/// `jax.lax.axis_size(axes)`: the group size, a Python int at trace time.
pub fn axis_size(axes: &[String]) -> Result<usize> {
    group_size(axes, &axis_env())
}

/// `jax.lax.pvary(x, axes)`.
pub fn pvary(x: &Value, axes: &[String]) -> Result<Value> {
    if !tracked(axes) {
        return Ok(x.clone());
    }
    vary_over(x, axes)
}

/// A function traced as a map body: positional arguments in, outputs out.
pub type BodyFn<'a> = Box<dyn FnOnce(&[Value]) -> Result<Vec<Value>> + 'a>;

/// `jax.shard_map(f, mesh=mesh, in_specs=..., out_specs=..., check_vma=...)(*args)`
/// with flat argument and output lists (pytrees are flattened by the caller).
pub fn shard_map(
    f: BodyFn<'_>,
    mesh: &Mesh,
    in_specs: &[PartitionSpec],
    out_specs: &[PartitionSpec],
    check_vma: bool,
    args: &[Value],
) -> Result<Vec<Value>> {
    let names = MapNames::default();
    shard_map_named(f, &names, mesh, in_specs, out_specs, check_vma, args)
}

/// What JAX's shard_map errors name: the mapped function and the key path
/// of each output leaf, as `jax.tree_util.keystr` prints it.
#[derive(Default)]
pub struct MapNames {
    pub fun_name: String,
    pub out_keys: Vec<String>,
    /// Report only the first output that fails the check.
    pub first_only: bool,
    /// The mesh is the context mesh: the equation names its abstract mesh.
    pub abstract_mesh: bool,
    /// The whole mesh of a map manual over some of its axes only.
    pub whole_mesh: Option<Mesh>,
}

/// [`shard_map`] whose errors name the function and the outputs' paths.
pub fn shard_map_named(
    f: BodyFn<'_>,
    names: &MapNames,
    mesh: &Mesh,
    in_specs: &[PartitionSpec],
    out_specs: &[PartitionSpec],
    check_vma: bool,
    args: &[Value],
) -> Result<Vec<Value>> {
    if in_specs.len() != args.len() {
        bail!(
            ValueError,
            "shard_map in_specs has {} entries but the function was called with {} arguments",
            in_specs.len(),
            args.len()
        );
    }
    let proto = ShardMapParams {
        mesh: mesh.clone(),
        abstract_mesh: names.abstract_mesh,
        whole_mesh: names.whole_mesh.clone(),
        in_specs: in_specs.to_vec(),
        out_specs: out_specs.to_vec(),
        body: crate::ir::Jaxpr {
            avals: vec![],
            invars: vec![],
            eqns: vec![],
            outvars: vec![],
        },
        check_vma,
    };
    let local = local_avals(&proto, args)?;
    let traced = if crate::trace::tracing() {
        trace(&local, proto.frame(), f)?
    } else {
        let args = args
            .iter()
            .zip(in_specs)
            .map(|(a, spec)| spec.split(mesh, a.concrete("shard_map")?))
            .collect::<Result<_>>()?;
        let devices = crate::trace::DeviceInputs {
            mesh: mesh.clone(),
            args,
        };
        crate::trace::trace_map_body(&local, proto.frame(), devices, f)?
    };
    let outs = traced.jaxpr.out_avals();
    check_out_specs(mesh, &outs, out_specs)?;
    if check_vma {
        let eager;
        let names = if crate::trace::tracing() {
            names
        } else {
            // Outside jit JAX runs the body op by op and then moves each
            // output to its out_spec with a one-output shard_map of an
            // internal function: the first output that fails is reported
            // alone, under that function's name.
            eager = MapNames {
                fun_name: "_rem_singleton".into(),
                out_keys: vec![String::new(); outs.len()],
                first_only: true,
                abstract_mesh: names.abstract_mesh,
                whole_mesh: names.whole_mesh.clone(),
            };
            &eager
        };
        check_out_vma(names, mesh, &outs, out_specs)?;
    }
    let mut specs = in_specs.to_vec();
    specs.extend(traced.captured.iter().map(|_| PartitionSpec::replicated()));
    let mut all = args.to_vec();
    all.extend(traced.captured.iter().cloned());
    let params = ShardMapParams {
        in_specs: specs,
        body: traced.jaxpr,
        ..proto
    };
    bind(Prim::ShardMap(Arc::new(params)), &all)
}

/// Each argument's per-device aval under its in_spec, after JAX's checks of
/// the spec against the mesh and the argument's rank.
fn local_avals(proto: &ShardMapParams, args: &[Value]) -> Result<Vec<Aval>> {
    let mut local = Vec::with_capacity(args.len());
    for (i, (a, spec)) in args.iter().zip(&proto.in_specs).enumerate() {
        let aval = a.aval();
        spec.validate(&proto.mesh, aval.shape.len()).map_err(|e| {
            crate::err!(
                ValueError,
                "shard_map in_specs[{i}] {spec} for argument {i} of shape {}: {}",
                crate::ir::fmt_shape(&aval.shape),
                e.message
            )
        })?;
        local.push(proto.local_aval(&aval, spec).map_err(|e| {
            crate::err!(
                ValueError,
                "shard_map argument {i} of shape {} with in_specs[{i}] {spec}: {}",
                crate::ir::fmt_shape(&aval.shape),
                e.message
            )
        })?);
    }
    Ok(local)
}

/// JAX's checks of the out_specs against the body's outputs: one spec per
/// output, no longer than its rank, naming mesh axes.
fn check_out_specs(mesh: &Mesh, outs: &[Aval], out_specs: &[PartitionSpec]) -> Result<()> {
    if outs.len() != out_specs.len() {
        bail!(
            ValueError,
            "shard_map out_specs has {} entries but the function returned {} outputs",
            out_specs.len(),
            outs.len()
        );
    }
    for (i, (o, spec)) in outs.iter().zip(out_specs).enumerate() {
        if spec.entries.len() > o.shape.len() {
            bail!(
                ValueError,
                "shard_map out_specs[{i}] is {spec} which has length {}, but output {i} has shape {o}, which has rank {} (and {} < {}). For scalar outputs use P().",
                spec.entries.len(),
                o.shape.len(),
                o.shape.len(),
                spec.entries.len()
            );
        }
        spec.validate(mesh, o.shape.len())?;
    }
    Ok(())
}

/// JAX's check that every output is replicated over the mesh axes its
/// out_spec leaves out: an output still varying over one of them could
/// not be returned as one value (JAX's `_inout_vma_error`).
fn check_out_vma(
    names: &MapNames,
    mesh: &Mesh,
    outs: &[Aval],
    out_specs: &[PartitionSpec],
) -> Result<()> {
    let in_mesh_order = |set: &dyn Fn(&String) -> bool| -> String {
        let named: Vec<&str> = mesh
            .axis_names()
            .iter()
            .filter(|n| set(n))
            .map(|n| n.as_str())
            .collect();
        named.join(",")
    };
    let mut msgs = vec![];
    for (i, (o, spec)) in outs.iter().zip(out_specs).enumerate() {
        let named = spec_axes(spec);
        if o.vma.difference(&named).next().is_none() {
            continue;
        }
        if names.first_only && !msgs.is_empty() {
            break;
        }
        let key = names
            .out_keys
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("[{i}]"));
        let unmentioned: Vec<&String> = mesh
            .axis_names()
            .iter()
            .filter(|n| !named.contains(*n))
            .collect();
        msgs.push(match unmentioned.as_slice() {
            [one] => format!(
                "* out_specs{key} is {spec} which implies that the corresponding output value is \
                 replicated across mesh axis '{one}', but could not infer replication over any axes"
            ),
            _ => format!(
                "* out_specs{key} is {spec} which implies that the corresponding output value is \
                 only varying across mesh axes {{{}}} and not {{{}}}, but it was inferred to be \
                 possibly varying over {{{}}}",
                in_mesh_order(&|n| named.contains(n)),
                in_mesh_order(&|n| !named.contains(n) && o.vma.contains(n)),
                in_mesh_order(&|n| o.vma.contains(n)),
            ),
        });
    }
    if msgs.is_empty() {
        return Ok(());
    }
    if let [one] = msgs.as_mut_slice() {
        one.replace_range(..2, "");
    }
    let shape: Vec<String> = mesh.shape().iter().map(|d| d.to_string()).collect();
    let shape = if shape.len() == 1 {
        format!("({},)", shape[0])
    } else {
        format!("({})", shape.join(", "))
    };
    let fun = if names.fun_name.is_empty() {
        "function"
    } else {
        &names.fun_name
    };
    bail!(
        ValueError,
        "shard_map applied to the function '{fun}' was given out_specs which require replication \
         which can't be statically inferred given the mesh:\n\nThe mesh given has shape {shape} \
         with corresponding axis names {}.\n\n{}\n\nCheck if these output values are meant to be \
         replicated over those mesh axes. If not, consider revising the corresponding out_specs \
         entries. If so, consider disabling the check by passing the check_vma=False argument to \
         `jax.shard_map`.",
        fmt_names(mesh.axis_names()),
        msgs.join("\n\n")
    )
}

/// The size of the mapped axis, from the inputs' mapped dimensions.
fn mapped_size(what: &str, args: &[Value], in_axes: &[Option<usize>]) -> Result<usize> {
    let mut size = None;
    for (i, (a, ax)) in args.iter().zip(in_axes).enumerate() {
        let Some(ax) = ax else { continue };
        let shape = a.shape();
        if *ax >= shape.len() {
            // JAX's pmap fails here with an IndexError (its vmap with a ValueError).
            let kind = if what == "pmap" {
                ErrorKind::IndexError
            } else {
                ErrorKind::ValueError
            };
            return Err(crate::error::Error::new(
                kind,
                format!(
                    "{what} was requested to map its argument along axis {ax}, which implies that \
                 its rank should be at least {}, but argument {i} is of rank {} (shape {})",
                    ax + 1,
                    shape.len(),
                    crate::ir::fmt_shape(&shape)
                ),
            ));
        }
        match size {
            None => size = Some(shape[*ax]),
            Some(s) if s != shape[*ax] => bail!(
                ValueError,
                "{what} got inconsistent sizes for the array axes to be mapped: argument {i} \
                 has size {} along axis {ax}, earlier arguments have size {s}",
                shape[*ax]
            ),
            _ => {}
        }
    }
    size.ok_or_else(|| {
        crate::err!(
            ValueError,
            "{what} must have at least one non-None value in in_axes"
        )
    })
}

/// `jax.vmap` / `jax.pmap` with flat arguments: `in_axes` per argument,
/// `out_axes` per output (a single entry applies to every output).
pub fn map(
    kind: MapKind,
    f: BodyFn<'_>,
    axis_name: Option<&str>,
    in_axes: &[Option<usize>],
    out_axes: &[usize],
    args: &[Value],
) -> Result<Vec<Value>> {
    let (prim, all) = map_traced(kind, f, axis_name, in_axes, out_axes, args)?;
    bind(prim, &all)
}

/// The size of the mapped axis, checked: one in_axes entry per argument,
/// the same size on every mapped argument, and (for pmap) enough devices.
fn checked_size(
    kind: MapKind,
    what: &str,
    args: &[Value],
    in_axes: &[Option<usize>],
) -> Result<usize> {
    if in_axes.len() != args.len() {
        bail!(
            ValueError,
            "{what} in_axes has {} entries for {} arguments",
            in_axes.len(),
            args.len()
        );
    }
    let size = mapped_size(what, args, in_axes)?;
    if kind == MapKind::Pmap {
        let available = crate::exec::config().devices;
        if size > available {
            bail!(
                ValueError,
                "compiling computation that requires {size} logical devices, but only {available} \
                 XLA devices are available (num_replicas={size})"
            );
        }
    }
    Ok(size)
}

/// One out_axes entry per output (a single entry applies to all), each
/// within the output's rank.
fn checked_out_axes(what: &str, out_axes: &[usize], outs: &[Aval]) -> Result<Vec<usize>> {
    let out_axes = match out_axes.len() {
        1 => vec![out_axes[0]; outs.len()],
        n if n == outs.len() => out_axes.to_vec(),
        n => bail!(
            ValueError,
            "{what} out_axes has {n} entries for {} outputs",
            outs.len()
        ),
    };
    for (o, &ax) in outs.iter().zip(&out_axes) {
        if ax > o.shape.len() {
            bail!(
                ValueError,
                "{what} out_axes {ax} is out of bounds for an output of rank {}",
                o.shape.len()
            );
        }
    }
    Ok(out_axes)
}

/// [`map`] traced but not bound: the equation and its operands.
pub fn map_traced(
    kind: MapKind,
    f: BodyFn<'_>,
    axis_name: Option<&str>,
    in_axes: &[Option<usize>],
    out_axes: &[usize],
    args: &[Value],
) -> Result<(Prim, Vec<Value>)> {
    let what = match kind {
        MapKind::Pmap => "pmap",
        MapKind::Vmap => "vmap",
    };
    let size = checked_size(kind, what, args, in_axes)?;
    let local: Vec<Aval> = args
        .iter()
        .zip(in_axes)
        .map(|(a, ax)| {
            let mut aval = a.aval();
            if let Some(ax) = ax {
                aval.shape.remove(*ax);
            }
            aval
        })
        .collect();
    let mut proto = MapParams {
        kind,
        axis_name: axis_name.map(|s| s.to_string()),
        size,
        in_axes: in_axes.to_vec(),
        out_axes: vec![],
        body: crate::ir::Jaxpr {
            avals: vec![],
            invars: vec![],
            eqns: vec![],
            outvars: vec![],
        },
    };
    let traced = trace(&local, proto.frame(), f)?;
    let outs = traced.jaxpr.out_avals();
    proto.out_axes = checked_out_axes(what, out_axes, &outs)?;
    proto.in_axes.extend(traced.captured.iter().map(|_| None));
    let mut all = args.to_vec();
    all.extend(traced.captured.iter().cloned());
    proto.body = traced.jaxpr;
    Ok((Prim::Map(Arc::new(proto)), all))
}
