//! Elementwise arithmetic on host arrays in double precision: operators,
//! comparisons, NumPy's ufuncs, `where`, `clip`, `round`, `isclose`, and
//! the products `dot`, `matmul`, `outer` and `convolve`.
//!
//! Kinds follow NumPy 2: Python numbers are weak (an int64 array plus 1.5
//! is float64, a float64 array plus 1 stays float64), arrays promote by
//! their kinds, and true division of integers is float64.

use rustpython_parser::ast::{CmpOp, Operator, UnaryOp};

use crate::bail;
use crate::error::Result;
use crate::python::value::{Args, Obj};

use super::host::{broadcast_index, broadcast_shapes, HostArray, Kind};
use super::hostfuncs::{arg, wrap_host};

/// An operand: its values and whether it is a Python number (weak).
struct Operand {
    h: HostArray,
    weak: bool,
}

fn operand(o: &Obj) -> Result<Operand> {
    let weak = matches!(o, Obj::Int(_) | Obj::Float(_) | Obj::Bool(_));
    Ok(Operand {
        h: HostArray::from_obj(o)?,
        weak,
    })
}

/// The kind of a result from two operands, with Python numbers weak.
fn result_kind(x: &Operand, y: &Operand) -> Kind {
    match (x.weak, y.weak) {
        (true, true) | (false, false) => x.h.kind.promote(y.h.kind),
        (false, true) => weak_into(x.h.kind, y.h.kind),
        (true, false) => weak_into(y.h.kind, x.h.kind),
    }
}

fn weak_into(strong: Kind, weak: Kind) -> Kind {
    match weak {
        Kind::Float64 if !strong.is_float() => Kind::Float64,
        Kind::Int64 if strong == Kind::Bool => Kind::Int64,
        _ => strong,
    }
}

/// Applies `f` elementwise over the broadcast of `x` and `y`.
fn zip(x: &HostArray, y: &HostArray, kind: Kind, f: &dyn Fn(f64, f64) -> f64) -> Result<HostArray> {
    let shape = broadcast_shapes(&[&x.shape, &y.shape])?;
    let n: usize = shape.iter().product();
    crate::python::array::check_size(n)?;
    let data = (0..n)
        .map(|i| {
            let a = x.data[broadcast_index(&x.shape, &shape, i)];
            let b = y.data[broadcast_index(&y.shape, &shape, i)];
            kind.cast(f(a, b))
        })
        .collect();
    Ok(HostArray { shape, data, kind })
}

fn map(x: &HostArray, kind: Kind, f: &dyn Fn(f64) -> f64) -> HostArray {
    HostArray {
        shape: x.shape.clone(),
        data: x.data.iter().map(|&v| kind.cast(f(v))).collect(),
        kind,
    }
}

/// Python's floor division and modulo of doubles (NumPy's for floats).
fn divmod(a: f64, b: f64) -> (f64, f64) {
    if b == 0.0 {
        return (a / b, f64::NAN);
    }
    let mut m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        m += b;
        div -= 1.0;
    }
    let mut fl = div.floor();
    if div - fl > 0.5 {
        fl += 1.0;
    }
    if m == 0.0 {
        m = 0.0f64.copysign(b);
    }
    (fl, m)
}

