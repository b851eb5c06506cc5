//! The run report: shards, collectives before/after, groups and timings of a
//! shard_map, identical in both evaluators except for timings (hand computed).

mod common;

use common::*;
use std::rc::Rc;

use shardlab::exec::run::{self, Observer, Run};
use shardlab::exec::{self, Mode};
use shardlab::{ops, report, Mesh};

/// Runs `f` as a run in `mode` whose report is recorded.
fn recorded<T>(mode: Mode, f: impl FnOnce() -> T) -> (T, report::Report) {
    let recorder = Rc::new(report::Recorder::default());
    let observer: Rc<dyn Observer> = recorder.clone();
    let config = exec::Config {
        mode,
        ..Default::default()
    };
    let _run = run::enter(Run::new(config).observed_by(Some(observer)));
    (f(), recorder.take())
}

fn record(mode: Mode) -> report::Report {
    let mesh = Mesh::new(&["x", "y"], &[2, 2]).unwrap();
    recorded(mode, || {
        ops::shard_map(
            Box::new(|a| Ok(vec![ops::psum(&a[0], &names(&["y"]))?])),
            &mesh,
            &[spec(&[&["x"], &["y"]])],
            &[spec(&[&["x"]])],
            true,
            &[arange(&[2, 4])],
        )
        .unwrap()
    })
    .1
}

