//! Operators, truth values, iteration, item and attribute access on objects.

use std::rc::Rc;

use rustpython_parser::ast::{CmpOp, Operator, UnaryOp as PyUnary};

use crate::array::{BinaryOp, DType, UnaryOp};
use crate::error::Result;
use crate::{bail, err, ops as jops};

use super::array::{array_attr, array_getitem, array_setitem};
use super::format;
use super::interp::Interp;
use super::value::{key_eq, Args, Obj};

/// Python's truth value; arrays need a concrete single element.
pub fn truthy(v: &Obj, what: &str) -> Result<bool> {
    Ok(match v {
        Obj::None => false,
        Obj::Bool(b) => *b,
        Obj::Int(i) => *i != 0,
        Obj::Float(f) => *f != 0.0,
        Obj::Complex(re, im) => *re != 0.0 || *im != 0.0,
        Obj::Str(s) => !s.is_empty(),
        Obj::List(l) => !l.borrow().is_empty(),
        Obj::Tuple(t) => !t.is_empty(),
        Obj::Dict(d) => !d.borrow().items.is_empty(),
        Obj::Set(st) => !st.borrow().is_empty(),
        Obj::Range(a, b, s) => range_len(*a, *b, *s) > 0,
        Obj::Array(x) => {
            let _ = what;
            if x.shape().iter().product::<usize>() != 1 {
                bail!(
                    ValueError,
                    "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()"
                );
            }
            let a = x.concrete_for(crate::trace::Conversion::Bool)?;
            if a.size() != 1 {
                bail!(
                    ValueError,
                    "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()"
                );
            }
            a.get_f64(0) != 0.0
        }
        Obj::Lib(o) => match o.scalar() {
            Some(s) => truthy(&s, what)?,
            None => true,
        },
        _ => true,
    })
}

/// Number of elements of `range(a, b, s)`.
pub fn range_len(a: i64, b: i64, s: i64) -> i64 {
    if s > 0 && b > a {
        (b - a + s - 1) / s
    } else if s < 0 && a > b {
        (a - b - s - 1) / -s
    } else {
        0
    }
}

/// The items of an iterable, materialised.
pub fn iterate(v: &Obj) -> Result<Vec<Obj>> {
    Ok(match v {
        Obj::List(l) => l.borrow().clone(),
        Obj::Tuple(t) => t.to_vec(),
        Obj::Str(s) => s.chars().map(|c| Obj::str(c.to_string())).collect(),
        Obj::Dict(d) => d.borrow().items.iter().map(|(k, _)| k.clone()).collect(),
        Obj::Set(st) => st.borrow().items(),
        Obj::Range(a, b, s) => {
            let n = range_len(*a, *b, *s);
            if n > 10_000_000 {
                bail!(
                    MemoryError,
                    "a range of {n} items is more than shardlab holds in one list (10000000)"
                );
            }
            (0..n).map(|i| Obj::Int(a + i * s)).collect()
        }
        Obj::Array(x) => {
            let shape = x.shape();
            if shape.is_empty() {
                bail!(TypeError, "iteration over a 0-d array");
            }
            let mut out = vec![];
            for i in 0..shape[0] {
                out.push(Obj::Array(super::array::index_first(x, i as i64)?));
            }
            out
        }
        Obj::Lib(_) | Obj::Instance(_) => match v.behaviour() {
            Some(b) => match b.items(v) {
                Some(items) => items?,
                None if b.is_iterator() => bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: a '{}' iterator here (pass list(...) of it)",
                    v.type_name()
                ),
                None => bail!(TypeError, "'{}' object is not iterable", v.type_name()),
            },
            None => bail!(TypeError, "'{}' object is not iterable", v.type_name()),
        },
        other => bail!(TypeError, "'{}' object is not iterable", other.type_name()),
    })
}

