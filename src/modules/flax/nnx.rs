//! `flax.nnx`: Rngs, Variables and Params, Linear, Module, grad and
//! value_and_grad over a model's state, and Optimizer.

use super::*;

use super::super::jax::{loss_and_aux_leaves, value_and_aux, AuxDef};
use crate::python::pytree::TreeDef;

// ------------------------------------------------------------------- nnx

/// Variables with their paths in a model.
type PathVars = Vec<(Vec<String>, Rc<Instance>)>;

/// The nnx classes of one interpreter.
#[derive(Clone)]
struct Nnx {
    module: Rc<Class>,
    variable: Rc<Class>,
    param: Rc<Class>,
    state: Rc<Class>,
    opt_state: Rc<Class>,
    opt: super::opt_state::OptClasses,
}

/// The next key of stream `name` of `rngs`, as a typed key object (traced
/// when the stream's key is).
pub(super) fn rngs_next(rngs: &Obj, name: &str) -> Result<Obj> {
    super::rngs::next_key_obj(rngs, name)
}

/// A layer's default draw of a parameter from `key`: on the host, or, while
/// a trace stages a program (a jitted constructor, `eval_shape`), as
/// equations of that program, computed only if it runs.
pub(super) fn default_draw(
    key: &Obj,
    shape: &[usize],
    host: fn(Key, &[usize]) -> Result<crate::array::Array>,
    staged: fn(&Value, &[usize]) -> Result<Value>,
) -> Result<Obj> {
    if let Some((data, _)) = crate::modules::random::staged_single(key, "initializer")? {
        return Ok(Obj::Array(staged(&data, shape)?));
    }
    let key = crate::modules::random::single_key(key, "initializer")?;
    Ok(Obj::Array(Value::Concrete(host(key, shape)?)))
}

/// `Variable(value, **metadata)`: the metadata are kept after the value,
/// in order, and printed with it.
fn variable_init(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Variable")?;
    let v = a.req(Some(1), "value", "Variable")?;
    let v = match &v {
        Obj::Instance(i) if is_variable(i) => iattr(i, "value").unwrap_or(Obj::None),
        _ => v,
    };
    let kw: Vec<(String, Obj)> = a.kw.iter().filter(|(k, _)| k != "value").cloned().collect();
    super::metadata::fill_variable(interp, &me, v, &kw)?;
    Ok(Obj::None)
}

/// `variable[...] = x` replaces an array value by an array of its shape and
/// dtype; anything else (`variable[i] = x`, a Python number, another
/// shape or dtype) is written as `.at[i].set(x)` does, keeping the
/// variable's shape and dtype as Flax does.
fn variable_setitem(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "__setitem__")?;
    let idx = a.req(Some(1), "key", "__setitem__")?;
    let x = a.req(Some(2), "value", "__setitem__")?;
    let v = iattr(&me, "value").unwrap_or(Obj::None);
    if matches!(idx, Obj::Ellipsis) {
        let same = match (&v, &x) {
            (Obj::Array(old), Obj::Array(new)) => {
                old.shape() == new.shape() && old.dtype() == new.dtype()
            }
            (Obj::Array(_), _) => false,
            _ => true,
        };
        if same {
            set_iattr(&me, "value", x);
            return Ok(Obj::None);
        }
    }
    if !matches!(v, Obj::Array(_)) {
        // A container value (a dict of captures) changes in place.
        return crate::python::ops::setitem(&v, idx, x).map(|_| Obj::None);
    }
    let at = crate::python::ops::getattr(interp, &v, "at")?;
    let slot = crate::python::ops::getitem(interp, &at, &idx)?;
    let set = crate::python::ops::getattr(interp, &slot, "set")?;
    let new = interp.call(&set, Args::new(vec![x]))?;
    set_iattr(&me, "value", new);
    Ok(Obj::None)
}

fn variable_getitem(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "__getitem__")?;
    let v = iattr(&me, "value").unwrap_or(Obj::None);
    let idx = a.req(Some(1), "key", "__getitem__")?;
    match (&idx, &v) {
        // Containers are indexed as Python indexes them (`tuple[...]` is a
        // TypeError, as in Flax).
        (_, Obj::Dict(_) | Obj::List(_) | Obj::Tuple(_)) => {
            crate::python::ops::getitem(interp, &v, &idx)
        }
        (Obj::Ellipsis, _) => Ok(v),
        (_, Obj::Array(x)) => Ok(Obj::Array(crate::python::array::array_getitem(x, &idx)?)),
        _ => bail!(TypeError, "'{}' object is not subscriptable", v.type_name()),
    }
}

fn make_param(class: &Rc<Class>, v: Obj) -> Obj {
    instance(class, vec![("value".into(), v)])
}

/// A copy of variable `v` (its class and metadata) holding `value`.
pub(super) fn with_value(v: &Instance, value: Obj) -> Obj {
    let mut attrs = v.attrs.borrow().clone();
    match attrs.iter_mut().find(|(k, _)| k == "value") {
        Some(slot) => slot.1 = value,
        None => attrs.insert(0, ("value".into(), value)),
    }
    instance(&v.class, attrs)
}

/// The variables of a module matching `filter`, with their paths, in the
/// order nnx flattens a state.
pub(super) fn collect_vars(
    o: &Obj,
    path: &mut Vec<String>,
    filter: &dyn Fn(&Rc<Instance>) -> bool,
    out: &mut Vec<(Vec<String>, Rc<Instance>)>,
) {
    collect_vars_at(o, path, &|_, v| filter(v), out);
}

