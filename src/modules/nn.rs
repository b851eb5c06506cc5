//! `jax.nn` (activations, softmax, one_hot), `jax.nn.initializers` and
//! `jax.scipy.special.logsumexp`, built from engine operations so that they
//! differentiate, in the operation order JAX uses.

use crate::array::{DType, ReduceOp, UnaryOp};
use crate::error::Result;
use crate::random::initializers as init;
use crate::random::traced_init as tinit;
use crate::trace::Value;
use crate::{bail, err, ops as jops};

use super::numpy::shape_of;
use super::Builder;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::ops::{iterate, truthy};
use crate::python::value::{Args, Obj};

pub(super) fn float_arg(a: &Args, index: usize, name: &str, func: &str) -> Result<Value> {
    let x = to_value(&a.req(Some(index), name, func)?)?;
    if x.dtype() == DType::F32 {
        Ok(x)
    } else {
        jops::convert(&x, DType::F32)
    }
}

/// A constant of a formula: a Python float in JAX's code, so weakly typed
/// (the result is weak exactly when the argument is).
pub(super) fn c(v: f64) -> Value {
    crate::python::array::weak_scalar(v, DType::F32)
}

/// `jax.nn.relu`: `max(x, 0)` whose derivative is 0 at 0, as JAX defines it.
pub fn relu(x: &Value) -> Result<Value> {
    let zero = crate::python::array::weak_scalar(0.0, x.dtype());
    let m = jops::maximum(x, &zero)?;
    let pos = jops::greater(x, &zero)?;
    jops::select(
        &pos,
        x,
        &jops::stop_gradient(&jops::broadcast_to(&m, &x.shape())?)?,
    )
}

/// `jax.nn.gelu` (tanh approximation by default).
pub fn gelu(x: &Value, approximate: bool) -> Result<Value> {
    // JAX's square roots here are NumPy scalars of x's dtype: strongly
    // typed, so the result is too.
    if approximate {
        let sqrt_2_over_pi = jops::scalar((2.0 / std::f64::consts::PI).sqrt(), DType::F32);
        let cube = jops::integer_pow(x, 3)?;
        let inner = jops::add(x, &jops::mul(&c(0.044715), &cube)?)?;
        let t = jops::tanh(&jops::mul(&sqrt_2_over_pi, &inner)?)?;
        let cdf = jops::mul(&c(0.5), &jops::add(&c(1.0), &t)?)?;
        jops::mul(x, &cdf)
    } else {
        // 0.5 * x * erfc(-x * sqrt(0.5)), with erfc(z) = 1 - erf(z).
        let sqrt_half = jops::scalar(0.5f64.sqrt(), DType::F32);
        let z = jops::mul(&jops::neg(x)?, &sqrt_half)?;
        let erfc = jops::sub(&c(1.0), &jops::unary(UnaryOp::Erf, &z)?)?;
        jops::mul(&jops::mul(&c(0.5), x)?, &erfc)
    }
}

/// `jax.nn.sigmoid`.
pub fn sigmoid(x: &Value) -> Result<Value> {
    jops::logistic(x)
}

/// `jax.nn.silu`: `x * sigmoid(x)`.
pub fn silu(x: &Value) -> Result<Value> {
    jops::mul(x, &sigmoid(x)?)
}

pub(super) fn axes_of(o: Option<Obj>, default: Option<Vec<i64>>) -> Result<Option<Vec<i64>>> {
    match o {
        None => Ok(default),
        Some(Obj::None) => Ok(None),
        Some(o @ (Obj::Tuple(_) | Obj::List(_))) => Ok(Some(
            iterate(&o)?.iter().map(to_int).collect::<Result<_>>()?,
        )),
        Some(o) => Ok(Some(vec![to_int(&o)?])),
    }
}

pub(super) fn all_axes(x: &Value, axes: Option<Vec<i64>>) -> Vec<i64> {
    axes.unwrap_or_else(|| (0..x.ndim() as i64).collect())
}

