//! `jax.jit`: trace once per signature, then run the traced program.
//!
//! A jitted function keeps a cache of traced programs. A call splits its
//! arguments into static ones (by `static_argnums` / `static_argnames`,
//! compared by value and so required to be hashable) and dynamic ones, whose
//! array leaves (Python numbers become arrays) are what the program takes.
//! The signature is the dynamic arguments' pytree structure and each leaf's
//! shape and dtype, plus the static values. On a miss the Python function
//! runs once on tracers, so its side effects (printing, appending to a list)
//! happen at trace time only, and Python control flow on a tracer raises
//! JAX's errors. Every call then binds the `jit` primitive with the program
//! ([`run_program`]): at top level this computes, under another trace
//! (grad, vmap, shard_map, make_jaxpr) it records a `jit` equation.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::ir::Aval;
use crate::primitives::{JitParams, Prim};
use crate::sharding::Placement;
use crate::trace::Value;
use crate::{bail, err};

use crate::modules::random::{keyed_objs, typed_key_data};
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::{iterate, truthy};
use crate::python::pytree::{flatten, unflatten, TreeDef};
use crate::python::value::{key_eq, Args, Dict, Obj};

use super::jit_donation as donation;
use super::jit_refs;
use super::jit_shardings as shardings;
use super::sharding::inspect;
use crate::trace::refs::RefSlot;

/// The options of `jax.jit` that shardlab honours.
#[derive(Clone, Default, PartialEq)]
struct Options {
    static_argnums: Vec<i64>,
    static_argnames: Vec<String>,
    donate_argnums: Vec<i64>,
    donate_argnames: Vec<String>,
    keep_unused: bool,
    in_shardings: Option<ShardingsArg>,
    out_shardings: Option<ShardingsArg>,
}

/// An `in_shardings` / `out_shardings` argument; two are the same option
/// when they print the same.
#[derive(Clone)]
struct ShardingsArg(Obj);

impl PartialEq for ShardingsArg {
    fn eq(&self, other: &Self) -> bool {
        repr_of(&self.0) == repr_of(&other.0)
    }
}

/// What a traced program was traced for.
struct Signature {
    in_def: TreeDef,
    avals: Vec<Aval>,
    /// The input placements over meshes with explicit axes, which JAX
    /// makes part of the traced types.
    typed: Vec<Option<Arc<Placement>>>,
    /// Which leaves are typed PRNG keys, passed as their key data.
    keys: Vec<bool>,
    /// Which leaves are array refs, passed as their values.
    refs: Vec<bool>,
    statics: Vec<Obj>,
    static_kw: Vec<(String, Obj)>,
}

/// A traced program and how to rebuild its outputs.
struct Entry {
    sig: Signature,
    program: Arc<JitParams>,
    out_def: TreeDef,
    /// Which output leaves are typed PRNG keys, returned as their key data.
    out_keys: Vec<bool>,
    /// How many differentiations were tracing when this was traced: a
    /// custom_jvp or custom_vjp function traces its rule only under one, so
    /// a program traced outside differentiation does not serve inside one.
    levels: usize,
    /// The refs the function closed over: extra inputs and outputs.
    closed: Vec<Rc<RefSlot>>,
    /// Whether tracing used array refs: the program is their discharged
    /// form, which is not what JAX prints.
    uses_refs: bool,
    /// Whether the function wrote to each ref argument, then to each
    /// closed-over ref.
    written: Vec<bool>,
}

/// A call's program and arguments, ready to run or to lower.
struct Prepared {
    entry: Rc<Entry>,
    captured: Vec<Value>,
    /// The ref among each dynamic leaf, if it is one.
    slots: Vec<Option<Rc<RefSlot>>>,
    inputs: shardings::Inputs,
    vals: Vec<Value>,
    names: Vec<String>,
    /// The dynamic leaves, and whether each one's argument is donated.
    leaves: Vec<Obj>,
    donated: Vec<bool>,
    /// Whether the program was traced (and so compiled) for this call.
    traced: bool,
}

/// A jitted function: the Python function, its options and its traces.
struct Jitted {
    fun: Obj,
    name: String,
    options: Options,
    cache: Cache,
}

/// The traced programs of one function under one set of options.
type Cache = Rc<RefCell<Vec<Rc<Entry>>>>;

/// The caches of the run's jitted Python functions. JAX keys its trace cache
/// on the function object and the options, not on the wrapper `jax.jit`
/// returns: `jax.jit(f)(1.)` twice traces `f` once, so its prints show once
/// and a global it read keeps its traced value. A function that has been
/// dropped (a lambda made in a loop) drops its programs with it.
#[derive(Default)]
struct SharedCaches(
    Vec<(
        std::rc::Weak<crate::python::value::Function>,
        Options,
        Cache,
    )>,
);

