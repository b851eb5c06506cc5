//! jax.numpy functions that JAX defines under `jit`: staged into a program,
//! each call is one `jit` equation named as JAX names the function
//! (`jit[name=_where jaxpr={ ... }]`), whose body holds the operations.
//!
//! Only a staging trace (jit, make_jaxpr, map bodies) records the nested
//! equation; computing eagerly, or differentiating at top level, the
//! function's operations apply directly, as the equation would compute the
//! same values. The evaluators, the transforms and the partitioner already
//! take `jit` equations (a user's jitted function called inside a trace),
//! so the program computes the same numbers either way.

use std::sync::Arc;

use crate::error::Result;
use crate::primitives::{JitParams, Prim};
use crate::trace::Value;

/// Applies `f` to `args`, staged as a `jit` equation named `name` when the
/// innermost trace stages a program.
pub fn jitted<F>(name: &str, args: &[Value], f: F) -> Result<Vec<Value>>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    if !crate::trace::staging() {
        return f(args);
    }
    let traced = crate::trace::trace_values(args, f)?;
    if !traced.refs.is_empty() {
        crate::bail!(
            NotImplementedError,
            "not supported by shardlab yet: array refs in jax.numpy's {name}"
        );
    }
    let mut inputs = args.to_vec();
    inputs.extend(traced.captured);
    let program = JitParams {
        name: name.to_string(),
        donated: vec![false; inputs.len()],
        body: traced.jaxpr,
        keep_unused: false,
    };
    crate::trace::bind(Prim::Jit(Arc::new(program)), &inputs)
}

/// [`jitted`] of a function with one result.
pub fn jitted1<F>(name: &str, args: &[Value], f: F) -> Result<Value>
where
    F: FnOnce(&[Value]) -> Result<Value>,
{
    let mut outs = jitted(name, args, |v| Ok(vec![f(v)?]))?;
    Ok(outs.remove(0))
}
