//! `nnx.Embed`: a `(num_embeddings, features)` table of `Param`s, drawn with
//! one `params` key by Flax's default embedding initializer (or the given
//! `embedding_init`), looked up by integer indices with `jnp.take` along
//! axis 0, and `attend(query)` as `query @ embedding.T`.

use super::*;

fn embed_init(param: &Rc<Class>) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let param = param.clone();
    move |interp, a| {
        let me = self_arg(&a, "Embed")?;
        let n = to_int(&a.req(Some(1), "num_embeddings", "Embed")?)?;
        let f = to_int(&a.req(Some(2), "features", "Embed")?)?;
        if n < 0 || f < 0 {
            bail!(ValueError, "negative dimensions are not allowed");
        }
        let rngs = a.req(None, "rngs", "Embed")?;
        let key = super::nnx::rngs_next(&rngs, "params")?;
        let shape = [n as usize, f as usize];
        let table = match a.opt(None, "embedding_init") {
            None => super::nnx::default_draw(
                &key,
                &shape,
                crate::random::initializers::embed_default,
                crate::random::traced_init::embed_default,
            )?,
            Some(init) => interp.call(
                &init,
                Args::new(vec![
                    key,
                    Obj::tuple(vec![Obj::Int(n), Obj::Int(f)]),
                    super::jnp_float32(),
                ]),
            )?,
        };
        set_iattr(
            &me,
            "embedding",
            instance(&param, vec![("value".into(), table)]),
        );
        set_iattr(&me, "num_embeddings", Obj::Int(n));
        set_iattr(&me, "features", Obj::Int(f));
        set_iattr(&me, "dtype", super::jnp_float32());
        set_iattr(&me, "param_dtype", super::jnp_float32());
        set_iattr(
            &me,
            "promote_dtype",
            Obj::lib(super::display::FunctionRef("promote_dtype")),
        );
        Ok(Obj::None)
    }
}

fn table(me: &Instance) -> Result<Value> {
    match iattr(me, "embedding") {
        Some(Obj::Instance(v)) if is_variable(&v) => {
            to_value(&iattr(&v, "value").unwrap_or(Obj::None))
        }
        Some(other) => to_value(&other),
        None => bail!(
            AttributeError,
            "'Embed' object has no attribute 'embedding'"
        ),
    }
}

fn embed_call(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Embed.__call__")?;
    if a.opt(None, "out_sharding").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: Embed with out_sharding"
        );
    }
    let idx = to_value(&a.req(Some(1), "inputs", "Embed.__call__")?)?;
    Ok(Obj::Array(lookup(&table(&me)?, &idx)?))
}

/// The rows of the table `emb` at the integer indices `idx`
/// (`jnp.take(emb, idx, axis=0)`, a one-row table broadcast).
pub(super) fn lookup(emb: &Value, idx: &Value) -> Result<Value> {
    if idx.dtype() != DType::I32 {
        bail!(
            ValueError,
            "Input type must be an integer or unsigned integer."
        );
    }
    let shape = emb.shape();
    if shape.first() == Some(&1) {
        let mut out = idx.shape();
        out.push(shape[1]);
        return jops::broadcast_to(emb, &out);
    }
    jops::take(emb, idx, 0)
}

/// `attend(query)`: `query @ emb.T`, in float32.
pub(super) fn attend(emb: &Value, q: &Value) -> Result<Value> {
    let q = jops::convert(q, DType::F32)?;
    let t = jops::transpose(emb, &[1, 0])?;
    jops::matmul(&q, &t)
}

fn embed_attend(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Embed.attend")?;
    let q = to_value(&a.req(Some(1), "query", "Embed.attend")?)?;
    Ok(Obj::Array(attend(&table(&me)?, &q)?))
}

/// `nnx.Embed`.
pub(super) fn embed_class(module: &Rc<Class>, param: &Rc<Class>) -> Rc<Class> {
    new_class(
        "Embed",
        vec![module.clone()],
        vec![
            (
                "__init__".into(),
                Obj::native("Embed.__init__", embed_init(param)),
            ),
            ("__call__".into(), Obj::native("Embed.__call__", embed_call)),
            ("attend".into(), Obj::native("Embed.attend", embed_attend)),
        ],
    )
}
