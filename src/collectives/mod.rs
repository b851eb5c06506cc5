//! JAX's named-axis collectives, written once over a [`Fabric`].
//!
//! Each function runs on one device (the `position` of a [`DeviceCtx`]) and
//! combines its array with those of the devices in its *group*: the devices
//! that differ from it only along the named `axes`, ranked by their index
//! along `axes` in the order given (so `('y', 'x')` ranks minor-first, as in
//! JAX). Every device of the fabric must make the same calls in the same
//! order, as in any SPMD program.
//!
//! Arguments are checked before the fabric is touched, from values that are
//! the same on every device, so a bad call fails alike everywhere instead of
//! leaving some devices waiting. [`lockstep`] computes the same collectives
//! for all devices in one thread, with the same bits.
//!
//! Empty `axes` name a group of one: as in JAX every collective then returns
//! its operand unchanged, except `pmean`, which still divides (by 1).
//!
//! # Barriers
//!
//! Over a fabric that lends (natively; see "Lending" in [`crate::fabric`]),
//! members read each other's operands where they lie, and the collectives
//! whose result is the same on every member build it once and share it:
//! - `psum`, `pmax`, `pmin`, `pmean`, `all_gather`: 1 barrier up to
//!   [`SMALL_ALLREDUCE_WORDS`] words of result, otherwise 2 (one to lend the
//!   operands and the unwritten result, one after each member has written its
//!   part);
//! - `psum_scatter`, `all_to_all`, `ppermute`: 1 (`ppermute`'s result shares
//!   the sender's buffer: nothing is copied).
//!
//! Through slots (the browser's fabric), consecutive collectives need no
//! barrier between them (the slot halves alternate, see [`crate::fabric`]).
//! With `K` the number of pieces an operand is cut into to fit half a slot
//! (1 when it fits):
//! - `psum`, `pmax`, `pmin`, `pmean`: 1 barrier up to
//!   [`SMALL_ALLREDUCE_WORDS`] words, `K` over groups of two (each member
//!   reads the other's whole operand), otherwise `K + 1` (reduce-scatter and
//!   all-gather overlap, one piece apart);
//! - `all_gather`, `ppermute`, `psum_scatter`, `all_to_all`: `K`.
//!
//! `axis_index`, groups of one and empty arrays take none.

mod exchange;
mod layout;
mod lent;
pub mod lockstep;
pub mod reduce;
mod shared;

pub use exchange::SMALL_ALLREDUCE_WORDS;
pub use reduce::ReduceOp;

use std::sync::Arc;

use crate::array::{Array, Buffer, DType};
use crate::bail;
use crate::error::Result;
use crate::fabric::phases::{timed, Phase};
use crate::fabric::{ElemsMut, Fabric, Lending};
use crate::mesh::{fmt_names, Mesh};
use crate::primitives::collectives::IndexGroups;

use exchange::{all_reduce, Exchange, Words};
use layout::{
    all_to_all_plan, check_groups, gather_plan, gather_runs, group_of, in_mesh_order, perm_sources,
    place, scatter_plan, split_pieces,
};

/// One device's view of a run: the fabric it exchanges through, the mesh
/// naming the axes, and its position in the mesh (which is also its device
/// number on the fabric).
#[derive(Clone, Copy)]
pub struct DeviceCtx<'a> {
    /// The fabric shared by all devices of the mesh.
    pub fabric: &'a dyn Fabric,
    /// The mesh the axis names refer to.
    pub mesh: &'a Mesh,
    /// This device's row-major position in the mesh.
    pub position: usize,
}

impl DeviceCtx<'_> {
    /// Checks that the fabric has a device for every mesh position and that
    /// the position exists.
    fn check(&self) -> Result<()> {
        if self.fabric.devices() != self.mesh.size() {
            bail!(
                RuntimeError,
                "the fabric has {} devices but the mesh of shape {:?} has {}",
                self.fabric.devices(),
                self.mesh.shape(),
                self.mesh.size()
            );
        }
        if self.position >= self.mesh.size() {
            bail!(
                RuntimeError,
                "device position {} is outside the mesh of {} devices",
                self.position,
                self.mesh.size()
            );
        }
        Ok(())
    }

    /// This device's group over `axes` (positions in rank order) and its rank.
    fn group(&self, axes: &[String]) -> Result<(Vec<usize>, usize)> {
        self.check()?;
        group_of(self.mesh, self.position, axes, None)
    }

    /// This device's group over `axes` split by JAX's `axis_index_groups`,
    /// checked first as the collective `name` requires.
    fn group_in(
        &self,
        axes: &[String],
        groups: Option<&IndexGroups>,
        name: &str,
    ) -> Result<(Vec<usize>, usize)> {
        self.check()?;
        check_groups(self.mesh, axes, groups, name)?;
        group_of(self.mesh, self.position, axes, groups)
    }
}

