//! `jax.test_util.check_grads`: derivatives checked against finite
//! differences, as JAX checks them.
//!
//! Forward mode compares `jvp` with the central difference
//! `(f(x + eps t) - f(x - eps t)) / (2 eps)` along a pseudo-random
//! direction `t`; reverse mode compares `<t, vjp(c)>` with `<jvp(t), c>` for
//! pseudo-random `t` and `c`. Higher orders check the jvp (or the vjp) as a
//! function in turn. Tolerances are JAX's: for float32 both the absolute
//! and the relative one default to 2e-3 times the number of elements. The
//! directions come from shardlab's own generator, not NumPy's, so only
//! whether a check passes is meant to agree with JAX.

use crate::array::{Array, BinaryOp, DType};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::trace::Value;

use super::Builder;
use crate::python::builtins::{to_float, to_int};
use crate::python::format::str_of;
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::pytree::{flatten, leaf_values, unflatten, value_objs};
use crate::python::value::{Args, Obj};

/// JAX's finite-difference step.
const EPS: f64 = 1e-4;

/// Tolerances and step of one `check_grads` call.
#[derive(Clone, Copy)]
struct Tol {
    atol: Option<f64>,
    rtol: Option<f64>,
    eps: f64,
}

/// JAX's default gradient tolerance for a dtype.
fn default_tol(d: DType) -> f64 {
    match d {
        DType::F32 => 2e-3,
        _ => 0.0,
    }
}

/// A deterministic normal-ish generator (sum of uniforms), restarted for
/// every check as JAX restarts `RandomState(0)`.
struct Rng(u64);

impl Rng {
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64) / ((1u64 << 53) as f64)
    }

    fn normal(&mut self) -> f64 {
        (0..12).map(|_| self.uniform()).sum::<f64>() - 6.0
    }

    /// A random tree shaped like `like`.
    fn like(&mut self, interp: &mut Interp, like: &Obj) -> Result<Obj> {
        let (leaves, def) = flatten(interp, like)?;
        let mut out = vec![];
        for v in leaf_values(&leaves)? {
            let data: Vec<f64> = (0..v.shape().iter().product::<usize>())
                .map(|_| self.normal())
                .collect();
            let a = crate::python::array::from_f64(&v.shape(), &data, v.dtype())?;
            out.push(Value::Concrete(a));
        }
        unflatten(interp, &def, &value_objs(&out))
    }
}

fn arrays(interp: &mut Interp, o: &Obj) -> Result<Vec<Array>> {
    let (leaves, _) = flatten(interp, o)?;
    leaf_values(&leaves)?
        .iter()
        .map(|v| v.concrete("check_grads").cloned())
        .collect()
}

/// Fails with AssertionError unless every leaf of `xs` is close to `ys`'s.
fn check_close(interp: &mut Interp, xs: &Obj, ys: &Obj, tol: Tol, what: &str) -> Result<()> {
    let (a, b) = (arrays(interp, xs)?, arrays(interp, ys)?);
    if a.len() != b.len() {
        bail!(
            AssertionError,
            "{what}: the trees have different structures"
        );
    }
    for (x, y) in a.iter().zip(&b) {
        let atol = tol.atol.unwrap_or(default_tol(x.dtype())) * x.size() as f64;
        let rtol = tol.rtol.unwrap_or(default_tol(y.dtype())) * y.size() as f64;
        let (xv, yv) = (x.to_f64_vec(), y.to_f64_vec());
        let bad = xv
            .iter()
            .zip(&yv)
            .filter(|(p, q)| !((*p - *q).abs() <= atol + rtol * q.abs() || p == q))
            .count();
        if bad > 0 {
            bail!(
                AssertionError,
                "\nNot equal to tolerance rtol={rtol}, atol={atol}\n{what}\nMismatched elements: {bad} / {}",
                xv.len()
            );
        }
    }
    Ok(())
}

fn call(interp: &mut Interp, f: &Obj, pos: Vec<Obj>) -> Result<Obj> {
    interp.call(f, Args::with(pos, vec![]))
}

