//! What a run shows a person: for every map (shard_map or pmap) that ran, the
//! mesh, each device's shards of the inputs and outputs, every collective with
//! each device's value before and after it, and per-device timings.
//!
//! A [`Recorder`] is the run's observer ([`crate::exec::run::Observer`]):
//! whoever starts a run that should be shown makes one, gives it to the run,
//! and takes the [`Report`] when the run ends. The evaluator logs collectives
//! per device ([`crate::exec::log`]) and tells the observer of every map with
//! its shards and logs; the recorder turns them into [`MapRun`]s.

#[cfg(target_arch = "wasm32")]
pub mod js;

use std::cell::RefCell;

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use crate::array::{Array, Buffer};
use crate::error::Result;
use crate::exec::log::DeviceLog;
use crate::exec::run::{Layout, MapRan, Observer, Placed};
use crate::mesh::Mesh;
use crate::primitives::CollectiveKind;
use crate::sharding::{aval_text, PartitionSpec, Placement};

/// An array's shape, dtype and elements (row-major).
///
/// Serialised as `{shape, dtype, data}`; `data` is a list of numbers (JSON:
/// `shardlab run --report`, `--json`), except inside [`js::to_js`] (the web
/// build's `run_program`), where it is a typed array of the dtype.
#[derive(Debug, Clone)]
pub struct ArrayData {
    /// Dimensions.
    pub shape: Vec<usize>,
    /// `float32`, `int32` or `bool`.
    pub dtype: &'static str,
    /// Elements in row-major order (bools as 0/1).
    pub data: Vec<f64>,
}

impl From<&Array> for ArrayData {
    fn from(a: &Array) -> ArrayData {
        let data = match a.buffer() {
            Buffer::F32(d) => d.iter().map(|&v| v as f64).collect(),
            Buffer::I32(d) => d.iter().map(|&v| v as f64).collect(),
            Buffer::U32(d) => d.iter().map(|&v| v as f64).collect(),
            Buffer::Bool(d) => d.iter().map(|&v| v as u8 as f64).collect(),
            // Real and imaginary parts interleaved.
            Buffer::C64(d) => d.iter().flat_map(|v| [v.re as f64, v.im as f64]).collect(),
        };
        ArrayData {
            shape: a.shape().to_vec(),
            dtype: a.dtype().name(),
            data,
        }
    }
}

impl Serialize for ArrayData {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("ArrayData", 3)?;
        st.serialize_field("shape", &self.shape)?;
        st.serialize_field("dtype", self.dtype)?;
        #[cfg(target_arch = "wasm32")]
        if js::typed_arrays() {
            st.serialize_field("data", &js::TypedData(self))?;
            return st.end();
        }
        st.serialize_field("data", &self.data)?;
        st.end()
    }
}

/// One device's block of a global array.
#[derive(Debug, Clone, Serialize)]
pub struct Shard {
    /// The device's position in the mesh (row-major).
    pub position: usize,
    /// Its mesh coordinates.
    pub coords: Vec<usize>,
    /// `[start, stop)` of each dimension of the global array it holds.
    pub index: Vec<[usize; 2]>,
    /// The block.
    pub value: ArrayData,
}

/// A global array laid out over a mesh by a spec.
#[derive(Debug, Clone, Serialize)]
pub struct ShardedArray {
    /// The spec, as JAX prints it (`P('x', None)`).
    pub spec: String,
    /// The global array.
    pub global: ArrayData,
    /// Every device's block, by position.
    pub shards: Vec<Shard>,
    /// For each distinct block, the positions holding it (more than one means
    /// the block is replicated over those devices).
    pub holders: Vec<Vec<usize>>,
}

