//! The recurrent cells of `flax.nnx` (`SimpleCell`, `LSTMCell`,
//! `OptimizedLSTMCell`, `GRUCell`) and `RNN` / `Bidirectional`, which run a
//! cell over the time axis of a sequence.
//!
//! A cell is made of `nnx.Linear` layers built through the `Linear` class
//! itself, in Flax's order, so their parameters (and the keys each draws
//! from the `params` stream) are Flax's: the input kernels by
//! `lecun_normal`, the recurrent ones by `orthogonal`, and only one of each
//! summed pair has a bias. The gates are computed by calling the cell's
//! `gate_fn` and `activation_fn` (sigmoid and tanh unless given), so a
//! program's own functions are honoured. `initialize_carry` draws one key
//! per carry array from the `carry` stream (of an `Rngs`, or a stream given
//! as is) even for the default zeros, as Flax does, which keeps later draws
//! in step.
//!
//! `RNN` steps the cell over time in order (an unrolled `scan`): the
//! values are those of Flax's scan, and the cell's state carries across
//! steps as scan carries it.

use super::*;
use crate::python::ops::{binop, getattr};
use rustpython_parser::ast::Operator;

/// Which cell a class is.
#[derive(Clone, Copy, PartialEq)]
enum Cell {
    Simple,
    Lstm,
    OptimizedLstm,
    Gru,
}

impl Cell {
    fn name(self) -> &'static str {
        match self {
            Cell::Simple => "SimpleCell",
            Cell::Lstm => "LSTMCell",
            Cell::OptimizedLstm => "OptimizedLSTMCell",
            Cell::Gru => "GRUCell",
        }
    }

    /// The Linear layers, in the order Flax makes them: name, input
    /// (false) or recurrent (true), output width in hidden units, and bias.
    fn layers(self) -> &'static [(&'static str, bool, i64, bool)] {
        match self {
            Cell::Simple => &[("dense_h", true, 1, false), ("dense_i", false, 1, true)],
            Cell::Lstm => &[
                ("ii", false, 1, false),
                ("if_", false, 1, false),
                ("ig", false, 1, false),
                ("io", false, 1, false),
                ("hi", true, 1, true),
                ("hf", true, 1, true),
                ("hg", true, 1, true),
                ("ho", true, 1, true),
            ],
            Cell::OptimizedLstm => &[("dense_i", false, 4, false), ("dense_h", true, 4, true)],
            Cell::Gru => &[("dense_i", false, 3, true), ("dense_h", true, 3, false)],
        }
    }
}

/// The classes the recurrent layers are built from.
#[derive(Clone)]
pub(super) struct RecurrentClasses {
    pub module: Rc<Class>,
    pub linear: Rc<Class>,
    pub rngs: Rc<Class>,
    pub stream: Rc<Class>,
}

pub(super) fn lib_attr(interp: &mut Interp, module: &str, name: &str) -> Result<Obj> {
    let m = crate::modules::import(interp, module)?;
    getattr(interp, &m, name)
}

/// The initializer the program gives as `name`, or JAX's `default()`.
fn default_init(interp: &mut Interp, a: &Args, name: &str, default: &str) -> Result<Obj> {
    if let Some(f) = a.opt(None, name) {
        return Ok(f);
    }
    let factory = lib_attr(interp, "jax.nn.initializers", default)?;
    interp.call(&factory, Args::default())
}

/// One of the cell's Linear layers, built as Flax builds it.
fn make_linear(
    interp: &mut Interp,
    linear: &Rc<Class>,
    a: &Args,
    (din, dout, bias): (i64, i64, bool),
    kernel_init: Obj,
) -> Result<Obj> {
    let mut kw = vec![
        ("use_bias".to_string(), Obj::Bool(bias)),
        ("kernel_init".to_string(), kernel_init),
        ("rngs".to_string(), a.req(None, "rngs", "cell")?),
    ];
    if let (true, Some(b)) = (bias, a.opt(None, "bias_init")) {
        kw.push(("bias_init".into(), b));
    }
    let args = Args::with(vec![Obj::Int(din), Obj::Int(dout)], kw);
    interp.call(&Obj::Class(linear.clone()), args)
}

