//! linen's `MultiHeadDotProductAttention` (also `MultiHeadAttention`) and
//! `SelfAttention`.
//!
//! The layer is a compact module with four `DenseGeneral` children, made
//! and called in Flax's order (`query`, `key`, `value`, then `out`), so
//! each draws its parameters from its own path as Flax's does. Its
//! `__call__` runs in the module's own scope (`linen::call_in_scope`) so
//! that the children bind to it, and attends with linen's
//! `dot_product_attention`, drawing the `dropout` key when dropout applies
//! and no `dropout_rng` is given.

use super::linen::{call_in_scope, make_rng, module_path};
use super::linen_attention::dot_product_attention;
use super::linen_layers::{field, layer_class, merge_param};
use super::*;

const LAYER: &str = "MultiHeadDotProductAttention";

fn refuse(me: &Instance) -> Result<()> {
    let f32_or_none = |o: &Obj| {
        matches!(o, Obj::None)
            || crate::modules::numpy::jnp_scalar_types::exact_dtype(o) == Some(DType::F32)
    };
    if !f32_or_none(&field(me, "dtype")) || !f32_or_none(&field(me, "param_dtype")) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: linen {LAYER} with a dtype other than float32"
        );
    }
    let custom = [
        "precision",
        "qkv_dot_general",
        "out_dot_general",
        "qkv_dot_general_cls",
        "out_dot_general_cls",
        "qk_attn_weights_einsum_cls",
        "attn_weights_value_einsum_cls",
    ];
    for name in custom {
        if !matches!(field(me, name), Obj::None) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: linen {LAYER} with {name}"
            );
        }
    }
    for flag in ["decode", "normalize_qk"] {
        if truthy(&field(me, flag), flag)? {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: linen {LAYER} with {flag}=True"
            );
        }
    }
    match field(me, "attention_fn") {
        Obj::Native(n) if n.name == "flax.linen.dot_product_attention" => Ok(()),
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: linen {LAYER} with a custom attention_fn"
        ),
    }
}

/// `inputs_q`, `inputs_k`, `inputs_v` as Flax resolves them from the three
/// arguments and `inputs_kv`.
fn inputs(a: &Args) -> Result<[Obj; 3]> {
    let q = a.req(Some(1), "inputs_q", LAYER)?;
    let k = a.opt(Some(2), "inputs_k");
    let v = a.opt(Some(3), "inputs_v");
    if let Some(kv) = a.opt(None, "inputs_kv") {
        if k.is_some() || v.is_some() {
            bail!(
                ValueError,
                "If either `inputs_k` or `inputs_v` is not None, `inputs_kv` must be None. If `inputs_kv` is not None, both `inputs_k` and `inputs_v` must be None. We recommend using `inputs_k` and `inputs_v` args, since `inputs_kv` will be deprecated soon. See https://github.com/google/flax/discussions/3389 for more information."
            );
        }
        return Ok([q, kv.clone(), kv]);
    }
    let k = match (k, &v) {
        (None, Some(_)) => bail!(
            ValueError,
            "`inputs_k` cannot be None if `inputs_v` is not None. To have both `inputs_k` and `inputs_v` be the same value, pass in the value to `inputs_k` and leave `inputs_v` as None."
        ),
        (None, None) => q.clone(),
        (Some(k), _) => k,
    };
    let v = v.unwrap_or_else(|| k.clone());
    Ok([q, k, v])
}

/// A `DenseGeneral` child named `name`, made in the running module and
/// called on `x`.
pub(super) fn dense(
    interp: &mut Interp,
    class: &Rc<Class>,
    kw: Vec<(String, Obj)>,
    name: &str,
    x: Obj,
) -> Result<Obj> {
    let mut kw = kw;
    kw.push(("name".into(), Obj::str(name)));
    let layer = interp.call(&Obj::Class(class.clone()), Args::with(vec![], kw))?;
    interp.call(&layer, Args::new(vec![x]))
}

