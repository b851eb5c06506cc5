//! `jnp.pad`'s modes other than `constant`, each built one axis at a time
//! from slices, flips, repeats and concatenations, as JAX builds them:
//! `wrap`, `reflect` and `symmetric` (with `reflect_type='odd'`), `edge`,
//! `linear_ramp` (to `end_values`), the statistics `maximum`, `minimum`,
//! `mean` and `median` (over `stat_length` elements, rounded for integer
//! arrays) and `empty` (zeros, as JAX's uninitialised memory is).

use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};

use super::composed::{call, in_dim, jnp};

/// One `(before, after)` pair per dimension.
pub(super) type Pairs = Vec<(usize, usize)>;

/// The padded array for a mode other than `constant`.
pub(super) fn pad_mode(
    interp: &mut Interp,
    x: Obj,
    pairs: &Pairs,
    mode: &str,
    a: &Args,
) -> Result<Obj> {
    let nd = pairs.len();
    match mode {
        "wrap" => each_axis(interp, x, pairs, "wrap", wrap),
        "edge" => each_axis(interp, x, pairs, "edge", edge),
        "reflect" | "symmetric" => {
            let odd = match a.opt(None, "reflect_type") {
                None => false,
                Some(Obj::Str(s)) if &*s == "even" => false,
                Some(Obj::Str(s)) if &*s == "odd" => true,
                Some(o) => {
                    let text = interp.repr(&o)?;
                    bail!(ValueError, "jnp.pad: unsupported reflect_type={text}")
                }
            };
            let reflect = Reflect {
                symmetric: mode == "symmetric",
                odd,
            };
            let mut x = x;
            for (axis, &(lo, hi)) in pairs.iter().enumerate() {
                x = reflect.axis(interp, x, axis, lo, hi)?;
            }
            Ok(x)
        }
        "linear_ramp" => {
            let ends = value_pairs(
                a.opt(None, "end_values").unwrap_or(Obj::Int(0)),
                nd,
                "end_values",
            )?;
            linear_ramp(interp, x, pairs, &ends)
        }
        "maximum" | "minimum" | "mean" | "median" => {
            let lengths = match a.opt(None, "stat_length") {
                None => None,
                Some(o) => Some(value_pairs(o, nd, "stat_length")?),
            };
            let func = match mode {
                "maximum" => "amax",
                "minimum" => "amin",
                m => m,
            };
            stats(interp, x, pairs, lengths, func)
        }
        "empty" => {
            let kw = vec![("mode", Obj::str("constant"))];
            let width = Obj::list(pairs.iter().map(|&(l, h)| pair_obj(l, h)).collect());
            call(interp, "pad", vec![x, width], kw)
        }
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.pad with mode={other:?}"
        ),
    }
}

fn pair_obj(lo: usize, hi: usize) -> Obj {
    Obj::tuple(vec![Obj::Int(lo as i64), Obj::Int(hi as i64)])
}

fn shape(o: &Obj) -> Result<Vec<usize>> {
    Ok(to_value(o)?.shape())
}

fn concat(interp: &mut Interp, parts: Vec<Obj>, axis: usize) -> Result<Obj> {
    jnp(
        interp,
        "concatenate",
        vec![Obj::list(parts), Obj::Int(axis as i64)],
    )
}

fn repeat(interp: &mut Interp, x: Obj, n: usize, axis: usize) -> Result<Obj> {
    let kw = vec![("axis", Obj::Int(axis as i64))];
    call(interp, "repeat", vec![x, Obj::Int(n as i64)], kw)
}

type AxisFn = fn(&mut Interp, Obj, usize, usize, usize) -> Result<Obj>;

/// `f` along every non-empty axis; an empty axis cannot be padded.
fn each_axis(interp: &mut Interp, mut x: Obj, pairs: &Pairs, mode: &str, f: AxisFn) -> Result<Obj> {
    for (axis, &(lo, hi)) in pairs.iter().enumerate() {
        if shape(&x)?[axis] == 0 {
            if lo > 0 || hi > 0 {
                bail!(ValueError, "Cannot apply '{mode}' padding to empty axis");
            }
            continue;
        }
        x = f(interp, x, axis, lo, hi)?;
    }
    Ok(x)
}

