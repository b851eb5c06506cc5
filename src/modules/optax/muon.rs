//! `optax.contrib.muon`: momentum orthogonalised by Newton-Schulz
//! iterations (`scale_by_muon`), for the matrix-shaped parameters, with
//! AdamW for the others (`muon`), and `MuonDimensionNumbers`, which says
//! which axes of a leaf form the matrix.
//!
//! A leaf is moved to `(batch, reduction, output)` and each of its
//! matrices is orthogonalised on its own, as optax's `vmap` does; the
//! iterations are written with float32 operations in optax's order.

use std::rc::Rc;

use crate::array::{Array, DType};
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::pytree::{flatten, flatten_full, flatten_up_to, unflatten};
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, err, ops as jops};

use super::super::Builder;
use super::base::{
    field, flag, hmul, is_callable, leaves_of, rebuild, safe_increment, state, transformation,
    tree_map, tuple_class, zero_count, zeros_tree, Hyper, Rate,
};
use super::transforms::{bias_correction, c, chain, moment, scale_by_learning_rate};

const DIMS: &str = "MuonDimensionNumbers";

/// How the first iteration prepares the matrix.
#[derive(Clone, Copy, PartialEq)]
enum Preconditioning {
    Frobenius,
    Aol,
    Schatten,
}

/// Where a leaf's matrix axes come from: every leaf a plain matrix, or a
/// tree (or a function of the updates giving one) of
/// `MuonDimensionNumbers` and None. Inside `muon`, the updates the
/// transformation sees hold only the Muon leaves, so the None entries of
/// the tree are skipped.
#[derive(Clone)]
struct DimSpec {
    dims: Option<Obj>,
    skip_none: bool,
}

/// The options of `scale_by_muon`.
#[derive(Clone)]
struct Muon {
    ns_coeffs: Value,
    ns_steps: usize,
    beta: Hyper,
    eps: Hyper,
    nesterov: bool,
    adaptive: bool,
    preconditioning: Preconditioning,
    dims: DimSpec,
}

/// Whether `o` is None or a `MuonDimensionNumbers` (a leaf of a tree of
/// dimension numbers).
fn is_dims_leaf(o: &Obj) -> bool {
    match o {
        Obj::None => true,
        Obj::Instance(i) => i.class.name == DIMS,
        _ => false,
    }
}

/// The entries of a dimension-numbers tree, one per leaf of `u`.
fn resolve(interp: &mut Interp, spec: &DimSpec, u: &Obj, n: usize) -> Result<Vec<Obj>> {
    let Some(dims) = &spec.dims else {
        // Optax maps over the updates and None together, which only works
        // when the updates are a single array (or, inside `muon`, when the
        // function it passes gives the default for every Muon leaf).
        if !spec.skip_none && !matches!(u, Obj::Array(_)) {
            bail!(
                ValueError,
                "pytree structure error: different types at key path: the updates are {} but weight_dimension_numbers is None",
                u.type_name()
            );
        }
        return Ok(vec![Obj::None; n]);
    };
    let tree = if is_callable(dims) {
        interp.call(dims, Args::new(vec![u.clone()]))?
    } else {
        dims.clone()
    };
    let is_leaf = Obj::native("is_leaf", |_, a| {
        Ok(Obj::Bool(a.pos.first().is_some_and(is_dims_leaf)))
    });
    let (mut entries, _, _) = flatten_full(interp, &tree, Some(&is_leaf), false)?;
    if spec.skip_none {
        entries.retain(|e| !matches!(e, Obj::None));
    }
    if entries.len() != n {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.contrib.scale_by_muon with dimension numbers that do not match the updates leaf for leaf"
        );
    }
    Ok(entries)
}

/// Axes given as an int or a sequence of ints, each taken modulo `ndim`.
fn axes_of(o: &Obj, ndim: usize) -> Result<Vec<usize>> {
    let items = match o {
        Obj::Tuple(t) => t.to_vec(),
        Obj::List(l) => l.borrow().clone(),
        other => vec![other.clone()],
    };
    items
        .iter()
        .map(|x| match x {
            Obj::Int(k) => Ok(k.rem_euclid(ndim as i64) as usize),
            other => bail!(TypeError, "an axis must be an int, got {}", repr_of(other)),
        })
        .collect()
}

