//! PartitionSpec and NamedSharding: how a global array is laid out over a
//! mesh, splitting it into per-device shards and assembling shards back.
//!
//! Entry `d` of a spec names the mesh axes that split array dimension `d`,
//! major to minor: the device at mesh coordinates `c` holds block
//! `index_along(c, axes)` of `product(sizes of axes)` equal blocks. Mesh axes
//! a spec does not name replicate: every device along them holds the same
//! block. This is what `jax.device_put(x, NamedSharding(mesh, spec))` does.

use std::collections::BTreeSet;
use std::fmt;
use std::ops::Range;

use crate::array::shape_ops::fmt_shape;
use crate::array::Array;
use crate::error::Result;
use crate::mesh::{fmt_names, Mesh};
use crate::{bail, err};

/// `jax.sharding.PartitionSpec`: one entry per leading array dimension,
/// `None` (replicated) or the mesh axes that split it, major to minor.
/// Dimensions past the last entry are replicated.
///
/// Two sets of mesh axes name states other than a layout. Along an
/// `unreduced` axis every device holds a partial value whose sum over the
/// axis is the array (a contraction's local products before their
/// all-reduce). Along a `reduced` axis every device holds the whole value,
/// as along a replicated axis, and the type promises that its cotangent
/// may stay unreduced there. Neither set may share an axis with the
/// entries or with the other set.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct PartitionSpec {
    /// The per-dimension entries.
    pub entries: Vec<Option<Vec<String>>>,
    /// Mesh axes along which the devices hold partial sums.
    pub unreduced: BTreeSet<String>,
    /// Mesh axes along which the value is replicated and its cotangent
    /// may stay unreduced.
    pub reduced: BTreeSet<String>,
}

impl PartitionSpec {
    /// A spec from its entries.
    pub fn new(entries: Vec<Option<Vec<String>>>) -> PartitionSpec {
        PartitionSpec {
            entries,
            ..PartitionSpec::default()
        }
    }

    /// `P()`: every dimension replicated.
    pub fn replicated() -> PartitionSpec {
        PartitionSpec::default()
    }

    /// The same entries with other unreduced and reduced axes, checked as
    /// JAX's constructor checks them (ValueErrors).
    pub fn with_ur(
        self,
        unreduced: BTreeSet<String>,
        reduced: BTreeSet<String>,
    ) -> Result<PartitionSpec> {
        if unreduced.intersection(&reduced).next().is_some() {
            bail!(
                ValueError,
                "`unreduced` and `reduced` argument to PartitionSpec cannot overlap. Got unreduced: {} and reduced: {}",
                py_frozenset(&unreduced),
                py_frozenset(&reduced)
            );
        }
        let parts = self.partitions_text();
        for a in self.used_axes() {
            for (set, what) in [(&unreduced, "unreduced"), (&reduced, "reduced")] {
                if set.contains(a) {
                    bail!(
                        ValueError,
                        "partitions cannot overlap with {what} axes passed to PartitionSpec. Got partitions: {parts} and {what} axes: {}",
                        py_frozenset(set)
                    );
                }
            }
        }
        Ok(PartitionSpec {
            entries: self.entries,
            unreduced,
            reduced,
        })
    }

    /// Whether the spec names unreduced or reduced axes.
    pub fn has_ur(&self) -> bool {
        !self.unreduced.is_empty() || !self.reduced.is_empty()
    }

    /// The same entries without unreduced or reduced axes.
    pub fn layout_only(&self) -> PartitionSpec {
        PartitionSpec::new(self.entries.clone())
    }

    /// The entries.
    pub fn entries(&self) -> &[Option<Vec<String>>] {
        &self.entries
    }

    /// Python's repr of the entries as a tuple: `('X', None)`, `('X',)`.
    fn partitions_text(&self) -> String {
        let items: Vec<String> = self.entries.iter().map(entry_text).collect();
        match items.len() {
            1 => format!("({},)", items[0]),
            _ => format!("({})", items.join(", ")),
        }
    }

