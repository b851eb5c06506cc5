//! `jax.checkpoint` (alias `jax.remat`), `jax.ad_checkpoint` and
//! `jax.checkpoint_policies`.
//!
//! Rematerialization decides which intermediate values the backward pass
//! stores and which it recomputes; it never changes a number. Under a
//! trace a checkpointed function is staged as one `remat2` equation that
//! holds its body and policy, and `checkpoint_name` as a `name` equation;
//! called on data, both simply run. `print_saved_residuals` traces a
//! function and lists what reverse mode keeps (see
//! `transforms::residuals`).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::error::Result;
use crate::ir::Jaxpr;
use crate::primitives::{Policy, Prim, RematParams};
use crate::trace::{FrameAxes, Value};
use crate::{bail, err};

use super::jax::func_name;
use super::Builder;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::iterate;
use crate::python::pytree::{flatten, unflatten, value_objs, TreeDef};
use crate::python::value::{Args, Obj};

/// A policy of `jax.checkpoint_policies`, as a Python object.
struct PolicyObj(Policy);

impl Object for PolicyObj {
    fn type_name(&self) -> String {
        match &self.0 {
            Policy::Dots(_) => "DotsSaveable",
            Policy::OnlyNames(_) => "SaveOnlyTheseNames",
            Policy::AnyNameBut(_) => "SaveAnyNamesButThese",
            _ => "function",
        }
        .into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(self.0.text())
    }

    fn callable(&self) -> bool {
        true
    }

    fn call(&self, _: &mut Interp, _: &Obj, _: Args) -> Option<Result<Obj>> {
        Some(Err(err!(
            NotImplementedError,
            "not supported by shardlab yet: calling a checkpoint policy"
        )))
    }
}

fn policy_obj(p: Policy) -> Obj {
    Obj::Lib(Rc::new(PolicyObj(p)))
}

/// The policy a Python object stands for.
fn policy_of(o: &Obj) -> Result<Policy> {
    if matches!(o, Obj::None) {
        return Ok(Policy::Default);
    }
    if let Some(p) = o.downcast::<PolicyObj>() {
        return Ok(p.0.clone());
    }
    match o {
        Obj::Func(f) => return Ok(Policy::Python(f.name.clone())),
        Obj::Native(n) => return Ok(Policy::Python(n.name.clone())),
        _ => {}
    }
    bail!(
        TypeError,
        "checkpoint policy must be a callable, got {}",
        o.type_name()
    )
}

/// A function made by `jax.checkpoint`.
struct Checkpointed {
    fun: Obj,
    policy: Policy,
    prevent_cse: bool,
    static_argnums: Vec<i64>,
}

impl Object for Checkpointed {
    fn type_name(&self) -> String {
        "function".into()
    }

    /// JAX wraps the function: its name and the function itself show through.
    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "__name__" => Some(Obj::str(func_name(&self.fun))),
            "__qualname__" => Some(Obj::str(match &self.fun {
                Obj::Func(f) => f.qualname.to_string(),
                other => func_name(other),
            })),
            "__wrapped__" => Some(self.fun.clone()),
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("<function {}>", func_name(&self.fun)))
    }

    fn callable(&self) -> bool {
        true
    }

    fn call(&self, interp: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        if !crate::trace::tracing() {
            return Some(interp.call(&self.fun, args));
        }
        Some(self.call_traced(interp, args))
    }
}

impl Checkpointed {
    fn is_static(&self, i: usize, n: usize) -> bool {
        self.static_argnums
            .iter()
            .any(|&k| (if k < 0 { k + n as i64 } else { k }) == i as i64)
    }

