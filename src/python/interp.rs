//! The tree-walking interpreter: statements, expressions, calls and scopes.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use rustpython_parser::ast::{self, Constant, Expr, Ranged, Stmt};

use crate::error::{Error, ErrorKind, Result};
use crate::{bail, err};

use super::format;
use super::import::Library;
use super::ops;
use super::parse::Lines;
use super::value::{Args, Class, Dict, Function, Instance, Obj};

/// Most statements and calls a program may execute before it is stopped.
pub const DEFAULT_MAX_STEPS: u64 = 20_000_000;

/// A variable scope: a function's locals (or the globals) and its parent.
pub type Scope = Rc<ScopeData>;

/// Variables of one scope.
pub struct ScopeData {
    /// The variables.
    pub vars: RefCell<HashMap<String, Obj>>,
    /// The enclosing scope (None for the globals).
    pub parent: Option<Scope>,
    /// Names declared `global` here.
    pub globals: RefCell<HashSet<String>>,
    /// Names declared `nonlocal` here.
    pub nonlocals: RefCell<HashSet<String>>,
    /// A class body's class, by qualified name (`Outer.Inner`); functions
    /// defined in a class body do not see its names.
    pub class_body: Option<String>,
    /// A class body's names in the order they were first bound (a class's
    /// attributes keep definition order, as its `__dict__` does).
    pub order: RefCell<Vec<String>>,
}

impl ScopeData {
    /// A new scope inside `parent`.
    pub fn new(parent: Option<Scope>) -> Scope {
        Rc::new(ScopeData {
            vars: RefCell::new(HashMap::new()),
            parent,
            globals: RefCell::new(HashSet::new()),
            nonlocals: RefCell::new(HashSet::new()),
            class_body: None,
            order: RefCell::new(vec![]),
        })
    }

    /// The scope of the body of the class `qualname` inside `parent`.
    pub fn class_body(parent: Scope, qualname: String) -> Scope {
        Rc::new(ScopeData {
            vars: RefCell::new(HashMap::new()),
            parent: Some(parent),
            globals: RefCell::new(HashSet::new()),
            nonlocals: RefCell::new(HashSet::new()),
            class_body: Some(qualname),
            order: RefCell::new(vec![]),
        })
    }
}

/// How a statement finished.
pub enum Flow {
    /// Fell through.
    Normal,
    /// `return` with a value.
    Return(Obj),
    /// `break`.
    Break,
    /// `continue`.
    Continue,
}

/// Interpreter state for one program run.
pub struct Interp {
    /// Module-level variables.
    pub globals: Scope,
    /// Builtin functions and types.
    pub builtins: HashMap<String, Obj>,
    /// Everything the program printed.
    pub out: String,
    /// What it wrote to stderr (warnings, `print(file=sys.stderr)`), each
    /// write with the length `out` had then, so the two interleave as a
    /// terminal shows them.
    pub err: Vec<(usize, String)>,
    /// The bytes in `err`, for the output limit.
    err_bytes: usize,
    /// Where the printed text is copied as the program goes, for a watcher
    /// on another thread (see [`super::Options::printed`]).
    pub printed: Option<super::Printed>,
    /// How much of `out` has been copied there.
    published: usize,
    /// Statements and calls executed so far.
    pub steps: u64,
    /// The step limit.
    pub max_steps: u64,
    /// Line table of the program.
    pub lines: Lines,
    /// Where the pending error was raised (1-based line, column).
    pub err_loc: Option<(usize, usize)>,
    /// Imported modules by dotted name.
    pub modules: HashMap<String, Obj>,
    /// Depth of nested Python calls (a guard against runaway recursion).
    pub depth: usize,
    /// The importable modules.
    pub library: Rc<dyn Library>,
    /// The builtin exception classes and the objects raised so far.
    pub exceptions: super::exceptions::Exceptions,
    /// The exceptions being handled, innermost last (what a bare `raise`
    /// raises again).
    pub handling: Vec<Error>,
    /// The Python functions running, innermost last, with their scopes
    /// (what `super()` reads).
    pub frames: Vec<(Rc<Function>, Scope)>,
    /// The byte offset of the statement running now.
    pub stmt_at: usize,
    /// For each function call running, innermost last, the offset of the
    /// statement that made it: the frames a warning's `stacklevel` walks.
    pub call_sites: Vec<usize>,
    /// The objects of this run that may close a reference cycle.
    pub cycles: super::cycles::Cycles,
    /// The run state of library modules (a context mesh, say), one value per
    /// type: kept with the run, so nothing outlives it.
    state: HashMap<std::any::TypeId, Box<dyn std::any::Any>>,
}

fn name_of(id: &ast::Identifier) -> String {
    id.as_str().to_string()
}

/// CPython's builtins that shardlab does not have: a program naming one
/// is refused by name, not told that Python has no such name.
const UNMODELLED_BUILTINS: &[&str] = &[
    "eval",
    "exec",
    "compile",
    "open",
    "input",
    "breakpoint",
    "memoryview",
    "bytearray",
    "help",
    "__import__",
    "aiter",
    "anext",
];

impl Interp {
    /// An interpreter for a program whose text has the line table `lines`.
    pub fn new(lines: Lines, library: Rc<dyn Library>) -> Interp {
        let mut interp = Interp::bare(lines, library);
        super::builtins::install(&mut interp);
        interp
    }

    /// An empty interpreter for the same library, with no builtins: what
    /// stands in for this one while it is lent elsewhere (see
    /// `modules::callbacks::lend`); nothing runs on it.
    pub fn scratch(&self) -> Interp {
        Interp::bare(Lines::new(""), self.library.clone())
    }

    /// An interpreter with nothing installed.
    fn bare(lines: Lines, library: Rc<dyn Library>) -> Interp {
        Interp {
            globals: ScopeData::new(None),
            builtins: HashMap::new(),
            out: String::new(),
            err: vec![],
            err_bytes: 0,
            printed: None,
            published: 0,
            steps: 0,
            max_steps: DEFAULT_MAX_STEPS,
            lines,
            err_loc: None,
            modules: HashMap::new(),
            depth: 0,
            library,
            exceptions: super::exceptions::Exceptions::new(),
            handling: vec![],
            frames: vec![],
            stmt_at: 0,
            call_sites: vec![],
            cycles: super::cycles::Cycles::default(),
            state: HashMap::new(),
        }
    }