    /// The mesh axes splitting dimension `d` (empty when replicated).
    pub fn axes_of(&self, d: usize) -> &[String] {
        match self.entries.get(d) {
            Some(Some(axes)) => axes,
            _ => &[],
        }
    }

    /// Every mesh axis the spec names, in order of appearance.
    pub fn used_axes(&self) -> Vec<&str> {
        self.entries
            .iter()
            .flatten()
            .flat_map(|axes| axes.iter().map(String::as_str))
            .collect()
    }

    /// Checks the spec against a mesh and an array rank, failing as JAX does
    /// (all ValueErrors): an axis the mesh lacks, an axis used twice, or more
    /// entries than the array has dimensions.
    pub fn validate(&self, mesh: &Mesh, ndim: usize) -> Result<()> {
        let used = self.used_axes();
        for (i, a) in used.iter().enumerate() {
            if !mesh.axis_names().iter().any(|n| n == a) {
                bail!(
                    ValueError,
                    "Resource axis: {a} of {self} is not found in mesh: {}.",
                    fmt_names(mesh.axis_names())
                );
            }
            if used[..i].contains(a) {
                bail!(
                    ValueError,
                    "A single NamedSharding spec specification can map every mesh axis to at most one positional dimension, but {self} has duplicate entries for `{a}`"
                );
            }
        }
        for a in self.unreduced.iter().chain(&self.reduced) {
            if !mesh.axis_names().iter().any(|n| n == a) {
                bail!(
                    ValueError,
                    "Resource axis: {a} of {self} is not found in mesh: {}.",
                    fmt_names(mesh.axis_names())
                );
            }
        }
        if self.entries.len() > ndim {
            bail!(
                ValueError,
                "{self} is only valid for values of rank at least {}, but was applied to a value of rank {ndim}",
                self.entries.len()
            );
        }
        Ok(())
    }

    /// The number of blocks each dimension is split into.
    fn tiling(&self, mesh: &Mesh, ndim: usize) -> Result<Vec<usize>> {
        (0..ndim).map(|d| mesh.axes_size(self.axes_of(d))).collect()
    }

    /// The shape of every shard of an array of `global_shape`; fails when a
    /// dimension does not divide evenly among its axes.
    pub fn shard_shape(&self, mesh: &Mesh, global_shape: &[usize]) -> Result<Vec<usize>> {
        self.validate(mesh, global_shape.len())?;
        let tiling = self.tiling(mesh, global_shape.len())?;
        for (d, (&n, &t)) in global_shape.iter().zip(&tiling).enumerate() {
            if n % t != 0 {
                bail!(
                    ValueError,
                    "{self} implies that array axis {d} is partitioned {t} times (by mesh axes {}), but the dimension size is {n} (full shape: {}, per-dimension tiling factors: {:?} should evenly divide the shape)",
                    fmt_names(self.axes_of(d)),
                    fmt_shape(global_shape),
                    tiling
                );
            }
        }
        Ok(global_shape
            .iter()
            .zip(&tiling)
            .map(|(n, t)| n / t)
            .collect())
    }

    /// The block index (per dimension) of the shard the device at
    /// `position` holds.
    fn block_of(&self, mesh: &Mesh, position: usize, ndim: usize) -> Result<Vec<usize>> {
        (0..ndim)
            .map(|d| mesh.index_along(position, self.axes_of(d)))
            .collect()
    }

    /// The part of the global array the device at mesh `position` holds: one
    /// range per dimension.
    pub fn shard_slices(
        &self,
        mesh: &Mesh,
        position: usize,
        global_shape: &[usize],
    ) -> Result<Vec<Range<usize>>> {
        if position >= mesh.size() {
            bail!(
                IndexError,
                "device position {position} is out of range for a mesh of {} devices",
                mesh.size()
            );
        }
        let shard = self.shard_shape(mesh, global_shape)?;
        let block = self.block_of(mesh, position, global_shape.len())?;
        Ok(block
            .iter()
            .zip(&shard)
            .map(|(&b, &s)| b * s..(b + 1) * s)
            .collect())
    }