/// How a collective is named in errors and at the barrier: `psum over
/// ('x',) of f32[2,3]`. The operand's type is part of it so that devices
/// calling a collective with different shapes (a bug in the program that
/// drives them, as SPMD programs give every device the same shapes) are told
/// so by the barrier instead of exchanging mismatched data.
fn describe(name: &str, axes: &[String], x: &Array) -> String {
    let dims: Vec<String> = x.shape().iter().map(|d| d.to_string()).collect();
    format!(
        "{name} over {} of {}[{}]",
        fmt_names(axes),
        x.dtype().short_name(),
        dims.join(",")
    )
}

/// The number of devices in each group over `axes`: `jax.lax.psum(1, axes)`.
/// Fails with a NameError on an axis the mesh does not have.
pub fn axis_size(mesh: &Mesh, axes: &[String]) -> Result<usize> {
    mesh.group(0, axes).map(|g| g.len())
}

/// Every group of a collective over `axes` (split by JAX's
/// `axis_index_groups` when given), each as mesh positions in rank order.
pub fn groups(
    mesh: &Mesh,
    axes: &[String],
    index_groups: Option<&IndexGroups>,
) -> Result<Vec<Vec<usize>>> {
    layout::all_groups(mesh, axes, index_groups)
}

/// `jax.lax.axis_index(axes)` on the device at `position`: its rank along
/// `axes` (major to minor in the order given), as an int32 scalar.
pub fn axis_index(mesh: &Mesh, position: usize, axes: &[String]) -> Result<Array> {
    if position >= mesh.size() {
        bail!(
            RuntimeError,
            "device position {position} is outside the mesh of {} devices",
            mesh.size()
        );
    }
    axis_size(mesh, axes)?;
    Ok(Array::scalar_i32(mesh.index_along(position, axes)? as i32))
}

fn lent_call<'a>(
    ctx: &'a DeviceCtx<'a>,
    lending: &'a dyn Lending,
    what: &'a str,
    members: &'a [usize],
    rank: usize,
) -> lent::LentCall<'a> {
    lent::LentCall {
        ctx,
        lending,
        what,
        members,
        rank,
    }
}

/// `jax.lax.psum`: the sum of `x` over the group, on every member. Booleans
/// are counted into int32, as in JAX.
pub fn psum(ctx: &DeviceCtx, x: &Array, axes: &[String]) -> Result<Array> {
    preduce(ctx, x, axes, None, ReduceOp::Sum)
}

/// `jax.lax.pmax`: the element-wise maximum over the group.
pub fn pmax(ctx: &DeviceCtx, x: &Array, axes: &[String]) -> Result<Array> {
    preduce(ctx, x, axes, None, ReduceOp::Max)
}

/// `jax.lax.pmin`: the element-wise minimum over the group.
pub fn pmin(ctx: &DeviceCtx, x: &Array, axes: &[String]) -> Result<Array> {
    preduce(ctx, x, axes, None, ReduceOp::Min)
}

/// An all-reduce with `op` over the group: [`psum`], [`pmax`] or [`pmin`],
/// within JAX's `axis_index_groups` when given (which may differ in size).
pub fn preduce(
    ctx: &DeviceCtx,
    x: &Array,
    axes: &[String],
    groups: Option<&IndexGroups>,
    op: ReduceOp,
) -> Result<Array> {
    let (members, rank) = ctx.group_in(axes, groups, op.name())?;
    if axes.is_empty() {
        return Ok(x.clone());
    }
    let what = describe(op.name(), axes, x);
    if let Some(lending) = ctx.fabric.lending() {
        return lent::all_reduce(&lent_call(ctx, lending, &what, &members, rank), x, op, None);
    }
    if groups.is_some_and(|g| !g.equal_sizes()) {
        return uneven_reduce(ctx, &what, x, &members, op);
    }
    let dtype = x.dtype();
    timed(Phase::Call, || {
        typed_result(x.shape(), op.result_dtype(dtype), |out| {
            all_reduce(ctx, &what, op, dtype, &members, rank, Words::Array(x), out)
        })
    })
}

