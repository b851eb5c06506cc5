//! What every part of `optax` is made of: the NamedTuple states, the
//! `GradientTransformation` objects (an `init` and an `update` function),
//! hyperparameters that are numbers, arrays or schedules, and the leaf-wise
//! maps over pytrees that updates are written with.
//!
//! Python-number hyperparameters stay `f64` until they meet an array, so
//! that expressions such as `1 - b1` round once, in double precision, as
//! they do in optax.

use std::rc::Rc;

use crate::array::{Array, DType};
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::pytree::{flatten, unflatten, TreeDef};
use crate::python::value::{Args, Class, Instance, Obj};
use crate::trace::Value;
use crate::{bail, err, ops as jops};

pub(super) use crate::modules::named_tuple::{field, named_class, OwnedField};

/// A NamedTuple-like class of optax: fields are pytree children. A state
/// optax names is the class [`super::states`] keeps for it; any other gets
/// a class of its own, which nothing compares by identity.
pub(super) fn state_class(name: &str, fields: &[&str]) -> Rc<Class> {
    if let Some(c) = super::states::class_for(name, fields) {
        return c;
    }
    let fields = fields.iter().map(|f| (f.to_string(), None)).collect();
    named_class(name, None, vec![], fields, vec![])
}

/// A field of [`tuple_class`] and the function giving its default.
pub(super) type Field = (&'static str, Option<fn() -> Obj>);

/// A NamedTuple class a program constructs (`LookaheadParams(fast=...,
/// slow=...)`): fields by position or name, with defaults, and the class
/// attributes `extra` (a docstring, class methods).
pub(super) fn tuple_class(name: &str, fields: &'static [Field], extra: Vec<(String, Obj)>) -> Obj {
    let fields = fields.iter().map(|(f, d)| (f.to_string(), *d)).collect();
    Obj::Class(named_class(name, None, vec![], fields, extra))
}

/// A state `name(field=value, ...)`.
pub(crate) fn state(name: &str, fields: Vec<(&str, Obj)>) -> Obj {
    let names: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
    Obj::Instance(Rc::new(Instance::with_attrs(
        state_class(name, &names),
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )))
}

/// `EmptyState()`.
pub(super) fn empty() -> Obj {
    state("EmptyState", vec![])
}

/// A `GradientTransformationExtraArgs(init, update)` made of Rust functions.
pub(super) fn transformation(
    init: impl Fn(&mut Interp, &Obj) -> Result<Obj> + 'static,
    update: impl Fn(&mut Interp, &Obj, &Obj, Option<&Obj>, &[(String, Obj)]) -> Result<(Obj, Obj)>
        + 'static,
) -> Obj {
    let init = Obj::native("init_fn", move |interp, a| {
        init(interp, &a.req(Some(0), "params", "init_fn")?)
    });
    let update = Obj::native("update_fn", move |interp, a| {
        let u = a.req(Some(0), "updates", "update_fn")?;
        let st = a.req(Some(1), "state", "update_fn")?;
        let p = a.opt(Some(2), "params");
        let extra: Vec<(String, Obj)> =
            a.kw.iter()
                .filter(|(k, _)| k != "params")
                .cloned()
                .collect();
        let (u, s) = update(interp, &u, &st, p.as_ref(), &extra)?;
        Ok(Obj::tuple(vec![u, s]))
    });
    wrap(init, update)
}

/// A transformation object from Python `init` and `update` callables.
pub(super) fn wrap(init: Obj, update: Obj) -> Obj {
    Obj::Instance(Rc::new(Instance::with_attrs(
        state_class("GradientTransformationExtraArgs", &["init", "update"]),
        vec![("init".into(), init), ("update".into(), update)],
    )))
}

/// A stateless transformation: `EmptyState()` and a map of the updates
/// that may read the parameters.
pub(super) fn stateless(
    f: impl Fn(&mut Interp, &Obj, Option<&Obj>) -> Result<Obj> + 'static,
) -> Obj {
    transformation(
        |_, _| Ok(empty()),
        move |interp, u, st, p, _| Ok((f(interp, u, p)?, st.clone())),
    )
}

/// `tx.init(params)` for any transformation object.
pub(super) fn call_init(interp: &mut Interp, tx: &Obj, params: &Obj) -> Result<Obj> {
    let init = crate::python::ops::getattr(interp, tx, "init")?;
    interp.call(&init, Args::new(vec![params.clone()]))
}

/// `tx.update(updates, state, params, **extra)` for any transformation
/// object, as the pair it returns.
pub(super) fn call_update(
    interp: &mut Interp,
    tx: &Obj,
    updates: &Obj,
    st: &Obj,
    params: Option<&Obj>,
    extra: &[(String, Obj)],
) -> Result<(Obj, Obj)> {
    let update = crate::python::ops::getattr(interp, tx, "update")?;
    let mut args = Args::new(vec![updates.clone(), st.clone()]);
    if let Some(p) = params {
        args.pos.push(p.clone());
    }
    args.kw = extra.to_vec();
    match interp.call(&update, args)? {
        Obj::Tuple(t) if t.len() == 2 => Ok((t[0].clone(), t[1].clone())),
        other => bail!(
            TypeError,
            "update must return (updates, state), got {}",
            other.type_name()
        ),
    }
}

/// A hyperparameter: a Python number, or an array (under
/// `inject_hyperparams` a traced one).
#[derive(Clone)]
pub(super) enum Hyper {
    Num(f64),
    Arr(Value),
}

impl Hyper {
    /// The hyperparameter `name` of `func`, or `default`.
    pub(super) fn arg(
        a: &Args,
        index: Option<usize>,
        name: &str,
        default: Option<f64>,
        func: &str,
    ) -> Result<Hyper> {
        match a.opt(index, name) {
            Some(o) => Hyper::from_obj(&o, name, func),
            None => default.map(Hyper::Num).ok_or_else(|| {
                err!(
                    TypeError,
                    "{func}() missing 1 required positional argument: '{name}'"
                )
            }),
        }
    }

    pub(super) fn from_obj(o: &Obj, name: &str, func: &str) -> Result<Hyper> {
        match o {
            Obj::Array(v) if v.shape().is_empty() => Ok(Hyper::Arr(v.clone())),
            other => match other.as_number() {
                Some(v) => Ok(Hyper::Num(v)),
                None => bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: optax.{func} with {name}={}",
                    repr_of(other)
                ),
            },
        }
    }

    /// The value as a float32 scalar (updates are float32).
    pub(super) fn value(&self) -> Value {
        match self {
            Hyper::Num(v) => jops::scalar(*v, DType::F32),
            Hyper::Arr(v) => v.clone(),
        }
    }

    /// `f(x)`, in double precision for a number.
    pub(super) fn map(
        &self,
        num: impl Fn(f64) -> f64,
        arr: impl Fn(&Value) -> Result<Value>,
    ) -> Result<Hyper> {
        Ok(match self {
            Hyper::Num(v) => Hyper::Num(num(*v)),
            Hyper::Arr(v) => Hyper::Arr(arr(v)?),
        })
    }

    /// `1 - x`.
    pub(super) fn one_minus(&self) -> Result<Hyper> {
        self.map(|v| 1.0 - v, |v| jops::sub(&jops::scalar(1.0, v.dtype()), v))
    }

    /// `-x`.
    pub(super) fn neg(&self) -> Result<Hyper> {
        self.map(|v| -v, jops::neg)
    }

    /// The value of a hyperparameter shardlab needs as a number (an
    /// initial value, a size): a Python number or a concrete scalar array
    /// (as `inject_hyperparams` passes them); a traced one is refused.
    pub(super) fn fixed(&self, name: &str, func: &str) -> Result<f64> {
        match self {
            Hyper::Num(v) => Ok(*v),
            Hyper::Arr(Value::Concrete(a)) if a.size() == 1 => Ok(a.get_f64(0)),
            Hyper::Arr(_) => bail!(
                NotImplementedError,
                "not supported by shardlab yet: optax.{func} with a traced {name}"
            ),
        }
    }

    /// The number, when the hyperparameter is a Python number.
    pub(super) fn num(&self) -> Option<f64> {
        match self {
            Hyper::Num(v) => Some(*v),
            Hyper::Arr(_) => None,
        }
    }
}

