//! `optax.projections`: the Euclidean projections of a pytree onto a
//! convex set (the non-negative orthant, a box, a simplex, an l1, l2 or
//! l-infinity ball or sphere, a hyperplane, a half-space, a vector's
//! span), for projected gradient descent.
//!
//! Optax writes them with `optax.tree` and jnp calls, which are made here
//! through the interpreter (see [`super::compose`]). The projection onto
//! the unit simplex carries optax's own derivative rule (a `custom_jvp`):
//! the derivative of the sort it is computed with would be another one.

use rustpython_parser::ast::Operator;

use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::compose::{add, arith, call, div, jnp, jnp_kw, mul, neg, nn, sub, tree};

fn tree_map(interp: &mut Interp, args: Vec<Obj>) -> Result<Obj> {
    call(interp, "jax.tree", "map", args, vec![])
}

fn fun(interp: &mut Interp, module: &str, name: &str) -> Result<Obj> {
    let m = super::super::import(interp, module)?;
    crate::python::ops::getattr(interp, &m, name)
}

fn scale_arg(a: &Args, i: usize) -> Obj {
    a.opt(Some(i), "scale").unwrap_or(Obj::Int(1))
}

/// `projection_box(tree, lower, upper)`: each leaf clipped.
fn box_(interp: &mut Interp, t: Obj, lower: Obj, upper: Obj) -> Result<Obj> {
    let clip = fun(interp, "jax.numpy", "clip")?;
    tree_map(interp, vec![clip, t, lower, upper])
}

/// The leaves of `t` raveled into one vector (in their common dtype), and
/// a function back to a tree shaped like `t`.
fn ravel(interp: &mut Interp, t: &Obj) -> Result<(Obj, Obj)> {
    let (leaves, def) = crate::python::pytree::flatten(interp, t)?;
    let mut flat = vec![];
    let mut shapes = vec![];
    for x in &leaves {
        shapes.push(jnp(interp, "shape", vec![x.clone()])?);
        flat.push(jnp(interp, "ravel", vec![x.clone()])?);
    }
    let sizes: Vec<usize> = flat
        .iter()
        .map(|x| crate::python::array::to_value(x).map(|v| v.shape().iter().product()))
        .collect::<Result<_>>()?;
    let values = match flat.len() {
        0 => jnp(interp, "zeros", vec![Obj::Int(0)])?,
        _ => jnp(interp, "concatenate", vec![Obj::list(flat)])?,
    };
    let unravel = Obj::native("unravel", move |interp, a| {
        let v = a.req(Some(0), "flat", "unravel")?;
        let mut out = vec![];
        let mut at = 0;
        for (n, shape) in sizes.iter().zip(&shapes) {
            let bounds = [Obj::Int(at as i64), Obj::Int((at + n) as i64), Obj::None];
            let slice = Obj::Slice(std::rc::Rc::new(bounds));
            let piece = crate::python::ops::getitem(interp, &v, &slice)?;
            out.push(jnp(interp, "reshape", vec![piece, shape.clone()])?);
            at += n;
        }
        crate::python::pytree::unflatten(interp, &def, &out)
    });
    Ok((values, unravel))
}

/// The projection of a vector onto the unit simplex: the sorted values'
/// running sums find how many stay positive, and a common shift makes
/// those sum to one.
fn unit_simplex(interp: &mut Interp, values: &Obj) -> Result<Obj> {
    let s = Obj::Int(1);
    let n = match jnp(interp, "shape", vec![values.clone()])? {
        Obj::Tuple(t) if !t.is_empty() => t[0].clone(),
        _ => crate::bail!(IndexError, "tuple index out of range"),
    };
    let sorted = jnp(interp, "sort", vec![values.clone()])?;
    let u = jnp(interp, "flip", vec![sorted])?;
    let cumsum = jnp(interp, "cumsum", vec![u.clone()])?;
    let ar = jnp(interp, "arange", vec![n])?;
    let ind = add(interp, &ar, &Obj::Int(1))?;
    let first = div(interp, &s, &ind)?;
    let mean = div(interp, &cumsum, &ind)?;
    let rest = sub(interp, &u, &mean)?;
    let c = add(interp, &first, &rest)?;
    let cond = jnp(interp, "greater", vec![c, Obj::Int(0)])?;
    let idx = jnp(interp, "count_nonzero", vec![cond])?;
    let at = sub(interp, &idx, &Obj::Int(1))?;
    let picked = crate::python::ops::getitem(interp, &cumsum, &at)?;
    let shift = div(interp, &picked, &idx)?;
    let top = div(interp, &s, &idx)?;
    let d = sub(interp, values, &shift)?;
    let x = add(interp, &top, &d)?;
    nn(interp, "relu", vec![x], vec![])
}

