//! `jax.jacfwd`, `jax.jacrev` (and its alias `jax.jacobian`), `jax.hessian`
//! and `jax.linearize`.
//!
//! As in JAX, a Jacobian is a vmap of the forward (or reverse) derivative
//! over the standard basis of the flattened inputs (or outputs): jacfwd maps
//! `jvp` over one-hot tangents, jacrev maps the pullback over one-hot
//! cotangents. The stacked result is split per leaf and reshaped so that the
//! Jacobian of output leaf `o` with respect to input leaf `i` has shape
//! `o.shape + i.shape`, and the leaves form the output tree with an input
//! tree at each of its leaves.

use std::cell::RefCell;

use crate::array::DType;
use crate::error::Result;
use crate::primitives::MapKind;
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::jax::{argnums_of, check_argnums, flag, func_name, split_aux};
use crate::python::array::{from_f64, index_first};
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::pytree::{flatten, leaf_values, unflatten, value_objs, TreeDef};
use crate::python::value::{Args, Obj};

/// What jacfwd and jacrev are given: the function and how it is differentiated.
#[derive(Clone)]
struct JacSpec {
    f: Obj,
    argnums: Vec<usize>,
    tuple_nums: bool,
    has_aux: bool,
}

impl JacSpec {
    fn from_args(a: &Args, what: &str) -> Result<JacSpec> {
        let f = a.req(Some(0), "fun", what)?;
        let (argnums, tuple_nums) = argnums_of(a)?;
        if flag(a, "holomorphic")? {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: {what} with holomorphic=True"
            );
        }
        Ok(JacSpec {
            f,
            argnums,
            tuple_nums,
            has_aux: flag(a, "has_aux")?,
        })
    }
}

/// One call of a function differentiated with respect to some of its
/// arguments: the flat leaves of those arguments, their tree, and the
/// structures of the output and aux data found when it was traced.
struct Flat {
    call: Args,
    in_def: TreeDef,
    primals: Vec<Value>,
    out_def: RefCell<Option<TreeDef>>,
    aux_def: RefCell<Option<TreeDef>>,
    n_out: RefCell<usize>,
}

impl Flat {
    fn new(interp: &mut Interp, spec: &JacSpec, call: Args) -> Result<Flat> {
        check_argnums(&spec.argnums, call.pos.len())?;
        let dyn_args = if spec.tuple_nums {
            Obj::tuple(spec.argnums.iter().map(|&k| call.pos[k].clone()).collect())
        } else {
            call.pos[spec.argnums[0]].clone()
        };
        let (leaves, in_def) = flatten(interp, &dyn_args)?;
        Ok(Flat {
            call,
            in_def,
            primals: leaf_values(&leaves)?,
            out_def: RefCell::new(None),
            aux_def: RefCell::new(None),
            n_out: RefCell::new(0),
        })
    }

    /// Calls the function with the differentiated arguments rebuilt from
    /// `vals`; returns the output leaves followed by the aux leaves.
    fn run(&self, interp: &mut Interp, spec: &JacSpec, vals: &[Value]) -> Result<Vec<Value>> {
        let dyn_args = unflatten(interp, &self.in_def, &value_objs(vals))?;
        let mut args = self.call.pos.clone();
        if spec.tuple_nums {
            for (&k, a) in spec.argnums.iter().zip(iterate(&dyn_args)?) {
                args[k] = a;
            }
        } else {
            args[spec.argnums[0]] = dyn_args;
        }
        let out = interp.call(&spec.f, Args::with(args, self.call.kw.clone()))?;
        let (out, aux) = split_aux(out, spec.has_aux)?;
        let (leaves, def) = flatten(interp, &out)?;
        let mut flat = leaf_values(&leaves)?;
        *self.out_def.borrow_mut() = Some(def);
        *self.n_out.borrow_mut() = flat.len();
        if let Some(aux) = aux {
            let (leaves, def) = flatten(interp, &aux)?;
            flat.extend(leaf_values(&leaves)?);
            *self.aux_def.borrow_mut() = Some(def);
        }
        Ok(flat)
    }

