//! Adafactor: `scale_by_factored_rms` and the `adafactor` optimizer.
//!
//! A matrix-like leaf keeps the moving average of its squared gradient as
//! two vectors (the mean over its largest axis and over its second
//! largest), and is scaled by the rank-one estimate they make; a leaf too
//! small to factor keeps the full average, as RMSProp does.

use crate::array::{Array, DType};
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::super::Builder;
use super::base::{
    field, flag, is_callable, leaves_of, rebuild, safe_increment, state, transformation,
    zero_count, Hyper, Rate,
};
use super::rescaling::{clip_by_block_rms, ema, scale_by_param_block};
use super::transforms::{c, chain, scale, scale_by_learning_rate};

/// The options of `scale_by_factored_rms`.
#[derive(Clone)]
pub(super) struct Factored {
    pub factored: bool,
    pub decay_rate: Hyper,
    pub step_offset: i64,
    pub min_dim_size_to_factor: usize,
    pub epsilon: Hyper,
    /// A program's own `decay_rate_fn(step, decay_rate)`, or None for the
    /// power schedule `1 - (step + 1) ** -decay_rate`.
    pub decay_rate_fn: Option<Obj>,
}

/// The two axes a leaf's statistics are factored over (second largest,
/// largest), or None when it has fewer than two axes or its second largest
/// is under the minimum size. Ties keep the axes' order (a stable sort).
fn factored_dims(shape: &[usize], f: &Factored) -> Option<(usize, usize)> {
    if !f.factored || shape.len() < 2 {
        return None;
    }
    let mut order: Vec<usize> = (0..shape.len()).collect();
    order.sort_by_key(|&i| shape[i]);
    let (d1, d0) = (order[order.len() - 2], order[order.len() - 1]);
    (shape[d1] >= f.min_dim_size_to_factor).then_some((d1, d0))
}

/// Zeros of `x`'s dtype in `x`'s shape without `axis`.
fn zeros_without(x: &Value, axis: usize) -> Value {
    let mut shape = x.shape();
    shape.remove(axis);
    Value::Concrete(Array::zeros(&shape, x.dtype()))
}

fn one_zero(x: &Value) -> Value {
    Value::Concrete(Array::zeros(&[1], x.dtype()))
}

/// The decay at `step` (the state's count).
fn decay_at(interp: &mut Interp, f: &Factored, step: &Value) -> Result<Value> {
    let offset = jops::scalar(f.step_offset as f64, step.dtype());
    let i = jops::sub(step, &offset)?;
    if let Some(func) = &f.decay_rate_fn {
        let rate = match &f.decay_rate {
            Hyper::Num(v) => Obj::Float(*v),
            Hyper::Arr(v) => Obj::Array(v.clone()),
        };
        let out = interp.call(func, Args::new(vec![Obj::Array(i), rate]))?;
        return to_value(&out);
    }
    let t = jops::convert(&jops::add(&i, &jops::scalar(1.0, i.dtype()))?, DType::F32)?;
    let exponent = f.decay_rate.neg()?.value();
    jops::sub(&c(1.0), &jops::pow(&t, &exponent)?)
}

/// `x ** -0.5`.
fn inv_sqrt(x: &Value) -> Result<Value> {
    jops::pow(x, &c(-0.5))
}

/// `decay * v + (1 - decay) * x`, in `v`'s dtype.
fn average(decay: &Value, v: &Value, x: &Value) -> Result<Value> {
    let one_minus = jops::sub(&c(1.0), decay)?;
    let new = jops::add(&jops::mul(decay, v)?, &jops::mul(&one_minus, x)?)?;
    jops::convert(&new, v.dtype())
}