/// The reduction and output axes of a leaf of shape `shape`.
fn axes(entry: &Obj, shape: &[usize]) -> Result<(Vec<usize>, Vec<usize>)> {
    let nd = shape.len();
    if matches!(entry, Obj::None) {
        if nd != 2 {
            bail!(
                ValueError,
                "Input must have shape (m, n) or weight dimension numbers must be provided. Got shape={} and dimension_numbers=None.",
                crate::array::shape_tuple(shape)
            );
        }
        return Ok((vec![0], vec![1]));
    }
    if nd < 2 {
        bail!(
            ValueError,
            "Muon optimized parameters must have rank >= 2, got x.ndim={nd}"
        );
    }
    let red = axes_of(&field(entry, "reduction_axis")?, nd)?;
    let out = axes_of(&field(entry, "output_axis")?, nd)?;
    if red.iter().any(|a| out.contains(a)) {
        bail!(
            ValueError,
            "Normalized reduction axes and output axes must be disjoint, got {red:?} and {out:?}."
        );
    }
    Ok((red, out))
}

/// `sqrt(sum(x * x))` over every element.
fn fro_norm(x: &Value) -> Result<Value> {
    jops::sqrt(&jops::sum(&jops::mul(x, x)?, None, false)?)
}

/// Element `i` of a coefficient row.
fn coeff(row: &Value, i: usize) -> Result<Value> {
    jops::reshape(&jops::slice(row, &[i], &[i + 1], &[1])?, &[])
}

/// One Newton-Schulz step `c0 x + (c1 A + (c2 A) A) x` with `A = x x^T`,
/// the first one preconditioned as asked.
fn ns_step(x: &Value, row: &Value, first: bool, p: Preconditioning, eps: &Hyper) -> Result<Value> {
    let (c0, c1, c2) = (coeff(row, 0)?, coeff(row, 1)?, coeff(row, 2)?);
    let mut x = x.clone();
    let mut a = jops::matmul(&x, &jops::transpose(&x, &[1, 0])?)?;
    if first && p == Preconditioning::Aol {
        let sums = jops::sum(&jops::abs(&a)?, Some(&[-1]), false)?;
        let s = jops::expand_dims(&rsqrt(&jops::maximum(&eps.value(), &sums)?)?, -1)?;
        x = jops::mul(&x, &s)?;
        a = jops::mul(&jops::mul(&a, &s)?, &jops::transpose(&s, &[1, 0])?)?;
    } else if first && p == Preconditioning::Schatten {
        let norm = jops::maximum(&eps.value(), &fro_norm(&a)?)?;
        let s = jops::reshape(&rsqrt(&norm)?, &[1, 1])?;
        x = jops::mul(&x, &s)?;
        a = jops::mul(&a, &jops::integer_pow(&s, 2)?)?;
    }
    let b = jops::add(
        &jops::mul(&c1, &a)?,
        &jops::matmul(&jops::mul(&c2, &a)?, &a)?,
    )?;
    jops::add(&jops::mul(&c0, &x)?, &jops::matmul(&b, &x)?)
}

fn rsqrt(x: &Value) -> Result<Value> {
    jops::unary(crate::array::UnaryOp::Rsqrt, x)
}

/// One matrix orthogonalised: transposed to be wide, scaled, iterated.
fn orthogonalize_matrix(m: &Muon, coeffs: &Value, x: &Value) -> Result<Value> {
    let s = x.shape();
    let transposed = s[0] > s[1];
    let mut x = if transposed {
        jops::transpose(x, &[1, 0])?
    } else {
        x.clone()
    };
    if m.preconditioning == Preconditioning::Frobenius {
        x = jops::div(&x, &jops::add(&fro_norm(&x)?, &m.eps.value())?)?;
    }
    let cs = coeffs.shape();
    let rows: Vec<Value> = if cs.len() == 1 {
        vec![coeffs.clone(); m.ns_steps]
    } else {
        (0..cs[0])
            .map(|i| jops::reshape(&jops::slice(coeffs, &[i, 0], &[i + 1, 3], &[1, 1])?, &[3]))
            .collect::<Result<_>>()?
    };
    for (i, row) in rows.iter().enumerate() {
        x = ns_step(&x, row, i == 0, m.preconditioning, &m.eps)?;
    }
    if transposed {
        x = jops::transpose(&x, &[1, 0])?;
    }
    Ok(x)
}

