//! A device mesh: devices arranged in an n-d grid whose axes have names.
//!
//! Devices are identified two ways. A *position* is a device's row-major index
//! in the mesh grid (what the evaluators and the fabric use: position p runs on
//! worker p). A *device id* is what `jax.devices()` calls the device; a mesh built
//! from a permuted device array maps positions to other ids.

use crate::error::Result;
use crate::{bail, err};

/// How the computation treats a mesh axis (`jax.sharding.AxisType`).
///
/// `Auto` axes leave shardings to the partitioner (JAX's GSPMD propagation);
/// `Explicit` axes make the sharding part of every value's type, fixed by
/// each primitive's sharding rule; `Manual` axes are inside a `shard_map`,
/// where the program sees per-device shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum AxisType {
    /// The partitioner chooses (the default of `Mesh(...)`).
    #[default]
    Auto,
    /// Sharding in types (the default of `jax.make_mesh`).
    Explicit,
    /// Per-device code (inside `shard_map`).
    Manual,
}

impl AxisType {
    /// The name JAX prints: `Auto`, `Explicit`, `Manual`.
    pub fn name(self) -> &'static str {
        match self {
            AxisType::Auto => "Auto",
            AxisType::Explicit => "Explicit",
            AxisType::Manual => "Manual",
        }
    }
}

/// A named n-d grid of devices, as `jax.sharding.Mesh`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct Mesh {
    axis_names: Vec<String>,
    shape: Vec<usize>,
    device_ids: Vec<usize>,
    #[cfg_attr(target_arch = "wasm32", serde(default))]
    axis_types: Vec<AxisType>,
}

impl Mesh {
    /// A mesh of `shape` over devices `0..prod(shape)` in row-major order.
    pub fn new(axis_names: &[&str], shape: &[usize]) -> Result<Mesh> {
        let n = shape.iter().product();
        Self::with_device_ids(
            &axis_names.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            shape,
            (0..n).collect(),
        )
    }

    /// A mesh whose row-major positions hold the given device ids.
    pub fn with_device_ids(
        axis_names: &[String],
        shape: &[usize],
        device_ids: Vec<usize>,
    ) -> Result<Mesh> {
        if axis_names.len() != shape.len() {
            bail!(
                ValueError,
                "Mesh has {} axis names {:?} but the device array has {} dimensions {:?}",
                axis_names.len(),
                axis_names,
                shape.len(),
                shape
            );
        }
        for (i, name) in axis_names.iter().enumerate() {
            if name.is_empty() {
                bail!(ValueError, "Mesh axis {i} has an empty name");
            }
            if axis_names[..i].contains(name) {
                bail!(
                    ValueError,
                    "Mesh axis name '{name}' appears twice in {:?}",
                    axis_names
                );
            }
        }
        if let Some(i) = shape.iter().position(|&s| s == 0) {
            bail!(ValueError, "Mesh axis '{}' has size 0", axis_names[i]);
        }
        let n: usize = shape.iter().product();
        if device_ids.len() != n {
            bail!(
                ValueError,
                "Mesh of shape {:?} needs {} devices, got {}",
                shape,
                n,
                device_ids.len()
            );
        }
        Ok(Mesh {
            axis_names: axis_names.to_vec(),
            shape: shape.to_vec(),
            device_ids,
            axis_types: vec![AxisType::Auto; shape.len()],
        })
    }

    /// The same mesh with the given axis types, one per axis.
    pub fn with_axis_types(mut self, types: Vec<AxisType>) -> Result<Mesh> {
        if types.len() != self.shape.len() {
            bail!(
                ValueError,
                "Number of axis names should match the number of axis_types. Got axis_names={} and axis_types={}",
                fmt_names(&self.axis_names),
                fmt_types(&types)
            );
        }
        self.axis_types = types;
        Ok(self)
    }

    /// The type of every axis, major to minor. A mesh deserialised without
    /// them has `Auto` axes.
    pub fn axis_types(&self) -> Vec<AxisType> {
        let mut t = self.axis_types.clone();
        t.resize(self.shape.len(), AxisType::Auto);
        t
    }

    /// `'x': 4, 'y': 2`: the axes as a mesh's reprs list them.
    pub fn axes_text(&self) -> String {
        let axes: Vec<String> = self
            .axis_names
            .iter()
            .zip(&self.shape)
            .map(|(n, s)| format!("'{n}': {s}"))
            .collect();
        axes.join(", ")
    }

    /// `Mesh('x': 4, axis_types=(Explicit,))`: what `str(mesh)` prints and
    /// how a sharding's repr shows its mesh.
    pub fn text(&self) -> String {
        format!(
            "Mesh({}, axis_types={})",
            self.axes_text(),
            fmt_types(&self.axis_types())
        )
    }

    /// The repr of the mesh's `AbstractMesh`, as `get_abstract_mesh()` and
    /// JAX's messages print it.
    pub fn abstract_text(&self) -> String {
        format!(
            "AbstractMesh({}, axis_types={}, device_kind=cpu, num_cores=None, platform=cpu)",
            self.axes_text(),
            fmt_types(&self.axis_types())
        )
    }

    /// The type of axis `name`.
    pub fn axis_type(&self, name: &str) -> Result<AxisType> {
        Ok(self.axis_types()[self.axis(name)?])
    }

    /// The axis names, major to minor.
    pub fn axis_names(&self) -> &[String] {
        &self.axis_names
    }