    /// Every device's shard of `global`, in row-major mesh position order.
    pub fn split(&self, mesh: &Mesh, global: &Array) -> Result<Vec<Array>> {
        (0..mesh.size())
            .map(|p| {
                let r = self.shard_slices(mesh, p, global.shape())?;
                let starts: Vec<usize> = r.iter().map(|x| x.start).collect();
                let limits: Vec<usize> = r.iter().map(|x| x.end).collect();
                global.slice(&starts, &limits, None)
            })
            .collect()
    }

    /// For every block (row-major over the per-dimension block grid), the
    /// positions that hold it, ascending. More than one means replication.
    pub fn holders(&self, mesh: &Mesh, global_shape: &[usize]) -> Result<Vec<Vec<usize>>> {
        self.shard_shape(mesh, global_shape)?;
        let tiling = self.tiling(mesh, global_shape.len())?;
        let nblocks: usize = tiling.iter().product();
        let mut out = vec![Vec::new(); nblocks];
        for p in 0..mesh.size() {
            let block = self.block_of(mesh, p, global_shape.len())?;
            let flat = block
                .iter()
                .zip(&tiling)
                .fold(0, |acc, (&b, &t)| acc * t + b);
            out[flat].push(p);
        }
        Ok(out)
    }

    /// The global array from one shard per position: each block comes from
    /// the lowest position that holds it (replicas are not compared, as JAX
    /// does without its consistency check).
    pub fn assemble(&self, mesh: &Mesh, shards: &[Array], global_shape: &[usize]) -> Result<Array> {
        let shard_shape = self.shard_shape(mesh, global_shape)?;
        if shards.len() != mesh.size() {
            bail!(
                ValueError,
                "assemble: got {} shards for a mesh of {} devices",
                shards.len(),
                mesh.size()
            );
        }
        let dtype = shards
            .first()
            .map(Array::dtype)
            .ok_or_else(|| err!(ValueError, "assemble: no shards"))?;
        for (p, s) in shards.iter().enumerate() {
            if s.shape() != shard_shape.as_slice() || s.dtype() != dtype {
                bail!(
                    ValueError,
                    "assemble: shard {p} has shape {} and dtype {}, expected shape {} and dtype {} for global shape {} under {self}",
                    fmt_shape(s.shape()),
                    s.dtype().name(),
                    fmt_shape(&shard_shape),
                    dtype.name(),
                    fmt_shape(global_shape)
                );
            }
        }
        let mut out = Array::zeros(global_shape, dtype);
        for holders in self.holders(mesh, global_shape)? {
            let p = holders[0];
            let r = self.shard_slices(mesh, p, global_shape)?;
            let starts: Vec<i64> = r.iter().map(|x| x.start as i64).collect();
            out = out.dynamic_update_slice(&shards[p], &starts)?;
        }
        Ok(out)
    }
}

impl fmt::Display for PartitionSpec {
    /// JAX 0.10's repr: `P('x', None)`, `P(('x', 'y'),)`, `P()`,
    /// `P('x', None, unreduced={'y'})`. A one-axis entry prints as the
    /// bare name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items: Vec<String> = self.entries.iter().map(entry_text).collect();
        let mut text = match items.len() {
            1 => format!("{},", items[0]),
            _ => items.join(", "),
        };
        for (set, what) in [(&self.unreduced, "unreduced"), (&self.reduced, "reduced")] {
            if set.is_empty() {
                continue;
            }
            if !text.is_empty() {
                text.push(if text.ends_with(',') { ' ' } else { ',' });
                if !text.ends_with(' ') {
                    text.push(' ');
                }
            }
            text.push_str(&format!("{what}={}", py_set(set)));
        }
        write!(f, "P({text})")
    }
}

/// A spec entry as Python prints it: `None`, `'x'`, `('x', 'y')`.
fn entry_text(e: &Option<Vec<String>>) -> String {
    match e {
        None => "None".to_string(),
        Some(axes) if axes.len() == 1 => format!("'{}'", axes[0]),
        Some(axes) => fmt_names(axes),
    }
}