/// One collective as every device saw it.
#[derive(Debug, Clone, Serialize)]
pub struct CollectiveRun {
    /// JAX's primitive name (`psum_invariant`, `all_gather`, ...).
    pub name: String,
    /// The library function the program called when the jaxpr does not
    /// name it: `pmean`, whose jaxpr is this sum and then a division by the
    /// group size (`after` holds the sum, before the division).
    pub called_as: Option<String>,
    /// Its parameters as the jaxpr prints them.
    pub params: Vec<(String, String)>,
    /// The groups of positions that combined their values.
    pub groups: Vec<Vec<usize>>,
    /// Each device's operand, by position.
    pub before: Vec<ArrayData>,
    /// Each device's result, by position.
    pub after: Vec<ArrayData>,
    /// Bytes that crossed between devices, summed over devices (a lower bound
    /// for the algorithm used).
    pub bytes_moved: usize,
    /// Microseconds each device spent inside it, by position (in lockstep,
    /// the one evaluator's time, the same for every device).
    pub elapsed_us: Vec<f64>,
    /// The program line of the operation that made it: the collective's
    /// call in a shard_map or pmap; in a jit's program, the operation the
    /// partitioner inserted it for (a contraction over a split dimension,
    /// a change of layout).
    pub line: Option<u32>,
}

/// How long one device spent.
#[derive(Debug, Clone, Serialize)]
pub struct Timing {
    /// The device's position.
    pub position: usize,
    /// Wall time of the device's whole program, in microseconds.
    pub total_us: f64,
    /// Of which, time inside collectives (waiting and exchanging).
    pub collective_us: f64,
}

/// One shard_map or pmap, as it ran.
#[derive(Debug, Clone, Serialize)]
pub struct MapRun {
    /// `shard_map` or `pmap`.
    pub kind: &'static str,
    /// Mesh axis names.
    pub axis_names: Vec<String>,
    /// Mesh shape.
    pub mesh_shape: Vec<usize>,
    /// Device ids by position.
    pub device_ids: Vec<usize>,
    /// `parallel` or `lockstep`.
    pub mode: &'static str,
    /// The per-device program, printed as a jaxpr.
    pub jaxpr: String,
    /// The inputs, laid out by in_specs.
    pub inputs: Vec<ShardedArray>,
    /// The outputs, laid out by out_specs.
    pub outputs: Vec<ShardedArray>,
    /// Every collective, in program order.
    pub collectives: Vec<CollectiveRun>,
    /// Per-device timings (parallel mode).
    pub timings: Vec<Timing>,
    /// `forward`, or `backward` for the transposed map that computes the
    /// cotangents of a grad (its outputs are the inputs' gradients).
    pub role: &'static str,
    /// For each output of the per-device program, the mesh axes it varies
    /// over (its aval's vma; empty means invariant, i.e. replicated, or not
    /// tracked when `check_vma` is off).
    pub out_vma: Vec<Vec<String>>,
    /// Wall time of the whole map, in microseconds.
    pub elapsed_us: f64,
    /// The program line that ran it: the map's call, or the jitted
    /// function's.
    pub line: Option<u32>,
}

/// One `grad` / `value_and_grad` call evaluated eagerly (not under a trace).
#[derive(Debug, Clone, Serialize)]
pub struct GradRun {
    /// The loss (the function's scalar output).
    pub loss: f64,
    /// The gradient with respect to each differentiated leaf, in argument
    /// order.
    pub grads: Vec<ArrayData>,
    /// `[start, end)` of the maps (in [`Report::maps`]) the call ran: its
    /// forward maps and their transposes.
    pub maps: [usize; 2],
}

/// Where one device's block of a placed array lies in it.
#[derive(Debug, Clone, Serialize)]
pub struct Tile {
    /// The device's position in the mesh (row-major).
    pub position: usize,
    /// Its mesh coordinates.
    pub coords: Vec<usize>,
    /// `[start, stop)` of each dimension of the global array it holds.
    pub index: Vec<[usize; 2]>,
}