    /// The grid's dimensions.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Device ids in row-major position order.
    pub fn device_ids(&self) -> &[usize] {
        &self.device_ids
    }

    /// Number of devices.
    pub fn size(&self) -> usize {
        self.device_ids.len()
    }

    /// The index of axis `name`, or a NameError listing the mesh's axes.
    pub fn axis(&self, name: &str) -> Result<usize> {
        self.axis_names
            .iter()
            .position(|a| a == name)
            .ok_or_else(|| {
                err!(
                    NameError,
                    "unbound axis name: {name}. The mesh's axes are {}",
                    fmt_names(&self.axis_names)
                )
            })
    }

    /// The size of axis `name`.
    pub fn axis_size(&self, name: &str) -> Result<usize> {
        Ok(self.shape[self.axis(name)?])
    }

    /// The product of the sizes of `axes`.
    pub fn axes_size(&self, axes: &[String]) -> Result<usize> {
        axes.iter().map(|a| self.axis_size(a)).product()
    }

    /// Mesh coordinates of the device at `position`.
    pub fn coords(&self, position: usize) -> Vec<usize> {
        let mut c = vec![0; self.shape.len()];
        let mut p = position;
        for i in (0..self.shape.len()).rev() {
            c[i] = p % self.shape[i];
            p /= self.shape[i];
        }
        c
    }

    /// The position of the device at mesh coordinates `coords`.
    pub fn position(&self, coords: &[usize]) -> usize {
        coords
            .iter()
            .zip(&self.shape)
            .fold(0, |acc, (&c, &s)| acc * s + c)
    }

    /// The linear index of `position` along `axes` (major to minor in the order
    /// given): `axis_index(axes)` on that device, and its rank in its group.
    pub fn index_along(&self, position: usize, axes: &[String]) -> Result<usize> {
        let c = self.coords(position);
        let mut idx = 0;
        for a in axes {
            let i = self.axis(a)?;
            idx = idx * self.shape[i] + c[i];
        }
        Ok(idx)
    }

    /// The positions of the devices that differ from `position` only along
    /// `axes`, ordered by their index along `axes`: the group a collective over
    /// `axes` combines. Fails on an unknown or repeated axis.
    pub fn group(&self, position: usize, axes: &[String]) -> Result<Vec<usize>> {
        let idx: Vec<usize> = axes.iter().map(|a| self.axis(a)).collect::<Result<_>>()?;
        for (k, a) in axes.iter().enumerate() {
            if axes[..k].contains(a) {
                bail!(ValueError, "axis name '{a}' appears twice in {:?}", axes);
            }
        }
        let base = self.coords(position);
        let sizes: Vec<usize> = idx.iter().map(|&i| self.shape[i]).collect();
        let count: usize = sizes.iter().product();
        let mut out = Vec::with_capacity(count);
        for r in 0..count {
            let mut c = base.clone();
            let mut rem = r;
            for k in (0..idx.len()).rev() {
                c[idx[k]] = rem % sizes[k];
                rem /= sizes[k];
            }
            out.push(self.position(&c));
        }
        Ok(out)
    }
}

/// Formats axis names as JAX prints a tuple of names: `('x', 'y')`.
pub fn fmt_names(names: &[String]) -> String {
    let inner: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    if inner.len() == 1 {
        format!("({},)", inner[0])
    } else {
        format!("({})", inner.join(", "))
    }
}

/// Formats axis types as JAX prints a tuple of them: `(Auto,)`, `(Explicit, Explicit)`.
pub fn fmt_types(types: &[AxisType]) -> String {
    let inner: Vec<&str> = types.iter().map(|t| t.name()).collect();
    if inner.len() == 1 {
        format!("({},)", inner[0])
    } else {
        format!("({})", inner.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn coords_are_row_major() {
        let m = Mesh::new(&["x", "y"], &[2, 4]).unwrap();
        assert_eq!(m.coords(0), vec![0, 0]);
        assert_eq!(m.coords(5), vec![1, 1]);
        assert_eq!(m.position(&[1, 3]), 7);
    }

    #[test]
    fn groups_vary_only_along_named_axes() {
        let m = Mesh::new(&["x", "y", "z"], &[2, 2, 2]).unwrap();
        // Device 5 = (1, 0, 1).
        assert_eq!(m.group(5, &s(&["y"])).unwrap(), vec![5, 7]);
        assert_eq!(m.group(5, &s(&["x", "z"])).unwrap(), vec![0, 1, 4, 5]);
        // Listing axes minor-first changes the rank order, as in JAX.
        assert_eq!(m.group(5, &s(&["z", "x"])).unwrap(), vec![0, 4, 1, 5]);
        assert_eq!(m.index_along(5, &s(&["z", "x"])).unwrap(), 3);
    }

    #[test]
    fn unknown_axis_names_the_bound_ones() {
        let m = Mesh::new(&["data"], &[4]).unwrap();
        let e = m.group(0, &s(&["batch"])).unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::NameError);
        assert!(
            e.message.contains("batch") && e.message.contains("'data'"),
            "{}",
            e.message
        );
    }

    #[test]
    fn bad_meshes_are_refused() {
        assert!(Mesh::new(&["a", "a"], &[2, 2]).is_err());
        assert!(Mesh::new(&["a"], &[2, 2]).is_err());
        assert!(Mesh::new(&[""], &[2]).is_err());
    }
}
