//! `optax.assignment`: the Hungarian algorithm for the linear assignment
//! problem, in optax's two formulations: `hungarian_algorithm` (the
//! shortest augmenting path over column potentials, as Scenic writes it)
//! and `base_hungarian_algorithm` (Crouse's rectangular algorithm).
//!
//! Optax runs either as nested `lax` loops over float32 potentials. The
//! answer is a pair of index vectors whose choice among equally cheap
//! assignments depends on every comparison the loops make, so shardlab
//! replays the same loops on the host, in float32, comparison for
//! comparison, rather than solving the problem another way. That needs the
//! cost matrix's values: a traced one is refused by name.

use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::value::{Args, Obj};
use crate::trace::{Tracer, Value};

use super::super::Builder;

/// `optax.assignment`.
pub(super) fn module() -> Obj {
    let mut b = Builder::new("optax.assignment");
    b.func("hungarian_algorithm", |_, a| {
        solve(&a, "hungarian_algorithm", scenic)
    });
    b.func("base_hungarian_algorithm", |_, a| {
        solve(&a, "base_hungarian_algorithm", crouse)
    });
    b.build()
}

/// A cost matrix with at most as many rows as columns, in float32.
struct Costs {
    rows: usize,
    cols: usize,
    data: Vec<f32>,
}

impl Costs {
    fn at(&self, r: usize, c: usize) -> f32 {
        self.data[r * self.cols + c]
    }
}

/// The pair of index vectors optax returns for a wide matrix (`transpose`
/// says it was transposed to be wide), or None when the search would
/// never end (JAX's loop runs forever there).
type Solver = fn(&Costs, bool) -> Option<(Vec<usize>, Vec<usize>)>;

/// Reads the matrix, transposes it to be wide and solves.
fn solve(a: &Args, func: &str, solver: Solver) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "cost_matrix", func)?)?;
    let c: &Array = match &x {
        Value::Concrete(c) | Value::Traced(Tracer { known: Some(c), .. }) => c,
        Value::Traced(_) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.assignment.{func} of a traced array"
        ),
    };
    if c.shape().len() != 2 || c.dtype() == DType::C64 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.assignment.{func} of a {}-dimensional {} array",
            c.shape().len(),
            c.dtype().name()
        );
    }
    let (n, m) = (c.shape()[0], c.shape()[1]);
    if n == 0 || m == 0 {
        return Ok(Obj::tuple(vec![ints(&[])?, ints(&[])?]));
    }
    let values: Vec<f32> = c.to_f64_vec().iter().map(|&v| v as f32).collect();
    let transpose = n > m;
    let costs = match transpose {
        false => Costs {
            rows: n,
            cols: m,
            data: values,
        },
        true => Costs {
            rows: m,
            cols: n,
            data: (0..m * n).map(|k| values[(k % n) * m + k / n]).collect(),
        },
    };
    let Some((first, second)) = solver(&costs, transpose) else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.assignment.{func} of a matrix with no finite assignment (JAX's loop does not end)"
        )
    };
    Ok(Obj::tuple(vec![ints(&first)?, ints(&second)?]))
}

/// An int32 vector.
fn ints(v: &[usize]) -> Result<Obj> {
    let data = v.iter().map(|&k| k as i32).collect();
    Ok(Obj::Array(Value::Concrete(Array::from_i32(
        &[v.len()],
        data,
    )?)))
}

/// `lax.min`: NaN when either operand is NaN.
fn min(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else {
        a.min(b)
    }
}

/// `jnp.argmin`'s first minimum over `values` where `mask` holds (inf
/// elsewhere), a NaN counting as the minimum.
fn masked_argmin(values: &[f32], mask: &[bool]) -> usize {
    let mut best = 0;
    let mut low = f32::INFINITY;
    for (k, (&v, &m)) in values.iter().zip(mask).enumerate() {
        let v = if m { v } else { f32::INFINITY };
        if v.is_nan() {
            return k;
        }
        if v < low || (k == 0 && v == low) {
            best = k;
            low = v;
        }
    }
    best
}

