//! How an evaluator's lanes communicate: the one seam between "many devices in
//! one thread" and "one device per thread".
//!
//! An evaluator runs a jaxpr for some number of *lanes* at once (one lane per
//! device or per vmapped index), equation by equation. A [`Comm`] performs a
//! collective for all of its lanes together:
//! - [`Solo`]: one lane and no axes (top level; collectives are unbound);
//! - [`Lockstep`]: every device of a mesh as lanes of one thread;
//! - [`OnFabric`]: one device of a mesh, on its own thread, over the fabric;
//! - [`Nested`]: a vmap inside any of these, its lanes being (outer lane,
//!   index) pairs; collectives over the vmapped axis run in lockstep, and
//!   collectives over the outer axes go to the outer comm index by index.

use crate::array::Array;
use crate::bail;
use crate::collectives::{self as coll, lockstep, DeviceCtx, ReduceOp};
use crate::error::Result;
use crate::mesh::Mesh;
use crate::primitives::callback::HostCallbackParams;
use crate::primitives::collectives::group_size;
use crate::primitives::debug::Printed;
use crate::primitives::{AxisEnv, CollectiveKind};

/// Collectives for a set of lanes.
pub trait Comm: Sync {
    /// Number of lanes evaluated together.
    fn lanes(&self) -> usize;
    /// Runs `kind` with one operand per lane (ignored for axis_index); returns
    /// one result per lane.
    fn collective(&self, kind: &CollectiveKind, xs: Vec<Array>) -> Result<Vec<Array>>;
    /// True at top level, where a shard_map or pmap may start devices.
    fn is_top(&self) -> bool {
        false
    }
    /// True inside a compiled (jitted) program, where float32 products fuse
    /// into the adds that read them as XLA compiles them (see
    /// `super::fusion`); JAX runs eager operations, vmapped ones included,
    /// one at a time, unfused.
    fn fuses(&self) -> bool {
        false
    }
    /// The mesh positions of the lanes, when the lanes are devices (not
    /// vmapped indices): what a report attributes collectives to.
    fn device_positions(&self) -> Option<Vec<usize>> {
        None
    }
    /// Why the run these lanes belong to was stopped, if it was; polled
    /// between equations.
    fn stopped(&self) -> Option<String> {
        super::stop_requested()
    }
    /// When the lanes run in the thread of the Python program (not on a
    /// shard_map's or pmap's devices), the sizes of the vmaps they are,
    /// outermost first (empty for one lane): where a host callback can run.
    fn host_vmaps(&self) -> Option<Vec<usize>> {
        None
    }
    /// Runs a host callback for every lane (`ins[i][l]` in, `[output][lane]`
    /// out); see [`super::callback`].
    fn host_call(
        &self,
        params: &HostCallbackParams,
        ins: Vec<Vec<Array>>,
    ) -> Result<Vec<Vec<Array>>> {
        let _ = ins;
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.{} inside a shard_map or pmap body",
            params.name()
        )
    }
    /// Prints a `jax.debug.print` line for every lane. Only a program run
    /// for a caller that collects its output can print; elsewhere the
    /// print is refused.
    fn debug_print(&self, printed: Vec<Printed>) -> Result<()> {
        let _ = printed;
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.debug.print of traced values inside a shard_map or pmap body"
        )
    }
}

/// The top level: one lane, no named axes.
pub struct Solo;

impl Comm for Solo {
    fn lanes(&self) -> usize {
        1
    }

    fn collective(&self, kind: &CollectiveKind, _xs: Vec<Array>) -> Result<Vec<Array>> {
        group_size(kind.axes(), &AxisEnv::default())?;
        bail!(NameError, "unbound axis name: {}", kind.axes().join(", "))
    }

    fn is_top(&self) -> bool {
        true
    }

    fn host_vmaps(&self) -> Option<Vec<usize>> {
        Some(vec![])
    }

