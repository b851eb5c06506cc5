//! The collectives over threads and in lockstep: against values computed by
//! real JAX, against each other bit for bit, and on bad input.

mod common;

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use shardlab::collectives::{self, lockstep, DeviceCtx, ReduceOp};
use shardlab::fabric::{run_on_threads, Fabric, ThreadFabric};
use shardlab::primitives::collectives::IndexGroups;
use shardlab::{Array, DType, ErrorKind, Mesh, Result};

/// A collective and its static arguments.
#[derive(Debug, Clone, Copy)]
enum Op {
    Psum,
    Pmax,
    Pmin,
    Pmean,
    AllGather {
        axis: usize,
        tiled: bool,
    },
    PsumScatter {
        dim: usize,
        tiled: bool,
    },
    Ppermute(&'static [(usize, usize)]),
    AllToAll {
        split: usize,
        concat: usize,
        tiled: bool,
    },
    AxisIndex,
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Runs `op` on one device through the fabric.
fn on_device(ctx: &DeviceCtx, op: Op, x: &Array, axes: &[String]) -> Result<Array> {
    match op {
        Op::Psum => collectives::psum(ctx, x, axes),
        Op::Pmax => collectives::pmax(ctx, x, axes),
        Op::Pmin => collectives::pmin(ctx, x, axes),
        Op::Pmean => collectives::pmean(ctx, x, axes, None),
        Op::AllGather { axis, tiled } => collectives::all_gather(ctx, x, axes, None, axis, tiled),
        Op::PsumScatter { dim, tiled } => collectives::psum_scatter(ctx, x, axes, None, dim, tiled),
        Op::Ppermute(perm) => collectives::ppermute(ctx, x, axes, perm),
        Op::AllToAll {
            split,
            concat,
            tiled,
        } => collectives::all_to_all(ctx, x, axes, None, split, concat, tiled),
        Op::AxisIndex => collectives::axis_index(ctx.mesh, ctx.position, axes),
    }
}

/// Runs `op` for every device in one thread.
fn in_lockstep(mesh: &Mesh, op: Op, xs: &[Array], axes: &[String]) -> Result<Vec<Array>> {
    match op {
        Op::Psum => lockstep::psum(mesh, xs, axes),
        Op::Pmax => lockstep::pmax(mesh, xs, axes),
        Op::Pmin => lockstep::pmin(mesh, xs, axes),
        Op::Pmean => lockstep::pmean(mesh, xs, axes, None),
        Op::AllGather { axis, tiled } => lockstep::all_gather(mesh, xs, axes, None, axis, tiled),
        Op::PsumScatter { dim, tiled } => lockstep::psum_scatter(mesh, xs, axes, None, dim, tiled),
        Op::Ppermute(perm) => lockstep::ppermute(mesh, xs, axes, perm),
        Op::AllToAll {
            split,
            concat,
            tiled,
        } => lockstep::all_to_all(mesh, xs, axes, None, split, concat, tiled),
        Op::AxisIndex => lockstep::axis_index(mesh, axes),
    }
}

fn fabric(devices: usize, slot_words: usize) -> Arc<ThreadFabric> {
    lending_fabric(devices, slot_words, true)
}

/// A thread fabric that lends (the default) or exchanges through slots only.
fn lending_fabric(devices: usize, slot_words: usize, lends: bool) -> Arc<ThreadFabric> {
    Arc::new(
        ThreadFabric::new(devices, slot_words, Duration::from_secs(20))
            .unwrap()
            .lending_enabled(lends),
    )
}

/// Runs `op` on every device of `mesh`, one thread each, once over a fabric
/// that lends and once through slots only; both must give the same bits, or
/// both fail. Returns the first.
fn on_threads(
    mesh: &Mesh,
    slot_words: usize,
    op: Op,
    xs: &[Array],
    axes: &[String],
) -> Result<Vec<Array>> {
    let lent = on_threads_with(mesh, slot_words, true, op, xs, axes);
    let slots = on_threads_with(mesh, slot_words, false, op, xs, axes);
    match (&lent, &slots) {
        (Ok(a), Ok(b)) => {
            for (p, (x, y)) in a.iter().zip(b).enumerate() {
                assert!(
                    x.bitwise_eq(y),
                    "{op:?}: lent and slot results differ on device {p}"
                );
            }
        }
        (Err(a), Err(b)) => assert_eq!(a.kind, b.kind, "{op:?}: {a} against {b}"),
        _ => panic!(
            "{op:?}: lent {:?} against slots {:?}",
            lent.is_ok(),
            slots.is_ok()
        ),
    }
    lent
}

/// Runs `body` on every device of `mesh` over `fabric`, one thread each.
fn on_each_device<T: Send>(
    mesh: &Mesh,
    fabric: Arc<ThreadFabric>,
    body: impl Fn(&DeviceCtx) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let shared = fabric.clone();
    run_on_threads(fabric, |position| {
        body(&DeviceCtx {
            fabric: &*shared,
            mesh,
            position,
        })
    })
}

fn on_threads_with(
    mesh: &Mesh,
    slot_words: usize,
    lends: bool,
    op: Op,
    xs: &[Array],
    axes: &[String],
) -> Result<Vec<Array>> {
    on_each_device(
        mesh,
        lending_fabric(mesh.size(), slot_words, lends),
        |ctx| on_device(ctx, op, &xs[ctx.position], axes),
    )
}

/// The smallest slot `op` runs with: every exchange is cut into one-word
/// pieces, and reductions take the pipelined reduce-scatter path.
fn smallest_slot(mesh: &Mesh, op: Op, axes: &[String]) -> usize {
    let p = collectives::axis_size(mesh, axes).unwrap();
    match op {
        Op::Psum | Op::Pmax | Op::Pmin | Op::Pmean => 4,
        Op::PsumScatter { .. } | Op::AllToAll { .. } => 2 * p,
        _ => 2,
    }
}

/// One collective on one mesh with the results real JAX gave: a case of
/// tests/fixtures/collectives_per_device.json (written by tests/jax/).
struct JaxCase {
    name: String,
    mesh: Mesh,
    axes: Vec<String>,
    op: Op,
    /// The operand of each device, in mesh order.
    operands: Vec<Array>,
    /// The result of each device, in mesh order.
    expected: Vec<Array>,
}

/// The cases of tests/fixtures/collectives_per_device.json, read once.
fn jax_cases() -> &'static [JaxCase] {
    static CASES: OnceLock<Vec<JaxCase>> = OnceLock::new();
    CASES.get_or_init(|| {
        common::fixture_cases("collectives_per_device.json")
            .iter()
            .map(jax_case)
            .collect()
    })
}

fn usizes(j: &serde_json::Value) -> Vec<usize> {
    j.as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect()
}

/// Cuts `a` into `n` row-major blocks of `shape`: device `d`'s block is
/// elements `d * k .. (d + 1) * k` of its data.
fn blocks(a: &Array, n: usize, shape: &[usize]) -> Vec<Array> {
    let words = a.to_words();
    assert_eq!(words.len() % n, 0, "{n} blocks of {:?}", a.shape());
    words
        .chunks(words.len() / n)
        .map(|w| Array::from_words(shape, a.dtype(), w).unwrap())
        .collect()
}

fn jax_case(case: &serde_json::Value) -> JaxCase {
    let name = case["name"].as_str().unwrap().to_string();
    let names: Vec<&str> = case["mesh"]["axis_names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let mesh = Mesh::new(&names, &usizes(&case["mesh"]["shape"])).unwrap();
    let p = &case["params"];
    let int = |k: &str| p[k].as_u64().unwrap() as usize;
    let tiled = || p["tiled"].as_bool().unwrap();
    let op = match p["op"].as_str().unwrap() {
        "psum" => Op::Psum,
        "pmax" => Op::Pmax,
        "pmin" => Op::Pmin,
        "pmean" => Op::Pmean,
        "all_gather" => Op::AllGather {
            axis: int("axis"),
            tiled: tiled(),
        },
        "psum_scatter" => Op::PsumScatter {
            dim: int("scatter_dimension"),
            tiled: tiled(),
        },
        // The permutation lives as long as the cases, which are never freed.
        "ppermute" => Op::Ppermute(Vec::leak(
            p["perm"]
                .as_array()
                .unwrap()
                .iter()
                .map(|q| {
                    (
                        q[0].as_u64().unwrap() as usize,
                        q[1].as_u64().unwrap() as usize,
                    )
                })
                .collect(),
        )),
        "all_to_all" => Op::AllToAll {
            split: int("split_axis"),
            concat: int("concat_axis"),
            tiled: tiled(),
        },
        "axis_index" => Op::AxisIndex,
        other => panic!("{name}: unknown op {other}"),
    };
    // The operands stack over the mesh's dimensions, the results over one.
    let n = mesh.size();
    let x = common::fixture_array(&case["inputs"]["x"]);
    let out = common::fixture_array(&case["outputs"]["out"]);
    let operands = blocks(&x, n, &usizes(&p["local"]));
    let expected = blocks(&out, n, &out.shape()[1..]);
    JaxCase {
        axes: common::parse_names(p["axis_name"].as_str().unwrap()),
        name,
        mesh,
        op,
        operands,
        expected,
    }
}

/// Checks the cases `pick` selects on threads (with slots that hold them
/// whole, and with slots small enough to cut them into pieces) and in
/// lockstep. Returns how many cases it checked.
fn check_jax_cases(pick: fn(&Op) -> bool) -> usize {
    let mut checked = 0;
    for case in jax_cases().iter().filter(|c| pick(&c.op)) {
        let (mesh, op, axes, xs) = (&case.mesh, case.op, &case.axes, &case.operands);
        let label = format!("{}: {op:?} over {axes:?}", case.name);
        let runs = [
            ("threads", on_threads(mesh, 1 << 12, op, xs, axes)),
            (
                "threads, smallest slots",
                on_threads(mesh, smallest_slot(mesh, op, axes), op, xs, axes),
            ),
            ("lockstep", in_lockstep(mesh, op, xs, axes)),
        ];
        for (how, got) in runs {
            let got = got.unwrap_or_else(|e| panic!("{label} ({how}): {e}"));
            assert_eq!(got.len(), case.expected.len(), "{label} ({how})");
            for (p, (g, want)) in got.iter().zip(&case.expected).enumerate() {
                assert_eq!(g.shape(), want.shape(), "{label} ({how}) device {p}");
                assert_eq!(g.dtype(), want.dtype(), "{label} ({how}) device {p}");
                assert_eq!(
                    g.to_f64_vec(),
                    want.to_f64_vec(),
                    "{label} ({how}) device {p}"
                );
            }
        }
        checked += 1;
    }
    checked
}

#[test]
fn psum_pmax_pmin_match_jax() {
    let n = check_jax_cases(|op| matches!(op, Op::Psum | Op::Pmax | Op::Pmin));
    assert_eq!(n, 48);
}

#[test]
fn pmean_matches_jax_and_turns_ints_into_floats() {
    assert_eq!(check_jax_cases(|op| matches!(op, Op::Pmean)), 24);
}

#[test]
fn all_gather_matches_jax() {
    assert_eq!(check_jax_cases(|op| matches!(op, Op::AllGather { .. })), 36);
}

#[test]
fn psum_scatter_matches_jax() {
    assert_eq!(
        check_jax_cases(|op| matches!(op, Op::PsumScatter { .. })),
        24
    );
}

#[test]
fn ppermute_matches_jax() {
    assert_eq!(check_jax_cases(|op| matches!(op, Op::Ppermute(_))), 12);
}

#[test]
fn all_to_all_matches_jax() {
    assert_eq!(check_jax_cases(|op| matches!(op, Op::AllToAll { .. })), 36);
}

#[test]
fn axis_index_matches_jax() {
    assert_eq!(check_jax_cases(|op| matches!(op, Op::AxisIndex)), 12);
}

// ---------------------------------------------------------------------------
// Values computed by hand.

/// Float32 values whose sum depends on the order of the additions:
/// `1e8 + 1` rounds back to `1e8`.
fn order_sensitive(position: usize, n: usize) -> Array {
    let v = [1e8f32, 1.0, -1e8, 1.0][position];
    Array::from_f32(&[n], vec![v; n]).unwrap()
}

#[test]
fn psum_folds_in_rank_order_of_the_axes_as_listed() {
    // Positions 0..3 of a (2, 2) mesh hold 1e8, 1, -1e8, 1.
    // Over ('x', 'y') ranks follow positions: ((1e8 + 1) - 1e8) + 1 = 1.
    // Over ('y', 'x') rank 1 is position 2: ((1e8 - 1e8) + 1) + 1 = 2.
    // A tree, (1e8 + 1) + (-1e8 + 1), would give 0.
    let mesh = Mesh::new(&["x", "y"], &[2, 2]).unwrap();
    for n in [3, 3000] {
        let xs: Vec<Array> = (0..4).map(|p| order_sensitive(p, n)).collect();
        for (axes, want) in [(["x", "y"], 1.0), (["y", "x"], 2.0)] {
            let axes = names(&axes);
            for slot in [8, 1 << 10, 1 << 14] {
                let got = on_threads(&mesh, slot, Op::Psum, &xs, &axes).unwrap();
                for g in &got {
                    assert!(
                        g.f32_data().unwrap().iter().all(|&v| v == want),
                        "{axes:?} n={n} slot={slot}"
                    );
                }
            }
            let got = lockstep::psum(&mesh, &xs, &axes).unwrap();
            assert!(got[3].f32_data().unwrap().iter().all(|&v| v == want));
        }
    }
}

#[test]
fn large_psum_goes_through_small_slots_in_pieces() {
    // Device d holds x[i] = i % 7 + d; the sum over 8 devices is 8 (i % 7) + 28.
    let mesh = Mesh::new(&["x"], &[8]).unwrap();
    let n = 5000;
    let xs: Vec<Array> = (0..8)
        .map(|d| Array::from_i32(&[n], (0..n).map(|i| (i % 7 + d) as i32).collect()).unwrap())
        .collect();
    let want: Vec<i32> = (0..n).map(|i| (8 * (i % 7) + 28) as i32).collect();
    for slot in [4, 256, 1 << 14] {
        let got = on_threads(&mesh, slot, Op::Psum, &xs, &names(&["x"])).unwrap();
        for g in got {
            assert_eq!(g.i32_data().unwrap(), &want[..], "slot {slot}");
        }
    }
}

#[test]
fn ppermute_within_groups_sends_zeros_to_devices_without_a_source() {
    // Mesh (2, 4); over 'y' each row is a group of 4. Device (r, c) holds
    // [10 r + c]. perm [(0, 2), (3, 0)]: rank 2 gets rank 0, rank 0 gets rank 3.
    let mesh = Mesh::new(&["x", "y"], &[2, 4]).unwrap();
    let xs: Vec<Array> = (0..8)
        .map(|p| Array::from_f32(&[1], vec![(10 * (p / 4) + p % 4) as f32]).unwrap())
        .collect();
    let want = [3.0, 0.0, 0.0, 0.0, 13.0, 0.0, 10.0, 0.0];
    let op = Op::Ppermute(&[(0, 2), (3, 0)]);
    for got in [
        on_threads(&mesh, 64, op, &xs, &names(&["y"])).unwrap(),
        lockstep::ppermute(&mesh, &xs, &names(&["y"]), &[(0, 2), (3, 0)]).unwrap(),
    ] {
        let got: Vec<f64> = got.iter().map(|a| a.get_f64(0)).collect();
        assert_eq!(got, want);
    }
}

#[test]
fn booleans_are_counted_by_psum_and_kept_by_pmax() {
    // Devices 0..4 hold [d > 1, d == 0]: two and one of them are true.
    let mesh = Mesh::new(&["x"], &[4]).unwrap();
    let xs: Vec<Array> = (0..4)
        .map(|d| Array::from_bool(&[2], vec![d > 1, d == 0]).unwrap())
        .collect();
    let axes = names(&["x"]);
    let sum = on_threads(&mesh, 64, Op::Psum, &xs, &axes).unwrap();
    assert_eq!(sum[0].i32_data().unwrap(), &[2, 1]);
    let max = on_threads(&mesh, 64, Op::Pmax, &xs, &axes).unwrap();
    assert_eq!(max[1].bool_data().unwrap(), &[true, true]);
    let min = lockstep::pmin(&mesh, &xs, &axes).unwrap();
    assert_eq!(min[2].bool_data().unwrap(), &[false, false]);
    let mean = on_threads(&mesh, 64, Op::Pmean, &xs, &axes).unwrap();
    assert_eq!(mean[3].f32_data().unwrap(), &[0.5, 0.25]);
}

#[test]
fn empty_axes_leave_operands_unchanged_except_pmean() {
    let mesh = Mesh::new(&["x"], &[2]).unwrap();
    let xs: Vec<Array> = (0..2)
        .map(|d| Array::from_i32(&[2], vec![d, 3]).unwrap())
        .collect();
    for op in [
        Op::Psum,
        Op::AllGather {
            axis: 0,
            tiled: false,
        },
        Op::PsumScatter {
            dim: 0,
            tiled: false,
        },
        Op::AllToAll {
            split: 0,
            concat: 0,
            tiled: false,
        },
    ] {
        let got = on_threads(&mesh, 64, op, &xs, &[]).unwrap();
        assert!(got[1].bitwise_eq(&xs[1]), "{op:?}");
    }
    let mean = on_threads(&mesh, 64, Op::Pmean, &xs, &[]).unwrap();
    assert_eq!(mean[1].f32_data().unwrap(), &[1.0, 3.0]);
}

#[test]
fn collectives_take_the_documented_number_of_barriers() {
    // Slots of 2 x 600 words, 4 devices over 'x'. Through slots, a large
    // all-reduce takes one barrier per piece and one more, the others one
    // per piece. Lent, an all-reduce or all-gather whose result is larger
    // than SMALL_ALLREDUCE_WORDS takes two (one shared result), the others
    // one.
    for (lends, want) in [
        (false, vec![1, 7, 8, 12, 16, 16, 16]),
        (true, vec![1, 3, 5, 7, 8, 8, 8]),
    ] {
        let mesh = Mesh::new(&["x"], &[4]).unwrap();
        let f = lending_fabric(4, 1200, lends);
        let shared = f.clone();
        let axes = names(&["x"]);
        let counts = run_on_threads(f, |position| {
            let ctx = DeviceCtx {
                fabric: &*shared,
                mesh: &mesh,
                position,
            };
            let mut counts = vec![];
            let mut count = |r: Result<Array>| -> Result<()> {
                r?;
                counts.push(shared.epoch(position));
                Ok(())
            };
            let small = Array::zeros(&[500], DType::F32);
            let large = Array::zeros(&[2000], DType::F32);
            // Counts through slots, then lent.
            // One exchange: 1; 1.
            count(collectives::psum(&ctx, &small, &axes))?;
            // 2000 words in pieces of 480 (480 + 120 fill a 600-word
            // half): 5 + 1; 2.
            count(collectives::psum(&ctx, &large, &axes))?;
            // 500 words fit a half: 1; a result of 2000 words: 2.
            count(collectives::all_gather(&ctx, &small, &axes, None, 0, false))?;
            // 2000 / 600 -> 4; 2.
            count(collectives::all_gather(&ctx, &large, &axes, None, 0, true))?;
            // 4 parts of 500 in pieces of 150: 4; 1.
            count(collectives::psum_scatter(
                &ctx, &large, &axes, None, 0, true,
            ))?;
            count(collectives::axis_index(&mesh, position, &axes))?; // 0
            count(collectives::pmax(&ctx, &small, &[]))?; // 0
            Ok(counts)
        })
        .unwrap();
        for c in counts {
            assert_eq!(c, want, "lending {lends}");
        }
    }
}

// ---------------------------------------------------------------------------
// Threads against lockstep, bit for bit, on random input.

/// SplitMix64: a small deterministic generator, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn random_array(rng: &mut Rng, shape: &[usize], dtype: DType) -> Array {
    let n: usize = shape.iter().product();
    match dtype {
        // Mixed magnitudes, so that sums round and their order shows.
        DType::F32 => {
            let v = (0..n)
                .map(|_| {
                    if rng.below(200) == 0 {
                        // Now and then a value whose propagation must agree too.
                        return *rng.pick(&[
                            f32::NAN,
                            -f32::NAN,
                            f32::INFINITY,
                            f32::NEG_INFINITY,
                            -0.0,
                        ]);
                    }
                    let m = (rng.next() % 2_000_001) as f32 - 1_000_000.0;
                    m * [1e-3, 1.0, 1e3][rng.below(3)]
                })
                .collect();
            Array::from_f32(shape, v).unwrap()
        }
        DType::I32 => Array::from_i32(shape, (0..n).map(|_| rng.next() as i32).collect()).unwrap(),
        DType::U32 => Array::from_u32(shape, (0..n).map(|_| rng.next() as u32).collect()).unwrap(),
        DType::Bool => {
            Array::from_bool(shape, (0..n).map(|_| rng.next() % 2 == 0).collect()).unwrap()
        }
        DType::C64 => unreachable!("collectives refuse complex64 operands"),
        narrow => unreachable!("collectives refuse {} operands", narrow.name()),
    }
}

/// A random collective with arguments valid for an operand of `shape`
/// (adjusted so that split and scatter dimensions fit the group size `p`).
fn random_op(
    rng: &mut Rng,
    shape: &mut Vec<usize>,
    p: usize,
    perms: &'static [Vec<(usize, usize)>],
) -> Op {
    let tiled = rng.below(2) == 0;
    let kind = rng.below(8);
    if shape.is_empty() && (kind == 5 || kind == 6 || (kind == 4 && tiled)) {
        shape.push(1 + rng.below(3));
    }
    let ndim = shape.len();
    match kind {
        0 => Op::Psum,
        1 => Op::Pmax,
        2 => Op::Pmin,
        3 => Op::Pmean,
        4 => Op::AllGather {
            axis: rng.below(if tiled { ndim } else { ndim + 1 }),
            tiled,
        },
        5 => {
            let dim = rng.below(ndim);
            shape[dim] = if tiled { p * (1 + rng.below(3)) } else { p };
            Op::PsumScatter { dim, tiled }
        }
        6 => {
            let (split, concat) = (rng.below(ndim), rng.below(ndim));
            shape[split] = if tiled { p * (1 + rng.below(3)) } else { p };
            Op::AllToAll {
                split,
                concat,
                tiled,
            }
        }
        _ => Op::Ppermute(&rng.pick(perms)[..]),
    }
}

#[test]
fn threads_and_lockstep_agree_bit_for_bit() {
    let meshes: &[(&[&str], &[usize])] = &[
        (&["x"], &[8]),
        (&["x"], &[3]),
        (&["x", "y"], &[2, 4]),
        (&["x", "y"], &[4, 2]),
        (&["x", "y"], &[1, 4]),
        (&["x", "y", "z"], &[2, 2, 2]),
    ];
    // Permutations valid for any group of 1 to 8 ranks are those among ranks
    // below the group size; others are filtered per case.
    let perms: &'static [Vec<(usize, usize)>] = Box::leak(Box::new(vec![
        vec![],
        vec![(0, 0)],
        vec![(0, 1), (1, 0)],
        vec![(1, 0), (2, 1), (0, 2)],
        (0..8).map(|i| (i, (i + 3) % 8)).collect(),
        (0..4).map(|i| (i, 3 - i)).collect(),
    ]));
    let mut rng = Rng(0x05ee_dc01_1ec7_17e5);
    let mut compared = 0;
    while compared < 160 {
        let (axis_names, mesh_shape) = *rng.pick(meshes);
        let mesh = Mesh::new(axis_names, mesh_shape).unwrap();
        let mut axes: Vec<String> = names(axis_names);
        axes.retain(|_| rng.below(4) != 0);
        for i in (1..axes.len()).rev() {
            axes.swap(i, rng.below(i + 1));
        }
        let p = collectives::axis_size(&mesh, &axes).unwrap();
        let ndim = rng.below(4);
        let big = rng.below(4) == 0;
        let mut shape: Vec<usize> = (0..ndim)
            .map(|_| 1 + rng.below(if big { 24 } else { 5 }))
            .collect();
        let op = random_op(&mut rng, &mut shape, p, perms);
        if let Op::Ppermute(perm) = op {
            if perm.iter().any(|&(a, b)| a >= p || b >= p) {
                continue;
            }
        }
        let dtype = *rng.pick(&[DType::F32, DType::F32, DType::I32, DType::Bool]);
        let xs: Vec<Array> = (0..mesh.size())
            .map(|_| random_array(&mut rng, &shape, dtype))
            .collect();
        let slot = smallest_slot(&mesh, op, &axes) + rng.below(3) * rng.below(3000);
        let label =
            format!("{op:?} over {axes:?} on {mesh_shape:?}, {dtype:?}{shape:?}, slot {slot}");
        let want = in_lockstep(&mesh, op, &xs, &axes).unwrap_or_else(|e| panic!("{label}: {e}"));
        let got =
            on_threads(&mesh, slot, op, &xs, &axes).unwrap_or_else(|e| panic!("{label}: {e}"));
        for (p, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(g.bitwise_eq(w), "{label}: device {p}: {g:?} != {w:?}");
        }
        compared += 1;
    }
}

