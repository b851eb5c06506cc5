//! Python's builtin functions and the methods of str, list and dict.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::error::Result;
use crate::{bail, err};

use super::array::{scalar_obj, to_value};
use super::format::{repr_of, str_of};
use super::interp::Interp;
use super::iterators::Lazy;
use super::ops::{iterate, py_cmp, range_len, truthy};
use super::value::{Args, Dict, Obj};

mod dict;
mod dict_view;
mod list;
mod set;
mod str;
pub mod unbound;

pub use self::set::{set_binop, set_compare};
pub use self::str::str_format;

/// Converts a Python int-like object (int, bool, concrete integer array) to i64.
pub fn to_int(o: &Obj) -> Result<i64> {
    match o {
        Obj::Int(i) => Ok(*i),
        Obj::Bool(b) => Ok(*b as i64),
        Obj::Array(v) if v.shape().is_empty() && !v.dtype().is_inexact() => {
            Ok(v.concrete_for(crate::trace::Conversion::Index)?.get_f64(0) as i64)
        }
        // A NumPy integer scalar has `__index__`; a float one has not.
        Obj::Lib(_) => match o.lib_scalar() {
            Some(s @ (Obj::Int(_) | Obj::Bool(_))) => to_int(&s),
            _ => bail!(
                TypeError,
                "'{}' object cannot be interpreted as an integer",
                super::ops::qualified_type(o)
            ),
        },
        other => bail!(
            TypeError,
            "'{}' object cannot be interpreted as an integer",
            other.type_name()
        ),
    }
}

/// What JAX says when `int(x)` or `float(x)` needs a tracer's value.
fn python_scalar(ty: &str) -> crate::trace::Conversion {
    crate::trace::Conversion::Concrete(format!(
        "The problem arose with the `{ty}` function. If trying to convert the data type of a \
         value, try using `x.astype({ty})` or `jnp.array(x, {ty})` instead."
    ))
}

pub fn to_float(o: &Obj) -> Result<f64> {
    match o {
        Obj::Str(s) => s.trim().parse::<f64>().map_err(|_| {
            err!(
                ValueError,
                "could not convert string to float: {}",
                repr_of(o)
            )
        }),
        Obj::Array(v) => {
            let a = v.concrete_for(python_scalar("float"))?;
            if a.size() != 1 {
                bail!(
                    TypeError,
                    "only length-1 arrays can be converted to Python scalars"
                );
            }
            Ok(a.get_f64(0))
        }
        other => other.as_number().ok_or_else(|| {
            err!(
                TypeError,
                "float() argument must be a string or a real number, not '{}'",
                other.type_name()
            )
        }),
    }
}

fn min_max(interp: &mut Interp, a: Args, want_max: bool) -> Result<Obj> {
    let name = if want_max { "max" } else { "min" };
    let items = if a.pos.len() == 1 {
        interp.iterate(&a.pos[0])?
    } else {
        a.pos.clone()
    };
    let key = a.get(None, "key");
    if items.is_empty() {
        if let Some(d) = a.get(None, "default") {
            return Ok(d);
        }
        bail!(ValueError, "{name}() iterable argument is empty");
    }
    let mut best = items[0].clone();
    let mut best_key = match &key {
        Some(k) => interp.call(k, Args::new(vec![best.clone()]))?,
        None => best.clone(),
    };
    for it in &items[1..] {
        let k = match &key {
            Some(k) => interp.call(k, Args::new(vec![it.clone()]))?,
            None => it.clone(),
        };
        let o = py_cmp(&k, &best_key)?;
        if (want_max && o == std::cmp::Ordering::Greater)
            || (!want_max && o == std::cmp::Ordering::Less)
        {
            best = it.clone();
            best_key = k;
        }
    }
    Ok(best)
}

fn py_round(a: &Args) -> Result<Obj> {
    let x = a.req(Some(0), "number", "round")?;
    let nd = a.opt(Some(1), "ndigits");
    let v = match &x {
        Obj::Array(v) => {
            let c = v.concrete("round() of an array")?;
            c.get_f64(0)
        }
        o => o.as_number().ok_or_else(|| {
            err!(
                TypeError,
                "type {} doesn't define __round__ method",
                o.type_name()
            )
        })?,
    };
    match nd {
        None => Ok(Obj::Int(v.round_ties_even() as i64)),
        Some(n) => {
            // Past 400 digits a double rounds to itself, and past 308 to
            // the left to zero, so larger counts are the same as those.
            let n = to_int(&n)?.clamp(-308, 400) as i32;
            let p = 10f64.powi(n);
            // Round through the decimal string, as Python's correctly rounded result.
            let r = if n >= 0 {
                format!("{:.*}", n as usize, v)
                    .parse::<f64>()
                    .unwrap_or((v * p).round() / p)
            } else {
                // To tens, hundreds, ...: halves go to the even multiple.
                let unit = 10f64.powi(-n);
                (v / unit).round_ties_even() * unit
            };
            if matches!(x, Obj::Int(_)) {
                Ok(Obj::Int(r as i64))
            } else {
                Ok(Obj::Float(r))
            }
        }
    }
}

