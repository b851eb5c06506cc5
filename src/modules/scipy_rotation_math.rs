//! The quaternion arithmetic behind `jax.scipy.spatial.transform`: each
//! function works on one rotation (a length-4 quaternion `x, y, z, w`, a
//! 3x3 matrix or a 3-vector) and is mapped over any leading dimensions by
//! `jnp.vectorize` with the gufunc signature JAX gives it, so batches are
//! vmapped exactly as in JAX. Every step is the jnp operation JAX performs,
//! in its order, so float32 results agree bit for bit.

use std::f64::consts::PI;

use rustpython_parser::ast::{CmpOp, Operator};

use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::numpy::jnp_call;
use super::py_ops::Ops;

/// A core function of one rotation, as `jnp.vectorize` calls it.
pub(super) type Core = fn(&mut Interp, Args) -> Result<Obj>;

/// `jnp.vectorize(f, signature=signature)(*args)`.
pub(super) fn vectorized(
    interp: &mut Interp,
    name: &str,
    signature: &str,
    f: Core,
    args: Vec<Obj>,
) -> Result<Obj> {
    let core = Obj::native(name, f);
    let kw = vec![("signature", Obj::str(signature))];
    let mapped = jnp_call(interp, "vectorize", vec![core], kw)?;
    interp.call(&mapped, Args::new(args))
}

fn f(v: f64) -> Obj {
    Obj::Float(v)
}

fn i(v: i64) -> Obj {
    Obj::Int(v)
}

/// The positional argument `k` of a core function.
fn arg(a: &Args, k: usize) -> Obj {
    a.pos.get(k).cloned().unwrap_or(Obj::None)
}

/// `sqrt(dot(v, v))`, the Euclidean norm of one vector.
fn vector_norm(o: &Ops, v: &Obj) -> Result<Obj> {
    let d = o.jnp("dot", vec![v.clone(), v.clone()])?;
    o.jnp("sqrt", vec![d])
}

/// `quat / |quat|`.
pub(super) fn normalize_core(interp: &mut Interp, a: Args) -> Result<Obj> {
    let o = &Ops::new(interp);
    let q = arg(&a, 0);
    let n = vector_norm(o, &q)?;
    o.div(&q, &n)
}

/// The rotation matrix of a unit quaternion.
pub(super) fn as_matrix_core(interp: &mut Interp, a: Args) -> Result<Obj> {
    let o = &Ops::new(interp);
    let q = arg(&a, 0);
    let [x, y, z, w] = [
        o.item(&q, 0)?,
        o.item(&q, 1)?,
        o.item(&q, 2)?,
        o.item(&q, 3)?,
    ];
    let (x2, y2, z2, w2) = (
        o.mul(&x, &x)?,
        o.mul(&y, &y)?,
        o.mul(&z, &z)?,
        o.mul(&w, &w)?,
    );
    let (xy, zw, xz) = (o.mul(&x, &y)?, o.mul(&z, &w)?, o.mul(&x, &z)?);
    let (yw, yz, xw) = (o.mul(&y, &w)?, o.mul(&y, &z)?, o.mul(&x, &w)?);
    let twice = |o: &Ops, v: Obj| o.mul(&i(2), &v);
    // Each diagonal entry sums its four squares left to right.
    let diag = |o: &Ops, first: &Obj, s: [bool; 3]| -> Result<Obj> {
        let mut acc = first.clone();
        for (t, plus) in [&y2, &z2, &w2].into_iter().zip(s) {
            acc = if plus {
                o.add(&acc, t)?
            } else {
                o.sub(&acc, t)?
            };
        }
        Ok(acc)
    };
    let neg_x2 = o.neg(&x2)?;
    let d0 = diag(o, &x2, [false, false, true])?;
    let d1 = diag(o, &neg_x2, [true, false, true])?;
    let d2 = diag(o, &neg_x2, [false, true, true])?;
    let r0 = vec![d0, twice(o, o.sub(&xy, &zw)?)?, twice(o, o.add(&xz, &yw)?)?];
    let r1 = vec![twice(o, o.add(&xy, &zw)?)?, d1, twice(o, o.sub(&yz, &xw)?)?];
    let r2 = vec![twice(o, o.sub(&xz, &yw)?)?, twice(o, o.add(&yz, &xw)?)?, d2];
    o.array(vec![Obj::list(r0), Obj::list(r1), Obj::list(r2)])
}

