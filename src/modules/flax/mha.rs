//! `nnx.MultiHeadAttention`: query, key and value projections to
//! `(heads, head_dim)` by `LinearGeneral`s, attention, and an output
//! `LinearGeneral` contracting the last two axes.
//!
//! Attributes are set in Flax's order, which is the order its repr prints
//! them in. In decode mode each call appends one position to the
//! `nnx.Cache` variables `init_cache` makes and attends over the positions
//! filled so far.

use super::*;
use crate::python::ops::getattr;

/// What a `MultiHeadAttention` is made from.
#[derive(Clone)]
pub(super) struct MhaClasses {
    pub module: Rc<Class>,
    pub linear_general: Rc<Class>,
    pub attention_fn: Obj,
}

fn int_or(a: &Args, index: usize, name: &str, default: i64) -> Result<i64> {
    match a.opt(Some(index), name) {
        Some(o) => to_int(&o),
        None => Ok(default),
    }
}

fn refusals(a: &Args) -> Result<()> {
    for name in [
        "dtype",
        "precision",
        "qkv_dot_general",
        "out_dot_general",
        "qkv_dot_general_cls",
        "out_dot_general_cls",
        "qkv_promote_dtype",
        "out_promote_dtype",
        "ln_promote_dtype",
    ] {
        if a.opt(None, name).is_some() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.MultiHeadAttention with {name}="
            );
        }
    }
    if matches!(a.get(None, "normalize_qk"), Some(o) if truthy(&o, "normalize_qk")?) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.MultiHeadAttention with normalize_qk=True"
        );
    }
    if a.get(None, "param_dtype").is_some_and(|d| {
        crate::modules::numpy::jnp_scalar_types::exact_dtype(&d) != Some(DType::F32)
    }) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.MultiHeadAttention with param_dtype other than float32"
        );
    }
    for name in [
        "kernel_metadata",
        "out_kernel_metadata",
        "bias_metadata",
        "out_bias_metadata",
        "query_ln_scale_metadata",
        "key_ln_scale_metadata",
    ] {
        if let Some(m) = a.opt(None, name) {
            if !iterate(&m)?.is_empty() {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx.MultiHeadAttention with {name}"
                );
            }
        }
    }
    Ok(())
}

/// The sizes: heads, in, qkv, out, kv heads, in_kv.
fn sizes(a: &Args) -> Result<[i64; 6]> {
    let f = "MultiHeadAttention";
    let heads = to_int(&a.req(Some(1), "num_heads", f)?)?;
    let din = to_int(&a.req(Some(2), "in_features", f)?)?;
    let qkv = int_or(a, 3, "qkv_features", din)?;
    let dout = int_or(a, 4, "out_features", din)?;
    let kv_heads = int_or(a, 5, "num_kv_heads", heads)?;
    let in_kv = int_or(a, 6, "in_kv_features", din)?;
    if kv_heads == 0 || heads % kv_heads != 0 {
        bail!(
            ValueError,
            "num_heads ({heads}) must be divisible by num_kv_heads ({kv_heads})."
        );
    }
    if heads == 0 || qkv % heads != 0 {
        bail!(
            ValueError,
            "Memory dimension ({qkv}) must be divisible by 'num_heads' heads ({heads})."
        );
    }
    Ok([heads, din, qkv, dout, kv_heads, in_kv])
}

