//! Python's `array` module: `array(typecode, initializer)`, a typed
//! sequence of numbers that NumPy (and so `jnp.array`/`jnp.asarray`)
//! reads through the buffer protocol with the item type's dtype.
//!
//! Each array keeps its items as Python numbers (already rounded to the
//! item type, as a `'f'` array rounds to float32) and the NumPy array the
//! buffer protocol would give. The typecodes whose NumPy dtype shardlab's
//! host arrays cannot hold (`'b'`, `'h'`, `'H'`, `'L'`, `'Q'`, `'u'`)
//! are refused by name.

use crate::error::Result;
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::{bail, err};

use super::super::Builder;

/// The `array` module.
pub fn module() -> Obj {
    let mut b = Builder::new("array");
    b.func("array", make);
    b.attr("typecodes", Obj::str("bBuhHiIlLqQfd"));
    b.build()
}

/// One `array.array`.
struct PyArray {
    typecode: char,
    items: Vec<Obj>,
    host: Obj,
}

/// The NumPy dtype of a typecode, and whether its items are floats.
fn dtype_of(typecode: char) -> Option<(&'static str, bool)> {
    Some(match typecode {
        'B' => ("uint8", false),
        'i' => ("int32", false),
        'I' => ("uint32", false),
        'l' | 'q' => ("int64", false),
        'f' => ("float32", true),
        'd' => ("float64", true),
        _ => return None,
    })
}

/// `array(typecode[, initializer])`.
fn make(interp: &mut Interp, a: Args) -> Result<Obj> {
    let code = crate::python::format::str_of(&a.req(Some(0), "typecode", "array")?);
    let mut chars = code.chars();
    let (Some(typecode), None) = (chars.next(), chars.next()) else {
        bail!(
            TypeError,
            "array() argument 1 must be a unicode character, not str"
        )
    };
    if !"bBuhHiIlLqQfd".contains(typecode) {
        bail!(
            ValueError,
            "bad typecode (must be b, B, u, h, H, i, I, l, L, q, Q, f or d)"
        );
    }
    let Some((dtype, float)) = dtype_of(typecode) else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: array.array with typecode '{typecode}'"
        )
    };
    let given = match a.get(Some(1), "initializer") {
        Some(init) => iterate(&init)?,
        None => vec![],
    };
    let items = given
        .iter()
        .map(|x| item(x, typecode, float))
        .collect::<Result<Vec<_>>>()?;
    let numpy = super::super::import(interp, "numpy")?;
    let np_array = crate::python::ops::getattr(interp, &numpy, "array")?;
    let kw = vec![("dtype".to_string(), Obj::str(dtype))];
    let host = interp.call(&np_array, Args::with(vec![Obj::list(items.clone())], kw))?;
    Ok(Obj::lib(PyArray {
        typecode,
        items,
        host,
    }))
}

/// The bytes an `array.array` exposes through the buffer protocol (its
/// items in little-endian order), or None for another object.
pub fn buffer_bytes(o: &Obj) -> Option<Vec<u8>> {
    let a = o.downcast::<PyArray>()?;
    let mut out = vec![];
    for x in &a.items {
        match (a.typecode, x) {
            ('B', Obj::Int(v)) => out.push(*v as u8),
            ('i', Obj::Int(v)) => out.extend((*v as i32).to_le_bytes()),
            ('I', Obj::Int(v)) => out.extend((*v as u32).to_le_bytes()),
            (_, Obj::Int(v)) => out.extend(v.to_le_bytes()),
            ('f', Obj::Float(v)) => out.extend((*v as f32).to_le_bytes()),
            (_, Obj::Float(v)) => out.extend(v.to_le_bytes()),
            _ => return None,
        }
    }
    Some(out)
}

/// An initializer's item as the array stores it.
fn item(x: &Obj, typecode: char, float: bool) -> Result<Obj> {
    match (x, float) {
        (Obj::Int(_) | Obj::Bool(_), false) => {
            let v = crate::python::builtins::to_int(x)?;
            let (lo, hi) = match typecode {
                'B' => (0, u8::MAX as i64),
                'i' => (i32::MIN as i64, i32::MAX as i64),
                'I' => (0, u32::MAX as i64),
                _ => (i64::MIN, i64::MAX),
            };
            if v < lo || v > hi {
                bail!(
                    OverflowError,
                    "array item {v} is out of range for typecode '{typecode}'"
                );
            }
            Ok(Obj::Int(v))
        }
        (_, false) => Err(err!(
            TypeError,
            "'{}' object cannot be interpreted as an integer",
            x.type_name()
        )),
        (Obj::Int(_) | Obj::Bool(_) | Obj::Float(_), true) => {
            let v = crate::python::builtins::to_float(x)?;
            Ok(Obj::Float(if typecode == 'f' {
                v as f32 as f64
            } else {
                v
            }))
        }
        (_, true) => Err(err!(
            TypeError,
            "must be real number, not {}",
            x.type_name()
        )),
    }
}

impl Object for PyArray {
    fn type_name(&self) -> String {
        "array".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("array")
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        if self.items.is_empty() {
            return Some(format!("array('{}')", self.typecode));
        }
        let items: Vec<String> = self.items.iter().map(repr_of).collect();
        Some(format!(
            "array('{}', [{}])",
            self.typecode,
            items.join(", ")
        ))
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(Ok(self.items.clone()))
    }

    fn getitem(&self, _: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        let Obj::Int(k) = key else {
            return Some(Err(err!(
                NotImplementedError,
                "not supported by shardlab yet: array.array indexed by {}",
                key.type_name()
            )));
        };
        let n = self.items.len() as i64;
        let at = if *k < 0 { k + n } else { *k };
        Some(
            match usize::try_from(at).ok().and_then(|i| self.items.get(i)) {
                Some(v) => Ok(v.clone()),
                None => Err(err!(IndexError, "array index out of range")),
            },
        )
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let itemsize = match self.typecode {
            'B' => 1,
            'i' | 'I' | 'f' => 4,
            _ => 8,
        };
        Ok(match name {
            "typecode" => Some(Obj::str(self.typecode.to_string())),
            "itemsize" => Some(Obj::Int(itemsize)),
            "tolist" => {
                let items = self.items.clone();
                Some(Obj::native("tolist", move |_, _| {
                    Ok(Obj::list(items.clone()))
                }))
            }
            _ => None,
        })
    }

    fn array(&self, _: &Obj) -> Option<Obj> {
        Some(self.host.clone())
    }
}
