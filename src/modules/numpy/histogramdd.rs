//! `jnp.histogramdd` and `jnp.histogram2d`, composed of jnp functions in
//! JAX's order: per dimension the edges of `histogram_bin_edges` and the
//! bin `searchsorted(edges, x, 'right')` names (a value on the last edge
//! counted in the last bin), the bins of all dimensions raveled into one
//! index that `bincount` counts with the weights, and the outer (overflow)
//! bins cut off. A density divides by the total and by each bin's widths.

use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::compose::flag;
use super::composed::{arraylike_arg, call, item, jnp, method, slice};

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("histogramdd", |i, a| {
        let sample = arraylike_arg(&a, 0, "sample", "histogramdd")?;
        let (hist, edges) = histogramdd(i, sample, &a)?;
        Ok(Obj::tuple(vec![hist, Obj::list(edges)]))
    });
    b.func("histogram2d", histogram2d);
}

/// A value that `len()` accepts (a sequence or an array with a dimension).
fn length(o: &Obj) -> Option<usize> {
    match o {
        Obj::List(_) | Obj::Tuple(_) => iterate(o).ok().map(|v| v.len()),
        Obj::Array(v) => v.shape().first().copied(),
        _ => None,
    }
}

/// `histogram2d(x, y, bins=10, range=None, weights=None, density=None)`.
fn histogram2d(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = arraylike_arg(&a, 0, "x", "histogram2d")?;
    let y = arraylike_arg(&a, 1, "y", "histogram2d")?;
    let bins = a.get(Some(2), "bins").unwrap_or(Obj::Int(10));
    let bins = match length(&bins) {
        None | Some(1) | Some(2) => bins,
        Some(_) => {
            let edges = jnp(interp, "asarray", vec![bins])?;
            Obj::list(vec![edges.clone(), edges])
        }
    };
    let pair = jnp(interp, "asarray", vec![Obj::list(vec![x, y])])?;
    let sample = jnp(interp, "transpose", vec![pair])?;
    let rest = Args::with(
        vec![sample.clone(), bins],
        [(3, "range"), (4, "weights"), (5, "density")]
            .iter()
            .filter_map(|&(i, k)| a.get(Some(i), k).map(|v| (k.to_string(), v)))
            .collect(),
    );
    let (hist, mut edges) = histogramdd(interp, sample, &rest)?;
    let ye = edges.pop().unwrap_or(Obj::None);
    let xe = edges.pop().unwrap_or(Obj::None);
    Ok(Obj::tuple(vec![hist, xe, ye]))
}

