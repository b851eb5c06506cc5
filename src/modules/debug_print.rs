//! `jax.debug.print(fmt, *args, **kwargs)`.
//!
//! Outside a staged trace the text is printed at once: at top level, and
//! under eager differentiation, whose tracers carry their values. Inside a
//! staged trace (`jit`, `make_jaxpr`, map bodies) the values exist only when
//! the program runs, so the print becomes a `debug_print` equation that
//! prints every time the program runs, with the values of that run, as
//! JAX's does.

use std::sync::Arc;

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::primitives::debug::{DebugPrintParams, PrintArg, Printed};
use crate::primitives::Prim;
use crate::python::array::to_value;
use crate::python::format::str_of;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

/// Options of `jax.debug.print` that are not formatted.
const OPTIONS: [&str; 3] = ["ordered", "partitioned", "skip_format_check"];

/// `jax.debug.print`.
pub fn print(interp: &mut Interp, a: Args) -> Result<Obj> {
    let fmt = str_of(&a.req(Some(0), "fmt", "jax.debug.print")?);
    // The other keywords are the format's arguments.
    a.read_all();
    let pos: Vec<Obj> = a.pos.iter().skip(1).cloned().collect();
    let mut kw: Vec<(String, Obj)> =
        a.kw.iter()
            .filter(|(k, _)| k != "fmt" && !OPTIONS.contains(&k.as_str()))
            .cloned()
            .collect();
    kw.sort_by(|x, y| x.0.cmp(&y.0));
    if !DebugPrintParams::new(&fmt).has_placeholders() && !pos.is_empty() {
        let args: Vec<String> = pos.iter().map(crate::python::format::repr_of).collect();
        bail!(
            ValueError,
            "Unused positional arguments to `jax.debug.print`: [{}]",
            args.join(", ")
        );
    }
    if crate::trace::staging() {
        let ordered = match a.opt(None, "ordered") {
            Some(o) => crate::python::ops::truthy(&o, "ordered")?,
            None => false,
        };
        return stage(fmt, &pos, &kw, ordered);
    }
    let known = |o: &Obj| match o {
        Obj::Array(v @ Value::Traced(_)) => v
            .concrete("jax.debug.print")
            .map(|x| Obj::Array(Value::Concrete(x.clone()))),
        other => Ok(other.clone()),
    };
    let pos: Vec<Obj> = pos.iter().map(known).collect::<Result<_>>()?;
    let kw: Vec<(String, Obj)> = kw
        .iter()
        .map(|(k, v)| Ok((k.clone(), known(v)?)))
        .collect::<Result<_>>()?;
    let text = if DebugPrintParams::new(&fmt).has_placeholders() {
        let pos = pos.iter().map(formatted).collect();
        let kw = kw.iter().map(|(k, v)| (k.clone(), formatted(v))).collect();
        crate::python::builtins::str_format(&fmt, &Args::with(pos, kw))?
    } else {
        let mut parts = vec![fmt];
        parts.extend(pos.iter().map(str_of));
        parts.join(" ")
    };
    interp.out.push_str(&text);
    interp.out.push('\n');
    Ok(Obj::None)
}

/// The refusal of a breakpoint that is reached.
fn breakpoint_refused() -> crate::error::Error {
    crate::err!(
        NotImplementedError,
        "not supported by shardlab yet: jax.debug.breakpoint (an interactive debugger)"
    )
}

/// `jax.debug.breakpoint()`: refused where it runs. Inside a staged trace
/// it becomes an equation that fails only if it runs, so a breakpoint in a
/// branch that is not taken (`lax.cond` on a check) lets the program run.
pub fn breakpoint(_: &mut Interp, _: Args) -> Result<Obj> {
    if !crate::trace::staging() {
        return Err(breakpoint_refused());
    }
    let mut params = DebugPrintParams::new("");
    params.breakpoint = true;
    params.ordered = true;
    crate::trace::bind(Prim::DebugPrint(Arc::new(params)), &[])?;
    Ok(Obj::None)
}

/// Records the print in the trace being staged.
fn stage(fmt: String, pos: &[Obj], kw: &[(String, Obj)], ordered: bool) -> Result<Obj> {
    let (params, operands) = staged_params(fmt, pos, kw, ordered)?;
    crate::trace::bind(Prim::DebugPrint(Arc::new(params)), &operands)?;
    Ok(Obj::None)
}

/// The parameters and operands of a staged print or debug callback.
pub(crate) fn staged_params(
    fmt: String,
    pos: &[Obj],
    kw: &[(String, Obj)],
    ordered: bool,
) -> Result<(DebugPrintParams, Vec<Value>)> {
    let mut operands = vec![];
    let mut arg = |o: &Obj| -> Result<PrintArg> {
        match o {
            Obj::Str(s) => Ok(PrintArg::Text(s.to_string())),
            Obj::Array(_) | Obj::Int(_) | Obj::Float(_) | Obj::Bool(_) => {
                operands.push(to_value(o)?);
                Ok(PrintArg::Operand)
            }
            other => bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.debug.print of a {} inside a traced function",
                other.type_name()
            ),
        }
    };
    let pos: Vec<PrintArg> = pos.iter().map(&mut arg).collect::<Result<_>>()?;
    let kw: Vec<(String, PrintArg)> = kw
        .iter()
        .map(|(k, v)| Ok((k.clone(), arg(v)?)))
        .collect::<Result<_>>()?;
    let params = DebugPrintParams {
        fmt,
        pos,
        kw,
        ordered,
        breakpoint: false,
        callback: None,
        inspect: None,
        check: None,
    };
    Ok((params, operands))
}