/// An array of `shape` and `dtype` whose elements `fill` sets, all of them,
/// through typed elements, so that the fabric can copy straight into the
/// result's own buffer (booleans go through words).
fn typed_result(
    shape: &[usize],
    dtype: DType,
    fill: impl FnOnce(&mut ElemsMut) -> Result<()>,
) -> Result<Array> {
    let n: usize = shape.iter().product();
    match dtype {
        DType::F32 => {
            let mut out: Arc<[f32]> = timed(Phase::Alloc, || std::iter::repeat_n(0.0, n).collect());
            fill(&mut ElemsMut::F32(
                Arc::get_mut(&mut out).expect("a new Arc is unique"),
            ))?;
            Array::from_buffer(shape, Buffer::F32(out))
        }
        DType::I32 => {
            let mut out: Arc<[i32]> = timed(Phase::Alloc, || std::iter::repeat_n(0, n).collect());
            fill(&mut ElemsMut::I32(
                Arc::get_mut(&mut out).expect("a new Arc is unique"),
            ))?;
            Array::from_buffer(shape, Buffer::I32(out))
        }
        DType::U32 => {
            let mut out: Arc<[u32]> = timed(Phase::Alloc, || std::iter::repeat_n(0, n).collect());
            fill(&mut ElemsMut::U32(
                Arc::get_mut(&mut out).expect("a new Arc is unique"),
            ))?;
            Array::from_buffer(shape, Buffer::U32(out))
        }
        DType::Bool => {
            let mut words = vec![0u32; n];
            fill(&mut ElemsMut::U32(&mut words))?;
            Array::from_words(shape, dtype, &words)
        }
        DType::C64 => {
            unreachable!("complex64 values never reach the fabric: the primitives refuse them")
        }
        narrow => unreachable!(
            "{} values never reach the fabric: the collectives refuse them",
            narrow.name()
        ),
    }
}

/// Reduces `x` over `members` through one exchange in which every device
/// of the fabric sends its whole operand: the same number of barriers for
/// every device, whatever the size of its group, where the pipelined
/// all-reduce's count depends on it. For groups of unequal sizes.
fn uneven_reduce(
    ctx: &DeviceCtx,
    what: &str,
    x: &Array,
    members: &[usize],
    op: ReduceOp,
) -> Result<Array> {
    let dtype = x.dtype();
    let mut acc = vec![0u32; x.size()];
    Exchange {
        what,
        group_size: 2,
        chunks: 1,
        chunk_words: x.size(),
    }
    .run(ctx, Some(Words::Array(x)), members, 0, |r, start, data| {
        let acc = &mut acc[start..start + data.len()];
        if r == 0 {
            acc.copy_from_slice(data);
        } else {
            reduce::fold(op, dtype, acc, data);
        }
    })?;
    Array::from_words(x.shape(), op.result_dtype(dtype), &acc)
}

/// `jax.lax.pmean`: [`psum`] divided by the group size. The result is
/// float32 whatever the operand's dtype, as `psum(x) / n` is in JAX. With
/// `axis_index_groups` the divisor is the first group's size, as in JAX.
pub fn pmean(
    ctx: &DeviceCtx,
    x: &Array,
    axes: &[String],
    groups: Option<&IndexGroups>,
) -> Result<Array> {
    let (members, rank) = ctx.group_in(axes, groups, "pmean")?;
    let divisor = groups.map_or(members.len(), IndexGroups::size);
    let what = describe("pmean", axes, x);
    if let (Some(lending), false) = (ctx.fabric.lending(), axes.is_empty()) {
        let call = lent_call(ctx, lending, &what, &members, rank);
        return lent::all_reduce(&call, x, ReduceOp::Sum, Some(divisor));
    }
    let sum = if axes.is_empty() {
        x.to_words()
    } else if groups.is_some_and(|g| !g.equal_sizes()) {
        uneven_reduce(ctx, &what, x, &members, ReduceOp::Sum)?.to_words()
    } else {
        let mut sum = vec![0u32; x.size()];
        all_reduce(
            ctx,
            &what,
            ReduceOp::Sum,
            x.dtype(),
            &members,
            rank,
            Words::Array(x),
            &mut ElemsMut::U32(&mut sum),
        )?;
        sum
    };
    let mean = reduce::mean_words(&sum, x.dtype(), divisor);
    Array::from_words(x.shape(), DType::F32, &mean)
}