/// The binary operation a name or operator stands for, on two operands.
fn binary(op: &str, x: &Operand, y: &Operand) -> Result<HostArray> {
    let kind = result_kind(x, y);
    let float = if kind.is_float() { kind } else { Kind::Float64 };
    let int = !kind.is_float() && kind != Kind::Bool;
    let (a, b) = (&x.h, &y.h);
    Ok(match op {
        "add" => zip(a, b, kind, &|p, q| p + q)?,
        "subtract" => zip(a, b, kind, &|p, q| p - q)?,
        "multiply" => zip(a, b, kind, &|p, q| p * q)?,
        "divide" | "true_divide" => zip(a, b, float, &|p, q| p / q)?,
        "floor_divide" if int => zip(a, b, kind, &|p, q| {
            if q == 0.0 {
                0.0
            } else {
                (p / q).floor()
            }
        })?,
        "floor_divide" => zip(a, b, kind, &|p, q| divmod(p, q).0)?,
        "mod" | "remainder" if int => zip(a, b, kind, &|p, q| {
            if q == 0.0 {
                0.0
            } else {
                p - q * (p / q).floor()
            }
        })?,
        "mod" | "remainder" => zip(a, b, kind, &|p, q| divmod(p, q).1)?,
        "power" => {
            if int && b.data.iter().any(|&q| q < 0.0) {
                bail!(
                    ValueError,
                    "Integers to negative integer powers are not allowed."
                );
            }
            zip(a, b, kind, &|p, q| p.powf(q))?
        }
        "maximum" => zip(a, b, kind, &|p, q| if p.is_nan() || p >= q { p } else { q })?,
        "minimum" => zip(a, b, kind, &|p, q| if p.is_nan() || p <= q { p } else { q })?,
        "arctan2" => zip(a, b, float, &f64::atan2)?,
        "hypot" => zip(a, b, float, &f64::hypot)?,
        "logical_and" => zip(a, b, Kind::Bool, &|p, q| {
            (p != 0.0 && q != 0.0) as i64 as f64
        })?,
        "logical_or" => zip(a, b, Kind::Bool, &|p, q| {
            (p != 0.0 || q != 0.0) as i64 as f64
        })?,
        "bitwise_and" if !kind.is_float() => zip(a, b, kind, &|p, q| (p as i64 & q as i64) as f64)?,
        "bitwise_or" if !kind.is_float() => zip(a, b, kind, &|p, q| (p as i64 | q as i64) as f64)?,
        "bitwise_xor" if !kind.is_float() => zip(a, b, kind, &|p, q| (p as i64 ^ q as i64) as f64)?,
        "equal" => zip(a, b, Kind::Bool, &|p, q| (p == q) as i64 as f64)?,
        "not_equal" => zip(a, b, Kind::Bool, &|p, q| (p != q) as i64 as f64)?,
        "less" => zip(a, b, Kind::Bool, &|p, q| (p < q) as i64 as f64)?,
        "less_equal" => zip(a, b, Kind::Bool, &|p, q| (p <= q) as i64 as f64)?,
        "greater" => zip(a, b, Kind::Bool, &|p, q| (p > q) as i64 as f64)?,
        "greater_equal" => zip(a, b, Kind::Bool, &|p, q| (p >= q) as i64 as f64)?,
        other => bail!(
            TypeError,
            "ufunc '{other}' not supported for the input types"
        ),
    })
}

const BINARY: &[&str] = &[
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "floor_divide",
    "mod",
    "remainder",
    "power",
    "maximum",
    "minimum",
    "arctan2",
    "hypot",
    "logical_and",
    "logical_or",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
];

const UNARY: &[&str] = &[
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "exp",
    "expm1",
    "exp2",
    "log",
    "log2",
    "log10",
    "log1p",
    "sqrt",
    "cbrt",
    "abs",
    "absolute",
    "fabs",
    "sign",
    "floor",
    "ceil",
    "trunc",
    "rint",
    "square",
    "negative",
    "positive",
    "reciprocal",
    "isnan",
    "isinf",
    "isfinite",
    "logical_not",
    "deg2rad",
    "rad2deg",
];

/// Whether `numpy.NAME` is an elementwise function implemented here.
pub fn is_ufunc(short: &str) -> bool {
    BINARY.contains(&short) || UNARY.contains(&short)
}

/// `numpy.NAME(x)` or `numpy.NAME(x, y)`.
pub fn ufunc(short: &str, a: &Args) -> Result<Obj> {
    let x = operand(&a.req(Some(0), "x", short)?)?;
    if BINARY.contains(&short) {
        let y = operand(&a.req(Some(1), "x2", short)?)?;
        return wrap_host(binary(short, &x, &y)?);
    }
    wrap_host(unary_fn(short, &x.h)?)
}