#[test]
fn a_sequence_of_collectives_shares_the_slots_without_a_barrier_in_between() {
    // Back-to-back exchanges rely on the alternating slot halves: run many,
    // mixing kinds and piece counts, and compare with lockstep at every step.
    let mesh = Mesh::new(&["x", "y"], &[2, 4]).unwrap();
    let (x, y) = (names(&["x"]), names(&["y"]));
    let mut rng = Rng(7);
    let xs: Vec<Array> = (0..8)
        .map(|_| random_array(&mut rng, &[4, 40], DType::F32))
        .collect();
    let steps = |ctx: Option<&DeviceCtx>, xs: &[Array]| -> Vec<Array> {
        let step = |op: Op, axes: &[String], xs: &[Array]| -> Vec<Array> {
            match ctx {
                Some(ctx) => vec![on_device(ctx, op, &xs[0], axes).unwrap()],
                None => in_lockstep(&mesh, op, xs, axes).unwrap(),
            }
        };
        let mut v = xs.to_vec();
        for round in 0..6 {
            v = step(Op::Psum, &y, &v);
            v = step(Op::Ppermute(&[(0, 1), (1, 0)]), &x, &v);
            v = step(
                Op::AllToAll {
                    split: 0,
                    concat: 1,
                    tiled: true,
                },
                &y,
                &v,
            );
            v = step(
                Op::PsumScatter {
                    dim: 1,
                    tiled: true,
                },
                &x,
                &v,
            );
            v = step(
                Op::AllGather {
                    axis: 1,
                    tiled: true,
                },
                &x,
                &v,
            );
            v = step(
                Op::AllToAll {
                    split: 1,
                    concat: 0,
                    tiled: true,
                },
                &y,
                &v,
            );
            if round % 2 == 0 {
                v = step(Op::Pmax, &x, &v);
            }
        }
        v
    };
    let want = steps(None, &xs);
    for slot in [16, 100, 1 << 12] {
        for lends in [true, false] {
            let got = on_each_device(&mesh, lending_fabric(8, slot, lends), |ctx| {
                Ok(steps(Some(ctx), &xs[ctx.position..ctx.position + 1]).remove(0))
            })
            .unwrap();
            for (p, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(g.bitwise_eq(w), "slot {slot}, lending {lends}, device {p}");
            }
        }
    }
}