/// The derivative rule of [`unit_simplex`]: the tangent projected onto
/// the support's affine hull.
fn unit_simplex_jvp(interp: &mut Interp, a: Args) -> Result<Obj> {
    let primals = a.req(Some(0), "primals", "jvp")?;
    let tangents = a.req(Some(1), "tangents", "jvp")?;
    let first = |interp: &mut Interp, o: &Obj| crate::python::ops::getitem(interp, o, &Obj::Int(0));
    let (x, dx) = (first(interp, &primals)?, first(interp, &tangents)?);
    let out = unit_simplex(interp, &x)?;
    let supp = jnp(interp, "greater", vec![out.clone(), Obj::Int(0)])?;
    let card = jnp(interp, "count_nonzero", vec![supp.clone()])?;
    let kept = mul(interp, &supp, &dx)?;
    let dot = jnp(interp, "dot", vec![supp.clone(), dx])?;
    let mean = div(interp, &dot, &card)?;
    let mean = mul(interp, &mean, &supp)?;
    let t = sub(interp, &kept, &mean)?;
    Ok(Obj::tuple(vec![out, t]))
}

/// [`unit_simplex`] as a `custom_jvp` function with its rule.
fn unit_simplex_fn(interp: &mut Interp) -> Result<Obj> {
    let f = Obj::native("_projection_unit_simplex", |interp, a| {
        let v = a.req(Some(0), "values", "_projection_unit_simplex")?;
        unit_simplex(interp, &v)
    });
    let f = call(interp, "jax", "custom_jvp", vec![f], vec![])?;
    let defjvp = crate::python::ops::getattr(interp, &f, "defjvp")?;
    let rule = Obj::native("_projection_unit_simplex_jvp", unit_simplex_jvp);
    interp.call(&defjvp, Args::new(vec![rule]))?;
    Ok(f)
}

/// `projection_simplex(tree, scale=1)`.
fn simplex(interp: &mut Interp, t: &Obj, scale: &Obj) -> Result<Obj> {
    let (values, unravel) = ravel(interp, t)?;
    let v = div(interp, &values, scale)?;
    let f = unit_simplex_fn(interp)?;
    let p = interp.call(&f, Args::new(vec![v]))?;
    let p = mul(interp, scale, &p)?;
    interp.call(&unravel, Args::new(vec![p]))
}

/// `projection_l1_sphere(tree, scale=1)`: the signs kept, the magnitudes
/// projected onto the simplex.
fn l1_sphere(interp: &mut Interp, t: &Obj, scale: &Obj) -> Result<Obj> {
    let abs = fun(interp, "jax.numpy", "abs")?;
    let sign = fun(interp, "jax.numpy", "sign")?;
    let mags = tree_map(interp, vec![abs, t.clone()])?;
    let signs = tree_map(interp, vec![sign, t.clone()])?;
    let proj = simplex(interp, &mags, scale)?;
    tree(interp, "mul", vec![signs, proj], vec![])
}

/// `projection_l1_ball(tree, scale=1)`: the tree itself inside the ball,
/// else its projection onto the sphere.
fn l1_ball(interp: &mut Interp, t: &Obj, scale: &Obj) -> Result<Obj> {
    let norm = tree(interp, "norm", vec![t.clone()], vec![("ord", Obj::Int(1))])?;
    let inside = jnp(interp, "less_equal", vec![norm, scale.clone()])?;
    let same = Obj::native("<lambda>", |_, a| a.req(Some(0), "tree", "<lambda>"));
    let s = scale.clone();
    let onto = Obj::native("<lambda>", move |interp, a| {
        let t = a.req(Some(0), "tree", "<lambda>")?;
        l1_sphere(interp, &t, &s)
    });
    call(
        interp,
        "jax.lax",
        "cond",
        vec![inside, same, onto, t.clone()],
        vec![],
    )
}