/// What `str.format` sees of an argument: JAX hands the callback NumPy
/// arrays, and a 0-dimensional NumPy array formats as the Python scalar it
/// holds (a float32 shows all the digits of its float64 value).
pub(crate) fn formatted(o: &Obj) -> Obj {
    match o {
        Obj::Array(Value::Concrete(a)) if a.shape().is_empty() => {
            let x = a.get_f64(0);
            match a.dtype() {
                DType::Bool => Obj::Bool(x != 0.0),
                d if d.is_float() => Obj::Float(x),
                d if d.is_int() => Obj::Int(x as i64),
                _ => crate::python::array::scalar_obj(a, 0),
            }
        }
        other => other.clone(),
    }
}

/// Shows what eagerly applied primitives printed (the body of a vmap
/// evaluated at top level), in the order they printed it.
pub fn show_eager_prints(interp: &mut Interp) -> Result<()> {
    let deferred = crate::exec::run::take_deferred_text();
    if !deferred.is_empty() {
        interp.out.push_str(&deferred);
    }
    for printed in crate::exec::take_eager_prints() {
        show(interp, &printed)?;
    }
    Ok(())
}

/// The Python functions of the run's staged `jax.debug.callback` calls, by
/// the number their equations hold (run state: they go with the run).
#[derive(Default)]
struct Callbacks(Vec<Obj>);

/// Stages a `jax.debug.callback(f, *pos, **kw)`: a `debug_callback`
/// equation whose runs hand their values to `f` (after the program has run,
/// in the order of the run; the callback returns nothing the program uses).
pub fn stage_callback(
    interp: &mut Interp,
    f: Obj,
    pos: &[Obj],
    kw: &[(String, Obj)],
    ordered: bool,
) -> Result<()> {
    let callbacks = &mut interp.state::<Callbacks>().0;
    callbacks.push(f);
    let id = callbacks.len() as u64 - 1;
    let (mut params, operands) = staged_params(String::new(), pos, kw, ordered)?;
    params.callback = Some(id);
    crate::trace::bind(Prim::DebugPrint(Arc::new(params)), &operands)?;
    Ok(())
}

/// Shows one print of a run, or calls the debug callback it stands for.
pub fn show(interp: &mut Interp, printed: &Printed) -> Result<()> {
    let Some(id) = printed.params.callback else {
        let line = text(printed)?;
        interp.out.push_str(&line);
        interp.out.push('\n');
        return Ok(());
    };
    let f = interp.state::<Callbacks>().0.get(id as usize).cloned();
    let Some(f) = f else {
        bail!(RuntimeError, "debug_callback: the callback is gone");
    };
    let (pos, kw) = arguments(printed)?;
    interp.call(&f, Args::with(pos, kw))?;
    Ok(())
}

/// The line a run's print shows (without its newline): `str.format` of the
/// format with the operands' values, or, when the format has no fields, the
/// format and the values' `str` joined by spaces.
pub fn text(printed: &Printed) -> Result<String> {
    let d = &printed.params;
    let (pos, kw) = arguments(printed)?;
    if d.has_placeholders() {
        let pos = pos.iter().map(formatted).collect();
        let kw = kw.iter().map(|(k, v)| (k.clone(), formatted(v))).collect();
        return crate::python::builtins::str_format(&d.fmt, &Args::with(pos, kw));
    }
    let mut parts = vec![d.fmt.clone()];
    parts.extend(pos.iter().map(str_of));
    Ok(parts.join(" "))
}

/// The arguments of one print or callback of a run, with its operands'
/// values in place.
#[allow(clippy::type_complexity)]
pub(crate) fn arguments(printed: &Printed) -> Result<(Vec<Obj>, Vec<(String, Obj)>)> {
    let d = &printed.params;
    let mut operands = printed.args.iter();
    let mut obj = |a: &PrintArg| -> Result<Obj> {
        Ok(match a {
            PrintArg::Text(t) => Obj::str(t),
            PrintArg::Operand => match operands.next() {
                Some(x) => Obj::Array(Value::Concrete(x.clone())),
                None => bail!(RuntimeError, "debug_print: too few operands"),
            },
        })
    };
    let pos: Vec<Obj> = d.pos.iter().map(&mut obj).collect::<Result<_>>()?;
    let kw: Vec<(String, Obj)> =
        d.kw.iter()
            .map(|(k, a)| Ok((k.clone(), obj(a)?)))
            .collect::<Result<_>>()?;
    Ok((pos, kw))
}