    fn host_call(
        &self,
        params: &HostCallbackParams,
        ins: Vec<Vec<Array>>,
    ) -> Result<Vec<Vec<Array>>> {
        super::callback::top_call(params, ins)
    }
}

/// The top level of a program run for a caller that collects what it
/// prints (a jitted function called from Python): one lane like [`Solo`],
/// whose `jax.debug.print` calls go to `prints`, in order.
pub struct Printing<'a> {
    /// The prints so far.
    pub prints: &'a std::sync::Mutex<Vec<Printed>>,
    /// Whether the program is compiled (a jitted function, or a control
    /// flow primitive, which JAX compiles whole even when called eagerly)
    /// rather than run op by op (an eager `vmap`'s batched operations).
    pub compiled: bool,
}

impl Comm for Printing<'_> {
    fn lanes(&self) -> usize {
        1
    }

    fn collective(&self, kind: &CollectiveKind, xs: Vec<Array>) -> Result<Vec<Array>> {
        Solo.collective(kind, xs)
    }

    fn fuses(&self) -> bool {
        self.compiled
    }

    fn is_top(&self) -> bool {
        true
    }

    fn host_vmaps(&self) -> Option<Vec<usize>> {
        Some(vec![])
    }

    /// The lines printed so far come out first, so that they keep their
    /// order with what the callback prints.
    fn host_call(
        &self,
        params: &HostCallbackParams,
        ins: Vec<Vec<Array>>,
    ) -> Result<Vec<Vec<Array>>> {
        if let Ok(mut p) = self.prints.lock() {
            super::run::eager_prints(std::mem::take(&mut *p));
        }
        super::callback::top_call(params, ins)
    }

    fn debug_print(&self, printed: Vec<Printed>) -> Result<()> {
        match self.prints.lock() {
            Ok(mut p) => {
                p.extend(printed);
                Ok(())
            }
            Err(_) => bail!(RuntimeError, "debug_print: the output was lost"),
        }
    }
}

/// `axes` sorted into the mesh's major-to-minor order. JAX 0.10 ranks the
/// devices of a ppermute over a tuple of axes in mesh order whatever order the
/// tuple lists them in (unlike axis_index, all_gather, psum_scatter and
/// all_to_all, which follow the listed order); shardlab does the same.
pub fn mesh_order(mesh: &Mesh, axes: &[String]) -> Vec<String> {
    let mut sorted = axes.to_vec();
    sorted.sort_by_key(|a| {
        mesh.axis_names()
            .iter()
            .position(|n| n == a)
            .unwrap_or(usize::MAX)
    });
    sorted
}

/// Every device of `mesh` as lanes of this thread.
pub struct Lockstep<'a> {
    /// The (possibly virtual) mesh whose positions are the lanes.
    pub mesh: &'a Mesh,
}

/// Runs a collective for every position of `mesh` in one thread.
pub fn lockstep_collective(
    mesh: &Mesh,
    kind: &CollectiveKind,
    xs: Vec<Array>,
) -> Result<Vec<Array>> {
    use CollectiveKind::*;
    use ReduceOp::*;
    match kind {
        Psum { axes, groups } => lockstep::preduce(mesh, &xs, axes, groups.as_ref(), Sum),
        PsumInvariant { axes } => lockstep::psum(mesh, &xs, axes),
        Pmax { axes, groups } => lockstep::preduce(mesh, &xs, axes, groups.as_ref(), Max),
        Pmin { axes, groups } => lockstep::preduce(mesh, &xs, axes, groups.as_ref(), Min),
        AllGather {
            axes,
            groups,
            axis,
            tiled,
            ..
        } => lockstep::all_gather(mesh, &xs, axes, groups.as_ref(), *axis, *tiled),
        PsumScatter {
            axes,
            groups,
            dim,
            tiled,
        } => lockstep::psum_scatter(mesh, &xs, axes, groups.as_ref(), *dim, *tiled),
        Ppermute { axes, perm } => lockstep::ppermute(mesh, &xs, &mesh_order(mesh, axes), perm),
        AllToAll {
            axes,
            groups,
            split_axis,
            concat_axis,
            tiled,
        } => lockstep::all_to_all(
            mesh,
            &xs,
            axes,
            groups.as_ref(),
            *split_axis,
            *concat_axis,
            *tiled,
        ),
        AxisIndex { axes } => lockstep::axis_index(mesh, axes),
        Pvary { .. } => Ok(xs),
    }
}

