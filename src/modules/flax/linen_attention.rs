//! linen's `DenseGeneral`, `dot_product_attention_weights` and
//! `dot_product_attention`.
//!
//! `DenseGeneral` makes its kernel through the module's `param` with an
//! initializer that draws the 2-D matrix `(prod(in), prod(features))` and
//! reshapes it, as Flax's does, so the default `lecun_normal` has the fan-in
//! of the flattened input; the bias is drawn flat likewise. The product is
//! the nnx `LinearGeneral`'s (`attention::linear_general_apply`).
//!
//! linen's attention is not `jax.nn.dot_product_attention`: it divides the
//! query by `sqrt(depth)` before the query-key product, puts the dtype's
//! most negative number where the mask is false, and applies dropout to the
//! weights with `jax.random.bernoulli`; it is written here in that order so
//! the digits are Flax's.

use super::attention::{linear_general_apply, normalize_axes};
use super::conv::ints_of;
use super::linen::param;
use super::linen_layers::field;
use super::*;
use crate::python::ops::getattr;

/// An initializer that draws `init(key, flat, dtype)` and reshapes it to
/// the shape it is asked for, as Flax's `kernel_init_wrap` does; `split`
/// is how many leading dimensions form the first flat dimension (None: the
/// whole shape is one).
fn flat_init(init: Obj, split: Option<usize>) -> Obj {
    Obj::native("kernel_init_wrap", move |interp, a| {
        let key = a.req(Some(0), "rng", "init")?;
        let shape: Vec<usize> = ints_of(&a.req(Some(1), "shape", "init")?)?
            .iter()
            .map(|&d| d.max(0) as usize)
            .collect();
        let dtype = a.get(Some(2), "dtype").unwrap_or(super::jnp_float32());
        let flat: Vec<usize> = match split {
            Some(k) => vec![shape[..k].iter().product(), shape[k..].iter().product()],
            None => vec![shape.iter().product()],
        };
        let flat_obj = Obj::tuple(flat.iter().map(|&d| Obj::Int(d as i64)).collect());
        let drawn = interp.call(&init, Args::new(vec![key, flat_obj, dtype]))?;
        Ok(Obj::Array(jops::reshape(&to_value(&drawn)?, &shape)?))
    })
}

/// Refuses a non-float32 input or dtype and the named settings when given.
pub(super) fn refuse(me: &Instance, x: &Value, names: &[&str], layer: &str) -> Result<()> {
    super::linen_layers::refuse_dtypes(me, x, layer)?;
    for name in names {
        if !matches!(field(me, name), Obj::None) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: linen {layer} with {name}"
            );
        }
    }
    Ok(())
}

/// `DenseGeneral.__call__(inputs)`.
fn dense_general_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "DenseGeneral.__call__")?;
    let x = to_value(&a.req(Some(1), "inputs", "DenseGeneral.__call__")?)?;
    let custom = [
        "precision",
        "promote_dtype",
        "dot_general",
        "dot_general_cls",
    ];
    refuse(&me, &x, &custom, "DenseGeneral")?;
    if !iterate(&field(&me, "batch_dims"))?.is_empty() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: linen DenseGeneral with batch_dims"
        );
    }
    let features = ints_of(&field(&me, "features"))?;
    let axis = normalize_axes(&ints_of(&field(&me, "axis"))?, x.ndim())?;
    let xs = x.shape();
    let mut kshape: Vec<i64> = axis.iter().map(|&ax| xs[ax] as i64).collect();
    kshape.extend(&features);
    let dims = |v: &[i64]| Obj::tuple(v.iter().map(|&d| Obj::Int(d)).collect());
    let dtype = field(&me, "param_dtype");
    let init = flat_init(field(&me, "kernel_init"), Some(axis.len()));
    let kernel = param(
        interp,
        &me,
        "kernel",
        &init,
        vec![dims(&kshape), dtype.clone()],
    )?;
    let bias = if truthy(&field(&me, "use_bias"), "use_bias")? {
        let init = flat_init(field(&me, "bias_init"), None);
        let b = param(interp, &me, "bias", &init, vec![dims(&features), dtype])?;
        Some(to_value(&b)?)
    } else {
        None
    };
    let y = linear_general_apply(&x, &axis, &to_value(&kernel)?, bias)?;
    Ok(Obj::Array(y))
}

/// Dropout of the attention weights: Flax's `broadcast_dropout` keeps or
/// drops a whole `(q, k)` pattern for every batch and head.
pub(super) struct WeightDropout {
    pub rng: Obj,
    pub rate: f64,
    pub broadcast: bool,
}

