//! JAX's mutable array references: `jax.new_ref`, the `Ref` type and the
//! `jax.ref` module (`get`, `set`, `swap`, `addupdate`, `freeze`).
//!
//! A `Ref` object holds a [`RefSlot`]; how traces treat slots (lifting a
//! ref into a jitted function or a loop body, reaching through grad and
//! vmap) is [`crate::trace::refs`]. Here are the Python-facing rules: NumPy
//! indexing reads with the same gathers as arrays, and writes build the
//! new value with the same scatters as `x.at[idx].set(v)`; a written value
//! must have exactly the shape and dtype of what it replaces, as JAX's
//! `swap` and `addupdate` require.

use std::rc::Rc;

use crate::error::Result;
use crate::python::array::{array_getitem, at_update, to_value};
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};
use crate::trace::refs::{read, write, write_as, RefSlot};
use crate::trace::Value;
use crate::{bail, err};

use super::Builder;

/// A `jax.Ref`.
pub struct Ref(pub Rc<RefSlot>);

/// The slot of `o` when it is a ref.
pub fn slot_of(o: &Obj) -> Option<Rc<RefSlot>> {
    o.downcast::<Ref>().map(|r| r.0.clone())
}

/// A new ref object holding `v`.
pub fn new_ref_obj(v: Value) -> Obj {
    Obj::lib(Ref(RefSlot::new(v)))
}

/// Registers `new_ref`, `freeze`, `Ref` on the `jax` module.
pub fn register(b: &mut Builder) {
    b.func("new_ref", new_ref);
    b.func("freeze", freeze);
    b.attr("Ref", Obj::lib(RefType));
}

/// The `jax.ref` module.
pub fn module() -> Obj {
    Builder::new("jax.ref")
        .func("new_ref", new_ref)
        .func("freeze", freeze)
        .func("get", |_, a| ref_get(&a))
        .func("set", |_, a| ref_set(&a))
        .func("swap", |_, a| ref_swap(&a))
        .func("addupdate", |_, a| ref_addupdate(&a))
        .attr("Ref", Obj::lib(RefType))
        .build()
}

/// `jax.new_ref(init_val)`.
fn new_ref(_: &mut Interp, a: Args) -> Result<Obj> {
    let init = a.req(Some(0), "init_val", "new_ref")?;
    if slot_of(&init).is_some() {
        bail!(AssertionError, "");
    }
    let v = to_value(&init).map_err(|_| {
        err!(
            TypeError,
            "Error interpreting argument to new_ref as a JAX value. The problematic value is of \
             type {} and was passed to new_ref at position 0.\n",
            class_text(&init)
        )
    })?;
    Ok(new_ref_obj(v))
}

fn class_text(o: &Obj) -> String {
    format!("<class '{}'>", o.type_name())
}

/// `jax.freeze(ref)`: the ref's final value.
fn freeze(_: &mut Interp, a: Args) -> Result<Obj> {
    let r = the_ref(&a.req(Some(0), "ref", "freeze")?, "freeze")?;
    Ok(Obj::Array(read(&r)?))
}

fn the_ref(o: &Obj, function: &str) -> Result<Rc<RefSlot>> {
    slot_of(o).ok_or_else(|| {
        err!(
            ValueError,
            "Can only call `{function}` on a `Ref`: {}.",
            crate::python::format::str_of(o)
        )
    })
}

/// The index argument: None and `...` both select everything.
fn index_arg(a: &Args) -> Obj {
    a.get(Some(1), "idx").unwrap_or(Obj::None)
}

fn whole(idx: &Obj) -> bool {
    matches!(idx, Obj::None | Obj::Ellipsis) || matches!(idx, Obj::Tuple(t) if t.is_empty())
}

/// `ref[idx]`.
pub fn get(slot: &Rc<RefSlot>, idx: &Obj) -> Result<Value> {
    let v = read(slot)?;
    if whole(idx) {
        return Ok(v);
    }
    array_getitem(&v, idx)
}

/// What `ref[idx] = v` (`how` = "swap") or an add-update does with `v`:
/// checks it against the indexed part and returns the ref's new value.
fn updated(slot: &Rc<RefSlot>, idx: &Obj, v: &Obj, how: &str) -> Result<Value> {
    let current = read(slot)?;
    let target = if whole(idx) {
        current.clone()
    } else {
        array_getitem(&current, idx)?
    };
    let val = to_value(v)?;
    if val.shape() != target.shape() {
        let transforms = if whole(idx) {
            "()".to_string()
        } else {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: JAX's message for a `{how}` of the wrong shape \
                 through an index"
            )
        };
        bail!(
            ValueError,
            "Invalid shape for `{how}`. Ref shape: {}. Expected shape: {}. Value shape: {}. \
             Transforms: {transforms}. ",
            shape_text(&current.shape()),
            shape_text(&target.shape()),
            shape_text(&val.shape())
        );
    }
    if val.dtype() != target.dtype() {
        let (label, dtype) = match how {
            "swap" => ("Value dtype", target.dtype()),
            _ => ("Value shape", current.dtype()),
        };
        bail!(
            ValueError,
            "Invalid dtype for `{how}`. Ref dtype: {}. {label}: {}. ",
            dtype.name(),
            val.dtype().name()
        );
    }
    match (whole(idx), how) {
        (true, "swap") => Ok(val),
        (true, _) => crate::ops::binary(crate::array::BinaryOp::Add, &current, &val),
        (false, "swap") => at_update(&current, idx, &Obj::Array(val), "set"),
        (false, _) => at_update(&current, idx, &Obj::Array(val), "add"),
    }
}

