//! Ahead-of-time use of a jitted function: `f.trace(*args)`,
//! `f.lower(*args)` and `.compile()`, which stop before running it.
//!
//! `trace(...).jaxpr` is the program JAX would stage, printed with the
//! sharded types of its values over explicit mesh axes (`f32[8@X,4]`).
//! `lower(...).as_text()` is that program as shardlab runs it (not
//! StableHLO). `compile().as_text()` is what each device runs once the
//! partitioner has split the program over its inputs' mesh: the
//! per-device program, with a summary of every collective it inserted under
//! the name XLA gives it in HLO (`all-reduce(`, `all-gather(`,
//! `reduce-scatter(`, `all-to-all(`) and the bytes each device puts in,
//! so a reader can see what moves between devices. `input_shardings` and `output_shardings` are where the
//! arguments and results live.

use std::sync::Arc;

use crate::bail;
use crate::error::Result;
use crate::ir::Jaxpr;
use crate::primitives::{CollectiveKind, JitParams, Prim};
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};
use crate::sharding::Placement;
use crate::trace::Value;

/// The pieces every AOT stage keeps: the program and where its inputs live.
#[derive(Clone)]
struct Stage {
    name: String,
    program: Arc<JitParams>,
    placements: Vec<Option<Arc<Placement>>>,
    vals: Vec<Value>,
}

impl Stage {
    fn new(
        name: &str,
        program: Arc<JitParams>,
        placements: &[Option<Arc<Placement>>],
        vals: Vec<Value>,
    ) -> Stage {
        let mut placements = placements.to_vec();
        placements.resize(program.body.invars.len(), None);
        Stage {
            name: name.to_string(),
            program,
            placements,
            vals,
        }
    }
}

/// `f.trace(*args)`.
pub fn traced(
    _: &mut Interp,
    name: &str,
    program: Arc<JitParams>,
    placements: &[Option<Arc<Placement>>],
    vals: Vec<Value>,
) -> Result<Obj> {
    Ok(Obj::lib(Traced(Stage::new(
        name, program, placements, vals,
    ))))
}

/// `f.lower(*args)`.
pub fn lowered(
    _: &mut Interp,
    name: &str,
    program: Arc<JitParams>,
    placements: &[Option<Arc<Placement>>],
    vals: Vec<Value>,
) -> Result<Obj> {
    Ok(Obj::lib(Lowered(Stage::new(
        name, program, placements, vals,
    ))))
}

/// The program printed as `make_jaxpr` prints it, with sharded types.
pub fn typed_text(jaxpr: &Jaxpr, placements: &[Option<Arc<Placement>>]) -> Result<String> {
    let mut types = crate::ir::Types::default();
    add_types(&mut types, jaxpr, placements)?;
    Ok(crate::ir::typed_text(jaxpr, types))
}

/// The sharded types of `jaxpr`'s variables given its inputs' placements,
/// and those of the jitted programs nested in it, whose types JAX prints
/// too (their inputs live where the operands of their equation do).
fn add_types(
    types: &mut crate::ir::Types,
    jaxpr: &Jaxpr,
    placements: &[Option<Arc<Placement>>],
) -> Result<()> {
    let env = crate::primitives::placement::propagate_eqns(
        &jaxpr.avals,
        &jaxpr.invars,
        &jaxpr.eqns,
        placements,
    )?;
    let texts: Vec<Option<String>> = jaxpr
        .avals
        .iter()
        .zip(&env)
        .map(|(aval, p)| match p.as_deref() {
            Some(p @ Placement::Named(s))
                if s.mesh
                    .axis_types()
                    .contains(&crate::mesh::AxisType::Explicit) =>
            {
                let long = crate::sharding::aval_text(&aval.shape, aval.dtype, Some(p));
                let short = long.replacen(aval.dtype.name(), aval.dtype.short_name(), 1);
                Some(short)
            }
            _ => None,
        })
        .collect();
    types.add(jaxpr, &texts);
    for eqn in &jaxpr.eqns {
        if let Prim::Jit(j) = &eqn.prim {
            let ins: Vec<Option<Arc<Placement>>> = eqn
                .inputs
                .iter()
                .map(|a| match a {
                    crate::ir::Atom::Var(v) => env.get(v.0 as usize).cloned().flatten(),
                    crate::ir::Atom::Lit(x) => x.placement_rc(),
                })
                .collect();
            add_types(types, &j.body, &ins)?;
        }
    }
    Ok(())
}

/// What `trace` returns.
struct Traced(Stage);

impl Object for Traced {
    fn type_name(&self) -> String {
        "Traced".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let stage = self.0.clone();
        Ok(match name {
            "jaxpr" => {
                let text = typed_text(&self.0.program.body, &self.0.placements)?;
                Some(Obj::lib(super::jax::Printed::new("ClosedJaxpr", text)))
            }
            "lower" => Some(Obj::native("lower", move |_, _| {
                Ok(Obj::lib(Lowered(stage.clone())))
            })),
            _ => None,
        })
    }
}

/// What `lower` returns.
struct Lowered(Stage);

