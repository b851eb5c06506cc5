//! `nnx.custom_vjp` on top of `jax.custom_vjp`.
//!
//! In graph mode with graph updates (Flax's default) each module argument
//! goes in as the state of all its variables and is rebuilt inside the
//! function and the forward rule, which both also return the state each
//! differentiated argument is left in (None for one that is not a module).
//! So the backward rule receives `(input_updates_g, out_g)`, the cotangents
//! of those states and of the output, and returns a `State` (or a
//! Variable) per module argument; the states the call leaves are written
//! back into the caller's modules. In tree mode (`graph=False` or
//! `graph_updates=False`) modules are pytrees: the backward rule receives
//! the output's cotangent alone and returns module-shaped tangents, and the
//! variables the function writes leave it as extra outputs (see
//! `autodiff`). Flax's `nnx.DiffState` entries of `nondiff_argnums` and a
//! backward rule that takes `updates_g` are refused by name.

use super::autodiff::{apply_written, call_on_copies, check_unbound, jax_fn, tree_mode, Written};
use super::transforms::{check_no_aliases, split_modules, vmap_pure, write_back, Graphdefs};
use super::*;
use crate::modules::jax::func_name;

/// An `nnx.custom_vjp` function.
struct NnxCustomVjp {
    fun: Obj,
    nondiff: Vec<usize>,
    tree: bool,
    state: Rc<Class>,
    rules: RefCell<Option<(Obj, Obj)>>,
}

/// Python's unpacking of `o` into two names, with its errors.
fn unpack2(o: &Obj) -> Result<(Obj, Obj)> {
    let items = iterate(o)?;
    match items.as_slice() {
        [a, b] => Ok((a.clone(), b.clone())),
        [_, _, ..] => bail!(ValueError, "too many values to unpack (expected 2)"),
        _ => bail!(
            ValueError,
            "not enough values to unpack (expected 2, got {})",
            items.len()
        ),
    }
}

fn is_graph_node(o: &Obj) -> bool {
    matches!(o, Obj::Instance(i) if is_nnx_module(i) || is_state(i))
}

impl NnxCustomVjp {
    /// `jax.custom_vjp(fun_w, nondiff_argnums=...)` with the rules given,
    /// called on `args`.
    fn run_jax(&self, interp: &mut Interp, rules: [Obj; 3], args: Vec<Obj>) -> Result<Obj> {
        let [fun, fwd, bwd] = rules;
        let nondiff = Obj::tuple(self.nondiff.iter().map(|&k| Obj::Int(k as i64)).collect());
        let cv = jax_fn(interp, "custom_vjp")?;
        let f = interp.call(
            &cv,
            Args::with(vec![fun], vec![("nondiff_argnums".into(), nondiff)]),
        )?;
        let defvjp = crate::python::ops::getattr(interp, &f, "defvjp")?;
        interp.call(&defvjp, Args::new(vec![fwd, bwd]))?;
        interp.call(&f, Args::new(args))
    }

