//! Operations that move elements without computing on them: reshape,
//! transpose, slicing, padding, concatenation, splitting, broadcasting in
//! lax's explicit form.
//!
//! Axes are `usize` (already normalised by the caller); index arguments of the
//! dynamic slices are `i64` because JAX clamps them rather than failing.

use super::strided::scatter;
use super::{numel, strides, Array, Buffer, DType, C64};
use crate::bail;
use crate::error::Result;

/// Fails with a ValueError unless `axis < ndim`, naming the operation and shape.
pub(crate) fn check_axis(op: &str, axis: usize, shape: &[usize]) -> Result<()> {
    if axis >= shape.len() {
        bail!(
            ValueError,
            "{op}: axis {axis} is out of bounds for array of dimension {} (shape {:?})",
            shape.len(),
            shape
        );
    }
    Ok(())
}

/// Fails unless `axes` are in range and distinct.
pub(crate) fn check_axes(op: &str, axes: &[usize], shape: &[usize]) -> Result<()> {
    for (i, &a) in axes.iter().enumerate() {
        check_axis(op, a, shape)?;
        if axes[..i].contains(&a) {
            bail!(ValueError, "{op}: repeated axis {a} in {:?}", axes);
        }
    }
    Ok(())
}

/// Formats a shape as Python prints a tuple: `(3, 4)`, `(5,)`, `()`.
pub fn fmt_shape(shape: &[usize]) -> String {
    match shape.len() {
        1 => format!("({},)", shape[0]),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

impl Array {
    /// `jnp.reshape`: the same elements, row-major, under `shape`.
    pub fn reshape(&self, shape: &[usize]) -> Result<Array> {
        if numel(shape) != self.size() {
            bail!(
                TypeError,
                "cannot reshape array of shape {} (size {}) into shape {} (size {})",
                fmt_shape(self.shape()),
                self.size(),
                fmt_shape(shape),
                numel(shape)
            );
        }
        self.with_shape(shape)
    }

    /// `jnp.transpose(x, perm)`: output axis `k` is input axis `perm[k]`.
    pub fn transpose(&self, perm: &[usize]) -> Result<Array> {
        let nd = self.ndim();
        let mut seen = vec![false; nd];
        let valid = perm.len() == nd
            && perm
                .iter()
                .all(|&p| p < nd && !std::mem::replace(&mut seen[p], true));
        if !valid {
            bail!(
                ValueError,
                "transpose permutation isn't a permutation of operand dimensions, got permutation {:?} for operand shape {}",
                perm,
                fmt_shape(self.shape())
            );
        }
        if perm.iter().enumerate().all(|(i, &p)| i == p) {
            return Ok(self.clone());
        }
        let st = strides(self.shape());
        let out_shape: Vec<usize> = perm.iter().map(|&p| self.shape()[p]).collect();
        let out_strides: Vec<isize> = perm.iter().map(|&p| st[p] as isize).collect();
        Ok(self.gather_view(&out_shape, &out_strides, 0))
    }

    /// `jnp.moveaxis(x, src, dst)`: axis `src` moves to position `dst`, the
    /// others keep their order.
    pub fn moveaxis(&self, src: usize, dst: usize) -> Result<Array> {
        check_axis("moveaxis", src, self.shape())?;
        check_axis("moveaxis", dst, self.shape())?;
        let mut perm: Vec<usize> = (0..self.ndim()).filter(|&a| a != src).collect();
        perm.insert(dst, src);
        self.transpose(&perm)
    }

    /// `jnp.swapaxes(x, a, b)`.
    pub fn swapaxes(&self, a: usize, b: usize) -> Result<Array> {
        check_axis("swapaxes", a, self.shape())?;
        check_axis("swapaxes", b, self.shape())?;
        let mut perm: Vec<usize> = (0..self.ndim()).collect();
        perm.swap(a, b);
        self.transpose(&perm)
    }

    /// `jnp.expand_dims(x, axis)`: a new axis of size 1 at `axis` (0..=ndim).
    pub fn expand_dims(&self, axis: usize) -> Result<Array> {
        if axis > self.ndim() {
            bail!(
                ValueError,
                "expand_dims: axis {axis} is out of bounds for the result of dimension {} (input shape {})",
                self.ndim() + 1,
                fmt_shape(self.shape())
            );
        }
        let mut shape = self.shape().to_vec();
        shape.insert(axis, 1);
        self.with_shape(&shape)
    }

    /// `lax.squeeze(x, axes)`: removes exactly the listed axes, each of which
    /// must have size 1 (an empty list removes nothing).
    pub fn squeeze(&self, axes: &[usize]) -> Result<Array> {
        check_axes("squeeze", axes, self.shape())?;
        for &a in axes {
            if self.shape()[a] != 1 {
                bail!(
                    ValueError,
                    "cannot select an axis to squeeze out which has size not equal to one: axis {a} has size {} in shape {}",
                    self.shape()[a],
                    fmt_shape(self.shape())
                );
            }
        }
        let shape: Vec<usize> = (0..self.ndim())
            .filter(|a| !axes.contains(a))
            .map(|a| self.shape()[a])
            .collect();
        self.with_shape(&shape)
    }

    /// `jnp.concatenate(arrays, axis)`: all shapes must agree except along
    /// `axis`; dtypes promote (bool < int32 < float32).
    pub fn concatenate(arrays: &[Array], axis: usize) -> Result<Array> {
        let Some(first) = arrays.first() else {
            bail!(ValueError, "Need at least one array to concatenate.");
        };
        if first.ndim() == 0 {
            bail!(
                ValueError,
                "Zero-dimensional arrays cannot be concatenated."
            );
        }
        check_axis("concatenate", axis, first.shape())?;
        let mut dtype = first.dtype();
        let mut total = 0;
        for a in arrays {
            let same_rank = a.ndim() == first.ndim();
            let others_agree =
                same_rank && (0..a.ndim()).all(|d| d == axis || a.shape()[d] == first.shape()[d]);
            if !others_agree {
                bail!(
                    TypeError,
                    "Cannot concatenate arrays with shapes that differ in dimensions other than the one being concatenated: concatenating along dimension {axis} for shapes {} and {}",
                    fmt_shape(first.shape()),
                    fmt_shape(a.shape())
                );
            }
            dtype = dtype.promote(a.dtype());
            total += a.shape()[axis];
        }
        let mut shape = first.shape().to_vec();
        shape[axis] = total;
        let outer: usize = shape[..axis].iter().product();
        let inner: usize = shape[axis + 1..].iter().product();
        let parts: Vec<Array> = arrays.iter().map(|a| a.astype(dtype)).collect();
        // Interleave: for each outer index, append each part's contiguous run.
        fn cat<T: Copy>(parts: &[&[T]], runs: &[usize], outer: usize) -> Vec<T> {
            let mut out = Vec::with_capacity(runs.iter().sum::<usize>() * outer);
            for o in 0..outer {
                for (p, &r) in parts.iter().zip(runs) {
                    out.extend_from_slice(&p[o * r..(o + 1) * r]);
                }
            }
            out
        }
        let runs: Vec<usize> = parts.iter().map(|a| a.shape()[axis] * inner).collect();
        // Narrow parts are joined in their wide buffers; the values stay
        // those of the narrow type, which the result keeps.
        let parts: Vec<Array> = parts.iter().map(Array::widened).collect();
        let buffer = match dtype.storage() {
            DType::F32 => {
                let v: Vec<&[f32]> = parts.iter().map(|a| a.f32_data()).collect::<Result<_>>()?;
                Buffer::F32(cat(&v, &runs, outer).into())
            }
            DType::I32 => {
                let v: Vec<&[i32]> = parts.iter().map(|a| a.i32_data()).collect::<Result<_>>()?;
                Buffer::I32(cat(&v, &runs, outer).into())
            }
            DType::U32 => {
                let v: Vec<&[u32]> = parts.iter().map(|a| a.u32_data()).collect::<Result<_>>()?;
                Buffer::U32(cat(&v, &runs, outer).into())
            }
            DType::Bool => {
                let v: Vec<&[bool]> = parts.iter().map(|a| a.bool_data()).collect::<Result<_>>()?;
                Buffer::Bool(cat(&v, &runs, outer).into())
            }
            DType::C64 => {
                let v: Vec<&[C64]> = parts.iter().map(|a| a.c64_data()).collect::<Result<_>>()?;
                Buffer::C64(cat(&v, &runs, outer).into())
            }
            narrow => bail!(RuntimeError, "{} is held in a wider buffer", narrow.name()),
        };
        Ok(Array::from_buffer(&shape, buffer)?.fit(dtype))
    }

    /// `jnp.stack(arrays, axis)`: all shapes equal; a new axis at `axis`.
    pub fn stack(arrays: &[Array], axis: usize) -> Result<Array> {
        let Some(first) = arrays.first() else {
            bail!(ValueError, "Need at least one array to stack.");
        };
        for a in arrays {
            if a.shape() != first.shape() {
                bail!(
                    ValueError,
                    "All input arrays must have the same shape: got {} and {}",
                    fmt_shape(first.shape()),
                    fmt_shape(a.shape())
                );
            }
        }
        let expanded: Vec<Array> = arrays
            .iter()
            .map(|a| a.expand_dims(axis))
            .collect::<Result<_>>()?;
        Array::concatenate(&expanded, axis)
    }

    /// `jnp.split(x, sections, axis)` with an integer: `sections` equal parts.
    pub fn split(&self, sections: usize, axis: usize) -> Result<Vec<Array>> {
        check_axis("split", axis, self.shape())?;
        let n = self.shape()[axis];
        if sections == 0 || n % sections != 0 {
            bail!(
                ValueError,
                "array split does not result in an equal division: axis {axis} of size {n} cannot be split into {sections} sections"
            );
        }
        let step = n / sections;
        let indices: Vec<usize> = (1..sections).map(|i| i * step).collect();
        self.split_at_indices(&indices, axis)
    }

    /// `jnp.split(x, indices, axis)` with a list: parts `[0:i0], [i0:i1], ...,
    /// [ik:]`, where indices past the end clamp and decreasing ones give empty
    /// parts, as with Python slices.
    pub fn split_at_indices(&self, indices: &[usize], axis: usize) -> Result<Vec<Array>> {
        check_axis("split", axis, self.shape())?;
        let n = self.shape()[axis];
        let mut bounds = Vec::with_capacity(indices.len() + 2);
        bounds.push(0);
        bounds.extend(indices.iter().map(|&i| i.min(n)));
        bounds.push(n);
        let mut out = Vec::with_capacity(bounds.len() - 1);
        for w in bounds.windows(2) {
            let (s, e) = (w[0], w[1].max(w[0]));
            let mut starts = vec![0; self.ndim()];
            let mut limits = self.shape().to_vec();
            starts[axis] = s;
            limits[axis] = e;
            out.push(self.slice(&starts, &limits, None)?);
        }
        Ok(out)
    }

    /// `lax.slice(x, starts, limits, strides)`: elements `starts[d] <= i <
    /// limits[d]` stepping by `strides[d]` (1 when `None`).
    pub fn slice(
        &self,
        starts: &[usize],
        limits: &[usize],
        strides_: Option<&[usize]>,
    ) -> Result<Array> {
        let nd = self.ndim();
        let ones = vec![1; nd];
        let steps = strides_.unwrap_or(&ones);
        if starts.len() != nd || limits.len() != nd || steps.len() != nd {
            bail!(
                TypeError,
                "slice: start_indices {:?}, limit_indices {:?} and strides {:?} must each have one entry per dimension of operand shape {}",
                starts,
                limits,
                steps,
                fmt_shape(self.shape())
            );
        }
        let mut out_shape = Vec::with_capacity(nd);
        for d in 0..nd {
            if starts[d] > limits[d] || limits[d] > self.shape()[d] || steps[d] == 0 {
                bail!(
                    ValueError,
                    "slice: invalid bounds on dimension {d}: start {}, limit {}, stride {} for operand shape {}",
                    starts[d],
                    limits[d],
                    steps[d],
                    fmt_shape(self.shape())
                );
            }
            out_shape.push((limits[d] - starts[d]).div_ceil(steps[d]));
        }
        let st = strides(self.shape());
        let offset: usize = (0..nd).map(|d| starts[d] * st[d]).sum();
        let out_strides: Vec<isize> = (0..nd).map(|d| (st[d] * steps[d]) as isize).collect();
        Ok(self.gather_view(&out_shape, &out_strides, offset as isize))
    }

    /// JAX's clamping of dynamic start indices: each start moves into
    /// `[0, dim - size]` so the whole window stays in bounds.
    fn clamp_starts(&self, op: &str, starts: &[i64], sizes: &[usize]) -> Result<Vec<usize>> {
        if starts.len() != self.ndim() || sizes.len() != self.ndim() {
            bail!(
                TypeError,
                "{op}: got {} start indices and {} sizes for operand shape {}; need one per dimension",
                starts.len(),
                sizes.len(),
                fmt_shape(self.shape())
            );
        }
        let mut out = Vec::with_capacity(starts.len());
        for d in 0..self.ndim() {
            if sizes[d] > self.shape()[d] {
                bail!(
                    TypeError,
                    "{op}: size {} on dimension {d} exceeds the operand's size {} (operand shape {})",
                    sizes[d],
                    self.shape()[d],
                    fmt_shape(self.shape())
                );
            }
            let hi = (self.shape()[d] - sizes[d]) as i64;
            out.push(starts[d].clamp(0, hi) as usize);
        }
        Ok(out)
    }

    /// `lax.dynamic_slice(x, starts, sizes)`, starts clamped into bounds.
    pub fn dynamic_slice(&self, starts: &[i64], sizes: &[usize]) -> Result<Array> {
        let s = self.clamp_starts("dynamic_slice", starts, sizes)?;
        let limits: Vec<usize> = s.iter().zip(sizes).map(|(a, b)| a + b).collect();
        self.slice(&s, &limits, None)
    }

    /// `lax.dynamic_update_slice(x, update, starts)`: `x` with the window at
    /// the (clamped) starts replaced by `update`, cast to `x`'s dtype.
    pub fn dynamic_update_slice(&self, update: &Array, starts: &[i64]) -> Result<Array> {
        if update.ndim() != self.ndim() {
            bail!(
                TypeError,
                "dynamic_update_slice: update shape {} must have the same rank as operand shape {}",
                fmt_shape(update.shape()),
                fmt_shape(self.shape())
            );
        }
        let s = self.clamp_starts("dynamic_update_slice", starts, update.shape())?;
        let st = strides(self.shape());
        let offset: usize = s.iter().zip(&st).map(|(a, b)| a * b).sum();
        let ist: Vec<isize> = st.iter().map(|&x| x as isize).collect();
        let upd = update.astype(self.dtype());
        let (sh, off) = (update.shape(), offset as isize);
        let buffer = match (self.buffer(), upd.buffer()) {
            (Buffer::F32(a), Buffer::F32(b)) => Buffer::F32(scatter(a, b, sh, &ist, off)),
            (Buffer::I32(a), Buffer::I32(b)) => Buffer::I32(scatter(a, b, sh, &ist, off)),
            (Buffer::Bool(a), Buffer::Bool(b)) => Buffer::Bool(scatter(a, b, sh, &ist, off)),
            (Buffer::U32(a), Buffer::U32(b)) => Buffer::U32(scatter(a, b, sh, &ist, off)),
            (Buffer::C64(a), Buffer::C64(b)) => Buffer::C64(scatter(a, b, sh, &ist, off)),
            _ => unreachable!("update was cast to the operand's dtype"),
        };
        Array::from_buffer(self.shape(), buffer)
    }

    /// `lax.pad` with non-negative edge padding and no interior padding:
    /// `lo[d]` copies of `value` before and `hi[d]` after each dimension.
    pub fn pad(&self, lo: &[usize], hi: &[usize], value: f64) -> Result<Array> {
        if lo.len() != self.ndim() || hi.len() != self.ndim() {
            bail!(
                ValueError,
                "pad: padding config lo {:?} / hi {:?} must have one entry per dimension of operand shape {}",
                lo,
                hi,
                fmt_shape(self.shape())
            );
        }
        let out_shape: Vec<usize> = (0..self.ndim())
            .map(|d| lo[d] + self.shape()[d] + hi[d])
            .collect();
        let filled = Array::full(&out_shape, value, self.dtype());
        let starts: Vec<i64> = lo.iter().map(|&l| l as i64).collect();
        filled.dynamic_update_slice(self, &starts)
    }

    /// `lax.rev(x, axes)` / `jnp.flip`: reverses the order along each of `axes`.
    pub fn rev(&self, axes: &[usize]) -> Result<Array> {
        check_axes("rev", axes, self.shape())?;
        let st = strides(self.shape());
        let mut offset = 0isize;
        let mut out_strides: Vec<isize> = st.iter().map(|&s| s as isize).collect();
        for &a in axes {
            if self.shape()[a] == 0 {
                return Ok(self.clone());
            }
            offset += ((self.shape()[a] - 1) * st[a]) as isize;
            out_strides[a] = -out_strides[a];
        }
        Ok(self.gather_view(self.shape(), &out_strides, offset))
    }

    /// `lax.broadcast_in_dim(x, shape, broadcast_dimensions)`: operand axis
    /// `i` becomes output axis `broadcast_dimensions[i]` (strictly increasing),
    /// whose size must equal the operand's or the operand's must be 1.
    pub fn broadcast_in_dim(
        &self,
        shape: &[usize],
        broadcast_dimensions: &[usize],
    ) -> Result<Array> {
        let bd = broadcast_dimensions;
        if bd.len() != self.ndim() {
            bail!(
                TypeError,
                "broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; got broadcast_dimensions {:?} for operand ndim {} (shape {})",
                bd,
                self.ndim(),
                fmt_shape(self.shape())
            );
        }
        for (i, &d) in bd.iter().enumerate() {
            if d >= shape.len() {
                bail!(
                    TypeError,
                    "broadcast_in_dim broadcast_dimensions {:?} out of range for result shape {}",
                    bd,
                    fmt_shape(shape)
                );
            }
            if i > 0 && bd[i - 1] >= d {
                bail!(
                    TypeError,
                    "broadcast_in_dim broadcast_dimensions must be strictly increasing; got broadcast_dimensions {:?}",
                    bd
                );
            }
            let s = self.shape()[i];
            if s != 1 && s != shape[d] {
                bail!(
                    TypeError,
                    "broadcast_in_dim operand dimension sizes must either be 1, or be equal to their corresponding dimensions in the target broadcast shape; got operand of shape {}, target broadcast shape {}, broadcast_dimensions {:?}",
                    fmt_shape(self.shape()),
                    fmt_shape(shape),
                    bd
                );
            }
        }
        let st = strides(self.shape());
        let mut out_strides = vec![0isize; shape.len()];
        for (i, &d) in bd.iter().enumerate() {
            if self.shape()[i] != 1 {
                out_strides[d] = st[i] as isize;
            }
        }
        Ok(self.gather_view(shape, &out_strides, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iota(shape: &[usize]) -> Array {
        Array::from_f32(shape, (0..numel(shape)).map(|i| i as f32).collect()).unwrap()
    }

    fn vals(a: &Array) -> Vec<f64> {
        a.to_f64_vec()
    }

    #[test]
    fn reshape_keeps_order_and_checks_size() {
        let a = iota(&[2, 3]);
        let r = a.reshape(&[3, 2]).unwrap();
        assert_eq!(r.shape(), &[3, 2]);
        assert_eq!(vals(&r), vals(&a));
        let e = a.reshape(&[4]).unwrap_err();
        assert!(
            e.message.contains("(2, 3)") && e.message.contains("(4,)"),
            "{}",
            e.message
        );
    }

    #[test]
    fn transpose_permutes_axes() {
        let a = iota(&[2, 3]);
        let t = a.transpose(&[1, 0]).unwrap();
        assert_eq!(t.shape(), &[3, 2]);
        assert_eq!(vals(&t), vec![0., 3., 1., 4., 2., 5.]);
        let b = iota(&[2, 3, 4]);
        let t = b.transpose(&[2, 0, 1]).unwrap();
        assert_eq!(t.shape(), &[4, 2, 3]);
        // t[1, 1, 2] = b[1, 2, 1] = 12 + 8 + 1
        assert_eq!(t.get_f64(6 + 3 + 2), 21.0);
        assert!(a.transpose(&[0, 0]).is_err());
        assert!(a.transpose(&[0]).is_err());
        assert!(a.transpose(&[0, 2]).is_err());
    }

    #[test]
    fn moveaxis_and_swapaxes() {
        let b = iota(&[2, 3, 4]);
        assert_eq!(b.moveaxis(0, 2).unwrap().shape(), &[3, 4, 2]);
        assert_eq!(b.moveaxis(2, 0).unwrap().shape(), &[4, 2, 3]);
        let s = b.swapaxes(0, 2).unwrap();
        assert_eq!(s.shape(), &[4, 3, 2]);
        // s[3, 0, 1] = b[1, 0, 3] = 15
        assert_eq!(s.get_f64(3 * 6 + 1), 15.0);
        assert!(b.moveaxis(3, 0).is_err());
    }

    #[test]
    fn expand_and_squeeze() {
        let a = iota(&[2, 3]);
        assert_eq!(a.expand_dims(2).unwrap().shape(), &[2, 3, 1]);
        assert!(a.expand_dims(3).is_err());
        let b = iota(&[1, 3, 1]);
        assert_eq!(b.squeeze(&[0, 2]).unwrap().shape(), &[3]);
        assert_eq!(b.squeeze(&[2]).unwrap().shape(), &[1, 3]);
        let e = b.squeeze(&[1]).unwrap_err();
        assert!(e.message.contains("axis 1 has size 3"), "{}", e.message);
    }

    #[test]
    fn concatenate_promotes_and_interleaves() {
        let a = iota(&[2, 2]);
        let b = Array::from_i32(&[2, 1], vec![7, 8]).unwrap();
        let c = Array::concatenate(&[a.clone(), b], 1).unwrap();
        assert_eq!(c.dtype(), DType::F32);
        assert_eq!(c.shape(), &[2, 3]);
        assert_eq!(vals(&c), vec![0., 1., 7., 2., 3., 8.]);
        let d = Array::concatenate(&[a.clone(), a.clone()], 0).unwrap();
        assert_eq!(d.shape(), &[4, 2]);
        let e = Array::concatenate(&[a, iota(&[3, 3])], 0).unwrap_err();
        assert!(
            e.message.contains("(2, 2)") && e.message.contains("(3, 3)"),
            "{}",
            e.message
        );
    }

    #[test]
    fn stack_adds_an_axis() {
        let a = iota(&[2]);
        let s = Array::stack(&[a.clone(), a.clone()], 1).unwrap();
        assert_eq!(s.shape(), &[2, 2]);
        assert_eq!(vals(&s), vec![0., 0., 1., 1.]);
        assert!(Array::stack(&[a, iota(&[3])], 0).is_err());
    }

    #[test]
    fn split_even_and_at_indices() {
        let a = iota(&[6]);
        let p = a.split(3, 0).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(vals(&p[1]), vec![2., 3.]);
        let e = a.split(4, 0).unwrap_err();
        assert!(
            e.message.contains("size 6") && e.message.contains("4 sections"),
            "{}",
            e.message
        );
        let q = a.split_at_indices(&[2, 5, 9], 0).unwrap();
        let lens: Vec<usize> = q.iter().map(|x| x.shape()[0]).collect();
        assert_eq!(lens, vec![2, 3, 1, 0]);
    }

    #[test]
    fn slice_with_strides() {
        let a = iota(&[4, 5]);
        let s = a.slice(&[1, 0], &[4, 5], Some(&[2, 2])).unwrap();
        assert_eq!(s.shape(), &[2, 3]);
        assert_eq!(vals(&s), vec![5., 7., 9., 15., 17., 19.]);
        assert!(a.slice(&[0, 0], &[5, 5], None).is_err());
    }

    #[test]
    fn dynamic_slice_clamps_starts() {
        let a = iota(&[5]);
        assert_eq!(vals(&a.dynamic_slice(&[4], &[2]).unwrap()), vec![3., 4.]);
        assert_eq!(vals(&a.dynamic_slice(&[-3], &[2]).unwrap()), vec![0., 1.]);
        let u = Array::from_f32(&[2], vec![10., 11.]).unwrap();
        let r = a.dynamic_update_slice(&u, &[9]).unwrap();
        assert_eq!(vals(&r), vec![0., 1., 2., 10., 11.]);
        assert!(a.dynamic_slice(&[0], &[6]).is_err());
    }

    #[test]
    fn pad_and_rev() {
        let a = iota(&[2, 2]);
        let p = a.pad(&[1, 0], &[0, 1], -1.0).unwrap();
        assert_eq!(p.shape(), &[3, 3]);
        assert_eq!(vals(&p), vec![-1., -1., -1., 0., 1., -1., 2., 3., -1.]);
        let r = a.rev(&[1]).unwrap();
        assert_eq!(vals(&r), vec![1., 0., 3., 2.]);
        let r = a.rev(&[0, 1]).unwrap();
        assert_eq!(vals(&r), vec![3., 2., 1., 0.]);
    }

    #[test]
    fn broadcast_in_dim_lax_semantics() {
        let a = iota(&[3]);
        let b = a.broadcast_in_dim(&[2, 3], &[1]).unwrap();
        assert_eq!(vals(&b), vec![0., 1., 2., 0., 1., 2.]);
        let c = a.broadcast_in_dim(&[3, 2], &[0]).unwrap();
        assert_eq!(vals(&c), vec![0., 0., 1., 1., 2., 2.]);
        let one = iota(&[1, 3]);
        let d = one.broadcast_in_dim(&[2, 4, 3], &[0, 2]).unwrap();
        assert_eq!(d.shape(), &[2, 4, 3]);
        assert_eq!(d.get_f64(4 * 3 + 3 + 2), 2.0);
        assert!(one.broadcast_in_dim(&[3, 1], &[1, 0]).is_err());
        assert!(a.broadcast_in_dim(&[2, 4], &[1]).is_err());
    }

    #[test]
    fn fmt_shape_as_python_tuple() {
        assert_eq!(fmt_shape(&[]), "()");
        assert_eq!(fmt_shape(&[5]), "(5,)");
        assert_eq!(fmt_shape(&[3, 4]), "(3, 4)");
    }
}