    /// The run's value of state type `T` (created on first use).
    pub fn state<T: Default + 'static>(&mut self) -> &mut T {
        let slot = self
            .state
            .entry(std::any::TypeId::of::<T>())
            .or_insert_with(|| Box::<T>::default());
        match slot.downcast_mut::<T>() {
            Some(t) => t,
            // The map is keyed by the type's id, so the box holds a `T`.
            None => unreachable!("run state keyed by the wrong type"),
        }
    }

    pub fn tick(&mut self) -> Result<()> {
        self.steps += 1;
        if self.out.len() != self.published {
            self.publish();
        }
        if self.steps > self.max_steps {
            bail!(RuntimeError, "program exceeded {} steps", self.max_steps);
        }
        // A stop from outside (a time or memory limit, a cancel) ends a
        // loop that calls nothing the engine polls, at its next step: a
        // step may allocate a large array without binding a primitive
        // (`jnp.ones`, `x * 2`), so waiting for several could run far past
        // a memory limit. The check is one atomic load.
        {
            if let Some(reason) = crate::exec::stop_requested() {
                bail!(Cancelled, "{reason}");
            }
        }
        Ok(())
    }

    /// Copies what was printed since the last copy to [`Interp::printed`]:
    /// at every step, so the text printed before a step that never ends is
    /// there for the watcher that gives up on it.
    fn publish(&mut self) {
        let Some(sink) = &self.printed else {
            self.published = self.out.len();
            return;
        };
        let Ok(mut copy) = sink.text.lock() else {
            return;
        };
        // A transformation may take back what its body printed while tracing.
        if self.out.len() < self.published || !self.out.is_char_boundary(self.published) {
            copy.clear();
            self.published = 0;
        }
        copy.push_str(&self.out[self.published..]);
        self.published = self.out.len();
    }

    /// Writes `text` to the program's stderr.
    pub fn write_stderr(&mut self, text: &str) -> Result<()> {
        if self.out.len() + self.err_bytes + text.len() > 64 << 20 {
            bail!(RuntimeError, "program exceeded the output limit of 64 MiB");
        }
        self.err_bytes += text.len();
        self.err.push((self.out.len(), text.to_string()));
        if let Some(w) = &self.printed {
            if let Ok(mut copy) = w.err.lock() {
                copy.push((self.out.len(), text.to_string()));
            }
        }
        Ok(())
    }

    /// The 1-based line a warning issued with `stacklevel` is attributed
    /// to: 1 is the statement running now, 2 the one that called the
    /// running function, and so on; None past the outermost frame.
    pub fn line_at_level(&self, stacklevel: usize) -> Option<usize> {
        let at = match stacklevel {
            0 | 1 => self.stmt_at,
            k => *self
                .call_sites
                .get(self.call_sites.len().checked_sub(k - 1)?)?,
        };
        Some(self.lines.locate(at).0)
    }

    /// Tells a watching thread which statement runs now.
    fn show_position(&self, s: &Stmt) {
        if let Some(w) = &self.printed {
            let at = u32::from(s.range().start()) as usize + 1;
            w.at.store(at, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Records `range` as the error's position unless an inner one already is.
    fn locate(&mut self, range: rustpython_parser::text_size::TextRange) {
        if self.err_loc.is_none() {
            self.err_loc = Some(self.lines.locate(u32::from(range.start()) as usize));
        }
    }

    /// Runs a module body.
    pub fn run_module(&mut self, body: &[Stmt]) -> Result<()> {
        let scope = self.globals.clone();
        // The program runs as a script: `if __name__ == "__main__":` holds.
        self.set_var(&scope, "__name__", Obj::str("__main__"));
        match self.exec_block(body, &scope)? {
            Flow::Normal | Flow::Return(_) => Ok(()),
            Flow::Break | Flow::Continue => bail!(SyntaxError, "'break' outside loop"),
        }
    }

    /// Executes statements in order.
    pub fn exec_block(&mut self, body: &[Stmt], scope: &Scope) -> Result<Flow> {
        for s in body {
            match self.exec_stmt(s, scope)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec_stmt(&mut self, s: &Stmt, scope: &Scope) -> Result<Flow> {
        self.tick().inspect_err(|_| self.locate(s.range()))?;
        self.show_position(s);
        self.stmt_at = u32::from(s.range().start()) as usize;
        let r = self.exec_stmt_inner(s, scope);
        // Back in this statement once the calls inside it have returned.
        self.show_position(s);
        self.stmt_at = u32::from(s.range().start()) as usize;
        if r.is_err() {
            self.locate(s.range());
        }
        r
    }

    fn exec_stmt_inner(&mut self, s: &Stmt, scope: &Scope) -> Result<Flow> {
        match s {
            Stmt::Expr(e) => {
                self.eval(&e.value, scope)?;
            }
            Stmt::Assign(_) | Stmt::AnnAssign(_) | Stmt::AugAssign(_) => {
                self.exec_assign(s, scope)?;
            }
            Stmt::FunctionDef(f) => return self.exec_function_def(f, scope),
            Stmt::ClassDef(c) => return self.exec_class_def(c, scope),
            Stmt::Return(r) => {
                let v = match &r.value {
                    Some(e) => self.eval(e, scope)?,
                    None => Obj::None,
                };
                return Ok(Flow::Return(v));
            }
            Stmt::If(i) => {
                let c = self.eval(&i.test, scope)?;
                if self.truth(&c, "the condition of an if statement")? {
                    return self.exec_block(&i.body, scope);
                }
                return self.exec_block(&i.orelse, scope);
            }
            Stmt::While(w) => return self.exec_while(w, scope),
            Stmt::For(f) => return self.exec_for(f, scope),
            Stmt::Break(_) => return Ok(Flow::Break),
            Stmt::Continue(_) => return Ok(Flow::Continue),
            Stmt::Pass(_) => {}
            Stmt::With(w) => return self.exec_with(&w.items, &w.body, scope),
            Stmt::Assert(a) => return self.exec_assert(a, scope),
            Stmt::Import(i) => return self.exec_import(i, scope),
            Stmt::ImportFrom(i) => return self.exec_import_from(i, scope),
            Stmt::Global(g) => scope
                .globals
                .borrow_mut()
                .extend(g.names.iter().map(name_of)),
            Stmt::Nonlocal(g) => scope
                .nonlocals
                .borrow_mut()
                .extend(g.names.iter().map(name_of)),
            Stmt::Delete(d) => return self.exec_delete(d, scope),
            Stmt::Raise(r) => return self.exec_raise(r, scope),
            Stmt::Try(t) => return self.exec_try(t, scope),
            Stmt::Match(m) => return self.exec_match(m, scope),
            other => {
                let what = match other {
                    Stmt::AsyncFunctionDef(_) | Stmt::AsyncFor(_) | Stmt::AsyncWith(_) => "async",
                    Stmt::TryStar(_) => "except*",
                    Stmt::TypeAlias(_) => "type aliases",
                    _ => "this statement",
                };
                bail!(NotImplementedError, "not supported by shardlab yet: {what}");
            }
        }
        Ok(Flow::Normal)
    }

    /// `a = b = v`, `a: T = v` (the annotation is not evaluated, as under
    /// `from __future__ import annotations`) and `a += v`.
    fn exec_assign(&mut self, s: &Stmt, scope: &Scope) -> Result<()> {
        match s {
            Stmt::Assign(a) => {
                let v = self.eval(&a.value, scope)?;
                for t in &a.targets {
                    self.assign(t, v.clone(), scope)?;
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    let v = self.eval(v, scope)?;
                    self.assign(&a.target, v, scope)?;
                }
            }
            Stmt::AugAssign(a) => {
                let cur = self.eval(&a.target, scope)?;
                let rhs = self.eval(&a.value, scope)?;
                let v = self.binop(&a.op, &cur, &rhs, true)?;
                self.assign(&a.target, v, scope)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// `while test: body else: orelse`; each pass is a step of the run's
    /// stop check.
    fn exec_while(&mut self, w: &ast::StmtWhile, scope: &Scope) -> Result<Flow> {
        loop {
            let c = self.eval(&w.test, scope)?;
            if !self.truth(&c, "the condition of a while loop")? {
                return self.exec_block(&w.orelse, scope);
            }
            self.tick()?;
            match self.exec_block(&w.body, scope)? {
                Flow::Break => return Ok(Flow::Normal),
                Flow::Return(v) => return Ok(Flow::Return(v)),
                Flow::Normal | Flow::Continue => {}
            }
        }
    }

    /// `def`: the function, decorated, bound to its name.
    fn exec_function_def(&mut self, f: &ast::StmtFunctionDef, scope: &Scope) -> Result<Flow> {
        let start = f
            .decorator_list
            .iter()
            .map(|d| d.range().start())
            .chain([f.range.start()])
            .min()
            .unwrap_or(f.range.start());
        let first_line = self.lines.locate(u32::from(start) as usize).0;
        let body = Rc::new(f.body.clone());
        let func = self.make_function(name_of(&f.name), &f.args, body, scope, first_line)?;
        let mut obj = func;
        for d in f.decorator_list.iter().rev() {
            let dec = self.eval(d, scope)?;
            obj = self.call(&dec, Args::new(vec![obj]))?;
        }
        self.set_var(scope, &name_of(&f.name), obj);
        Ok(Flow::Normal)
    }

    /// A class statement's bases: the classes, and the builtin type (`dict`
    /// or `list`) it extends, if any.
    fn class_bases(
        &mut self,
        c: &ast::StmtClassDef,
        scope: &Scope,
    ) -> Result<(Vec<Rc<Class>>, Option<&'static str>)> {
        let mut bases = vec![];
        let mut builtin = None;
        for b in &c.bases {
            let mut base = self.eval(b, scope)?;
            // A subscripted generic (`Base[T]`) stands for its origin class,
            // as its `__mro_entries__` says in Python.
            if let Obj::Lib(o) = &base {
                if let Some(origin) = o.getattr(self, &base, "__origin__")? {
                    base = origin;
                }
            }
            match base {
                Obj::Class(k) => bases.push(k),
                // `object` carries nothing we need.
                Obj::Type("object") => {}
                // Instances carry a dict or list value of their own (see
                // `Instance::base`).
                Obj::Type(t @ ("dict" | "list")) if builtin.is_none() => builtin = Some(t),
                // A builtin base would give the instances its storage and
                // methods; ignoring it would silently drop them.
                Obj::Type(t) => bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: subclassing {t}"
                ),
                other => bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: subclassing {}",
                    other.type_name()
                ),
            }
        }
        Ok((bases, builtin))
    }

    /// `class`: runs the body in a scope of its own, builds the class, calls `__init_subclass__`, applies the decorators.
    fn exec_class_def(&mut self, c: &ast::StmtClassDef, scope: &Scope) -> Result<Flow> {
        // Class keywords go to the bases' `__init_subclass__` (Flax's
        // `pytree=False`); a metaclass would change how the class is built.
        let mut class_kw = vec![];
        for k in &c.keywords {
            let name = k.arg.as_ref().map_or("**kwargs".to_string(), name_of);
            if name == "metaclass" || name == "**kwargs" {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: the class keyword {name}="
                );
            }
            class_kw.push((name, self.eval(&k.value, scope)?));
        }
        let (bases, builtin) = self.class_bases(c, scope)?;
        let name = c.name.as_str();
        let qualname = match (&scope.class_body, self.frames.last()) {
            (Some(outer), _) => format!("{outer}.{name}"),
            (None, Some((f, _))) => format!("{}.<locals>.{name}", f.qualname),
            (None, None) => name.to_string(),
        };
        let body_scope = ScopeData::class_body(scope.clone(), qualname.clone());
        self.exec_block(&c.body, &body_scope)?;
        let mut attrs: Vec<(String, Obj)> = {
            let vars = body_scope.vars.borrow();
            let order = body_scope.order.borrow();
            order
                .iter()
                .filter_map(|k| vars.get(k).map(|v| (k.clone(), v.clone())))
                .collect()
        };
        // Annotated names in body order (dataclass fields of flax modules).
        let mut annotations = Dict::default();
        for st in &c.body {
            if let Stmt::AnnAssign(ast::StmtAnnAssign { target, .. }) = st {
                if let Expr::Name(n) = &**target {
                    annotations.set(Obj::str(n.id.as_str()), Obj::None);
                }
            }
        }
        if !annotations.items.is_empty() {
            attrs.push((
                "__annotations__".into(),
                Obj::Dict(Rc::new(RefCell::new(annotations))),
            ));
        }
        let class = Rc::new(Class {
            qualname,
            builtin,
            ..Class::new(name_of(&c.name), bases, attrs)
        });
        if let (Some(t), Some(_)) = (class.builtin_base(), class.native()) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: a class extending both {t} and a library type"
            );
        }
        if class
            .bases
            .iter()
            .filter_map(|b| b.builtin_base())
            .chain(builtin)
            .count()
            > 1
        {
            bail!(TypeError, "multiple bases have instance lay-out conflict");
        }
        self.cycles.class(&class);
        super::classes::adopt_methods(&class);
        self.init_subclass(&class, class_kw)?;
        let mut obj = self.class_made(class)?;
        for d in c.decorator_list.iter().rev() {
            let dec = self.eval(d, scope)?;
            obj = self.call(&dec, Args::new(vec![obj]))?;
        }
        self.set_var(scope, &name_of(&c.name), obj);
        Ok(Flow::Normal)
    }

    /// `import a.b` and `import a.b as c`.
    fn exec_import(&mut self, i: &ast::StmtImport, scope: &Scope) -> Result<Flow> {
        for alias in &i.names {
            let full = name_of(&alias.name);
            let module = self.import(&full)?;
            match &alias.asname {
                Some(a) => self.set_var(scope, &name_of(a), module),
                None => {
                    let top = full.split('.').next().unwrap_or(&full).to_string();
                    let top_mod = self.import(&top)?;
                    self.set_var(scope, &top, top_mod);
                }
            }
        }
        Ok(Flow::Normal)
    }

    /// `from a import b as c` (a name of the module, or its submodule).
    fn exec_import_from(&mut self, i: &ast::StmtImportFrom, scope: &Scope) -> Result<Flow> {
        let Some(m) = &i.module else {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: relative imports"
            );
        };
        let mname = name_of(m);
        let module = self.import(&mname)?;
        for alias in &i.names {
            let n = name_of(&alias.name);
            if n == "*" {
                self.import_star(&module, &mname, scope)?;
                continue;
            }
            let v = match ops::getattr(self, &module, &n) {
                Ok(v) => v,
                // A name of the real module that shardlab lacks.
                Err(e) if e.kind == ErrorKind::NotImplementedError => return Err(e),
                Err(_) => match self.import(&format!("{mname}.{n}")) {
                    Ok(v) => v,
                    Err(_) => {
                        let msg = format!("cannot import name '{n}' from '{mname}'");
                        return Err(self.raise_builtin("ImportError", &msg));
                    }
                },
            };
            let bind = alias.asname.as_ref().map(name_of).unwrap_or(n);
            self.set_var(scope, &bind, v);
        }
        Ok(Flow::Normal)
    }

    /// `from M import *`: the names in the module's `__all__`, or else every
    /// name not starting with `_`.
    fn import_star(&mut self, module: &Obj, mname: &str, scope: &Scope) -> Result<()> {
        let Obj::Module(m) = module else {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: from {mname} import *"
            );
        };
        let attrs = m.attrs.borrow().clone();
        let listed = attrs
            .iter()
            .find(|(k, _)| k == "__all__")
            .map(|(_, v)| self.iterate(v))
            .transpose()?;
        for (k, v) in attrs {
            let public = match &listed {
                Some(names) => names.iter().any(|n| matches!(n, Obj::Str(s) if **s == *k)),
                None => !k.starts_with('_'),
            };
            if public {
                self.set_var(scope, &k, v);
            }
        }
        Ok(())
    }

    /// `del x`, `del c[k]`.
    fn exec_delete(&mut self, d: &ast::StmtDelete, scope: &Scope) -> Result<Flow> {
        for t in &d.targets {
            match t {
                Expr::Name(n) => {
                    let name = n.id.as_str();
                    let home = if scope.globals.borrow().contains(name) {
                        self.globals.clone()
                    } else {
                        scope.clone()
                    };
                    if home.vars.borrow_mut().remove(name).is_none() {
                        bail!(NameError, "name '{name}' is not defined");
                    }
                }
                Expr::Subscript(s) => {
                    let container = self.eval(&s.value, scope)?;
                    let key = self.eval(&s.slice, scope)?;
                    self.delitem(&container, &key)?;
                }
                Expr::Attribute(at) => {
                    let obj = self.eval(&at.value, scope)?;
                    delattr(self, &obj, at.attr.as_str())?;
                }
                Expr::Tuple(ast::ExprTuple { elts, .. })
                | Expr::List(ast::ExprList { elts, .. }) => {
                    let inner = ast::StmtDelete {
                        targets: elts.clone(),
                        range: d.range,
                    };
                    self.exec_delete(&inner, scope)?;
                }
                _ => bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: this del target"
                ),
            }
        }
        Ok(Flow::Normal)
    }

    /// `raise`, `raise x`, `raise x from y`.
    fn exec_raise(&mut self, r: &ast::StmtRaise, scope: &Scope) -> Result<Flow> {
        let Some(exc) = &r.exc else {
            return Err(self
                .handling
                .last()
                .cloned()
                .ok_or_else(|| err!(RuntimeError, "No active exception to reraise"))?);
        };
        let e = self.eval(exc, scope)?;
        let cause = match &r.cause {
            Some(c) => Some(self.eval(c, scope)?),
            None => None,
        };
        let error = self.raise(e)?;
        if let (Some(cause), Some(raised)) = (cause, &error.raised) {
            if let Some(Obj::Instance(i)) = self.exceptions_object(raised.id) {
                i.set("__cause__", cause);
            }
        }
        Err(error)
    }

    /// `assert test, msg`.
    fn exec_assert(&mut self, a: &ast::StmtAssert, scope: &Scope) -> Result<Flow> {
        let c = self.eval(&a.test, scope)?;
        if !self.truth(&c, "an assert statement")? {
            let msg = match &a.msg {
                Some(m) => {
                    let m = self.eval(m, scope)?;
                    self.str(&m)?
                }
                None => String::new(),
            };
            return Err(Error::new(ErrorKind::AssertionError, msg));
        }
        Ok(Flow::Normal)
    }
    /// `for target in iterable: body else: orelse`; an iterator (a
    /// generator, `itertools.count()`, a lazy `map`) is drawn from once per
    /// item rather than run to its end first.
    fn exec_for(&mut self, f: &ast::StmtFor, scope: &Scope) -> Result<Flow> {
        let source = self.eval(&f.iter, scope)?;
        let (lazy, mut items) = match self.for_source(&source)? {
            Ok(it) => (Some(it), vec![].into_iter()),
            Err(items) => (None, items.into_iter()),
        };
        loop {
            let item = match &lazy {
                Some(it) => self.next_item(it)?,
                None => items.next(),
            };
            let Some(item) = item else {
                return self.exec_block(&f.orelse, scope);
            };
            self.tick()?;
            self.assign(&f.target, item, scope)?;
            match self.exec_block(&f.body, scope)? {
                Flow::Break => return Ok(Flow::Normal),
                Flow::Return(v) => return Ok(Flow::Return(v)),
                Flow::Normal | Flow::Continue => {}
            }
        }
    }

    /// `with a as x, b as y: body`, one context inside the next.
    fn exec_with(&mut self, items: &[ast::WithItem], body: &[Stmt], scope: &Scope) -> Result<Flow> {
        let Some((item, rest)) = items.split_first() else {
            return self.exec_block(body, scope);
        };
        let cm = self.eval(&item.context_expr, scope)?;
        self.with_context(&cm, &mut |me, value| {
            if let Some(t) = &item.optional_vars {
                me.assign(t, value, scope)?;
            }
            me.exec_with(rest, body, scope)
        })
    }

    fn exec_try(&mut self, t: &ast::StmtTry, scope: &Scope) -> Result<Flow> {
        let r = match self.exec_block(&t.body, scope) {
            Ok(Flow::Normal) => self.exec_block(&t.orelse, scope),
            Err(e) if catchable(&e) => self.handle(t, e, scope),
            other => other,
        };
        if !t.finalbody.is_empty() {
            let saved = self.err_loc.take();
            match self.exec_block(&t.finalbody, scope)? {
                Flow::Normal => {}
                f => return Ok(f),
            }
            self.err_loc = saved;
        }
        r
    }

    /// Runs the first `except` clause of `t` that matches `e`, or gives `e`
    /// back when none does.
    fn handle(&mut self, t: &ast::StmtTry, e: Error, scope: &Scope) -> Result<Flow> {
        for h in &t.handlers {
            let ast::ExceptHandler::ExceptHandler(h) = h;
            let matches = match &h.type_ {
                None => true,
                Some(ty) => {
                    let ty = self.eval(ty, scope)?;
                    self.exception_matches(&ty, &e)?
                }
            };
            if !matches {
                continue;
            }
            self.err_loc = None;
            if let Some(n) = &h.name {
                let obj = self.exception_object(&e);
                self.set_var(scope, &name_of(n), obj);
            }
            self.handling.push(e.clone());
            let r = self.exec_block(&h.body, scope);
            self.handling.pop();
            if r.is_ok() {
                self.forget_raised(&e);
            }
            return r;
        }
        Err(e)
    }

    /// Creates a function object from parameters and body.
    pub fn make_function(
        &mut self,
        name: String,
        params: &ast::Arguments,
        body: Rc<Vec<Stmt>>,
        scope: &Scope,
        first_line: usize,
    ) -> Result<Obj> {
        let mut defaults = vec![];
        for a in params
            .posonlyargs
            .iter()
            .chain(&params.args)
            .chain(&params.kwonlyargs)
        {
            if let Some(d) = &a.default {
                let v = self.eval(d, scope)?;
                defaults.push((name_of(&a.def.arg), v));
            }
        }
        let is_generator = super::generators::body_yields(&body);
        // Methods see the scope around the class, not the class body.
        let closure = if scope.class_body.is_some() {
            scope.parent.clone().unwrap_or_else(|| self.globals.clone())
        } else {
            scope.clone()
        };
        if !Rc::ptr_eq(&closure, &self.globals) {
            self.cycles.scope(&closure);
        }
        let qualname = match (&scope.class_body, self.frames.last()) {
            (Some(class), _) => format!("{class}.{name}"),
            (None, Some((f, _))) => format!("{}.<locals>.{name}", f.qualname),
            (None, None) => name.clone(),
        };
        Ok(Obj::Func(Rc::new(Function {
            qualname: qualname.into(),
            name,
            params: Rc::new(params.clone()),
            defaults,
            body,
            closure,
            owner: RefCell::new(std::rc::Weak::new()),
            is_generator,
            first_line,
        })))
    }

    /// Binds a name in `scope`, honouring `global` and `nonlocal`.
    pub fn set_var(&mut self, scope: &Scope, name: &str, v: Obj) {
        if scope.globals.borrow().contains(name) {
            self.globals.vars.borrow_mut().insert(name.to_string(), v);
            return;
        }
        if scope.nonlocals.borrow().contains(name) {
            let mut s = scope.parent.clone();
            while let Some(p) = s {
                if p.vars.borrow().contains_key(name) {
                    p.vars.borrow_mut().insert(name.to_string(), v);
                    return;
                }
                s = p.parent.clone();
            }
        }
        let new = scope
            .vars
            .borrow_mut()
            .insert(name.to_string(), v)
            .is_none();
        if new && scope.class_body.is_some() {
            scope.order.borrow_mut().push(name.to_string());
        }
    }

    fn lookup(&self, scope: &Scope, name: &str) -> Result<Obj> {
        let mut s = Some(scope.clone());
        while let Some(sc) = s {
            if let Some(v) = sc.vars.borrow().get(name) {
                return Ok(v.clone());
            }
            s = sc.parent.clone();
        }
        if let Some(v) = self.builtins.get(name) {
            return Ok(v.clone());
        }
        if UNMODELLED_BUILTINS.contains(&name) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: the builtin {name}"
            );
        }
        bail!(NameError, "name '{name}' is not defined")
    }

    /// Assigns `v` to an assignment target.
    pub fn assign(&mut self, target: &Expr, v: Obj, scope: &Scope) -> Result<()> {
        match target {
            Expr::Name(n) => {
                self.set_var(scope, n.id.as_str(), v);
                Ok(())
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                let items = self.iterate(&v)?;
                let star = elts.iter().position(|e| matches!(e, Expr::Starred(_)));
                match star {
                    None => {
                        if items.len() != elts.len() {
                            if items.len() > elts.len() {
                                bail!(
                                    ValueError,
                                    "too many values to unpack (expected {})",
                                    elts.len()
                                );
                            }
                            bail!(
                                ValueError,
                                "not enough values to unpack (expected {}, got {})",
                                elts.len(),
                                items.len()
                            );
                        }
                        for (t, item) in elts.iter().zip(items) {
                            self.assign(t, item, scope)?;
                        }
                    }
                    Some(si) => {
                        let after = elts.len() - si - 1;
                        if items.len() < elts.len() - 1 {
                            bail!(
                                ValueError,
                                "not enough values to unpack (expected at least {}, got {})",
                                elts.len() - 1,
                                items.len()
                            );
                        }
                        for (t, item) in elts[..si].iter().zip(&items) {
                            self.assign(t, item.clone(), scope)?;
                        }
                        let mid = items[si..items.len() - after].to_vec();
                        if let Expr::Starred(s) = &elts[si] {
                            self.assign(&s.value, Obj::list(mid), scope)?;
                        }
                        for (t, item) in elts[si + 1..].iter().zip(&items[items.len() - after..]) {
                            self.assign(t, item.clone(), scope)?;
                        }
                    }
                }
                Ok(())
            }
            Expr::Subscript(s) => {
                let container = self.eval(&s.value, scope)?;
                let key = self.eval(&s.slice, scope)?;
                self.setitem(&container, key, v)
            }
            Expr::Attribute(a) => {
                let obj = self.eval(&a.value, scope)?;
                self.setattr(&obj, a.attr.as_str(), v)
            }
            _ => bail!(SyntaxError, "cannot assign to expression"),
        }
    }

    /// Evaluates an expression.
    pub fn eval(&mut self, e: &Expr, scope: &Scope) -> Result<Obj> {
        let r = match super::depth::enter() {
            Ok(_level) => self.eval_inner(e, scope),
            Err(err) => Err(err),
        };
        // A printer or comparison inside that gave up at the depth limit
        // raises here, where its expression ends.
        let r = match super::depth::take_overflow() {
            Some(err) => r.and(Err(err)),
            None => r,
        };
        if r.is_err() {
            self.locate(e.range());
        }
        r
    }

    fn eval_inner(&mut self, e: &Expr, scope: &Scope) -> Result<Obj> {
        match e {
            Expr::Constant(c) => constant(&c.value),
            Expr::Name(n) => self.lookup(scope, n.id.as_str()),
            Expr::BinOp(b) => {
                let l = self.eval(&b.left, scope)?;
                let r = self.eval(&b.right, scope)?;
                let saved = self.enter_source(b.range);
                let out = self.binop(&b.op, &l, &r, false);
                crate::trace::set_source(saved);
                out
            }
            Expr::UnaryOp(u) => {
                let v = self.eval(&u.operand, scope)?;
                let saved = self.enter_source(u.range);
                let out = self.unary(&u.op, &v);
                crate::trace::set_source(saved);
                out
            }
            Expr::BoolOp(b) => self.eval_bool_op(b, scope),
            Expr::Compare(c) => self.eval_compare(c, scope),
            Expr::IfExp(i) => {
                let c = self.eval(&i.test, scope)?;
                if self.truth(&c, "a conditional expression")? {
                    self.eval(&i.body, scope)
                } else {
                    self.eval(&i.orelse, scope)
                }
            }
            Expr::NamedExpr(n) => {
                let v = self.eval(&n.value, scope)?;
                self.assign(&n.target, v.clone(), scope)?;
                Ok(v)
            }
            Expr::Lambda(l) => self.eval_lambda(l, scope),
            Expr::List(l) => Ok(Obj::list(self.eval_elts(&l.elts, scope)?)),
            Expr::Tuple(t) => Ok(Obj::tuple(self.eval_elts(&t.elts, scope)?)),
            Expr::Set(st) => self.eval_set(st, scope),
            Expr::Dict(d) => self.eval_dict(d, scope),
            Expr::SetComp(c) => self.eval_set_comp(c, scope),
            Expr::ListComp(c) => self.eval_list_comp(&c.elt, &c.generators, scope),
            Expr::GeneratorExp(g) => self.eval_generator_exp(g, scope),
            Expr::DictComp(c) => self.eval_dict_comp(c, scope),
            Expr::Attribute(a) => {
                let v = self.eval(&a.value, scope)?;
                ops::getattr(self, &v, a.attr.as_str())
            }
            Expr::Subscript(s) => {
                let v = self.eval(&s.value, scope)?;
                let k = self.eval(&s.slice, scope)?;
                let saved = self.enter_source(s.range);
                let out = ops::getitem(self, &v, &k);
                crate::trace::set_source(saved);
                out
            }
            Expr::Slice(s) => self.eval_slice(s, scope),
            Expr::Call(c) => self.eval_call(c, scope),
            Expr::JoinedStr(j) => {
                let mut s = String::new();
                for v in &j.values {
                    let part = self.eval(v, scope)?;
                    s.push_str(&self.str(&part)?);
                }
                Ok(Obj::str(s))
            }
            Expr::FormattedValue(f) => self.eval_formatted(f, scope),
            Expr::Starred(_) => bail!(SyntaxError, "can't use starred expression here"),
            Expr::Yield(_) | Expr::YieldFrom(_) => bail!(
                NotImplementedError,
                "not supported by shardlab yet: yield inside an expression (a generator may yield as a statement, as `x = yield v`, or with `yield from`)"
            ),
            Expr::Await(_) => bail!(NotImplementedError, "not supported by shardlab yet: async"),
        }
    }

    /// `lambda args: body`: a function whose body returns the expression.
    fn eval_lambda(&mut self, l: &ast::ExprLambda, scope: &Scope) -> Result<Obj> {
        let body = vec![Stmt::Return(ast::StmtReturn {
            range: l.range,
            value: Some(l.body.clone()),
        })];
        let first_line = self.lines.locate(u32::from(l.range.start()) as usize).0;
        self.make_function("<lambda>".into(), &l.args, Rc::new(body), scope, first_line)
    }

    /// `{a, b, c}`.
    fn eval_set(&mut self, st: &ast::ExprSet, scope: &Scope) -> Result<Obj> {
        let items = self.eval_elts(&st.elts, scope)?;
        let built = super::set::Set::from_items(items)?;
        // CPython compiles a display of three or more constants to a
        // frozenset constant merged into a new set.
        let constants =
            st.elts.len() >= 3 && st.elts.iter().all(|e| matches!(e, Expr::Constant(_)));
        if constants {
            let mut merged = super::set::Set::default();
            merged.merge(&built)?;
            return Ok(Obj::set(merged));
        }
        Ok(Obj::set(built))
    }

    /// `a:b:c` inside a subscript.
    fn eval_slice(&mut self, s: &ast::ExprSlice, scope: &Scope) -> Result<Obj> {
        let mut parts = [Obj::None, Obj::None, Obj::None];
        for (i, p) in [&s.lower, &s.upper, &s.step].into_iter().enumerate() {
            if let Some(p) = p {
                parts[i] = self.eval(p, scope)?;
            }
        }
        Ok(Obj::Slice(Rc::new(parts)))
    }

    /// `{x for ...}`, in a scope of its own.
    fn eval_set_comp(&mut self, c: &ast::ExprSetComp, scope: &Scope) -> Result<Obj> {
        let inner = ScopeData::new(Some(scope.clone()));
        let mut out = super::set::Set::default();
        let mut failed = None;
        self.comprehension(&c.generators, &inner, &mut |me, sc| {
            let x = me.eval(&c.elt, sc)?;
            if let Err(e) = out.add(x) {
                failed = Some(e);
            }
            Ok(())
        })?;
        match failed {
            Some(e) => Err(e),
            None => Ok(Obj::set(out)),
        }
    }

    /// `[elt for ...]`, in a scope of its own.
    fn eval_list_comp(
        &mut self,
        elt: &Expr,
        generators: &[ast::Comprehension],
        scope: &Scope,
    ) -> Result<Obj> {
        let inner = ScopeData::new(Some(scope.clone()));
        let mut out = vec![];
        self.comprehension(generators, &inner, &mut |me, sc| {
            out.push(me.eval(elt, sc)?);
            Ok(())
        })?;
        Ok(Obj::list(out))
    }

    /// `(elt for ...)`: a generator, lazy as in Python. It is the generator
    /// function CPython compiles it to: the first iterable is evaluated now,
    /// in this scope, and passed in as the parameter `.0`; the loops, their
    /// conditions and the `yield` of `elt` make the body.
    fn eval_generator_exp(&mut self, g: &ast::ExprGeneratorExp, scope: &Scope) -> Result<Obj> {
        let Some(first) = g.generators.first() else {
            bail!(SyntaxError, "a generator expression needs a for clause");
        };
        // `iter()` of it now, as CPython does: a bad iterable fails here.
        let source = self.eval(&first.iter, scope)?;
        let source = self.iter_of(&source)?;
        let range = g.range;
        let param = ast::Identifier::new(".0");
        let mut body = vec![Stmt::Expr(ast::StmtExpr {
            range,
            value: Box::new(Expr::Yield(ast::ExprYield {
                range,
                value: Some(g.elt.clone()),
            })),
        })];
        for (k, c) in g.generators.iter().enumerate().rev() {
            for test in c.ifs.iter().rev() {
                body = vec![Stmt::If(ast::StmtIf {
                    range,
                    test: Box::new(test.clone()),
                    body,
                    orelse: vec![],
                })];
            }
            let iter = match k {
                0 => Expr::Name(ast::ExprName {
                    range,
                    id: param.clone(),
                    ctx: ast::ExprContext::Load,
                }),
                _ => c.iter.clone(),
            };
            body = vec![Stmt::For(ast::StmtFor {
                range,
                target: Box::new(c.target.clone()),
                iter: Box::new(iter),
                body,
                orelse: vec![],
                type_comment: None,
            })];
        }
        let params = ast::Arguments {
            range: Default::default(),
            posonlyargs: vec![],
            args: vec![ast::ArgWithDefault {
                range: Default::default(),
                def: ast::Arg {
                    range,
                    arg: param,
                    annotation: None,
                    type_comment: None,
                },
                default: None,
            }],
            vararg: None,
            kwonlyargs: vec![],
            kwarg: None,
        };
        let line = self.lines.locate(u32::from(range.start()) as usize).0;
        let f = self.make_function("<genexpr>".into(), &params, Rc::new(body), scope, line)?;
        self.call(&f, Args::new(vec![source]))
    }

    /// `{k: v for ...}`, in a scope of its own.
    fn eval_dict_comp(&mut self, c: &ast::ExprDictComp, scope: &Scope) -> Result<Obj> {
        let inner = ScopeData::new(Some(scope.clone()));
        let mut dict = Dict::default();
        self.comprehension(&c.generators, &inner, &mut |me, sc| {
            let k = me.eval(&c.key, sc)?;
            let v = me.eval(&c.value, sc)?;
            dict.set(k, v);
            Ok(())
        })?;
        Ok(Obj::Dict(Rc::new(RefCell::new(dict))))
    }

    /// `a and b`, `a or b`: the first operand that decides, unevaluated rest.
    fn eval_bool_op(&mut self, b: &ast::ExprBoolOp, scope: &Scope) -> Result<Obj> {
        let and = matches!(b.op, ast::BoolOp::And);
        let mut last = Obj::None;
        for (i, v) in b.values.iter().enumerate() {
            last = self.eval(v, scope)?;
            if i + 1 == b.values.len() {
                break;
            }
            let t = self.truth(
                &last,
                if and {
                    "an 'and' expression"
                } else {
                    "an 'or' expression"
                },
            )?;
            if t != and {
                return Ok(last);
            }
        }
        Ok(last)
    }

    /// `a < b <= c`: chained comparisons, each operand evaluated once.
    fn eval_compare(&mut self, c: &ast::ExprCompare, scope: &Scope) -> Result<Obj> {
        let mut left = self.eval(&c.left, scope)?;
        let mut result = Obj::Bool(true);
        for (op, right) in c.ops.iter().zip(&c.comparators) {
            let right = self.eval(right, scope)?;
            let saved = self.enter_source(c.range);
            let r = self.compare(op, &left, &right);
            crate::trace::set_source(saved);
            let r = r?;
            if c.ops.len() == 1 {
                return Ok(r);
            }
            if !self.truth(&r, "a chained comparison")? {
                return Ok(r);
            }
            result = r;
            left = right;
        }
        Ok(result)
    }

    /// `{k: v, **other}`.
    fn eval_dict(&mut self, d: &ast::ExprDict, scope: &Scope) -> Result<Obj> {
        let mut dict = Dict::default();
        for (k, v) in d.keys.iter().zip(&d.values) {
            match k {
                Some(k) => {
                    let k = self.eval(k, scope)?;
                    super::dict::check_hashable(&k)?;
                    let v = self.eval(v, scope)?;
                    dict.set(k, v);
                }
                None => {
                    let other = self.eval(v, scope)?;
                    let Obj::Dict(o) = other.plain().clone() else {
                        bail!(TypeError, "'{}' object is not a mapping", other.type_name());
                    };
                    for (k, v) in o.borrow().items.iter() {
                        dict.set(k.clone(), v.clone());
                    }
                }
            }
        }
        Ok(Obj::Dict(Rc::new(RefCell::new(dict))))
    }

    /// `f(a, *args, k=v, **kwargs)`.
    fn eval_call(&mut self, c: &ast::ExprCall, scope: &Scope) -> Result<Obj> {
        let f = self.eval(&c.func, scope)?;
        let mut args = Args::default();
        for a in &c.args {
            if let Expr::Starred(s) = a {
                let v = self.eval(&s.value, scope)?;
                args.pos.extend(self.iterate(&v)?);
            } else {
                args.pos.push(self.eval(a, scope)?);
            }
        }
        for k in &c.keywords {
            let v = self.eval(&k.value, scope)?;
            match &k.arg {
                Some(n) => args.kw.push((name_of(n), v)),
                None => {
                    let Obj::Dict(d) = v.plain().clone() else {
                        bail!(
                            TypeError,
                            "argument after ** must be a mapping, not {}",
                            v.type_name()
                        );
                    };
                    for (k, v) in d.borrow().items.iter() {
                        args.kw.push((format::str_of(k), v.clone()));
                    }
                }
            }
        }
        let saved = self.enter_source(c.range);
        let out = self.call(&f, args);
        crate::trace::set_source(saved);
        out
    }

    /// Makes `range`, in the running function, the position of the
    /// equations bound from now on; returns the previous position.
    fn enter_source(
        &self,
        range: rustpython_parser::text_size::TextRange,
    ) -> Option<crate::trace::Source> {
        let (line, col) = self.lines.locate(u32::from(range.start()) as usize);
        let function = match self.frames.last() {
            Some((f, _)) => f.qualname.clone(),
            None => std::sync::Arc::from("<module>"),
        };
        crate::trace::set_source(Some(crate::trace::Source {
            line: line as u32,
            col: col.saturating_sub(1) as u32,
            function,
        }))
    }

    /// One `{value!r:spec}` of an f-string.
    fn eval_formatted(&mut self, f: &ast::ExprFormattedValue, scope: &Scope) -> Result<Obj> {
        let v = self.eval(&f.value, scope)?;
        let spec = match &f.format_spec {
            Some(spec) => {
                let spec = self.eval(spec, scope)?;
                self.str(&spec)?
            }
            None => String::new(),
        };
        let v = match f.conversion {
            ast::ConversionFlag::Repr => Obj::str(self.repr(&v)?),
            ast::ConversionFlag::Str => Obj::str(self.str(&v)?),
            ast::ConversionFlag::Ascii => Obj::str(super::str_repr::to_ascii(&self.repr(&v)?)),
            _ => v,
        };
        Ok(Obj::str(self.format(&v, &spec)?))
    }
    fn eval_elts(&mut self, elts: &[Expr], scope: &Scope) -> Result<Vec<Obj>> {
        let mut out = vec![];
        for e in elts {
            if let Expr::Starred(s) = e {
                let v = self.eval(&s.value, scope)?;
                out.extend(self.iterate(&v)?);
            } else {
                out.push(self.eval(e, scope)?);
            }
        }
        Ok(out)
    }

    fn comprehension(
        &mut self,
        gens: &[ast::Comprehension],
        scope: &Scope,
        body: &mut dyn FnMut(&mut Interp, &Scope) -> Result<()>,
    ) -> Result<()> {
        let Some((g, rest)) = gens.split_first() else {
            return body(self, scope);
        };
        let it = self.eval(&g.iter, scope)?;
        'items: for item in self.iterate(&it)? {
            self.tick()?;
            self.assign(&g.target, item, scope)?;
            for cond in &g.ifs {
                let c = self.eval(cond, scope)?;
                if !self.truth(&c, "a comprehension condition")? {
                    continue 'items;
                }
            }
            self.comprehension(rest, scope, body)?;
        }
        Ok(())
    }

    /// Calls any callable object.
    pub fn call(&mut self, f: &Obj, args: Args) -> Result<Obj> {
        self.tick()?;
        match f {
            Obj::Func(func) => self.call_function(func, args),
            Obj::Native(n) => {
                let f = n.f.clone();
                f(self, args)
            }
            Obj::Method(m) => {
                let (recv, func) = (&m.0, &m.1);
                let mut a = args;
                a.pos.insert(0, recv.clone());
                self.call(func, a)
            }
            Obj::Class(c) => {
                let inst = Rc::new(Instance::new(c.clone()));
                self.cycles.instance(&inst);
                if let Some(n) = c.native() {
                    n.created(&inst);
                }
                let inst = Obj::Instance(inst);
                let exception = super::exceptions::kind_of(c).is_some();
                if exception {
                    // BaseException keeps its arguments whatever __init__ does.
                    super::exceptions::set_args(&inst, &args);
                }
                if let Some(init) = c.lookup("__init__") {
                    let mut a = args;
                    a.pos.insert(0, inst.clone());
                    self.call(&init, a)?;
                } else if c.builtin_base().is_some() {
                    super::builtin_base::init(self, &inst, args)?;
                } else if !exception && (!args.pos.is_empty() || !args.kw.is_empty()) {
                    bail!(TypeError, "{}() takes no arguments", c.name);
                }
                if let Some(n) = c.native() {
                    n.constructed(self, &inst)?;
                }
                Ok(inst)
            }
            Obj::Instance(i) => match i.class.lookup("__call__") {
                Some(call) => {
                    let mut a = args;
                    a.pos.insert(0, f.clone());
                    self.call(&call, a)
                }
                None => bail!(TypeError, "'{}' object is not callable", i.class.name),
            },
            Obj::Type(t) => super::builtins::call_type(self, t, args),
            Obj::DType(d) => super::array::cast_to(*d, args),
            Obj::Lib(o) => match o.clone().call(self, f, args) {
                Some(r) => r,
                None => bail!(TypeError, "'{}' object is not callable", o.type_name()),
            },
            other => bail!(TypeError, "'{}' object is not callable", other.type_name()),
        }
    }

    fn call_function(&mut self, func: &Rc<Function>, args: Args) -> Result<Obj> {
        // CPython counts the module's frame and the one being entered.
        super::depth::check_calls(self.depth + 2)?;
        let scope = ScopeData::new(Some(func.closure.clone()));
        self.bind_params(func, args, &scope)?;
        if func.is_generator {
            return Ok(self.make_generator(func, scope));
        }
        self.depth += 1;
        super::depth::set_frames(self.depth);
        self.frames.push((func.clone(), scope.clone()));
        self.call_sites.push(self.stmt_at);
        let r = self.exec_block(&func.body, &scope);
        if let Some(at) = self.call_sites.pop() {
            self.stmt_at = at;
        }
        self.frames.pop();
        self.depth -= 1;
        super::depth::set_frames(self.depth);
        match r? {
            Flow::Return(v) => Ok(v),
            _ => Ok(Obj::None),
        }
    }

    fn bind_params(&mut self, func: &Function, args: Args, scope: &Scope) -> Result<()> {
        let p = &func.params;
        let positional: Vec<&ast::ArgWithDefault> = p.posonlyargs.iter().chain(&p.args).collect();
        let kwonly: Vec<&ast::ArgWithDefault> = p.kwonlyargs.iter().collect();
        let mut vars = scope.vars.borrow_mut();
        bind_positional(func, &positional, args.pos, &mut vars)?;
        bind_keywords(func, &positional, args.kw, &mut vars)?;
        for (kind, params) in [
            ("positional", &positional[..]),
            ("keyword-only", &kwonly[..]),
        ] {
            fill_defaults(func, kind, params, &mut vars)?;
        }
        Ok(())
    }
}

