//! Calls to `jax.numpy`, `jax.nn` and `optax.tree` functions by name,
//! through the interpreter, for the parts of optax written as compositions
//! of them (most losses and projections). Each step is then the function
//! optax calls, with its dtype promotion, weak types, `axis`/`where`
//! handling and errors, in optax's order.

use rustpython_parser::ast::Operator;

use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::ops::getattr;
use crate::python::value::Obj;

/// `module.name(*pos, **kw)`.
pub(super) use crate::modules::call_in as call;

/// `jnp.name(*pos)`.
pub(super) fn jnp(interp: &mut Interp, name: &str, pos: Vec<Obj>) -> Result<Obj> {
    call(interp, "jax.numpy", name, pos, vec![])
}

/// `jnp.name(*pos, **kw)`.
pub(super) fn jnp_kw(
    interp: &mut Interp,
    name: &str,
    pos: Vec<Obj>,
    kw: Vec<(&str, Obj)>,
) -> Result<Obj> {
    call(interp, "jax.numpy", name, pos, kw)
}

/// `jax.nn.name(*pos, **kw)`.
pub(super) fn nn(
    interp: &mut Interp,
    name: &str,
    pos: Vec<Obj>,
    kw: Vec<(&str, Obj)>,
) -> Result<Obj> {
    call(interp, "jax.nn", name, pos, kw)
}

/// `optax.tree.name(*pos, **kw)`.
pub(super) fn tree(
    interp: &mut Interp,
    name: &str,
    pos: Vec<Obj>,
    kw: Vec<(&str, Obj)>,
) -> Result<Obj> {
    call(interp, "optax.tree", name, pos, kw)
}

/// Optax's check that an input is floating point: a `TypeError` naming
/// the dtype otherwise.
pub(super) fn check_floating(interp: &mut Interp, x: &Obj) -> Result<()> {
    let dtype = call(interp, "jax.dtypes", "result_type", vec![x.clone()], vec![])?;
    let jnp_module = super::super::import(interp, "jax.numpy")?;
    let floating = getattr(interp, &jnp_module, "floating")?;
    let ok = jnp(interp, "issubdtype", vec![dtype.clone(), floating])?;
    if crate::python::ops::truthy(&ok, "issubdtype")? {
        return Ok(());
    }
    let name = interp.str(&dtype)?;
    crate::bail!(
        TypeError,
        "Expected the input to have a dtype that is a subdtype of <class 'numpy.floating'>, got {name} instead"
    )
}

/// `a <op> b` as Python evaluates it: Python numbers in double precision,
/// arrays as jnp's operators.
pub(super) fn arith(interp: &mut Interp, op: Operator, a: &Obj, b: &Obj) -> Result<Obj> {
    interp.binop(&op, a, b, false)
}

/// `a + b`.
pub(super) fn add(interp: &mut Interp, a: &Obj, b: &Obj) -> Result<Obj> {
    arith(interp, Operator::Add, a, b)
}

/// `a - b`.
pub(super) fn sub(interp: &mut Interp, a: &Obj, b: &Obj) -> Result<Obj> {
    arith(interp, Operator::Sub, a, b)
}

/// `a * b`.
pub(super) fn mul(interp: &mut Interp, a: &Obj, b: &Obj) -> Result<Obj> {
    arith(interp, Operator::Mult, a, b)
}

/// `a / b`.
pub(super) fn div(interp: &mut Interp, a: &Obj, b: &Obj) -> Result<Obj> {
    arith(interp, Operator::Div, a, b)
}

/// `-a`.
pub(super) fn neg(interp: &mut Interp, a: &Obj) -> Result<Obj> {
    interp.unary(&rustpython_parser::ast::UnaryOp::USub, a)
}

/// `x.name` (`x.dtype`, `x.shape`).
pub(super) fn attr(interp: &mut Interp, x: &Obj, name: &str) -> Result<Obj> {
    getattr(interp, x, name)
}
