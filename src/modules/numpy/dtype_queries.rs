//! Questions about dtypes and shapes in `jax.numpy`: `issubdtype`,
//! `result_type`, `broadcast_shapes`, and NumPy's abstract scalar classes
//! (`jnp.floating`, `jnp.integer`, ...) that `issubdtype` tests against.
//!
//! In shardlab `jnp.float64` is float32 (and `int64` int32, and so on), as
//! arrays are in JAX without x64. `result_type` canonicalizes to those types
//! in JAX too, so it answers for every dtype; `issubdtype` against a
//! concrete numeric dtype would need to tell `float64` from `float32`, so it
//! answers only for the abstract classes and `bool_`, and refuses the rest.

use std::rc::Rc;

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};

use super::super::std::refuse;
use super::super::Builder;
use super::dtypes::dtype_of;

/// NumPy's abstract scalar classes, each with its parent (`generic` has
/// none).
const ABSTRACT: [(&str, Option<&str>); 10] = [
    ("generic", None),
    // JAX's own classes (`jax.dtypes`): a key's dtype derives from them.
    ("extended", Some("generic")),
    ("prng_key", Some("extended")),
    ("number", Some("generic")),
    ("integer", Some("number")),
    ("signedinteger", Some("integer")),
    ("unsignedinteger", Some("integer")),
    ("inexact", Some("number")),
    ("floating", Some("inexact")),
    ("complexfloating", Some("inexact")),
];

/// An abstract scalar class (`numpy.floating`), which `jax.numpy` shares.
pub struct AbstractType(&'static str);

impl Object for AbstractType {
    fn type_name(&self) -> String {
        "type".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let module = if JAX_CLASSES.contains(&self.0) {
            "jax.dtypes"
        } else {
            "numpy"
        };
        Some(format!("<class '{module}.{}'>", self.0))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(
            other
                .downcast::<AbstractType>()
                .is_some_and(|o| o.0 == self.0),
        )
    }

    fn class_name(&self) -> Option<String> {
        self.repr(&Obj::None)
    }

    /// `issubclass(t, np.floating)`: NumPy's scalar types and abstract
    /// classes derive from the classes of their dtype; `jax.numpy`'s
    /// scalar types derive from none of them.
    fn subclasscheck(&self, cls: &Obj) -> Option<bool> {
        let class = if let Some(a) = cls.downcast::<AbstractType>() {
            a.0
        } else if let Some(h) = cls.downcast::<super::scalar_types::HostType>() {
            class_of_kind(h.kind)
        } else {
            match cls.downcast::<super::jnp_scalar_types::ScalarType>() {
                Some(t) if t.module != "jax.numpy" => class_of(t.dtype),
                _ => return Some(false),
            }
        };
        Some(derives(class, self.0))
    }

    /// `isinstance(x, np.integer)`: NumPy's scalars are instances of the
    /// classes their dtype derives from; nothing else is (a JAX array or
    /// a Python int is not a NumPy scalar).
    fn instancecheck(&self, obj: &Obj) -> Option<bool> {
        Some(
            obj.downcast::<super::scalar::NpScalar>()
                .is_some_and(|s| derives(class_of_kind(s.kind), self.0)),
        )
    }
}

/// Adds the abstract classes and the queries to `jax.numpy`.
pub(super) fn register(b: &mut Builder) {
    register_abstract(b);
    b.func("promote_types", |_, a| promote_types(&a));
    b.func("issubdtype", issubdtype)
        .func("result_type", result_type)
        .func("broadcast_shapes", broadcast_shapes);
}

/// `jnp.promote_types(a, b)`. Python's int, float and complex are weak
/// types here, as in JAX (`promote_types('uint8', int)` is uint8). What
/// would be 64-bit (a 64-bit input, or two Python types, which JAX does
/// not narrow here) is refused.
fn promote_types(a: &Args) -> Result<Obj> {
    let x = a.req(Some(0), "a", "promote_types")?;
    let y = a.req(Some(1), "b", "promote_types")?;
    let python = |o: &Obj| matches!(o, Obj::Type("int" | "float" | "complex"));
    let (d, e) = (dtype_of(&x)?, dtype_of(&y)?);
    let out = d.promote_weak(python(&x), e, python(&y));
    let wide = super::x64_warning::wide(&x).or(super::x64_warning::wide(&y));
    if wide.is_some() || python(&x) && python(&y) && out != DType::Bool {
        return Err(refuse(&format!(
            "jax.numpy.promote_types({}, {}), a 64-bit type",
            repr_of(&x),
            repr_of(&y)
        )));
    }
    Ok(Obj::DType(out))
}

/// Adds the abstract classes alone (`numpy`'s, which `isinstance` of its
/// scalars tests against).
pub(super) fn register_abstract(b: &mut Builder) {
    for (name, _) in ABSTRACT {
        if !JAX_CLASSES.contains(&name) {
            b.attr(name, Obj::Lib(Rc::new(AbstractType(name))));
        }
    }
}

/// The classes of [`ABSTRACT`] that `jax.dtypes` defines, not NumPy.
const JAX_CLASSES: [&str; 2] = ["extended", "prng_key"];

/// Adds `jax.dtypes.extended` and `jax.dtypes.prng_key`.
pub(super) fn register_key_classes(b: &mut Builder) {
    for name in JAX_CLASSES {
        b.attr(name, Obj::Lib(Rc::new(AbstractType(name))));
    }
}

/// Whether `o` is a typed key's dtype (`jax.random.key(0).dtype`), which
/// shardlab holds as its name.
pub(super) fn is_key_dtype(o: &Obj) -> bool {
    matches!(o, Obj::Str(s) if &**s == "key<fry>")
}

/// The abstract class a NumPy scalar's kind belongs to directly.
fn class_of_kind(k: super::host::Kind) -> &'static str {
    use super::host::Kind;
    match k {
        Kind::Bool => "generic",
        Kind::Int32 | Kind::Int64 => "signedinteger",
        Kind::UInt8 | Kind::UInt32 => "unsignedinteger",
        Kind::Float32 | Kind::Float64 => "floating",
    }
}

