//! linen's `LayerNorm`, `RMSNorm`, `BatchNorm`, `Embed` and `Sequential`.
//!
//! The layers are linen modules whose fields and defaults are Flax's; their
//! `__call__` makes its parameters through the module's `param` (so they
//! draw `params` keys in Flax's order: scale before bias) and its running
//! statistics through the `batch_stats` collection, then computes with the
//! same functions as the nnx layers (`norm::compute_stats`,
//! `norm::normalize`, `embed::lookup`), which keep Flax's order of
//! operations.

use super::linen::param;
use super::linen_collections::{read_or_init, write_variable};
use super::norm::{axes_of, compute_stats, normalize};
use super::*;

/// A linen layer class: the fields (in order) with their defaults (None
/// for a required field) and the methods.
pub(super) fn layer_class(
    module: &Rc<Class>,
    name: &str,
    fields: Vec<(&str, Option<Obj>)>,
    methods: Vec<(String, Obj)>,
) -> Rc<Class> {
    let mut ann = Dict::default();
    let mut attrs: Vec<(String, Obj)> = vec![("__linen_wrapped__".into(), Obj::Bool(true))];
    for (f, default) in fields {
        ann.set(Obj::str(f), Obj::None);
        if let Some(d) = default {
            attrs.push((f.to_string(), d));
        }
    }
    attrs.push((
        "__annotations__".into(),
        Obj::Dict(Rc::new(RefCell::new(ann))),
    ));
    attrs.extend(methods);
    new_class(name, vec![module.clone()], attrs)
}

/// A native `__call__`.
pub(super) type Call = fn(&mut Interp, Args) -> Result<Obj>;

/// A layer class's name, fields with defaults, and `__call__`.
pub(super) type LayerSpec<'a> = (&'a str, Vec<(&'a str, Option<Obj>)>, Call);

/// Adds layer classes, each with its fields and `__call__`, to the module.
pub(super) fn add_layers(b: &mut Builder, module: &Rc<Class>, layers: Vec<LayerSpec>) {
    for (name, fields, call) in layers {
        let method = vec![(
            "__call__".to_string(),
            Obj::native(format!("{name}.__call__"), call),
        )];
        b.attr(name, Obj::Class(layer_class(module, name, fields, method)));
    }
}

/// A field of a linen layer: as given to the constructor, else the class default.
pub(super) fn field(me: &Instance, name: &str) -> Obj {
    iattr(me, name)
        .or_else(|| me.class.lookup(name))
        .unwrap_or(Obj::None)
}

/// Only float32 inputs, parameters and outputs are modelled.
pub(super) fn refuse_dtypes(me: &Instance, x: &Value, layer: &str) -> Result<()> {
    let f32_or_none = |o: &Obj| {
        matches!(o, Obj::None)
            || crate::modules::numpy::jnp_scalar_types::exact_dtype(o) == Some(DType::F32)
    };
    let input_ok = x.dtype() == DType::F32 || !x.dtype().is_inexact();
    if !input_ok || !f32_or_none(&field(me, "dtype")) || !f32_or_none(&field(me, "param_dtype")) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: linen {layer} with a dtype other than float32"
        );
    }
    if !matches!(field(me, "axis_name"), Obj::None) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: linen {layer} with axis_name"
        );
    }
    Ok(())
}

/// The scale and bias parameters over `features` of `x`, each when the
/// layer uses it, made in that order.
pub(super) fn affine_params(
    interp: &mut Interp,
    me: &Rc<Instance>,
    x: &Value,
    features: &[usize],
    with_bias: bool,
) -> Result<(Option<Value>, Option<Value>)> {
    let shape = x.shape();
    let feature_shape = Obj::list(
        features
            .iter()
            .map(|&a| Obj::Int(shape[a] as i64))
            .collect(),
    );
    let make = |interp: &mut Interp, flag: &str, name: &str| -> Result<Option<Value>> {
        if !truthy(&field(me, flag), flag)? {
            return Ok(None);
        }
        let init = field(me, &format!("{name}_init"));
        let rest = vec![feature_shape.clone(), field(me, "param_dtype")];
        Ok(Some(to_value(&param(interp, me, name, &init, rest)?)?))
    };
    let scale = make(interp, "use_scale", "scale")?;
    let bias = if with_bias {
        make(interp, "use_bias", "bias")?
    } else {
        None
    };
    Ok((scale, bias))
}