/// Whole copies of the axis, and the ends of one, on each side.
fn wrap(interp: &mut Interp, x: Obj, axis: usize, lo: usize, hi: usize) -> Result<Obj> {
    let n = shape(&x)?[axis];
    let mut parts = vec![];
    if lo % n > 0 {
        parts.push(in_dim(
            interp,
            &x,
            Some((n - lo % n) as i64),
            Some(n as i64),
            axis,
        )?);
    }
    parts.extend(vec![x.clone(); lo / n + hi / n + 1]);
    if hi % n > 0 {
        parts.push(in_dim(interp, &x, Some(0), Some((hi % n) as i64), axis)?);
    }
    concat(interp, parts, axis)
}

/// The first and last elements repeated.
fn edge(interp: &mut Interp, x: Obj, axis: usize, lo: usize, hi: usize) -> Result<Obj> {
    let n = shape(&x)?[axis] as i64;
    let first = in_dim(interp, &x, Some(0), Some(1), axis)?;
    let before = repeat(interp, first, lo, axis)?;
    let last = in_dim(interp, &x, Some(n - 1), Some(n), axis)?;
    let after = repeat(interp, last, hi, axis)?;
    concat(interp, vec![before, x, after], axis)
}

/// `reflect` (about the edge element) or `symmetric` (about the edge).
struct Reflect {
    symmetric: bool,
    odd: bool,
}

impl Reflect {
    fn axis(&self, i: &mut Interp, x: Obj, axis: usize, lo: usize, hi: usize) -> Result<Obj> {
        let n = shape(&x)?[axis];
        if n == 0 {
            if lo > 0 || hi > 0 {
                let mode = if self.symmetric {
                    "symmetric"
                } else {
                    "reflect"
                };
                bail!(ValueError, "Cannot apply '{mode}' padding to empty axis");
            }
            return Ok(x);
        }
        let x = self.side(i, x, axis, lo, true)?;
        self.side(i, x, axis, hi, false)
    }

    /// Pads one side, a mirror image at a time (each at most the axis long).
    fn side(
        &self,
        i: &mut Interp,
        mut x: Obj,
        axis: usize,
        mut padding: usize,
        before: bool,
    ) -> Result<Obj> {
        let n = shape(&x)?[axis];
        let offset = usize::from(!self.symmetric && n > 1);
        let mut edge = match before {
            true => in_dim(i, &x, Some(0), Some(1), axis)?,
            false => in_dim(i, &x, Some(-1), None, axis)?,
        };
        while padding > 0 {
            let cur = padding.min(n - offset);
            padding -= cur;
            let (start, stop) = match before {
                true => (offset as i64, Some((offset + cur) as i64)),
                false => {
                    let stop = (!self.symmetric && n != 1).then_some(-1);
                    (-((cur + offset) as i64), stop)
                }
            };
            let part = in_dim(i, &x, Some(start), stop, axis)?;
            let mut part = call(i, "flip", vec![part], vec![("axis", Obj::Int(axis as i64))])?;
            if self.odd {
                let twice = jnp(i, "multiply", vec![Obj::Int(2), edge.clone()])?;
                part = jnp(i, "subtract", vec![twice, part])?;
                if n > 1 {
                    edge = match before {
                        true => in_dim(i, &part, Some(0), Some(1), axis)?,
                        false => in_dim(i, &part, Some(-1), None, axis)?,
                    };
                }
            }
            x = match before {
                true => concat(i, vec![part, x], axis)?,
                false => concat(i, vec![x, part], axis)?,
            };
        }
        Ok(x)
    }
}

/// Ramps from the end values to the edge elements.
fn linear_ramp(i: &mut Interp, mut x: Obj, pairs: &Pairs, ends: &[(Obj, Obj)]) -> Result<Obj> {
    let dt = crate::python::ops::getattr(i, &x, "dtype")?;
    let weak = to_value(&x)?.aval().weak;
    for (axis, (&(lo, hi), (end_lo, end_hi))) in pairs.iter().zip(ends).enumerate() {
        let mut ramps = vec![];
        for (end, num, at) in [(end_lo, lo, 0i64), (end_hi, hi, -1)] {
            let edge = in_dim(i, &x, Some(at), if at == 0 { Some(1) } else { None }, axis)?;
            let edge = call(
                i,
                "squeeze",
                vec![edge],
                vec![("axis", Obj::Int(axis as i64))],
            )?;
            let kw = vec![
                ("endpoint", Obj::Bool(false)),
                ("dtype", dt.clone()),
                ("axis", Obj::Int(axis as i64)),
            ];
            let ramp = call(
                i,
                "linspace",
                vec![end.clone(), edge, Obj::Int(num as i64)],
                kw,
            )?;
            let v = to_value(&ramp)?;
            let ramp = Obj::Array(crate::ops::convert_weak(&v, v.dtype(), weak)?);
            ramps.push(ramp);
        }
        let after = ramps.pop().unwrap_or(Obj::None);
        let after = call(
            i,
            "flip",
            vec![after],
            vec![("axis", Obj::Int(axis as i64))],
        )?;
        let before = ramps.pop().unwrap_or(Obj::None);
        x = concat(i, vec![before, x, after], axis)?;
    }
    Ok(x)
}

