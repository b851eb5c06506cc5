//! The object protocol: how types that the interpreter core does not know
//! (JAX's meshes, specs, shardings, devices and jaxprs; PRNG keys; Flax
//! variables; Optax states) behave as Python objects.
//!
//! A library type implements [`Object`] once, and the core asks it, through
//! that one trait, for everything Python may do with a value: its type name,
//! attributes, calls, `repr`/`str`, iteration and `len`, `[]`, `==`, the array
//! it stands for in arithmetic, and its pytree children. Every method but
//! [`Object::type_name`] has a default meaning "not provided", and the core
//! then does what Python does for a plain object (an `AttributeError`, "not
//! iterable", identity for `==`, a leaf of a pytree).
//!
//! The trait is used in two places, like CPython's type slots:
//! - `Obj::Lib(Rc<dyn Object>)` holds an opaque library value (a `Mesh`, a
//!   `PartitionSpec`); `this` is that same object.
//! - A [`Class`](super::value::Class) made by a library may carry an `Object`
//!   as its `native` behaviour, which its instances and the instances of every
//!   Python subclass inherit (`class Count(nnx.Variable)` keeps the variable's
//!   arithmetic); `this` is then the instance.
//!
//! The core never names a library type: adding one touches only the file
//! that defines it.

use std::any::Any;
use std::rc::Rc;

use crate::error::Result;

use super::interp::Interp;
use super::value::{Args, Instance, Obj};

/// A Python object's behaviour, implemented by a library type.
pub trait Object: Any {
    /// `type(x).__name__`.
    fn type_name(&self) -> String;