pub(super) fn input(a: &Args, layer: &str) -> Result<Value> {
    if a.opt(None, "mask").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: linen {layer} with mask"
        );
    }
    to_value(&a.req(Some(1), "x", layer)?)
}

/// `LayerNorm.__call__(x)` and `RMSNorm.__call__(x)` (no mean, no bias).
fn layer_norm_call(rms: bool) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |interp, a| {
        let layer = if rms { "RMSNorm" } else { "LayerNorm" };
        let me = self_arg(&a, layer)?;
        let x = input(&a, layer)?;
        refuse_dtypes(&me, &x, layer)?;
        let ndim = x.ndim();
        let reduction = axes_of(&field(&me, "reduction_axes"), ndim)?;
        let features = axes_of(&field(&me, "feature_axes"), ndim)?;
        let fast = truthy(&field(&me, "use_fast_variance"), "use_fast_variance")?;
        let xf = jops::convert(&x, DType::F32)?;
        let (mean, var) = compute_stats(&xf, &reduction, !rms, fast)?;
        normalized_output(
            interp,
            &me,
            (&x, &xf),
            (&mean, &var),
            (&reduction, &features),
            !rms,
        )
    }
}

/// `use_running_average` from the field or the call, exactly one of them.
fn running_average(me: &Instance, a: &Args) -> Result<bool> {
    let call = a.opt(Some(2), "use_running_average");
    merge_param(
        "use_running_average",
        field(me, "use_running_average"),
        call,
    )
}

/// linen's `merge_param`: a flag given to the constructor or at call time,
/// exactly one of them.
pub(super) fn merge_param(name: &str, own: Obj, call: Option<Obj>) -> Result<bool> {
    let call = call.filter(|o| !matches!(o, Obj::None));
    let own = Some(own).filter(|o| !matches!(o, Obj::None));
    match (own, call) {
        (Some(_), Some(_)) => bail!(
            ValueError,
            "Parameter \"{name}\" was passed to the constructor and at call time. Should be passed just once."
        ),
        (None, None) => bail!(
            ValueError,
            "Parameter \"{name}\" must be passed to the constructor or at call time."
        ),
        (Some(o), None) | (None, Some(o)) => truthy(&o, name),
    }
}

/// A running statistic, made as zeros (`mean`) or ones (`var`) of the
/// feature shape when missing.
fn running_stat(
    interp: &mut Interp,
    me: &Rc<Instance>,
    name: &str,
    shape: &[usize],
) -> Result<Value> {
    let shape = shape.to_vec();
    let ones = name == "var";
    let init = move |_: &mut Interp| -> Result<Obj> {
        let fill = if ones { 1.0 } else { 0.0 };
        Ok(Obj::Array(Value::Concrete(crate::array::Array::full(
            &shape,
            fill,
            DType::F32,
        ))))
    };
    to_value(&read_or_init(interp, me, "batch_stats", name, Some(&init))?)
}

/// `BatchNorm.__call__(x, use_running_average=None)`.
fn batch_norm_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "BatchNorm")?;
    let x = input(&a, "BatchNorm")?;
    refuse_dtypes(&me, &x, "BatchNorm")?;
    let use_running = running_average(&me, &a)?;
    let ndim = x.ndim();
    let features = axes_of(&field(&me, "axis"), ndim)?;
    let reduction: Vec<usize> = (0..ndim).filter(|i| !features.contains(i)).collect();
    let shape = x.shape();
    let feature_shape: Vec<usize> = features.iter().map(|&f| shape[f]).collect();
    let ra_mean = running_stat(interp, &me, "mean", &feature_shape)?;
    let ra_var = running_stat(interp, &me, "var", &feature_shape)?;
    let xf = jops::convert(&x, DType::F32)?;
    let (mean, var) = if use_running {
        (ra_mean, ra_var)
    } else {
        let fast = truthy(&field(&me, "use_fast_variance"), "use_fast_variance")?;
        let (mu, v) = compute_stats(&xf, &reduction, true, fast)?;
        let initializing = super::linen::with_run(interp, |run| Ok(run.initializing()))?;
        if !initializing {
            let m = crate::python::builtins::to_float(&field(&me, "momentum"))?;
            let ema = |old: &Value, new: &Value| -> Result<Value> {
                jops::add(&jops::mul_scalar(old, m)?, &jops::mul_scalar(new, 1.0 - m)?)
            };
            write_variable(
                interp,
                &me,
                "batch_stats",
                "mean",
                Obj::Array(ema(&ra_mean, &mu)?),
            )?;
            write_variable(
                interp,
                &me,
                "batch_stats",
                "var",
                Obj::Array(ema(&ra_var, &v)?),
            )?;
        }
        (mu, v)
    };
    normalized_output(
        interp,
        &me,
        (&x, &xf),
        (&mean, &var),
        (&reduction, &features),
        true,
    )
}

