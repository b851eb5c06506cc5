//! nnx filters: what `nnx.split`, `nnx.state` and `Optimizer(wrt=...)`
//! select. A filter is a variable type (`nnx.Param`), a tag string, `...`
//! or `True` (everything), `False`/`None` (nothing), a tuple or list (any of
//! them), a predicate `f(path, value)`, or one of the filter objects
//! `OfType`, `WithTag`, `PathContains`, `Any`, `All`, `Not`, `Everything`,
//! `Nothing`, which print as Flax prints them.

use super::*;

/// A filter turned into a predicate (`nnx.filterlib.to_predicate`).
#[derive(Clone)]
pub(super) enum Pred {
    Everything,
    Nothing,
    OfType(Rc<Class>),
    WithTag(String),
    /// The key, and whether a path part must equal it (`exact`) or only
    /// contain it as text.
    PathContains(String, bool),
    Any(Vec<Pred>),
    All(Vec<Pred>),
    Not(Box<Pred>),
    Call(Obj),
}

impl Object for Pred {
    fn type_name(&self) -> String {
        match self {
            Pred::Everything => "Everything",
            Pred::Nothing => "Nothing",
            Pred::OfType(_) => "OfType",
            Pred::WithTag(_) => "WithTag",
            Pred::PathContains(..) => "PathContains",
            Pred::Any(_) => "Any",
            Pred::All(_) => "All",
            Pred::Not(_) => "Not",
            Pred::Call(_) => "function",
        }
        .into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(self.text())
    }

    fn call(&self, interp: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        let path = args.req(Some(0), "path", "filter");
        let value = args.req(Some(1), "x", "filter");
        Some(match (path, value) {
            (Ok(p), Ok(v)) => self.eval(interp, &p, &v).map(Obj::Bool),
            (Err(e), _) | (_, Err(e)) => Err(e),
        })
    }

    fn callable(&self) -> bool {
        true
    }
}

/// The `<class 'flax.nnx.variablelib.Param'>` text of a library class.
pub(super) fn class_text(c: &Rc<Class>) -> String {
    let module = match c.native() {
        Some(_) if is_library_class(c) => "flax.nnx.variablelib.",
        _ => "__main__.",
    };
    format!("<class '{module}{}'>", c.name)
}

fn is_library_class(c: &Rc<Class>) -> bool {
    c.bases.iter().all(|b| b.native().is_some())
        && matches!(
            c.name.as_str(),
            "Variable"
                | "Param"
                | "BatchStat"
                | "Cache"
                | "Intermediate"
                | "OptState"
                | "RngState"
                | "RngKey"
                | "RngCount"
        )
}

impl Pred {
    fn text(&self) -> String {
        let list = |ps: &[Pred]| ps.iter().map(Pred::text).collect::<Vec<_>>().join(", ");
        match self {
            Pred::Everything => "Everything()".into(),
            Pred::Nothing => "Nothing()".into(),
            Pred::OfType(c) => format!("OfType({})", class_text(c)),
            Pred::WithTag(t) => format!("WithTag({})", repr_of(&Obj::str(t))),
            Pred::PathContains(k, exact) => format!(
                "PathContains({}, exact={})",
                repr_of(&Obj::str(k)),
                if *exact { "True" } else { "False" }
            ),
            Pred::Any(ps) => format!("Any({})", list(ps)),
            Pred::All(ps) => format!("All({})", list(ps)),
            Pred::Not(p) => format!("Not({})", p.text()),
            Pred::Call(f) => repr_of(f),
        }
    }

    /// Whether a variable passes, for filters that look at the variable
    /// alone; `None` for predicates that need a path or a call.
    pub(super) fn eval_var(&self, var: &Rc<Instance>) -> Option<bool> {
        Some(match self {
            Pred::Everything => true,
            Pred::Nothing => false,
            Pred::OfType(c) => derives(&var.class, c),
            Pred::WithTag(t) => iattr(var, "tag").is_some_and(|v| str_of(&v) == *t),
            Pred::Any(ps) => {
                let r: Option<Vec<bool>> = ps.iter().map(|p| p.eval_var(var)).collect();
                r?.into_iter().any(|b| b)
            }
            Pred::All(ps) => {
                let r: Option<Vec<bool>> = ps.iter().map(|p| p.eval_var(var)).collect();
                r?.into_iter().all(|b| b)
            }
            Pred::Not(p) => !p.eval_var(var)?,
            Pred::PathContains(..) | Pred::Call(_) => return None,
        })
    }

    /// Whether a variable at `path` passes, for filters that look at the
    /// variable and its path; `None` for predicates that need a call.
    pub(super) fn eval_path(&self, path: &[String], var: &Rc<Instance>) -> Option<bool> {
        Some(match self {
            Pred::PathContains(k, exact) => path_contains(path, k, *exact),
            Pred::Any(ps) => {
                let r: Option<Vec<bool>> = ps.iter().map(|p| p.eval_path(path, var)).collect();
                r?.into_iter().any(|b| b)
            }
            Pred::All(ps) => {
                let r: Option<Vec<bool>> = ps.iter().map(|p| p.eval_path(path, var)).collect();
                r?.into_iter().all(|b| b)
            }
            Pred::Not(p) => !p.eval_path(path, var)?,
            Pred::Call(_) => return None,
            other => other.eval_var(var)?,
        })
    }

