//! The jaxpr object API: what `jax.make_jaxpr` returns (`ClosedJaxpr`), its
//! program (`Jaxpr`: `invars`, `outvars`, `constvars`, `eqns`), equations
//! (`JaxprEqn`: `primitive`, `invars`, `outvars`, `params`), variables
//! (`Var`, with its `aval`), literals (`Literal`, with its `val`) and
//! primitives (`Primitive`: `name`, `multiple_results`, `bind`), so that a
//! program can walk a traced program and evaluate it equation by equation.
//!
//! Every variable of a program is one object, shared by the lists that
//! name it, so a program may key a dict by variables as JAX's interpreters
//! do. A primitive binds the operation of the equation it came from: with
//! that equation's parameters it computes (or, under a trace, records) the
//! same operation; other parameters are refused, as shardlab cannot build
//! a primitive from JAX's parameter values in general.

use std::collections::HashMap;
use std::rc::Rc;

use crate::array::{Array, BinaryOp, DType, UnaryOp};
use crate::error::Result;
use crate::ir::{Atom, Aval, Eqn, Jaxpr, Var};
use crate::primitives::Prim;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Dict, Obj};
use crate::{bail, err};

use super::sharding::placed::ShapedArray;

/// The module JAX defines these types in, as their classes name it.
const CORE: &str = "jax._src.core";

/// `make_jaxpr`'s result: a program printing as `text`, whose constants
/// are the arrays it closed over (as its printed constvars are).
pub fn closed_jaxpr(jaxpr: &Jaxpr, text: String) -> Obj {
    let program = JaxprObj::build(jaxpr, text.clone());
    Obj::lib(ClosedJaxpr {
        jaxpr: Obj::lib(program),
        text,
    })
}

/// A program with its constants (`ClosedJaxpr`).
struct ClosedJaxpr {
    jaxpr: Obj,
    text: String,
}

impl Object for ClosedJaxpr {
    fn type_name(&self) -> String {
        "ClosedJaxpr".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some(CORE)
    }

    fn getattr(&self, interp: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "jaxpr" => Some(self.jaxpr.clone()),
            "consts" | "literals" => {
                let program = self
                    .jaxpr
                    .downcast::<JaxprObj>()
                    .ok_or_else(|| err!(TypeError, "a ClosedJaxpr holds a Jaxpr"))?;
                let values = program
                    .consts
                    .iter()
                    .map(|(_, a)| Obj::Array(crate::trace::Value::Concrete(a.clone())));
                Some(Obj::list(values.collect()))
            }
            "eqns" | "in_avals" | "out_avals" | "invars" | "outvars" | "constvars" => {
                let program = self
                    .jaxpr
                    .downcast::<JaxprObj>()
                    .ok_or_else(|| err!(TypeError, "a ClosedJaxpr holds a Jaxpr"))?;
                program.getattr(interp, &self.jaxpr, name)?
            }
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(self.text.clone())
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(
            other
                .downcast::<ClosedJaxpr>()
                .is_some_and(|o| o.text == self.text),
        )
    }
}

/// A program (`Jaxpr`): its variables, literals and equations as objects.
struct JaxprObj {
    text: String,
    invars: Vec<Obj>,
    outvars: Vec<Obj>,
    eqns: Vec<Obj>,
    avals: (Vec<Aval>, Vec<Aval>),
    /// The arrays it closed over, each with its constvar.
    consts: Vec<(Obj, Array)>,
}

impl JaxprObj {
    fn build(j: &Jaxpr, text: String) -> JaxprObj {
        let mut vars: HashMap<Var, Obj> = HashMap::new();
        let mut var = |v: Var| {
            vars.entry(v)
                .or_insert_with(|| {
                    Obj::lib(VarObj {
                        aval: j.aval(v).clone(),
                    })
                })
                .clone()
        };
        let invars: Vec<Obj> = j.invars.iter().map(|v| var(*v)).collect();
        // An array the program closed over is a constvar, one per array.
        let mut consts: Vec<(Obj, Array)> = vec![];
        let mut atom = |a: &Atom| match a {
            Atom::Var(v) => var(*v),
            Atom::Lit(x) if x.ndim() == 0 => Obj::lib(Literal { val: x.clone() }),
            Atom::Lit(x) => match consts.iter().find(|(_, c)| c.is_same(x)) {
                Some((v, _)) => v.clone(),
                None => {
                    let v = Obj::lib(VarObj { aval: Aval::of(x) });
                    consts.push((v.clone(), x.clone()));
                    v
                }
            },
        };
        let mut eqns = vec![];
        for e in &j.eqns {
            let ins: Vec<Obj> = e.inputs.iter().map(&mut atom).collect();
            let outs: Vec<Obj> = e.outputs.iter().map(|v| atom(&Atom::Var(*v))).collect();
            eqns.push(Obj::lib(EqnObj::new(j, e, ins, outs)));
        }
        let outvars: Vec<Obj> = j.outvars.iter().map(&mut atom).collect();
        JaxprObj {
            consts,
            text,
            invars,
            outvars,
            eqns,
            avals: (j.in_avals(), j.out_avals()),
        }
    }
}