/// The cache that `jax.jit(fun, **options)` shares with earlier wrappers of
/// the same function and options (a fresh one for anything but a `def` or
/// `lambda`, whose wrappers JAX does not share either).
fn shared_cache(interp: &mut Interp, fun: &Obj, options: &Options) -> Cache {
    let Obj::Func(f) = fun else {
        return Cache::default();
    };
    let caches = &mut interp.state::<SharedCaches>().0;
    caches.retain(|(w, _, _)| w.strong_count() > 0);
    let found = caches
        .iter()
        .find(|(w, o, _)| std::ptr::eq(w.as_ptr(), Rc::as_ptr(f)) && o == options);
    if let Some((_, _, cache)) = found {
        return cache.clone();
    }
    let cache = Cache::default();
    caches.push((Rc::downgrade(f), options.clone(), cache.clone()));
    cache
}

/// Adds `jit` and the functions that go with it to the `jax` module.
pub fn register(b: &mut super::Builder) {
    b.func("jit", jit);
    // Programs run to completion when called, so there is nothing to wait for.
    b.func("effects_barrier", |_, _| Ok(Obj::None));
}

/// `jax.jit(fun, ...)`; without `fun`, the decorator that applies these
/// options (`@jax.jit(static_argnums=1)`, `partial(jax.jit, ...)` calls
/// this with `fun`).
pub fn jit(interp: &mut Interp, a: Args) -> Result<Obj> {
    let Some(fun) = a.get(Some(0), "fun") else {
        return Ok(super::real_api::decorator("jax.jit", &a, jit));
    };
    jit_as(interp, &fun, fun.clone(), &a)
}

/// `jax.jit(runner, **options of a)` for a `runner` that stands for the
/// user's `fun`: the static and donated argument names are resolved, and
/// the program named, after `fun` (`nnx.jit` wraps `fun` so).
pub fn jit_as(interp: &mut Interp, fun: &Obj, runner: Obj, a: &Args) -> Result<Obj> {
    let mut options = Options {
        static_argnums: ints(a.get(None, "static_argnums"))?,
        static_argnames: names(a.get(None, "static_argnames"))?,
        donate_argnums: ints(a.get(None, "donate_argnums"))?,
        donate_argnames: names(a.get(None, "donate_argnames"))?,
        keep_unused: match a.get(None, "keep_unused") {
            Some(o) => truthy(&o, "keep_unused")?,
            None => false,
        },
        in_shardings: a.get(None, "in_shardings").map(ShardingsArg),
        out_shardings: a.get(None, "out_shardings").map(ShardingsArg),
    };
    if let Some(params) = positional_params(fun) {
        resolve(&mut options, &params)?;
    }
    let name = match fun {
        Obj::Func(f) => f.name.clone(),
        Obj::Native(n) => n.name.rsplit('.').next().unwrap_or("").to_string(),
        _ => "function".into(),
    };
    let cache = shared_cache(interp, &runner, &options);
    let jitted = Rc::new(Jitted {
        fun: runner,
        name: name.clone(),
        options,
        cache,
    });
    Ok(Obj::lib(JitFunction(jitted)))
}

/// What `jax.jit` returns: called, it runs the program; `.lower(...)` and
/// `.trace(...)` stop before running (see `jit_aot`).
struct JitFunction(Rc<Jitted>);

impl Object for JitFunction {
    fn type_name(&self) -> String {
        "PjitFunction".into()
    }

    fn call(&self, interp: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        if super::jax_utilities::jit_disabled(interp) {
            return Some(interp.call(&self.0.fun, args));
        }
        Some(self.0.call(interp, args))
    }

    fn callable(&self) -> bool {
        true
    }

    fn binds_as_method(&self) -> bool {
        true
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("<PjitFunction of {}>", repr_of(&self.0.fun)))
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let jitted = self.0.clone();
        Ok(match name {
            // `jax.eval_shape` of the jitted function, as JAX defines it;
            // static arguments would be traced as values there.
            "eval_shape" if jitted.options.static_argnums.is_empty() && jitted.options.static_argnames.is_empty() => {
                let me = this.clone();
                Some(Obj::native("eval_shape", move |i, mut call| {
                    call.pos.insert(0, me.clone());
                    super::jax::eval_shape(i, call)
                }))
            }
            "eval_shape" => bail!(
                NotImplementedError,
                "not supported by shardlab yet: eval_shape of a jitted function with static arguments"
            ),
            // Named as the function, as `functools.wraps` names JAX's wrapper.
            "__name__" | "__qualname__" => Some(Obj::str(&self.0.name)),
            "__wrapped__" => Some(self.0.fun.clone()),
            "lower" => Some(Obj::native("lower", move |i, call| {
                let top = !crate::trace::staging();
                if top {
                    inspect::take_pending(i);
                }
                let p = jitted.prepare(i, &call)?;
                refuse_refs(&p, "lower")?;
                if p.donated.iter().any(|&d| d) {
                    bail!(
                        NotImplementedError,
                        "not supported by shardlab yet: lower with donated arguments"
                    );
                }
                if top && !inspect::take_pending(i).is_empty() {
                    bail!(
                        NotImplementedError,
                        "not supported by shardlab yet: jax.debug.inspect_array_sharding in a function lowered ahead of time"
                    );
                }
                super::jit_aot::lowered(
                    i,
                    &jitted.name,
                    p.entry.program.clone(),
                    &p.inputs.placements,
                    p.vals,
                )
            })),
            "trace" => Some(Obj::native("trace", move |i, call| {
                let p = jitted.prepare(i, &call)?;
                refuse_refs(&p, "trace")?;
                super::jit_aot::traced(
                    i,
                    &jitted.name,
                    p.entry.program.clone(),
                    &p.inputs.placements,
                    p.vals,
                )
            })),
            _ => None,
        })
    }
}

