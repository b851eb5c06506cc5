//! `flax.nnx.bridge`: a linen module inside nnx.
//!
//! `ToNNX(module, rngs)` is an nnx module holding the linen module
//! (`to_nnx__module`) and a fork of the rngs (`to_nnx__rngs`). Called while
//! `lazy_init` runs, it runs the linen module's `init_with_output` and keeps
//! each parameter as an `nnx.Param` attribute named as in linen; called
//! afterwards, it gives those parameters to `apply`. Each call draws one
//! key from every stream of its rngs (`default` stands for `params`), as
//! Flax's does. Linen collections other than `params` and nested linen
//! modules are refused by name. `ToLinen` and `to_linen`, the other way
//! round, are in `to_linen.rs`.

use super::*;
use crate::python::dict::Dict as PyDict;
use crate::python::ops::getattr;

/// How many `lazy_init` calls are running: while one is, `ToNNX` calls
/// initialise their linen modules.
#[derive(Default)]
struct Initializing(usize);

const OWN: &str = "to_nnx__";

fn refuse(what: &str) -> crate::error::Error {
    err!(NotImplementedError, "not supported by shardlab yet: {what}")
}

/// `bridge.lazy_init(fn, *args, **kwargs)`: calls `fn` (an nnx module or
/// one of its methods) with its `ToNNX` modules initialising; returns `fn`.
fn lazy_init(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "fn", "lazy_init")?;
    let owner = match &f {
        Obj::Instance(i) if is_nnx_module(i) => true,
        Obj::Method(m) => matches!(&m.0, Obj::Instance(i) if is_nnx_module(i)),
        _ => false,
    };
    if !owner {
        bail!(
            ValueError,
            "fn = {} needs to be a method of an NNX Module.",
            repr_of(&f)
        );
    }
    let call = Args::with(a.pos[1..].to_vec(), a.kw.clone());
    interp.state::<Initializing>().0 += 1;
    let r = interp.call(&f, call);
    interp.state::<Initializing>().0 -= 1;
    r?;
    Ok(f)
}

/// One key from every stream of the module's rngs, by stream name.
fn draw_keys(interp: &mut Interp, rngs: &Obj) -> Result<Obj> {
    let mut d = PyDict::default();
    if matches!(rngs, Obj::None) {
        return Ok(Obj::Dict(Rc::new(RefCell::new(d))));
    }
    let items = getattr(interp, rngs, "items")?;
    let items = interp.call(&items, Args::new(vec![]))?;
    for kv in iterate(&items)? {
        let pair = iterate(&kv)?;
        let [name, stream] = pair.as_slice() else {
            bail!(TypeError, "Rngs.items() gave a non-pair");
        };
        let key = interp.call(stream, Args::new(vec![]))?;
        let name = match str_of(name).as_str() {
            "default" => Obj::str("params"),
            _ => name.clone(),
        };
        d.set(name, key);
    }
    Ok(Obj::Dict(Rc::new(RefCell::new(d))))
}

/// The linen variables `{'params': {...}}` of the module's `Param`
/// attributes.
fn linen_vars(me: &Instance, param: &Rc<Class>) -> Result<Obj> {
    let mut params = PyDict::default();
    for (name, v) in me.attrs.borrow().iter() {
        if name.starts_with(OWN) || name.starts_with("_pytree__") {
            continue;
        }
        match v {
            Obj::Instance(var) if is_variable(var) && derives(&var.class, param) => {
                params.set(Obj::str(name), iattr(var, "value").unwrap_or(Obj::None));
            }
            Obj::Instance(var) if is_variable(var) => {
                return Err(refuse(&format!(
                    "nnx.bridge.ToNNX with a {} variable",
                    var.class.name
                )))
            }
            _ => {}
        }
    }
    let mut d = PyDict::default();
    d.set(Obj::str("params"), Obj::Dict(Rc::new(RefCell::new(params))));
    Ok(Obj::Dict(Rc::new(RefCell::new(d))))
}

/// Keeps the variables linen's `init` made as `Param` attributes.
fn keep_params(
    interp: &mut Interp,
    me: &Rc<Instance>,
    vars: &Obj,
    param: &Rc<Class>,
) -> Result<()> {
    let Obj::Dict(cols) = vars else { return Ok(()) };
    let cols = cols.borrow().items.clone();
    for (col, tree) in cols {
        if str_of(&col) != "params" {
            return Err(refuse(&format!(
                "nnx.bridge.ToNNX with the linen collection '{}'",
                str_of(&col)
            )));
        }
        let Obj::Dict(ps) = &tree else { continue };
        let ps = ps.borrow().items.clone();
        for (name, value) in ps {
            if matches!(value, Obj::Dict(_)) {
                return Err(refuse("nnx.bridge.ToNNX of a linen module with submodules"));
            }
            let var = interp.call(&Obj::Class(param.clone()), Args::new(vec![value]))?;
            set_iattr(me, &str_of(&name), var);
        }
    }
    Ok(())
}

