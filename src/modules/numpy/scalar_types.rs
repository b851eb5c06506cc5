//! NumPy's scalar types and dtypes: `np.float64`, `np.int64`,
//! `np.float32`, ... as types (`dtype=np.float64`, `np.float64(0.5)`, which
//! makes a NumPy scalar, `type(x)` of one) and the `dtype('float64')` a
//! host array reports.
//!
//! They are kept apart from the engine's dtypes because NumPy's host arrays
//! of these kinds hold 64-bit values; where they meet JAX (`jnp.asarray(x,
//! dtype=np.float64)`) they stand for the 32-bit dtype JAX without x64
//! uses.

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};

use super::host::{HostArray, Kind};

/// `np.float64` / `np.int64` (a type) or `dtype('float64')` (a dtype).
pub struct HostType {
    /// The kind it names.
    pub kind: Kind,
    /// A scalar type (`np.float64`) rather than a dtype instance.
    pub is_type: bool,
}

impl HostType {
    /// The scalar type object.
    pub fn type_obj(kind: Kind) -> Obj {
        Obj::lib(HostType {
            kind,
            is_type: true,
        })
    }

    /// The dtype object a host array of `kind` reports.
    pub fn dtype_obj(kind: Kind) -> Obj {
        match kind {
            Kind::Float64 | Kind::Int64 | Kind::UInt8 => Obj::lib(HostType {
                kind,
                is_type: false,
            }),
            other => Obj::DType(engine_dtype(other)),
        }
    }
}

/// The engine dtype that stands for a kind where NumPy meets JAX: float64
/// is float32 and int64 is int32, as in JAX without x64.
pub fn engine_dtype(kind: Kind) -> DType {
    match kind {
        Kind::Bool => DType::Bool,
        Kind::UInt32 => DType::U32,
        Kind::Int32 | Kind::Int64 => DType::I32,
        Kind::UInt8 => DType::U8,
        Kind::Float32 | Kind::Float64 => DType::F32,
    }
}

/// The kind a dtype argument names in NumPy, when it is one of the host
/// kinds or an engine dtype.
pub fn kind_of_dtype(o: &Obj) -> Option<Kind> {
    if let Some(t) = o.downcast::<HostType>() {
        return Some(t.kind);
    }
    if let Some(t) = o.downcast::<super::wide_types::WideType>() {
        return t.host_kind();
    }
    if let Some(t) = o.downcast::<super::jnp_scalar_types::ScalarType>() {
        return kind_named(t.name);
    }
    if let Some(t) = o.downcast::<super::dtype_attrs::Ordered>() {
        return kind_named(t.name).filter(|_| !t.swapped());
    }
    Some(match o {
        Obj::Type("float") => Kind::Float64,
        Obj::Type("int") => Kind::Int64,
        Obj::Type("bool") => Kind::Bool,
        Obj::DType(DType::F32) => Kind::Float32,
        Obj::DType(DType::I32) => Kind::Int32,
        Obj::DType(DType::U32) => Kind::UInt32,
        Obj::DType(DType::Bool) => Kind::Bool,
        Obj::Str(s) => match crate::array::dtype_strings::parse(s) {
            Ok(p) if !p.swapped => kind_named(p.name)?,
            _ => return None,
        },
        _ => return None,
    })
}

/// The host kind of a NumPy canonical dtype name.
fn kind_named(name: &str) -> Option<Kind> {
    Some(match name {
        "float64" => Kind::Float64,
        "int64" => Kind::Int64,
        "uint8" => Kind::UInt8,
        "float32" => Kind::Float32,
        "int32" => Kind::Int32,
        "uint32" => Kind::UInt32,
        "bool" => Kind::Bool,
        _ => return None,
    })
}

impl Object for HostType {
    fn type_name(&self) -> String {
        if self.is_type { "type" } else { "numpy.dtype" }.into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(if self.is_type {
            format!("<class 'numpy.{}'>", self.kind.name())
        } else {
            format!("dtype('{}')", self.kind.name())
        })
    }

    fn str(&self, this: &Obj) -> Option<String> {
        if self.is_type {
            self.repr(this)
        } else {
            Some(self.kind.name().into())
        }
    }

