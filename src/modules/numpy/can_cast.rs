//! `np.can_cast(from_, to, casting='safe')` (which `jnp.can_cast` is):
//! NumPy's casting rules between dtypes, which do not depend on x64 since
//! they are about dtypes, not arrays.
//!
//! A safe cast keeps every value: a wider type of the same kind, an
//! unsigned integer into a wider signed one, an integer into a float whose
//! significand holds it (64-bit integers into float64 too, as NumPy
//! allows). `same_kind` also allows narrowing within a kind and moving up
//! the order bool, integer, float, complex (unsigned into signed, not the
//! reverse).

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use crate::array::dtype_strings::itemsize;

/// Adds `can_cast`.
pub(super) fn register(b: &mut Builder) {
    b.func("can_cast", can_cast);
}

/// A dtype's kind letter and the size that decides what it can hold: a
/// complex type's is that of its parts.
fn kind_and_size(name: &str) -> (char, usize) {
    match name {
        "bool" => ('b', 1),
        "complex64" => ('c', 4),
        "complex128" => ('c', 8),
        n if n.starts_with("uint") => ('u', itemsize(n)),
        n if n.starts_with("int") => ('i', itemsize(n)),
        n => ('f', itemsize(n)),
    }
}

/// Whether every value of `from` is a value of `to`.
fn safe(from: &str, to: &str) -> bool {
    if from == to || from == "bool" {
        return true;
    }
    // bfloat16 holds 8 significant bits and float32's exponent range, so
    // it holds the bytes and nothing of float16's precision.
    if from == "bfloat16" {
        return !matches!(kind_and_size(to), ('b' | 'i' | 'u', _) | ('f', 2));
    }
    if to == "bfloat16" {
        return matches!(kind_and_size(from), ('i' | 'u', 1));
    }
    let ((fk, fs), (tk, ts)) = (kind_and_size(from), kind_and_size(to));
    match (fk, tk) {
        ('i', 'i') | ('u', 'u') | ('f', 'f' | 'c') | ('c', 'c') => ts >= fs,
        ('u', 'i') => ts > fs,
        ('i' | 'u', 'f' | 'c') => ts > fs || ts == 8,
        _ => false,
    }
}

/// Whether `from` casts to `to` at least within its kind.
fn same_kind(from: &str, to: &str) -> bool {
    let rank = |k| match k {
        'b' => 0,
        'u' | 'i' => 1,
        'f' => 2,
        _ => 3,
    };
    let (fk, tk) = (kind_and_size(from).0, kind_and_size(to).0);
    safe(from, to) || (rank(tk) >= rank(fk) && fk != 'b' && !(fk == 'i' && tk == 'u'))
}

/// NumPy's canonical name and byte order of a dtype argument (an array
/// stands for its dtype).
fn dtype_name(o: &Obj) -> Result<(&'static str, char)> {
    if let Obj::Str(s) = o {
        let p = crate::array::dtype_strings::parse(s)?;
        return Ok((p.name, if p.swapped { '>' } else { '=' }));
    }
    let d = match o {
        Obj::Int(_) | Obj::Float(_) | Obj::Complex(..) | Obj::Bool(_) => bail!(
            TypeError,
            "can_cast() does not support Python ints, floats, and complex because the result \
             used to depend on the value.\nThis change was part of adopting NEP 50, we may \
             explicitly allow them again in the future."
        ),
        Obj::Array(x) => Obj::DType(x.dtype()),
        o => super::scalar_types::dtype(&Args::with(vec![o.clone()], vec![]))?,
    };
    if let Some(t) = d.downcast::<super::dtype_attrs::Ordered>() {
        return Ok((t.name, t.order));
    }
    let p = crate::array::dtype_strings::parse(&crate::python::format::str_of(&d))?;
    Ok((p.name, '='))
}

fn can_cast(_: &mut Interp, a: Args) -> Result<Obj> {
    let (from, from_order) = dtype_name(&a.req(Some(0), "from_", "can_cast")?)?;
    let (to, to_order) = dtype_name(&a.req(Some(1), "to", "can_cast")?)?;
    let casting = match a.opt(Some(2), "casting") {
        Some(Obj::Str(s)) => s.to_string(),
        Some(o) => bail!(
            TypeError,
            "casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got {})",
            crate::python::format::repr_of(&o)
        ),
        None => "safe".into(),
    };
    let swapped = |o: char| o == '>' && itemsize(from) > 1;
    Ok(Obj::Bool(match casting.as_str() {
        "no" => from == to && swapped(from_order) == swapped(to_order),
        "equiv" => from == to,
        "safe" => safe(from, to),
        "same_kind" => same_kind(from, to),
        "unsafe" => true,
        other => bail!(
            ValueError,
            "casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got '{other}')"
        ),
    }))
}
