//! `nnx.metrics`: Average, Accuracy, Welford and MultiMetric.
//!
//! A metric is an `nnx.Pytree` whose running sums live in `MetricState`
//! variables, so it can be passed through `nnx.jit` and split like any
//! other nnx object. `update` adds a batch to the sums in place, `compute`
//! reads the result off them, `reset` puts them back to zero.
//!
//! The arithmetic goes through the interpreter's operators, so the sums
//! take the dtypes JAX gives them: `total` stays float32 while `count`
//! stays int32 even when a Python number is added to it.

use super::*;
use crate::python::ops::{binop, compare, getattr};
use rustpython_parser::ast::{CmpOp, Operator};

/// The classes `nnx.metrics` defines.
struct Classes {
    metric_state: Rc<Class>,
    statistics: Rc<Class>,
}

fn f32_zero() -> Obj {
    Obj::Array(Value::Concrete(crate::array::Array::scalar_f32(0.0)))
}

fn i32_zero() -> Obj {
    Obj::Array(Value::Concrete(crate::array::Array::scalar_i32(0)))
}

fn state(cls: &Classes, v: Obj) -> Obj {
    instance(&cls.metric_state, vec![("value".into(), v)])
}

/// The value held by the `MetricState` named `name`.
fn read(me: &Instance, name: &str) -> Result<Obj> {
    match iattr(me, name) {
        Some(Obj::Instance(v)) if is_variable(&v) => Ok(iattr(&v, "value").unwrap_or(Obj::None)),
        _ => bail!(
            AttributeError,
            "'{}' object has no attribute '{name}'",
            me.class.name
        ),
    }
}

/// Replaces the value of the `MetricState` named `name`, as `x[...] = v`.
fn write(me: &Instance, name: &str, v: Obj) -> Result<()> {
    match iattr(me, name) {
        Some(Obj::Instance(var)) if is_variable(&var) => {
            set_iattr(&var, "value", v);
            Ok(())
        }
        _ => bail!(
            AttributeError,
            "'{}' object has no attribute '{name}'",
            me.class.name
        ),
    }
}

fn op(interp: &mut Interp, o: Operator, a: &Obj, b: &Obj) -> Result<Obj> {
    binop(interp, &o, a, b, false)
}

fn method(interp: &mut Interp, on: &Obj, name: &str, args: Vec<Obj>) -> Result<Obj> {
    let m = getattr(interp, on, name)?;
    interp.call(&m, Args::new(args))
}

fn is_number(o: &Obj) -> bool {
    matches!(o, Obj::Int(_) | Obj::Float(_) | Obj::Bool(_))
}

/// The value an update reads: the keyword argument `argname`.
fn argument(me: &Instance, kw: &[(String, Obj)]) -> Result<(String, Obj)> {
    let argname = str_of(&iattr(me, "argname").unwrap_or(Obj::str("values")));
    match kw.iter().find(|(k, _)| *k == argname) {
        Some((_, v)) => Ok((argname, v.clone())),
        None => bail!(TypeError, "Expected keyword argument '{argname}'"),
    }
}

fn average_init(cls: Rc<Classes>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| {
        let me = self_arg(&a, "Average")?;
        let argname = a.get(Some(1), "argname").unwrap_or(Obj::str("values"));
        set_iattr(&me, "argname", argname);
        set_iattr(&me, "total", state(&cls, f32_zero()));
        set_iattr(&me, "count", state(&cls, i32_zero()));
        Ok(Obj::None)
    }
}

fn average_reset(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "reset")?;
    write(&me, "total", f32_zero())?;
    write(&me, "count", i32_zero())?;
    Ok(Obj::None)
}

/// Adds `values` (optionally masked) to the running total and count.
fn average_add(interp: &mut Interp, me: &Instance, values: &Obj, mask: Option<Obj>) -> Result<()> {
    let (total, count) = (read(me, "total")?, read(me, "count")?);
    let (sum, n) = match mask {
        None if is_number(values) => (values.clone(), Obj::Int(1)),
        None => (
            method(interp, values, "sum", vec![])?,
            getattr(interp, values, "size")?,
        ),
        Some(mask) => {
            let dtype = getattr(interp, values, "dtype")?;
            let m = method(interp, &mask, "astype", vec![dtype])?;
            let masked = op(interp, Operator::Mult, values, &m)?;
            let sum = method(interp, &masked, "sum", vec![])?;
            let n = method(interp, &mask, "sum", vec![])?;
            let count_dtype = getattr(interp, &count, "dtype")?;
            (sum, method(interp, &n, "astype", vec![count_dtype])?)
        }
    };
    let total = op(interp, Operator::Add, &total, &sum)?;
    let count = op(interp, Operator::Add, &count, &n)?;
    write(me, "total", total)?;
    write(me, "count", count)
}