/// The `embedding` table of a linen `Embed`, made on first use.
fn embedding(interp: &mut Interp, me: &Rc<Instance>) -> Result<Value> {
    let shape = Obj::tuple(vec![field(me, "num_embeddings"), field(me, "features")]);
    let init = field(me, "embedding_init");
    let rest = vec![shape, field(me, "param_dtype")];
    to_value(&param(interp, me, "embedding", &init, rest)?)
}

fn embed_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Embed")?;
    let idx = to_value(&a.req(Some(1), "inputs", "Embed.__call__")?)?;
    let table = embedding(interp, &me)?;
    Ok(Obj::Array(super::embed::lookup(&table, &idx)?))
}

fn embed_attend(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Embed.attend")?;
    let q = to_value(&a.req(Some(1), "query", "Embed.attend")?)?;
    let table = embedding(interp, &me)?;
    Ok(Obj::Array(super::embed::attend(&table, &q)?))
}

/// `Sequential.__call__(*args, **kwargs)`: each layer on the previous
/// output (a tuple spread as arguments, a dict as keywords). Layers made
/// outside a module are its children `layers_0`, `layers_1`, ...
fn sequential_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Sequential")?;
    let layers = iterate(&field(&me, "layers"))?;
    if layers.is_empty() {
        bail!(
            ValueError,
            "Empty Sequential module {}.",
            repr_of(&field(&me, "name"))
        );
    }
    let path = super::linen::module_path(interp, &me)?;
    let mut args = Args::with(a.pos[1..].to_vec(), a.kw.clone());
    let mut out = Obj::None;
    for (k, layer) in layers.iter().enumerate() {
        super::linen::adopt(layer, &path, format!("layers_{k}"));
        out = interp.call(layer, args)?;
        args = match &out {
            Obj::Tuple(t) => Args::new(t.to_vec()),
            Obj::Dict(d) => Args::with(
                vec![],
                d.borrow()
                    .items
                    .iter()
                    .map(|(k, v)| (str_of(k), v.clone()))
                    .collect(),
            ),
            o => Args::new(vec![o.clone()]),
        };
    }
    Ok(out)
}

/// The layer's output from its statistics: `x` (as float32, `xf`) normalised
/// over `reduction`, then scaled and shifted by the layer's parameters over
/// `features` (made here, the bias only `with_bias`), with its epsilon.
pub(super) fn normalized_output(
    interp: &mut Interp,
    me: &Rc<Instance>,
    (x, xf): (&Value, &Value),
    (mean, var): (&Value, &Value),
    (reduction, features): (&[usize], &[usize]),
    with_bias: bool,
) -> Result<Obj> {
    let (scale, bias) = affine_params(interp, me, x, features, with_bias)?;
    let eps = crate::python::builtins::to_float(&field(me, "epsilon"))?;
    let y = normalize(
        xf,
        (mean, var),
        (scale.as_ref(), bias.as_ref()),
        reduction,
        features,
        eps,
    )?;
    Ok(Obj::Array(y))
}