/// `jax.nn.softmax(x, axis)`.
pub fn softmax(x: &Value, axes: &[i64]) -> Result<Value> {
    let m = jops::stop_gradient(&jops::reduce(ReduceOp::Max, x, Some(axes), true)?)?;
    let e = jops::exp(&jops::sub(x, &m)?)?;
    jops::div(&e, &jops::sum(&e, Some(axes), true)?)
}

/// `jax.nn.log_softmax(x, axis)`.
pub fn log_softmax(x: &Value, axes: &[i64]) -> Result<Value> {
    let m = jops::stop_gradient(&jops::reduce(ReduceOp::Max, x, Some(axes), true)?)?;
    let shifted = jops::sub(x, &m)?;
    let lse = jops::log(&jops::sum(&jops::exp(&shifted)?, Some(axes), true)?)?;
    jops::sub(&shifted, &lse)
}

/// `jax.nn.logsumexp(a, axis, keepdims)` without `b` or `where`.
pub fn logsumexp(a: &Value, axes: &[i64], keepdims: bool) -> Result<Value> {
    let amax = jops::reduce(ReduceOp::Max, a, Some(axes), keepdims)?;
    let finite = jops::unary(UnaryOp::IsFinite, &amax)?;
    let amax = jops::stop_gradient(&jops::select(&finite, &amax, &jops::zeros_like(&amax))?)?;
    let mut with_dims = amax.clone();
    if !keepdims {
        let mut sorted: Vec<usize> = axes
            .iter()
            .map(|&ax| jops::norm_axis(ax, a.ndim()))
            .collect::<Result<_>>()?;
        sorted.sort();
        for ax in sorted {
            with_dims = jops::expand_dims(&with_dims, ax as i64)?;
        }
    }
    let e = jops::exp(&jops::sub(a, &with_dims)?)?;
    let s = jops::abs(&jops::sum(&e, Some(axes), keepdims)?)?;
    jops::add(&jops::log(&s)?, &amax)
}

fn logsumexp_call(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = float_arg(&a, 0, "a", "logsumexp")?;
    if a.opt(Some(2), "b").is_some() || a.opt(None, "where").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: logsumexp with b or where"
        );
    }
    let axes = all_axes(&x, axes_of(a.get(Some(1), "axis"), None)?);
    let keep = match a.get(Some(3), "keepdims") {
        Some(o) => truthy(&o, "keepdims")?,
        None => false,
    };
    Ok(Obj::Array(logsumexp(&x, &axes, keep)?))
}

fn one_hot(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "x", "one_hot")?)?;
    let n = to_int(&a.req(Some(1), "num_classes", "one_hot")?)?;
    if n < 0 {
        bail!(ValueError, "num_classes must be non-negative, got {n}");
    }
    let dtype = match a.opt(None, "dtype") {
        Some(d) => super::numpy::dtype_of(&d)?,
        None => DType::F32,
    };
    let axis = match a.opt(None, "axis") {
        Some(o) => to_int(&o)?,
        None => -1,
    };
    let out_axis = jops::norm_axis(axis, x.ndim() + 1)?;
    let lhs = jops::expand_dims(&x, out_axis as i64)?;
    let mut rhs_shape = vec![1usize; x.ndim()];
    rhs_shape.insert(out_axis, n as usize);
    let iota = crate::array::Array::arange(0.0, n as f64, 1.0, x.dtype())?;
    let iota = jops::reshape(&Value::Concrete(iota), &rhs_shape)?;
    let eq = jops::equal(&lhs, &iota)?;
    Ok(Obj::Array(jops::convert(&eq, dtype)?))
}

fn elementwise(
    name: &'static str,
    f: fn(&Value) -> Result<Value>,
) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| Ok(Obj::Array(f(&float_arg(&a, 0, "x", name)?)?))
}

fn softmax_like(
    name: &'static str,
    f: fn(&Value, &[i64]) -> Result<Value>,
) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| {
        let x = float_arg(&a, 0, "x", name)?;
        if a.opt(Some(2), "where").is_some() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: {name} with where"
            );
        }
        let axes = all_axes(&x, axes_of(a.get(Some(1), "axis"), Some(vec![-1]))?);
        Ok(Obj::Array(f(&x, &axes)?))
    }
}

