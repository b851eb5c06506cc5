//! Layouts of values in a per-device program, and the collectives that move
//! a value from one layout to another.
//!
//! A layout is a partition spec written out per dimension: `None` where the
//! dimension is whole on every device, or the mesh axes that split it, major
//! to minor. Moving between layouts takes at most three steps, each a real
//! collective or a local slice on the fabric:
//!
//! 1. a dimension that goes from axes `A` to whole while another goes from
//!    whole to `A` is one `all_to_all` (JAX's "move the split");
//! 2. every other dimension that loses its axes is `all_gather`ed;
//! 3. every dimension that gains axes is cut locally: each device keeps its
//!    block, found from its `axis_index` (no data moves).

use crate::error::Result;
use crate::mesh::Mesh;
use crate::ops;
use crate::trace::Value;

/// The mesh axes splitting one dimension (None: whole).
pub type Entry = Option<Vec<String>>;

/// A layout: one entry per dimension.
pub type Layout = Vec<Entry>;

/// The replicated layout of a value of `ndim` dimensions.
pub fn whole(ndim: usize) -> Layout {
    vec![None; ndim]
}

/// `layout` with every entry the mesh cannot split evenly (or at all)
/// dropped, so that the partitioner never makes uneven blocks: such a
/// dimension stays whole, which changes no value.
pub fn fit(mesh: &Mesh, mut layout: Layout, shape: &[usize]) -> Layout {
    layout.resize(shape.len(), None);
    let mut used: Vec<String> = vec![];
    for (d, entry) in layout.iter_mut().enumerate() {
        let keep = entry.as_ref().is_some_and(|axes| {
            let fresh = axes.iter().all(|a| !used.contains(a));
            let size = mesh.axes_size(axes).ok();
            fresh && size.is_some_and(|n| n > 0 && shape[d] % n == 0)
        });
        match entry {
            Some(axes) if keep => used.extend(axes.iter().cloned()),
            _ => *entry = None,
        }
    }
    layout
}

/// Moves `x` (a block of a value of `global` shape, laid out as `from`) to
/// the layout `to`, emitting the collectives that takes.
pub fn reshard(
    mesh: &Mesh,
    x: &Value,
    from: &[Entry],
    to: &[Entry],
    global: &[usize],
) -> Result<Value> {
    let mut x = x.clone();
    let mut now: Layout = from.to_vec();
    move_splits(&mut x, &mut now, to)?;
    for d in 0..now.len() {
        if let Some(axes) = now[d].clone() {
            if to[d].as_ref() != Some(&axes) {
                x = ops::all_gather(&x, &axes, d as i64, true, false)?;
                now[d] = None;
            }
        }
    }
    for d in 0..now.len() {
        if let (None, Some(axes)) = (&now[d], &to[d]) {
            x = local_block(mesh, &x, axes, d, global[d])?;
            now[d] = Some(axes.clone());
        }
    }
    Ok(x)
}

/// Step 1 of [`reshard`]: one `all_to_all` for each pair of dimensions
/// where the axes leaving one are exactly those arriving at the other.
fn move_splits(x: &mut Value, now: &mut Layout, to: &[Entry]) -> Result<()> {
    for src in 0..now.len() {
        let Some(axes) = now[src].clone() else {
            continue;
        };
        if to[src].is_some() {
            continue;
        }
        let dst = (0..now.len()).find(|&d| now[d].is_none() && to[d].as_ref() == Some(&axes));
        if let Some(dst) = dst {
            *x = ops::all_to_all(x, &axes, dst as i64, src as i64, true)?;
            now[src] = None;
            now[dst] = Some(axes);
        }
    }
    Ok(())
}

/// This device's block of dimension `d` (whole, of size `size`) when `axes`
/// split it: a dynamic slice at `axis_index(axes) * block`.
fn local_block(mesh: &Mesh, x: &Value, axes: &[String], d: usize, size: usize) -> Result<Value> {
    let block = size / mesh.axes_size(axes)?.max(1);
    let index = ops::axis_index(axes)?;
    let start = ops::mul_scalar(&index, block as f64)?;
    let start = ops::convert(&start, crate::array::DType::I32)?;
    ops::dynamic_slice_in_dim(x, &start, block, d as i64)
}
