//! `jnp.vectorize(pyfunc, *, excluded=frozenset(), signature=None)`: a
//! function that broadcasts its arguments and maps `pyfunc` over their
//! leading (non-core) dimensions with `jax.vmap`, as JAX builds it.
//!
//! Like JAX, each argument is squeezed of its size-1 leading dimensions and
//! mapped only where it has a real dimension (`in_axes` None elsewhere), so
//! `pyfunc` sees unbroadcast operands; dimensions no argument has are put
//! back with `expand_dims` at the end. With a gufunc `signature` such as
//! `(m,n),(n)->(m)` the trailing core dimensions are passed whole and the
//! outputs' core shapes are checked against it. Keyword arguments that are
//! not `excluded` are dropped, as JAX's wrapper drops them.

use std::rc::Rc;

use crate::bail;
use crate::error::Result;
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::composed::call;

/// Adds `vectorize` to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("vectorize", vectorize);
}

/// The core dimension names of each argument (or output).
type CoreDims = Vec<Vec<String>>;

/// The sizes of the named core dimensions seen so far.
type Sizes = Vec<(String, usize)>;

/// What `vectorize` was given.
struct Spec {
    pyfunc: Obj,
    excluded: Vec<Obj>,
    /// `excluded!r`, for error messages.
    excluded_repr: String,
    signature: Option<String>,
}

fn vectorize(_: &mut Interp, a: Args) -> Result<Obj> {
    let pyfunc = a.req(Some(0), "pyfunc", "vectorize")?;
    let given = a.opt(None, "excluded");
    let excluded = match &given {
        Some(o) => iterate(o)?,
        None => vec![],
    };
    let excluded_repr = given.as_ref().map_or("frozenset()".into(), repr_of);
    if excluded
        .iter()
        .any(|e| !matches!(e, Obj::Int(_) | Obj::Str(_)))
    {
        bail!(
            TypeError,
            "jax.numpy.vectorize can only exclude integer or string arguments, but \
             excluded={excluded_repr}"
        );
    }
    if excluded.iter().any(|e| matches!(e, Obj::Int(i) if *i < 0)) {
        bail!(
            ValueError,
            "excluded={excluded_repr} contains negative numbers"
        );
    }
    let signature = match a.opt(None, "signature") {
        None => None,
        Some(Obj::Str(s)) => Some(s.to_string()),
        Some(o) => bail!(
            TypeError,
            "expected string or bytes-like object, got '{}'",
            o.type_name()
        ),
    };
    let name = super::super::jax::func_name(&pyfunc);
    let spec = Rc::new(Spec {
        pyfunc,
        excluded,
        excluded_repr,
        signature,
    });
    Ok(Obj::native(name, move |i, c| vectorized(i, &spec, c)))
}

/// `pyfunc` with the arguments at `positions` (and keywords `names`) bound
/// to the values given now; returns it with the remaining positional
/// arguments.
fn bind(func: Obj, positions: &[i64], names: &[&str], c: Args) -> (Obj, Vec<Obj>) {
    let mut fixed: Vec<(usize, Obj)> = positions
        .iter()
        .filter_map(|&p| c.pos.get(p as usize).map(|v| (p as usize, v.clone())))
        .collect();
    fixed.sort_by_key(|(p, _)| *p);
    fixed.dedup_by_key(|(p, _)| *p);
    let dynamic = (0..c.pos.len())
        .filter(|p| !fixed.iter().any(|(f, _)| f == p))
        .map(|p| c.pos[p].clone())
        .collect();
    let fixed_kw: Vec<(String, Obj)> =
        c.kw.into_iter()
            .filter(|(k, _)| names.contains(&k.as_str()))
            .collect();
    if fixed.is_empty() && fixed_kw.is_empty() {
        return (func, dynamic);
    }
    let bound = Obj::native("vectorized", move |i, inner: Args| {
        let mut pos = inner.pos;
        for (p, v) in &fixed {
            pos.insert((*p).min(pos.len()), v.clone());
        }
        let mut kw = inner.kw;
        kw.extend(fixed_kw.iter().cloned());
        i.call(&func, Args::with(pos, kw))
    });
    (bound, dynamic)
}

