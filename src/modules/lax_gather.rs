//! `lax.gather` and the `lax.scatter` family with XLA's dimension numbers
//! (`GatherDimensionNumbers`, `ScatterDimensionNumbers`, batching
//! dimensions included) and `GatherScatterMode`'s clip, fill-or-drop and
//! promise-in-bounds.
//!
//! Both are lowered onto the engine's one-axis `take` and `scatter-add` of
//! the flattened operand: for every index vector and every position in its
//! window, the flat position of the operand element it reaches is computed
//! with integer arithmetic on the (possibly traced) indices, so the result
//! runs under jit, vmap and grad as those primitives do. Out-of-bounds
//! windows follow the mode: clamped into the operand (clip, and gather's
//! promise-in-bounds as XLA clamps), or filled (gather) and dropped
//! (scatter). The scatters other than add (`scatter`, `scatter_mul`,
//! `scatter_min`, `scatter_max`) compare every operand position with every
//! update position, which is exact, applies duplicates as XLA does on the
//! CPU (in order, the last `scatter` wins), and is bounded in size.

use crate::array::{shape_tuple, BinaryOp, DType, ReduceOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::primitives::Prim;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::trace::{bind1, Value};

use super::Builder;

const GATHER_FIELDS: [&str; 5] = [
    "offset_dims",
    "collapsed_slice_dims",
    "start_index_map",
    "operand_batching_dims",
    "start_indices_batching_dims",
];

const SCATTER_FIELDS: [&str; 5] = [
    "update_window_dims",
    "inserted_window_dims",
    "scatter_dims_to_operand_dims",
    "operand_batching_dims",
    "scatter_indices_batching_dims",
];

/// The largest operand-by-update comparison the scatters other than add
/// build.
const DENSE_LIMIT: usize = 1 << 26;

/// Adds the functions and the dimension-number types to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("GatherDimensionNumbers", |_, a| {
        numbers(&a, "GatherDimensionNumbers", &GATHER_FIELDS)
    });
    b.func("ScatterDimensionNumbers", |_, a| {
        numbers(&a, "ScatterDimensionNumbers", &SCATTER_FIELDS)
    });
    b.func("gather", gather);
    b.func("index_take", |_, a| index_take(&a));
    for (name, kind) in [
        ("scatter_add", Kind::Add),
        ("scatter_sub", Kind::Sub),
        ("scatter_mul", Kind::Mul),
        ("scatter_min", Kind::Min),
        ("scatter_max", Kind::Max),
        ("scatter", Kind::Set),
    ] {
        b.func(name, move |i, a| scatter(i, &a, name, kind));
    }
}

/// The named tuple of dimension numbers, the last two fields defaulting to
/// empty.
fn numbers(a: &Args, class: &str, fields: &[&str; 5]) -> Result<Obj> {
    let mut out = vec![];
    for (i, f) in fields.iter().enumerate() {
        let v = match a.opt(Some(i), f) {
            Some(o) => Obj::tuple(iterate(&o)?),
            None if i >= 3 => Obj::tuple(vec![]),
            None => bail!(
                TypeError,
                "{class}.__new__() missing required argument: '{f}'"
            ),
        };
        out.push((*f, v));
    }
    Ok(super::named_tuple::instance(class, out))
}

/// A field of a dimension-numbers tuple as dimensions.
fn field(dn: &Obj, class: &str, name: &str) -> Result<Vec<usize>> {
    let Obj::Instance(i) = dn else {
        bail!(
            TypeError,
            "dimension_numbers must be a {class}, got {}",
            dn.type_name()
        );
    };
    if i.class.name != class {
        bail!(
            TypeError,
            "dimension_numbers must be a {class}, got {}",
            i.class.name
        );
    }
    let v = i.get(name).unwrap_or(Obj::None);
    iterate(&v)?
        .iter()
        .map(|d| {
            let d = to_int(d)?;
            usize::try_from(d)
                .map_err(|_| crate::err!(ValueError, "negative dimension {d} in {name}"))
        })
        .collect()
}

/// How out-of-bounds windows are treated.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Clip,
    FillOrDrop,
    PromiseInBounds,
}

