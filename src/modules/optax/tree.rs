//! `optax.tree` (and `optax.tree_utils`, the same functions with a `tree_`
//! prefix): arithmetic on pytrees of arrays, norms and lookups of state
//! fields by name.

use crate::error::Result;
use crate::python::array::to_value;
use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::ops::{binop, getattr, getitem};
use crate::python::pytree::{flatten, unflatten};
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, ops as jops};
use rustpython_parser::ast::Operator;

use super::super::Builder;
use super::base::{field, global_norm, leaves_of, tree_map, zip_leaves};

fn tree(a: &Args, i: usize, name: &str, func: &str) -> Result<Obj> {
    a.req(Some(i), name, func)
}

/// `jax.tree.reduce(operator.add, leaves, initializer=0)` of per-leaf
/// values.
fn total(vals: Vec<Value>) -> Result<Value> {
    let mut out: Option<Value> = None;
    for v in vals {
        out = Some(match out {
            None => v,
            Some(t) => jops::add(&t, &v)?,
        });
    }
    Ok(out.unwrap_or_else(|| jops::scalar(0.0, crate::array::DType::I32)))
}

fn binary(
    interp: &mut Interp,
    a: &Args,
    func: &str,
    f: fn(&Value, &Value) -> Result<Value>,
) -> Result<Obj> {
    let x = tree(a, 0, "tree_x", func)?;
    let y = tree(a, 1, "tree_y", func)?;
    tree_map(interp, &[&x, &y], |l| f(l[0], l[1]))
}

fn add(interp: &mut Interp, a: Args) -> Result<Obj> {
    let trees: Vec<&Obj> = a.pos.iter().collect();
    if trees.len() < 2 {
        bail!(TypeError, "add() missing required argument: 'tree_y'");
    }
    tree_map(interp, &trees, |l| {
        let mut s = l[0].clone();
        for x in &l[1..] {
            s = jops::add(&s, x)?;
        }
        Ok(s)
    })
}

fn scale(interp: &mut Interp, a: Args) -> Result<Obj> {
    let s = to_value(&tree(&a, 0, "scalar", "scale")?)?;
    let t = tree(&a, 1, "tree", "scale")?;
    tree_map(interp, &[&t], |l| jops::mul(&s, l[0]))
}

fn vdot(interp: &mut Interp, a: Args) -> Result<Obj> {
    let (x, _) = leaves_of(interp, &tree(&a, 0, "tree_x", "vdot")?)?;
    let (y, _) = leaves_of(interp, &tree(&a, 1, "tree_y", "vdot")?)?;
    let dots = x
        .iter()
        .zip(&y)
        .map(|(x, y)| {
            let axes: Vec<usize> = (0..x.ndim()).collect();
            jops::dot_general(x, y, (&axes, &axes), (&[], &[]))
        })
        .collect::<Result<_>>()?;
    Ok(Obj::Array(total(dots)?))
}

fn sum(interp: &mut Interp, a: Args) -> Result<Obj> {
    let (x, _) = leaves_of(interp, &tree(&a, 0, "tree", "sum")?)?;
    let sums = x
        .iter()
        .map(|x| jops::sum(x, None, false))
        .collect::<Result<_>>()?;
    Ok(Obj::Array(total(sums)?))
}

fn norm(interp: &mut Interp, a: Args) -> Result<Obj> {
    if a.opt(Some(1), "ord").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.tree.norm with ord"
        );
    }
    let (x, _) = leaves_of(interp, &tree(&a, 0, "tree", "norm")?)?;
    let n = global_norm(&x)?;
    let squared = super::base::flag(&a, Some(2), "squared", false)?;
    Ok(Obj::Array(if squared {
        jops::integer_pow(&n, 2)?
    } else {
        n
    }))
}

fn like(interp: &mut Interp, a: &Args, v: Option<f64>, func: &str) -> Result<Obj> {
    let t = tree(a, 0, "tree", func)?;
    let fill = match v {
        Some(v) => jops::scalar(v, crate::array::DType::F32),
        None => to_value(&tree(a, 1, "fill_value", func)?)?,
    };
    tree_map(interp, &[&t], |l| {
        // As `jnp.full_like`: weakly typed when the leaf is.
        let f = jops::convert_weak(&fill, l[0].dtype(), l[0].aval().weak)?;
        Ok(jops::placed_like(
            jops::broadcast_to(&f, &l[0].shape())?,
            l[0],
        ))
    })
}