    /// The Jacobian blocks `jac[o][i]` arranged as the output tree with an
    /// input tree at each leaf, then the aux data if any.
    fn finish(&self, interp: &mut Interp, jac: Vec<Vec<Value>>, aux: &[Value]) -> Result<Obj> {
        let mut per_out = vec![];
        for row in jac {
            per_out.push(unflatten(interp, &self.in_def, &value_objs(&row))?);
        }
        let out_def = self.out_def.borrow().clone().unwrap_or(TreeDef::None);
        let tree = unflatten(interp, &out_def, &per_out)?;
        match self.aux_def.borrow().as_ref() {
            Some(def) => {
                let aux = unflatten(interp, def, &value_objs(aux))?;
                Ok(Obj::tuple(vec![tree, aux]))
            }
            None => Ok(tree),
        }
    }
}

/// The standard basis of the flattened `leaves`: for each leaf, the array
/// of shape `(n, *leaf.shape)` whose row `r` is the one-hot vector `r` of
/// the concatenation of all leaves, restricted to that leaf.
fn std_basis(leaves: &[Value]) -> Result<Vec<Value>> {
    let n: usize = leaves
        .iter()
        .map(|l| l.shape().iter().product::<usize>())
        .sum();
    let mut offset = 0;
    let mut out = vec![];
    for leaf in leaves {
        let shape = leaf.shape();
        let size: usize = shape.iter().product();
        let mut data = vec![0.0; n * size];
        for k in 0..size {
            data[(offset + k) * size + k] = 1.0;
        }
        let mut full = vec![n];
        full.extend(&shape);
        out.push(Value::Concrete(from_f64(&full, &data, DType::F32)?));
        offset += size;
    }
    Ok(out)
}

/// Columns `start..start + size` of the last axis of `x`, reshaped to
/// `x.shape[..-1] + shape`.
fn split_last(x: &Value, start: usize, shape: &[usize]) -> Result<Value> {
    let xs = x.shape();
    let size: usize = shape.iter().product();
    let mut starts = vec![0; xs.len()];
    let mut limits = xs.clone();
    if let (Some(s), Some(l)) = (starts.last_mut(), limits.last_mut()) {
        *s = start;
        *l = start + size;
    }
    let part = jops::slice(x, &starts, &limits, &vec![1; xs.len()])?;
    let mut new_shape = xs[..xs.len().saturating_sub(1)].to_vec();
    new_shape.extend(shape);
    jops::reshape(&part, &new_shape)
}

/// JAX checks the inputs' dtypes with a `tree_map` whose function returns
/// None, so a custom pytree node is rebuilt once with None leaves: a
/// constructor that converts or validates its fields fails there, as it
/// does in JAX (`MyTree(None)`).
fn rebuild_with_nones(interp: &mut Interp, def: &TreeDef) -> Result<()> {
    let nones = vec![Obj::None; def.num_leaves()];
    unflatten(interp, def, &nones).map(|_| ())
}

fn check_float_inputs(primals: &[Value], what: &str) -> Result<()> {
    for p in primals {
        if p.dtype() != DType::F32 {
            let name = p.dtype().name();
            if what == "jacfwd" {
                bail!(
                    TypeError,
                    "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got {name}. For holomorphic differentiation, pass holomorphic=True. For differentiation of non-holomorphic functions involving complex inputs or integer inputs, use jax.jvp directly."
                );
            }
            bail!(
                TypeError,
                "jacrev requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got {name}. If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to True."
            );
        }
    }
    Ok(())
}

