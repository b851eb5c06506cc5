//! `jax.lax`'s structured control flow: `cond`, `switch`, `select_n`,
//! `while_loop`, `fori_loop`, `scan` and `map`.
//!
//! Each traces its Python functions on abstract values shaped like the
//! operands (so Python control flow on their arguments raises JAX's tracer
//! errors, as in JAX), checks the traced programs as JAX checks them (same
//! pytree structure and types for a carry and for branches, with JAX's
//! messages), and binds the `cond`, `while` or `scan` primitive: at top level
//! that computes, under a trace it records the equation. Values a function
//! closes over from an enclosing trace become the equation's consts, its
//! leading operands.
//!
//! Python numbers in a carry are weakly typed in JAX: when the body turns
//! one into another dtype (`0` carried as `c + 1.0`), the initial value is
//! converted to the body's dtype and the body traced again, as JAX does.

use std::cell::RefCell;
use std::sync::Arc;

use crate::array::DType;
use crate::error::Result;
use crate::ir::{Aval, Jaxpr, Var};
use crate::primitives::control::aval_text;
use crate::primitives::{CondParams, Prim, ScanParams, WhileParams};
use crate::trace::{FrameAxes, Value};
use crate::{bail, err, ops as jops};

use super::loop_refs::BodyRefs;
use super::random::{keyed_objs, keyed_values};
use super::scan_sharding::{self, Placed};
use super::Builder;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::format::{repr_of, str_of};
use crate::python::interp::Interp;
use crate::python::ops::{iterate, truthy};
use crate::python::pytree::{flatten, unflatten, TreeDef};
use crate::python::value::{Args, Obj};

/// Adds the control-flow functions to `jax.lax`.
pub fn register(b: &mut Builder) {
    b.func("cond", showing_prints(cond));
    b.func("switch", showing_prints(switch));
    b.func("select_n", |_, a| select_n(&a));
    b.func("while_loop", showing_prints(while_loop));
    b.func("fori_loop", showing_prints(fori_loop));
    b.func("scan", showing_prints(scan));
    b.func("map", showing_prints(map));
}

/// `f`, followed at top level by what its body's `jax.debug.print` calls
/// printed as the loop or branch ran eagerly (under a trace they are staged
/// with the program instead).
fn showing_prints(
    f: fn(&mut Interp, Args) -> Result<Obj>,
) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |interp, a| {
        let out = f(interp, a);
        if !crate::trace::tracing() {
            super::debug_print::show_eager_prints(interp)?;
        }
        out
    }
}

/// A traced function: the program (consts first, then the arguments), the
/// values it closed over, and its output structure.
struct Body {
    jaxpr: Jaxpr,
    consts: Vec<Value>,
    out_def: TreeDef,
    /// Which outputs are typed PRNG keys (traced as their key data).
    out_keys: Vec<bool>,
    /// The outer refs the body used (not among its inputs and outputs).
    refs: BodyRefs,
}

impl Body {
    fn out_avals(&self) -> Vec<Aval> {
        self.jaxpr.out_avals()
    }
}

/// Traces `f` on arguments of `avals`; `f` returns flat outputs and their
/// structure. Closed-over values move to the front of the inputs.
fn trace_flat<F>(avals: &[Aval], f: F) -> Result<Body>
where
    F: FnOnce(&[Value]) -> Result<(Vec<Value>, TreeDef, Vec<bool>)>,
{
    trace_flat_placed(avals, vec![], f)
}

/// [`trace_flat`] of a body whose arguments live at `placements` (a scan
/// body's slices of sharded arrays), which its values' types then carry.
fn trace_flat_placed<F>(avals: &[Aval], placements: Vec<Placed>, f: F) -> Result<Body>
where
    F: FnOnce(&[Value]) -> Result<(Vec<Value>, TreeDef, Vec<bool>)>,
{
    let out_def = RefCell::new(None);
    let out_keys = RefCell::new(vec![]);
    let body = |vals: &[Value]| {
        crate::trace::refs::set_policy(crate::trace::refs::RefPolicy::Lift);
        let (outs, def, keys) = f(vals)?;
        *out_def.borrow_mut() = Some(def);
        *out_keys.borrow_mut() = keys;
        Ok(outs)
    };
    let traced = if placements.iter().all(Option::is_none) {
        crate::trace::trace(avals, FrameAxes::default(), body)?
    } else {
        crate::trace::trace_placed(avals, placements, body)?
    };
    let mut jaxpr = traced.jaxpr;
    let refs = BodyRefs::split(&mut jaxpr, traced.refs, traced.refs_written);
    jaxpr.invars.rotate_left(avals.len());
    let out_def = out_def
        .into_inner()
        .ok_or_else(|| err!(RuntimeError, "the function was not traced"))?;
    Ok(Body {
        jaxpr,
        consts: traced.captured,
        out_def,
        out_keys: out_keys.into_inner(),
        refs,
    })
}

/// Calls Python `f` with positional arguments rebuilt from `vals` by
/// `args_def` (a tuple of the arguments), flattening what it returns. The
/// leaves `in_keys` marks are key data passed as typed keys; the third result
/// marks the outputs that were typed keys.
fn call_python(
    interp: &mut Interp,
    f: &Obj,
    args_def: &TreeDef,
    vals: &[Value],
    in_keys: &[bool],
) -> Result<(Vec<Value>, TreeDef, Vec<bool>)> {
    let args = unflatten(interp, args_def, &keyed_objs(vals, in_keys)?)?;
    let out = interp.call(f, Args::new(iterate(&args)?))?;
    let (leaves, def) = flatten(interp, &out)?;
    let (vals, keys) = keyed_values(&leaves).map_err(|e| {
        err!(
            TypeError,
            "the function returned a value that is not an array or a pytree of arrays: {}",
            e.message
        )
    })?;
    Ok((vals, def, keys))
}

