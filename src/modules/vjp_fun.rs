//! The function `jax.vjp` returns: an instance of `VJP`, a class
//! registered as a pytree node as JAX's is. Its leaves are the residuals
//! of the forward pass (the arguments the backward pass reads, in their
//! order, then the values computed from them; see `transforms::split`),
//! so it can be returned from a traced function, passed into one, or
//! mapped over. Rebuilt from leaves, it runs the backward program on those
//! leaves; the instance `jax.vjp` made runs its pullback directly.

use std::cell::RefCell;
use std::rc::Rc;

use crate::bail;
use crate::error::Result;
use crate::transforms::split::Split;
use crate::transforms::Pullback;

use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::iterate;
use crate::python::pytree::{
    flatten, leaf_values, unflatten, value_objs, Registered, Registry, TreeDef,
};
use crate::python::value::{Args, Class, Instance, Obj};

/// What every `VJP` made from one `jax.vjp` call shares.
struct VjpState {
    pullback: Pullback,
    /// The arguments' structure, for their cotangents.
    in_def: TreeDef,
    /// The split into residuals, made when first flattened.
    split: RefCell<Option<Rc<Split>>>,
}

impl VjpState {
    fn split(&self, interp: &mut Interp) -> Result<Rc<Split>> {
        if let Some(s) = &*self.split.borrow() {
            return Ok(s.clone());
        }
        // Tracing the backward pass calls custom_vjp rules.
        let s = Rc::new(super::callbacks::lend(interp, || self.pullback.split())?);
        *self.split.borrow_mut() = Some(s.clone());
        Ok(s)
    }
}

/// A `VJP`'s aux data: the state behind it.
struct VjpAux(Rc<VjpState>);

impl Object for VjpAux {
    fn type_name(&self) -> String {
        "VJP".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("<vjp function>".into())
    }
}

/// How a `VJP` prints (JAX's repr names its internal program).
struct VjpRepr;

impl Object for VjpRepr {
    fn type_name(&self) -> String {
        "VJP".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("<function vjp_fun>".into())
    }
}

/// The `VJP` class of this run.
#[derive(Default)]
struct VjpClass(Option<Rc<Class>>);

const STATE: &str = "_state";
const RESIDUALS: &str = "_residuals";

/// The function `jax.vjp` returns for `pullback`, whose arguments have
/// the structure `in_def`.
pub(crate) fn make(interp: &mut Interp, pullback: Pullback, in_def: TreeDef) -> Result<Obj> {
    let class = vjp_class(interp)?;
    let state = VjpState {
        pullback,
        in_def,
        split: RefCell::new(None),
    };
    let this = Instance::new(class);
    this.set(STATE, Obj::Lib(Rc::new(VjpAux(Rc::new(state)))));
    Ok(Obj::Instance(Rc::new(this)))
}

fn state_of(o: &Obj) -> Result<Rc<VjpState>> {
    let state = match o {
        Obj::Instance(i) => i
            .get(STATE)
            .and_then(|s| s.downcast::<VjpAux>().map(|a| a.0.clone())),
        other => other.downcast::<VjpAux>().map(|a| a.0.clone()),
    };
    match state {
        Some(s) => Ok(s),
        None => bail!(TypeError, "expected a function returned by jax.vjp"),
    }
}

fn this_of(a: &Args) -> Result<Rc<Instance>> {
    match a.pos.first() {
        Some(Obj::Instance(i)) => Ok(i.clone()),
        _ => bail!(TypeError, "VJP methods need an instance"),
    }
}

/// `f_vjp(cotangent)`: the arguments' cotangents.
fn call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let this = this_of(&a)?;
    let state = state_of(&Obj::Instance(this.clone()))?;
    let ct = a.req(Some(1), "cotangent", "vjp_fun")?;
    let (leaves, _) = flatten(interp, &ct)?;
    let cts = leaf_values(&leaves)?;
    let ins = match this.get(RESIDUALS) {
        Some(res) => {
            let split = state.split(interp)?;
            let res = leaf_values(&iterate(&res)?)?;
            super::callbacks::lend(interp, || split.call(&res, &cts))?
        }
        // The backward pass calls custom_vjp rules and host callbacks.
        None => super::callbacks::lend(interp, || state.pullback.call(&cts))?,
    };
    super::debug_print::show_eager_prints(interp)?;
    unflatten(interp, &state.in_def, &value_objs(&ins))
}

/// The residuals as `(per-argument list, computed list)`, as JAX's node
/// holds them: an argument the backward pass does not read is `None`.
fn children(split: &Split, n_args: usize, res: &[Obj]) -> Obj {
    let mut args = vec![Obj::None; n_args];
    let mut computed = vec![];
    for (r, at) in res.iter().zip(&split.arg_of) {
        match at {
            Some(k) if *k < n_args => args[*k] = r.clone(),
            _ => computed.push(r.clone()),
        }
    }
    Obj::tuple(vec![Obj::list(args), Obj::list(computed)])
}

fn flatten_vjp(interp: &mut Interp, a: Args) -> Result<Obj> {
    let this = this_of(&a)?;
    let aux = this.get(STATE).unwrap_or(Obj::None);
    let state = state_of(&aux)?;
    let split = state.split(interp)?;
    let res = match this.get(RESIDUALS) {
        Some(res) => iterate(&res)?,
        None => {
            let vals = super::callbacks::lend(interp, || state.pullback.residuals(&split))?;
            value_objs(&vals)
        }
    };
    let n_args = state.in_def.num_leaves();
    Ok(Obj::tuple(vec![children(&split, n_args, &res), aux]))
}

fn unflatten_vjp(interp: &mut Interp, class: &Rc<Class>, a: Args) -> Result<Obj> {
    let aux = a.pos.first().cloned().unwrap_or(Obj::None);
    let state = state_of(&aux)?;
    let split = state.split(interp)?;
    let parts = iterate(a.pos.get(1).unwrap_or(&Obj::None))?;
    let [args, computed] = parts.as_slice() else {
        bail!(
            ValueError,
            "VJP nodes rebuild from (arguments, computed values)"
        );
    };
    let args = iterate(args)?;
    let mut computed = iterate(computed)?.into_iter();
    let mut res = vec![];
    for at in &split.arg_of {
        let next = match at {
            Some(k) => args.get(*k).cloned(),
            None => computed.next(),
        };
        res.push(next.unwrap_or(Obj::None));
    }
    let this = Instance::new(class.clone());
    this.set(STATE, aux);
    this.set(RESIDUALS, Obj::tuple(res));
    Ok(Obj::Instance(Rc::new(this)))
}

fn vjp_class(interp: &mut Interp) -> Result<Rc<Class>> {
    if let Some(c) = &interp.state::<VjpClass>().0 {
        return Ok(c.clone());
    }
    let attrs = vec![("__call__".to_string(), Obj::native("VJP.__call__", call))];
    let mut class = Class::new("VJP", vec![], attrs);
    class.native = Some(Rc::new(VjpRepr));
    let class = Rc::new(class);
    let c2 = class.clone();
    interp.state::<Registry>().register(Registered {
        class: class.clone(),
        flatten: Some(Obj::native("VJP.flatten", flatten_vjp)),
        flatten_with_keys: None,
        unflatten: Some(Obj::native("VJP.unflatten", move |i, a| {
            unflatten_vjp(i, &c2, a)
        })),
    })?;
    interp.state::<VjpClass>().0 = Some(class.clone());
    Ok(class)
}
