//! linen's recurrent cells: `LSTMCell`, `OptimizedLSTMCell`, `GRUCell`,
//! `MGUCell`, `SimpleCell` and `ConvLSTMCell`, with `RNNCellBase` for
//! cells a program writes itself.
//!
//! A linen cell is a compact module whose `__call__` makes `Dense` (or, for
//! `ConvLSTMCell`, `Conv`) children named as Flax names them (`ii`, `hf`,
//! `ih`, ...), so each child's parameters are drawn from its own path and
//! come out as Flax's whatever order they are made in. The children are
//! sized from the carry (`h.shape[-1]`), as Flax sizes them, and only one of
//! each summed pair has a bias. `OptimizedLSTMCell` keeps `LSTMCell`'s
//! parameters and computes each gate's input and recurrent products apart,
//! which are the columns Flax's one concatenated product gives.
//!
//! `initialize_carry(rng, input_shape)` is not a compact method: it runs
//! outside `init`/`apply`, splitting `rng` in two for the cells whose carry
//! is a `(c, h)` pair, and fills the carry with `carry_init`.

use super::linen::call_in_scope;
use super::linen_layers::{field, layer_class, refuse_dtypes};
use super::linen_mha::dense;
use super::recurrent::{add, call1, lib_attr, lstm_carry, lstm_update, mul, split_last};
use super::*;
use crate::python::ops::binop;
use rustpython_parser::ast::Operator;

/// Which cell a class is.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Lstm,
    OptimizedLstm,
    Gru,
    Mgu,
    Simple,
    ConvLstm,
}

impl Kind {
    const ALL: [Kind; 6] = [
        Kind::Lstm,
        Kind::OptimizedLstm,
        Kind::Gru,
        Kind::Mgu,
        Kind::Simple,
        Kind::ConvLstm,
    ];

    fn name(self) -> &'static str {
        match self {
            Kind::Lstm => "LSTMCell",
            Kind::OptimizedLstm => "OptimizedLSTMCell",
            Kind::Gru => "GRUCell",
            Kind::Mgu => "MGUCell",
            Kind::Simple => "SimpleCell",
            Kind::ConvLstm => "ConvLSTMCell",
        }
    }

    /// Whether the carry is a `(c, h)` pair (drawn from two keys).
    fn paired(self) -> bool {
        matches!(self, Kind::Lstm | Kind::OptimizedLstm | Kind::ConvLstm)
    }
}

/// The children a cell makes: the layer class and the features of each.
struct Children {
    class: Rc<Class>,
    features: Obj,
}

impl Children {
    /// The child `name`, made in the running cell with these settings and
    /// called on `x`.
    fn apply(
        &self,
        interp: &mut Interp,
        name: &str,
        use_bias: bool,
        (kernel_init, bias_init): (&Obj, &Obj),
        x: &Obj,
    ) -> Result<Obj> {
        let kw = vec![
            ("features".to_string(), self.features.clone()),
            ("use_bias".to_string(), Obj::Bool(use_bias)),
            ("kernel_init".to_string(), kernel_init.clone()),
            ("bias_init".to_string(), bias_init.clone()),
        ];
        dense(interp, &self.class, kw, name, x.clone())
    }
}

/// The last dimension of a carry, which sizes the cell's children.
fn hidden(h: &Obj) -> Result<Obj> {
    let shape = to_value(h)?.shape();
    match shape.last() {
        Some(&d) => Ok(Obj::Int(d as i64)),
        None => bail!(IndexError, "tuple index out of range"),
    }
}

/// The step GRU and MGU end with: the candidate `n = activation(xn + hn)`
/// blended with the carry as `(1 - z) * n + z * h`, which is both the new
/// carry and the output.
fn gated_step(
    interp: &mut Interp,
    me: &Instance,
    (xn, hn): (&Obj, &Obj),
    z: &Obj,
    h: &Obj,
) -> Result<Obj> {
    let pre = add(interp, xn, hn)?;
    let n = call1(interp, &field(me, "activation_fn"), pre)?;
    let keep = binop(interp, &Operator::Sub, &Obj::Float(1.0), z, false)?;
    let kept = mul(interp, &keep, &n)?;
    let zh = mul(interp, z, h)?;
    let new_h = add(interp, &kept, &zh)?;
    Ok(Obj::tuple(vec![new_h.clone(), new_h]))
}