/// Traces Python `f` on arguments shaped as `args_def` and `avals`, for
/// `traced_for` (what JAX's messages say it was traced for: `scan`).
fn trace_python(
    interp: &mut Interp,
    f: &Obj,
    args_def: &TreeDef,
    avals: &[Aval],
    in_keys: &[bool],
    traced_for: &'static str,
) -> Result<Body> {
    trace_python_placed(interp, f, args_def, (avals, vec![]), in_keys, traced_for)
}

/// [`trace_python`] on arguments of `avals` placed at `placements`.
fn trace_python_placed(
    interp: &mut Interp,
    f: &Obj,
    args_def: &TreeDef,
    (avals, placements): (&[Aval], Vec<Placed>),
    in_keys: &[bool],
    traced_for: &'static str,
) -> Result<Body> {
    trace_flat_placed(avals, placements, |vals| {
        crate::trace::set_debug_info(super::debug_info::of(f, args_def, traced_for));
        call_python(interp, f, args_def, vals, in_keys)
    })
}

/// The name of a function's first parameter, which JAX's carry messages use.
fn first_param(f: &Obj) -> Option<String> {
    let Obj::Func(func) = f else { return None };
    let p = &func.params;
    p.posonlyargs
        .iter()
        .chain(&p.args)
        .next()
        .map(|a| a.def.arg.as_str().to_string())
}

/// A function's name as JAX's branch messages give it.
fn fun_name(f: &Obj) -> String {
    match f {
        Obj::Func(func) => func.name.clone(),
        Obj::Native(n) => n.name.clone(),
        other => repr_of(other),
    }
}

/// The key path of every leaf of `def`, as `jax.tree_util.keystr` prints it.
fn leaf_paths(def: &TreeDef) -> Vec<String> {
    def.leaf_paths("")
}

/// One structural difference between two trees: where, what each side is
/// there, and why they differ (JAX's `equality_errors`).
type TreeDiff = (String, String, String, String);

/// The structural differences of `a` and `b`; `leaf` names a leaf.
fn tree_diffs(a: &TreeDef, b: &TreeDef, leaf: &str) -> Vec<TreeDiff> {
    let mut out = vec![];
    diff_walk(a, b, "", leaf, &mut out);
    out
}

/// The class JAX names for a node of a tree structure (`leaf` for leaves).
fn node_class(t: &TreeDef, leaf: &str) -> String {
    match t {
        TreeDef::Leaf => leaf.to_string(),
        TreeDef::None => "<class 'NoneType'>".into(),
        TreeDef::Tuple(_) => "<class 'tuple'>".into(),
        TreeDef::List(_) => "<class 'list'>".into(),
        TreeDef::Dict(_) => "<class 'dict'>".into(),
        TreeDef::Node(kind, _) => kind.type_repr(),
    }
}

/// A node's children, each with the path step that reaches it.
fn labelled_children(t: &TreeDef) -> Vec<(String, TreeDef)> {
    match t {
        TreeDef::Tuple(c) | TreeDef::List(c) => c
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("[{i}]"), t.clone()))
            .collect(),
        TreeDef::Dict(c) => c
            .iter()
            .map(|(k, t)| (format!("[{}]", repr_of(k)), t.clone()))
            .collect(),
        TreeDef::Node(_, c) => t
            .child_labels()
            .into_iter()
            .zip(c.iter().cloned())
            .collect(),
        _ => vec![],
    }
}

/// Walks two structures side by side from `path`, noting where they first
/// differ on each branch.
fn diff_walk(a: &TreeDef, b: &TreeDef, path: &str, leaf: &str, out: &mut Vec<TreeDiff>) {
    match (a, b) {
        (TreeDef::Leaf, TreeDef::Leaf) => {}
        (TreeDef::None, TreeDef::None) => {}
        (TreeDef::Tuple(x), TreeDef::Tuple(y)) | (TreeDef::List(x), TreeDef::List(y))
            if x.len() != y.len() =>
        {
            let kind = if matches!(a, TreeDef::Tuple(_)) {
                "tuple"
            } else {
                "list"
            };
            out.push((
                path.to_string(),
                format!("{kind} of length {}", x.len()),
                format!("{kind} of length {}", y.len()),
                "the lengths do not match".into(),
            ));
        }
        _ if std::mem::discriminant(a) != std::mem::discriminant(b) => out.push((
            path.to_string(),
            node_class(a, leaf),
            node_class(b, leaf),
            "their Python types differ".into(),
        )),
        _ => {
            let (ca, cb) = (labelled_children(a), labelled_children(b));
            let keys = |c: &[(String, TreeDef)]| c.iter().map(|(k, _)| k.clone()).collect();
            let (ka, kb): (Vec<String>, Vec<String>) = (keys(&ca), keys(&cb));
            if ka != kb {
                let with = |t: &TreeDef, n: usize| {
                    let plural = if n > 1 { "ren" } else { "" };
                    format!("{} with {n} child{plural}", node_class(t, leaf))
                };
                out.push((
                    path.to_string(),
                    with(a, ca.len()),
                    with(b, cb.len()),
                    "the numbers of children do not match".into(),
                ));
                return;
            }
            for ((k, x), (_, y)) in ca.iter().zip(&cb) {
                diff_walk(x, y, &format!("{path}{k}"), leaf, out);
            }
        }
    }
}

