//! `numpy.ndarray`: NumPy's host arrays, which a program may change in place.
//!
//! An ndarray holds one shardlab array behind a `RefCell`; every name bound
//! to it sees a change (`x[1:3] = 0`, `x += 1`, `np.copyto`, `x.fill`).
//! Reading it never hands the cell out: a `jnp` function, `jax.jit` or
//! arithmetic with a JAX array gets the array it holds at that moment, so a
//! later change leaves the JAX array as it was, as copying to the device
//! does in JAX. The `numpy` module's functions take ndarrays and return
//! them (see [`wrap_function`]); arithmetic between ndarrays and Python
//! numbers stays an ndarray, and with a JAX array gives a JAX array.
//!
//! Indexing gives a new ndarray (NumPy's views, which write through to the
//! array they were taken from, are not modelled), and a 0-d result is a
//! NumPy scalar (`scalar`). A reduction or array method that NumPy hands
//! to a JAX array's own method (`np.sum(jnp_array)`) returns the JAX array.
//!
//! Arrays of NumPy's 64-bit kinds (float64, int64, from Python numbers,
//! NumPy's creation functions and random draws) are held on the host as
//! doubles with their kind (see `hostfuncs`); the engine holds the 32-bit
//! arrays JAX hands over. Where a host array meets JAX it becomes the
//! float32 / int32 array JAX without x64 makes of it.

use std::cell::RefCell;

use rustpython_parser::ast::{CmpOp, Operator};

use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::{array_attr, array_getitem, at_update, to_value};
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::{array_binop, compare};
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::host::{HostArray, Kind};

/// What an ndarray holds.
#[derive(Clone)]
enum Stored {
    /// A 32-bit or bool array in the engine.
    Device(Array),
    /// A float64 / int64 array on the host.
    Host(HostArray),
}

/// A mutable NumPy array.
pub struct NdArray {
    value: RefCell<Stored>,
    /// False for `np.asarray` of a JAX array, which NumPy sees through a
    /// read-only view of the device buffer.
    writeable: bool,
}

impl NdArray {
    /// A writeable host array of a 64-bit kind.
    pub fn host_array(h: HostArray) -> NdArray {
        NdArray {
            value: RefCell::new(Stored::Host(h)),
            writeable: true,
        }
    }

    /// The array it holds now, as JAX sees it (float64 is float32 and
    /// int64 int32 there).
    pub fn get(&self) -> Result<Array> {
        match &*self.value.borrow() {
            Stored::Device(a) => Ok(a.clone()),
            Stored::Host(h) => match h.to_obj()? {
                Obj::Array(Value::Concrete(a)) => Ok(a),
                _ => bail!(TypeError, "not an array"),
            },
        }
    }

    /// The values with NumPy's kind.
    pub fn host(&self) -> HostArray {
        match &*self.value.borrow() {
            Stored::Device(a) => HostArray {
                shape: a.shape().to_vec(),
                data: a.to_f64_vec(),
                kind: kind_of(a.dtype()),
            },
            Stored::Host(h) => h.clone(),
        }
    }

    /// Whether it holds a 64-bit host array.
    pub fn is_host(&self) -> bool {
        matches!(&*self.value.borrow(), Stored::Host(_))
    }

    /// Replaces a host array's elements (same shape and kind).
    pub fn store_host(&self, h: HostArray) -> Result<()> {
        if !self.writeable {
            bail!(ValueError, "{DESTINATION}");
        }
        *self.value.borrow_mut() = Stored::Host(h);
        Ok(())
    }

    /// Replaces the elements, keeping the shape and dtype (NumPy casts what
    /// is stored to the array's dtype).
    fn store(&self, v: &Value, refusal: &str) -> Result<()> {
        if !self.writeable {
            bail!(ValueError, "{refusal}");
        }
        if self.is_host() {
            let cur = self.host();
            let Value::Concrete(a) = v else {
                bail!(
                    TypeError,
                    "a traced value cannot be stored in a NumPy array"
                );
            };
            let src = HostArray::from_obj(&Obj::Array(Value::Concrete(a.clone())))?;
            let h = super::hostmove::broadcast_into(&cur, &src)?;
            *self.value.borrow_mut() = Stored::Host(h);
            return Ok(());
        }
        let cur = self.get()?;
        let v = jops::convert(v, cur.dtype())?;
        let v = jops::broadcast_to(&v, cur.shape())?;
        let Value::Concrete(a) = v else {
            bail!(
                TypeError,
                "a traced value cannot be stored in a NumPy array"
            );
        };
        *self.value.borrow_mut() = Stored::Device(a);
        Ok(())
    }
}