/// linen's attention weights `softmax(q / sqrt(depth) . k + bias, masked)`
/// over `[batch..., length, heads, depth]` inputs, shaped
/// `[batch..., heads, q_length, kv_length]`.
pub(super) fn attention_weights(
    interp: &mut Interp,
    (query, key): (&Value, &Value),
    bias: Option<&Value>,
    mask: Option<&Value>,
    dropout: Option<&WeightDropout>,
) -> Result<Value> {
    let (qs, ks) = (query.shape(), key.shape());
    let n = qs.len();
    if n != ks.len() || n < 3 {
        bail!(AssertionError, "q, k must have same rank.");
    }
    if qs[..n - 3] != ks[..n - 3] {
        bail!(AssertionError, "q, k batch dims must match.");
    }
    if qs[n - 2] != ks[n - 2] {
        bail!(AssertionError, "q, k num_heads must match.");
    }
    if qs[n - 1] != ks[n - 1] {
        bail!(AssertionError, "q, k depths must match.");
    }
    let query = jops::convert(query, DType::F32)?;
    let key = jops::convert(key, DType::F32)?;
    let depth = jops::scalar((qs[n - 1] as f64).sqrt(), DType::F32);
    let query = jops::div(&query, &depth)?;
    let mut batch: Vec<usize> = (0..n - 3).collect();
    batch.push(n - 2);
    let mut w = jops::dot_general(&query, &key, (&[n - 1], &[n - 1]), (&batch, &batch))?;
    if let Some(b) = bias {
        w = jops::add(&w, b)?;
    }
    if let Some(m) = mask {
        let m = jops::not_equal(m, &jops::zeros_like(m))?;
        let low = jops::scalar(f32::MIN as f64, DType::F32);
        let shape = crate::array::broadcast::broadcast_shapes(&m.shape(), &w.shape())?;
        let bm = |v: &Value| jops::broadcast_to(v, &shape);
        w = jops::select(&bm(&m)?, &bm(&w)?, &bm(&low)?)?;
    }
    let w = crate::modules::nn::softmax(&w, &[-1])?;
    match dropout {
        Some(d) => drop_weights(interp, w, d),
        None => Ok(w),
    }
}

/// The weights times `keep / keep_prob` for a Bernoulli `keep`.
fn drop_weights(interp: &mut Interp, w: Value, d: &WeightDropout) -> Result<Value> {
    let keep_prob = 1.0 - d.rate;
    let ws = w.shape();
    let shape: Vec<usize> = if d.broadcast {
        let mut s = vec![1; ws.len() - 2];
        s.extend_from_slice(&ws[ws.len() - 2..]);
        s
    } else {
        ws
    };
    let random = crate::modules::import(interp, "jax.random")?;
    let bernoulli = getattr(interp, &random, "bernoulli")?;
    let shape_obj = Obj::tuple(shape.iter().map(|&d| Obj::Int(d as i64)).collect());
    let keep = interp.call(
        &bernoulli,
        Args::new(vec![d.rng.clone(), Obj::Float(keep_prob), shape_obj]),
    )?;
    let keep = jops::convert(&to_value(&keep)?, DType::F32)?;
    let multiplier = jops::div(&keep, &jops::scalar(keep_prob, DType::F32))?;
    jops::mul(&w, &multiplier)
}

/// The arrays and dropout settings both attention functions take; `at` is
/// where `bias` is among the positional parameters.
struct AttentionArgs {
    bias: Option<Value>,
    mask: Option<Value>,
    dropout: Option<WeightDropout>,
    module: Option<Obj>,
}

fn attention_args(a: &Args, at: usize, f: &str) -> Result<AttentionArgs> {
    let arr = |i: usize, n: &str| -> Result<Option<Value>> {
        a.opt(Some(i), n).map(|o| to_value(&o)).transpose()
    };
    for (i, name) in [(at + 6, "dtype"), (at + 7, "precision")] {
        if a.opt(Some(i), name).is_some() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nn.{f} with {name}="
            );
        }
    }
    let custom = ["einsum_dot_general", "einsum", "qk_attn_weights_einsum"];
    for name in custom.into_iter().chain(["attn_weights_value_einsum"]) {
        if a.opt(None, name).is_some() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nn.{f} with {name}="
            );
        }
    }
    let _ = a.get(Some(at + 9), "force_fp32_for_softmax");
    let rate = match a.opt(Some(at + 4), "dropout_rate") {
        Some(r) => crate::python::builtins::to_float(&r)?,
        None => 0.0,
    };
    let deterministic = match a.opt(Some(at + 5), "deterministic") {
        Some(d) => truthy(&d, "deterministic")?,
        None => false,
    };
    let broadcast = match a.opt(Some(at + 2), "broadcast_dropout") {
        Some(b) => truthy(&b, "broadcast_dropout")?,
        None => true,
    };
    let rng = a.opt(Some(at + 3), "dropout_rng");
    let dropout = match (deterministic || rate <= 0.0, rng) {
        (true, _) => None,
        (false, Some(rng)) => Some(WeightDropout {
            rng,
            rate,
            broadcast,
        }),
        (false, None) => bail!(
            TypeError,
            "bernoulli() got None where a PRNG key was expected (dropout_rng)"
        ),
    };
    Ok(AttentionArgs {
        bias: arr(at, "bias")?,
        mask: arr(at + 1, "mask")?,
        dropout,
        module: a.opt(Some(at + 8), "module"),
    })
}