/// [`collect_vars`] with a filter that also sees each variable's path.
pub(super) fn collect_vars_at(
    o: &Obj,
    path: &mut Vec<String>,
    filter: &dyn Fn(&[String], &Rc<Instance>) -> bool,
    out: &mut Vec<(Vec<String>, Rc<Instance>)>,
) {
    match o {
        Obj::Instance(i) if is_variable(i) && filter(path, i) => {
            out.push((path.clone(), i.clone()));
        }
        Obj::Instance(i) if is_variable(i) => {}
        Obj::Instance(i) if is_nnx_module(i) || is_state(i) => {
            let Some(names) = pytree_children(i) else {
                return;
            };
            for n in names {
                if let Some(v) = iattr(i, &n) {
                    path.push(n);
                    collect_vars_at(&v, path, filter, out);
                    path.pop();
                }
            }
        }
        Obj::List(_) | Obj::Tuple(_) => {
            if let Ok(items) = iterate(o) {
                for (k, v) in items.iter().enumerate() {
                    path.push(k.to_string());
                    collect_vars_at(v, path, filter, out);
                    path.pop();
                }
            }
        }
        Obj::Dict(d) => {
            let mut items = d.borrow().items.clone();
            items.sort_by(|a, b| key_order(&str_of(&a.0), &str_of(&b.0)));
            for (k, v) in items {
                path.push(str_of(&k));
                collect_vars_at(&v, path, filter, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Which variables a filter (`nnx.Param`, `...`, a tuple of filters) selects.
type Filter = Rc<dyn Fn(&[String], &Rc<Instance>) -> bool>;

fn filter_fn(f: Option<Obj>, nnx: &Nnx) -> Result<Filter> {
    Ok(match f {
        None => {
            let p = nnx.param.clone();
            Rc::new(move |_: &[String], i: &Rc<Instance>| derives(&i.class, &p))
        }
        Some(f) => {
            let pred = super::filters::to_predicate(&f)?;
            if pred
                .eval_path(&[], &Rc::new(Instance::new(nnx.variable.clone())))
                .is_none()
            {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx filter {} here",
                    repr_of(&f)
                );
            }
            Rc::new(move |path: &[String], i: &Rc<Instance>| {
                pred.eval_path(path, i).unwrap_or(false)
            })
        }
    })
}

/// A nested `nnx.State` from paths and variables.
fn build_state(nnx: &Nnx, mut entries: Vec<(Vec<String>, Obj)>) -> Obj {
    super::graph::sort_paths(&mut entries);
    let root = Rc::new(Instance::with_attrs(nnx.state.clone(), vec![]));
    for (path, v) in entries {
        let mut cur = root.clone();
        for (k, name) in path.iter().enumerate() {
            if k + 1 == path.len() {
                set_iattr(&cur, name, v.clone());
            } else {
                let next = match iattr(&cur, name) {
                    Some(Obj::Instance(s)) if is_state(&s) => s,
                    _ => {
                        let s = Rc::new(Instance::with_attrs(nnx.state.clone(), vec![]));
                        set_iattr(&cur, name, Obj::Instance(s.clone()));
                        s
                    }
                };
                cur = next;
            }
        }
    }
    Obj::Instance(root)
}

fn snapshot_state(
    nnx: &Nnx,
    model: &Obj,
    filter: &dyn Fn(&[String], &Rc<Instance>) -> bool,
) -> Obj {
    let mut vars = vec![];
    collect_vars_at(model, &mut vec![], filter, &mut vars);
    build_state(
        nnx,
        vars.into_iter()
            .map(|(p, v)| {
                let value = iattr(&v, "value").unwrap_or(Obj::None);
                (p, with_value(&v, value))
            })
            .collect(),
    )
}

/// What one differentiated argument contributes: its values, the def to
/// rebuild it from them (none for a module, whose `Param`s are set in
/// place) and a module's variables.
struct GradTarget {
    argnum: usize,
    diff: Vec<Value>,
    def: Option<TreeDef>,
    vars: PathVars,
}

/// The differentiated arguments of a call.
fn grad_targets(nnx: &Nnx, call: &Args, argnums: &[usize]) -> Result<Vec<GradTarget>> {
    let mut targets = vec![];
    for &argnum in argnums {
        let Some(target) = call.pos.get(argnum).cloned() else {
            bail!(
                TypeError,
                "differentiating with respect to argnums={argnum} requires at least {} positional arguments",
                argnum + 1
            );
        };
        let (diff, def, vars) = grad_inputs(nnx, &target)?;
        targets.push(GradTarget {
            argnum,
            diff,
            def,
            vars,
        });
    }
    Ok(targets)
}

/// Each differentiated argument's gradient from the flat `grads`: a state
/// of its `Param`s for a module, else a pytree like it.
fn target_grads(nnx: &Nnx, targets: &[GradTarget], grads: &[Value]) -> Result<Vec<Obj>> {
    let mut out = vec![];
    let mut at = 0;
    for t in targets {
        let mine = &grads[at..at + t.diff.len()];
        at += t.diff.len();
        out.push(match &t.def {
            Some(def) => unflatten_known(def, &value_objs(mine))?,
            None => build_state(
                nnx,
                t.vars
                    .iter()
                    .zip(mine)
                    .map(|((p, v), g)| (p.clone(), with_value(v, Obj::Array(g.clone()))))
                    .collect(),
            ),
        });
    }
    Ok(out)
}

/// nnx.grad / nnx.value_and_grad: (value, aux, one gradient per argnum).
fn nnx_grad_call(
    interp: &mut Interp,
    nnx: &Nnx,
    f: &Obj,
    argnums: &[usize],
    has_aux: bool,
    call: Args,
) -> Result<(Obj, Obj, Vec<Obj>)> {
    let targets = grad_targets(nnx, &call, argnums)?;
    let all_vars: PathVars = targets.iter().flat_map(|t| t.vars.clone()).collect();
    let diff: Vec<Value> = targets.iter().flat_map(|t| t.diff.clone()).collect();
    // The model's variables are set to the traced inputs during the call;
    // their values are put back afterwards, whether the call failed or not.
    let originals: Vec<Obj> = all_vars
        .iter()
        .map(|(_, v)| iattr(v, "value").unwrap_or(Obj::None))
        .collect();
    let others = other_vars(&call.pos, &all_vars);
    let aux_def = AuxDef::default();
    let written = RefCell::new(vec![]);
    let indices: Vec<usize> = (0..diff.len()).collect();
    let r = {
        let (targets, call, aux_def) = (&targets, &call, &aux_def);
        let (others, written) = (&others, &written);
        // The function is traced with the interpreter, then the program
        // runs with it lent to its host callbacks: two borrows in turn.
        let cell = RefCell::new(&mut *interp);
        let body = |vals: &[Value]| -> Result<Vec<Value>> {
            let mut guard = cell.borrow_mut();
            let interp: &mut Interp = &mut guard;
            let mut args = call.pos.clone();
            let mut at = 0;
            for t in targets {
                let mine = &vals[at..at + t.diff.len()];
                at += t.diff.len();
                match &t.def {
                    None => {
                        for ((_, v), x) in t.vars.iter().zip(mine) {
                            set_iattr(v, "value", Obj::Array(x.clone()));
                        }
                    }
                    Some(def) => args[t.argnum] = unflatten_known(def, &value_objs(mine))?,
                }
            }
            // The function runs on the caller's modules, which belong to
            // this trace for its duration.
            let out = super::trace_level::at_nnx_level(|| {
                interp.call(f, Args::with(args, call.kw.clone()))
            })?;
            let (loss, aux) = split_aux(out, has_aux)?;
            let mut flat = loss_and_aux_leaves(interp, scalar_loss(&loss)?, aux, aux_def)?;
            flat.extend(traced_writes(others, &mut written.borrow_mut()));
            Ok(flat)
        };
        let lend = |jaxpr: &crate::ir::Jaxpr,
                    eval: &mut dyn FnMut() -> crate::transforms::Evaluated| {
            crate::modules::jax::lend_to_callbacks(&cell, jaxpr, eval)
        };
        crate::transforms::value_and_grad_lending(body, &diff, &indices, false, &lend)
    };
    crate::modules::debug_print::show_eager_prints(interp)?;
    for ((_, v), o) in all_vars.iter().zip(originals) {
        set_iattr(v, "value", o);
    }
    let (outs, grads) = carry_writes(r, &others, &written.into_inner())?;
    let (value, aux) = value_and_aux(interp, &outs, &aux_def)?;
    let out = target_grads(nnx, &targets, &grads)?;
    Ok((value, aux, out))
}

/// The variables of the modules among `args` that are not differentiated,
/// each with its value before the call: a call may write into them (a
/// BatchNorm its running statistics), and what it writes must leave the
/// trace.
fn other_vars(args: &[Obj], diff: &PathVars) -> Vec<(Rc<Instance>, Obj)> {
    let mut all = vec![];
    for a in args {
        collect_vars(a, &mut vec![], &|_| true, &mut all);
    }
    let mut seen: Vec<*const Instance> = diff.iter().map(|(_, v)| Rc::as_ptr(v)).collect();
    let mut out = vec![];
    for (_, v) in all {
        if !seen.contains(&Rc::as_ptr(&v)) {
            seen.push(Rc::as_ptr(&v));
            let before = iattr(&v, "value").unwrap_or(Obj::None);
            out.push((v, before));
        }
    }
    out
}

/// What the call wrote into the other variables left the trace as extra
/// outputs, after the loss and aux: the variables take those values, as in
/// Flax, and the outputs lose them. A failed call leaves every other
/// variable as it was before.
fn carry_writes(
    r: Result<(Vec<Value>, Vec<Value>)>,
    others: &[(Rc<Instance>, Obj)],
    written: &[Rc<Instance>],
) -> Result<(Vec<Value>, Vec<Value>)> {
    let (mut outs, grads) = match r {
        Ok(r) => r,
        Err(e) => {
            for (v, before) in others {
                set_iattr(v, "value", before.clone());
            }
            return Err(e);
        }
    };
    let kept = outs.len().saturating_sub(written.len());
    for (v, x) in written.iter().zip(outs.split_off(kept)) {
        set_iattr(v, "value", Obj::Array(x));
    }
    Ok((outs, grads))
}

/// The traced values the call wrote into `others`, noting in `written`
/// which variables hold them.
fn traced_writes(others: &[(Rc<Instance>, Obj)], written: &mut Vec<Rc<Instance>>) -> Vec<Value> {
    written.clear();
    let mut values = vec![];
    for (v, _) in others {
        if let Some(Obj::Array(x @ Value::Traced(_))) = iattr(v, "value") {
            written.push(v.clone());
            values.push(x);
        }
    }
    values
}

/// The values to differentiate for `target`: a module's `Param`s (with the
/// variables that hold them), or else the leaves of the pytree with its def.
fn grad_inputs(nnx: &Nnx, target: &Obj) -> Result<(Vec<Value>, Option<TreeDef>, PathVars)> {
    let mut vars = vec![];
    if matches!(target, Obj::Instance(i) if is_nnx_module(i)) {
        let filter = filter_fn(None, nnx)?;
        collect_vars_at(target, &mut vec![], &*filter, &mut vars);
        let vals: Vec<Value> = vars
            .iter()
            .map(|(_, v)| to_value(&iattr(v, "value").unwrap_or(Obj::None)))
            .collect::<Result<_>>()?;
        Ok((vals, None, vars))
    } else {
        let (leaves, def) = flatten_known(target)?;
        Ok((leaf_values(&leaves)?, Some(def), vars))
    }
}

/// The loss as a scalar value; anything else is the error JAX raises.
fn scalar_loss(loss: &Obj) -> Result<Value> {
    let loss = match loss {
        Obj::Array(_) | Obj::Float(_) | Obj::Int(_) => to_value(loss)?,
        other => bail!(
            TypeError,
            "Gradient only defined for scalar-output functions. Output was {}",
            repr_of(other)
        ),
    };
    if !loss.shape().is_empty() {
        bail!(
            TypeError,
            "Gradient only defined for scalar-output functions. Output had shape: {:?}",
            loss.shape()
        );
    }
    Ok(loss)
}

fn grad_factory(nnx: &Nnx, a: &Args, with_value: bool) -> Result<Obj> {
    let name = if with_value { "value_and_grad" } else { "grad" };
    let (argnums, many) = match a.get(Some(1), "argnums") {
        None => (vec![0], false),
        Some(Obj::Int(i)) if i >= 0 => (vec![i as usize], false),
        Some(o @ Obj::Tuple(_)) => {
            let mut v = vec![];
            for x in iterate(&o)? {
                match x {
                    Obj::Int(i) if i >= 0 && !v.contains(&(i as usize)) => v.push(i as usize),
                    _ => bail!(
                        NotImplementedError,
                        "not supported by shardlab yet: nnx.{name} with argnums={}",
                        repr_of(&o)
                    ),
                }
            }
            (v, true)
        }
        Some(o) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.{name} with argnums={}",
            repr_of(&o)
        ),
    };
    let has_aux = match a.get(Some(2), "has_aux") {
        Some(o) => truthy(&o, "has_aux")?,
        None => false,
    };
    if a.opt(None, "wrt").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.grad with wrt"
        );
    }
    let make = move |nnx: Nnx, f: Obj| {
        let argnums = argnums.clone();
        Obj::native("nnx.grad", move |i, call| {
            let (v, aux, mut g) = nnx_grad_call(i, &nnx, &f, &argnums, has_aux, call)?;
            let g = if many {
                Obj::tuple(g)
            } else {
                g.pop().unwrap_or(Obj::None)
            };
            Ok(if with_value {
                let value = if has_aux { Obj::tuple(vec![v, aux]) } else { v };
                Obj::tuple(vec![value, g])
            } else if has_aux {
                Obj::tuple(vec![g, aux])
            } else {
                g
            })
        })
    };
    let nnx = nnx.clone();
    match a.get(Some(0), "f") {
        Some(f) => Ok(make(nnx, f)),
        // `@nnx.grad(argnums=...)`: the function comes next.
        None => Ok(Obj::native("nnx.grad", move |_, b| {
            Ok(make(nnx.clone(), b.req(Some(0), "f", "grad")?))
        })),
    }
}

fn linear_init(nnx: &Nnx) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let nnx = nnx.clone();
    move |interp, a| {
        let me = self_arg(&a, "Linear")?;
        let din = to_int(&a.req(Some(1), "in_features", "Linear")?)?;
        let dout = to_int(&a.req(Some(2), "out_features", "Linear")?)?;
        if din < 0 || dout < 0 {
            bail!(ValueError, "negative dimensions are not allowed");
        }
        let use_bias = match a.get(None, "use_bias") {
            Some(o) => truthy(&o, "use_bias")?,
            None => true,
        };
        let rngs = a.req(None, "rngs", "Linear")?;
        let shape_k = Obj::tuple(vec![Obj::Int(din), Obj::Int(dout)]);
        let kernel = match a.opt(None, "kernel_init") {
            None => default_draw(
                &rngs_next(&rngs, "params")?,
                &[din as usize, dout as usize],
                crate::random::initializers::lecun_normal,
                crate::random::traced_init::lecun_normal,
            )?,
            Some(init) => {
                let k = rngs_next(&rngs, "params")?;
                interp.call(&init, Args::new(vec![k, shape_k, super::jnp_float32()]))?
            }
        };
        let bias = if use_bias {
            let k = rngs_next(&rngs, "params")?;
            Some(match a.opt(None, "bias_init") {
                None => Obj::Array(Value::Concrete(crate::random::initializers::zeros(&[
                    dout as usize,
                ])?)),
                Some(init) => interp.call(
                    &init,
                    Args::new(vec![
                        k,
                        Obj::tuple(vec![Obj::Int(dout)]),
                        super::jnp_float32(),
                    ]),
                )?,
            })
        } else {
            None
        };
        let kernel = super::metadata::new_variable(interp, &nnx.param, kernel, &[])?;
        set_iattr(&me, "kernel", kernel);
        let bias = match bias {
            Some(b) => super::metadata::new_variable(interp, &nnx.param, b, &[])?,
            None => Obj::None,
        };
        set_iattr(&me, "bias", bias);
        set_iattr(&me, "in_features", Obj::Int(din));
        set_iattr(&me, "out_features", Obj::Int(dout));
        set_iattr(&me, "use_bias", Obj::Bool(use_bias));
        layer_defaults(&me);
        Ok(Obj::None)
    }
}