/// `jacfwd(f, ...)(*args)`.
fn jacfwd_call(interp: &mut Interp, spec: &JacSpec, call: Args) -> Result<Obj> {
    let flat = Flat::new(interp, spec, call)?;
    check_float_inputs(&flat.primals, "jacfwd")?;
    rebuild_with_nones(interp, &flat.in_def)?;
    let basis = std_basis(&flat.primals)?;
    let mapped = {
        let (flat_ref, ip) = (&flat, &mut *interp);
        let body: jops::BodyFn = Box::new(move |rows: &[Value]| {
            let (outs, touts) = crate::transforms::jvp(
                |v: &[Value]| flat_ref.run(ip, spec, v),
                &flat_ref.primals,
                rows,
            )?;
            Ok(outs.into_iter().chain(touts).collect())
        });
        let axes = vec![Some(0); basis.len()];
        jops::map(MapKind::Vmap, body, None, &axes, &[0], &basis)?
    };
    let n_all = mapped.len() / 2;
    let n_out = *flat.n_out.borrow();
    let aux: Vec<Value> = mapped[n_out..n_all]
        .iter()
        .map(|v| index_first(v, 0))
        .collect::<Result<_>>()?;
    let mut jac = vec![];
    for t in &mapped[n_all..n_all + n_out] {
        let last = t.ndim().saturating_sub(1);
        let moved = jops::moveaxis(t, 0, last)?;
        let mut row = vec![];
        let mut offset = 0;
        for p in &flat.primals {
            let shape = p.shape();
            row.push(split_last(&moved, offset, &shape)?);
            offset += shape.iter().product::<usize>();
        }
        jac.push(row);
    }
    flat.finish(interp, jac, &aux)
}

/// `jacrev(f, ...)(*args)`.
fn jacrev_call(interp: &mut Interp, spec: &JacSpec, call: Args) -> Result<Obj> {
    let flat = Flat::new(interp, spec, call)?;
    check_float_inputs(&flat.primals, "jacrev")?;
    rebuild_with_nones(interp, &flat.in_def)?;
    let (outs, pullback) = {
        let (flat_ref, ip) = (&flat, &mut *interp);
        crate::transforms::vjp(|v: &[Value]| flat_ref.run(ip, spec, v), &flat.primals)?
    };
    let n_out = *flat.n_out.borrow();
    let (ys, aux) = outs.split_at(n_out);
    for y in ys {
        if y.dtype() != DType::F32 {
            bail!(
                TypeError,
                "jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got {}. For holomorphic differentiation, pass holomorphic=True. For differentiation of non-holomorphic functions involving complex outputs, use jax.vjp directly.",
                y.dtype().name()
            );
        }
    }
    let mut args = std_basis(ys)?;
    args.extend(aux.iter().map(jops::zeros_like));
    let mut axes = vec![Some(0); ys.len()];
    axes.extend(aux.iter().map(|_| None));
    let pb = &pullback;
    let body: jops::BodyFn = Box::new(move |cts: &[Value]| pb.call(cts));
    // One stacked cotangent per input leaf: shape (total output size, *leaf shape).
    let per_in = jops::map(MapKind::Vmap, body, None, &axes, &[0], &args)?;
    super::debug_print::show_eager_prints(interp)?;
    let mut jac = vec![];
    let mut offset = 0;
    for y in ys {
        let shape = y.shape();
        let size: usize = shape.iter().product();
        let mut row = vec![];
        for (c, p) in per_in.iter().zip(&flat.primals) {
            let moved = jops::moveaxis(c, 0, c.ndim().saturating_sub(1))?;
            let part = split_last(&moved, offset, &[size])?;
            // (*in_shape, size) -> (size, *in_shape) -> (*out_shape, *in_shape).
            let back = jops::moveaxis(&part, part.ndim().saturating_sub(1), 0)?;
            let mut full = shape.clone();
            full.extend(p.shape());
            row.push(jops::reshape(&back, &full)?);
        }
        jac.push(row);
        offset += size;
    }
    flat.finish(interp, jac, aux)
}

fn jacfwd(_: &mut Interp, a: Args) -> Result<Obj> {
    let spec = JacSpec::from_args(&a, "jacfwd")?;
    Ok(Obj::native(
        format!("jacfwd({})", func_name(&spec.f)),
        move |i, call| jacfwd_call(i, &spec, call),
    ))
}

