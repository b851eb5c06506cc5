//! `flax.linen`: Module subclasses with `@nn.compact` or `setup`, Dense,
//! init/apply and the rng and parameter plumbing of a module path.

use super::linen_collections::{self as collections, Filter};
use super::linen_lift::Lift;
use super::*;
use crate::error::ErrorKind;

// ----------------------------------------------------------------- linen

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Init,
    Apply,
}

struct Frame {
    path: Vec<String>,
    in_setup: bool,
}

pub(super) struct Run {
    mode: Mode,
    /// The collections this run may change.
    pub(super) mutable: Filter,
    root: Rc<Instance>,
    /// `{'params': {...}, ...}`.
    pub(super) variables: Rc<RefCell<Dict>>,
    rngs: Vec<(String, Key, bool)>,
    /// The `make_rng` calls so far, by module path and stream.
    pub(super) counters: HashMap<(Vec<String>, String), u32>,
    /// The lifted transforms running, innermost last.
    pub(super) lifts: Vec<Lift>,
    cursors: HashMap<Vec<String>, HashMap<String, u32>>,
    setup_done: Vec<*const Instance>,
    frames: Vec<Frame>,
}

impl Run {
    /// The keys the streams start from under the innermost lifted
    /// transform that lifts the module at `path`, if one does.
    pub(super) fn lift_keys(&self, path: &[String]) -> Option<Vec<(String, Obj)>> {
        let lift = self.lifts.iter().rev().find(|l| l.covers(path));
        lift.map(|l| l.keys.clone())
    }

    /// The streams the run was given: name, root key, whether typed.
    pub(super) fn streams(&self) -> Vec<(String, Key, bool)> {
        self.rngs.clone()
    }

    /// Whether this run is `init`.
    pub(super) fn initializing(&self) -> bool {
        self.mode == Mode::Init
    }
}

/// The `init`/`apply` calls running, innermost last: run state kept in the
/// interpreter, so nothing outlives the program.
#[derive(Default)]
struct Runs(Vec<Run>);

pub(super) fn with_run<T>(interp: &mut Interp, f: impl FnOnce(&mut Run) -> Result<T>) -> Result<T> {
    match interp.state::<Runs>().0.last_mut() {
        Some(run) => f(run),
        None => bail!(
            AttributeError,
            "Can't access variables on unbound modules: call the module through init or apply"
        ),
    }
}

fn in_run(interp: &mut Interp) -> bool {
    !interp.state::<Runs>().0.is_empty()
}

pub(super) fn module_path(interp: &mut Interp, me: &Rc<Instance>) -> Result<Vec<String>> {
    let root = interp.state::<Runs>().0.last().map(|run| run.root.clone());
    if let Some(root) = root {
        if Rc::ptr_eq(&root, me) {
            return Ok(vec![]);
        }
    }
    match iattr(me, "_linen_path") {
        Some(Obj::Tuple(t)) => Ok(t.iter().map(str_of).collect()),
        _ => bail!(
            AttributeError,
            "Can't call methods of an unbound module {}: call it through init or apply, or inside a parent module",
            me.class.name
        ),
    }
}