/// NumPy's refusal to write into a read-only array.
const DESTINATION: &str = "assignment destination is read-only";

impl NdArray {
    /// Replaces the elements with `v` (an ndarray, a JAX array, numbers or
    /// lists of them), cast to the array's kind and broadcast to its shape.
    pub fn store_obj(&self, v: &Obj, refusal: &str) -> Result<()> {
        if !self.writeable {
            bail!(ValueError, "{refusal}");
        }
        if self.is_host() {
            let src = HostArray::from_obj(v)?;
            let h = super::hostmove::broadcast_into(&self.host(), &src)?;
            return self.store_host(h);
        }
        self.store(&to_value(&unwrap(v.clone())?)?, refusal)
    }
}

/// Wraps a concrete array of rank one or more as an ndarray and a 0-d
/// one as a NumPy scalar; other objects (traced values, tuples of them)
/// pass through, with the arrays in a tuple wrapped.
pub fn wrap(o: Obj) -> Obj {
    match o {
        Obj::Array(Value::Concrete(a)) if a.shape().is_empty() => {
            super::scalar::NpScalar::from_array(&a).unwrap_or(Obj::Array(Value::Concrete(a)))
        }
        // A host array has no sharding: NumPy sees the whole global array.
        Obj::Array(Value::Concrete(a)) if !a.shape().is_empty() => Obj::lib(NdArray {
            value: RefCell::new(Stored::Device(a.with_placement(None))),
            writeable: true,
        }),
        Obj::Tuple(t) => Obj::tuple(t.iter().cloned().map(wrap).collect()),
        other => other,
    }
}

/// The array an argument stands for: an ndarray (also inside a list or
/// tuple) becomes the JAX array it holds; anything else is kept.
pub fn unwrap(o: Obj) -> Result<Obj> {
    Ok(match &o {
        Obj::Lib(_) => match o.downcast::<NdArray>() {
            Some(n) => Obj::Array(Value::Concrete(n.get()?)),
            None => o,
        },
        Obj::List(l) if l.borrow().iter().any(is_ndarray) => Obj::list(
            l.borrow()
                .iter()
                .cloned()
                .map(unwrap)
                .collect::<Result<_>>()?,
        ),
        Obj::Tuple(t) if t.iter().any(is_ndarray) => {
            Obj::tuple(t.iter().cloned().map(unwrap).collect::<Result<_>>()?)
        }
        _ => o,
    })
}

/// Arguments with every ndarray replaced by the JAX array it stands for.
pub fn unwrap_args(a: Args) -> Result<Args> {
    Ok(Args::with(
        a.pos.into_iter().map(unwrap).collect::<Result<_>>()?,
        a.kw.into_iter()
            .map(|(k, v)| Ok((k, unwrap(v)?)))
            .collect::<Result<_>>()?,
    ))
}

/// Whether `o` is an ndarray.
pub fn is_ndarray(o: &Obj) -> bool {
    o.downcast::<NdArray>().is_some()
}

/// A `numpy` function that takes ndarrays and returns them.
pub fn wrap_function(f: Obj) -> Obj {
    let name = match &f {
        Obj::Native(n) => n.name.clone(),
        _ => return f,
    };
    Obj::native(name.clone(), move |interp, a| {
        if let Some(r) = super::hostfuncs::dispatch(interp, &name, &a) {
            return r;
        }
        if name == "numpy.asarray" && a.pos.len() == 1 && a.kw.is_empty() {
            match a.pos.first() {
                // np.asarray of an ndarray is the array itself.
                Some(o) if is_ndarray(o) => return Ok(o.clone()),
                Some(Obj::Array(Value::Concrete(x))) if !x.shape().is_empty() => {
                    return Ok(Obj::lib(NdArray {
                        value: RefCell::new(Stored::Device(x.clone().with_placement(None))),
                        writeable: false,
                    }))
                }
                _ => {}
            }
        }
        let by_method = calls_method(&name) && matches!(a.pos.first(), Some(Obj::Array(_)));
        // The random and testing functions (and SciPy's Bessel functions)
        // read NumPy arrays at their own precision; the predicates look at
        // the objects as they are.
        let args = if name.starts_with("numpy.random.")
            || name.starts_with("numpy.testing.")
            || matches!(name.as_str(), "numpy.isscalar" | "numpy.iterable")
            || name == "scipy.special.jv"
        {
            a
        } else {
            unwrap_args(a)?
        };
        // NumPy computes on the host: inside a traced function, NumPy of
        // concrete values (`np.prod(x.shape)` under jit) is a number, not a
        // staged operation.
        let host = args
            .pos
            .iter()
            .chain(args.kw.iter().map(|(_, v)| v))
            .all(plain_data);
        let out = if host {
            crate::trace::untraced(|| interp.call(&f, args))?
        } else {
            interp.call(&f, args)?
        };
        Ok(if by_method { out } else { wrap(out) })
    })
}