#[test]
fn lent_all_reduces_reuse_and_alias_their_buffers_safely() {
    // Back-to-back all-reduces over a lending fabric: the operand of each is
    // the result of the one before (so a lent buffer is also the previous
    // exchange's output), the same array is reduced twice in a row, sizes
    // change between calls (a reclaimed share is resized), both sides of
    // the one-barrier threshold are crossed, and the sizes do not divide by
    // the group. Compared with lockstep after every step.
    let mesh = Mesh::new(&["x", "y"], &[2, 3]).unwrap();
    let (x, y, xy) = (names(&["x"]), names(&["y"]), names(&["x", "y"]));
    let mut rng = Rng(11);
    let sizes = [5000usize, 7, 1031, 1024, 5000, 3001, 1];
    let xs: Vec<Vec<Array>> = sizes
        .iter()
        .map(|&n| {
            (0..6)
                .map(|_| random_array(&mut rng, &[n], DType::F32))
                .collect()
        })
        .collect();
    let steps = |ctx: Option<&DeviceCtx>, at: usize| -> Vec<Vec<u32>> {
        let step = |op: Op, axes: &[String], v: &[Array]| -> Vec<Array> {
            match ctx {
                Some(ctx) => vec![on_device(ctx, op, &v[0], axes).unwrap()],
                None => in_lockstep(&mesh, op, v, axes).unwrap(),
            }
        };
        let mut seen = vec![];
        for (k, operands) in xs.iter().enumerate() {
            let v = match ctx {
                Some(_) => operands[at..at + 1].to_vec(),
                None => operands.clone(),
            };
            let axes = [&x, &y, &xy][k % 3];
            let a = step(Op::Psum, axes, &v);
            let b = step(Op::Psum, axes, &a);
            let c = step(Op::Psum, axes, &a);
            let d = step(Op::Pmin, &xy, &b);
            let e = step(Op::Pmean, &y, &d);
            for r in [&a, &b, &c, &d, &e] {
                seen.push(r.iter().flat_map(|t| t.to_words()).collect());
            }
        }
        seen
    };
    let want = steps(None, 0);
    for slot in [64, 1 << 12] {
        let got = on_each_device(&mesh, fabric(6, slot), |ctx| {
            Ok(steps(Some(ctx), ctx.position))
        })
        .unwrap();
        for (p, g) in got.iter().enumerate() {
            for (k, (g, w)) in g.iter().zip(&want).enumerate() {
                // lockstep gives every device's words one after another.
                let n = g.len();
                assert_eq!(
                    g,
                    &w[p * n..(p + 1) * n],
                    "slot {slot}, device {p}, step {k}"
                );
            }
        }
    }
}