impl Comm for Lockstep<'_> {
    fn lanes(&self) -> usize {
        self.mesh.size()
    }

    fn collective(&self, kind: &CollectiveKind, xs: Vec<Array>) -> Result<Vec<Array>> {
        lockstep_collective(self.mesh, kind, xs)
    }

    fn device_positions(&self) -> Option<Vec<usize>> {
        Some((0..self.mesh.size()).collect())
    }

    /// Every device prints its line, in device order; the lines wait in
    /// [`super::map_prints`] for the map's caller, which prints them.
    fn debug_print(&self, printed: Vec<Printed>) -> Result<()> {
        super::run::map_prints(printed);
        Ok(())
    }
}

/// One device of a mesh, exchanging with the others through the fabric.
pub struct OnFabric<'a> {
    /// The device's fabric, mesh and position.
    pub ctx: DeviceCtx<'a>,
    /// The stop check of the run the device belongs to, polled on the
    /// device's own thread (a Web Worker device has none: it learns of a
    /// cancel through the fabric's abort word).
    pub stop: Option<super::StopCheck>,
}

impl Comm for OnFabric<'_> {
    fn lanes(&self) -> usize {
        1
    }

    fn device_positions(&self) -> Option<Vec<usize>> {
        Some(vec![self.ctx.position])
    }

    fn stopped(&self) -> Option<String> {
        // The fabric's abort word (another device failed) or the stop check
        // of the run the device thread belongs to (a time limit, a cancel).
        self.ctx
            .fabric
            .aborted()
            .or_else(|| self.stop.and_then(|check| check()))
    }

    fn collective(&self, kind: &CollectiveKind, xs: Vec<Array>) -> Result<Vec<Array>> {
        use CollectiveKind::*;
        use ReduceOp::*;
        let ctx = &self.ctx;
        let x = xs
            .into_iter()
            .next()
            .unwrap_or_else(|| Array::scalar_i32(0));
        let out = match kind {
            Psum { axes, groups } => coll::preduce(ctx, &x, axes, groups.as_ref(), Sum)?,
            PsumInvariant { axes } => coll::psum(ctx, &x, axes)?,
            Pmax { axes, groups } => coll::preduce(ctx, &x, axes, groups.as_ref(), Max)?,
            Pmin { axes, groups } => coll::preduce(ctx, &x, axes, groups.as_ref(), Min)?,
            AllGather {
                axes,
                groups,
                axis,
                tiled,
                ..
            } => coll::all_gather(ctx, &x, axes, groups.as_ref(), *axis, *tiled)?,
            PsumScatter {
                axes,
                groups,
                dim,
                tiled,
            } => coll::psum_scatter(ctx, &x, axes, groups.as_ref(), *dim, *tiled)?,
            Ppermute { axes, perm } => coll::ppermute(ctx, &x, &mesh_order(ctx.mesh, axes), perm)?,
            AllToAll {
                axes,
                groups,
                split_axis,
                concat_axis,
                tiled,
            } => coll::all_to_all(
                ctx,
                &x,
                axes,
                groups.as_ref(),
                *split_axis,
                *concat_axis,
                *tiled,
            )?,
            AxisIndex { axes } => coll::axis_index(ctx.mesh, ctx.position, axes)?,
            Pvary { .. } => x,
        };
        Ok(vec![out])
    }
}

/// A vmapped axis inside another comm: lane `l * size + b` is index `b` of
/// outer lane `l`.
pub struct Nested<'a> {
    /// The enclosing comm.
    pub outer: &'a dyn Comm,
    /// The vmapped axis's name, if it has one.
    pub name: Option<String>,
    /// The vmapped axis's size.
    pub size: usize,
}