#[test]
fn report_shows_shards_and_collectives() {
    for mode in [Mode::Parallel, Mode::Lockstep] {
        let rep = record(mode);
        assert_eq!(rep.maps.len(), 1);
        let run = &rep.maps[0];
        assert_eq!(run.kind, "shard_map");
        assert_eq!(run.mesh_shape, vec![2, 2]);
        // arange(8).reshape(2, 4) over P('x', 'y'): device (1, 0) holds row 1, columns 0..2.
        let input = &run.inputs[0];
        assert_eq!(input.shards[2].coords, vec![1, 0]);
        assert_eq!(input.shards[2].index, vec![[1, 2], [0, 2]]);
        assert_eq!(input.shards[2].value.data, vec![4.0, 5.0]);
        // One psum over 'y': groups are the rows of the mesh.
        assert_eq!(run.collectives.len(), 1);
        let c = &run.collectives[0];
        assert_eq!(c.name, "psum_invariant");
        assert_eq!(c.groups, vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(c.before[3].data, vec![6.0, 7.0]);
        assert_eq!(c.after[3].data, vec![10.0, 12.0]);
        assert_eq!(c.after[2].data, vec![10.0, 12.0]);
        // 2 groups of 2 devices, 8 bytes each: 2 * (2 - 1) * 8 per group.
        assert_eq!(c.bytes_moved, 32);
        // The output P('x', None): replicated over 'y', so each block has 2 holders.
        assert_eq!(run.outputs[0].holders, vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(run.outputs[0].global.data, vec![2.0, 4.0, 10.0, 12.0]);
        assert!(run.jaxpr.contains("psum_invariant"), "{}", run.jaxpr);
        match mode {
            Mode::Parallel => assert_eq!(run.timings.len(), 4),
            _ => assert!(run.timings.is_empty()),
        }
        assert_eq!(
            run.mode,
            if mode == Mode::Parallel {
                "parallel"
            } else {
                "lockstep"
            }
        );
    }
}

/// Runs `x @ w` under shard_map with x's rows split over 'x' of a mesh of
/// 4 in `mode`; returns the report.
fn matmul_map(mode: Mode, rows: usize, k: usize) -> report::Report {
    let mesh = Mesh::new(&["x"], &[4]).unwrap();
    let (out, rep) = recorded(mode, || {
        ops::shard_map(
            Box::new(|a| Ok(vec![ops::matmul(&a[0], &a[1])?])),
            &mesh,
            &[spec(&[&["x"]]), spec(&[])],
            &[spec(&[&["x"]])],
            true,
            &[arange(&[rows, k]), arange(&[k, 2])],
        )
    });
    out.unwrap();
    rep
}

#[test]
fn auto_mode_runs_small_maps_in_lockstep_and_large_ones_in_parallel() {
    // The body is one dot_general, estimated at 1 us + (rows / 4) * 2 * k *
    // 0.05 ns per device: 8 rows of 4 give 1 us and 4096 rows of 256 give
    // 27 us, both under the 100 us line; 4096 rows of 2048 give 211 us.
    for (rows, k, want) in [
        (8, 4, "lockstep"),
        (4096, 256, "lockstep"),
        (4096, 2048, "parallel"),
    ] {
        let auto = matmul_map(Mode::Auto, rows, k);
        assert_eq!(auto.maps[0].mode, want, "{rows} x {k}");
        let parallel = matmul_map(Mode::Parallel, rows, k);
        assert_eq!(parallel.maps[0].mode, "parallel");
        // Same bits whichever way it ran.
        assert_eq!(
            auto.maps[0].outputs[0].global.data,
            parallel.maps[0].outputs[0].global.data
        );
    }
}

#[test]
fn a_run_leaves_nothing_behind() {
    let mesh = Mesh::new(&["x"], &[2]).unwrap();
    let psum = || {
        ops::shard_map(
            Box::new(|a| Ok(vec![ops::psum(&a[0], &names(&["x"]))?])),
            &mesh,
            &[spec(&[&["x"]])],
            &[spec(&[])],
            true,
            &[arange(&[2])],
        )
        .unwrap()
    };
    let recorder = Rc::new(report::Recorder::default());
    {
        let observer: Rc<dyn Observer> = recorder.clone();
        let config = exec::Config {
            devices: 3,
            ..Default::default()
        };
        let _run = run::enter(Run::new(config).observed_by(Some(observer)));
        psum();
        assert_eq!(exec::config().devices, 3);
        assert_eq!(run::maps_seen(), 1);
    }
    // The run is over: its settings and observer are gone, and a map run
    // now is told to nobody.
    assert_eq!(exec::config().devices, 8);
    assert!(run::observer().is_none());
    psum();
    assert_eq!(recorder.take().maps.len(), 1);
}

fn report_of(program: &str, lockstep: bool) -> report::Report {
    let path = format!("{}/tests/programs/{program}", env!("CARGO_MANIFEST_DIR"));
    report_of_text(&std::fs::read_to_string(path).unwrap(), lockstep)
}

#[test]
fn the_transposed_map_of_a_grad_is_marked_backward() {
    // value_and_grad(loss)(w=0.5, x=arange(8)) with loss = psum(sum((xs*w)^2))
    // over 4 devices: the forward map, then its transpose.
    for lockstep in [true, false] {
        let rep = report_of("grad_shard_map_vma_true.py", lockstep);
        let roles: Vec<&str> = rep.maps.iter().map(|m| m.role).collect();
        assert_eq!(roles.last(), Some(&"backward"), "{roles:?}");
        assert!(roles[..roles.len() - 1].iter().all(|r| *r == "forward"));
        // The forward output is the psum: invariant.
        assert_eq!(rep.maps[0].out_vma, vec![Vec::<String>::new()]);
        assert_eq!(rep.maps[0].outputs[0].global.data, vec![35.0]);
        let back = rep.maps.last().unwrap();
        // d/dw sum((x*w)^2) = 2 w sum(x^2) = 140, already summed over the
        // devices (pvary transposes to psum), so invariant; the x cotangent
        // 2 w^2 x varies over 'x'.
        assert_eq!(back.out_vma, vec![vec![], vec!["x".to_string()]]);
        assert_eq!(back.outputs[0].global.data, vec![140.0]);
        for shard in &back.outputs[0].shards {
            assert_eq!(shard.value.data, vec![140.0]);
        }
        let gx: Vec<f64> = (0..8).map(|i| 0.5 * i as f64).collect();
        assert_eq!(back.outputs[1].global.data, gx);
        assert!(back.elapsed_us >= 0.0);
    }
}

#[test]
fn collectives_carry_per_device_times() {
    for lockstep in [true, false] {
        let rep = report_of("pmean_grad_in_body_vma_false.py", lockstep);
        let m = &rep.maps[0];
        assert_eq!(m.role, "forward");
        assert!(!m.collectives.is_empty());
        for c in &m.collectives {
            assert_eq!(c.elapsed_us.len(), 8);
            assert!(c.elapsed_us.iter().all(|t| *t >= 0.0));
        }
        // check_vma=False: nothing is tracked, the output shows no axes.
        assert_eq!(m.out_vma, vec![Vec::<String>::new()]);
        assert_eq!(m.outputs[0].global.data, vec![60.0]);
    }
}

#[test]
fn eager_grad_calls_are_recorded_with_their_maps() {
    // grad_shard_map_vma_true: value_and_grad(loss)(0.5, arange(8)) gives
    // loss sum((x w)^2) = 0.25 * 140 = 35 and gradient 2 w sum(x^2) = 140
    // (the fixture's [35.0, 140.0, 140.0]); the reference jax.grad of the
    // unsharded loss runs no map.
    let rep = report_of("grad_shard_map_vma_true.py", true);
    assert_eq!(rep.grads.len(), 2, "{:?}", rep.grads);
    let g = &rep.grads[0];
    assert_eq!(g.loss, 35.0);
    assert_eq!(g.grads.len(), 1);
    assert_eq!(g.grads[0].data, vec![140.0]);
    assert_eq!(g.maps, [0, rep.maps.len()]);
    assert_eq!(rep.maps[g.maps[1] - 1].role, "backward");
    assert_eq!(rep.grads[1].loss, 35.0);
    assert_eq!(rep.grads[1].maps[0], rep.grads[1].maps[1]);
}

#[test]
fn a_grad_under_a_trace_is_not_recorded() {
    // The grad inside the shard_map body is traced, not evaluated.
    let rep = report_of("pmean_grad_in_body_vma_true.py", true);
    assert!(rep.grads.is_empty());
    assert_eq!(rep.maps.len(), 1);
}

/// Runs program text (not a file) with the report on.
fn report_of_text(source: &str, lockstep: bool) -> report::Report {
    let options = shardlab::program::Options {
        devices: 8,
        mode: if lockstep {
            shardlab::exec::Mode::Lockstep
        } else {
            shardlab::exec::Mode::Parallel
        },
        ..Default::default()
    };
    let (outcome, rep) = shardlab::program::run_recorded(source, &options);
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    rep
}

#[test]
fn a_jit_on_sharded_arrays_runs_on_the_devices_with_its_collectives() {
    // x = arange(8) split over 'x' (4 devices, 2 each); w = ones((8, 2))
    // replicated. x @ w contracts the split dimension: each device
    // multiplies its block, then a psum over 'x' adds the partial products.
    let program = "
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((4,), ('x',), axis_types=(jax.sharding.AxisType.Auto,))
x = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P('x')))
y = jax.jit(lambda x, w: x @ w)(x, jnp.ones((8, 2)))
";
    for lockstep in [true, false] {
        let rep = report_of_text(program, lockstep);
        let run = rep
            .maps
            .iter()
            .find(|m| m.kind == "jit")
            .expect("a jit run");
        assert_eq!(run.mesh_shape, vec![4]);
        // Device 1 holds x[2:4] = [2, 3].
        assert_eq!(run.inputs[0].shards[1].value.data, vec![2.0, 3.0]);
        // w's rows are cut to match x's blocks (axis_index picks each
        // device's rows; no data moves), then the products are summed.
        let names: Vec<&str> = run.collectives.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["axis_index", "psum"]);
        let c = &run.collectives[1];
        // Partial products: device 1 has 2 + 3 = 5 in both columns.
        assert_eq!(c.before[1].data, vec![5.0, 5.0]);
        assert_eq!(c.after[1].data, vec![28.0, 28.0]);
        assert_eq!(run.outputs[0].global.data, vec![28.0, 28.0]);
    }
}