/// Integers given as an int or a sequence of them (None: none).
fn ints(o: Option<Obj>) -> Result<Vec<i64>> {
    match o {
        None | Some(Obj::None) => Ok(vec![]),
        Some(o @ (Obj::Tuple(_) | Obj::List(_))) => iterate(&o)?.iter().map(to_int).collect(),
        Some(o) => Ok(vec![to_int(&o)?]),
    }
}

/// Names given as a string or a sequence of them.
fn names(o: Option<Obj>) -> Result<Vec<String>> {
    let items = match o {
        None | Some(Obj::None) => return Ok(vec![]),
        Some(Obj::Str(s)) => return Ok(vec![s.to_string()]),
        Some(o) => iterate(&o)?,
    };
    items
        .iter()
        .map(|o| match o {
            Obj::Str(s) => Ok(s.to_string()),
            other => bail!(
                TypeError,
                "argument names must be strings, got {}",
                repr_of(other)
            ),
        })
        .collect()
}

/// The positional parameters of a `def` (None when it takes `*args` or is
/// not a `def`): JAX completes argnums from argnames and back with them.
fn positional_params(fun: &Obj) -> Option<Vec<(String, bool)>> {
    let Obj::Func(f) = fun else { return None };
    if f.params.vararg.is_some() {
        return None;
    }
    let only = f.params.posonlyargs.iter().map(|a| (a, true));
    let named = f.params.args.iter().map(|a| (a, false));
    Some(
        only.chain(named)
            .map(|(a, posonly)| (a.def.arg.as_str().to_string(), posonly))
            .collect(),
    )
}

/// Completes static and donated argnums and argnames from each other, and
/// checks them against the parameters as JAX does.
fn resolve(o: &mut Options, params: &[(String, bool)]) -> Result<()> {
    let n = params.len() as i64;
    check_argnums(&o.static_argnums, "static_argnums", n)?;
    check_argnums(&o.donate_argnums, "donate_argnums", n)?;
    for (nums, names, from_end) in [
        (&mut o.static_argnums, &mut o.static_argnames, true),
        (&mut o.donate_argnums, &mut o.donate_argnames, false),
    ] {
        let given_nums = nums.clone();
        for (i, (p, posonly)) in params.iter().enumerate() {
            let i = i as i64;
            // Static argnums count from the end when negative; donated ones
            // name no argument then.
            let by_num = given_nums
                .iter()
                .any(|&k| k == i || (from_end && k + n == i));
            if by_num && !posonly && !names.contains(p) {
                names.push(p.clone());
            }
            if names.contains(p) && !by_num {
                nums.push(i);
            }
        }
    }
    let both: Vec<&String> = o
        .static_argnames
        .iter()
        .filter(|p| o.donate_argnames.contains(p))
        .collect();
    if !both.is_empty() {
        let set: Vec<String> = both.iter().map(|p| format!("'{p}'")).collect();
        bail!(
            ValueError,
            "static_argnames and donate_argnames cannot intersect. Argument names {{{}}} appear \
             in both static_argnames and donate_argnames",
            set.join(", ")
        );
    }
    Ok(())
}

/// JAX's ValueError for an argnum past the function's positional parameters.
fn check_argnums(nums: &[i64], what: &str, n: i64) -> Result<()> {
    if nums.iter().all(|&k| k < n && k >= -n) {
        return Ok(());
    }
    let items: Vec<String> = nums.iter().map(|k| k.to_string()).collect();
    let tuple = if items.len() == 1 {
        format!("({},)", items[0])
    } else {
        format!("({})", items.join(", "))
    };
    bail!(
        ValueError,
        "Jitted function has {what}={tuple}, but only accepts {n} positional arguments."
    )
}

/// A call's arguments, split into static and dynamic ones.
struct Split {
    dynamic: Obj,
    statics: Vec<Obj>,
    static_kw: Vec<(String, Obj)>,
    donated_args: Vec<bool>,
    donated_kw: Vec<(String, bool)>,
}