/// `projection_l2_ball(tree, scale=1)`.
fn l2_ball(interp: &mut Interp, t: &Obj, scale: &Obj) -> Result<Obj> {
    let sq = tree(
        interp,
        "norm",
        vec![t.clone()],
        vec![("squared", Obj::Bool(true))],
    )?;
    let s2 = arith(interp, Operator::Pow, scale, &Obj::Int(2))?;
    let m = jnp(interp, "maximum", vec![sq, s2])?;
    let r = jnp(interp, "sqrt", vec![m])?;
    let factor = div(interp, scale, &r)?;
    tree(interp, "scale", vec![factor, t.clone()], vec![])
}

/// `(b - <x, a>) / <a, a>`, the step along `a` onto the hyperplane.
fn hyperplane_step(interp: &mut Interp, x: &Obj, a: &Obj, b: &Obj) -> Result<Obj> {
    let xa = tree(interp, "vdot", vec![x.clone(), a.clone()], vec![])?;
    let aa = tree(interp, "vdot", vec![a.clone(), a.clone()], vec![])?;
    let d = sub(interp, b, &xa)?;
    div(interp, &d, &aa)
}

fn register_balls(b: &mut Builder) {
    b.func("projection_simplex", |i, a| {
        let t = a.req(Some(0), "tree", "projection_simplex")?;
        simplex(i, &t, &scale_arg(&a, 1))
    });
    b.func("projection_l1_sphere", |i, a| {
        let t = a.req(Some(0), "tree", "projection_l1_sphere")?;
        l1_sphere(i, &t, &scale_arg(&a, 1))
    });
    b.func("projection_l1_ball", |i, a| {
        let t = a.req(Some(0), "tree", "projection_l1_ball")?;
        l1_ball(i, &t, &scale_arg(&a, 1))
    });
    b.func("projection_l2_sphere", |i, a| {
        let t = a.req(Some(0), "tree", "projection_l2_sphere")?;
        let norm = tree(i, "norm", vec![t.clone()], vec![])?;
        let factor = div(i, &scale_arg(&a, 1), &norm)?;
        tree(i, "scale", vec![factor, t], vec![])
    });
    b.func("projection_l2_ball", |i, a| {
        let t = a.req(Some(0), "tree", "projection_l2_ball")?;
        l2_ball(i, &t, &scale_arg(&a, 1))
    });
    b.func("projection_linf_ball", |i, a| {
        let t = a.req(Some(0), "tree", "projection_linf_ball")?;
        let scale = scale_arg(&a, 1);
        let minus = neg(i, &scale)?;
        let lower = tree(i, "full_like", vec![t.clone(), minus], vec![])?;
        let upper = tree(i, "full_like", vec![t.clone(), scale], vec![])?;
        box_(i, t, lower, upper)
    });
}

/// The `optax.projections` module.
pub(super) fn module() -> Obj {
    let mut b = Builder::new("optax.projections");
    b.func("projection_non_negative", |i, a| {
        let t = a.req(Some(0), "tree", "projection_non_negative")?;
        let relu = fun(i, "jax.nn", "relu")?;
        tree_map(i, vec![relu, t])
    });
    b.func("projection_box", |i, a| {
        let f = "projection_box";
        let t = a.req(Some(0), "tree", f)?;
        box_(
            i,
            t,
            a.req(Some(1), "lower", f)?,
            a.req(Some(2), "upper", f)?,
        )
    });
    b.func("projection_hypercube", |i, a| {
        let t = a.req(Some(0), "tree", "projection_hypercube")?;
        box_(i, t, Obj::Int(0), scale_arg(&a, 1))
    });
    register_balls(&mut b);
    b.func("projection_vector", |i, a| {
        let x = a.req(Some(0), "x", "projection_vector")?;
        let v = a.req(Some(1), "a", "projection_vector")?;
        let xa = tree(i, "vdot", vec![x, v.clone()], vec![])?;
        let aa = tree(i, "vdot", vec![v.clone(), v.clone()], vec![])?;
        let s = div(i, &xa, &aa)?;
        tree(i, "scale", vec![s, v], vec![])
    });
    for (name, half) in [
        ("projection_hyperplane", false),
        ("projection_halfspace", true),
    ] {
        b.func(name, move |i, a| {
            let x = a.req(Some(0), "x", name)?;
            let v = a.req(Some(1), "a", name)?;
            let mut s = hyperplane_step(i, &x, &v, &a.req(Some(2), "b", name)?)?;
            if half {
                s = jnp_kw(i, "clip", vec![s], vec![("max", Obj::Int(0))])?;
            }
            tree(i, "add_scale", vec![x, s, v], vec![])
        });
    }
    b.build()
}