fn shaped(avals: &[Aval]) -> Obj {
    Obj::list(
        avals
            .iter()
            .map(|a| Obj::lib(ShapedArray::of_aval(a)))
            .collect(),
    )
}

impl Object for JaxprObj {
    fn type_name(&self) -> String {
        "Jaxpr".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some(CORE)
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "invars" => Some(Obj::list(self.invars.clone())),
            "outvars" => Some(Obj::list(self.outvars.clone())),
            "constvars" => Some(Obj::list(
                self.consts.iter().map(|(v, _)| v.clone()).collect(),
            )),
            "eqns" => Some(Obj::list(self.eqns.clone())),
            "in_avals" => Some(shaped(&self.avals.0)),
            "out_avals" => Some(shaped(&self.avals.1)),
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(self.text.clone())
    }
}

/// A variable (`Var`): printed with its identity and type, as JAX's
/// `repr` shows it (`Var(id=...):float32[5]`).
struct VarObj {
    aval: Aval,
}

impl Object for VarObj {
    fn type_name(&self) -> String {
        "Var".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some(CORE)
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok((name == "aval").then(|| Obj::lib(ShapedArray::of_aval(&self.aval))))
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        let id = match this {
            Obj::Lib(rc) => Rc::as_ptr(rc) as *const u8 as usize,
            _ => 0,
        };
        let dims: Vec<String> = self.aval.shape.iter().map(|d| d.to_string()).collect();
        let ty = format!("{}[{}]", self.aval.dtype.name(), dims.join(","));
        Some(format!("Var(id={id}):{ty}"))
    }
}

/// A constant operand (`Literal`), whose `val` is its value.
struct Literal {
    val: Array,
}

impl Object for Literal {
    fn type_name(&self) -> String {
        "Literal".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some(CORE)
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "val" => Some(Obj::Array(crate::trace::Value::Concrete(self.val.clone()))),
            "aval" => Some(Obj::lib(ShapedArray::of_aval(&Aval::of(&self.val)))),
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let x = &self.val;
        if x.ndim() != 0 {
            return Some(format!("Literal({})", crate::array::format_numpy(x)));
        }
        let v = x.get_f64(0);
        // A Python number keeps its Python type, tagged with its dtype.
        Some(match (x.is_weak(), x.dtype()) {
            (true, DType::I32) => format!("Literal(TypedInt({}, dtype=int32))", v as i64),
            (true, DType::F32) => format!("Literal(TypedFloat({:?}, dtype=float32))", v),
            (_, DType::F32) => format!("Literal({:?})", v as f32),
            (_, DType::Bool) => format!("Literal({})", if v != 0.0 { "True" } else { "False" }),
            _ => format!("Literal({})", crate::array::format_numpy(x)),
        })
    }
}

/// One equation (`JaxprEqn`).
struct EqnObj {
    primitive: Obj,
    invars: Vec<Obj>,
    outvars: Vec<Obj>,
    /// The parameters as Python values, or why shardlab cannot give them.
    params: std::result::Result<Obj, String>,
    text: String,
}

impl EqnObj {
    fn new(j: &Jaxpr, e: &Eqn, invars: Vec<Obj>, outvars: Vec<Obj>) -> EqnObj {
        let out_dtype = e.outputs.first().map(|v| j.aval(*v).dtype);
        let params = params_dict(&e.prim, out_dtype);
        EqnObj {
            primitive: Obj::lib(Primitive {
                prim: e.prim.clone(),
                multiple: multiple_results(&e.prim, e.outputs.len()),
                out_dtype,
            }),
            invars,
            outvars,
            params,
            text: crate::ir::equation_text(j, e),
        }
    }
}

impl Object for EqnObj {
    fn type_name(&self) -> String {
        "JaxprEqn".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some(CORE)
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "primitive" => Some(self.primitive.clone()),
            "invars" => Some(Obj::list(self.invars.clone())),
            "outvars" => Some(Obj::list(self.outvars.clone())),
            "params" => match &self.params {
                Ok(d) => Some(d.clone()),
                Err(prim) => bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: the params of a {prim} equation"
                ),
            },
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(self.text.clone())
    }
}

