//! `jax.experimental.checkify`: `check`, `checkify`, the `Error` value and
//! the sets of automatic checks.
//!
//! `checkify(f)` traces `f` to a program and runs it through the checkify
//! interpreter (`transforms::checkify`), which carries the error as data:
//! under `jit` or `vmap` the error is traced like any output, and comes
//! back as the leaves of an `Error` pytree. A `check` outside `checkify`
//! runs where its values are known (raising JAX's `JaxRuntimeError` when
//! it fails) and, staged into a program, is JAX's refusal when that
//! program runs.

use std::rc::Rc;
use std::sync::Arc;

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::modules::Builder;
use crate::primitives::debug::{CheckMark, DebugPrintParams, PrintArg};
use crate::primitives::Prim;
use crate::python::array::to_value;
use crate::python::format::{repr_of, str_of};
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::pytree::{flatten, unflatten};
use crate::python::value::{Args, Class, Instance, Obj};
use crate::trace::{FrameAxes, Value};
use crate::transforms::checkify::{Checkify, EffectKey, ErrorClass, ErrorValue, Site};

/// The classes of the module (made once per run) and the next site code.
#[derive(Default)]
struct State {
    classes: Option<Classes>,
    next_code: i32,
}

#[derive(Clone)]
struct Classes {
    error: Rc<Class>,
    runtime_error: Rc<Class>,
    kinds: Vec<(ErrorClass, Obj)>,
}

/// The run's classes of the module.
fn classes(interp: &mut Interp) -> Classes {
    if let Some(c) = &interp.state::<State>().classes {
        return c.clone();
    }
    let module = || ("__module__".to_string(), Obj::str("jax._src.checkify"));
    let base = |name: &str| {
        interp
            .exceptions
            .classes()
            .find(|(n, _)| *n == name)
            .and_then(|(_, c)| match c {
                Obj::Class(c) => Some(c),
                _ => None,
            })
    };
    let value_error = base("ValueError").into_iter().collect();
    let exception: Vec<Rc<Class>> = base("Exception").into_iter().collect();
    let runtime_error = Rc::new(Class::new("JaxRuntimeError", value_error, vec![module()]));
    let jax_exception = Rc::new(Class::new("JaxException", exception, vec![module()]));
    let kinds = ErrorClass::ALL
        .iter()
        .map(|k| {
            let c = Class::new(k.name(), vec![jax_exception.clone()], vec![module()]);
            (*k, Obj::Class(Rc::new(c)))
        })
        .collect();
    let mut error = Class::new("Error", vec![], error_methods());
    error.native = Some(Rc::new(ErrorNode));
    let c = Classes {
        error: Rc::new(error),
        runtime_error,
        kinds,
    };
    interp.state::<State>().classes = Some(c.clone());
    c
}

/// The module.
pub fn module(interp: &mut Interp) -> Obj {
    let c = classes(interp);
    let set = |ks: &[ErrorClass]| -> Obj {
        let items = c
            .kinds
            .iter()
            .filter(|(k, _)| ks.contains(k))
            .map(|(_, o)| o.clone())
            .collect();
        match crate::python::set::Set::from_items(items) {
            Ok(mut s) => {
                s.frozen = true;
                Obj::set(s)
            }
            Err(_) => Obj::None,
        }
    };
    use ErrorClass::*;
    let init_error = error_object(interp, &ErrorValue::default(), vec![]);
    let mut b = Builder::new("jax.experimental.checkify");
    b.func("checkify", checkify)
        .func("check", |i, a| check(i, a, false))
        .func("debug_check", |i, a| check(i, a, true))
        .func("check_error", check_error)
        .attr("user_checks", set(&[FailedCheck]))
        .attr("nan_checks", set(&[NaN]))
        .attr("index_checks", set(&[OutOfBounds]))
        .attr("div_checks", set(&[DivisionByZero]))
        .attr("float_checks", set(&[NaN, DivisionByZero]))
        .attr("automatic_checks", set(&[NaN, DivisionByZero, OutOfBounds]))
        .attr("all_checks", set(&ErrorClass::ALL))
        .attr("init_error", init_error)
        .attr("Error", Obj::Class(c.error.clone()))
        .attr("JaxRuntimeError", Obj::Class(c.runtime_error.clone()));
    b.build()
}

