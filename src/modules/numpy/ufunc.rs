//! `jnp.ufunc`: the objects JAX makes of fourteen elementwise functions
//! (`jnp.add`, `jnp.maximum`, `jnp.logical_and`, ...) and `jnp.frompyfunc`,
//! which makes one of any function of scalars.
//!
//! A ufunc calls its function and adds NumPy's methods: `reduce`,
//! `accumulate`, `at`, `outer` and `reduceat`. Where JAX gives a ufunc a
//! method of its own (`add.reduce` is `jnp.sum`, `multiply.accumulate` is
//! `jnp.cumprod`, `add.at` is `.at[...].add`), the same function runs here;
//! the others run the loop JAX writes for them, a `fori_loop` or `scan` over
//! the leading axis calling the ufunc once per step, inside `jax.jit` as
//! JAX compiles the methods (so products fuse into sums as XLA fuses them).

use std::cell::RefCell;

use crate::bail;
use crate::error::Result;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::{getattr, getitem};
use crate::python::value::{Args, Obj};

use super::composed::call as jnp;

/// The ufuncs of `jax.numpy`: name, inputs, identity.
const UFUNCS: [(&str, usize, Identity); 14] = [
    ("negative", 1, Identity::None),
    ("add", 2, Identity::Int(0)),
    ("multiply", 2, Identity::Int(1)),
    ("bitwise_and", 2, Identity::Int(-1)),
    ("bitwise_or", 2, Identity::Int(0)),
    ("bitwise_xor", 2, Identity::Int(0)),
    ("subtract", 2, Identity::None),
    ("minimum", 2, Identity::None),
    ("maximum", 2, Identity::None),
    ("logical_and", 2, Identity::Bool(true)),
    ("logical_or", 2, Identity::Bool(false)),
    ("logical_xor", 2, Identity::Bool(false)),
    ("logaddexp", 2, Identity::NegInf),
    ("logaddexp2", 2, Identity::NegInf),
];

#[derive(Clone, Copy)]
enum Identity {
    None,
    Int(i64),
    Bool(bool),
    NegInf,
}

impl Identity {
    fn obj(self) -> Obj {
        match self {
            Identity::None => Obj::None,
            Identity::Int(n) => Obj::Int(n),
            Identity::Bool(b) => Obj::Bool(b),
            Identity::NegInf => Obj::Float(f64::NEG_INFINITY),
        }
    }
}

/// A `jnp.ufunc`.
pub struct Ufunc {
    name: String,
    func: Obj,
    nin: usize,
    nout: usize,
    identity: Obj,
    /// One of JAX's own ufuncs (whose call is the function itself), rather
    /// than one made by `frompyfunc` (whose call is the jitted
    /// `jnp.vectorize` of the function, made once).
    builtin: bool,
    vectorized: RefCell<Option<Obj>>,
}

/// Makes `jnp.add` and the other ufuncs of the built module `m` ufunc
/// objects around the functions they were, and adds `jnp.ufunc` and
/// `jnp.frompyfunc`.
pub(super) fn install(m: &Obj) {
    let Obj::Module(module) = m else { return };
    let mut attrs = module.attrs.borrow_mut();
    for (name, nin, identity) in UFUNCS {
        let Some(slot) = attrs.iter_mut().find(|(k, _)| k == name) else {
            continue;
        };
        slot.1 = Obj::lib(Ufunc {
            name: name.to_string(),
            func: slot.1.clone(),
            nin,
            nout: 1,
            identity: identity.obj(),
            builtin: true,
            vectorized: RefCell::new(None),
        });
    }
    attrs.push(("ufunc".into(), Obj::lib(UfuncType)));
    attrs.push((
        "frompyfunc".into(),
        Obj::native("jax.numpy.frompyfunc", frompyfunc),
    ));
}

/// `jnp.frompyfunc(func, /, nin, nout, *, identity=None)`.
fn frompyfunc(interp: &mut Interp, a: Args) -> Result<Obj> {
    let func = a.req(Some(0), "func", "frompyfunc")?;
    let count = |i, name| -> Result<usize> {
        let n = to_int(&a.req(Some(i), name, "frompyfunc")?)?;
        usize::try_from(n).map_err(|_| crate::err!(ValueError, "{name} must be non-negative"))
    };
    let (nin, nout) = (count(1, "nin")?, count(2, "nout")?);
    Ok(Obj::lib(Ufunc {
        name: match getattr(interp, &func, "__name__") {
            Ok(n) => crate::python::format::str_of(&n),
            Err(_) => crate::modules::jax::func_name(&func),
        },
        func,
        nin,
        nout,
        identity: a.get(None, "identity").unwrap_or(Obj::None),
        builtin: false,
        vectorized: RefCell::new(None),
    }))
}

