//! The engine through its Rust API: the seed programs that need no Flax, and
//! gradients through shard_map and pmap. Expected values are computed by hand
//! (noted next to each) or come from JAX 0.10.2 on 8 CPU devices.

mod common;

use common::*;
use shardlab::ops;
use shardlab::primitives::MapKind;
use shardlab::transforms;
use shardlab::{ErrorKind, Mesh, Value};

/// ../shared/seeds/000: shard_map_psum on a 1-device mesh: sum([1, 2, 3]) = 6.
#[test]
fn seed_000_psum_under_shard_map() {
    let mesh = Mesh::new(&["data"], &[1]).unwrap();
    let out = both_modes(|| {
        let x = array(&[3], &[1.0, 2.0, 3.0]);
        ops::shard_map(
            Box::new(|a| {
                Ok(vec![ops::psum(
                    &ops::sum(&a[0], None, false)?,
                    &names(&["data"]),
                )?])
            }),
            &mesh,
            &[spec(&[&["data"]])],
            &[spec(&[])],
            true,
            &[x],
        )
        .unwrap()
    });
    assert_eq!(shape(&out[0]), Vec::<usize>::new());
    assert_close(&data(&out[0]), &[6.0]);
}

/// The same program on 8 devices: each holds 2 of arange(16); the psum of the
/// local sums is 0 + 1 + ... + 15 = 120 on every device.
#[test]
fn seed_000_on_eight_devices() {
    let mesh = Mesh::new(&["data"], &[8]).unwrap();
    let out = both_modes(|| {
        ops::shard_map(
            Box::new(|a| {
                Ok(vec![ops::psum(
                    &ops::sum(&a[0], None, false)?,
                    &names(&["data"]),
                )?])
            }),
            &mesh,
            &[spec(&[&["data"]])],
            &[spec(&[])],
            true,
            &[arange(&[16])],
        )
        .unwrap()
    });
    assert_close(&data(&out[0]), &[120.0]);
}

/// ../shared/seeds/002: pmap(scaled_sum, axis_name='devices') over arange(8):
/// every device gets sum(2 * [0..8)) = 56.
#[test]
fn seed_002_pmap_scaled_sum() {
    let out = both_modes(|| {
        ops::map(
            MapKind::Pmap,
            Box::new(|a| {
                let scaled = ops::mul_scalar(&a[0], 2.0)?;
                Ok(vec![ops::psum(&scaled, &names(&["devices"]))?])
            }),
            Some("devices"),
            &[Some(0)],
            &[0],
            &[arange(&[8])],
        )
        .unwrap()
    });
    assert_eq!(shape(&out[0]), vec![8]);
    assert_close(&data(&out[0]), &[56.0; 8]);
}

/// ../shared/seeds/003: per-row sum of squares via vmap inside shard_map and
/// via vmap alone, on [[1, 0], [0, 1]]: both [1, 1].
#[test]
fn seed_003_shard_map_vs_vmap() {
    let mesh = Mesh::new(&["data"], &[1]).unwrap();
    let row_sq = |rows: &Value| {
        ops::map(
            MapKind::Vmap,
            Box::new(|r| Ok(vec![ops::sum(&ops::integer_pow(&r[0], 2)?, None, false)?])),
            None,
            &[Some(0)],
            &[0],
            std::slice::from_ref(rows),
        )
    };
    let out = both_modes(|| {
        let x = array(&[2, 2], &[1.0, 0.0, 0.0, 1.0]);
        let sm = ops::shard_map(
            Box::new(|a| row_sq(&a[0])),
            &mesh,
            &[spec(&[&["data"]])],
            &[spec(&[&["data"]])],
            true,
            std::slice::from_ref(&x),
        )
        .unwrap();
        let vm = row_sq(&x).unwrap();
        vec![ops::stack(&[sm[0].clone(), vm[0].clone()], 0).unwrap()]
    });
    assert_eq!(shape(&out[0]), vec![2, 2]);
    assert_close(&data(&out[0]), &[1.0, 1.0, 1.0, 1.0]);
}