/// JAX's list of differences: one sentence, or bullets. The loop checks
/// put a blank line between bullets (`loose`), the branch checks do not.
fn bullets(diffs: &[String], loose: bool) -> String {
    let cap = |s: &str| {
        let mut c = s.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect::<String>())
            .unwrap_or_default()
    };
    let Some((last, head)) = diffs.split_last() else {
        return String::new();
    };
    if head.is_empty() {
        return format!("{}.\n", cap(last));
    }
    if loose {
        let items: Vec<String> = head.iter().map(|d| format!("  * {d};\n")).collect();
        format!("{}  * {last}.\n", items.join("\n"))
    } else {
        let items: Vec<String> = head.iter().map(|d| format!("  * {d};")).collect();
        format!("{}\n  * {last}.\n", items.join("\n"))
    }
}

/// Why two avals differ, as JAX words it.
fn mismatch_extra(a: &Aval, b: &Aval) -> String {
    let mut m = vec![];
    if a.dtype != b.dtype {
        m.push("the dtypes do not match");
    }
    if a.shape != b.shape {
        m.push("the shapes do not match");
    }
    if a.vma != b.vma {
        m.push("the manual axis types do not match");
    }
    match m.len() {
        0 => String::new(),
        1 => format!(", so {}", m[0]),
        n => format!(", so {}, and {}", m[..n - 1].join(", "), m[n - 1]),
    }
}

/// Axis names as a Python tuple.
fn names_tuple(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    match quoted.len() {
        1 => format!("({},)", quoted[0]),
        _ => format!("({})", quoted.join(", ")),
    }
}

/// JAX's check that a loop body returns a carry of the input carry's
/// structure and types (`name` is `scan body` or `while_loop body`).
fn check_carry(
    name: &str,
    carry: Option<String>,
    in_def: &TreeDef,
    in_avals: &[Aval],
    out_def: &TreeDef,
    out_avals: &[Aval],
    shardings: Option<(&[Placed], &[Placed])>,
) -> Result<()> {
    let component = |p: &str| carry_component(carry.as_deref(), p);
    check_carry_structure(name, &component, in_def, out_def)?;
    let paths = leaf_paths(in_def);
    let mut diffs = vec![];
    let mut pcasts = vec![];
    for (i, ((p, a), b)) in paths.iter().zip(in_avals).zip(out_avals).enumerate() {
        // Over explicit mesh axes the sharding is part of the type.
        let (ta, tb) = match shardings {
            Some((x, y)) => (
                super::scan_sharding::type_text(a, x.get(i)),
                super::scan_sharding::type_text(b, y.get(i)),
            ),
            None => (aval_text(a), aval_text(b)),
        };
        if a.typematch(b) && ta == tb {
            continue;
        }
        diffs.push(format!(
            "{} has type {ta} but the corresponding output carry component has type {tb}{}",
            component(p),
            mismatch_extra(a, b)
        ));
        let extra: Vec<String> = b.vma.difference(&a.vma).cloned().collect();
        if !extra.is_empty() {
            pcasts.push(format!(
                "applying `jax.lax.pcast(..., {}, to='varying')`, to the initial carry value \
                 corresponding to {}",
                names_tuple(&extra),
                component(p)
            ));
        }
    }
    if diffs.is_empty() {
        return Ok(());
    }
    let pcast = pcast_hint(&pcasts);
    bail!(
        TypeError,
        "{name} function carry input and carry output must have equal types, but they \
         differ:\n\n{}\n{pcast}Revise the function so that all output types match the \
         corresponding input types.",
        bullets(&diffs, true)
    )
}

/// How JAX names a component of the carry at path `p`.
fn carry_component(carry: Option<&str>, p: &str) -> String {
    match (carry, p.is_empty()) {
        (Some(c), false) => format!("the input carry component {c}{p}"),
        (Some(c), true) => format!("the input carry {c}"),
        (None, false) => format!("the input carry at path {p}"),
        (None, true) => "the input carry".to_string(),
    }
}

/// JAX's TypeError when the carry output's pytree structure is not the
/// carry input's.
fn check_carry_structure(
    name: &str,
    component: &dyn Fn(&str) -> String,
    in_def: &TreeDef,
    out_def: &TreeDef,
) -> Result<()> {
    let diffs = tree_diffs(in_def, out_def, "<class 'jax._src.core.ShapedArray'>");
    if diffs.is_empty() {
        return Ok(());
    }
    let texts: Vec<String> = diffs
        .iter()
        .map(|(p, a, b, why)| {
            format!(
                "{} is a {a} but the corresponding component of the carry output is a {b}, \
                 so {why}",
                component(p)
            )
        })
        .collect();
    bail!(
        TypeError,
        "{name} function carry input and carry output must have the same pytree structure, \
         but they differ:\n\n{}\nRevise the function so that the carry output has the same \
         pytree structure as the carry input.",
        bullets(&texts, true)
    )
}

/// JAX's suggestion of `pcast`s for carries that became varying over mesh
/// axes, with its link; empty when there are none.
fn pcast_hint(pcasts: &[String]) -> String {
    let pcast = match pcasts.len() {
        0 => return String::new(),
        1 => format!("This might be fixed by {}.\n", pcasts[0]),
        _ => format!("This might be fixed by:\n{}", bullets(pcasts, true)),
    };
    format!(
        "{pcast}See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for \
         more information.\n\n"
    )
}

/// A carry's leaves with JAX's weak typing: Python numbers are weak.
struct Carry {
    def: TreeDef,
    vals: Vec<Value>,
    weak: Vec<bool>,
    /// Which leaves are typed PRNG keys (held as their key data).
    keys: Vec<bool>,
}