#[test]
fn lending_lanes_keep_each_epochs_value_apart() {
    let f = ThreadFabric::new(1, 8, Duration::from_secs(20)).unwrap();
    let lanes = f.lending().expect("a thread fabric lends");
    lanes.lend(0, Arc::new(5u32));
    let get = |epoch| {
        lanes
            .borrow(0, epoch)
            .map(|v| *v.downcast::<u32>().unwrap())
    };
    assert_eq!(get(0), Some(5));
    assert_eq!(get(1), None, "nothing was lent in epoch 1");
    f.barrier(0, "one").unwrap();
    lanes.lend(0, Arc::new(6u32));
    assert_eq!((get(0), get(1)), (Some(5), Some(6)));
    f.barrier(0, "two").unwrap();
    // Epoch 2 reuses epoch 0's lane: a borrow for epoch 0 finds nothing
    // once its value is reclaimed, and one for epoch 2 finds nothing yet.
    let back = lanes.reclaim(0).expect("epoch 0's value");
    assert_eq!(*back.downcast::<u32>().unwrap(), 5);
    assert_eq!((get(0), get(2), get(1)), (None, None, Some(6)));
    assert!(ThreadFabric::new(1, 8, Duration::from_secs(20))
        .unwrap()
        .lending_enabled(false)
        .lending()
        .is_none());
}