pub fn isinstance(o: &Obj, t: &Obj) -> bool {
    if let (Obj::Type(name), Obj::Lib(l)) = (t, o) {
        if l.builtin_base() == Some(*name) {
            return true;
        }
    }
    // A library class's instances may be builtin values too (a NamedTuple
    // is a tuple).
    if let (Obj::Type(name), Obj::Instance(i)) = (t, o) {
        if i.class.native().and_then(|n| n.builtin_base()) == Some(*name) {
            return true;
        }
    }
    match t {
        Obj::Tuple(ts) => ts.iter().any(|t| isinstance(o, t)),
        Obj::Type(name) => match *name {
            "int" => matches!(o, Obj::Int(_) | Obj::Bool(_)),
            "float" => matches!(o, Obj::Float(_)),
            "complex" => matches!(o, Obj::Complex(..)),
            "bool" => matches!(o, Obj::Bool(_)),
            "str" => matches!(o, Obj::Str(_)),
            "list" => matches!(o.plain(), Obj::List(_)),
            "tuple" => matches!(o, Obj::Tuple(_)),
            "dict" => matches!(o.plain(), Obj::Dict(_)),
            "set" => matches!(o, Obj::Set(s) if !s.borrow().frozen),
            "frozenset" => matches!(o, Obj::Set(s) if s.borrow().frozen),
            "object" => true,
            "Array" => matches!(o, Obj::Array(_)),
            "ellipsis" => matches!(o, Obj::Ellipsis),
            "NoneType" => matches!(o, Obj::None),
            "UnionType" => o.downcast::<super::union::UnionType>().is_some(),
            _ => false,
        },
        Obj::Class(c) => {
            if let Some(r) = c.native.as_ref().and_then(|n| n.instancecheck(o)) {
                return r;
            }
            match o {
                Obj::Instance(i) => super::exceptions::derives(&i.class, c),
                _ => false,
            }
        }
        // A library's type object (`jax.sharding.PartitionSpec`).
        Obj::Lib(l) => l.instancecheck(o).unwrap_or(false),
        _ => false,
    }
}

/// `isinstance(o, t)` for a value the library gives a class of its own
/// (an nnx list, a list to the core but of a class that does not derive
/// from `list`): of the builtin types only `object` holds it.
fn isinstance_of_library_class(o: &Obj, t: &Obj) -> bool {
    match t {
        Obj::Tuple(ts) => ts.iter().any(|t| isinstance_of_library_class(o, t)),
        Obj::Type(name) => *name == "object",
        _ => isinstance(o, t),
    }
}

/// `issubclass(c, t)` for classes and builtin types.
fn issubclass(c: &Obj, t: &Obj) -> bool {
    match (c, t) {
        (_, Obj::Tuple(ts)) => ts.iter().any(|t| issubclass(c, t)),
        (_, Obj::Type("object")) => true,
        (Obj::Class(a), Obj::Class(b)) => super::exceptions::derives(a, b),
        (Obj::Type(a), Obj::Type(b)) => a == b || (*a == "bool" && *b == "int"),
        (Obj::Lib(_), Obj::Lib(b)) if c.class_name().is_some() => {
            c.class_name() == t.class_name() || b.subclasscheck(c).unwrap_or(false)
        }
        _ => false,
    }
}

/// Calls a type object: `int(x)`, `list(x)`, `dict(...)`, ...
pub fn call_type(interp: &mut Interp, t: &str, a: Args) -> Result<Obj> {
    let first = a.pos.first().cloned();
    Ok(match t {
        "int" => construct_int(&a.pos)?,
        "complex" => super::complex::construct(&a.pos)?,
        "float" => Obj::Float(match first {
            None => 0.0,
            Some(o) => to_float(&o)?,
        }),
        "bool" => Obj::Bool(match first {
            None => false,
            Some(o) => interp.truth(&o, "bool()")?,
        }),
        "str" => Obj::str(match first {
            Some(o) => interp.str(&o)?,
            None => String::new(),
        }),
        "list" => Obj::list(match first {
            None => vec![],
            Some(o) => interp.iterate(&o)?,
        }),
        "tuple" => Obj::tuple(match first {
            None => vec![],
            Some(o) => interp.iterate(&o)?,
        }),
        "dict" => construct_dict(interp, first, a.kw)?,
        "set" | "frozenset" => {
            let mut st = super::set::Set::empty(t == "frozenset");
            match first {
                Some(Obj::Set(other)) => st.merge(&other.borrow())?,
                Some(o) => {
                    for x in interp.iterate(&o)? {
                        st.add(x)?;
                    }
                }
                None => {}
            }
            Obj::set(st)
        }
        "object" => Obj::lib(PlainObject),
        "type" => match first {
            Some(o) => interp.library.type_of(&o).unwrap_or_else(|| type_of(&o)),
            None => bail!(TypeError, "type() takes 1 or 3 arguments"),
        },
        "range" => construct_range(&a.pos)?,
        "slice" => {
            let mut p = [Obj::None, Obj::None, Obj::None];
            match a.pos.len() {
                1 => p[1] = a.pos[0].clone(),
                2 | 3 => {
                    for (i, v) in a.pos.iter().enumerate() {
                        p[i] = v.clone();
                    }
                }
                _ => bail!(TypeError, "slice expected at least 1 argument, got 0"),
            }
            Obj::Slice(Rc::new(p))
        }
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: {other}()"
        ),
    })
}

