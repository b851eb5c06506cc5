//! `out_sharding=`: where the result of a function that takes it lives.
//!
//! On concrete values the function computes as if its operands were not
//! placed, and its result is placed as asked: the values do not depend on
//! the layout, and the sharding rules that would reject the operands'
//! layouts are what `out_sharding` overrides in JAX. Inside a traced
//! function, a contraction records the sharding on its `dot_general`
//! equation, and a draw of `jax.random` or `jax.nn.initializers` ends in a
//! `reshard` to it, as JAX stages both.

use super::context::context_mesh;
use crate::error::Result;
use crate::mesh::AxisType;
use crate::python::interp::Interp;
use crate::python::value::{Args, NativeFn, Obj};
use crate::{bail, err};

/// Whether the function `name` of `jax.numpy`, `jax.random` or `jax.lax`
/// takes an `out_sharding=` argument in JAX 0.10.2.
pub(super) fn takes(name: &str) -> bool {
    OUT_SHARDING.contains(&name) || RANDOM_DRAWS.contains(&name)
}

/// The functions of `jax.numpy` and `jax.lax` that take `out_sharding=`.
const OUT_SHARDING: &[&str] = &[
    "arange",
    "array",
    "asarray",
    "bincount",
    "broadcast_to",
    "dot",
    "einsum",
    "empty",
    "full",
    "full_like",
    "matmul",
    "ones",
    "ones_like",
    "percentile",
    "ravel",
    "repeat",
    "reshape",
    "tensordot",
    "zeros",
    "zeros_like",
    "broadcast",
    "broadcast_in_dim",
    "broadcasted_iota",
    "conv_general_dilated",
    "dot_general",
    "ragged_dot",
    "ragged_dot_general",
    "reduce",
    "reduce_sum",
    "rng_bit_generator",
];

/// The placement an `out_sharding=` argument asks for: a `NamedSharding`,
/// or a `PartitionSpec` over the context mesh.
fn out_placement(interp: &mut Interp, o: &Obj) -> Result<crate::sharding::Placement> {
    if let Some(ns) = o.downcast::<super::NamedSharding>() {
        return Ok(ns.placement());
    }
    if let Some(spec) = o.downcast::<crate::sharding::PartitionSpec>() {
        let Some(mesh) = context_mesh(interp) else {
            bail!(
                ValueError,
                "Using PartitionSpec when you are not under a mesh context is not allowed. Please pass a NamedSharding instance or enter into a mesh context via `jax.set_mesh`. Got {spec}"
            );
        };
        return Ok(crate::sharding::Placement::Named(
            crate::sharding::NamedSharding::new((*mesh).clone(), spec.clone()),
        ));
    }
    bail!(
        TypeError,
        "out_sharding must be a NamedSharding or a PartitionSpec, got {}",
        o.type_name()
    )
}

/// Calls `f` computing on the arguments' values alone, then places the
/// result as `out_sharding` says. The values do not depend on the layout;
/// the sharding rules that would reject the operands' layouts are what
/// `out_sharding` overrides in JAX.
pub(super) fn with_out_sharding(
    interp: &mut Interp,
    name: &str,
    f: &NativeFn,
    mut a: Args,
    out: Obj,
) -> Result<Obj> {
    let want = out_placement(interp, &out)?;
    let original = a.clone();
    let strip = |o: &Obj| match o {
        Obj::Array(crate::trace::Value::Concrete(x)) => Obj::Array(crate::trace::Value::Concrete(
            x.clone().with_placement(None),
        )),
        other => other.clone(),
    };
    a.pos = a.pos.iter().map(strip).collect();
    let result = f(interp, a)?;
    let want = std::sync::Arc::new(want);
    match result {
        Obj::Array(crate::trace::Value::Concrete(x)) => {
            if let crate::sharding::Placement::Named(s) = &*want {
                s.spec.validate(&s.mesh, x.ndim())?;
                s.shard_shape(x.shape())?;
            }
            let partials = match &*want {
                crate::sharding::Placement::Named(s) if !s.spec.unreduced.is_empty() => {
                    Some(contraction_partials(interp, name, f, &original, s)?)
                }
                _ => None,
            };
            Ok(Obj::Array(crate::trace::Value::Concrete(
                x.with_placement(Some(want)).with_partials(partials),
            )))
        }
        Obj::Array(v) => match &*want {
            crate::sharding::Placement::Named(s) if crate::trace::set_out_sharding(&v, s.clone()) => {
                s.spec.validate(&s.mesh, v.ndim())?;
                Ok(Obj::Array(v))
            }
            // A spec that names no mesh axis changes no layout: the value is
            // replicated, and its type in JAX shows no axes either.
            crate::sharding::Placement::Named(s) if s.spec.used_axes().is_empty() && !s.spec.has_ur() => {
                s.spec.validate(&s.mesh, v.ndim())?;
                Ok(Obj::Array(v))
            }
            crate::sharding::Placement::Named(s) if RANDOM_DRAWS.contains(&name) || name == "initializer" => {
                Ok(Obj::Array(reshard_traced(interp, v, s)?))
            }
            _ => bail!(
                NotImplementedError,
                "not supported by shardlab yet: out_sharding inside a transformation, except for dot, matmul and einsum of 2-D operands and the draws of jax.random"
            ),
        },
        other => Ok(other),
    }
}