/// The last dimension of an input.
fn last_dim(x: &Obj) -> Result<i64> {
    Ok(to_value(x)?.shape().last().copied().unwrap_or(0) as i64)
}

/// The feature count a field gives, or `default` when it is None or 0.
fn or_default(o: Obj, default: i64) -> Result<i64> {
    match o {
        Obj::None => Ok(default),
        o => Ok(Some(to_int(&o)?).filter(|&n| n != 0).unwrap_or(default)),
    }
}

/// An initializer field, or `fallback` when it is None.
fn init_or(me: &Instance, name: &str, fallback: &str) -> Obj {
    match field(me, name) {
        Obj::None => field(me, fallback),
        f => f,
    }
}

/// The body of `MultiHeadDotProductAttention.__call__`, run in the
/// module's scope.
fn mha_body(dense_class: Rc<Class>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |interp, a| {
        let me = self_arg(&a, LAYER)?;
        refuse(&me)?;
        let [q_in, k_in, v_in] = inputs(&a)?;
        let din = last_dim(&q_in)?;
        let features = or_default(field(&me, "out_features"), din)?;
        let qkv = or_default(field(&me, "qkv_features"), din)?;
        let heads = to_int(&field(&me, "num_heads"))?;
        if heads <= 0 || qkv % heads != 0 {
            bail!(
                AssertionError,
                "Memory dimension ({qkv}) must be divisible by number of heads ({heads})."
            );
        }
        let use_bias = field(&me, "use_bias");
        let kw = vec![
            ("axis".to_string(), Obj::Int(-1)),
            (
                "features".into(),
                Obj::tuple(vec![Obj::Int(heads), Obj::Int(qkv / heads)]),
            ),
            ("kernel_init".into(), field(&me, "kernel_init")),
            ("bias_init".into(), field(&me, "bias_init")),
            ("use_bias".into(), use_bias.clone()),
        ];
        let query = dense(interp, &dense_class, kw.clone(), "query", q_in)?;
        let key = dense(interp, &dense_class, kw.clone(), "key", k_in)?;
        let value = dense(interp, &dense_class, kw, "value", v_in)?;
        let attn_kw = attention_keywords(interp, &me, &a)?;
        let x = dot_product_attention(interp, Args::with(vec![query, key, value], attn_kw))?;
        let out_kw = vec![
            ("features".to_string(), Obj::Int(features)),
            ("axis".into(), Obj::tuple(vec![Obj::Int(-2), Obj::Int(-1)])),
            (
                "kernel_init".into(),
                init_or(&me, "out_kernel_init", "kernel_init"),
            ),
            (
                "bias_init".into(),
                init_or(&me, "out_bias_init", "bias_init"),
            ),
            ("use_bias".into(), use_bias),
        ];
        dense(interp, &dense_class, out_kw, "out", x)
    }
}

/// The keywords the layer gives `dot_product_attention`: the mask, the
/// dropout settings (`deterministic` merged from the field and the call,
/// the `dropout` key drawn when none is given) and, with `sow_weights`,
/// the module.
fn attention_keywords(
    interp: &mut Interp,
    me: &Rc<Instance>,
    a: &Args,
) -> Result<Vec<(String, Obj)>> {
    let rate = crate::python::builtins::to_float(&field(me, "dropout_rate"))?;
    let deterministic = if rate > 0.0 {
        merge_param(
            "deterministic",
            field(me, "deterministic"),
            a.opt(None, "deterministic"),
        )?
    } else {
        let _ = a.get(None, "deterministic");
        true
    };
    let mut rng = a.opt(None, "dropout_rng").unwrap_or(Obj::None);
    if !deterministic && matches!(rng, Obj::None) {
        let path = module_path(interp, me)?;
        rng = make_rng(interp, &path, "dropout")?;
    }
    let mut kw = vec![
        ("mask".to_string(), a.opt(None, "mask").unwrap_or(Obj::None)),
        ("dropout_rng".into(), rng),
        ("dropout_rate".into(), Obj::Float(rate)),
        ("broadcast_dropout".into(), field(me, "broadcast_dropout")),
        ("deterministic".into(), Obj::Bool(deterministic)),
    ];
    if let Some(s) = a.opt(None, "sow_weights") {
        if truthy(&s, "sow_weights")? {
            kw.push(("module".into(), Obj::Instance(me.clone())));
        }
    }
    Ok(kw)
}