/// The fields of a linen module class: annotated names, bases first.
fn fields(c: &Rc<Class>) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for b in &c.bases {
        for f in fields(b) {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    if let Some((_, Obj::Dict(d))) = c
        .attrs
        .borrow()
        .iter()
        .find(|(k, _)| k == "__annotations__")
    {
        for (k, _) in d.borrow().items.iter() {
            let k = str_of(k);
            if !out.contains(&k) {
                out.push(k);
            }
        }
    }
    out
}

pub(super) fn wrap_methods(c: &Rc<Class>) {
    if c.attrs
        .borrow()
        .iter()
        .any(|(k, _)| k == "__linen_wrapped__")
    {
        return;
    }
    for b in &c.bases {
        wrap_methods(b);
    }
    let mut attrs = c.attrs.borrow_mut();
    for (name, v) in attrs.iter_mut() {
        let Obj::Func(f) = v else { continue };
        if name == "setup" || (name.starts_with("__") && name != "__call__") {
            continue;
        }
        let func = Obj::Func(f.clone());
        let label = format!("{}.{name}", c.name);
        *v = Obj::native(label, move |i, a| {
            let me = self_arg(&a, "method")?;
            call_in_scope(i, &me, &func, a)
        });
    }
    attrs.push(("__linen_wrapped__".into(), Obj::Bool(true)));
}

fn run_setup(interp: &mut Interp, me: &Rc<Instance>, path: &[String]) -> Result<()> {
    let Some(setup) = me.class.lookup("setup") else {
        return Ok(());
    };
    let ptr = Rc::as_ptr(me);
    let done = with_run(interp, |run| Ok(run.setup_done.contains(&ptr)))?;
    if done {
        return Ok(());
    }
    with_run(interp, |run| {
        run.setup_done.push(ptr);
        run.frames.push(Frame {
            path: path.to_vec(),
            in_setup: true,
        });
        Ok(())
    })?;
    let r = interp.call(&setup, Args::new(vec![Obj::Instance(me.clone())]));
    with_run(interp, |run| {
        run.frames.pop();
        Ok(())
    })?;
    r?;
    // Submodules assigned in setup take their attribute names.
    let attrs = me.attrs.borrow().clone();
    for (name, v) in attrs {
        let name_sub = |o: &Obj, n: String| {
            if let Obj::Instance(s) = o {
                if marked(s, "__linen_module__")
                    && matches!(iattr(s, "_linen_path"), Some(Obj::None))
                {
                    let mut p: Vec<Obj> = path.iter().map(Obj::str).collect();
                    p.push(Obj::str(&n));
                    set_iattr(s, "_linen_path", Obj::tuple(p));
                    set_iattr(s, "name", Obj::str(&n));
                }
            }
        };
        match &v {
            Obj::List(_) | Obj::Tuple(_) => {
                for (k, o) in iterate(&v)?.iter().enumerate() {
                    name_sub(o, format!("{name}_{k}"));
                }
            }
            o => name_sub(o, name.clone()),
        }
    }
    Ok(())
}

pub(super) fn call_in_scope(
    interp: &mut Interp,
    me: &Rc<Instance>,
    f: &Obj,
    a: Args,
) -> Result<Obj> {
    if !in_run(interp) {
        bail!(
            AttributeError,
            "Can't call compact methods on unbound modules: use {}.init or .apply",
            me.class.name
        );
    }
    let path = module_path(interp, me)?;
    adopt_fields(me, &path);
    run_setup(interp, me, &path)?;
    with_run(interp, |run| {
        run.frames.push(Frame {
            path: path.clone(),
            in_setup: false,
        });
        Ok(())
    })?;
    let r = interp.call(f, a);
    with_run(interp, |run| {
        run.frames.pop();
        // As Flax resets a compact module's names after each call, a
        // module called again names its children `Dense_0`, ... again,
        // reusing them.
        if !run.frames.iter().any(|f| f.path == path) {
            run.cursors.remove(&path);
        }
        Ok(())
    })?;
    r
}

/// Adopts the modules `me` holds in its fields that were made outside any
/// module, as Flax does: each becomes `me`'s child named after its field
/// (`field_0`, `field_1`, ... in a list or tuple), whatever name it was
/// given. A module is adopted again by each run, so its path is that of
/// the run's parent.
pub(super) fn adopt_fields(me: &Instance, path: &[String]) {
    for f in fields(&me.class) {
        let v = iattr(me, &f).unwrap_or(Obj::None);
        match &v {
            Obj::List(_) | Obj::Tuple(_) => {
                for (k, o) in iterate(&v).unwrap_or_default().iter().enumerate() {
                    adopt(o, path, format!("{f}_{k}"));
                }
            }
            o => adopt(o, path, f),
        }
    }
}

/// Makes `o` the child `name` of the module at `path` when it is a linen
/// module without a path of its own (made outside any module, or in a
/// `setup` without being assigned) or one adopted before.
pub(super) fn adopt(o: &Obj, path: &[String], name: String) {
    let Obj::Instance(s) = o else { return };
    let unnamed = !matches!(iattr(s, "_linen_path"), Some(Obj::Tuple(_)));
    let outside = unnamed || matches!(iattr(s, "_linen_adopted"), Some(Obj::Bool(true)));
    if !is_linen_module(s) || !outside {
        return;
    }
    let mut p: Vec<Obj> = path.iter().map(Obj::str).collect();
    p.push(Obj::str(&name));
    set_iattr(s, "_linen_path", Obj::tuple(p));
    set_iattr(s, "name", Obj::str(name));
    set_iattr(s, "_linen_adopted", Obj::Bool(true));
}

/// `Module.__init__`: fills the dataclass fields from the arguments and
/// the class defaults, then names the module in the module that is running.
fn linen_module_init(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Module.__init__")?;
    let _ = interp;
    wrap_methods(&me.class);
    let names = fields(&me.class);
    let InitArgs {
        given,
        explicit_name,
        explicit_parent,
    } = field_args(&me, &names, &a)?;
    for n in &names {
        let v = match given.iter().find(|(g, _)| g == n) {
            Some((_, v)) => v.clone(),
            None => match me.class.lookup(n) {
                Some(d) => d,
                None => bail!(
                    TypeError,
                    "{}.__init__() missing 1 required positional argument: '{n}'",
                    me.class.name
                ),
            },
        };
        set_iattr(&me, n, v);
    }
    bind_to_parent(interp, &me, explicit_name, explicit_parent)?;
    Ok(Obj::None)
}

/// The field values `__init__` was given, positionally or by keyword, and
/// the `name` and `parent` keywords, with Python's errors for arguments
/// that do not fit the fields.
fn field_args(me: &Instance, names: &[String], a: &Args) -> Result<InitArgs> {
    let mut given: Vec<(String, Obj)> = vec![];
    if a.pos.len() - 1 > names.len() {
        bail!(
            TypeError,
            "{}.__init__() takes {} positional arguments but {} were given",
            me.class.name,
            names.len() + 1,
            a.pos.len()
        );
    }
    for (n, v) in names.iter().zip(&a.pos[1..]) {
        given.push((n.clone(), v.clone()));
    }
    let mut explicit_name = None;
    let mut explicit_parent = None;
    for (k, v) in &a.kw {
        if k == "name" {
            explicit_name = Some(v.clone());
        } else if k == "parent" {
            explicit_parent = Some(v.clone());
        } else if names.contains(k) {
            if given.iter().any(|(g, _)| g == k) {
                bail!(
                    TypeError,
                    "{}.__init__() got multiple values for argument '{k}'",
                    me.class.name
                );
            }
            given.push((k.clone(), v.clone()));
        } else {
            bail!(
                TypeError,
                "{}.__init__() got an unexpected keyword argument '{k}'",
                me.class.name
            );
        }
    }
    Ok(InitArgs {
        given,
        explicit_name,
        explicit_parent,
    })
}

/// What `Module.__init__` was called with.
struct InitArgs {
    /// Field values by name.
    given: Vec<(String, Obj)>,
    /// The `name` keyword.
    explicit_name: Option<Obj>,
    /// The `parent` keyword.
    explicit_parent: Option<Obj>,
}

/// Sets `name` and `_linen_path`. A module made while another one's method
/// runs gets its path there, named `Dense_0`, `Dense_1`, ... unless named
/// explicitly; one made in `setup` is named after the attribute it is
/// assigned to once `setup` returns; `parent=None` leaves it unbound.
fn bind_to_parent(
    interp: &mut Interp,
    me: &Rc<Instance>,
    explicit_name: Option<Obj>,
    explicit_parent: Option<Obj>,
) -> Result<()> {
    // Bind to the module whose method is running, as Flax does.
    let parent_frame = if matches!(explicit_parent, Some(Obj::None)) {
        None
    } else {
        interp
            .state::<Runs>()
            .0
            .last()
            .and_then(|run| run.frames.last().map(|f| (f.path.clone(), f.in_setup)))
    };
    match parent_frame {
        None => {
            set_iattr(me, "name", explicit_name.unwrap_or(Obj::None));
        }
        Some((path, in_setup)) => {
            let name = match explicit_name {
                Some(Obj::Str(s)) => Some(s.to_string()),
                _ if in_setup => None,
                _ => Some(with_run(interp, |run| {
                    let cur = run.cursors.entry(path.clone()).or_default();
                    let n = cur.entry(me.class.name.clone()).or_insert(0);
                    let name = format!("{}_{}", me.class.name, n);
                    *n += 1;
                    Ok(name)
                })?),
            };
            match name {
                Some(n) => {
                    let mut p: Vec<Obj> = path.iter().map(Obj::str).collect();
                    p.push(Obj::str(&n));
                    set_iattr(me, "_linen_path", Obj::tuple(p));
                    set_iattr(me, "name", Obj::str(n));
                }
                None => {
                    set_iattr(me, "_linen_path", Obj::None);
                    set_iattr(me, "name", Obj::None);
                }
            }
        }
    }
    Ok(())
}

pub(super) fn nested_get(d: &Rc<RefCell<Dict>>, path: &[String]) -> Option<Rc<RefCell<Dict>>> {
    let mut cur = d.clone();
    for p in path {
        let next = match cur.borrow().get(&Obj::str(p)) {
            Some(Obj::Dict(n)) => n,
            _ => return None,
        };
        cur = next;
    }
    Some(cur)
}

pub(super) fn nested_make(d: &Rc<RefCell<Dict>>, path: &[String]) -> Rc<RefCell<Dict>> {
    let mut cur = d.clone();
    for p in path {
        let existing = cur.borrow().get(&Obj::str(p));
        let next = match existing {
            Some(Obj::Dict(n)) => n,
            _ => {
                let n = Rc::new(RefCell::new(Dict::default()));
                cur.borrow_mut().set(Obj::str(p), Obj::Dict(n.clone()));
                n
            }
        };
        cur = next;
    }
    cur
}

/// Where a module runs: whether `init` is running, the module's path, the
/// run's variables (`{collection: {...}}`) and the names of its rng
/// streams, in the order they were given.
pub(super) struct Scope {
    pub initializing: bool,
    pub path: Vec<String>,
    pub variables: Rc<RefCell<Dict>>,
    pub rng_names: Vec<String>,
}

/// The scope `me` runs in (an error outside `init`/`apply`).
pub(super) fn scope_of(interp: &mut Interp, me: &Rc<Instance>) -> Result<Scope> {
    let path = module_path(interp, me)?;
    with_run(interp, |run| {
        Ok(Scope {
            initializing: run.mode == Mode::Init,
            path,
            variables: run.variables.clone(),
            rng_names: run.rngs.iter().map(|(n, _, _)| n.clone()).collect(),
        })
    })
}

/// `self.make_rng(collection)` of the module at `path`. A stream the
/// module was not given falls back to `params`, as Flax's does. Inside a
/// lifted transform the module sees the streams the transform passed in,
/// starting from its keys (traced inside a scan) rather than the run's.
pub(super) fn make_rng(interp: &mut Interp, path: &[String], collection: &str) -> Result<Obj> {
    let (lifted, name, count) = with_run(interp, |run| {
        let lifted = run.lift_keys(path);
        let streams: Vec<&str> = match &lifted {
            Some(keys) => keys.iter().map(|(n, _)| n.as_str()).collect(),
            None => run.rngs.iter().map(|(n, _, _)| n.as_str()).collect(),
        };
        let name = if streams.contains(&collection) {
            collection
        } else if streams.contains(&"params") {
            "params"
        } else {
            let scope = path.last().map(String::as_str).unwrap_or("None");
            return Err(collections::flax_message(
                ErrorKind::InvalidRngError,
                format!("{scope} needs PRNG for \"{collection}\""),
            ));
        };
        let name = name.to_string();
        let c = run
            .counters
            .entry((path.to_vec(), name.clone()))
            .or_insert(0);
        *c += 1;
        Ok((lifted, name, *c))
    })?;
    let names: Vec<&str> = path.iter().map(|s| s.as_str()).collect();
    if let Some(keys) = lifted {
        let root = keys
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, k)| k)
            .unwrap_or(Obj::None);
        return super::linen_lift::fold_in_hash(interp, root, linen_rng_hash(&names, count));
    }
    let (root, typed) = with_run(interp, |run| {
        let found = run.rngs.iter().find(|(n, _, _)| *n == name);
        Ok(found.map(|(_, k, t)| (*k, *t)))
    })?
    .ok_or_else(|| err!(ValueError, "no rng named \"{name}\""))?;
    one_key(linen_rng_key(root, &names, count), typed)
}

