//! `nnx.LinearGeneral`, `nnx.MultiHeadAttention` and the attention helpers
//! (`dot_product_attention`, `make_attention_mask`, `make_causal_mask`,
//! `combine_masks`).
//!
//! `LinearGeneral` contracts the input's `axis` dimensions with a kernel of
//! shape `in_features + out_features`. Flax draws that kernel as the 2-D
//! matrix `(prod(in), prod(out))` and reshapes it, so the fan-in of the
//! default `lecun_normal` is the product of the contracted dimensions and
//! the numbers are those of a `Linear` of the flattened sizes; the bias
//! likewise is drawn flat. `MultiHeadAttention` makes four of them (query,
//! key, value, then out, drawing their keys in that order from `params`),
//! and attends with JAX's `jax.nn.dot_product_attention` when no dropout
//! applies, as Flax does.

use super::display::FunctionRef;
use super::*;
use crate::modules::nn_attention::{attention_xla, ensure_4d, Attention};

use super::conv::ints_of;

fn tuple_of(v: &[i64]) -> Obj {
    Obj::tuple(v.iter().map(|&d| Obj::Int(d)).collect())
}

fn dims(v: &[i64]) -> Result<Vec<usize>> {
    v.iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| err!(ValueError, "negative dimensions are not allowed"))
        })
        .collect()
}

/// An empty `FrozenDict`, the `batch_axis` of every `LinearGeneral` here.
struct EmptyFrozenDict;

impl Object for EmptyFrozenDict {
    fn type_name(&self) -> String {
        "FrozenDict".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("FrozenDict({})".into())
    }
}

/// `init(key, flat_shape, float32)` reshaped to `shape`, or `default` drawn
/// flat when the program gives no initializer.
fn draw_flat(
    interp: &mut Interp,
    init: Option<Obj>,
    key: Obj,
    (flat, shape): (&[usize], &[usize]),
    default: impl Fn(&Obj, &[usize]) -> Result<Obj>,
) -> Result<Obj> {
    let drawn = match init {
        Some(f) => {
            let flat_obj = Obj::tuple(flat.iter().map(|&d| Obj::Int(d as i64)).collect());
            interp.call(&f, Args::new(vec![key, flat_obj, super::jnp_float32()]))?
        }
        None => default(&key, flat)?,
    };
    Ok(Obj::Array(jops::reshape(&to_value(&drawn)?, shape)?))
}

fn refuse_given(a: &Args, layer: &str, names: &[&str]) -> Result<()> {
    for name in names {
        if a.opt(None, name).is_some() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.{layer} with {name}="
            );
        }
    }
    Ok(())
}

fn check_f32_params(a: &Args, layer: &str) -> Result<()> {
    if a.get(None, "param_dtype").is_some_and(|d| {
        crate::modules::numpy::jnp_scalar_types::exact_dtype(&d) != Some(DType::F32)
    }) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.{layer} with param_dtype other than float32"
        );
    }
    Ok(())
}

fn empty_metadata(a: &Args, layer: &str, names: &[&str]) -> Result<()> {
    for name in names {
        if let Some(m) = a.opt(None, name) {
            if !iterate(&m)?.is_empty() {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx.{layer} with {name}"
                );
            }
        }
    }
    Ok(())
}

