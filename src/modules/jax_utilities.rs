//! `jax.device_get`, `jax.disable_jit`, `jax.named_scope` (as a context
//! and as a decorator) and `jax.custom_gradient`.
//!
//! `custom_gradient` is a `custom_vjp` whose forward rule keeps the
//! arguments as residuals and whose backward rule calls the function again
//! for its gradient function: JAX closes over the forward pass's values
//! instead, which gives the same numbers, but the function's Python code
//! runs once more when it is differentiated.

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::{getattr, iterate};
use crate::python::pytree::{flatten, unflatten};
use crate::python::value::{Args, Obj};

use super::Builder;

/// How many `with jax.disable_jit():` blocks the run is inside.
#[derive(Default)]
pub struct DisableJit(usize);

/// Whether jitted functions run as plain Python calls now.
pub fn jit_disabled(interp: &mut Interp) -> bool {
    interp.state::<DisableJit>().0 > 0
}

/// Adds the functions to the `jax` module.
pub fn register(b: &mut Builder) {
    b.func("device_get", device_get);
    b.func("disable_jit", |_, a| {
        let on = match a.get(Some(0), "disable") {
            Some(o) => crate::python::ops::truthy(&o, "disable")?,
            None => true,
        };
        Ok(Obj::lib(DisableJitContext { on }))
    });
    b.func("named_scope", |_, a| {
        let name = a.req(Some(0), "name", "named_scope")?;
        if !matches!(name, Obj::Str(_)) {
            bail!(TypeError, "named_scope name argument must be a string.");
        }
        Ok(Obj::lib(NamedScope))
    });
    b.func("custom_gradient", custom_gradient);
}

/// `jax.device_get(x)`: every array of the tree as a NumPy array; other
/// leaves as they are.
fn device_get(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "device_get")?;
    let (leaves, def) = flatten(interp, &x)?;
    let np = super::import(interp, "numpy")?;
    let asarray = getattr(interp, &np, "asarray")?;
    let mut out = vec![];
    for l in leaves {
        out.push(match l {
            Obj::Array(_) => interp.call(&asarray, Args::new(vec![l]))?,
            other => other,
        });
    }
    unflatten(interp, &def, &out)
}

/// What `jax.disable_jit()` returns.
struct DisableJitContext {
    on: bool,
}

impl Object for DisableJitContext {
    fn type_name(&self) -> String {
        "_GeneratorContextManager".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("contextlib")
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let on = self.on;
        Ok(match name {
            "__enter__" => Some(Obj::native("disable_jit.__enter__", move |i, _| {
                // A block that does not disable still nests, so exits pair up.
                let s = i.state::<DisableJit>();
                s.0 += usize::from(on);
                Ok(Obj::None)
            })),
            "__exit__" => Some(Obj::native("disable_jit.__exit__", move |i, _| {
                let s = i.state::<DisableJit>();
                s.0 -= usize::from(on && s.0 > 0);
                Ok(Obj::Bool(false))
            })),
            _ => None,
        })
    }
}

/// What `jax.named_scope(name)` returns: names only label operations in
/// compiled programs, so for values it is a context that does nothing and
/// a decorator that gives the function back.
struct NamedScope;

impl Object for NamedScope {
    fn type_name(&self) -> String {
        "_GeneratorContextManager".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("contextlib")
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "__enter__" => Some(Obj::native("named_scope.__enter__", |_, _| Ok(Obj::None))),
            "__exit__" => Some(Obj::native("named_scope.__exit__", |_, _| {
                Ok(Obj::Bool(false))
            })),
            _ => None,
        })
    }

    fn call(&self, _: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        Some(args.req(Some(0), "func", "named_scope"))
    }

    fn callable(&self) -> bool {
        true
    }
}

/// `fun(*args)`, which must give `(value, gradient function)`.
fn value_and_rule(interp: &mut Interp, fun: &Obj, args: Vec<Obj>) -> Result<(Obj, Obj)> {
    let out = interp.call(fun, Args::new(args))?;
    let parts = match &out {
        Obj::Tuple(_) | Obj::List(_) => iterate(&out)?,
        _ => vec![],
    };
    let [value, rule] = &parts[..] else {
        bail!(
            TypeError,
            "a custom_gradient function must return a pair (value, vjp function)"
        );
    };
    Ok((value.clone(), rule.clone()))
}

/// `jax.custom_gradient(fun)`.
fn custom_gradient(interp: &mut Interp, a: Args) -> Result<Obj> {
    let fun = a.req(Some(0), "fun", "custom_gradient")?;
    let f = fun.clone();
    let primal = Obj::native(super::jax::func_name(&fun), move |i, a| {
        Ok(value_and_rule(i, &f, a.pos.clone())?.0)
    });
    let wrapped = super::custom::custom_vjp(interp, Args::new(vec![primal]))?;
    let f = fun.clone();
    let fwd = Obj::native("custom_gradient_fwd", move |i, a| {
        let (value, _) = value_and_rule(i, &f, a.pos.clone())?;
        Ok(Obj::tuple(vec![value, Obj::tuple(a.pos.clone())]))
    });
    let f = fun;
    let bwd = Obj::native("custom_gradient_bwd", move |i, a| {
        let res = a.req(Some(0), "res", "custom_gradient_bwd")?;
        let g = a.req(Some(1), "g", "custom_gradient_bwd")?;
        let (_, rule) = value_and_rule(i, &f, iterate(&res)?)?;
        let ct = i.call(&rule, Args::new(vec![g]))?;
        Ok(match ct {
            Obj::Tuple(_) => ct,
            other => Obj::tuple(iterate(&other)?),
        })
    });
    let defvjp = getattr(interp, &wrapped, "defvjp")?;
    interp.call(&defvjp, Args::new(vec![fwd, bwd]))?;
    Ok(wrapped)
}