/// Modified Rodrigues parameters, taking the quaternion with `w >= 0`.
pub(super) fn as_mrp_core(interp: &mut Interp, a: Args) -> Result<Obj> {
    let o = &Ops::new(interp);
    let q = arg(&a, 0);
    let w = o.item(&q, 3)?;
    let negative = o.cmp(CmpOp::Lt, &w, &i(0))?;
    let sign = o.select(&negative, &f(-1.0), &f(1.0))?;
    let denominator = o.add(&f(1.0), &o.mul(&sign, &w)?)?;
    let head = o.head(&q, 3)?;
    let num = o.mul(&sign, &head)?;
    o.div(&num, &denominator)
}

/// The rotation vector (axis times angle), with the series for small angles.
pub(super) fn as_rotvec_core(interp: &mut Interp, a: Args) -> Result<Obj> {
    let o = &Ops::new(interp);
    let (q, degrees) = (arg(&a, 0), arg(&a, 1));
    let w = o.item(&q, 3)?;
    let negative = o.cmp(CmpOp::Lt, &w, &i(0))?;
    let q = o.select(&negative, &o.neg(&q)?, &q)?;
    let (head, w) = (o.head(&q, 3)?, o.item(&q, 3)?);
    let norm = vector_norm(o, &head)?;
    let angle = o.mul(&f(2.0), &o.jnp("arctan2", vec![norm, w])?)?;
    let angle2 = o.mul(&angle, &angle)?;
    let small = o.add(&i(2), &o.div(&angle2, &i(12))?)?;
    let quartic = o.mul(&o.mul(&i(7), &angle2)?, &angle2)?;
    let small = o.add(&small, &o.div(&quartic, &i(2880))?)?;
    let half = o.div(&angle, &i(2))?;
    let large = o.div(&angle, &o.jnp("sin", vec![half])?)?;
    let tiny = o.cmp(CmpOp::LtE, &angle, &f(1e-3))?;
    let scale = o.select(&tiny, &small, &large)?;
    let scale = o.select(&degrees, &o.jnp("rad2deg", vec![scale.clone()])?, &scale)?;
    let copy = o.jnp("array", vec![head])?;
    o.mul(&scale, &copy)
}

/// The Hamilton product `p q` (apply `q`, then `p`).
pub(super) fn compose_core(interp: &mut Interp, a: Args) -> Result<Obj> {
    compose(&Ops::new(interp), &arg(&a, 0), &arg(&a, 1))
}

fn compose(o: &Ops, p: &Obj, q: &Obj) -> Result<Obj> {
    let cross = o.jnp("cross", vec![o.head(p, 3)?, o.head(q, 3)?])?;
    let pk = [o.item(p, 0)?, o.item(p, 1)?, o.item(p, 2)?, o.item(p, 3)?];
    let qk = [o.item(q, 0)?, o.item(q, 1)?, o.item(q, 2)?, o.item(q, 3)?];
    let mut out = vec![];
    for k in 0..3 {
        let s = o.add(&o.mul(&pk[3], &qk[k])?, &o.mul(&qk[3], &pk[k])?)?;
        out.push(o.add(&s, &o.item(&cross, k as i64)?)?);
    }
    let mut w = o.mul(&pk[3], &qk[3])?;
    for k in 0..3 {
        w = o.sub(&w, &o.mul(&pk[k], &qk[k])?)?;
    }
    out.push(w);
    o.array(out)
}

/// The quaternion of a rotation by `angle` about the basis axis `axis`.
fn elementary(o: &Ops, axis: &Obj, angle: &Obj) -> Result<Obj> {
    let q = o.empty_like(4, angle)?;
    let half = o.div(angle, &f(2.0))?;
    let q = o.set(&q, i(3), &o.jnp("cos", vec![half.clone()])?)?;
    o.set(&q, axis.clone(), &o.jnp("sin", vec![half])?)
}

/// The quaternion of Euler angles about `axes`, composed in the intrinsic
/// or extrinsic order.
pub(super) fn euler_compose_core(interp: &mut Interp, a: Args) -> Result<Obj> {
    let o = &Ops::new(interp);
    let (angles, axes, intrinsic, degrees) = (arg(&a, 0), arg(&a, 1), arg(&a, 2), arg(&a, 3));
    let radians = o.jnp("deg2rad", vec![angles.clone()])?;
    let angles = o.select(&degrees, &radians, &angles)?;
    let n = match &axes {
        Obj::Array(v) => v.shape().first().copied().unwrap_or(0) as i64,
        _ => 0,
    };
    let mut result = elementary(o, &o.item(&axes, 0)?, &o.item(&angles, 0)?)?;
    for k in 1..n {
        let q = elementary(o, &o.item(&axes, k)?, &o.item(&angles, k)?)?;
        let inner = compose(o, &result, &q)?;
        let outer = compose(o, &q, &result)?;
        result = o.select(&intrinsic, &inner, &outer)?;
    }
    Ok(result)
}

