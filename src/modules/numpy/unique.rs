//! `jnp.unique` and `jnp.unique_values` on concrete arrays: the sorted
//! distinct values (or distinct slices along `axis`), with the index of
//! each one's first occurrence, the inverse map and the counts, and JAX's
//! `size=` / `fill_value=` padding.
//!
//! JAX sorts (a lexicographic sort of the slices), marks where each run of
//! equal slices starts, and gathers at those marks; with `size=None` the
//! marks must be concrete, so `unique` of a traced array without `size` is
//! JAX's ConcretizationTypeError here too. shardlab computes the same
//! positions on the host from the concrete values and gathers with `take`;
//! a traced array with `size=` follows JAX's steps on the trace
//! (`unique_traced`).

use std::cmp::Ordering;

use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::py_ops::Ops;
use super::super::Builder;
use super::compose::{flag, where_v};

/// Adds `unique` and `unique_values` to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("unique", unique);
    b.func("unique_values", |i, a| {
        let x = a.req(Some(0), "x", "unique_values")?;
        let mut kw = vec![];
        for name in ["size", "fill_value"] {
            if let Some(v) = a.opt(None, name) {
                kw.push((name.to_string(), v));
            }
        }
        unique(i, Args::with(vec![x], kw))
    });
}

/// What to return beside the values.
pub(super) struct Wanted {
    pub index: bool,
    pub inverse: bool,
    pub counts: bool,
}

/// `unique(ar, return_index=False, return_inverse=False,
/// return_counts=False, axis=None, *, equal_nan=True, size=None,
/// fill_value=None, sorted=True)`.
fn unique(interp: &mut Interp, a: Args) -> Result<Obj> {
    let func = "unique";
    let ar = a.req(Some(0), "ar", func)?;
    if matches!(ar, Obj::List(_) | Obj::Tuple(_)) {
        bail!(
            TypeError,
            "unique requires ndarray or scalar arguments, got <class '{}'> at position 0.",
            ar.type_name()
        );
    }
    let x = crate::python::array::to_value(&ar)?;
    let want = Wanted {
        index: flag(&a, Some(1), "return_index", false)?,
        inverse: flag(&a, Some(2), "return_inverse", false)?,
        counts: flag(&a, Some(3), "return_counts", false)?,
    };
    let equal_nan = flag(&a, None, "equal_nan", true)?;
    let size = match a.opt(None, "size") {
        Some(Obj::None) | None => None,
        Some(o) => Some(to_int(&o)?.max(0) as usize),
    };
    let fill = a
        .opt(None, "fill_value")
        .filter(|o| !matches!(o, Obj::None));
    let c = match &x {
        Value::Concrete(c) => c,
        Value::Traced(t) if size.is_none() => bail!(
            ConcretizationTypeError,
            "Abstract tracer value encountered where concrete value is expected: traced array with shape {}\nThe error arose for the first argument of jnp.unique(). To make jnp.unique() compatible with JIT and other transforms, you can specify a concrete value for the size argument, which will determine the output size.",
            t.shape_text()
        ),
        Value::Traced(_) if x.dtype() == DType::C64 => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.unique of a traced complex64 array"
        ),
        _ => {
            let axis = match a.opt(Some(4), "axis") {
                Some(o) => Some(crate::ops::norm_axis(to_int(&o)?, x.ndim())?),
                None => None,
            };
            let request = super::unique_traced::Request {
                want,
                equal_nan,
                size: size.unwrap_or(0),
                fill,
                axis,
            };
            return super::unique_traced::unique(&Ops::new(interp), &x, request);
        }
    };
    if c.dtype() == DType::C64 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.unique of complex64 arrays"
        );
    }
    let shape = c.shape().to_vec();
    let (moved, axis) = match a.opt(Some(4), "axis") {
        Some(Obj::None) | None => (c.reshape(&[c.size()])?, None),
        Some(o) => {
            let axis = crate::ops::norm_axis(to_int(&o)?, shape.len())?;
            let m = jops::moveaxis(&x, axis, 0)?;
            (m.concrete("unique")?.clone(), Some(axis))
        }
    };
    if moved.shape()[0] == 0 && size.is_some_and(|s| s > 0) && fill.is_none() {
        bail!(
            ValueError,
            "jnp.unique: for zero-sized input with nonzero size argument, fill_value must be specified"
        );
    }
    let runs = Runs::of(&moved, equal_nan);
    outputs(&moved, &runs, &want, size, fill.as_ref(), axis, &shape)
}