    /// Traces the function into a body and stages one `remat2` equation.
    fn call_traced(&self, interp: &mut Interp, args: Args) -> Result<Obj> {
        let n = args.pos.len();
        let dynamic: Vec<Obj> = (0..n)
            .filter(|&i| !self.is_static(i, n))
            .map(|i| args.pos[i].clone())
            .collect();
        let kw_vals: Vec<Obj> = args.kw.iter().map(|(_, v)| v.clone()).collect();
        let (mut leaves, pos_def) = flatten(interp, &Obj::tuple(dynamic))?;
        let n_pos = leaves.len();
        let (kw_leaves, kw_def) = flatten(interp, &Obj::tuple(kw_vals))?;
        leaves.extend(kw_leaves);
        let vals: Vec<Value> = leaves.iter().map(leaf_value).collect::<Result<_>>()?;
        let kw_names: Vec<&str> = args.kw.iter().map(|(k, _)| k.as_str()).collect();
        let key = CacheKey {
            fun: match &self.fun {
                Obj::Func(f) if self.static_argnums.is_empty() => Some(f.clone()),
                _ => None,
            },
            avals: vals.iter().map(|v| v.aval()).collect(),
            tree: format!("{pos_def:?}|{kw_def:?}|{kw_names:?}"),
        };
        if let Some((body, out_def)) = cached(interp, &key) {
            return self.bind(interp, body, vals, &out_def);
        }
        let out_def = RefCell::new(None);
        let traced = crate::trace::trace_values(&vals, |v: &[Value]| {
            let objs = value_objs(v);
            let mut dyn_it = iterate(&unflatten(interp, &pos_def, &objs[..n_pos])?)?.into_iter();
            let kw_objs = iterate(&unflatten(interp, &kw_def, &objs[n_pos..])?)?;
            let pos: Vec<Obj> = (0..n)
                .map(|i| match self.is_static(i, n) {
                    true => args.pos[i].clone(),
                    false => dyn_it.next().unwrap_or(Obj::None),
                })
                .collect();
            let kw = args
                .kw
                .iter()
                .map(|(k, _)| k.clone())
                .zip(kw_objs)
                .collect();
            let out = interp.call(&self.fun, Args::with(pos, kw))?;
            let (leaves, def) = flatten(interp, &out)?;
            *out_def.borrow_mut() = Some(def);
            leaves.iter().map(leaf_value).collect()
        })?;
        let out_def = out_def
            .into_inner()
            .ok_or_else(|| err!(RuntimeError, "checkpoint: the function was not traced"))?;
        let mut all = vals;
        if traced.captured.is_empty() && key.fun.is_some() {
            let cache = &mut interp.state::<TraceCache>().0;
            cache.push((key, traced.jaxpr.clone(), out_def.clone()));
        }
        all.extend(traced.captured.iter().cloned());
        self.bind(interp, traced.jaxpr, all, &out_def)
    }

    /// Stages the `remat2` equation of `body` on `ins`.
    fn bind(
        &self,
        interp: &mut Interp,
        body: Jaxpr,
        ins: Vec<Value>,
        out: &TreeDef,
    ) -> Result<Obj> {
        let params = RematParams {
            body,
            prevent_cse: self.prevent_cse,
            differentiated: false,
            policy: self.policy.clone(),
        };
        let outs = crate::trace::bind(Prim::Remat(Arc::new(params)), &ins)?;
        unflatten(interp, out, &value_objs(&outs))
    }
}

/// What identifies a trace of a checkpointed Python function: JAX keeps
/// one per function, argument structure and types (whatever the policy),
/// so a function traced once is not traced again, even if a global it
/// reads has changed since.
struct CacheKey {
    fun: Option<Rc<crate::python::value::Function>>,
    avals: Vec<crate::ir::Aval>,
    tree: String,
}

/// The traces of checkpointed functions made in this run.
#[derive(Default)]
struct TraceCache(Vec<(CacheKey, Jaxpr, TreeDef)>);

/// The body and output structure traced before for `key`.
fn cached(interp: &mut Interp, key: &CacheKey) -> Option<(Jaxpr, TreeDef)> {
    let fun = key.fun.as_ref()?;
    let cache = &interp.state::<TraceCache>().0;
    cache.iter().find_map(|(k, body, out)| {
        let same = k.fun.as_ref().is_some_and(|f| Rc::ptr_eq(f, fun))
            && k.avals == key.avals
            && k.tree == key.tree;
        same.then(|| (body.clone(), out.clone()))
    })
}

/// A leaf of a checkpointed function's arguments or results, as an array.
fn leaf_value(o: &Obj) -> Result<Value> {
    to_value(o).map_err(|_| {
        err!(
            TypeError,
            "Value {} of type {} is not a valid JAX type",
            crate::python::format::repr_of(o),
            o.type_name()
        )
    })
}

