//! `shardlab bench`: how fast the native fabric, its collectives and the
//! engine's matmul run on this machine.
//!
//! Collectives run the way the engine runs them: one [`ThreadFabric`] per
//! device count and size, built once and reused for every iteration, with
//! the engine's slot size, each device on its own thread through
//! [`run_on_threads`] calling the functions of [`crate::collectives`].
//!
//! Sizes follow NCCL's tests: the size of a case is the larger of a device's
//! input and output buffers (all_gather's output, psum_scatter's input), the
//! algorithm bandwidth is that size over the time, and the bus bandwidth
//! scales it by the fraction of the data that has to cross between devices
//! (see [`Collective::bus_factor`]). The bus bandwidth is set against the
//! bandwidth of a single-thread `memcpy` of the same size, measured in the
//! same run.

mod report;

pub use report::{markdown, svg};

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::array::Array;
use crate::collectives::{self, DeviceCtx};
use crate::error::Result;
use crate::exec::Config;
use crate::fabric::{run_on_threads, Fabric, ThreadFabric};
use crate::mesh::Mesh;

/// What to measure.
#[derive(Debug, Clone)]
pub struct Options {
    /// Sizes up to 4 MiB only, and shorter time budgets.
    pub quick: bool,
    /// Device counts.
    pub devices: Vec<usize>,
    /// The collectives to measure.
    pub ops: Vec<Collective>,
    /// Sizes above this many bytes per device are left out.
    pub max_bytes: Option<usize>,
    /// Slot size in words, instead of the engine's.
    pub slot_words: Option<usize>,
    /// Exchange through the slots only, with the fabric's lending off (as
    /// over a fabric that cannot lend).
    pub slots_only: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            quick: false,
            devices: vec![2, 4, 8],
            ops: Collective::ALL.to_vec(),
            max_bytes: None,
            slot_words: None,
            slots_only: false,
        }
    }
}

impl Options {
    /// Per-device sizes in bytes.
    pub fn sizes(&self) -> Vec<usize> {
        let max = if self.quick { 4 << 20 } else { 64 << 20 };
        let max = self.max_bytes.map_or(max, |m| m.min(max));
        [4 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20]
            .into_iter()
            .filter(|&s| s <= max)
            .collect()
    }

    /// Time spent on each case beyond its warm-up.
    fn budget(&self) -> Duration {
        Duration::from_millis(if self.quick { 60 } else { 250 })
    }
}

/// The collectives measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Collective {
    /// All-reduce.
    Psum,
    /// Tiled all_gather.
    AllGather,
    /// Tiled psum_scatter (reduce-scatter).
    PsumScatter,
    /// A cyclic shift by one device.
    Ppermute,
    /// Tiled all_to_all.
    AllToAll,
}

impl Collective {
    /// All of them, in table order.
    pub const ALL: [Collective; 5] = [
        Collective::Psum,
        Collective::AllGather,
        Collective::PsumScatter,
        Collective::Ppermute,
        Collective::AllToAll,
    ];

    /// The collective JAX calls `name`.
    pub fn from_name(name: &str) -> Option<Collective> {
        Collective::ALL.into_iter().find(|c| c.name() == name)
    }

    /// JAX's name.
    pub fn name(self) -> &'static str {
        match self {
            Collective::Psum => "psum",
            Collective::AllGather => "all_gather",
            Collective::PsumScatter => "psum_scatter",
            Collective::Ppermute => "ppermute",
            Collective::AllToAll => "all_to_all",
        }
    }

    /// NCCL's bus bandwidth over algorithm bandwidth on `p` devices.
    pub fn bus_factor(self, p: usize) -> f64 {
        let p = p as f64;
        match self {
            Collective::Psum => 2.0 * (p - 1.0) / p,
            Collective::Ppermute => 1.0,
            _ => (p - 1.0) / p,
        }
    }
}

/// The machine a report was measured on.
#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    /// Logical CPUs available.
    pub cores: usize,
    /// `model name` from /proc/cpuinfo.
    pub cpu: String,
    /// The 1, 5 and 15 minute load averages at the start.
    pub load_before: String,
    /// The same at the end.
    pub load_after: String,
}