/// `(f(x + eps t) - f(x - eps t)) * (0.5 / eps)`, computed in the inputs'
/// dtype.
fn numerical_jvp(interp: &mut Interp, f: &Obj, args: &Obj, t: &Obj, eps: f64) -> Result<Obj> {
    let (leaves, def) = flatten(interp, args)?;
    let xs = leaf_values(&leaves)?;
    let (tl, _) = flatten(interp, t)?;
    let ts = leaf_values(&tl)?;
    let mut shifted = |op: BinaryOp| -> Result<Obj> {
        let vals: Vec<Value> = xs
            .iter()
            .zip(&ts)
            .map(|(x, t)| jops::binary(op, x, &jops::mul_scalar(t, eps)?))
            .collect::<Result<_>>()?;
        let args = unflatten(interp, &def, &value_objs(&vals))?;
        call(interp, f, iterate(&args)?)
    };
    let (pos, neg) = (shifted(BinaryOp::Add)?, shifted(BinaryOp::Sub)?);
    let (pl, out_def) = flatten(interp, &pos)?;
    let (nl, _) = flatten(interp, &neg)?;
    let diffs: Vec<Value> = leaf_values(&pl)?
        .iter()
        .zip(leaf_values(&nl)?)
        .map(|(p, n)| jops::mul_scalar(&jops::binary(BinaryOp::Sub, p, &n)?, 0.5 / eps))
        .collect::<Result<_>>()?;
    unflatten(interp, &out_def, &value_objs(&diffs))
}

/// The sum over leaves of the elementwise products, as a scalar tree.
fn inner_prod(interp: &mut Interp, xs: &Obj, ys: &Obj) -> Result<Obj> {
    let (a, b) = (arrays(interp, xs)?, arrays(interp, ys)?);
    let total: f64 = a
        .iter()
        .zip(&b)
        .map(|(x, y)| {
            x.to_f64_vec()
                .iter()
                .zip(y.to_f64_vec())
                .map(|(p, q)| p * q)
                .sum::<f64>()
        })
        .sum();
    Ok(Obj::Array(Value::Concrete(Array::scalar_f32(total as f32))))
}

fn check_jvp(interp: &mut Interp, f: &Obj, args: &[Obj], tol: Tol, msg: &str) -> Result<()> {
    let args_t = Obj::tuple(args.to_vec());
    let tangent = Rng(0).like(interp, &args_t)?;
    let jvp_args = Args::with(vec![f.clone(), args_t.clone(), tangent.clone()], vec![]);
    let out = iterate(&super::jax::jvp(interp, jvp_args)?)?;
    let expected = call(interp, f, args.to_vec())?;
    let t_expected = numerical_jvp(interp, f, &args_t, &tangent, tol.eps)?;
    check_close(interp, &out[0], &expected, tol, &format!("{msg} primal"))?;
    check_close(interp, &out[1], &t_expected, tol, &format!("{msg} tangent"))
}

fn check_vjp(interp: &mut Interp, f: &Obj, args: &[Obj], tol: Tol, msg: &str) -> Result<()> {
    let mut pos = vec![f.clone()];
    pos.extend(args.iter().cloned());
    let out = iterate(&super::jax::vjp(interp, Args::with(pos, vec![]))?)?;
    let expected = call(interp, f, args.to_vec())?;
    check_close(interp, &out[0], &expected, tol, &format!("{msg} primal"))?;
    let args_t = Obj::tuple(args.to_vec());
    let mut rng = Rng(0);
    let tangent = rng.like(interp, &args_t)?;
    let tangent_out = numerical_jvp(interp, f, &args_t, &tangent, tol.eps)?;
    let cotangent = rng.like(interp, &out[0])?;
    let cotangent_out = call(interp, &out[1], vec![cotangent.clone()])?;
    let ip = inner_prod(interp, &tangent, &cotangent_out)?;
    let ip_expected = inner_prod(interp, &tangent_out, &cotangent)?;
    check_close(
        interp,
        &ip,
        &ip_expected,
        tol,
        &format!("{msg} cotangent projection"),
    )
}