/// The dtype and contraction attributes every nnx layer has, at the
/// defaults shardlab runs with (float32, default precision).
fn layer_defaults(me: &Instance) {
    use super::display::FunctionRef;
    set_iattr(me, "dtype", Obj::None);
    set_iattr(me, "param_dtype", super::jnp_float32());
    set_iattr(me, "precision", Obj::None);
    set_iattr(me, "dot_general", Obj::lib(FunctionRef("dot_general")));
    set_iattr(me, "promote_dtype", Obj::lib(FunctionRef("promote_dtype")));
    set_iattr(me, "preferred_element_type", Obj::None);
}

pub(super) fn value_of(o: &Obj) -> Result<Value> {
    match o {
        Obj::Instance(i) if is_variable(i) => to_value(&iattr(i, "value").unwrap_or(Obj::None)),
        other => to_value(other),
    }
}

/// `y = x @ kernel + bias` over the last axis of `x`, as Dense/Linear do.
pub fn dense_apply(x: &Value, kernel: &Value, bias: Option<&Value>) -> Result<Value> {
    let x = if x.dtype() == DType::F32 {
        x.clone()
    } else {
        jops::convert(x, DType::F32)?
    };
    if x.ndim() == 0 {
        bail!(
            TypeError,
            "dot_general requires at least one dimension in the input"
        );
    }
    let kin = kernel.shape().first().copied().unwrap_or(0);
    let xin = x.shape()[x.ndim() - 1];
    if kin != xin {
        bail!(
            TypeError,
            "dot_general requires contracting dimensions to have the same shape, got ({xin},) and ({kin},)."
        );
    }
    let y = jops::dot_general(&x, kernel, (&[x.ndim() - 1], &[0]), (&[], &[]))?;
    match bias {
        None => Ok(y),
        Some(b) => {
            let mut shape = vec![1; y.ndim().saturating_sub(1)];
            shape.push(b.shape().iter().product());
            jops::add(&y, &jops::reshape(b, &shape)?)
        }
    }
}