impl Carry {
    fn of(interp: &mut Interp, init: &Obj) -> Result<Carry> {
        let (leaves, def) = flatten(interp, init)?;
        if leaves.iter().any(|l| super::refs::slot_of(l).is_some()) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: an array ref in the carry of a loop"
            );
        }
        let weak = leaves
            .iter()
            .map(|l| matches!(l, Obj::Int(_) | Obj::Float(_)))
            .collect();
        let (vals, keys) = keyed_values(&leaves)?;
        Ok(Carry {
            def,
            vals,
            weak,
            keys,
        })
    }

    /// JAX's error when the body turns a typed key of the carry into raw
    /// data or back (their types differ: `key<fry>[]` against `uint32[2]`).
    fn check_keys(&self, what: &str, out_keys: &[bool]) -> Result<()> {
        let n = self.keys.len().min(out_keys.len());
        if self.keys[..n] != out_keys[..n] {
            bail!(
                TypeError,
                "{what} function carry input and carry output must have equal types: a typed \
                 PRNG key (key<fry>) and its uint32 key data differ"
            );
        }
        Ok(())
    }

    /// The carry's leaves as objects (typed keys wrapped back).
    fn objs(&self, vals: &[Value]) -> Result<Vec<Obj>> {
        keyed_objs(vals, &self.keys)
    }

    fn avals(&self) -> Vec<Aval> {
        self.vals.iter().map(|v| v.aval()).collect()
    }

    /// Converts the weak leaves the body returns with another dtype; true
    /// when any changed (the body is then traced again).
    fn promote(&mut self, out: &[Aval]) -> Result<bool> {
        let mut changed = false;
        for ((v, weak), o) in self.vals.iter_mut().zip(&self.weak).zip(out) {
            if *weak && v.dtype() != o.dtype && v.shape() == o.shape {
                *v = jops::convert_weak(v, v.dtype().promote(o.dtype), false)?;
                changed = true;
            }
        }
        Ok(changed)
    }
}

/// Every operand of a call after the first `skip` positional ones, or the
/// `operand` keyword.
fn operands(a: &Args, skip: usize) -> Result<Obj> {
    let pos: Vec<Obj> = a.pos.iter().skip(skip).cloned().collect();
    match a.kw.iter().find(|(k, _)| k == "operand") {
        Some((_, op)) if pos.is_empty() => Ok(Obj::Tuple(vec![op.clone()].into())),
        Some((_, op)) => bail!(
            TypeError,
            "if 'operand' keyword is passed then no positional operands can be passed, got \
             operand={} and positional operands {}",
            repr_of(op),
            repr_of(&Obj::Tuple(pos.into()))
        ),
        None => Ok(Obj::Tuple(pos.into())),
    }
}

/// Values closed over by several programs, each once, in order of first use.
fn merge_consts(bodies: &mut [Body]) -> Vec<Value> {
    let key = |v: &Value| match v {
        Value::Traced(t) => Some((t.level, t.var)),
        Value::Concrete(_) => None,
    };
    let mut all: Vec<Value> = vec![];
    for b in bodies.iter() {
        for c in &b.consts {
            if !all.iter().any(|a| key(a).is_some() && key(a) == key(c)) {
                all.push(c.clone());
            }
        }
    }
    for b in bodies.iter_mut() {
        let own = b.consts.len();
        let args: Vec<Var> = b.jaxpr.invars[own..].to_vec();
        let mut invars = vec![];
        for c in &all {
            let at = b.consts.iter().position(|x| key(x) == key(c));
            invars.push(match at {
                Some(i) => b.jaxpr.invars[i],
                None => {
                    b.jaxpr.avals.push(c.aval());
                    Var(b.jaxpr.avals.len() as u32 - 1)
                }
            });
        }
        invars.extend(args);
        b.jaxpr.invars = invars;
        b.consts = all.clone();
    }
    all
}

/// JAX's check that two branches return the same structure and types.
fn check_branches(
    api: &str,
    names: (&str, &str),
    funs: (&Obj, &Obj),
    a: &Body,
    b: &Body,
) -> Result<()> {
    let (n1, n2) = names;
    let header = format!(
        "{n1} is {}\n{n2} is {}\n\n",
        fun_name(funs.0),
        fun_name(funs.1)
    );
    let component = |p: &str| match p.is_empty() {
        true => String::new(),
        false => format!(" at path {p}"),
    };
    let diffs = tree_diffs(&a.out_def, &b.out_def, "pytree leaf");
    if !diffs.is_empty() {
        let texts: Vec<String> = diffs
            .iter()
            .map(|(p, x, y, why)| {
                let c = component(p);
                format!("{n1} output{c} is a {x} but {n2} output{c} is a {y}, so {why}")
            })
            .collect();
        let differences = match &texts[..] {
            [one] => format!("{one}.\n"),
            _ => bullets(&texts, false),
        };
        bail!(
            TypeError,
            "{api} branch outputs must have the same pytree structure, but they differ:\n\n\
             {header}{differences}\nRevise {n1} and/or {n2} so that they have the same pytree \
             structure."
        );
    }
    let paths = leaf_paths(&a.out_def);
    let mut diffs = vec![];
    for ((p, x), y) in paths.iter().zip(a.out_avals()).zip(b.out_avals()) {
        if !x.typematch(&y) {
            diffs.push(format!(
                "the output of {n1}{} has type {} but the corresponding output of {n2} has type \
                 {}{}",
                component(p),
                aval_text(&x),
                aval_text(&y),
                mismatch_extra(&x, &y)
            ));
        }
    }
    if diffs.is_empty() {
        return Ok(());
    }
    bail!(
        TypeError,
        "{api} branches must have equal output types but they differ.\n\n{header}{}\nRevise \
         {n1} and/or {n2} so that all output types match.",
        bullets(&diffs, false)
    )
}