fn lstm(
    interp: &mut Interp,
    me: &Instance,
    (d, optimized): (&Rc<Class>, bool),
    carry: &Obj,
    x: &Obj,
) -> Result<Obj> {
    let (c, h) = lstm_carry(carry)?;
    let d = Children {
        class: d.clone(),
        features: hidden(&h)?,
    };
    let (ki, kh) = (field(me, "kernel_init"), field(me, "recurrent_kernel_init"));
    let b = field(me, "bias_init");
    let mut pre = Vec::new();
    for g in ["i", "f", "g", "o"] {
        let xi = d.apply(interp, &format!("i{g}"), false, (&ki, &b), x)?;
        let hh = d.apply(interp, &format!("h{g}"), true, (&kh, &b), &h)?;
        pre.push(match optimized {
            true => add(interp, &hh, &xi)?,
            false => add(interp, &xi, &hh)?,
        });
    }
    let pre: [Obj; 4] = pre
        .try_into()
        .map_err(|_| err!(ValueError, "an LSTM has four gates"))?;
    lstm_update(interp, me, &c, pre)
}

fn gru(interp: &mut Interp, me: &Instance, d: &Rc<Class>, h: &Obj, x: &Obj) -> Result<Obj> {
    let d = Children {
        class: d.clone(),
        features: hidden(h)?,
    };
    let (ki, kh) = (field(me, "kernel_init"), field(me, "recurrent_kernel_init"));
    let (b, gate) = (field(me, "bias_init"), field(me, "gate_fn"));
    let mut gates = Vec::new();
    for g in ["r", "z"] {
        let xi = d.apply(interp, &format!("i{g}"), true, (&ki, &b), x)?;
        let hh = d.apply(interp, &format!("h{g}"), false, (&kh, &b), h)?;
        let pre = add(interp, &xi, &hh)?;
        gates.push(call1(interp, &gate, pre)?);
    }
    let xn = d.apply(interp, "in", true, (&ki, &b), x)?;
    let hn = d.apply(interp, "hn", true, (&kh, &b), h)?;
    let rh = mul(interp, &gates[0], &hn)?;
    gated_step(interp, me, (&xn, &rh), &gates[1], h)
}

fn mgu(interp: &mut Interp, me: &Instance, d: &Rc<Class>, h: &Obj, x: &Obj) -> Result<Obj> {
    let d = Children {
        class: d.clone(),
        features: hidden(h)?,
    };
    let (ki, kh) = (field(me, "kernel_init"), field(me, "recurrent_kernel_init"));
    let (fb, ab) = (
        field(me, "forget_bias_init"),
        field(me, "activation_bias_init"),
    );
    let xf = d.apply(interp, "if", true, (&ki, &fb), x)?;
    let hf = d.apply(interp, "hf", false, (&kh, &ab), h)?;
    let pre = add(interp, &xf, &hf)?;
    let f = call1(interp, &field(me, "gate_fn"), pre)?;
    let reset = truthy(&field(me, "reset_gate"), "reset_gate")?;
    let mut hn = d.apply(interp, "hn", reset, (&kh, &ab), h)?;
    if reset {
        hn = mul(interp, &hn, &f)?;
    }
    let xn = d.apply(interp, "in", true, (&ki, &ab), x)?;
    gated_step(interp, me, (&xn, &hn), &f, h)
}

fn simple(interp: &mut Interp, me: &Instance, d: &Rc<Class>, h: &Obj, x: &Obj) -> Result<Obj> {
    let d = Children {
        class: d.clone(),
        features: hidden(h)?,
    };
    let (ki, kh) = (field(me, "kernel_init"), field(me, "recurrent_kernel_init"));
    let b = field(me, "bias_init");
    let xi = d.apply(interp, "i", true, (&ki, &b), x)?;
    let hh = d.apply(interp, "h", false, (&kh, &b), h)?;
    let mut new = add(interp, &xi, &hh)?;
    if truthy(&field(me, "residual"), "residual")? {
        new = add(interp, &new, h)?;
    }
    let new = call1(interp, &field(me, "activation_fn"), new)?;
    Ok(Obj::tuple(vec![new.clone(), new]))
}

/// A `ConvLSTMCell` child: a `Conv` of four times the cell's features.
fn conv_child(
    interp: &mut Interp,
    me: &Instance,
    conv: &Rc<Class>,
    name: &str,
    x: Obj,
) -> Result<Obj> {
    let features = binop(
        interp,
        &Operator::Mult,
        &Obj::Int(4),
        &field(me, "features"),
        false,
    )?;
    let mut kw = vec![("features".to_string(), features)];
    for f in ["kernel_size", "strides", "padding", "use_bias"] {
        kw.push((f.to_string(), field(me, f)));
    }
    dense(interp, conv, kw, name, x)
}

