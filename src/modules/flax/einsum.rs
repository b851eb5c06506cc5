//! `nnx.Einsum(einsum_str, kernel_shape, bias_shape=None, *, rngs)`: a
//! kernel of `kernel_shape` (drawn with one `params` key, LeCun normal by
//! default) and an optional bias (a second `params` key, zeros by default),
//! applied as `jnp.einsum(einsum_str, inputs, kernel)` plus the bias
//! reshaped so that each of its axes meets the output axis the kernel's
//! letter lands on.

use super::display::FunctionRef;
use super::*;

/// Flax's checks of an equation: explicit, with two operands.
fn check_equation(s: &str) -> Result<()> {
    if !s.contains("->") {
        bail!(
            ValueError,
            "`einsum_str` equation must be explicit and include \"->\"."
        );
    }
    let commas = s.matches(',').count();
    if commas != 1 {
        bail!(
            ValueError,
            "`einsum_str` equation must have exactly two operands and therefore, exactly one comma character, instead of {commas}"
        );
    }
    if s.contains('.') {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.Einsum with an ellipsis in einsum_str"
        );
    }
    Ok(())
}

fn shape_of(o: &Obj) -> Result<Vec<i64>> {
    iterate(o)?.iter().map(to_int).collect()
}

fn shape_obj(s: &[i64]) -> Obj {
    Obj::tuple(s.iter().map(|&d| Obj::Int(d)).collect())
}

fn initializer(interp: &mut Interp, name: &str) -> Result<Obj> {
    let inits = crate::modules::import(interp, "jax.nn.initializers")?;
    let make = crate::python::ops::getattr(interp, &inits, name)?;
    interp.call(&make, Args::default())
}

fn refuse_options(a: &Args) -> Result<()> {
    for name in [
        "dtype",
        "precision",
        "promote_dtype",
        "einsum_op",
        "preferred_element_type",
        "kernel_metadata",
        "bias_metadata",
    ] {
        if a.opt(None, name).is_some_and(|v| !matches!(v, Obj::None)) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.Einsum({name}=...)"
            );
        }
    }
    match a.opt(None, "param_dtype") {
        None => Ok(()),
        Some(d) if crate::modules::numpy::jnp_scalar_types::exact_dtype(&d) == Some(DType::F32) => {
            Ok(())
        }
        Some(_) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.Einsum(param_dtype=...)"
        ),
    }
}

fn einsum_init(param: &Rc<Class>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let param = param.clone();
    move |interp, a| {
        let me = self_arg(&a, "Einsum")?;
        let eq = str_of(&a.req(Some(1), "einsum_str", "Einsum")?).replace(' ', "");
        check_equation(&eq)?;
        let kshape = shape_of(&a.req(Some(2), "kernel_shape", "Einsum")?)?;
        let bshape = match a.get(Some(3), "bias_shape") {
            None | Some(Obj::None) => None,
            Some(s) => Some(shape_of(&s)?),
        };
        refuse_options(&a)?;
        let rngs = a.req(None, "rngs", "Einsum")?;
        let f32 = super::jnp_float32();
        let kinit = match a.opt(None, "kernel_init") {
            Some(f) => f,
            None => initializer(interp, "lecun_normal")?,
        };
        let key = super::nnx::rngs_next(&rngs, "params")?;
        let kernel = interp.call(
            &kinit,
            Args::new(vec![key, shape_obj(&kshape), f32.clone()]),
        )?;
        set_iattr(
            &me,
            "kernel",
            instance(&param, vec![("value".into(), kernel)]),
        );
        let bias = match &bshape {
            Some(s) => {
                let binit = match a.opt(None, "bias_init") {
                    Some(f) => f,
                    None => {
                        let inits = crate::modules::import(interp, "jax.nn.initializers")?;
                        crate::python::ops::getattr(interp, &inits, "zeros")?
                    }
                };
                let key = super::nnx::rngs_next(&rngs, "params")?;
                let b = interp.call(&binit, Args::new(vec![key, shape_obj(s), f32.clone()]))?;
                instance(&param, vec![("value".into(), b)])
            }
            None => Obj::None,
        };
        set_iattr(&me, "bias", bias);
        set_iattr(&me, "einsum_str", Obj::str(&eq));
        set_iattr(&me, "kernel_shape", shape_obj(&kshape));
        set_iattr(
            &me,
            "bias_shape",
            bshape.as_deref().map_or(Obj::None, shape_obj),
        );
        set_iattr(&me, "dtype", Obj::None);
        set_iattr(&me, "param_dtype", f32);
        set_iattr(&me, "precision", Obj::None);
        set_iattr(&me, "promote_dtype", Obj::lib(FunctionRef("promote_dtype")));
        set_iattr(&me, "einsum_op", Obj::lib(FunctionRef("einsum")));
        set_iattr(&me, "preferred_element_type", Obj::None);
        Ok(Obj::None)
    }
}

