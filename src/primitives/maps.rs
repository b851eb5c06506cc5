//! Map primitives: `shard_map` (a body per device of a mesh, inputs and outputs
//! laid out by PartitionSpecs) and `pmap`/`vmap` (a body per index of one
//! mapped axis). Their derivatives are maps of the body's derivative.
//!
//! The reverse rule recomputes the body's forward pass inside the backward map
//! instead of saving residuals: the backward body is `vjp(body)` applied to the
//! primal inputs and the output cotangents. Every collective of the forward
//! body therefore runs again during the backward pass.

use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::ir::{Aval, AxisSet, Jaxpr};
use crate::mesh::{fmt_names, Mesh};
use crate::ops;
use crate::primitives::Prim;
use crate::sharding::PartitionSpec;
use crate::trace::{bind, trace, FrameAxes, Value};
use crate::transforms::{jvp_jaxpr_eval, vjp_jaxpr_eval};
use std::sync::Arc;

/// Parameters of a `shard_map` equation.
#[derive(Debug, Clone)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct ShardMapParams {
    /// The devices and their axis names.
    pub mesh: Mesh,
    /// How each input is split over the mesh.
    pub in_specs: Vec<PartitionSpec>,
    /// How each output is assembled from the devices' blocks.
    pub out_specs: Vec<PartitionSpec>,
    /// The per-device program.
    pub body: Jaxpr,
    /// Whether VMA is tracked (JAX's `check_vma`, formerly `check_rep`).
    pub check_vma: bool,
    /// The mesh came from the context (not `mesh=`): JAX's equation holds
    /// its abstract mesh.
    #[cfg_attr(target_arch = "wasm32", serde(default))]
    pub abstract_mesh: bool,
    /// For a map manual over some of a mesh's axes only (`axis_names=`):
    /// the whole mesh, of which `mesh` is the sub-mesh of the manual axes.
    /// The map runs over `mesh`; its results live on the whole mesh, and
    /// its equation names the whole mesh, as JAX's does.
    #[cfg_attr(target_arch = "wasm32", serde(default))]
    pub whole_mesh: Option<Mesh>,
}

/// The axes a spec names.
pub fn spec_axes(spec: &PartitionSpec) -> AxisSet {
    spec.entries.iter().flatten().flatten().cloned().collect()
}

impl ShardMapParams {
    /// The trace frame of the body: the mesh axes, tracked when `check_vma`.
    pub fn frame(&self) -> FrameAxes {
        let axes: Vec<(String, usize)> = self
            .mesh
            .axis_names()
            .iter()
            .cloned()
            .zip(self.mesh.shape().iter().copied())
            .collect();
        let tracked = if self.check_vma {
            axes.iter().map(|(n, _)| n.clone()).collect()
        } else {
            AxisSet::new()
        };
        FrameAxes {
            axes,
            tracked,
            vmapped: false,
        }
    }

    /// The local (per-device) aval of an argument split by `spec`.
    pub fn local_aval(&self, global: &Aval, spec: &PartitionSpec) -> Result<Aval> {
        let shape = spec.shard_shape(&self.mesh, &global.shape)?;
        let vma = if self.check_vma {
            spec_axes(spec)
        } else {
            AxisSet::new()
        };
        Ok(Aval {
            shape,
            dtype: global.dtype,
            vma,
            weak: global.weak,
        })
    }

    /// The global aval of a body output assembled by `spec`.
    pub fn global_aval(&self, local: &Aval, spec: &PartitionSpec) -> Result<Aval> {
        let mut shape = local.shape.clone();
        for (d, entry) in spec.entries.iter().enumerate() {
            if let Some(axes) = entry {
                shape[d] *= self.mesh.axes_size(axes)?;
            }
        }
        Ok(Aval::new(&shape, local.dtype))
    }