fn conv_lstm(
    interp: &mut Interp,
    me: &Instance,
    conv: &Rc<Class>,
    carry: &Obj,
    x: &Obj,
) -> Result<Obj> {
    let (c, h) = lstm_carry(carry)?;
    let xi = conv_child(interp, me, conv, "ih", x.clone())?;
    let hh = conv_child(interp, me, conv, "hh", h)?;
    let gates = add(interp, &xi, &hh)?;
    let [i, g, f, o]: [Obj; 4] = split_last(&gates, 4)?
        .try_into()
        .map_err(|_| err!(ValueError, "an LSTM has four gates"))?;
    let sigmoid = lib_attr(interp, "jax.nn", "sigmoid")?;
    let tanh = lib_attr(interp, "jax.numpy", "tanh")?;
    let f1 = add(interp, &f, &Obj::Int(1))?;
    let f = call1(interp, &sigmoid, f1)?;
    let fc = mul(interp, &f, &c)?;
    let si = call1(interp, &sigmoid, i)?;
    let tg = call1(interp, &tanh, g)?;
    let ig = mul(interp, &si, &tg)?;
    let new_c = add(interp, &fc, &ig)?;
    let so = call1(interp, &sigmoid, o)?;
    let tc = call1(interp, &tanh, new_c.clone())?;
    let new_h = mul(interp, &so, &tc)?;
    Ok(Obj::tuple(vec![
        Obj::tuple(vec![new_c, new_h.clone()]),
        new_h,
    ]))
}

/// The body of a cell's `__call__(carry, inputs)`, run in the cell's scope.
fn cell_body(kind: Kind, child: Rc<Class>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |interp, a| {
        let me = self_arg(&a, kind.name())?;
        let carry = a.req(Some(1), "carry", kind.name())?;
        let x = a.req(Some(2), "inputs", kind.name())?;
        refuse_dtypes(&me, &to_value(&x)?, kind.name())?;
        match kind {
            Kind::Lstm | Kind::OptimizedLstm => {
                let optimized = kind == Kind::OptimizedLstm;
                lstm(interp, &me, (&child, optimized), &carry, &x)
            }
            Kind::Gru => gru(interp, &me, &child, &carry, &x),
            Kind::Mgu => mgu(interp, &me, &child, &carry, &x),
            Kind::Simple => simple(interp, &me, &child, &carry, &x),
            Kind::ConvLstm => conv_lstm(interp, &me, &child, &carry, &x),
        }
    }
}

/// `num_feature_axes`: one, or a `ConvLSTMCell`'s spatial axes and its
/// features.
fn feature_axes(kind: Kind, me: &Instance) -> Result<usize> {
    match kind {
        Kind::ConvLstm => Ok(iterate(&field(me, "kernel_size"))?.len() + 1),
        _ => Ok(1),
    }
}

/// `initialize_carry(rng, input_shape)`: zeros (or `carry_init`) shaped as
/// the input's batch (and, for `ConvLSTMCell`, spatial) dimensions followed
/// by the cell's features.
fn initialize_carry(kind: Kind) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |interp, a| {
        let me = self_arg(&a, "initialize_carry")?;
        let rng = a.req(Some(1), "rng", "initialize_carry")?;
        let shape = iterate(&a.req(Some(2), "input_shape", "initialize_carry")?)?;
        let n = shape.len();
        let axes = feature_axes(kind, &me)?;
        let mut mem = shape[..n.saturating_sub(axes)].to_vec();
        if kind == Kind::ConvLstm {
            mem.extend_from_slice(&shape[n.saturating_sub(axes)..n.saturating_sub(1)]);
        }
        mem.push(field(&me, "features"));
        let mem = Obj::tuple(mem);
        let (init, dtype) = (field(&me, "carry_init"), field(&me, "param_dtype"));
        if !kind.paired() {
            return interp.call(&init, Args::new(vec![rng, mem, dtype]));
        }
        let split = lib_attr(interp, "jax.random", "split")?;
        let keys = iterate(&call1(interp, &split, rng)?)?;
        let mut parts = Vec::new();
        for key in keys.into_iter().take(2) {
            let args = Args::new(vec![key, mem.clone(), dtype.clone()]);
            parts.push(interp.call(&init, args)?);
        }
        Ok(Obj::tuple(parts))
    }
}

/// The classes the cells are built from.
pub(super) struct CellParts<'a> {
    pub module: &'a Rc<Class>,
    pub dense: &'a Rc<Class>,
    pub conv: Rc<Class>,
    /// `flax.linen.initializers`.
    pub inits: &'a Obj,
    /// Flax's default kernel initializer, `lecun_normal()`.
    pub lecun: &'a Obj,
}