    /// Graph mode: modules travel as their states.
    fn call_graph(&self, interp: &mut Interp, pos: Vec<Obj>, fwd: Obj, bwd: Obj) -> Result<Obj> {
        for (k, a) in pos.iter().enumerate() {
            if self.nondiff.contains(&k) && is_graph_node(a) {
                bail!(
                    TypeError,
                    "Passing integers to nondiff_argnums for graph nodes arguments in custom_vjp is not supported. Got False at path [{k}] for value {}",
                    repr_of(a)
                );
            }
            if !is_graph_node(a) && !super::autodiff::vars_in(std::slice::from_ref(a)).is_empty() {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx.custom_vjp with Variables inside an argument that is not a Module"
                );
            }
        }
        let (mods, pure_args, defs) = split_modules(&self.state, &pos);
        let seen = Rc::new(Graphdefs::default());
        let layout = Rc::new(Layout {
            modules: mods.index.clone(),
            diff: (0..pos.len())
                .filter(|k| !self.nondiff.contains(k))
                .collect(),
        });
        let inner = |f: &Obj| vmap_pure(f, &self.state, vec![], (&mods.index, &defs), &seen);
        let fun_w = graph_rule(inner(&self.fun), layout.clone(), false);
        let fwd_w = graph_rule(inner(&fwd), layout.clone(), true);
        let bwd_w = graph_bwd(bwd, layout.clone());
        let r = self.run_jax(interp, [fun_w, fwd_w, bwd_w], pure_args)?;
        let (args_out, out) = unpack2(&r)?;
        let args_out = iterate(&args_out)?;
        let states: Vec<Obj> = layout
            .modules
            .iter()
            .filter_map(|k| layout.diff.iter().position(|d| d == k))
            .filter_map(|j| args_out.get(j).cloned())
            .collect();
        write_back(&mods, &seen, &out, &states)
    }

    /// Tree mode: modules are pytrees, written variables extra outputs.
    fn call_tree(&self, interp: &mut Interp, pos: Vec<Obj>, fwd: Obj, bwd: Obj) -> Result<Obj> {
        check_no_aliases(&pos, "nnx.custom_vjp with graph_updates=False")?;
        if takes_updates_g(&bwd) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.custom_vjp with a bwd rule that takes updates_g"
            );
        }
        let written = Rc::new(Written::default());
        let fun_w = {
            let (f, written) = (self.fun.clone(), written.clone());
            Obj::native("nnx.custom_vjp.fun", move |i, a| {
                let (out, updates) = call_on_copies(i, &f, &a.pos, &written)?;
                Ok(Obj::tuple(vec![out, updates]))
            })
        };
        let fwd_w = {
            let written = written.clone();
            Obj::native("nnx.custom_vjp.fwd", move |i, a| {
                let (r, updates) = call_on_copies(i, &fwd, &a.pos, &written)?;
                let (out, res) = unpack2(&r)?;
                Ok(Obj::tuple(vec![Obj::tuple(vec![out, updates]), res]))
            })
        };
        let bwd_w = Obj::native("nnx.custom_vjp.bwd", move |i, a| {
            let mut pos = a.pos.clone();
            let g = pos.pop().unwrap_or(Obj::None);
            let (out_g, _updates_g) = unpack2(&g)?;
            pos.push(out_g);
            i.call(&bwd, Args::new(pos))
        });
        let r = self.run_jax(interp, [fun_w, fwd_w, bwd_w], pos.clone())?;
        let (out, updates) = unpack2(&r)?;
        apply_written(&pos, &written, &updates)?;
        Ok(out)
    }
}

/// Where the module arguments are and which arguments are differentiated.
struct Layout {
    modules: Vec<usize>,
    diff: Vec<usize>,
}

impl Layout {
    /// The state each differentiated argument is left in (None where it
    /// is not a module), from the states of all module arguments.
    fn args_out(&self, states: &[Obj]) -> Obj {
        Obj::tuple(
            self.diff
                .iter()
                .map(|k| match self.modules.iter().position(|m| m == k) {
                    Some(j) => states.get(j).cloned().unwrap_or(Obj::None),
                    None => Obj::None,
                })
                .collect(),
        )
    }
}

/// The function or forward rule in graph mode: `(args_out, out)`, or for
/// the forward rule `((args_out, out), residuals)`.
fn graph_rule(pure: Obj, layout: Rc<Layout>, fwd: bool) -> Obj {
    Obj::native("nnx.custom_vjp.rule", move |i, a| {
        let r = iterate(&i.call(&pure, a)?)?;
        let Some((out, states)) = r.split_first() else {
            bail!(
                RuntimeError,
                "nnx.custom_vjp: the function returned nothing"
            );
        };
        let args_out = layout.args_out(states);
        Ok(match fwd {
            true => {
                let (out, res) = unpack2(out)?;
                Obj::tuple(vec![Obj::tuple(vec![args_out, out]), res])
            }
            false => Obj::tuple(vec![args_out, out.clone()]),
        })
    })
}

