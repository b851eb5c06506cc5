//! `sparse.sparsify(f)`: `f`, written with dense `jax.numpy` calls, run on
//! `BCOO` arguments.
//!
//! While the sparsified function runs, the functions of `jax.numpy` are
//! replaced by versions that look at their arguments: without a `BCOO`
//! they are the dense function itself; with one they apply JAX's sparse
//! rule for the operation (a zero-preserving unary function maps the
//! stored values, products and sums use the `BCOO` operations), and an
//! operation JAX's rules would densify or that shardlab lacks is refused
//! by name. Programs that reach `jax.numpy` through names bound before the
//! call (`from jax.numpy import sin`) do not see the replacements and fail
//! on the `BCOO` argument instead.

use rustpython_parser::ast::Operator;

use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::{elementwise, is_bcoo, jnp, layout, new_bcoo, refuse, Parts};

/// How many sparsified calls are running.
#[derive(Default)]
struct Active(usize);

/// True while a sparsified function runs.
pub fn active(interp: &mut Interp) -> bool {
    interp.state::<Active>().0 > 0
}

/// The unary functions that map zero to zero, applied to the stored
/// values; the linear ones need no deduplication first.
const UNARY: &[&str] = &[
    "abs", "absolute", "arcsin", "arcsinh", "arctan", "arctanh", "expm1", "log1p", "sign", "sin",
    "sinh", "sqrt", "square", "tan", "tanh",
];
const LINEAR: &[&str] = &["negative", "positive", "conj", "conjugate", "real", "imag"];

/// `sparse.sparsify(f, use_tracer=False)`.
pub fn sparsify(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "f", "sparsify")?;
    if super::bool_arg(interp, &a, Some(1), "use_tracer", false)? {
        return refuse("sparsify with use_tracer=True");
    }
    Ok(Obj::native("sparsify.wrapped", move |i, args| {
        run(i, &f, args)
    }))
}

/// Calls `f` with the sparse-aware `jax.numpy` in place.
fn run(interp: &mut Interp, f: &Obj, args: Args) -> Result<Obj> {
    let jnp_mod = super::super::import(interp, "jax.numpy")?;
    let Obj::Module(m) = &jnp_mod else {
        return refuse("sparsify without the jax.numpy module");
    };
    let saved = m.attrs.borrow().clone();
    let wrapped = saved
        .iter()
        .map(|(name, v)| match v {
            // The functions, and the ufunc objects (`jnp.multiply`).
            Obj::Native(_) => (name.clone(), wrapper(name, v.clone())),
            Obj::Lib(_) if v.type_name() == "ufunc" => (name.clone(), wrapper(name, v.clone())),
            _ => (name.clone(), v.clone()),
        })
        .collect();
    *m.attrs.borrow_mut() = wrapped;
    interp.state::<Active>().0 += 1;
    let out = interp.call(f, args);
    interp.state::<Active>().0 -= 1;
    *m.attrs.borrow_mut() = saved;
    out
}

/// True when `o` is a `BCOO` or a list or tuple holding one.
fn holds_bcoo(o: &Obj) -> bool {
    match o {
        Obj::List(l) => l.borrow().iter().any(holds_bcoo),
        Obj::Tuple(t) => t.iter().any(holds_bcoo),
        _ => is_bcoo(o),
    }
}

fn wrapper(name: &str, dense: Obj) -> Obj {
    let name = name.to_string();
    let full = format!("jax.numpy.{name}");
    Obj::native(full, move |i, a| {
        let sparse = a
            .pos
            .iter()
            .chain(a.kw.iter().map(|(_, v)| v))
            .any(holds_bcoo);
        if !sparse {
            return i.call(&dense, a);
        }
        rule(i, &name, a)
    })
}

/// The sparse rule for `jnp.NAME` with a `BCOO` among its arguments.
fn rule(interp: &mut Interp, name: &str, a: Args) -> Result<Obj> {
    let only = |a: &Args| a.pos.len() == 1 && a.kw.is_empty();
    let pair = |a: &Args| a.pos.len() == 2 && a.kw.is_empty();
    let x = a.pos.first().cloned().unwrap_or(Obj::None);
    match name {
        n if (UNARY.contains(&n) || LINEAR.contains(&n)) && only(&a) && is_bcoo(&x) => {
            map_values(interp, n, &x)
        }
        "multiply" | "add" | "subtract" | "divide" | "true_divide" | "matmul" | "dot"
            if pair(&a) =>
        {
            let op = match name {
                "multiply" => Operator::Mult,
                "add" => Operator::Add,
                "subtract" => Operator::Sub,
                "matmul" | "dot" => Operator::MatMult,
                _ => Operator::Div,
            };
            elementwise::binary(interp, &op, &a.pos[0], &a.pos[1])
        }
        "sum" if only(&a) && is_bcoo(&x) => layout::sum_all(interp, &Parts::of(&x)?),
        "transpose" if is_bcoo(&x) && a.kw.is_empty() && a.pos.len() <= 2 => {
            layout::transpose(interp, &x, a.pos.get(1).cloned())
        }
        _ => refuse(&format!(
            "sparsify of jax.numpy.{name} with these arguments"
        )),
    }
}

/// `jnp.NAME(x)` for a zero-preserving `NAME`: the same indices, `NAME` of
/// the values (summed per index first unless `NAME` is linear).
fn map_values(interp: &mut Interp, name: &str, x: &Obj) -> Result<Obj> {
    let p = Parts::of(x)?;
    if !p.unique && !LINEAR.contains(&name) {
        return refuse(&format!(
            "sparsify of jax.numpy.{name} on a BCOO with duplicate indices"
        ));
    }
    let data = jnp(interp, name, vec![p.data.clone()], vec![])?;
    new_bcoo(interp, p.with(data, p.indices.clone()))
}
