//! linen's variable collections besides `params`: `self.variable(col,
//! name, init_fn, *args)` and its `.value`, `has_variable`,
//! `is_mutable_collection`, `sow`, `Module.path`, and the `mutable` filter
//! of `init`/`apply`.
//!
//! Every collection lives in the run's variables (`{col: {path...: {name:
//! value}}}`), so a variable is only its collection, path and name: reading
//! `.value` looks the entry up, assigning it writes the entry when the run
//! may change that collection, which is what lets `apply(...,
//! mutable=['batch_stats'])` hand back the updated collections. `init`
//! may change every collection but `intermediates` (Flax's default
//! `DenyList('intermediates')`), so `sow` records nothing there.

use super::linen::{module_path, nested_get, nested_make, with_run};
use super::*;
use crate::error::ErrorKind;

/// Which collections a run may change: Flax's collection filter.
#[derive(Clone)]
pub(super) enum Filter {
    /// `False`.
    Nothing,
    /// `True`.
    Everything,
    /// A name or a list of names.
    Only(Vec<String>),
    /// Every collection but these.
    AllBut(Vec<String>),
}

impl Filter {
    /// The filter `mutable=` names.
    pub(super) fn parse(o: &Obj) -> Result<Filter> {
        Ok(match o {
            Obj::Bool(false) => Filter::Nothing,
            Obj::Bool(true) => Filter::Everything,
            Obj::Str(s) => Filter::Only(vec![s.to_string()]),
            Obj::List(_) | Obj::Tuple(_) | Obj::Set(_) => {
                let mut names = vec![];
                for n in iterate(o)? {
                    match n {
                        Obj::Str(s) => names.push(s.to_string()),
                        other => bail!(
                            NotImplementedError,
                            "not supported by shardlab yet: a collection filter holding {}",
                            other.type_name()
                        ),
                    }
                }
                Filter::Only(names)
            }
            other => bail!(
                NotImplementedError,
                "not supported by shardlab yet: the collection filter {}",
                repr_of(other)
            ),
        })
    }

    /// `init`'s default.
    pub(super) fn all_but_intermediates() -> Filter {
        Filter::AllBut(vec!["intermediates".into()])
    }

    /// Whether the collection `col` passes.
    pub(super) fn allows(&self, col: &str) -> bool {
        match self {
            Filter::Nothing => false,
            Filter::Everything => true,
            Filter::Only(names) => names.iter().any(|n| n == col),
            Filter::AllBut(names) => !names.iter().any(|n| n == col),
        }
    }

    /// The collections of `vars` that pass, as a new dict of the same
    /// collections.
    pub(super) fn select(&self, vars: &Rc<RefCell<Dict>>) -> Obj {
        let mut out = Dict::default();
        for (k, v) in vars.borrow().items.iter() {
            if self.allows(&str_of(k)) {
                out.set(k.clone(), v.clone());
            }
        }
        Obj::Dict(Rc::new(RefCell::new(out)))
    }
}

/// `capture_intermediates=True` is not modelled; `False` changes nothing.
pub(super) fn refuse_capture(a: &Args) -> Result<()> {
    if let Some(c) = a.opt(None, "capture_intermediates") {
        if truthy(&c, "capture_intermediates")? {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: capture_intermediates"
            );
        }
    }
    Ok(())
}

/// A message of one of Flax's errors, with the link Flax adds.
pub(super) fn flax_message(kind: ErrorKind, text: String) -> crate::error::Error {
    let class = kind.python_name();
    crate::error::Error::new(
        kind,
        format!("{text} (https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html#flax.errors.{class})"),
    )
}

fn path_text(path: &[String]) -> String {
    format!("/{}", path.join("/"))
}

/// The entry `name` of the collection `col` at `path`, if there is one.
fn lookup(vars: &Rc<RefCell<Dict>>, col: &str, path: &[String], name: &str) -> Option<Obj> {
    let mut full = vec![col.to_string()];
    full.extend(path.iter().cloned());
    nested_get(vars, &full).and_then(|d| d.borrow().get(&Obj::str(name)))
}

fn store(vars: &Rc<RefCell<Dict>>, col: &str, path: &[String], name: &str, v: Obj) {
    let mut full = vec![col.to_string()];
    full.extend(path.iter().cloned());
    nested_make(vars, &full).borrow_mut().set(Obj::str(name), v);
}

fn run_vars(interp: &mut Interp) -> Result<(Rc<RefCell<Dict>>, Filter)> {
    with_run(interp, |run| {
        Ok((run.variables.clone(), run.mutable.clone()))
    })
}

/// The error for reading a variable its collection lacks.
fn not_found(
    vars: &Rc<RefCell<Dict>>,
    col: &str,
    path: &[String],
    name: &str,
) -> crate::error::Error {
    let empty = match vars.borrow().get(&Obj::str(col)) {
        Some(Obj::Dict(d)) => d.borrow().is_empty(),
        _ => true,
    };
    let at = path_text(path);
    if empty {
        flax_message(
            ErrorKind::ScopeCollectionNotFound,
            format!("Tried to access \"{name}\" from collection \"{col}\" in \"{at}\" but the collection is empty."),
        )
    } else {
        flax_message(
            ErrorKind::ScopeVariableNotFoundError,
            format!("No Variable named \"{name}\" for collection \"{col}\" exists in \"{at}\"."),
        )
    }
}

