//! `flax.linen` and `flax.nnx` on top of the interpreter's classes.
//!
//! linen: `nn.Module` is a class whose `__init__` fills the dataclass fields
//! declared by annotations. `init`/`apply` start a run that holds the
//! variables, the rng roots and the per-scope rng counters; methods of user
//! modules are wrapped (on first instantiation, as Flax does when a subclass
//! is defined) so that each call runs inside the module's scope, which names
//! submodules `Dense_0`, `Dense_1`, ... and draws parameter keys with
//! `crate::random::flax::linen_rng_key`.
//!
//! nnx: modules are ordinary instances whose data attributes (variables,
//! arrays, submodules) make them pytree nodes; `nnx.Param` and the other
//! variables hold a `value`; `nnx.State` is a nested mapping of variables.
//! `nnx.grad` differentiates with respect to the model's `Param`s by setting
//! their values to the traced inputs for the duration of the call.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::array::DType;
use crate::error::Result;
use crate::random::flax::{linen_rng_hash, linen_rng_key};
use crate::random::Key;
use crate::trace::Value;
use crate::{bail, err, ops as jops};

use super::jax::split_aux;
use super::random::{keys_of, one_key};
use super::Builder;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::format::{repr_of, str_of};
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::{iterate, truthy};
use crate::python::pytree::{flatten_known, leaf_values, unflatten_known, value_objs};
use crate::python::value::{Args, Class, Dict, Instance, Obj};

// ---------------------------------------------------------------- helpers