fn unary_fn(short: &str, x: &HostArray) -> Result<HostArray> {
    let kind = x.kind;
    let float = if kind.is_float() { kind } else { Kind::Float64 };
    let same = if kind == Kind::Bool {
        Kind::Int64
    } else {
        kind
    };
    let f: fn(f64) -> f64 = match short {
        "abs" | "absolute" => return Ok(map(x, kind, &f64::abs)),
        "negative" => return Ok(map(x, same, &|v| -v)),
        "positive" => return Ok(map(x, kind, &|v| v)),
        "square" => return Ok(map(x, same, &|v| v * v)),
        "sign" => {
            return Ok(map(x, same, &|v| {
                if v > 0.0 {
                    1.0
                } else if v < 0.0 {
                    -1.0
                } else {
                    v
                }
            }))
        }
        "isnan" => return Ok(map(x, Kind::Bool, &|v| v.is_nan() as i64 as f64)),
        "isinf" => return Ok(map(x, Kind::Bool, &|v| v.is_infinite() as i64 as f64)),
        "isfinite" => return Ok(map(x, Kind::Bool, &|v| v.is_finite() as i64 as f64)),
        "logical_not" => return Ok(map(x, Kind::Bool, &|v| (v == 0.0) as i64 as f64)),
        "sin" => f64::sin,
        "cos" => f64::cos,
        "tan" => f64::tan,
        "arcsin" => f64::asin,
        "arccos" => f64::acos,
        "arctan" => f64::atan,
        "sinh" => f64::sinh,
        "cosh" => f64::cosh,
        "tanh" => f64::tanh,
        "arcsinh" => f64::asinh,
        "arccosh" => f64::acosh,
        "arctanh" => f64::atanh,
        "exp" => f64::exp,
        "expm1" => f64::exp_m1,
        "exp2" => f64::exp2,
        "log" => f64::ln,
        "log2" => f64::log2,
        "log10" => f64::log10,
        "log1p" => f64::ln_1p,
        "sqrt" => f64::sqrt,
        "cbrt" => f64::cbrt,
        "fabs" => f64::abs,
        "floor" => f64::floor,
        "ceil" => f64::ceil,
        "trunc" => f64::trunc,
        "rint" => f64::round_ties_even,
        "reciprocal" => |v| 1.0 / v,
        "deg2rad" => f64::to_radians,
        "rad2deg" => f64::to_degrees,
        other => bail!(TypeError, "ufunc '{other}' not supported"),
    };
    Ok(map(x, float, &f))
}

fn op_name(op: &Operator) -> Option<&'static str> {
    Some(match op {
        Operator::Add => "add",
        Operator::Sub => "subtract",
        Operator::Mult => "multiply",
        Operator::Div => "divide",
        Operator::FloorDiv => "floor_divide",
        Operator::Mod => "remainder",
        Operator::Pow => "power",
        Operator::BitAnd => "bitwise_and",
        Operator::BitOr => "bitwise_or",
        Operator::BitXor => "bitwise_xor",
        _ => return None,
    })
}

/// `x OP y` with a host array on one side (`left`: `this` is on the left).
pub fn binop_objs(op: &Operator, this: &Obj, other: &Obj, left: bool) -> Result<Obj> {
    let (l, r) = if left { (this, other) } else { (other, this) };
    if matches!(op, Operator::MatMult) {
        return dot(&Args::new(vec![l.clone(), r.clone()]), "matmul");
    }
    let Some(name) = op_name(op) else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: this operator on float64 arrays"
        );
    };
    wrap_host(binary(name, &operand(l)?, &operand(r)?)?)
}

/// `x OP y` comparing with a host array on one side.
pub fn compare_objs(op: &CmpOp, this: &Obj, other: &Obj, left: bool) -> Result<Obj> {
    let (l, r) = if left { (this, other) } else { (other, this) };
    let name = match op {
        CmpOp::Eq => "equal",
        CmpOp::NotEq => "not_equal",
        CmpOp::Lt => "less",
        CmpOp::LtE => "less_equal",
        CmpOp::Gt => "greater",
        CmpOp::GtE => "greater_equal",
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: this comparison on float64 arrays"
        ),
    };
    wrap_host(binary(name, &operand(l)?, &operand(r)?)?)
}