/// A leaf orthogonalised matrix by matrix along its batch axes.
fn orthogonalize(m: &Muon, coeffs: &Value, x: &Value, entry: &Obj) -> Result<Value> {
    let shape = x.shape();
    let (red, out) = axes(entry, &shape)?;
    let batch: Vec<usize> = (0..shape.len())
        .filter(|a| !red.contains(a) && !out.contains(a))
        .collect();
    let perm: Vec<usize> = batch.iter().chain(&red).chain(&out).copied().collect();
    let size = |ax: &[usize]| ax.iter().map(|&a| shape[a]).product::<usize>();
    let flat = [size(&batch), size(&red), size(&out)];
    let moved = jops::reshape(&jops::transpose(x, &perm)?, &flat)?;
    let mut parts = vec![];
    for b in 0..flat[0] {
        let one = jops::slice(&moved, &[b, 0, 0], &[b + 1, flat[1], flat[2]], &[1, 1, 1])?;
        let one = jops::reshape(&one, &[flat[1], flat[2]])?;
        parts.push(orthogonalize_matrix(m, coeffs, &one)?);
    }
    let unflat: Vec<usize> = perm.iter().map(|&a| shape[a]).collect();
    let back = jops::reshape(&jops::stack(&parts, 0)?, &unflat)?;
    let mut inverse = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p] = i;
    }
    jops::transpose(&back, &inverse)
}

/// The coefficients as the state keeps them: float32, `(3,)` or the last
/// `ns_steps` rows of `(n, 3)`.
fn coeffs_array(o: &Obj, ns_steps: usize) -> Result<Value> {
    let v = match o {
        Obj::Array(v) => jops::convert(v, DType::F32)?,
        other => {
            let (leaves, _) = crate::python::pytree::flatten_known(other)?;
            let nums: Vec<f32> = leaves
                .iter()
                .map(|x| x.as_number().map(|v| v as f32))
                .collect::<Option<_>>()
                .ok_or_else(|| err!(TypeError, "ns_coeffs must be numbers"))?;
            let shape = match other {
                Obj::Tuple(t) if t.iter().all(|r| matches!(r, Obj::Tuple(_) | Obj::List(_))) => {
                    vec![t.len(), nums.len().checked_div(t.len()).unwrap_or(0)]
                }
                Obj::List(l)
                    if l.borrow()
                        .iter()
                        .all(|r| matches!(r, Obj::Tuple(_) | Obj::List(_))) =>
                {
                    let n = l.borrow().len();
                    vec![n, nums.len().checked_div(n).unwrap_or(0)]
                }
                _ => vec![nums.len()],
            };
            Value::Concrete(Array::from_f32(&shape, nums)?)
        }
    };
    let s = v.shape();
    if s.len() > 2 || s.last() != Some(&3) {
        bail!(
            ValueError,
            "ns_coeffs must have shape (3,) or (n, 3), got {}",
            crate::array::shape_tuple(&s)
        );
    }
    if s.len() == 2 && s[0] > ns_steps {
        bail!(ValueError, "Not enough coeffs to perform {ns_steps} steps");
    }
    Ok(v)
}

fn muon_state(count: Obj, mu: Obj, coeffs: Obj) -> Obj {
    state(
        "MuonState",
        vec![("count", count), ("mu", mu), ("ns_coeffs", coeffs)],
    )
}