fn linear_general_init(param: Rc<Class>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |interp, a| {
        let f = "LinearGeneral";
        let me = self_arg(&a, f)?;
        let din = ints_of(&a.req(Some(1), "in_features", f)?)?;
        let dout = ints_of(&a.req(Some(2), "out_features", f)?)?;
        let axis = match a.opt(None, "axis") {
            Some(o) => ints_of(&o)?,
            None => vec![-1],
        };
        check_linear_general(&a, f, &din, &axis)?;
        let use_bias = match a.get(None, "use_bias") {
            Some(o) => truthy(&o, "use_bias")?,
            None => true,
        };
        let (kernel, bias) = draw_linear_general(interp, &a, f, (&din, &dout), use_bias)?;
        let set = |k: &str, v: Obj| set_iattr(&me, k, v);
        set("in_features", tuple_of(&din));
        set("out_features", tuple_of(&dout));
        set("axis", tuple_of(&axis));
        set("batch_axis", Obj::lib(EmptyFrozenDict));
        set("use_bias", Obj::Bool(use_bias));
        set("dtype", Obj::None);
        set("param_dtype", super::jnp_float32());
        set("precision", Obj::None);
        set("dot_general", Obj::None);
        set("dot_general_cls", Obj::None);
        let promote = a.opt(None, "promote_dtype");
        set(
            "promote_dtype",
            promote.unwrap_or_else(|| Obj::lib(FunctionRef("promote_dtype"))),
        );
        set("preferred_element_type", Obj::None);
        set(
            "kernel",
            super::metadata::new_variable(interp, &param, kernel, &[])?,
        );
        let bias = match bias {
            Some(b) => super::metadata::new_variable(interp, &param, b, &[])?,
            None => Obj::None,
        };
        set("bias", bias);
        Ok(Obj::None)
    }
}

/// `LinearGeneral`'s refusals, and its check that `in_features` and
/// `axis` pair up.
fn check_linear_general(a: &Args, f: &str, din: &[i64], axis: &[i64]) -> Result<()> {
    refuse_given(
        a,
        f,
        &[
            "dtype",
            "precision",
            "dot_general",
            "dot_general_cls",
            "preferred_element_type",
        ],
    )?;
    check_f32_params(a, f)?;
    empty_metadata(a, f, &["batch_axis", "kernel_metadata", "bias_metadata"])?;
    if din.len() != axis.len() {
        bail!(
            ValueError,
            "in_features and axis must have the same length. Got {} and {}.",
            repr_of(&tuple_of(din)),
            repr_of(&tuple_of(axis))
        );
    }
    Ok(())
}

/// `LinearGeneral`'s kernel and bias (when `use_bias`), drawn from the
/// `params` stream of its `rngs`.
fn draw_linear_general(
    interp: &mut Interp,
    a: &Args,
    f: &str,
    (din, dout): (&[i64], &[i64]),
    use_bias: bool,
) -> Result<(Obj, Option<Obj>)> {
    let rngs = a.req(None, "rngs", f)?;
    let (ins, outs) = (dims(din)?, dims(dout)?);
    let kshape: Vec<usize> = ins.iter().chain(&outs).copied().collect();
    let flat = [
        ins.iter().product::<usize>(),
        outs.iter().product::<usize>(),
    ];
    let key = super::nnx::rngs_next(&rngs, "params")?;
    let kernel = draw_flat(
        interp,
        a.opt(None, "kernel_init"),
        key,
        (&flat, &kshape),
        |k, s| {
            super::nnx::default_draw(
                k,
                s,
                crate::random::initializers::lecun_normal,
                crate::random::traced_init::lecun_normal,
            )
        },
    )?;
    let bias = if use_bias {
        let key = super::nnx::rngs_next(&rngs, "params")?;
        let zeros = |_: &Obj, s: &[usize]| {
            Ok(Obj::Array(Value::Concrete(
                crate::random::initializers::zeros(s)?,
            )))
        };
        let b = draw_flat(
            interp,
            a.opt(None, "bias_init"),
            key,
            (&flat[1..], &outs),
            zeros,
        )?;
        Some(b)
    } else {
        None
    };
    Ok((kernel, bias))
}

/// `axis` of an `ndim`-dimensional input as indices, as Flax normalizes it.
pub(super) fn normalize_axes(axis: &[i64], ndim: usize) -> Result<Vec<usize>> {
    axis.iter().map(|&ax| jops::norm_axis(ax, ndim)).collect()
}