/// The Scenic formulation: potentials `u` (rows, 1-based with spare
/// slots) and `v` (columns, 1-based), `parent` mapping each column to
/// its row (0 for none), one shortest-path search per row.
fn scenic(c: &Costs, transpose: bool) -> Option<(Vec<usize>, Vec<usize>)> {
    let (rows, cols) = (c.rows, c.cols);
    let mut u = vec![0f32; rows + 2];
    let mut v = vec![0f32; cols + 1];
    let mut parent = vec![0usize; cols + 1];
    for row in 0..rows {
        parent[0] = row + 1;
        let mut path = vec![0usize; cols];
        let mut used = vec![false; cols + 1];
        let mut minv = vec![f32::INFINITY; cols];
        let mut col = 0;
        let mut steps = 0;
        while parent[col] != 0 {
            steps += 1;
            if steps > cols + 1 {
                return None;
            }
            used[col] = true;
            let unused: Vec<bool> = used[1..].iter().map(|u| !u).collect();
            let r = parent[col];
            for k in 0..cols {
                let cur = match unused[k] {
                    true => c.at(r - 1, k) - u[r] - v[k + 1],
                    false => f32::INFINITY,
                };
                if cur < minv[k] {
                    path[k] = col;
                    minv[k] = cur;
                }
            }
            col = masked_argmin(&minv, &unused) + 1;
            let delta = (0..cols)
                .filter(|&k| unused[k])
                .fold(f32::INFINITY, |acc, k| min(acc, minv[k]));
            // `u.at[where(used, parent, rows + 1)].add(delta)`: the unused
            // columns all add to the spare slot.
            for k in 0..=cols {
                let target = if used[k] { parent[k] } else { rows + 1 };
                u[target] += delta;
            }
            for k in 0..=cols {
                if used[k] {
                    v[k] -= delta;
                }
            }
            for k in 0..cols {
                if unused[k] {
                    minv[k] -= delta;
                }
            }
        }
        while col != 0 {
            let next = path[col - 1];
            parent[col] = parent[next];
            col = next;
        }
    }
    // Each column's row; a wide matrix keeps the matched columns in
    // descending row order, as `lax.top_k` of the 1-based rows leaves them.
    let mut matched: Vec<(usize, usize)> = (1..=cols).map(|k| (parent[k], k - 1)).collect();
    if rows != cols {
        matched.sort_by_key(|q| std::cmp::Reverse(q.0));
        matched.truncate(rows);
    }
    let (row_of, col): (Vec<usize>, Vec<usize>) = matched
        .into_iter()
        .map(|(r, k)| (r.wrapping_sub(1), k))
        .unzip();
    Some(match transpose {
        false => (row_of, col),
        true => (col, row_of),
    })
}

/// The state of Crouse's algorithm between rows.
struct Crouse<'a> {
    c: &'a Costs,
    u: Vec<f32>,
    v: Vec<f32>,
    path: Vec<usize>,
    row4col: Vec<Option<usize>>,
    col4row: Vec<Option<usize>>,
}

/// What one augmenting-path search found.
struct Found {
    sink: usize,
    min_value: f32,
    sr: Vec<bool>,
    sc: Vec<bool>,
    costs: Vec<f32>,
}

/// Crouse's formulation: dual variables `u`, `v`, one augmenting path
/// per row found by a Dijkstra-like search over the remaining columns.
fn crouse(c: &Costs, transpose: bool) -> Option<(Vec<usize>, Vec<usize>)> {
    let mut s = Crouse {
        c,
        u: vec![0.0; c.rows],
        v: vec![0.0; c.cols],
        path: vec![0; c.cols],
        row4col: vec![None; c.cols],
        col4row: vec![None; c.rows],
    };
    for row in 0..c.rows {
        let f = s.augmenting_path(row)?;
        s.update(row, &f);
    }
    let col_of: Vec<usize> = s.col4row.into_iter().collect::<Option<_>>()?;
    let rows: Vec<usize> = (0..c.rows).collect();
    if !transpose {
        return Some((rows, col_of));
    }
    // `i = col4row.argsort()`: the original rows in order.
    let mut pairs: Vec<(usize, usize)> = col_of.into_iter().zip(rows).collect();
    pairs.sort_by_key(|p| p.0);
    Some(pairs.into_iter().unzip())
}

impl Crouse<'_> {
    fn augmenting_path(&mut self, row: usize) -> Option<Found> {
        let (n, m) = (self.c.rows, self.c.cols);
        let mut remaining: Vec<usize> = (0..m).rev().collect();
        let mut f = Found {
            sink: usize::MAX,
            min_value: 0.0,
            sr: vec![false; n],
            sc: vec![false; m],
            costs: vec![f32::INFINITY; m],
        };
        let mut i = row;
        while f.sink == usize::MAX {
            if remaining.is_empty() {
                return None;
            }
            f.sr[i] = true;
            let mut index = 0;
            let mut lowest = f32::INFINITY;
            let mut found = false;
            for (it, &j) in remaining.iter().enumerate() {
                let r = f.min_value + self.c.at(i, j) - self.u[i] - self.v[j];
                if r < f.costs[j] {
                    self.path[j] = i;
                }
                f.costs[j] = min(f.costs[j], r);
                let sc = f.costs[j];
                if sc < lowest || (sc == lowest && self.row4col[j].is_none()) {
                    index = it;
                    found = true;
                }
                lowest = min(lowest, sc);
            }
            f.min_value = lowest;
            if !found || lowest == f32::INFINITY {
                return None;
            }
            let j = remaining[index];
            match self.row4col[j] {
                None => f.sink = j,
                Some(r) => i = r,
            }
            f.sc[j] = true;
            remaining.swap_remove(index);
        }
        Some(f)
    }

    /// The dual update after a search from `row`, then the augmentation
    /// along the path back from the sink.
    fn update(&mut self, row: usize, f: &Found) {
        self.u[row] += f.min_value;
        for k in 0..self.c.rows {
            if f.sr[k] && k != row {
                if let Some(col) = self.col4row[k] {
                    self.u[k] = self.u[k] + f.min_value - f.costs[col];
                }
            }
        }
        for k in 0..self.c.cols {
            if f.sc[k] {
                self.v[k] = self.v[k] + f.costs[k] - f.min_value;
            }
        }
        let mut sink = f.sink;
        loop {
            let i = self.path[sink];
            self.row4col[sink] = Some(i);
            let previous = self.col4row[i];
            self.col4row[i] = Some(sink);
            if i == row {
                break;
            }
            match previous {
                Some(p) => sink = p,
                None => break,
            }
        }
    }
}