/// Every value stored under `key` (a state field or a dict key) anywhere
/// in `o`.
pub(super) fn find_all(o: &Obj, key: &str, out: &mut Vec<Obj>) -> Result<()> {
    match o {
        Obj::Instance(i) => {
            let names: Vec<String> = i.attrs.borrow().iter().map(|(k, _)| k.clone()).collect();
            for k in names {
                let v = field(o, &k)?;
                if k == key {
                    out.push(v);
                } else {
                    find_all(&v, key, out)?;
                }
            }
        }
        Obj::Dict(d) => {
            let items = d.borrow().items.clone();
            for (k, v) in items {
                if matches!(&k, Obj::Str(s) if &**s == key) {
                    out.push(v);
                } else {
                    find_all(&v, key, out)?;
                }
            }
        }
        Obj::Tuple(t) => t.iter().try_for_each(|x| find_all(x, key, out))?,
        Obj::List(l) => l.borrow().iter().try_for_each(|x| find_all(x, key, out))?,
        _ => {}
    }
    Ok(())
}

fn get(_: &mut Interp, a: Args) -> Result<Obj> {
    if a.opt(Some(3), "filtering").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.tree.get with filtering"
        );
    }
    let t = tree(&a, 0, "tree", "get")?;
    let key = crate::python::format::str_of(&tree(&a, 1, "key", "get")?);
    let mut found = vec![];
    find_all(&t, &key, &mut found)?;
    match found.len() {
        0 => Ok(a.get(Some(2), "default").unwrap_or(Obj::None)),
        1 => Ok(found.remove(0)),
        _ => {
            let msg = format!("Found multiple values for '{key}' in {}.", repr_of(&t));
            bail!(KeyError, "{}", repr_of(&Obj::str(&msg)))
        }
    }
}

/// `module.name(*args)`, looked up through the interpreter so that the
/// function behaves as a program calling it sees it.
pub(super) fn call_jax(interp: &mut Interp, module: &str, name: &str, args: Args) -> Result<Obj> {
    let m = crate::modules::import(interp, module)?;
    let f = getattr(interp, &m, name)?;
    interp.call(&f, args)
}

/// `jax.tree.map(f, trees[0], trees[1], ...)` with `f` acting on leaf
/// objects through the interpreter (Python operators and calls), so that
/// dtype promotion and tracing are those of the program's own code.
pub(super) fn map_objs(
    interp: &mut Interp,
    trees: &[&Obj],
    mut f: impl FnMut(&mut Interp, &[Obj]) -> Result<Obj>,
) -> Result<Obj> {
    let (rows, def) = zip_leaves(interp, trees, flatten)?;
    let mut out = Vec::with_capacity(rows.len());
    for row in &rows {
        out.push(f(interp, row)?);
    }
    unflatten(interp, &def, &out)
}

/// `tree_x + scalar * tree_y`, the scalar made an array first.
fn add_scale(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = tree(&a, 0, "tree_x", "add_scale")?;
    let s = tree(&a, 1, "scalar", "add_scale")?;
    let y = tree(&a, 2, "tree_y", "add_scale")?;
    let s = call_jax(interp, "jax.numpy", "asarray", Args::new(vec![s]))?;
    map_objs(interp, &[&x, &y], |i, l| {
        let sy = binop(i, &Operator::Mult, &s, &l[1], false)?;
        binop(i, &Operator::Add, &l[0], &sy, false)
    })
}

/// One key per leaf of `target`: `jax.random.split(key, num_leaves)`, in
/// leaf order.
fn split_keys(interp: &mut Interp, key: &Obj, n: usize) -> Result<Vec<Obj>> {
    let keys = call_jax(
        interp,
        "jax.random",
        "split",
        Args::new(vec![key.clone(), Obj::Int(n as i64)]),
    )?;
    (0..n)
        .map(|k| getitem(interp, &keys, &Obj::Int(k as i64)))
        .collect()
}