fn linear_general_call(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "LinearGeneral.__call__")?;
    let x = to_value(&a.req(Some(1), "inputs", "LinearGeneral.__call__")?)?;
    if a.opt(None, "out_sharding").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.LinearGeneral with out_sharding="
        );
    }
    let get = |n: &str| iattr(&me, n).unwrap_or(Obj::None);
    let axis = normalize_axes(&ints_of(&get("axis"))?, x.ndim())?;
    let kernel = super::nnx::value_of(&get("kernel"))?;
    let bias = match get("bias") {
        Obj::None => None,
        b => Some(super::nnx::value_of(&b)?),
    };
    Ok(Obj::Array(linear_general_apply(&x, &axis, &kernel, bias)?))
}

/// `x` contracted over `axis` with the kernel's leading dimensions, plus
/// the bias over the kernel's trailing (feature) dimensions.
pub(super) fn linear_general_apply(
    x: &Value,
    axis: &[usize],
    kernel: &Value,
    bias: Option<Value>,
) -> Result<Value> {
    let x = if x.dtype() == DType::F32 {
        x.clone()
    } else {
        jops::convert(x, DType::F32)?
    };
    let xs = x.shape();
    let ks = kernel.shape();
    for (k, &ax) in axis.iter().enumerate() {
        if xs[ax] != ks[k] {
            bail!(
                TypeError,
                "dot_general requires contracting dimensions to have the same shape, got {:?} and {:?}.",
                axis.iter().map(|&d| xs[d]).collect::<Vec<_>>(),
                &ks[..axis.len()]
            );
        }
    }
    let contract: Vec<usize> = (0..axis.len()).collect();
    let y = jops::dot_general(&x, kernel, (axis, &contract), (&[], &[]))?;
    match bias {
        None => Ok(y),
        Some(b) => {
            let free = x.ndim() - axis.len();
            let mut shape = vec![1; free];
            shape.extend(ks[axis.len()..].iter().copied());
            jops::add(&y, &jops::reshape(&b, &shape)?)
        }
    }
}

/// `nnx.LinearGeneral`.
pub(super) fn linear_general_class(module: &Rc<Class>, param: &Rc<Class>) -> Rc<Class> {
    new_class(
        "LinearGeneral",
        vec![module.clone()],
        vec![
            (
                "__init__".into(),
                Obj::native("LinearGeneral.__init__", linear_general_init(param.clone())),
            ),
            (
                "__call__".into(),
                Obj::native("LinearGeneral.__call__", linear_general_call),
            ),
        ],
    )
}

// ------------------------------------------------ the attention function

/// `nnx.dot_product_attention`, which is also what a `MultiHeadAttention`
/// holds as its `attention_fn` (and prints as Flax's function).
struct AttentionFn;

impl Object for AttentionFn {
    fn type_name(&self) -> String {
        "function".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!(
            "<function dot_product_attention at {:#x}>",
            self as *const AttentionFn as usize
        ))
    }

    fn callable(&self) -> bool {
        true
    }

    fn call(&self, interp: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        Some(nnx_dot_product_attention(interp, &args))
    }
}

fn mask_as_bool(m: Value) -> Result<Value> {
    if m.dtype() == DType::Bool {
        return Ok(m);
    }
    jops::not_equal(&m, &jops::zeros_like(&m))
}

