//! `RandomState.choice(a, size=None, replace=True, p=None)`, drawing what
//! NumPy's legacy `choice` draws: `randint` indices for uniform draws with
//! replacement, inverse-CDF lookups of uniform doubles for weighted ones, a
//! prefix of a permutation for uniform draws without replacement, and
//! NumPy's rounds of weighted draws (dropping repeats) for weighted ones.

use std::cell::RefCell;

use crate::bail;
use crate::error::Result;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};

use super::host::{int_array, HostArray, Kind};
use super::legacy::{permuted_range, replace_arg};
use super::mt19937::Legacy;
use super::rng::size_arg;

/// What `choice` picks from.
enum Population {
    /// `a` was an integer: the picks are `range(a)`.
    Count(usize),
    /// A one-dimensional array of numbers.
    Values(HostArray),
    /// A list of other objects (strings); only single picks.
    Objects(Vec<Obj>),
}

impl Population {
    fn new(a: &Obj, samples: usize) -> Result<Population> {
        let pop = match a {
            Obj::Int(_) | Obj::Bool(_) => Population::Count(count(a, samples)?),
            Obj::Float(_) => bail!(ValueError, "a must be 1-dimensional or an integer"),
            _ => match HostArray::from_obj(a) {
                Ok(h) if h.shape.is_empty() && !h.kind.is_float() => {
                    Population::Count(count(&h.item(0), samples)?)
                }
                Ok(h) if h.shape.is_empty() => {
                    bail!(ValueError, "a must be 1-dimensional or an integer")
                }
                Ok(h) if h.shape.len() != 1 => bail!(ValueError, "a must be 1-dimensional"),
                Ok(h) => Population::Values(h),
                Err(_) => Population::Objects(iterate(a)?),
            },
        };
        if pop.len() == 0 && samples != 0 && !matches!(pop, Population::Count(_)) {
            bail!(
                ValueError,
                "'a' cannot be empty unless no samples are taken"
            );
        }
        Ok(pop)
    }

    fn len(&self) -> usize {
        match self {
            Population::Count(n) => *n,
            Population::Values(h) => h.size(),
            Population::Objects(v) => v.len(),
        }
    }
}

fn count(a: &Obj, samples: usize) -> Result<usize> {
    let n = crate::python::builtins::to_int(a)?;
    if n <= 0 && samples != 0 {
        bail!(
            ValueError,
            "a must be greater than 0 unless no samples are taken"
        );
    }
    Ok(n.max(0) as usize)
}

/// The probabilities `p`, checked as NumPy checks them.
fn probabilities(p: &Obj, pop: usize) -> Result<Vec<f64>> {
    let h = HostArray::from_obj(p)?;
    // The tolerance of the sum: the square root of the float's epsilon,
    // float32's for a float32 array.
    let atol = if h.kind == Kind::Float32 {
        (f32::EPSILON as f64).sqrt()
    } else {
        f64::EPSILON.sqrt()
    };
    if h.shape.len() != 1 {
        bail!(ValueError, "'p' must be 1-dimensional");
    }
    if h.size() != pop {
        bail!(ValueError, "'a' and 'p' must have same size");
    }
    let sum = kahan_sum(&h.data);
    if sum.is_nan() {
        bail!(ValueError, "probabilities contain NaN");
    }
    if h.data.iter().any(|&x| x < 0.0) {
        bail!(ValueError, "probabilities are not non-negative");
    }
    if (sum - 1.0).abs() > atol {
        bail!(ValueError, "probabilities do not sum to 1");
    }
    Ok(h.data)
}

fn kahan_sum(x: &[f64]) -> f64 {
    let Some(&first) = x.first() else {
        return 0.0;
    };
    let (mut sum, mut c) = (first, 0.0);
    for &v in &x[1..] {
        let y = v - c;
        let t = sum + y;
        c = (t - sum) - y;
        sum = t;
    }
    sum
}

/// The normalised cumulative sum of `p`.
fn cdf(p: &[f64]) -> Vec<f64> {
    let mut acc = 0.0;
    let mut c: Vec<f64> = p
        .iter()
        .map(|&x| {
            acc += x;
            acc
        })
        .collect();
    let last = c.last().copied().unwrap_or(1.0);
    for v in &mut c {
        *v /= last;
    }
    c
}

/// `searchsorted(cdf, u, side='right')`.
fn lookup(cdf: &[f64], u: f64) -> usize {
    cdf.partition_point(|&c| c <= u)
}

/// Weighted draws without replacement: rounds of `rand(left)` looked up in
/// the CDF of the weights not yet drawn, keeping each round's new indices in
/// order of first appearance.
fn weighted_unique(g: &mut Legacy, p: &[f64], n: usize) -> Result<Vec<usize>> {
    if p.iter().filter(|&&x| x > 0.0).count() < n {
        bail!(ValueError, "Fewer non-zero entries in p than size");
    }
    let mut p = p.to_vec();
    let mut found: Vec<usize> = vec![];
    while found.len() < n {
        let u: Vec<f64> = (0..n - found.len()).map(|_| g.double()).collect();
        for &f in &found {
            p[f] = 0.0;
        }
        let c = cdf(&p);
        let mut new: Vec<usize> = vec![];
        for x in u {
            let i = lookup(&c, x);
            if !new.contains(&i) {
                new.push(i);
            }
        }
        found.extend(new);
    }
    Ok(found)
}

fn indices(
    g: &mut Legacy,
    pop: usize,
    n: usize,
    replace: bool,
    p: Option<&[f64]>,
) -> Result<Vec<usize>> {
    Ok(match (replace, p) {
        (true, None) => (0..n).map(|_| g.bounded(pop as u64 - 1) as usize).collect(),
        (true, Some(p)) => {
            let c = cdf(p);
            (0..n).map(|_| lookup(&c, g.double())).collect()
        }
        (false, _) if n > pop => bail!(
            ValueError,
            "Cannot take a larger sample than population when 'replace=False'"
        ),
        (false, None) => permuted_range(g, pop as i64)[..n]
            .iter()
            .map(|&i| i as usize)
            .collect(),
        (false, Some(p)) => weighted_unique(g, p, n)?,
    })
}

/// `choice(a, size=None, replace=True, p=None)`.
pub(super) fn choice(st: &RefCell<Legacy>, a: &Args) -> Result<Obj> {
    let a_obj = a.req(Some(0), "a", "choice")?;
    let size = size_arg(a, 1)?;
    let n = size.as_ref().map_or(1, |s| s.iter().product());
    let replace = replace_arg(a)?;
    let pop = Population::new(&a_obj, n)?;
    let p = match a.opt(Some(3), "p") {
        Some(p) => Some(probabilities(&p, pop.len())?),
        None => None,
    };
    let idx = if n == 0 {
        vec![]
    } else {
        indices(&mut st.borrow_mut(), pop.len(), n, replace, p.as_deref())?
    };
    let Some(shape) = size else {
        return Ok(match &pop {
            Population::Count(_) => Obj::Int(idx[0] as i64),
            Population::Values(h) => h.item(idx[0]),
            Population::Objects(v) => v[idx[0]].clone(),
        });
    };
    match &pop {
        Population::Count(_) => {
            let v: Vec<i64> = idx.iter().map(|&i| i as i64).collect();
            int_array(&shape, &v)
        }
        Population::Values(h) => {
            let data: Vec<f64> = idx.iter().map(|&i| h.data[i]).collect();
            super::hostfuncs::wrap_host(HostArray {
                shape,
                data,
                kind: h.kind,
            })
        }
        Population::Objects(_) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: choice of several non-numeric items (arrays here hold numbers)"
        ),
    }
}