fn average_update(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "update")?;
    let mask = a.opt(Some(1), "mask");
    let (argname, values) = argument(&me, &a.kw)?;
    if mask.is_some() && is_number(&values) {
        bail!(
            ValueError,
            "If mask is provided, {argname} should be a jax array"
        );
    }
    average_add(interp, &me, &values, mask)?;
    Ok(Obj::None)
}

fn average_compute(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "compute")?;
    let (total, count) = (read(&me, "total")?, read(&me, "count")?);
    op(interp, Operator::Div, &total, &count)
}

fn accuracy_init(cls: Rc<Classes>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let average = average_init(cls);
    move |interp, a| {
        let me = self_arg(&a, "Accuracy")?;
        let threshold = a.get(Some(1), "threshold").unwrap_or(Obj::None);
        if !matches!(threshold, Obj::None | Obj::Float(_)) {
            bail!(
                TypeError,
                "Expected threshold to be a float, got <class '{}'>",
                threshold.type_name()
            );
        }
        set_iattr(&me, "threshold", threshold);
        let mut rest = vec![Obj::Instance(me)];
        rest.extend(a.pos.iter().skip(2).cloned());
        let kw = a.kw.into_iter().filter(|(k, _)| k != "threshold").collect();
        average(interp, Args::with(rest, kw))
    }
}

fn ndim(interp: &mut Interp, x: &Obj) -> Result<i64> {
    to_int(&getattr(interp, x, "ndim")?)
}

fn accuracy_update(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "update")?;
    let logits = a.req(None, "logits", "update")?;
    let labels = a.req(None, "labels", "update")?;
    let mask = a.opt(None, "mask");
    let threshold = iattr(&me, "threshold").unwrap_or(Obj::None);
    let (ln, yn) = (ndim(interp, &logits)?, ndim(interp, &labels)?);
    if !matches!(threshold, Obj::None) {
        if ln != yn {
            bail!(
                ValueError,
                "For binary classification, expected logits.ndim==labels.ndim, got {ln} and {yn}"
            );
        }
    } else if ln != yn + 1 {
        bail!(
            ValueError,
            "For multi-class classification, expected logits.ndim==labels.ndim+1, got {ln} and {yn}"
        );
    }
    let dtype = getattr(interp, &labels, "dtype")?;
    if !matches!(dtype, Obj::DType(DType::I32)) {
        bail!(
            ValueError,
            "Expected labels.dtype==jnp.int32, got {}",
            str_of(&dtype)
        );
    }
    let values = if matches!(threshold, Obj::None) {
        let kw = Args::with(vec![], vec![("axis".into(), Obj::Int(-1))]);
        let argmax = getattr(interp, &logits, "argmax")?;
        let predicted = interp.call(&argmax, kw)?;
        compare(&CmpOp::Eq, &predicted, &labels)?
    } else {
        let positive = compare(&CmpOp::GtE, &logits, &threshold)?;
        let truth = compare(&CmpOp::Gt, &labels, &Obj::Int(0))?;
        compare(&CmpOp::Eq, &positive, &truth)?
    };
    average_add(interp, &me, &values, mask)?;
    Ok(Obj::None)
}

fn welford_init(cls: Rc<Classes>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| {
        let me = self_arg(&a, "Welford")?;
        let argname = a.get(Some(1), "argname").unwrap_or(Obj::str("values"));
        set_iattr(&me, "argname", argname);
        set_iattr(&me, "count", state(&cls, i32_zero()));
        set_iattr(&me, "mean", state(&cls, f32_zero()));
        set_iattr(&me, "m2", state(&cls, f32_zero()));
        Ok(Obj::None)
    }
}