/// `histogramdd(sample, bins=10, range=None, weights=None, density=None)`
/// with `sample` given apart from the rest of the arguments.
fn histogramdd(interp: &mut Interp, sample: Obj, a: &Args) -> Result<(Obj, Vec<Obj>)> {
    let (sample, weights) = match a.opt(Some(3), "weights") {
        None => (inexact(&sample)?, None),
        Some(w) => {
            let (ss, ws) = (to_value(&sample)?.shape(), to_value(&w)?.shape());
            if ws != ss[..ss.len().min(1)] {
                bail!(ValueError, "should have one weight for each sample.");
            }
            let (s, w) = promote(sample, w)?;
            (s, Some(w))
        }
    };
    let shape = to_value(&sample)?.shape();
    let [n, d] = shape[..] else {
        bail!(
            ValueError,
            "histogramdd: the sample must be of shape (N, D), got {}",
            crate::array::shape_tuple(&shape)
        );
    };
    let range = a.opt(Some(2), "range");
    let ranges: Option<Vec<Obj>> = range.as_ref().map(iterate).transpose()?;
    if let Some(r) = &ranges {
        if r.len() != d
            || r.iter()
                .any(|x| !matches!(x, Obj::None) && length(x) != Some(2))
        {
            let text = interp.repr(range.as_ref().unwrap_or(&Obj::None))?;
            bail!(ValueError, "For sample.shape={}, range must be a sequence of {d} pairs or Nones; got range={text}", crate::array::shape_tuple(&[n, d]));
        }
    }
    let bins = a.get(Some(1), "bins").unwrap_or(Obj::Int(10));
    let per_dim = match &bins {
        Obj::List(_) | Obj::Tuple(_) | Obj::Array(_) if length(&bins).is_some() => iterate(&bins)?,
        _ => vec![bins.clone(); d],
    };
    if per_dim.len() != d {
        bail!(ValueError, "should be a bin for each dimension.");
    }
    let (mut idx, mut edges) = (vec![], vec![]);
    for (i, bins_i) in per_dim.into_iter().enumerate() {
        let column = item(
            interp,
            &sample,
            Obj::tuple(vec![slice(None, None), Obj::Int(i as i64)]),
        )?;
        let range_i = ranges
            .as_ref()
            .map(|r| r[i].clone())
            .filter(|r| !matches!(r, Obj::None));
        let e = super::statistics::bin_edges(interp, column.clone(), bins_i, range_i)?;
        idx.push(bin_index(interp, &column, &e)?);
        edges.push(e);
    }
    let hist = count(interp, idx, &edges, weights)?;
    if !flag(a, Some(4), "density", false)? {
        return Ok((hist, edges));
    }
    let dt = Obj::DType(to_value(&sample)?.dtype());
    let hist = method(interp, &hist, "astype", vec![dt])?;
    let total = method(interp, &hist, "sum", vec![])?;
    let mut hist = jnp(interp, "divide", vec![hist, total])?;
    let widths = edges
        .iter()
        .map(|e| jnp(interp, "diff", vec![e.clone()]))
        .collect::<Result<Vec<_>>>()?;
    let grids = jnp(interp, "ix_", widths)?;
    for g in iterate(&grids)? {
        hist = jnp(interp, "divide", vec![hist, g])?;
    }
    Ok((hist, edges))
}

/// The bin of each value: `searchsorted(edges, x, 'right')`, one less for
/// a value equal to the last edge.
fn bin_index(interp: &mut Interp, x: &Obj, edges: &Obj) -> Result<Obj> {
    let kw = vec![("side", Obj::str("right"))];
    let idx = call(interp, "searchsorted", vec![edges.clone(), x.clone()], kw)?;
    let last = item(interp, edges, Obj::Int(-1))?;
    let at_last = jnp(interp, "equal", vec![x.clone(), last])?;
    let less = jnp(interp, "subtract", vec![idx.clone(), Obj::Int(1)])?;
    jnp(interp, "where", vec![at_last, less, idx])
}

/// The weighted counts of the raveled bin indices, shaped per dimension
/// with the overflow bins cut off.
fn count(interp: &mut Interp, idx: Vec<Obj>, edges: &[Obj], weights: Option<Obj>) -> Result<Obj> {
    let nbins: Vec<i64> = edges
        .iter()
        .map(|e| Ok(to_value(e)?.shape()[0] as i64 + 1))
        .collect::<Result<_>>()?;
    let dims = Obj::tuple(nbins.iter().map(|&b| Obj::Int(b)).collect());
    let kw = vec![("mode", Obj::str("clip"))];
    let flat = call(
        interp,
        "ravel_multi_index",
        vec![Obj::tuple(idx), dims.clone()],
        kw,
    )?;
    let kw = vec![("length", Obj::Int(nbins.iter().product()))];
    let hist = call(
        interp,
        "bincount",
        vec![flat, weights.unwrap_or(Obj::None)],
        kw,
    )?;
    let hist = jnp(interp, "reshape", vec![hist, dims])?;
    let core = Obj::tuple(vec![slice(Some(1), Some(-1)); nbins.len()]);
    item(interp, &hist, core)
}

fn inexact(x: &Obj) -> Result<Obj> {
    Ok(Obj::Array(super::compose::to_inexact(&to_value(x)?)?))
}

/// Both promoted to one inexact dtype.
fn promote(x: Obj, y: Obj) -> Result<(Obj, Obj)> {
    let (x, y) = super::compose::promoted(&x, &y)?;
    Ok((inexact(&Obj::Array(x))?, inexact(&Obj::Array(y))?))
}