fn check_order(
    interp: &mut Interp,
    f: &Obj,
    args: &[Obj],
    order: i64,
    modes: &[String],
    tol: Tol,
    msg: &str,
) -> Result<()> {
    let of = |kind: &str| {
        if msg.is_empty() {
            kind.to_string()
        } else {
            format!("{kind} of {msg}")
        }
    };
    if modes.iter().any(|m| m == "fwd") {
        let fwd_msg = of("JVP");
        check_jvp(interp, f, args, tol, &fwd_msg)?;
        if order > 1 {
            let g = f.clone();
            let f_jvp = Obj::native("jvp", move |i, c| {
                let mut pos = vec![g.clone()];
                pos.extend(c.pos);
                super::jax::jvp(i, Args::with(pos, vec![]))
            });
            let both = Obj::tuple(args.to_vec());
            check_order(
                interp,
                &f_jvp,
                &[both.clone(), both],
                order - 1,
                modes,
                tol,
                &fwd_msg,
            )?;
        }
    }
    if modes.iter().any(|m| m == "rev") {
        let rev_msg = of("VJP");
        check_vjp(interp, f, args, tol, &rev_msg)?;
        if order > 1 {
            let g = f.clone();
            let f_vjp = Obj::native("f_vjp", move |i, c| {
                let mut pos = vec![g.clone()];
                pos.extend(c.pos);
                let out = iterate(&super::jax::vjp(i, Args::with(pos, vec![]))?)?;
                call(i, &out[1], vec![out[0].clone()])
            });
            check_order(interp, &f_vjp, args, order - 1, modes, tol, &rev_msg)?;
        }
    }
    Ok(())
}

fn optional_float(a: &Args, index: usize, name: &str) -> Result<Option<f64>> {
    match a.get(Some(index), name) {
        None | Some(Obj::None) => Ok(None),
        Some(o) => to_float(&o).map(Some),
    }
}

/// `check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None)`.
fn check_grads(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "f", "check_grads")?;
    let args = iterate(&a.req(Some(1), "args", "check_grads")?)?;
    let order = to_int(&a.req(Some(2), "order", "check_grads")?)?;
    let modes = match a.get(Some(3), "modes") {
        None => vec!["fwd".to_string(), "rev".to_string()],
        Some(Obj::Str(s)) => vec![s.to_string()],
        Some(o) => iterate(&o)?.iter().map(str_of).collect(),
    };
    let tol = Tol {
        atol: optional_float(&a, 4, "atol")?,
        rtol: optional_float(&a, 5, "rtol")?,
        eps: optional_float(&a, 6, "eps")?
            .filter(|e| *e != 0.0)
            .unwrap_or(EPS),
    };
    check_order(interp, &f, &args, order, &modes, tol, "")?;
    Ok(Obj::None)
}

/// `jax.test_util`.
pub fn module() -> Obj {
    let mut b = Builder::new("jax.test_util");
    b.func("check_grads", check_grads);
    b.build()
}

/// `jax._src.test_util`, JAX's internal testing module: only what programs
/// written after JAX's own tests use (`create_mesh`); any other name is
/// refused by name.
pub fn private_module() -> Obj {
    let mut b = Builder::new("jax._src.test_util");
    b.func("create_mesh", create_mesh);
    b.build()
}

/// `create_mesh(mesh_shape, axis_names, iota_order=False, axis_types=None)`:
/// a mesh of the first devices in order whose axes are Auto unless
/// `axis_types` says otherwise. JAX skips the test (`unittest.SkipTest`)
/// when there are too few devices.
fn create_mesh(interp: &mut Interp, a: Args) -> Result<Obj> {
    let shape = a.req(Some(0), "mesh_shape", "create_mesh")?;
    let names = a.req(Some(1), "axis_names", "create_mesh")?;
    let n: i64 = iterate(&shape)?
        .iter()
        .map(to_int)
        .product::<Result<i64>>()?;
    if n > super::jax::device_count(interp) as i64 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: unittest.SkipTest (create_mesh with more devices than there are)"
        );
    }
    let types = a
        .get(Some(3), "axis_types")
        .filter(|t| !matches!(t, Obj::None));
    let kw = types
        .iter()
        .map(|t| ("axis_types".to_string(), t.clone()))
        .collect();
    let mesh = super::sharding::make_mesh(interp, Args::with(vec![shape, names], kw))?;
    if types.is_some() {
        return Ok(mesh);
    }
    let Some(m) = mesh.downcast::<crate::mesh::Mesh>() else {
        bail!(TypeError, "create_mesh: make_mesh did not return a mesh");
    };
    let auto = vec![crate::mesh::AxisType::Auto; m.axis_names().len()];
    Ok(Obj::lib(m.clone().with_axis_types(auto)?))
}