    /// Parameters for the printer (the body is printed by the printer itself).
    pub fn params(&self) -> Vec<(String, String)> {
        let specs = |s: &[PartitionSpec]| {
            let v: Vec<String> = s.iter().map(|p| p.to_string()).collect();
            if v.len() == 1 {
                format!("({},)", v[0])
            } else {
                format!("({})", v.join(", "))
            }
        };
        vec![
            (
                "check_vma".into(),
                if self.check_vma { "True" } else { "False" }.into(),
            ),
            ("in_specs".into(), specs(&self.in_specs)),
            ("mesh".into(), {
                let mesh = self.whole_mesh.as_ref().unwrap_or(&self.mesh);
                if self.abstract_mesh {
                    mesh.abstract_text()
                } else {
                    mesh.text()
                }
            }),
            (
                "newly_manual_axes".into(),
                format!(
                    "frozenset({{{}}})",
                    self.mesh
                        .axis_names()
                        .iter()
                        .map(|n| format!("'{n}'"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            ("out_specs".into(), specs(&self.out_specs)),
        ]
    }

    /// Shape rule: global output shapes from the body's local ones.
    pub fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>> {
        if ins.len() != self.in_specs.len() {
            bail!(
                TypeError,
                "shard_map got {} arguments for {} in_specs",
                ins.len(),
                self.in_specs.len()
            );
        }
        self.body
            .out_avals()
            .iter()
            .zip(&self.out_specs)
            .map(|(a, s)| self.global_aval(a, s))
            .collect()
    }

    fn with(
        &self,
        body: Jaxpr,
        in_specs: Vec<PartitionSpec>,
        out_specs: Vec<PartitionSpec>,
    ) -> Prim {
        Prim::ShardMap(Arc::new(ShardMapParams {
            mesh: self.mesh.clone(),
            in_specs,
            out_specs,
            body,
            check_vma: self.check_vma,
            abstract_mesh: self.abstract_mesh,
            whole_mesh: self.whole_mesh.clone(),
        }))
    }

    /// Forward mode: a shard_map of the body's jvp over (primals, tangents).
    pub fn jvp(&self, p: &[Value], t: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        let jb = JvpBody::trace(&self.body, self.frame(), p)?;
        let in_specs = jb.extend_in(&self.in_specs);
        let out_specs = jb.extend_out(&self.out_specs);
        let res = bind(
            self.with(jb.jaxpr.clone(), in_specs, out_specs),
            &jb.args(p, t),
        )?;
        Ok(jb.tangents(res, self.out_specs.len()))
    }

    /// Reverse mode: a shard_map of the body's vjp over (primals, output
    /// cotangents), whose outputs are laid out like the inputs. Without VMA
    /// tracking, JAX divides each output cotangent by the number of devices
    /// that replicate it and sums input cotangents over the axes their spec
    /// does not split; with tracking the pvary/psum transposes do that.
    pub fn vjp(&self, p: &[Value], cts: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        let out_avals = self.body.out_avals();
        let mut ct_args = Vec::new();
        for (i, spec) in self.out_specs.iter().enumerate() {
            let global = self.global_aval(&out_avals[i], spec)?;
            let ct = match &cts[i] {
                Some(c) => c.clone(),
                None => Value::Concrete(Array::zeros(&global.shape, global.dtype)),
            };
            let ct = if self.check_vma {
                ct
            } else {
                let unmapped: Vec<String> = self.unmapped(spec);
                let reps = self.mesh.axes_size(&unmapped)?;
                if reps > 1 {
                    ops::div(&ct, &ops::scalar(reps as f64, ct.dtype()))?
                } else {
                    ct
                }
            };
            ct_args.push(ct);
        }
        let ct_avals: Vec<Aval> = out_avals
            .iter()
            .zip(&self.out_specs)
            .map(|(a, spec)| {
                a.with_vma(if self.check_vma {
                    spec_axes(spec)
                } else {
                    AxisSet::new()
                })
            })
            .collect();
        let check_vma = self.check_vma;
        let unmapped_in: Vec<Vec<String>> =
            self.in_specs.iter().map(|s| self.unmapped(s)).collect();
        let new_body = vjp_body(&self.body, self.frame(), ct_avals, |i, ct| {
            if !check_vma && !unmapped_in[i].is_empty() && ct.dtype() == DType::F32 {
                ops::psum(&ct, &unmapped_in[i])
            } else {
                Ok(ct)
            }
        })?;
        let mut in_specs = self.in_specs.clone();
        in_specs.extend(self.out_specs.iter().cloned());
        let mut args = p.to_vec();
        args.extend(ct_args);
        let res = crate::exec::run::backward(|| {
            bind(self.with(new_body, in_specs, self.in_specs.clone()), &args)
        })?;
        Ok(res
            .into_iter()
            .zip(p)
            .map(|(c, x)| {
                if x.dtype() == DType::F32 {
                    Some(c)
                } else {
                    None
                }
            })
            .collect())
    }

    /// The mesh axes a spec does not mention (over which the value is replicated).
    fn unmapped(&self, spec: &PartitionSpec) -> Vec<String> {
        let named = spec_axes(spec);
        self.mesh
            .axis_names()
            .iter()
            .filter(|a| !named.contains(*a))
            .cloned()
            .collect()
    }
}

/// Which mapping a [`MapParams`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum MapKind {
    /// One device per index (runs on the fabric).
    Pmap,
    /// Vectorisation (runs in lockstep on the current device).
    Vmap,
}

impl MapKind {
    /// The primitive's name.
    pub fn name(self) -> &'static str {
        match self {
            MapKind::Pmap => "xla_pmap",
            MapKind::Vmap => "vmap",
        }
    }
}

/// Parameters of a pmap or vmap equation.
#[derive(Debug, Clone)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct MapParams {
    /// pmap or vmap.
    pub kind: MapKind,
    /// The name collectives use for the mapped axis, if any.
    pub axis_name: Option<String>,
    /// Number of indices mapped over.
    pub size: usize,
    /// For each input, the mapped dimension, or None for broadcast inputs.
    pub in_axes: Vec<Option<usize>>,
    /// For each output, where the mapped dimension goes.
    pub out_axes: Vec<usize>,
    /// The per-index program.
    pub body: Jaxpr,
}

impl MapParams {
    /// The trace frame of the body.
    pub fn frame(&self) -> FrameAxes {
        FrameAxes {
            axes: self
                .axis_name
                .iter()
                .map(|n| (n.clone(), self.size))
                .collect(),
            tracked: AxisSet::new(),
            vmapped: self.kind == MapKind::Vmap,
        }
    }