/// `jax.lax.all_gather`: every member's `x`, in rank order, stacked along a
/// new axis at `axis` (`tiled = false`) or concatenated along `axis`
/// (`tiled = true`).
pub fn all_gather(
    ctx: &DeviceCtx,
    x: &Array,
    axes: &[String],
    groups: Option<&IndexGroups>,
    axis: usize,
    tiled: bool,
) -> Result<Array> {
    let (members, rank) = ctx.group_in(axes, groups, "all_gather")?;
    let p = members.len();
    if axes.is_empty() {
        return Ok(x.clone());
    }
    let plan = gather_plan(x.shape(), p, axis, tiled)?;
    let what = describe("all_gather", axes, x);
    if let Some(lending) = ctx.fabric.lending() {
        return lent::all_gather(&lent_call(ctx, lending, &what, &members, rank), x, &plan);
    }
    let exchange = Exchange {
        what: &what,
        group_size: p,
        chunks: 1,
        chunk_words: x.size(),
    };
    let own = Words::Array(x);
    let mut buf = vec![];
    timed(Phase::Call, || {
        typed_result(&plan.out_shape, x.dtype(), |out| {
            exchange.run_with(ctx, Some(own), None, &members, 0, |r, start, len, lies| {
                let place_run = |done: usize, dst: usize, run: usize, out: &mut ElemsMut| match lies
                {
                    Some(at) if r != rank => {
                        let from = at.offset + done;
                        ctx.fabric
                            .read_elems(at.from, from, out.range(dst, dst + run));
                    }
                    _ => own.place_into(start + done, run, out, dst),
                };
                if plan.inner >= DIRECT_RUN_WORDS || lies.is_none() || r == rank {
                    gather_runs(&plan, p, r, start, len, |done, dst, run| {
                        place_run(done, dst, run, out)
                    });
                } else if let Some(at) = lies {
                    // Short runs: one read of the whole piece, placed from here.
                    buf.resize(len.max(buf.len()), 0);
                    ctx.fabric.read(at.from, at.offset, &mut buf[..len]);
                    gather_runs(&plan, p, r, start, len, |done, dst, run| {
                        out.set_words(dst, &buf[done..done + run])
                    });
                }
            })
        })
    })
}

/// Runs of at least this many words are read from the fabric straight into
/// a gathered result; shorter ones are read with their piece and placed, as
/// each read has a fixed cost (a call out to JavaScript in the browser).
const DIRECT_RUN_WORDS: usize = 256;

/// `jax.lax.psum_scatter`: the group's sum of `x`, of which the member of
/// rank `r` keeps the `r`-th part along `scatter_dimension`. Untiled, that
/// dimension must equal the group size and is removed; tiled, it must be a
/// multiple of it and shrinks by that factor.
pub fn psum_scatter(
    ctx: &DeviceCtx,
    x: &Array,
    axes: &[String],
    groups: Option<&IndexGroups>,
    scatter_dimension: usize,
    tiled: bool,
) -> Result<Array> {
    let (members, rank) = ctx.group_in(axes, groups, "psum_scatter")?;
    let p = members.len();
    if axes.is_empty() {
        return Ok(x.clone());
    }
    let (split, out_shape) = scatter_plan(x.shape(), p, scatter_dimension, tiled)?;
    let what = describe("psum_scatter", axes, x);
    if let Some(lending) = ctx.fabric.lending() {
        let call = lent_call(ctx, lending, &what, &members, rank);
        return lent::psum_scatter(&call, x, &split, &out_shape);
    }
    timed(Phase::Call, || {
        psum_scatter_slots(ctx, x, &what, (&members, rank), &split, &out_shape)
    })
}

/// [`psum_scatter`] through the fabric's slots.
fn psum_scatter_slots(
    ctx: &DeviceCtx,
    x: &Array,
    what: &str,
    (members, rank): (&[usize], usize),
    split: &layout::SplitPlan,
    out_shape: &[usize],
) -> Result<Array> {
    let p = members.len();
    let dtype = x.dtype();
    let c = split.piece_words();
    // Split along the leading axes, the pieces already lie one after another
    // in the operand, which is sent as it is.
    let split_words;
    let send = if split.outer == 1 {
        Words::Array(x)
    } else {
        split_words = split_pieces(&x.to_words(), split, p);
        Words::Slice(&split_words)
    };
    let mut acc = timed(Phase::Alloc, || vec![0u32; c]);
    let mut buf = vec![];
    Exchange {
        what,
        group_size: p,
        chunks: p,
        chunk_words: c,
    }
    .run_with(
        ctx,
        Some(send),
        Some(rank),
        members,
        rank,
        |r, start, len, lies| {
            // Folded in rank order; this member's own piece from its operand.
            let acc = &mut acc[start..start + len];
            let own = rank * c + start;
            match lies.filter(|_| r != rank) {
                None if r == 0 => timed(Phase::Local, || send.copy_to(own, acc)),
                None => timed(Phase::Fold, || {
                    send.fold_into(ReduceOp::Sum, dtype, acc, own)
                }),
                Some(at) if r == 0 => ctx.fabric.read(at.from, at.offset, acc),
                Some(at) => {
                    buf.resize(len.max(buf.len()), 0);
                    ctx.fabric.read(at.from, at.offset, &mut buf[..len]);
                    timed(Phase::Fold, || {
                        reduce::fold(ReduceOp::Sum, dtype, acc, &buf[..len])
                    });
                }
            }
        },
    )?;
    timed(Phase::Local, || {
        Array::from_words(out_shape, ReduceOp::Sum.result_dtype(dtype), &acc)
    })
}