    fn class_name(&self) -> Option<String> {
        self.is_type.then(|| format!("numpy.{}", self.kind.name()))
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(Some(match name {
            "name" => Obj::str(self.kind.name()),
            "__name__" | "__qualname__" if self.is_type => Obj::str(self.kind.name()),
            "__module__" if self.is_type => Obj::str("numpy"),
            "itemsize" => Obj::Int(self.kind.itemsize()),
            "kind" => Obj::str(match self.kind {
                Kind::Float64 | Kind::Float32 => "f",
                Kind::UInt8 | Kind::UInt32 => "u",
                Kind::Bool => "b",
                _ => "i",
            }),
            "type" => HostType::type_obj(self.kind),
            "dtype" if self.is_type => HostType::dtype_obj(self.kind),
            _ if !self.is_type => return super::dtype_attrs::attr(self.kind.name(), '=', name),
            _ => return Ok(None),
        }))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(kind_of_dtype(other) == Some(self.kind) && !matches!(other, Obj::Type(_)))
    }

    fn callable(&self) -> bool {
        self.is_type
    }

    fn call(&self, _: &mut Interp, _: &Obj, a: Args) -> Option<Result<Obj>> {
        if !self.is_type {
            return None;
        }
        Some(convert(self.kind, &a))
    }
}

/// `np.dtype(x)`: the dtype a type, a dtype or a dtype's name stands for.
pub fn dtype(a: &Args) -> Result<Obj> {
    let o = a.req(Some(0), "dtype", "dtype")?;
    if o.downcast::<super::dtype_attrs::Ordered>().is_some() {
        return Ok(o);
    }
    if let Obj::Str(s) = &o {
        // Every spelling of a name is the dtype of its canonical name.
        let p = crate::array::dtype_strings::parse(s)?;
        if p.swapped {
            return super::dtype_attrs::dtype_obj(p.name, '>');
        }
        if &**s != p.name {
            return dtype(&Args::with(vec![Obj::str(p.name)], vec![]));
        }
    }
    if let Obj::List(_) | Obj::Dict(_) | Obj::Tuple(_) = &o {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: structured dtypes"
        );
    }
    match kind_of_dtype(&o) {
        // NumPy's own dtype object, which knows its scalar type (`.type`).
        Some(kind) => Ok(Obj::lib(HostType {
            kind,
            is_type: false,
        })),
        None => match engine_dtype_named(&o) {
            // A dtype only JAX's arrays hold (complex64, int16, ...).
            Some(d) => Ok(Obj::DType(d)),
            None if matches!(&o, Obj::Str(_)) => bail!(
                NotImplementedError,
                "not supported by shardlab yet: dtype '{}'",
                crate::python::format::str_of(&o)
            ),
            None => bail!(
                TypeError,
                "Cannot interpret '{}' as a data type",
                crate::python::format::repr_of(&o)
            ),
        },
    }
}

/// The engine dtype a dtype object or its exact name stands for (not an
/// alias such as `complex128`, which NumPy keeps apart).
fn engine_dtype_named(o: &Obj) -> Option<DType> {
    if let Some(t) = o.downcast::<super::jnp_scalar_types::ScalarType>() {
        return Some(t.dtype).filter(|d| d.name() == t.name);
    }
    match o {
        Obj::DType(d) => Some(*d),
        Obj::Str(s) => super::dtypes::dtype_of(o).ok().filter(|d| d.name() == &**s),
        _ => None,
    }
}

/// `np.float64(x)`: a NumPy scalar of the kind, or an array of it.
fn convert(kind: Kind, a: &Args) -> Result<Obj> {
    let x = match a.opt(Some(0), "x") {
        Some(Obj::Str(s)) => {
            HostArray::scalar(crate::python::builtins::to_float(&Obj::Str(s))?, kind)
        }
        Some(Obj::Int(i)) => HostArray::scalar(in_bounds(kind, i)? as f64, Kind::Int64),
        Some(x) => HostArray::from_obj(&x)?,
        None => HostArray::scalar(0.0, kind),
    };
    super::hostfuncs::wrap_host(x.astype(kind))
}

/// A Python int that an integer kind can hold (NumPy 2 refuses the others
/// rather than wrapping them).
fn in_bounds(kind: Kind, i: i64) -> Result<i64> {
    let (lo, hi) = match kind {
        Kind::UInt8 => (0, u8::MAX as i64),
        Kind::UInt32 => (0, u32::MAX as i64),
        Kind::Int32 => (i32::MIN as i64, i32::MAX as i64),
        _ => return Ok(i),
    };
    if i < lo || i > hi {
        bail!(
            OverflowError,
            "Python integer {i} out of bounds for {}",
            kind.name()
        );
    }
    Ok(i)
}
