//! The `match` statement (PEP 634).
//!
//! Each `case` pattern is tried against the subject in order. A pattern
//! collects the names it captures while it matches; they are bound only
//! when the whole pattern matches, just before the guard is evaluated (so a
//! guard sees them and they stay bound if it fails, as in CPython).
//!
//! Which subjects count as sequences and mappings follows CPython's
//! `collections.abc` registrations: lists, tuples and ranges (and their
//! subclasses) are sequences, `str` is not; dicts (and subclasses) are
//! mappings. A class pattern's positional sub-patterns go through the
//! class's `__match_args__` (dataclasses set it), except for the builtin
//! types (`int(x)`, `str() as s`) whose one positional pattern is the
//! subject itself.

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_parser::ast::{self, Constant, Pattern};

use crate::bail;
use crate::error::Result;

use super::interp::{Flow, Interp, Scope};
use super::ops::getattr;
use super::value::Obj;

/// Names captured by a pattern, bound once it matches.
type Captures = Vec<(String, Obj)>;

impl Interp {
    /// `match subject: case ...`.
    pub fn exec_match(&mut self, m: &ast::StmtMatch, scope: &Scope) -> Result<Flow> {
        let subject = self.eval(&m.subject, scope)?;
        for case in &m.cases {
            let mut caps = Captures::new();
            if !self.pattern(&case.pattern, &subject, &mut caps, scope)? {
                continue;
            }
            for (name, v) in caps {
                self.set_var(scope, &name, v);
            }
            if let Some(g) = &case.guard {
                let ok = self.eval(g, scope)?;
                if !self.truth(&ok, "a match guard")? {
                    continue;
                }
            }
            return self.exec_block(&case.body, scope);
        }
        Ok(Flow::Normal)
    }

    fn pattern(
        &mut self,
        p: &Pattern,
        x: &Obj,
        caps: &mut Captures,
        scope: &Scope,
    ) -> Result<bool> {
        match p {
            Pattern::MatchValue(v) => {
                let want = self.eval(&v.value, scope)?;
                let eq = self.compare(&ast::CmpOp::Eq, x, &want)?;
                self.truth(&eq, "a match value pattern")
            }
            Pattern::MatchSingleton(s) => Ok(match &s.value {
                Constant::None => matches!(x, Obj::None),
                Constant::Bool(b) => matches!(x, Obj::Bool(y) if y == b),
                _ => false,
            }),
            Pattern::MatchSequence(s) => self.sequence(&s.patterns, x, caps, scope),
            Pattern::MatchMapping(m) => self.mapping(m, x, caps, scope),
            Pattern::MatchClass(c) => self.class_pattern(c, x, caps, scope),
            Pattern::MatchStar(_) => bail!(SyntaxError, "starred pattern outside a sequence"),
            Pattern::MatchAs(a) => {
                if let Some(sub) = &a.pattern {
                    if !self.pattern(sub, x, caps, scope)? {
                        return Ok(false);
                    }
                }
                if let Some(n) = &a.name {
                    caps.push((n.to_string(), x.clone()));
                }
                Ok(true)
            }
            Pattern::MatchOr(o) => {
                for alt in &o.patterns {
                    let mut mine = Captures::new();
                    if self.pattern(alt, x, &mut mine, scope)? {
                        caps.extend(mine);
                        return Ok(true);
                    }
                }
                Ok(false)
            }
        }
    }

