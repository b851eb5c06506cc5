//! Breaking a run's reference cycles when it ends.
//!
//! Objects here are reference counted, so a cycle is never freed by
//! itself: a closure and the scope it was defined in (`def outer(): def
//! inner(): ...`), an instance that refers to itself (`self.me = self`), a
//! class whose attribute holds one of its instances. Python's garbage
//! collector frees such cycles; a page worker that runs program after
//! program would otherwise keep every run's cycles alive. So the
//! interpreter tracks the objects that can close a cycle (scopes that
//! functions close over, instances, classes) by weak reference, and when a
//! run ends empties the ones still alive, which frees them.

use std::rc::{Rc, Weak};

use super::interp::{Scope, ScopeData};
use super::value::{Class, Instance, Obj};

/// The objects of one run that may be part of a cycle.
#[derive(Default)]
pub struct Cycles {
    scopes: Vec<Weak<ScopeData>>,
    instances: Vec<Weak<Instance>>,
    classes: Vec<Weak<Class>>,
    /// Entries at the last pruning: the lists are pruned of dead entries
    /// whenever they double, so a long run does not grow them without bound.
    pruned_at: usize,
}

impl Cycles {
    /// Tracks a scope that a function closes over.
    pub fn scope(&mut self, s: &Scope) {
        if self
            .scopes
            .last()
            .is_some_and(|w| w.as_ptr() == Rc::as_ptr(s))
        {
            return;
        }
        self.scopes.push(Rc::downgrade(s));
        self.maybe_prune();
    }

    /// Tracks an instance.
    pub fn instance(&mut self, i: &Rc<Instance>) {
        self.instances.push(Rc::downgrade(i));
        self.maybe_prune();
    }

    /// Tracks a class.
    pub fn class(&mut self, c: &Rc<Class>) {
        self.classes.push(Rc::downgrade(c));
        self.maybe_prune();
    }

    fn len(&self) -> usize {
        self.scopes.len() + self.instances.len() + self.classes.len()
    }

    fn maybe_prune(&mut self) {
        if self.len() < 2 * self.pruned_at.max(1024) {
            return;
        }
        self.scopes.retain(|w| w.strong_count() > 0);
        self.instances.retain(|w| w.strong_count() > 0);
        self.classes.retain(|w| w.strong_count() > 0);
        self.pruned_at = self.len();
    }

    /// Empties every tracked object still alive, which frees the cycles
    /// they close.
    pub fn break_all(&mut self) {
        for s in self.scopes.drain(..).filter_map(|w| w.upgrade()) {
            let vars = std::mem::take(&mut *s.vars.borrow_mut());
            drop(vars);
        }
        for i in self.instances.drain(..).filter_map(|w| w.upgrade()) {
            let attrs = std::mem::take(&mut *i.attrs.borrow_mut());
            drop(attrs);
            // The dict or list an instance extends can hold the instance.
            match &i.base {
                Some(Obj::Dict(d)) => drop(std::mem::take(&mut *d.borrow_mut())),
                Some(Obj::List(l)) => drop(std::mem::take(&mut *l.borrow_mut())),
                _ => {}
            }
        }
        for c in self.classes.drain(..).filter_map(|w| w.upgrade()) {
            let attrs = std::mem::take(&mut *c.attrs.borrow_mut());
            drop(attrs);
        }
        self.pruned_at = 0;
    }
}