/// The `mode` argument: None (gather's promise-in-bounds, scatter's
/// fill-or-drop), a string or a `GatherScatterMode` member.
fn mode(interp: &mut Interp, a: &Args, default: Mode) -> Result<Mode> {
    let Some(o) = a.opt(None, "mode") else {
        return Ok(default);
    };
    let name = match &o {
        Obj::Str(s) => s.to_string(),
        other => {
            let n = crate::python::ops::getattr(interp, other, "name")?;
            match n {
                Obj::Str(s) => s.to_lowercase(),
                _ => String::new(),
            }
        }
    };
    match name.as_str() {
        "clip" => Ok(Mode::Clip),
        "fill" | "drop" | "fill_or_drop" => Ok(Mode::FillOrDrop),
        "promise_in_bounds" => Ok(Mode::PromiseInBounds),
        "one_hot" => bail!(
            NotImplementedError,
            "not supported by shardlab yet: gather and scatter with mode='one_hot'"
        ),
        _ => bail!(
            ValueError,
            "Unknown gather mode \"{}\"",
            crate::python::format::str_of(&o)
        ),
    }
}

fn i32c(v: i64) -> Value {
    jops::scalar(v as f64, DType::I32)
}

/// How the index vectors reach the operand: which operand dimension each
/// component of an index vector starts, which operand dimensions are
/// batching dimensions paired with which index dimensions, and the window
/// size of every operand dimension.
struct Layout {
    operand: Vec<usize>,
    start_map: Vec<usize>,
    batching: Vec<(usize, usize)>,
    window: Vec<usize>,
}

impl Layout {
    /// The start of the window of every index vector along operand
    /// dimension `d` (shape: the index batch shape), or None where it is
    /// always 0.
    fn start(&self, indices: &Value, d: usize, mode: Mode) -> Result<Option<Value>> {
        let batch: Vec<usize> = indices.shape()[..indices.ndim() - 1].to_vec();
        if let Some(k) = self.start_map.iter().position(|&m| m == d) {
            let s = component(indices, k)?;
            if mode == Mode::FillOrDrop {
                return Ok(Some(s));
            }
            let hi = self.operand[d] as i64 - self.window[d] as i64;
            let s = jops::clamp(&i32c(0), &s, &i32c(hi.max(0)))?;
            return Ok(Some(s));
        }
        if let Some(&(_, ib)) = self.batching.iter().find(|(od, _)| *od == d) {
            let iota = Value::Concrete(crate::array::Array::iota(&batch, ib, DType::I32)?);
            return Ok(Some(iota));
        }
        Ok(None)
    }

    /// The flat operand position of every window element of every index
    /// vector (shape: batch shape, then the window dimensions `dims` in
    /// order), and for fill-or-drop the index vectors whose window lies
    /// inside the operand.
    fn positions(
        &self,
        indices: &Value,
        dims: &[usize],
        mode: Mode,
    ) -> Result<(Value, Option<Value>)> {
        let batch: Vec<usize> = indices.shape()[..indices.ndim() - 1].to_vec();
        let nb = batch.len();
        let mut full = batch.clone();
        full.extend(dims.iter().map(|&d| self.window[d]));
        let mut pos = jops::broadcast_to(&i32c(0), &full)?;
        let mut inside: Option<Value> = None;
        let mut stride = 1i64;
        for d in (0..self.operand.len()).rev() {
            let mut term = match self.start(indices, d, mode)? {
                Some(s) => {
                    if mode == Mode::FillOrDrop && self.start_map.contains(&d) {
                        let hi = self.operand[d] as i64 - self.window[d] as i64;
                        let ok = jops::binary(
                            BinaryOp::And,
                            &jops::binary(BinaryOp::Ge, &s, &i32c(0))?,
                            &jops::binary(BinaryOp::Le, &s, &i32c(hi))?,
                        )?;
                        inside = Some(match inside {
                            Some(prev) => jops::binary(BinaryOp::And, &prev, &ok)?,
                            None => ok,
                        });
                    }
                    jops::broadcast_in_dim(&s, &full, &(0..nb).collect::<Vec<_>>())?
                }
                None => jops::broadcast_to(&i32c(0), &full)?,
            };
            if let Some(w) = dims.iter().position(|&x| x == d) {
                let offset = Value::Concrete(crate::array::Array::iota(&full, nb + w, DType::I32)?);
                term = jops::add(&term, &offset)?;
            }
            pos = jops::add(&pos, &jops::mul(&term, &i32c(stride))?)?;
            stride *= self.operand[d] as i64;
        }
        if let Some(ok) = &inside {
            // Positions of dropped windows are kept inside the operand.
            let last = i32c(stride.max(1) - 1);
            pos = jops::clamp(&i32c(0), &pos, &last)?;
            let ok = jops::broadcast_in_dim(ok, &full, &(0..nb).collect::<Vec<_>>())?;
            return Ok((pos, Some(ok)));
        }
        Ok((pos, None))
    }
}