/// `optax.tree.split_key_like(rng_key, target_tree)`.
fn split_key_like(interp: &mut Interp, a: Args) -> Result<Obj> {
    let key = tree(&a, 0, "rng_key", "split_key_like")?;
    let target = tree(&a, 1, "target_tree", "split_key_like")?;
    let (leaves, def) = flatten(interp, &target)?;
    let keys = split_keys(interp, &key, leaves.len())?;
    unflatten(interp, &def, &keys)
}

/// Whether a program's sampler names an `out_sharding` parameter (optax
/// then passes each leaf's sharding, which shardlab does not hand over).
fn takes_out_sharding(sampler: &Obj) -> bool {
    match sampler {
        Obj::Func(f) => {
            let p = &f.params;
            p.posonlyargs
                .iter()
                .chain(&p.args)
                .chain(&p.kwonlyargs)
                .any(|a| a.def.arg.as_str() == "out_sharding")
        }
        Obj::Method(m) => takes_out_sharding(&m.0),
        _ => false,
    }
}

/// `optax.tree.random_like`: `sampler(key, leaf.shape, dtype or
/// leaf.dtype)` for every leaf of `target`, each with its own key.
pub(super) fn random_like_with(
    interp: &mut Interp,
    key: &Obj,
    target: &Obj,
    sampler: &Obj,
    dtype: Option<Obj>,
) -> Result<Obj> {
    if takes_out_sharding(sampler) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.tree.random_like with a sampler that takes out_sharding"
        );
    }
    let (leaves, def) = flatten(interp, target)?;
    let keys = split_keys(interp, key, leaves.len())?;
    let mut out = Vec::with_capacity(leaves.len());
    for (leaf, k) in leaves.iter().zip(keys) {
        let shape = getattr(interp, leaf, "shape")?;
        let dt = match &dtype {
            Some(d) => d.clone(),
            None => getattr(interp, leaf, "dtype")?,
        };
        out.push(interp.call(sampler, Args::new(vec![k, shape, dt]))?);
    }
    unflatten(interp, &def, &out)
}

fn random_like(interp: &mut Interp, a: Args) -> Result<Obj> {
    let key = tree(&a, 0, "rng_key", "random_like")?;
    let target = tree(&a, 1, "target_tree", "random_like")?;
    let sampler = match a.opt(Some(2), "sampler") {
        Some(s) => s,
        None => {
            let random = crate::modules::import(interp, "jax.random")?;
            getattr(interp, &random, "normal")?
        }
    };
    random_like_with(interp, &key, &target, &sampler, a.opt(Some(3), "dtype"))
}

/// The functions, under their `optax.tree` names.
fn functions(b: &mut Builder, prefix: &str) {
    let n = |s: &str| format!("{prefix}{s}");
    b.func(&n("add"), add);
    b.func(&n("sub"), |i, a| binary(i, &a, "sub", jops::sub));
    b.func(&n("mul"), |i, a| binary(i, &a, "mul", jops::mul));
    b.func(&n("div"), |i, a| binary(i, &a, "div", jops::div));
    b.func(&n("scale"), scale);
    b.func(&n("vdot"), vdot);
    b.func(&n("sum"), sum);
    b.func(&n("norm"), norm);
    b.func(&n("zeros_like"), |i, a| {
        like(i, &a, Some(0.0), "zeros_like")
    });
    b.func(&n("ones_like"), |i, a| like(i, &a, Some(1.0), "ones_like"));
    b.func(&n("full_like"), |i, a| like(i, &a, None, "full_like"));
    b.func(&n("get"), get);
    b.func(&n("add_scale"), add_scale);
    b.func(&n("random_like"), random_like);
    b.func(&n("split_key_like"), split_key_like);
    super::numerics::register_tree(b, prefix);
    super::tree_more::register(b, prefix);
}

/// The `optax.tree` module.
pub(super) fn module() -> Obj {
    let mut b = Builder::new("optax.tree");
    functions(&mut b, "");
    b.build()
}

/// The `optax.tree_utils` module.
pub(super) fn utils_module() -> Obj {
    let mut b = Builder::new("optax.tree_utils");
    functions(&mut b, "tree_");
    b.func("tree_l2_norm", norm);
    b.build()
}