fn refuse_options(a: &Args, cell: Cell) -> Result<()> {
    for name in ["keep_rngs", "dtype", "promote_dtype"] {
        let given = match a.get(None, name) {
            None | Some(Obj::None) | Some(Obj::Bool(false)) => false,
            Some(d)
                if crate::modules::numpy::jnp_scalar_types::exact_dtype(&d) == Some(DType::F32) =>
            {
                false
            }
            Some(_) => true,
        };
        if given {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.{} with {name}",
                cell.name()
            );
        }
    }
    Ok(())
}

fn cell_init(kind: Cell, c: &RecurrentClasses) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let c = c.clone();
    move |interp, a| {
        let me = self_arg(&a, kind.name())?;
        refuse_options(&a, kind)?;
        let din = to_int(&a.req(Some(1), "in_features", kind.name())?)?;
        let hidden = to_int(&a.req(Some(2), "hidden_features", kind.name())?)?;
        set_iattr(&me, "in_features", Obj::Int(din));
        set_iattr(&me, "hidden_features", Obj::Int(hidden));
        if kind != Cell::Simple {
            let gate = match a.opt(None, "gate_fn") {
                Some(f) => f,
                None => lib_attr(interp, "jax.nn", "sigmoid")?,
            };
            set_iattr(&me, "gate_fn", gate);
        }
        let act = match a.opt(None, "activation_fn") {
            Some(f) => f,
            None => lib_attr(interp, "jax.numpy", "tanh")?,
        };
        let dtype = match kind {
            Cell::Simple => super::jnp_float32(),
            _ => Obj::None,
        };
        set_iattr(&me, "dtype", dtype);
        set_iattr(&me, "param_dtype", super::jnp_float32());
        if kind == Cell::Simple {
            let residual = norm::flag(&a, "residual", false)?;
            set_iattr(&me, "residual", Obj::Bool(residual));
        }
        set_iattr(&me, "activation_fn", act);
        let promote = Obj::lib(super::display::FunctionRef("promote_dtype"));
        set_iattr(&me, "promote_dtype", promote);
        set_iattr(&me, "rngs", Obj::None);
        let kernel_init = default_init(interp, &a, "kernel_init", "lecun_normal")?;
        let recurrent_init = default_init(interp, &a, "recurrent_kernel_init", "orthogonal")?;
        for &(name, recurrent, width, bias) in kind.layers() {
            let (input, init) = match recurrent {
                true => (hidden, recurrent_init.clone()),
                false => (din, kernel_init.clone()),
            };
            let layer = make_linear(interp, &c.linear, &a, (input, width * hidden, bias), init)?;
            set_iattr(&me, name, layer);
        }
        let carry_init = a.get(None, "carry_init").unwrap_or(Obj::None);
        set_iattr(&me, "carry_init", carry_init);
        Ok(Obj::None)
    }
}

fn attr(me: &Instance, name: &str) -> Obj {
    iattr(me, name).unwrap_or(Obj::None)
}

pub(super) fn call1(interp: &mut Interp, f: &Obj, x: Obj) -> Result<Obj> {
    interp.call(f, Args::new(vec![x]))
}

pub(super) fn add(interp: &mut Interp, x: &Obj, y: &Obj) -> Result<Obj> {
    binop(interp, &Operator::Add, x, y, false)
}

pub(super) fn mul(interp: &mut Interp, x: &Obj, y: &Obj) -> Result<Obj> {
    binop(interp, &Operator::Mult, x, y, false)
}

/// `jnp.split(y, parts, axis=-1)`.
pub(super) fn split_last(y: &Obj, parts: usize) -> Result<Vec<Obj>> {
    let v = to_value(y)?;
    let shape = v.shape();
    let nd = shape.len();
    let width = shape[nd - 1] / parts;
    (0..parts)
        .map(|k| {
            let mut lo = vec![0; nd];
            let mut hi = shape.clone();
            lo[nd - 1] = k * width;
            hi[nd - 1] = (k + 1) * width;
            Ok(Obj::Array(jops::slice(&v, &lo, &hi, &vec![1; nd])?))
        })
        .collect()
}