/// `jax.nn.softplus`.
pub(crate) fn softplus(x: &Value) -> Result<Value> {
    // jnp.logaddexp(x, 0): amax + log1p(exp(-|x - 0|)).
    let zero = c(0.0);
    let amax = jops::maximum(x, &zero)?;
    let delta = jops::sub(x, &zero)?;
    let t = jops::unary(
        UnaryOp::Log1p,
        &jops::exp(&jops::neg(&jops::abs(&delta)?)?)?,
    )?;
    jops::add(&amax, &t)
}

/// Fills a builder with the activation functions (shared by `jax.nn`,
/// `flax.linen` and `flax.nnx`).
pub fn add_activations(b: &mut Builder) {
    b.func("relu", elementwise("relu", relu));
    // The argument as an array, unchanged (a list is refused, as JAX
    // refuses a non-array).
    b.func("identity", |_, a| {
        let x = a.req(Some(0), "x", "identity")?;
        if matches!(x, Obj::List(_) | Obj::Tuple(_)) {
            bail!(
                TypeError,
                "identity requires ndarray or scalar arguments, got <class '{}'> at position 0.",
                x.type_name()
            );
        }
        Ok(Obj::Array(crate::python::array::to_value(&x)?))
    });
    b.func("gelu", |_, a| {
        let x = float_arg(&a, 0, "x", "gelu")?;
        let approximate = match a.get(Some(1), "approximate") {
            Some(o) => truthy(&o, "approximate")?,
            None => true,
        };
        Ok(Obj::Array(gelu(&x, approximate)?))
    });
    b.func("sigmoid", elementwise("sigmoid", sigmoid));
    b.func("silu", elementwise("silu", silu));
    b.func("swish", elementwise("swish", silu));
    b.func("tanh", elementwise("tanh", jops::tanh));
    b.func("softplus", elementwise("softplus", softplus));
    b.func(
        "log_sigmoid",
        elementwise("log_sigmoid", |x| jops::neg(&softplus(&jops::neg(x)?)?)),
    );
    b.func("leaky_relu", |_, a| {
        let x = float_arg(&a, 0, "x", "leaky_relu")?;
        let slope = match a.get(Some(1), "negative_slope") {
            Some(o) => o
                .as_number()
                .ok_or_else(|| err!(TypeError, "negative_slope must be a number"))?,
            None => 1e-2,
        };
        let ge = jops::greater_equal(&x, &c(0.0))?;
        Ok(Obj::Array(jops::select(
            &ge,
            &x,
            &jops::mul(&c(slope), &x)?,
        )?))
    });
    b.func("softmax", softmax_like("softmax", softmax));
    b.func("log_softmax", softmax_like("log_softmax", log_softmax));
    b.func("logsumexp", logsumexp_call);
    b.func("one_hot", one_hot);
    super::nn_activations::add_shared(b);
}

/// The `jax.nn` module.
pub fn module() -> Obj {
    let mut b = Builder::new("jax.nn");
    add_activations(&mut b);
    super::nn_activations::add_jax_only(&mut b);
    b.attr("initializers", initializers_module("jax.nn.initializers"));
    b.func(
        "dot_product_attention",
        super::nn_attention::dot_product_attention,
    );
    b.build()
}

/// `jax.scipy.special`.
pub fn scipy_special_module() -> Obj {
    let mut b = Builder::new("jax.scipy.special");
    b.func("logsumexp", logsumexp_call);
    b.func("expit", elementwise("expit", sigmoid));
    super::scipy_special_entropy::register(&mut b);
    super::scipy::register_special(&mut b);
    b.build()
}

type InitFn = std::rc::Rc<dyn Fn(crate::random::Key, &[usize]) -> Result<crate::array::Array>>;
type StagedInitFn = std::rc::Rc<dyn Fn(&Value, &[usize]) -> Result<Value>>;