/// The quaternion of a rotation vector (in degrees when asked).
pub(super) fn from_rotvec_core(interp: &mut Interp, a: Args) -> Result<Obj> {
    let o = &Ops::new(interp);
    let (rotvec, degrees) = (arg(&a, 0), arg(&a, 1));
    let radians = o.jnp("deg2rad", vec![rotvec.clone()])?;
    let rotvec = o.select(&degrees, &radians, &rotvec)?;
    let angle = vector_norm(o, &rotvec)?;
    let angle2 = o.mul(&angle, &angle)?;
    let small = o.sub(&f(0.5), &o.div(&angle2, &i(48))?)?;
    let quartic = o.mul(&angle2, &angle2)?;
    let small = o.add(&small, &o.div(&quartic, &i(3840))?)?;
    let half = o.div(&angle, &i(2))?;
    let large = o.div(&o.jnp("sin", vec![half.clone()])?, &angle)?;
    let tiny = o.cmp(CmpOp::LtE, &angle, &f(1e-3))?;
    let scale = o.select(&tiny, &small, &large)?;
    let parts = vec![o.mul(&scale, &rotvec)?, o.jnp("cos", vec![half])?];
    o.jnp("hstack", vec![Obj::list(parts)])
}

/// The quaternion of a rotation matrix, from its largest diagonal entry or
/// its trace (the better conditioned choice), normalized.
pub(super) fn from_matrix_core(interp: &mut Interp, a: Args) -> Result<Obj> {
    let o = &Ops::new(interp);
    let m = arg(&a, 0);
    let mij = |o: &Ops, r: &Obj, c: &Obj| o.at(&m, Obj::tuple(vec![r.clone(), c.clone()]));
    let diag: Vec<Obj> = (0..3)
        .map(|k| mij(o, &i(k), &i(k)))
        .collect::<Result<_>>()?;
    let trace = o.add(&o.add(&diag[0], &diag[1])?, &diag[2])?;
    let mut entries = diag.clone();
    entries.push(trace);
    let dtype = o.attr(&m, "dtype")?;
    let decision = o.jnp_kw("array", vec![Obj::list(entries)], vec![("dtype", dtype)])?;
    let choice = o.jnp("argmax", vec![decision.clone()])?;
    let i_ = choice.clone();
    let j_ = o.rem(&o.add(&i_, &i(1))?, &i(3))?;
    let k_ = o.rem(&o.add(&j_, &i(1))?, &i(3))?;
    let d3 = o.item(&decision, 3)?;
    let q = o.empty_like(4, &m)?;
    let first = o.add(&o.sub(&i(1), &d3)?, &o.mul(&i(2), &mij(o, &i_, &i_)?)?)?;
    let q = o.set(&q, i_.clone(), &first)?;
    let v = o.add(&mij(o, &j_, &i_)?, &mij(o, &i_, &j_)?)?;
    let q = o.set(&q, j_.clone(), &v)?;
    let v = o.add(&mij(o, &k_, &i_)?, &mij(o, &i_, &k_)?)?;
    let q = o.set(&q, k_.clone(), &v)?;
    let v = o.sub(&mij(o, &k_, &j_)?, &mij(o, &j_, &k_)?)?;
    let q012 = o.set(&q, i(3), &v)?;
    let mut q3 = o.empty_like(4, &m)?;
    for (slot, (r, c)) in [(2, 1), (0, 2), (1, 0)].into_iter().enumerate() {
        let v = o.sub(&mij(o, &i(r), &i(c))?, &mij(o, &i(c), &i(r))?)?;
        q3 = o.set(&q3, i(slot as i64), &v)?;
    }
    let q3 = o.set(&q3, i(3), &o.add(&i(1), &d3)?)?;
    let not_trace = o.cmp(CmpOp::NotEq, &choice, &i(3))?;
    let quat = o.select(&not_trace, &q012, &q3)?;
    let n = vector_norm(o, &quat)?;
    o.div(&quat, &n)
}