/// `jax.checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=())`,
/// also usable as `functools.partial(jax.checkpoint, policy=...)`.
pub fn checkpoint(_: &mut Interp, a: Args) -> Result<Obj> {
    let Some(f) = a.get(Some(0), "fun") else {
        let kw = a.kw.clone();
        return Ok(Obj::native("checkpoint", move |i, b| {
            checkpoint(i, Args::with(b.pos, kw.clone()))
        }));
    };
    let policy = policy_of(&a.get(None, "policy").unwrap_or(Obj::None))?;
    let prevent_cse = match a.get(None, "prevent_cse") {
        Some(o) => crate::python::ops::truthy(&o, "prevent_cse")?,
        None => true,
    };
    let static_argnums = match a.get(None, "static_argnums") {
        None | Some(Obj::None) => vec![],
        Some(o @ (Obj::Tuple(_) | Obj::List(_))) => {
            iterate(&o)?.iter().map(to_int).collect::<Result<_>>()?
        }
        Some(o) => vec![to_int(&o)?],
    };
    Ok(Obj::Lib(Rc::new(Checkpointed {
        fun: f,
        policy,
        prevent_cse,
        static_argnums,
    })))
}

/// `checkpoint_name(x, name)`: `x`, labelled for a policy (a `name`
/// equation on each leaf when traced).
fn checkpoint_name(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "checkpoint_name")?;
    let name = a.req(Some(1), "name", "checkpoint_name")?;
    if !crate::trace::tracing() {
        return Ok(x);
    }
    let name = Arc::new(crate::python::format::str_of(&name));
    let (leaves, def) = flatten(interp, &x)?;
    let named: Vec<Value> = leaves
        .iter()
        .map(|l| crate::trace::bind1(Prim::Name(name.clone()), &[leaf_value(l)?]))
        .collect::<Result<_>>()?;
    unflatten(interp, &def, &value_objs(&named))
}

/// The names JAX gives the flat arguments of `fun`: its parameters, then
/// key paths (`params[0]`, `a[1]`, `k['z']`).
fn arg_names(fun: &Obj, pos: &[TreeDef], kw: &[(String, TreeDef)]) -> Vec<String> {
    let fun = match fun.downcast::<Checkpointed>() {
        Some(c) => c.fun.clone(),
        None => fun.clone(),
    };
    let (params, kwonly, vararg, kwarg) = match &fun {
        Obj::Func(f) => {
            let p = &f.params;
            let names: Vec<String> = p
                .posonlyargs
                .iter()
                .chain(&p.args)
                .map(|a| a.def.arg.to_string())
                .collect();
            let kwonly: Vec<String> = p.kwonlyargs.iter().map(|a| a.def.arg.to_string()).collect();
            let va = p.vararg.as_ref().map(|a| a.arg.to_string());
            let kwa = p.kwarg.as_ref().map(|a| a.arg.to_string());
            (names, kwonly, va, kwa)
        }
        _ => (vec![], vec![], None, None),
    };
    let mut out = vec![];
    for (i, d) in pos.iter().enumerate() {
        let base = match (params.get(i), &vararg) {
            (Some(p), _) => p.clone(),
            (None, Some(va)) => format!("{va}[{}]", i - params.len()),
            (None, None) => format!("args[{i}]"),
        };
        out.extend(d.leaf_paths(&base));
    }
    for (k, d) in kw {
        let base = match &kwarg {
            Some(kwa) if !params.contains(k) && !kwonly.contains(k) => format!("{kwa}['{k}']"),
            _ => k.clone(),
        };
        out.extend(d.leaf_paths(&base));
    }
    out
}