/// Traces every branch on `ops`, checks them against branch 0 and binds a
/// `cond` on the int32 `index`. `names` names the branches in messages.
fn run_branches(
    interp: &mut Interp,
    api: &'static str,
    index: Value,
    funs: &[Obj],
    names: &[String],
    check_order: &[(usize, usize)],
    ops: &Obj,
) -> Result<Obj> {
    let (leaves, def) = flatten(interp, ops)?;
    let (vals, in_keys) = keyed_values(&leaves)?;
    let avals: Vec<Aval> = vals.iter().map(|v| v.aval()).collect();
    let mut bodies = funs
        .iter()
        .map(|f| trace_python(interp, f, &def, &avals, &in_keys, api))
        .collect::<Result<Vec<_>>>()?;
    for b in &bodies {
        b.refs.refuse(&format!("the branches of lax.{api}"))?;
    }
    if bodies.iter().any(|b| b.out_keys != bodies[0].out_keys) {
        bail!(
            TypeError,
            "{api} branches must have equal output types but they differ: a typed PRNG key \
             (key<fry>) and uint32 key data"
        );
    }
    for &(i, j) in check_order {
        check_branches(
            api,
            (&names[i], &names[j]),
            (&funs[i], &funs[j]),
            &bodies[i],
            &bodies[j],
        )?;
    }
    let consts = merge_consts(&mut bodies);
    let out_def = bodies[0].out_def.clone();
    let out_keys = bodies[0].out_keys.clone();
    let mut operands = vec![index];
    operands.extend(consts);
    operands.extend(vals);
    let branches = bodies.into_iter().map(|b| b.jaxpr).collect();
    let outs = super::callbacks::bind_lending(
        interp,
        Prim::Cond(Arc::new(CondParams { branches })),
        &operands,
    )?;
    unflatten(interp, &out_def, &keyed_objs(&outs, &out_keys)?)
}

/// `cond(pred, true_fun, false_fun, *operands)`.
fn cond(interp: &mut Interp, a: Args) -> Result<Obj> {
    if a.pos.len() < 3 {
        bail!(
            TypeError,
            "cond() missing required positional arguments: 'pred', 'true_fun' and 'false_fun'"
        );
    }
    let ops = operands(&a, 3)?;
    let pred_obj = &a.pos[0];
    if matches!(pred_obj, Obj::None) {
        bail!(TypeError, "cond predicate is None");
    }
    if matches!(pred_obj, Obj::Tuple(_) | Obj::List(_)) {
        bail!(
            TypeError,
            "Pred must be a scalar, got {} of type <class '{}'>",
            repr_of(pred_obj),
            pred_obj.type_name()
        );
    }
    let pred = to_value(pred_obj)?;
    if pred.ndim() != 0 {
        bail!(
            TypeError,
            "Pred must be a scalar, got {} of shape {}.",
            str_of(pred_obj),
            crate::array::fmt_shape(&pred.shape())
        );
    }
    let pred = match pred.dtype() {
        DType::Bool => pred,
        d => jops::not_equal(&pred, &jops::scalar(0.0, d))?,
    };
    let index = jops::astype(&pred, DType::I32)?;
    let funs = [a.pos[2].clone(), a.pos[1].clone()];
    let names = ["false_fun".to_string(), "true_fun".to_string()];
    run_branches(interp, "cond", index, &funs, &names, &[(1, 0)], &ops)
}

/// `switch(index, branches, *operands)`: the index is clamped into range.
fn switch(interp: &mut Interp, a: Args) -> Result<Obj> {
    let index_obj = a.req(Some(0), "index", "switch")?;
    let branches = iterate(&a.req(Some(1), "branches", "switch")?)?;
    let ops = operands(&a, 2)?;
    let index = to_value(&index_obj)?;
    if index.ndim() != 0 {
        bail!(
            TypeError,
            "Branch index must be scalar, got {} of shape {}.",
            str_of(&index_obj),
            crate::array::fmt_shape(&index.shape())
        );
    }
    if index.dtype() != DType::I32 {
        bail!(
            TypeError,
            "Index type must be an integer, got {} as {}",
            str_of(&index_obj),
            index.dtype().name()
        );
    }
    match branches.len() {
        0 => bail!(ValueError, "Empty branch sequence"),
        1 => return interp.call(&branches[0], Args::new(iterate(&ops)?)),
        _ => {}
    }
    // JAX converts the index to a strongly typed int32 first.
    let index = jops::astype(&index, DType::I32)?;
    let last = jops::scalar((branches.len() - 1) as f64, DType::I32);
    let clamped = jops::clamp(&jops::scalar(0.0, DType::I32), &index, &last)?;
    let names: Vec<String> = (0..branches.len())
        .map(|i| match i {
            0 => "branch 0".to_string(),
            i => format!("branch{i}"),
        })
        .collect();
    let order: Vec<(usize, usize)> = (1..branches.len()).map(|i| (0, i)).collect();
    run_branches(interp, "switch", clamped, &branches, &names, &order, &ops)
}