/// What a run has drawn and holds beyond its parameters: the keys drawn
/// from streams other than `params`, and the variables of the other
/// collections by path.
pub(super) struct Footprint {
    draws: u32,
    others: Vec<(String, Obj)>,
}

impl Footprint {
    /// Whether nothing but parameters was made, drawn or changed between
    /// the two footprints.
    pub(super) fn same(&self, later: &Footprint) -> bool {
        self.draws == later.draws
            && self.others.len() == later.others.len()
            && self
                .others
                .iter()
                .zip(&later.others)
                .all(|((p, a), (q, b))| p == q && crate::python::ops::is_same(a, b))
    }
}

/// The running run's [`Footprint`].
pub(super) fn footprint(interp: &mut Interp) -> Result<Footprint> {
    with_run(interp, |run| {
        let draws = run
            .counters
            .iter()
            .filter(|((_, c), _)| c != "params")
            .map(|(_, n)| *n)
            .sum();
        let mut others = vec![];
        for (k, v) in run.variables.borrow().items.iter() {
            if str_of(k) != "params" {
                leaves_by_path(&str_of(k), v, &mut others);
            }
        }
        Ok(Footprint { draws, others })
    })
}

/// Each leaf under `o` with its path.
fn leaves_by_path(path: &str, o: &Obj, out: &mut Vec<(String, Obj)>) {
    match o {
        Obj::Dict(d) => {
            for (k, v) in d.borrow().items.iter() {
                leaves_by_path(&format!("{path}/{}", str_of(k)), v, out);
            }
        }
        leaf => out.push((path.to_string(), leaf.clone())),
    }
}