    /// Whether the value at `path` (a tuple of keys) passes.
    pub(super) fn eval(&self, interp: &mut Interp, path: &Obj, value: &Obj) -> Result<bool> {
        Ok(match self {
            Pred::Everything => true,
            Pred::Nothing => false,
            Pred::OfType(c) => match value {
                Obj::Instance(i) => derives(&i.class, c),
                Obj::Class(k) => derives(k, c),
                _ => false,
            },
            Pred::WithTag(t) => match value {
                Obj::Instance(i) => iattr(i, "tag").is_some_and(|v| str_of(&v) == *t),
                _ => false,
            },
            Pred::PathContains(k, exact) => {
                let parts: Vec<String> = iterate(path)?.iter().map(str_of).collect();
                path_contains(&parts, k, *exact)
            }
            Pred::Any(ps) => {
                for p in ps {
                    if p.eval(interp, path, value)? {
                        return Ok(true);
                    }
                }
                false
            }
            Pred::All(ps) => {
                for p in ps {
                    if !p.eval(interp, path, value)? {
                        return Ok(false);
                    }
                }
                true
            }
            Pred::Not(p) => !p.eval(interp, path, value)?,
            Pred::Call(f) => {
                let r = interp.call(f, Args::new(vec![path.clone(), value.clone()]))?;
                truthy(&r, "filter")?
            }
        })
    }
}

/// `nnx.filterlib.to_predicate(filter)`.
pub(super) fn to_predicate(f: &Obj) -> Result<Pred> {
    Ok(match f {
        Obj::Ellipsis | Obj::Bool(true) => Pred::Everything,
        Obj::Bool(false) | Obj::None => Pred::Nothing,
        Obj::Class(c) => Pred::OfType(c.clone()),
        Obj::Str(s) => Pred::WithTag(s.to_string()),
        Obj::Tuple(_) | Obj::List(_) => Pred::Any(
            iterate(f)?
                .iter()
                .map(to_predicate)
                .collect::<Result<_>>()?,
        ),
        Obj::Lib(_) if f.downcast::<Pred>().is_some() => {
            f.downcast::<Pred>().cloned().unwrap_or(Pred::Nothing)
        }
        Obj::Func(_) | Obj::Native(_) | Obj::Method(_) => Pred::Call(f.clone()),
        Obj::Instance(i) if i.class.lookup("__call__").is_some() => Pred::Call(f.clone()),
        other => bail!(TypeError, "Invalid collection filter: {}", repr_of(other)),
    })
}

/// The first of `preds` that `value` at `path` passes; with `exhaustive`,
/// passing none is Flax's ValueError (as `split` says).
pub(super) fn first_passing(
    interp: &mut Interp,
    preds: &[Pred],
    path: &[String],
    value: &Obj,
    exhaustive: bool,
) -> Result<Option<usize>> {
    let p = path_obj(path);
    for (k, pred) in preds.iter().enumerate() {
        if pred.eval(interp, &p, value)? {
            return Ok(Some(k));
        }
    }
    if exhaustive {
        bail!(
            ValueError,
            "Non-exhaustive filters, got a non-empty remainder: {} -> {}.\nUse `...` to match all remaining elements.",
            repr_of(&p),
            repr_of(value)
        );
    }
    Ok(None)
}

/// The path of a variable as nnx gives it to filters: a tuple of keys,
/// integers for list positions.
pub(super) fn path_obj(path: &[String]) -> Obj {
    Obj::tuple(
        path.iter()
            .map(|k| match k.parse::<i64>() {
                Ok(i) => Obj::Int(i),
                Err(_) => Obj::str(k),
            })
            .collect(),
    )
}

/// Adds the filter constructors and `filterlib` to `flax.nnx`.
pub(super) fn register(b: &mut Builder) {
    fn preds(a: &Args) -> Result<Vec<Pred>> {
        a.pos.iter().map(to_predicate).collect()
    }
    b.func("OfType", |_, a| {
        Ok(Obj::lib(to_predicate(&a.req(
            Some(0),
            "type",
            "OfType",
        )?)?))
    });
    b.func("WithTag", |_, a| {
        Ok(Obj::lib(Pred::WithTag(str_of(&a.req(
            Some(0),
            "tag",
            "WithTag",
        )?))))
    });
    b.func("PathContains", |_, a| {
        let key = str_of(&a.req(Some(0), "key", "PathContains")?);
        let exact = match a.get(Some(1), "exact") {
            Some(o) => truthy(&o, "exact")?,
            None => true,
        };
        Ok(Obj::lib(Pred::PathContains(key, exact)))
    });
    b.func("Any", |_, a| Ok(Obj::lib(Pred::Any(preds(&a)?))));
    b.func("All", |_, a| Ok(Obj::lib(Pred::All(preds(&a)?))));
    b.func("Not", |_, a| {
        let p = to_predicate(&a.req(Some(0), "filter", "Not")?)?;
        Ok(Obj::lib(Pred::Not(Box::new(p))))
    });
    b.func("Everything", |_, _| Ok(Obj::lib(Pred::Everything)));
    b.func("Nothing", |_, _| Ok(Obj::lib(Pred::Nothing)));
    let mut fl = Builder::new("flax.nnx.filterlib");
    fl.func("to_predicate", |_, a| {
        Ok(Obj::lib(to_predicate(&a.req(
            Some(0),
            "filter",
            "to_predicate",
        )?)?))
    });
    b.attr("filterlib", fl.build());
}

/// `PathContains`: a part equal to `key`, or with `exact=False` a part
/// whose text contains it.
fn path_contains(path: &[String], key: &str, exact: bool) -> bool {
    if exact {
        path.iter().any(|p| p == key)
    } else {
        path.iter().any(|p| p.contains(key))
    }
}