/// The bias-corrected momentum, with Nesterov's look-ahead when asked.
fn mu_hat(m: &Muon, mu: &Value, g: &Value, count: &Value) -> Result<Value> {
    if !m.nesterov {
        return bias_correction(mu, &m.beta, count);
    }
    let mu = bias_correction(mu, &m.beta, &safe_increment(count)?)?;
    let g = bias_correction(g, &m.beta, count)?;
    jops::add(&hmul(&m.beta, &mu)?, &hmul(&m.beta.one_minus()?, &g)?)
}

/// `scale_by_muon(...)`.
fn scale_by_muon(m: Muon) -> Obj {
    let coeffs = m.ns_coeffs.clone();
    transformation(
        move |interp, p| {
            let mu = zeros_tree(interp, p)?;
            Ok(muon_state(zero_count(), mu, Obj::Array(coeffs.clone())))
        },
        move |interp, u, st, _, _| {
            let mu = tree_map(interp, &[u, &field(st, "mu")?], |x| {
                moment(x[0], x[1], &m.beta, 1)
            })?;
            let count = safe_increment(&to_value(&field(st, "count")?)?)?;
            let hat = tree_map(interp, &[&mu, u], |x| mu_hat(&m, x[0], x[1], &count))?;
            let coeffs = to_value(&field(st, "ns_coeffs")?)?;
            let (leaves, def) = leaves_of(interp, &hat)?;
            let entries = resolve(interp, &m.dims, u, leaves.len())?;
            let mut out = vec![];
            for (x, e) in leaves.iter().zip(&entries) {
                let o = orthogonalize(&m, &coeffs, x, e)?;
                out.push(if m.adaptive {
                    jops::mul(&jops::sum(&jops::mul(x, &o)?, None, false)?, &o)?
                } else {
                    o
                });
            }
            let out = rebuild(interp, &def, out)?;
            let st = muon_state(Obj::Array(count), mu, Obj::Array(coeffs));
            Ok((out, st))
        },
    )
}

/// `scale_by_shape`: each update scaled for its matrix's shape, by
/// `sqrt(max(1, fan_out / fan_in))` or, with `consistent_rms`, by
/// `sqrt(max(fan_in, fan_out)) * consistent_rms`.
fn scale_by_shape(dims: DimSpec, consistent_rms: Option<Hyper>) -> Obj {
    super::base::stateless(move |interp, u, _| {
        let (leaves, def) = leaves_of(interp, u)?;
        let entries = resolve(interp, &dims, u, leaves.len())?;
        let mut out = vec![];
        for (x, e) in leaves.iter().zip(&entries) {
            let shape = x.shape();
            let (red, outs) = axes(e, &shape)?;
            let fan_in: usize = red.iter().map(|&a| shape[a]).product();
            let fan_out: usize = outs.iter().map(|&a| shape[a]).product();
            let scale = match &consistent_rms {
                None => jops::sqrt(&c((fan_out as f64 / fan_in as f64).max(1.0)))?,
                Some(rms) => hmul(rms, &jops::sqrt(&c(fan_in.max(fan_out) as f64))?)?,
            };
            out.push(jops::mul(&scale, x)?);
        }
        rebuild(interp, &def, out)
    })
}

fn preconditioning(a: &Args) -> Result<Preconditioning> {
    let p = match a.opt(None, "preconditioning") {
        Some(o) => crate::python::format::str_of(&o),
        None => "frobenius".into(),
    };
    Ok(match p.as_str() {
        "frobenius" => Preconditioning::Frobenius,
        "aol" => Preconditioning::Aol,
        "schatten" => Preconditioning::Schatten,
        "spectral" => bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.contrib.muon with preconditioning='spectral'"
        ),
        other => bail!(ValueError, "Unknown preconditioning {other}"),
    })
}

/// The coefficients argument: numbers, rows of numbers, or (for `muon`) a
/// preset's name.
fn coeffs_arg(a: &Args, index: usize, steps: usize) -> Result<Value> {
    match a.opt(Some(index), "ns_coeffs") {
        None => coeffs_array(&standard(), steps),
        Some(Obj::Str(s)) => match s.as_ref() {
            "standard" => coeffs_array(&standard(), steps),
            "dion" => coeffs_array(&dion(), steps),
            other => bail!(ValueError, "Unknown ns_coeff preset string: {other}"),
        },
        Some(o) => coeffs_array(&o, steps),
    }
}