/// `int()`, `int(x)` and `int(text, base)`.
fn construct_int(pos: &[Obj]) -> Result<Obj> {
    let Some(first) = pos.first() else {
        return Ok(Obj::Int(0));
    };
    if let Some(base) = pos.get(1) {
        let Obj::Str(s) = first else {
            bail!(
                TypeError,
                "int() can't convert non-string with explicit base"
            );
        };
        return parse_int_base(s, to_int(base)?);
    }
    Ok(match first {
        Obj::Str(s) => parse_int_base(s, 10)?,
        Obj::Float(f) => {
            if f.is_nan() {
                bail!(ValueError, "cannot convert float NaN to integer");
            }
            if f.is_infinite() {
                bail!(OverflowError, "cannot convert float infinity to integer");
            }
            Obj::Int(f.trunc() as i64)
        }
        Obj::Complex(..) => bail!(
            TypeError,
            "int() argument must be a string, a bytes-like object or a real number, not 'complex'"
        ),
        Obj::Array(v) => {
            let c = v.concrete_for(python_scalar("int"))?;
            if c.size() != 1 {
                bail!(
                    TypeError,
                    "only length-1 arrays can be converted to Python scalars"
                );
            }
            Obj::Int(c.get_f64(0).trunc() as i64)
        }
        Obj::Lib(_) if o_is_float(first) => {
            construct_int(&[first.lib_scalar().unwrap_or(Obj::Int(0))])?
        }
        o => Obj::Int(to_int(o)?),
    })
}

/// Whether `o` is a NumPy float scalar (which `int()` truncates).
fn o_is_float(o: &Obj) -> bool {
    matches!(o.lib_scalar(), Some(Obj::Float(_)))
}

/// Python's `int(text, base)`: surrounding blanks, a sign, underscores
/// between digits, and the `0x`/`0o`/`0b` prefix that base 0 requires and
/// bases 16, 8 and 2 allow.
fn parse_int_base(text: &str, base: i64) -> Result<Obj> {
    let invalid = || {
        err!(
            ValueError,
            "invalid literal for int() with base {base}: {}",
            repr_of(&Obj::str(text))
        )
    };
    if base != 0 && !(2..=36).contains(&base) {
        bail!(ValueError, "int() base must be >= 2 and <= 36, or 0");
    }
    let t = text.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let lower = body.to_ascii_lowercase();
    let prefixed = [("0x", 16u32), ("0o", 8), ("0b", 2)]
        .into_iter()
        .find(|(p, b)| lower.starts_with(p) && (base == 0 || base == i64::from(*b)));
    let (radix, digits) = match prefixed {
        Some((p, b)) => (b, body[p.len()..].trim_start_matches('_')),
        None if base == 0 => {
            if body.len() > 1 && body.starts_with('0') && body.chars().any(|c| c != '0' && c != '_')
            {
                return Err(invalid());
            }
            (10, body)
        }
        None => (base as u32, body),
    };
    let misplaced =
        digits.starts_with(['_', '+', '-']) || digits.ends_with('_') || digits.contains("__");
    if digits.is_empty() || misplaced {
        return Err(invalid());
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    let n = i64::from_str_radix(&clean, radix).map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => err!(
            NotImplementedError,
            "not supported by shardlab yet: integers beyond 64 bits (int({}))",
            repr_of(&Obj::str(text))
        ),
        _ => invalid(),
    })?;
    Ok(Obj::Int(if neg { -n } else { n }))
}

/// `dict()`, `dict(mapping)`, `dict(pairs)`, each with keyword entries.
fn construct_dict(interp: &mut Interp, first: Option<Obj>, kw: Vec<(String, Obj)>) -> Result<Obj> {
    let mut d = Dict::default();
    if let Some(o) = first {
        match o.plain().clone() {
            Obj::Dict(src) => d = src.borrow().clone(),
            // A mapping that is not a dict (a library's OrderedDict): its
            // keys, each looked up.
            other
                if matches!(other, Obj::Lib(_))
                    && super::ops::getattr(interp, &other, "keys").is_ok() =>
            {
                for k in interp.iterate(&other)? {
                    let v = super::ops::getitem(interp, &other, &k)?;
                    d.set(k, v);
                }
            }
            other => {
                for pair in interp.iterate(&other)? {
                    let kv = interp.iterate(&pair)?;
                    if kv.len() != 2 {
                        bail!(
                            ValueError,
                            "dictionary update sequence element has length {}; 2 is required",
                            kv.len()
                        );
                    }
                    d.set(kv[0].clone(), kv[1].clone());
                }
            }
        }
    }
    for (k, v) in kw {
        d.set(Obj::str(k), v);
    }
    Ok(Obj::Dict(Rc::new(RefCell::new(d))))
}