/// Sows the weights into the module's `intermediates`, as Flax does when
/// the attention is given a module.
fn sow_weights(interp: &mut Interp, module: &Option<Obj>, w: &Value) -> Result<()> {
    if let Some(m) = module {
        let sow = getattr(interp, m, "sow")?;
        let args = vec![
            Obj::str("intermediates"),
            Obj::str("attention_weights"),
            Obj::Array(w.clone()),
        ];
        interp.call(&sow, Args::new(args))?;
    }
    Ok(())
}

/// `nn.dot_product_attention_weights(query, key, bias=None, mask=None, ...)`.
fn dot_product_attention_weights(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = "dot_product_attention_weights";
    let query = to_value(&a.req(Some(0), "query", f)?)?;
    let key = to_value(&a.req(Some(1), "key", f)?)?;
    let at = attention_args(&a, 2, f)?;
    let w = sown_weights(interp, (&query, &key), &at)?;
    Ok(Obj::Array(w))
}

/// The attention weights of `query` and `key` under the call's bias, mask
/// and dropout, sown into the module the call names.
fn sown_weights(interp: &mut Interp, qk: (&Value, &Value), at: &AttentionArgs) -> Result<Value> {
    let w = attention_weights(
        interp,
        qk,
        at.bias.as_ref(),
        at.mask.as_ref(),
        at.dropout.as_ref(),
    )?;
    sow_weights(interp, &at.module, &w)?;
    Ok(w)
}

/// The weights applied to `[batch..., kv_length, heads, depth]` values:
/// `[batch..., q_length, heads, depth]`.
pub(super) fn weighted_values(w: &Value, value: &Value) -> Result<Value> {
    let n = value.ndim();
    let mut batch: Vec<usize> = (0..n - 3).collect();
    let mut vbatch = batch.clone();
    batch.push(n - 3);
    vbatch.push(n - 2);
    let out = jops::dot_general(w, value, (&[n - 1], &[n - 3]), (&batch, &vbatch))?;
    let mut perm: Vec<usize> = (0..n - 3).collect();
    perm.extend([n - 2, n - 3, n - 1]);
    jops::transpose(&out, &perm)
}

/// `nn.dot_product_attention(query, key, value, bias=None, mask=None, ...)`.
pub(super) fn dot_product_attention(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = "dot_product_attention";
    let query = to_value(&a.req(Some(0), "query", f)?)?;
    let key = to_value(&a.req(Some(1), "key", f)?)?;
    let value = to_value(&a.req(Some(2), "value", f)?)?;
    let at = attention_args(&a, 3, f)?;
    let (qs, ks, vs) = (query.shape(), key.shape(), value.shape());
    let n = qs.len();
    if ks.len() != n || vs.len() != n || n < 3 {
        bail!(AssertionError, "q, k, v must have same rank.");
    }
    if qs[..n - 3] != ks[..n - 3] || ks[..n - 3] != vs[..n - 3] {
        bail!(AssertionError, "q, k, v batch dims must match.");
    }
    if qs[n - 2] != ks[n - 2] || ks[n - 2] != vs[n - 2] {
        bail!(AssertionError, "q, k, v num_heads must match.");
    }
    if ks[n - 3] != vs[n - 3] {
        bail!(AssertionError, "k, v lengths must match.");
    }
    let w = sown_weights(interp, (&query, &key), &at)?;
    let value = jops::convert(&value, DType::F32)?;
    Ok(Obj::Array(weighted_values(&w, &value)?))
}

/// Adds `DenseGeneral`, the attention functions and the mask helpers to
/// `flax.linen`; returns the `DenseGeneral` class.
pub(super) fn register(
    b: &mut Builder,
    module: &Rc<Class>,
    inits: &Obj,
    kernel_init: &Obj,
) -> Rc<Class> {
    let zeros = match inits {
        Obj::Module(m) => m.get("zeros").unwrap_or(Obj::None),
        _ => Obj::None,
    };
    let none = || Some(Obj::None);
    let fields = vec![
        ("features", None),
        ("axis", Some(Obj::Int(-1))),
        ("batch_dims", Some(Obj::tuple(vec![]))),
        ("use_bias", Some(Obj::Bool(true))),
        ("dtype", none()),
        ("param_dtype", Some(super::jnp_float32())),
        ("kernel_init", Some(kernel_init.clone())),
        ("bias_init", Some(zeros)),
        ("precision", none()),
        ("promote_dtype", none()),
        ("dot_general", none()),
        ("dot_general_cls", none()),
    ];
    let call = vec![(
        "__call__".to_string(),
        Obj::native("DenseGeneral.__call__", dense_general_call),
    )];
    let dense = super::linen_layers::layer_class(module, "DenseGeneral", fields, call);
    b.attr("DenseGeneral", Obj::Class(dense.clone()));
    b.func(
        "dot_product_attention_weights",
        dot_product_attention_weights,
    );
    b.func("dot_product_attention", dot_product_attention);
    super::masks::register(b);
    dense
}