/// Python `==` on plain objects (arrays compare elementwise elsewhere).
pub fn py_eq(a: &Obj, b: &Obj) -> bool {
    let Some(_level) = super::depth::try_enter(" in comparison") else {
        return false;
    };
    match (a, b) {
        // Python compares a container's items by identity first, so a list
        // that holds itself equals itself.
        (Obj::List(x), Obj::List(y)) if Rc::ptr_eq(x, y) => true,
        (Obj::Dict(x), Obj::Dict(y)) if Rc::ptr_eq(x, y) => true,
        (Obj::List(x), Obj::List(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| item_eq(p, q))
        }
        (Obj::Tuple(x), Obj::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| item_eq(p, q))
        }
        (Obj::Dict(x), Obj::Dict(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            x.items.len() == y.items.len()
                && x.items
                    .iter()
                    .all(|(k, v)| y.get(k).map(|w| item_eq(v, &w)).unwrap_or(false))
        }
        (Obj::DType(x), Obj::DType(y)) => x == y,
        // NumPy compares a dtype with any spelling of it: `x.dtype == 'float32'`.
        (Obj::DType(d), Obj::Str(s)) | (Obj::Str(s), Obj::DType(d)) => {
            crate::array::dtype_strings::parse(s).is_ok_and(|p| !p.swapped && p.name == d.name())
        }
        (Obj::Complex(..), _) | (_, Obj::Complex(..)) => super::complex::eq(a, b).unwrap_or(false),
        (Obj::Set(x), Obj::Set(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            x.len() == y.len() && x.items().iter().all(|k| y.contains(k))
        }
        (Obj::Lib(x), _) => x
            .eq(a, b)
            .unwrap_or(matches!(b, Obj::Lib(y) if Rc::ptr_eq(x, y))),
        (Obj::Type(x), Obj::Type(y)) => x == y,
        (Obj::Class(x), Obj::Class(y)) => Rc::ptr_eq(x, y),
        // A library object standing for a class (`jax.extend.core.Literal`)
        // says whether it is that class.
        (Obj::Class(_), Obj::Lib(y)) => y.eq(b, a).unwrap_or(false),
        (Obj::Instance(x), _) => match a.behaviour().and_then(|bh| bh.eq(a, b)) {
            Some(eq) => eq,
            None => matches!(b, Obj::Instance(y) if Rc::ptr_eq(x, y)),
        },
        (Obj::Func(x), Obj::Func(y)) => Rc::ptr_eq(x, y),
        // Python asks the right operand's `__eq__` when the left has none
        // for it (`x.dtype == np.float32`, `6 == np.int64(6)`).
        (_, Obj::Lib(y)) => y.eq(b, a).unwrap_or(false),
        _ => key_eq(a, b),
    }
}

/// Two items of containers being compared: the same object, or equal (as
/// Python compares a tuple's, list's or dict's items).
pub fn item_eq(a: &Obj, b: &Obj) -> bool {
    is_same(a, b) || py_eq(a, b)
}

pub fn is_same(a: &Obj, b: &Obj) -> bool {
    match (a, b) {
        (Obj::None, Obj::None) | (Obj::Ellipsis, Obj::Ellipsis) => true,
        (Obj::Bool(x), Obj::Bool(y)) => x == y,
        (Obj::List(x), Obj::List(y)) => Rc::ptr_eq(x, y),
        (Obj::Dict(x), Obj::Dict(y)) => Rc::ptr_eq(x, y),
        (Obj::Tuple(x), Obj::Tuple(y)) => Rc::ptr_eq(x, y),
        (Obj::Set(x), Obj::Set(y)) => Rc::ptr_eq(x, y),
        (Obj::Int(x), Obj::Int(y)) => x == y,
        (Obj::Str(x), Obj::Str(y)) => x == y,
        (
            Obj::Array(crate::trace::Value::Concrete(x)),
            Obj::Array(crate::trace::Value::Concrete(y)),
        ) => x.is_same(y),
        (
            Obj::Array(crate::trace::Value::Traced(x)),
            Obj::Array(crate::trace::Value::Traced(y)),
        ) => x.level == y.level && x.var == y.var,
        (Obj::Array(_), Obj::Array(_)) => false,
        // Classes are the same class by name (`jnp.float32` is not
        // `np.float32`, though they are equal).
        (Obj::Lib(_), _) | (_, Obj::Lib(_))
            if a.class_name().is_some() || b.class_name().is_some() =>
        {
            a.class_name().is_some() && a.class_name() == b.class_name()
        }
        _ => py_eq(a, b),
    }
}

fn contains(container: &Obj, item: &Obj) -> Result<bool> {
    Ok(match container {
        Obj::Str(s) => match item {
            Obj::Str(i) => s.contains(&**i),
            _ => bail!(
                TypeError,
                "'in <string>' requires string as left operand, not {}",
                item.type_name()
            ),
        },
        Obj::Dict(d) => d.borrow().get(item).is_some(),
        Obj::Set(st) => st.borrow().contains(item),
        Obj::Range(a, b, s) => match item.as_number() {
            Some(v) if v.fract() == 0.0 => {
                let v = v as i64;
                iterate(&Obj::Range(*a, *b, *s))?
                    .iter()
                    .any(|x| matches!(x, Obj::Int(i) if *i == v))
            }
            _ => false,
        },
        other => iterate(other)?.iter().any(|x| py_eq(x, item)),
    })
}

fn cmp_numbers(op: &CmpOp, a: f64, b: f64) -> bool {
    match op {
        CmpOp::Lt => a < b,
        CmpOp::LtE => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::GtE => a >= b,
        CmpOp::Eq => a == b,
        _ => a != b,
    }
}

fn cmp_ord(op: &CmpOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        CmpOp::Lt => o == Less,
        CmpOp::LtE => o != Greater,
        CmpOp::Gt => o == Greater,
        CmpOp::GtE => o != Less,
        CmpOp::Eq => o == Equal,
        _ => o != Equal,
    }
}

/// Orders two plain objects (numbers, strings, sequences) as Python does.
pub fn py_cmp(a: &Obj, b: &Obj) -> Result<std::cmp::Ordering> {
    if let (Some(x), Some(y)) = (a.as_number(), b.as_number()) {
        return Ok(x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal));
    }
    match (a, b) {
        (Obj::Str(x), Obj::Str(y)) => Ok(x.cmp(y)),
        (Obj::List(_) | Obj::Tuple(_), Obj::List(_) | Obj::Tuple(_)) => {
            // Each level of nesting is a level of native recursion; a
            // container that holds itself ends in RecursionError, unless
            // the items are the same object, which are equal without a look
            // inside (as in CPython, so `x < x` is False for `x = [x]`).
            let _level = super::depth::enter()
                .map_err(|_| super::depth::recursion_error(" in comparison"))?;
            let (x, y) = (iterate(a)?, iterate(b)?);
            for (p, q) in x.iter().zip(&y) {
                if is_same(p, q) {
                    continue;
                }
                let o = py_cmp(p, q)?;
                if o != std::cmp::Ordering::Equal {
                    return Ok(o);
                }
            }
            Ok(x.len().cmp(&y.len()))
        }
        (Obj::Array(_), _) | (_, Obj::Array(_)) => {
            let r = compare(&CmpOp::Lt, a, b)?;
            if truthy(&r, "a comparison")? {
                return Ok(std::cmp::Ordering::Less);
            }
            let r = compare(&CmpOp::Gt, a, b)?;
            Ok(if truthy(&r, "a comparison")? {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            })
        }
        _ => bail!(
            TypeError,
            "'<' not supported between instances of '{}' and '{}'",
            a.type_name(),
            b.type_name()
        ),
    }
}

/// The items of a tuple, or of an instance of a library class that is a
/// tuple (a NamedTuple).
fn tuple_items(o: &Obj) -> Option<Vec<Obj>> {
    match o {
        Obj::Tuple(t) => Some(t.to_vec()),
        Obj::Instance(_) => {
            let b = o.behaviour()?;
            if b.builtin_base() != Some("tuple") {
                return None;
            }
            b.items(o)?.ok()
        }
        _ => None,
    }
}