/// `-x`, `+x`, `~x` of a host array.
pub fn unary(op: &UnaryOp, x: &HostArray) -> Result<Obj> {
    let r = match op {
        UnaryOp::USub => unary_fn("negative", x)?,
        UnaryOp::UAdd => x.clone(),
        UnaryOp::Invert if x.kind == Kind::Bool => unary_fn("logical_not", x)?,
        UnaryOp::Invert if !x.kind.is_float() => map(x, x.kind, &|v| -v - 1.0),
        _ => bail!(
            TypeError,
            "ufunc 'invert' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''"
        ),
    };
    wrap_host(r)
}

/// `np.where(cond, x, y)`.
pub fn where_(a: &Args) -> Result<Obj> {
    if a.pos.len() < 3 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: numpy.where with one argument on float64 arrays"
        );
    }
    let c = arg(a, 0, "condition")?;
    let (x, y) = (operand(&a.pos[1])?, operand(&a.pos[2])?);
    let kind = result_kind(&x, &y);
    let shape = broadcast_shapes(&[&c.shape, &x.h.shape, &y.h.shape])?;
    let n: usize = shape.iter().product();
    let data = (0..n)
        .map(|i| {
            let b = c.data[broadcast_index(&c.shape, &shape, i)];
            let src = if b != 0.0 { &x.h } else { &y.h };
            kind.cast(src.data[broadcast_index(&src.shape, &shape, i)])
        })
        .collect();
    wrap_host(HostArray { shape, data, kind })
}

/// `np.clip(a, a_min, a_max)`.
pub fn clip(a: &Args) -> Result<Obj> {
    let mut x = operand(&a.req(Some(0), "a", "clip")?)?;
    for (i, name, op) in [(1, "a_min", "maximum"), (2, "a_max", "minimum")] {
        if let Some(b) = a.opt(Some(i), name) {
            let h = binary(op, &x, &operand(&b)?)?;
            x = Operand { h, weak: false };
        }
    }
    wrap_host(x.h)
}

/// `np.round(a, decimals=0)`: NumPy scales, rounds half to even, and
/// scales back.
pub fn round(a: &Args) -> Result<Obj> {
    let x = arg(a, 0, "a")?;
    let d = match a.opt(Some(1), "decimals") {
        Some(o) => crate::python::builtins::to_int(&o)?,
        None => 0,
    };
    if !x.kind.is_float() {
        return wrap_host(x);
    }
    let p = 10f64.powi(d.abs() as i32);
    let f = move |v: f64| match d {
        0 => v.round_ties_even(),
        d if d > 0 => (v * p).round_ties_even() / p,
        _ => (v / p).round_ties_even() * p,
    };
    wrap_host(map(&x, x.kind, &f))
}

/// `np.isclose` / `np.allclose`.
pub fn isclose(a: &Args, all: bool) -> Result<Obj> {
    let (x, y) = (arg(a, 0, "a")?, arg(a, 1, "b")?);
    let num = |i: usize, name: &str, d: f64| -> Result<f64> {
        match a.opt(Some(i), name) {
            Some(o) => Ok(HostArray::from_obj(&o)?.data.first().copied().unwrap_or(d)),
            None => Ok(d),
        }
    };
    let (rtol, atol) = (num(2, "rtol", 1e-5)?, num(3, "atol", 1e-8)?);
    let equal_nan = match a.opt(Some(4), "equal_nan") {
        Some(o) => crate::python::ops::truthy(&o, "equal_nan")?,
        None => false,
    };
    let r = zip(&x, &y, Kind::Bool, &|p, q| {
        let close = if p.is_finite() && q.is_finite() {
            (p - q).abs() <= atol + rtol * q.abs()
        } else {
            p == q || (equal_nan && p.is_nan() && q.is_nan())
        };
        close as i64 as f64
    })?;
    if all {
        return Ok(Obj::Bool(r.data.iter().all(|&b| b != 0.0)));
    }
    wrap_host(r)
}