/// An array the program named at top level, laid out over a mesh by a
/// `NamedSharding` (what `x.sharding` and `jax.typeof(x)` describe).
#[derive(Debug, Clone, Serialize)]
pub struct NamedArray {
    /// The program's name for it.
    pub name: String,
    /// Its global shape.
    pub shape: Vec<usize>,
    /// Its dtype's name.
    pub dtype: &'static str,
    /// `jax.typeof(x)` as JAX prints it (`float32[8@x,4]`).
    pub type_text: String,
    /// The spec, as JAX prints it (`P('x', None)`).
    pub spec: String,
    /// The mesh axes splitting each dimension (empty: not split).
    pub dim_axes: Vec<Vec<String>>,
    /// Mesh axis names.
    pub axis_names: Vec<String>,
    /// Mesh shape.
    pub mesh_shape: Vec<usize>,
    /// `Explicit`, `Auto` or `Manual`, per mesh axis.
    pub axis_types: Vec<String>,
    /// Device ids by position.
    pub device_ids: Vec<usize>,
    /// Every device's block, by position.
    pub tiles: Vec<Tile>,
    /// For each distinct block, the positions holding it.
    pub holders: Vec<Vec<usize>>,
}

impl NamedArray {
    fn of(name: &str, a: &Array) -> Result<Option<NamedArray>> {
        let Some(Placement::Named(s)) = a.placement() else {
            return Ok(None);
        };
        let shape = a.shape();
        let tiles = (0..s.mesh.size())
            .map(|p| {
                let index = s
                    .shard_slices(p, shape)?
                    .into_iter()
                    .map(|r| [r.start, r.end])
                    .collect();
                Ok(Tile {
                    position: p,
                    coords: s.mesh.coords(p),
                    index,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Some(NamedArray {
            name: name.to_string(),
            shape: shape.to_vec(),
            dtype: a.dtype().name(),
            type_text: aval_text(shape, a.dtype(), a.placement()),
            spec: s.spec.to_string(),
            dim_axes: (0..shape.len())
                .map(|d| s.spec.axes_of(d).to_vec())
                .collect(),
            axis_names: s.mesh.axis_names().to_vec(),
            mesh_shape: s.mesh.shape().to_vec(),
            axis_types: s
                .mesh
                .axis_types()
                .iter()
                .map(|t| format!("{t:?}"))
                .collect(),
            device_ids: s.mesh.device_ids().to_vec(),
            tiles,
            holders: s.holders(shape)?,
        }))
    }
}

/// Everything recorded between [`start`] and [`take`].
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Every map run at top level, in execution order.
    pub maps: Vec<MapRun>,
    /// Every grad / value_and_grad evaluated at top level, in order.
    pub grads: Vec<GradRun>,
    /// The arrays laid out over a mesh that the program's top-level names
    /// hold when it ends, in the order the program first names them.
    pub arrays: Vec<NamedArray>,
}

/// Records a run: the observer that builds its [`Report`].
#[derive(Debug, Default)]
pub struct Recorder {
    report: RefCell<Report>,
}

impl Recorder {
    /// Takes what was recorded so far.
    pub fn take(&self) -> Report {
        std::mem::take(&mut *self.report.borrow_mut())
    }
}

impl Observer for Recorder {
    fn map_ran(&self, map: MapRan<'_>) -> Result<()> {
        let inputs = placed(map.mesh, &map.inputs)?;
        let outputs = placed(map.mesh, &map.outputs)?;
        let run = map_run(&map, inputs, outputs)?;
        self.report.borrow_mut().maps.push(run);
        Ok(())
    }

    fn grad_ran(&self, loss: f64, grads: &[Array], maps: [usize; 2]) {
        self.report.borrow_mut().grads.push(GradRun {
            loss,
            grads: grads.iter().map(ArrayData::from).collect(),
            maps,
        });
    }

    fn maps_seen(&self) -> usize {
        self.report.borrow().maps.len()
    }

    fn arrays_named(&self, arrays: &[(String, Array)]) {
        // An array whose tiles cannot be described is left out of the
        // picture; the program's own output is unaffected.
        let named = arrays
            .iter()
            .filter_map(|(n, a)| NamedArray::of(n, a).ok().flatten());
        self.report.borrow_mut().arrays.extend(named);
    }
}

/// Every array of a map's inputs or outputs with its devices' blocks.
fn placed(mesh: &Mesh, p: &Placed<'_>) -> Result<Vec<ShardedArray>> {
    match p.layout {
        Layout::Specs(specs) => sharded_all(mesh, specs, p.globals, p.blocks),
        Layout::Axes(axes) => Ok(mapped(mesh, p.globals, p.blocks, axes)),
    }
}

/// Describes `global` laid out over `mesh` by `spec`, with every device's block.
fn sharded(
    mesh: &Mesh,
    spec: &PartitionSpec,
    global: &Array,
    blocks: &[Array],
) -> Result<ShardedArray> {
    let shards = blocks
        .iter()
        .enumerate()
        .map(|(p, b)| {
            let index = spec
                .shard_slices(mesh, p, global.shape())?
                .into_iter()
                .map(|r| [r.start, r.end])
                .collect();
            Ok(Shard {
                position: p,
                coords: mesh.coords(p),
                index,
                value: b.into(),
            })
        })
        .collect::<Result<_>>()?;
    Ok(ShardedArray {
        spec: spec.to_string(),
        global: global.into(),
        shards,
        holders: spec.holders(mesh, global.shape())?,
    })
}

/// [`sharded`] for every array of a map's inputs or outputs: `blocks[i][p]`
/// is array `i` on the device at position `p`.
fn sharded_all(
    mesh: &Mesh,
    specs: &[PartitionSpec],
    globals: &[Array],
    blocks: &[Vec<Array>],
) -> Result<Vec<ShardedArray>> {
    globals
        .iter()
        .zip(blocks)
        .zip(specs)
        .map(|((g, b), s)| sharded(mesh, s, g, b))
        .collect()
}

/// Describes pmap's inputs or outputs: device `p` holds index `p` of the
/// mapped axis (or all of an unmapped input).
fn mapped(
    mesh: &Mesh,
    globals: &[Array],
    blocks: &[Vec<Array>],
    axes: &[Option<usize>],
) -> Vec<ShardedArray> {
    globals
        .iter()
        .zip(blocks)
        .zip(axes)
        .map(|((g, b), ax)| {
            let shards = b
                .iter()
                .enumerate()
                .map(|(p, block)| {
                    let index = (0..g.ndim())
                        .map(|d| {
                            if Some(d) == *ax {
                                [p, p + 1]
                            } else {
                                [0, g.shape()[d]]
                            }
                        })
                        .collect();
                    Shard {
                        position: p,
                        coords: mesh.coords(p),
                        index,
                        value: block.into(),
                    }
                })
                .collect();
            let holders = match ax {
                Some(_) => (0..b.len()).map(|p| vec![p]).collect(),
                None => vec![(0..b.len()).collect()],
            };
            let spec = match ax {
                Some(a) => format!("axis {a}"),
                None => "None".into(),
            };
            ShardedArray {
                spec,
                global: g.into(),
                shards,
                holders,
            }
        })
        .collect()
}

/// Bytes that cross between devices for one collective of an operand of
/// `bytes` on each of `p` devices of a group, summed over the group's devices.
fn bytes_moved(kind: &CollectiveKind, bytes: usize, p: usize) -> usize {
    use CollectiveKind::*;
    if p <= 1 {
        return 0;
    }
    match kind {
        // Reduce-scatter then all-gather: each device sends and receives
        // (p-1)/p of its operand twice.
        Psum { .. } | PsumInvariant { .. } | Pmax { .. } | Pmin { .. } => 2 * (p - 1) * bytes,
        // Each device receives the other p-1 operands.
        AllGather { .. } => p * (p - 1) * bytes,
        // Each device receives its 1/p block from the other p-1.
        PsumScatter { .. } | AllToAll { .. } => (p - 1) * bytes,
        Ppermute { perm, .. } => perm.iter().filter(|(s, d)| s != d).count() * bytes,
        AxisIndex { .. } | Pvary { .. } => 0,
    }
}

/// Merges the devices' logs of one run into one record per collective.
pub fn collective_runs(mesh: &Mesh, logs: &[DeviceLog]) -> Result<Vec<CollectiveRun>> {
    let n = mesh.size();
    let count = logs.iter().map(|l| l.events.len()).max().unwrap_or(0);
    let mut runs = Vec::with_capacity(count);
    for k in 0..count {
        let mut before: Vec<Option<ArrayData>> = vec![None; n];
        let mut after: Vec<Option<ArrayData>> = vec![None; n];
        let mut elapsed = vec![0.0; n];
        let mut kind = None;
        let mut called_as = None;
        let mut line = None;
        for log in logs {
            let Some(ev) = log.events.get(k) else {
                continue;
            };
            kind.get_or_insert_with(|| ev.kind.clone());
            called_as = called_as.or_else(|| ev.called_as.clone());
            line = line.or(ev.line);
            for (i, &p) in ev.positions.iter().enumerate() {
                elapsed[p] = ev.elapsed_us;
                before[p] = ev.before.get(i).map(ArrayData::from);
                after[p] = ev.after.get(i).map(ArrayData::from);
            }
        }
        let Some(kind) = kind else { continue };
        let axes = match &kind {
            CollectiveKind::Ppermute { axes, .. } => crate::exec::comm::mesh_order(mesh, axes),
            other => other.axes().to_vec(),
        };
        let groups = crate::collectives::groups(mesh, &axes, kind.index_groups())?;
        let operand_bytes = before
            .iter()
            .flatten()
            .next()
            .map_or(0, |a| a.data.len() * 4);
        let empty = || ArrayData {
            shape: vec![],
            dtype: "float32",
            data: vec![],
        };
        runs.push(CollectiveRun {
            name: kind.name().to_string(),
            called_as,
            params: kind.params(),
            bytes_moved: groups
                .iter()
                .map(|g| bytes_moved(&kind, operand_bytes, g.len()))
                .sum(),
            groups,
            before: before
                .into_iter()
                .map(|a| a.unwrap_or_else(empty))
                .collect(),
            after: after.into_iter().map(|a| a.unwrap_or_else(empty)).collect(),
            elapsed_us: elapsed,
            line,
        });
    }
    Ok(runs)
}

/// Assembles a [`MapRun`] from a map that ran.
fn map_run(
    map: &MapRan<'_>,
    inputs: Vec<ShardedArray>,
    outputs: Vec<ShardedArray>,
) -> Result<MapRun> {
    let (mesh, body, lockstep, logs) = (map.mesh, map.body, map.lockstep, &map.logs);
    let elapsed_us = logs.iter().map(|l| l.total_us).fold(0.0, f64::max);
    let timings = if lockstep {
        vec![]
    } else {
        logs.iter()
            .map(|l| Timing {
                position: l.position,
                total_us: l.total_us,
                collective_us: l.events.iter().map(|e| e.elapsed_us).sum(),
            })
            .collect()
    };
    Ok(MapRun {
        kind: map.kind,
        axis_names: mesh.axis_names().to_vec(),
        mesh_shape: mesh.shape().to_vec(),
        device_ids: mesh.device_ids().to_vec(),
        mode: if lockstep { "lockstep" } else { "parallel" },
        jaxpr: body.to_string(),
        inputs,
        outputs,
        collectives: collective_runs(mesh, logs)?,
        timings,
        role: if map.backward { "backward" } else { "forward" },
        out_vma: body
            .out_avals()
            .iter()
            .map(|a| a.vma.iter().cloned().collect())
            .collect(),
        elapsed_us,
        line: map.line,
    })
}