fn linear_call(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Linear.__call__")?;
    let x = to_value(&a.req(Some(1), "inputs", "Linear.__call__")?)?;
    let k = value_of(&iattr(&me, "kernel").unwrap_or(Obj::None))?;
    let b = match iattr(&me, "bias") {
        Some(Obj::None) | None => None,
        Some(b) => Some(value_of(&b)?),
    };
    Ok(Obj::Array(dense_apply(&x, &k, b.as_ref())?))
}

fn optimizer_init(nnx: &Nnx) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let nnx = nnx.clone();
    move |interp, a| {
        let me = self_arg(&a, "Optimizer")?;
        let model = a.req(Some(1), "model", "Optimizer")?;
        let tx = a.req(Some(2), "tx", "Optimizer")?;
        let Some(wrt) = a.get(None, "wrt") else {
            bail!(
                TypeError,
                "Missing required argument `wrt`. As of Flax 0.11.0 the `wrt` argument is required, if you want to keep the previous use nnx.ModelAndOptimizer instead of nnx.Optimizer."
            );
        };
        let filter = filter_fn(Some(wrt.clone()), &nnx)?;
        let params = snapshot_state(&nnx, &model, &*filter);
        let init = crate::python::ops::getattr(interp, &tx, "init")?;
        let opt_state = interp.call(&init, Args::new(vec![params]))?;
        let opt_state = super::opt_state::to_opt_state(interp, &nnx.opt, &opt_state)?;
        set_iattr(
            &me,
            "step",
            make_param(
                &nnx.opt_state,
                // Flax counts steps in uint32.
                Obj::Array(Value::Concrete(crate::array::Array::full(
                    &[],
                    0.0,
                    crate::array::DType::U32,
                ))),
            ),
        );
        set_iattr(&me, "tx", tx);
        set_iattr(&me, "opt_state", opt_state);
        set_iattr(&me, "wrt", wrt);
        Ok(Obj::None)
    }
}

