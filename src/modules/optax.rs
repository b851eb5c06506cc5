//! `optax`: `sgd` (with optional momentum), `adam`, `adamw`, `chain` of the
//! transformations they are made of, `apply_updates` and a few losses.
//!
//! Every update works leaf by leaf on the flattened pytrees, with the float32
//! operations in optax's order (Python-float hyperparameters are weakly
//! typed scalars), so that training runs match optax step for step.

use std::cell::RefCell;
use std::rc::Rc;

use crate::array::DType;
use crate::error::Result;
use crate::trace::Value;
use crate::{bail, err, ops as jops};

use super::Builder;
use crate::python::array::to_value;
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::{iterate, truthy};
use crate::python::pytree::{flatten_known, unflatten_known, TreeDef};
use crate::python::value::{Args, Class, Instance, Obj};

/// One transformation of a chain.
#[derive(Clone, Debug)]
enum Step {
    Identity,
    Trace {
        decay: f64,
        nesterov: bool,
    },
    ScaleByAdam {
        b1: f64,
        b2: f64,
        eps: f64,
        eps_root: f64,
    },
    AddDecayedWeights(f64),
    Scale(f64),
}

/// A NamedTuple-like class of optax: fields are pytree children. Each state
/// gets its own class object; nothing compares them by identity.
fn state_class(name: &str, fields: &[&str]) -> Rc<Class> {
    let mut class = Class::new(
        name,
        vec![],
        vec![(
            "__optax_fields__".into(),
            Obj::tuple(fields.iter().map(Obj::str).collect()),
        )],
    );
    class.native = Some(Rc::new(NamedTuple));
    Rc::new(class)
}

/// What optax's NamedTuple states are: pytree nodes over their fields that
/// print as NamedTuples.
struct NamedTuple;

impl Object for NamedTuple {
    fn type_name(&self) -> String {
        "NamedTuple".into()
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        let Obj::Instance(i) = this else { return None };
        instance_repr(i)
    }

    fn children(&self, this: &Obj) -> Option<Vec<String>> {
        let Obj::Instance(i) = this else { return None };
        pytree_children(i)
    }
}

fn fields_of(i: &Instance) -> Option<Vec<String>> {
    match i.class.lookup("__optax_fields__") {
        Some(Obj::Tuple(t)) => Some(t.iter().map(crate::python::format::str_of).collect()),
        _ => None,
    }
}

/// The children of an optax state (its fields).
fn pytree_children(i: &Instance) -> Option<Vec<String>> {
    let f = fields_of(i)?;
    if i.class.name.starts_with("GradientTransformation") {
        return Some(vec![]);
    }
    Some(f)
}

/// `repr` of an optax state, as a NamedTuple prints.
fn instance_repr(i: &Instance) -> Option<String> {
    let fields = fields_of(i)?;
    let attrs = i.attrs.borrow();
    let parts: Vec<String> = fields
        .iter()
        .map(|f| {
            let v = attrs
                .iter()
                .find(|(k, _)| k == f)
                .map(|(_, v)| repr_of(v))
                .unwrap_or_default();
            format!("{f}={v}")
        })
        .collect();
    Some(format!("{}({})", i.class.name, parts.join(", ")))
}

fn state(name: &str, fields: Vec<(&str, Obj)>) -> Obj {
    let names: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
    Obj::Instance(Rc::new(Instance {
        class: state_class(name, &names),
        attrs: RefCell::new(
            fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        ),
    }))
}

fn field(o: &Obj, name: &str) -> Result<Obj> {
    match o {
        Obj::Instance(i) => i
            .attrs
            .borrow()
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| {
                err!(
                    AttributeError,
                    "'{}' object has no attribute '{name}'",
                    i.class.name
                )
            }),
        other => bail!(
            TypeError,
            "expected an optax state, got {}",
            other.type_name()
        ),
    }
}

fn c(v: f64) -> Value {
    jops::scalar(v, DType::F32)
}

fn leaves_of(o: &Obj) -> Result<(Vec<Value>, TreeDef)> {
    let (leaves, def) = flatten_known(o)?;
    let vals = leaves.iter().map(to_value).collect::<Result<_>>()?;
    Ok((vals, def))
}

fn rebuild(def: &TreeDef, vals: Vec<Value>) -> Result<Obj> {
    unflatten_known(def, &vals.into_iter().map(Obj::Array).collect::<Vec<_>>())
}