/// Whether `numpy.NAME` of an object that is not a NumPy array calls the
/// object's own method of that name (NumPy's reductions and array
/// methods do), so that of a JAX array it is the JAX array the method
/// returns: `np.sum(jnp_array)` is a JAX array, `np.sqrt(jnp_array)` an
/// ndarray.
fn calls_method(name: &str) -> bool {
    matches!(
        name.strip_prefix("numpy."),
        Some(
            "sum"
                | "prod"
                | "mean"
                | "std"
                | "var"
                | "max"
                | "amax"
                | "min"
                | "amin"
                | "argmax"
                | "argmin"
                | "cumsum"
                | "cumprod"
                | "any"
                | "all"
                | "transpose"
                | "round"
                | "around"
                | "squeeze"
                | "reshape"
                | "take"
                | "repeat"
                | "swapaxes"
                | "argsort"
                | "diagonal"
                | "trace"
        )
    )
}

/// Whether `o` is data with no tracer and nothing that could run code
/// closing over one (a function argument keeps the trace).
fn plain_data(o: &Obj) -> bool {
    match o {
        Obj::Array(v) => matches!(v, Value::Concrete(_)),
        Obj::List(l) => l.borrow().iter().all(plain_data),
        Obj::Tuple(t) => t.iter().all(plain_data),
        Obj::Dict(d) => d
            .borrow()
            .items
            .iter()
            .all(|(k, v)| plain_data(k) && plain_data(v)),
        Obj::Int(_) | Obj::Float(_) | Obj::Bool(_) | Obj::Str(_) | Obj::None => true,
        Obj::Complex(..) | Obj::DType(_) | Obj::Slice(_) | Obj::Ellipsis | Obj::Range(..) => true,
        Obj::Lib(_) => {
            is_ndarray(o)
                || super::scalar::is_scalar(o)
                || o.downcast::<super::scalar_types::HostType>().is_some()
                || o.class_name().is_some()
        }
        _ => false,
    }
}

/// Wraps every function of a `numpy` module (and of its submodules).
pub fn wrap_module(m: &Obj) {
    let Obj::Module(m) = m else { return };
    let mut attrs = m.attrs.borrow_mut();
    for (_, v) in attrs.iter_mut() {
        match v {
            Obj::Native(_) => *v = wrap_function(v.clone()),
            Obj::Module(_) => wrap_module(v),
            _ => {}
        }
    }
}

fn kind_of(d: DType) -> Kind {
    match d {
        DType::F32 => Kind::Float32,
        DType::I32 => Kind::Int32,
        DType::Bool => Kind::Bool,
        DType::U32 => Kind::UInt32,
        DType::U8 => Kind::UInt8,
        // NumPy arrays are never built from the other narrow types
        // (refused where they are made), so these arms are not reached.
        DType::BF16 | DType::F16 => Kind::Float32,
        DType::I8 | DType::I16 | DType::U16 => Kind::Int32,
        // NumPy arrays are never built from complex64 arrays (refused
        // where they are made), so this arm is not reached.
        DType::C64 => Kind::Float32,
    }
}

/// `x[mask] = v` for a boolean mask of `x`'s shape.
fn mask_set(x: &Value, mask: &Value, v: &Obj) -> Result<Option<Value>> {
    if mask.dtype() != DType::Bool || mask.shape() != x.shape() {
        return Ok(None);
    }
    let v = jops::convert(&to_value(v)?, x.dtype())?;
    if !v.shape().is_empty() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: assigning an array through a boolean mask"
        );
    }
    let v = jops::broadcast_to(&v, &x.shape())?;
    Ok(Some(jops::select(mask, &v, x)?))
}