/// Python's repr of a set of names: `{'x', 'y'}` (in sorted order; Python's
/// own order for several names depends on string hashing).
pub fn py_set(names: &BTreeSet<String>) -> String {
    let items: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    format!("{{{}}}", items.join(", "))
}

/// Python's repr of a frozenset of names: `frozenset({'x'})`.
pub fn py_frozenset(names: &BTreeSet<String>) -> String {
    if names.is_empty() {
        "frozenset()".to_string()
    } else {
        format!("frozenset({})", py_set(names))
    }
}

/// The memory of its devices an array lives in (JAX's `memory_kind`).
/// shardlab's devices are simulated: the kinds differ only in name, so
/// values are the same in each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum MemoryKind {
    /// The device's own memory.
    #[default]
    Device,
    /// Host memory the device can read directly.
    PinnedHost,
    /// Ordinary host memory.
    UnpinnedHost,
}

impl MemoryKind {
    /// The kind from its JAX name; CPU devices address these three.
    pub fn from_name(name: &str) -> Result<MemoryKind> {
        Ok(match name {
            "device" => MemoryKind::Device,
            "pinned_host" => MemoryKind::PinnedHost,
            "unpinned_host" => MemoryKind::UnpinnedHost,
            other => bail!(
                ValueError,
                "Could not find memory addressable by device cpu. Device cpu can address the following memory kinds: device, pinned_host, unpinned_host. Got memory kind: {other}"
            ),
        })
    }

    /// JAX's name of the kind.
    pub fn name(self) -> &'static str {
        match self {
            MemoryKind::Device => "device",
            MemoryKind::PinnedHost => "pinned_host",
            MemoryKind::UnpinnedHost => "unpinned_host",
        }
    }
}

/// `jax.sharding.NamedSharding`: a mesh, a spec and a memory kind.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct NamedSharding {
    /// The devices.
    pub mesh: Mesh,
    /// How each array dimension maps onto mesh axes.
    pub spec: PartitionSpec,
    /// The memory of the devices the array lives in.
    #[cfg_attr(target_arch = "wasm32", serde(default))]
    pub memory_kind: MemoryKind,
}

impl NamedSharding {
    /// A sharding of `spec` over `mesh`, in device memory.
    pub fn new(mesh: Mesh, spec: PartitionSpec) -> NamedSharding {
        NamedSharding {
            mesh,
            spec,
            memory_kind: MemoryKind::Device,
        }
    }

    /// The same sharding in memory `kind`.
    pub fn in_memory(self, memory_kind: MemoryKind) -> NamedSharding {
        NamedSharding {
            memory_kind,
            ..self
        }
    }

    /// See [`PartitionSpec::shard_shape`].
    pub fn shard_shape(&self, global_shape: &[usize]) -> Result<Vec<usize>> {
        self.spec.shard_shape(&self.mesh, global_shape)
    }

    /// See [`PartitionSpec::shard_slices`].
    pub fn shard_slices(
        &self,
        position: usize,
        global_shape: &[usize],
    ) -> Result<Vec<Range<usize>>> {
        self.spec.shard_slices(&self.mesh, position, global_shape)
    }

    /// See [`PartitionSpec::split`].
    pub fn split(&self, global: &Array) -> Result<Vec<Array>> {
        self.spec.split(&self.mesh, global)
    }

    /// See [`PartitionSpec::assemble`].
    pub fn assemble(&self, shards: &[Array], global_shape: &[usize]) -> Result<Array> {
        self.spec.assemble(&self.mesh, shards, global_shape)
    }

    /// See [`PartitionSpec::holders`].
    pub fn holders(&self, global_shape: &[usize]) -> Result<Vec<Vec<usize>>> {
        self.spec.holders(&self.mesh, global_shape)
    }
}

/// Where a global array lives: what JAX's `x.sharding` describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Whole on one device (`SingleDeviceSharding`), by device id.
    Device(usize),
    /// Split over a mesh (`NamedSharding`).
    Named(NamedSharding),
    /// The result of an operation whose sharding rule shardlab does not have
    /// yet (named here): its values are right, its sharding is not known, so
    /// asking for it fails rather than guessing.
    Unknown(String),
}