/// Folds a batch into the running count, mean and sum of squared
/// deviations (Welford's parallel update).
fn welford_update(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "update")?;
    let (_, values) = argument(&me, &a.kw)?;
    let scalar = is_number(&values);
    let n = if scalar {
        Obj::Int(1)
    } else {
        getattr(interp, &values, "size")?
    };
    let before = read(&me, "count")?;
    let count = op(interp, Operator::Add, &before, &n)?;
    write(&me, "count", count.clone())?;
    let batch_mean = if scalar {
        values.clone()
    } else {
        method(interp, &values, "mean", vec![])?
    };
    let mean = read(&me, "mean")?;
    let delta = op(interp, Operator::Sub, &batch_mean, &mean)?;
    let step = op(interp, Operator::Mult, &delta, &n)?;
    let step = op(interp, Operator::Div, &step, &count)?;
    write(&me, "mean", op(interp, Operator::Add, &mean, &step)?)?;
    let m2 = if scalar {
        Obj::Float(0.0)
    } else {
        let var = method(interp, &values, "var", vec![])?;
        op(interp, Operator::Mult, &var, &n)?
    };
    let mut cross = op(interp, Operator::Mult, &delta, &delta)?;
    cross = op(interp, Operator::Mult, &cross, &n)?;
    cross = op(interp, Operator::Mult, &cross, &before)?;
    cross = op(interp, Operator::Div, &cross, &count)?;
    let add = op(interp, Operator::Add, &m2, &cross)?;
    let old = read(&me, "m2")?;
    write(&me, "m2", op(interp, Operator::Add, &old, &add)?)?;
    Ok(Obj::None)
}

fn welford_compute(cls: Rc<Classes>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |interp, a| {
        let me = self_arg(&a, "compute")?;
        let count = read(&me, "count")?;
        let variance = op(interp, Operator::Div, &read(&me, "m2")?, &count)?;
        let std = op(interp, Operator::Pow, &variance, &Obj::Float(0.5))?;
        let root_n = op(interp, Operator::Pow, &count, &Obj::Float(0.5))?;
        let sem = op(interp, Operator::Div, &std, &root_n)?;
        Ok(instance(
            &cls.statistics,
            vec![
                ("mean".into(), read(&me, "mean")?),
                ("standard_error_of_mean".into(), sem),
                ("standard_deviation".into(), std),
            ],
        ))
    }
}

fn welford_reset(_: &mut Interp, _: Args) -> Result<Obj> {
    // Flax resets the count to a uint32 zero, a dtype shardlab lacks.
    bail!(
        NotImplementedError,
        "not supported by shardlab yet: nnx.metrics.Welford.reset (a uint32 count)"
    )
}

fn metric_names(me: &Instance) -> Result<Vec<String>> {
    Ok(
        iterate(&iattr(me, "_metric_names").unwrap_or(Obj::tuple(vec![])))?
            .iter()
            .map(str_of)
            .collect(),
    )
}

fn metric(me: &Instance, name: &str) -> Result<Obj> {
    iattr(me, name).ok_or_else(|| {
        err!(
            AttributeError,
            "'{}' object has no attribute '{name}'",
            me.class.name
        )
    })
}

fn multi_init(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "MultiMetric")?;
    let names = a.kw.iter().map(|(k, _)| Obj::str(k)).collect();
    set_iattr(&me, "_metric_names", Obj::tuple(names));
    for (k, m) in a.kw {
        crate::python::ops::setattr(&Obj::Instance(me.clone()), &k, m)?;
    }
    let _ = interp;
    Ok(Obj::None)
}

/// Calls `name` on every metric with the same keyword arguments; returns
/// what each returned, by metric name.
fn each(interp: &mut Interp, a: &Args, name: &str) -> Result<Vec<(String, Obj)>> {
    let me = self_arg(a, name)?;
    let mut out = vec![];
    for n in metric_names(&me)? {
        let m = metric(&me, &n)?;
        let f = getattr(interp, &m, name)?;
        let r = interp.call(&f, Args::with(vec![], a.kw.clone()))?;
        out.push((n, r));
    }
    Ok(out)
}

fn statistics_repr(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "__repr__")?;
    let parts: Vec<String> = ["mean", "standard_error_of_mean", "standard_deviation"]
        .iter()
        .map(|k| format!("{k}={}", repr_of(&iattr(&me, k).unwrap_or(Obj::None))))
        .collect();
    Ok(Obj::str(format!("Statistics({})", parts.join(", "))))
}