/// `range(stop)`, `range(start, stop[, step])`.
fn construct_range(pos: &[Obj]) -> Result<Obj> {
    let ints: Vec<i64> = pos.iter().map(to_int).collect::<Result<_>>()?;
    Ok(match ints.len() {
        1 => Obj::Range(0, ints[0], 1),
        2 => Obj::Range(ints[0], ints[1], 1),
        3 => {
            if ints[2] == 0 {
                bail!(ValueError, "range() arg 3 must not be zero");
            }
            Obj::Range(ints[0], ints[1], ints[2])
        }
        n => bail!(TypeError, "range expected at most 3 arguments, got {n}"),
    })
}

fn type_of(o: &Obj) -> Obj {
    match o {
        Obj::Int(_) => Obj::Type("int"),
        Obj::Float(_) => Obj::Type("float"),
        Obj::Complex(..) => Obj::Type("complex"),
        Obj::Bool(_) => Obj::Type("bool"),
        Obj::Str(_) => Obj::Type("str"),
        Obj::List(_) => Obj::Type("list"),
        Obj::Tuple(_) => Obj::Type("tuple"),
        Obj::Dict(_) => Obj::Type("dict"),
        Obj::Set(s) if s.borrow().frozen => Obj::Type("frozenset"),
        Obj::Set(_) => Obj::Type("set"),
        Obj::Instance(i) => Obj::Class(i.class.clone()),
        Obj::Array(_) => Obj::Type("ArrayImpl"),
        Obj::None => Obj::Type("NoneType"),
        Obj::DType(d) => dtype_class(*d),
        Obj::Lib(l) if l.downcast::<PlainObject>().is_some() => Obj::Type("object"),
        Obj::Lib(l) if l.type_object().is_some() => l.type_object().unwrap_or(Obj::None),
        // A library object's type, named as the object names it, in the
        // module JAX defines it in when the object says.
        Obj::Lib(l) => {
            let module = l.type_module().map(|m| ("__module__".into(), Obj::str(m)));
            Obj::Class(std::rc::Rc::new(super::value::Class::new(
                l.type_name(),
                vec![],
                module.into_iter().collect(),
            )))
        }
        Obj::Func(_) => Obj::Type("function"),
        Obj::Native(_) => Obj::Type("builtin_function_or_method"),
        Obj::Method(_) => Obj::Type("method"),
        Obj::Class(_) | Obj::Type(_) => Obj::Type("type"),
        Obj::Module(_) => Obj::Type("module"),
        Obj::Range(..) => Obj::Type("range"),
        Obj::Slice(_) => Obj::Type("slice"),
        Obj::Ellipsis => Obj::Type("ellipsis"),
    }
}

/// NumPy's class of a dtype: `numpy.dtypes.Float32DType` for its own
/// types, `numpy.dtype[bfloat16]` for one ml_dtypes adds.
fn dtype_class(d: crate::array::DType) -> Obj {
    let (name, module) = match d {
        crate::array::DType::BF16 => ("dtype[bfloat16]".to_string(), "numpy"),
        d => {
            let n = d.name();
            let (unsigned, rest) = match n.strip_prefix('u') {
                Some(r) => (true, r),
                None => (false, n),
            };
            let mut camel: String = rest[..1].to_uppercase() + &rest[1..];
            if unsigned {
                camel = format!("U{camel}");
            }
            (format!("{camel}DType"), "numpy.dtypes")
        }
    };
    Obj::lib(NamedType { name, module })
}

/// A class known only by its module and name, as `type(x)` returns it for
/// values whose class has nothing else the core could give: two are the
/// same class when their names are.
struct NamedType {
    name: String,
    module: &'static str,
}

impl super::object::Object for NamedType {
    fn type_name(&self) -> String {
        "type".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("<class '{}.{}'>", self.module, self.name))
    }

    fn class_name(&self) -> Option<String> {
        Some(format!("{}.{}", self.module, self.name))
    }

    fn eq(&self, this: &Obj, other: &Obj) -> Option<bool> {
        Some(this.class_name() == other.class_name())
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "__name__" | "__qualname__" => Some(Obj::str(&self.name)),
            "__module__" => Some(Obj::str(self.module)),
            _ => None,
        })
    }
}

/// `hex(n)`, `oct(n)`, `bin(n)` of an integer.
fn radix(a: &Args, name: &str) -> Result<Obj> {
    let n = match a.req(Some(0), "number", name)? {
        o @ (Obj::Int(_) | Obj::Bool(_) | Obj::Array(_)) => to_int(&o)?,
        o => bail!(
            TypeError,
            "'{}' object cannot be interpreted as an integer",
            o.type_name()
        ),
    };
    let m = n.unsigned_abs();
    let digits = match name {
        "hex" => format!("0x{m:x}"),
        "oct" => format!("0o{m:o}"),
        _ => format!("0b{m:b}"),
    };
    Ok(Obj::str(if n < 0 { format!("-{digits}") } else { digits }))
}