/// `select_n(which, *cases)`: case `which` of each element.
pub(super) fn select_n(a: &Args) -> Result<Obj> {
    let which = to_value(&a.req(Some(0), "which", "select_n")?)?;
    let cases: Vec<Value> = a.pos[1..].iter().map(to_value).collect::<Result<_>>()?;
    let Some(first) = cases.first() else {
        bail!(ValueError, "select_n() must have at least one case");
    };
    if cases.iter().any(|c| c.shape() != first.shape()) {
        let shapes: Vec<String> = cases
            .iter()
            .map(|c| crate::array::fmt_shape(&c.shape()))
            .collect();
        bail!(
            TypeError,
            "select cases must have the same shapes, got [{}].",
            shapes.join(", ")
        );
    }
    if which.ndim() != 0 && which.shape() != first.shape() {
        bail!(
            TypeError,
            "select `which` must be scalar or have the same shape as cases, got `which` shape {} \
             but case shape {}.",
            crate::array::fmt_shape(&which.shape()),
            crate::array::fmt_shape(&first.shape())
        );
    }
    if which.dtype().is_float() {
        bail!(
            TypeError,
            "select `which` must be boolean or integer type, got float32."
        );
    }
    if cases.iter().any(|c| c.dtype() != first.dtype()) {
        let names: Vec<&str> = cases.iter().map(|c| c.dtype().name()).collect();
        bail!(
            TypeError,
            "lax.select requires arguments to have the same dtypes, got {}. (Tip: jnp.where is \
             a similar function that does automatic type promotion on inputs).",
            names.join(", ")
        );
    }
    let mut out = first.clone();
    for (k, c) in cases.iter().enumerate().skip(1) {
        let pick = match which.dtype() {
            DType::Bool => which.clone(),
            d => jops::equal(&which, &jops::scalar(k as f64, d))?,
        };
        out = jops::select(&pick, c, &out)?;
    }
    Ok(Obj::Array(out))
}

/// JAX's check of a while loop's predicate program.
fn check_pred(c: &Body) -> Result<()> {
    let outs = c.out_avals();
    if !matches!(c.out_def, TreeDef::Leaf) || outs.len() != 1 {
        bail!(
            TypeError,
            "cond_fun must return a boolean scalar, but got pytree {}.",
            c.out_def.repr()
        );
    }
    let p = &outs[0];
    if p.dtype != DType::Bool || !p.shape.is_empty() {
        let dims: Vec<String> = p.shape.iter().map(|d| d.to_string()).collect();
        bail!(
            TypeError,
            "cond_fun must return a boolean scalar, but got output type(s) [ShapedArray({}[{}])].",
            p.dtype.name(),
            dims.join(",")
        );
    }
    Ok(())
}

/// Binds a `while` of the traced predicate and step on `carry`.
/// Binds a while loop; the outer refs the body used are carried ahead of
/// `carry` and written back.
fn bind_while(
    interp: &mut Interp,
    mut c: Body,
    mut b: Body,
    carry: Vec<Value>,
) -> Result<Vec<Value>> {
    let refs = std::mem::take(&mut b.refs);
    refs.add_unused_inputs(&mut c.jaxpr, c.consts.len(), &b.jaxpr);
    let slots = refs.into_carries(&mut b.jaxpr, b.consts.len());
    let mut operands = c.consts.clone();
    operands.extend(b.consts.iter().cloned());
    operands.extend(slots.values()?);
    operands.extend(carry);
    let params = WhileParams {
        cond_nconsts: c.consts.len(),
        body_nconsts: b.consts.len(),
        cond: c.jaxpr,
        body: b.jaxpr,
    };
    let outs = super::callbacks::bind_lending(interp, Prim::While(Arc::new(params)), &operands)?;
    slots.write_back(outs)
}

/// Binds a scan whose first `num_carry` non-constant operands of
/// `operands` (after the body's constants) are carries; the outer refs the
/// body used are carried ahead of them and written back.
fn bind_scan(
    interp: &mut Interp,
    mut b: Body,
    xs_and_carry: Vec<Value>,
    params: ScanShape,
) -> Result<Vec<Value>> {
    let refs = std::mem::take(&mut b.refs);
    let slots = refs.into_carries(&mut b.jaxpr, b.consts.len());
    let mut operands = b.consts.clone();
    operands.extend(slots.values()?);
    operands.extend(xs_and_carry);
    let params = ScanParams {
        num_consts: b.consts.len(),
        num_carry: params.num_carry + slots.len(),
        length: params.length,
        reverse: params.reverse,
        unroll: params.unroll,
        body: b.jaxpr,
    };
    let outs = super::callbacks::bind_lending(interp, Prim::Scan(Arc::new(params)), &operands)?;
    slots.write_back(outs)
}

/// A scan's parameters other than its body and constants.
struct ScanShape {
    num_carry: usize,
    length: usize,
    reverse: bool,
    unroll: usize,
}

/// `while_loop(cond_fun, body_fun, init_val)`.
fn while_loop(interp: &mut Interp, a: Args) -> Result<Obj> {
    let cond_fun = a.req(Some(0), "cond_fun", "while_loop")?;
    let body_fun = a.req(Some(1), "body_fun", "while_loop")?;
    let mut carry = Carry::of(interp, &a.req(Some(2), "init_val", "while_loop")?)?;
    let args_def = TreeDef::Tuple(vec![carry.def.clone()]);
    loop {
        let avals = carry.avals();
        let keys = &carry.keys;
        let c = trace_python(interp, &cond_fun, &args_def, &avals, keys, "while_cond")?;
        let b = trace_python(interp, &body_fun, &args_def, &avals, keys, "while_body")?;
        check_pred(&c)?;
        c.refs.refuse("the cond_fun of lax.while_loop")?;
        let outs = b.out_avals();
        if outs.len() == avals.len() && carry.promote(&outs)? || b.refs.promote(&b.jaxpr)? {
            continue;
        }
        let name = "while_loop body";
        check_carry(
            name,
            first_param(&body_fun),
            &carry.def,
            &avals,
            &b.out_def,
            &outs,
            None,
        )?;
        carry.check_keys(name, &b.out_keys)?;
        let outs = bind_while(interp, c, b, carry.vals.clone())?;
        return unflatten(interp, &carry.def, &carry.objs(&outs)?);
    }
}