/// `a == b` where a container holds arrays: Python compares the items by
/// identity, then by the truth of `x == y`, so equal scalar arrays are
/// equal items and a longer array raises, as `bool(x == y)` does. Other
/// values compare as [`py_eq`] says.
fn container_eq(a: &Obj, b: &Obj) -> Result<bool> {
    let pairs: Vec<(Obj, Obj)> = match (a, b) {
        (Obj::Array(_), _) | (_, Obj::Array(_)) => {
            if operand_or_none(a).is_none() || operand_or_none(b).is_none() {
                return Ok(py_eq(a, b));
            }
            let r = compare(&CmpOp::Eq, a, b)?;
            return truthy(&r, "a comparison");
        }
        (Obj::List(x), Obj::List(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            if x.len() != y.len() {
                return Ok(false);
            }
            x.iter().cloned().zip(y.iter().cloned()).collect()
        }
        (Obj::Dict(x), Obj::Dict(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            if x.items.len() != y.items.len() {
                return Ok(false);
            }
            let mut pairs = vec![];
            for (k, v) in x.items.iter() {
                match y.get(k) {
                    Some(w) => pairs.push((v.clone(), w)),
                    None => return Ok(false),
                }
            }
            pairs
        }
        _ => match (tuple_items(a), tuple_items(b)) {
            (Some(x), Some(y)) if x.len() == y.len() => x.into_iter().zip(y).collect(),
            (Some(_), Some(_)) => return Ok(false),
            _ => return Ok(py_eq(a, b)),
        },
    };
    let Some(_level) = super::depth::try_enter(" in comparison") else {
        return Ok(false);
    };
    for (x, y) in &pairs {
        if !is_same(x, y) && !container_eq(x, y)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A comparison operator.
pub fn compare(op: &CmpOp, a: &Obj, b: &Obj) -> Result<Obj> {
    match op {
        CmpOp::Is => return Ok(Obj::Bool(is_same(a, b))),
        CmpOp::IsNot => return Ok(Obj::Bool(!is_same(a, b))),
        CmpOp::In => return Ok(Obj::Bool(contains(b, a)?)),
        CmpOp::NotIn => return Ok(Obj::Bool(!contains(b, a)?)),
        _ => {}
    }
    if let Obj::Lib(o) = a {
        if let Some(r) = o.compare(a, op, b, true) {
            return r;
        }
    }
    if let Obj::Lib(o) = b {
        if let Some(r) = o.compare(b, op, a, false) {
            return r;
        }
    }
    if matches!(a, Obj::Array(_)) || matches!(b, Obj::Array(_)) {
        array_sequence_compare(op, a, b)?;
        let bop = match op {
            CmpOp::Eq => BinaryOp::Eq,
            CmpOp::NotEq => BinaryOp::Ne,
            CmpOp::Lt => BinaryOp::Lt,
            CmpOp::LtE => BinaryOp::Le,
            CmpOp::Gt => BinaryOp::Gt,
            _ => BinaryOp::Ge,
        };
        if let (Some(x), Some(y)) = (operand_or_none(a), operand_or_none(b)) {
            let (x, y) = super::array::binary_operands(bop, &x, &y)?;
            return Ok(Obj::Array(jops::binary(bop, &x, &y)?));
        }
    }
    if let (Obj::Set(x), Obj::Set(y)) = (a, b) {
        if let Some(r) = super::builtins::set_compare(op, &x.borrow(), &y.borrow()) {
            return Ok(Obj::Bool(r));
        }
    }
    match op {
        CmpOp::Eq => Ok(Obj::Bool(container_eq(a, b)?)),
        CmpOp::NotEq => Ok(Obj::Bool(!container_eq(a, b)?)),
        _ => {
            if let (Some(x), Some(y)) = (a.as_number(), b.as_number()) {
                return Ok(Obj::Bool(cmp_numbers(op, x, y)));
            }
            let sym = match op {
                CmpOp::Lt => "<",
                CmpOp::LtE => "<=",
                CmpOp::Gt => ">",
                _ => ">=",
            };
            match py_cmp(a, b) {
                Ok(o) => Ok(Obj::Bool(cmp_ord(op, o))),
                Err(e) if e.kind == crate::error::ErrorKind::RecursionError => Err(e),
                Err(_) => bail!(
                    TypeError,
                    "'{sym}' not supported between instances of '{}' and '{}'",
                    a.type_name(),
                    b.type_name()
                ),
            }
        }
    }
}

fn operand_or_none(o: &Obj) -> Option<Obj> {
    match o {
        Obj::Array(_) | Obj::Bool(_) | Obj::Int(_) | Obj::Float(_) | Obj::Complex(..) => {
            Some(o.clone())
        }
        // A JAX array never meets a list or tuple in an operator: JAX
        // raises TypeError where NumPy would convert it.
        Obj::Lib(_) | Obj::Instance(_) => o.behaviour().and_then(|b| b.array(o)),
        _ => None,
    }
}

/// The TypeError of a comparison between a JAX array and a list or tuple
/// (`==` too: JAX's arrays refuse it rather than answer False).
fn array_sequence_compare(op: &CmpOp, a: &Obj, b: &Obj) -> Result<()> {
    let seq = |o: &Obj| matches!(o, Obj::List(_) | Obj::Tuple(_));
    let array = |o: &Obj| matches!(o, Obj::Array(_));
    if !(array(a) && seq(b) || seq(a) && array(b)) {
        return Ok(());
    }
    let sym = match op {
        CmpOp::Eq => "==",
        CmpOp::NotEq => "!=",
        CmpOp::Lt => "<",
        CmpOp::LtE => "<=",
        CmpOp::Gt => ">",
        _ => ">=",
    };
    if matches!(op, CmpOp::Eq | CmpOp::NotEq) {
        bail!(
            TypeError,
            "unsupported operand type(s) for {sym}: '{}' and '{}'",
            a.type_name(),
            b.type_name()
        );
    }
    bail!(
        TypeError,
        "'{sym}' not supported between instances of '{}' and '{}'",
        qualified_type(a),
        qualified_type(b)
    )
}

/// A type's name as CPython's comparison and matmul errors spell it: with
/// its module for JAX's array class.
pub fn qualified_type(o: &Obj) -> String {
    match o.type_name() {
        n if n == "ArrayImpl" => "jaxlib._jax.ArrayImpl".to_string(),
        other => other,
    }
}

fn op_symbol(op: &Operator) -> &'static str {
    match op {
        Operator::Add => "+",
        Operator::Sub => "-",
        Operator::Mult => "*",
        Operator::MatMult => "@",
        Operator::Div => "/",
        Operator::Mod => "%",
        Operator::Pow => "**",
        Operator::LShift => "<<",
        Operator::RShift => ">>",
        Operator::BitOr => "|",
        Operator::BitXor => "^",
        Operator::BitAnd => "&",
        Operator::FloorDiv => "//",
    }
}

fn int_op(op: &Operator, a: i64, b: i64) -> Result<Obj> {
    Ok(match op {
        Operator::Add => Obj::Int(a.checked_add(b).ok_or_else(overflow)?),
        Operator::Sub => Obj::Int(a.checked_sub(b).ok_or_else(overflow)?),
        Operator::Mult => Obj::Int(a.checked_mul(b).ok_or_else(overflow)?),
        Operator::Div => {
            if b == 0 {
                bail!(ZeroDivisionError, "division by zero");
            }
            Obj::Float(a as f64 / b as f64)
        }
        Operator::FloorDiv => {
            if b == 0 {
                bail!(ZeroDivisionError, "integer division or modulo by zero");
            }
            Obj::Int(a.div_euclid(b) - if b < 0 && a.rem_euclid(b) != 0 { 1 } else { 0 })
        }
        Operator::Mod => {
            if b == 0 {
                bail!(ZeroDivisionError, "integer modulo by zero");
            }
            let r = a % b;
            Obj::Int(if r != 0 && ((r < 0) != (b < 0)) {
                r + b
            } else {
                r
            })
        }
        Operator::Pow => {
            if b < 0 {
                Obj::Float((a as f64).powf(b as f64))
            } else {
                Obj::Int(
                    a.checked_pow(b.min(u32::MAX as i64) as u32)
                        .ok_or_else(overflow)?,
                )
            }
        }
        Operator::LShift => Obj::Int(a.checked_shl(b as u32).ok_or_else(overflow)?),
        Operator::RShift => Obj::Int(a >> b.min(63)),
        Operator::BitOr => Obj::Int(a | b),
        Operator::BitXor => Obj::Int(a ^ b),
        Operator::BitAnd => Obj::Int(a & b),
        Operator::MatMult => bail!(
            TypeError,
            "unsupported operand type(s) for @: 'int' and 'int'"
        ),
    })
}

fn overflow() -> crate::error::Error {
    err!(
        NotImplementedError,
        "not supported by shardlab yet: integers beyond 64 bits"
    )
}

fn float_op(op: &Operator, a: f64, b: f64) -> Result<Obj> {
    Ok(Obj::Float(match op {
        Operator::Add => a + b,
        Operator::Sub => a - b,
        Operator::Mult => a * b,
        Operator::Div => {
            if b == 0.0 {
                bail!(ZeroDivisionError, "float division by zero");
            }
            a / b
        }
        Operator::FloorDiv => {
            if b == 0.0 {
                bail!(ZeroDivisionError, "float floor division by zero");
            }
            (a / b).floor()
        }
        Operator::Mod => {
            if b == 0.0 {
                bail!(ZeroDivisionError, "float modulo");
            }
            let r = a % b;
            if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
                r + b
            } else {
                r
            }
        }
        Operator::Pow => a.powf(b),
        _ => bail!(
            TypeError,
            "unsupported operand type(s) for {}: 'float' and 'float'",
            op_symbol(op)
        ),
    }))
}

/// A binary operator; `inplace` for augmented assignment (lists extend in place).
pub fn binop(interp: &mut Interp, op: &Operator, a: &Obj, b: &Obj, inplace: bool) -> Result<Obj> {
    if matches!(op, Operator::BitOr) {
        if let Some(u) = super::union::union(a, b) {
            return Ok(u);
        }
    }
    // A sequence repeated by a NumPy integer (`[0] * np.int64(2)`), which
    // the sequence reads through its `__index__` (the other way round,
    // NumPy's own operator makes an array of the list first).
    if let (Obj::Str(_) | Obj::List(_) | Obj::Tuple(_), Some(n @ Obj::Int(_))) = (a, b.lib_scalar())
    {
        if matches!(op, Operator::Mult) {
            return binop(interp, op, a, &n, inplace);
        }
    }
    match (a, b) {
        (Obj::Int(_) | Obj::Bool(_), Obj::Int(_) | Obj::Bool(_)) => {
            let (x, y) = (as_int(a), as_int(b));
            return int_op(op, x, y);
        }
        (
            Obj::Int(_) | Obj::Bool(_) | Obj::Float(_),
            Obj::Int(_) | Obj::Bool(_) | Obj::Float(_),
        ) => {
            return float_op(
                op,
                a.as_number().unwrap_or(0.0),
                b.as_number().unwrap_or(0.0),
            );
        }
        (Obj::Complex(..), Obj::Int(_) | Obj::Bool(_) | Obj::Float(_) | Obj::Complex(..))
        | (Obj::Int(_) | Obj::Bool(_) | Obj::Float(_), Obj::Complex(..)) => {
            if let Some(r) = super::complex::binop(op, a, b)? {
                return Ok(r);
            }
        }
        (Obj::Set(x), Obj::Set(y)) => {
            if let Some(r) = super::builtins::set_binop(op, &x.borrow(), &y.borrow())? {
                return Ok(r);
            }
        }
        (Obj::Str(_) | Obj::List(_) | Obj::Tuple(_), _)
        | (Obj::Int(_), Obj::Str(_) | Obj::List(_) | Obj::Tuple(_)) => {
            if let Some(r) = sequence_binop(op, a, b, inplace)? {
                return Ok(r);
            }
        }
        _ => {}
    }
    object_binop(interp, op, a, b, inplace)
}

/// `+`, `*` and `%` of strings, lists and tuples (concatenation,
/// repetition, printf-style formatting), within the run's memory budget;
/// None for the other pairs.
fn sequence_binop(op: &Operator, a: &Obj, b: &Obj, inplace: bool) -> Result<Option<Obj>> {
    Ok(Some(match (a, b) {
        (Obj::Str(x), Obj::Str(y)) if matches!(op, Operator::Add) => {
            super::budget::check_grow(x.len() + y.len(), "a string")?;
            Obj::str(format!("{x}{y}"))
        }
        (Obj::Str(x), Obj::Int(n)) | (Obj::Int(n), Obj::Str(x)) if matches!(op, Operator::Mult) => {
            check_alloc(x.len(), *n)?;
            super::budget::check_grow(x.len() * (*n).max(0) as usize, "a string")?;
            Obj::str(x.repeat((*n).max(0) as usize))
        }
        (Obj::Str(x), _) if matches!(op, Operator::Mod) => Obj::str(format::percent_format(x, b)?),
        (Obj::List(x), Obj::List(y)) if matches!(op, Operator::Add) => {
            let items = x.borrow().len() + y.borrow().len();
            super::budget::check_grow(items * std::mem::size_of::<Obj>(), "a list")?;
            if inplace {
                let extra = y.borrow().clone();
                x.borrow_mut().extend(extra);
                return Ok(Some(a.clone()));
            }
            let mut v = x.borrow().clone();
            v.extend(y.borrow().iter().cloned());
            Obj::list(v)
        }
        (Obj::Tuple(x), Obj::Tuple(y)) if matches!(op, Operator::Add) => {
            let mut v = x.to_vec();
            v.extend(y.iter().cloned());
            Obj::tuple(v)
        }
        (Obj::List(_) | Obj::Tuple(_), Obj::Int(n))
        | (Obj::Int(n), Obj::List(_) | Obj::Tuple(_))
            if matches!(op, Operator::Mult) =>
        {
            let seq = if matches!(a, Obj::Int(_)) { b } else { a };
            repeat_sequence(seq, *n)?
        }
        _ => return Ok(None),
    }))
}

/// `seq * n` of a list or tuple.
fn repeat_sequence(seq: &Obj, n: i64) -> Result<Obj> {
    let items = iterate(seq)?;
    check_alloc(items.len(), n)?;
    let bytes = items.len() * n.max(0) as usize * std::mem::size_of::<Obj>();
    super::budget::check_grow(bytes, "a sequence")?;
    // An empty sequence stays empty however many times it repeats.
    let times = if items.is_empty() { 0 } else { n.max(0) };
    let mut v = vec![];
    for _ in 0..times {
        v.extend(items.iter().cloned());
    }
    Ok(if matches!(seq, Obj::List(_)) {
        Obj::list(v)
    } else {
        Obj::tuple(v)
    })
}

/// `a op b` for library objects and arrays (the operands' own operators
/// first), else Python's TypeError.
fn object_binop(
    interp: &mut Interp,
    op: &Operator,
    a: &Obj,
    b: &Obj,
    inplace: bool,
) -> Result<Obj> {
    if let Obj::Lib(o) = a {
        if let Some(r) = o.binop(interp, a, op, b, true, inplace) {
            return r;
        }
    }
    if let Obj::Lib(o) = b {
        if let Some(r) = o.binop(interp, b, op, a, false, false) {
            return r;
        }
    }
    let is_array = |o: &Obj| match o {
        Obj::Array(_) => true,
        Obj::Lib(_) | Obj::Instance(_) => o.behaviour().and_then(|b| b.array(o)).is_some(),
        _ => false,
    };
    if is_array(a) || is_array(b) {
        if let (Some(x), Some(y)) = (operand_or_none(a), operand_or_none(b)) {
            return array_binop(op, &x, &y);
        }
    }
    if matches!(op, Operator::MatMult) && (is_array(a) || is_array(b)) {
        bail!(
            TypeError,
            "unsupported operand type(s) for @: '{}' and '{}'",
            qualified_type(a),
            qualified_type(b)
        );
    }
    bail!(
        TypeError,
        "unsupported operand type(s) for {}: '{}' and '{}'",
        op_symbol(op),
        a.type_name(),
        b.type_name()
    )
}

/// Fails when `len` items repeated `times` times (a string or a list times
/// an int) would be more than shardlab holds, computing the count without
/// overflow (`'ab' * 2**62`).
fn check_alloc(len: usize, times: i64) -> Result<()> {
    let n = (len as i64).saturating_mul(times.max(0));
    if n > 50_000_000 {
        bail!(
            MemoryError,
            "{n} items are more than shardlab holds in one sequence (50000000)"
        );
    }
    Ok(())
}

fn as_int(o: &Obj) -> i64 {
    match o {
        Obj::Bool(b) => *b as i64,
        Obj::Int(i) => *i,
        _ => 0,
    }
}

/// A binary operator where at least one side is an array.
pub fn array_binop(op: &Operator, a: &Obj, b: &Obj) -> Result<Obj> {
    // `x ** 2` with a Python int exponent is lax.integer_pow, as in JAX.
    if let (Operator::Pow, Obj::Array(x), Obj::Int(n)) = (op, a, b) {
        if x.dtype() != DType::Bool && *n >= i32::MIN as i64 && *n <= i32::MAX as i64 {
            return Ok(Obj::Array(jops::integer_pow(x, *n as i32)?));
        }
    }
    if let Operator::MatMult = op {
        let (x, y) = super::array::weak_pair(a, b)?;
        return Ok(Obj::Array(jops::matmul(&x, &y)?));
    }
    let bop = match op {
        Operator::Add => BinaryOp::Add,
        Operator::Sub => BinaryOp::Sub,
        Operator::Mult => BinaryOp::Mul,
        Operator::Div => BinaryOp::Div,
        Operator::FloorDiv => BinaryOp::FloorDiv,
        Operator::Mod => BinaryOp::Rem,
        Operator::Pow => BinaryOp::Pow,
        Operator::BitAnd => BinaryOp::And,
        Operator::BitOr => BinaryOp::Or,
        Operator::BitXor => BinaryOp::Xor,
        Operator::MatMult => {
            let (x, y) = super::array::weak_pair(a, b)?;
            return Ok(Obj::Array(jops::matmul(&x, &y)?));
        }
        Operator::LShift => BinaryOp::ShiftLeft,
        Operator::RShift => BinaryOp::ShiftRightArithmetic,
    };
    let (x, y) = super::array::jnp_operands(bop, a, b)?;
    Ok(Obj::Array(jops::binary(bop.for_dtype(x.dtype()), &x, &y)?))
}

/// A unary operator.
pub fn unaryop(op: &PyUnary, v: &Obj) -> Result<Obj> {
    if let Obj::Lib(o) = v {
        if let Some(r) = o.unary(v, op) {
            return r;
        }
    }
    Ok(match (op, v) {
        (PyUnary::Not, _) => Obj::Bool(!truthy(v, "a 'not' expression")?),
        (PyUnary::USub, Obj::Int(i)) => Obj::Int(-i),
        (PyUnary::USub, Obj::Bool(b)) => Obj::Int(-(*b as i64)),
        (PyUnary::USub, Obj::Float(f)) => Obj::Float(-f),
        (PyUnary::USub, Obj::Complex(re, im)) => Obj::Complex(-re, -im),
        (PyUnary::UAdd, Obj::Complex(..)) => v.clone(),
        (PyUnary::UAdd, Obj::Int(_) | Obj::Float(_)) => v.clone(),
        (PyUnary::UAdd, Obj::Bool(b)) => Obj::Int(*b as i64),
        (PyUnary::Invert, Obj::Int(i)) => Obj::Int(!i),
        (PyUnary::USub, Obj::Array(x)) => Obj::Array(jops::neg(x)?),
        (PyUnary::UAdd, Obj::Array(_)) => v.clone(),
        (PyUnary::Invert, Obj::Array(x)) => Obj::Array(jops::unary(UnaryOp::Not, x)?),
        _ => {
            let sym = match op {
                PyUnary::USub => "-",
                PyUnary::UAdd => "+",
                _ => "~",
            };
            bail!(
                TypeError,
                "bad operand type for unary {sym}: '{}'",
                v.type_name()
            )
        }
    })
}

fn norm_index(i: i64, len: usize, what: &str) -> Result<usize> {
    let n = len as i64;
    let j = if i < 0 { i + n } else { i };
    if j < 0 || j >= n {
        bail!(IndexError, "{what} index out of range");
    }
    Ok(j as usize)
}

/// Resolves a slice against a length: (start, stop, step) as Python's `slice.indices`.
pub fn slice_indices(s: &[Obj; 3], len: usize) -> Result<(i64, i64, i64)> {
    let get = |o: &Obj| -> Result<Option<i64>> {
        match o {
            Obj::None => Ok(None),
            Obj::Int(i) => Ok(Some(*i)),
            Obj::Bool(b) => Ok(Some(*b as i64)),
            Obj::Array(a) => {
                let c = a.concrete("a slice bound")?;
                Ok(Some(c.get_f64(0) as i64))
            }
            Obj::Lib(_) if matches!(o.lib_scalar(), Some(Obj::Int(_))) => {
                Ok(Some(super::builtins::to_int(o)?))
            }
            other => bail!(
                TypeError,
                "slice indices must be integers or None or have an __index__ method, got {}",
                other.type_name()
            ),
        }
    };
    let n = len as i64;
    let step = get(&s[2])?.unwrap_or(1);
    if step == 0 {
        bail!(ValueError, "slice step cannot be zero");
    }
    let clamp = |v: Option<i64>, default: i64, lo: i64, hi: i64| -> i64 {
        match v {
            None => default,
            Some(v) => {
                let v = if v < 0 { v + n } else { v };
                v.clamp(lo, hi)
            }
        }
    };
    if step > 0 {
        Ok((
            clamp(get(&s[0])?, 0, 0, n),
            clamp(get(&s[1])?, n, 0, n),
            step,
        ))
    } else {
        Ok((
            clamp(get(&s[0])?, n - 1, -1, n - 1),
            clamp(get(&s[1])?, -1, -1, n - 1),
            step,
        ))
    }
}

fn slice_seq<T: Clone>(items: &[T], s: &[Obj; 3]) -> Result<Vec<T>> {
    let (start, stop, step) = slice_indices(s, items.len())?;
    let mut out = vec![];
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(items[i as usize].clone());
        i += step;
    }
    Ok(out)
}

fn index_int(k: &Obj) -> Result<Option<i64>> {
    Ok(match k {
        Obj::Int(i) => Some(*i),
        Obj::Bool(b) => Some(*b as i64),
        Obj::Array(a) if a.shape().is_empty() && !a.dtype().is_inexact() => {
            Some(a.concrete_for(crate::trace::Conversion::Index)?.get_f64(0) as i64)
        }
        Obj::Lib(_) => match k.lib_scalar() {
            Some(Obj::Int(i)) => Some(i),
            Some(Obj::Bool(b)) => Some(b as i64),
            _ => None,
        },
        _ => None,
    })
}

/// `container[key]`.
pub fn getitem(interp: &mut Interp, v: &Obj, k: &Obj) -> Result<Obj> {
    match v {
        Obj::List(_) | Obj::Tuple(_) | Obj::Str(_) | Obj::Range(..) => sequence_getitem(v, k),
        Obj::Dict(d) => {
            let (found, factory) = {
                let d = d.borrow();
                (d.get(k), d.default_factory.clone())
            };
            match (found, factory) {
                (Some(v), _) => Ok(v),
                // defaultdict: the factory's value is stored under the key.
                (None, Some(f)) => {
                    super::dict::check_hashable(k)?;
                    let v = interp.call(&f, Args::default())?;
                    d.borrow_mut().set(k.clone(), v.clone());
                    Ok(v)
                }
                (None, None) => Err(interp.key_error(k)),
            }
        }
        Obj::Array(x) => {
            super::array::refuse_list_key(k)?;
            Ok(Obj::Array(array_getitem(x, k)?))
        }
        Obj::Instance(_) | Obj::Lib(_) => object_getitem(interp, v, k),
        Obj::Native(n) if n.name == "at" => {
            // x.at[idx]: the native stands for the indexer; calling it with the
            // index gives the updater object.
            let f = n.f.clone();
            f(interp, Args::new(vec![k.clone()]))
        }
        Obj::Type(t @ ("list" | "tuple" | "dict" | "set" | "frozenset" | "type")) => {
            Ok(super::generic_alias::subscript(t, k))
        }
        Obj::Class(c) => class_getitem(interp, v, c, k),
        other => bail!(
            TypeError,
            "'{}' object is not subscriptable",
            other.type_name()
        ),
    }
}

/// `seq[i]` and `seq[a:b:c]` of a list, tuple, string or range. An integer
/// index reads the one element (no copy of a list or tuple).
fn sequence_getitem(v: &Obj, k: &Obj) -> Result<Obj> {
    let what = match v {
        Obj::List(_) => "list",
        Obj::Tuple(_) => "tuple",
        Obj::Range(..) => "range object",
        _ => "string",
    };
    if let Obj::Slice(s) = k {
        let out = slice_seq(&iterate(v)?, s)?;
        return Ok(match v {
            Obj::List(_) | Obj::Range(..) => Obj::list(out),
            Obj::Tuple(_) => Obj::tuple(out),
            _ => Obj::str(out.iter().map(format::str_of).collect::<String>()),
        });
    }
    let Some(i) = index_int(k)? else {
        bail!(
            TypeError,
            "{what} indices must be integers or slices, not {}",
            k.type_name()
        );
    };
    match v {
        Obj::List(l) => {
            let l = l.borrow();
            Ok(l[norm_index(i, l.len(), what)?].clone())
        }
        Obj::Tuple(t) => Ok(t[norm_index(i, t.len(), what)?].clone()),
        _ => {
            let items = iterate(v)?;
            Ok(items[norm_index(i, items.len(), what)?].clone())
        }
    }
}

/// `obj[k]` of an instance (its class's `__getitem__`, or the dict or list
/// it extends) or of a library object.
fn object_getitem(interp: &mut Interp, v: &Obj, k: &Obj) -> Result<Obj> {
    if let Obj::Instance(i) = v {
        if let Some(f) = i.class.lookup("__getitem__") {
            return interp.call(&f, Args::new(vec![v.clone(), k.clone()]));
        }
        if let Some(base) = &i.base {
            // dict's own lookup asks a subclass's `__missing__`.
            if let (Obj::Dict(d), Some(m)) = (base, i.class.lookup("__missing__")) {
                if !d.borrow().contains(k) {
                    return interp.call(&m, Args::new(vec![v.clone(), k.clone()]));
                }
            }
            return getitem(interp, base, k);
        }
    }
    match v.behaviour().and_then(|b| b.getitem(interp, v, k)) {
        Some(r) => r,
        None => bail!(TypeError, "'{}' object is not subscriptable", v.type_name()),
    }
}

/// `C[T]`: a class's `__class_getitem__`, or for library classes (generic
/// in their own library) the class itself, as an annotation.
fn class_getitem(
    interp: &mut Interp,
    v: &Obj,
    c: &Rc<super::value::Class>,
    k: &Obj,
) -> Result<Obj> {
    match c.lookup("__class_getitem__") {
        Some(f) => {
            let f = match &f {
                Obj::Lib(o) => o
                    .downcast::<super::classes::ClassMethod>()
                    .map(|m| m.0.clone())
                    .unwrap_or(f.clone()),
                _ => f,
            };
            interp.call(&f, Args::new(vec![v.clone(), k.clone()]))
        }
        None if c.native().is_some() => Ok(v.clone()),
        None => bail!(TypeError, "type '{}' is not subscriptable", c.name),
    }
}

/// `container[key] = value`.
pub fn setitem(container: &Obj, k: Obj, v: Obj) -> Result<()> {
    match container {
        Obj::List(l) => {
            let len = l.borrow().len();
            if let Obj::Slice(s) = &k {
                let (start, stop, step) = slice_indices(s, len)?;
                if step != 1 {
                    bail!(
                        NotImplementedError,
                        "not supported by shardlab yet: extended slice assignment"
                    );
                }
                let items = iterate(&v)?;
                let stop = stop.max(start);
                l.borrow_mut().splice(start as usize..stop as usize, items);
                return Ok(());
            }
            let Some(i) = index_int(&k)? else {
                bail!(
                    TypeError,
                    "list indices must be integers or slices, not {}",
                    k.type_name()
                );
            };
            let i = norm_index(i, len, "list assignment")?;
            l.borrow_mut()[i] = v;
            Ok(())
        }
        Obj::Dict(d) => {
            super::dict::check_hashable(&k)?;
            d.borrow_mut().set(k, v);
            Ok(())
        }
        Obj::Array(_) => array_setitem(),
        Obj::Lib(o) => match o.setitem(container, &k, &v) {
            Some(r) => r,
            None => bail!(
                TypeError,
                "'{}' object does not support item assignment",
                container.type_name()
            ),
        },
        other => bail!(
            TypeError,
            "'{}' object does not support item assignment",
            other.type_name()
        ),
    }
}

/// `del container[key]`.
pub fn delitem(container: &Obj, k: &Obj) -> Result<()> {
    match container {
        Obj::List(l) => {
            let len = l.borrow().len();
            let Some(i) = index_int(k)? else {
                bail!(
                    TypeError,
                    "list indices must be integers or slices, not {}",
                    k.type_name()
                );
            };
            let i = norm_index(i, len, "list assignment")?;
            l.borrow_mut().remove(i);
            Ok(())
        }
        Obj::Dict(d) => match d.borrow_mut().remove(k) {
            Some(_) => Ok(()),
            None => bail!(KeyError, "{}", format::repr_of(k)),
        },
        other => bail!(
            TypeError,
            "'{}' object doesn't support item deletion",
            other.type_name()
        ),
    }
}

/// `obj.name`.
pub fn getattr(interp: &mut Interp, v: &Obj, name: &str) -> Result<Obj> {
    let missing = || {
        err!(
            AttributeError,
            "'{}' object has no attribute '{name}'",
            v.type_name()
        )
    };
    match v {
        Obj::Module(m) => match m.get(name) {
            Some(x) => Ok(x),
            None => {
                let library = interp.library.clone();
                library.missing_attr(interp, &m.name, name)
            }
        },
        Obj::Instance(i) => instance_attr(interp, v, i, name),
        Obj::Class(c) => class_attr(interp, v, c, name),
        Obj::Func(f) => match name {
            "__name__" => Ok(Obj::str(&f.name)),
            "__qualname__" => Ok(Obj::str(&*f.qualname)),
            _ => Err(missing()),
        },
        Obj::Native(n) => match name {
            "__name__" => Ok(Obj::str(n.name.rsplit('.').next().unwrap_or(&n.name))),
            _ => Err(missing()),
        },
        Obj::Array(x) => array_attr(interp, x, name),
        Obj::DType(d) => match name {
            "name" => Ok(Obj::str(d.name())),
            "itemsize" => Ok(Obj::Int(d.itemsize() as i64)),
            _ => {
                let library = interp.library.clone();
                library.dtype_attr(*d, name)?.ok_or_else(missing)
            }
        },
        Obj::Type(t) if name == "__name__" || name == "__qualname__" => Ok(Obj::str(t)),
        // Python's own types live in `builtins`; a JAX array's in jaxlib.
        Obj::Type(t) if name == "__module__" => Ok(Obj::str(match *t {
            "ArrayImpl" => "jaxlib._jax",
            _ => "builtins",
        })),
        Obj::Type(t) => builtin_type_attr(t, name),
        Obj::Float(f) if name == "real" => Ok(Obj::Float(*f)),
        Obj::Float(_) if name == "imag" => Ok(Obj::Float(0.0)),
        Obj::Complex(re, im) => super::complex::attr(*re, *im, name).ok_or_else(missing),
        Obj::Float(f) if name == "is_integer" => {
            let f = *f;
            Ok(Obj::native("float.is_integer", move |_, _| {
                Ok(Obj::Bool(f.fract() == 0.0))
            }))
        }
        Obj::Lib(x) => match x.getattr(interp, v, name)? {
            Some(a) => Ok(a),
            None => Err(interp.library.missing_object_attr(&v.type_name(), name)),
        },
        Obj::Slice(s) => match name {
            "start" => Ok(s[0].clone()),
            "stop" => Ok(s[1].clone()),
            "step" => Ok(s[2].clone()),
            _ => Err(missing()),
        },
        // A method Python's own type has and shardlab lacks is refused by
        // name, not reported as the program's mistake.
        Obj::Str(_) | Obj::List(_) | Obj::Dict(_) | Obj::Tuple(_) | Obj::Set(_) => {
            super::builtins::method(v, name)
                .ok_or_else(|| interp.library.missing_object_attr(&v.type_name(), name))
        }
        _ => Err(interp.library.missing_object_attr(&v.type_name(), name)),
    }
}

/// An attribute of an instance of a program's class, in CPython's order:
/// properties (data descriptors), the instance's own attributes, the class's
/// (bound), a builtin or library base's, then `__getattr__`.
fn instance_attr(
    interp: &mut Interp,
    v: &Obj,
    i: &super::value::Instance,
    name: &str,
) -> Result<Obj> {
    if let Some(p @ Obj::Lib(_)) = i.class.lookup(name) {
        if matches!(&p, Obj::Lib(o) if o.downcast::<super::classes::Property>().is_some()) {
            return super::classes::bind(interp, v, p);
        }
    }
    if let Some(x) = i.get(name) {
        return Ok(x);
    }
    if name == "__class__" {
        return Ok(Obj::Class(i.class.clone()));
    }
    if name == "__dict__" {
        if let Obj::Instance(rc) = v {
            return Ok(super::instance_dict::instance_dict(rc));
        }
    }
    if let Some(x) = i.class.lookup(name) {
        return super::classes::bind(interp, v, x);
    }
    if let Some(b) = i.class.native() {
        if let Some(x) = b.getattr(interp, v, name)? {
            return Ok(x);
        }
    }
    if let Some(x) = super::builtin_base::attr(v, name) {
        return Ok(x);
    }
    if let Some(f) = i.class.lookup("__getattr__") {
        return interp.call(&f, Args::new(vec![v.clone(), Obj::str(name)]));
    }
    bail!(
        AttributeError,
        "'{}' object has no attribute '{name}'",
        i.class.name
    )
}

/// An attribute of a class: its names and bases, or a class attribute
/// (functions come back unbound, classmethods bound to the class).
fn class_attr(
    interp: &mut Interp,
    v: &Obj,
    c: &Rc<super::value::Class>,
    name: &str,
) -> Result<Obj> {
    match name {
        // A library type's name may carry its module (`numpy.ndarray`).
        "__qualname__" if c.qualname != c.name => Ok(Obj::str(&c.qualname)),
        "__name__" | "__qualname__" => Ok(Obj::str(c.name.rsplit('.').next().unwrap_or(&c.name))),
        // A class's own: a library class names its module or carries it in
        // its name (`numpy.ndarray`); a program's class is `__main__`'s.
        "__module__" => {
            let own = c
                .attrs
                .borrow()
                .iter()
                .find(|(k, _)| k == "__module__")
                .map(|(_, m)| m.clone());
            Ok(own.unwrap_or_else(|| {
                Obj::str(
                    c.name
                        .rsplit_once('.')
                        .map_or("__main__", |(module, _)| module),
                )
            }))
        }
        "__mro__" => {
            let mut mro: Vec<Obj> = c.mro().into_iter().map(Obj::Class).collect();
            mro.push(Obj::Type("object"));
            Ok(Obj::tuple(mro))
        }
        "__bases__" => Ok(Obj::tuple(
            c.bases.iter().cloned().map(Obj::Class).collect(),
        )),
        _ => match c.lookup(name) {
            Some(x) => super::classes::bind(interp, v, x),
            None => Err(err!(
                AttributeError,
                "type object '{}' has no attribute '{name}'",
                c.name
            )),
        },
    }
}

/// `dict.get`, `str.join`, `dict.__setitem__`...: an attribute of a builtin
/// type, as a function of the receiver.
/// `object.__new__(cls)`: an instance of a program's class whose
/// `__init__` has not run.
fn object_new(interp: &mut Interp, a: Args) -> Result<Obj> {
    match a.req(Some(0), "cls", "object.__new__")? {
        Obj::Class(c) if c.native().is_none() && c.builtin_base().is_none() => {
            let inst = Rc::new(super::value::Instance::new(c.clone()));
            interp.cycles.instance(&inst);
            Ok(Obj::Instance(inst))
        }
        Obj::Class(c) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: object.__new__ of {}, a class extending a builtin or library type",
            c.name
        ),
        other => bail!(
            TypeError,
            "object.__new__(X): X is not a type object ({})",
            other.type_name()
        ),
    }
}