/// One leaf's update and its new `(v_row, v_col, v)`.
fn update_leaf(
    f: &Factored,
    decay: &Value,
    g: &Value,
    (v_row, v_col, v): (&Value, &Value, &Value),
    shape: &[usize],
) -> Result<[Value; 4]> {
    let sq = jops::add(&jops::mul(g, g)?, &f.epsilon.value())?;
    let Some((d1, d0)) = factored_dims(shape, f) else {
        let new_v = average(decay, v, &sq)?;
        let out = jops::mul(g, &inv_sqrt(&new_v)?)?;
        return Ok([out, one_zero(g), one_zero(g), new_v]);
    };
    let row = average(decay, v_row, &jops::mean(&sq, Some(&[d0 as i64]), false)?)?;
    let col = average(decay, v_col, &jops::mean(&sq, Some(&[d1 as i64]), false)?)?;
    let reduced_d1 = if d1 > d0 { d1 - 1 } else { d1 };
    let row_col_mean = jops::mean(&row, Some(&[reduced_d1 as i64]), true)?;
    let row_factor = inv_sqrt(&jops::div(&row, &row_col_mean)?)?;
    let col_factor = inv_sqrt(&col)?;
    let out = jops::mul(
        &jops::mul(g, &jops::expand_dims(&row_factor, d0 as i64)?)?,
        &jops::expand_dims(&col_factor, d1 as i64)?,
    )?;
    Ok([out, row, col, one_zero(g)])
}

fn factored_state(count: Obj, v_row: Obj, v_col: Obj, v: Obj) -> Obj {
    state(
        "FactoredState",
        vec![
            ("count", count),
            ("v_row", v_row),
            ("v_col", v_col),
            ("v", v),
        ],
    )
}

/// The initial statistics of every leaf of `p`.
fn init(interp: &mut Interp, f: &Factored, p: &Obj) -> Result<Obj> {
    let (leaves, def) = leaves_of(interp, p)?;
    let mut parts: [Vec<Value>; 3] = Default::default();
    for x in &leaves {
        let [r, c, v] = match factored_dims(&x.shape(), f) {
            Some((d1, d0)) => [zeros_without(x, d0), zeros_without(x, d1), one_zero(x)],
            None => [one_zero(x), one_zero(x), jops::zeros_like(x)],
        };
        parts[0].push(r);
        parts[1].push(c);
        parts[2].push(v);
    }
    let [r, c, v] = parts;
    Ok(factored_state(
        zero_count(),
        rebuild(interp, &def, r)?,
        rebuild(interp, &def, c)?,
        rebuild(interp, &def, v)?,
    ))
}

/// `scale_by_factored_rms(...)`.
pub(super) fn scale_by_factored_rms(f: Factored) -> Obj {
    let f2 = f.clone();
    transformation(
        move |interp, p| init(interp, &f, p),
        move |interp, u, st, p, _| {
            if p.is_none() {
                bail!(ValueError, "{}", super::rescaling::NO_PARAMS);
            }
            let count = to_value(&field(st, "count")?)?;
            let decay = decay_at(interp, &f2, &count)?;
            let (g, def) = leaves_of(interp, u)?;
            let (rows, _) = leaves_of(interp, &field(st, "v_row")?)?;
            let (cols, _) = leaves_of(interp, &field(st, "v_col")?)?;
            let (vs, _) = leaves_of(interp, &field(st, "v")?)?;
            let (ps, _) = leaves_of(interp, p.unwrap_or(u))?;
            let mut out: [Vec<Value>; 4] = Default::default();
            for i in 0..g.len() {
                let leaf = (&rows[i], &cols[i], &vs[i]);
                let parts = update_leaf(&f2, &decay, &g[i], leaf, &ps[i].shape())?;
                for (o, x) in out.iter_mut().zip(parts) {
                    o.push(x);
                }
            }
            let [upd, r, c, v] = out;
            let st = factored_state(
                Obj::Array(safe_increment(&count)?),
                rebuild(interp, &def, r)?,
                rebuild(interp, &def, c)?,
                rebuild(interp, &def, v)?,
            );
            Ok((rebuild(interp, &def, upd)?, st))
        },
    )
}