impl Jitted {
    fn is_static(&self, i: usize, n: usize) -> bool {
        let i = i as i64;
        self.options
            .static_argnums
            .iter()
            .any(|&k| k == i || k + n as i64 == i)
    }

    /// JAX donates by position as given: a negative index names no
    /// argument.
    fn is_donated(&self, i: usize) -> bool {
        self.options.donate_argnums.contains(&(i as i64))
    }

    fn split(&self, call: &Args) -> Result<Split> {
        let n = call.pos.len();
        let mut dyn_pos = vec![];
        let mut statics = vec![];
        let mut donated_args = vec![];
        for (i, x) in call.pos.iter().enumerate() {
            if self.is_static(i, n) {
                check_static(x)?;
                statics.push(x.clone());
            } else {
                dyn_pos.push(x.clone());
                donated_args.push(self.is_donated(i));
            }
        }
        let mut dyn_kw = Dict::default();
        let mut static_kw = vec![];
        let mut donated_kw = vec![];
        for (k, v) in &call.kw {
            if self.options.static_argnames.contains(k) {
                check_static(v)?;
                static_kw.push((k.clone(), v.clone()));
            } else {
                dyn_kw.set(Obj::str(k), v.clone());
                donated_kw.push((k.clone(), self.options.donate_argnames.contains(k)));
            }
        }
        static_kw.sort_by(|a, b| a.0.cmp(&b.0));
        donated_kw.sort_by(|a, b| a.0.cmp(&b.0));
        let dynamic = Obj::tuple(vec![
            Obj::tuple(dyn_pos),
            Obj::Dict(Rc::new(RefCell::new(dyn_kw))),
        ]);
        Ok(Split {
            dynamic,
            statics,
            static_kw,
            donated_args,
            donated_kw,
        })
    }

    /// Traces (or finds in the cache) the program for the call `call`:
    /// what both calling and lowering start from.
    fn prepare(&self, interp: &mut Interp, call: &Args) -> Result<Prepared> {
        let split = self.split(call)?;
        let (leaves, in_def) = flatten(interp, &split.dynamic)?;
        let names = self.leaf_names(call, &in_def);
        let slots = jit_refs::arg_slots(&leaves);
        jit_refs::check_aliases(&slots, &names, &self.source_info())?;
        let vals = self.arg_values(&leaves, &names)?;
        let inputs = self.in_placements(interp, &in_def, &vals, &names)?;
        let typed = inputs
            .placements
            .iter()
            .map(|p| p.clone().filter(|p| typed_placement(p)))
            .collect();
        let sig = Signature {
            in_def,
            avals: vals.iter().map(|v| v.aval()).collect(),
            typed,
            keys: leaves.iter().map(|l| typed_key_data(l).is_some()).collect(),
            refs: slots.iter().map(Option::is_some).collect(),
            statics: split.statics.clone(),
            static_kw: split.static_kw.clone(),
        };
        let cached = self
            .cache
            .borrow()
            .iter()
            .find(|e| {
                same_signature(&e.sig, &sig)
                    && e.levels == crate::transforms::differentiation_levels()
            })
            .cloned();
        let donated = donated_leaves(interp, &split)?;
        let traced = cached.is_none();
        let (entry, captured) = match cached {
            Some(e) => (e, vec![]),
            None => {
                let placements = inputs.placements.clone();
                let (entry, captured) =
                    self.trace(interp, sig, &donated, placements, &names, &slots)?;
                let entry = Rc::new(entry);
                // A program that closed over an outer tracer belongs to that
                // trace only; it is traced again next time.
                if captured.is_empty() {
                    self.cache.borrow_mut().push(entry.clone());
                }
                (entry, captured)
            }
        };
        Ok(Prepared {
            entry,
            captured,
            slots,
            inputs,
            vals,
            names,
            leaves,
            donated,
            traced,
        })
    }

    /// [`Self::prepare`], then, for a call from outside any trace, what
    /// compiling a newly traced program does: the sharding inspections it
    /// staged call their callbacks (left-over ones of a `make_jaxpr` are
    /// dropped first).
    fn prepare_compiled(&self, interp: &mut Interp, call: &Args) -> Result<Prepared> {
        let top = !crate::trace::staging();
        if top {
            inspect::take_pending(interp);
        }
        let p = self.prepare(interp, call)?;
        if top {
            inspect::run_pending(interp)?;
        }
        Ok(p)
    }