/// Flax's `dot_product_attention(query, key, value, bias=None, mask=None,
/// ...)` with no module to sow into: without a dropout rate, inputs of more
/// than four dimensions have their batch dimensions flattened for JAX's
/// attention; with one (even when deterministic) Flax computes the weights
/// itself, as linen's function does.
fn nnx_dot_product_attention(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let f = "dot_product_attention";
    // Flax's order: ..., broadcast_dropout, dropout_rng, dropout_rate,
    // deterministic, dtype, precision, module, promote_dtype, is_causal.
    let rate = a.opt(Some(7), "dropout_rate").and_then(|o| o.as_number());
    refuse_attention_options(a)?;
    let arr = |i: usize, n: &str| -> Result<Option<Value>> {
        a.opt(Some(i), n).map(|o| to_value(&o)).transpose()
    };
    let query = to_value(&a.req(Some(0), "query", f)?)?;
    let key = to_value(&a.req(Some(1), "key", f)?)?;
    let value = to_value(&a.req(Some(2), "value", f)?)?;
    let (qs, ks, vs) = (query.shape(), key.shape(), value.shape());
    check_qkv_shapes(&qs, &ks, &vs)?;
    let is_causal = match a.get(Some(13), "is_causal") {
        Some(o) => truthy(&o, "is_causal")?,
        None => false,
    };
    if rate.is_some_and(|r| r != 0.0) {
        let f32 = [&query, &key, &value]
            .iter()
            .all(|v| v.dtype() == DType::F32);
        if is_causal || qs[qs.len() - 2] != ks[ks.len() - 2] || !f32 {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.dot_product_attention with a dropout rate and is_causal, grouped key heads or other than float32 inputs"
            );
        }
        return super::linen_attention::dot_product_attention(interp, a.clone());
    }
    let flat = |v: Value| flat_batch(v, qs.len());
    let at = Attention {
        query: flat(query)?,
        key: flat(key)?,
        value: flat(value)?,
        bias: arr(3, "bias")?.map(flat).transpose()?,
        mask: arr(4, "mask")?
            .map(mask_as_bool)
            .transpose()?
            .map(flat)
            .transpose()?,
        is_causal,
        scale: None,
    };
    let out = attention_xla(&at)?;
    Ok(Obj::Array(jops::reshape(&out, &qs)?))
}

/// The arguments Flax takes that shardlab does not compute, refused by
/// name (`broadcast_dropout` and `dropout_rng` are read and unused).
fn refuse_attention_options(a: &Args) -> Result<()> {
    if a.opt(Some(11), "module").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.dot_product_attention with module= (sown attention weights)"
        );
    }
    for (i, name) in [(9, "dtype"), (10, "precision"), (12, "promote_dtype")] {
        if a.opt(Some(i), name).is_some() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.dot_product_attention with {name}="
            );
        }
    }
    let _ = (
        a.get(Some(5), "broadcast_dropout"),
        a.get(Some(6), "dropout_rng"),
    );
    Ok(())
}

/// Flax's checks of the query, key and value shapes.
fn check_qkv_shapes(qs: &[usize], ks: &[usize], vs: &[usize]) -> Result<()> {
    if qs.len() != ks.len() || qs.len() != vs.len() {
        bail!(
            ValueError,
            "q, k, v must have same rank, but got {}, {}, {}.",
            qs.len(),
            ks.len(),
            vs.len()
        );
    }
    if ks.len() >= 3 && vs.len() >= 3 && ks[ks.len() - 3] != vs[vs.len() - 3] {
        bail!(
            ValueError,
            "k, v lengths must match, but got {} and {}.",
            ks[ks.len() - 3],
            vs[vs.len() - 3]
        );
    }
    Ok(())
}

/// `v` as the 4-d (batch, length, heads, features) the attention kernel
/// takes: up to rank 4 as `ensure_4d` pads it, above that with its
/// leading batch dimensions flattened into one.
fn flat_batch(v: Value, rank: usize) -> Result<Value> {
    if rank <= 4 {
        return ensure_4d(&v);
    }
    let s = v.shape();
    let n = s.len();
    let mut to = vec![s[..n - 3].iter().product()];
    to.extend_from_slice(&s[n - 3..]);
    jops::reshape(&v, &to)
}

/// Adds `LinearGeneral`, `MultiHeadAttention` and `dot_product_attention`
/// to `flax.nnx`.
pub(super) fn register(b: &mut Builder, module: &Rc<Class>, param: &Rc<Class>) {
    let attention_fn = Obj::lib(AttentionFn);
    let linear_general = linear_general_class(module, param);
    let classes = super::mha::MhaClasses {
        module: module.clone(),
        linear_general: linear_general.clone(),
        attention_fn: attention_fn.clone(),
    };
    b.attr("LinearGeneral", Obj::Class(linear_general));
    b.attr(
        "MultiHeadAttention",
        Obj::Class(super::mha::mha_class(&classes)),
    );
    b.attr("dot_product_attention", attention_fn);
}