fn optimizer_update(nnx: &Nnx) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let nnx = nnx.clone();
    move |interp, a| {
        let me = self_arg(&a, "Optimizer.update")?;
        let model = a.req(Some(1), "model", "update")?;
        let grads = a.req(Some(2), "grads", "update")?;
        if !matches!(&model, Obj::Instance(i) if is_nnx_module(i)) {
            bail!(
                TypeError,
                "Optimizer.update(model, grads) expects the model first, got {}",
                model.type_name()
            );
        }
        let filter = filter_fn(iattr(&me, "wrt"), &nnx)?;
        let mut vars = vec![];
        collect_vars_at(&model, &mut vec![], &*filter, &mut vars);
        let params = snapshot_state(&nnx, &model, &*filter);
        let tx = iattr(&me, "tx").unwrap_or(Obj::None);
        let update = crate::python::ops::getattr(interp, &tx, "update")?;
        let opt_state = iattr(&me, "opt_state").unwrap_or(Obj::None);
        // The gradients are narrowed to the optimized variables, as Flax
        // takes `nnx.state(grads, wrt)`; tx sees pure arrays, and extra
        // keywords go to `tx.update`.
        let grads = match &grads {
            Obj::Instance(g) if is_state(g) => snapshot_state(&nnx, &grads, &*filter),
            _ => grads,
        };
        let grads = super::opt_state::as_pure(interp, &grads)?;
        let params = super::opt_state::as_pure(interp, &params)?;
        let pure_state = super::opt_state::as_pure(interp, &opt_state)?;
        let r = interp.call(
            &update,
            Args::with(vec![grads, pure_state, params.clone()], a.kw.clone()),
        )?;
        let parts = iterate(&r)?;
        if parts.len() != 2 {
            bail!(TypeError, "tx.update must return (updates, state)");
        }
        let (p_leaves, _) = flatten_known(&params)?;
        let (u_leaves, _) = flatten_known(&parts[0])?;
        if p_leaves.len() != u_leaves.len() || p_leaves.len() != vars.len() {
            bail!(
                ValueError,
                "the gradients have {} leaves but the model has {} parameters",
                u_leaves.len(),
                vars.len()
            );
        }
        for (((_, var), p), u) in vars.iter().zip(&p_leaves).zip(&u_leaves) {
            let (p, u) = (to_value(p)?, to_value(u)?);
            let new = jops::convert(&jops::add(&p, &u)?, p.dtype())?;
            set_iattr(var, "value", Obj::Array(new));
        }
        super::opt_state::update_opt_state(interp, &opt_state, &parts[1])?;
        if let Some(Obj::Instance(step)) = iattr(&me, "step") {
            let s = to_value(&iattr(&step, "value").unwrap_or(Obj::Int(0)))?;
            let s = jops::add(&s, &jops::scalar(1.0, s.dtype()))?;
            set_iattr(&step, "value", Obj::Array(s));
        }
        // Flax hands tx pure arrays, so the updates it returns hold no
        // variables.
        Ok(build_state(
            &nnx,
            vars.iter().map(|(p, _)| p.clone()).zip(u_leaves).collect(),
        ))
    }
}

fn state_getitem(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "State.__getitem__")?;
    let k = a.req(Some(1), "key", "__getitem__")?;
    let name = str_of(&k);
    iattr(&me, &name).ok_or_else(|| err!(KeyError, "{}", repr_of(&k)))
}

/// A State's entries in the order they were made, as Flax's mapping
/// keeps them.
fn state_items(me: &Instance) -> Vec<(String, Obj)> {
    me.attrs.borrow().clone()
}

fn key_obj_of(k: &str) -> Obj {
    match k.parse::<i64>() {
        Ok(i) => Obj::Int(i),
        Err(_) => Obj::str(k),
    }
}

/// Flax's in-place operators on a variable, each refused with the advice
/// Flax gives (its wording, stray backticks included).
const IN_PLACE: &[(&str, &str)] = &[
    ("__iadd__", "`variable[...] += x`"),
    ("__isub__", "`variable[...] -= x`"),
    ("__imul__", "`variable[...] *= x`"),
    ("__imatmul__", "`variable.value @= x`"),
    ("__itruediv__", "`variable.value /= x`"),
    ("__ifloordiv__", "`variable.value //= x``"),
    ("__imod__", "`variable.value %= x`"),
    ("__ipow__", "`variable.value **= x``"),
    ("__ilshift__", "`variable.value <<= x``"),
    ("__irshift__", "`variable.value >>= x``"),
    ("__iand__", "`variable.value &= x`"),
    ("__ixor__", "`variable.value ^= x`"),
    ("__ior__", "`variable.value |= x`"),
];

fn in_place_refusals() -> Vec<(String, Obj)> {
    IN_PLACE
        .iter()
        .map(|&(name, advice)| {
            let f = Obj::native(name, move |_, _| {
                bail!(
                    NotImplementedError,
                    "In-place operations are no longer supported for Variable.\nUse {advice} instead."
                )
            });
            (name.to_string(), f)
        })
        .collect()
}