    /// `f(*args, **kwargs)` of the jitted function.
    fn call(&self, interp: &mut Interp, call: Args) -> Result<Obj> {
        let Prepared {
            entry,
            captured,
            slots,
            inputs,
            vals,
            names,
            leaves,
            donated,
            traced,
        } = self.prepare_compiled(interp, &call)?;
        let mut used = shardings::used_inputs(&entry.program.body);
        if self.options.keep_unused {
            used.iter_mut().for_each(|u| *u = true);
        }
        // Donation happens where the program runs: a jit inside another
        // transformation donates nothing.
        let top = !crate::trace::tracing();
        let leaves = donation::Leaves {
            objs: &leaves,
            donated: &donated,
            used: &used,
        };
        if top {
            donation::check_call(&leaves, !traced)?;
        }
        shardings::check_devices(
            &self.name,
            &names,
            &vals,
            &inputs,
            &used,
            &entry.program.body,
        )?;
        // The arguments where jit places them (`in_shardings` may move them).
        let mut args: Vec<Value> = vals
            .into_iter()
            .zip(&inputs.placements)
            .map(|(v, p)| match v {
                Value::Concrete(a) if p.is_some() => Value::Concrete(a.with_placement(p.clone())),
                other => other,
            })
            .collect();
        args.extend(captured);
        for slot in &entry.closed {
            args.push(crate::trace::refs::read(slot)?);
        }
        let mut outs = run_program(interp, &entry.program, &args)?;
        let arg_slots: Vec<Rc<RefSlot>> = slots.into_iter().flatten().collect();
        jit_refs::write_back(&mut outs, &arg_slots, &entry.closed, &entry.written)?;
        let mut outs = self.place_outputs(interp, &entry, &inputs, &used, outs)?;
        if top {
            donation::donate(interp, &leaves, &mut outs, traced)?;
        }
        unflatten(interp, &entry.out_def, &keyed_objs(&outs, &entry.out_keys)?)
    }