/// `jax.lax.ppermute`: sends `x` from the member of rank `source` to the
/// member of rank `destination` for each pair of `perm`, within every group.
/// Members that receive nothing get zeros. Sources and destinations must be
/// unique ranks of the group.
///
/// As in JAX, ranks here count along the named axes in the mesh's order,
/// whatever order `axes` lists them in: over `('y', 'x')` of a mesh
/// `('x', 'y')`, rank 1 is the device at `x = 0, y = 1`, although its
/// `axis_index(('y', 'x'))` is 2.
pub fn ppermute(
    ctx: &DeviceCtx,
    x: &Array,
    axes: &[String],
    perm: &[(usize, usize)],
) -> Result<Array> {
    ctx.group(axes)?;
    let (members, rank) = ctx.group(&in_mesh_order(ctx.mesh, axes))?;
    let p = members.len();
    let source_of = perm_sources(perm, p)?;
    let sends = perm.iter().any(|&(src, _)| src == rank);
    let sources: Vec<usize> = source_of[rank].map(|s| members[s]).into_iter().collect();
    let what = describe("ppermute", axes, x);
    if let (Some(lending), true) = (ctx.fabric.lending(), p > 1) {
        let call = lent_call(ctx, lending, &what, &members, rank);
        return lent::ppermute(&call, x, sources.first().copied());
    }
    let mut out = vec![0u32; x.size()];
    Exchange {
        what: &what,
        group_size: p,
        chunks: 1,
        chunk_words: x.size(),
    }
    .run(
        ctx,
        sends.then_some(Words::Array(x)),
        &sources,
        0,
        |_, start, data| out[start..start + data.len()].copy_from_slice(data),
    )?;
    Array::from_words(x.shape(), x.dtype(), &out)
}

/// `jax.lax.all_to_all`: cuts `x` into as many parts along `split_axis` as
/// the group has members, sends part `r` to the member of rank `r`, and
/// concatenates the parts received along `concat_axis` in rank order.
/// Untiled, `split_axis` must equal the group size; it disappears and the
/// received parts are stacked along a new `concat_axis`.
pub fn all_to_all(
    ctx: &DeviceCtx,
    x: &Array,
    axes: &[String],
    groups: Option<&IndexGroups>,
    split_axis: usize,
    concat_axis: usize,
    tiled: bool,
) -> Result<Array> {
    if let Some(g) = groups {
        ctx.check()?;
        if g.all_to_all_is_identity(axis_size(ctx.mesh, axes)?)? {
            return Ok(x.clone());
        }
    }
    let (members, rank) = ctx.group_in(axes, groups, "all_to_all")?;
    let p = members.len();
    if axes.is_empty() {
        return Ok(x.clone());
    }
    let plan = all_to_all_plan(x.shape(), p, split_axis, concat_axis, tiled)?;
    let what = describe("all_to_all", axes, x);
    if let Some(lending) = ctx.fabric.lending() {
        return lent::all_to_all(&lent_call(ctx, lending, &what, &members, rank), x, &plan);
    }
    let pieces = split_pieces(&x.to_words(), &plan.split, p);
    let c = plan.split.piece_words();
    let mut out = vec![0u32; c * p];
    Exchange {
        what: &what,
        group_size: p,
        chunks: p,
        chunk_words: c,
    }
    .run(
        ctx,
        Some(Words::Slice(&pieces)),
        &members,
        rank,
        |r, start, data| place(&mut out, &plan.gather, p, r, start, data),
    )?;
    Array::from_words(&plan.gather.out_shape, x.dtype(), &out)
}
