//! `jax.nn.dot_product_attention` with JAX's 'xla' implementation: the
//! logits `q . k` per head scaled by `1/sqrt(depth)` (in float32), masked
//! positions set to `-0.7 * finfo(float32).max`, a softmax over the keys and
//! the values weighted by it.
//!
//! Query heads may be a multiple of the key/value heads (grouped-query
//! attention): JAX splits the query heads into `(K, G)` and maps over the
//! group, which is the batched contraction below with the group kept as a
//! free dimension; each sum is the same one JAX computes.

use crate::error::Result;
use crate::python::array::to_value;
use crate::python::format::str_of;
use crate::python::ops::truthy;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, ops as jops};

use crate::array::DType;

/// The arrays of one attention call, each 4-D (`[B, T, N, H]` and
/// `[B, S, K, H]`; bias and mask `[B or 1, N or 1, T or 1, S or 1]`).
pub struct Attention {
    pub query: Value,
    pub key: Value,
    pub value: Value,
    pub bias: Option<Value>,
    pub mask: Option<Value>,
    pub is_causal: bool,
    pub scale: Option<f64>,
}

/// `t` with leading axes of size 1 up to rank 4, as JAX's `_ensure_4d`.
pub fn ensure_4d(t: &Value) -> Result<Value> {
    let shape = t.shape();
    if shape.len() >= 4 {
        return Ok(t.clone());
    }
    let mut to = vec![1; 4 - shape.len()];
    to.extend_from_slice(&shape);
    jops::reshape(t, &to)
}

/// A bias or mask of shape `[b, n, t, s]` laid out as the logits are,
/// `[B, K, G, T, S]`: one head broadcast to every group, or the heads split.
fn grouped(t: &Value, logits: &[usize], k: usize, g: usize) -> Result<Value> {
    let s = t.shape();
    let split = if s[1] == 1 {
        jops::reshape(t, &[s[0], 1, 1, s[2], s[3]])?
    } else if s[1] == k * g {
        jops::reshape(t, &[s[0], k, g, s[2], s[3]])?
    } else {
        bail!(
            ValueError,
            "Incompatible shapes for broadcasting: {:?} and {:?}",
            s,
            logits
        );
    };
    let ss = split.shape();
    for (d, (&have, &want)) in ss.iter().zip(logits).enumerate() {
        if have != 1 && have != want {
            bail!(
                ValueError,
                "Incompatible shapes for broadcasting: {:?} and {:?} (axis {d})",
                s,
                logits
            );
        }
    }
    jops::broadcast_to(&split, logits)
}

fn check_shapes(a: &Attention) -> Result<(usize, usize, usize, usize, usize, usize)> {
    let (qs, ks, vs) = (a.query.shape(), a.key.shape(), a.value.shape());
    for (name, s) in [("query", &qs), ("key", &ks), ("value", &vs)] {
        if s.len() != 4 {
            bail!(ValueError, "{name} ndim should be 4, but got {}", s.len());
        }
    }
    let (b, s, k, h) = (ks[0], ks[1], ks[2], ks[3]);
    if vs != ks {
        bail!(
            ValueError,
            "value shape should be {:?}: but got {:?}",
            [b, s, k, h],
            vs
        );
    }
    if qs[0] != b || qs[3] != h {
        bail!(
            ValueError,
            "query shape should be [{b}, -1, -1, {h}]: but got {:?}",
            qs
        );
    }
    if qs[2] % k != 0 {
        bail!(
            ValueError,
            "The number of query heads must be a multiple of key/value heads, but got {} vs {k}",
            qs[2]
        );
    }
    Ok((b, qs[1], s, k, qs[2] / k, h))
}