fn settings(me: &Instance, a: &Args, c: &MhaClasses, s: [i64; 6]) -> Result<()> {
    let [heads, din, qkv, dout, kv_heads, in_kv] = s;
    let set = |k: &str, v: Obj| set_iattr(me, k, v);
    set("num_heads", Obj::Int(heads));
    set("in_features", Obj::Int(din));
    set("qkv_features", Obj::Int(qkv));
    set("out_features", Obj::Int(dout));
    set("in_kv_features", Obj::Int(in_kv));
    set("num_kv_heads", Obj::Int(kv_heads));
    set("dtype", Obj::None);
    set("param_dtype", super::jnp_float32());
    let given = |n: &str, d: Obj| a.get(None, n).unwrap_or(d);
    set(
        "broadcast_dropout",
        given("broadcast_dropout", Obj::Bool(true)),
    );
    set("dropout_rate", given("dropout_rate", Obj::Float(0.0)));
    set("deterministic", given("deterministic", Obj::None));
    set("precision", Obj::None);
    set("use_bias", given("use_bias", Obj::Bool(true)));
    set(
        "attention_fn",
        a.opt(None, "attention_fn")
            .unwrap_or(c.attention_fn.clone()),
    );
    set("decode", given("decode", Obj::None));
    set("normalize_qk", Obj::Bool(false));
    for name in ["qkv_promote_dtype", "out_promote_dtype", "ln_promote_dtype"] {
        set(name, Obj::lib(super::display::FunctionRef("promote_dtype")));
    }
    for name in [
        "qkv_dot_general",
        "out_dot_general",
        "qkv_dot_general_cls",
        "out_dot_general_cls",
    ] {
        set(name, Obj::None);
    }
    set("head_dim", Obj::Int(qkv / heads));
    Ok(())
}

fn mha_init(c: MhaClasses) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |interp, a| {
        let me = self_arg(&a, "MultiHeadAttention")?;
        refusals(&a)?;
        let s = sizes(&a)?;
        let [heads, _, qkv, dout, kv_heads, in_kv] = s;
        settings(&me, &a, &c, s)?;
        let rngs = a.req(None, "rngs", "MultiHeadAttention")?;
        let head_dim = qkv / heads;
        let pair = |n: i64| Obj::tuple(vec![Obj::Int(n), Obj::Int(head_dim)]);
        let mut common = vec![("rngs".to_string(), rngs.clone())];
        for name in ["kernel_init", "bias_init", "use_bias"] {
            if let Some(v) = a.opt(None, name) {
                common.push((name.into(), v));
            }
        }
        let lg = Obj::Class(c.linear_general.clone());
        let din = iattr(&me, "in_features").unwrap_or(Obj::None);
        for (name, inf, h) in [
            ("query", din, heads),
            ("key", Obj::Int(in_kv), kv_heads),
            ("value", Obj::Int(in_kv), kv_heads),
        ] {
            let mut kw = common.clone();
            kw.push(("out_features".into(), pair(h)));
            let layer = interp.call(&lg, Args::with(vec![inf], kw))?;
            set_iattr(&me, name, layer);
        }
        set_iattr(&me, "query_ln", Obj::None);
        set_iattr(&me, "key_ln", Obj::None);
        let mut kw = vec![
            ("in_features".to_string(), pair(heads)),
            ("out_features".into(), Obj::Int(dout)),
            ("axis".into(), Obj::tuple(vec![Obj::Int(-2), Obj::Int(-1)])),
            ("rngs".into(), rngs.clone()),
        ];
        for (name, fallback) in [
            ("out_kernel_init", "kernel_init"),
            ("out_bias_init", "bias_init"),
        ] {
            if let Some(v) = a.opt(None, name).or_else(|| a.opt(None, fallback)) {
                kw.push((fallback.into(), v));
            }
        }
        if let Some(v) = a.opt(None, "use_bias") {
            kw.push(("use_bias".into(), v));
        }
        let out = interp.call(&lg, Args::with(vec![], kw))?;
        set_iattr(&me, "out", out);
        let rate = iattr(&me, "dropout_rate")
            .and_then(|o| o.as_number())
            .unwrap_or(0.0);
        let keep = match a.get(None, "keep_rngs") {
            Some(o) => truthy(&o, "keep_rngs")?,
            None => true,
        };
        let kept = if keep && rate > 0.0 {
            let stream = getattr(interp, &rngs, "dropout")?;
            let fork = getattr(interp, &stream, "fork")?;
            interp.call(&fork, Args::default())?
        } else {
            Obj::None
        };
        set_iattr(&me, "rngs", kept);
        for name in ["cached_key", "cached_value", "cache_index"] {
            set_iattr(&me, name, Obj::None);
        }
        Ok(Obj::None)
    }
}