/// `checkify.check(pred, msg, *fmt_args, **fmt_kwargs)` and `debug_check`.
fn check(interp: &mut Interp, a: Args, debug: bool) -> Result<Obj> {
    let what = if debug { "debug_check" } else { "check" };
    let pred = a.req(Some(0), "pred", what)?;
    let msg = str_of(&a.req(Some(1), "msg", what)?);
    a.read_all();
    let scalar_bool = match &pred {
        Obj::Bool(_) => true,
        Obj::Array(v) => v.shape().is_empty() && v.dtype() == DType::Bool,
        _ => false,
    };
    if !scalar_bool {
        bail!(
            TypeError,
            "{what} takes a scalar pred as argument, got {}",
            str_of(&pred)
        );
    }
    let debug = debug
        || match a.kw.iter().find(|(k, _)| k == "debug") {
            Some((_, d)) => crate::python::ops::truthy(d, "debug")?,
            None => false,
        };
    let (pos, kw) = format_args(&a)?;
    let mut params = DebugPrintParams::new(&msg);
    params.pos = vec![PrintArg::Operand; pos.len()];
    params.kw = kw
        .iter()
        .map(|(k, _)| (k.clone(), PrintArg::Operand))
        .collect();
    let state = interp.state::<State>();
    state.next_code = state.next_code.max(1);
    params.check = Some(CheckMark {
        debug,
        code: state.next_code,
    });
    state.next_code += 1;
    let mut operands = vec![to_value(&pred)?];
    operands.extend(pos.iter().map(to_value).collect::<Result<Vec<_>>>()?);
    operands.extend(
        kw.iter()
            .map(|(_, v)| to_value(v))
            .collect::<Result<Vec<_>>>()?,
    );
    if crate::trace::staging() {
        crate::trace::bind(Prim::DebugPrint(Arc::new(params)), &operands)?;
        return Ok(Obj::None);
    }
    if debug {
        return Ok(Obj::None);
    }
    // Where the values are known the check runs now.
    let known = |v: &Value| match v {
        Value::Traced(t) => t.known.clone().map(Value::Concrete).ok_or_else(|| {
            crate::err!(RuntimeError, "checkify.check: a traced value has no value")
        }),
        other => Ok(other.clone()),
    };
    let operands: Vec<Value> = operands.iter().map(known).collect::<Result<_>>()?;
    let ok = operands[0].concrete("check")?.get_f64(0) != 0.0;
    if ok {
        return Ok(Obj::None);
    }
    let text = site_message(&Site::Check(Arc::new(params)), &operands[1..])?;
    Err(runtime_error(interp, &text))
}

/// The formatting arguments of a check (keywords sorted by name, as JAX
/// flattens them), which must be arrays.
#[allow(clippy::type_complexity)]
fn format_args(a: &Args) -> Result<(Vec<Obj>, Vec<(String, Obj)>)> {
    let pos: Vec<Obj> = a.pos.iter().skip(2).cloned().collect();
    let mut kw: Vec<(String, Obj)> =
        a.kw.iter()
            .filter(|(k, _)| !matches!(k.as_str(), "pred" | "msg" | "debug"))
            .cloned()
            .collect();
    kw.sort_by(|x, y| x.0.cmp(&y.0));
    for arg in pos.iter().chain(kw.iter().map(|(_, v)| v)) {
        if matches!(arg, Obj::List(_) | Obj::Tuple(_) | Obj::Dict(_)) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: checkify.check with a container of arrays as a formatting argument"
            );
        }
        if !matches!(arg, Obj::Array(_)) {
            bail!(
                TypeError,
                "Formatting arguments to checkify.check need to be PyTrees of arrays, but got {} of type <class '{}'>.",
                repr_of(arg),
                arg.type_name()
            );
        }
    }
    Ok((pos, kw))
}

/// checkify's `JaxRuntimeError` (a `ValueError`) with `message`, raised.
fn runtime_error(interp: &mut Interp, message: &str) -> crate::error::Error {
    let class = classes(interp).runtime_error;
    let inst = Instance::new(class);
    inst.set("args", Obj::tuple(vec![Obj::str(message)]));
    match interp.raise(Obj::Instance(Rc::new(inst))) {
        Ok(e) | Err(e) => e,
    }
}

/// The message of a failure at `site` with its payload's values.
fn site_message(site: &Site, payload: &[Value]) -> Result<String> {
    Ok(match site {
        Site::Check(p) => {
            let mut vals = payload.iter().map(|v| Obj::Array(v.clone()));
            let pos: Vec<Obj> = p.pos.iter().filter_map(|_| vals.next()).collect();
            let kw: Vec<(String, Obj)> =
                p.kw.iter()
                    .filter_map(|(k, _)| vals.next().map(|v| (k.clone(), v)))
                    .collect();
            let text = crate::python::builtins::str_format(&p.fmt, &Args::with(pos, kw))?;
            format!("{text} (`check` failed)")
        }
        Site::NaN(prim) => format!("nan generated by primitive: {prim}."),
        Site::DivisionByZero => "division by zero".into(),
        Site::OutOfBounds(shape) => {
            let p = payload
                .first()
                .ok_or_else(|| crate::err!(RuntimeError, "checkify: no payload"))?;
            let p = p.concrete("checkify")?;
            let at = |i: usize| p.get_f64(i) as i64;
            format!(
                "out-of-bounds indexing for array of shape {}: index {} is out of bounds for axis {} with size {}. ",
                crate::ir::fmt_shape(shape),
                at(0),
                at(1),
                at(2)
            )
        }
    })
}