/// `nnx.Variable`, the base of `Param` and the other variable kinds: it
/// holds its array in the attribute `value`.
fn variable_class() -> Rc<Class> {
    let mut methods = in_place_refusals();
    methods.extend(variable_methods());
    nnx_root_class("Variable", methods)
}

/// Flax's texts for the deprecated `.value` property.
const VALUE_GET_DEPRECATED: &str = "'.value' access is now deprecated. For Variable[Array] \
    instances use:\n\n  variable[...]\n\nFor other Variable types use:\n\n  variable.get_value()\n";
const VALUE_SET_DEPRECATED: &str = "'.value' setter is now deprecated. For Variable[Array] \
    instances use:\n\n  variable[...] = value\n\nFor other Variable types use:\n\n  \
    variable.set_value(value)\n";

/// `variable.value`, read and assigned: it works, with Flax's
/// DeprecationWarning. Reading warns from the program's line (shown once
/// per line); assigning goes through `Variable.__setattr__` in Flax, so its
/// warning comes from Flax's code, which the default filters hide.
fn value_property() -> Obj {
    let fget = Obj::native("Variable.value", |i, a| {
        let me = self_arg(&a, "value")?;
        let place = crate::modules::std::warnings::Place::Program(1);
        crate::modules::std::warnings::warn(i, "DeprecationWarning", VALUE_GET_DEPRECATED, place)?;
        Ok(iattr(&me, "value").unwrap_or(Obj::None))
    });
    let fset = Obj::native("Variable.value", |i, a| {
        let me = self_arg(&a, "value")?;
        let v = a.req(Some(1), "value", "value")?;
        // The line of `object.__setattr__` in Flax 0.12.8's Variable.
        let place = crate::modules::std::warnings::Place::Library("flax.nnx.variablelib", 1410);
        crate::modules::std::warnings::warn(i, "DeprecationWarning", VALUE_SET_DEPRECATED, place)?;
        set_iattr(&me, "value", v);
        Ok(Obj::None)
    });
    Obj::lib(crate::python::classes::Property {
        fget,
        fset: Some(fset),
    })
}

fn variable_methods() -> Vec<(String, Obj)> {
    vec![
        ("__nnx_variable__".into(), Obj::Bool(true)),
        ("value".into(), value_property()),
        ("hijax".into(), super::var_modes::variable_mode("hijax")),
        ("ref".into(), super::var_modes::variable_mode("ref")),
        ("__module__".into(), Obj::str("flax.nnx.variablelib")),
        (
            "__init__".into(),
            Obj::native("Variable.__init__", variable_init),
        ),
        (
            "__getitem__".into(),
            Obj::native("Variable.__getitem__", variable_getitem),
        ),
        (
            "__setitem__".into(),
            Obj::native("Variable.__setitem__", variable_setitem),
        ),
        (
            "__getattr__".into(),
            Obj::native("Variable.__getattr__", |interp, a| {
                // Other attributes are the value's (`param.shape`).
                let me = self_arg(&a, "__getattr__")?;
                let name = str_of(&a.req(Some(1), "name", "__getattr__")?);
                if name.starts_with("__") && name.ends_with("__") {
                    bail!(
                        AttributeError,
                        "'{}' object has no attribute '{name}'",
                        me.class.name
                    );
                }
                let v = iattr(&me, "value").unwrap_or(Obj::None);
                crate::python::ops::getattr(interp, &v, &name)
            }),
        ),
        (
            "get_metadata".into(),
            Obj::native("Variable.get_metadata", super::metadata::get_metadata),
        ),
        (
            "get_value".into(),
            Obj::native("Variable.get_value", |_, a| {
                let me = self_arg(&a, "get_value")?;
                Ok(iattr(&me, "value").unwrap_or(Obj::None))
            }),
        ),
        (
            "replace".into(),
            Obj::native("Variable.replace", super::pure_dict::variable_replace),
        ),
        (
            "set_value".into(),
            Obj::native("Variable.set_value", |_, a| {
                let me = self_arg(&a, "set_value")?;
                set_iattr(&me, "value", a.req(Some(1), "value", "set_value")?);
                Ok(Obj::None)
            }),
        ),
    ]
}

/// `nnx.State`: a nested mapping of variables, read like a dict.
fn state_class() -> Rc<Class> {
    nnx_root_class(
        "State",
        vec![
            ("__nnx_state__".into(), Obj::Bool(true)),
            (
                "__getitem__".into(),
                Obj::native("State.__getitem__", state_getitem),
            ),
            (
                "keys".into(),
                Obj::native("State.keys", |_, a| {
                    let me = self_arg(&a, "keys")?;
                    Ok(Obj::list(
                        state_items(&me)
                            .iter()
                            .map(|(k, _)| key_obj_of(k))
                            .collect(),
                    ))
                }),
            ),
            (
                "values".into(),
                Obj::native("State.values", |_, a| {
                    let me = self_arg(&a, "values")?;
                    Ok(Obj::list(
                        state_items(&me).into_iter().map(|(_, v)| v).collect(),
                    ))
                }),
            ),
            (
                "items".into(),
                Obj::native("State.items", |_, a| {
                    let me = self_arg(&a, "items")?;
                    Ok(Obj::list(
                        state_items(&me)
                            .into_iter()
                            .map(|(k, v)| Obj::tuple(vec![key_obj_of(&k), v]))
                            .collect(),
                    ))
                }),
            ),
        ],
    )
}

fn linear_class(nnx: &Nnx) -> Rc<Class> {
    new_class(
        "Linear",
        vec![nnx.module.clone()],
        vec![
            (
                "__init__".into(),
                Obj::native("Linear.__init__", linear_init(nnx)),
            ),
            (
                "__call__".into(),
                Obj::native("Linear.__call__", linear_call),
            ),
        ],
    )
}