/// `h * x`.
pub(super) fn hmul(h: &Hyper, x: &Value) -> Result<Value> {
    jops::mul(&h.value(), x)
}

/// A learning rate: a hyperparameter or a schedule (a callable of the step
/// count).
#[derive(Clone)]
pub(super) enum Rate {
    Fixed(Hyper),
    Schedule(Obj),
}

impl Rate {
    pub(super) fn arg(
        a: &Args,
        index: Option<usize>,
        name: &str,
        default: Option<f64>,
        func: &str,
    ) -> Result<Rate> {
        match a.opt(index, name) {
            Some(o) if is_callable(&o) => Ok(Rate::Schedule(o)),
            _ => Ok(Rate::Fixed(Hyper::arg(a, index, name, default, func)?)),
        }
    }
}

/// Whether `o` is a Python callable (a schedule rather than a value).
pub(super) fn is_callable(o: &Obj) -> bool {
    match o {
        Obj::Func(_) | Obj::Native(_) | Obj::Method(_) | Obj::Class(_) => true,
        Obj::Lib(l) => l.callable(),
        Obj::Instance(i) => i.class.lookup("__call__").is_some(),
        _ => false,
    }
}

/// A boolean flag argument.
pub(super) fn flag(a: &Args, index: Option<usize>, name: &str, default: bool) -> Result<bool> {
    match a.get(index, name) {
        Some(o) => crate::python::ops::truthy(&o, name),
        None => Ok(default),
    }
}