/// Component `k` of the index vectors (the last dimension of `indices`),
/// as int32.
fn component(indices: &Value, k: usize) -> Result<Value> {
    let shape = indices.shape();
    let n = shape.len();
    let mut starts = vec![0; n];
    let mut limits = shape.clone();
    starts[n - 1] = k;
    limits[n - 1] = k + 1;
    let c = jops::slice(indices, &starts, &limits, &vec![1; n])?;
    jops::convert(&jops::reshape(&c, &shape[..n - 1])?, DType::I32)
}

/// The index array, with an index vector dimension of its own.
fn index_array(o: &Obj) -> Result<Value> {
    let v = to_value(o)?;
    if !v.dtype().is_int() {
        bail!(
            TypeError,
            "indices must have an integer type, got {}",
            v.dtype().name()
        );
    }
    if v.ndim() == 0 {
        bail!(TypeError, "indices must have at least one dimension");
    }
    Ok(v)
}

/// Checks the dimension numbers name dimensions that exist, once each.
fn check_dims(what: &str, dims: &[usize], rank: usize) -> Result<()> {
    let mut seen = vec![false; rank];
    for &d in dims {
        if d >= rank || seen[d] {
            bail!(
                TypeError,
                "{what} {} is out of range or repeated for an array of rank {rank}",
                shape_tuple(dims)
            );
        }
        seen[d] = true;
    }
    Ok(())
}

/// The default fill of a gather out of bounds: NaN, the smallest signed or
/// largest unsigned integer, or True.
fn default_fill(d: DType) -> Result<Value> {
    let v = match d {
        DType::Bool => 1.0,
        DType::I8 => f64::from(i8::MIN),
        DType::I16 => f64::from(i16::MIN),
        DType::I32 => f64::from(i32::MIN),
        DType::U8 => f64::from(u8::MAX),
        DType::U16 => f64::from(u16::MAX),
        DType::U32 => f64::from(u32::MAX),
        _ => f64::NAN,
    };
    Ok(jops::scalar(v, d))
}

/// Gather's dimension numbers.
struct GatherDims {
    offset_dims: Vec<usize>,
    collapsed: Vec<usize>,
    start_map: Vec<usize>,
    operand_batching: Vec<usize>,
    indices_batching: Vec<usize>,
}

impl GatherDims {
    fn of(dn: &Obj) -> Result<GatherDims> {
        let c = "GatherDimensionNumbers";
        Ok(GatherDims {
            offset_dims: field(dn, c, "offset_dims")?,
            collapsed: field(dn, c, "collapsed_slice_dims")?,
            start_map: field(dn, c, "start_index_map")?,
            operand_batching: field(dn, c, "operand_batching_dims")?,
            indices_batching: field(dn, c, "start_indices_batching_dims")?,
        })
    }

    /// The operand dimensions the window keeps, after checking the numbers
    /// against the operand's `shape`, the index batch rank `nb`, the index
    /// vector length `nv` and the slice sizes.
    fn window_dims(
        &self,
        shape: &[usize],
        nb: usize,
        nv: usize,
        sizes: &[usize],
    ) -> Result<Vec<usize>> {
        if sizes.len() != shape.len() || sizes.iter().zip(shape).any(|(s, n)| s > n) {
            bail!(
                TypeError,
                "slice_sizes {} must have one size per operand dimension, each at most the operand's {}",
                shape_tuple(sizes),
                shape_tuple(shape)
            );
        }
        if self.start_map.len() != nv || self.operand_batching.len() != self.indices_batching.len()
        {
            bail!(
                TypeError,
                "start_index_map {} must have one entry per index vector component ({nv}), and the batching dimensions must pair up",
                shape_tuple(&self.start_map)
            );
        }
        let mut removed = self.collapsed.clone();
        removed.extend(&self.operand_batching);
        check_dims(
            "collapsed_slice_dims and operand_batching_dims",
            &removed,
            shape.len(),
        )?;
        check_dims("start_index_map", &self.start_map, shape.len())?;
        check_dims("start_indices_batching_dims", &self.indices_batching, nb)?;
        if removed.iter().any(|&d| sizes[d] != 1) {
            bail!(
                TypeError,
                "collapsed_slice_dims and operand_batching_dims must have slice size 1, got slice_sizes {}",
                shape_tuple(sizes)
            );
        }
        let dims: Vec<usize> = (0..shape.len()).filter(|d| !removed.contains(d)).collect();
        let offsets = &self.offset_dims;
        check_dims("offset_dims", offsets, nb + dims.len())?;
        if offsets.len() != dims.len() || offsets.windows(2).any(|w| w[0] > w[1]) {
            bail!(
                TypeError,
                "offset_dims {} must be sorted and name one output dimension per window dimension ({})",
                shape_tuple(offsets),
                dims.len()
            );
        }
        Ok(dims)
    }
}

