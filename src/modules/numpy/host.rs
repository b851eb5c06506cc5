//! Host arrays as NumPy sees them: nested Python numbers keep their double
//! precision (`np.asarray([0.1, 0.2])` is float64) and their kind, while
//! shardlab arrays stand for the float32 / int32 / bool arrays JAX hands to
//! NumPy. The legacy random API reads its parameters through this,
//! `numpy.testing` compares and prints through it, and NumPy's own float64
//! / int64 / uint8 arrays are held as it.

use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::python::array::check_size;
use crate::python::ops::iterate;
use crate::python::value::Obj;
use crate::trace::Value;

/// A NumPy dtype, as far as shardlab's values can tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `bool`.
    Bool,
    /// `uint8` (image data; host arrays only).
    UInt8,
    /// `uint32` (a JAX uint32 array, or a generator's state).
    UInt32,
    /// `int32` (a JAX integer array).
    Int32,
    /// `int64` (Python ints).
    Int64,
    /// `float32` (a JAX float array).
    Float32,
    /// `float64` (Python floats).
    Float64,
}

impl Kind {
    /// NumPy's result type of two kinds.
    pub fn promote(self, other: Kind) -> Kind {
        use Kind::*;
        match (self.min(other), self.max(other)) {
            (a, b) if a == b => a,
            (Bool, b) => b,
            (UInt8, b @ (UInt32 | Int32 | Int64 | Float32)) => b,
            (Int32 | UInt32, Int64) | (UInt32, Int32) => Int64,
            _ => Float64,
        }
    }

    /// The size of an element in bytes.
    pub fn itemsize(self) -> i64 {
        match self {
            Kind::Bool | Kind::UInt8 => 1,
            Kind::UInt32 | Kind::Int32 | Kind::Float32 => 4,
            Kind::Int64 | Kind::Float64 => 8,
        }
    }

    /// Whether NumPy arrays of this kind are held on the host (the engine
    /// has no such dtype).
    pub fn is_host(self) -> bool {
        matches!(self, Kind::Float64 | Kind::Int64 | Kind::UInt8)
    }

    /// `x` stored in an element of this kind, as NumPy's casts do
    /// (integers truncate toward zero and wrap).
    pub fn cast(self, x: f64) -> f64 {
        match self {
            Kind::Bool => (x != 0.0) as i64 as f64,
            Kind::Float32 => x as f32 as f64,
            Kind::Float64 => x,
            Kind::UInt8 => (x as i64 as u8) as f64,
            Kind::Int32 => (x as i64 as i32) as f64,
            Kind::UInt32 => (x as i64 as u32) as f64,
            Kind::Int64 => x.trunc(),
        }
    }

    /// Floating point?
    pub fn is_float(self) -> bool {
        matches!(self, Kind::Float32 | Kind::Float64)
    }

    /// NumPy's name of the dtype.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bool => "bool",
            Kind::UInt8 => "uint8",
            Kind::UInt32 => "uint32",
            Kind::Int32 => "int32",
            Kind::Int64 => "int64",
            Kind::Float32 => "float32",
            Kind::Float64 => "float64",
        }
    }
}

/// An n-dimensional array of numbers held as f64, with the kind NumPy would
/// give it.
#[derive(Clone, Debug)]
pub struct HostArray {
    /// The dimensions.
    pub shape: Vec<usize>,
    /// The elements in C order.
    pub data: Vec<f64>,
    /// The dtype.
    pub kind: Kind,
}

impl HostArray {
    /// A 0-d array.
    pub fn scalar(x: f64, kind: Kind) -> HostArray {
        HostArray {
            shape: vec![],
            data: vec![x],
            kind,
        }
    }

    /// `np.asarray(o)` for numbers, nested lists and tuples of numbers, and
    /// concrete arrays.
    pub fn from_obj(o: &Obj) -> Result<HostArray> {
        Ok(match o {
            Obj::Bool(b) => HostArray::scalar(*b as i64 as f64, Kind::Bool),
            Obj::Int(i) => HostArray::scalar(*i as f64, Kind::Int64),
            Obj::Float(f) => HostArray::scalar(*f, Kind::Float64),
            Obj::Array(v) => from_value(v)?,
            Obj::Lib(_) if o.downcast::<super::scalar::NpScalar>().is_some() => {
                match o.downcast::<super::scalar::NpScalar>() {
                    Some(s) => s.host(),
                    None => bail!(TypeError, "not a scalar"),
                }
            }
            Obj::Lib(_) if o.downcast::<super::ndarray::NdArray>().is_some() => {
                match o.downcast::<super::ndarray::NdArray>() {
                    Some(n) => n.host(),
                    None => bail!(TypeError, "not an array"),
                }
            }
            Obj::List(_) | Obj::Tuple(_) | Obj::Range(..) => {
                let items: Vec<HostArray> = iterate(o)?
                    .iter()
                    .map(HostArray::from_obj)
                    .collect::<Result<_>>()?;
                stack(items)?
            }
            other => match other.behaviour().and_then(|b| b.array(other)) {
                Some(a) => HostArray::from_obj(&a)?,
                None => bail!(
                    TypeError,
                    "cannot convert {} to an array element",
                    other.type_name()
                ),
            },
        })
    }

    /// The same values cast to `kind`.
    pub fn astype(&self, kind: Kind) -> HostArray {
        HostArray {
            shape: self.shape.clone(),
            data: self.data.iter().map(|&x| kind.cast(x)).collect(),
            kind,
        }
    }

    /// The number of elements.
    pub fn size(&self) -> usize {
        self.data.len()
    }