fn zeros_tree(params: &Obj) -> Result<Obj> {
    let (vals, def) = leaves_of(params)?;
    let z = vals.iter().map(jops::zeros_like).collect();
    rebuild(&def, z)
}

fn check_len(what: &str, a: usize, b: usize) -> Result<()> {
    if a != b {
        bail!(
            ValueError,
            "{what}: the tree has {a} leaves but the updates have {b}"
        );
    }
    Ok(())
}

impl Step {
    fn init(&self, params: &Obj) -> Result<Obj> {
        Ok(match self {
            Step::Identity | Step::Scale(_) | Step::AddDecayedWeights(_) => {
                state("EmptyState", vec![])
            }
            Step::Trace { .. } => state("TraceState", vec![("trace", zeros_tree(params)?)]),
            Step::ScaleByAdam { .. } => state(
                "ScaleByAdamState",
                vec![
                    (
                        "count",
                        Obj::Array(Value::Concrete(crate::array::Array::scalar_i32(0))),
                    ),
                    ("mu", zeros_tree(params)?),
                    ("nu", zeros_tree(params)?),
                ],
            ),
        })
    }

    fn update(
        &self,
        g: Vec<Value>,
        st: &Obj,
        params: Option<&[Value]>,
    ) -> Result<(Vec<Value>, Obj)> {
        match self {
            Step::Identity => Ok((g, st.clone())),
            Step::Scale(s) => {
                let out = g
                    .iter()
                    .map(|x| jops::mul(&c(*s), x))
                    .collect::<Result<_>>()?;
                Ok((out, st.clone()))
            }
            Step::AddDecayedWeights(wd) => add_decayed_weights(*wd, g, st, params),
            Step::Trace { decay, nesterov } => trace(*decay, *nesterov, g, st),
            Step::ScaleByAdam {
                b1,
                b2,
                eps,
                eps_root,
            } => scale_by_adam([*b1, *b2, *eps, *eps_root], g, st),
        }
    }
}

/// `add_decayed_weights`: `g + weight_decay * params`.
fn add_decayed_weights(
    wd: f64,
    g: Vec<Value>,
    st: &Obj,
    params: Option<&[Value]>,
) -> Result<(Vec<Value>, Obj)> {
    let Some(p) = params else {
        bail!(
            ValueError,
            "You are using a transformation that requires the current value of parameters, but you are not passing `params` when calling `update`."
        );
    };
    check_len("add_decayed_weights", p.len(), g.len())?;
    if wd == 0.0 {
        return Ok((g, st.clone()));
    }
    let out = g
        .iter()
        .zip(p)
        .map(|(x, p)| jops::add(x, &jops::mul(&c(wd), p)?))
        .collect::<Result<_>>()?;
    Ok((out, st.clone()))
}

/// `trace` (momentum): `t = g + decay * t`; the update is `t`, or with
/// Nesterov `g + decay * t`.
fn trace(decay: f64, nesterov: bool, g: Vec<Value>, st: &Obj) -> Result<(Vec<Value>, Obj)> {
    let (t, def) = leaves_of(&field(st, "trace")?)?;
    check_len("trace", t.len(), g.len())?;
    let f = |g: &Value, t: &Value| jops::add(g, &jops::mul(&c(decay), t)?);
    let new_t: Vec<Value> = g
        .iter()
        .zip(&t)
        .map(|(g, t)| f(g, t))
        .collect::<Result<_>>()?;
    let out = if nesterov {
        g.iter()
            .zip(&new_t)
            .map(|(g, t)| f(g, t))
            .collect::<Result<_>>()?
    } else {
        new_t.clone()
    };
    Ok((
        out,
        state("TraceState", vec![("trace", rebuild(&def, new_t)?)]),
    ))
}

