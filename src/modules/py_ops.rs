//! Python's operators, attribute access, indexing and `jax.numpy` calls on
//! objects, for library functions that JAX writes in Python as compositions
//! of jnp operations: written through these, each step dispatches exactly as
//! the same Python line would in a program (weak types, promotion, `.at`
//! updates, tracers under `jit` and `vmap`).

use std::cell::RefCell;

use rustpython_parser::ast::{CmpOp, Operator, UnaryOp};

use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::ops::{getattr, getitem};
use crate::python::value::{Args, Obj};

use super::numpy::jnp_call;

/// Python's operators and jnp's functions on arrays, for the formulas below.
pub(crate) struct Ops<'a>(RefCell<&'a mut Interp>);

impl<'a> Ops<'a> {
    pub fn new(interp: &'a mut Interp) -> Ops<'a> {
        Ops(RefCell::new(interp))
    }
    /// `x.name`.
    pub fn attr(&self, x: &Obj, name: &str) -> Result<Obj> {
        getattr(&mut self.0.borrow_mut(), x, name)
    }
    /// `f(*pos)`.
    pub fn call(&self, f: &Obj, pos: Vec<Obj>) -> Result<Obj> {
        self.0.borrow_mut().call(f, Args::new(pos))
    }
    pub fn bin(&self, op: Operator, a: &Obj, b: &Obj) -> Result<Obj> {
        self.0.borrow_mut().binop(&op, a, b, false)
    }
    pub fn add(&self, a: &Obj, b: &Obj) -> Result<Obj> {
        self.bin(Operator::Add, a, b)
    }
    pub fn sub(&self, a: &Obj, b: &Obj) -> Result<Obj> {
        self.bin(Operator::Sub, a, b)
    }
    pub fn mul(&self, a: &Obj, b: &Obj) -> Result<Obj> {
        self.bin(Operator::Mult, a, b)
    }
    pub fn div(&self, a: &Obj, b: &Obj) -> Result<Obj> {
        self.bin(Operator::Div, a, b)
    }
    pub fn rem(&self, a: &Obj, b: &Obj) -> Result<Obj> {
        self.bin(Operator::Mod, a, b)
    }
    pub fn floordiv(&self, a: &Obj, b: &Obj) -> Result<Obj> {
        self.bin(Operator::FloorDiv, a, b)
    }
    pub fn and(&self, a: &Obj, b: &Obj) -> Result<Obj> {
        self.bin(Operator::BitAnd, a, b)
    }
    pub fn or(&self, a: &Obj, b: &Obj) -> Result<Obj> {
        self.bin(Operator::BitOr, a, b)
    }
    pub fn neg(&self, a: &Obj) -> Result<Obj> {
        self.0.borrow_mut().unary(&UnaryOp::USub, a)
    }
    /// `~a`.
    pub fn invert(&self, a: &Obj) -> Result<Obj> {
        self.0.borrow_mut().unary(&UnaryOp::Invert, a)
    }
    pub fn cmp(&self, op: CmpOp, a: &Obj, b: &Obj) -> Result<Obj> {
        self.0.borrow_mut().compare(&op, a, b)
    }
    /// `x[key]`.
    pub fn at(&self, x: &Obj, key: Obj) -> Result<Obj> {
        getitem(&mut self.0.borrow_mut(), x, &key)
    }
    /// `x[i]` for a Python int `i`.
    pub fn item(&self, x: &Obj, i: i64) -> Result<Obj> {
        self.at(x, Obj::Int(i))
    }
    /// `x[:n]`.
    pub fn head(&self, x: &Obj, n: i64) -> Result<Obj> {
        let s = Obj::Slice(std::rc::Rc::new([Obj::None, Obj::Int(n), Obj::None]));
        self.at(x, s)
    }
    /// `x.at[key].set(v)`.
    pub fn set(&self, x: &Obj, key: Obj, v: &Obj) -> Result<Obj> {
        let at = self.attr(x, "at")?;
        let updater = self.at(&at, key)?;
        let set = self.attr(&updater, "set")?;
        self.call(&set, vec![v.clone()])
    }
    /// `jnp.name(*pos)`.
    pub fn jnp(&self, name: &str, pos: Vec<Obj>) -> Result<Obj> {
        jnp_call(&mut self.0.borrow_mut(), name, pos, vec![])
    }
    /// `jnp.name(*pos, **kw)`.
    pub fn jnp_kw(&self, name: &str, pos: Vec<Obj>, kw: Vec<(&str, Obj)>) -> Result<Obj> {
        jnp_call(&mut self.0.borrow_mut(), name, pos, kw)
    }
    pub fn select(&self, c: &Obj, a: &Obj, b: &Obj) -> Result<Obj> {
        self.jnp("where", vec![c.clone(), a.clone(), b.clone()])
    }
    /// `jnp.empty(n, dtype=like.dtype)` (zeros, as XLA gives them).
    pub fn empty_like(&self, n: i64, like: &Obj) -> Result<Obj> {
        let dtype = self.attr(like, "dtype")?;
        self.jnp_kw("zeros", vec![Obj::Int(n)], vec![("dtype", dtype)])
    }
    /// `jnp.array(items)`.
    pub fn array(&self, items: Vec<Obj>) -> Result<Obj> {
        self.jnp("array", vec![Obj::list(items)])
    }
}