/// The unique values of `moved` (the array with the unique axis first, or
/// flattened) and the indices, inverse and counts `want` asks for.
fn outputs(
    moved: &Array,
    runs: &Runs,
    want: &Wanted,
    size: Option<usize>,
    fill: Option<&Obj>,
    axis: Option<usize>,
    shape: &[usize],
) -> Result<Obj> {
    let mut out = vec![values(moved, runs, size, fill, axis)?];
    let n = runs.starts.len();
    let positions = padded(&runs.starts, size.unwrap_or(n));
    if want.index {
        let first: Vec<i32> = positions.iter().map(|&p| runs.perm[p] as i32).collect();
        out.push(int_array(&first)?);
    }
    if want.inverse {
        let inv = Value::Concrete(Array::from_i32(&[runs.perm.len()], runs.inverse())?);
        out.push(match axis {
            None => jops::reshape(&inv, shape)?,
            Some(_) => inv,
        });
    }
    if want.counts {
        out.push(int_array(&runs.counts(size))?);
    }
    Ok(match out.len() {
        1 => Obj::Array(out.remove(0)),
        _ => Obj::tuple(out.into_iter().map(Obj::Array).collect()),
    })
}

/// An int32 vector.
fn int_array(v: &[i32]) -> Result<Value> {
    Ok(Value::Concrete(Array::from_i32(&[v.len()], v.to_vec())?))
}

/// `nonzero(mask, size=size)`: the first `size` run starts, padded with 0.
fn padded(starts: &[usize], size: usize) -> Vec<usize> {
    (0..size)
        .map(|k| starts.get(k).copied().unwrap_or(0))
        .collect()
}

/// The sorted slices: the permutation that sorts them and where each run
/// of equal slices starts.
struct Runs {
    perm: Vec<usize>,
    starts: Vec<usize>,
}

impl Runs {
    fn of(x: &Array, equal_nan: bool) -> Runs {
        let rows = x.shape()[0];
        let width = x.size().checked_div(rows).unwrap_or(0);
        let data = x.to_f64_vec();
        let row = |r: usize| &data[r * width..(r + 1) * width];
        let mut perm: Vec<usize> = (0..rows).collect();
        // NaN sorts after every number, as lax's sort orders floats.
        let order = |p: f64, q: f64| {
            p.partial_cmp(&q)
                .unwrap_or_else(|| p.is_nan().cmp(&q.is_nan()))
        };
        perm.sort_by(|&i, &j| {
            row(i)
                .iter()
                .zip(row(j))
                .map(|(&p, &q)| order(p, q))
                .find(|o| *o != Ordering::Equal)
                .unwrap_or(Ordering::Equal)
        });
        let differ = |p: f64, q: f64| p != q && !(equal_nan && p.is_nan() && q.is_nan());
        let mut starts = vec![];
        for k in 0..rows {
            let new = k == 0
                || row(perm[k])
                    .iter()
                    .zip(row(perm[k - 1]))
                    .any(|(&p, &q)| differ(p, q));
            if new {
                starts.push(k);
            }
        }
        // An empty slice still counts as one run, as JAX's mask does.
        if rows > 0 && width == 0 {
            starts = vec![0];
        }
        Runs { perm, starts }
    }

    /// For each original slice, the index of its run.
    fn inverse(&self) -> Vec<i32> {
        let mut inv = vec![0; self.perm.len()];
        let mut run = -1;
        for (k, &p) in self.perm.iter().enumerate() {
            if self.starts.binary_search(&k).is_ok() {
                run += 1;
            }
            inv[p] = run;
        }
        inv
    }

    /// The length of each run; with `size`, JAX's padded form (a run past
    /// the true count is 0, as its start and end are both the total).
    fn counts(&self, size: Option<usize>) -> Vec<i32> {
        let total = self.perm.len();
        let mut bounds: Vec<usize> = match size {
            None => self.starts.clone(),
            Some(s) => padded(&self.starts, s + 1),
        };
        if size.is_none() {
            bounds.push(total);
        } else {
            for b in bounds.iter_mut().skip(1) {
                if *b == 0 {
                    *b = total;
                }
            }
        }
        bounds
            .windows(2)
            .map(|w| w[1] as i32 - w[0] as i32)
            .collect()
    }
}

/// The distinct slices, padded to `size` (with the first slice, or
/// `fill_value` where given) and moved back to `axis`.
fn values(
    moved: &Array,
    runs: &Runs,
    size: Option<usize>,
    fill: Option<&Obj>,
    axis: Option<usize>,
) -> Result<Value> {
    let n = runs.starts.len();
    let count = size.unwrap_or(n);
    let x = Value::Concrete(moved.clone());
    let mut result = if moved.shape()[0] == 0 {
        let mut s = moved.shape().to_vec();
        s[0] = count;
        Value::Concrete(Array::full(&s, 0.0, moved.dtype()))
    } else {
        let picks: Vec<i32> = padded(&runs.starts, count)
            .iter()
            .map(|&k| runs.perm[k] as i32)
            .collect();
        jops::take(&x, &int_array(&picks)?, 0)?
    };
    if let (Some(_), Some(f)) = (size, fill) {
        let f = jops::astype(&crate::python::array::to_value(f)?, moved.dtype())?;
        let mut vshape = vec![1; result.ndim()];
        vshape[0] = count;
        let valid: Vec<bool> = (0..count).map(|k| k < n).collect();
        let valid = Value::Concrete(Array::from_bool(&vshape, valid)?);
        result = where_v(&valid, &result, &f)?;
    }
    match axis {
        Some(a) => jops::moveaxis(&result, 0, a),
        None => Ok(result),
    }
}