pub(super) fn param(
    interp: &mut Interp,
    me: &Rc<Instance>,
    name: &str,
    init: &Obj,
    rest: Vec<Obj>,
) -> Result<Obj> {
    let path = module_path(interp, me)?;
    let (mode, vars) = with_run(interp, |run| Ok((run.mode, run.variables.clone())))?;
    let mut full = vec!["params".to_string()];
    full.extend(path.iter().cloned());
    if let Some(d) = nested_get(&vars, &full) {
        if let Some(v) = d.borrow().get(&Obj::str(name)) {
            return Ok(v);
        }
    }
    if mode == Mode::Apply {
        bail!(
            ValueError,
            "Could not find parameter named \"{name}\" in scope \"/{}\".",
            path.join("/")
        );
    }
    let key = make_rng(interp, &path, "params")?;
    let mut args = vec![key];
    args.extend(rest);
    let v = interp.call(init, Args::new(args))?;
    let d = nested_make(&vars, &full);
    d.borrow_mut().set(Obj::str(name), v.clone());
    Ok(v)
}

fn rngs_arg(o: &Obj) -> Result<Vec<(String, Key, bool)>> {
    if let Obj::Dict(d) = o {
        let mut out = vec![];
        for (k, v) in d.borrow().items.iter() {
            let ks = keys_of(v).ok_or_else(|| err!(TypeError, "rngs values must be PRNG keys"))?;
            if !ks.batch.is_empty() {
                bail!(ValueError, "rngs values must be single PRNG keys");
            }
            out.push((str_of(k), ks.keys[0], ks.typed));
        }
        return Ok(out);
    }
    let ks = keys_of(o).ok_or_else(|| {
        err!(
            TypeError,
            "First argument passed to an init function should be a ``jax.PRNGKey`` or a dictionary mapping strings to ``jax.PRNGKey``."
        )
    })?;
    if !ks.batch.is_empty() {
        bail!(
            ValueError,
            "First argument passed to an init function should be a ``jax.PRNGKey`` or a dictionary mapping strings to ``jax.PRNGKey``."
        );
    }
    Ok(vec![("params".into(), ks.keys[0], ks.typed)])
}