impl Comm for Nested<'_> {
    fn lanes(&self) -> usize {
        self.outer.lanes() * self.size
    }

    fn fuses(&self) -> bool {
        self.outer.fuses()
    }

    fn stopped(&self) -> Option<String> {
        self.outer.stopped()
    }

    fn host_vmaps(&self) -> Option<Vec<usize>> {
        let mut sizes = self.outer.host_vmaps()?;
        sizes.push(self.size);
        Some(sizes)
    }

    fn host_call(
        &self,
        params: &HostCallbackParams,
        ins: Vec<Vec<Array>>,
    ) -> Result<Vec<Vec<Array>>> {
        super::callback::nested_call(self.outer, self.size, params, ins)
    }

    /// JAX batches a print into a loop over the vmapped index whose every
    /// step is one print of the enclosing level; so index by index, the
    /// outer comm prints its lanes' lines (under nested vmaps the outermost
    /// index varies fastest).
    fn debug_print(&self, printed: Vec<Printed>) -> Result<()> {
        let b = self.size;
        for i in 0..b {
            let column: Vec<Printed> = printed.iter().skip(i).step_by(b).cloned().collect();
            self.outer.debug_print(column)?;
        }
        Ok(())
    }

    fn collective(&self, kind: &CollectiveKind, xs: Vec<Array>) -> Result<Vec<Array>> {
        let axes = kind.axes();
        let inner = |a: &String| self.name.as_deref() == Some(a.as_str());
        let (b, outer_lanes) = (self.size, self.outer.lanes());
        if !axes.is_empty() && axes.iter().all(inner) {
            let name = self.name.clone().unwrap_or_default();
            let mesh = Mesh::new(&[name.as_str()], &[b])?;
            let mut out = Vec::with_capacity(xs.len());
            for chunk in xs.chunks(b) {
                out.extend(lockstep_collective(&mesh, kind, chunk.to_vec())?);
            }
            return Ok(out);
        }
        if axes.iter().any(inner) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: {} over both a vmapped axis and other axes ({:?})",
                kind.name(),
                axes
            );
        }
        // Outer axes only: index b of every outer lane forms one outer call.
        let mut out: Vec<Option<Array>> = vec![None; xs.len()];
        for i in 0..b {
            let column: Vec<Array> = (0..outer_lanes).map(|l| xs[l * b + i].clone()).collect();
            for (l, r) in self.outer.collective(kind, column)?.into_iter().enumerate() {
                out[l * b + i] = Some(r);
            }
        }
        out.into_iter()
            .map(|o| {
                o.ok_or_else(|| crate::err!(RuntimeError, "collective returned too few lanes"))
            })
            .collect()
    }
}

/// The lanes of `0` running a compiled program (a jit inside an eager vmap
/// or map body): the same collectives, with fusion on.
pub struct Compiled<'a>(pub &'a dyn Comm);

impl Comm for Compiled<'_> {
    fn lanes(&self) -> usize {
        self.0.lanes()
    }

    fn collective(&self, kind: &CollectiveKind, xs: Vec<Array>) -> Result<Vec<Array>> {
        self.0.collective(kind, xs)
    }

    fn is_top(&self) -> bool {
        self.0.is_top()
    }

    fn fuses(&self) -> bool {
        true
    }

    fn device_positions(&self) -> Option<Vec<usize>> {
        self.0.device_positions()
    }

    fn stopped(&self) -> Option<String> {
        self.0.stopped()
    }

    fn debug_print(&self, printed: Vec<Printed>) -> Result<()> {
        self.0.debug_print(printed)
    }

    fn host_vmaps(&self) -> Option<Vec<usize>> {
        self.0.host_vmaps()
    }

    fn host_call(
        &self,
        params: &HostCallbackParams,
        ins: Vec<Vec<Array>>,
    ) -> Result<Vec<Vec<Array>>> {
        self.0.host_call(params, ins)
    }
}