/// What `object()` makes: an object with nothing but its identity.
struct PlainObject;

impl super::object::Object for PlainObject {
    fn type_name(&self) -> String {
        "object".into()
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        Some(format!("<object object at {:#x}>", object_id(this)))
    }
}

fn print(interp: &mut Interp, a: Args) -> Result<Obj> {
    let sep = match a.get(None, "sep") {
        Some(Obj::None) | None => " ".to_string(),
        Some(s) => str_of(&s),
    };
    let end = match a.get(None, "end") {
        Some(Obj::None) | None => "\n".to_string(),
        Some(s) => str_of(&s),
    };
    let mut parts = Vec::with_capacity(a.pos.len());
    for x in &a.pos {
        parts.push(interp.str(x)?);
    }
    let text = format!("{}{end}", parts.join(&sep));
    if let Some(file) = a.opt(None, "file") {
        // `file=sys.stderr` and other writable objects get the text through
        // their `write`.
        let write = super::ops::getattr(interp, &file, "write")?;
        interp.call(&write, Args::new(vec![Obj::str(text)]))?;
        return Ok(Obj::None);
    }
    if interp.out.len() + text.len() > 64 << 20 {
        bail!(RuntimeError, "program exceeded the output limit of 64 MiB");
    }
    interp.out.push_str(&text);
    Ok(Obj::None)
}

fn builtin_sum(interp: &mut Interp, a: Args) -> Result<Obj> {
    let items = interp.iterate(&a.req(Some(0), "iterable", "sum")?)?;
    let mut acc = a.get(Some(1), "start").unwrap_or(Obj::Int(0));
    for it in items {
        acc = interp.binop(&rustpython_parser::ast::Operator::Add, &acc, &it, false)?;
    }
    Ok(acc)
}

fn builtin_abs(a: Args) -> Result<Obj> {
    Ok(match a.req(Some(0), "x", "abs")? {
        Obj::Int(i) => Obj::Int(i.abs()),
        Obj::Bool(b) => Obj::Int(b as i64),
        Obj::Float(f) => Obj::Float(f.abs()),
        Obj::Complex(re, im) => Obj::Float(re.hypot(im)),
        Obj::Array(v) => Obj::Array(crate::ops::abs(&v)?),
        // A NumPy scalar keeps its type: its own negation where negative.
        o if o.as_number().is_some_and(|x| x < 0.0) && o.lib_scalar().is_some() => {
            super::ops::unaryop(&rustpython_parser::ast::UnaryOp::USub, &o)?
        }
        o if o.lib_scalar().is_some() => o,
        o => bail!(TypeError, "bad operand type for abs(): '{}'", o.type_name()),
    })
}

/// `len(o)` of objects without `__len__`.
pub fn len_of(o: &Obj) -> Result<i64> {
    Ok(match o {
        Obj::Str(s) => s.chars().count() as i64,
        Obj::List(l) => l.borrow().len() as i64,
        Obj::Tuple(t) => t.len() as i64,
        Obj::Dict(d) => d.borrow().items.len() as i64,
        Obj::Set(st) => st.borrow().len() as i64,
        Obj::Range(a, b, s) => range_len(*a, *b, *s),
        Obj::Array(v) => match v.shape().first() {
            Some(&n) => n as i64,
            None => bail!(TypeError, "len() of unsized object"),
        },
        Obj::Lib(_) | Obj::Instance(_) if o.behaviour().is_some_and(|b| b.items(o).is_some()) => {
            iterate(o)?.len() as i64
        }
        other => bail!(
            TypeError,
            "object of type '{}' has no len()",
            other.type_name()
        ),
    })
}

/// `id(o)`: the address of a shared object, the value's bits otherwise (ids
/// are only compared with each other).
fn object_id(o: &Obj) -> i64 {
    let p = match o {
        Obj::Str(x) => Rc::as_ptr(x) as *const u8 as usize,
        Obj::List(x) => Rc::as_ptr(x) as usize,
        Obj::Tuple(x) => Rc::as_ptr(x) as usize,
        Obj::Dict(x) => Rc::as_ptr(x) as usize,
        Obj::Set(x) => Rc::as_ptr(x) as usize,
        Obj::Func(x) => Rc::as_ptr(x) as usize,
        Obj::Native(x) => Rc::as_ptr(x) as usize,
        Obj::Class(x) => Rc::as_ptr(x) as usize,
        Obj::Instance(x) => Rc::as_ptr(x) as usize,
        Obj::Module(x) => Rc::as_ptr(x) as usize,
        Obj::Lib(x) => Rc::as_ptr(x) as *const u8 as usize,
        other => return super::set::py_hash(other),
    };
    p as i64
}