const NO_DECODE: &str = "No `decode` argument was provided to MultiHeadAttention
        as either a __call__ argument, class attribute, or nnx.flag.";

fn call_attr(interp: &mut Interp, me: &Obj, name: &str, x: Obj) -> Result<Obj> {
    let layer = getattr(interp, me, name)?;
    interp.call(&layer, Args::new(vec![x]))
}

fn mha_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = "MultiHeadAttention.__call__";
    let me = self_arg(&a, f)?;
    let this = Obj::Instance(me.clone());
    refuse_mha_options(&a)?;
    let (q_in, k_in, v_in) = mha_inputs(&a, &me, f)?;
    let query = call_attr(interp, &this, "query", q_in)?;
    let key = call_attr(interp, &this, "key", k_in)?;
    let value = call_attr(interp, &this, "value", v_in)?;
    let decode = match a.opt(None, "decode") {
        Some(d) => d,
        None => match iattr(&me, "decode") {
            Some(Obj::None) | None => bail!(ValueError, "{NO_DECODE}"),
            Some(d) => d,
        },
    };
    let mut mask = a.opt(None, "mask");
    let (key, value) = if truthy(&decode, "decode")? {
        let (k, v, m) = super::mha_cache::decode_step(interp, &me, (key, value), mask)?;
        mask = m;
        (k, v)
    } else {
        (key, value)
    };
    let rate = iattr(&me, "dropout_rate")
        .and_then(|o| o.as_number())
        .unwrap_or(0.0);
    let deterministic = deterministic(&a, &me, rate)?;
    let dropout_rng = match deterministic {
        true => Obj::None,
        false => dropout_key(&me, a.opt(None, "rngs"))?,
    };
    let attention_fn = iattr(&me, "attention_fn").unwrap_or(Obj::None);
    let kw = vec![
        ("mask".to_string(), mask.unwrap_or(Obj::None)),
        ("dropout_rng".into(), dropout_rng),
        ("dropout_rate".into(), Obj::Float(rate)),
        (
            "broadcast_dropout".into(),
            iattr(&me, "broadcast_dropout").unwrap_or(Obj::Bool(true)),
        ),
        ("deterministic".into(), Obj::Bool(deterministic)),
        ("dtype".into(), Obj::None),
        ("precision".into(), Obj::None),
        ("module".into(), Obj::None),
        (
            "is_causal".into(),
            a.get(None, "is_causal").unwrap_or(Obj::Bool(false)),
        ),
    ];
    let x = interp.call(&attention_fn, Args::with(vec![query, key, value], kw))?;
    call_attr(interp, &this, "out", x)
}

/// The options of `MultiHeadAttention.__call__` shardlab refuses.
fn refuse_mha_options(a: &Args) -> Result<()> {
    for name in ["out_sharding", "qkv_sharding"] {
        if a.opt(None, name).is_some() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.MultiHeadAttention with {name}="
            );
        }
    }
    if matches!(a.get(None, "sow_weights"), Some(o) if truthy(&o, "sow_weights")?) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.MultiHeadAttention with sow_weights=True"
        );
    }
    Ok(())
}