/// `scale_by_adam` with `[b1, b2, eps, eps_root]`: the moment estimates,
/// bias-corrected with the incremented count (which saturates at
/// `i32::MAX`, as optax's `safe_int32_increment` does).
fn scale_by_adam(hyper: [f64; 4], g: Vec<Value>, st: &Obj) -> Result<(Vec<Value>, Obj)> {
    let [b1, b2, eps, eps_root] = hyper;
    let (mu, def) = leaves_of(&field(st, "mu")?)?;
    let (nu, _) = leaves_of(&field(st, "nu")?)?;
    check_len("scale_by_adam", mu.len(), g.len())?;
    let count = to_value(&field(st, "count")?)?;
    let mu = moment(&g, &mu, b1, 1)?;
    let nu = moment(&g, &nu, b2, 2)?;
    let max = jops::scalar(i32::MAX as f64, DType::I32);
    let inc = jops::add(&count, &jops::scalar(1.0, DType::I32))?;
    let count_inc = jops::select(&jops::less(&count, &max)?, &inc, &max)?;
    let cf = jops::convert(&count_inc, DType::F32)?;
    let bc1 = jops::sub(&c(1.0), &jops::pow(&c(b1), &cf)?)?;
    let bc2 = jops::sub(&c(1.0), &jops::pow(&c(b2), &cf)?)?;
    let out = mu
        .iter()
        .zip(&nu)
        .map(|(m, v)| {
            let m_hat = jops::div(m, &bc1)?;
            let v_hat = jops::div(v, &bc2)?;
            let den = jops::add(&jops::sqrt(&jops::add(&v_hat, &c(eps_root))?)?, &c(eps))?;
            jops::div(&m_hat, &den)
        })
        .collect::<Result<_>>()?;
    let new_state = state(
        "ScaleByAdamState",
        vec![
            ("count", Obj::Array(count_inc)),
            ("mu", rebuild(&def, mu)?),
            ("nu", rebuild(&def, nu)?),
        ],
    );
    Ok((out, new_state))
}

/// The exponential moving average `(1 - decay) * g**order + decay * t`
/// of each leaf.
fn moment(g: &[Value], t: &[Value], decay: f64, order: i32) -> Result<Vec<Value>> {
    g.iter()
        .zip(t)
        .map(|(g, t)| {
            jops::add(
                &jops::mul(&c(1.0 - decay), &jops::integer_pow(g, order)?)?,
                &jops::mul(&c(decay), t)?,
            )
        })
        .collect()
}

/// `tx.init(params)` for a chain.
fn chain_init(steps: &[Step], params: &Obj) -> Result<Obj> {
    Ok(Obj::tuple(
        steps
            .iter()
            .map(|s| s.init(params))
            .collect::<Result<_>>()?,
    ))
}

/// `tx.update(updates, state, params)` for a chain.
fn chain_update(steps: &[Step], updates: &Obj, st: &Obj, params: Option<&Obj>) -> Result<Obj> {
    let (mut g, def) = leaves_of(updates)?;
    let states = match st {
        Obj::Tuple(t) => t.to_vec(),
        other => bail!(
            TypeError,
            "expected the optimizer state returned by init, got {}",
            other.type_name()
        ),
    };
    if states.len() != steps.len() {
        bail!(
            ValueError,
            "the optimizer state has {} parts but the transformation has {}",
            states.len(),
            steps.len()
        );
    }
    let p = match params {
        Some(p) => Some(leaves_of(p)?.0),
        None => None,
    };
    let mut new_states = vec![];
    for (s, st) in steps.iter().zip(&states) {
        let (ng, ns) = s.update(g, st, p.as_deref())?;
        g = ng;
        new_states.push(ns);
    }
    Ok(Obj::tuple(vec![rebuild(&def, g)?, Obj::tuple(new_states)]))
}

/// A `GradientTransformationExtraArgs` object for a chain of steps.
/// The steps a transformation object was made of, kept in it so that
/// `optax.chain` can combine them.
struct Steps(Vec<Step>);

impl Object for Steps {
    fn type_name(&self) -> String {
        "steps".into()
    }
}

const STEPS: &str = "__optax_steps__";

fn make(steps: Vec<Step>) -> Obj {
    let shared = Rc::new(steps.clone());
    let (s1, s2) = (shared.clone(), shared);
    let init = Obj::native("optax.init_fn", move |_, a| {
        chain_init(&s1, &a.req(Some(0), "params", "init")?)
    });
    let update = Obj::native("optax.update_fn", move |_, a| {
        let u = a.req(Some(0), "updates", "update")?;
        let st = a.req(Some(1), "state", "update")?;
        let p = a.opt(Some(2), "params");
        chain_update(&s2, &u, &st, p.as_ref())
    });
    Obj::Instance(Rc::new(Instance {
        class: state_class("GradientTransformationExtraArgs", &["init", "update"]),
        attrs: RefCell::new(vec![
            ("init".into(), init),
            ("update".into(), update),
            (STEPS.into(), Obj::lib(Steps(steps))),
        ]),
    }))
}

