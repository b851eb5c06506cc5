//! `contextlib`: `nullcontext`, `suppress`, `closing`, `ExitStack` and
//! `contextmanager`, as classes with `__enter__`/`__exit__`.

use std::rc::Rc;

use crate::bail;
use crate::error::Result;

use crate::modules::Builder;
use crate::python::interp::Interp;
use crate::python::ops::{getattr, setattr, truthy};
use crate::python::value::{Args, Class, Obj};

/// The `contextlib` module.
pub fn module() -> Obj {
    Builder::new("contextlib")
        .attr("nullcontext", nullcontext())
        .attr("suppress", suppress())
        .attr("closing", closing())
        .attr("ExitStack", exit_stack())
        .func("contextmanager", contextmanager)
        .build()
}

fn class(name: &str, methods: Vec<(&str, Obj)>) -> Obj {
    let attrs = methods
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    Obj::Class(Rc::new(Class::new(name, vec![], attrs)))
}

fn this(a: &Args) -> Result<Obj> {
    match a.pos.first() {
        Some(o) => Ok(o.clone()),
        None => bail!(TypeError, "a method was called without its instance"),
    }
}

fn field(interp: &mut Interp, a: &Args, name: &str) -> Result<Obj> {
    getattr(interp, &this(a)?, name)
}

/// `nullcontext(enter_result=None)`: `with` gives `enter_result` and does nothing.
fn nullcontext() -> Obj {
    class(
        "nullcontext",
        vec![
            (
                "__init__",
                Obj::native("nullcontext.__init__", |_, a| {
                    let v = a.get(Some(1), "enter_result").unwrap_or(Obj::None);
                    setattr(&this(&a)?, "enter_result", v)?;
                    Ok(Obj::None)
                }),
            ),
            (
                "__enter__",
                Obj::native("nullcontext.__enter__", |i, a| field(i, &a, "enter_result")),
            ),
            (
                "__exit__",
                Obj::native("nullcontext.__exit__", |_, _| Ok(Obj::None)),
            ),
        ],
    )
}

/// True when the exception class `ty` is `target` (a class or a tuple of
/// them) or derives from it.
fn exception_is(ty: &Obj, target: &Obj) -> bool {
    match (ty, target) {
        (_, Obj::Tuple(t)) => t.iter().any(|x| exception_is(ty, x)),
        (Obj::Class(a), Obj::Class(b)) => crate::python::exceptions::derives(a, b),
        _ => false,
    }
}

/// `suppress(*exceptions)`: `with` swallows those exceptions.
fn suppress() -> Obj {
    class(
        "suppress",
        vec![
            (
                "__init__",
                Obj::native("suppress.__init__", |_, a| {
                    let excs = Obj::tuple(a.pos.iter().skip(1).cloned().collect());
                    setattr(&this(&a)?, "_exceptions", excs)?;
                    Ok(Obj::None)
                }),
            ),
            (
                "__enter__",
                Obj::native("suppress.__enter__", |_, _| Ok(Obj::None)),
            ),
            (
                "__exit__",
                Obj::native("suppress.__exit__", |i, a| {
                    let ty = a.pos.get(1).cloned().unwrap_or(Obj::None);
                    if matches!(ty, Obj::None) {
                        return Ok(Obj::Bool(false));
                    }
                    let excs = field(i, &a, "_exceptions")?;
                    Ok(Obj::Bool(exception_is(&ty, &excs)))
                }),
            ),
        ],
    )
}

/// `closing(thing)`: `with` gives `thing` and calls `thing.close()` at the end.
fn closing() -> Obj {
    class(
        "closing",
        vec![
            (
                "__init__",
                Obj::native("closing.__init__", |_, a| {
                    let thing = a.req(Some(1), "thing", "closing")?;
                    setattr(&this(&a)?, "thing", thing)?;
                    Ok(Obj::None)
                }),
            ),
            (
                "__enter__",
                Obj::native("closing.__enter__", |i, a| field(i, &a, "thing")),
            ),
            (
                "__exit__",
                Obj::native("closing.__exit__", |i, a| {
                    let thing = field(i, &a, "thing")?;
                    let close = getattr(i, &thing, "close")?;
                    i.call(&close, Args::default())?;
                    Ok(Obj::None)
                }),
            ),
        ],
    )
}

/// The callbacks an `ExitStack` holds, innermost last.
fn callbacks(interp: &mut Interp, a: &Args) -> Result<Obj> {
    field(interp, a, "_exit_callbacks")
}

fn push_callback(interp: &mut Interp, a: &Args, cb: Obj) -> Result<()> {
    if let Obj::List(l) = callbacks(interp, a)? {
        l.borrow_mut().push(cb);
    }
    Ok(())
}

/// Runs the callbacks in reverse with the exception (None when there is
/// none); true when one of them suppressed it.
fn unwind(interp: &mut Interp, a: &Args, exc: [Obj; 3]) -> Result<bool> {
    let Obj::List(l) = callbacks(interp, a)? else {
        return Ok(false);
    };
    let mut suppressed = false;
    loop {
        let cb = l.borrow_mut().pop();
        let Some(cb) = cb else { break };
        let args = if suppressed {
            vec![Obj::None, Obj::None, Obj::None]
        } else {
            exc.to_vec()
        };
        let r = interp.call(&cb, Args::new(args))?;
        if truthy(&r, "an __exit__ result")? {
            suppressed = true;
        }
    }
    Ok(suppressed)
}