/// `checkify.checkify(f, errors=user_checks)`.
fn checkify(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "f", "checkify")?;
    let enabled = match a.opt(Some(1), "errors") {
        Some(e) => enabled_classes(interp, &e)?,
        None => vec![ErrorClass::FailedCheck],
    };
    Ok(Obj::native("checked_fun", move |interp, args| {
        call_checked(interp, &f, &enabled, args)
    }))
}

/// The kinds of failure a set of error classes names.
fn enabled_classes(interp: &mut Interp, errors: &Obj) -> Result<Vec<ErrorClass>> {
    let c = classes(interp);
    let items = crate::python::ops::iterate(errors)?;
    let mut out = vec![];
    for item in items {
        let Some((k, _)) = c.kinds.iter().find(|(_, o)| same_class(o, &item)) else {
            bail!(
                TypeError,
                "checkify errors must be checkify error classes, got {}",
                repr_of(&item)
            );
        };
        out.push(*k);
    }
    Ok(out)
}

fn same_class(a: &Obj, b: &Obj) -> bool {
    matches!((a, b), (Obj::Class(x), Obj::Class(y)) if Rc::ptr_eq(x, y))
}

/// Calls the checkified `f`: traces it with its arguments closed over (as
/// JAX does), checkifies the program and returns `(error, out)`.
fn call_checked(interp: &mut Interp, f: &Obj, enabled: &[ErrorClass], args: Args) -> Result<Obj> {
    let mut out_def = None;
    let traced = crate::trace::trace(&[], FrameAxes::default(), |_| {
        let out = interp.call(f, args)?;
        let (leaves, def) = flatten(interp, &out)?;
        out_def = Some(def);
        leaves.iter().map(to_value).collect()
    })?;
    if !traced.refs.is_empty() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: checkify of a function that uses refs"
        );
    }
    let Some(out_def) = out_def else {
        bail!(RuntimeError, "checkify: the function was not traced");
    };
    let first = interp.state::<State>().next_code.max(1);
    let mut ck = Checkify::new(enabled.to_vec(), first);
    let (err, outs) = ck.eval(&traced.jaxpr, ErrorValue::default(), &traced.captured)?;
    interp.state::<State>().next_code = ck.next_code();
    let outs: Vec<Obj> = outs.into_iter().map(Obj::Array).collect();
    let out = unflatten(interp, &out_def, &outs)?;
    let error = error_object(interp, &err, ck.sites);
    Ok(Obj::tuple(vec![error, out]))
}

/// The static half of an `Error`: its effects and what each code means.
struct Meta {
    keys: Vec<EffectKey>,
    sites: Vec<(i32, Site)>,
}

impl Object for Meta {
    fn type_name(&self) -> String {
        "ErrorMetadata".into()
    }
}

/// An `Error` instance holding `err`'s values and the sites `sites`.
fn error_object(interp: &mut Interp, err: &ErrorValue, sites: Vec<(i32, Site)>) -> Obj {
    let class = classes(interp).error;
    let arrays = |vs: Vec<Value>| Obj::tuple(vs.into_iter().map(Obj::Array).collect());
    let inst = Instance::new(class);
    inst.set(
        "_pred",
        arrays(err.effects.iter().map(|e| e.pred.clone()).collect()),
    );
    inst.set(
        "_code",
        arrays(err.effects.iter().map(|e| e.code.clone()).collect()),
    );
    let payloads = err
        .effects
        .iter()
        .map(|e| arrays(e.payload.clone()))
        .collect();
    inst.set("_payload", Obj::tuple(payloads));
    let meta = Meta {
        keys: err.keys(),
        sites,
    };
    inst.set("_metadata", Obj::lib(meta));
    Obj::Instance(Rc::new(inst))
}

/// The error value and sites an `Error` instance holds.
fn error_parts(o: &Obj) -> Result<(ErrorValue, Rc<Meta>)> {
    let Obj::Instance(i) = o else {
        bail!(
            TypeError,
            "check_error takes an Error as argument, got type <class '{}'> instead.",
            o.type_name()
        );
    };
    let meta = i.get("_metadata").and_then(|m| m.downcast_rc::<Meta>());
    let Some(meta) = meta else {
        bail!(
            TypeError,
            "check_error takes an Error as argument, got type <class '{}'> instead.",
            i.class.name
        );
    };
    let mut leaves = vec![];
    for name in ["_pred", "_code"] {
        leaves.extend(crate::python::ops::iterate(
            &i.get(name).unwrap_or(Obj::None),
        )?);
    }
    for p in crate::python::ops::iterate(&i.get("_payload").unwrap_or(Obj::None))? {
        leaves.extend(crate::python::ops::iterate(&p)?);
    }
    let vals: Vec<Value> = leaves.iter().map(to_value).collect::<Result<_>>()?;
    Ok((ErrorValue::from_leaves(&meta.keys, &vals)?, meta))
}

