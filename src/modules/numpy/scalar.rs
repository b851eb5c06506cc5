//! NumPy's scalars: `np.int64(6)`, `np.float32(0.5)`, `np.True_`.
//!
//! NumPy gives one wherever a result has no dimensions: an element of an
//! array (`x[0]`), a reduction (`np.sum(x)`, `x.mean()`), a call of a
//! scalar type (`np.float32(3)`), arithmetic between scalars. Each keeps
//! its dtype, so its repr names it (`np.int64(6)`) while its str is the
//! bare number (`6`). Arithmetic follows NumPy 2's rules through the host
//! arrays' (a Python number is weak: `np.float32(1) * 2.0` stays float32;
//! two NumPy kinds promote), so a scalar is a 0-d host array that prints
//! and converts as NumPy's scalar does. Where Python asks for a number
//! (indices, `float()`, hashing, format specs) it is the Python number of
//! the same value; where it meets a JAX array it is the (not weakly typed)
//! 0-d array of the 32-bit dtype JAX gives it.

use rustpython_parser::ast::{CmpOp, Operator, UnaryOp};

use crate::array::Array;
use crate::error::Result;
use crate::python::format::float_repr;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::Obj;
use crate::trace::Value;

use super::host::{HostArray, Kind};
use super::ndarray::NdArray;
use super::scalar_types::HostType;

/// One NumPy scalar: its dtype and its value (held as a double, as the
/// host arrays hold their elements).
pub struct NpScalar {
    /// The dtype.
    pub kind: Kind,
    /// The value, already cast to the dtype.
    pub value: f64,
}

impl NpScalar {
    /// The scalar of `kind` holding `x` cast to it.
    pub fn obj(kind: Kind, x: f64) -> Obj {
        Obj::lib(NpScalar {
            kind,
            value: kind.cast(x),
        })
    }

    /// The scalar a 0-d engine array becomes in NumPy (None for complex,
    /// which NumPy arrays here never hold).
    pub fn from_array(a: &Array) -> Option<Obj> {
        let h = HostArray::from_obj(&Obj::Array(Value::Concrete(a.clone()))).ok()?;
        Some(NpScalar::obj(h.kind, h.data[0]))
    }

    /// The 0-d host array of the same dtype and value.
    pub fn host(&self) -> HostArray {
        HostArray::scalar(self.value, self.kind)
    }

    /// `repr` of the value alone, as `str` prints it.
    fn text(&self) -> String {
        match self.kind {
            Kind::Bool => if self.value != 0.0 { "True" } else { "False" }.into(),
            Kind::Float32 => float32_text(self.value),
            Kind::Float64 => float_repr(self.value, false),
            _ => format!("{}", self.value as i64),
        }
    }
}

/// A float32 scalar's text: positional from 1e-4 up to 1e6 and
/// scientific outside (`1e+06`, `1.6777216e+07`, `1e-05`), with the
/// shortest digits that read back as the same float32.
fn float32_text(x: f64) -> String {
    let a = x.abs();
    if !x.is_finite() || a == 0.0 || (1e-4..1e6).contains(&a) {
        return float_repr(x, true);
    }
    let s = format!("{:e}", x as f32);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

/// Whether `o` is a NumPy scalar.
pub fn is_scalar(o: &Obj) -> bool {
    o.downcast::<NpScalar>().is_some()
}

/// Whether NumPy's arithmetic of a scalar takes `o` as its other operand:
/// Python numbers, NumPy scalars and arrays, and lists of numbers.
fn numpy_operand(o: &Obj) -> bool {
    match o {
        Obj::Int(_) | Obj::Float(_) | Obj::Bool(_) | Obj::List(_) | Obj::Tuple(_) => true,
        Obj::Lib(_) => is_scalar(o) || o.downcast::<NdArray>().is_some(),
        _ => false,
    }
}

impl NpScalar {
    /// NumPy's RuntimeWarning when integer scalar arithmetic wraps around
    /// (`np.int32(2**31 - 1) + np.int32(1)`).
    fn check_overflow(
        &self,
        interp: &mut Interp,
        op: &Operator,
        other: &Obj,
        left: bool,
        r: &Obj,
    ) -> Result<()> {
        let Some(out) = r.downcast::<NpScalar>() else {
            return Ok(());
        };
        if out.kind.is_float() || out.kind == Kind::Bool {
            return Ok(());
        }
        let Some(y) = other.as_number() else {
            return Ok(());
        };
        let (exact, name) = match op {
            Operator::Add => (self.value + y, "add"),
            Operator::Sub if left => (self.value - y, "subtract"),
            Operator::Sub => (y - self.value, "subtract"),
            Operator::Mult => (self.value * y, "multiply"),
            _ => return Ok(()),
        };
        if exact == out.value {
            return Ok(());
        }
        let text = format!("overflow encountered in scalar {name}");
        crate::modules::std::warnings::warn(
            interp,
            "RuntimeWarning",
            &text,
            crate::modules::std::warnings::Place::Program(1),
        )
    }
}

impl Object for NpScalar {
    fn type_name(&self) -> String {
        format!("numpy.{}", self.kind.name())
    }

    fn type_object(&self) -> Option<Obj> {
        Some(HostType::type_obj(self.kind))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(match self.kind {
            Kind::Bool => format!("np.{}_", self.text()),
            k => format!("np.{}({})", k.name(), self.text()),
        })
    }

    fn str(&self, _: &Obj) -> Option<String> {
        Some(self.text())
    }

    fn scalar(&self) -> Option<Obj> {
        Some(self.host().item(0))
    }

    fn builtin_base(&self) -> Option<&'static str> {
        (self.kind == Kind::Float64).then_some("float")
    }

    fn getattr(&self, interp: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        if name == "dtype" {
            return Ok(Some(HostType::dtype_obj(self.kind)));
        }
        if name == "real" {
            return Ok(Some(this.clone()));
        }
        if name == "imag" {
            return Ok(Some(NpScalar::obj(self.kind, 0.0)));
        }
        super::hostattrs::getattr(interp, this, &self.host(), name)
    }

    fn binop(
        &self,
        interp: &mut Interp,
        this: &Obj,
        op: &Operator,
        other: &Obj,
        left: bool,
        _: bool,
    ) -> Option<Result<Obj>> {
        if !numpy_operand(other) {
            return None;
        }
        let r = super::hostmath::binop_objs(op, this, other, left);
        Some(r.and_then(|r| {
            self.check_overflow(interp, op, other, left, &r)?;
            Ok(r)
        }))
    }

    fn compare(&self, this: &Obj, op: &CmpOp, other: &Obj, left: bool) -> Option<Result<Obj>> {
        if !numpy_operand(other) {
            return None;
        }
        Some(super::hostmath::compare_objs(op, this, other, left))
    }

    fn unary(&self, _: &Obj, op: &UnaryOp) -> Option<Result<Obj>> {
        if matches!(op, UnaryOp::Not) {
            return None;
        }
        Some(super::hostmath::unary(op, &self.host()))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.as_number() == Some(self.value))
    }

    fn array(&self, _: &Obj) -> Option<Obj> {
        self.host().to_obj().ok()
    }
}
