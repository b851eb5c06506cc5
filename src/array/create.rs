//! Arrays built from a rule rather than data: `arange`, `linspace`, `eye`,
//! `iota`.

use super::shape_ops::fmt_shape;
use super::{Array, DType};
use crate::bail;
use crate::error::Result;

impl Array {
    /// `jnp.arange(start, stop, step, dtype)`: `ceil((stop - start) / step)`
    /// values. float32 values are filled as NumPy does: `start + i * delta`
    /// in float32, where `delta` is the float32 difference of the first two
    /// values (so `arange(0, 1, 0.1)` ends in `0.90000004`, as in JAX).
    pub fn arange(start: f64, stop: f64, step: f64, dtype: DType) -> Result<Array> {
        if step == 0.0 || !step.is_finite() || !start.is_finite() || !stop.is_finite() {
            bail!(
                ValueError,
                "arange: start {start}, stop {stop} and step {step} must be finite and step nonzero"
            );
        }
        let count = ((stop - start) / step).ceil().max(0.0);
        // An int32 length bounds what JAX (x64 off) can build, and keeps a
        // huge range from exhausting memory.
        if count > i32::MAX as f64 {
            bail!(
                ValueError,
                "arange: start {start}, stop {stop}, step {step} would give {count} elements, more than an array can hold"
            );
        }
        let n = count as usize;
        if dtype.is_narrow() {
            // NumPy fills a narrow range in the wide type, then rounds.
            return Ok(Self::arange(start, stop, step, dtype.storage())?.fit(dtype));
        }
        match dtype {
            DType::F32 => {
                let a0 = start as f32;
                let delta = (start + step) as f32 - a0;
                let v = (0..n)
                    .map(|i| if i == 0 { a0 } else { a0 + i as f32 * delta })
                    .collect();
                Array::from_f32(&[n], v)
            }
            DType::I32 => {
                let (s, d) = (start as i64, step as i64);
                Array::from_i32(&[n], (0..n as i64).map(|i| (s + i * d) as i32).collect())
            }
            DType::U32 => {
                let (s, d) = (start as i64, step as i64);
                Array::from_u32(&[n], (0..n as i64).map(|i| (s + i * d) as u32).collect())
            }
            DType::C64 => bail!(
                NotImplementedError,
                "not supported by shardlab yet: complex64 in arange"
            ),
            DType::Bool => {
                if n > 2 {
                    bail!(
                        ValueError,
                        "arange: a bool range can hold at most 2 values, {n} requested"
                    );
                }
                Array::from_bool(
                    &[n],
                    (0..n).map(|i| start + i as f64 * step != 0.0).collect(),
                )
            }
            narrow => bail!(RuntimeError, "{} is held in a wider buffer", narrow.name()),
        }
    }

    /// `jnp.linspace(start, stop, num, endpoint)` in float32 as XLA's CPU
    /// backend computes JAX's `start * (1 - t) + stop * t`, to the last bit.
    /// XLA turns `t = i / div` into `i * (1 / div)` and `stop * t` into
    /// `i * (stop * (1 / div))`, and LLVM contracts the final add into a
    /// fused multiply-add. Which product it fuses depends on how the loop is
    /// emitted: unrolled (up to about 350 points) it fuses `i * (stop / div)`,
    /// except at `i == 1`, where that product folds away and the other one
    /// fuses; the vectorised loop beyond that fuses `1 - i / div` as well.
    /// `div` is `num - 1` with the endpoint, `num` without; the endpoint is
    /// exactly `stop`.
    pub fn linspace(start: f32, stop: f32, num: usize, endpoint: bool) -> Result<Array> {
        let div = match (num, endpoint) {
            (0, _) => return Array::from_f32(&[0], vec![]),
            (1, _) => return Array::from_f32(&[1], vec![start]),
            (_, true) => num - 1,
            (_, false) => num,
        };
        let r = 1.0f32 / div as f32;
        let stop_r = stop * r;
        let unrolled = div <= 350;
        let point = |i: usize| -> f32 {
            let fi = i as f32;
            match (unrolled, i) {
                (_, 0) => start,
                (true, 1) => start.mul_add(1.0 - r, stop_r),
                (true, _) => fi.mul_add(stop_r, start * (1.0 - fi * r)),
                (false, _) => fi.mul_add(stop_r, start * (-fi).mul_add(r, 1.0)),
            }
        };
        let mut v: Vec<f32> = (0..div).map(point).collect();
        if endpoint {
            v.push(stop);
        }
        Array::from_f32(&[num], v)
    }