/// The message of the failure `err` holds, None when nothing failed. A
/// batched error names every element that failed.
fn error_message(err: &ErrorValue, meta: &Meta) -> Result<Option<String>> {
    let Some(first) = err.effects.first() else {
        return Ok(None);
    };
    let shape = first.pred.shape();
    if shape.is_empty() {
        return element_message(err, meta, None);
    }
    let n: usize = shape.iter().product();
    let mut lines = vec![];
    for flat in 0..n {
        if let Some(m) = element_message(err, meta, Some(flat))? {
            let mut idx = vec![];
            let mut rest = flat;
            for d in shape.iter().rev() {
                idx.push(rest % d);
                rest /= d;
            }
            let idx: Vec<String> = idx.iter().rev().map(|i| i.to_string()).collect();
            lines.push(format!("at mapped index {}: {m}", idx.join(", ")));
        }
    }
    Ok((!lines.is_empty()).then(|| lines.join("\n")))
}

/// The message of one element of an error (all of it when `at` is None):
/// the site with the lowest code among the effects that happened.
fn element_message(err: &ErrorValue, meta: &Meta, at: Option<usize>) -> Result<Option<String>> {
    let mut best: Option<(i64, usize)> = None;
    for (i, e) in err.effects.iter().enumerate() {
        let pred = e.pred.concrete_for(crate::trace::Conversion::Bool)?;
        let code = e.code.concrete_for(crate::trace::Conversion::Bool)?;
        let k = at.unwrap_or(0);
        if pred.get_f64(k) == 0.0 {
            continue;
        }
        let c = code.get_f64(k) as i64;
        if best.is_none_or(|(b, _)| c < b) {
            best = Some((c, i));
        }
    }
    let Some((code, i)) = best else {
        return Ok(None);
    };
    let Some((_, site)) = meta.sites.iter().find(|(c, _)| *c as i64 == code) else {
        bail!(RuntimeError, "checkify: no site has code {code}");
    };
    let payload: Vec<Value> = match at {
        None => err.effects[i].payload.clone(),
        Some(k) => err.effects[i]
            .payload
            .iter()
            .map(|p| crate::ops::take(p, &crate::ops::scalar(k as f64, DType::I32), 0))
            .collect::<Result<_>>()?,
    };
    site_message(site, &payload).map(Some)
}

/// `checkify.check_error(err)`: raises the failure `err` holds.
fn check_error(interp: &mut Interp, a: Args) -> Result<Obj> {
    let e = a.req(Some(0), "error", "check_error")?;
    throw(interp, &e)
}

fn throw(interp: &mut Interp, e: &Obj) -> Result<Obj> {
    let (err, meta) = error_parts(e)?;
    if err.leaves().iter().any(|v| matches!(v, Value::Traced(_))) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: checkify.check_error of a traced Error"
        );
    }
    match error_message(&err, &meta)? {
        Some(m) => Err(runtime_error(interp, &m)),
        None => Ok(Obj::None),
    }
}

/// `Error.get`, `Error.throw` and `str(Error)`.
fn error_methods() -> Vec<(String, Obj)> {
    let this = |a: &Args| a.pos.first().cloned().unwrap_or(Obj::None);
    let get = move |_: &mut Interp, a: Args| -> Result<Obj> {
        let (err, meta) = error_parts(&this(&a))?;
        Ok(match error_message(&err, &meta)? {
            Some(m) => Obj::str(m),
            None => Obj::None,
        })
    };
    let text = move |_: &mut Interp, a: Args| -> Result<Obj> {
        let (err, meta) = error_parts(&this(&a))?;
        let m = match error_message(&err, &meta)? {
            Some(m) => m,
            None => "None".into(),
        };
        Ok(Obj::str(format!("Error({m})")))
    };
    vec![
        ("get".into(), Obj::native("Error.get", get)),
        (
            "throw".into(),
            Obj::native("Error.throw", move |i, a| throw(i, &this(&a))),
        ),
        ("__str__".into(), Obj::native("Error.__str__", text)),
        ("__module__".into(), Obj::str("jax._src.checkify")),
    ]
}

/// What an `Error` is as a pytree: a node over its predicates, codes and
/// payloads, with its effects and sites as static data.
struct ErrorNode;

impl Object for ErrorNode {
    fn type_name(&self) -> String {
        "Error".into()
    }

    fn children(&self, _: &Obj) -> Option<Vec<String>> {
        Some(vec!["_pred".into(), "_code".into(), "_payload".into()])
    }
}