impl Placement {
    /// Whether every device that holds the array holds all of it.
    pub fn is_fully_replicated(&self, global_shape: &[usize]) -> Result<bool> {
        Ok(match self {
            Placement::Device(_) => true,
            Placement::Named(s) => s.shard_shape(global_shape)? == global_shape,
            Placement::Unknown(_) => false,
        })
    }
}

/// The text of an aval with the explicit axes of its sharding.
pub fn aval_text(shape: &[usize], dtype: crate::array::DType, p: Option<&Placement>) -> String {
    let dims: Vec<String> = shape
        .iter()
        .enumerate()
        .map(|(d, n)| {
            let Some(Placement::Named(s)) = p else {
                return n.to_string();
            };
            let explicit: Vec<&String> = s
                .spec
                .axes_of(d)
                .iter()
                .filter(|a| s.mesh.axis_type(a).ok() == Some(crate::mesh::AxisType::Explicit))
                .collect();
            match explicit.as_slice() {
                [] => n.to_string(),
                [one] => format!("{n}@{one}"),
                many => {
                    let names: Vec<&str> = many.iter().map(|s| s.as_str()).collect();
                    format!("{n}@({})", names.join(","))
                }
            }
        })
        .collect();
    let ur = match p {
        Some(Placement::Named(s)) => ur_text(&s.mesh, &s.spec),
        _ => String::new(),
    };
    let memory = match p {
        Some(Placement::Named(s)) if s.memory_kind != MemoryKind::Device => "<host>",
        _ => "",
    };
    format!("{}{memory}[{}]{ur}", dtype.name(), dims.join(","))
}