// ---------------------------------------------------------------------------
// Bad calls and failing devices.

/// Runs `op` on threads and in lockstep, expecting both to fail alike.
fn expect_error(
    mesh: &Mesh,
    op: Op,
    shape: &[usize],
    axes: &[&str],
    kind: ErrorKind,
    words: &[&str],
) {
    let xs: Vec<Array> = (0..mesh.size())
        .map(|_| Array::zeros(shape, DType::F32))
        .collect();
    let axes = names(axes);
    let start = Instant::now();
    let threads = on_threads(mesh, 1 << 10, op, &xs, &axes).unwrap_err();
    // Every device refuses before touching the fabric, so nobody waits.
    assert!(start.elapsed() < Duration::from_secs(5), "{op:?} waited");
    let single = in_lockstep(mesh, op, &xs, &axes).unwrap_err();
    for e in [&threads, &single] {
        assert_eq!(e.kind, kind, "{op:?}: {e}");
        for w in words {
            assert!(e.message.contains(w), "{op:?}: {e:?} should mention {w}");
        }
    }
    assert!(threads.message.starts_with("device "), "{threads}");
}

#[test]
fn unknown_axes_are_name_errors_listing_the_mesh_axes() {
    let mesh = Mesh::new(&["x", "y"], &[2, 4]).unwrap();
    for op in [
        Op::Psum,
        Op::Pmean,
        Op::AllGather {
            axis: 0,
            tiled: false,
        },
        Op::AxisIndex,
    ] {
        expect_error(
            &mesh,
            op,
            &[4],
            &["x", "batch"],
            ErrorKind::NameError,
            &["batch", "('x', 'y')"],
        );
    }
    expect_error(
        &mesh,
        Op::Psum,
        &[4],
        &["x", "x"],
        ErrorKind::ValueError,
        &["twice"],
    );
}

#[test]
fn bad_permutations_are_refused() {
    let mesh = Mesh::new(&["x"], &[4]).unwrap();
    expect_error(
        &mesh,
        Op::Ppermute(&[(0, 1), (2, 1)]),
        &[2],
        &["x"],
        ErrorKind::ValueError,
        &["unique", "((0, 1), (2, 1))"],
    );
    expect_error(
        &mesh,
        Op::Ppermute(&[(0, 1), (0, 2)]),
        &[2],
        &["x"],
        ErrorKind::ValueError,
        &["unique"],
    );
    expect_error(
        &mesh,
        Op::Ppermute(&[(0, 4)]),
        &[2],
        &["x"],
        ErrorKind::IndexError,
        &["(0, 4)", "0 to 3"],
    );
}

#[test]
fn shapes_that_do_not_fit_the_group_are_refused() {
    let mesh = Mesh::new(&["x", "y"], &[2, 4]).unwrap();
    let scatter = Op::PsumScatter {
        dim: 1,
        tiled: true,
    };
    expect_error(
        &mesh,
        scatter,
        &[2, 6],
        &["y"],
        ErrorKind::ValueError,
        &["6", "divisible", "4"],
    );
    let scatter = Op::PsumScatter {
        dim: 0,
        tiled: false,
    };
    expect_error(
        &mesh,
        scatter,
        &[4, 2],
        &["x"],
        ErrorKind::ValueError,
        &["4", "match", "2"],
    );
    let scatter = Op::PsumScatter {
        dim: 2,
        tiled: false,
    };
    expect_error(
        &mesh,
        scatter,
        &[4, 2],
        &["x"],
        ErrorKind::IndexError,
        &["scatter_dimension 2"],
    );
    let a2a = Op::AllToAll {
        split: 0,
        concat: 0,
        tiled: false,
    };
    expect_error(
        &mesh,
        a2a,
        &[4, 2],
        &["x"],
        ErrorKind::ValueError,
        &["split_axis", "4"],
    );
    let a2a = Op::AllToAll {
        split: 1,
        concat: 0,
        tiled: true,
    };
    expect_error(
        &mesh,
        a2a,
        &[4, 3],
        &["y"],
        ErrorKind::ValueError,
        &["divisible", "(3"],
    );
    let a2a = Op::AllToAll {
        split: 0,
        concat: 2,
        tiled: true,
    };
    expect_error(
        &mesh,
        a2a,
        &[4, 3],
        &["y"],
        ErrorKind::IndexError,
        &["concat_axis 2"],
    );
    let gather = Op::AllGather {
        axis: 2,
        tiled: false,
    };
    expect_error(
        &mesh,
        gather,
        &[4],
        &["y"],
        ErrorKind::ValueError,
        &["axis 2", "dimension 2"],
    );
    let gather = Op::AllGather {
        axis: 0,
        tiled: true,
    };
    expect_error(
        &mesh,
        gather,
        &[],
        &["y"],
        ErrorKind::ValueError,
        &["axis 0"],
    );
}