#[test]
fn the_collectives_jit_inserts_name_the_line_of_their_operation() {
    // x (8, 4) = arange(32) split by rows over 'x' (4 devices, rows 2p and
    // 2p + 1 on device p); w = ones((4, 8)) split by columns. XLA compiles
    // x @ w into an all-gather of w's columns (each device then holds all of
    // w) and the sum into a local sum and an all-reduce; shardlab inserts
    // the same two.
    let program = "
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((4,), ('x',), axis_types=(jax.sharding.AxisType.Auto,))
x = jax.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(mesh, P('x', None)))
w = jax.device_put(jnp.ones((4, 8)), NamedSharding(mesh, P(None, 'x')))
def f(x, w):
    h = x @ w
    return h.sum()
y = jax.jit(f)(x, w)
";
    for lockstep in [true, false] {
        let rep = report_of_text(program, lockstep);
        let run = rep.maps.iter().find(|m| m.kind == "jit").expect("a jit");
        assert_eq!(run.line, Some(10));
        let names: Vec<&str> = run.collectives.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["all_gather", "psum"]);
        let (gather, sum) = (&run.collectives[0], &run.collectives[1]);
        // The all-gather is the matmul's (line 8), the all-reduce the sum's.
        assert_eq!((gather.line, sum.line), (Some(8), Some(9)));
        assert_eq!(gather.groups, vec![vec![0, 1, 2, 3]]);
        // Each device's (4, 2) block of ones becomes all of w, (4, 8).
        assert_eq!(gather.before[2].shape, vec![4, 2]);
        assert_eq!(gather.after[2].shape, vec![4, 8]);
        assert!(gather.after[2].data.iter().all(|&v| v == 1.0));
        // 4 devices each receive the other 3 blocks of 8 floats (32 bytes).
        assert_eq!(gather.bytes_moved, 4 * 3 * 32);
        // Row r of x sums to 16r + 6, and x @ w repeats it in 8 columns:
        // device 1 (rows 2, 3) holds (38 + 54) * 8 = 736 before the
        // all-reduce; every row's together, 8 * (16 * 28 + 6 * 8) = 3968.
        assert_eq!(sum.before[1].data, vec![736.0]);
        assert_eq!(sum.after[1].data, vec![3968.0]);
        // A scalar of 4 bytes, reduced then gathered over 4 devices.
        assert_eq!(sum.bytes_moved, 2 * 3 * 4);
        assert_eq!(run.outputs[0].global.data, vec![3968.0]);
        // The per-device program has the local shapes.
        assert!(run.jaxpr.contains("a:f32[2,4] b:f32[4,2]"), "{}", run.jaxpr);
    }
}

