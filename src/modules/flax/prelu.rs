//! `nnx.PReLU`: `x` where `x >= 0`, else `negative_slope * x`, with the
//! slope a learned scalar `Param` (0.01 unless given). No key is drawn.
//! The slope is cast to the input's dtype first, as Flax does when the
//! layer has no `dtype`.

use super::*;

fn prelu_init(param: Rc<Class>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| {
        let me = self_arg(&a, "PReLU")?;
        for name in ["dtype", "promote_dtype", "negative_slope_metadata"] {
            if a.opt(None, name).is_some() {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: nnx.PReLU with {name}"
                );
            }
        }
        let slope = match a.get(Some(1), "negative_slope_init") {
            Some(o) => crate::python::builtins::to_float(&o)?,
            None => 0.01,
        };
        let value = Obj::Array(jops::scalar(slope, DType::F32));
        set_iattr(
            &me,
            "negative_slope",
            instance(&param, vec![("value".into(), value)]),
        );
        set_iattr(&me, "dtype", Obj::None);
        set_iattr(&me, "param_dtype", super::jnp_float32());
        let promote = Obj::lib(super::display::FunctionRef("promote_dtype"));
        set_iattr(&me, "promote_dtype", promote);
        Ok(Obj::None)
    }
}

fn prelu_call(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "PReLU.__call__")?;
    let x = to_value(&a.req(Some(1), "inputs", "PReLU.__call__")?)?;
    let slope = super::nnx::value_of(&iattr(&me, "negative_slope").unwrap_or(Obj::None))?;
    let slope = jops::astype(&slope, x.dtype())?;
    let scaled = jops::mul(&slope, &x)?;
    let zero = jops::scalar(0.0, x.dtype());
    let keep = jops::greater_equal(&x, &zero)?;
    Ok(Obj::Array(jops::select(&keep, &x, &scaled)?))
}

/// `nnx.PReLU`.
pub(super) fn prelu_class(module: &Rc<Class>, param: &Rc<Class>) -> Rc<Class> {
    new_class(
        "PReLU",
        vec![module.clone()],
        vec![
            (
                "__init__".into(),
                Obj::native("PReLU.__init__", prelu_init(param.clone())),
            ),
            ("__call__".into(), Obj::native("PReLU.__call__", prelu_call)),
        ],
    )
}
