//! Scalars of the narrow float types: NumPy's `np.float16(6.55e+04)` and
//! ml_dtypes' bfloat16 scalar (printed as `0.0078125`, no wrapper), what
//! `jnp.finfo(jnp.bfloat16).eps` and `np.float16(x)` give.
//!
//! They are not host-array kinds: NumPy's arithmetic on them (where
//! ml_dtypes' bfloat16 promotes to float32 for a Python float) is refused
//! by name, while with a JAX array each stands for its 0-d array of the
//! narrow dtype, as JAX takes it (not weakly typed).

use rustpython_parser::ast::{CmpOp, Operator, UnaryOp};

use crate::array::{narrow::round_float, Array, DType};
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::Obj;
use crate::trace::Value;

use super::host::Kind;
use super::jnp_scalar_types::ScalarType;
use super::scalar::NpScalar;

/// One float16 or bfloat16 scalar; the value is already rounded.
pub struct NarrowScalar {
    /// `DType::F16` or `DType::BF16`.
    pub dtype: DType,
    /// The value held exactly.
    pub value: f64,
}

impl NarrowScalar {
    /// The scalar of `dtype` nearest `x`.
    pub fn obj(dtype: DType, x: f64) -> Obj {
        Obj::lib(NarrowScalar {
            dtype,
            value: round_float(x, dtype),
        })
    }

    /// The text `str` prints: ml_dtypes prints bfloat16 as C's `%g`;
    /// NumPy prints float16 with the fewest digits that read back as the
    /// same float16, positional from 1e-4 up to 1e3.
    fn text(&self) -> String {
        if self.dtype == DType::BF16 {
            return crate::python::format::fmt_general(self.value, 6);
        }
        let x = self.value;
        if !x.is_finite() {
            return crate::python::format::float_repr(x, false);
        }
        let (mantissa, exp, short) = shortest_f16(x);
        let a = x.abs();
        if a == 0.0 || (1e-4..1e3).contains(&a) {
            return crate::python::format::float_repr(short, false);
        }
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    }

    /// The scalar type: `ml_dtypes.bfloat16` or `numpy.float16`.
    fn type_obj(&self) -> Obj {
        match self.dtype {
            DType::BF16 => ScalarType::named("bfloat16", DType::BF16, "ml_dtypes"),
            d => ScalarType::obj(d, "numpy"),
        }
    }

    fn refuse<T>(&self) -> Option<Result<T>> {
        Some(Err(crate::err!(
            NotImplementedError,
            "not supported by shardlab yet: arithmetic of {} scalars outside JAX arrays",
            self.dtype.name()
        )))
    }
}

/// The shortest decimal that rounds to the float16 `x`: its mantissa text
/// (trailing zeros dropped), decimal exponent and value.
fn shortest_f16(x: f64) -> (String, i32, f64) {
    let mut best = (format!("{x:e}"), 0, x);
    for digits in 1..=5 {
        let s = format!("{:.*e}", digits - 1, x);
        let short: f64 = s.parse().unwrap_or(x);
        if round_float(short, DType::F16) == x || digits == 5 {
            let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
            let m = if m.contains('.') {
                m.trim_end_matches('0').trim_end_matches('.')
            } else {
                m
            };
            best = (m.to_string(), e.parse().unwrap_or(0), short);
            break;
        }
    }
    best
}

impl Object for NarrowScalar {
    fn type_name(&self) -> String {
        self.dtype.name().into()
    }

    fn type_object(&self) -> Option<Obj> {
        Some(self.type_obj())
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(match self.dtype {
            DType::BF16 => self.text(),
            _ => format!("np.float16({})", self.text()),
        })
    }

    fn str(&self, _: &Obj) -> Option<String> {
        Some(self.text())
    }

    fn scalar(&self) -> Option<Obj> {
        Some(Obj::Float(self.value))
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "dtype" => Some(Obj::DType(self.dtype)),
            "real" => Some(NarrowScalar::obj(self.dtype, self.value)),
            "imag" => Some(NarrowScalar::obj(self.dtype, 0.0)),
            _ => None,
        })
    }

    /// With a JAX array the core combines the 0-d array; with anything
    /// else NumPy's (or ml_dtypes') own rules apply, which are refused.
    fn binop(
        &self,
        _: &mut Interp,
        _: &Obj,
        _: &Operator,
        other: &Obj,
        _: bool,
        _: bool,
    ) -> Option<Result<Obj>> {
        match other {
            Obj::Array(_) => None,
            _ => self.refuse(),
        }
    }

    /// A comparison with a number is of the values, a NumPy bool.
    fn compare(&self, _: &Obj, op: &CmpOp, other: &Obj, left: bool) -> Option<Result<Obj>> {
        if matches!(other, Obj::Array(_)) {
            return None;
        }
        let Some(y) = other.as_number() else {
            return self.refuse();
        };
        let (a, b) = if left {
            (self.value, y)
        } else {
            (y, self.value)
        };
        let holds = match op {
            CmpOp::Eq => a == b,
            CmpOp::NotEq => a != b,
            CmpOp::Lt => a < b,
            CmpOp::LtE => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::GtE => a >= b,
            _ => return None,
        };
        Some(Ok(NpScalar::obj(Kind::Bool, holds as i64 as f64)))
    }

    fn unary(&self, _: &Obj, op: &UnaryOp) -> Option<Result<Obj>> {
        match op {
            UnaryOp::USub => Some(Ok(NarrowScalar::obj(self.dtype, -self.value))),
            UnaryOp::UAdd => Some(Ok(NarrowScalar::obj(self.dtype, self.value))),
            UnaryOp::Not => None,
            UnaryOp::Invert => self.refuse(),
        }
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.as_number() == Some(self.value))
    }

    fn array(&self, _: &Obj) -> Option<Obj> {
        Some(Obj::Array(Value::Concrete(Array::full(
            &[],
            self.value,
            self.dtype,
        ))))
    }
}