/// One call of the vectorized function.
fn vectorized(interp: &mut Interp, spec: &Spec, c: Args) -> Result<Obj> {
    let context = format!(
        "on vectorized function with excluded={} and signature={}",
        spec.excluded_repr,
        spec.signature
            .as_ref()
            .map_or("None".into(), |s| repr_of(&Obj::str(s)))
    );
    let positions: Vec<i64> = spec.excluded.iter().filter_map(int_of).collect();
    let names: Vec<&str> = spec.excluded.iter().filter_map(str_of).collect();
    let (mut func, mut args) = match spec.excluded.is_empty() {
        true => (spec.pyfunc.clone(), c.pos),
        false => bind(spec.pyfunc.clone(), &positions, &names, c),
    };
    let (mut ins, outs) = match &spec.signature {
        Some(s) => {
            let (ins, outs) = parse_signature(s)?;
            (ins, Some(outs))
        }
        None => (vec![vec![]; args.len()], None),
    };
    // JAX binds None arguments only when one is past the first position.
    let nones: Vec<usize> = (0..args.len())
        .filter(|&i| matches!(args[i], Obj::None))
        .collect();
    if nones.iter().any(|&i| i != 0) {
        if nones
            .iter()
            .any(|&i| ins.get(i).is_some_and(|d| !d.is_empty()))
        {
            let at: Vec<String> = nones.iter().map(|i| i.to_string()).collect();
            let sig = spec
                .signature
                .as_ref()
                .map_or("None".into(), |s| repr_of(&Obj::str(s)));
            bail!(
                ValueError,
                "Cannot pass None at locations {{{}}} with signature={sig}",
                at.join(", ")
            );
        }
        let at: Vec<i64> = nones.iter().map(|&i| i as i64).collect();
        (func, args) = bind(func, &at, &[], Args::new(args));
        ins = (0..ins.len())
            .filter(|i| !nones.contains(i))
            .map(|i| ins[i].clone())
            .collect();
    }
    let args = args
        .into_iter()
        .map(|x| call(interp, "asarray", vec![x], vec![]))
        .collect::<Result<Vec<_>>>()?;
    let (broadcast, sizes) = input_dimensions(&args, &ins, &context)?;
    if let Some(outs) = outs {
        func = checked(func, sizes, outs, context);
    }
    map_over(interp, func, args, &ins, &broadcast)
}

fn int_of(o: &Obj) -> Option<i64> {
    match o {
        Obj::Int(i) => Some(*i),
        _ => None,
    }
}

fn str_of(o: &Obj) -> Option<&str> {
    match o {
        Obj::Str(s) => Some(s),
        _ => None,
    }
}

/// Squeezes each argument's size-1 leading dimensions, vmaps `func` once
/// per broadcast dimension some argument has, and expands the result over
/// the dimensions none has.
fn map_over(
    interp: &mut Interp,
    func: Obj,
    args: Vec<Obj>,
    ins: &CoreDims,
    broadcast: &[usize],
) -> Result<Obj> {
    let mut squeezed = vec![];
    let mut filled = vec![];
    for (x, core) in args.iter().zip(ins) {
        let shape = crate::python::array::to_value(x)?.shape();
        let noncore = &shape[..shape.len() - core.len()];
        let mut full = vec![1; broadcast.len() - noncore.len()];
        full.extend_from_slice(noncore);
        filled.push(full);
        let ones: Vec<Obj> = (0..noncore.len())
            .filter(|&i| noncore[i] == 1)
            .map(|i| Obj::Int(i as i64))
            .collect();
        let axis = Obj::tuple(ones);
        squeezed.push(call(
            interp,
            "squeeze",
            vec![x.clone()],
            vec![("axis", axis)],
        )?);
    }
    let jax = super::super::import(interp, "jax")?;
    let vmap = crate::python::ops::getattr(interp, &jax, "vmap")?;
    let mut mapped = func;
    let mut expand = vec![];
    for d in (0..broadcast.len()).rev() {
        let in_axes: Vec<Obj> = filled
            .iter()
            .map(|s| if s[d] == 1 { Obj::None } else { Obj::Int(0) })
            .collect();
        if in_axes.iter().all(|a| matches!(a, Obj::None)) {
            expand.push(Obj::Int(d as i64));
        } else {
            mapped = interp.call(&vmap, Args::new(vec![mapped, Obj::tuple(in_axes)]))?;
        }
    }
    let out = interp.call(&mapped, Args::new(squeezed))?;
    if expand.is_empty() {
        return Ok(out);
    }
    let axis = Obj::list(expand);
    let mut grow = |r: Obj| call(interp, "expand_dims", vec![r], vec![("axis", axis.clone())]);
    match out {
        Obj::Tuple(items) => Ok(Obj::tuple(
            items
                .iter()
                .cloned()
                .map(&mut grow)
                .collect::<Result<_>>()?,
        )),
        other => grow(other),
    }
}

/// A dimension name: a run of word characters.
fn dim_names(inner: &str, signature: &str) -> Result<Vec<String>> {
    if inner.is_empty() {
        return Ok(vec![]);
    }
    inner
        .split(',')
        .map(
            |n| match !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_') {
                true => Ok(n.to_string()),
                false => bail!(ValueError, "not a valid gufunc signature: {signature}"),
            },
        )
        .collect()
}