/// NumPy's IndexError for an integer index past the end of its axis (JAX
/// clamps it instead), for keys of integers and slices.
pub fn check_bounds(shape: &[usize], key: &Obj) -> Result<()> {
    let items: Vec<Obj> = match key {
        Obj::Tuple(t) => t.to_vec(),
        other => vec![other.clone()],
    };
    if !items
        .iter()
        .all(|k| matches!(k, Obj::Int(_) | Obj::Slice(_)))
    {
        return Ok(());
    }
    for (ax, (k, &n)) in items.iter().zip(shape).enumerate() {
        if let Obj::Int(i) = k {
            let n = n as i64;
            if *i >= n || *i < -n {
                bail!(
                    IndexError,
                    "index {i} is out of bounds for axis {ax} with size {n}"
                );
            }
        }
    }
    Ok(())
}

impl NdArray {
    /// `x.fill` and `x.copy`, which act on the ndarray itself.
    fn own_method(&self, this: &Obj, name: &str) -> Option<Obj> {
        match name {
            "fill" => {
                let this = this.clone();
                Some(Obj::native("fill", move |_, a| {
                    let v = a.req(Some(0), "value", "fill")?;
                    if let Some(n) = this.downcast::<NdArray>() {
                        n.store_obj(&v, DESTINATION)?;
                    }
                    Ok(Obj::None)
                }))
            }
            "copy" => {
                let held = self.value.borrow().clone();
                Some(Obj::native("copy", move |_, _| {
                    Ok(match &held {
                        Stored::Device(a) => wrap(Obj::Array(Value::Concrete(a.clone()))),
                        Stored::Host(h) => Obj::lib(NdArray::host_array(h.clone())),
                    })
                }))
            }
            _ => None,
        }
    }
}

impl Object for NdArray {
    fn type_name(&self) -> String {
        "numpy.ndarray".into()
    }

    fn getattr(&self, interp: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        if let Some(m) = self.own_method(this, name) {
            return Ok(Some(m));
        }
        if name == "at" {
            bail!(
                AttributeError,
                "'numpy.ndarray' object has no attribute 'at'"
            );
        }
        if self.is_host() {
            return super::hostattrs::getattr(interp, this, &self.host(), name);
        }
        let x = Value::Concrete(self.get()?);
        let o = array_attr(interp, &x, name)?;
        Ok(Some(match o {
            Obj::Native(_) | Obj::Method(_) => {
                let f = o.clone();
                Obj::native(name, move |interp, a| {
                    Ok(wrap(interp.call(&f, unwrap_args(a)?)?))
                })
            }
            other => wrap(other),
        }))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(super::arrayprint::array_repr(
            &self.host(),
            &crate::exec::run::print_options(),
        ))
    }

    fn str(&self, _: &Obj) -> Option<String> {
        if self.is_host() {
            return Some(super::arrayprint::array_str(&self.host()));
        }
        Some(crate::python::format::array_str(&Value::Concrete(
            self.get().ok()?,
        )))
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        if self.host().shape.is_empty() {
            return Some(Err(crate::err!(TypeError, "iteration over a 0-d array")));
        }
        let n = self.host().shape.first().copied().unwrap_or(0);
        if self.is_host() {
            let h = self.host();
            return Some(
                (0..n as i64)
                    .map(|i| super::hostmove::getitem(&h, &Obj::Int(i)))
                    .collect(),
            );
        }
        let x = Value::Concrete(self.get().ok()?);
        Some(
            (0..n as i64)
                .map(|i| Ok(wrap(Obj::Array(array_getitem(&x, &Obj::Int(i))?))))
                .collect(),
        )
    }

    fn getitem(&self, _: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        if self.is_host() {
            return Some(super::hostmove::getitem(&self.host(), key));
        }
        let x = match self.get() {
            Ok(a) => Value::Concrete(a),
            Err(e) => return Some(Err(e)),
        };
        if let Err(e) = check_bounds(&x.shape(), key) {
            return Some(Err(e));
        }
        Some(unwrap(key.clone()).and_then(|k| array_getitem(&x, &k).map(|v| wrap(Obj::Array(v)))))
    }

    fn setitem(&self, _: &Obj, key: &Obj, v: &Obj) -> Option<Result<()>> {
        if self.is_host() {
            let r = super::hostmove::setitem(&self.host(), key, v);
            return Some(r.and_then(|h| self.store_host(h)));
        }
        Some(self.device_setitem(key, v))
    }