/// Each cell's fields, in Flax's order, with their defaults.
fn cell_fields(
    interp: &mut Interp,
    kind: Kind,
    p: &CellParts,
    b: &Builder,
) -> Result<Vec<(&'static str, Option<Obj>)>> {
    let init = |n: &str| match p.inits {
        Obj::Module(m) => m.get(n).unwrap_or(Obj::None),
        _ => Obj::None,
    };
    let orthogonal = interp.call(&init("orthogonal"), Args::default())?;
    let head: Vec<(&'static str, Option<Obj>)> = vec![
        ("features", None),
        ("gate_fn", b.get("sigmoid")),
        ("activation_fn", b.get("tanh")),
        ("kernel_init", Some(p.lecun.clone())),
        ("recurrent_kernel_init", Some(orthogonal)),
    ];
    let tail = vec![
        ("dtype", Some(Obj::None)),
        ("param_dtype", Some(Obj::DType(DType::F32))),
        ("carry_init", Some(init("zeros"))),
    ];
    let mut fields = match kind {
        Kind::Simple => head.into_iter().filter(|(f, _)| *f != "gate_fn").collect(),
        Kind::ConvLstm => vec![
            ("features", None),
            ("kernel_size", None),
            ("strides", Some(Obj::None)),
            ("padding", Some(Obj::str("SAME"))),
            ("use_bias", Some(Obj::Bool(true))),
        ],
        _ => head,
    };
    match kind {
        Kind::Mgu => fields.extend([
            ("forget_bias_init", Some(init("ones"))),
            ("activation_bias_init", Some(init("zeros"))),
        ]),
        Kind::ConvLstm => {}
        _ => fields.push(("bias_init", Some(init("zeros")))),
    }
    fields.extend(tail);
    match kind {
        Kind::Simple => fields.push(("residual", Some(Obj::Bool(false)))),
        Kind::Mgu => fields.push(("reset_gate", Some(Obj::Bool(true)))),
        _ => {}
    }
    Ok(fields)
}

/// `num_feature_axes` as a property of the cell.
fn feature_axes_property(kind: Kind) -> Obj {
    Obj::lib(crate::python::classes::Property {
        fget: Obj::native("num_feature_axes", move |_, a| {
            let me = self_arg(&a, "num_feature_axes")?;
            Ok(Obj::Int(feature_axes(kind, &me)? as i64))
        }),
        fset: None,
    })
}

/// `RNNCellBase`, whose `initialize_carry` and `num_feature_axes` a cell
/// must define.
fn cell_base(module: &Rc<Class>) -> Rc<Class> {
    let abstract_method = |name: &'static str| {
        Obj::native(format!("RNNCellBase.{name}"), |_, _| {
            bail!(NotImplementedError, "")
        })
    };
    let methods = vec![
        (
            "initialize_carry".to_string(),
            abstract_method("initialize_carry"),
        ),
        (
            "num_feature_axes".to_string(),
            Obj::lib(crate::python::classes::Property {
                fget: abstract_method("num_feature_axes"),
                fset: None,
            }),
        ),
    ];
    layer_class(module, "RNNCellBase", vec![], methods)
}

/// Adds `RNNCellBase` and the cells to `flax.linen`.
pub(super) fn register(interp: &mut Interp, b: &mut Builder, p: &CellParts) -> Result<()> {
    let base = cell_base(p.module);
    b.attr("RNNCellBase", Obj::Class(base.clone()));
    for kind in Kind::ALL {
        let child = match kind {
            Kind::ConvLstm => p.conv.clone(),
            _ => p.dense.clone(),
        };
        let body = Obj::native(format!("{}.__call__", kind.name()), cell_body(kind, child));
        let call = Obj::native(format!("{}.__call__", kind.name()), move |interp, a| {
            let me = self_arg(&a, "__call__")?;
            call_in_scope(interp, &me, &body, a)
        });
        let carry = Obj::native(
            format!("{}.initialize_carry", kind.name()),
            initialize_carry(kind),
        );
        let methods = vec![
            ("__call__".to_string(), call),
            ("initialize_carry".to_string(), carry),
            ("num_feature_axes".to_string(), feature_axes_property(kind)),
        ];
        let fields = cell_fields(interp, kind, p, b)?;
        let class = layer_class(&base, kind.name(), fields, methods);
        b.attr(kind.name(), Obj::Class(class));
    }
    Ok(())
}