fn row(v: [f64; 3]) -> Obj {
    Obj::tuple(v.iter().map(|x| Obj::Float(*x)).collect())
}

/// Muon's usual coefficients (Keller Jordan's quintic iteration).
fn standard() -> Obj {
    row([3.4445, -4.7750, 2.0315])
}

/// The coefficients of the Dion paper's five steps.
fn dion() -> Obj {
    Obj::tuple(
        [
            [4.0848, -6.8946, 2.9270],
            [3.9505, -6.3029, 2.6377],
            [3.7418, -5.5913, 2.3037],
            [2.8769, -3.1427, 1.2046],
            [2.8366, -3.0525, 1.2012],
        ]
        .into_iter()
        .map(row)
        .collect(),
    )
}

/// The options shared by `scale_by_muon` and `muon`, whose positions of
/// `ns_coeffs, ns_steps, beta, eps` start at `first`.
fn muon_args(a: &Args, first: usize, mu_dtype: usize, dims: DimSpec, f: &str) -> Result<Muon> {
    super::alias::refuse(a, Some(mu_dtype), "mu_dtype", f)?;
    let steps = match a.opt(Some(first + 1), "ns_steps") {
        None => 5,
        Some(Obj::Int(n)) if n >= 0 => n as usize,
        Some(o) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.contrib.{f} with ns_steps={}",
            repr_of(&o)
        ),
    };
    Ok(Muon {
        ns_coeffs: coeffs_arg(a, first, steps)?,
        ns_steps: steps,
        beta: Hyper::arg(a, Some(first + 2), "beta", Some(0.95), f)?,
        eps: Hyper::arg(a, Some(first + 3), "eps", Some(1e-8), f)?,
        nesterov: flag(a, None, "nesterov", true)?,
        adaptive: flag(a, None, "adaptive", false)?,
        preconditioning: preconditioning(a)?,
        dims,
    })
}

/// The labels `muon` gives the parameters: "muon" for a matrix (or a leaf
/// the dimension numbers name), "adam" for the rest.
fn labels(interp: &mut Interp, dims: &Option<Obj>, params: &Obj) -> Result<Obj> {
    let label = |muon: bool| Obj::str(if muon { "muon" } else { "adam" });
    let Some(dims) = dims else {
        let (leaves, def) = leaves_of(interp, params)?;
        let ls: Vec<Obj> = leaves.iter().map(|x| label(x.ndim() == 2)).collect();
        return unflatten(interp, &def, &ls);
    };
    let tree = if is_callable(dims) {
        interp.call(dims, Args::new(vec![params.clone()]))?
    } else {
        dims.clone()
    };
    let is_leaf = Obj::native("is_leaf", |_, a| {
        Ok(Obj::Bool(a.pos.first().is_some_and(is_dims_leaf)))
    });
    let (entries, _, def) = flatten_full(interp, &tree, Some(&is_leaf), false)?;
    let subtrees = flatten_up_to(interp, &def, params)?;
    let mut out = vec![];
    for (e, sub) in entries.iter().zip(&subtrees) {
        let (leaves, sdef) = flatten(interp, sub)?;
        let ls: Vec<Obj> = leaves
            .iter()
            .map(|_| label(!matches!(e, Obj::None)))
            .collect();
        out.push(unflatten(interp, &sdef, &ls)?);
    }
    unflatten(interp, &def, &out)
}

/// `optax.name(**kw)`, through the module as a program calls it.
fn optax_call(
    interp: &mut Interp,
    name: &str,
    pos: Vec<Obj>,
    kw: Vec<(String, Obj)>,
) -> Result<Obj> {
    let m = crate::modules::import(interp, "optax")?;
    let f = crate::python::ops::getattr(interp, &m, name)?;
    interp.call(&f, Args::with(pos, kw))
}