    fn array(&self, _: &Obj) -> Option<Obj> {
        Some(Obj::Array(Value::Concrete(self.get().ok()?)))
    }

    fn compare(&self, this: &Obj, op: &CmpOp, other: &Obj, left: bool) -> Option<Result<Obj>> {
        if matches!(other, Obj::Array(_)) {
            return None;
        }
        if self.is_host() || host_operand(other) {
            return Some(super::hostmath::compare_objs(op, this, other, left));
        }
        Some(self.device_compare(op, other, left))
    }

    fn unary(&self, _: &Obj, op: &rustpython_parser::ast::UnaryOp) -> Option<Result<Obj>> {
        if self.is_host() {
            return Some(super::hostmath::unary(op, &self.host()));
        }
        let x = Obj::Array(Value::Concrete(self.get().ok()?));
        Some(crate::python::ops::unaryop(op, &x).map(wrap))
    }

    fn binop(
        &self,
        _: &mut Interp,
        this: &Obj,
        op: &Operator,
        other: &Obj,
        left: bool,
        inplace: bool,
    ) -> Option<Result<Obj>> {
        // With a JAX array the result is a JAX array: the core combines the
        // arrays both stand for.
        if matches!(other, Obj::Array(_)) && !inplace {
            return None;
        }
        let host = self.is_host() || host_operand(other);
        let r = if host {
            super::hostmath::binop_objs(op, this, other, left)
        } else {
            self.device_binop(op, other, left)
        };
        Some(r.and_then(|r| {
            if inplace {
                self.store_obj(&r, "output array is read-only")?;
                Ok(this.clone())
            } else {
                Ok(r)
            }
        }))
    }
}

impl NdArray {
    fn device_setitem(&self, key: &Obj, v: &Obj) -> Result<()> {
        let x = Value::Concrete(self.get()?);
        let (key, v) = (unwrap(key.clone())?, unwrap(v.clone())?);
        let updated = match &key {
            Obj::Array(m) => mask_set(&x, m, &v).transpose(),
            _ => None,
        };
        let updated = updated.unwrap_or_else(|| at_update(&x, &key, &v, "set"));
        updated.and_then(|u| self.store(&u, DESTINATION))
    }

    fn device_compare(&self, op: &CmpOp, other: &Obj, left: bool) -> Result<Obj> {
        let x = Obj::Array(Value::Concrete(self.get()?));
        let y = unwrap(other.clone())?;
        let r = if left {
            compare(op, &x, &y)
        } else {
            compare(op, &y, &x)
        };
        r.map(wrap)
    }

    fn device_binop(&self, op: &Operator, other: &Obj, left: bool) -> Result<Obj> {
        let x = Obj::Array(Value::Concrete(self.get()?));
        let y = unwrap(other.clone())?;
        let r = if left {
            array_binop(op, &x, &y)
        } else {
            array_binop(op, &y, &x)
        };
        r.map(wrap)
    }
}

/// Whether NumPy's arithmetic with `o` runs on the host: a host array or
/// a NumPy scalar (whose kind takes part in the promotion).
fn host_operand(o: &Obj) -> bool {
    o.downcast::<NdArray>().is_some_and(|n| n.is_host()) || super::scalar::is_scalar(o)
}

/// `np.copyto(dst, src)`.
pub fn copyto(_: &mut Interp, a: Args) -> Result<Obj> {
    let dst = a.req(Some(0), "dst", "copyto")?;
    let src = a.req(Some(1), "src", "copyto")?;
    match dst.downcast::<NdArray>() {
        Some(n) => n.store_obj(&src, DESTINATION)?,
        None => bail!(
            TypeError,
            "copyto() argument 1 must be numpy.ndarray, not {}",
            dst.type_name()
        ),
    }
    Ok(Obj::None)
}

/// `numpy.ndarray` as a type: `isinstance(x, np.ndarray)` holds for NumPy
/// arrays only (a JAX array is not one).
pub struct NdArrayType;

impl Object for NdArrayType {
    fn type_name(&self) -> String {
        "type".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("<class 'numpy.ndarray'>".into())
    }

    fn instancecheck(&self, obj: &Obj) -> Option<bool> {
        Some(is_ndarray(obj))
    }
}