    /// The placements of the dynamic leaves (see `jit_shardings`);
    /// `in_shardings` is honoured for calls made from Python only.
    fn in_placements(
        &self,
        interp: &mut Interp,
        in_def: &TreeDef,
        vals: &[Value],
        names: &[String],
    ) -> Result<shardings::Inputs> {
        let given = self
            .options
            .in_shardings
            .as_ref()
            .map(|s| &s.0)
            .filter(|o| !matches!(o, Obj::None));
        let out_given = self
            .options
            .out_shardings
            .as_ref()
            .map(|s| &s.0)
            .filter(|o| !matches!(o, Obj::None));
        if (given.is_some() || out_given.is_some()) && crate::trace::tracing() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.jit with in_shardings or out_shardings inside another transformation"
            );
        }
        let (pos_defs, has_kwargs) = match in_def {
            TreeDef::Tuple(parts) => match parts.as_slice() {
                [TreeDef::Tuple(pos), TreeDef::Dict(kw)] => (pos.clone(), !kw.is_empty()),
                _ => (vec![], false),
            },
            _ => (vec![], false),
        };
        shardings::in_placements(interp, given, &pos_defs, has_kwargs, vals, names)
    }

    /// Gives the outputs the placements JAX gives them: propagated from
    /// the inputs, or as `out_shardings` says.
    fn place_outputs(
        &self,
        interp: &mut Interp,
        entry: &Entry,
        inputs: &shardings::Inputs,
        used: &[bool],
        outs: Vec<Value>,
    ) -> Result<Vec<Value>> {
        if crate::trace::tracing() {
            return Ok(outs);
        }
        let mut placements = shardings::out_placements(&entry.program, inputs, used)?;
        if let Some(ShardingsArg(given)) = self.options.out_shardings.as_ref() {
            let shapes: Vec<Vec<usize>> = outs.iter().map(Value::shape).collect();
            let annotated = shardings::out_annotations(interp, given, &entry.out_def, &shapes)?;
            for (p, a) in placements.iter_mut().zip(annotated) {
                if a.is_some() {
                    *p = a;
                }
            }
        }
        let program = &entry.program;
        Ok(outs
            .into_iter()
            .zip(placements)
            .map(|(v, p)| match v {
                Value::Concrete(a) => {
                    let open = matches!(p.as_deref(), Some(Placement::Unknown(_)));
                    let a = crate::partition::placed(a, p);
                    // Where the partitioner chose, JAX still spells the
                    // result after the first input.
                    let placed = a.placement_rc().filter(|_| open);
                    Value::Concrete(match placed {
                        Some(pl) => {
                            let n = a.ndim();
                            a.with_placement(Some(shardings::respell_open(
                                pl, n, program, inputs, used,
                            )))
                        }
                        None => a,
                    })
                }
                traced => traced,
            })
            .collect())
    }

    /// The name JAX gives each dynamic leaf in its messages: the parameter
    /// (or keyword) it was passed as, then its key path.
    fn leaf_names(&self, call: &Args, in_def: &TreeDef) -> Vec<String> {
        let params = positional_params(&self.fun).unwrap_or_default();
        let n = call.pos.len();
        let pos_names: Vec<String> = (0..n)
            .filter(|&i| !self.is_static(i, n))
            .map(|i| match params.get(i) {
                Some((p, _)) => p.clone(),
                None => format!("args[{i}]"),
            })
            .collect();
        let mut out = vec![];
        if let TreeDef::Tuple(parts) = in_def {
            if let [TreeDef::Tuple(pos), TreeDef::Dict(kw)] = parts.as_slice() {
                for (d, name) in pos.iter().zip(&pos_names) {
                    out.extend(shardings::key_paths(d, name));
                }
                for (k, d) in kw {
                    out.extend(shardings::key_paths(d, &crate::python::format::str_of(k)));
                }
            }
        }
        out.resize(in_def.num_leaves(), String::new());
        out
    }

    /// The dynamic leaves as arrays, or JAX's error for a leaf that is not one.
    fn arg_values(&self, leaves: &[Obj], names: &[String]) -> Result<Vec<Value>> {
        leaves
            .iter()
            .zip(names)
            .map(|(l, name)| {
                // Typed keys enter the program as their key data.
                if let Some(data) = typed_key_data(l) {
                    return Ok(data);
                }
                if let Some(slot) = super::refs::slot_of(l) {
                    return crate::trace::refs::read(&slot);
                }
                // A NumPy array the engine cannot hold says why.
                if let Some(n) = l.downcast::<super::numpy::ndarray::NdArray>() {
                    return n.get().map(Value::Concrete);
                }
                to_value(l).map_err(|_| {
                    err!(
                        TypeError,
                        "Error interpreting argument to {} as an abstract array. The problematic \
                         value is of type {} and was passed to the function at path {name}.\n\
                         This typically means that a jit-wrapped function was called with a \
                         non-array argument, and this argument was not marked as static using \
                         the static_argnums or static_argnames parameters of jax.jit.",
                        repr_of(&self.fun),
                        class_text(l)
                    )
                })
            })
            .collect()
    }

    /// Runs the Python function on tracers shaped like the signature.
    fn trace(
        &self,
        interp: &mut Interp,
        sig: Signature,
        donated: &[bool],
        placements: Vec<Option<Arc<Placement>>>,
        arg_names: &[String],
        slots: &[Option<Rc<RefSlot>>],
    ) -> Result<(Entry, Vec<Value>)> {
        let out_def = RefCell::new(None);
        let out_keys = RefCell::new(vec![]);
        let uses = crate::trace::refs::uses();
        let args_written = RefCell::new(vec![]);
        let traced = crate::trace::trace_placed(&sig.avals, placements, |v: &[Value]| {
            self.enter_trace(arg_names, slots);
            let (out, fresh) = self.call_python(interp, &sig, v)?;
            let named: Vec<(Rc<RefSlot>, String)> = fresh
                .iter()
                .cloned()
                .zip(slots.iter().zip(arg_names).filter(|(s, _)| s.is_some()))
                .map(|(f, (_, n))| (f, n.clone()))
                .collect();
            jit_refs::check_returned(interp, &out, &named, &self.source_info(), "jit")?;
            let (leaves, def) = flatten(interp, &out)?;
            *out_def.borrow_mut() = Some(def);
            *out_keys.borrow_mut() = leaves.iter().map(|l| typed_key_data(l).is_some()).collect();
            let mut outs: Vec<Value> = leaves
                .iter()
                .map(|l| match typed_key_data(l) {
                    Some(data) => Ok(data),
                    None => self.out_value(l),
                })
                .collect::<Result<_>>()?;
            let lasts = jit_refs::last_values(&fresh)?;
            let inputs: Vec<Value> = v
                .iter()
                .zip(&sig.refs)
                .filter(|(_, &r)| r)
                .map(|(x, _)| x.clone())
                .collect();
            *args_written.borrow_mut() = jit_refs::written(&inputs, &lasts);
            outs.extend(lasts);
            Ok(outs)
        })
        .map_err(|e| self.with_context(e))?;
        let out_def = out_def
            .into_inner()
            .ok_or_else(|| err!(RuntimeError, "jit: the function was not traced"))?;
        let mut donated = donated.to_vec();
        donated.resize(traced.jaxpr.invars.len(), false);
        let program = Arc::new(JitParams {
            name: self.name.clone(),
            body: traced.jaxpr,
            donated,
            keep_unused: self.options.keep_unused,
        });
        let entry = Entry {
            sig,
            program,
            out_def,
            out_keys: out_keys.into_inner(),
            levels: crate::transforms::differentiation_levels(),
            closed: traced.refs,
            uses_refs: crate::trace::refs::uses() != uses,
            written: args_written
                .into_inner()
                .into_iter()
                .chain(traced.refs_written)
                .collect(),
        };
        Ok((entry, traced.captured))
    }

    /// What the new trace knows of this function: its debug info (for
    /// tracer errors), that it lifts the refs it closes over, and which of
    /// its arguments are refs.
    fn enter_trace(&self, arg_names: &[String], slots: &[Option<Rc<RefSlot>>]) {
        crate::trace::set_debug_info(crate::trace::DebugInfo {
            func_src_info: self.source_info(),
            traced_for: "jit",
            arg_names: arg_names.to_vec(),
        });
        crate::trace::refs::set_policy(crate::trace::refs::RefPolicy::Lift);
        let passed = slots
            .iter()
            .zip(arg_names)
            .filter_map(|(s, n)| s.clone().map(|s| (s, n.clone())))
            .collect();
        crate::trace::refs::declare_args(crate::trace::refs::ArgRefs {
            slots: passed,
            function: self.source_info(),
        });
    }

    /// `f at file:line`, as JAX's messages name the function.
    fn source_info(&self) -> String {
        super::debug_info::source_info(&self.fun, &self.name)
    }

    /// Calls the Python function with the dynamic arguments rebuilt from
    /// `vals` and the static ones put back in their places.
    fn call_python(
        &self,
        interp: &mut Interp,
        sig: &Signature,
        vals: &[Value],
    ) -> Result<(Obj, Vec<Rc<RefSlot>>)> {
        let leaves = keyed_objs(vals, &sig.keys)?;
        let (leaves, fresh) = jit_refs::fresh_refs(leaves, vals, &sig.refs);
        let rebuilt = iterate(&unflatten(interp, &sig.in_def, &leaves)?)?;
        let dyn_pos = iterate(&rebuilt[0])?;
        let n = dyn_pos.len() + sig.statics.len();
        let (mut dyn_it, mut static_it) = (dyn_pos.into_iter(), sig.statics.iter().cloned());
        let pos: Vec<Obj> = (0..n)
            .map(|i| {
                let next = if self.is_static(i, n) {
                    static_it.next()
                } else {
                    dyn_it.next()
                };
                next.unwrap_or(Obj::None)
            })
            .collect();
        let mut kw = Args::keywords_from(&rebuilt[1]);
        kw.extend(sig.static_kw.iter().cloned());
        Ok((interp.call(&self.fun, Args::with(pos, kw))?, fresh))
    }

    /// An output leaf as an array: Python numbers are converted, anything
    /// else is JAX's TypeError.
    fn out_value(&self, leaf: &Obj) -> Result<Value> {
        to_value(leaf).map_err(|_| {
            err!(
                TypeError,
                "function {} traced for jit returned a value of type {}, which is not a valid \
                 JAX type",
                self.name,
                class_text(leaf)
            )
        })
    }

    /// Adds to a tracer error where it arose, as JAX does.
    fn with_context(&self, mut e: Error) -> Error {
        let tracer_error = matches!(
            e.kind,
            ErrorKind::ConcretizationTypeError
                | ErrorKind::TracerBoolConversionError
                | ErrorKind::TracerArrayConversionError
                | ErrorKind::TracerIntegerConversionError
        ) || e.message.starts_with("Shapes must be 1D sequences");
        let explained = [
            "The error occurred while tracing",
            "This BatchTracer with object id",
        ]
        .iter()
        .any(|t| e.message.contains(t));
        if !tracer_error || explained {
            return e;
        }
        // A tracer of an inner trace (a vmap or grad inside the jitted
        // function) has no debug info of its own: say at least which jitted
        // function was being traced.
        let context = format!(
            "The error occurred while tracing the function {} for jit.",
            super::debug_info::source_info(&self.fun, &self.name)
        );
        let at = e
            .message
            .find("\n\nSee https://")
            .or_else(|| e.message.find("\nSee https://"));
        e.message = match at {
            Some(at) => format!("{}\n{context}{}", &e.message[..at], &e.message[at..]),
            None => format!("{}\n{context}", e.message),
        };
        e
    }
}