/// `SelfAttention.__call__(inputs_q, mask=None, deterministic=None,
/// dropout_rng=None, sow_weights=False)`: the layer on `inputs_q` alone.
fn self_attention_args(a: Args) -> Result<Args> {
    let me = a.req(Some(0), "self", "SelfAttention")?;
    let q = a.req(Some(1), "inputs_q", "SelfAttention")?;
    let mut kw = vec![];
    let names = ["mask", "deterministic", "dropout_rng", "sow_weights"];
    for (i, name) in names.into_iter().enumerate() {
        if let Some(v) = a.get(Some(i + 2), name) {
            kw.push((name.to_string(), v));
        }
    }
    Ok(Args::with(vec![me, q], kw))
}

/// Adds `MultiHeadDotProductAttention`, its alias `MultiHeadAttention` and
/// `SelfAttention` to `flax.linen`.
/// `inits` are `flax.linen.initializers`, `kernel_init` Flax's default
/// `lecun_normal()`.
pub(super) fn register(
    b: &mut Builder,
    module: &Rc<Class>,
    dense: &Rc<Class>,
    (inits, kernel_init): (&Obj, &Obj),
) {
    let none = || Some(Obj::None);
    let zeros = match inits {
        Obj::Module(m) => m.get("zeros"),
        _ => None,
    };
    let fields = vec![
        ("num_heads", None),
        ("dtype", none()),
        ("param_dtype", Some(super::jnp_float32())),
        ("qkv_features", none()),
        ("out_features", none()),
        ("broadcast_dropout", Some(Obj::Bool(true))),
        ("dropout_rate", Some(Obj::Float(0.0))),
        ("deterministic", none()),
        ("precision", none()),
        ("kernel_init", Some(kernel_init.clone())),
        ("out_kernel_init", none()),
        ("bias_init", zeros),
        ("out_bias_init", none()),
        ("use_bias", Some(Obj::Bool(true))),
        ("attention_fn", b.get("dot_product_attention")),
        ("decode", Some(Obj::Bool(false))),
        ("normalize_qk", Some(Obj::Bool(false))),
        ("force_fp32_for_softmax", Some(Obj::Bool(false))),
        ("qkv_dot_general", none()),
        ("out_dot_general", none()),
        ("qkv_dot_general_cls", none()),
        ("out_dot_general_cls", none()),
        ("qk_attn_weights_einsum_cls", none()),
        ("attn_weights_value_einsum_cls", none()),
    ];
    let body = Obj::native(format!("{LAYER}.__call__"), mha_body(dense.clone()));
    let run = body.clone();
    let call = Obj::native(format!("{LAYER}.__call__"), move |interp, a| {
        let me = self_arg(&a, LAYER)?;
        call_in_scope(interp, &me, &run, a)
    });
    let mha = layer_class(module, LAYER, fields, vec![("__call__".into(), call)]);
    let self_call = Obj::native("SelfAttention.__call__", move |interp, a| {
        let me = self_arg(&a, "SelfAttention")?;
        call_in_scope(interp, &me, &body, self_attention_args(a)?)
    });
    let selfattn = new_class(
        "SelfAttention",
        vec![mha.clone()],
        vec![
            ("__linen_wrapped__".into(), Obj::Bool(true)),
            ("__call__".into(), self_call),
        ],
    );
    b.attr(LAYER, Obj::Class(mha.clone()));
    b.attr("MultiHeadAttention", Obj::Class(mha));
    b.attr("SelfAttention", Obj::Class(selfattn));
}