fn must_override(what: &'static str) -> Obj {
    Obj::native("Metric", move |_, _| {
        bail!(NotImplementedError, "Must override `{what}()` method.")
    })
}

fn metric_class(pytree: &Rc<Class>) -> Rc<Class> {
    new_class(
        "Metric",
        vec![pytree.clone()],
        vec![
            ("__init__".into(), must_override("__init__")),
            ("reset".into(), must_override("reset")),
            ("update".into(), must_override("update")),
            ("compute".into(), must_override("compute")),
        ],
    )
}

fn methods(list: Vec<(&str, Obj)>) -> Vec<(String, Obj)> {
    list.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// `nnx.MultiMetric`: named metrics updated, computed and reset together.
fn multi_metric_class(metric: &Rc<Class>) -> Rc<Class> {
    new_class(
        "MultiMetric",
        vec![metric.clone()],
        methods(vec![
            ("__init__", Obj::native("MultiMetric.__init__", multi_init)),
            (
                "reset",
                Obj::native("MultiMetric.reset", |i, a| {
                    each(i, &a, "reset").map(|_| Obj::None)
                }),
            ),
            (
                "update",
                Obj::native("MultiMetric.update", |i, a| {
                    each(i, &a, "update").map(|_| Obj::None)
                }),
            ),
            (
                "compute",
                Obj::native("MultiMetric.compute", |i, a| {
                    let mut d = Dict::default();
                    for (k, v) in each(i, &a, "compute")? {
                        d.set(Obj::str(k), v);
                    }
                    Ok(Obj::Dict(Rc::new(RefCell::new(d))))
                }),
            ),
        ]),
    )
}

/// Builds `nnx.metrics`; returns it with the `MultiMetric` and `Metric`
/// classes nnx also exports at its top level.
pub(super) fn metrics_module(pytree: &Rc<Class>, variable: &Rc<Class>) -> (Obj, Obj, Obj) {
    let metric_state = new_class(
        "MetricState",
        vec![variable.clone()],
        methods(vec![("__module__", Obj::str("flax.nnx.training.metrics"))]),
    );
    let statistics = new_class(
        "Statistics",
        vec![],
        methods(vec![(
            "__repr__",
            Obj::native("Statistics.__repr__", statistics_repr),
        )]),
    );
    let cls = Rc::new(Classes {
        metric_state,
        statistics,
    });
    let metric = metric_class(pytree);
    let average = new_class(
        "Average",
        vec![metric.clone()],
        methods(vec![
            (
                "__init__",
                Obj::native("Average.__init__", average_init(cls.clone())),
            ),
            ("reset", Obj::native("Average.reset", average_reset)),
            ("update", Obj::native("Average.update", average_update)),
            ("compute", Obj::native("Average.compute", average_compute)),
        ]),
    );
    let accuracy = new_class(
        "Accuracy",
        vec![average.clone()],
        methods(vec![
            (
                "__init__",
                Obj::native("Accuracy.__init__", accuracy_init(cls.clone())),
            ),
            ("update", Obj::native("Accuracy.update", accuracy_update)),
        ]),
    );
    let welford = new_class(
        "Welford",
        vec![metric.clone()],
        methods(vec![
            (
                "__init__",
                Obj::native("Welford.__init__", welford_init(cls.clone())),
            ),
            ("reset", Obj::native("Welford.reset", welford_reset)),
            ("update", Obj::native("Welford.update", welford_update)),
            (
                "compute",
                Obj::native("Welford.compute", welford_compute(cls.clone())),
            ),
        ]),
    );
    let multi = multi_metric_class(&metric);
    let m = Builder::new("flax.nnx.metrics")
        .attr("Metric", Obj::Class(metric.clone()))
        .attr("MetricState", Obj::Class(cls.metric_state.clone()))
        .attr("Average", Obj::Class(average))
        .attr("Accuracy", Obj::Class(accuracy))
        .attr("Welford", Obj::Class(welford))
        .attr("Statistics", Obj::Class(cls.statistics.clone()))
        .attr("MultiMetric", Obj::Class(multi.clone()))
        .build();
    (m, Obj::Class(multi), Obj::Class(metric))
}