/// A loop bound known when the loop is traced.
fn static_int(o: &Obj) -> Option<i64> {
    match o {
        Obj::Int(i) => Some(*i),
        Obj::Bool(b) => Some(i64::from(*b)),
        Obj::Array(Value::Concrete(a)) if a.ndim() == 0 && a.dtype() != DType::F32 => {
            Some(a.get_f64(0) as i64)
        }
        _ => None,
    }
}

/// `fori_loop(lower, upper, body_fun, init_val)`: a `scan` when both bounds
/// are known at trace time (so it can be differentiated in reverse mode),
/// else a `while`, as JAX lowers it.
/// fori_loop's body as its errors name it: the index, the upper bound when
/// it is traced (`skip` is 2), then the carry.
fn fori_debug_info(f: &Obj, args_def: &TreeDef, skip: usize) -> crate::trace::DebugInfo {
    let mut debug = super::debug_info::of(f, args_def, "fori_loop");
    if skip == 2 {
        debug.arg_names.insert(1, "upper".into());
    }
    debug
}

fn fori_loop(interp: &mut Interp, a: Args) -> Result<Obj> {
    let lower = a.req(Some(0), "lower", "fori_loop")?;
    let upper = a.req(Some(1), "upper", "fori_loop")?;
    let f = a.req(Some(2), "body_fun", "fori_loop")?;
    let mut carry = Carry::of(interp, &a.req(Some(3), "init_val", "fori_loop")?)?;
    let (lo, hi) = (to_value(&lower)?, to_value(&upper)?);
    if lo.dtype() != hi.dtype() {
        bail!(
            TypeError,
            "lower and upper arguments to fori_loop must have equal types, got {} and {}",
            lo.dtype().name(),
            hi.dtype().name()
        );
    }
    let args_def = TreeDef::Tuple(vec![TreeDef::Leaf, carry.def.clone()]);
    let i_aval = lo.aval();
    let bounds = static_int(&lower).zip(static_int(&upper));
    loop {
        let avals = carry.avals();
        let n = avals.len();
        // The index, (the upper bound,) then the carry.
        let skip = if bounds.is_some() { 1 } else { 2 };
        let mut in_avals = vec![i_aval.clone(); skip];
        in_avals.extend(avals.iter().cloned());
        let b = trace_flat(&in_avals, |v| {
            crate::trace::set_debug_info(fori_debug_info(&f, &args_def, skip));
            let next = jops::add(&v[0], &jops::scalar(1.0, v[0].dtype()))?;
            let mut args = vec![v[0].clone()];
            args.extend(v[skip..].iter().cloned());
            let mut in_keys = vec![false];
            in_keys.extend(carry.keys.iter().copied());
            let (outs, def, keys) = call_python(interp, &f, &args_def, &args, &in_keys)?;
            let mut all = vec![next];
            all.extend(v[1..skip].iter().cloned());
            all.extend(outs);
            Ok((all, def, keys))
        })?;
        let outs = b.out_avals()[skip..].to_vec();
        if outs.len() == n && carry.promote(&outs)? || b.refs.promote(&b.jaxpr)? {
            continue;
        }
        check_fori_carry(&carry, &b, &in_avals, skip)?;
        let carry_keys = carry.keys.clone();
        let carry_def = carry.def.clone();
        let results = match bounds {
            Some((l, h)) => {
                let mut operands = vec![lo.clone()];
                operands.extend(carry.vals);
                let shape = ScanShape {
                    num_carry: n + 1,
                    length: usize::try_from(h - l).unwrap_or(0),
                    reverse: false,
                    unroll: 1,
                };
                bind_scan(interp, b, operands, shape)?
            }
            None => {
                let c = trace_flat(&in_avals, |v| {
                    Ok((vec![jops::less(&v[0], &v[1])?], TreeDef::Leaf, vec![]))
                })?;
                let mut init = vec![lo.clone(), hi.clone()];
                init.extend(carry.vals);
                bind_while(interp, c, b, init)?
            }
        };
        return unflatten(
            interp,
            &carry_def,
            &keyed_objs(&results[skip..], &carry_keys)?,
        );
    }
}

/// JAX checks the carry of its own loop body, `loop_carry`: the index, (the
/// upper bound when the loop is a while loop,) then the carry; `skip` is how
/// many of those come before the carry.
fn check_fori_carry(carry: &Carry, b: &Body, in_avals: &[Aval], skip: usize) -> Result<()> {
    let name = if skip == 1 {
        "scan body"
    } else {
        "while_loop body"
    };
    let wrap = |def: &TreeDef| {
        let mut parts = vec![TreeDef::Leaf; skip];
        parts.push(def.clone());
        TreeDef::Tuple(parts)
    };
    let mut full_out = in_avals[..skip].to_vec();
    full_out.extend(b.out_avals().into_iter().skip(skip));
    check_carry(
        name,
        Some("loop_carry".to_string()),
        &wrap(&carry.def),
        in_avals,
        &wrap(&b.out_def),
        &full_out,
        None,
    )?;
    carry.check_keys(name, &b.out_keys)
}