/// One collective at one size on one device count.
#[derive(Debug, Clone, Serialize)]
pub struct CollectiveRow {
    /// The collective.
    pub op: Collective,
    /// Devices.
    pub devices: usize,
    /// Bytes per device (NCCL's size).
    pub bytes: usize,
    /// Iterations timed.
    pub iters: usize,
    /// Median seconds per call.
    pub median_s: f64,
    /// Algorithm bandwidth, GB/s (1e9 bytes).
    pub algbw_gbs: f64,
    /// Bus bandwidth, GB/s.
    pub busbw_gbs: f64,
    /// Bus bandwidth over single-thread memcpy bandwidth at the same size.
    pub busbw_over_memcpy: f64,
}

/// Single-thread memcpy at one size.
#[derive(Debug, Clone, Serialize)]
pub struct MemcpyRow {
    /// Bytes copied.
    pub bytes: usize,
    /// Median GB/s.
    pub gbs: f64,
}

/// Barrier round trips on one device count.
#[derive(Debug, Clone, Serialize)]
pub struct BarrierRow {
    /// Devices.
    pub devices: usize,
    /// Barriers timed.
    pub rounds: usize,
    /// Median microseconds.
    pub median_us: f64,
    /// 99th percentile, microseconds.
    pub p99_us: f64,
}

/// Single-thread f32 matmul of two n x n arrays.
#[derive(Debug, Clone, Serialize)]
pub struct MatmulRow {
    /// n.
    pub n: usize,
    /// Median seconds.
    pub median_s: f64,
    /// 2 n^3 / median.
    pub gflops: f64,
}

/// Everything one run measured.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The machine.
    pub machine: Machine,
    /// UTC date of the run, YYYY-MM-DD.
    pub date: String,
    /// Whether the run was `--quick`.
    pub quick: bool,
    /// The fabric's slot size in words (the engine's unless told otherwise).
    pub slot_words: usize,
    /// Whether the fabric's lending was off.
    pub slots_only: bool,
    /// memcpy per size.
    pub memcpy: Vec<MemcpyRow>,
    /// Collectives.
    pub collectives: Vec<CollectiveRow>,
    /// Barriers.
    pub barriers: Vec<BarrierRow>,
    /// Matmul.
    pub matmul: Vec<MatmulRow>,
}

/// Runs every measurement; `progress` receives a line per finished case.
pub fn run(opts: &Options, mut progress: impl FnMut(&str)) -> Result<Report> {
    let load_before = load_average();
    let slot_words = opts.slot_words.unwrap_or(Config::default().slot_words);
    let mut memcpy = Vec::new();
    for bytes in opts.sizes() {
        let gbs = memcpy_gbs(bytes, opts.budget());
        progress(&format!("memcpy {} {:.2} GB/s", fmt_bytes(bytes), gbs));
        memcpy.push(MemcpyRow { bytes, gbs });
    }
    let mut rows = Vec::new();
    for &p in &opts.devices {
        for &op in &opts.ops {
            for (i, bytes) in opts.sizes().into_iter().enumerate() {
                let (iters, median_s) =
                    time_collective(op, p, bytes, slot_words, !opts.slots_only, opts.budget())?;
                let algbw = bytes as f64 / median_s / 1e9;
                let busbw = algbw * op.bus_factor(p);
                let row = CollectiveRow {
                    op,
                    devices: p,
                    bytes,
                    iters,
                    median_s,
                    algbw_gbs: algbw,
                    busbw_gbs: busbw,
                    busbw_over_memcpy: busbw / memcpy[i].gbs,
                };
                progress(&format!(
                    "{} p={} {}: {:.1} us, bus {:.2} GB/s ({:.2} x memcpy)",
                    op.name(),
                    p,
                    fmt_bytes(bytes),
                    median_s * 1e6,
                    busbw,
                    row.busbw_over_memcpy
                ));
                rows.push(row);
            }
        }
    }
    let mut barriers = Vec::new();
    for &p in &opts.devices {
        let rounds = if opts.quick { 500 } else { 3000 };
        let row = time_barrier(p, rounds)?;
        progress(&format!(
            "barrier p={p}: {:.2} us median, {:.2} us p99",
            row.median_us, row.p99_us
        ));
        barriers.push(row);
    }
    let mut matmul = Vec::new();
    for n in [64, 128, 256, 512, 1024] {
        let row = time_matmul(n, opts.budget())?;
        progress(&format!("matmul {n}: {:.2} GFLOP/s", row.gflops));
        matmul.push(row);
    }
    Ok(Report {
        machine: Machine {
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            cpu: cpu_model(),
            load_before,
            load_after: load_average(),
        },
        date: today(),
        quick: opts.quick,
        slot_words,
        slots_only: opts.slots_only,
        memcpy,
        collectives: rows,
        barriers,
        matmul,
    })
}