/// The quaternion of modified Rodrigues parameters.
pub(super) fn from_mrp_core(interp: &mut Interp, a: Args) -> Result<Obj> {
    let o = &Ops::new(interp);
    let mrp = arg(&a, 0);
    let sq = o.jnp("dot", vec![mrp.clone(), mrp.clone()])?;
    let sq1 = o.add(&sq, &i(1))?;
    let parts = vec![o.mul(&i(2), &o.head(&mrp, 3)?)?, o.sub(&i(2), &sq1)?];
    let stacked = o.jnp("hstack", vec![Obj::list(parts)])?;
    o.div(&stacked, &sq1)
}

/// The inverse rotation: the conjugate quaternion.
pub(super) fn inv_core(interp: &mut Interp, a: Args) -> Result<Obj> {
    let o = &Ops::new(interp);
    let q = arg(&a, 0);
    let dtype = o.attr(&q, "dtype")?;
    let signs = Obj::list(vec![i(-1), i(-1), i(-1), i(1)]);
    let signs = o.jnp_kw("array", vec![signs], vec![("dtype", dtype)])?;
    o.mul(&q, &signs)
}

/// The rotation angle in `[0, pi]`.
pub(super) fn magnitude_core(interp: &mut Interp, a: Args) -> Result<Obj> {
    let o = &Ops::new(interp);
    let q = arg(&a, 0);
    let norm = vector_norm(o, &o.head(&q, 3)?)?;
    let w = o.jnp("abs", vec![o.item(&q, 3)?])?;
    o.mul(&f(2.0), &o.jnp("arctan2", vec![norm, w])?)
}

/// The quaternion of the pair `q, -q` whose first nonzero entry, counting
/// from `w` and then `x, y, z`, is positive.
pub(super) fn canonical_core(interp: &mut Interp, a: Args) -> Result<Obj> {
    let o = &Ops::new(interp);
    let q = arg(&a, 0);
    let is_neg = o.cmp(CmpOp::Lt, &q, &i(0))?;
    let is_zero = o.cmp(CmpOp::Eq, &q, &i(0))?;
    let n: Vec<Obj> = (0..4).map(|k| o.item(&is_neg, k)).collect::<Result<_>>()?;
    let z: Vec<Obj> = (0..4).map(|k| o.item(&is_zero, k)).collect::<Result<_>>()?;
    let mut neg = n[3].clone();
    let mut zeros = z[3].clone();
    for k in 0..3 {
        neg = o.or(&neg, &o.and(&zeros, &n[k])?)?;
        zeros = o.and(&zeros, &z[k])?;
    }
    o.select(&neg, &o.neg(&q)?, &q)
}

/// `matrix @ vector`, or the transpose's product when `inverse`.
pub(super) fn apply_core(interp: &mut Interp, a: Args) -> Result<Obj> {
    let o = &Ops::new(interp);
    let (m, v, inverse) = (arg(&a, 0), arg(&a, 1), arg(&a, 2));
    let t = o.attr(&m, "T")?;
    let chosen = o.select(&inverse, &t, &m)?;
    o.bin(Operator::MatMult, &chosen, &v)
}

