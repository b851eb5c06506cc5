//! `flax.nnx.bridge.ToLinen` and `to_linen`: an nnx module inside linen.
//!
//! `ToLinen(nnx_class, args=(), kwargs={}, skip_rng=False)` is a linen
//! module. Each call builds `nnx_class(*args, **kwargs, rngs=rngs)` with
//! `rngs` made of one `make_rng` key per stream the linen run was given
//! (in their order; outside `init` a `default` stream seeded 0 is added
//! when none is named so). While `init` runs, the nnx module's variables
//! become linen variables under the wrapper's path, each in the collection
//! its type names (`Param` in `params`, `BatchStat` in `batch_stats`, ...,
//! other types by their class name); under `apply` they are read back into
//! the fresh module before it is called. Rng state stays inside the nnx
//! module, as in Flax.

use super::*;
use crate::python::dict::Dict as PyDict;
use crate::python::ops::getattr;

/// The linen collection of a variable class, as nnx names it.
fn collection_of(class: &Rc<Class>) -> String {
    match class.name.as_str() {
        "Param" => "params".into(),
        "BatchStat" => "batch_stats".into(),
        "Cache" => "cache".into(),
        "Intermediate" => "intermediates".into(),
        "Perturbation" => "perturbations".into(),
        other => other.into(),
    }
}

fn is_rng_state(c: &Rc<Class>) -> bool {
    c.name == "RngState" || c.bases.iter().any(is_rng_state)
}

/// The module's variables other than rng state, with their paths.
fn module_vars(module: &Obj) -> Vec<(Vec<String>, Rc<Instance>)> {
    let mut out = vec![];
    super::nnx::collect_vars(module, &mut vec![], &|v| !is_rng_state(&v.class), &mut out);
    out
}

fn key_obj(k: &str) -> Obj {
    match k.parse::<i64>() {
        Ok(i) => Obj::Int(i),
        Err(_) => Obj::str(k),
    }
}

/// The dict under `keys` in `d`, made if missing.
fn nested(d: &Rc<RefCell<PyDict>>, keys: &[Obj]) -> Result<Rc<RefCell<PyDict>>> {
    let mut cur = d.clone();
    for k in keys {
        let found = cur.borrow().get(k);
        let next = match found {
            Some(Obj::Dict(n)) => n,
            Some(_) => bail!(
                ValueError,
                "a linen variable sits where ToLinen needs a collection"
            ),
            None => {
                let n = Rc::new(RefCell::new(PyDict::default()));
                cur.borrow_mut().set(k.clone(), Obj::Dict(n.clone()));
                n
            }
        };
        cur = next;
    }
    Ok(cur)
}

fn plain_value(var: &Instance) -> Result<Obj> {
    let extra = var.attrs.borrow().iter().any(|(k, _)| k != "value");
    if extra {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.bridge.ToLinen of a variable with metadata"
        );
    }
    Ok(iattr(var, "value").unwrap_or(Obj::None))
}

/// Stores the module's variables as linen variables under `path`.
fn store_vars(module: &Obj, scope: &super::linen::Scope) -> Result<()> {
    let prefix: Vec<Obj> = scope.path.iter().map(Obj::str).collect();
    for (path, var) in module_vars(module) {
        let mut keys = vec![Obj::str(collection_of(&var.class))];
        keys.extend(prefix.iter().cloned());
        keys.extend(
            path[..path.len().saturating_sub(1)]
                .iter()
                .map(|k| key_obj(k)),
        );
        let Some(last) = path.last() else { continue };
        let d = nested(&scope.variables, &keys)?;
        d.borrow_mut().set(key_obj(last), plain_value(&var)?);
    }
    Ok(())
}

/// Sets the module's variables from the linen variables under `path`.
fn load_vars(module: &Obj, scope: &super::linen::Scope) -> Result<()> {
    for (path, var) in module_vars(module) {
        let mut cur = Obj::Dict(scope.variables.clone());
        let mut keys = vec![collection_of(&var.class)];
        keys.extend(scope.path.iter().cloned());
        keys.extend(path.iter().cloned());
        let mut found = true;
        for k in &keys {
            let next = match &cur {
                Obj::Dict(d) => d.borrow().get(&key_obj(k)),
                _ => None,
            };
            match next {
                Some(n) => cur = n,
                None => {
                    found = false;
                    break;
                }
            }
        }
        if found {
            set_iattr(&var, "value", cur);
        }
    }
    Ok(())
}