/// The class `jnp.ufunc`.
struct UfuncType;

impl Object for UfuncType {
    fn type_name(&self) -> String {
        "type".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok((name == "__name__").then(|| Obj::str("ufunc")))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("<class 'jax.numpy.ufunc'>".into())
    }

    fn instancecheck(&self, obj: &Obj) -> Option<bool> {
        Some(obj.downcast::<Ufunc>().is_some())
    }
}

impl Object for Ufunc {
    fn type_name(&self) -> String {
        "ufunc".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("jax.numpy")
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let method = |f: fn(&mut Interp, &Ufunc, &Obj, Args) -> Result<Obj>| {
            let me = this.clone();
            let full = format!("{}.{name}", self.name);
            Some(Obj::native(full, move |i, a| {
                match me.downcast::<Ufunc>() {
                    Some(u) => f(i, u, &me, a),
                    None => bail!(TypeError, "not a ufunc"),
                }
            }))
        };
        Ok(match name {
            "nin" => Some(Obj::Int(self.nin as i64)),
            "nout" => Some(Obj::Int(self.nout as i64)),
            "nargs" => Some(Obj::Int(self.nin as i64)),
            "identity" => Some(self.identity.clone()),
            "__name__" => Some(Obj::str(&self.name)),
            "reduce" => method(super::ufunc_methods::reduce),
            "accumulate" => method(super::ufunc_methods::accumulate),
            "at" => method(super::ufunc_methods::at),
            "outer" => method(super::ufunc_methods::outer),
            "reduceat" => method(super::ufunc_methods::reduceat),
            _ => None,
        })
    }

    fn call(&self, interp: &mut Interp, _: &Obj, mut a: Args) -> Option<Result<Obj>> {
        Some(self.apply(interp, &mut a))
    }

    fn callable(&self) -> bool {
        true
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("<jnp.ufunc '{}'>", self.name))
    }
}

impl Ufunc {
    /// The ufunc's name, for messages.
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// Inputs and outputs.
    pub(super) fn arity(&self) -> (usize, usize) {
        (self.nin, self.nout)
    }

    /// The identity, Python None when there is none.
    pub(super) fn identity(&self) -> &Obj {
        &self.identity
    }

    /// One of JAX's fourteen, rather than made by `frompyfunc`.
    pub(super) fn builtin(&self) -> bool {
        self.builtin
    }

    /// `ufunc(*args)`: `out=` and `where=` are refused as JAX refuses them.
    fn apply(&self, interp: &mut Interp, a: &mut Args) -> Result<Obj> {
        for what in ["out", "where"] {
            if a.take_kw(what).is_some_and(|o| !matches!(o, Obj::None)) {
                bail!(
                    NotImplementedError,
                    "{what} argument of <jnp.ufunc '{}'>",
                    self.name
                );
            }
        }
        if self.builtin {
            return interp.call(&self.func, a.clone());
        }
        let f = self.vectorized(interp)?;
        interp.call(&f, a.clone())
    }

    /// `jax.jit(jnp.vectorize(func))`, made once.
    fn vectorized(&self, interp: &mut Interp) -> Result<Obj> {
        if let Some(f) = self.vectorized.borrow().clone() {
            return Ok(f);
        }
        let v = jnp(interp, "vectorize", vec![self.func.clone()], vec![])?;
        let jax = crate::modules::import(interp, "jax")?;
        let jit = getattr(interp, &jax, "jit")?;
        let f = interp.call(&jit, Args::new(vec![v]))?;
        *self.vectorized.borrow_mut() = Some(f.clone());
        Ok(f)
    }
}

pub(super) use crate::modules::{call_in, call_method as method};

/// `x[key]`.
pub(super) fn item(interp: &mut Interp, x: &Obj, key: Obj) -> Result<Obj> {
    getitem(interp, x, &key)
}
