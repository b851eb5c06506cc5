//! Property: for random meshes, partition specs and programs mixing local
//! arithmetic with collectives, the parallel evaluator (one thread per device
//! over the fabric) and the lockstep evaluator (every device in one thread)
//! give identical bits.

mod common;

use common::*;
use proptest::prelude::*;
use shardlab::ops;
use shardlab::{Array, Mesh, PartitionSpec, Value};

/// Meshes of 1 to 3 axes over at most 8 devices.
const MESHES: &[(&[&str], &[usize])] = &[
    (&["x"], &[1]),
    (&["x"], &[2]),
    (&["x"], &[8]),
    (&["x", "y"], &[2, 4]),
    (&["x", "y"], &[4, 2]),
    (&["x", "y"], &[2, 2]),
    (&["x", "y", "z"], &[2, 2, 2]),
    (&["x", "y", "z"], &[1, 2, 4]),
];

/// One step of a random body. Every step keeps the local shape, so the
/// output can be laid out with the input's spec.
fn step(op: u8, pick: usize, x: &Value, axes_all: &[String]) -> shardlab::Result<Value> {
    // A non-empty subset of the mesh axes, in a pick-dependent order.
    let mut axes: Vec<String> = axes_all
        .iter()
        .enumerate()
        .filter(|(i, _)| (pick >> i) & 1 == 1)
        .map(|(_, a)| a.clone())
        .collect();
    if axes.is_empty() {
        axes.push(axes_all[pick % axes_all.len()].clone());
    }
    if pick & 8 != 0 {
        axes.reverse();
    }
    let n = ops::axis_size(&axes)?;
    let rows = x.shape()[0];
    match op % 9 {
        0 => ops::psum(x, &axes),
        1 => ops::pmax(x, &axes),
        2 => ops::pmean(x, &axes),
        3 => {
            let perm: Vec<(usize, usize)> = (0..n).map(|i| (i, (i + 1 + pick) % n)).collect();
            ops::ppermute(x, &axes, &perm)
        }
        4 => {
            let g = ops::all_gather(x, &axes, 0, false, false)?;
            ops::sum(&g, Some(&[0]), false)
        }
        5 if rows % n == 0 => {
            let s = ops::psum_scatter(x, &axes, 0, true)?;
            ops::all_gather(&s, &axes, 0, true, false)
        }
        6 if rows % n == 0 => ops::all_to_all(x, &axes, 0, 0, true),
        7 => ops::tanh(&ops::mul_scalar(x, 0.37)?),
        _ => {
            let idx = ops::convert(&ops::axis_index(&axes)?, shardlab::DType::F32)?;
            ops::add(&ops::mul(x, x)?, &idx)
        }
    }
}

fn run(mesh_i: usize, spec_i: usize, ops_list: &[(u8, usize)], seed: u64) -> Vec<Value> {
    let (names_ref, shape) = MESHES[mesh_i % MESHES.len()];
    let mesh = Mesh::new(names_ref, shape).unwrap();
    let axes_all = names(names_ref);
    // Shard dim 0 over one axis, a pair of axes, or nothing.
    let spec = match spec_i % 3 {
        0 => PartitionSpec::new(vec![Some(vec![axes_all[0].clone()])]),
        1 => PartitionSpec::new(vec![Some(axes_all.iter().rev().cloned().collect())]),
        _ => PartitionSpec::new(vec![None, Some(vec![axes_all[axes_all.len() - 1].clone()])]),
    };
    // 16 rows and 8 columns divide every mesh above.
    let mut state = seed | 1;
    let data: Vec<f32> = (0..128)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
        })
        .collect();
    let x = Value::Concrete(Array::from_f32(&[16, 8], data).unwrap());
    let ops_list = ops_list.to_vec();
    both_modes(move || {
        let ops_list = ops_list.clone();
        let axes_all = axes_all.clone();
        ops::shard_map(
            Box::new(move |a| {
                let mut v = a[0].clone();
                for &(op, pick) in &ops_list {
                    v = step(op, pick, &v, &axes_all)?;
                }
                Ok(vec![v])
            }),
            &mesh,
            std::slice::from_ref(&spec),
            std::slice::from_ref(&spec),
            false,
            std::slice::from_ref(&x),
        )
        .unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn parallel_and_lockstep_give_identical_bits(
        mesh_i in 0usize..8,
        spec_i in 0usize..3,
        ops_list in prop::collection::vec((0u8..9, 0usize..16), 1..6),
        seed in any::<u64>(),
    ) {
        // `both_modes` asserts bitwise equality of the two evaluators.
        let out = run(mesh_i, spec_i, &ops_list, seed);
        prop_assert_eq!(out[0].shape(), vec![16, 8]);
    }
}