#[test]
fn a_shard_map_collective_names_its_own_line() {
    let program = "
import jax, jax.numpy as jnp
from jax.sharding import PartitionSpec as P
mesh = jax.make_mesh((2,), ('x',), axis_types=(jax.sharding.AxisType.Auto,))
f = jax.shard_map(lambda b: jax.lax.psum(b, 'x'),
                  mesh=mesh, in_specs=P('x'), out_specs=P())
y = f(jnp.arange(4.0))
";
    let rep = report_of_text(program, true);
    assert_eq!(rep.maps[0].line, Some(7));
    assert_eq!(rep.maps[0].collectives[0].line, Some(5));
}

#[test]
fn a_pmean_is_recorded_as_pmean_and_a_psum_divided_by_hand_is_not() {
    // x = arange(8) over 'x' (4 devices, 2 each). pmean binds a sum and a
    // division, as in JAX; its sum keeps the name pmean. A psum divided by
    // 4 in the program itself is the same jaxpr, but stays a psum. Inside a
    // jit and under pmap (an untracked psum) the name is kept too.
    let program = "
import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
x = jnp.arange(8.0)
f = jax.shard_map(lambda b: (jax.lax.pmean(b, 'x'), jax.lax.psum(b, 'x') / 4,
                             jax.jit(lambda c: jax.lax.pmean(c, 'x'))(b)),
                  mesh=mesh, in_specs=P('x'), out_specs=(P(), P(), P()))
a, b, c = f(x)
m = jax.pmap(lambda v: jax.lax.pmean(v, 'i'), axis_name='i')(jnp.arange(4.0))
";
    for lockstep in [true, false] {
        let rep = report_of_text(program, lockstep);
        let names = |m: &report::MapRun| -> Vec<(String, Option<String>)> {
            m.collectives
                .iter()
                .map(|c| (c.name.clone(), c.called_as.clone()))
                .collect()
        };
        let sum = |called: Option<&str>| ("psum_invariant".to_string(), called.map(String::from));
        assert_eq!(
            names(&rep.maps[0]),
            vec![sum(Some("pmean")), sum(None), sum(Some("pmean"))]
        );
        // The recorded result is the sum, before the division: device 2
        // holds [4, 5]; the sum over the 4 devices is [12, 16].
        let c = &rep.maps[0].collectives[0];
        assert_eq!(c.before[2].data, vec![4.0, 5.0]);
        assert_eq!(c.after[2].data, vec![12.0, 16.0]);
        let pmap = &rep.maps[1];
        assert_eq!(
            names(pmap),
            vec![("psum".to_string(), Some("pmean".to_string()))]
        );
    }
}