fn jacrev(_: &mut Interp, a: Args) -> Result<Obj> {
    let spec = JacSpec::from_args(&a, "jacrev")?;
    Ok(Obj::native(
        format!("jacrev({})", func_name(&spec.f)),
        move |i, call| jacrev_call(i, &spec, call),
    ))
}

/// `jax.hessian`: jacfwd of jacrev, as JAX defines it.
fn hessian(_: &mut Interp, a: Args) -> Result<Obj> {
    let inner = JacSpec::from_args(&a, "hessian")?;
    let name = func_name(&inner.f);
    let rev = inner.clone();
    let jac = Obj::native(format!("jacrev({name})"), move |i, call| {
        jacrev_call(i, &rev, call)
    });
    let outer = JacSpec { f: jac, ..inner };
    Ok(Obj::native(format!("hessian({name})"), move |i, call| {
        jacfwd_call(i, &outer, call)
    }))
}

/// `jax.linearize(f, *primals)`: `(f(*primals), f_jvp)`.
fn linearize(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "fun", "linearize")?;
    let primals = Obj::tuple(a.pos.get(1..).unwrap_or_default().to_vec());
    let (leaves, in_def) = flatten(interp, &primals)?;
    let vals = leaf_values(&leaves)?;
    let out_def = RefCell::new(None);
    let (outs, lin) = {
        let (f, in_def, out_def) = (&f, &in_def, &out_def);
        crate::transforms::linearize(
            |v: &[Value]| super::jax::call_flat(interp, f, in_def, &[], v, out_def),
            &vals,
        )?
    };
    let out_def = out_def.into_inner().unwrap_or(TreeDef::None);
    let out = unflatten(interp, &out_def, &value_objs(&outs))?;
    let f_jvp = Obj::native("f_jvp", move |i, c| {
        let (leaves, _) = flatten(i, &Obj::tuple(c.pos.clone()))?;
        let ts = lin.call(&leaf_values(&leaves)?)?;
        unflatten(i, &out_def, &value_objs(&ts))
    });
    Ok(Obj::tuple(vec![out, f_jvp]))
}

/// `jax.linear_transpose(f, *primals)`: the transpose of the linear `f`,
/// which is its pullback (at zero, since it is the same everywhere).
fn linear_transpose(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "fun", "linear_transpose")?;
    let primals = Obj::tuple(a.pos.get(1..).unwrap_or_default().to_vec());
    let (leaves, in_def) = flatten(interp, &primals)?;
    // The primals only give shapes and dtypes: arrays or ShapeDtypeStructs.
    let zeros: Vec<Value> = leaves
        .iter()
        .map(|l| {
            let aval = super::shape_dtype::aval_of(l)?;
            let z = crate::array::Array::zeros(&aval.shape, aval.dtype).with_weak(aval.weak);
            Ok(Value::Concrete(z))
        })
        .collect::<Result<_>>()?;
    let out_def = RefCell::new(None);
    let (_, pullback) = {
        let (f, in_def, out_def) = (&f, &in_def, &out_def);
        crate::transforms::vjp(
            |v: &[Value]| super::jax::call_flat(interp, f, in_def, &[], v, out_def),
            &zeros,
        )?
    };
    Ok(Obj::native("transposed_fun", move |i, c| {
        let ct = c.req(Some(0), "out_cotangent", "transposed_fun")?;
        let (leaves, _) = flatten(i, &ct)?;
        let ins = pullback.call(&leaf_values(&leaves)?)?;
        super::debug_print::show_eager_prints(i)?;
        unflatten(i, &in_def, &value_objs(&ins))
    }))
}

/// Adds the Jacobian functions to the `jax` module.
pub fn register(b: &mut super::Builder) {
    b.func("jacfwd", jacfwd);
    b.func("jacrev", jacrev);
    b.func("jacobian", jacrev);
    b.func("hessian", hessian);
    b.func("linearize", linearize);
    b.func("linear_transpose", linear_transpose);
}
