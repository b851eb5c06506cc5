//! `jax.debug.visualize_array_sharding` and `visualize_sharding`: the table
//! of which devices hold which block of a 1-d or 2-d array, drawn as JAX
//! draws it on a console without colour (a `rich` table with square box
//! lines).
//!
//! JAX sizes each cell from the block's share of the array: a block of
//! height fraction `h` and width fraction `w` gets `int(10 * h)` lines and
//! `int(w * int(10 * aspect) * 2.5)` columns (at least 9, at most 80), where
//! `aspect` is columns over rows of the array; the label `CPU 0,4` (the
//! devices holding the block) is centred in it. Columns then take the
//! widest of their cells, as rich's tables do.

use std::collections::BTreeMap;

use crate::error::Result;
use crate::sharding::Placement;
use crate::{bail, err};

/// One block of the grid: the device ids holding it, and its height (None
/// for a 1-d array) and width as fractions of the array.
type Block = (Vec<usize>, Option<f64>, f64);

/// The chunk grid: each (row, column) block.
struct Chunks {
    cells: BTreeMap<(usize, usize), Block>,
}

fn chunks(shape: &[usize], p: &Placement) -> Result<Chunks> {
    let mut cells: BTreeMap<(usize, usize), Block> = BTreeMap::new();
    let mut add = |key: (usize, usize), id: usize, h: Option<f64>, w: f64| {
        let e = cells.entry(key).or_insert((vec![], h, w));
        e.0.push(id);
    };
    let blocks: Vec<(usize, Vec<std::ops::Range<usize>>)> = match p {
        Placement::Device(d) => vec![(*d, shape.iter().map(|&n| 0..n).collect())],
        Placement::Named(s) => (0..s.mesh.size())
            .map(|pos| Ok((s.mesh.device_ids()[pos], s.shard_slices(pos, shape)?)))
            .collect::<Result<_>>()?,
        Placement::Unknown(what) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: the sharding of the result of {what} on sharded arrays"
        ),
    };
    for (id, r) in blocks {
        let idx = |k: usize| r[k].start / (r[k].end - r[k].start).max(1);
        let frac = |k: usize| (r[k].end - r[k].start) as f64 / shape[k] as f64;
        if shape.len() == 2 {
            add((idx(0), idx(1)), id, Some(frac(0)), frac(1));
        } else {
            add((0, idx(0)), id, None, frac(0));
        }
    }
    Ok(Chunks { cells })
}

/// One drawn cell: its label and padding (top, right, bottom, left).
struct Cell {
    label: String,
    pad: [usize; 4],
}

fn cell(label: String, height: Option<f64>, width: f64, base: (usize, usize)) -> Cell {
    let (base_height, base_width) = base;
    let w = ((width * base_width as f64 * 2.5) as i64).clamp(9, 80);
    let h = match height {
        None => 1,
        Some(f) => (f * base_height as f64) as i64,
    };
    let (left, rem) = (
        (w - label.len() as i64 - 2).div_euclid(2),
        (w - label.len() as i64 - 2).rem_euclid(2),
    );
    let right = left + rem;
    let (top, rem) = ((h - 2).div_euclid(2), (h - 2).rem_euclid(2));
    let bottom = top + rem;
    let z = |v: i64| v.max(0) as usize;
    Cell {
        label,
        pad: [z(top), z(right), z(bottom), z(left)],
    }
}

/// The table's text, one line per row of output, each ending in a newline.
pub fn render(shape: &[usize], p: &Placement) -> Result<String> {
    if shape.is_empty() || shape.len() > 2 {
        bail!(
            ValueError,
            "`visualize_sharding` only works for shapes with 1 and 2 dimensions."
        );
    }
    if shape.contains(&0) {
        bail!(ValueError, "visualize_sharding: the array has no elements");
    }
    let base_height = 10usize;
    let aspect = if shape.len() == 2 { shape[1] } else { 1 } as f64 / shape[0] as f64;
    let base_width = (base_height as f64 * aspect) as usize;
    let grid = chunks(shape, p)?;
    let rows = grid.cells.keys().map(|k| k.0).max().map_or(1, |r| r + 1);
    let cols = grid.cells.keys().map(|k| k.1).max().map_or(1, |c| c + 1);
    let mut table: Vec<Vec<Cell>> = vec![];
    for i in 0..rows {
        let mut row = vec![];
        for j in 0..cols {
            let (ids, h, w) = grid.cells.get(&(i, j)).ok_or_else(|| {
                err!(
                    ValueError,
                    "visualize_sharding: block ({i}, {j}) is held by no device"
                )
            })?;
            let mut ids = ids.clone();
            ids.sort_unstable();
            let names: Vec<String> = ids.iter().map(|d| d.to_string()).collect();
            row.push(cell(
                format!("CPU {}", names.join(",")),
                *h,
                *w,
                (base_height, base_width),
            ));
        }
        table.push(row);
    }
    draw(&table)
}

/// Draws the cells as rich draws a table with `box.SQUARE` and lines
/// between rows: each column as wide as its widest cell, each cell's label
/// centred between its paddings.
fn draw(table: &[Vec<Cell>]) -> Result<String> {
    let cols = table.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..cols)
        .map(|j| {
            table
                .iter()
                .map(|r| r[j].pad[3] + r[j].label.len() + r[j].pad[1])
                .max()
                .unwrap_or(0)
        })
        .collect();
    if widths.iter().sum::<usize>() + cols + 1 > 80 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: visualize_sharding of a table wider than 80 columns"
        );
    }
    let rule = |l: &str, m: &str, r: &str| {
        let parts: Vec<String> = widths.iter().map(|&w| "─".repeat(w)).collect();
        format!("{l}{}{r}\n", parts.join(m))
    };
    let mut out = rule("┌", "┬", "┐");
    for (i, row) in table.iter().enumerate() {
        if i > 0 {
            out.push_str(&rule("├", "┼", "┤"));
        }
        let height = row
            .iter()
            .map(|c| c.pad[0] + 1 + c.pad[2])
            .max()
            .unwrap_or(1);
        for line in 0..height {
            out.push('│');
            for (c, &w) in row.iter().zip(&widths) {
                out.push_str(&cell_line(c, w, line));
                out.push('│');
            }
            out.push('\n');
        }
    }
    out.push_str(&rule("└", "┴", "┘"));
    Ok(out)
}

/// Line `line` of a cell drawn `width` wide.
fn cell_line(c: &Cell, width: usize, line: usize) -> String {
    if line != c.pad[0] {
        return " ".repeat(width);
    }
    let inner = width.saturating_sub(c.pad[1] + c.pad[3]);
    let excess = inner.saturating_sub(c.label.len());
    let left = excess / 2;
    format!(
        "{}{}{}{}{}",
        " ".repeat(c.pad[3]),
        " ".repeat(left),
        c.label,
        " ".repeat(excess - left),
        " ".repeat(c.pad[1])
    )
}