/// Euler angles about `axes` of one quaternion (the method of Bernardes
/// and Viollet that SciPy uses), in degrees when asked.
pub(super) fn as_euler_core(interp: &mut Interp, a: Args) -> Result<Obj> {
    let o = &Ops::new(interp);
    let (q, axes, extrinsic, degrees) = (arg(&a, 0), arg(&a, 1), arg(&a, 2), arg(&a, 3));
    let first = o.select(&extrinsic, &i(0), &i(2))?;
    let third = o.select(&extrinsic, &i(2), &i(0))?;
    let rev = Obj::Slice(std::rc::Rc::new([Obj::None, Obj::None, i(-1)]));
    let reversed = o.at(&axes, rev)?;
    let axes = o.select(&extrinsic, &axes, &reversed)?;
    let (ai, aj, ak) = (o.item(&axes, 0)?, o.item(&axes, 1)?, o.item(&axes, 2)?);
    let symmetric = o.cmp(CmpOp::Eq, &ai, &ak)?;
    let other = o.sub(&o.sub(&i(3), &ai)?, &aj)?;
    let ak = o.select(&symmetric, &other, &ak)?;
    let product = o.mul(
        &o.mul(&o.sub(&ai, &aj)?, &o.sub(&aj, &ak)?)?,
        &o.sub(&ak, &ai)?,
    )?;
    let dtype = o.attr(&q, "dtype")?;
    let halved = o.floordiv(&product, &i(2))?;
    let sign = o.jnp_kw("array", vec![halved], vec![("dtype", dtype)])?;
    let (qi, qj, qk) = (o.at(&q, ai)?, o.at(&q, aj)?, o.at(&q, ak)?);
    let qw = o.item(&q, 3)?;
    let qk_sign = o.mul(&qk, &sign)?;
    let a_ = o.select(&symmetric, &qw, &o.sub(&qw, &qj)?)?;
    let b_ = o.select(&symmetric, &qi, &o.add(&qi, &qk_sign)?)?;
    let c_ = o.select(&symmetric, &qj, &o.add(&qj, &qw)?)?;
    let d_ = o.select(&symmetric, &qk_sign, &o.sub(&qk_sign, &qi)?)?;
    let parts = EulerParts {
        abcd: [a_, b_, c_, d_],
        first,
        third,
        symmetric,
        sign,
        extrinsic,
    };
    let angles = euler_angles(o, &q, parts)?;
    let shifted = o.add(&angles, &f(PI))?;
    let wrapped = o.sub(&o.rem(&shifted, &f(2.0 * PI))?, &f(PI))?;
    o.select(
        &degrees,
        &o.jnp("rad2deg", vec![wrapped.clone()])?,
        &wrapped,
    )
}

/// What `as_euler_core` hands `euler_angles`.
struct EulerParts {
    abcd: [Obj; 4],
    first: Obj,
    third: Obj,
    symmetric: Obj,
    sign: Obj,
    extrinsic: Obj,
}

/// The three angles before wrapping into `[-pi, pi)`, with the gimbal-lock
/// cases (middle angle 0 or pi) setting the first angle alone.
fn euler_angles(o: &Ops, q: &Obj, p: EulerParts) -> Result<Obj> {
    let [a_, b_, c_, d_] = p.abcd;
    let angles = o.empty_like(3, q)?;
    let hyp_cd = o.jnp("hypot", vec![c_.clone(), d_.clone()])?;
    let hyp_ab = o.jnp("hypot", vec![a_.clone(), b_.clone()])?;
    let mid = o.mul(&i(2), &o.jnp("arctan2", vec![hyp_cd, hyp_ab])?)?;
    let angles = o.set(&angles, i(1), &mid)?;
    let eps = f(1e-7);
    let a1 = o.item(&angles, 1)?;
    let near_pi = o.jnp("abs", vec![o.sub(&a1, &f(PI))?])?;
    let case = o.select(&o.cmp(CmpOp::LtE, &near_pi, &eps)?, &i(2), &i(0))?;
    let near_zero = o.jnp("abs", vec![a1.clone()])?;
    let case = o.select(&o.cmp(CmpOp::LtE, &near_zero, &eps)?, &i(1), &case)?;
    let half_sum = o.jnp("arctan2", vec![b_, a_])?;
    let half_diff = o.jnp("arctan2", vec![d_, c_])?;
    let flip = o.select(&p.extrinsic, &i(-1), &i(1))?;
    let degenerate = o.mul(&o.mul(&i(2), &half_diff)?, &flip)?;
    let is1 = o.cmp(CmpOp::Eq, &case, &i(1))?;
    let v = o.select(&is1, &o.mul(&i(2), &half_sum)?, &degenerate)?;
    let angles = o.set(&angles, i(0), &v)?;
    let is0 = o.cmp(CmpOp::Eq, &case, &i(0))?;
    let old = o.at(&angles, p.first.clone())?;
    let v = o.select(&is0, &o.sub(&half_sum, &half_diff)?, &old)?;
    let angles = o.set(&angles, p.first, &v)?;
    let old = o.at(&angles, p.third.clone())?;
    let v = o.select(&is0, &o.add(&half_sum, &half_diff)?, &old)?;
    let angles = o.set(&angles, p.third.clone(), &v)?;
    let old = o.at(&angles, p.third.clone())?;
    let v = o.select(&p.symmetric, &old, &o.mul(&old, &p.sign)?)?;
    let angles = o.set(&angles, p.third, &v)?;
    let a1 = o.item(&angles, 1)?;
    let v = o.select(&p.symmetric, &a1, &o.sub(&a1, &f(PI / 2.0))?)?;
    o.set(&angles, i(1), &v)
}