impl Object for Lowered {
    fn type_name(&self) -> String {
        "Lowered".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let stage = self.0.clone();
        Ok(match name {
            "as_text" => Some(Obj::native("as_text", move |_, _| {
                let text = typed_text(&stage.program.body, &stage.placements)?;
                Ok(Obj::str(format!("module @jit_{}\n{text}", stage.name)))
            })),
            "compile" => Some(Obj::native("compile", move |_, _| {
                Ok(Obj::lib(Compiled(stage.clone())))
            })),
            "cost_analysis" => Some(Obj::native("cost_analysis", move |_, _| {
                if stage.placements.iter().any(Option::is_some) {
                    bail!(
                        NotImplementedError,
                        "not supported by shardlab yet: Lowered.cost_analysis of a program over placed arrays"
                    );
                }
                super::cost_analysis::lowered(&stage.program.body)
            })),
            _ => None,
        })
    }
}

/// What `compile` returns.
struct Compiled(Stage);

impl Object for Compiled {
    fn type_name(&self) -> String {
        "Compiled".into()
    }

    fn call(&self, interp: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        let _ = (interp, args);
        Some(Err(crate::err!(
            NotImplementedError,
            "not supported by shardlab yet: calling a compiled function (call the jitted function itself)"
        )))
    }

    fn callable(&self) -> bool {
        true
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let stage = self.0.clone();
        Ok(match name {
            "as_text" => Some(Obj::native("as_text", move |_, _| {
                Ok(Obj::str(per_device_text(&stage)?))
            })),
            "input_shardings" => Some(input_shardings(&self.0)),
            // XLA's costs after fusion and buffer assignment, which shardlab
            // does not model.
            "cost_analysis" | "memory_analysis" => {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: Compiled.{name} (the costs of XLA's optimised program)"
                )
            }
            "output_shardings" => Some(output_shardings(&self.0)?),
            _ => None,
        })
    }
}

/// The arguments' shardings as JAX gives them: `((s0, s1, ...), {})`.
fn input_shardings(stage: &Stage) -> Obj {
    let n = stage.vals.len();
    let items = stage.placements[..n.min(stage.placements.len())]
        .iter()
        .map(|p| match p.as_deref() {
            Some(p) => super::sharding::placed::sharding_obj(p),
            None => super::sharding::placed::sharding_obj(&Placement::Device(0)),
        })
        .collect();
    Obj::tuple(vec![Obj::tuple(items), Obj::Dict(Default::default())])
}

/// The results' shardings, propagated from the arguments'.
fn output_shardings(stage: &Stage) -> Result<Obj> {
    let outs =
        crate::primitives::placement::propagate_jaxpr(&stage.program.body, &stage.placements)?;
    let items: Vec<Obj> = outs
        .iter()
        .map(|p| match p.as_deref() {
            Some(p) => super::sharding::placed::sharding_obj(p),
            None => super::sharding::placed::sharding_obj(&Placement::Device(0)),
        })
        .collect();
    Ok(match items.len() {
        1 => items.into_iter().next().unwrap_or(Obj::None),
        _ => Obj::tuple(items),
    })
}

/// The per-device program and its collectives (see the module docs).
fn per_device_text(stage: &Stage) -> Result<String> {
    let arrays: Vec<crate::array::Array> = stage
        .vals
        .iter()
        .zip(&stage.placements)
        .map(|(v, p)| {
            let a = v.concrete("compile")?.clone();
            Ok(a.with_placement(p.clone()))
        })
        .collect::<Result<_>>()?;
    let Some(params) = crate::partition::per_device(&stage.program.body, &arrays)? else {
        return Ok(format!(
            "module @jit_{} (one device: no collectives)\n{}",
            stage.name, stage.program.body
        ));
    };
    let mut lines = vec![format!(
        "module @jit_{} on {}, per device:",
        stage.name,
        params.mesh.text()
    )];
    for eqn in &params.body.eqns {
        if let Prim::Collective(c) = &eqn.prim {
            if let Some(hlo) = hlo_name(c) {
                let aval = params.body.aval(eqn.outputs[0]);
                let operand = match &eqn.inputs[0] {
                    crate::ir::Atom::Var(v) => params.body.aval(*v).clone(),
                    crate::ir::Atom::Lit(x) => crate::ir::Aval::of(x),
                };
                let bytes = operand.shape.iter().product::<usize>() * operand.dtype.itemsize();
                lines.push(format!(
                    "  {hlo}({aval}) over {}: {bytes} bytes in per device",
                    crate::mesh::fmt_names(c.axes())
                ));
            }
        }
    }
    lines.push(params.body.to_string());
    Ok(lines.join("\n"))
}

/// The HLO instruction a collective becomes (None for `axis_index` and
/// `pvary`, which move no data).
fn hlo_name(c: &CollectiveKind) -> Option<&'static str> {
    Some(match c {
        CollectiveKind::Psum { .. }
        | CollectiveKind::PsumInvariant { .. }
        | CollectiveKind::Pmax { .. }
        | CollectiveKind::Pmin { .. } => "all-reduce",
        CollectiveKind::AllGather { .. } => "all-gather",
        CollectiveKind::PsumScatter { .. } => "reduce-scatter",
        CollectiveKind::AllToAll { .. } => "all-to-all",
        CollectiveKind::Ppermute { .. } => "collective-permute",
        CollectiveKind::AxisIndex { .. } | CollectiveKind::Pvary { .. } => return None,
    })
}