/// Whether JAX's primitive returns a list of results: programs' calls
/// (jit, cond, scan, ...) always do, others when they have several.
fn multiple_results(prim: &Prim, outputs: usize) -> bool {
    outputs != 1 || !prim.sub_jaxprs().is_empty()
}

/// JAX's `accuracy` parameter, which these elementwise functions take.
const WITH_ACCURACY: [&str; 13] = [
    "exp", "exp2", "log", "log1p", "expm1", "tanh", "logistic", "sin", "cos", "tan", "sqrt",
    "rsqrt", "cbrt",
];

/// The parameters of an equation of `prim` as JAX's `eqn.params` holds
/// them, for the primitives whose parameters shardlab knows in full;
/// otherwise the primitive's name.
fn params_dict(prim: &Prim, out_dtype: Option<DType>) -> std::result::Result<Obj, String> {
    let name = prim.name();
    let tuple = |v: &[usize]| Obj::tuple(v.iter().map(|&d| Obj::Int(d as i64)).collect());
    let entries: Vec<(&str, Obj)> = match prim {
        Prim::Unary(_) if !prim.params().is_empty() => return Err(name),
        Prim::Unary(_) if WITH_ACCURACY.contains(&name.as_str()) => vec![("accuracy", Obj::None)],
        Prim::Unary(_) => vec![],
        Prim::Binary(BinaryOp::Mul) => vec![("out_dtype", Obj::None)],
        Prim::Binary(BinaryOp::Add | BinaryOp::Sub) => vec![],
        Prim::BroadcastInDim { shape, dims } => vec![
            ("shape", tuple(shape)),
            ("broadcast_dimensions", tuple(dims)),
            ("sharding", Obj::None),
        ],
        Prim::DotGeneral {
            contracting,
            batch,
            out_sharding: None,
        } => {
            let pair = |p: &(Vec<usize>, Vec<usize>)| Obj::tuple(vec![tuple(&p.0), tuple(&p.1)]);
            vec![
                (
                    "dimension_numbers",
                    Obj::tuple(vec![pair(contracting), pair(batch)]),
                ),
                ("precision", Obj::None),
                (
                    "preferred_element_type",
                    out_dtype.map(Obj::DType).unwrap_or(Obj::None),
                ),
                ("out_sharding", Obj::None),
            ]
        }
        _ => return Err(name),
    };
    let d: Dict = entries.into_iter().map(|(k, v)| (Obj::str(k), v)).collect();
    Ok(Obj::Dict(Rc::new(std::cell::RefCell::new(d))))
}

/// A primitive (`Primitive`): equal to another of the same name, as JAX's
/// primitives are one object each.
struct Primitive {
    prim: Prim,
    multiple: bool,
    out_dtype: Option<DType>,
}

impl Object for Primitive {
    fn type_name(&self) -> String {
        "Primitive".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some(CORE)
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "name" => Some(Obj::str(self.prim.name())),
            "multiple_results" => Some(Obj::Bool(self.multiple)),
            "bind" => {
                let (prim, multiple, out_dtype) =
                    (self.prim.clone(), self.multiple, self.out_dtype);
                Some(Obj::native("bind", move |_, call| {
                    bind(&prim, multiple, out_dtype, call)
                }))
            }
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(self.prim.name())
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(
            other
                .downcast::<Primitive>()
                .is_some_and(|o| o.prim.name() == self.prim.name()),
        )
    }
}

/// `primitive.bind(*args, **params)`: the primitive's operation on `args`,
/// when `params` are the ones shardlab knows it by.
fn bind(prim: &Prim, multiple: bool, out_dtype: Option<DType>, call: Args) -> Result<Obj> {
    let name = prim.name();
    let known = params_dict(prim, out_dtype).map_err(|_| {
        err!(
            NotImplementedError,
            "not supported by shardlab yet: {name}.bind"
        )
    })?;
    let given: Dict = call
        .kw
        .iter()
        .map(|(k, v)| (Obj::str(k), v.clone()))
        .collect();
    let given = Obj::Dict(Rc::new(std::cell::RefCell::new(given)));
    if !crate::python::ops::py_eq(&given, &known) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: {name}.bind with parameters {} (shardlab binds {name} with {})",
            crate::python::format::repr_of(&given),
            crate::python::format::repr_of(&known)
        );
    }
    let args: Vec<crate::trace::Value> = call.pos.iter().map(to_value).collect::<Result<_>>()?;
    let mut outs: Vec<Obj> = crate::trace::bind(prim.clone(), &args)?
        .into_iter()
        .map(Obj::Array)
        .collect();
    if multiple {
        return Ok(Obj::list(outs));
    }
    outs.pop()
        .ok_or_else(|| err!(RuntimeError, "{name} gave no result"))
}