/// `lax.gather(operand, start_indices, dimension_numbers, slice_sizes, *,
/// unique_indices=False, indices_are_sorted=False, mode=None,
/// fill_value=None)`.
fn gather(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "operand", "gather")?)?;
    let indices = index_array(&a.req(Some(1), "start_indices", "gather")?)?;
    let dn = GatherDims::of(&a.req(Some(2), "dimension_numbers", "gather")?)?;
    let sizes = super::lax_structural::ints(&a.req(Some(3), "slice_sizes", "gather")?)?;
    let mode = mode(interp, &a, Mode::PromiseInBounds)?;
    let fill = match a.opt(None, "fill_value") {
        Some(v) => jops::convert(&to_value(&v)?, x.dtype())?,
        None => default_fill(x.dtype())?,
    };
    Ok(Obj::Array(gather_with(
        &x, &indices, &dn, sizes, mode, &fill,
    )?))
}

/// The gather itself: one take of the flattened operand at the window
/// positions, the fill where a window leaves the operand, and the window
/// dimensions moved to `offset_dims`.
fn gather_with(
    x: &Value,
    indices: &Value,
    dn: &GatherDims,
    sizes: Vec<usize>,
    mode: Mode,
    fill: &Value,
) -> Result<Value> {
    let shape = x.shape();
    let nb = indices.ndim() - 1;
    let dims = dn.window_dims(&shape, nb, indices.shape()[nb], &sizes)?;
    let layout = Layout {
        operand: shape.clone(),
        start_map: dn.start_map.clone(),
        batching: dn
            .operand_batching
            .iter()
            .copied()
            .zip(dn.indices_batching.iter().copied())
            .collect(),
        window: sizes,
    };
    let (pos, inside) = layout.positions(indices, &dims, mode)?;
    let flat = jops::reshape(x, &[shape.iter().product()])?;
    let mut out = jops::take(&flat, &pos, 0)?;
    if let Some(ok) = inside {
        let fill = jops::broadcast_to(fill, &out.shape())?;
        out = jops::select(&ok, &out, &fill)?;
    }
    // Batch dimensions fill the output positions the window does not take.
    let mut batch_src = 0..nb;
    let perm: Vec<usize> = (0..nb + dims.len())
        .map(|p| match dn.offset_dims.iter().position(|&o| o == p) {
            Some(w) => nb + w,
            None => batch_src.next().unwrap_or(0),
        })
        .collect();
    jops::transpose(&out, &perm)
}

/// `lax.index_take(src, idxs, axes)`: the elements at one index array per
/// axis (taken modulo the axis' size), whole along the other axes.
fn index_take(a: &Args) -> Result<Obj> {
    let src = to_value(&a.req(Some(0), "src", "index_take")?)?;
    let idxs = iterate(&a.req(Some(1), "idxs", "index_take")?)?;
    let axes = super::lax_structural::ints(&a.req(Some(2), "axes", "index_take")?)?;
    let shape = src.shape();
    if idxs.len() != axes.len() || axes.iter().any(|&d| d >= shape.len()) {
        bail!(
            TypeError,
            "index_take needs one index array per axis of the operand, got {} for axes {}",
            idxs.len(),
            shape_tuple(&axes)
        );
    }
    let mut columns = vec![];
    for (i, &ax) in idxs.iter().zip(&axes) {
        let i = jops::convert(&to_value(i)?, DType::I32)?;
        let i = jops::binary(BinaryOp::Rem, &i, &i32c(shape[ax] as i64))?;
        columns.push(jops::expand_dims(&i, 1)?);
    }
    let indices = jops::concatenate(&columns, 1)?;
    let mut sizes = shape.clone();
    for &ax in &axes {
        sizes[ax] = 1;
    }
    let dn = GatherDims {
        offset_dims: (1..shape.len() - axes.len() + 1).collect(),
        collapsed: axes.clone(),
        start_map: axes,
        operand_batching: vec![],
        indices_batching: vec![],
    };
    let fill = default_fill(src.dtype())?;
    let out = gather_with(&src, &indices, &dn, sizes, Mode::PromiseInBounds, &fill)?;
    Ok(Obj::Array(out))
}