/// `np.dot` / `np.matmul` of arrays of rank one or two (and scalars for
/// `dot`).
pub fn dot(a: &Args, name: &str) -> Result<Obj> {
    let x = operand(&a.req(Some(0), "a", name)?)?;
    let y = operand(&a.req(Some(1), "b", name)?)?;
    let kind = result_kind(&x, &y);
    let (p, q) = (&x.h, &y.h);
    if p.shape.is_empty() || q.shape.is_empty() {
        return wrap_host(binary("multiply", &x, &y)?);
    }
    if p.shape.len() > 2 || q.shape.len() > 2 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: numpy.{name} of arrays of rank above 2 on float64 arrays"
        );
    }
    let (m, k) = if p.shape.len() == 1 {
        (1, p.shape[0])
    } else {
        (p.shape[0], p.shape[1])
    };
    let (k2, n) = if q.shape.len() == 1 {
        (q.shape[0], 1)
    } else {
        (q.shape[0], q.shape[1])
    };
    if k != k2 {
        bail!(
            ValueError,
            "shapes {} and {} not aligned: {} (dim {}) != {} (dim 0)",
            super::host::shape_str(&p.shape),
            super::host::shape_str(&q.shape),
            k,
            p.shape.len() - 1,
            k2
        );
    }
    let mut data = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let s = (0..k).fold(0.0, |s, t| s + p.data[i * k + t] * q.data[t * n + j]);
            data.push(kind.cast(s));
        }
    }
    let mut shape = vec![];
    if p.shape.len() == 2 {
        shape.push(m);
    }
    if q.shape.len() == 2 {
        shape.push(n);
    }
    wrap_host(HostArray { shape, data, kind })
}

/// `np.outer(a, b)` of the flattened arrays.
pub fn outer(a: &Args) -> Result<Obj> {
    let (x, y) = (arg(a, 0, "a")?, arg(a, 1, "b")?);
    let kind = x.kind.promote(y.kind);
    let data = x
        .data
        .iter()
        .flat_map(|&p| y.data.iter().map(move |&q| kind.cast(p * q)))
        .collect();
    wrap_host(HostArray {
        shape: vec![x.size(), y.size()],
        data,
        kind,
    })
}

/// `np.convolve(a, v, mode='full')` of two 1-d arrays.
pub fn convolve(a: &Args) -> Result<Obj> {
    let (x, v) = (arg(a, 0, "a")?, arg(a, 1, "v")?);
    let mode = match a.opt(Some(2), "mode") {
        Some(Obj::Str(s)) => s.to_string(),
        _ => "full".into(),
    };
    if x.shape.len() != 1 || v.shape.len() != 1 || x.size() == 0 || v.size() == 0 {
        bail!(ValueError, "object too deep for desired array");
    }
    let kind = x.kind.promote(v.kind);
    let (n, m) = (x.size(), v.size());
    let full: Vec<f64> = (0..n + m - 1)
        .map(|k| {
            let lo = k.saturating_sub(m - 1);
            let hi = k.min(n - 1);
            (lo..=hi).fold(0.0, |s, i| s + x.data[i] * v.data[k - i])
        })
        .collect();
    let (len, start) = match mode.as_str() {
        "full" => (n + m - 1, 0),
        "same" => (n.max(m), (n.min(m) - 1) / 2),
        "valid" => (n.max(m) - n.min(m) + 1, n.min(m) - 1),
        other => bail!(
            ValueError,
            "mode must be one of 'valid', 'same', or 'full' (got '{other}')"
        ),
    };
    let data = full[start..start + len]
        .iter()
        .map(|&s| kind.cast(s))
        .collect();
    wrap_host(HostArray {
        shape: vec![len],
        data,
        kind,
    })
}