/// The contractions whose `out_sharding` may name unreduced axes.
const CONTRACTIONS: &[&str] = &["dot", "dot_general", "einsum", "matmul", "tensordot"];

/// What each device holds of a contraction's result unreduced over the
/// axes of `want`: the contraction of its own block of the first operand
/// split over those axes (see [`crate::partition::partials::own_block`])
/// with the other operands, which by linearity sum to the result.
fn contraction_partials(
    interp: &mut Interp,
    name: &str,
    f: &NativeFn,
    a: &Args,
    want: &crate::sharding::NamedSharding,
) -> Result<Vec<crate::array::Array>> {
    let unreduced = &want.spec.unreduced;
    let refuse = || {
        crate::err!(
            NotImplementedError,
            "not supported by shardlab yet: {name} with an unreduced out_sharding over axes its operands are not split on"
        )
    };
    if !CONTRACTIONS.contains(&name) {
        return Err(refuse());
    }
    let found = a.pos.iter().enumerate().find_map(|(i, o)| match o {
        Obj::Array(crate::trace::Value::Concrete(x)) => match x.placement() {
            Some(crate::sharding::Placement::Named(s))
                if unreduced
                    .iter()
                    .all(|u| s.spec.used_axes().contains(&u.as_str())) =>
            {
                Some((i, x.clone(), s.clone()))
            }
            _ => None,
        },
        _ => None,
    });
    let Some((i, x, s)) = found else {
        return Err(refuse());
    };
    let mut out = vec![];
    for p in 0..want.mesh.size() {
        let mine =
            crate::partition::partials::own_block(&x, &s, unreduced, p)?.ok_or_else(refuse)?;
        let mut args = a.clone();
        args.pos = args
            .pos
            .iter()
            .map(|o| match o {
                Obj::Array(crate::trace::Value::Concrete(y)) => Obj::Array(
                    crate::trace::Value::Concrete(y.clone().with_placement(None)),
                ),
                other => other.clone(),
            })
            .collect();
        args.pos[i] = Obj::Array(crate::trace::Value::Concrete(mine));
        let full = match f(interp, args)? {
            Obj::Array(crate::trace::Value::Concrete(r)) => r,
            _ => return Err(refuse()),
        };
        let region = want.shard_slices(p, full.shape())?;
        let starts: Vec<usize> = region.iter().map(|r| r.start).collect();
        let limits: Vec<usize> = region.iter().map(|r| r.end).collect();
        out.push(full.slice(&starts, &limits, None)?);
    }
    Ok(out)
}

/// The draws of `jax.random` that take `out_sharding=`. JAX stages it
/// inside a traced function as a `reshard` of the draw's result (its
/// `auto_axes`), and so does shardlab; the initializers of
/// `jax.nn.initializers` draw through them.
const RANDOM_DRAWS: &[&str] = &[
    "ball",
    "bernoulli",
    "beta",
    "bits",
    "categorical",
    "cauchy",
    "chisquare",
    "dirichlet",
    "exponential",
    "f",
    "gamma",
    "generalized_normal",
    "geometric",
    "gumbel",
    "laplace",
    "loggamma",
    "logistic",
    "lognormal",
    "maxwell",
    "multivariate_normal",
    "normal",
    "orthogonal",
    "pareto",
    "permutation",
    "poisson",
    "rademacher",
    "randint",
    "rayleigh",
    "t",
    "triangular",
    "truncated_normal",
    "uniform",
    "wald",
];

/// A traced draw's result moved to `s`, as JAX ends a draw with
/// `out_sharding` inside a traced function: a `reshard` equation, which
/// takes only explicit mesh axes.
fn reshard_traced(
    interp: &mut Interp,
    v: crate::trace::Value,
    s: &crate::sharding::NamedSharding,
) -> Result<crate::trace::Value> {
    s.spec.validate(&s.mesh, v.ndim())?;
    for axis in s.spec.used_axes() {
        if s.mesh.axis_type(axis)? != AxisType::Explicit {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: out_sharding over the {} mesh axis '{axis}' inside a transformation (a draw can be resharded over explicit axes only)",
                format!("{:?}", s.mesh.axis_type(axis)?)
            );
        }
    }
    let params = crate::primitives::ConstraintParams {
        sharding: s.clone(),
        reshard: true,
        context_mesh: context_mesh(interp).map(|m| (*m).clone()),
        from_spec: false,
    };
    crate::trace::bind1(
        crate::primitives::Prim::ShardingConstraint(std::sync::Arc::new(params)),
        &[v],
    )
}

/// What `init(key, shape, dtype, out_sharding=...)` of
/// `jax.nn.initializers` returns: `out` placed as `out_sharding` says. The
/// initializers that draw end in a `reshard` inside a traced function, as
/// the draws they make do; `zeros`, `ones` and `constant` make their arrays
/// as `jnp.zeros` and `jnp.full` do.
pub fn place_initialized(
    interp: &mut Interp,
    label: &str,
    out: Obj,
    sharding: &Obj,
) -> Result<Obj> {
    let name = match label {
        "zeros" | "ones" | "constant" => label,
        _ => "initializer",
    };
    let f: NativeFn = std::rc::Rc::new(move |_, a: Args| {
        a.pos
            .first()
            .cloned()
            .ok_or_else(|| err!(RuntimeError, "an initializer's result is missing"))
    });
    with_out_sharding(
        interp,
        name,
        &f,
        Args::with(vec![out], vec![]),
        sharding.clone(),
    )
}