/// How a scatter combines an update with the operand.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Add,
    Sub,
    Mul,
    Min,
    Max,
    Set,
}

/// The scatters: the updates are moved to (scatter dimensions, window
/// dimensions) order and flattened with their operand positions.
fn scatter(interp: &mut Interp, a: &Args, name: &str, kind: Kind) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "operand", name)?)?;
    let indices = index_array(&a.req(Some(1), "scatter_indices", name)?)?;
    let updates = to_value(&a.req(Some(2), "updates", name)?)?;
    let dn = a.req(Some(3), "dimension_numbers", name)?;
    let mode = mode(interp, a, Mode::FillOrDrop)?;
    if updates.dtype() != x.dtype() {
        bail!(
            TypeError,
            "{name} requires operand and updates of one dtype, got {} and {}",
            x.dtype().name(),
            updates.dtype().name()
        );
    }
    let (layout, dims, order) = scatter_layout(&x, &indices, &updates, &dn, name)?;
    // Promise-in-bounds scatters drop as fill-or-drop does, as XLA does.
    let m = if mode == Mode::PromiseInBounds {
        Mode::FillOrDrop
    } else {
        mode
    };
    let (pos, inside) = layout.positions(&indices, &dims, m)?;
    let u = jops::transpose(&updates, &order)?;
    let k = u.shape().iter().product::<usize>();
    let pos = jops::reshape(&pos, &[k])?;
    let u = jops::reshape(&u, &[k])?;
    let inside = inside.map(|ok| jops::reshape(&ok, &[k])).transpose()?;
    let out = combine(&x, &pos, &u, inside.as_ref(), kind, name)?;
    Ok(Obj::Array(out))
}

/// The layout of a scatter, the operand dimensions its windows span, and
/// the order that puts the updates' scatter dimensions before their window
/// dimensions; the dimension numbers checked against the shapes.
fn scatter_layout(
    x: &Value,
    indices: &Value,
    updates: &Value,
    dn: &Obj,
    name: &str,
) -> Result<(Layout, Vec<usize>, Vec<usize>)> {
    let c = "ScatterDimensionNumbers";
    let window_dims = field(dn, c, "update_window_dims")?;
    let inserted = field(dn, c, "inserted_window_dims")?;
    let start_map = field(dn, c, "scatter_dims_to_operand_dims")?;
    let ob = field(dn, c, "operand_batching_dims")?;
    let ib = field(dn, c, "scatter_indices_batching_dims")?;
    let shape = x.shape();
    let nb = indices.ndim() - 1;
    let mut removed = inserted;
    removed.extend(&ob);
    check_dims(
        "inserted_window_dims and operand_batching_dims",
        &removed,
        shape.len(),
    )?;
    check_dims("scatter_dims_to_operand_dims", &start_map, shape.len())?;
    check_dims("update_window_dims", &window_dims, updates.ndim())?;
    check_dims("scatter_indices_batching_dims", &ib, nb)?;
    let dims: Vec<usize> = (0..shape.len()).filter(|d| !removed.contains(d)).collect();
    let ushape = updates.shape();
    let mut order: Vec<usize> = (0..ushape.len())
        .filter(|d| !window_dims.contains(d))
        .collect();
    let batch = &indices.shape()[..nb];
    let consistent = start_map.len() == indices.shape()[nb]
        && ob.len() == ib.len()
        && window_dims.len() == dims.len()
        && order.iter().map(|&d| ushape[d]).eq(batch.iter().copied());
    if !consistent {
        bail!(
            TypeError,
            "{name}: updates of shape {} do not match indices of shape {} and operand of shape {} under these dimension numbers",
            shape_tuple(&ushape),
            shape_tuple(&indices.shape()),
            shape_tuple(&shape)
        );
    }
    let mut window = vec![1; shape.len()];
    for (&d, &u) in dims.iter().zip(&window_dims) {
        window[d] = ushape[u];
        if window[d] > shape[d] {
            bail!(
                TypeError,
                "{name}: an update window of size {} is larger than operand dimension {d} of size {}",
                window[d],
                shape[d]
            );
        }
    }
    order.extend(&window_dims);
    let layout = Layout {
        operand: shape,
        start_map,
        batching: ob.into_iter().zip(ib).collect(),
        window,
    };
    Ok((layout, dims, order))
}

