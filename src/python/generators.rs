//! Generators: functions whose body contains `yield`.
//!
//! The interpreter walks the syntax tree recursively, so a generator cannot
//! simply stop in the middle of `exec_block` and come back later. Instead a
//! generator runs its body on an explicit stack of [`Frame`]s, one per block
//! it is inside (the body, a `for` or `while` body, an `if` branch, a `try`
//! body, handler or `finally`). Statements that contain no `yield` run with
//! the ordinary interpreter; a statement that does is either a `yield` (the
//! generator suspends with its value), `x = yield v` (it suspends and later
//! assigns what `send` passes), `yield from it`, or a compound statement
//! whose block gets a frame of its own. A `yield` anywhere else (inside an
//! expression, a `with` or a `match`) is refused at its line.
//!
//! Iteration is lazy where it can be: a `for` loop over a generator resumes
//! it once per item, so an infinite data stream works; `list(gen)` and the
//! other consumers that materialise their argument stop at the program's
//! step limit.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use rustpython_ast::Visitor;
use rustpython_parser::ast::{self, Expr, Stmt};

use crate::bail;
use crate::error::{Error, Result};

use super::interp::{Flow, Interp, Scope};
use super::object::Object;
use super::value::{Function, Obj};

/// Finds a `yield` outside nested functions, classes and lambdas.
#[derive(Default)]
struct FindYield {
    found: bool,
}

impl Visitor for FindYield {
    fn visit_expr_yield(&mut self, _: ast::ExprYield) {
        self.found = true;
    }
    fn visit_expr_yield_from(&mut self, _: ast::ExprYieldFrom) {
        self.found = true;
    }
    fn visit_expr_await(&mut self, _: ast::ExprAwait) {}
    fn visit_stmt_function_def(&mut self, _: ast::StmtFunctionDef) {}
    fn visit_stmt_async_function_def(&mut self, _: ast::StmtAsyncFunctionDef) {}
    fn visit_stmt_class_def(&mut self, _: ast::StmtClassDef) {}
    fn visit_expr_lambda(&mut self, _: ast::ExprLambda) {}
}

/// True when `body` yields (so a function with it is a generator function).
pub fn body_yields(body: &[Stmt]) -> bool {
    body.iter().any(stmt_yields)
}

fn stmt_yields(s: &Stmt) -> bool {
    let mut v = FindYield::default();
    v.visit_stmt(s.clone());
    v.found
}

/// One block a generator is inside.
struct Frame {
    body: Rc<Vec<Stmt>>,
    pc: usize,
    kind: Kind,
}

enum Kind {
    /// The function body, an `if` branch, an `else` block.
    Plain,
    /// A `for` body: where its items come from.
    For {
        target: Expr,
        items: Draw,
        orelse: Rc<Vec<Stmt>>,
    },
    /// A `while` body.
    While { test: Expr, orelse: Rc<Vec<Stmt>> },
    /// A `try` body with its clauses.
    Try {
        handlers: Vec<ast::ExceptHandler>,
        orelse: Rc<Vec<Stmt>>,
        finalbody: Rc<Vec<Stmt>>,
    },
    /// An `except` block handling `error`.
    Handler { error: Error },
    /// A `finally` block, with the error to raise again after it.
    Finally { pending: Option<Error> },
    /// `yield from`: where the items still to give come from.
    YieldFrom { items: Draw },
}

/// Where a `for` or a `yield from` inside a generator draws its items: an
/// iterator, advanced one item at a time (so an endless one works), or a
/// finite collection's items.
#[derive(Clone)]
struct Draw(Rc<RefCell<Source>>);

enum Source {
    Lazy(Obj),
    Items(std::vec::IntoIter<Obj>),
}

impl Draw {
    fn new(interp: &mut Interp, it: &Obj) -> Result<Draw> {
        let source = match interp.for_source(it)? {
            Ok(lazy) => Source::Lazy(lazy),
            Err(items) => Source::Items(items.into_iter()),
        };
        Ok(Draw(Rc::new(RefCell::new(source))))
    }

    /// The next item. An iterator is advanced with no borrow held, since
    /// advancing it runs the program's code.
    fn next(&self, interp: &mut Interp) -> Result<Option<Obj>> {
        let lazy = match &mut *self.0.borrow_mut() {
            Source::Items(items) => return Ok(items.next()),
            Source::Lazy(it) => it.clone(),
        };
        interp.next_item(&lazy)
    }
}

/// What a resumed generator did.
enum Step {
    Yielded(Obj),
    Finished,
}