    /// `jnp.eye(n, m, k, dtype)`: ones where `col - row == k`.
    pub fn eye(n: usize, m: usize, k: i64, dtype: DType) -> Array {
        let mut v = vec![0.0f32; n * m];
        for r in 0..n {
            let c = r as i64 + k;
            if c >= 0 && (c as usize) < m {
                v[r * m + c as usize] = 1.0;
            }
        }
        Array::from_f32(&[n, m], v)
            .expect("n * m values")
            .astype(dtype)
    }

    /// `lax.iota(dtype, ...)` broadcast along `dimension` of `shape`: each
    /// element is its index along that dimension.
    pub fn iota(shape: &[usize], dimension: usize, dtype: DType) -> Result<Array> {
        if dimension >= shape.len() {
            bail!(
                ValueError,
                "iota: dimension {dimension} is out of range for shape {}",
                fmt_shape(shape)
            );
        }
        let n = shape[dimension];
        let line: Vec<i32> = (0..n as i32).collect();
        let base = Array::from_i32(&[n], line)?;
        let mut st = vec![0isize; shape.len()];
        st[dimension] = 1;
        Ok(base.gather_view(shape, &st, 0).astype(dtype))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(a: &Array) -> Vec<u32> {
        a.f32_data().unwrap().iter().map(|v| v.to_bits()).collect()
    }

    #[test]
    fn arange_float_accumulates_in_f32() {
        let a = Array::arange(0.0, 1.0, 0.1, DType::F32).unwrap();
        assert_eq!(a.shape(), &[10]);
        // JAX 0.10.2 prints the last value as 0.90000004.
        assert_eq!(a.f32_data().unwrap()[9], 0.900_000_04);
        let i = Array::arange(0.0, 10.0, 3.0, DType::I32).unwrap();
        assert_eq!(i.i32_data().unwrap(), &[0, 3, 6, 9]);
        assert_eq!(
            Array::arange(5.0, 0.0, -2.0, DType::I32)
                .unwrap()
                .i32_data()
                .unwrap(),
            &[5, 3, 1]
        );
        assert_eq!(Array::arange(3.0, 1.0, 1.0, DType::F32).unwrap().size(), 0);
        assert!(Array::arange(0.0, 1.0, 0.0, DType::F32).is_err());
        assert!(Array::arange(0.0, 1e30, 1.0, DType::F32).is_err());
    }

    #[test]
    fn linspace_matches_jax_bits() {
        // jnp.linspace(0., 1., 7) and jnp.linspace(-1.3, 2.9, 6, endpoint=False)
        // in JAX 0.10.2, as float32 bit patterns.
        let a = Array::linspace(0.0, 1.0, 7, true).unwrap();
        assert_eq!(
            bits(&a),
            vec![
                0,
                0x3e2a_aaab,
                0x3eaa_aaab,
                0x3f00_0000,
                0x3f2a_aaab,
                0x3f55_5556,
                0x3f80_0000
            ]
        );
        let b = Array::linspace(-1.3, 2.9, 6, false).unwrap();
        assert_eq!(
            bits(&b),
            vec![
                0xbfa6_6666,
                0xbf19_9998,
                0x3dcc_cce0,
                0x3f4c_ccce,
                0x3fc0_0001,
                0x400c_cccd
            ]
        );
        assert_eq!(
            Array::linspace(2.0, 3.0, 1, true).unwrap().to_f64_vec(),
            vec![2.0]
        );
        // jnp.linspace(-jnp.pi, jnp.pi, 9)[1:4] and [6:8]: the points where
        // the fused multiply-add's rounding shows.
        let pi = std::f32::consts::PI;
        let c = bits(&Array::linspace(-pi, pi, 9, true).unwrap());
        assert_eq!(c[1..4], [0xc016_cbe4, 0xbfc9_0fda, 0xbf49_0fdc]);
        assert_eq!(c[6..8], [0x3fc9_0fdb, 0x4016_cbe4]);
    }

    #[test]
    fn eye_and_iota() {
        let e = Array::eye(2, 3, 1, DType::I32);
        assert_eq!(e.i32_data().unwrap(), &[0, 1, 0, 0, 0, 1]);
        let e = Array::eye(3, 2, -1, DType::F32);
        assert_eq!(e.to_f64_vec(), vec![0., 0., 1., 0., 0., 1.]);
        let i = Array::iota(&[2, 3], 1, DType::I32).unwrap();
        assert_eq!(i.i32_data().unwrap(), &[0, 1, 2, 0, 1, 2]);
        let j = Array::iota(&[2, 3], 0, DType::F32).unwrap();
        assert_eq!(j.to_f64_vec(), vec![0., 0., 0., 1., 1., 1.]);
        assert!(Array::iota(&[2], 1, DType::I32).is_err());
    }
}