/// The operand with the flat updates `u` at flat positions `pos` combined
/// in (those not `inside` dropped).
fn combine(
    x: &Value,
    pos: &Value,
    u: &Value,
    inside: Option<&Value>,
    kind: Kind,
    name: &str,
) -> Result<Value> {
    let shape = x.shape();
    let n: usize = shape.iter().product();
    let k = u.shape()[0];
    let flat = jops::reshape(x, &[n])?;
    if matches!(kind, Kind::Add | Kind::Sub) {
        return jops::reshape(&combine_additive(&flat, pos, u, inside, kind)?, &shape);
    }
    if k == 0 {
        return Ok(x.clone());
    }
    if n.saturating_mul(k) > DENSE_LIMIT {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.lax.{name} of {k} updates into {n} elements"
        );
    }
    // hit[i, j]: update j lands on operand element i.
    let targets = Value::Concrete(crate::array::Array::iota(&[n, k], 0, DType::I32)?);
    let at = jops::broadcast_in_dim(pos, &[n, k], &[1])?;
    let mut hit = jops::binary(BinaryOp::Eq, &targets, &at)?;
    if let Some(ok) = inside {
        hit = jops::binary(
            BinaryOp::And,
            &hit,
            &jops::broadcast_in_dim(ok, &[n, k], &[1])?,
        )?;
    }
    let out = match kind {
        Kind::Set => combine_last(&flat, u, &hit)?,
        Kind::Mul => {
            let spread = jops::broadcast_in_dim(u, &[n, k], &[1])?;
            let one = jops::broadcast_to(&jops::scalar(1.0, x.dtype()), &[n, k])?;
            let factors = jops::select(&hit, &spread, &one)?;
            jops::mul(
                &flat,
                &jops::reduce(ReduceOp::Prod, &factors, Some(&[1i64][..]), false)?,
            )?
        }
        // Add and Sub returned above.
        Kind::Min | Kind::Max | Kind::Add | Kind::Sub => combine_extremum(&flat, u, &hit, kind)?,
    };
    jops::reshape(&out, &shape)
}

/// Addition and subtraction accumulate every update, repeated positions
/// included, so one scatter-add of the (negated) updates serves both.
fn combine_additive(
    flat: &Value,
    pos: &Value,
    u: &Value,
    inside: Option<&Value>,
    kind: Kind,
) -> Result<Value> {
    let u = match inside {
        Some(ok) => jops::select(ok, u, &jops::zeros_like(u))?,
        None => u.clone(),
    };
    let u = if kind == Kind::Sub { jops::neg(&u)? } else { u };
    let delta = bind1(
        Prim::ScatterAdd {
            axis: 0,
            shape: flat.shape(),
        },
        &[pos.clone(), u],
    )?;
    jops::add(flat, &delta)
}

/// Set: of the updates that land on an element (`hit[i, j]`), the last one
/// wins; elements no update reaches keep their value.
fn combine_last(flat: &Value, u: &Value, hit: &Value) -> Result<Value> {
    let (n, k) = (flat.shape()[0], u.shape()[0]);
    let any = jops::reduce(ReduceOp::Any, hit, Some(&[1i64][..]), false)?;
    let order = Value::Concrete(crate::array::Array::iota(&[n, k], 1, DType::I32)?);
    let ranked = jops::select(
        hit,
        &jops::add(&order, &i32c(1))?,
        &jops::zeros_like(&order),
    )?;
    let last = jops::sub(
        &jops::reduce(ReduceOp::Max, &ranked, Some(&[1i64][..]), false)?,
        &i32c(1),
    )?;
    let last = jops::clamp(&i32c(0), &last, &i32c(k as i64 - 1))?;
    jops::select(&any, &jops::take(u, &last, 0)?, flat)
}

/// Min or max: each element against the best of the updates that land on
/// it.
fn combine_extremum(flat: &Value, u: &Value, hit: &Value, kind: Kind) -> Result<Value> {
    let (n, k) = (flat.shape()[0], u.shape()[0]);
    let (op, bop) = if kind == Kind::Min {
        (ReduceOp::Min, BinaryOp::Min)
    } else {
        (ReduceOp::Max, BinaryOp::Max)
    };
    let spread = jops::broadcast_in_dim(u, &[n, k], &[1])?;
    let base = jops::broadcast_in_dim(flat, &[n, k], &[0])?;
    let cand = jops::select(hit, &spread, &base)?;
    let best = jops::reduce(op, &cand, Some(&[1i64][..]), false)?;
    jops::binary(bop, flat, &best)
}