/// The shape the bias takes to add to the output: each output letter that
/// names a kernel axis gets that axis's size, the others 1.
fn bias_broadcast_shape(eq: &str, kshape: &[i64]) -> Result<Vec<i64>> {
    let (ops, out) = eq
        .split_once("->")
        .ok_or_else(|| err!(ValueError, "`einsum_str` equation must be explicit"))?;
    let rhs: Vec<char> = ops.split(',').nth(1).unwrap_or("").chars().collect();
    if rhs.len() != kshape.len() {
        bail!(
            ValueError,
            "the kernel's letters in {eq} do not match its {} axes",
            kshape.len()
        );
    }
    Ok(out
        .chars()
        .map(|c| rhs.iter().position(|&r| r == c).map_or(1, |i| kshape[i]))
        .collect())
}

fn value_of(o: Option<Obj>) -> Option<Obj> {
    match o {
        Some(Obj::Instance(v)) if is_variable(&v) => iattr(&v, "value"),
        Some(Obj::None) | None => None,
        other => other,
    }
}

fn einsum_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Einsum.__call__")?;
    let x = a.req(Some(1), "inputs", "Einsum.__call__")?;
    if a.opt(None, "out_sharding")
        .is_some_and(|v| !matches!(v, Obj::None))
    {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: Einsum with out_sharding"
        );
    }
    let eq = match (a.get(Some(2), "einsum_str"), iattr(&me, "einsum_str")) {
        (Some(s), _) if !matches!(s, Obj::None) => str_of(&s),
        (_, Some(s)) if !matches!(s, Obj::None) => str_of(&s),
        _ => bail!(
            ValueError,
            "No `einsum_str` argument was provided to Einsum\n        as either a __call__ argument, or class attribute."
        ),
    }
    .replace(' ', "");
    check_equation(&eq)?;
    let kernel = value_of(iattr(&me, "kernel"))
        .ok_or_else(|| err!(AttributeError, "'Einsum' object has no attribute 'kernel'"))?;
    let jnp = crate::modules::import(interp, "jax.numpy")?;
    let einsum = crate::python::ops::getattr(interp, &jnp, "einsum")?;
    let y = interp.call(&einsum, Args::new(vec![Obj::str(&eq), x, kernel]))?;
    let Some(bias) = value_of(iattr(&me, "bias")) else {
        return Ok(y);
    };
    let kshape = shape_of(&iattr(&me, "kernel_shape").unwrap_or(Obj::tuple(vec![])))?;
    let shape = bias_broadcast_shape(&eq, &kshape)?;
    let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    let b = jops::reshape(&to_value(&bias)?, &dims)?;
    Ok(Obj::Array(jops::add(&to_value(&y)?, &b)?))
}

/// `nnx.Einsum`.
pub(super) fn einsum_class(module: &Rc<Class>, param: &Rc<Class>) -> Rc<Class> {
    new_class(
        "Einsum",
        vec![module.clone()],
        vec![
            (
                "__init__".into(),
                Obj::native("Einsum.__init__", einsum_init(param)),
            ),
            (
                "__call__".into(),
                Obj::native("Einsum.__call__", einsum_call),
            ),
        ],
    )
}