/// The query, key and value inputs (the key and value default to the
/// query), checked against the layer's `in_features`.
fn mha_inputs(a: &Args, me: &Rc<Instance>, f: &str) -> Result<(Obj, Obj, Obj)> {
    let q_in = a.req(Some(1), "inputs_q", f)?;
    let k_in = a.opt(Some(2), "inputs_k");
    let v_in = a.opt(Some(3), "inputs_v");
    let k_in = match (k_in, &v_in) {
        (None, Some(_)) => bail!(
            ValueError,
            "`inputs_k` cannot be None if `inputs_v` is not None. To have both `inputs_k` and `inputs_v` be the same value, pass in the value to `inputs_k` and leave `inputs_v` as None."
        ),
        (None, None) => q_in.clone(),
        (Some(k), _) => k,
    };
    let v_in = v_in.unwrap_or_else(|| k_in.clone());
    let din = to_int(&iattr(me, "in_features").unwrap_or(Obj::None))?;
    let last = to_value(&q_in)?.shape().last().copied().unwrap_or(0);
    if last as i64 != din {
        bail!(
            ValueError,
            "Incompatible input dimension, got {last} but module expects {din}."
        );
    }
    Ok((q_in, k_in, v_in))
}

/// Whether the call runs without dropout: always without a dropout rate;
/// with one, `deterministic` must be given, as Flax asks.
fn deterministic(a: &Args, me: &Rc<Instance>, rate: f64) -> Result<bool> {
    if rate <= 0.0 {
        return Ok(true);
    }
    let d = match a.opt(None, "deterministic") {
        Some(d) => d,
        None => match iattr(me, "deterministic") {
            Some(Obj::None) | None => bail!(
                ValueError,
                "No `deterministic` argument was provided to MultiHeadAttention
          as either a __call__ argument, class attribute, or nnx.flag."
            ),
            Some(d) => d,
        },
    };
    truthy(&d, "deterministic")
}

fn set_view(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "set_view")?;
    let names = ["deterministic", "decode", "batch_size", "max_length"];
    for (k, _) in &a.kw {
        if !names.contains(&k.as_str()) {
            bail!(
                TypeError,
                "set_view() got an unexpected keyword argument '{k}'"
            );
        }
    }
    // Flax's check for a missing cache never fires (the attributes exist,
    // None, from the constructor), so `decode` is only recorded.
    for name in ["deterministic", "decode"] {
        if let Some(v) = a.opt(None, name) {
            set_iattr(&me, name, v);
        }
    }
    Ok(Obj::None)
}

const VIEW_INFO: &str = "  deterministic: bool | None = None
    if True, the module is set to deterministic mode.
  decode: bool | None = None
    if True, the module is set to decode mode.
  batch_size: int | Shape | None = None
    the batch size to use for the cache.
  max_length: int | None = None
    the max length to use for the cache.";

/// `nnx.MultiHeadAttention`.
pub(super) fn mha_class(c: &MhaClasses) -> Rc<Class> {
    let mut methods = vec![
        (
            "__init__".to_string(),
            Obj::native("MultiHeadAttention.__init__", mha_init(c.clone())),
        ),
        (
            "__call__".into(),
            Obj::native("MultiHeadAttention.__call__", mha_call),
        ),
        (
            "init_cache".into(),
            Obj::native("init_cache", super::mha_cache::init_cache),
        ),
    ];
    let view = super::recursive::set_view_attrs(
        &["deterministic", "decode", "batch_size", "max_length"],
        VIEW_INFO,
    );
    methods.extend(view.into_iter().filter(|(k, _)| k != "set_view"));
    methods.push(("set_view".into(), Obj::native("set_view", set_view)));
    new_class("MultiHeadAttention", vec![c.module.clone()], methods)
}

/// The key training-mode dropout draws: from the call's `rngs` (an `Rngs`'
/// `dropout` stream, or a stream itself), else from the stream the layer
/// kept when it was made.
fn dropout_key(me: &Rc<Instance>, rngs: Option<Obj>) -> Result<Obj> {
    let rngs = match rngs.or_else(|| iattr(me, "rngs")) {
        Some(Obj::None) | None => bail!(
            ValueError,
            "'rngs' must be provided to __call__ method if MultiHeadAttention instance is defined with keep_rngs=False."
        ),
        Some(r) => r,
    };
    super::rngs::next_key_obj(&rngs, "dropout")
}