/// A statistic of the first and last `stat_length` elements, repeated.
fn stats(
    i: &mut Interp,
    mut x: Obj,
    pairs: &Pairs,
    lengths: Option<Vec<(Obj, Obj)>>,
    func: &str,
) -> Result<Obj> {
    let v = to_value(&x)?;
    let (dtype, weak, int) = (v.dtype(), v.aval().weak, v.dtype().is_int());
    for (axis, &(lo, hi)) in pairs.iter().enumerate() {
        let kw = || {
            vec![
                ("axis", Obj::Int(axis as i64)),
                ("keepdims", Obj::Bool(true)),
            ]
        };
        let (before, after) = match &lengths {
            None => {
                let s = call(i, func, vec![x.clone()], kw())?;
                (s.clone(), s)
            }
            Some(ls) => {
                let n = shape(&x)?[axis] as i64;
                let (lb, la) = (to_len(&ls[axis].0)?, to_len(&ls[axis].1)?);
                if lb == 0 || la == 0 {
                    bail!(ValueError, "stat_length of 0 yields no value for padding");
                }
                let sb = in_dim(i, &x, Some(0), Some(lb.min(n)), axis)?;
                let sa = in_dim(i, &x, Some(-la.min(n)), None, axis)?;
                (
                    call(i, func, vec![sb], kw())?,
                    call(i, func, vec![sa], kw())?,
                )
            }
        };
        let mut fix = |s: Obj| -> Result<Obj> {
            let s = match int {
                true => jnp(i, "round", vec![s])?,
                false => s,
            };
            Ok(Obj::Array(crate::ops::convert_weak(
                &to_value(&s)?,
                dtype,
                weak,
            )?))
        };
        let (before, after) = (fix(before)?, fix(after)?);
        let before = repeat(i, before, lo, axis)?;
        let after = repeat(i, after, hi, axis)?;
        x = concat(i, vec![before, x, after], axis)?;
    }
    Ok(x)
}

fn to_len(o: &Obj) -> Result<i64> {
    crate::python::builtins::to_int(o)
}

/// `end_values` or `stat_length` as one `(before, after)` pair per
/// dimension, from a scalar, a pair, a one-element sequence or a pair
/// per dimension.
fn value_pairs(o: Obj, nd: usize, name: &str) -> Result<Vec<(Obj, Obj)>> {
    let seq = |o: &Obj| matches!(o, Obj::Tuple(_) | Obj::List(_));
    if !seq(&o) {
        let o = scalar_of(o, name)?;
        return Ok(vec![(o.clone(), o); nd]);
    }
    let items = iterate(&o)?;
    let nested: Vec<bool> = items.iter().map(seq).collect();
    let bad = || {
        crate::err!(
            ValueError,
            "jnp.pad: {name} with nd={nd} has unsupported shape. Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ()."
        )
    };
    if nested.iter().all(|&n| !n) {
        return match items.as_slice() {
            [v] => Ok(vec![(v.clone(), v.clone()); nd]),
            [a, b] => Ok(vec![(a.clone(), b.clone()); nd]),
            _ => Err(bad()),
        };
    }
    let pairs = items
        .iter()
        .map(|p| match iterate(p)?.as_slice() {
            [a, b] => Ok((a.clone(), b.clone())),
            _ => Err(bad()),
        })
        .collect::<Result<Vec<_>>>()?;
    match pairs.len() {
        1 => Ok(vec![pairs[0].clone(); nd]),
        n if n == nd => Ok(pairs),
        _ => Err(bad()),
    }
}

/// A number, or a 0-d array; a larger array stands for pairs that are
/// not read from arrays yet.
fn scalar_of(o: Obj, name: &str) -> Result<Obj> {
    if let Obj::Array(v) = &o {
        if v.ndim() != 0 {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.numpy.pad with {name} given as an array"
            );
        }
    }
    Ok(o)
}