fn run_module(
    interp: &mut Interp,
    me: &Rc<Instance>,
    mode: Mode,
    variables: Rc<RefCell<Dict>>,
    rngs: Vec<(String, Key, bool)>,
    mutable: Filter,
    a: &Args,
) -> Result<Obj> {
    let method = match a.opt(None, "method") {
        None => me
            .class
            .lookup("__call__")
            .ok_or_else(|| err!(AttributeError, "'{}' has no __call__", me.class.name))?,
        Some(Obj::Str(s)) => me
            .class
            .lookup(&s)
            .ok_or_else(|| err!(AttributeError, "'{}' has no method {s}", me.class.name))?,
        Some(Obj::Method(m)) => m.1.clone(),
        Some(other) => other,
    };
    let kw: Vec<(String, Obj)> =
        a.kw.iter()
            .filter(|(k, _)| {
                !matches!(
                    k.as_str(),
                    "method" | "rngs" | "mutable" | "capture_intermediates"
                )
            })
            .cloned()
            .collect();
    collections::refuse_capture(a)?;
    interp.state::<Runs>().0.push(Run {
        mode,
        mutable,
        root: me.clone(),
        variables,
        rngs,
        counters: HashMap::new(),
        lifts: vec![],
        cursors: HashMap::new(),
        setup_done: vec![],
        frames: vec![],
    });
    let mut pos = vec![Obj::Instance(me.clone())];
    pos.extend(a.pos[2..].iter().cloned());
    let r = interp.call(&method, Args::with(pos, kw));
    interp.state::<Runs>().0.pop();
    r
}