/// An integer option of `func`.
fn int_arg(a: &Args, index: usize, name: &str, default: i64, func: &str) -> Result<i64> {
    match a.opt(Some(index), name) {
        None => Ok(default),
        Some(Obj::Int(n)) => Ok(n),
        Some(Obj::Bool(b)) => Ok(b as i64),
        Some(other) => match other.as_number() {
            Some(v) if v.fract() == 0.0 => Ok(v as i64),
            _ => bail!(
                NotImplementedError,
                "not supported by shardlab yet: optax.{func} with {name}={}",
                crate::python::format::repr_of(&other)
            ),
        },
    }
}

/// The options of `scale_by_factored_rms` at their positions there.
fn factored_args(a: &Args) -> Result<Factored> {
    let f = "scale_by_factored_rms";
    Ok(Factored {
        factored: flag(a, Some(0), "factored", true)?,
        decay_rate: Hyper::arg(a, Some(1), "decay_rate", Some(0.8), f)?,
        step_offset: int_arg(a, 2, "step_offset", 0, f)?,
        min_dim_size_to_factor: int_arg(a, 3, "min_dim_size_to_factor", 128, f)?.max(0) as usize,
        epsilon: Hyper::arg(a, Some(4), "epsilon", Some(1e-30), f)?,
        decay_rate_fn: a.opt(Some(5), "decay_rate_fn").filter(is_callable),
    })
}

/// `adafactor(...)`: the factored scaling, clipped by block RMS, scaled
/// by the learning rate and the parameters' RMS, with optional momentum
/// and weight decay, and negated.
fn adafactor(a: &Args) -> Result<Obj> {
    let f = "adafactor";
    // The momentum accumulator is float32 unless another dtype is asked.
    if let Some(d) = a.opt(Some(7), "dtype_momentum") {
        if !crate::python::format::str_of(&d).contains("float32") {
            super::alias::refuse(a, Some(7), "dtype_momentum", f)?;
        }
    }
    let given = |i: usize, n: &str| a.opt(Some(i), n).filter(|o| !matches!(o, Obj::None));
    let mut txs = vec![scale_by_factored_rms(Factored {
        factored: flag(a, Some(10), "factored", true)?,
        decay_rate: Hyper::arg(a, Some(2), "decay_rate", Some(0.8), f)?,
        step_offset: int_arg(a, 3, "decay_offset", 0, f)?,
        min_dim_size_to_factor: int_arg(a, 1, "min_dim_size_to_factor", 128, f)?.max(0) as usize,
        epsilon: Hyper::arg(a, Some(9), "eps", Some(1e-30), f)?,
        decay_rate_fn: None,
    })];
    let clipping = match a.get(Some(5), "clipping_threshold") {
        None => Some(Hyper::Num(1.0)),
        Some(Obj::None) => None,
        Some(o) => Some(Hyper::from_obj(&o, "clipping_threshold", f)?),
    };
    if let Some(t) = clipping {
        txs.push(clip_by_block_rms(t));
    }
    if given(0, "learning_rate").is_some() {
        let lr = Rate::arg(a, Some(0), "learning_rate", None, f)?;
        txs.push(scale_by_learning_rate(lr, false)?);
    }
    if flag(a, Some(4), "multiply_by_parameter_scale", true)? {
        txs.push(scale_by_param_block(1e-3, true));
    }
    if given(6, "momentum").is_some() {
        txs.push(ema(Hyper::arg(a, Some(6), "momentum", None, f)?, false));
    }
    if let Some(wd) = given(8, "weight_decay_rate") {
        if is_callable(&wd) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: optax.adafactor with a weight_decay_rate schedule"
            );
        }
        let tx =
            super::transforms::add_decayed_weights(Hyper::from_obj(&wd, "weight_decay_rate", f)?);
        txs.push(match given(11, "weight_decay_mask") {
            Some(m) => super::wrappers::masked(tx, m),
            None => tx,
        });
    }
    txs.push(scale(Hyper::Num(-1.0)));
    Ok(chain(txs))
}

/// Registers `scale_by_factored_rms` and `adafactor` on `optax`.
pub(super) fn register(b: &mut Builder) {
    b.func("scale_by_factored_rms", |_, a| {
        Ok(scale_by_factored_rms(factored_args(&a)?))
    });
    b.func("adafactor", |_, a| adafactor(&a));
}