fn steps_of(o: &Obj) -> Option<Vec<Step>> {
    let Obj::Instance(i) = o else { return None };
    let attrs = i.attrs.borrow();
    let (_, steps) = attrs.iter().find(|(k, _)| k == STEPS)?;
    steps.downcast::<Steps>().map(|s| s.0.clone())
}

fn number(
    a: &Args,
    index: Option<usize>,
    name: &str,
    default: Option<f64>,
    func: &str,
) -> Result<f64> {
    match a.opt(index, name) {
        Some(Obj::Array(Value::Concrete(x))) if x.size() == 1 => Ok(x.get_f64(0)),
        Some(o) => match o.as_number() {
            Some(v) => Ok(v),
            None => bail!(
                NotImplementedError,
                "not supported by shardlab yet: optax.{func} with {name}={}",
                repr_of(&o)
            ),
        },
        None => default.ok_or_else(|| {
            err!(
                TypeError,
                "{func}() missing 1 required positional argument: '{name}'"
            )
        }),
    }
}

fn adam_step(a: &Args, first: usize, func: &str) -> Result<Step> {
    Ok(Step::ScaleByAdam {
        b1: number(a, Some(first), "b1", Some(0.9), func)?,
        b2: number(a, Some(first + 1), "b2", Some(0.999), func)?,
        eps: number(a, Some(first + 2), "eps", Some(1e-8), func)?,
        eps_root: number(a, Some(first + 3), "eps_root", Some(0.0), func)?,
    })
}

fn apply_updates(_: &mut Interp, a: Args) -> Result<Obj> {
    let params = a.req(Some(0), "params", "apply_updates")?;
    let updates = a.req(Some(1), "updates", "apply_updates")?;
    let (p, def) = leaves_of(&params)?;
    let (u, _) = leaves_of(&updates)?;
    check_len("apply_updates", p.len(), u.len())?;
    let out = p
        .iter()
        .zip(&u)
        .map(|(p, u)| jops::convert(&jops::add(p, u)?, p.dtype()))
        .collect::<Result<_>>()?;
    rebuild(&def, out)
}

fn arr(a: &Args, i: usize, name: &str, func: &str) -> Result<Value> {
    let v = to_value(&a.req(Some(i), name, func)?)?;
    if v.dtype() == DType::F32 {
        Ok(v)
    } else {
        jops::convert(&v, DType::F32)
    }
}

/// The `optax` module.
pub fn module() -> Obj {
    let mut b = Builder::new("optax");
    register_optimizers(&mut b);
    register_transforms(&mut b);
    register_losses(&mut b);
    let _ = iterate;
    b.build()
}

/// The optimizers: `sgd`, `adam`, `adamw`, each a chain ending in a
/// scaling by the negated learning rate.
fn register_optimizers(b: &mut Builder) {
    b.func("sgd", |_, a| {
        let lr = number(&a, Some(0), "learning_rate", None, "sgd")?;
        let first = match a.opt(Some(1), "momentum") {
            None => Step::Identity,
            Some(_) => Step::Trace {
                decay: number(&a, Some(1), "momentum", None, "sgd")?,
                nesterov: match a.get(Some(2), "nesterov") {
                    Some(o) => truthy(&o, "nesterov")?,
                    None => false,
                },
            },
        };
        Ok(make(vec![first, Step::Scale(-lr)]))
    });
    b.func("adam", |_, a| {
        let lr = number(&a, Some(0), "learning_rate", None, "adam")?;
        Ok(make(vec![adam_step(&a, 1, "adam")?, Step::Scale(-lr)]))
    });
    b.func("adamw", |_, a| {
        let lr = number(&a, Some(0), "learning_rate", None, "adamw")?;
        let wd = number(&a, Some(6), "weight_decay", Some(1e-4), "adamw")?;
        Ok(make(vec![
            adam_step(&a, 1, "adamw")?,
            Step::AddDecayedWeights(wd),
            Step::Scale(-lr),
        ]))
    });
}