fn linen_init(interp: &mut Interp, a: Args, with_output: bool) -> Result<Obj> {
    let me = self_arg(&a, "init")?;
    let rngs = rngs_arg(&a.req(Some(1), "rngs", "init")?)?;
    let vars = Rc::new(RefCell::new(Dict::default()));
    let mutable = match a.opt(None, "mutable") {
        Some(m) => Filter::parse(&m)?,
        None => Filter::all_but_intermediates(),
    };
    let out = run_module(
        interp,
        &me,
        Mode::Init,
        vars.clone(),
        rngs,
        mutable.clone(),
        &a,
    )?;
    let v = mutable.select(&vars);
    Ok(if with_output {
        Obj::tuple(vec![out, v])
    } else {
        v
    })
}

fn deep_copy_dicts(o: &Obj) -> Obj {
    match o {
        Obj::Dict(d) => {
            let mut n = Dict::default();
            for (k, v) in d.borrow().items.iter() {
                n.set(k.clone(), deep_copy_dicts(v));
            }
            Obj::Dict(Rc::new(RefCell::new(n)))
        }
        other => other.clone(),
    }
}

fn linen_apply(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "apply")?;
    let variables = a.req(Some(1), "variables", "apply")?;
    let plain = super::frozen_dict::unfreeze_obj(&variables);
    let Obj::Dict(vars) = deep_copy_dicts(&plain) else {
        bail!(
            TypeError,
            "apply expects the variables as a dict such as {{'params': ...}}, got {}",
            variables.type_name()
        );
    };
    let rngs = match a.opt(None, "rngs") {
        Some(r) => rngs_arg(&r)?,
        None => vec![],
    };
    let mutable = match a.opt(None, "mutable") {
        Some(m) => Filter::parse(&m)?,
        None => Filter::Nothing,
    };
    let out = run_module(
        interp,
        &me,
        Mode::Apply,
        vars.clone(),
        rngs,
        mutable.clone(),
        &a,
    )?;
    Ok(match mutable {
        Filter::Nothing => out,
        m => Obj::tuple(vec![out, m.select(&vars)]),
    })
}

fn dense_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Dense.__call__")?;
    let x = to_value(&a.req(Some(1), "inputs", "Dense.__call__")?)?;
    let features = to_int(&iattr(&me, "features").unwrap_or(Obj::None))?;
    let use_bias = truthy(
        &iattr(&me, "use_bias").unwrap_or(Obj::Bool(true)),
        "use_bias",
    )?;
    if x.ndim() == 0 {
        bail!(IndexError, "tuple index out of range");
    }
    let din = x.shape()[x.ndim() - 1] as i64;
    let kinit = iattr(&me, "kernel_init").unwrap_or(Obj::None);
    let binit = iattr(&me, "bias_init").unwrap_or(Obj::None);
    let dt = super::jnp_float32();
    let k = param(
        interp,
        &me,
        "kernel",
        &kinit,
        vec![
            Obj::tuple(vec![Obj::Int(din), Obj::Int(features)]),
            dt.clone(),
        ],
    )?;
    let b = if use_bias {
        Some(param(
            interp,
            &me,
            "bias",
            &binit,
            vec![Obj::tuple(vec![Obj::Int(features)]), dt],
        )?)
    } else {
        None
    };
    let kv = to_value(&k)?;
    let bv = b.map(|b| to_value(&b)).transpose()?;
    Ok(Obj::Array(dense_apply(&x, &kv, bv.as_ref())?))
}