/// The leaves of a pytree as arrays, and its structure.
pub(super) fn leaves_of(interp: &mut Interp, o: &Obj) -> Result<(Vec<Value>, TreeDef)> {
    let (leaves, def) = flatten(interp, o)?;
    let vals = leaves.iter().map(to_value).collect::<Result<_>>()?;
    Ok((vals, def))
}

/// A pytree of structure `def` with the given leaves.
pub(super) fn rebuild(interp: &mut Interp, def: &TreeDef, vals: Vec<Value>) -> Result<Obj> {
    let leaves: Vec<Obj> = vals.into_iter().map(Obj::Array).collect();
    unflatten(interp, def, &leaves)
}

/// A function giving a tree's leaves and its structure.
type LeavesFn<T> = fn(&mut Interp, &Obj) -> Result<(Vec<T>, TreeDef)>;

/// The leaves of several trees side by side: row `i` holds every tree's
/// leaf `i`. Every tree must have the first one's number of leaves.
pub(super) fn zip_leaves<T>(
    interp: &mut Interp,
    trees: &[&Obj],
    leaves: LeavesFn<T>,
) -> Result<(Vec<Vec<T>>, TreeDef)> {
    let (first, def) = leaves(interp, trees[0])?;
    let mut rows: Vec<Vec<T>> = first.into_iter().map(|x| vec![x]).collect();
    for t in &trees[1..] {
        let (l, _) = leaves(interp, t)?;
        if l.len() != rows.len() {
            bail!(
                ValueError,
                "Custom node type mismatch; expected a tree with {} leaves, got {}",
                rows.len(),
                l.len()
            );
        }
        for (row, x) in rows.iter_mut().zip(l) {
            row.push(x);
        }
    }
    Ok((rows, def))
}

/// `jax.tree.map(f, trees[0], trees[1], ...)` over array leaves; every tree
/// has the first one's leaves.
pub(super) fn tree_map(
    interp: &mut Interp,
    trees: &[&Obj],
    mut f: impl FnMut(&[&Value]) -> Result<Value>,
) -> Result<Obj> {
    let (rows, def) = zip_leaves(interp, trees, leaves_of)?;
    let mut out = Vec::with_capacity(rows.len());
    for row in &rows {
        let args: Vec<&Value> = row.iter().collect();
        out.push(f(&args)?);
    }
    rebuild(interp, &def, out)
}

/// Zeros shaped like every leaf of `params`.
pub(super) fn zeros_tree(interp: &mut Interp, params: &Obj) -> Result<Obj> {
    full_tree(interp, params, 0.0)
}

/// An initial value `h` (read only when the state is made, so that under
/// `inject_hyperparams` a traced value in the update does not matter) in
/// the shape and dtype of every leaf of `params`.
pub(super) fn initial_tree(
    interp: &mut Interp,
    params: &Obj,
    h: &Hyper,
    func: &str,
) -> Result<Obj> {
    full_tree(interp, params, h.fixed("initial value", func)?)
}

/// `v` in the shape and dtype of every leaf of `params`. Optax fills its
/// states with `jnp.full_like`, so a sharded parameter's state is sharded
/// as the parameter is (its spec spelled the same way).
pub(super) fn full_tree(interp: &mut Interp, params: &Obj, v: f64) -> Result<Obj> {
    tree_map(interp, &[params], |x| {
        let full = Value::Concrete(Array::full(&x[0].shape(), v, x[0].dtype()));
        // `full_like` of a weakly typed parameter is weakly typed.
        let full = jops::convert_weak(&full, x[0].dtype(), x[0].aval().weak)?;
        Ok(jops::placed_like(full, x[0]))
    })
}

/// A step count: `Array(0, dtype=int32)`.
pub(super) fn zero_count() -> Obj {
    Obj::Array(Value::Concrete(Array::scalar_i32(0)))
}

/// `count + 1`, saturating at the largest int32 (optax's
/// `safe_increment`).
pub(super) fn safe_increment(count: &Value) -> Result<Value> {
    let max = jops::scalar(i32::MAX as f64, DType::I32);
    let inc = jops::add(count, &jops::scalar(1.0, DType::I32))?;
    jops::select(&jops::less(count, &max)?, &inc, &max)
}

/// The global norm `sqrt(sum of squares of all leaves)`, summed leaf by
/// leaf in order as `optax.tree.norm` does.
pub(super) fn global_norm(leaves: &[Value]) -> Result<Value> {
    let mut total: Option<Value> = None;
    for x in leaves {
        let s = jops::sum(&jops::integer_pow(x, 2)?, None, false)?;
        total = Some(match total {
            None => s,
            Some(t) => jops::add(&t, &s)?,
        });
    }
    jops::sqrt(&total.unwrap_or_else(|| jops::scalar(0.0, DType::F32)))
}

/// Calls a schedule with the step count.
pub(super) fn schedule_at(interp: &mut Interp, schedule: &Obj, count: &Value) -> Result<Value> {
    let v = interp.call(schedule, Args::new(vec![Obj::Array(count.clone())]))?;
    to_value(&v)
}