/// `ToNNX.__call__(*args, rngs=None, method=None, mutable=None, **kwargs)`.
fn to_nnx_call(interp: &mut Interp, a: Args, param: &Rc<Class>) -> Result<Obj> {
    let me = self_arg(&a, "ToNNX.__call__")?;
    let kw: Vec<(String, Obj)> =
        a.kw.iter()
            .filter(|(k, _)| !matches!(k.as_str(), "rngs" | "mutable"))
            .cloned()
            .collect();
    if a.get(None, "rngs").is_some() {
        return Err(refuse("nnx.bridge.ToNNX called with rngs="));
    }
    if !matches!(
        a.get(None, "mutable"),
        None | Some(Obj::None) | Some(Obj::Bool(false))
    ) {
        return Err(refuse("nnx.bridge.ToNNX called with mutable="));
    }
    let module = iattr(&me, "to_nnx__module").unwrap_or(Obj::None);
    let rngs = iattr(&me, "to_nnx__rngs").unwrap_or(Obj::None);
    let keys = draw_keys(interp, &rngs)?;
    if interp.state::<Initializing>().0 > 0 {
        let init = getattr(interp, &module, "init_with_output")?;
        let mut pos = vec![keys];
        pos.extend(a.pos[1..].iter().cloned());
        let r = interp.call(&init, Args::with(pos, kw))?;
        let pair = iterate(&r)?;
        let [out, vars] = pair.as_slice() else {
            bail!(TypeError, "init_with_output gave a non-pair");
        };
        keep_params(interp, &me, vars, param)?;
        return Ok(out.clone());
    }
    let apply = getattr(interp, &module, "apply")?;
    let mut pos = vec![linen_vars(&me, param)?];
    pos.extend(a.pos[1..].iter().cloned());
    let mut kw = kw;
    kw.push(("rngs".into(), keys));
    interp.call(&apply, Args::with(pos, kw))
}

/// `ToNNX.__init__(module, rngs=None)`: a key becomes `Rngs(params=key)`,
/// an `Rngs` is forked.
fn to_nnx_init(interp: &mut Interp, a: Args, rngs_class: &Obj) -> Result<Obj> {
    let me = self_arg(&a, "ToNNX.__init__")?;
    let module = a.req(Some(1), "module", "ToNNX")?;
    let rngs = a.get(Some(2), "rngs").unwrap_or(Obj::None);
    let rngs = match &rngs {
        Obj::None => Obj::None,
        key if matches!(key, Obj::Array(_)) || keys_of(key).is_some() => interp.call(
            rngs_class,
            Args::with(vec![], vec![("params".into(), rngs.clone())]),
        )?,
        other => {
            let fork = getattr(interp, other, "fork")?;
            interp.call(&fork, Args::new(vec![]))?
        }
    };
    set_iattr(&me, "to_nnx__module", module);
    set_iattr(&me, "to_nnx__rngs", rngs);
    Ok(Obj::None)
}

/// The `flax.nnx.bridge` module.
pub(super) fn bridge_module(
    module: &Rc<Class>,
    param: &Rc<Class>,
    rngs_class: Obj,
    linen_module: &Rc<Class>,
) -> Obj {
    let p = param.clone();
    let lazy = Obj::native("flax.nnx.bridge.lazy_init", lazy_init);
    let to_nnx = new_class(
        "ToNNX",
        vec![module.clone()],
        vec![
            (
                "__init__".into(),
                Obj::native("ToNNX.__init__", move |i, a| to_nnx_init(i, a, &rngs_class)),
            ),
            (
                "__call__".into(),
                Obj::native("ToNNX.__call__", move |i, a| to_nnx_call(i, a, &p)),
            ),
            ("lazy_init".into(), lazy.clone()),
            ("__module__".into(), Obj::str("flax.nnx.bridge.wrappers")),
        ],
    );
    let mut b = Builder::new("flax.nnx.bridge");
    b.attr("ToNNX", Obj::Class(to_nnx)).attr("lazy_init", lazy);
    let to_linen = super::to_linen::to_linen_class(linen_module);
    b.attr("ToLinen", Obj::Class(to_linen.clone()));
    b.attr(
        "to_linen",
        Obj::native("to_linen", super::to_linen::to_linen(to_linen)),
    );
    for name in [
        "functional",
        "Functional",
        "NNXMeta",
        "with_partitioning",
        "Module",
        "Scope",
        "AttrPriority",
        "compact",
        "current_context",
        "current_module",
        "nnx_in_bridge_mdl",
        "linen_in_bridge_mdl",
    ] {
        let label = format!("flax.nnx.bridge.{name}");
        b.attr(
            name,
            Obj::native(label.clone(), move |_, _| Err(refuse(&label))),
        );
    }
    b.build()
}