#[test]
fn an_eager_change_of_layout_is_one_all_to_all() {
    // x (4, 4) split by rows over 'x' (2 devices) resharded to columns:
    // every device sends the other the half of its rows the other keeps.
    let program = "
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((2,), ('x',), axis_types=(jax.sharding.AxisType.Auto,))
x = jax.device_put(jnp.arange(16.0).reshape(4, 4), NamedSharding(mesh, P('x')))
y = jax.jit(lambda x: jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P(None, 'x'))))(x)
";
    for lockstep in [true, false] {
        let rep = report_of_text(program, lockstep);
        let run = rep
            .maps
            .iter()
            .find(|m| m.kind == "jit")
            .expect("a jit run");
        let names: Vec<&str> = run.collectives.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["all_to_all"]);
        // Device 0 ends with columns 0..2 of every row.
        let out = &run.outputs[0].shards[0].value.data;
        assert_eq!(out, &vec![0.0, 1.0, 4.0, 5.0, 8.0, 9.0, 12.0, 13.0]);
    }
}

#[test]
fn a_top_level_reshard_runs_on_the_devices_and_is_recorded() {
    // Over an explicit axis, reshard moves x (4, 4) from rows split over
    // 'x' (2 devices) to columns: one all_to_all, recorded at its line.
    // An eager sharding constraint elsewhere only labels its result.
    let program = "
import jax, jax.numpy as jnp
from jax.sharding import PartitionSpec as P
mesh = jax.make_mesh((2,), ('x',), axis_types=(jax.sharding.AxisType.Explicit,))
jax.sharding.set_mesh(mesh)
x = jax.device_put(jnp.arange(16.0).reshape(4, 4), P('x', None))
y = jax.sharding.reshard(x, P(None, 'x'))
";
    for lockstep in [true, false] {
        let rep = report_of_text(program, lockstep);
        assert_eq!(rep.maps.len(), 1);
        let run = &rep.maps[0];
        assert_eq!((run.kind, run.line), ("reshard", Some(7)));
        let names: Vec<&str> = run.collectives.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["all_to_all"]);
        assert_eq!(run.collectives[0].line, Some(7));
        // Device 1 held rows 2..4 and ends with columns 2..4 of every row.
        assert_eq!(
            run.inputs[0].shards[1].value.data,
            (8..16).map(f64::from).collect::<Vec<_>>()
        );
        let out = &run.outputs[0].shards[1].value.data;
        assert_eq!(out, &vec![2.0, 3.0, 6.0, 7.0, 10.0, 11.0, 14.0, 15.0]);
        // Each device sends the other half of its 8 floats: 2 * 16 bytes.
        assert_eq!(run.collectives[0].bytes_moved, 32);
    }
}