    /// Parameters for the printer.
    pub fn params(&self) -> Vec<(String, String)> {
        let ax = |v: Vec<String>| {
            if v.len() == 1 {
                format!("({},)", v[0])
            } else {
                format!("({})", v.join(", "))
            }
        };
        vec![
            (
                "axis_name".into(),
                self.axis_name
                    .clone()
                    .map(|n| fmt_names(&[n]))
                    .unwrap_or("None".into()),
            ),
            ("axis_size".into(), self.size.to_string()),
            (
                "in_axes".into(),
                ax(self
                    .in_axes
                    .iter()
                    .map(|a| a.map(|x| x.to_string()).unwrap_or("None".into()))
                    .collect()),
            ),
            (
                "out_axes".into(),
                ax(self.out_axes.iter().map(|a| a.to_string()).collect()),
            ),
        ]
    }

    /// Shape rule: the mapped dimension inserted at each output's out_axis.
    pub fn abstract_eval(&self, _ins: &[Aval]) -> Result<Vec<Aval>> {
        self.body
            .out_avals()
            .iter()
            .zip(&self.out_axes)
            .map(|(a, &ax)| {
                let mut s = a.shape.clone();
                if ax > s.len() {
                    bail!(
                        ValueError,
                        "{}: out_axes {ax} out of bounds for output of rank {}",
                        self.kind.name(),
                        s.len()
                    );
                }
                s.insert(ax, self.size);
                Ok(Aval::new(&s, a.dtype))
            })
            .collect()
    }

    fn with(&self, body: Jaxpr, in_axes: Vec<Option<usize>>, out_axes: Vec<usize>) -> Prim {
        Prim::Map(Arc::new(MapParams {
            kind: self.kind,
            axis_name: self.axis_name.clone(),
            size: self.size,
            in_axes,
            out_axes,
            body,
        }))
    }

    /// Forward mode: a map of the body's jvp.
    pub fn jvp(&self, p: &[Value], t: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        let jb = JvpBody::trace(&self.body, self.frame(), p)?;
        let in_axes = jb.extend_in(&self.in_axes);
        let out_axes = jb.extend_out(&self.out_axes);
        let res = bind(
            self.with(jb.jaxpr.clone(), in_axes, out_axes),
            &jb.args(p, t),
        )?;
        Ok(jb.tangents(res, self.out_axes.len()))
    }