/// A suspended generator.
pub struct Generator {
    func: Rc<Function>,
    scope: Scope,
    state: RefCell<State>,
}

struct State {
    frames: Vec<Frame>,
    /// `x = yield v` waits here for the value `send` passes.
    pending_assign: Option<Vec<Expr>>,
    running: bool,
    done: bool,
    /// Which compound statements contain a `yield`, by address.
    yields: HashMap<usize, bool>,
}

impl Generator {
    /// A generator that will run `func`'s body in `scope` (its parameters
    /// already bound).
    pub fn new(func: Rc<Function>, scope: Scope) -> Generator {
        let body = func.body.clone();
        Generator {
            func,
            scope,
            state: RefCell::new(State {
                frames: vec![Frame {
                    body,
                    pc: 0,
                    kind: Kind::Plain,
                }],
                pending_assign: None,
                running: false,
                done: false,
                yields: HashMap::new(),
            }),
        }
    }
}

impl Object for Generator {
    fn type_name(&self) -> String {
        "generator".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("<generator object {}>", self.func.name))
    }

    fn next(&self, interp: &mut Interp, this: &Obj) -> Option<Result<Option<Obj>>> {
        Some(interp.next_of(this, Obj::None))
    }

    fn is_iterator(&self) -> bool {
        true
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let me = this.clone();
        Ok(match name {
            "send" => Some(Obj::native("generator.send", move |i, a| {
                let v = a.get(Some(0), "value").unwrap_or(Obj::None);
                match i.next_of(&me, v)? {
                    Some(x) => Ok(x),
                    None => Err(i.stop_iteration()),
                }
            })),
            "__next__" => Some(Obj::native("generator.__next__", move |i, _| {
                match i.next_of(&me, Obj::None)? {
                    Some(x) => Ok(x),
                    None => Err(i.stop_iteration()),
                }
            })),
            "__iter__" => Some(Obj::native(
                "generator.__iter__",
                move |_, _| Ok(me.clone()),
            )),
            "close" => Some(Obj::native("generator.close", move |_, _| {
                if let Some(g) = me.downcast::<Generator>() {
                    g.state.borrow_mut().done = true;
                }
                Ok(Obj::None)
            })),
            _ => None,
        })
    }
}

impl Interp {
    /// The error `next()` raises on an exhausted iterator: a `StopIteration`.
    pub fn stop_iteration(&mut self) -> Error {
        self.raise_builtin("StopIteration", "")
    }

    /// The next item of a generator `g` (sending `sent` into it), or None
    /// when it is exhausted.
    pub fn next_of(&mut self, g: &Obj, sent: Obj) -> Result<Option<Obj>> {
        self.drive(g, Ok(sent))
    }

    /// `g.throw(e)`: raises `e` where the generator is suspended; the next
    /// item it yields after handling it, or None when it returns.
    pub fn throw_into(&mut self, g: &Obj, e: Error) -> Result<Option<Obj>> {
        self.drive(g, Err(e))
    }

    fn drive(&mut self, g: &Obj, start: Result<Obj>) -> Result<Option<Obj>> {
        // `yield from` drives the inner generator from here, recursively.
        let _level = super::depth::enter()?;
        let Some(gen) = g.downcast::<Generator>() else {
            bail!(TypeError, "'{}' object is not an iterator", g.type_name());
        };
        {
            let mut st = gen.state.borrow_mut();
            if st.done {
                return Ok(None);
            }
            if st.running {
                bail!(ValueError, "generator already executing");
            }
            st.running = true;
        }
        self.frames.push((gen.func.clone(), gen.scope.clone()));
        let r = match start {
            Ok(sent) => self.resume(gen, sent),
            Err(e) => {
                gen.state.borrow_mut().pending_assign = None;
                match self.unwind(gen, e) {
                    Ok(()) => self.resume(gen, Obj::None),
                    Err(e) => Err(e),
                }
            }
        };
        self.frames.pop();
        let mut st = gen.state.borrow_mut();
        st.running = false;
        match r {
            Ok(Step::Yielded(v)) => Ok(Some(v)),
            Ok(Step::Finished) => {
                st.done = true;
                st.frames.clear();
                Ok(None)
            }
            Err(e) => {
                st.done = true;
                st.frames.clear();
                Err(e)
            }
        }
    }