/// Builds `flax.linen`.
pub fn linen_module(interp: &mut Interp) -> Result<Obj> {
    let inits = crate::modules::nn::initializers_module("flax.linen.initializers");
    let lecun = match &inits {
        Obj::Module(m) => match m.get("lecun_normal") {
            Some(f) => interp.call(&f, Args::default())?,
            None => Obj::None,
        },
        _ => Obj::None,
    };
    let zeros = match &inits {
        Obj::Module(m) => m.get("zeros").unwrap_or(Obj::None),
        _ => Obj::None,
    };
    let module = module_class();
    let mut b = Builder::new("flax.linen");
    super::linen_conv::register(&mut b, &module, &inits, &lecun);
    super::linen_group_norm::register(&mut b, &module, &inits)?;
    let dense_general = super::linen_attention::register(&mut b, &module, &inits, &lecun);
    super::linen_mha::register(&mut b, &module, &dense_general, (&inits, &lecun));
    crate::modules::nn::add_activations(&mut b);
    let dense = dense_class(&module, lecun.clone(), zeros);
    let dropout = super::linen_dropout::dropout_class(&module);
    super::linen_layers::register(&mut b, &module, &inits)?;
    let conv = match b.get("Conv") {
        Some(Obj::Class(c)) => c,
        _ => bail!(AttributeError, "flax.linen has no Conv"),
    };
    let cells = super::linen_recurrent::CellParts {
        module: &module,
        dense: &dense,
        conv,
        inits: &inits,
        lecun: &lecun,
    };
    super::linen_recurrent::register(interp, &mut b, &cells)?;
    super::linen_rnn::register(interp, &mut b, &module)?;
    b.attr("Module", Obj::Class(module))
        .attr("Dense", Obj::Class(dense))
        .attr("Dropout", Obj::Class(dropout))
        .attr("initializers", inits.clone());
    for factory in ["zeros_init", "ones_init"] {
        if let Obj::Module(m) = &inits {
            b.attr(factory, m.get(factory).unwrap_or(Obj::None));
        }
    }
    b.func("compact", |_, a| a.req(Some(0), "fun", "compact"));
    b.func("scan", super::linen_scan::scan);
    b.func("checkpoint", super::linen_remat::checkpoint);
    b.func("vmap", super::linen_vmap::vmap);
    b.func("remat", super::linen_remat::checkpoint);
    let broadcast = new_class("_Broadcast", vec![], vec![]);
    b.attr(
        "broadcast",
        Obj::Instance(Rc::new(Instance::new(broadcast))),
    );
    b.func("nowrap", nowrap);
    Ok(b.build())
}

/// `nn.nowrap(fun)`: a method that runs outside the module's scope (so it
/// can be called on an unbound module, as `initialize_carry` is). Methods
/// are wrapped only when they are Python functions, so the method is kept
/// behind a native one that forwards its arguments.
fn nowrap(_: &mut Interp, a: Args) -> Result<Obj> {
    let fun = a.req(Some(0), "fun", "nowrap")?;
    let name = match &fun {
        Obj::Func(f) => f.name.to_string(),
        _ => "nowrap".to_string(),
    };
    Ok(Obj::native(name, move |interp, a| interp.call(&fun, a)))
}

fn linen_repr(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "__repr__")?;
    Ok(Obj::str(linen_text(&me)))
}

