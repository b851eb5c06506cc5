//! `jnp.mgrid`, `jnp.ogrid`, `jnp.r_` and `jnp.c_`: objects indexed with
//! slices and arrays that give JAX arrays.
//!
//! Unlike NumPy's (`grids`), JAX builds each slice's axis with jnp itself:
//! `arange(start, stop, step)`, or `linspace(start, stop, N)` for an
//! imaginary step `Nj`, so the values are float32 computed as jnp computes
//! them. The axes are promoted to one dtype and crossed with `meshgrid`
//! (`indexing='ij'`), stacked for `mgrid`, sparse for `ogrid`. `r_` and
//! `c_` concatenate their items (slices made into ranges) along the first
//! or last axis, with NumPy's string directives (`'r'`, `'c'`,
//! `'axis,ndmin,trans1d'`).

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};

use super::composed::{call, jnp};

/// Adds the four objects to a module's attributes.
pub(super) fn register(b: &mut super::super::Builder) {
    b.attr("mgrid", Obj::lib(JnpGrid { sparse: false }));
    b.attr("ogrid", Obj::lib(JnpGrid { sparse: true }));
    b.attr("r_", Obj::lib(AxisConcat { c: false }));
    b.attr("c_", Obj::lib(AxisConcat { c: true }));
}

/// The 1-D range a slice stands for.
fn range_of(interp: &mut Interp, key: &Obj) -> Result<Obj> {
    let Obj::Slice(s) = key else {
        bail!(TypeError, "expected a slice");
    };
    let start = match &s[0] {
        Obj::None => Obj::Int(0),
        v => v.clone(),
    };
    let step = match &s[2] {
        Obj::None => Obj::Int(1),
        v => v.clone(),
    };
    if let Obj::Complex(re, im) = step {
        let n = (re * re + im * im).sqrt() as i64;
        return jnp(interp, "linspace", vec![start, s[1].clone(), Obj::Int(n)]);
    }
    jnp(interp, "arange", vec![start, s[1].clone(), step])
}

/// `jnp.mgrid` (dense) or `jnp.ogrid` (sparse).
struct JnpGrid {
    sparse: bool,
}

impl JnpGrid {
    fn build(&self, interp: &mut Interp, key: &Obj) -> Result<Obj> {
        let Obj::Tuple(keys) = key else {
            return range_of(interp, key);
        };
        let axes = keys
            .iter()
            .map(|k| range_of(interp, k))
            .collect::<Result<Vec<_>>>()?;
        let axes = promote(interp, axes)?;
        let kw = vec![
            ("indexing".to_string(), Obj::str("ij")),
            ("sparse".to_string(), Obj::Bool(self.sparse)),
        ];
        let meshgrid = super::jnp_function(interp, "meshgrid")?;
        let grids = interp.call(&meshgrid, Args::with(axes, kw))?;
        if self.sparse {
            return Ok(grids);
        }
        if crate::python::builtins::len_of(&grids)? == 0 {
            return jnp(interp, "arange", vec![Obj::Int(0)]);
        }
        jnp(interp, "stack", vec![grids, Obj::Int(0)])
    }
}

/// The arrays converted to their common dtype.
fn promote(interp: &mut Interp, xs: Vec<Obj>) -> Result<Vec<Obj>> {
    if xs.is_empty() {
        return Ok(xs);
    }
    let dt = jnp(interp, "result_type", xs.clone())?;
    xs.into_iter()
        .map(|x| call(interp, "asarray", vec![x], vec![("dtype", dt.clone())]))
        .collect()
}

impl Object for JnpGrid {
    fn type_name(&self) -> String {
        match self.sparse {
            true => "_Ogrid".into(),
            false => "_Mgrid".into(),
        }
    }

    fn getitem(&self, interp: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(self.build(interp, key))
    }
}

/// `jnp.r_` or `jnp.c_`.
struct AxisConcat {
    c: bool,
}

/// `r_`/`c_`'s parameters: the axis to join on, the least number of
/// dimensions of each item, where a short item's dimensions go, and the
/// axis a 1-D result is expanded on (-1 for none).
type Params = [i64; 4];

/// The parameters after a leading string directive.
fn directive(text: &str, mut params: Params) -> Result<Params> {
    match text {
        "r" => params[3] = 0,
        "c" => params[3] = 1,
        _ => {
            let parts: Vec<&str> = text.split(',').collect();
            let bad = || crate::err!(ValueError, "could not understand directive '{text}'");
            for (k, p) in parts.iter().enumerate().take(3) {
                params[k] = p.trim().parse().map_err(|_| bad())?;
            }
        }
    }
    Ok(params)
}

impl AxisConcat {
    fn build(&self, interp: &mut Interp, key: &Obj) -> Result<Obj> {
        let mut items = match key {
            Obj::Tuple(t) => t.to_vec(),
            k => vec![k.clone()],
        };
        let mut params: Params = match self.c {
            true => [-1, 2, 0, -1],
            false => [0, 1, -1, -1],
        };
        if let Some(Obj::Str(s)) = items.first() {
            params = directive(s, params)?;
            items.remove(0);
        }
        let [axis, ndmin, trans1d, matrix] = params;
        let mut out = vec![];
        for item in items {
            let (x, item_ndim) = match &item {
                Obj::Slice(_) => (range_of(interp, &item)?, 0),
                Obj::Str(_) => bail!(
                    ValueError,
                    "string directive must be placed at the beginning"
                ),
                _ => {
                    let x = jnp(interp, "array", vec![item])?;
                    let n = crate::python::array::to_value(&x)?.ndim() as i64;
                    (x, n)
                }
            };
            let mut x = super::composed::ndmin(&x, ndmin.max(0) as usize)?;
            if trans1d != -1 && ndmin - item_ndim > 0 {
                let shifts = ndmin - (ndmin + trans1d + 1).abs() % ndmin;
                let order: Vec<Obj> = (0..ndmin).map(|k| Obj::Int((k + shifts) % ndmin)).collect();
                x = jnp(interp, "transpose", vec![x, Obj::tuple(order)])?;
            }
            out.push(x);
        }
        let kw = vec![("axis", Obj::Int(axis))];
        let res = call(interp, "concatenate", vec![Obj::tuple(out)], kw)?;
        match matrix != -1 && crate::python::array::to_value(&res)?.ndim() == 1 {
            true => jnp(interp, "expand_dims", vec![res, Obj::Int(matrix)]),
            false => Ok(res),
        }
    }
}

impl Object for AxisConcat {
    fn type_name(&self) -> String {
        match self.c {
            true => "CClass".into(),
            false => "RClass".into(),
        }
    }

    fn getitem(&self, interp: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(self.build(interp, key))
    }
}