/// The `rngs` the nnx module is built with.
fn linen_rngs(interp: &mut Interp, scope: &super::linen::Scope) -> Result<Obj> {
    let mut kw = vec![];
    for name in &scope.rng_names {
        let key = super::linen::make_rng(interp, &scope.path, name)?;
        kw.push((name.clone(), key));
    }
    if !scope.initializing && !scope.rng_names.iter().any(|n| n == "default") {
        kw.push(("default".into(), Obj::Int(0)));
    }
    let nnx = crate::modules::import(interp, "flax.nnx")?;
    let rngs = getattr(interp, &nnx, "Rngs")?;
    interp.call(&rngs, Args::with(vec![], kw))
}

fn to_linen_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "ToLinen.__call__")?;
    let scope = super::linen::scope_of(interp, &me)?;
    let get = |n: &str| {
        iattr(&me, n)
            .or_else(|| me.class.lookup(n))
            .unwrap_or(Obj::None)
    };
    if !matches!(get("metadata_fn"), Obj::None) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.bridge.ToLinen with metadata_fn="
        );
    }
    let nnx_class = get("nnx_class");
    let args = iterate(&get("args"))?;
    let mut kw: Vec<(String, Obj)> = match get("kwargs") {
        Obj::Dict(d) => d
            .borrow()
            .items
            .iter()
            .map(|(k, v)| (str_of(k), v.clone()))
            .collect(),
        Obj::None => vec![],
        other => bail!(
            TypeError,
            "ToLinen kwargs must be a mapping, got {}",
            other.type_name()
        ),
    };
    if !truthy(&get("skip_rng"), "skip_rng")? {
        kw.push(("rngs".into(), linen_rngs(interp, &scope)?));
    }
    let module = interp.call(&nnx_class, Args::with(args, kw))?;
    if scope.initializing {
        store_vars(&module, &scope)?;
    } else {
        load_vars(&module, &scope)?;
    }
    let call_kw: Vec<(String, Obj)> =
        a.kw.iter()
            .filter(|(k, _)| k != "nnx_method")
            .cloned()
            .collect();
    let method = match a.opt(None, "nnx_method") {
        None => getattr(interp, &module, "__call__")?,
        Some(Obj::Str(s)) => getattr(interp, &module, &s)?,
        Some(f) => {
            let mut pos = vec![module.clone()];
            pos.extend(a.pos[1..].iter().cloned());
            return interp.call(&f, Args::with(pos, call_kw));
        }
    };
    interp.call(&method, Args::with(a.pos[1..].to_vec(), call_kw))
}

/// The `ToLinen` class, a linen module.
pub(super) fn to_linen_class(linen_module: &Rc<Class>) -> Rc<Class> {
    let mut ann = PyDict::default();
    for f in ["nnx_class", "args", "kwargs", "skip_rng", "metadata_fn"] {
        ann.set(Obj::str(f), Obj::None);
    }
    new_class(
        "ToLinen",
        vec![linen_module.clone()],
        vec![
            ("__linen_wrapped__".into(), Obj::Bool(true)),
            (
                "__annotations__".into(),
                Obj::Dict(Rc::new(RefCell::new(ann))),
            ),
            ("args".into(), Obj::tuple(vec![])),
            ("kwargs".into(), Obj::Dict(Default::default())),
            ("skip_rng".into(), Obj::Bool(false)),
            ("metadata_fn".into(), Obj::None),
            (
                "__call__".into(),
                Obj::native("ToLinen.__call__", to_linen_call),
            ),
            ("__module__".into(), Obj::str("flax.nnx.bridge.wrappers")),
        ],
    )
}

/// `to_linen(nnx_class, *args, name=None, skip_rng=False, **kwargs)`.
pub(super) fn to_linen(class: Rc<Class>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |interp, a| {
        let nnx_class = a.req(Some(0), "nnx_class", "to_linen")?;
        if a.opt(None, "metadata_fn").is_some() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.bridge.to_linen with metadata_fn="
            );
        }
        let _ = a.get(None, "abstract_init");
        let mut kwargs = PyDict::default();
        let mut kw = vec![];
        for (k, v) in &a.kw {
            match k.as_str() {
                "name" | "skip_rng" => kw.push((k.clone(), v.clone())),
                "metadata_fn" | "abstract_init" => {}
                _ => kwargs.set(Obj::str(k), v.clone()),
            }
        }
        kw.push(("args".into(), Obj::tuple(a.pos[1..].to_vec())));
        kw.push(("kwargs".into(), Obj::Dict(Rc::new(RefCell::new(kwargs)))));
        interp.call(&Obj::Class(class.clone()), Args::with(vec![nnx_class], kw))
    }
}