#[test]
fn the_cli_writes_the_report_of_its_run() {
    // `shardlab run --report` records on the thread that runs the program.
    let dir = std::env::temp_dir().join(format!("shardlab-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("p.py");
    std::fs::write(
        &program,
        "import jax, jax.numpy as jnp\nprint(jax.pmap(lambda x: jax.lax.psum(x, 'i'), axis_name='i')(jnp.arange(4.0)))\n",
    )
    .unwrap();
    let out = dir.join("report.json");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_shardlab"))
        .args([
            "run",
            program.to_str().unwrap(),
            "--report",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let maps = rep["maps"].as_array().unwrap();
    assert_eq!(maps.len(), 1);
    assert_eq!(maps[0]["kind"], "pmap");
    assert_eq!(maps[0]["collectives"][0]["name"], "psum");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn named_sharded_arrays_are_recorded_with_their_tiles() {
    // cube: arange(64).reshape(4, 4, 4) over a 2x2x2 mesh by P('a', 'b',
    // 'c'): the device at coordinates (i, j, k) holds [2i:2i+2, 2j:2j+2,
    // 2k:2k+2]. rows: split over 'a' only, so each block is on the 4
    // devices of 'b' x 'c'. plain is on one device and is left out.
    let program = "
import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 2, 2), ('a', 'b', 'c'))
plain = jnp.ones(3)
rows = jax.device_put(jnp.zeros((4, 2)), NamedSharding(mesh, P('a')))
cube = jax.device_put(jnp.arange(64.0).reshape(4, 4, 4), NamedSharding(mesh, P('a', 'b', 'c')))
";
    let rep = report_of_text(program, true);
    let names: Vec<&str> = rep.arrays.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, vec!["rows", "cube"]);
    let cube = &rep.arrays[1];
    assert_eq!(cube.shape, vec![4, 4, 4]);
    assert_eq!(cube.type_text, "float32[4,4,4]");
    assert_eq!(cube.spec, "P('a', 'b', 'c')");
    assert_eq!(cube.mesh_shape, vec![2, 2, 2]);
    assert_eq!(cube.dim_axes, vec![vec!["a"], vec!["b"], vec!["c"]]);
    assert_eq!(cube.tiles.len(), 8);
    for t in &cube.tiles {
        let want: Vec<[usize; 2]> = t.coords.iter().map(|&c| [2 * c, 2 * c + 2]).collect();
        assert_eq!(t.index, want);
    }
    let rows = &rep.arrays[0];
    assert_eq!(rows.dim_axes, vec![vec!["a".to_string()], vec![]]);
    assert_eq!(rows.holders, vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
    assert_eq!(rows.tiles[5].index, vec![[2, 4], [0, 2]]);
}

#[test]
fn sharded_arrays_inside_lists_and_dicts_are_named_by_their_index() {
    let program = "
import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
put = lambda a: jax.device_put(a, NamedSharding(mesh, P('x')))
params = {'w': put(jnp.ones((4, 2))), 'layers': [put(jnp.zeros(8)), 3]}
pair = (put(jnp.arange(4.0)), jnp.ones(2))
";
    let rep = report_of_text(program, true);
    let names: Vec<&str> = rep.arrays.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, vec!["params['w']", "params['layers'][0]", "pair[0]"]);
    assert_eq!(rep.arrays[1].tiles[3].index, vec![[6, 8]]);
}