    fn resume(&mut self, gen: &Generator, sent: Obj) -> Result<Step> {
        let pending = gen.state.borrow_mut().pending_assign.take();
        if let Some(targets) = pending {
            for t in &targets {
                self.assign(t, sent.clone(), &gen.scope)?;
            }
        }
        loop {
            let r = self.step(gen);
            match r {
                Ok(Some(step)) => return Ok(step),
                Ok(None) => {}
                Err(e) => self.unwind(gen, e)?,
            }
        }
    }

    /// Runs one statement (or finishes one block); Some when the generator
    /// yielded or finished.
    fn step(&mut self, gen: &Generator) -> Result<Option<Step>> {
        let (body, pc) = {
            let mut st = gen.state.borrow_mut();
            let Some(top) = st.frames.last_mut() else {
                return Ok(Some(Step::Finished));
            };
            if let Kind::YieldFrom { items } = &top.kind {
                let items = items.clone();
                drop(st);
                if let Some(x) = items.next(self)? {
                    return Ok(Some(Step::Yielded(x)));
                }
                gen.state.borrow_mut().frames.pop();
                return Ok(None);
            }
            if top.pc >= top.body.len() {
                drop(st);
                self.finish_block(gen)?;
                return Ok(None);
            }
            top.pc += 1;
            (top.body.clone(), top.pc - 1)
        };
        self.gen_stmt(gen, &body[pc])
    }

    fn yields(&mut self, gen: &Generator, s: &Stmt) -> bool {
        let key = s as *const Stmt as usize;
        if let Some(&y) = gen.state.borrow().yields.get(&key) {
            return y;
        }
        let y = stmt_yields(s);
        gen.state.borrow_mut().yields.insert(key, y);
        y
    }

    fn push(gen: &Generator, body: &[Stmt], pc_at_end: bool, kind: Kind) {
        let body = Rc::new(body.to_vec());
        let pc = if pc_at_end { body.len() } else { 0 };
        gen.state.borrow_mut().frames.push(Frame { body, pc, kind });
    }

    fn gen_stmt(&mut self, gen: &Generator, s: &Stmt) -> Result<Option<Step>> {
        let scope = gen.scope.clone();
        match s {
            Stmt::Expr(e) => match &*e.value {
                Expr::Yield(y) => {
                    let v = match &y.value {
                        Some(v) => self.eval(v, &scope)?,
                        None => Obj::None,
                    };
                    return Ok(Some(Step::Yielded(v)));
                }
                Expr::YieldFrom(y) => {
                    let it = self.eval(&y.value, &scope)?;
                    let kind = Kind::YieldFrom {
                        items: Draw::new(self, &it)?,
                    };
                    Self::push(gen, &[], false, kind);
                    return Ok(None);
                }
                _ => {}
            },
            Stmt::Assign(a) => {
                if let Expr::Yield(y) = &*a.value {
                    let v = match &y.value {
                        Some(v) => self.eval(v, &scope)?,
                        None => Obj::None,
                    };
                    gen.state.borrow_mut().pending_assign = Some(a.targets.clone());
                    return Ok(Some(Step::Yielded(v)));
                }
            }
            _ => {}
        }
        if !self.yields(gen, s) {
            return self.plain_stmt(gen, s);
        }
        self.compound(gen, s, &scope)?;
        Ok(None)
    }

    /// A compound statement with a `yield` inside: its block gets a frame.
    fn compound(&mut self, gen: &Generator, s: &Stmt, scope: &Scope) -> Result<()> {
        match s {
            Stmt::If(i) => {
                let c = self.eval(&i.test, scope)?;
                let branch = if self.truth(&c, "the condition of an if statement")? {
                    &i.body
                } else {
                    &i.orelse
                };
                Self::push(gen, branch, false, Kind::Plain);
            }
            Stmt::For(f) => {
                let it = self.eval(&f.iter, scope)?;
                let kind = Kind::For {
                    target: (*f.target).clone(),
                    items: Draw::new(self, &it)?,
                    orelse: Rc::new(f.orelse.clone()),
                };
                Self::push(gen, &f.body, true, kind);
            }
            Stmt::While(w) => {
                let kind = Kind::While {
                    test: (*w.test).clone(),
                    orelse: Rc::new(w.orelse.clone()),
                };
                Self::push(gen, &w.body, true, kind);
            }
            Stmt::Try(t) => {
                let kind = Kind::Try {
                    handlers: t.handlers.clone(),
                    orelse: Rc::new(t.orelse.clone()),
                    finalbody: Rc::new(t.finalbody.clone()),
                };
                Self::push(gen, &t.body, false, kind);
            }
            _ => bail!(
                NotImplementedError,
                "not supported by shardlab yet: yield inside this statement (only in a plain `yield`, `x = yield`, `yield from`, and inside if, for, while and try blocks)"
            ),
        }
        Ok(())
    }