/// `nnx.Sequential(*layers)`: calls the layers in turn, the keyword
/// arguments going to each.
fn sequential_class(module: &Rc<Class>) -> Rc<Class> {
    new_class(
        "Sequential",
        vec![module.clone()],
        vec![
            (
                "__init__".into(),
                Obj::native("Sequential.__init__", |_, a| {
                    let me = self_arg(&a, "Sequential")?;
                    set_iattr(&me, "layers", super::pytree::nnx_list(a.pos[1..].to_vec()));
                    Ok(Obj::None)
                }),
            ),
            (
                "__call__".into(),
                Obj::native("Sequential.__call__", sequential_call),
            ),
        ],
    )
}

fn sequential_call(i: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Sequential.__call__")?;
    let layers = iterate(&iattr(&me, "layers").unwrap_or(Obj::list(vec![])))?;
    let mut args = a.pos[1..].to_vec();
    for l in layers {
        let out = i.call(&l, Args::with(args, a.kw.clone()))?;
        args = vec![out];
    }
    Ok(args.pop().unwrap_or(Obj::None))
}

fn optimizer_class(nnx: &Nnx) -> Rc<Class> {
    new_class(
        "Optimizer",
        vec![nnx.module.clone()],
        vec![
            (
                "__init__".into(),
                Obj::native("Optimizer.__init__", optimizer_init(nnx)),
            ),
            (
                "update".into(),
                Obj::native("Optimizer.update", optimizer_update(nnx)),
            ),
        ],
    )
}

/// `nnx.grad`, `nnx.value_and_grad` and `nnx.jit` (see `nnx_jit`).
fn register_transforms(b: &mut Builder, nnx: &Nnx) {
    let n1 = nnx.clone();
    b.func("grad", move |_, a| grad_factory(&n1, &a, false));
    let n2 = nnx.clone();
    b.func("value_and_grad", move |_, a| grad_factory(&n2, &a, true));
    b.func("jit", super::nnx_jit::nnx_jit);
    b.func("cached_partial", cached_partial);
}

/// `nnx.cached_partial(f, *cached_args)`: `f` with its first arguments
/// bound. Flax caches the traversal of the bound graph nodes to save Python
/// time; the objects stay shared, so their updates show either way, and
/// shardlab (whose nnx.jit runs eagerly on them) binds them as they are.
fn cached_partial(_: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "f", "cached_partial")?;
    for flag in ["graph", "graph_updates"] {
        if a.kw
            .iter()
            .any(|(k, v)| k == flag && !matches!(v, Obj::None))
        {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.cached_partial({flag}=...)"
            );
        }
    }
    let bound: Vec<Obj> = a.pos.get(1..).unwrap_or_default().to_vec();
    Ok(Obj::native("cached_partial", move |interp, call| {
        let mut pos = bound.clone();
        pos.extend(call.pos);
        interp.call(&f, Args::with(pos, call.kw))
    }))
}

/// Builds `flax.nnx`.
/// `nnx.nn.linear`'s default initializers, which programs reach for by
/// that path (`nnx.nn.linear.default_kernel_init`): the kernel's is
/// `lecun_normal()`, the bias's `zeros`.
fn nn_package(interp: &mut Interp, inits: &Obj) -> Result<Obj> {
    let lecun = crate::python::ops::getattr(interp, inits, "lecun_normal")?;
    let kernel = interp.call(&lecun, Args::default())?;
    let zeros = crate::python::ops::getattr(interp, inits, "zeros")?;
    let linear = Builder::new("flax.nnx.nn.linear")
        .attr("default_kernel_init", kernel)
        .attr("default_bias_init", zeros)
        .build();
    Ok(Builder::new("flax.nnx.nn").attr("linear", linear).build())
}

pub fn nnx_module(interp: &mut Interp) -> Result<Obj> {
    let pytree = super::pytree::pytree_class();
    let module = new_class(
        "Module",
        vec![pytree.clone()],
        super::attributes::module_methods(),
    );
    let variable = variable_class();
    let param = variable_subclass(&variable, "Param");
    let (lora_param, lora) = super::lora::lora_classes(&module, &param);
    let batch_stat = variable_subclass(&variable, "BatchStat");
    let opt_state = variable_subclass(&variable, "OptState");
    let intermediate = variable_subclass(&variable, "Intermediate");
    let variable_for_capture = variable.clone();
    let perturbation = new_class(
        "Perturbation",
        vec![intermediate.clone()],
        vec![("__module__".into(), Obj::str("flax.nnx.variablelib"))],
    );
    let cache = variable_subclass(&variable, "Cache");
    let state = state_class();
    let opt = super::opt_state::opt_classes(&opt_state);
    let norms = super::norm::NormClasses {
        module: module.clone(),
        param: param.clone(),
        batch_stat: batch_stat.clone(),
    };
    let rc = super::rngs::rng_classes(&pytree, &variable);
    let nnx = Nnx {
        module: module.clone(),
        variable: variable.clone(),
        param: param.clone(),
        state: state.clone(),
        opt_state: opt_state.clone(),
        opt: opt.clone(),
    };
    let (metrics, multi_metric, metric) = super::metrics::metrics_module(&pytree, &variable);
    let bridge = bridge_package(interp, &module, &param, &rc.rngs)?;
    let linear = linear_class(&nnx);
    let recurrent = super::recurrent::RecurrentClasses {
        module: module.clone(),
        linear: linear.clone(),
        rngs: rc.rngs.clone(),
        stream: rc.stream.clone(),
    };
    let mut b = Builder::new("flax.nnx");
    b.attr("Module", Obj::Class(module.clone()))
        .attr("bridge", bridge)
        .attr("metrics", metrics)
        .attr("MultiMetric", multi_metric)
        .attr("Metric", metric)
        .attr("Object", Obj::Class(super::pytree::object_class(&pytree)))
        .attr("Pytree", Obj::Class(pytree))
        .attr("Variable", Obj::Class(variable))
        .attr("Param", Obj::Class(param))
        .attr("LoRAParam", Obj::Class(lora_param))
        .attr("LoRA", Obj::Class(lora))
        .attr("BatchStat", Obj::Class(batch_stat))
        .attr("OptState", Obj::Class(opt_state))
        .attr("OptArray", Obj::Class(opt.opt_array))
        .attr("OptVariable", Obj::Class(opt.opt_variable))
        .attr("Intermediate", Obj::Class(intermediate))
        .attr("Perturbation", Obj::Class(perturbation.clone()))
        .attr("Cache", Obj::Class(cache))
        .attr("State", Obj::Class(state.clone()))
        .attr("Linear", Obj::Class(linear.clone()))
        .attr("Sequential", Obj::Class(sequential_class(&module)))
        .attr("Dropout", Obj::Class(super::rngs::dropout_class(&module)))
        .attr("Optimizer", Obj::Class(optimizer_class(&nnx)))
        .attr("EMA", Obj::Class(super::ema::ema_class(&module, &state)));
    register_rngs(&mut b, &rc);
    let capture = super::capture::CaptureClasses {
        variable: variable_for_capture,
        perturbation,
        state: state.clone(),
    };
    register_functions(interp, &mut b, &nnx, &norms, &recurrent, capture)?;
    let _ = (&nnx.module, &nnx.variable);
    Ok(super::class_modules::with_modules(b.build()))
}