/// Binds positional arguments in order; the rest go to `*args`, or are
/// CPython's TypeError when there is none.
fn bind_positional(
    func: &Function,
    positional: &[&ast::ArgWithDefault],
    args: Vec<Obj>,
    vars: &mut HashMap<String, Obj>,
) -> Result<()> {
    let n_pos = args.len();
    let mut pos = args.into_iter();
    for a in positional {
        match pos.next() {
            Some(v) => {
                vars.insert(name_of(&a.def.arg), v);
            }
            None => break,
        }
    }
    let extra: Vec<Obj> = pos.collect();
    if let Some(va) = &func.params.vararg {
        vars.insert(name_of(&va.arg), Obj::tuple(extra));
        return Ok(());
    }
    if extra.is_empty() {
        return Ok(());
    }
    let required = positional
        .iter()
        .filter(|a| !func.defaults.iter().any(|(k, _)| k == a.def.arg.as_str()))
        .count();
    let takes = match (required, positional.len()) {
        (r, n) if r == n => format!("{n} positional argument{}", plural(n)),
        (r, n) => format!("from {r} to {n} positional arguments"),
    };
    let given = if n_pos == 1 { "was" } else { "were" };
    bail!(
        TypeError,
        "{}() takes {takes} but {n_pos} {given} given",
        func.qualname
    )
}

