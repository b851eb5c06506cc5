//! JAX's rule that `jax.numpy` functions take arrays and scalars, never
//! Python lists or tuples: `jnp.sum([1, 2, 3])` is a TypeError naming the
//! function and the argument's place among the function's array arguments,
//! where NumPy (and shardlab's `numpy`) accepts it. A list is converted
//! element by element on every call, which is slow under a trace, so JAX asks
//! for `jnp.array(...)` first; a program that passes lists must fail here
//! as it fails in JAX, not run.
//!
//! `jnp.shape`, `jnp.ndim` and `jnp.size` still accept a list, with JAX's
//! DeprecationWarning. `array`, `asarray`, `array_equal` and the functions
//! that take shapes are not checked. The table below says, per function,
//! which arguments are arrays (by position and by keyword) and which name
//! JAX's message uses (`jnp.abs` reports `absolute`, `jnp.divide`
//! `true_divide`).

use std::rc::Rc;

use crate::bail;
use crate::error::Result;
use crate::modules::std::warnings::Place;
use crate::python::interp::Interp;
use crate::python::value::{Args, Native, Obj};

/// One array argument: its position in a call, and the keywords it may be
/// given by.
type Param = (usize, &'static [&'static str]);

const X: Param = (0, &["a", "x", "x1", "ary", "arr", "m", "condition"]);
const Y: Param = (1, &["b", "y", "x2", "v", "indices"]);
const Z: Param = (2, &["z"]);
const FILL: Param = (1, &["fill_value"]);