/// A shape as Python prints a tuple: `(3,)`, `()`.
fn shape_text(shape: &[usize]) -> String {
    match shape {
        [d] => format!("({d},)"),
        dims => {
            let parts: Vec<String> = dims.iter().map(usize::to_string).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// `ref[idx] = v`; returns the value it replaced.
pub fn swap(slot: &Rc<RefSlot>, idx: &Obj, v: &Obj) -> Result<Value> {
    let old = get(slot, idx)?;
    let new = updated(slot, idx, v, "swap")?;
    write(slot, new)?;
    Ok(old)
}

fn ref_get(a: &Args) -> Result<Obj> {
    let r = the_ref(&a.req(Some(0), "ref", "get")?, "ref_get")?;
    Ok(Obj::Array(get(&r, &index_arg(a))?))
}

fn ref_set(a: &Args) -> Result<Obj> {
    let r = the_ref(&a.req(Some(0), "ref", "set")?, "ref_set")?;
    let v = a.req(Some(2), "value", "set")?;
    swap(&r, &index_arg(a), &v)?;
    Ok(Obj::None)
}

fn ref_swap(a: &Args) -> Result<Obj> {
    let r = the_ref(&a.req(Some(0), "ref", "swap")?, "ref_swap")?;
    let v = a.req(Some(2), "value", "swap")?;
    Ok(Obj::Array(swap(&r, &index_arg(a), &v)?))
}

fn ref_addupdate(a: &Args) -> Result<Obj> {
    let r = the_ref(&a.req(Some(0), "ref", "addupdate")?, "ref_addupdate")?;
    let x = a.req(Some(2), "x", "addupdate")?;
    let new = updated(&r, &index_arg(a), &x, "addupdate")?;
    write_as(&r, new, "an addupdate")?;
    Ok(Obj::None)
}

impl Object for Ref {
    fn type_name(&self) -> String {
        "Ref".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("jax._src.core")
    }

    fn getattr(&self, interp: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let aval = self.0.aval();
        Ok(Some(match name {
            "shape" => Obj::tuple(aval.shape.iter().map(|&d| Obj::Int(d as i64)).collect()),
            "ndim" => Obj::Int(aval.shape.len() as i64),
            "size" => Obj::Int(aval.shape.iter().product::<usize>() as i64),
            "dtype" => crate::python::array::array_attr(interp, &read(&self.0)?, "dtype")?,
            "aval" => Obj::lib(super::jax::Printed::new("AbstractRef", self.0.type_text())),
            "addupdate" => {
                let slot = self.0.clone();
                Obj::native("Ref.addupdate", move |_, a| {
                    let x = a.req(Some(0), "x", "addupdate")?;
                    let idx = a.get(Some(1), "idx").unwrap_or(Obj::None);
                    write_as(
                        &slot,
                        updated(&slot, &idx, &x, "addupdate")?,
                        "an addupdate",
                    )?;
                    Ok(Obj::None)
                })
            }
            // The ref's storage: what stays the same while it is updated
            // in place.
            "unsafe_buffer_pointer" => {
                let at = Rc::as_ptr(&self.0) as usize as i64;
                Obj::native("Ref.unsafe_buffer_pointer", move |_, _| Ok(Obj::Int(at)))
            }
            "at" => bail!(NotImplementedError, ""),
            "__getitem__" => {
                let slot = self.0.clone();
                Obj::native("Ref.__getitem__", move |_, a| {
                    let idx = a.req(Some(0), "idx", "__getitem__")?;
                    Ok(Obj::Array(get(&slot, &idx)?))
                })
            }
            "__setitem__" => {
                let slot = self.0.clone();
                Obj::native("Ref.__setitem__", move |_, a| {
                    let idx = a.req(Some(0), "idx", "__setitem__")?;
                    let x = a.req(Some(1), "x", "__setitem__")?;
                    swap(&slot, &idx, &x)?;
                    Ok(Obj::None)
                })
            }
            _ => return Ok(None),
        }))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let text = repr_of(&Obj::Array(self.0.peek()));
        Some(match text.strip_prefix("Array") {
            Some(rest) => format!("Ref{rest}"),
            None => format!("Ref({text})"),
        })
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        None
    }

    fn getitem(&self, _: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(get(&self.0, key).map(Obj::Array))
    }

    fn setitem(&self, _: &Obj, key: &Obj, v: &Obj) -> Option<Result<()>> {
        Some(swap(&self.0, key, v).map(|_| ()))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(slot_of(other).is_some_and(|o| Rc::ptr_eq(&o, &self.0)))
    }
}

/// `jax.Ref`, the type.
struct RefType;

impl Object for RefType {
    fn type_name(&self) -> String {
        "type".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("<class 'jax.Ref'>".into())
    }

    fn instancecheck(&self, obj: &Obj) -> Option<bool> {
        Some(slot_of(obj).is_some())
    }
}
