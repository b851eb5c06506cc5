//! `set_printoptions`, `get_printoptions` and the `printoptions` context
//! manager, shared by `numpy` and `jax.numpy` as in JAX (whose arrays print
//! through NumPy). The options live in the run (`exec::run`), where every
//! array printer reads them.
//!
//! shardlab honours `precision`, `suppress`, `threshold`, `edgeitems` and
//! `linewidth`; the other options are accepted at their defaults and
//! refused by name otherwise, so no array prints differently unannounced.

use crate::array::format::PrintOptions;
use crate::bail;
use crate::error::Result;
use crate::exec::run;
use crate::python::builtins::to_int;
use crate::python::dict::Dict;
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};

use super::super::Builder;

/// Adds the three functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("set_printoptions", |_, a| {
        run::set_print_options(options(&a, run::print_options())?);
        Ok(Obj::None)
    });
    b.func("get_printoptions", |_, _| {
        Ok(as_dict(&run::print_options()))
    });
    b.func("printoptions", |_, a| {
        let set = options(&a, run::print_options())?;
        Ok(Obj::lib(PrintOptionsContext {
            set,
            saved: std::cell::Cell::new(None),
        }))
    });
}

/// The options `a` gives, over `base`.
fn options(a: &Args, base: PrintOptions) -> Result<PrintOptions> {
    let mut o = base;
    let count = |name: &str| -> Result<Option<usize>> {
        match a.opt(None, name) {
            None => Ok(None),
            Some(v) => {
                let n = to_int(&v)?;
                if n < 0 {
                    bail!(ValueError, "{name} must be >= 0");
                }
                Ok(Some(n as usize))
            }
        }
    };
    if let Some(p) = count("precision")? {
        o.precision = p;
    }
    if let Some(n) = count("threshold")? {
        o.threshold = n;
    }
    if let Some(n) = count("edgeitems")? {
        o.edgeitems = n;
    }
    if let Some(n) = count("linewidth")? {
        o.linewidth = n;
    }
    if let Some(s) = a.opt(None, "suppress") {
        o.suppress = crate::python::ops::truthy(&s, "suppress")?;
    }
    // The rest must be their defaults: NumPy's `floatmode='maxprec'`,
    // `sign='-'` and no formatter.
    for (name, default) in [
        ("floatmode", "'maxprec'"),
        ("sign", "'-'"),
        ("nanstr", "'nan'"),
        ("infstr", "'inf'"),
        ("legacy", "False"),
        ("formatter", "None"),
        ("override_repr", "None"),
    ] {
        if let Some(v) = a.get(None, name) {
            if repr_of(&v) != default {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: numpy print option {name}={}",
                    repr_of(&v)
                );
            }
        }
    }
    if !a.pos.is_empty() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: print options given by position"
        );
    }
    Ok(o)
}

/// `np.get_printoptions()`: NumPy's dict, with shardlab's values for the
/// options it honours and NumPy's defaults for the rest.
fn as_dict(o: &PrintOptions) -> Obj {
    let int = |n: usize| Obj::Int(n as i64);
    let entries = [
        ("edgeitems", int(o.edgeitems)),
        ("threshold", int(o.threshold)),
        ("floatmode", Obj::str("maxprec")),
        ("precision", int(o.precision)),
        ("suppress", Obj::Bool(o.suppress)),
        ("linewidth", int(o.linewidth)),
        ("nanstr", Obj::str("nan")),
        ("infstr", Obj::str("inf")),
        ("sign", Obj::str("-")),
        ("formatter", Obj::None),
        ("legacy", Obj::Bool(false)),
        ("override_repr", Obj::None),
    ];
    let mut d = Dict::default();
    for (k, v) in entries {
        d.set(Obj::str(k), v);
    }
    Obj::Dict(std::rc::Rc::new(std::cell::RefCell::new(d)))
}

/// What `np.printoptions(...)` returns: sets the options on `__enter__`
/// and puts back the ones before on `__exit__`.
struct PrintOptionsContext {
    set: PrintOptions,
    saved: std::cell::Cell<Option<PrintOptions>>,
}

impl Object for PrintOptionsContext {
    fn type_name(&self) -> String {
        "_GeneratorContextManager".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("contextlib")
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let this = this.clone();
        Ok(match name {
            "__enter__" => Some(Obj::native("printoptions.__enter__", move |_, _| {
                if let Some(me) = this.downcast::<PrintOptionsContext>() {
                    me.saved.set(Some(run::print_options()));
                    run::set_print_options(me.set);
                    return Ok(as_dict(&me.set));
                }
                Ok(Obj::None)
            })),
            "__exit__" => Some(Obj::native("printoptions.__exit__", move |_, _| {
                if let Some(saved) = this
                    .downcast::<PrintOptionsContext>()
                    .and_then(|me| me.saved.take())
                {
                    run::set_print_options(saved);
                }
                Ok(Obj::Bool(false))
            })),
            _ => None,
        })
    }
}