/// The median of `v` (sorted in place).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Iterations that fit `budget` when one takes `one`, within `lo..=hi`.
fn iterations(budget: Duration, one: Duration, lo: usize, hi: usize) -> usize {
    let one = one.as_secs_f64().max(1e-9);
    ((budget.as_secs_f64() / one) as usize).clamp(lo, hi)
}

/// Single-thread copy bandwidth between two buffers already touched: the
/// better of the C library's `memcpy` (`copy_from_slice`) and a loop of
/// 32-byte copies. On some machines (seen on an AMD EPYC VM) the library's
/// `rep movsb` path copies 4 to 64 KiB at 1 to 3 GB/s, which would make a
/// poor yardstick. Small copies are timed in batches, as a clock read costs
/// about as much as copying a few KiB.
pub fn memcpy_gbs(bytes: usize, budget: Duration) -> f64 {
    let words = bytes / 4;
    let src: Vec<u32> = (0..words as u32).collect();
    let mut dst = vec![1u32; words];
    let batch = ((1 << 20) / bytes.max(1)).max(1);
    let mut best = 0.0f64;
    for chunked in [false, true] {
        let mut sample = || {
            let t = Instant::now();
            for _ in 0..batch {
                let src = std::hint::black_box(&src);
                if chunked {
                    let mut d = dst.chunks_exact_mut(8);
                    let mut s = src.chunks_exact(8);
                    for (d, s) in (&mut d).zip(&mut s) {
                        d.copy_from_slice(s);
                    }
                    d.into_remainder().copy_from_slice(s.remainder());
                } else {
                    dst.copy_from_slice(src);
                }
                std::hint::black_box(&mut dst);
            }
            t.elapsed().as_secs_f64() / batch as f64
        };
        let first = sample();
        let iters = iterations(
            budget / 2,
            Duration::from_secs_f64(first * batch as f64),
            5,
            20_000,
        );
        let mut times: Vec<f64> = (0..iters).map(|_| sample()).collect();
        best = best.max(bytes as f64 / median(&mut times) / 1e9);
    }
    best
}

/// Device `d`'s operand for `op` at `bytes` on `p` devices, and the words of
/// the case's size that it really moves (rounded to a multiple of `p`).
fn operand(op: Collective, p: usize, bytes: usize, d: usize) -> Result<Array> {
    let words = (bytes / 4 / p).max(1) * p;
    let len = match op {
        Collective::AllGather => words / p,
        _ => words,
    };
    let data: Vec<f32> = (0..len).map(|i| ((i * 7 + d * 13) % 64) as f32).collect();
    Array::from_f32(&[len], data)
}

fn call(op: Collective, ctx: &DeviceCtx, x: &Array, axes: &[String]) -> Result<Array> {
    let p = ctx.mesh.size();
    match op {
        Collective::Psum => collectives::psum(ctx, x, axes),
        Collective::AllGather => collectives::all_gather(ctx, x, axes, None, 0, true),
        Collective::PsumScatter => collectives::psum_scatter(ctx, x, axes, None, 0, true),
        Collective::Ppermute => {
            let perm: Vec<(usize, usize)> = (0..p).map(|i| (i, (i + 1) % p)).collect();
            collectives::ppermute(ctx, x, axes, &perm)
        }
        Collective::AllToAll => collectives::all_to_all(ctx, x, axes, None, 0, 0, true),
    }
}

/// Runs `iters` calls of `op` on every device; device 0 returns the time of
/// each call, from a barrier before it to a barrier after it.
fn collective_times(
    fabric: &Arc<ThreadFabric>,
    mesh: &Mesh,
    op: Collective,
    xs: &[Array],
    iters: usize,
) -> Result<Vec<f64>> {
    let axes = vec!["x".to_string()];
    let shared = fabric.clone();
    let per_device = run_on_threads(fabric.clone(), |position| {
        let ctx = DeviceCtx {
            fabric: &*shared,
            mesh,
            position,
        };
        let mut times = Vec::with_capacity(iters);
        for _ in 0..iters {
            shared.barrier(position, "bench start")?;
            let t = Instant::now();
            let out = call(op, &ctx, &xs[position], &axes)?;
            shared.barrier(position, "bench end")?;
            times.push(t.elapsed().as_secs_f64());
            drop(std::hint::black_box(out));
        }
        Ok(times)
    })?;
    Ok(per_device.into_iter().next().unwrap_or_default())
}