/// The gradient transformations, `chain` and `apply_updates`.
fn register_transforms(b: &mut Builder) {
    b.func("scale_by_adam", |_, a| {
        Ok(make(vec![adam_step(&a, 0, "scale_by_adam")?]))
    });
    b.func("scale", |_, a| {
        Ok(make(vec![Step::Scale(number(
            &a,
            Some(0),
            "step_size",
            None,
            "scale",
        )?)]))
    });
    b.func("scale_by_learning_rate", |_, a| {
        let lr = number(&a, Some(0), "learning_rate", None, "scale_by_learning_rate")?;
        let flip = match a.get(Some(1), "flip_sign") {
            Some(o) => truthy(&o, "flip_sign")?,
            None => true,
        };
        Ok(make(vec![Step::Scale(if flip { -lr } else { lr })]))
    });
    b.func("trace", |_, a| {
        Ok(make(vec![Step::Trace {
            decay: number(&a, Some(0), "decay", None, "trace")?,
            nesterov: match a.get(Some(1), "nesterov") {
                Some(o) => truthy(&o, "nesterov")?,
                None => false,
            },
        }]))
    });
    b.func("add_decayed_weights", |_, a| {
        Ok(make(vec![Step::AddDecayedWeights(number(
            &a,
            Some(0),
            "weight_decay",
            Some(0.0),
            "add_decayed_weights",
        )?)]))
    });
    b.func("identity", |_, _| Ok(make(vec![Step::Identity])));
    b.func("chain", |_, a| {
        let mut steps = vec![];
        for t in &a.pos {
            let s = steps_of(t).ok_or_else(|| {
                err!(
                    NotImplementedError,
                    "not supported by shardlab yet: optax.chain of {}",
                    t.type_name()
                )
            })?;
            if s.len() != 1 {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: optax.chain of chains"
                );
            }
            steps.extend(s);
        }
        Ok(make(steps))
    });
    b.func("apply_updates", apply_updates);
}

/// The losses.
fn register_losses(b: &mut Builder) {
    b.func("l2_loss", |_, a| {
        let d = residual(&a, "l2_loss")?;
        Ok(Obj::Array(jops::mul(&c(0.5), &jops::integer_pow(&d, 2)?)?))
    });
    b.func("squared_error", |_, a| {
        let d = residual(&a, "squared_error")?;
        Ok(Obj::Array(jops::integer_pow(&d, 2)?))
    });
    b.func("softmax_cross_entropy", |_, a| {
        let logits = arr(&a, 0, "logits", "softmax_cross_entropy")?;
        let labels = arr(&a, 1, "labels", "softmax_cross_entropy")?;
        let ls = super::nn::log_softmax(&logits, &[-1])?;
        let prod = jops::mul(&labels, &ls)?;
        Ok(Obj::Array(jops::neg(&jops::sum(
            &prod,
            Some(&[-1]),
            false,
        )?)?))
    });
    b.func(
        "softmax_cross_entropy_with_integer_labels",
        softmax_cross_entropy_with_integer_labels,
    );
}

/// `predictions - targets`, or the predictions without targets.
fn residual(a: &Args, func: &str) -> Result<Value> {
    let p = arr(a, 0, "predictions", func)?;
    Ok(match a.opt(Some(1), "targets") {
        Some(t) => jops::sub(&p, &to_value(&t)?)?,
        None => p,
    })
}

fn softmax_cross_entropy_with_integer_labels(_: &mut Interp, a: Args) -> Result<Obj> {
    let logits = arr(&a, 0, "logits", "softmax_cross_entropy_with_integer_labels")?;
    let labels = to_value(&a.req(
        Some(1),
        "labels",
        "softmax_cross_entropy_with_integer_labels",
    )?)?;
    if labels.dtype() != DType::I32 {
        bail!(TypeError, "labels must be an integer array");
    }
    // log_softmax picked at the label: logits[label] - logsumexp(logits).
    let m = jops::stop_gradient(&jops::reduce(
        crate::array::ReduceOp::Max,
        &logits,
        Some(&[-1]),
        true,
    )?)?;
    let shifted = jops::sub(&logits, &m)?;
    let n = logits.shape().last().copied().unwrap_or(0);
    let iota = crate::array::Array::arange(0.0, n as f64, 1.0, DType::I32)?;
    let onehot = jops::equal(&jops::expand_dims(&labels, -1)?, &Value::Concrete(iota))?;
    let picked = jops::sum(
        &jops::select(&onehot, &shifted, &jops::zeros_like(&shifted))?,
        Some(&[-1]),
        false,
    )?;
    let lse = jops::log(&jops::sum(&jops::exp(&shifted)?, Some(&[-1]), false)?)?;
    Ok(Obj::Array(jops::sub(&lse, &picked)?))
}