/// Runs a traced program on its inputs (the flat dynamic arguments, then
/// the values it closed over): at top level this computes, and what the
/// program prints (`jax.debug.print`) goes to the run's output; under a
/// trace it records a `jit` equation.
fn run_program(
    interp: &mut Interp,
    program: &Arc<JitParams>,
    inputs: &[Value],
) -> Result<Vec<Value>> {
    if crate::trace::tracing() {
        // An eager trace (differentiation) runs the program as it records
        // it, host callbacks included.
        let prim = Prim::Jit(program.clone());
        if crate::trace::staging() {
            return crate::trace::bind(prim, inputs);
        }
        if super::callbacks::calls_back(&prim) {
            let traced: Vec<bool> = inputs
                .iter()
                .map(|v| matches!(v, Value::Traced(_)))
                .collect();
            crate::transforms::refuse_callback_jvp(&program.body, &traced)?;
        }
        let outs = super::callbacks::bind_lending(interp, prim, inputs);
        super::debug_print::show_eager_prints(interp)?;
        return outs;
    }
    let placed: Vec<crate::array::Array> = inputs
        .iter()
        .map(|v| v.concrete("jit").cloned())
        .collect::<Result<_>>()?;
    crate::partition::check_devices(&program.name, &[], &placed)?;
    // Devices compute data; the results' weak types are the program's.
    let typed = |outs: Vec<crate::array::Array>| -> Vec<Value> {
        outs.into_iter()
            .zip(program.body.out_avals())
            .map(|(a, t)| Value::Concrete(a.with_weak(t.weak)))
            .collect()
    };
    if let Some(outs) = crate::partition::run_jit(&program.body, &placed)? {
        return Ok(typed(outs));
    }
    let arrays: Vec<crate::array::Array> =
        placed.into_iter().map(|a| a.with_placement(None)).collect();
    let prints = std::sync::Mutex::new(vec![]);
    let body = &program.body;
    let outs = match body
        .eqns
        .iter()
        .any(|e| super::callbacks::calls_back(&e.prim))
    {
        true => {
            super::callbacks::lend(interp, || crate::exec::eval_program(body, &arrays, &prints))
        }
        false => crate::exec::eval_program(body, &arrays, &prints),
    };
    for printed in prints.into_inner().unwrap_or_default() {
        super::debug_print::show(interp, &printed)?;
    }
    Ok(typed(outs?))
}