    /// Reverse mode: a map of the body's vjp. Cotangents of broadcast
    /// (in_axes=None) inputs come out stacked and are summed over the map.
    pub fn vjp(&self, p: &[Value], cts: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        let out_avals = self.body.out_avals();
        let new_body = vjp_body(&self.body, self.frame(), out_avals.clone(), |_, ct| Ok(ct))?;
        let mut in_axes = self.in_axes.clone();
        in_axes.extend(self.out_axes.iter().map(|&a| Some(a)));
        let out_axes: Vec<usize> = self.in_axes.iter().map(|a| a.unwrap_or(0)).collect();
        let mut args = p.to_vec();
        for (i, ct) in cts.iter().enumerate() {
            args.push(match ct {
                Some(c) => c.clone(),
                None => {
                    let mut s = out_avals[i].shape.clone();
                    s.insert(self.out_axes[i], self.size);
                    Value::Concrete(Array::zeros(&s, out_avals[i].dtype))
                }
            });
        }
        let res =
            crate::exec::run::backward(|| bind(self.with(new_body, in_axes, out_axes), &args))?;
        res.into_iter()
            .enumerate()
            .map(|(i, c)| {
                if p[i].dtype() != DType::F32 {
                    return Ok(None);
                }
                Ok(Some(match self.in_axes[i] {
                    Some(_) => c,
                    None => ops::sum(&c, Some(&[0]), false)?,
                }))
            })
            .collect()
    }
}

/// A map body's forward-mode derivative, traced as a new body taking the
/// primals and then the tangents of the float inputs, and returning the
/// outputs and then the tangents of the float outputs.
struct JvpBody {
    jaxpr: Jaxpr,
    float_in: Vec<usize>,
    float_out: Vec<usize>,
}

impl JvpBody {
    fn trace(body: &Jaxpr, frame: FrameAxes, p: &[Value]) -> Result<JvpBody> {
        let n = p.len();
        let in_avals = body.in_avals();
        let out_avals = body.out_avals();
        let float_in: Vec<usize> = (0..n).filter(|&i| p[i].dtype() == DType::F32).collect();
        let float_out: Vec<usize> = (0..out_avals.len())
            .filter(|&i| out_avals[i].dtype == DType::F32)
            .collect();
        let mut avals = in_avals.clone();
        avals.extend(float_in.iter().map(|&i| in_avals[i].clone()));
        let jaxpr = trace(&avals, frame, |args| {
            let mut ts: Vec<Option<Value>> = vec![None; n];
            for (k, &i) in float_in.iter().enumerate() {
                ts[i] = Some(args[n + k].clone());
            }
            let (mut outs, touts) = jvp_jaxpr_eval(body, &args[..n], &ts)?;
            for &i in &float_out {
                let zero = ops::zeros_like(&outs[i]);
                outs.push(touts[i].clone().unwrap_or(zero));
            }
            Ok(outs)
        })?
        .jaxpr;
        Ok(JvpBody {
            jaxpr,
            float_in,
            float_out,
        })
    }

    /// `v` followed by its entries at the float inputs (in_specs, in_axes).
    fn extend_in<T: Clone>(&self, v: &[T]) -> Vec<T> {
        v.iter()
            .cloned()
            .chain(self.float_in.iter().map(|&i| v[i].clone()))
            .collect()
    }

    /// `v` followed by its entries at the float outputs (out_specs, out_axes).
    fn extend_out<T: Clone>(&self, v: &[T]) -> Vec<T> {
        v.iter()
            .cloned()
            .chain(self.float_out.iter().map(|&i| v[i].clone()))
            .collect()
    }

    /// The new map's arguments: the primals, then the float inputs' tangents
    /// (zeros where symbolic).
    fn args(&self, p: &[Value], t: &[Option<Value>]) -> Vec<Value> {
        let tangents = self
            .float_in
            .iter()
            .map(|&i| t[i].clone().unwrap_or_else(|| ops::zeros_like(&p[i])));
        p.iter().cloned().chain(tangents).collect()
    }

    /// The output tangents among the new map's results.
    fn tangents(&self, res: Vec<Value>, n_out: usize) -> Vec<Option<Value>> {
        let mut touts = vec![None; n_out];
        for (k, &i) in self.float_out.iter().enumerate() {
            touts[i] = Some(res[n_out + k].clone());
        }
        touts
    }
}

/// Traces a map body's reverse-mode derivative as a new body taking the
/// primals and then the output cotangents (of `ct_avals`), and returning each
/// input's cotangent (zeros where symbolic) passed through `finish(i, ct)`.
fn vjp_body(
    body: &Jaxpr,
    frame: FrameAxes,
    ct_avals: Vec<Aval>,
    finish: impl Fn(usize, Value) -> Result<Value>,
) -> Result<Jaxpr> {
    let in_avals = body.in_avals();
    let n = in_avals.len();
    let mut avals = in_avals.clone();
    avals.extend(ct_avals);
    Ok(trace(&avals, frame, |args| {
        let cts: Vec<Option<Value>> = args[n..].iter().cloned().map(Some).collect();
        let (_, ct_ins) = vjp_jaxpr_eval(body, &args[..n], &cts)?;
        ct_ins
            .into_iter()
            .enumerate()
            .map(|(i, ct)| {
                let a = &in_avals[i];
                finish(
                    i,
                    ct.unwrap_or_else(|| Value::Concrete(Array::zeros(&a.shape, a.dtype))),
                )
            })
            .collect()
    })?
    .jaxpr)
}