/// loss(w, x) = psum(sum(x * w)) under shard_map with w replicated (P()) and x
/// split over 4 devices. d loss / d w = column sums of x = [360, 376, 392]
/// (x = arange(48).reshape(16, 3): 3 * (0 + ... + 15) + k * 16), with the VMA
/// check on or off: JAX 0.10.2 gives the same.
#[test]
fn grad_of_replicated_weight_through_shard_map() {
    let mesh = Mesh::new(&["x"], &[4]).unwrap();
    for check_vma in [true, false] {
        let out = both_modes(|| {
            let w = array(&[3], &[1.0, 2.0, 3.0]);
            let (_, grads) = transforms::value_and_grad(
                |args| {
                    ops::shard_map(
                        Box::new(|a| {
                            let s = ops::sum(&ops::mul(&a[1], &a[0])?, None, false)?;
                            Ok(vec![ops::psum(&s, &names(&["x"]))?])
                        }),
                        &mesh,
                        &[spec(&[]), spec(&[&["x"]])],
                        &[spec(&[])],
                        check_vma,
                        args,
                    )
                },
                &[w, arange(&[16, 3])],
                &[0, 1],
            )
            .unwrap();
            grads
        });
        assert_close(&data(&out[0]), &[360.0, 376.0, 392.0]);
        // d loss / d x = w broadcast to every row.
        let want: Vec<f64> = (0..16).flat_map(|_| [1.0, 2.0, 3.0]).collect();
        assert_close(&data(&out[1]), &want);
    }
}

/// pmean(grad(...)) taken inside the body. With the VMA check on, the grad of
/// the replicated w is already summed over the mesh (pvary transposes to psum),
/// so pmean leaves the sum [360, 376, 392]; with it off, each device has its
/// own partial gradient and pmean gives the mean [90, 94, 98]. JAX 0.10.2 gives
/// exactly these.
#[test]
fn pmean_of_grad_inside_shard_map_depends_on_check_vma() {
    let mesh = Mesh::new(&["x"], &[4]).unwrap();
    for (check_vma, want) in [(true, [360.0, 376.0, 392.0]), (false, [90.0, 94.0, 98.0])] {
        let out = both_modes(|| {
            ops::shard_map(
                Box::new(|a| {
                    let (w, x) = (a[0].clone(), a[1].clone());
                    let (_, g) = transforms::value_and_grad(
                        |p| Ok(vec![ops::sum(&ops::mul(&x, &p[0])?, None, false)?]),
                        &[w],
                        &[0],
                    )?;
                    Ok(vec![ops::pmean(&g[0], &names(&["x"]))?])
                }),
                &mesh,
                &[spec(&[]), spec(&[&["x"]])],
                &[spec(&[])],
                check_vma,
                &[array(&[3], &[1.0, 2.0, 3.0]), arange(&[16, 3])],
            )
            .unwrap()
        });
        assert_close(&data(&out[0]), &want);
    }
}

/// Under pmap the same code averages: x = arange(48).reshape(8, 2, 3), each
/// device's grad is the sum of its two rows, and pmean over 8 devices gives
/// [45, 47, 49] on every device (JAX 0.10.2).
#[test]
fn pmean_of_grad_under_pmap_is_the_mean() {
    let out = both_modes(|| {
        ops::map(
            MapKind::Pmap,
            Box::new(|a| {
                let (w, x) = (a[0].clone(), a[1].clone());
                let (_, g) = transforms::value_and_grad(
                    |p| Ok(vec![ops::sum(&ops::mul(&x, &p[0])?, None, false)?]),
                    &[w],
                    &[0],
                )?;
                Ok(vec![ops::pmean(&g[0], &names(&["i"]))?])
            }),
            Some("i"),
            &[None, Some(0)],
            &[0],
            &[array(&[3], &[1.0, 2.0, 3.0]), arange(&[8, 2, 3])],
        )
        .unwrap()
    });
    assert_eq!(shape(&out[0]), vec![8, 3]);
    let want: Vec<f64> = (0..8).flat_map(|_| [45.0, 47.0, 49.0]).collect();
    assert_close(&data(&out[0]), &want);
}

/// A collective naming an axis nothing binds is JAX's NameError, and the
/// message lists the axes that are bound.
#[test]
fn unbound_axis_name_is_a_name_error() {
    let mesh = Mesh::new(&["data"], &[2]).unwrap();
    let err = ops::shard_map(
        Box::new(|a| Ok(vec![ops::psum(&a[0], &names(&["batch"]))?])),
        &mesh,
        &[spec(&[&["data"]])],
        &[spec(&[])],
        true,
        &[arange(&[4])],
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::NameError);
    assert!(
        err.message.contains("batch") && err.message.contains("'data'"),
        "{}",
        err.message
    );
}