/// An initializer object: `init(key, shape, dtype=float32)`. It draws on
/// the host with `f`, or with `staged` in equations when the key is traced
/// or a trace stages a program.
pub(super) fn initializer(name: &str, f: InitFn, staged: StagedInitFn) -> Obj {
    made_by(name, name, f, staged)
}

/// The initializer `factory` returns, named as JAX's (`init`, defined in
/// `factory`); `label` names it in error messages.
fn made_by(label: &str, factory: &str, f: InitFn, staged: StagedInitFn) -> Obj {
    let label = label.to_string();
    Obj::native(format!("{factory}.<locals>.init"), move |interp, a| {
        let k = a.req(Some(0), "key", &label)?;
        let shape = shape_of(&a.req(Some(1), "shape", &label)?)?;
        if let Some(d) = a.opt(Some(2), "dtype") {
            if super::numpy::dtype_of(&d)? != DType::F32 {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: initializers of dtype {}",
                    crate::python::format::str_of(&d)
                );
            }
        }
        let sharding = a
            .opt(Some(3), "out_sharding")
            .filter(|o| !matches!(o, Obj::None));
        if sharding.is_some() && label == "orthogonal" {
            // JAX's orthogonal initializer raises a bare NotImplementedError.
            bail!(
                NotImplementedError,
                "jax.nn.initializers.orthogonal takes no out_sharding in JAX (its initializer raises NotImplementedError); place the result with jax.device_put or jax.sharding.reshard"
            );
        }
        let out = match super::random::staged_single(&k, &label)? {
            Some((key, _)) => Obj::Array(staged(&key, &shape)?),
            None => {
                let key = super::random::single_key(&k, &label)?;
                Obj::Array(Value::Concrete(f(key, &shape)?))
            }
        };
        match sharding {
            Some(s) => super::sharding::out_sharding::place_initialized(interp, &label, out, &s),
            None => Ok(out),
        }
    })
}

/// An initializer that is `variance_scaling(scale, mode, distribution)`.
fn scaling_initializer(name: &str, scale: f64, mode: &str, distribution: &str) -> Obj {
    let (m, d) = (mode.to_string(), distribution.to_string());
    let (m2, d2) = (m.clone(), d.clone());
    made_by(
        name,
        "variance_scaling",
        std::rc::Rc::new(move |k, s| init::variance_scaling(k, s, scale, &m, &d)),
        std::rc::Rc::new(move |k, s| tinit::variance_scaling(k, s, scale, &m2, &d2)),
    )
}

fn num(a: &Args, index: usize, name: &str, default: f64) -> Result<f64> {
    match a.get(Some(index), name) {
        None => Ok(default),
        Some(o) => o
            .as_number()
            .ok_or_else(|| err!(TypeError, "{name} must be a number, got {}", o.type_name())),
    }
}

/// `jax.nn.initializers` (also `flax.linen.initializers`, `flax.nnx.initializers`).
pub fn initializers_module(name: &str) -> Obj {
    let mut b = Builder::new(name);
    register_shape_only(&mut b, name.starts_with("flax."));
    b.func("constant", |_, a| {
        let v = num(&a, 0, "value", 0.0)? as f32;
        Ok(initializer(
            "constant",
            std::rc::Rc::new(move |_, s| init::constant(s, v)),
            std::rc::Rc::new(move |_, s| Ok(Value::Concrete(init::constant(s, v)?))),
        ))
    });
    register_scaling(&mut b);
    register_random(&mut b);
    b.func("orthogonal", super::nn_orthogonal::orthogonal);
    b.build()
}