#[test]
fn slots_too_small_for_an_exchange_are_reported() {
    let mesh = Mesh::new(&["x"], &[8]).unwrap();
    let xs: Vec<Array> = (0..8).map(|_| Array::zeros(&[8, 2], DType::F32)).collect();
    let op = Op::AllToAll {
        split: 0,
        concat: 0,
        tiled: true,
    };
    // Only the slots have a size: a fabric that lends needs none.
    let e = on_threads_with(&mesh, 4, false, op, &xs, &names(&["x"])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::RuntimeError);
    assert!(on_threads_with(&mesh, 4, true, op, &xs, &names(&["x"])).is_ok());
    assert!(
        e.message.contains("too small") && e.message.contains("16 words"),
        "{e}"
    );
}

#[test]
fn a_device_stuck_outside_a_collective_times_the_barrier_out() {
    let mesh = Mesh::new(&["x"], &[4]).unwrap();
    let f = Arc::new(ThreadFabric::new(4, 64, Duration::from_millis(200)).unwrap());
    let shared = f.clone();
    let x = Array::zeros(&[3], DType::F32);
    let start = Instant::now();
    let e = run_on_threads(f, |position| {
        if position == 3 {
            std::thread::sleep(Duration::from_millis(500));
            return Ok(x.clone());
        }
        let ctx = DeviceCtx {
            fabric: &*shared,
            mesh: &mesh,
            position,
        };
        collectives::psum(&ctx, &x, &names(&["x"]))
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::RuntimeError);
    for w in ["psum over ('x',)", "timed out", "[3]"] {
        assert!(e.message.contains(w), "{e} should mention {w}");
    }
    assert!(start.elapsed() < Duration::from_secs(3));
}

#[test]
fn a_device_that_finishes_early_releases_the_others_at_once() {
    let mesh = Mesh::new(&["x", "y"], &[2, 2]).unwrap();
    let f = Arc::new(ThreadFabric::new(4, 64, Duration::from_secs(20)).unwrap());
    let shared = f.clone();
    let x = Array::zeros(&[3], DType::F32);
    let start = Instant::now();
    let e = run_on_threads(f, |position| {
        let ctx = DeviceCtx {
            fabric: &*shared,
            mesh: &mesh,
            position,
        };
        let x = collectives::psum(&ctx, &x, &names(&["x"]))?;
        if position == 2 {
            return Ok(x);
        }
        collectives::all_gather(&ctx, &x, &names(&["y"]), None, 0, false)
    })
    .unwrap_err();
    for w in ["all_gather over ('y',)", "device 2 finished"] {
        assert!(e.message.contains(w), "{e} should mention {w}");
    }
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn devices_in_different_collectives_are_told_so() {
    let mesh = Mesh::new(&["x"], &[2]).unwrap();
    let f = fabric(2, 64);
    let shared = f.clone();
    let x = Array::zeros(&[3], DType::F32);
    let e = run_on_threads(f, |position| {
        let ctx = DeviceCtx {
            fabric: &*shared,
            mesh: &mesh,
            position,
        };
        if position == 0 {
            collectives::psum(&ctx, &x, &names(&["x"]))
        } else {
            collectives::all_gather(&ctx, &x, &names(&["x"]), None, 0, true)
        }
    })
    .unwrap_err();
    for w in [
        "different collectives",
        "psum over ('x',)",
        "all_gather over ('x',)",
    ] {
        assert!(e.message.contains(w), "{e} should mention {w}");
    }
}

#[test]
fn devices_with_different_shapes_are_told_so() {
    let mesh = Mesh::new(&["x"], &[2]).unwrap();
    let f = fabric(2, 64);
    let shared = f.clone();
    let e = run_on_threads(f, |position| {
        let ctx = DeviceCtx {
            fabric: &*shared,
            mesh: &mesh,
            position,
        };
        let x = Array::zeros(&[2, 1 + position], DType::F32);
        collectives::all_gather(&ctx, &x, &names(&["x"]), None, 0, true)
    })
    .unwrap_err();
    for w in ["different collectives", "of f32[2,1]", "of f32[2,2]"] {
        assert!(e.message.contains(w), "{e} should mention {w}");
    }
}

#[test]
fn a_panicking_device_releases_the_others() {
    let mesh = Mesh::new(&["x"], &[4]).unwrap();
    let f = fabric(4, 64);
    let shared = f.clone();
    let x = Array::zeros(&[3], DType::F32);
    let start = Instant::now();
    let e = run_on_threads(f, |position| {
        let ctx = DeviceCtx {
            fabric: &*shared,
            mesh: &mesh,
            position,
        };
        let x = collectives::psum(&ctx, &x, &names(&["x"]))?;
        if position == 2 {
            panic!("device two gives up");
        }
        collectives::psum(&ctx, &x, &names(&["x"]))
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::RuntimeError);
    assert!(
        e.message.starts_with("device 2: ") && e.message.contains("device two gives up"),
        "{e}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "the others were not released"
    );
}

#[test]
fn a_failing_device_reports_its_own_error_not_the_others() {
    let mesh = Mesh::new(&["x"], &[4]).unwrap();
    let f = fabric(4, 64);
    let shared = f.clone();
    let x = Array::zeros(&[3], DType::F32);
    let e = run_on_threads(f, |position| {
        let ctx = DeviceCtx {
            fabric: &*shared,
            mesh: &mesh,
            position,
        };
        if position == 1 {
            return Err(shardlab::Error::new(ErrorKind::ValueError, "bad value"));
        }
        collectives::psum(&ctx, &x, &names(&["x"]))
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::ValueError);
    assert_eq!(e.message, "device 1: bad value");
}

#[test]
fn abort_wakes_waiting_devices_promptly() {
    let f = fabric(3, 8);
    let woke = std::thread::scope(|s| {
        let waiters: Vec<_> = (0..2)
            .map(|d| {
                let f = &f;
                s.spawn(move || {
                    let e = f.barrier(d, "pmax over ('x',)").unwrap_err();
                    (Instant::now(), e)
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(150));
        let aborted = Instant::now();
        f.abort("cancelled by the caller");
        waiters
            .into_iter()
            .map(|h| {
                let (t, e) = h.join().unwrap();
                (t.duration_since(aborted), e)
            })
            .collect::<Vec<_>>()
    });
    for (delay, e) in woke {
        assert!(
            delay < Duration::from_millis(100),
            "woke {delay:?} after the abort"
        );
        assert!(
            e.message.contains("pmax over ('x',)") && e.message.contains("cancelled by the caller"),
            "{e}"
        );
    }
    assert!(
        f.barrier(2, "psum over ('x',)").is_err(),
        "later barriers fail too"
    );
    assert_eq!(f.aborted().as_deref(), Some("cancelled by the caller"));
}

// ---------------------------------------------------------------------------
// Measurements: `cargo test --release --test collectives -- --ignored --nocapture`.

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

#[test]
#[ignore = "measurement; run in release"]
fn measure_barrier_round_trip() {
    use shardlab::fabric::threads::WaitPolicy;
    let policies = [
        ("default", WaitPolicy::default()),
        (
            "sleep only",
            WaitPolicy {
                spins: 0,
                yields: 0,
            },
        ),
        (
            "spin 20000",
            WaitPolicy {
                spins: 20_000,
                yields: 0,
            },
        ),
        (
            "yield 2000",
            WaitPolicy {
                spins: 100,
                yields: 2000,
            },
        ),
    ];
    for (name, policy) in policies {
        for devices in [2, 4, 8, 16] {
            let f = Arc::new(
                ThreadFabric::with_policy(devices, 8, Duration::from_secs(20), policy).unwrap(),
            );
            let shared = f.clone();
            let rounds = 4000;
            // Each device times batches of 20 barriers: a batch's time / 20
            // is the barrier's round trip, waits for late devices included.
            let times = run_on_threads(f, |d| {
                let mut times = Vec::with_capacity(rounds / 20);
                for _ in 0..rounds / 20 {
                    let t = Instant::now();
                    for _ in 0..20 {
                        shared.barrier(d, "measure")?;
                    }
                    times.push(t.elapsed().as_secs_f64() / 20.0);
                }
                Ok(times)
            })
            .unwrap();
            println!(
                "barrier, {name}, {devices} devices: median round trip {:.2} us",
                median(times.concat()) * 1e6
            );
        }
    }
}

#[test]
#[ignore = "measurement; run in release"]
fn measure_psum_bandwidth() {
    let n = (4 << 20) / 4;
    let src = vec![1u32; n];
    let mut dst = vec![0u32; n];
    let t = Instant::now();
    for _ in 0..20 {
        dst.copy_from_slice(std::hint::black_box(&src));
        std::hint::black_box(&mut dst);
    }
    let memcpy = (4 << 20) as f64 * 20.0 / t.elapsed().as_secs_f64() / 1e9;
    println!("memcpy, one thread: {memcpy:.2} GB/s");
    {
        use shardlab::fabric::Fabric;
        let f = fabric(1, 2 * n);
        let t = Instant::now();
        for _ in 0..20 {
            f.write(0, 0, std::hint::black_box(&src));
            f.read(0, 0, std::hint::black_box(&mut dst));
        }
        let rw = (4 << 20) as f64 * 20.0 / t.elapsed().as_secs_f64() / 1e9;
        println!("slot write then read, one thread: {rw:.2} GB/s (each way)");
    }
    for devices in [2, 4] {
        let mesh = Mesh::new(&["x"], &[devices]).unwrap();
        let xs = vec![Array::from_f32(&[n], vec![1.0; n]).unwrap(); devices];
        let times = (0..6)
            .map(|_| {
                let t = Instant::now();
                lockstep::psum(&mesh, &xs, &names(&["x"])).unwrap();
                t.elapsed().as_secs_f64()
            })
            .collect();
        println!(
            "lockstep psum 4 MiB/device, {devices} devices, one thread: {:.2} ms",
            median(times) * 1e3
        );
    }
    for devices in [2, 4] {
        let mesh = Mesh::new(&["x"], &[devices]).unwrap();
        let axes = names(&["x"]);
        for slot in [1 << 16, 2 * n + 2 * n / devices] {
            let f = fabric(devices, slot);
            let shared = f.clone();
            let x = Array::from_f32(&[n], vec![1.0; n]).unwrap();
            let reps = 5;
            let times = run_on_threads(f, |position| {
                let ctx = DeviceCtx {
                    fabric: &*shared,
                    mesh: &mesh,
                    position,
                };
                collectives::psum(&ctx, &x, &axes)?;
                let t = Instant::now();
                for _ in 0..reps {
                    collectives::psum(&ctx, &x, &axes)?;
                }
                Ok(t.elapsed().as_secs_f64() / reps as f64)
            })
            .unwrap();
            let secs = times.iter().cloned().fold(0.0, f64::max);
            let alg = (4 << 20) as f64 / secs / 1e9;
            let bus = alg * 2.0 * (devices - 1) as f64 / devices as f64;
            println!(
                "psum 4 MiB/device, {devices} devices, slot {} KiB: {:.2} ms, algbw {alg:.2} GB/s, busbw {bus:.2} GB/s",
                slot * 4 / 1024,
                secs * 1e3
            );
        }
    }
}

// JAX's axis_index_groups.

/// Runs `op` within `groups` on one device through the fabric.
fn on_device_in_groups(
    ctx: &DeviceCtx,
    op: Op,
    x: &Array,
    axes: &[String],
    groups: &IndexGroups,
) -> Result<Array> {
    let g = Some(groups);
    match op {
        Op::Psum => collectives::preduce(ctx, x, axes, g, ReduceOp::Sum),
        Op::Pmax => collectives::preduce(ctx, x, axes, g, ReduceOp::Max),
        Op::Pmin => collectives::preduce(ctx, x, axes, g, ReduceOp::Min),
        Op::Pmean => collectives::pmean(ctx, x, axes, g),
        Op::AllGather { axis, tiled } => collectives::all_gather(ctx, x, axes, g, axis, tiled),
        Op::PsumScatter { dim, tiled } => collectives::psum_scatter(ctx, x, axes, g, dim, tiled),
        Op::AllToAll {
            split,
            concat,
            tiled,
        } => collectives::all_to_all(ctx, x, axes, g, split, concat, tiled),
        Op::Ppermute(_) | Op::AxisIndex => unreachable!("{op:?} takes no groups"),
    }
}

/// Runs `op` within `groups` for every device in one thread.
fn in_lockstep_in_groups(
    mesh: &Mesh,
    op: Op,
    xs: &[Array],
    axes: &[String],
    groups: &IndexGroups,
) -> Result<Vec<Array>> {
    let g = Some(groups);
    match op {
        Op::Psum => lockstep::preduce(mesh, xs, axes, g, ReduceOp::Sum),
        Op::Pmax => lockstep::preduce(mesh, xs, axes, g, ReduceOp::Max),
        Op::Pmin => lockstep::preduce(mesh, xs, axes, g, ReduceOp::Min),
        Op::Pmean => lockstep::pmean(mesh, xs, axes, g),
        Op::AllGather { axis, tiled } => lockstep::all_gather(mesh, xs, axes, g, axis, tiled),
        Op::PsumScatter { dim, tiled } => lockstep::psum_scatter(mesh, xs, axes, g, dim, tiled),
        Op::AllToAll {
            split,
            concat,
            tiled,
        } => lockstep::all_to_all(mesh, xs, axes, g, split, concat, tiled),
        Op::Ppermute(_) | Op::AxisIndex => unreachable!("{op:?} takes no groups"),
    }
}

/// Runs `op` within `groups` over threads (lending, and through slots of
/// `slot` words) and in lockstep: all three give the same bits, or the same
/// kind of error. Returns the lockstep result.
fn in_groups_everywhere(
    mesh: &Mesh,
    slot: usize,
    op: Op,
    xs: &[Array],
    axes: &[String],
    groups: &IndexGroups,
) -> Result<Vec<Array>> {
    let want = in_lockstep_in_groups(mesh, op, xs, axes, groups);
    for lends in [true, false] {
        let got = on_each_device(mesh, lending_fabric(mesh.size(), slot, lends), |ctx| {
            on_device_in_groups(ctx, op, &xs[ctx.position], axes, groups)
        });
        match (&want, &got) {
            (Ok(a), Ok(b)) => {
                for (p, (x, y)) in a.iter().zip(b).enumerate() {
                    assert!(
                        x.bitwise_eq(y),
                        "{op:?} lends={lends} slot={slot}: device {p}"
                    );
                }
            }
            (Err(a), Err(b)) => assert_eq!(a.kind, b.kind, "{op:?}: {a} against {b}"),
            _ => panic!("{op:?} lends={lends}: lockstep {want:?} against threads {got:?}"),
        }
    }
    want
}

#[test]
fn axis_index_groups_split_each_group_of_the_axes() {
    // Mesh (2, 4): over 'y' each row splits into the groups listed, by y.
    // Device (r, c) holds [100 r + c, 100 r + 10 c].
    let mesh = Mesh::new(&["x", "y"], &[2, 4]).unwrap();
    let axes = names(&["y"]);
    let xs: Vec<Array> = (0..8)
        .map(|p| {
            let (r, c) = ((p / 4) as f32, (p % 4) as f32);
            Array::from_f32(&[2], vec![100.0 * r + c, 100.0 * r + 10.0 * c]).unwrap()
        })
        .collect();
    let crossed = IndexGroups::new(vec![vec![3, 0], vec![2, 1]]).unwrap();
    let uneven = IndexGroups::new(vec![vec![0], vec![1, 2, 3]]).unwrap();
    for slot in [4, 1 << 14] {
        let sums = in_groups_everywhere(&mesh, slot, Op::Psum, &xs, &axes, &crossed).unwrap();
        assert_eq!(sums[0].f32_data().unwrap(), &[3.0, 30.0]);
        assert_eq!(sums[6].f32_data().unwrap(), &[203.0, 230.0]);
        let sums = in_groups_everywhere(&mesh, slot, Op::Psum, &xs, &axes, &uneven).unwrap();
        assert_eq!(sums[4].f32_data().unwrap(), &[100.0, 100.0]);
        assert_eq!(sums[5].f32_data().unwrap(), &[306.0, 360.0]);
        // pmean divides by the first group's size, as JAX does.
        let means = in_groups_everywhere(&mesh, slot, Op::Pmean, &xs, &axes, &uneven).unwrap();
        assert_eq!(means[1].f32_data().unwrap(), &[6.0, 60.0]);
        let maxes = in_groups_everywhere(&mesh, slot, Op::Pmax, &xs, &axes, &uneven).unwrap();
        assert_eq!(maxes[1].f32_data().unwrap(), &[3.0, 30.0]);
        // Ranks are places in the listed group: device 0 is rank 1 of (3, 0).
        let gather = Op::AllGather {
            axis: 0,
            tiled: false,
        };
        let gathered = in_groups_everywhere(&mesh, slot, gather, &xs, &axes, &crossed).unwrap();
        assert_eq!(gathered[0].f32_data().unwrap(), &[3.0, 30.0, 0.0, 0.0]);
        let scatter = Op::PsumScatter {
            dim: 0,
            tiled: false,
        };
        let scattered = in_groups_everywhere(&mesh, slot, scatter, &xs, &axes, &crossed).unwrap();
        assert_eq!(scattered[0].f32_data().unwrap(), &[30.0]);
        assert_eq!(scattered[3].f32_data().unwrap(), &[3.0]);
        let a2a = Op::AllToAll {
            split: 0,
            concat: 0,
            tiled: true,
        };
        let exchanged = in_groups_everywhere(&mesh, slot, a2a, &xs, &axes, &crossed).unwrap();
        assert_eq!(exchanged[0].f32_data().unwrap(), &[30.0, 0.0]);
        // all_to_all whose first group has one member moves nothing.
        let one = Op::AllToAll {
            split: 0,
            concat: 0,
            tiled: true,
        };
        let same = in_groups_everywhere(&mesh, slot, one, &xs, &axes, &uneven).unwrap();
        assert!(same.iter().zip(&xs).all(|(a, b)| a.bitwise_eq(b)));
    }
}

#[test]
fn axis_index_groups_that_do_not_fit_the_axis_are_refused() {
    let mesh = Mesh::new(&["x"], &[4]).unwrap();
    let axes = names(&["x"]);
    let xs: Vec<Array> = (0..4)
        .map(|p| Array::from_f32(&[2], vec![p as f32; 2]).unwrap())
        .collect();
    let gather = Op::AllGather {
        axis: 0,
        tiled: false,
    };
    let cases: [(Vec<Vec<usize>>, Op, ErrorKind); 5] = [
        (
            vec![vec![0, 1], vec![2, 3], vec![4, 5]],
            Op::Psum,
            ErrorKind::IndexError,
        ),
        (vec![vec![0, 1]], Op::Psum, ErrorKind::RuntimeError),
        (vec![vec![0], vec![1, 2, 3]], gather, ErrorKind::ValueError),
        (vec![], Op::Pmax, ErrorKind::ValueError),
        (
            vec![vec![], vec![0, 1, 2, 3]],
            Op::Psum,
            ErrorKind::RuntimeError,
        ),
    ];
    for (groups, op, kind) in cases {
        let g = IndexGroups::new(groups.clone()).unwrap();
        let e = in_groups_everywhere(&mesh, 1 << 10, op, &xs, &axes, &g).unwrap_err();
        assert_eq!(e.kind, kind, "{groups:?}: {e}");
    }
    for groups in [
        vec![vec![0, 1], vec![1, 2]],
        vec![vec![0, 2]],
        vec![vec![0, 0]],
    ] {
        let e = IndexGroups::new(groups).unwrap_err();
        assert_eq!(e.kind, ErrorKind::ValueError);
    }
}

#[test]
fn reductions_over_two_members_fold_in_rank_order_through_slots() {
    // For pmax and pmin every third element is a NaN whose payload names
    // its device: both keep the first operand's NaN, so a pair folded the
    // wrong way round would give the other member's bits. (A sum of two
    // NaNs has no fixed payload: the compiler may swap an addition's
    // operands.) 3000 words take the path of large operands; 64-word slots
    // cut them into many pieces.
    let n = 3000;
    let nan = |device: usize| f32::from_bits(0x7fc0_0000 | (device as u32 + 1));
    let operands = |with_nans: bool| -> Vec<Array> {
        (0..8)
            .map(|p| {
                let v = (0..n)
                    .map(|i| match i % 3 {
                        0 if with_nans => nan(p),
                        0 | 1 => (i * (p + 1)) as f32 * 0.1,
                        _ if p % 2 == 0 => 0.0,
                        _ => -0.0,
                    })
                    .collect();
                Array::from_f32(&[n], v).unwrap()
            })
            .collect()
    };
    let mesh = Mesh::new(&["x", "y"], &[2, 4]).unwrap();
    // Device 0 is rank 1 of the group (3, 0).
    let crossed = IndexGroups::new(vec![vec![3, 0], vec![2, 1]]).unwrap();
    for slot in [64, 1 << 14] {
        for op in [Op::Psum, Op::Pmax, Op::Pmin, Op::Pmean] {
            let selects = matches!(op, Op::Pmax | Op::Pmin);
            let xs = operands(selects);
            let got = in_groups_everywhere(&mesh, slot, op, &xs, &names(&["y"]), &crossed).unwrap();
            if selects {
                assert_eq!(got[0].f32_data().unwrap()[0].to_bits(), nan(3).to_bits());
            }
            // Over 'x', of size 2: device 4 is rank 1, after device 0.
            let axes = names(&["x"]);
            let want = in_lockstep(&mesh, op, &xs, &axes).unwrap();
            let got = on_threads(&mesh, slot, op, &xs, &axes).unwrap();
            for (p, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(g.bitwise_eq(w), "{op:?} slot {slot}, device {p}");
            }
            if selects {
                assert_eq!(got[4].f32_data().unwrap()[3].to_bits(), nan(0).to_bits());
            }
        }
    }
}