    /// `[a, b, *rest]` / `(a, b)`.
    fn sequence(
        &mut self,
        ps: &[Pattern],
        x: &Obj,
        caps: &mut Captures,
        scope: &Scope,
    ) -> Result<bool> {
        if !matches!(x.plain(), Obj::List(_) | Obj::Tuple(_) | Obj::Range(..)) {
            return Ok(false);
        }
        let items = self.iterate(x)?;
        let star = ps.iter().position(|p| matches!(p, Pattern::MatchStar(_)));
        let fixed = ps.len() - usize::from(star.is_some());
        if items.len() < fixed || (star.is_none() && items.len() != fixed) {
            return Ok(false);
        }
        let Some(si) = star else {
            for (p, item) in ps.iter().zip(&items) {
                if !self.pattern(p, item, caps, scope)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        };
        let after = ps.len() - si - 1;
        let rest_end = items.len() - after;
        for (p, item) in ps[..si].iter().zip(&items[..si]) {
            if !self.pattern(p, item, caps, scope)? {
                return Ok(false);
            }
        }
        for (p, item) in ps[si + 1..].iter().zip(&items[rest_end..]) {
            if !self.pattern(p, item, caps, scope)? {
                return Ok(false);
            }
        }
        if let Pattern::MatchStar(s) = &ps[si] {
            if let Some(n) = &s.name {
                caps.push((n.to_string(), Obj::list(items[si..rest_end].to_vec())));
            }
        }
        Ok(true)
    }

    /// `{"key": pattern, **rest}`.
    fn mapping(
        &mut self,
        m: &ast::PatternMatchMapping,
        x: &Obj,
        caps: &mut Captures,
        scope: &Scope,
    ) -> Result<bool> {
        let Obj::Dict(d) = x.plain() else {
            return Ok(false);
        };
        let mut used = vec![];
        for (k, p) in m.keys.iter().zip(&m.patterns) {
            let key = self.eval(k, scope)?;
            let Some(v) = d.borrow().get(&key) else {
                return Ok(false);
            };
            if !self.pattern(p, &v, caps, scope)? {
                return Ok(false);
            }
            used.push(key);
        }
        if let Some(rest) = &m.rest {
            let mut out = super::dict::Dict::default();
            for (k, v) in d.borrow().items.iter() {
                if !used.iter().any(|u| super::ops::py_eq(u, k)) {
                    out.set(k.clone(), v.clone());
                }
            }
            caps.push((rest.to_string(), Obj::Dict(Rc::new(RefCell::new(out)))));
        }
        Ok(true)
    }

    /// `Point(x, y=0)`, `int(n)`, `str()`.
    fn class_pattern(
        &mut self,
        c: &ast::PatternMatchClass,
        x: &Obj,
        caps: &mut Captures,
        scope: &Scope,
    ) -> Result<bool> {
        let cls = self.eval(&c.cls, scope)?;
        if !super::builtins::isinstance(x, &cls) {
            return Ok(false);
        }
        if let (Obj::Type(_), [p]) = (&cls, c.patterns.as_slice()) {
            if !self.pattern(p, x, caps, scope)? {
                return Ok(false);
            }
        } else if !c.patterns.is_empty() {
            let names = match getattr(self, &cls, "__match_args__") {
                Ok(Obj::Tuple(t)) => t.to_vec(),
                _ => bail!(
                    TypeError,
                    "{}() accepts 0 positional sub-patterns ({} given)",
                    cls_name(&cls),
                    c.patterns.len()
                ),
            };
            if c.patterns.len() > names.len() {
                bail!(
                    TypeError,
                    "{}() accepts {} positional sub-patterns ({} given)",
                    cls_name(&cls),
                    names.len(),
                    c.patterns.len()
                );
            }
            for (p, n) in c.patterns.iter().zip(&names) {
                let Obj::Str(n) = n else {
                    bail!(TypeError, "__match_args__ elements must be strings");
                };
                if !self.attr_pattern(p, x, n, caps, scope)? {
                    return Ok(false);
                }
            }
        }
        for (n, p) in c.kwd_attrs.iter().zip(&c.kwd_patterns) {
            if !self.attr_pattern(p, x, n.as_str(), caps, scope)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// One attribute of a class pattern: absent attributes do not match.
    fn attr_pattern(
        &mut self,
        p: &Pattern,
        x: &Obj,
        name: &str,
        caps: &mut Captures,
        scope: &Scope,
    ) -> Result<bool> {
        match getattr(self, x, name) {
            Ok(v) => self.pattern(p, &v, caps, scope),
            Err(e) if e.type_name() == "AttributeError" => Ok(false),
            Err(e) => Err(e),
        }
    }
}

fn cls_name(cls: &Obj) -> String {
    match cls {
        Obj::Class(c) => c.name.clone(),
        Obj::Type(t) => t.to_string(),
        other => other.type_name(),
    }
}
