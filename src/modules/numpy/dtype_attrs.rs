//! The attributes of a dtype object (`.char`, `.num`, `.kind`,
//! `.byteorder`, `.descr`, `.newbyteorder()`, ...), and the byte-swapped
//! dtype `np.dtype('>f4')` builds.
//!
//! shardlab has two native dtype objects (the engine's `dtype('int16')` and
//! NumPy's host `dtype('float64')`); both answer from one table keyed by
//! NumPy's canonical name, so they agree with each other and with NumPy on
//! a little-endian machine. NumPy also keeps a dtype's byte order as it was
//! asked for: `'<'` (little-endian said explicitly, as `newbyteorder` makes
//! it: equal to the native dtype, printed `dtype('<f4')`) and `'>'` (swapped,
//! which exists to be printed, compared and swapped back: JAX refuses it as
//! an array's dtype, and so does shardlab).

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};

use crate::array::dtype_strings::itemsize;

/// NumPy's type code, type number, kind and alignment of a dtype.
fn facts(name: &str) -> (&'static str, i64, &'static str, usize) {
    match name {
        "bool" => ("?", 0, "b", 1),
        "int8" => ("b", 1, "i", 1),
        "uint8" => ("B", 2, "u", 1),
        "int16" => ("h", 3, "i", 2),
        "uint16" => ("H", 4, "u", 2),
        "int32" => ("i", 5, "i", 4),
        "uint32" => ("I", 6, "u", 4),
        "int64" => ("l", 7, "i", 8),
        "uint64" => ("L", 8, "u", 8),
        "float16" => ("e", 23, "f", 2),
        "float32" => ("f", 11, "f", 4),
        "float64" => ("d", 12, "f", 8),
        "complex64" => ("F", 14, "c", 4),
        "complex128" => ("D", 15, "c", 8),
        // ml_dtypes registers bfloat16 as a user type: NumPy numbers it
        // after its own and reports kind 'V'.
        _ => ("E", 256, "V", 2),
    }
}

/// `dtype.str`: the byte order, kind and size (`'<i2'`, `'|u1'`, `'>f4'`).
fn typestr(name: &str, order: char) -> String {
    let size = itemsize(name);
    let order = match (size, order) {
        (1, _) => '|',
        (_, '>') => '>',
        _ => '<',
    };
    format!("{order}{}{size}", facts(name).2)
}

/// The attribute `attr` of the dtype NumPy calls `name` in byte order
/// `order` (`'='`, `'<'` or `'>'`), or None when a dtype has no such
/// attribute.
pub fn attr(name: &'static str, order: char, attr: &str) -> Result<Option<Obj>> {
    let (char, num, kind, alignment) = facts(name);
    let user = name == "bfloat16";
    Ok(Some(match attr {
        "name" => Obj::str(name),
        "itemsize" => Obj::Int(itemsize(name) as i64),
        "char" => Obj::str(char),
        "num" => Obj::Int(num),
        "kind" => Obj::str(kind),
        "alignment" => Obj::Int(alignment as i64),
        "byteorder" => Obj::str(if itemsize(name) == 1 { '|' } else { order }.to_string()),
        "str" => Obj::str(typestr(name, order)),
        "descr" => Obj::list(vec![Obj::tuple(vec![
            Obj::str(""),
            Obj::str(typestr(name, order)),
        ])]),
        "isnative" => Obj::Bool(order != '>'),
        "isbuiltin" => Obj::Int(if user { 2 } else { 1 }),
        "flags" => Obj::Int(if user { 64 } else { 0 }),
        "ndim" => Obj::Int(0),
        "shape" => Obj::tuple(vec![]),
        "hasobject" | "isalignedstruct" => Obj::Bool(false),
        "metadata" | "names" | "fields" | "subdtype" => Obj::None,
        "base" => dtype_obj(name, order)?,
        "newbyteorder" => Obj::native("newbyteorder", move |_, a| newbyteorder(name, order, &a)),
        "type" => scalar_type(name)?,
        _ => return Ok(None),
    }))
}

/// The dtype object NumPy's `np.dtype(name)` gives, or the same type in
/// an explicit byte order.
pub fn dtype_obj(name: &'static str, order: char) -> Result<Obj> {
    if order != '=' && itemsize(name) > 1 {
        return Ok(Obj::lib(Ordered { name, order }));
    }
    super::scalar_types::dtype(&Args::with(vec![Obj::str(name)], vec![]))
}

/// `dtype.newbyteorder(order='S')`: the same type in another byte order.
fn newbyteorder(name: &'static str, order: char, a: &Args) -> Result<Obj> {
    let new = match a.opt(Some(0), "new_order") {
        Some(Obj::Str(s)) => s.to_string(),
        Some(o) => bail!(
            TypeError,
            "newbyteorder() argument 1 must be str, not {}",
            o.type_name()
        ),
        None => "S".into(),
    };
    let to = match new.as_str() {
        "S" | "s" if order == '>' => '<',
        "S" | "s" | ">" | "B" | "b" => '>',
        "<" | "L" | "l" => '<',
        "=" | "N" | "n" => '=',
        "|" | "I" | "i" => order,
        other => bail!(ValueError, "byteorder not recognized (got '{other}')"),
    };
    dtype_obj(name, to)
}

/// A multi-byte dtype in an explicit byte order (`dtype('>f4')`,
/// `dtype('<f4')`).
pub struct Ordered {
    /// NumPy's canonical name of the type.
    pub name: &'static str,
    /// `'<'` or `'>'`.
    pub order: char,
}

impl Ordered {
    /// Whether this is the non-native (big-endian) order.
    pub fn swapped(&self) -> bool {
        self.order == '>'
    }
}

impl Object for Ordered {
    fn type_name(&self) -> String {
        "numpy.dtype".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("dtype('{}')", typestr(self.name, self.order)))
    }

    fn str(&self, _: &Obj) -> Option<String> {
        Some(if self.swapped() {
            typestr(self.name, self.order)
        } else {
            self.name.to_string()
        })
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        attr(self.name, self.order, name)
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        // Little-endian said explicitly is the native dtype.
        Some(match other.downcast::<Ordered>() {
            Some(o) => o.name == self.name && o.swapped() == self.swapped(),
            None => {
                !self.swapped()
                    && super::scalar_types::dtype(&Args::with(vec![other.clone()], vec![]))
                        .is_ok_and(|d| crate::python::format::str_of(&d) == self.name)
            }
        })
    }
}

/// `dtype.type`: NumPy's scalar type of the dtype (`np.float32` for a
/// float32 array's dtype, not `jnp.float32`); bfloat16's is `ml_dtypes`'.
fn scalar_type(name: &'static str) -> Result<Obj> {
    use super::jnp_scalar_types::ScalarType;
    match super::scalar_types::kind_of_dtype(&Obj::str(name)) {
        Some(kind) => Ok(super::scalar_types::HostType::type_obj(kind)),
        None => {
            let d = super::dtypes::dtype_of(&Obj::str(name))?;
            let module = if name == "bfloat16" {
                "ml_dtypes"
            } else {
                "numpy"
            };
            Ok(ScalarType::named(name, d, module))
        }
    }
}