/// A subclass of `Variable` that `flax.nnx.variablelib` defines.
fn variable_subclass(variable: &Rc<Class>, name: &str) -> Rc<Class> {
    new_class(
        name,
        vec![variable.clone()],
        vec![("__module__".into(), Obj::str("flax.nnx.variablelib"))],
    )
}

/// `nnx.bridge`, which wraps linen modules as nnx ones.
fn bridge_package(
    interp: &mut Interp,
    module: &Rc<Class>,
    param: &Rc<Class>,
    rngs: &Rc<Class>,
) -> Result<Obj> {
    let linen = crate::modules::import(interp, "flax.linen")?;
    let Obj::Class(linen_module) = crate::python::ops::getattr(interp, &linen, "Module")? else {
        bail!(TypeError, "flax.linen.Module is not a class");
    };
    Ok(super::bridge::bridge_module(
        module,
        param,
        Obj::Class(rngs.clone()),
        &linen_module,
    ))
}

/// The classes of nnx's random streams.
fn register_rngs(b: &mut Builder, rc: &super::rngs::RngClasses) {
    b.attr("Rngs", Obj::Class(rc.rngs.clone()))
        .attr("RngStream", Obj::Class(rc.stream.clone()))
        .attr("RngState", Obj::Class(rc.rng_state.clone()))
        .attr("RngKey", Obj::Class(rc.key.clone()))
        .attr("RngCount", Obj::Class(rc.count.clone()));
}

/// nnx's functions and layers beyond the core classes, family by family.
fn register_functions(
    interp: &mut Interp,
    b: &mut Builder,
    nnx: &Nnx,
    norms: &super::norm::NormClasses,
    recurrent: &super::recurrent::RecurrentClasses,
    capture: super::capture::CaptureClasses,
) -> Result<()> {
    crate::modules::nn::add_activations(b);
    let inits = crate::modules::nn::initializers_module("flax.nnx.initializers");
    b.attr("nn", nn_package(interp, &inits)?);
    b.attr("initializers", inits);
    // The key of a transform's metadata that names the mapped mesh axis.
    b.attr("PARTITION_NAME", Obj::str("partition_name"));
    register_transforms(b, nnx);
    super::norm::register(b, norms);
    super::group_norm::register(b, norms);
    super::recurrent::register(b, recurrent);
    super::conv::register(b, norms);
    super::attention::register(b, &nnx.module, &nnx.param);
    super::masks::register(b);
    b.attr("traversals", super::traverse_util::traversals_module());
    register_metadata(b);
    register_families(b, &nnx.state);
    super::capture::register(b, &nnx.module, &capture);
    Ok(())
}

/// Variable metadata: `VariableMetadata`, `with_metadata`,
/// `with_partitioning` and eager sharding.
fn register_metadata(b: &mut Builder) {
    let metadata_class = super::metadata::variable_metadata_class();
    b.attr("VariableMetadata", Obj::Class(metadata_class.clone()));
    b.func("as_pure", |interp, a| {
        super::opt_state::as_pure(interp, &a.req(Some(0), "tree", "as_pure")?)
    });
    let with_metadata = Obj::native(
        "with_metadata",
        super::metadata::with_metadata(metadata_class),
    );
    b.attr("with_metadata", with_metadata.clone());
    // `with_partitioning(init, sharding, mesh=None, **metadata)` is
    // `with_metadata(init, out_sharding=sharding, mesh=mesh, **metadata)`.
    b.func("with_partitioning", move |i, a| {
        let init = a.req(Some(0), "initializer", "with_partitioning")?;
        let sharding = a.req(Some(1), "sharding", "with_partitioning")?;
        let mesh = a.get(Some(2), "mesh").unwrap_or(Obj::None);
        if !matches!(mesh, Obj::None) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.with_partitioning with a mesh (the mesh in context is used)"
            );
        }
        let mut kw = vec![("out_sharding".to_string(), sharding), ("mesh".to_string(), mesh)];
        kw.extend(a.kw.iter().filter(|(k, _)| !matches!(k.as_str(), "initializer" | "sharding" | "mesh")).cloned());
        i.call(&with_metadata, Args::with(vec![init], kw))
    });
    b.func("use_eager_sharding", super::metadata::use_eager_sharding);
    b.func("using_eager_sharding", |i, _| {
        Ok(Obj::Bool(super::metadata::using_eager_sharding(i)))
    });
}

/// The families of nnx functions, each registered by its own file.
fn register_families(b: &mut Builder, state: &Rc<Class>) {
    b.attr("List", super::list_type::ListType::obj());
    super::pytree::register(b);
    b.func("display", |interp, a| {
        for x in &a.pos {
            let text = format!("{}\n", interp.str(x)?);
            interp.out.push_str(&text);
        }
        Ok(Obj::None)
    });
    super::filters::register(b);
    super::graph::register(b, state);
    super::transforms::register(b, state);
    super::autodiff::register(b, state);
    super::custom_vjp::register(b, state);
    super::nnx_cond::register(b, state);
    super::pure_dict::register(b);
    super::eval_shape::register(b, state);
    super::scan::register(b, state);
    super::split_rngs::register(b);
    super::recursive::register(b);
    super::prefix::register(b);
    super::with_rngs::register(b);
    super::graph_iter::register(b);
    super::loops::register(b);
    super::attributes::register(b);
    super::var_modes::register(b, state);
}