/// What a function's arguments are.
enum Kind {
    /// These arguments must be arrays or scalars.
    Arrays(&'static [Param]),
    /// The elements of the sequence at position 0 must be.
    Sequence,
    /// `einsum`: the operands after the subscripts must be.
    Operands,
    /// A list is accepted with a DeprecationWarning.
    Deprecated,
}

const ONE: Kind = Kind::Arrays(&[X]);
const TWO: Kind = Kind::Arrays(&[X, Y]);

/// Checked functions: shardlab's name, the name in JAX's message, the kind.
const CHECKED: &[(&str, &str, Kind)] = &[
    ("abs", "absolute", ONE),
    ("absolute", "absolute", ONE),
    ("all", "all", ONE),
    ("amax", "max", ONE),
    ("amin", "min", ONE),
    ("angle", "angle", ONE),
    ("any", "any", ONE),
    ("arccos", "arccos", ONE),
    ("arccosh", "arccosh", ONE),
    ("arcsin", "arcsin", ONE),
    ("arcsinh", "arcsinh", ONE),
    ("arctan", "arctan", ONE),
    ("argmax", "argmax", ONE),
    ("argmin", "argmin", ONE),
    ("argsort", "argsort", ONE),
    ("around", "round", ONE),
    ("astype", "astype", ONE),
    ("bitwise_invert", "bitwise_invert", ONE),
    ("bitwise_not", "bitwise_not", ONE),
    ("broadcast_to", "broadcast_to", ONE),
    ("cbrt", "cbrt", ONE),
    ("ceil", "ceil", ONE),
    ("clip", "clip", ONE),
    ("conj", "conjugate", ONE),
    ("conjugate", "conjugate", ONE),
    ("cos", "cos", ONE),
    ("cosh", "cosh", ONE),
    ("cumprod", "cumprod", ONE),
    ("cumsum", "cumsum", ONE),
    ("diff", "diff", ONE),
    ("exp", "exp", ONE),
    ("expand_dims", "expand_dims", ONE),
    ("expm1", "expm1", ONE),
    ("flip", "flip", ONE),
    ("floor", "floor", ONE),
    ("imag", "imag", ONE),
    ("invert", "invert", ONE),
    ("isfinite", "isfinite", ONE),
    ("isinf", "isinf", ONE),
    ("isnan", "isnan", ONE),
    ("log", "log", ONE),
    ("log1p", "log1p", ONE),
    ("logical_not", "logical_not", ONE),
    ("max", "max", ONE),
    ("mean", "mean", ONE),
    ("min", "min", ONE),
    ("moveaxis", "moveaxis", ONE),
    ("negative", "negative", ONE),
    ("ones_like", "ones_like", ONE),
    ("pad", "pad", ONE),
    ("prod", "prod", ONE),
    ("ravel", "ravel", ONE),
    ("real", "real", ONE),
    ("reciprocal", "reciprocal", ONE),
    ("reshape", "reshape", ONE),
    ("rint", "rint", ONE),
    ("roll", "roll", ONE),
    ("rot90", "rot90", ONE),
    ("round", "round", ONE),
    ("sign", "sign", ONE),
    ("sin", "sin", ONE),
    ("sinh", "sinh", ONE),
    ("sort", "sort", ONE),
    ("split", "split", ONE),
    ("sqrt", "sqrt", ONE),
    ("square", "square", ONE),
    ("squeeze", "squeeze", ONE),
    ("std", "std", ONE),
    ("sum", "sum", ONE),
    ("swapaxes", "swapaxes", ONE),
    ("tan", "tan", ONE),
    ("tanh", "tanh", ONE),
    ("tile", "tile", ONE),
    ("transpose", "transpose", ONE),
    ("tril", "tril", ONE),
    ("triu", "triu", ONE),
    ("var", "var", ONE),
    ("zeros_like", "zeros_like", ONE),
    ("add", "add", TWO),
    ("allclose", "allclose", TWO),
    ("arctan2", "arctan2", TWO),
    ("bitwise_and", "bitwise_and", TWO),
    ("bitwise_left_shift", "bitwise_left_shift", TWO),
    ("bitwise_or", "bitwise_or", TWO),
    ("bitwise_right_shift", "right_shift", TWO),
    ("bitwise_xor", "bitwise_xor", TWO),
    ("convolve", "convolve", TWO),
    ("correlate", "correlate", TWO),
    ("divide", "true_divide", TWO),
    ("dot", "dot", TWO),
    ("equal", "equal", TWO),
    ("floor_divide", "floor_divide", TWO),
    ("full_like", "full_like", TWO),
    ("greater", "greater", TWO),
    ("greater_equal", "greater_equal", TWO),
    ("inner", "inner", TWO),
    ("isclose", "isclose", TWO),
    ("left_shift", "left_shift", TWO),
    ("less", "less", TWO),
    ("less_equal", "less_equal", TWO),
    ("linspace", "linspace", TWO),
    ("logical_and", "logical_and", TWO),
    ("logical_or", "logical_or", TWO),
    ("logical_xor", "logical_xor", TWO),
    ("matmul", "matmul", TWO),
    ("maximum", "maximum", TWO),
    ("minimum", "minimum", TWO),
    ("mod", "remainder", TWO),
    ("multiply", "multiply", TWO),
    ("not_equal", "not_equal", TWO),
    ("outer", "outer", TWO),
    ("power", "power", TWO),
    ("remainder", "remainder", TWO),
    ("right_shift", "right_shift", TWO),
    ("subtract", "subtract", TWO),
    ("take", "take", TWO),
    ("tensordot", "tensordot", TWO),
    ("true_divide", "true_divide", TWO),
    ("vdot", "vdot", TWO),
    ("copysign", "copysign", TWO),
    ("fmod", "fmod", TWO),
    ("gcd", "gcd", TWO),
    ("lcm", "lcm", TWO),
    ("nextafter", "nextafter", TWO),
    ("pow", "power", TWO),
    ("sinc", "sinc", ONE),
    ("where", "where", Kind::Arrays(&[X, Y, Z])),
    ("full", "full", Kind::Arrays(&[FILL])),
    ("concatenate", "concatenate", Kind::Sequence),
    ("stack", "stack", Kind::Sequence),
    ("hstack", "hstack", Kind::Sequence),
    ("vstack", "vstack", Kind::Sequence),
    ("einsum", "einsum", Kind::Operands),
    ("shape", "shape", Kind::Deprecated),
    ("ndim", "ndim", Kind::Deprecated),
    ("size", "size", Kind::Deprecated),
];

/// Puts the check in front of every function of the table in `jax.numpy`
/// (and of `jnp.linalg.norm`).
pub fn wrap_module(m: &Obj) {
    let Obj::Module(module) = m else { return };
    let mut attrs = module.attrs.borrow_mut();
    for (name, v) in attrs.iter_mut() {
        if let Some((_, jax, kind)) = CHECKED.iter().find(|(n, _, _)| n == name) {
            *v = wrap(v, jax, kind);
        } else if name == "linalg" {
            wrap_norm(v);
        }
    }
}

fn wrap_norm(linalg: &Obj) {
    let Obj::Module(module) = linalg else { return };
    for (name, v) in module.attrs.borrow_mut().iter_mut() {
        if name == "norm" {
            *v = wrap(v, "jnp.linalg.norm", &ONE);
        }
    }
}

fn wrap(f: &Obj, jax: &'static str, kind: &'static Kind) -> Obj {
    let Obj::Native(native) = f else {
        return f.clone();
    };
    let native: Rc<Native> = native.clone();
    Obj::native(native.name.clone(), move |interp, a| {
        check(interp, jax, kind, &a)?;
        (native.f)(interp, a)
    })
}

fn check(interp: &mut Interp, jax: &str, kind: &Kind, a: &Args) -> Result<()> {
    match kind {
        Kind::Arrays(params) => {
            for (place, (pos, names)) in params.iter().enumerate() {
                let given = a.pos.get(*pos).or_else(|| {
                    a.kw.iter()
                        .find(|(k, _)| names.contains(&k.as_str()))
                        .map(|(_, v)| v)
                });
                refuse_sequence(jax, given, place)?;
            }
        }
        Kind::Sequence => {
            if let Some(Obj::List(_) | Obj::Tuple(_)) = a.pos.first() {
                let items = crate::python::ops::iterate(&a.pos[0])?;
                for (place, item) in items.iter().enumerate() {
                    refuse_sequence(jax, Some(item), place)?;
                }
            }
        }
        // The interleaved form's index lists are not operands.
        Kind::Operands if !matches!(a.pos.first(), Some(Obj::Str(_))) => {}
        Kind::Operands => {
            for (place, item) in a.pos.iter().skip(1).enumerate() {
                refuse_sequence(jax, Some(item), place)?;
            }
        }
        Kind::Deprecated => {
            if let Some(o @ (Obj::List(_) | Obj::Tuple(_))) = a.pos.first() {
                deprecated(interp, jax, o, Place::Program(1))?;
                // `jnp.size` of a sequence asks `jnp.shape`, which warns
                // again from JAX's own code (hidden by the default filters).
                if jax == "size" {
                    deprecated(
                        interp,
                        "shape",
                        o,
                        Place::Library("jax._src.numpy.util", 465),
                    )?;
                }
            }
        }
    }
    Ok(())
}

fn deprecated(interp: &mut Interp, jax: &str, o: &Obj, place: Place) -> Result<()> {
    let text = format!(
        "{jax} requires ndarray or scalar arguments, got {} at position 0. In a future JAX \
         release this will be an error.",
        class_text(o)
    );
    crate::modules::std::warnings::warn(interp, "DeprecationWarning", &text, place)
}

fn refuse_sequence(jax: &str, given: Option<&Obj>, place: usize) -> Result<()> {
    if let Some(o @ (Obj::List(_) | Obj::Tuple(_))) = given {
        bail!(
            TypeError,
            "{jax} requires ndarray or scalar arguments, got {} at position {place}.",
            class_text(o)
        );
    }
    Ok(())
}

fn class_text(o: &Obj) -> &'static str {
    match o {
        Obj::Tuple(_) => "<class 'tuple'>",
        _ => "<class 'list'>",
    }
}