/// A linen module as Flax prints it: its class, then each dataclass field
/// (a function by its name), indented by four.
pub(super) fn linen_text(me: &Instance) -> String {
    let mut body = String::new();
    let names: Vec<String> = fields(&me.class)
        .into_iter()
        .filter(|f| f != "parent" && f != "name")
        .collect();
    if !names.is_empty() {
        body.push_str("# attributes\n");
    }
    for f in names {
        let v = iattr(me, &f)
            .or_else(|| me.class.lookup(&f))
            .unwrap_or(Obj::None);
        let text = match &v {
            Obj::Func(func) => func.name.to_string(),
            Obj::Native(n) => n.name.rsplit('.').next().unwrap_or(&n.name).to_string(),
            Obj::Instance(i) if is_linen_module(i) => linen_text(i),
            // A dtype field holds a scalar type such as `jnp.float32`,
            // which prints as its name.
            Obj::DType(d) => d.name().to_string(),
            other => super::frozen_dict::frozen_repr(other).unwrap_or_else(|| repr_of(other)),
        };
        body.push_str(&format!("{f} = {text}\n"));
    }
    let name = &me.class.name;
    if body.is_empty() {
        return format!("{name}()");
    }
    let indented: String = body.lines().map(|l| format!("    {l}\n")).collect();
    format!("{name}(\n{indented})")
}

/// Whether `i` is a linen module.
pub(super) fn is_linen_module(i: &Instance) -> bool {
    marked(i, "__linen_module__")
}

/// `nn.Module`: `__init__`, `init`, `init_with_output`, `apply`, and the
/// methods a module's own methods call (`param`, `make_rng`,
/// `is_initializing`).
fn module_class() -> Rc<Class> {
    let t = Obj::Bool(true);
    let mut attrs = collections::module_methods();
    attrs.extend([
        ("__linen_module__".into(), t.clone()),
        ("__linen_wrapped__".into(), t.clone()),
        (
            "__init__".into(),
            Obj::native("Module.__init__", linen_module_init),
        ),
        (
            "init".into(),
            Obj::native("Module.init", |i, a| linen_init(i, a, false)),
        ),
        (
            "init_with_output".into(),
            Obj::native("Module.init_with_output", |i, a| linen_init(i, a, true)),
        ),
        ("apply".into(), Obj::native("Module.apply", linen_apply)),
        (
            "__repr__".into(),
            Obj::native("Module.__repr__", linen_repr),
        ),
        (
            "param".into(),
            Obj::native("Module.param", |i, a| {
                let me = self_arg(&a, "param")?;
                let name = str_of(&a.req(Some(1), "name", "param")?);
                let init = a.req(Some(2), "init_fn", "param")?;
                param(i, &me, &name, &init, a.pos[3.min(a.pos.len())..].to_vec())
            }),
        ),
        (
            "make_rng".into(),
            Obj::native("Module.make_rng", |interp, a| {
                let me = self_arg(&a, "make_rng")?;
                let name = a
                    .get(Some(1), "name")
                    .map(|o| str_of(&o))
                    .unwrap_or_else(|| "params".into());
                let path = module_path(interp, &me)?;
                make_rng(interp, &path, &name)
            }),
        ),
        (
            "is_initializing".into(),
            Obj::native("Module.is_initializing", |interp, _| {
                with_run(interp, |run| Ok(Obj::Bool(run.mode == Mode::Init)))
            }),
        ),
    ]);
    new_class("Module", vec![], attrs)
}

/// `nn.Dense(features, use_bias=True, kernel_init=lecun_normal(),
/// bias_init=zeros)`.
fn dense_class(module: &Rc<Class>, kernel_init: Obj, bias_init: Obj) -> Rc<Class> {
    let mut ann = Dict::default();
    for f in ["features", "use_bias", "kernel_init", "bias_init"] {
        ann.set(Obj::str(f), Obj::None);
    }
    new_class(
        "Dense",
        vec![module.clone()],
        vec![
            ("__linen_wrapped__".into(), Obj::Bool(true)),
            (
                "__annotations__".into(),
                Obj::Dict(Rc::new(RefCell::new(ann))),
            ),
            ("use_bias".into(), Obj::Bool(true)),
            ("kernel_init".into(), kernel_init),
            ("bias_init".into(), bias_init),
            ("__call__".into(), Obj::native("Dense.__call__", dense_call)),
        ],
    )
}