/// `muon(learning_rate, ...)`: the Muon chain for the matrices, AdamW for
/// the other parameters, as a `partition`.
fn muon(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let f = "muon";
    let lr_obj = a.req(Some(0), "learning_rate", f)?;
    let dims = a.opt(None, "muon_weight_dimension_numbers");
    let spec = DimSpec {
        dims: dims.clone(),
        skip_none: true,
    };
    let m = muon_args(a, 1, 7, spec.clone(), f)?;
    let rms = match a.opt(None, "consistent_rms") {
        Some(o) => Some(Hyper::from_obj(&o, "consistent_rms", f)?),
        None => None,
    };
    let wd = a.opt(Some(5), "weight_decay").unwrap_or(Obj::Float(0.0));
    let wd_mask = a.opt(Some(6), "weight_decay_mask").unwrap_or(Obj::None);
    let eps = a.opt(Some(4), "eps").unwrap_or(Obj::Float(1e-8));
    let nesterov = Obj::Bool(m.nesterov);
    let decay = optax_call(interp, "add_decayed_weights", vec![wd, wd_mask], vec![])?;
    let lr = Rate::arg(a, Some(0), "learning_rate", None, f)?;
    let muon_chain = chain(vec![
        scale_by_muon(m),
        scale_by_shape(spec, rms),
        decay,
        scale_by_learning_rate(lr, true)?,
    ]);
    let kw = |n: &str, d: f64| (n.to_string(), a.opt(None, n).unwrap_or(Obj::Float(d)));
    let adam_lr = a.opt(None, "adam_learning_rate").unwrap_or(lr_obj);
    let adam = optax_call(
        interp,
        "adamw",
        vec![],
        vec![
            ("learning_rate".into(), adam_lr),
            kw("adam_b1", 0.9).renamed("b1"),
            kw("adam_b2", 0.999).renamed("b2"),
            ("eps".into(), eps),
            kw("adam_eps_root", 0.0).renamed("eps_root"),
            kw("adam_weight_decay", 0.0).renamed("weight_decay"),
            ("nesterov".into(), nesterov),
        ],
    )?;
    let mut txs = crate::python::value::Dict::default();
    txs.set(Obj::str("muon"), muon_chain);
    txs.set(Obj::str("adam"), adam);
    let txs = Obj::Dict(Rc::new(std::cell::RefCell::new(txs)));
    let label_fn = Obj::native("param_labels", move |interp, a| {
        let params = a.req(Some(0), "params", "param_labels")?;
        labels(interp, &dims, &params)
    });
    optax_call(interp, "partition", vec![txs, label_fn], vec![])
}

/// A keyword argument renamed for the call it is passed on to.
trait Renamed {
    fn renamed(self, to: &str) -> Self;
}

impl Renamed for (String, Obj) {
    fn renamed(self, to: &str) -> Self {
        (to.to_string(), self.1)
    }
}

/// The `MuonDimensionNumbers(reduction_axis=0, output_axis=1)` class.
fn dims_class() -> Obj {
    let doc = "Which axes of a weight form the matrix Muon orthogonalises: the reduction axes (the rows, summed over in x @ W) and the output axes (the columns); every other axis is a batch axis, each of its matrices orthogonalised on its own.";
    tuple_class(
        DIMS,
        &[
            ("reduction_axis", Some(|| Obj::Int(0))),
            ("output_axis", Some(|| Obj::Int(1))),
        ],
        vec![
            ("__doc__".into(), Obj::str(doc)),
            ("__module__".into(), Obj::str("optax.contrib._muon")),
        ],
    )
}

/// Registers `scale_by_muon`, `muon` and `MuonDimensionNumbers` on
/// `optax.contrib`.
pub(super) fn register(b: &mut Builder) {
    b.func("scale_by_muon", |_, a| {
        let dims = DimSpec {
            dims: a.opt(None, "weight_dimension_numbers"),
            skip_none: false,
        };
        Ok(scale_by_muon(muon_args(&a, 0, 4, dims, "scale_by_muon")?))
    });
    b.func("muon", |interp, a| muon(interp, &a));
    b.attr(DIMS, dims_class());
}
