//! `nnx.LoRA` and `nnx.LoRAParam`: a low-rank adapter `x @ a @ b` added to
//! the output of an optional base module.
//!
//! `a` is drawn with `he_uniform` and `b` starts at zero, each from the
//! `params` stream in that order, so a fresh adapter leaves the base
//! module's output unchanged. The adapter's variables are `LoRAParam`s (a
//! `Param` subclass), which lets an optimizer train only them with
//! `wrt=nnx.LoRAParam`.

use super::display::FunctionRef;
use super::nnx::rngs_next;
use super::*;
use crate::python::ops::{binop, getattr};
use rustpython_parser::ast::Operator;

/// Draws an initial value with `init(key, shape, float32)`.
fn draw(interp: &mut Interp, init: &Obj, rngs: &Obj, shape: [i64; 2]) -> Result<Obj> {
    let key = rngs_next(rngs, "params")?;
    let shape = Obj::tuple(shape.iter().map(|&d| Obj::Int(d)).collect());
    interp.call(init, Args::new(vec![key, shape, super::jnp_float32()]))
}

fn default_init(interp: &mut Interp, name: &str) -> Result<Obj> {
    let inits = crate::modules::import(interp, "jax.nn.initializers")?;
    let f = getattr(interp, &inits, name)?;
    if name == "zeros" {
        return Ok(f);
    }
    interp.call(&f, Args::default())
}

fn lora_init(param: Rc<Class>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |interp, a| {
        let me = self_arg(&a, "LoRA")?;
        let din = to_int(&a.req(Some(1), "in_features", "LoRA")?)?;
        let rank = to_int(&a.req(Some(2), "lora_rank", "LoRA")?)?;
        let dout = to_int(&a.req(Some(3), "out_features", "LoRA")?)?;
        let rngs = a.req(None, "rngs", "LoRA")?;
        for name in ["dtype", "a_metadata", "b_metadata", "promote_dtype"] {
            if a.opt(None, name).is_some() {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx.LoRA with {name}"
                );
            }
        }
        if a.get(None, "param_dtype").is_some_and(|d| {
            crate::modules::numpy::jnp_scalar_types::exact_dtype(&d) != Some(DType::F32)
        }) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.LoRA with param_dtype other than float32"
            );
        }
        let kind = match a.opt(None, "lora_param_type") {
            Some(Obj::Class(c)) => c,
            Some(other) => bail!(
                TypeError,
                "lora_param_type must be a Variable type, got {}",
                repr_of(&other)
            ),
            None => param.clone(),
        };
        let a_init = match a.opt(None, "a_initializer") {
            Some(f) => f,
            None => default_init(interp, "he_uniform")?,
        };
        let b_init = match a.opt(None, "b_initializer") {
            Some(f) => f,
            None => default_init(interp, "zeros")?,
        };
        let lora_a = draw(interp, &a_init, &rngs, [din, rank])?;
        let lora_b = draw(interp, &b_init, &rngs, [rank, dout])?;
        set_iattr(&me, "in_features", Obj::Int(din));
        set_iattr(&me, "out_features", Obj::Int(dout));
        set_iattr(&me, "dtype", Obj::None);
        set_iattr(&me, "param_dtype", super::jnp_float32());
        set_iattr(&me, "lora_param_type", Obj::Class(kind.clone()));
        set_iattr(
            &me,
            "base_module",
            a.get(None, "base_module").unwrap_or(Obj::None),
        );
        set_iattr(&me, "promote_dtype", Obj::lib(FunctionRef("promote_dtype")));
        let var = |v: Obj| instance(&kind, vec![("value".into(), v)]);
        set_iattr(&me, "lora_a", var(lora_a));
        set_iattr(&me, "lora_b", var(lora_b));
        Ok(Obj::None)
    }
}

fn lora_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "LoRA.__call__")?;
    let x = a.req(Some(1), "x", "LoRA.__call__")?;
    let la = Obj::Array(super::nnx::value_of(
        &iattr(&me, "lora_a").unwrap_or(Obj::None),
    )?);
    let lb = Obj::Array(super::nnx::value_of(
        &iattr(&me, "lora_b").unwrap_or(Obj::None),
    )?);
    let xa = binop(interp, &Operator::MatMult, &x, &la, false)?;
    let out = binop(interp, &Operator::MatMult, &xa, &lb, false)?;
    match iattr(&me, "base_module") {
        None | Some(Obj::None) => Ok(out),
        Some(base) => {
            let args = Args::with(vec![x], a.kw.clone());
            let y = interp.call(&base, args)?;
            binop(interp, &Operator::Add, &out, &y, false)
        }
    }
}

/// The `LoRAParam` and `LoRA` classes.
pub(super) fn lora_classes(module: &Rc<Class>, param: &Rc<Class>) -> (Rc<Class>, Rc<Class>) {
    let lora_param = new_class(
        "LoRAParam",
        vec![param.clone()],
        vec![("__module__".into(), Obj::str("flax.nnx.nn.lora"))],
    );
    let lora = new_class(
        "LoRA",
        vec![module.clone()],
        vec![
            (
                "__init__".into(),
                Obj::native("LoRA.__init__", lora_init(lora_param.clone())),
            ),
            ("__call__".into(), Obj::native("LoRA.__call__", lora_call)),
        ],
    );
    (lora_param, lora)
}