/// The `{U:x, R:y}` suffix JAX's types print for unreduced and reduced
/// axes, in mesh order; empty when there are none.
pub fn ur_text(mesh: &Mesh, spec: &PartitionSpec) -> String {
    let mut parts = vec![];
    for (set, tag) in [(&spec.unreduced, "U"), (&spec.reduced, "R")] {
        let names: Vec<&str> = mesh
            .axis_names()
            .iter()
            .filter(|a| set.contains(*a))
            .map(String::as_str)
            .collect();
        match names.as_slice() {
            [] => {}
            [one] => parts.push(format!("{tag}:{one}")),
            many => parts.push(format!("{tag}:({})", many.join(","))),
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("{{{}}}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn spec(entries: &[Option<&[&str]>]) -> PartitionSpec {
        PartitionSpec::new(
            entries
                .iter()
                .map(|e| e.map(|axes| axes.iter().map(|a| a.to_string()).collect()))
                .collect(),
        )
    }

    #[test]
    fn split_by_hand_on_a_2x2_mesh() {
        // P('x') on mesh {'x': 2, 'y': 2}: devices 0, 1 hold rows 0..2 and
        // devices 2, 3 rows 2..4.
        let mesh = Mesh::new(&["x", "y"], &[2, 2]).unwrap();
        let x = Array::from_f32(&[4, 1], vec![1., 2., 3., 4.]).unwrap();
        let shards = spec(&[Some(&["x"])]).split(&mesh, &x).unwrap();
        let got: Vec<Vec<f64>> = shards.iter().map(|s| s.to_f64_vec()).collect();
        assert_eq!(
            got,
            vec![vec![1., 2.], vec![1., 2.], vec![3., 4.], vec![3., 4.]]
        );
    }

    #[test]
    fn assemble_takes_the_lowest_holder() {
        let mesh = Mesh::new(&["x"], &[2]).unwrap();
        let s = PartitionSpec::replicated();
        let a = Array::from_f32(&[2], vec![1., 2.]).unwrap();
        let b = Array::from_f32(&[2], vec![9., 9.]).unwrap();
        let g = s.assemble(&mesh, &[a.clone(), b], &[2]).unwrap();
        assert!(g.bitwise_eq(&a));
        assert!(s.assemble(&mesh, std::slice::from_ref(&a), &[2]).is_err());
        assert!(s
            .assemble(&mesh, &[a.clone(), a.reshape(&[2, 1]).unwrap()], &[2])
            .is_err());
    }

    #[test]
    fn holders_list_replicas() {
        let mesh = Mesh::new(&["x", "y"], &[2, 4]).unwrap();
        let h = spec(&[Some(&["x"])]).holders(&mesh, &[4, 4]).unwrap();
        assert_eq!(h, vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        let h = spec(&[None, Some(&["y"])]).holders(&mesh, &[4, 4]).unwrap();
        assert_eq!(h, vec![vec![0, 4], vec![1, 5], vec![2, 6], vec![3, 7]]);
        let sharding = NamedSharding::new(mesh, spec(&[Some(&["y", "x"])]));
        assert_eq!(sharding.holders(&[8]).unwrap()[1], vec![4]);
        assert_eq!(sharding.shard_shape(&[8, 3]).unwrap(), vec![1, 3]);
    }

    #[test]
    fn display_matches_jax_repr() {
        // repr() of these specs in JAX 0.10.2.
        assert_eq!(spec(&[Some(&["x"]), None]).to_string(), "P('x', None)");
        assert_eq!(spec(&[Some(&["x", "y"])]).to_string(), "P(('x', 'y'),)");
        assert_eq!(PartitionSpec::replicated().to_string(), "P()");
        assert_eq!(spec(&[None]).to_string(), "P(None,)");
        assert_eq!(
            spec(&[Some(&["x"]), Some(&["y"])]).to_string(),
            "P('x', 'y')"
        );
    }

    #[test]
    fn unreduced_and_reduced_axes_print_as_in_jax() {
        // repr() of these specs and str() of the types in JAX 0.10.2.
        let set = |names: &[&str]| names.iter().map(|n| n.to_string()).collect();
        let s = spec(&[Some(&["x"]), None])
            .with_ur(set(&["y"]), set(&[]))
            .unwrap();
        assert_eq!(s.to_string(), "P('x', None, unreduced={'y'})");
        let s = spec(&[Some(&["x"])])
            .with_ur(set(&["y"]), set(&[]))
            .unwrap();
        assert_eq!(s.to_string(), "P('x', unreduced={'y'})");
        let s = PartitionSpec::replicated()
            .with_ur(set(&["x"]), set(&["y"]))
            .unwrap();
        assert_eq!(s.to_string(), "P(unreduced={'x'}, reduced={'y'})");
        let mesh = Mesh::new(&["x", "y"], &[2, 2]).unwrap();
        assert_eq!(ur_text(&mesh, &s), "{U:x, R:y}");
        let e = spec(&[Some(&["x"])])
            .with_ur(set(&["x"]), set(&[]))
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::ValueError);
        assert!(e
            .message
            .starts_with("partitions cannot overlap with unreduced axes"));
    }

    #[test]
    fn validation_errors_follow_jax() {
        let mesh = Mesh::new(&["x"], &[2]).unwrap();
        let e = spec(&[Some(&["z"])]).validate(&mesh, 2).unwrap_err();
        assert_eq!(e.kind, ErrorKind::ValueError);
        assert_eq!(
            e.message,
            "Resource axis: z of P('z',) is not found in mesh: ('x',)."
        );
        let e = spec(&[Some(&["x"]), Some(&["x"])])
            .validate(&mesh, 2)
            .unwrap_err();
        assert!(
            e.message.contains("duplicate entries for `x`"),
            "{}",
            e.message
        );
        let e = spec(&[None, None, Some(&["x"])])
            .validate(&mesh, 2)
            .unwrap_err();
        assert!(
            e.message.contains("rank at least 3") && e.message.contains("rank 2"),
            "{}",
            e.message
        );
        let m24 = Mesh::new(&["x", "y"], &[2, 4]).unwrap();
        let e = spec(&[Some(&["y"])])
            .shard_shape(&m24, &[6, 4])
            .unwrap_err();
        assert!(
            e.message.contains("axis 0 is partitioned 4 times")
                && e.message.contains("('y',)")
                && e.message.contains("size is 6"),
            "{}",
            e.message
        );
    }
}