/// The backward rule in graph mode: a module argument's tangent must be a
/// `State` or a Variable, as Flax requires.
fn graph_bwd(bwd: Obj, layout: Rc<Layout>) -> Obj {
    Obj::native("nnx.custom_vjp.bwd", move |i, a| {
        let tangent = i.call(&bwd, a)?;
        if let Obj::Tuple(_) | Obj::List(_) = &tangent {
            for (k, t) in layout.diff.iter().zip(iterate(&tangent)?) {
                let ok = matches!(&t, Obj::Instance(x) if is_state(x) || is_variable(x));
                if layout.modules.contains(k) && !ok && !matches!(t, Obj::Array(_)) {
                    bail!(
                        ValueError,
                        "Expected State or Variable, got <class '{}'>",
                        t.type_name()
                    );
                }
            }
        }
        Ok(tangent)
    })
}

/// Whether a backward rule declares `updates_g` (or takes `**kwargs`).
fn takes_updates_g(bwd: &Obj) -> bool {
    let Obj::Func(f) = bwd else { return false };
    let p = &f.params;
    p.kwarg.is_some()
        || p.args
            .iter()
            .chain(&p.kwonlyargs)
            .any(|a| a.def.arg.as_str() == "updates_g")
}

impl Object for NnxCustomVjp {
    fn type_name(&self) -> String {
        match self.tree {
            true => "SimpleCustomVjp".into(),
            false => "CustomVjp".into(),
        }
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let me = this.clone();
        Ok(match name {
            "defvjp" => Some(Obj::native("defvjp", move |_, a| {
                let (fwd, bwd) = crate::modules::custom::defvjp_rules(&a, "nnx.custom_vjp defvjp")?;
                if let Some(c) = me.downcast::<NnxCustomVjp>() {
                    *c.rules.borrow_mut() = Some((fwd, bwd));
                }
                Ok(Obj::None)
            })),
            "fun" | "__wrapped__" => Some(self.fun.clone()),
            "__name__" => Some(Obj::str(func_name(&self.fun))),
            _ => None,
        })
    }

    fn call(&self, interp: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        if !args.kw.is_empty() {
            return Some(Err(err!(
                NotImplementedError,
                "not supported by shardlab yet: calling an nnx.custom_vjp function with keyword arguments"
            )));
        }
        let rules = self.rules.borrow().clone();
        Some(match (rules, self.tree) {
            (Some((fwd, bwd)), false) => self.call_graph(interp, args.pos, fwd, bwd),
            (Some((fwd, bwd)), true) => self.call_tree(interp, args.pos, fwd, bwd),
            (None, false) => Err(err!(ValueError, "")),
            (None, true) => Err(err!(
                AttributeError,
                "No VJP defined for custom_vjp function {} using defvjp.",
                func_name(&self.fun)
            )),
        })
    }

    fn callable(&self) -> bool {
        true
    }
}

/// The integer `nondiff_argnums`; `nnx.DiffState` entries are refused.
fn nondiff_argnums(a: &Args) -> Result<Vec<usize>> {
    let Some(o) = a.opt(None, "nondiff_argnums") else {
        return Ok(vec![]);
    };
    let mut out = vec![];
    for x in iterate(&o)? {
        match x {
            Obj::Int(k) if k >= 0 => out.push(k as usize),
            _ => bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.custom_vjp with nondiff_argnums={}",
                repr_of(&o)
            ),
        }
    }
    Ok(out)
}

/// `nnx.custom_vjp(fun, *, nondiff_argnums=(), graph=..., graph_updates=...)`,
/// also as a decorator with options.
fn custom_vjp(st: &Rc<Class>, a: Args) -> Result<Obj> {
    let tree = tree_mode(&a)?;
    let nondiff = nondiff_argnums(&a)?;
    let Some(fun) = a.get(Some(0), "fun") else {
        let (st, kw) = (st.clone(), a.kw.clone());
        return Ok(Obj::native("nnx.custom_vjp", move |_, b| {
            custom_vjp(&st, Args::with(b.pos, kw.clone()))
        }));
    };
    check_unbound(&fun, "custom_vjp")?;
    Ok(Obj::Lib(Rc::new(NnxCustomVjp {
        fun,
        nondiff,
        tree,
        state: st.clone(),
        rules: RefCell::new(None),
    })))
}

pub(super) fn register(b: &mut Builder, state: &Rc<Class>) {
    let st = state.clone();
    b.func("custom_vjp", move |_, a| custom_vjp(&st, a));
}