/// out_specs that omit an axis the output still varies over are refused at
/// trace time (JAX raises ValueError).
#[test]
fn out_specs_must_cover_varying_axes() {
    let mesh = Mesh::new(&["data"], &[2]).unwrap();
    let err = ops::shard_map(
        Box::new(|a| Ok(vec![ops::mul_scalar(&a[0], 2.0)?])),
        &mesh,
        &[spec(&[&["data"]])],
        &[spec(&[])],
        true,
        &[arange(&[4])],
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::ValueError);
    assert!(err.message.contains("'data'"), "{}", err.message);
    // With the check off the same program runs and returns device 0's block.
    let out = ops::shard_map(
        Box::new(|a| Ok(vec![ops::mul_scalar(&a[0], 2.0)?])),
        &mesh,
        &[spec(&[&["data"]])],
        &[spec(&[])],
        false,
        &[arange(&[4])],
    )
    .unwrap();
    assert_close(&data(&out[0]), &[0.0, 2.0]);
}

/// A dimension that the mesh axes do not divide is a ValueError naming the sizes.
#[test]
fn indivisible_dimension_is_refused() {
    let mesh = Mesh::new(&["data"], &[4]).unwrap();
    let err = ops::shard_map(
        Box::new(|a| Ok(vec![a[0].clone()])),
        &mesh,
        &[spec(&[&["data"]])],
        &[spec(&[&["data"]])],
        true,
        &[arange(&[6])],
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::ValueError);
    assert!(
        err.message.contains('6') && err.message.contains('4'),
        "{}",
        err.message
    );
}

/// Elementwise operations on shapes that do not broadcast name both shapes.
#[test]
fn shape_mismatch_names_both_shapes() {
    let err = ops::add(&arange(&[3, 4]), &arange(&[5])).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TypeError);
    assert!(
        err.message.contains("(3, 4)") && err.message.contains("(5,)"),
        "{}",
        err.message
    );
    let err = ops::matmul(&arange(&[2, 3]), &arange(&[4, 2])).unwrap_err();
    assert!(
        err.message.contains("[2, 3]") && err.message.contains("[4, 2]"),
        "{}",
        err.message
    );
}

/// A spec naming a mesh axis twice, or longer than the array's rank, is refused.
#[test]
fn bad_specs_are_refused() {
    let mesh = Mesh::new(&["x", "y"], &[2, 2]).unwrap();
    let run = |s| {
        ops::shard_map(
            Box::new(|a| Ok(vec![a[0].clone()])),
            &mesh,
            &[s],
            &[spec(&[])],
            false,
            &[arange(&[4, 4])],
        )
        .unwrap_err()
    };
    let twice = run(spec(&[&["x"], &["x"]]));
    assert_eq!(twice.kind, ErrorKind::ValueError);
    assert!(twice.message.contains('x'), "{}", twice.message);
    let long = run(spec(&[&["x"], &["y"], &[]]));
    assert_eq!(long.kind, ErrorKind::ValueError);
    assert!(
        long.message.contains('3') && long.message.contains('2'),
        "{}",
        long.message
    );
}

/// Differentiating with respect to an integer input is JAX's TypeError, and
/// a non-scalar loss names its shape.
#[test]
fn grad_input_and_output_checks() {
    let ints = Value::Concrete(shardlab::Array::from_i32(&[2], vec![1, 2]).unwrap());
    let err = transforms::value_and_grad(|a| Ok(vec![a[0].clone()]), &[ints], &[0]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TypeError);
    assert!(err.message.contains("int32"), "{}", err.message);
    let err =
        transforms::value_and_grad(|a| Ok(vec![a[0].clone()]), &[arange(&[3])], &[0]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TypeError);
    assert!(err.message.contains("(3,)"), "{}", err.message);
}

/// jvp and vjp of a shard_map with a psum inside: y = psum(x) over 4 devices
/// of x = arange(8) is [12, 16]; the tangent of ones is [4, 4]; the pullback
/// of [1, 2] is [1, 2] on every device's block (hand computation).
#[test]
fn jvp_and_vjp_through_shard_map() {
    let mesh = Mesh::new(&["x"], &[4]).unwrap();
    let f = |a: &[Value]| {
        ops::shard_map(
            Box::new(|b| Ok(vec![ops::psum(&b[0], &names(&["x"]))?])),
            &mesh,
            &[spec(&[&["x"]])],
            &[spec(&[])],
            true,
            a,
        )
    };
    let ones = array(&[8], &[1.0; 8]);
    let (y, t) = transforms::jvp(f, &[arange(&[8])], &[ones]).unwrap();
    assert_close(&data(&y[0]), &[12.0, 16.0]);
    assert_close(&data(&t[0]), &[4.0, 4.0]);
    let (_, pullback) = transforms::vjp(f, &[arange(&[8])]).unwrap();
    let ct = pullback.call(&[array(&[2], &[1.0, 2.0])]).unwrap();
    assert_close(&data(&ct[0]), &[1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0]);
}