/// `zeros` and `ones`, which ignore their key; `flax` adds the factories
/// Flax's own initializer modules have.
fn register_shape_only(b: &mut Builder, flax: bool) {
    let shape_only = |label: &'static str, f: fn(&[usize]) -> Result<crate::array::Array>| {
        Obj::native(label, move |interp, a| {
            let _ = a.req(Some(0), "key", label)?;
            let shape = shape_of(&a.req(Some(1), "shape", label)?)?;
            let made = Value::Concrete(f(&shape)?);
            // Zeros and ones are exact in every dtype: the float32 answer
            // converts to the one asked for.
            let out = Obj::Array(match a.opt(Some(2), "dtype") {
                Some(d) => jops::convert(&made, super::numpy::dtype_of(&d)?)?,
                None => made,
            });
            match a
                .opt(Some(3), "out_sharding")
                .filter(|o| !matches!(o, Obj::None))
            {
                Some(s) => super::sharding::out_sharding::place_initialized(interp, label, out, &s),
                None => Ok(out),
            }
        })
    };
    let (zeros, ones) = (
        shape_only("zeros", init::zeros),
        shape_only("ones", init::ones),
    );
    if flax {
        // Flax's own initializer modules add factories for the two
        // shape-only initializers: `zeros_init()` is `zeros` itself.
        for (factory, made) in [("zeros_init", &zeros), ("ones_init", &ones)] {
            let made = made.clone();
            b.attr(factory, Obj::native(factory, move |_, _| Ok(made.clone())));
        }
    }
    b.attr("zeros", zeros);
    b.attr("ones", ones);
}

/// The variance-scaling family: the named presets and `variance_scaling`
/// itself.
fn register_scaling(b: &mut Builder) {
    for (n, scale, mode, distribution) in [
        ("lecun_normal", 1.0, "fan_in", "truncated_normal"),
        ("lecun_uniform", 1.0, "fan_in", "uniform"),
        ("glorot_normal", 1.0, "fan_avg", "truncated_normal"),
        ("glorot_uniform", 1.0, "fan_avg", "uniform"),
        ("xavier_normal", 1.0, "fan_avg", "truncated_normal"),
        ("xavier_uniform", 1.0, "fan_avg", "uniform"),
        ("he_normal", 2.0, "fan_in", "truncated_normal"),
        ("he_uniform", 2.0, "fan_in", "uniform"),
        ("kaiming_normal", 2.0, "fan_in", "truncated_normal"),
        ("kaiming_uniform", 2.0, "fan_in", "uniform"),
    ] {
        b.func(n, move |_, _| {
            Ok(scaling_initializer(n, scale, mode, distribution))
        });
    }
    b.func("variance_scaling", |_, a| {
        let scale = num(&a, 0, "scale", 1.0)?;
        let mode = crate::python::format::str_of(&a.req(Some(1), "mode", "variance_scaling")?);
        let distribution =
            crate::python::format::str_of(&a.req(Some(2), "distribution", "variance_scaling")?);
        init::FanMode::parse(&mode)?;
        init::Distribution::parse(&distribution)?;
        Ok(scaling_initializer(
            "variance_scaling",
            scale,
            &mode,
            &distribution,
        ))
    });
}

/// The initializers that draw from a fixed-scale distribution.
fn register_random(b: &mut Builder) {
    b.func("normal", |_, a| {
        let s = num(&a, 0, "stddev", 1e-2)? as f32;
        Ok(initializer(
            "normal",
            std::rc::Rc::new(move |k, sh| init::normal(k, sh, s)),
            std::rc::Rc::new(move |k, sh| tinit::normal(k, sh, s)),
        ))
    });
    b.func("uniform", |_, a| {
        let s = num(&a, 0, "scale", 1e-2)? as f32;
        Ok(initializer(
            "uniform",
            std::rc::Rc::new(move |k, sh| init::uniform(k, sh, s)),
            std::rc::Rc::new(move |k, sh| tinit::uniform(k, sh, s)),
        ))
    });
    b.func("truncated_normal", |_, a| {
        let s = num(&a, 0, "stddev", 1e-2)? as f32;
        Ok(initializer(
            "truncated_normal",
            std::rc::Rc::new(move |k, sh| init::truncated_normal(k, sh, s)),
            std::rc::Rc::new(move |k, sh| tinit::truncated_normal(k, sh, s)),
        ))
    });
}