/// The attention of `a`, shape `[B, T, N, H]`.
pub fn attention_xla(a: &Attention) -> Result<Value> {
    for v in [&a.query, &a.key, &a.value] {
        if v.dtype() != DType::F32 {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: dot_product_attention of {} arrays",
                v.dtype().name()
            );
        }
    }
    let (b, t, s, k, g, h) = check_shapes(a)?;
    let q = jops::reshape(&a.query, &[b, t, k, g, h])?;
    // [B, K] batch, contracting H: [B, K, T, G, S], then [B, K, G, T, S].
    let logits = jops::dot_general(&q, &a.key, (&[4], &[3]), (&[0, 2], &[0, 2]))?;
    let logits = jops::transpose(&logits, &[0, 1, 3, 2, 4])?;
    let scale = a.scale.unwrap_or(1.0 / (h as f64).sqrt());
    let mut logits = jops::mul_scalar(&logits, scale)?;
    let shape = [b, k, g, t, s];
    if let Some(bias) = &a.bias {
        logits = jops::add(&logits, &grouped(bias, &shape, k, g)?)?;
    }
    let mut keep: Option<Value> = match &a.mask {
        Some(m) if m.dtype() != DType::Bool => bail!(
            ValueError,
            "mask dtype should be bool, but got {}",
            m.dtype().name()
        ),
        Some(m) => Some(grouped(m, &shape, k, g)?),
        None => None,
    };
    if a.is_causal {
        let rows = jops::reshape(&iota(t)?, &[t, 1])?;
        let cols = jops::reshape(&iota(s)?, &[1, s])?;
        let tril = jops::broadcast_to(&jops::greater_equal(&rows, &cols)?, &shape)?;
        keep = Some(match keep {
            Some(m) => jops::binary(crate::array::BinaryOp::And, &m, &tril)?,
            None => tril,
        });
    }
    if let Some(m) = keep {
        let big = f32::MAX as f64 * -0.7;
        let fill = jops::broadcast_to(&jops::scalar(big as f32 as f64, DType::F32), &shape)?;
        logits = jops::select(&m, &logits, &fill)?;
    }
    let probs = crate::modules::nn::softmax(&logits, &[-1])?;
    // [B, K] batch, contracting S: [B, K, G, T, H], then [B, T, K, G, H].
    let out = jops::dot_general(&probs, &a.value, (&[4], &[1]), (&[0, 1], &[0, 2]))?;
    let out = jops::transpose(&out, &[0, 3, 1, 2, 4])?;
    jops::reshape(&out, &[b, t, k * g, h])
}

fn iota(n: usize) -> Result<Value> {
    let data: Vec<i32> = (0..n as i32).collect();
    Ok(Value::Concrete(crate::array::Array::from_i32(&[n], data)?))
}

fn array_arg(a: &Args, i: usize, name: &str) -> Result<Option<Value>> {
    match a.opt(Some(i), name) {
        None => Ok(None),
        Some(o) => Ok(Some(to_value(&o)?)),
    }
}

/// `jax.nn.dot_product_attention(query, key, value, bias=None, mask=None,
/// *, scale=None, is_causal=False, ...)`.
pub fn dot_product_attention(_: &mut crate::python::interp::Interp, a: Args) -> Result<Obj> {
    let f = "dot_product_attention";
    for name in [
        "query_seq_lengths",
        "key_value_seq_lengths",
        "local_window_size",
        "return_residual",
    ] {
        if let Some(o) = a.opt(None, name) {
            if !matches!(o, Obj::Bool(false)) {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: jax.nn.dot_product_attention with {name}"
                );
            }
        }
    }
    if let Some(i) = a.opt(None, "implementation") {
        if str_of(&i) != "xla" {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.nn.dot_product_attention with implementation={}",
                str_of(&i)
            );
        }
    }
    let query = to_value(&a.req(Some(0), "query", f)?)?;
    let out_shape = query.shape();
    let at = Attention {
        query: ensure_4d(&query)?,
        key: ensure_4d(&to_value(&a.req(Some(1), "key", f)?)?)?,
        value: ensure_4d(&to_value(&a.req(Some(2), "value", f)?)?)?,
        bias: array_arg(&a, 3, "bias")?
            .map(|v| ensure_4d(&v))
            .transpose()?,
        mask: array_arg(&a, 4, "mask")?
            .map(|v| ensure_4d(&v))
            .transpose()?,
        is_causal: match a.get(None, "is_causal") {
            Some(o) => truthy(&o, "is_causal")?,
            None => false,
        },
        scale: a.opt(None, "scale").and_then(|o| o.as_number()),
    };
    let out = attention_xla(&at)?;
    Ok(Obj::Array(jops::reshape(&out, &out_shape)?))
}