/// Lowering shows the program, which for a function using array refs
/// would be their discharged form rather than JAX's.
fn refuse_refs(p: &Prepared, what: &str) -> Result<()> {
    if p.entry.uses_refs || p.slots.iter().any(Option::is_some) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.jit(...).{what} of a function that uses array refs"
        );
    }
    Ok(())
}

/// Whether a placement is part of the traced types: over a mesh with
/// explicit axes.
fn typed_placement(p: &Placement) -> bool {
    matches!(p, Placement::Named(s) if s.mesh.axis_types().contains(&crate::mesh::AxisType::Explicit))
}

/// `<class 'str'>`, as JAX names a type in its messages.
fn class_text(o: &Obj) -> String {
    let name = match o {
        Obj::Array(_) => "jaxlib._jax.ArrayImpl".to_string(),
        Obj::Instance(i) => return repr_of(&Obj::Class(i.class.clone())),
        other => other.type_name(),
    };
    format!("<class '{name}'>")
}

/// For each dynamic leaf, whether its argument was donated.
fn donated_leaves(interp: &mut Interp, split: &Split) -> Result<Vec<bool>> {
    let mut out = vec![];
    let parts = iterate(&split.dynamic).unwrap_or_default();
    let pos = parts.first().map(iterate).transpose().ok().flatten();
    for (x, &d) in pos.unwrap_or_default().iter().zip(&split.donated_args) {
        out.extend(std::iter::repeat_n(d, flatten(interp, x)?.0.len()));
    }
    if let Some(Obj::Dict(kw)) = parts.get(1) {
        let kw = kw.borrow();
        for (k, d) in &split.donated_kw {
            if let Some(v) = kw.get(&Obj::str(k)) {
                out.extend(std::iter::repeat_n(*d, flatten(interp, &v)?.0.len()));
            }
        }
    }
    Ok(out)
}

/// JAX's error for a static argument that cannot be hashed.
fn check_static(x: &Obj) -> Result<()> {
    if let Err(e) = hashable(x) {
        bail!(
            ValueError,
            "Non-hashable static arguments are not supported. An error occurred while trying to \
             hash an object of type {}, {}. The error was:\nTypeError: {}\n",
            class_text(x),
            repr_of(x),
            e.message
        );
    }
    Ok(())
}

/// Python's `hash(x)` succeeds: lists, dicts, sets and arrays are unhashable.
fn hashable(x: &Obj) -> Result<()> {
    match x {
        Obj::List(_) | Obj::Dict(_) => bail!(TypeError, "unhashable type: '{}'", x.type_name()),
        Obj::Set(s) if !s.borrow().frozen => bail!(TypeError, "unhashable type: 'set'"),
        Obj::Array(_) => bail!(TypeError, "unhashable type: 'jaxlib._jax.ArrayImpl'"),
        Obj::Tuple(t) => t.iter().try_for_each(hashable),
        _ => Ok(()),
    }
}

fn same_signature(a: &Signature, b: &Signature) -> bool {
    a.avals == b.avals
        && a.typed == b.typed
        && a.keys == b.keys
        && a.refs == b.refs
        && same_def(&a.in_def, &b.in_def)
        && a.statics.len() == b.statics.len()
        && a.statics
            .iter()
            .zip(&b.statics)
            .all(|(x, y)| same_static(x, y))
        && a.static_kw.len() == b.static_kw.len()
        && a.static_kw
            .iter()
            .zip(&b.static_kw)
            .all(|((k, x), (l, y))| k == l && same_static(x, y))
}

/// Static arguments compare by value, and by type as JAX's cache keys do
/// (`1` and `1.0` trace separately).
fn same_static(x: &Obj, y: &Obj) -> bool {
    x.type_name() == y.type_name() && key_eq(x, y)
}

fn same_def(a: &TreeDef, b: &TreeDef) -> bool {
    a.same(b)
}
