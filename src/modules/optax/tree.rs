//! `optax.tree` (and `optax.tree_utils`, the same functions with a `tree_`
//! prefix): arithmetic on pytrees of arrays, norms and lookups of state
//! fields by name.

use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::super::Builder;
use super::base::{field, global_norm, leaves_of, tree_map};

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
        let f = jops::convert(&fill, l[0].dtype())?;
        jops::broadcast_to(&f, &l[0].shape())
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
        _ => bail!(KeyError, "Found multiple values for '{key}' in {}. Use `tree_get_all_with_path` to get all values.", crate::python::format::repr_of(&t)),
    }
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