    /// The Python module JAX defines the type in (`type(x)` prints
    /// `<class 'module.Name'>`), or None to print the bare name.
    fn type_module(&self) -> Option<&'static str> {
        None
    }

    /// `x.name`, or None when `x` has no such attribute.
    fn getattr(&self, interp: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let _ = (interp, this, name);
        Ok(None)
    }

    /// `x(*args, **kwargs)`, or None when `x` is not callable.
    fn call(&self, interp: &mut Interp, this: &Obj, args: Args) -> Option<Result<Obj>> {
        let _ = (interp, this, args);
        None
    }

    /// True when [`Object::call`] answers (what `callable(x)` says).
    fn callable(&self) -> bool {
        false
    }

    /// True for a callable that, found on a class, binds the instance as
    /// its first argument as a function does (a descriptor's `__get__`,
    /// as JAX's jitted functions have).
    fn binds_as_method(&self) -> bool {
        false
    }

    /// `repr(x)`, or None for the default `<T object>`.
    fn repr(&self, this: &Obj) -> Option<String> {
        let _ = this;
        None
    }

    /// `str(x)`, or None to use `repr(x)`.
    fn str(&self, this: &Obj) -> Option<String> {
        let _ = this;
        None
    }

    /// The items `iter(x)` yields and `len(x)` counts, or None when `x` is
    /// not iterable.
    fn items(&self, this: &Obj) -> Option<Result<Vec<Obj>>> {
        let _ = this;
        None
    }

    /// For an iterator (what `next(x)` advances): the next item, or
    /// `Ok(None)` once exhausted. None when `x` is not such an iterator.
    fn next(&self, interp: &mut Interp, this: &Obj) -> Option<Result<Option<Obj>>> {
        let _ = (interp, this);
        None
    }

    /// True when [`Object::next`] answers.
    fn is_iterator(&self) -> bool {
        false
    }

    /// `x[key]`, or None when `x` is not subscriptable.
    fn getitem(&self, interp: &mut Interp, this: &Obj, key: &Obj) -> Option<Result<Obj>> {
        let _ = (interp, this, key);
        None
    }

    /// `x[key] = v`, or None when `x` does not support item assignment.
    fn setitem(&self, this: &Obj, key: &Obj, v: &Obj) -> Option<Result<()>> {
        let _ = (this, key, v);
        None
    }

    /// `x <op> other` (or `other <op> x` when `!left`; `x <op>= other` when
    /// `inplace`), or None to let the core combine the arrays they stand for.
    fn binop(
        &self,
        interp: &mut Interp,
        this: &Obj,
        op: &rustpython_parser::ast::Operator,
        other: &Obj,
        left: bool,
        inplace: bool,
    ) -> Option<Result<Obj>> {
        let _ = (interp, this, op, other, left, inplace);
        None
    }

    /// `-x`, `+x` or `~x`, or None for the core's meaning.
    fn unary(&self, this: &Obj, op: &rustpython_parser::ast::UnaryOp) -> Option<Result<Obj>> {
        let _ = (this, op);
        None
    }

    /// The rich comparison `x <op> other` (`other <op> x` when `!left`), or
    /// None for the core's meaning.
    fn compare(
        &self,
        this: &Obj,
        op: &rustpython_parser::ast::CmpOp,
        other: &Obj,
        left: bool,
    ) -> Option<Result<Obj>> {
        let _ = (this, op, other, left);
        None
    }

    /// `x == other`, or None for identity.
    fn eq(&self, this: &Obj, other: &Obj) -> Option<bool> {
        let _ = (this, other);
        None
    }

    /// The array `x` stands for in arithmetic and in jnp functions (an
    /// `nnx.Variable`'s value), or None.
    fn array(&self, this: &Obj) -> Option<Obj> {
        let _ = this;
        None
    }

    /// The Python number (int, float or bool) a scalar object converts to
    /// wherever Python asks for one (`__index__`, `__int__`, `__float__`,
    /// `__bool__`, `__hash__`, format specs, ordering), as NumPy's scalars
    /// do; None for objects that are not numbers.
    fn scalar(&self) -> Option<Obj> {
        None
    }

    /// What `type(x)` returns, when the library has a type object of its
    /// own for it (NumPy's scalar types); None for a plain class named by
    /// [`Object::type_name`].
    fn type_object(&self) -> Option<Obj> {
        None
    }

    /// The builtin type a library type derives from (`numpy.float64` is a
    /// `float`), for `isinstance`; None for none.
    fn builtin_base(&self) -> Option<&'static str> {
        None
    }

    /// For a class's native behaviour: whether `obj` is an instance of the
    /// class by what it can do rather than by derivation (the abstract
    /// classes of `collections.abc`), or None to ask derivation. For a
    /// library object that stands for a type (`PartitionSpec`): whether
    /// `isinstance(obj, x)`.
    fn instancecheck(&self, obj: &Obj) -> Option<bool> {
        let _ = obj;
        None
    }

    /// For a library object that is a class (`jnp.float32`, `np.float32`),
    /// its qualified name, which tells two classes apart: `is` compares
    /// these, and as a dict key or set member the class matches only a
    /// class it equals, as Python hashes a class apart from the dtype it
    /// equals (`x.dtype == jnp.float32` holds, `x.dtype in {jnp.float32: 1}`
    /// does not). None for objects that are not classes.
    fn class_name(&self) -> Option<String> {
        None
    }

    /// For a library object that is a class: whether `issubclass(cls, x)`,
    /// or None when only `x` itself (and `object`) qualify.
    fn subclasscheck(&self, cls: &Obj) -> Option<bool> {
        let _ = cls;
        None
    }

    /// For a class's native behaviour: checks a new instance once its
    /// `__init__` has returned (what a metaclass's `__call__` does after
    /// construction, as Flax's checks of `nnx.Pytree` attributes).
    fn constructed(&self, interp: &mut Interp, instance: &Obj) -> Result<()> {
        let _ = (interp, instance);
        Ok(())
    }

    /// For a class's native behaviour: notes a new instance before its
    /// `__init__` runs, or one rebuilt from a pytree's children (Flax
    /// records the trace an nnx object is made under).
    fn created(&self, instance: &Rc<Instance>) {
        let _ = instance;
    }

    /// For a class's native behaviour: notes an instance just rebuilt from
    /// a pytree's children, which were the attributes `children` (Flax
    /// keeps which attributes are data in a node's aux data, so they stay
    /// children whatever values they get).
    fn rebuilt(&self, instance: &Rc<Instance>, children: &[String]) {
        let _ = (instance, children);
    }

    /// For a class's native behaviour: how a node of the class whose
    /// children are the attributes `names` (the others being `statics`)
    /// prints inside `PyTreeDef(...)`, given its children's texts; None
    /// for the default.
    fn treedef_text(
        &self,
        class: &Rc<super::value::Class>,
        statics: &[(String, Obj)],
        names: &[String],
        kids: &[String],
    ) -> Option<String> {
        let _ = (class, statics, names, kids);
        None
    }

    /// For a class's native behaviour: what a `class` statement deriving
    /// from the class binds instead of the new subclass (an enumeration
    /// from `class Color(Enum)`, as Python's metaclasses do), or None to
    /// bind the subclass itself.
    fn subclass_created(
        &self,
        interp: &mut Interp,
        class: &Rc<super::value::Class>,
    ) -> Option<Result<Obj>> {
        let _ = (interp, class);
        None
    }

    /// The names of the attributes that hold `x`'s pytree children, in
    /// flattening order, or None when `x` is a leaf.
    fn children(&self, this: &Obj) -> Option<Vec<String>> {
        let _ = this;
        None
    }

    /// What to call `x` in a refusal when the real object is a pytree node
    /// whose children shardlab does not hold (the function `jax.vjp`
    /// returns, whose leaves in JAX are its residuals), or None when `x`
    /// is a leaf here as it is in JAX.
    fn unflattenable(&self) -> Option<String> {
        None
    }

    /// True when the children named by [`Object::children`] are entries of
    /// a mapping (key paths show `['name']`), not attributes (`.name`).
    fn children_are_entries(&self, this: &Obj) -> bool {
        let _ = this;
        false
    }
}

impl dyn Object {
    /// The object as a `T`, when it is one.
    pub fn downcast<T: Object>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref::<T>()
    }
}

/// The object as an `Rc<T>`, when it is a `T` (so that a library can keep
/// sharing it, as a map keeps its mesh).
pub fn downcast_rc<T: Object>(o: &Rc<dyn Object>) -> Option<Rc<T>> {
    let any: Rc<dyn Any> = o.clone();
    any.downcast::<T>().ok()
}