/// `callable(o)`.
pub fn is_callable(o: &Obj) -> bool {
    matches!(
        o,
        Obj::Func(_) | Obj::Native(_) | Obj::Method(_) | Obj::Class(_) | Obj::Type(_)
    ) || callable_object(o)
}

/// True for instances with `__call__` and library objects that answer calls.
fn callable_object(o: &Obj) -> bool {
    match o {
        Obj::Instance(i) => i.class.lookup("__call__").is_some(),
        Obj::Lib(l) => l.callable(),
        _ => false,
    }
}

/// Installs the builtins into the interpreter.
pub fn install(interp: &mut Interp) {
    let b = &mut interp.builtins;
    for t in [
        "int",
        "float",
        "complex",
        "bool",
        "str",
        "list",
        "tuple",
        "dict",
        "object",
        "type",
        "range",
        "slice",
        "set",
        "frozenset",
    ] {
        b.insert(t.into(), Obj::Type(t));
    }
    b.insert("NotImplemented".into(), Obj::Type("NotImplemented"));
    for (name, class) in interp.exceptions.classes() {
        b.insert(name.into(), class);
    }
    super::classes::install(interp);
    super::iterators::install(interp);
    let b = &mut interp.builtins;
    install_text(b);
    install_iteration(b);
    install_attributes(b);
    install_numbers(b);
}

/// `print`, `len`, `sum`, `abs`, `min`, `max`, `round`, `repr`, `format`.
fn install_text(b: &mut HashMap<String, Obj>) {
    let mut add = |name: &str, f: fn(&mut Interp, Args) -> Result<Obj>| {
        b.insert(name.into(), Obj::native(name, f));
    };
    add("print", print);
    add("len", |i, a| {
        Ok(Obj::Int(i.len(&a.req(Some(0), "obj", "len")?)?))
    });
    add("sum", builtin_sum);
    add("abs", |_, a| builtin_abs(a));
    add("min", |i, a| min_max(i, a, false));
    add("max", |i, a| min_max(i, a, true));
    add("round", |i, a| {
        let r = py_round(&a)?;
        // A NumPy scalar rounded to digits keeps its type.
        match (a.pos.first().and_then(|x| x.behaviour()), a.pos.len() > 1) {
            (Some(b), true) if b.scalar().is_some() => match b.type_object() {
                Some(t) => i.call(&t, Args::new(vec![r])),
                None => Ok(r),
            },
            _ => Ok(r),
        }
    });
    add("ascii", |i, a| {
        let r = i.repr(&a.req(Some(0), "obj", "ascii")?)?;
        Ok(Obj::str(super::str_repr::to_ascii(&r)))
    });
    add("repr", |i, a| {
        Ok(Obj::str(i.repr(&a.req(Some(0), "obj", "repr")?)?))
    });
    add("format", |i, a| {
        let spec = a
            .get(Some(1), "format_spec")
            .map(|s| str_of(&s))
            .unwrap_or_default();
        Ok(Obj::str(
            i.format(&a.req(Some(0), "value", "format")?, &spec)?,
        ))
    });
}

/// `isinstance`, `callable`, `hasattr`, `getattr`, `setattr`.
fn install_attributes(b: &mut HashMap<String, Obj>) {
    let mut add = |name: &str, f: fn(&mut Interp, Args) -> Result<Obj>| {
        b.insert(name.into(), Obj::native(name, f));
    };
    add("hasattr", |i, a| {
        let o = a.req(Some(0), "obj", "hasattr")?;
        let n = str_of(&a.req(Some(1), "name", "hasattr")?);
        Ok(Obj::Bool(super::ops::getattr(i, &o, &n).is_ok()))
    });
    add("vars", |i, a| {
        let Some(o) = a.opt(Some(0), "object") else {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: vars() without an argument"
            );
        };
        super::ops::getattr(i, &o, "__dict__")
            .map_err(|_| crate::err!(TypeError, "vars() argument must have __dict__ attribute"))
    });
    add("getattr", |i, a| {
        let o = a.req(Some(0), "obj", "getattr")?;
        let n = str_of(&a.req(Some(1), "name", "getattr")?);
        match super::ops::getattr(i, &o, &n) {
            Ok(v) => Ok(v),
            Err(e) => a.get(Some(2), "default").ok_or(e),
        }
    });
    add("setattr", |i, a| {
        let o = a.req(Some(0), "obj", "setattr")?;
        let n = str_of(&a.req(Some(1), "name", "setattr")?);
        i.setattr(&o, &n, a.req(Some(2), "value", "setattr")?)?;
        Ok(Obj::None)
    });
    add("isinstance", |i, a| {
        let t = a.req(Some(1), "class_or_tuple", "isinstance")?;
        super::generic_alias::refuse_isinstance(&t)?;
        let o = a.req(Some(0), "obj", "isinstance")?;
        Ok(Obj::Bool(match i.library.type_of(&o) {
            Some(_) => isinstance_of_library_class(&o, &t),
            None => isinstance(&o, &t),
        }))
    });
    add("issubclass", |_, a| {
        let c = a.req(Some(0), "cls", "issubclass")?;
        let t = a.req(Some(1), "class_or_tuple", "issubclass")?;
        if !matches!(c, Obj::Class(_) | Obj::Type(_)) && c.class_name().is_none() {
            bail!(TypeError, "issubclass() arg 1 must be a class");
        }
        Ok(Obj::Bool(issubclass(&c, &t)))
    });
    add("callable", |_, a| {
        Ok(Obj::Bool(is_callable(&a.req(
            Some(0),
            "obj",
            "callable",
        )?)))
    });
}