/// What makes a missing variable's value.
pub(super) type InitFn<'a> = &'a dyn Fn(&mut Interp) -> Result<Obj>;

/// The entry `name` of `col` in `me`'s scope, made by `init` when it is
/// missing and the run may change `col` (Flax's errors otherwise).
pub(super) fn read_or_init(
    interp: &mut Interp,
    me: &Rc<Instance>,
    col: &str,
    name: &str,
    init: Option<InitFn>,
) -> Result<Obj> {
    let path = module_path(interp, me)?;
    let (vars, mutable) = run_vars(interp)?;
    if let Some(v) = lookup(&vars, col, &path, name) {
        return Ok(v);
    }
    let Some(init) = init.filter(|_| mutable.allows(col)) else {
        return Err(not_found(&vars, col, &path, name));
    };
    let v = init(interp)?;
    store(&vars, col, &path, name, v.clone());
    Ok(v)
}

/// Writes the entry `name` of `col` in the scope at `path`, when the run
/// may change `col`.
fn write(interp: &mut Interp, col: &str, path: &[String], name: &str, v: Obj) -> Result<()> {
    let (vars, mutable) = run_vars(interp)?;
    if !mutable.allows(col) {
        return Err(flax_message(
            ErrorKind::ModifyScopeVariableError,
            format!(
                "Cannot update variable \"{name}\" in \"{}\" because collection \"{col}\" is immutable.",
                path_text(path)
            ),
        ));
    }
    store(&vars, col, path, name, v);
    Ok(())
}

/// Writes the entry `name` of `col` in `me`'s scope.
pub(super) fn write_variable(
    interp: &mut Interp,
    me: &Rc<Instance>,
    col: &str,
    name: &str,
    v: Obj,
) -> Result<()> {
    let path = module_path(interp, me)?;
    write(interp, col, &path, name, v)
}

/// `self.variable(col, name, init_fn=None, *init_args, **init_kwargs)`.
fn variable(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "variable")?;
    let col = str_of(&a.req(Some(1), "col", "variable")?);
    let name = str_of(&a.req(Some(2), "name", "variable")?);
    let init_fn = a
        .opt(Some(3), "init_fn")
        .filter(|f| !matches!(f, Obj::None));
    let rest = a.pos.get(4..).map(|r| r.to_vec()).unwrap_or_default();
    let kw: Vec<(String, Obj)> =
        a.kw.iter()
            .filter(|(k, _)| !matches!(k.as_str(), "init_fn" | "unbox"))
            .cloned()
            .collect();
    let init =
        init_fn.map(|f| move |i: &mut Interp| i.call(&f, Args::with(rest.clone(), kw.clone())));
    let init_ref = init
        .as_ref()
        .map(|f| f as &dyn Fn(&mut Interp) -> Result<Obj>);
    read_or_init(interp, &me, &col, &name, init_ref)?;
    let path = module_path(interp, &me)?;
    let class = variable_class(interp);
    Ok(instance(
        &class,
        vec![
            ("collection".into(), Obj::str(&col)),
            ("name".into(), Obj::str(&name)),
            (
                "_linen_path".into(),
                Obj::tuple(path.iter().map(Obj::str).collect()),
            ),
        ],
    ))
}

/// The collection, path and name of a variable.
fn where_of(v: &Instance) -> (String, Vec<String>, String) {
    let text = |n: &str| iattr(v, n).map(|o| str_of(&o)).unwrap_or_default();
    let path = match iattr(v, "_linen_path") {
        Some(Obj::Tuple(t)) => t.iter().map(str_of).collect(),
        _ => vec![],
    };
    (text("collection"), path, text("name"))
}

/// What a linen `Variable` does: `.value` reads its entry.
struct VariableNode;

impl Object for VariableNode {
    fn type_name(&self) -> String {
        "Variable".into()
    }

    fn getattr(&self, interp: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let Obj::Instance(v) = this else {
            return Ok(None);
        };
        if name != "value" {
            return Ok(None);
        }
        let (col, path, n) = where_of(v);
        let (vars, _) = run_vars(interp)?;
        match lookup(&vars, &col, &path, &n) {
            Some(x) => Ok(Some(x)),
            None => Err(not_found(&vars, &col, &path, &n)),
        }
    }
}

/// `variable.value = x`: writes the entry, when the run may change the
/// collection.
fn set_value(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Variable.__setattr__")?;
    let attr = str_of(&a.req(Some(1), "name", "__setattr__")?);
    let v = a.req(Some(2), "value", "__setattr__")?;
    if attr != "value" {
        set_iattr(&me, &attr, v);
        return Ok(Obj::None);
    }
    let (col, path, name) = where_of(&me);
    write(interp, &col, &path, &name, v)?;
    Ok(Obj::None)
}

