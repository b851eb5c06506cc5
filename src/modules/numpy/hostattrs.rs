//! Attributes and methods of a float64 / int64 host ndarray: `shape`,
//! `dtype`, `T`, `tolist`, `item`, and the methods that are `numpy`
//! functions of the array (`x.sum()`, `x.reshape(2, 3)`, `x.astype(...)`).

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::host::HostArray;
use super::scalar_types::HostType;

/// Methods that are the `numpy` function of the same name on the array.
const METHODS: &[&str] = &[
    "sum",
    "prod",
    "mean",
    "max",
    "min",
    "std",
    "var",
    "argmax",
    "argmin",
    "any",
    "all",
    "cumsum",
    "cumprod",
    "reshape",
    "transpose",
    "ravel",
    "squeeze",
    "swapaxes",
    "repeat",
    "take",
    "astype",
    "round",
    "clip",
    "dot",
    "flatten",
];

/// `x.NAME` for a host array `h` held by `this`.
pub fn getattr(interp: &mut Interp, this: &Obj, h: &HostArray, name: &str) -> Result<Option<Obj>> {
    Ok(Some(match name {
        "shape" => shape_tuple(&h.shape),
        "ndim" => Obj::Int(h.shape.len() as i64),
        "size" => Obj::Int(h.size() as i64),
        "dtype" => HostType::dtype_obj(h.kind),
        "itemsize" => Obj::Int(h.kind.itemsize()),
        "nbytes" => Obj::Int(h.kind.itemsize() * h.size() as i64),
        "T" => call(interp, "transpose", vec![this.clone()])?,
        "tolist" => {
            let h = h.clone();
            Obj::native("tolist", move |_, _| Ok(tolist(&h, 0, 0)))
        }
        "item" => {
            let h = h.clone();
            Obj::native("item", move |_, a| item(&h, &a))
        }
        "__array__" => return Ok(None),
        m if METHODS.contains(&m) => method(this, m),
        _ => return Ok(None),
    }))
}

fn shape_tuple(shape: &[usize]) -> Obj {
    Obj::tuple(shape.iter().map(|&d| Obj::Int(d as i64)).collect())
}

fn call(interp: &mut Interp, name: &str, pos: Vec<Obj>) -> Result<Obj> {
    let m = super::super::import(interp, "numpy")?;
    let f = crate::python::ops::getattr(interp, &m, name)?;
    interp.call(&f, Args::new(pos))
}

/// `x.NAME(...)`: `numpy.NAME(x, ...)`; `reshape` and `transpose` also
/// take their dimensions one by one.
fn method(this: &Obj, name: &str) -> Obj {
    let this = this.clone();
    let name = name.to_string();
    Obj::native(name.clone(), move |interp, a| {
        let spread = matches!(name.as_str(), "reshape" | "transpose")
            && (a.pos.len() > 1
                || (name == "reshape" && matches!(a.pos.first(), Some(Obj::Int(_)))));
        let mut pos = vec![this.clone()];
        if spread {
            pos.push(Obj::tuple(a.pos.clone()));
        } else {
            pos.extend(a.pos.iter().cloned());
        }
        let fname = if name == "flatten" {
            "ravel"
        } else {
            name.as_str()
        };
        let m = super::super::import(interp, "numpy")?;
        let f = crate::python::ops::getattr(interp, &m, fname)?;
        interp.call(&f, Args::with(pos, a.kw))
    })
}

/// `x.tolist()`: nested lists of Python numbers.
fn tolist(h: &HostArray, depth: usize, offset: usize) -> Obj {
    if depth == h.shape.len() {
        return h.item(offset);
    }
    let inner: usize = h.shape[depth + 1..].iter().product();
    Obj::list(
        (0..h.shape[depth])
            .map(|i| tolist(h, depth + 1, offset + i * inner))
            .collect(),
    )
}

/// `x.item()` / `x.item(i)`.
fn item(h: &HostArray, a: &Args) -> Result<Obj> {
    match a.pos.first() {
        None if h.size() == 1 => Ok(h.item(0)),
        None => bail!(
            ValueError,
            "can only convert an array of size 1 to a Python scalar"
        ),
        Some(o) => {
            let i = crate::python::builtins::to_int(o)?;
            let n = h.size() as i64;
            if i >= n || i < -n {
                bail!(IndexError, "index {i} is out of bounds for size {n}");
            }
            Ok(h.item(i.rem_euclid(n) as usize))
        }
    }
}