/// `ExitStack()`: `enter_context`, `callback`, `push`, `pop_all`, `close`.
fn exit_stack() -> Obj {
    let mut methods: Vec<(&str, Obj)> = vec![
        (
            "__init__",
            Obj::native("ExitStack.__init__", |_, a| {
                setattr(&this(&a)?, "_exit_callbacks", Obj::list(vec![]))?;
                Ok(Obj::None)
            }),
        ),
        (
            "__enter__",
            Obj::native("ExitStack.__enter__", |_, a| this(&a)),
        ),
        (
            "__exit__",
            Obj::native("ExitStack.__exit__", |i, a| {
                let exc = [1, 2, 3].map(|k| a.pos.get(k).cloned().unwrap_or(Obj::None));
                let had = !matches!(exc[0], Obj::None);
                Ok(Obj::Bool(unwind(i, &a, exc)? && had))
            }),
        ),
    ];
    methods.extend(exit_stack_pushes());
    class("ExitStack", methods)
}

/// `ExitStack`'s ways of adding callbacks and of running them early.
fn exit_stack_pushes() -> Vec<(&'static str, Obj)> {
    vec![
        (
            "enter_context",
            Obj::native("ExitStack.enter_context", |i, a| {
                let cm = a.req(Some(1), "cm", "enter_context")?;
                let (enter, exit) =
                    match (getattr(i, &cm, "__enter__"), getattr(i, &cm, "__exit__")) {
                        (Ok(e), Ok(x)) => (e, x),
                        _ => bail!(
                            TypeError,
                            "'{}' object does not support the context manager protocol",
                            cm.type_name()
                        ),
                    };
                let v = i.call(&enter, Args::default())?;
                push_callback(i, &a, exit)?;
                Ok(v)
            }),
        ),
        (
            "push",
            Obj::native("ExitStack.push", |i, a| {
                let exit = a.req(Some(1), "exit", "push")?;
                let cb = getattr(i, &exit, "__exit__").unwrap_or_else(|_| exit.clone());
                push_callback(i, &a, cb)?;
                Ok(exit)
            }),
        ),
        (
            "callback",
            Obj::native("ExitStack.callback", |i, a| {
                let f = a.req(Some(1), "callback", "callback")?;
                let (pos, kw) = (a.pos.get(2..).unwrap_or(&[]).to_vec(), a.kw.clone());
                let g = f.clone();
                let cb = Obj::native("ExitStack.callback", move |i, _| {
                    i.call(&g, Args::with(pos.clone(), kw.clone()))?;
                    Ok(Obj::None)
                });
                push_callback(i, &a, cb)?;
                Ok(f)
            }),
        ),
        (
            "pop_all",
            Obj::native("ExitStack.pop_all", |i, a| {
                let Obj::List(l) = callbacks(i, &a)? else {
                    bail!(TypeError, "not an ExitStack");
                };
                let taken = std::mem::take(&mut *l.borrow_mut());
                let class = getattr(i, &this(&a)?, "__class__")?;
                let fresh = i.call(&class, Args::default())?;
                setattr(&fresh, "_exit_callbacks", Obj::list(taken))?;
                Ok(fresh)
            }),
        ),
        (
            "close",
            Obj::native("ExitStack.close", |i, a| {
                unwind(i, &a, [Obj::None, Obj::None, Obj::None])?;
                Ok(Obj::None)
            }),
        ),
    ]
}

/// `@contextmanager`: a generator function becomes a context-manager
/// factory; `with` runs the generator to its `yield` (whose value `as`
/// binds), then on leaving resumes it, or raises the block's exception at
/// the `yield` so that the generator's `try`/`except`/`finally` see it.
fn contextmanager(_: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "func", "contextmanager")?;
    let cm = class(
        "_GeneratorContextManager",
        vec![
            (
                "__enter__",
                Obj::native("_GeneratorContextManager.__enter__", |i, a| {
                    let gen = field(i, &a, "gen")?;
                    match i.next_of(&gen, Obj::None)? {
                        Some(v) => Ok(v),
                        None => bail!(RuntimeError, "generator didn't yield"),
                    }
                }),
            ),
            (
                "__exit__",
                Obj::native("_GeneratorContextManager.__exit__", generator_exit),
            ),
        ],
    );
    Ok(Obj::native("contextmanager", move |i, call| {
        let gen = i.call(&f, call)?;
        let inst = i.call(&cm, Args::default())?;
        setattr(&inst, "gen", gen)?;
        Ok(inst)
    }))
}

fn generator_exit(i: &mut Interp, a: Args) -> Result<Obj> {
    let gen = field(i, &a, "gen")?;
    let exc = a.pos.get(2).cloned().unwrap_or(Obj::None);
    if matches!(exc, Obj::None) {
        return match i.next_of(&gen, Obj::None)? {
            Some(_) => bail!(RuntimeError, "generator didn't stop"),
            None => Ok(Obj::Bool(false)),
        };
    }
    let error = i.raise(exc.clone())?;
    match i.throw_into(&gen, error) {
        Ok(Some(_)) => bail!(RuntimeError, "generator didn't stop after throw()"),
        // The generator handled the exception: the `with` block swallows it.
        Ok(None) => Ok(Obj::Bool(true)),
        Err(e) => {
            let same = match (&e.raised, &exc) {
                (Some(r), Obj::Instance(x)) => {
                    matches!(i.exceptions_object(r.id), Some(Obj::Instance(y)) if Rc::ptr_eq(x, &y))
                }
                _ => false,
            };
            if same {
                // Not handled: `with` raises the original exception.
                Ok(Obj::Bool(false))
            } else {
                Err(e)
            }
        }
    }
}