/// The run's linen `Variable` class, made once per run.
#[derive(Default)]
struct VariableClass(Option<Rc<Class>>);

fn variable_class(interp: &mut Interp) -> Rc<Class> {
    if let Some(c) = &interp.state::<VariableClass>().0 {
        return c.clone();
    }
    let mut class = Class::new(
        "Variable",
        vec![],
        vec![(
            "__setattr__".into(),
            Obj::native("Variable.__setattr__", set_value),
        )],
    );
    class.native = Some(Rc::new(VariableNode));
    let class = Rc::new(class);
    interp.cycles.class(&class);
    interp.state::<VariableClass>().0 = Some(class.clone());
    class
}

/// `self.sow(col, name, value, reduce_fn=append, init_fn=tuple)`: adds
/// `value` to the entry when the run may change `col`; returns whether it
/// did.
fn sow(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "sow")?;
    let col = str_of(&a.req(Some(1), "col", "sow")?);
    let name = str_of(&a.req(Some(2), "name", "sow")?);
    let value = a.req(Some(3), "value", "sow")?;
    let path = module_path(interp, &me)?;
    let (vars, mutable) = run_vars(interp)?;
    if !mutable.allows(&col) {
        return Ok(Obj::Bool(false));
    }
    let start = match lookup(&vars, &col, &path, &name) {
        Some(x) => x,
        None => match a.opt(Some(5), "init_fn") {
            Some(f) => interp.call(&f, Args::default())?,
            None => Obj::tuple(vec![]),
        },
    };
    let next = match a.opt(Some(4), "reduce_fn") {
        Some(f) => interp.call(&f, Args::new(vec![start, value]))?,
        None => {
            let mut items = iterate(&start)?;
            items.push(value);
            Obj::tuple(items)
        }
    };
    store(&vars, &col, &path, &name, next);
    Ok(Obj::Bool(true))
}

/// `has_variable(col, name)` and `is_mutable_collection(col)`.
fn has_variable(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "has_variable")?;
    let col = str_of(&a.req(Some(1), "col", "has_variable")?);
    let name = str_of(&a.req(Some(2), "name", "has_variable")?);
    let path = module_path(interp, &me)?;
    let (vars, _) = run_vars(interp)?;
    Ok(Obj::Bool(lookup(&vars, &col, &path, &name).is_some()))
}

/// The methods `nn.Module` gains for collections, and its `path`.
pub(super) fn module_methods() -> Vec<(String, Obj)> {
    let path = Obj::native("Module.path", |interp, a| {
        let me = self_arg(&a, "path")?;
        if !interp_in_run(interp) {
            bail!(ValueError, "Can't access module paths on unbound modules.");
        }
        let p = module_path(interp, &me)?;
        Ok(Obj::tuple(p.iter().map(Obj::str).collect()))
    });
    let mut methods: Vec<(String, Obj)> = ["bind", "unbind", "tabulate", "lazy_init", "perturb"]
        .iter()
        .map(|n| {
            let name = n.to_string();
            let refusal = Obj::native(format!("Module.{n}"), move |_, _| {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: flax.linen.Module.{name}"
                )
            });
            (n.to_string(), refusal)
        })
        .collect();
    methods.extend([
        (
            "get_variable".into(),
            Obj::native("Module.get_variable", get_variable),
        ),
        (
            "put_variable".into(),
            Obj::native("Module.put_variable", put_variable),
        ),
        ("variable".into(), Obj::native("Module.variable", variable)),
        ("sow".into(), Obj::native("Module.sow", sow)),
        (
            "has_variable".into(),
            Obj::native("Module.has_variable", has_variable),
        ),
        (
            "is_mutable_collection".into(),
            Obj::native("Module.is_mutable_collection", |interp, a| {
                let col = str_of(&a.req(Some(1), "col", "is_mutable_collection")?);
                let (_, mutable) = run_vars(interp)?;
                Ok(Obj::Bool(mutable.allows(&col)))
            }),
        ),
        (
            "path".into(),
            Obj::lib(crate::python::classes::Property {
                fget: path,
                fset: None,
            }),
        ),
    ]);
    methods
}

/// `self.get_variable(col, name, default=None)`.
fn get_variable(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "get_variable")?;
    let col = str_of(&a.req(Some(1), "col", "get_variable")?);
    let name = str_of(&a.req(Some(2), "name", "get_variable")?);
    let path = module_path(interp, &me)?;
    let (vars, _) = run_vars(interp)?;
    Ok(lookup(&vars, &col, &path, &name)
        .or_else(|| a.opt(Some(3), "default"))
        .unwrap_or(Obj::None))
}

/// `self.put_variable(col, name, value)`, when the run may change `col`.
fn put_variable(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "put_variable")?;
    let col = str_of(&a.req(Some(1), "col", "put_variable")?);
    let name = str_of(&a.req(Some(2), "name", "put_variable")?);
    let v = a.req(Some(3), "value", "put_variable")?;
    write_variable(interp, &me, &col, &name, v)?;
    Ok(Obj::None)
}

fn interp_in_run(interp: &mut Interp) -> bool {
    with_run(interp, |_| Ok(())).is_ok()
}
