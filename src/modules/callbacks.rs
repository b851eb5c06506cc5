//! Host callbacks: `jax.pure_callback`, `jax.experimental.io_callback` and
//! `jax.debug.callback`, which run a Python function on the host in the
//! middle of a JAX computation.
//!
//! shardlab runs pure and IO callbacks where their operands have values: at
//! top level and under eager differentiation. Differentiating a pure or IO callback is
//! refused with JAX's own ValueError (only `jax.custom_jvp` makes one
//! differentiable), while a debug callback sees the primal values. A callback
//! inside a staged function (jit, vmap, scan, a map body) would have to run
//! every time the compiled program runs, which shardlab's evaluator cannot
//! call back into Python for: there it is refused as not supported yet. A
//! debug callback returns nothing the program uses, so a staged one is an
//! equation whose runs hand their values to the front end, which calls the
//! function once the program has run, as it shows `jax.debug.print` lines.

use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::pytree::{flatten, unflatten};
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::shape_dtype::aval_of;

/// The `vmap_method` values JAX 0.10.2 accepts (None is accepted too).
const VMAP_METHODS: [&str; 5] = [
    "sequential",
    "sequential_unrolled",
    "expand_dims",
    "broadcast_all",
    "legacy_vectorized",
];

/// Which callback API was called: its name, and the message JAX gives
/// when it is differentiated (None: the callback sees primal values).
#[derive(Clone, Copy)]
enum Kind {
    Pure,
    Io,
    Debug,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Pure => "jax.pure_callback",
            Kind::Io => "jax.experimental.io_callback",
            Kind::Debug => "jax.debug.callback",
        }
    }

    fn jvp_refusal(self) -> Option<&'static str> {
        match self {
            Kind::Pure => Some(
                "Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while taking gradients.",
            ),
            Kind::Io => Some("IO callbacks do not support JVP."),
            Kind::Debug => None,
        }
    }
}

/// The operands' values, or the refusal for where the callback was called.
fn operand_values(kind: Kind, leaves: &[Obj]) -> Result<Vec<Obj>> {
    let mut out = Vec::with_capacity(leaves.len());
    for leaf in leaves {
        // A debug callback passes along what is not an array (a label).
        let is_array = matches!(
            leaf,
            Obj::Array(_) | Obj::Int(_) | Obj::Float(_) | Obj::Bool(_)
        );
        if matches!(kind, Kind::Debug) && !is_array {
            out.push(leaf.clone());
            continue;
        }
        let v = to_value(leaf)?;
        let a = match &v {
            Value::Concrete(a) => a.clone(),
            Value::Traced(t) => match (&t.known, kind.jvp_refusal()) {
                (Some(_), Some(msg)) => bail!(ValueError, "{msg}"),
                (Some(a), None) => a.clone(),
                (None, _) => bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: {} inside a traced function (jit, vmap, scan, a map body)",
                    kind.name()
                ),
            },
        };
        out.push(Obj::Array(Value::Concrete(a)));
    }
    Ok(out)
}

/// A staged trace cannot hold a callback even when no operand is traced.
fn refuse_staged(kind: Kind) -> Result<()> {
    if crate::trace::staging() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: {} inside a traced function (jit, vmap, scan, a map body)",
            kind.name()
        );
    }
    Ok(())
}

/// Calls `callback` with the arrays of `args` (a tuple) and `kw`, as NumPy
/// arrays for pure and IO callbacks and as JAX arrays for debug ones.
fn call_host(
    interp: &mut Interp,
    kind: Kind,
    callback: &Obj,
    args: &[Obj],
    kw: &[(String, Obj)],
) -> Result<Obj> {
    refuse_staged(kind)?;
    let tree = Obj::tuple(vec![
        Obj::tuple(args.to_vec()),
        Obj::tuple(kw.iter().map(|(_, v)| v.clone()).collect()),
    ]);
    let (leaves, def) = flatten(interp, &tree)?;
    let mut values = operand_values(kind, &leaves)?;
    if !matches!(kind, Kind::Debug) {
        values = values
            .into_iter()
            .map(super::numpy::ndarray::wrap)
            .collect();
    }
    let rebuilt = unflatten(interp, &def, &values)?;
    let (pos, kwv) = match &rebuilt {
        Obj::Tuple(t) if t.len() == 2 => (t[0].clone(), t[1].clone()),
        _ => bail!(RuntimeError, "{}: the arguments were lost", kind.name()),
    };
    let pos = crate::python::ops::iterate(&pos)?;
    let kwv = crate::python::ops::iterate(&kwv)?;
    let kw = kw.iter().map(|(k, _)| k.clone()).zip(kwv).collect();
    interp.call(callback, Args { pos, kw })
}