/// The abstract class a concrete dtype belongs to directly.
fn class_of(d: DType) -> &'static str {
    match d {
        DType::Bool => "generic",
        DType::I32 | DType::I8 | DType::I16 => "signedinteger",
        DType::U32 | DType::U8 | DType::U16 => "unsignedinteger",
        DType::F32 | DType::BF16 | DType::F16 => "floating",
        DType::C64 => "complexfloating",
    }
}

/// True when the abstract class `class` is `ancestor` or derives from it.
fn derives(class: &str, ancestor: &str) -> bool {
    let mut at = Some(class);
    while let Some(c) = at {
        if c == ancestor {
            return true;
        }
        at = ABSTRACT.iter().find(|(n, _)| *n == c).and_then(|(_, p)| *p);
    }
    false
}

/// What `issubdtype` reads an argument as: an abstract class, or a
/// concrete dtype (an array stands for its dtype).
enum Kind {
    Abstract(&'static str),
    Concrete(DType),
}

fn kind_of(o: &Obj) -> Result<Kind> {
    if let Some(a) = o.downcast::<AbstractType>() {
        return Ok(Kind::Abstract(a.0));
    }
    // A key dtype is the one concrete member of its class.
    if is_key_dtype(o) {
        return Ok(Kind::Abstract("prng_key"));
    }
    if let Obj::Array(x) = o {
        return Ok(Kind::Concrete(x.dtype()));
    }
    dtype_of(o).map(Kind::Concrete)
}

/// `jnp.issubdtype(arg1, arg2)`.
fn issubdtype(_: &mut Interp, a: Args) -> Result<Obj> {
    let sub_obj = a.req(Some(0), "arg1", "issubdtype")?;
    let sub = kind_of(&sub_obj)?;
    let sup = a.req(Some(1), "arg2", "issubdtype")?;
    // A 64-bit type (jnp's or NumPy's) has only itself as a subtype here:
    // shardlab's arrays are never 64-bit.
    if let Some((name, _)) = super::x64_warning::wide(&sup) {
        let same = super::x64_warning::wide(&sub_obj).is_some_and(|(n, _)| n == name);
        return Ok(Obj::Bool(same));
    }
    let answer = match (sub, kind_of(&sup)?) {
        (Kind::Concrete(d), Kind::Abstract(c)) => derives(class_of(d), c),
        (Kind::Abstract(s), Kind::Abstract(c)) => derives(s, c),
        (sub, Kind::Concrete(DType::Bool)) => matches!(sub, Kind::Concrete(DType::Bool)),
        (Kind::Abstract(_), Kind::Concrete(_)) => false,
        // Python's `float` and `int` stand for NumPy's 64-bit types.
        (Kind::Concrete(_), Kind::Concrete(_))
            if matches!(sup, Obj::Type(_)) || matches!(sub_obj, Obj::Type(_)) =>
        {
            return Err(refuse(&format!(
                "jax.numpy.issubdtype of the Python types {} and {}",
                repr_of(&sub_obj),
                repr_of(&sup)
            )))
        }
        // A 64-bit type is no 32-bit one.
        (Kind::Concrete(_), Kind::Concrete(_)) if super::x64_warning::wide(&sub_obj).is_some() => {
            false
        }
        (Kind::Concrete(d), Kind::Concrete(e)) => d == e,
    };
    Ok(Obj::Bool(answer))
}

/// The dtype and weak bit `result_type` reads an argument as: Python's
/// `int`, `float` and `complex` (types or values) are weak.
fn typed(o: &Obj) -> Result<(DType, bool)> {
    Ok(match o {
        Obj::Array(x) => {
            let aval = x.aval();
            (aval.dtype, aval.weak)
        }
        Obj::Int(_) | Obj::Type("int") => (DType::I32, true),
        Obj::Float(_) | Obj::Type("float") => (DType::F32, true),
        Obj::Complex(..) | Obj::Type("complex") => (DType::C64, true),
        Obj::Bool(_) => (DType::Bool, false),
        o if o.downcast::<AbstractType>().is_some() => {
            return Err(refuse("jax.numpy.result_type of an abstract scalar class"))
        }
        o => (dtype_of(o)?, false),
    })
}

/// `jnp.result_type(*args)`: the dtype JAX's promotion gives them, without
/// x64.
fn result_type(_: &mut Interp, a: Args) -> Result<Obj> {
    if !a.kw.is_empty() {
        return Err(refuse("jax.numpy.result_type with keyword arguments"));
    }
    let mut joined: Option<(DType, bool)> = None;
    for o in &a.pos {
        let (d, w) = typed(o)?;
        joined = Some(match joined {
            None => (d, w),
            Some((p, pw)) => {
                let out = p.promote_weak(pw, d, w);
                // The result is weak when the operand it came from was
                // (both, for equal types).
                let weak = match (out == p, out == d) {
                    (true, true) => pw && w,
                    (true, false) => pw,
                    (false, true) => w,
                    (false, false) => false,
                };
                (out, weak)
            }
        });
    }
    match joined {
        Some((d, _)) => Ok(Obj::DType(d)),
        None => bail!(ValueError, "at least one array or dtype is required"),
    }
}

/// A shape argument: a sequence of ints, or one int for a 1-d shape.
fn shape_of(interp: &mut Interp, o: &Obj) -> Result<Vec<usize>> {
    let dims = match o {
        Obj::Int(_) => vec![o.clone()],
        _ => interp.iterate(o)?,
    };
    dims.iter()
        .map(|d| match d {
            Obj::Int(n) if *n >= 0 => Ok(*n as usize),
            // JAX shows the whole shape, a number as the tuple of it.
            _ => bail!(
                TypeError,
                "Shapes must be 1D sequences of concrete values of integer type, got {}.",
                repr_of(&match o {
                    Obj::Int(_) => Obj::tuple(vec![o.clone()]),
                    _ => o.clone(),
                })
            ),
        })
        .collect()
}

fn shape_text(s: &[usize]) -> String {
    repr_of(&Obj::tuple(s.iter().map(|&d| Obj::Int(d as i64)).collect()))
}

/// `jnp.broadcast_shapes(*shapes)`.
fn broadcast_shapes(interp: &mut Interp, a: Args) -> Result<Obj> {
    let mut shapes = Vec::with_capacity(a.pos.len());
    for o in &a.pos {
        shapes.push(shape_of(interp, o)?);
    }
    let ndim = shapes.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = vec![1usize; ndim];
    for s in &shapes {
        for (k, &d) in s.iter().enumerate() {
            let o = &mut out[ndim - s.len() + k];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                let all: Vec<String> = shapes.iter().map(|s| shape_text(s)).collect();
                bail!(
                    ValueError,
                    "Incompatible shapes for broadcasting: shapes=[{}]",
                    all.join(", ")
                );
            }
        }
    }
    Ok(Obj::tuple(
        out.into_iter().map(|d| Obj::Int(d as i64)).collect(),
    ))
}