/// `enumerate`, `zip`, `sorted`, `reversed`, `any`, `all`, `map`, `filter`.
fn install_iteration(b: &mut HashMap<String, Obj>) {
    let mut add = |name: &str, f: fn(&mut Interp, Args) -> Result<Obj>| {
        b.insert(name.into(), Obj::native(name, f));
    };
    add("enumerate", enumerate);
    add("zip", zip);
    add("sorted", |i, a| {
        let mut items = i.iterate(&a.req(Some(0), "iterable", "sorted")?)?;
        sort_items(i, &mut items, a.get(None, "key"), a.get(None, "reverse"))?;
        Ok(Obj::list(items))
    });
    add("reversed", |i, a| {
        let mut items = i.iterate(&a.req(Some(0), "sequence", "reversed")?)?;
        items.reverse();
        Ok(Obj::list(items))
    });
    add("any", |i, a| {
        let src = a.req(Some(0), "iterable", "any")?;
        let found = i.walk_until(&src, &mut |i, x| i.truth(&x, "any()"))?;
        Ok(Obj::Bool(found))
    });
    add("all", |i, a| {
        let src = a.req(Some(0), "iterable", "all")?;
        let failed = i.walk_until(&src, &mut |i, x| Ok(!i.truth(&x, "all()")?))?;
        Ok(Obj::Bool(!failed))
    });
    add("map", map);
    add("filter", filter);
}

/// `enumerate(iterable, start=0)`: lazy over iterators, a list otherwise.
fn enumerate(i: &mut Interp, a: Args) -> Result<Obj> {
    let start = a
        .get(Some(1), "start")
        .map(|s| to_int(&s))
        .transpose()?
        .unwrap_or(0);
    let src = a.req(Some(0), "iterable", "enumerate")?;
    let kind = Lazy::Enumerate(std::cell::Cell::new(start));
    if let Some(it) = i.lazy(kind, std::slice::from_ref(&src))? {
        return Ok(it);
    }
    let items = i.iterate(&src)?;
    Ok(Obj::list(
        items
            .into_iter()
            .enumerate()
            .map(|(i, x)| Obj::tuple(vec![Obj::Int(start + i as i64), x]))
            .collect(),
    ))
}

/// `map(func, *iterables)`: lazy over iterators, a list otherwise; it stops
/// with the shortest iterable.
fn map(i: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "func", "map")?;
    if a.pos.len() < 2 {
        bail!(TypeError, "map() must have at least two arguments.");
    }
    if let Some(it) = i.lazy(Lazy::Map(f.clone()), &a.pos[1..])? {
        return Ok(it);
    }
    let lists: Vec<Vec<Obj>> = a.pos[1..]
        .iter()
        .map(|x| i.iterate(x))
        .collect::<Result<_>>()?;
    let n = lists.iter().map(|l| l.len()).min().unwrap_or(0);
    let mut out = vec![];
    for k in 0..n {
        out.push(i.call(&f, Args::new(lists.iter().map(|l| l[k].clone()).collect()))?);
    }
    Ok(Obj::list(out))
}

/// `filter(function, iterable)`; a None function keeps the true items.
fn filter(i: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "function", "filter")?;
    let src = a.req(Some(1), "iterable", "filter")?;
    if let Some(it) = i.lazy(Lazy::Filter(f.clone()), std::slice::from_ref(&src))? {
        return Ok(it);
    }
    let mut out = vec![];
    for x in i.iterate(&src)? {
        let keep = match &f {
            Obj::None => truthy(&x, "filter()")?,
            f => {
                let r = i.call(f, Args::new(vec![x.clone()]))?;
                truthy(&r, "filter()")?
            }
        };
        if keep {
            out.push(x);
        }
    }
    Ok(Obj::list(out))
}