/// Binds keyword arguments by name; unknown names go to `**kwargs`, or are
/// CPython's TypeError when there is none.
fn bind_keywords(
    func: &Function,
    positional: &[&ast::ArgWithDefault],
    kw: Vec<(String, Obj)>,
    vars: &mut HashMap<String, Obj>,
) -> Result<()> {
    let p = &func.params;
    let mut kwargs = Dict::default();
    for (k, v) in kw {
        let known = positional
            .iter()
            .copied()
            .chain(p.kwonlyargs.iter())
            .any(|a| a.def.arg.as_str() == k);
        if known {
            if vars.contains_key(&k) {
                bail!(
                    TypeError,
                    "{}() got multiple values for argument '{k}'",
                    func.qualname
                );
            }
            vars.insert(k, v);
        } else if p.kwarg.is_some() {
            kwargs.set(Obj::str(&k), v);
        } else {
            bail!(
                TypeError,
                "{}() got an unexpected keyword argument '{k}'",
                func.qualname
            );
        }
    }
    if let Some(kw) = &p.kwarg {
        vars.insert(name_of(&kw.arg), Obj::Dict(Rc::new(RefCell::new(kwargs))));
    }
    Ok(())
}

/// Gives unbound parameters their defaults; CPython's TypeError lists the
/// ones that have none.
fn fill_defaults(
    func: &Function,
    kind: &str,
    params: &[&ast::ArgWithDefault],
    vars: &mut HashMap<String, Obj>,
) -> Result<()> {
    let mut missing = vec![];
    for a in params {
        let n = a.def.arg.as_str();
        if vars.contains_key(n) {
            continue;
        }
        match func.defaults.iter().find(|(k, _)| k == n) {
            Some((_, v)) => {
                vars.insert(n.to_string(), v.clone());
            }
            None => missing.push(format!("'{n}'")),
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    bail!(
        TypeError,
        "{}() missing {} required {kind} argument{}: {}",
        func.qualname,
        missing.len(),
        plural(missing.len()),
        english_list(&missing)
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `'a'`, `'a' and 'b'`, `'a', 'b' and 'c'`, as CPython lists missing
/// arguments.
fn english_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// False for the errors no `except` clause may catch: a cancelled run, one
/// past its time limit and a program that ran out of its step budget.
fn catchable(e: &Error) -> bool {
    !(e.kind == ErrorKind::Cancelled
        || e.kind == ErrorKind::TimeoutError
        || (e.kind == ErrorKind::RuntimeError && e.message.contains("exceeded")))
}

/// The object for a literal.
fn constant(c: &Constant) -> Result<Obj> {
    Ok(match c {
        Constant::None => Obj::None,
        Constant::Bool(b) => Obj::Bool(*b),
        Constant::Str(s) => Obj::str(s),
        Constant::Int(i) => {
            let v: i64 = i.try_into().map_err(|_| {
                err!(
                    NotImplementedError,
                    "not supported by shardlab yet: integers beyond 64 bits"
                )
            })?;
            Obj::Int(v)
        }
        Constant::Float(f) => Obj::Float(*f),
        Constant::Ellipsis => Obj::Ellipsis,
        Constant::Tuple(t) => Obj::tuple(t.iter().map(constant).collect::<Result<_>>()?),
        Constant::Bytes(b) => super::bytes::bytes_obj(b.clone()),
        Constant::Complex { real, imag } => Obj::Complex(*real, *imag),
    })
}

/// `del obj.name`: the class's `__delattr__`, or else the instance's own
/// attribute (other objects' attributes are not modelled).
fn delattr(interp: &mut Interp, obj: &Obj, name: &str) -> Result<()> {
    if let Obj::Instance(i) = obj {
        if let Some(f) = i.class.lookup("__delattr__") {
            interp.call(&f, Args::new(vec![obj.clone(), Obj::str(name)]))?;
            return Ok(());
        }
    }
    match obj {
        Obj::Instance(i) => {
            let mut attrs = i.attrs.borrow_mut();
            match attrs.iter().position(|(k, _)| k == name) {
                Some(p) => {
                    attrs.remove(p);
                    Ok(())
                }
                None => bail!(
                    AttributeError,
                    "'{}' object has no attribute '{name}'",
                    i.class.name
                ),
            }
        }
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: del of an attribute of {}",
            other.type_name()
        ),
    }
}
