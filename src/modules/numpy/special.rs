//! `scipy.special.jv` on NumPy's host arrays, in 64 bits, for integer
//! orders and |z| <= 12, by its power series; other orders and arguments
//! are refused by name. SciPy evaluates it by other formulas, so float64
//! results agree to about 1e-12 rather than bit for bit, while cast to
//! float32 they agree exactly (on a grid of orders -3..5 and 241 points of
//! [0, 12]). So a float64 result is held as [`Float32Exact`]: it can be
//! cast to float32, as a callback returning to JAX does, and any other use
//! is refused rather than shown with other digits than SciPy's.

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};
use std::rc::Rc;

use super::host::{broadcast_index, broadcast_shapes, HostArray, Kind};
use super::hostfuncs::{kind_arg, wrap_host};

/// Beyond this |z| the alternating series loses more than a few of
/// float64's digits to cancellation.
const SERIES_LIMIT: f64 = 12.0;

/// `scipy.special.jv(v, z)`: Bessel functions of the first kind.
pub fn jv(_: &mut Interp, a: Args) -> Result<Obj> {
    let v = HostArray::from_obj(&a.req(Some(0), "v", "jv")?)?;
    let z = HostArray::from_obj(&a.req(Some(1), "z", "jv")?)?;
    let shape = broadcast_shapes(&[&v.shape, &z.shape])?;
    let size: usize = shape.iter().product();
    let mut data: Vec<f64> = Vec::with_capacity(size);
    for i in 0..size {
        let n = v.data[broadcast_index(&v.shape, &shape, i)];
        let x = z.data[broadcast_index(&z.shape, &shape, i)];
        data.push(bessel_j(n, x)?);
    }
    // SciPy's float32 loop (both arguments float32) rounds its double
    // result; any other operands take the float64 loop.
    let kind = if v.kind == Kind::Float32 && z.kind == Kind::Float32 {
        data.iter_mut().for_each(|x| *x = *x as f32 as f64);
        Kind::Float32
    } else {
        Kind::Float64
    };
    let out = HostArray { shape, data, kind };
    if kind == Kind::Float64 {
        return Ok(Obj::lib(Float32Exact(Rc::new(out))));
    }
    wrap_host(out)
}

/// A float64 result of [`jv`], whose values are exact only once cast to
/// float32: `astype(np.float32)` gives them, everything else is refused.
struct Float32Exact(Rc<HostArray>);

/// What a use of a [`Float32Exact`] other than the cast is refused as.
fn float64_refusal() -> crate::error::Error {
    crate::err!(
        NotImplementedError,
        "not supported by shardlab yet: scipy.special.jv's float64 values (they agree with SciPy's \
         once cast to float32: use .astype(np.float32))"
    )
}

impl Object for Float32Exact {
    fn type_name(&self) -> String {
        "ndarray".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let h = self.0.clone();
        Ok(Some(match name {
            "shape" => Obj::tuple(h.shape.iter().map(|&d| Obj::Int(d as i64)).collect()),
            "ndim" => Obj::Int(h.shape.len() as i64),
            "dtype" => super::scalar_types::HostType::dtype_obj(Kind::Float64),
            "astype" => Obj::native("astype", move |_, a| {
                match kind_arg(&a.req(Some(0), "dtype", "astype")?)? {
                    Kind::Float32 => wrap_host(h.astype(Kind::Float32)),
                    _ => Err(float64_refusal()),
                }
            }),
            _ => return Err(float64_refusal()),
        }))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        // A repr cannot fail: it says what to do instead of showing digits
        // other than SciPy's.
        Some(
            "<scipy.special.jv float64 result: cast it with .astype(np.float32) to read it>".into(),
        )
    }

    fn binop(
        &self,
        _: &mut Interp,
        _: &Obj,
        _: &rustpython_parser::ast::Operator,
        _: &Obj,
        _: bool,
        _: bool,
    ) -> Option<Result<Obj>> {
        Some(Err(float64_refusal()))
    }

    fn unary(&self, _: &Obj, _: &rustpython_parser::ast::UnaryOp) -> Option<Result<Obj>> {
        Some(Err(float64_refusal()))
    }
}

/// J_n(x) for an integer order n: the series
/// sum_k (-1)^k (x/2)^(2k+|n|) / (k! (k+|n|)!), and J_-n = (-1)^n J_n.
fn bessel_j(n: f64, x: f64) -> Result<f64> {
    if n.fract() != 0.0 || n.abs() > 100.0 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: scipy.special.jv of a non-integer order or one beyond 100"
        );
    }
    if x.is_nan() {
        return Ok(f64::NAN);
    }
    if x.abs() > SERIES_LIMIT {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: scipy.special.jv for |z| > {SERIES_LIMIT}"
        );
    }
    let m = n.abs() as u32;
    let half = x / 2.0;
    let mut term = (1..=m).fold(1.0, |t, k| t * half / k as f64);
    let mut terms = vec![term];
    let mut k = 1.0;
    while k < 200.0 && (k < 4.0 || term.abs() > f64::EPSILON * 1e-6 * terms[0].abs()) {
        term *= -half * half / (k * (k + m as f64));
        terms.push(term);
        k += 1.0;
    }
    // Smallest terms first, with the rounding error of each addition
    // carried along (Neumaier's summation).
    let (mut sum, mut carry) = (0.0f64, 0.0f64);
    for t in terms.into_iter().rev() {
        let next = sum + t;
        carry += if sum.abs() >= t.abs() {
            (sum - next) + t
        } else {
            (t - next) + sum
        };
        sum = next;
    }
    let sum = sum + carry;
    Ok(if n < 0.0 && m % 2 == 1 { -sum } else { sum })
}