/// `(c, h)` of an LSTM carry.
pub(super) fn lstm_carry(carry: &Obj) -> Result<(Obj, Obj)> {
    let items = iterate(carry)?;
    match items.as_slice() {
        [c, h] => Ok((c.clone(), h.clone())),
        _ => bail!(ValueError, "too many values to unpack (expected 2)"),
    }
}

/// The LSTM update from the four gate pre-activations.
pub(super) fn lstm_update(
    interp: &mut Interp,
    me: &Instance,
    c: &Obj,
    pre: [Obj; 4],
) -> Result<Obj> {
    let (gate, act) = (attr(me, "gate_fn"), attr(me, "activation_fn"));
    let [i, f, g, o] = pre;
    let i = call1(interp, &gate, i)?;
    let f = call1(interp, &gate, f)?;
    let g = call1(interp, &act, g)?;
    let o = call1(interp, &gate, o)?;
    let fc = mul(interp, &f, c)?;
    let ig = mul(interp, &i, &g)?;
    let new_c = add(interp, &fc, &ig)?;
    let tc = call1(interp, &act, new_c.clone())?;
    let new_h = mul(interp, &o, &tc)?;
    Ok(Obj::tuple(vec![
        Obj::tuple(vec![new_c, new_h.clone()]),
        new_h,
    ]))
}

fn lstm_call(interp: &mut Interp, me: &Instance, carry: &Obj, x: &Obj) -> Result<Obj> {
    let (c, h) = lstm_carry(carry)?;
    let mut pre = Vec::new();
    for (i, r) in [("ii", "hi"), ("if_", "hf"), ("ig", "hg"), ("io", "ho")] {
        let xi = call1(interp, &attr(me, i), x.clone())?;
        let hr = call1(interp, &attr(me, r), h.clone())?;
        pre.push(add(interp, &xi, &hr)?);
    }
    let pre: [Obj; 4] = pre
        .try_into()
        .map_err(|_| err!(ValueError, "an LSTM has four gates"))?;
    lstm_update(interp, me, &c, pre)
}

fn optimized_lstm_call(interp: &mut Interp, me: &Instance, carry: &Obj, x: &Obj) -> Result<Obj> {
    let (c, h) = lstm_carry(carry)?;
    let xi = call1(interp, &attr(me, "dense_i"), x.clone())?;
    let hh = call1(interp, &attr(me, "dense_h"), h)?;
    let y = add(interp, &xi, &hh)?;
    let pre: [Obj; 4] = split_last(&y, 4)?
        .try_into()
        .map_err(|_| err!(ValueError, "an LSTM has four gates"))?;
    lstm_update(interp, me, &c, pre)
}

fn gru_call(interp: &mut Interp, me: &Instance, h: &Obj, x: &Obj) -> Result<Obj> {
    let (gate, act) = (attr(me, "gate_fn"), attr(me, "activation_fn"));
    let xt = call1(interp, &attr(me, "dense_i"), x.clone())?;
    let ht = call1(interp, &attr(me, "dense_h"), h.clone())?;
    let (xs, hs) = (split_last(&xt, 3)?, split_last(&ht, 3)?);
    let r_in = add(interp, &xs[0], &hs[0])?;
    let r = call1(interp, &gate, r_in)?;
    let z_in = add(interp, &xs[1], &hs[1])?;
    let z = call1(interp, &gate, z_in)?;
    let rh = mul(interp, &r, &hs[2])?;
    let n_in = add(interp, &xs[2], &rh)?;
    let n = call1(interp, &act, n_in)?;
    let one_minus = binop(interp, &Operator::Sub, &Obj::Float(1.0), &z, false)?;
    let kept = mul(interp, &one_minus, &n)?;
    let zh = mul(interp, &z, h)?;
    let new_h = add(interp, &kept, &zh)?;
    Ok(Obj::tuple(vec![new_h.clone(), new_h]))
}