fn builtin_type_attr(t: &str, name: &str) -> Result<Obj> {
    if let Some(f) = super::builtins::unbound::unbound(t, name) {
        return Ok(f);
    }
    if (t, name) == ("object", "__new__") {
        return Ok(Obj::native("object.__new__", object_new));
    }
    if (t, name) == ("int", "from_bytes") {
        return Ok(Obj::native("from_bytes", super::bytes::int_from_bytes));
    }
    let known = matches!(name, "__iter__" | "__init__" | "__new__" | "__hash__");
    if known && matches!(t, "dict" | "list" | "str" | "tuple" | "set") {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: {t}.{name}"
        );
    }
    bail!(
        AttributeError,
        "type object '{t}' has no attribute '{name}'"
    )
}

/// `obj.name = value`.
pub fn setattr(obj: &Obj, name: &str, v: Obj) -> Result<()> {
    match obj {
        Obj::Instance(i) => {
            let mut attrs = i.attrs.borrow_mut();
            if let Some(slot) = attrs.iter_mut().find(|(k, _)| k == name) {
                slot.1 = v;
            } else {
                attrs.push((name.to_string(), v));
            }
            Ok(())
        }
        Obj::Class(c) => {
            let mut attrs = c.attrs.borrow_mut();
            if let Some(slot) = attrs.iter_mut().find(|(k, _)| k == name) {
                slot.1 = v;
            } else {
                attrs.push((name.to_string(), v));
            }
            Ok(())
        }
        other => bail!(
            AttributeError,
            "'{}' object attribute '{name}' is read-only",
            other.type_name()
        ),
    }
}

/// The items of a sequence selected by a slice object.
pub fn getitem_list(items: &[Obj], k: &Obj) -> Result<Vec<Obj>> {
    match k {
        Obj::Slice(s) => slice_seq(items, s),
        other => bail!(
            TypeError,
            "indices must be slices here, not {}",
            other.type_name()
        ),
    }
}