/// `jax.ad_checkpoint.print_saved_residuals(f, *args, **kwargs)`: one line
/// per value reverse mode on `f` keeps, as JAX prints them.
fn print_saved_residuals(interp: &mut Interp, a: Args) -> Result<Obj> {
    let Some(f) = a.pos.first().cloned() else {
        bail!(
            TypeError,
            "print_saved_residuals() missing 1 required positional argument: 'f'"
        );
    };
    let mut leaves = vec![];
    let mut pos_defs = vec![];
    for p in &a.pos[1..] {
        let (l, d) = flatten(interp, p)?;
        leaves.extend(l);
        pos_defs.push(d);
    }
    let mut kw_defs = vec![];
    for (k, v) in &a.kw {
        let (l, d) = flatten(interp, v)?;
        leaves.extend(l);
        kw_defs.push((k.clone(), d));
    }
    let names = arg_names(&f, &pos_defs, &kw_defs);
    let vals: Vec<Value> = leaves.iter().map(leaf_value).collect::<Result<_>>()?;
    let avals: Vec<_> = vals.iter().map(|v| v.aval()).collect();
    let n_pos = a.pos.len() - 1;
    let traced = crate::trace::trace(&avals, FrameAxes::default(), |v: &[Value]| {
        let objs = value_objs(v);
        let mut at = 0;
        let mut rebuild = |interp: &mut Interp, d: &TreeDef| {
            let n = d.num_leaves();
            let o = unflatten(interp, d, &objs[at..at + n]);
            at += n;
            o
        };
        let mut pos = Vec::with_capacity(n_pos);
        for d in &pos_defs {
            pos.push(rebuild(interp, d)?);
        }
        let mut kw = vec![];
        for (k, d) in &kw_defs {
            kw.push((k.clone(), rebuild(interp, d)?));
        }
        let out = interp.call(&f, Args::with(pos, kw))?;
        let (leaves, _) = flatten(interp, &out)?;
        leaves.iter().map(leaf_value).collect()
    })?;
    if !traced.captured.is_empty() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: print_saved_residuals of a function closing over \
             traced values"
        );
    }
    for r in crate::transforms::residuals::saved_residuals(&traced.jaxpr, &names)? {
        interp.out.push_str(&format!("{} {}\n", r.aval, r.source));
    }
    Ok(Obj::None)
}

/// `jax.checkpoint_policies`: the policies, and the functions that make
/// policies from names or from other policies.
pub fn policies_module() -> Obj {
    let mut b = Builder::new("jax.checkpoint_policies");
    let everything = Policy::Everything("everything_saveable".into());
    b.attr("everything_saveable", policy_obj(everything));
    b.attr("nothing_saveable", policy_obj(Policy::Nothing));
    for (name, no_batch) in [
        ("dots_saveable", false),
        ("checkpoint_dots", false),
        ("dots_with_no_batch_dims_saveable", true),
        ("checkpoint_dots_with_no_batch_dims", true),
    ] {
        b.attr(name, policy_obj(Policy::Dots(no_batch)));
    }
    b.func("save_only_these_names", |_, a| {
        Ok(policy_obj(Policy::OnlyNames(names_of(&a)?)))
    });
    b.func("save_any_names_but_these", |_, a| {
        Ok(policy_obj(Policy::AnyNameBut(names_of(&a)?)))
    });
    b.func("save_anything_except_these_names", |_, _| {
        let name = "save_anything_except_these_names.<locals>.<lambda>";
        Ok(policy_obj(Policy::Everything(name.into())))
    });
    b.func("save_from_both_policies", |_, a| {
        let p1 = policy_of(&a.req(Some(0), "policy_1", "save_from_both_policies")?)?;
        let p2 = policy_of(&a.req(Some(1), "policy_2", "save_from_both_policies")?)?;
        Ok(policy_obj(Policy::Both(Box::new(p1), Box::new(p2))))
    });
    for name in [
        "offload_dot_with_no_batch_dims",
        "save_and_offload_only_these_names",
    ] {
        b.func(name, move |_, _| {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.checkpoint_policies.{name}"
            )
        });
    }
    b.build()
}

/// The names given to a name-based policy.
fn names_of(a: &Args) -> Result<Vec<String>> {
    let mut out: Vec<String> = vec![];
    for n in &a.pos {
        let s = crate::python::format::str_of(n);
        if !out.contains(&s) {
            out.push(s);
        }
    }
    Ok(out)
}

/// `jax.ad_checkpoint`.
pub fn ad_checkpoint_module() -> Obj {
    let mut b = Builder::new("jax.ad_checkpoint");
    b.func("checkpoint", checkpoint);
    b.func("remat", checkpoint);
    b.func("checkpoint_name", checkpoint_name);
    b.attr("checkpoint_policies", policies_module());
    b.func("print_saved_residuals", print_saved_residuals);
    b.build()
}

/// Adds `checkpoint`, `remat` and `checkpoint_policies` to the `jax` module.
pub fn register(b: &mut Builder) {
    b.func("checkpoint", checkpoint);
    b.func("remat", checkpoint);
    b.attr("checkpoint_policies", policies_module());
}