fn iattr(i: &Instance, name: &str) -> Option<Obj> {
    i.attrs
        .borrow()
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

fn set_iattr(i: &Instance, name: &str, v: Obj) {
    let mut attrs = i.attrs.borrow_mut();
    if let Some(slot) = attrs.iter_mut().find(|(k, _)| k == name) {
        slot.1 = v;
    } else {
        attrs.push((name.to_string(), v));
    }
}

fn marked(i: &Instance, marker: &str) -> bool {
    matches!(i.class.lookup(marker), Some(Obj::Bool(true)))
}

fn new_class(name: &str, bases: Vec<Rc<Class>>, attrs: Vec<(String, Obj)>) -> Rc<Class> {
    Rc::new(Class::new(name, bases, attrs))
}

/// A root class of nnx (Module, Variable, State), whose instances and their
/// subclasses' instances are pytree nodes with nnx's reprs.
fn nnx_root_class(name: &str, attrs: Vec<(String, Obj)>) -> Rc<Class> {
    let mut class = Class::new(name, vec![], attrs);
    class.native = Some(Rc::new(NnxNode));
    Rc::new(class)
}

/// The behaviour nnx's root classes give their instances.
struct NnxNode;

impl Object for NnxNode {
    fn type_name(&self) -> String {
        "Module".into()
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        let Obj::Instance(i) = this else { return None };
        instance_repr(i)
    }

    fn array(&self, this: &Obj) -> Option<Obj> {
        let Obj::Instance(i) = this else { return None };
        variable_value(i)
    }

    fn children(&self, this: &Obj) -> Option<Vec<String>> {
        let Obj::Instance(i) = this else { return None };
        if is_nnx_module(i) && !pytree::is_pytree(i) {
            // `pytree=False` objects are leaves to JAX.
            return None;
        }
        pytree_children(i)
    }

    fn created(&self, instance: &Rc<Instance>) {
        if is_nnx_module(instance) {
            trace_level::note_made(instance);
        }
    }

    fn rebuilt(&self, instance: &Rc<Instance>, children: &[String]) {
        if is_nnx_module(instance) && !is_variable(instance) && !is_state(instance) {
            pytree::record_data(instance, children);
        }
    }

    fn constructed(&self, _: &mut Interp, this: &Obj) -> Result<()> {
        match this {
            Obj::Instance(i) if is_nnx_module(i) => pytree::check_pytree(i),
            _ => Ok(()),
        }
    }

    fn treedef_text(
        &self,
        class: &Rc<Class>,
        statics: &[(String, Obj)],
        names: &[String],
        kids: &[String],
    ) -> Option<String> {
        if !matches!(class.lookup("__nnx_module__"), Some(Obj::Bool(true))) {
            return None;
        }
        Some(module_treedef_text(class, statics, names, kids))
    }

    fn children_are_entries(&self, this: &Obj) -> bool {
        matches!(this, Obj::Instance(i) if is_state(i))
    }
}

/// How JAX prints an nnx module's node: Flax's aux data is the sorted
/// names of its children (with `_pytree__state`, a `PytreeState` node
/// without children, first among them), the sorted names of its other
/// attributes (with `_pytree__nodes`) and their values.
fn module_treedef_text(
    class: &Rc<Class>,
    statics: &[(String, Obj)],
    names: &[String],
    kids: &[String],
) -> String {
    let mut node_keys: Vec<String> = names.to_vec();
    node_keys.push("_pytree__state".into());
    node_keys.sort();
    let mut rest: Vec<(String, Obj)> = statics
        .iter()
        .filter(|(k, _)| !k.starts_with("_nnx"))
        .cloned()
        .collect();
    rest.push(("_pytree__nodes".into(), Obj::None));
    rest.sort_by(|a, b| a.0.cmp(&b.0));
    let mut all: Vec<(String, Obj)> = statics.to_vec();
    all.extend(names.iter().map(|n| (n.clone(), Obj::None)));
    let nodes = pytree::pytree_nodes_text(&all, &|k| names.iter().any(|n| n == k));
    let quoted = |ks: Vec<&String>| -> String {
        let items: Vec<String> = ks.iter().map(|k| repr_of(&Obj::str(k.as_str()))).collect();
        match items.len() {
            1 => format!("({},)", items[0]),
            _ => format!("({})", items.join(", ")),
        }
    };
    let values: Vec<String> = rest
        .iter()
        .map(|(k, v)| {
            match v {
                _ if k == "_pytree__nodes" => nodes.clone(),
                // A layer's dtype attributes hold jnp's scalar types
                // (`jnp.float32`), which print as classes.
                Obj::DType(d) => format!("<class 'jax.numpy.{}'>", d.name()),
                _ => repr_of(v),
            }
        })
        .collect();
    let values = match values.len() {
        1 => format!("({},)", values[0]),
        _ => format!("({})", values.join(", ")),
    };
    let aux = format!(
        "({}, {}, {values})",
        quoted(node_keys.iter().collect()),
        quoted(rest.iter().map(|(k, _)| k).collect())
    );
    // The PytreeState child sits where its name sorts among the others.
    let mut children: Vec<String> = kids.to_vec();
    let at = node_keys
        .iter()
        .position(|k| k == "_pytree__state")
        .unwrap_or(0)
        .min(children.len());
    children.insert(at, "CustomNode(PytreeState[(False, False)], [])".into());
    format!(
        "CustomNode({}[{aux}], [{}])",
        class.name,
        children.join(", ")
    )
}

fn instance(class: &Rc<Class>, attrs: Vec<(String, Obj)>) -> Obj {
    Obj::Instance(Rc::new(Instance::with_attrs(class.clone(), attrs)))
}

/// `jnp.float32`, the class Flax's layers default their `param_dtype` to.
fn jnp_float32() -> Obj {
    crate::modules::numpy::jnp_scalar_types::float32()
}

fn self_arg(a: &Args, func: &str) -> Result<Rc<Instance>> {
    match a.pos.first() {
        Some(Obj::Instance(i)) => Ok(i.clone()),
        _ => bail!(TypeError, "{func}() needs a module instance as self"),
    }
}

fn derives(k: &Rc<Class>, c: &Rc<Class>) -> bool {
    Rc::ptr_eq(k, c) || k.bases.iter().any(|b| derives(b, c))
}

/// Orders keys as nnx does: integers (list positions) numerically, names
/// alphabetically.
fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        _ => a.cmp(b),
    }
}