/// The elementwise primitives `jax.lax` names (`lax.exp_p`, `lax.add_p`):
/// each binds its operation with JAX's default parameters.
pub fn lax_primitives() -> Vec<(String, Obj)> {
    use UnaryOp as U;
    let unary = [
        U::Exp,
        U::Log,
        U::Log1p,
        U::Expm1,
        U::Tanh,
        U::Atanh,
        U::Sin,
        U::Cos,
        U::Sqrt,
        U::Abs,
        U::Neg,
        U::Sign,
        U::Floor,
        U::Ceil,
    ];
    let binary = [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul];
    let prims = unary
        .into_iter()
        .map(Prim::Unary)
        .chain(binary.into_iter().map(Prim::Binary));
    prims
        .map(|prim| {
            let p = Primitive {
                prim,
                multiple: false,
                out_dtype: None,
            };
            (format!("{}_p", p.prim.name()), Obj::lib(p))
        })
        .collect()
}

/// A class JAX defines, standing for it where a program names it
/// (`core.Literal`): the type of the objects of its name, so `type(v) is
/// core.Literal` and `isinstance(v, core.Literal)` hold for them.
struct CoreType(&'static str);

impl Object for CoreType {
    fn type_name(&self) -> String {
        "type".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("<class '{CORE}.{}'>", self.0))
    }

    fn eq(&self, this: &Obj, other: &Obj) -> Option<bool> {
        Some(match other {
            Obj::Class(c) => {
                c.name == self.0
                    && c.lookup("__module__")
                        .is_some_and(|m| matches!(&m, Obj::Str(s) if &**s == CORE))
            }
            Obj::Lib(o) => match (this, o.downcast::<CoreType>()) {
                (_, Some(t)) => t.0 == self.0,
                _ => false,
            },
            _ => false,
        })
    }

    fn instancecheck(&self, obj: &Obj) -> Option<bool> {
        Some(matches!(obj, Obj::Lib(o) if o.type_name() == self.0 && o.type_module() == Some(CORE)))
    }
}

/// `jax.extend.core`: the jaxpr types, by name.
pub fn extend_core_module() -> Obj {
    let mut b = super::Builder::new("jax.extend.core");
    for name in [
        "Literal",
        "Var",
        "Jaxpr",
        "ClosedJaxpr",
        "JaxprEqn",
        "Primitive",
    ] {
        b.attr(name, Obj::lib(CoreType(name)));
    }
    b.build()
}

/// `jax._src.util`: `safe_map` and `safe_zip`, which check that their
/// sequences have one length.
pub fn util_module() -> Obj {
    super::Builder::new("jax._src.util")
        .func("safe_map", safe_map)
        .func("safe_zip", safe_zip)
        .build()
}

/// The sequences after the first `skip` arguments, checked to have the
/// length of the first.
fn same_length(a: &Args, skip: usize, what: &str) -> Result<Vec<Vec<Obj>>> {
    let lists: Vec<Vec<Obj>> = a.pos[skip.min(a.pos.len())..]
        .iter()
        .map(crate::python::ops::iterate)
        .collect::<Result<_>>()?;
    if let Some(first) = lists.first() {
        for (i, l) in lists.iter().enumerate().skip(1) {
            if l.len() != first.len() {
                bail!(
                    ValueError,
                    "{what}() argument {} is {} than argument 1",
                    i + 1,
                    if l.len() < first.len() {
                        "shorter"
                    } else {
                        "longer"
                    }
                );
            }
        }
    }
    Ok(lists)
}

fn safe_map(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "f", "safe_map")?;
    let lists = same_length(&a, 1, "safe_map")?;
    let n = lists.first().map(Vec::len).unwrap_or(0);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let args: Vec<Obj> = lists.iter().map(|l| l[i].clone()).collect();
        out.push(interp.call(&f, Args::new(args))?);
    }
    Ok(Obj::list(out))
}

fn safe_zip(_: &mut Interp, a: Args) -> Result<Obj> {
    let lists = same_length(&a, 0, "safe_zip")?;
    let n = lists.first().map(Vec::len).unwrap_or(0);
    Ok(Obj::list(
        (0..n)
            .map(|i| Obj::tuple(lists.iter().map(|l| l[i].clone()).collect()))
            .collect(),
    ))
}