fn simple_call(interp: &mut Interp, me: &Instance, h: &Obj, x: &Obj) -> Result<Obj> {
    let xi = call1(interp, &attr(me, "dense_i"), x.clone())?;
    let hh = call1(interp, &attr(me, "dense_h"), h.clone())?;
    let mut new = add(interp, &xi, &hh)?;
    if truthy(&attr(me, "residual"), "residual")? {
        new = add(interp, &new, h)?;
    }
    let new = call1(interp, &attr(me, "activation_fn"), new)?;
    Ok(Obj::tuple(vec![new.clone(), new]))
}

fn cell_call(kind: Cell) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |interp, a| {
        let me = self_arg(&a, kind.name())?;
        let carry = a.req(Some(1), "carry", kind.name())?;
        let x = a.req(Some(2), "inputs", kind.name())?;
        match kind {
            Cell::Simple => simple_call(interp, &me, &carry, &x),
            Cell::Lstm => lstm_call(interp, &me, &carry, &x),
            Cell::OptimizedLstm => optimized_lstm_call(interp, &me, &carry, &x),
            Cell::Gru => gru_call(interp, &me, &carry, &x),
        }
    }
}

/// The stream carries are drawn from: the one given (an `Rngs`' `carry`
/// stream, or a stream as is), else the cell's own.
fn carry_stream(
    c: &RecurrentClasses,
    interp: &mut Interp,
    me: &Instance,
    given: Option<Obj>,
) -> Result<Obj> {
    let rngs = match given {
        Some(r) => r,
        None => attr(me, "rngs"),
    };
    let rngs = match &rngs {
        Obj::Instance(i) if derives(&i.class, &c.rngs) => getattr(interp, &rngs, "carry")?,
        _ => rngs,
    };
    if matches!(rngs, Obj::None) {
        bail!(
            ValueError,
            "RNGs must be provided to initialize the cell carry."
        );
    }
    Ok(rngs)
}

fn initialize_carry(kind: Cell, c: &RecurrentClasses) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let c = c.clone();
    move |interp, a| {
        let me = self_arg(&a, "initialize_carry")?;
        let shape = iterate(&a.req(Some(1), "input_shape", "initialize_carry")?)?;
        let stream = carry_stream(&c, interp, &me, a.opt(Some(2), "rngs"))?;
        let init = match (a.opt(Some(3), "carry_init"), attr(&me, "carry_init")) {
            (Some(f), _) => f,
            (None, Obj::None) => lib_attr(interp, "jax.nn.initializers", "zeros")?,
            (None, own) => own,
        };
        let mut mem = shape[..shape.len().saturating_sub(1)].to_vec();
        mem.push(attr(&me, "hidden_features"));
        let mem = Obj::tuple(mem);
        let count = if matches!(kind, Cell::Lstm | Cell::OptimizedLstm) {
            2
        } else {
            1
        };
        let mut parts = Vec::new();
        for _ in 0..count {
            let key = interp.call(&stream, Args::default())?;
            let args = Args::new(vec![key, mem.clone(), attr(&me, "param_dtype")]);
            parts.push(interp.call(&init, args)?);
        }
        Ok(match parts.len() {
            1 => parts.remove(0),
            _ => Obj::tuple(parts),
        })
    }
}

fn cell_class(kind: Cell, c: &RecurrentClasses) -> Rc<Class> {
    new_class(
        kind.name(),
        vec![c.module.clone()],
        vec![
            (
                "__init__".into(),
                Obj::native("cell.__init__", cell_init(kind, c)),
            ),
            (
                "__call__".into(),
                Obj::native("cell.__call__", cell_call(kind)),
            ),
            (
                "initialize_carry".into(),
                Obj::native("cell.initialize_carry", initialize_carry(kind, c)),
            ),
            ("num_feature_axes".into(), Obj::Int(1)),
        ],
    )
}

/// Adds the cells, `RNN` and `Bidirectional` to `flax.nnx`.
pub(super) fn register(b: &mut Builder, c: &RecurrentClasses) {
    for kind in [Cell::Simple, Cell::Lstm, Cell::OptimizedLstm, Cell::Gru] {
        b.attr(kind.name(), Obj::Class(cell_class(kind, c)));
    }
    super::rnn::register(b, c);
}