fn indent(s: &str, by: usize) -> String {
    let pad = " ".repeat(by);
    s.lines()
        .enumerate()
        .map(|(k, l)| {
            if k == 0 {
                l.to_string()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

// ------------------------------------------------------ pytree and repr

fn is_variable(i: &Instance) -> bool {
    marked(i, "__nnx_variable__")
}

fn is_nnx_module(i: &Instance) -> bool {
    marked(i, "__nnx_module__")
}

fn is_state(i: &Instance) -> bool {
    marked(i, "__nnx_state__")
}

fn is_data(o: &Obj) -> bool {
    match o {
        Obj::Array(_) => true,
        Obj::Instance(_) if graph::graphdef_node(o).is_some() => false,
        Obj::Instance(_) => o.behaviour().and_then(|b| b.children(o)).is_some(),
        Obj::List(l) => l.borrow().iter().any(is_data),
        Obj::Tuple(t) => t.iter().any(is_data),
        Obj::Dict(d) => d.borrow().items.iter().any(|(_, v)| is_data(v)),
        _ => false,
    }
}

/// Children of nnx modules (data attributes, sorted), variables (`value`)
/// and states (their keys).
fn pytree_children(i: &Instance) -> Option<Vec<String>> {
    if is_variable(i) {
        return Some(vec!["value".into()]);
    }
    if is_state(i) {
        let mut names: Vec<String> = i.attrs.borrow().iter().map(|(k, _)| k.clone()).collect();
        names.sort_by(|a, b| key_order(a, b));
        return Some(names);
    }
    if is_nnx_module(i) {
        let mut names: Vec<String> = i
            .attrs
            .borrow()
            .iter()
            .filter(|(k, v)| pytree::is_child(i, k, v))
            .map(|(k, _)| k.clone())
            .collect();
        names.sort_by(|a, b| key_order(a, b));
        return Some(names);
    }
    None
}

/// The value of an `nnx.Variable`, for arithmetic on it.
fn variable_value(i: &Instance) -> Option<Obj> {
    if is_variable(i) {
        iattr(i, "value")
    } else {
        None
    }
}

fn fmt_count(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (k, ch) in s.chars().enumerate() {
        if k > 0 && (s.len() - k) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

fn state_body(i: &Instance) -> String {
    // A State prints in the order its entries were made, as Flax's
    // mapping keeps them (`split` and `state` make them sorted).
    let items: Vec<(String, Obj)> = i.attrs.borrow().clone();
    if items.is_empty() {
        return "{}".into();
    }
    let parts: Vec<String> = items
        .iter()
        .map(|(k, v)| {
            let key = if k.parse::<u64>().is_ok() {
                k.clone()
            } else {
                repr_of(&Obj::str(k))
            };
            let val = match v {
                Obj::Instance(s) if is_state(s) => state_body(s),
                other => repr_of(other),
            };
            format!("  {key}: {}", indent(&val, 2))
        })
        .collect();
    format!("{{\n{}\n}}", parts.join(",\n"))
}

/// `repr` of variables, states and modules.
fn instance_repr(i: &Rc<Instance>) -> Option<String> {
    if is_variable(i) {
        return Some(display::variable_repr(i));
    }
    if is_state(i) {
        return Some(format!("State({})", state_body(i)));
    }
    if is_nnx_module(i) {
        return Some(display::module_repr(i));
    }
    None
}

mod attention;
mod attributes;
mod autodiff;
mod batch;
mod bridge;
mod capture;
mod class_modules;
mod conv;
mod conv_transpose;
mod custom_vjp;
mod display;
mod einsum;
mod ema;
mod embed;
mod eval_shape;
mod filters;
pub mod frozen_dict;
mod graph;
mod graph_iter;
mod graphdef_text;
mod group_norm;
pub mod linen;
mod linen_attention;
mod linen_collections;
mod linen_conv;
mod linen_dropout;
mod linen_group_norm;
mod linen_layers;
mod linen_lift;
mod linen_mha;
mod linen_recurrent;
mod linen_remat;
mod linen_rnn;
mod linen_scan;
mod linen_vmap;
mod list_type;
mod loops;
mod lora;
mod masks;
mod metadata;
mod metrics;
mod mha;
mod mha_cache;
pub mod nnx;
mod nnx_cond;
mod nnx_jit;
mod norm;
mod opt_state;
mod pop;
mod prefix;
mod prelu;
mod pure_dict;
mod pytree;
mod raw_arrays;
mod recurrent;
mod recursive;
mod rngs;
mod rnn;
mod scan;
mod scan_tree;
mod split_rngs;
mod spmd_axes;
pub mod struct_dataclass;
mod to_linen;
mod trace_level;
mod transforms;
pub mod traverse_util;
mod var_modes;
mod view_info;
mod with_rngs;

pub use linen::linen_module;
pub use list_type::list_type_of;
pub use nnx::{dense_apply, nnx_module};
