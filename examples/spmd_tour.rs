//! A tour of the engine through its Rust API: the seed programs' numbers, a
//! 2-D mesh, a gradient through shard_map, and the traced program.
//!
//! Run with `cargo run --release --example spmd_tour`.

use shardlab::array::{format_numpy, Array};
use shardlab::ops;
use shardlab::primitives::MapKind;
use shardlab::trace::{trace, FrameAxes};
use shardlab::transforms;
use shardlab::{Mesh, PartitionSpec, Result, Value};

fn show(label: &str, v: &Value) -> Result<()> {
    println!("{label}:\n{}\n", format_numpy(v.concrete(label)?));
    Ok(())
}

fn spec(entries: &[&[&str]]) -> PartitionSpec {
    PartitionSpec::new(
        entries
            .iter()
            .map(|e| (!e.is_empty()).then(|| e.iter().map(|s| s.to_string()).collect()))
            .collect(),
    )
}

fn axes(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn main() -> Result<()> {
    let arange = |shape: &[usize]| -> Result<Value> {
        let n = shape.iter().product::<usize>();
        Ok(Value::Concrete(Array::from_f32(
            shape,
            (0..n).map(|i| i as f32).collect(),
        )?))
    };

    // psum of per-device sums on 8 devices: every device ends with 120.
    let mesh = Mesh::new(&["data"], &[8])?;
    let total = ops::shard_map(
        Box::new(|a| {
            Ok(vec![ops::psum(
                &ops::sum(&a[0], None, false)?,
                &axes(&["data"]),
            )?])
        }),
        &mesh,
        &[spec(&[&["data"]])],
        &[spec(&[])],
        true,
        &[arange(&[16])?],
    )?;
    show("psum over 8 devices of arange(16)", &total[0])?;

    // pmap with a named axis: each device holds one element.
    let scaled = ops::map(
        MapKind::Pmap,
        Box::new(|a| {
            Ok(vec![ops::psum(
                &ops::mul_scalar(&a[0], 2.0)?,
                &axes(&["devices"]),
            )?])
        }),
        Some("devices"),
        &[Some(0)],
        &[0],
        &[arange(&[8])?],
    )?;
    show("pmap(scaled_sum) over arange(8)", &scaled[0])?;

    // A 2x4 mesh: sum over 'y' only; the result is still split over 'x'.
    let mesh2 = Mesh::new(&["x", "y"], &[2, 4])?;
    let rows = ops::shard_map(
        Box::new(|a| Ok(vec![ops::psum(&a[0], &axes(&["y"]))?])),
        &mesh2,
        &[spec(&[&["x"], &["y"]])],
        &[spec(&[&["x"]])],
        true,
        &[arange(&[4, 8])?],
    )?;
    show(
        "psum over 'y' on a 2x4 mesh of arange(32).reshape(4, 8)",
        &rows[0],
    )?;

    // d/dw of psum(sum(x * w)) with w replicated: the column sums of x.
    let w = Value::Concrete(Array::from_f32(&[3], vec![1.0, 2.0, 3.0])?);
    let mesh4 = Mesh::new(&["x"], &[4])?;
    let loss = |args: &[Value]| {
        ops::shard_map(
            Box::new(|a| {
                Ok(vec![ops::psum(
                    &ops::sum(&ops::mul(&a[1], &a[0])?, None, false)?,
                    &axes(&["x"]),
                )?])
            }),
            &mesh4,
            &[spec(&[]), spec(&[&["x"]])],
            &[spec(&[])],
            true,
            args,
        )
    };
    let (_, grads) = transforms::value_and_grad(loss, &[w.clone(), arange(&[16, 3])?], &[0])?;
    show("grad of the replicated weight", &grads[0])?;

    // The traced program of that gradient, as jax.make_jaxpr prints it.
    let avals = [w.aval(), arange(&[16, 3])?.aval()];
    let traced = trace(&avals, FrameAxes::default(), |args| {
        let (_, g) = transforms::value_and_grad(loss, args, &[0])?;
        Ok(g)
    })?;
    println!("make_jaxpr(grad(loss)):\n{}", traced.jaxpr);
    Ok(())
}