    /// Element `i` as a Python scalar.
    pub fn item(&self, i: usize) -> Obj {
        let x = self.data[i];
        match self.kind {
            Kind::Bool => Obj::Bool(x != 0.0),
            Kind::UInt8 | Kind::UInt32 | Kind::Int32 | Kind::Int64 => Obj::Int(x as i64),
            Kind::Float32 | Kind::Float64 => Obj::Float(x),
        }
    }

    /// A shardlab array of the same values: float32, int32 or bool.
    pub fn to_obj(&self) -> Result<Obj> {
        let a = match self.kind {
            Kind::Bool => {
                Array::from_bool(&self.shape, self.data.iter().map(|&x| x != 0.0).collect())?
            }
            Kind::UInt32 => {
                Array::from_u32(&self.shape, self.data.iter().map(|&x| x as u32).collect())?
            }
            Kind::UInt8 => {
                let ints = self.data.iter().map(|&x| x as i32).collect();
                Array::from_i32(&self.shape, ints)?.fit(DType::U8)
            }
            Kind::Int32 | Kind::Int64 => {
                let ints: Vec<i64> = self.data.iter().map(|&x| x as i64).collect();
                return int32_array(&self.shape, &ints);
            }
            Kind::Float32 | Kind::Float64 => {
                Array::from_f32(&self.shape, self.data.iter().map(|&x| x as f32).collect())?
            }
        };
        Ok(Obj::Array(Value::Concrete(a)))
    }
}

/// A NumPy int64 array of `data` (0-d too, as NumPy's draws with
/// `size=()` are).
pub fn int_array(shape: &[usize], data: &[i64]) -> Result<Obj> {
    check_size(data.len())?;
    Ok(Obj::lib(super::ndarray::NdArray::host_array(HostArray {
        shape: shape.to_vec(),
        data: data.iter().map(|&x| x as f64).collect(),
        kind: Kind::Int64,
    })))
}

/// A shardlab int32 array of int64 values, refusing values it cannot hold.
pub fn int32_array(shape: &[usize], data: &[i64]) -> Result<Obj> {
    check_size(data.len())?;
    let mut out = Vec::with_capacity(data.len());
    for &v in data {
        match i32::try_from(v) {
            Ok(x) => out.push(x),
            Err(_) => bail!(
                NotImplementedError,
                "not supported by shardlab yet: the int64 value {v} in an array (arrays here are int32)"
            ),
        }
    }
    Ok(Obj::Array(Value::Concrete(Array::from_i32(shape, out)?)))
}

/// A NumPy float64 array of `data` (0-d too).
pub fn float_array(shape: &[usize], data: &[f64]) -> Result<Obj> {
    check_size(data.len())?;
    Ok(Obj::lib(super::ndarray::NdArray::host_array(HostArray {
        shape: shape.to_vec(),
        data: data.to_vec(),
        kind: Kind::Float64,
    })))
}

fn from_value(v: &Value) -> Result<HostArray> {
    let a = v.concrete_for(crate::trace::Conversion::Array)?;
    let kind = match a.dtype() {
        DType::F32 => Kind::Float32,
        DType::I32 => Kind::Int32,
        DType::Bool => Kind::Bool,
        DType::U8 => Kind::UInt8,
        _ => crate::bail!(
            NotImplementedError,
            "not supported by shardlab yet: {} in NumPy arrays",
            a.dtype().name()
        ),
    };
    Ok(HostArray {
        shape: a.shape().to_vec(),
        data: a.to_f64_vec(),
        kind,
    })
}

fn stack(items: Vec<HostArray>) -> Result<HostArray> {
    let Some(first) = items.first() else {
        return Ok(HostArray {
            shape: vec![0],
            data: vec![],
            kind: Kind::Float64,
        });
    };
    let inner = first.shape.clone();
    let mut kind = first.kind;
    for (depth, it) in items.iter().enumerate() {
        if it.shape != inner {
            bail!(
                ValueError,
                "setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions. The detected shape was ({},) + inhomogeneous part.",
                items.len().max(depth)
            );
        }
        kind = kind.promote(it.kind);
    }
    let mut shape = vec![items.len()];
    shape.extend(&inner);
    let data: Vec<f64> = items.into_iter().flat_map(|it| it.data).collect();
    check_size(data.len())?;
    Ok(HostArray { shape, data, kind })
}

/// The shape `a` and `b` broadcast to, or NumPy's error.
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let ndim = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1; ndim];
    for s in shapes {
        for (k, &d) in s.iter().enumerate() {
            let o = &mut out[ndim - s.len() + k];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                bail!(
                    ValueError,
                    "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape {} and arg 1 with shape {}.",
                    shape_str(shapes[0]),
                    shape_str(s)
                );
            }
        }
    }
    Ok(out)
}

/// The flat index into an array of `shape` for flat index `i` of a
/// broadcast result of shape `out`.
pub fn broadcast_index(shape: &[usize], out: &[usize], mut i: usize) -> usize {
    let mut idx = 0;
    let mut stride = 1;
    for k in (0..out.len()).rev() {
        let pos = i % out[k].max(1);
        i /= out[k].max(1);
        let d = shape.len() + k;
        if d >= out.len() {
            let dim = shape[d - out.len()];
            if dim != 1 {
                idx += pos * stride;
            }
            stride *= dim;
        }
    }
    idx
}

/// A shape as Python prints the tuple: `(3,)`, `(2, 3)`.
pub fn shape_str(shape: &[usize]) -> String {
    match shape {
        [d] => format!("({d},)"),
        s => format!(
            "({})",
            s.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