/// The fields every normalisation layer has after its own.
pub(super) fn norm_tail(inits: &Obj, fields: &mut Vec<(&'static str, Option<Obj>)>) -> Result<()> {
    let get = |n: &str| match inits {
        Obj::Module(m) => m.get(n).unwrap_or(Obj::None),
        _ => Obj::None,
    };
    fields.extend([
        ("dtype", Some(Obj::None)),
        ("param_dtype", Some(super::jnp_float32())),
        ("use_bias", Some(Obj::Bool(true))),
        ("use_scale", Some(Obj::Bool(true))),
        ("bias_init", Some(get("zeros"))),
        ("scale_init", Some(get("ones"))),
    ]);
    Ok(())
}

/// Adds the layers to `flax.linen`.
pub(super) fn register(b: &mut Builder, module: &Rc<Class>, inits: &Obj) -> Result<()> {
    register_norms(b, module, inits)?;
    register_embed(b, module);
    let seq = vec![(
        "__call__".to_string(),
        Obj::native("Sequential.__call__", sequential_call),
    )];
    b.attr(
        "Sequential",
        Obj::Class(layer_class(
            module,
            "Sequential",
            vec![("layers", None)],
            seq,
        )),
    );
    Ok(())
}

/// `LayerNorm`, `RMSNorm` and `BatchNorm`.
fn register_norms(b: &mut Builder, module: &Rc<Class>, inits: &Obj) -> Result<()> {
    let stats_tail = || -> Vec<(&'static str, Option<Obj>)> {
        vec![
            ("axis_name", Some(Obj::None)),
            ("axis_index_groups", Some(Obj::None)),
            ("use_fast_variance", Some(Obj::Bool(true))),
            ("force_float32_reductions", Some(Obj::Bool(true))),
        ]
    };
    let mut layer: Vec<(&str, Option<Obj>)> = vec![("epsilon", Some(Obj::Float(1e-6)))];
    norm_tail(inits, &mut layer)?;
    layer.extend([
        ("reduction_axes", Some(Obj::Int(-1))),
        ("feature_axes", Some(Obj::Int(-1))),
    ]);
    layer.extend(stats_tail());
    let mut rms = layer.clone();
    rms.retain(|(f, _)| !matches!(*f, "use_bias" | "bias_init"));
    let mut batch: Vec<(&str, Option<Obj>)> = vec![
        ("use_running_average", Some(Obj::None)),
        ("axis", Some(Obj::Int(-1))),
        ("momentum", Some(Obj::Float(0.99))),
        ("epsilon", Some(Obj::Float(1e-5))),
    ];
    norm_tail(inits, &mut batch)?;
    batch.extend(stats_tail());
    let call = |_: &str, f: Obj| vec![("__call__".to_string(), f)];
    b.attr(
        "LayerNorm",
        Obj::Class(layer_class(
            module,
            "LayerNorm",
            layer,
            call(
                "LayerNorm",
                Obj::native("LayerNorm.__call__", layer_norm_call(false)),
            ),
        )),
    );
    b.attr(
        "RMSNorm",
        Obj::Class(layer_class(
            module,
            "RMSNorm",
            rms,
            call(
                "RMSNorm",
                Obj::native("RMSNorm.__call__", layer_norm_call(true)),
            ),
        )),
    );
    b.attr(
        "BatchNorm",
        Obj::Class(layer_class(
            module,
            "BatchNorm",
            batch,
            call(
                "BatchNorm",
                Obj::native("BatchNorm.__call__", batch_norm_call),
            ),
        )),
    );
    Ok(())
}

/// `Embed`, whose table is drawn as nnx.Embed draws its own.
fn register_embed(b: &mut Builder, module: &Rc<Class>) {
    // Flax's `variance_scaling(1.0, 'fan_in', 'normal', out_axis=0)`,
    // drawn as nnx.Embed draws its table.
    let embed_init = Obj::native("variance_scaling.init", |_, a| {
        let key = a.req(Some(0), "key", "init")?;
        let shape: Vec<usize> = iterate(&a.req(Some(1), "shape", "init")?)?
            .iter()
            .map(|d| to_int(d).map(|n| n.max(0) as usize))
            .collect::<Result<_>>()?;
        super::nnx::default_draw(
            &key,
            &shape,
            crate::random::initializers::embed_default,
            crate::random::traced_init::embed_default,
        )
    });
    let embed_fields = vec![
        ("num_embeddings", None),
        ("features", None),
        ("dtype", Some(Obj::None)),
        ("param_dtype", Some(super::jnp_float32())),
        ("embedding_init", Some(embed_init)),
    ];
    let embed_methods = vec![
        (
            "__call__".to_string(),
            Obj::native("Embed.__call__", embed_call),
        ),
        (
            "attend".to_string(),
            Obj::native("Embed.attend", embed_attend),
        ),
    ];
    b.attr(
        "Embed",
        Obj::Class(layer_class(module, "Embed", embed_fields, embed_methods)),
    );
}