/// `(a,b),(c)` into each parenthesised group's names.
fn arg_list(list: &str, signature: &str) -> Result<CoreDims> {
    let bad = || crate::err!(ValueError, "not a valid gufunc signature: {signature}");
    let mut out = vec![];
    let mut rest = list;
    loop {
        let body = rest.strip_prefix('(').ok_or_else(bad)?;
        let close = body.find(')').ok_or_else(bad)?;
        out.push(dim_names(&body[..close], signature)?);
        rest = &body[close + 1..];
        match rest.strip_prefix(',') {
            Some(r) => rest = r,
            None if rest.is_empty() => return Ok(out),
            None => return Err(bad()),
        }
    }
}

/// The input and output core dimensions of a gufunc signature such as
/// `(m,n),(n)->(m)` (no spaces, as JAX's pattern allows none).
fn parse_signature(signature: &str) -> Result<(CoreDims, CoreDims)> {
    let Some((ins, outs)) = signature.split_once("->") else {
        bail!(ValueError, "not a valid gufunc signature: {signature}");
    };
    Ok((arg_list(ins, signature)?, arg_list(outs, signature)?))
}

fn shape_repr(shape: &[usize]) -> String {
    repr_of(&Obj::tuple(
        shape.iter().map(|&d| Obj::Int(d as i64)).collect(),
    ))
}

fn dims_repr(dims: &[String]) -> String {
    repr_of(&Obj::tuple(dims.iter().map(Obj::str).collect()))
}

/// Checks one argument's (or output's) core dimensions against the sizes
/// seen so far, recording new ones.
fn update_sizes(
    sizes: &mut Sizes,
    shape: &[usize],
    core: &[String],
    context: &str,
    input: bool,
) -> Result<()> {
    if input && shape.len() < core.len() {
        bail!(
            ValueError,
            "input with shape {} does not have enough dimensions for all core dimensions {} {context}",
            shape_repr(shape),
            dims_repr(core)
        );
    }
    if !input && shape.len() != core.len() {
        bail!(
            ValueError,
            "output shape {} does not match core dimensions {} {context}",
            shape_repr(shape),
            dims_repr(core)
        );
    }
    let core_shape = &shape[shape.len() - core.len()..];
    for (dim, &size) in core.iter().zip(core_shape) {
        match sizes.iter().find(|(d, _)| d == dim) {
            None => sizes.push((dim.clone(), size)),
            Some(&(_, seen)) if seen != size => bail!(
                ValueError,
                "inconsistent size for core dimension {}: {size} vs {seen} {context}",
                repr_of(&Obj::str(dim))
            ),
            Some(_) => {}
        }
    }
    Ok(())
}

/// The broadcast shape of the arguments' leading dimensions and the sizes
/// of the named core dimensions.
fn input_dimensions(args: &[Obj], ins: &CoreDims, context: &str) -> Result<(Vec<usize>, Sizes)> {
    if args.len() != ins.len() {
        bail!(
            TypeError,
            "wrong number of positional arguments: expected {}, got {} {context}",
            ins.len(),
            args.len()
        );
    }
    let mut sizes = vec![];
    let mut broadcast: Vec<usize> = vec![];
    for (x, core) in args.iter().zip(ins) {
        let shape = crate::python::array::to_value(x)?.shape();
        update_sizes(&mut sizes, &shape, core, context, true)?;
        let noncore = &shape[..shape.len() - core.len()];
        broadcast = crate::array::broadcast::broadcast_shapes(&broadcast, noncore)?;
    }
    Ok((broadcast, sizes))
}

/// `func` checked to return as many outputs as the signature names, each
/// with the core shape it gives.
fn checked(func: Obj, sizes: Sizes, outs: CoreDims, context: String) -> Obj {
    Obj::native("vectorized", move |i, c| {
        let out = i.call(&func, c)?;
        let items = match &out {
            Obj::Tuple(items) => items.to_vec(),
            other => {
                if outs.len() > 1 {
                    bail!(
                        TypeError,
                        "output must be a tuple when multiple outputs are expected, got: {}\n{context}",
                        i.repr(other)?
                    );
                }
                vec![other.clone()]
            }
        };
        if items.len() != outs.len() {
            bail!(
                TypeError,
                "wrong number of output arguments: expected {}, got {} {context}",
                outs.len(),
                items.len()
            );
        }
        let mut sizes = sizes.clone();
        for (o, core) in items.iter().zip(&outs) {
            let shape = crate::python::array::to_value(o)?.shape();
            update_sizes(&mut sizes, &shape, core, &context, false)?;
        }
        Ok(out)
    })
}