/// The callback's result checked against `result_shape_dtypes` (a pytree
/// of structs or arrays) and converted to JAX arrays, with the error JAX's
/// runtime raises for a mismatch.
fn checked_result(interp: &mut Interp, result: &Obj, expected: &Obj) -> Result<Obj> {
    let (want, def) = flatten(interp, expected)?;
    let got = crate::python::pytree::flatten_up_to(interp, &def, result)?;
    let mut outs = Vec::with_capacity(want.len());
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        let w: Aval = aval_of(w)?;
        let g = to_value(g)?;
        let (gs, ws) = (g.shape(), &w.shape);
        let prefix = "INTERNAL: CpuCallback error calling callback";
        if &gs != ws {
            bail!(
                RuntimeError,
                "{prefix}: Incorrect output shape for return value #{i}: Expected: {}, Actual: {}",
                crate::array::shape_tuple(ws),
                crate::array::shape_tuple(&gs)
            );
        }
        // shardlab's NumPy computes in JAX's 32-bit types, as JAX accepts
        // a callback's 64-bit results for them with x64 off.
        if g.dtype() != w.dtype {
            bail!(
                RuntimeError,
                "{prefix}: Incorrect output dtype for return value #{i}: Expected: {}, Actual: {}",
                w.dtype.name(),
                g.dtype().name()
            );
        }
        outs.push(Obj::Array(crate::ops::convert(&g, w.dtype)?));
    }
    unflatten(interp, &def, &outs)
}

/// The keyword arguments that go to the callback (not the API's own).
fn callback_kw(a: &Args, own: &[&str]) -> Vec<(String, Obj)> {
    a.kw.iter()
        .filter(|(k, _)| !own.contains(&k.as_str()))
        .cloned()
        .collect()
}

/// `sharding=` other than None is not modelled.
fn refuse_sharding(a: &Args, kind: Kind) -> Result<()> {
    match a.get(None, "sharding") {
        None | Some(Obj::None) => Ok(()),
        Some(_) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: {}(sharding=...)",
            kind.name()
        ),
    }
}

/// `jax.pure_callback(callback, result_shape_dtypes, *args, sharding=None,
/// vmap_method=None, **kwargs)`.
pub fn pure_callback(interp: &mut Interp, a: Args) -> Result<Obj> {
    let callback = a.req(Some(0), "callback", "pure_callback")?;
    let expected = a.req(Some(1), "result_shape_dtypes", "pure_callback")?;
    if let Some(m) = a.get(None, "vmap_method") {
        let text = crate::python::format::str_of(&m);
        if !matches!(m, Obj::None) && !VMAP_METHODS.contains(&text.as_str()) {
            bail!(
                ValueError,
                "vmap_method must be on of the allowed methods ['sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', 'legacy_vectorized', None], but got: {text}"
            );
        }
    }
    refuse_sharding(&a, Kind::Pure)?;
    let kw = callback_kw(
        &a,
        &["callback", "result_shape_dtypes", "sharding", "vmap_method"],
    );
    let args = a.pos.get(2..).unwrap_or_default().to_vec();
    let result = call_host(interp, Kind::Pure, &callback, &args, &kw)?;
    checked_result(interp, &result, &expected)
}

/// `io_callback(callback, result_shape_dtypes, *args, sharding=None,
/// ordered=False, **kwargs)`.
pub fn io_callback(interp: &mut Interp, a: Args) -> Result<Obj> {
    let callback = a.req(Some(0), "callback", "io_callback")?;
    let expected = a.req(Some(1), "result_shape_dtypes", "io_callback")?;
    refuse_sharding(&a, Kind::Io)?;
    let kw = callback_kw(
        &a,
        &["callback", "result_shape_dtypes", "sharding", "ordered"],
    );
    let args = a.pos.get(2..).unwrap_or_default().to_vec();
    let result = call_host(interp, Kind::Io, &callback, &args, &kw)?;
    checked_result(interp, &result, &expected)
}

/// `jax.debug.callback(callback, *args, ordered=False, partitioned=False,
/// **kwargs)`: returns None.
pub fn debug_callback(interp: &mut Interp, a: Args) -> Result<Obj> {
    let callback = a.req(Some(0), "callback", "jax.debug.callback")?;
    let kw = callback_kw(&a, &["callback", "ordered", "partitioned"]);
    let args = a.pos.get(1..).unwrap_or_default().to_vec();
    if crate::trace::staging() {
        let ordered = match a.get(None, "ordered") {
            Some(o) => crate::python::ops::truthy(&o, "ordered")?,
            None => false,
        };
        super::debug_print::stage_callback(interp, callback, &args, &kw, ordered)?;
        return Ok(Obj::None);
    }
    call_host(interp, Kind::Debug, &callback, &args, &kw)?;
    Ok(Obj::None)
}
