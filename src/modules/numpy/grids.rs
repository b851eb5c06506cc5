//! `numpy.mgrid` and `numpy.ogrid`: grids of coordinates built by indexing
//! (`np.mgrid[0:1:5j, 0:3]`).
//!
//! Each slice gives one axis: a real step counts from the start up to (not
//! including) the stop, an imaginary step `Nj` gives N points from the
//! start to the stop inclusive. Values are computed in double precision
//! (`index * step + start`, as NumPy does) and held as float32 when any
//! bound or step is a float or imaginary, else as integers. `mgrid` stacks
//! the full grids into one array; `ogrid` gives a list of arrays that are
//! long on their own axis only. One slice (no tuple) gives a single 1-d
//! array for both.

use crate::bail;
use crate::error::Result;
use crate::python::builtins::to_float;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::Obj;

use super::host::{float_array, int_array};
use super::ndarray::wrap;

/// `np.mgrid` (dense) or `np.ogrid` (sparse).
pub struct Grid {
    sparse: bool,
}

impl Grid {
    /// The `mgrid` object.
    pub fn mgrid() -> Obj {
        Obj::lib(Grid { sparse: false })
    }

    /// The `ogrid` object.
    pub fn ogrid() -> Obj {
        Obj::lib(Grid { sparse: true })
    }

    fn name(&self) -> &'static str {
        if self.sparse {
            "ogrid"
        } else {
            "mgrid"
        }
    }
}

/// One axis of the grid: its length, step and start, and whether its
/// values are floats.
struct Axis {
    len: usize,
    step: f64,
    start: f64,
    float: bool,
}

/// The axis a slice describes.
fn axis(key: &Obj, grid: &str) -> Result<Axis> {
    let Obj::Slice(s) = key else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: numpy.{grid} indexed by something other than slices"
        );
    };
    let number = |o: &Obj, default: f64| -> Result<(f64, bool)> {
        match o {
            Obj::None => Ok((default, false)),
            Obj::Int(_) | Obj::Bool(_) => Ok((to_float(o)?, false)),
            Obj::Float(x) => Ok((*x, true)),
            other => bail!(
                TypeError,
                "unsupported operand type for slice bound: '{}'",
                other.type_name()
            ),
        }
    };
    let (start, f0) = number(&s[0], 0.0)?;
    let Obj::Complex(re, count) = &s[2] else {
        let (stop, f1) = number(&s[1], 0.0)?;
        let (step, f2) = number(&s[2], 1.0)?;
        let len = ((stop - start) / step).ceil();
        let len = if len.is_finite() && len > 0.0 {
            len as usize
        } else {
            0
        };
        return Ok(Axis {
            len,
            step,
            start,
            float: f0 || f1 || f2,
        });
    };
    if *re != 0.0 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: numpy.{grid} with a complex step that has a real part"
        );
    }
    let (stop, _) = number(&s[1], 0.0)?;
    let len = count.abs() as usize;
    let step = if len > 1 {
        (stop - start) / (len - 1) as f64
    } else {
        stop - start
    };
    Ok(Axis {
        len,
        step,
        start,
        float: true,
    })
}

impl Grid {
    fn build(&self, key: &Obj) -> Result<Obj> {
        let (keys, single) = match key {
            Obj::Tuple(t) => (t.to_vec(), false),
            k => (vec![k.clone()], true),
        };
        let axes: Vec<Axis> = keys
            .iter()
            .map(|k| axis(k, self.name()))
            .collect::<Result<_>>()?;
        let float = axes.iter().any(|a| a.float);
        let lens: Vec<usize> = axes.iter().map(|a| a.len).collect();
        let make = |shape: &[usize], data: Vec<f64>| -> Result<Obj> {
            if float {
                float_array(shape, &data)
            } else {
                let ints: Vec<i64> = data.iter().map(|&x| x as i64).collect();
                int_array(shape, &ints)
            }
        };
        let values =
            |a: &Axis| -> Vec<f64> { (0..a.len).map(|i| i as f64 * a.step + a.start).collect() };
        if single {
            return Ok(wrap(make(&[axes[0].len], values(&axes[0]))?));
        }
        if self.sparse {
            let mut out = vec![];
            for (k, a) in axes.iter().enumerate() {
                let mut shape = vec![1; axes.len()];
                shape[k] = a.len;
                out.push(wrap(make(&shape, values(a))?));
            }
            return Ok(Obj::list(out));
        }
        self.dense(&axes, &lens, make)
    }

    /// The stacked full grids: element `[k, i0, i1, ...]` is axis k's value
    /// at index `ik`.
    fn dense(
        &self,
        axes: &[Axis],
        lens: &[usize],
        make: impl Fn(&[usize], Vec<f64>) -> Result<Obj>,
    ) -> Result<Obj> {
        let n: usize = crate::array::numel(lens);
        crate::python::array::check_size(n.saturating_mul(axes.len()))?;
        let mut data = Vec::with_capacity(n * axes.len());
        for (k, a) in axes.iter().enumerate() {
            let inner: usize = lens[k + 1..].iter().product();
            for i in 0..n {
                let idx = (i / inner.max(1)) % a.len.max(1);
                data.push(idx as f64 * a.step + a.start);
            }
        }
        let mut shape = vec![axes.len()];
        shape.extend_from_slice(lens);
        Ok(wrap(make(&shape, data)?))
    }
}

impl Object for Grid {
    fn type_name(&self) -> String {
        if self.sparse {
            "OGridClass".into()
        } else {
            "MGridClass".into()
        }
    }

    fn getitem(&self, _: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(self.build(key))
    }
}