/// The number of steps of a scan over `xs` (JAX's checks and messages).
fn scan_length(leaves: &[Obj], vals: &[Value], length: Option<&Obj>) -> Result<usize> {
    let flat: Vec<String> = leaves
        .iter()
        .zip(vals)
        .filter(|(_, v)| v.ndim() == 0)
        .map(|(l, _)| str_of(l))
        .collect();
    if !flat.is_empty() {
        bail!(
            ValueError,
            "scan got value with no leading axis to scan over: {}.",
            flat.join(", ")
        );
    }
    let sizes: Vec<usize> = vals.iter().map(|v| v.shape()[0]).collect();
    let length = match length {
        None | Some(Obj::None) => None,
        Some(o) => Some(to_int(o)?),
    };
    match length {
        Some(n) if sizes.iter().any(|&s| s as i64 != n) => {
            let list: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
            bail!(
                ValueError,
                "scan got `length` argument of {n} which disagrees with leading axis sizes [{}].",
                list.join(", ")
            )
        }
        Some(n) => Ok(usize::try_from(n).unwrap_or(0)),
        None => match sizes.first() {
            None => bail!(
                ValueError,
                "scan got no values to scan over and `length` not provided."
            ),
            Some(&s) if sizes.iter().any(|&t| t != s) => {
                let list: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
                bail!(
                    ValueError,
                    "scan got values with different leading axis sizes: {}.",
                    list.join(", ")
                )
            }
            Some(&s) => Ok(s),
        },
    }
}

/// The avals of one step's slices of `xs`.
fn step_avals(xs: &[Value]) -> Vec<Aval> {
    xs.iter()
        .map(|v| {
            let a = v.aval();
            a.with_shape(a.shape[1..].to_vec())
        })
        .collect()
}

/// `scan(f, init, xs=None, length=None, reverse=False, unroll=1)`.
fn scan(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "f", "scan")?;
    let mut carry = Carry::of(interp, &a.req(Some(1), "init", "scan")?)?;
    let xs = a.get(Some(2), "xs").unwrap_or(Obj::None);
    let (x_leaves, xs_def) = flatten(interp, &xs)?;
    let (xvals, x_keys) = keyed_values(&x_leaves)?;
    let length = scan_length(&x_leaves, &xvals, a.get(Some(3), "length").as_ref())?;
    let reverse = match a.get(Some(4), "reverse") {
        Some(o) => truthy(&o, "reverse")?,
        None => false,
    };
    let unroll = match a.get(Some(5), "unroll") {
        None => 1,
        Some(Obj::Bool(true)) => length.max(1),
        Some(Obj::Bool(false)) => 1,
        Some(o) => usize::try_from(to_int(&o)?).unwrap_or(1),
    };
    let args_def = TreeDef::Tuple(vec![carry.def.clone(), xs_def]);
    let xs_placed = scan_sharding::scanned_placements(&xvals)?;
    loop {
        let avals = carry.avals();
        let mut in_avals = avals.clone();
        in_avals.extend(step_avals(&xvals));
        let mut in_keys = carry.keys.clone();
        in_keys.extend(x_keys.iter().copied());
        let mut placed = scan_sharding::placements(&carry.vals)?;
        placed.extend(xs_placed.iter().cloned());
        let traced_on = (in_avals.as_slice(), placed.clone());
        let b = trace_python_placed(interp, &f, &args_def, traced_on, &in_keys, "scan")?;
        let (cdef, ydef) = match &b.out_def {
            TreeDef::Tuple(p) | TreeDef::List(p) if p.len() == 2 => (p[0].clone(), p[1].clone()),
            other => {
                let outs = b.out_avals();
                let got = match (other, outs.first()) {
                    (TreeDef::Leaf, Some(a)) => aval_text(a),
                    _ => other.repr(),
                };
                bail!(TypeError, "scan body output must be a pair, got {got}.")
            }
        };
        let nk = cdef.num_leaves();
        let outs = b.out_avals();
        if nk == avals.len() && carry.promote(&outs[..nk])? || b.refs.promote(&b.jaxpr)? {
            continue;
        }
        let outs_placed = scan_sharding::body_out_placements(&b.jaxpr, &b.consts, &placed)?;
        check_carry(
            "scan body",
            first_param(&f),
            &carry.def,
            &avals,
            &cdef,
            &outs[..nk],
            Some((&placed, &outs_placed)),
        )?;
        carry.check_keys("scan body", &b.out_keys)?;
        let out_keys = b.out_keys.clone();
        let mut operands = carry.vals.clone();
        operands.extend(xvals);
        let shape = ScanShape {
            num_carry: nk,
            length,
            reverse,
            unroll,
        };
        let results = bind_scan(interp, b, operands, shape)?;
        let c = unflatten(interp, &carry.def, &carry.objs(&results[..nk])?)?;
        let y = unflatten(interp, &ydef, &keyed_objs(&results[nk..], &out_keys[nk..])?)?;
        return Ok(Obj::Tuple(vec![c, y].into()));
    }
}

/// `map(f, xs, *, batch_size=None)`: `f` of every slice of `xs`, stacked.
fn map(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "f", "map")?;
    let xs = a.req(Some(1), "xs", "map")?;
    if let Some(b) = a.opt(None, "batch_size") {
        let b = to_int(&b)?;
        if b > 0 {
            return super::lax_map_batched::map_batched(interp, &f, &xs, b as usize);
        }
    }
    let (x_leaves, xs_def) = flatten(interp, &xs)?;
    let (xvals, x_keys) = keyed_values(&x_leaves)?;
    let length = scan_length(&x_leaves, &xvals, None)?;
    let args_def = TreeDef::Tuple(vec![xs_def]);
    let b = trace_python(interp, &f, &args_def, &step_avals(&xvals), &x_keys, "scan")?;
    if b.refs.promote(&b.jaxpr)? {
        return map(interp, a);
    }
    let (out_def, out_keys) = (b.out_def.clone(), b.out_keys.clone());
    let shape = ScanShape {
        num_carry: 0,
        length,
        reverse: false,
        unroll: 1,
    };
    let results = bind_scan(interp, b, xvals, shape)?;
    unflatten(interp, &out_def, &keyed_objs(&results, &out_keys)?)
}