/// Median seconds per call of `op` with `bytes` per device on `p` devices.
fn time_collective(
    op: Collective,
    p: usize,
    bytes: usize,
    slot_words: usize,
    lends: bool,
    budget: Duration,
) -> Result<(usize, f64)> {
    let mesh = Mesh::new(&["x"], &[p])?;
    let fabric = Arc::new(
        ThreadFabric::new(p, slot_words, Duration::from_secs(120))?.lending_enabled(lends),
    );
    let xs = (0..p)
        .map(|d| operand(op, p, bytes, d))
        .collect::<Result<Vec<_>>>()?;
    // Warm-up, which also sizes the run.
    let warm = collective_times(&fabric, &mesh, op, &xs, 2)?;
    let one = Duration::from_secs_f64(warm.iter().cloned().fold(f64::INFINITY, f64::min));
    let iters = iterations(budget, one, 5, 2000);
    let mut times = collective_times(&fabric, &mesh, op, &xs, iters)?;
    Ok((iters, median(&mut times)))
}

/// Barrier round trips on `p` devices: device 0 times each of `rounds`
/// consecutive barriers.
pub fn time_barrier(p: usize, rounds: usize) -> Result<BarrierRow> {
    let fabric = Arc::new(ThreadFabric::new(p, 2, Duration::from_secs(60))?);
    let shared = fabric.clone();
    let warm = rounds / 10 + 1;
    let per_device = run_on_threads(fabric, |d| {
        let mut times = Vec::with_capacity(rounds);
        for i in 0..warm + rounds {
            let t = Instant::now();
            shared.barrier(d, "bench barrier")?;
            if i >= warm {
                times.push(t.elapsed().as_secs_f64());
            }
        }
        Ok(times)
    })?;
    let mut times = per_device.into_iter().next().unwrap_or_default();
    times.sort_by(|a, b| a.total_cmp(b));
    let p99 = times[(times.len() * 99 / 100).min(times.len() - 1)];
    Ok(BarrierRow {
        devices: p,
        rounds,
        median_us: median(&mut times) * 1e6,
        p99_us: p99 * 1e6,
    })
}

/// f32 `n x n` matmul through `Array::dot_general`, in this thread.
pub fn time_matmul(n: usize, budget: Duration) -> Result<MatmulRow> {
    let a: Vec<f32> = (0..n * n).map(|i| ((i % 17) as f32 - 8.0) / 8.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i % 13) as f32 - 6.0) / 6.0).collect();
    let (a, b) = (Array::from_f32(&[n, n], a)?, Array::from_f32(&[n, n], b)?);
    let once = || -> Result<f64> {
        let t = Instant::now();
        let c = Array::dot_general(&a, &b, (&[1], &[0]), (&[], &[]))?;
        std::hint::black_box(c);
        Ok(t.elapsed().as_secs_f64())
    };
    let first = once()?;
    let iters = iterations(budget, Duration::from_secs_f64(first), 3, 5000);
    let mut times = (0..iters).map(|_| once()).collect::<Result<Vec<_>>>()?;
    let median_s = median(&mut times);
    Ok(MatmulRow {
        n,
        median_s,
        gflops: 2.0 * (n as f64).powi(3) / median_s / 1e9,
    })
}

/// `4 KiB`, `64 MiB`.
pub fn fmt_bytes(b: usize) -> String {
    if b >= 1 << 20 {
        format!("{} MiB", b >> 20)
    } else {
        format!("{} KiB", b >> 10)
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_string())
}

/// Today's UTC date, from the system clock.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date `days` days after 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Shift to a calendar whose years start in March, so that the leap day
    // ends the year, and count in 400-year eras of 146097 days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_from_days() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
    }

    #[test]
    fn bus_factors_follow_nccl() {
        assert_eq!(Collective::Psum.bus_factor(4), 1.5);
        assert_eq!(Collective::AllGather.bus_factor(4), 0.75);
        assert_eq!(Collective::Ppermute.bus_factor(8), 1.0);
    }

    #[test]
    fn a_tiny_run_measures_every_case() {
        let mut t = time_collective(Collective::Psum, 2, 4096, 1 << 12, true, Duration::ZERO);
        assert!(t.as_mut().unwrap().1 > 0.0);
        for op in Collective::ALL {
            for lends in [true, false] {
                assert!(time_collective(op, 4, 4096, 1 << 10, lends, Duration::ZERO).is_ok());
            }
        }
        assert!(time_barrier(2, 10).unwrap().median_us > 0.0);
    }
}