    /// A statement without `yield`, run by the ordinary interpreter.
    fn plain_stmt(&mut self, gen: &Generator, s: &Stmt) -> Result<Option<Step>> {
        let scope = gen.scope.clone();
        match self.exec_block(std::slice::from_ref(s), &scope)? {
            Flow::Normal => Ok(None),
            Flow::Return(_) => Ok(Some(Step::Finished)),
            flow @ (Flow::Break | Flow::Continue) => {
                let mut st = gen.state.borrow_mut();
                while let Some(top) = st.frames.last_mut() {
                    match top.kind {
                        Kind::For { .. } | Kind::While { .. } => {
                            if matches!(flow, Flow::Break) {
                                st.frames.pop();
                            } else {
                                top.pc = top.body.len();
                            }
                            return Ok(None);
                        }
                        _ => {
                            st.frames.pop();
                        }
                    }
                }
                bail!(SyntaxError, "'break' outside loop")
            }
        }
    }

    /// The top frame's block has run to its end.
    fn finish_block(&mut self, gen: &Generator) -> Result<()> {
        let scope = gen.scope.clone();
        let Some(frame) = gen.state.borrow_mut().frames.pop() else {
            return Ok(());
        };
        match frame.kind {
            Kind::Plain | Kind::YieldFrom { .. } => {}
            Kind::For {
                target,
                items,
                orelse,
            } => {
                if let Some(x) = items.next(self)? {
                    self.tick()?;
                    self.assign(&target, x, &scope)?;
                    let body = frame.body.clone();
                    let kind = Kind::For {
                        target,
                        items,
                        orelse,
                    };
                    gen.state
                        .borrow_mut()
                        .frames
                        .push(Frame { body, pc: 0, kind });
                } else {
                    Self::push(gen, &orelse, false, Kind::Plain);
                }
            }
            Kind::While { test, orelse } => {
                let c = self.eval(&test, &scope)?;
                if self.truth(&c, "the condition of a while loop")? {
                    let body = frame.body.clone();
                    let kind = Kind::While { test, orelse };
                    gen.state
                        .borrow_mut()
                        .frames
                        .push(Frame { body, pc: 0, kind });
                } else {
                    Self::push(gen, &orelse, false, Kind::Plain);
                }
            }
            Kind::Try {
                orelse, finalbody, ..
            } => {
                Self::push(gen, &finalbody, false, Kind::Finally { pending: None });
                Self::push(gen, &orelse, false, Kind::Plain);
            }
            Kind::Handler { error } => {
                self.handling.pop();
                self.forget_raised(&error);
            }
            Kind::Finally { pending } => {
                if let Some(e) = pending {
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// An error inside the generator: the innermost `try` frame handles it
    /// (or runs its `finally` first), else it ends the generator.
    fn unwind(&mut self, gen: &Generator, e: Error) -> Result<()> {
        loop {
            let Some(frame) = gen.state.borrow_mut().frames.pop() else {
                return Err(e);
            };
            match frame.kind {
                Kind::Try {
                    handlers,
                    finalbody,
                    ..
                } => {
                    let scope = gen.scope.clone();
                    for h in &handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = h;
                        let matches = match &h.type_ {
                            None => true,
                            Some(ty) => {
                                let ty = self.eval(ty, &scope)?;
                                self.exception_matches(&ty, &e)?
                            }
                        };
                        if matches {
                            Self::push(gen, &finalbody, false, Kind::Finally { pending: None });
                            if let Some(n) = &h.name {
                                let obj = self.exception_object(&e);
                                self.set_var(&scope, n.as_str(), obj);
                            }
                            self.err_loc = None;
                            self.handling.push(e.clone());
                            Self::push(gen, &h.body, false, Kind::Handler { error: e });
                            return Ok(());
                        }
                    }
                    Self::push(gen, &finalbody, false, Kind::Finally { pending: Some(e) });
                    return Ok(());
                }
                Kind::Handler { .. } => {
                    self.handling.pop();
                }
                _ => {}
            }
        }
    }

    /// Calls a generator function: binds its parameters and returns the
    /// generator without running its body.
    pub fn make_generator(&mut self, func: &Rc<Function>, scope: Scope) -> Obj {
        Obj::lib(Generator::new(func.clone(), scope))
    }
}