/// `zip(*iterables, strict=False)`: lazy over iterators, a list otherwise;
/// `strict=True` raises CPython's ValueError when the lengths differ.
fn zip(i: &mut Interp, a: Args) -> Result<Obj> {
    let strict = match a.get(None, "strict") {
        Some(s) => truthy(&s, "zip()")?,
        None => false,
    };
    if let Some(it) = i.lazy(Lazy::Zip, &a.pos)? {
        if strict {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: zip(..., strict=True) over an iterator"
            );
        }
        return Ok(it);
    }
    let mut lists: Vec<Vec<Obj>> = vec![];
    for x in &a.pos {
        lists.push(i.iterate(x)?);
    }
    let n = lists.iter().map(|l| l.len()).min().unwrap_or(0);
    if strict {
        if let Some(k) = lists.iter().position(|l| l.len() != lists[0].len()) {
            let side = if lists[k].len() < lists[0].len() {
                "shorter"
            } else {
                "longer"
            };
            if k == 1 {
                bail!(ValueError, "zip() argument 2 is {side} than argument 1");
            }
            bail!(
                ValueError,
                "zip() argument {} is {side} than arguments 1-{k}",
                k + 1
            );
        }
    }
    Ok(Obj::list(
        (0..n)
            .map(|i| Obj::tuple(lists.iter().map(|l| l[i].clone()).collect()))
            .collect(),
    ))
}

/// `divmod`, `pow`, `id`, `hash`, `chr`, `ord`.
fn install_numbers(b: &mut HashMap<String, Obj>) {
    let mut add = |name: &str, f: fn(&mut Interp, Args) -> Result<Obj>| {
        b.insert(name.into(), Obj::native(name, f));
    };
    add("divmod", |i, a| {
        let x = a.req(Some(0), "a", "divmod")?;
        let y = a.req(Some(1), "b", "divmod")?;
        let q = super::ops::binop(
            i,
            &rustpython_parser::ast::Operator::FloorDiv,
            &x,
            &y,
            false,
        )?;
        let r = super::ops::binop(i, &rustpython_parser::ast::Operator::Mod, &x, &y, false)?;
        Ok(Obj::tuple(vec![q, r]))
    });
    add("pow", |i, a| {
        let x = a.req(Some(0), "base", "pow")?;
        let y = a.req(Some(1), "exp", "pow")?;
        super::ops::binop(i, &rustpython_parser::ast::Operator::Pow, &x, &y, false)
    });
    add("id", |_, a| {
        Ok(Obj::Int(object_id(&a.req(Some(0), "obj", "id")?)))
    });
    add("hash", |_, a| {
        let o = a.req(Some(0), "obj", "hash")?;
        super::dict::check_hashable(&o)?;
        Ok(Obj::Int(super::set::py_hash(&o)))
    });
    add("hex", |_, a| radix(&a, "hex"));
    add("oct", |_, a| radix(&a, "oct"));
    add("bin", |_, a| radix(&a, "bin"));
    add("chr", |_, a| {
        let c = to_int(&a.req(Some(0), "i", "chr")?)?;
        match u32::try_from(c).ok().and_then(char::from_u32) {
            Some(ch) => Ok(Obj::str(ch.to_string())),
            None => bail!(ValueError, "chr() arg not in range(0x110000)"),
        }
    });
    add("ord", |_, a| {
        let s = str_of(&a.req(Some(0), "c", "ord")?);
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(Obj::Int(c as i64)),
            _ => bail!(
                TypeError,
                "ord() expected a character, but string of length {} found",
                s.chars().count()
            ),
        }
    });
}

pub(super) fn sort_items(
    interp: &mut Interp,
    items: &mut [Obj],
    key: Option<Obj>,
    reverse: Option<Obj>,
) -> Result<()> {
    let keys: Vec<Obj> = match &key {
        Some(Obj::None) | None => items.to_vec(),
        Some(k) => items
            .iter()
            .map(|x| interp.call(k, Args::new(vec![x.clone()])))
            .collect::<Result<_>>()?,
    };
    let mut idx: Vec<usize> = (0..items.len()).collect();
    let mut failure = None;
    idx.sort_by(|&a, &b| match py_cmp(&keys[a], &keys[b]) {
        Ok(o) => o,
        Err(e) => {
            failure = Some(e);
            std::cmp::Ordering::Equal
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let rev = match reverse {
        Some(r) => truthy(&r, "sorted()")?,
        None => false,
    };
    if rev {
        idx.reverse();
    }
    let sorted: Vec<Obj> = idx.iter().map(|&i| items[i].clone()).collect();
    items.clone_from_slice(&sorted);
    Ok(())
}

pub(super) fn bound(
    recv: &Obj,
    name: &str,
    f: impl Fn(&mut Interp, &Obj, Args) -> Result<Obj> + 'static,
) -> Obj {
    let r = recv.clone();
    Obj::native(name, move |i, a| f(i, &r, a))
}

/// A method of a str, list, tuple or dict, bound to `recv`.
pub fn method(recv: &Obj, name: &str) -> Option<Obj> {
    match recv {
        Obj::Str(_) => str::method(recv, name),
        Obj::List(_) | Obj::Tuple(_) => list::method(recv, name),
        Obj::Dict(_) => dict::method(recv, name),
        Obj::Set(_) => set::method(recv, name),
        _ => None,
    }
}

/// Python scalar from element 0 of a concrete array (for `float(x)` and friends).
pub fn first_scalar(v: &Obj) -> Result<Obj> {
    let val = to_value(v)?;
    let a = val.concrete("a Python scalar conversion")?;
    Ok(scalar_obj(a, 0))
}