/// vmap with an axis name: psum over the vmapped axis of arange(4) is 6 for
/// every index; all_gather gives every index the whole batch (hand computed).
#[test]
fn vmap_collectives_over_the_vmapped_axis() {
    let out = both_modes(|| {
        ops::map(
            MapKind::Vmap,
            Box::new(|a| {
                let i = names(&["i"]);
                Ok(vec![
                    ops::psum(&a[0], &i)?,
                    ops::all_gather(&a[0], &i, 0, false, false)?,
                ])
            }),
            Some("i"),
            &[Some(0)],
            &[0],
            &[arange(&[4])],
        )
        .unwrap()
    });
    assert_close(&data(&out[0]), &[6.0; 4]);
    assert_eq!(shape(&out[1]), vec![4, 4]);
    let want: Vec<f64> = (0..4).flat_map(|_| [0.0, 1.0, 2.0, 3.0]).collect();
    assert_close(&data(&out[1]), &want);
}

/// A mesh collective inside a vmap inside shard_map: each of 2 devices holds
/// two rows of arange(8).reshape(4, 2); vmapping over its rows and psumming
/// over 'x' adds row r of device 0 to row r of device 1: [[4, 6], [8, 10]].
#[test]
fn mesh_collective_inside_vmap_inside_shard_map() {
    let mesh = Mesh::new(&["x"], &[2]).unwrap();
    let out = both_modes(|| {
        ops::shard_map(
            Box::new(|a| {
                ops::map(
                    MapKind::Vmap,
                    Box::new(|r| Ok(vec![ops::psum(&r[0], &names(&["x"]))?])),
                    None,
                    &[Some(0)],
                    &[0],
                    std::slice::from_ref(&a[0]),
                )
            }),
            &mesh,
            &[spec(&[&["x"]])],
            &[spec(&[])],
            false,
            &[arange(&[4, 2])],
        )
        .unwrap()
    });
    assert_close(&data(&out[0]), &[4.0, 6.0, 8.0, 10.0]);
}

/// stop_gradient passes values and blocks derivatives: d/dx (x * sg(x)) at
/// x = 3 is sg(x) = 3, not 2x = 6 (hand computation).
#[test]
fn stop_gradient_blocks_the_derivative() {
    let (out, g) = transforms::value_and_grad(
        |a| Ok(vec![ops::mul(&a[0], &ops::stop_gradient(&a[0])?)?]),
        &[array(&[], &[3.0])],
        &[0],
    )
    .unwrap();
    assert_close(&data(&out[0]), &[9.0]);
    assert_close(&data(&g[0]), &[3.0]);
}

/// At top level, `grad` traces eagerly as JAX does outside `jit`: the function
/// may branch on its argument's value. f(x) = x^2 if x > 0 else -x, so
/// f'(3) = 6 and f'(-2) = -1 (hand computation). Under a map, the same
/// branch is JAX's ConcretizationTypeError.
#[test]
fn grad_at_top_level_allows_python_branches_on_values() {
    let f = |a: &[Value]| -> shardlab::Result<Vec<Value>> {
        let positive = a[0].concrete("if")?.get_f64(0) > 0.0;
        Ok(vec![if positive {
            ops::integer_pow(&a[0], 2)?
        } else {
            ops::neg(&a[0])?
        }])
    };
    let (_, g) = transforms::value_and_grad(f, &[array(&[], &[3.0])], &[0]).unwrap();
    assert_close(&data(&g[0]), &[6.0]);
    let (_, g) = transforms::value_and_grad(f, &[array(&[], &[-2.0])], &[0]).unwrap();
    assert_close(&data(&g[0]), &[-1.0]);
    let err = ops::map(
        MapKind::Vmap,
        Box::new(move |a| Ok(transforms::value_and_grad(f, a, &[0])?.1)),
        None,
        &[Some(0)],
        &[0],
        &[arange(&[2])],
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::ConcretizationTypeError);
}
