//! The `BCOO` class: its buffers and layout, its checks, its `repr`, its
//! array-like attributes and the methods that hand over to the operation
//! files.
//!
//! Layout, as JAX defines it: `indices` has shape `batch + (nse, n_sparse)`
//! and `data` has shape `batch + (nse,) + dense`; the array's shape is
//! `batch + sparse + dense`. Batch dimensions of the buffers may be 1 where
//! the array's are larger (shared along that batch dimension).

use rustpython_parser::ast::Operator;

use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Class, Obj};
use crate::trace::Value;

use super::{convert, elementwise, int_tuple, layout, refuse, shape_of};

/// A `BCOO`'s parts.
#[derive(Clone)]
pub struct Parts {
    pub data: Obj,
    pub indices: Obj,
    pub shape: Vec<usize>,
    pub sorted: bool,
    pub unique: bool,
}

impl Parts {
    /// Parts whose indices are sorted and hold no duplicates.
    pub fn canonical(data: Obj, indices: Obj, shape: Vec<usize>) -> Parts {
        Parts {
            data,
            indices,
            shape,
            sorted: true,
            unique: true,
        }
    }

    /// The parts of the `BCOO` `o`.
    pub fn of(o: &Obj) -> Result<Parts> {
        let Obj::Instance(i) = o else {
            bail!(TypeError, "expected a BCOO array, got {}", o.type_name());
        };
        let get = |n: &str| i.get(n).unwrap_or(Obj::None);
        let flag = |n: &str| matches!(get(n), Obj::Bool(true));
        Ok(Parts {
            data: get("data"),
            indices: get("indices"),
            shape: shape_of(&get("shape"))?,
            sorted: flag("indices_sorted"),
            unique: flag("unique_indices"),
        })
    }

    pub fn data_value(&self) -> Result<Value> {
        to_value(&self.data)
    }

    pub fn indices_value(&self) -> Result<Value> {
        to_value(&self.indices)
    }

    /// `(n_batch, n_sparse, n_dense, nse)`, checked against the shape as
    /// JAX's `_validate_bcoo` checks them.
    pub fn layout(&self) -> Result<(usize, usize, usize, usize)> {
        let ind = self.indices_value()?.shape();
        let data = self.data_value()?.shape();
        if ind.len() < 2 {
            bail!(
                ValueError,
                "not enough values to unpack (expected 2, got {})",
                ind.len()
            );
        }
        let (nse, n_sparse) = (ind[ind.len() - 2], ind[ind.len() - 1]);
        let n_batch = ind.len() - 2;
        let Some(n_dense) = self.shape.len().checked_sub(n_batch + n_sparse) else {
            bail!(AssertionError, "");
        };
        let compatible = |buf: &[usize]| {
            buf.iter()
                .zip(&self.shape)
                .take(n_batch)
                .all(|(b, s)| *b == 1 || b == s)
        };
        if !compatible(&ind) {
            bail!(
                ValueError,
                "indices batch dimensions not compatible for indices.shape={}, shape={}",
                super::int_tuple_text(&ind),
                super::int_tuple_text(&self.shape)
            );
        }
        if !compatible(&data) || data.len() < n_batch {
            bail!(
                ValueError,
                "data batch dimensions not compatible for data.shape={}, shape={}",
                super::int_tuple_text(&data),
                super::int_tuple_text(&self.shape)
            );
        }
        let mut want = vec![nse];
        want.extend_from_slice(&self.shape[n_batch + n_sparse..]);
        if data[n_batch..] != want[..] {
            bail!(
                ValueError,
                "Invalid data.shape={} for nse={nse}, n_batch={n_batch}, n_dense={n_dense}",
                super::int_tuple_text(&data)
            );
        }
        if !self.indices_value()?.dtype().is_int() {
            bail!(AssertionError, "");
        }
        Ok((n_batch, n_sparse, n_dense, nse))
    }

    pub fn validate(&self) -> Result<()> {
        self.layout().map(|_| ())
    }

    /// The same array with other buffers or flags.
    pub fn with(&self, data: Obj, indices: Obj) -> Parts {
        Parts {
            data,
            indices,
            ..self.clone()
        }
    }
}

/// What a `BCOO` is beyond its attributes: a pytree node over `data` and
/// `indices`, with the array-like attributes JAX computes from them.
pub struct BcooNode;

impl Object for BcooNode {
    fn type_name(&self) -> String {
        "BCOO".into()
    }

    fn children(&self, _: &Obj) -> Option<Vec<String>> {
        Some(vec!["data".into(), "indices".into()])
    }

    fn getattr(&self, interp: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let p = Parts::of(this)?;
        let size: usize = p.shape.iter().product();
        Ok(Some(match name {
            "nse" | "n_batch" | "n_sparse" | "n_dense" => {
                let (b, s, d, nse) = p.layout()?;
                let n = match name {
                    "nse" => nse,
                    "n_batch" => b,
                    "n_sparse" => s,
                    _ => d,
                };
                Obj::Int(n as i64)
            }
            "dtype" => Obj::DType(p.data_value()?.dtype()),
            "ndim" => Obj::Int(p.shape.len() as i64),
            "size" => Obj::Int(size as i64),
            "T" => layout::transpose(interp, this, None)?,
            "_info" | "_bufs" | "tree_flatten" | "tree_unflatten" | "update_layout" | "astype"
            | "reshape" | "from_scipy_sparse" | "block_until_ready" => {
                return refuse(&format!("BCOO.{name}"));
            }
            _ => return Ok(None),
        }))
    }
}

/// `repr(BCOO)`: `BCOO(float32[3, 4], nse=5)`, with `n_batch` and
/// `n_dense` when not zero, and the tracer's type around it when traced.
fn repr(p: &Parts) -> Result<String> {
    let text = match p.layout() {
        Ok((b, _, d, nse)) => {
            let mut extra = format!(", nse={nse}");
            if b > 0 {
                extra += &format!(", n_batch={b}");
            }
            if d > 0 {
                extra += &format!(", n_dense={d}");
            }
            let dims: Vec<String> = p.shape.iter().map(|d| d.to_string()).collect();
            let dtype = p.data_value()?.dtype().name();
            format!("BCOO({dtype}[{}]{extra})", dims.join(", "))
        }
        Err(_) => "BCOO(<invalid>)".to_string(),
    };
    Ok(match &p.data {
        d @ Obj::Array(Value::Traced(_)) => format!("{}[{text}]", d.type_name()),
        _ => text,
    })
}

fn this(a: &Args) -> Obj {
    a.pos.first().cloned().unwrap_or(Obj::None)
}

/// The arguments after `self`.
fn rest(a: &Args) -> Args {
    Args::with(a.pos.iter().skip(1).cloned().collect(), a.kw.clone())
}

/// `BCOO((data, indices), *, shape, indices_sorted=False,
/// unique_indices=False)`.
fn init(interp: &mut Interp, a: Args) -> Result<Obj> {
    let Obj::Instance(inst) = this(&a) else {
        bail!(TypeError, "BCOO.__init__ needs a BCOO instance");
    };
    let bufs = interp.iterate(&a.req(Some(1), "args", "BCOO.__init__")?)?;
    let [data, indices] = &bufs[..] else {
        bail!(ValueError, "too many values to unpack (expected 2)");
    };
    let shape = a.req(None, "shape", "BCOO.__init__")?;
    let data = super::jnp(interp, "asarray", vec![data.clone()], vec![])?;
    let indices = super::jnp(interp, "asarray", vec![indices.clone()], vec![])?;
    let p = Parts {
        data,
        indices,
        shape: shape_of(&shape)?,
        sorted: super::bool_arg(interp, &a, None, "indices_sorted", false)?,
        unique: super::bool_arg(interp, &a, None, "unique_indices", false)?,
    };
    p.validate()?;
    inst.set("data", p.data);
    inst.set("indices", p.indices);
    inst.set("shape", int_tuple(&p.shape));
    inst.set("indices_sorted", Obj::Bool(p.sorted));
    inst.set("unique_indices", Obj::Bool(p.unique));
    Ok(Obj::None)
}

/// A method of the class: `f(interp, self, rest_of_args)`.
fn method(
    name: &str,
    f: impl Fn(&mut Interp, &Obj, Args) -> Result<Obj> + 'static,
) -> (String, Obj) {
    let full = format!("BCOO.{name}");
    (
        name.to_string(),
        Obj::native(full, move |i, a| f(i, &this(&a), rest(&a))),
    )
}

/// An operator method: `x op other`, or `other op x` when `swap`.
fn operator(name: &str, op: Operator, swap: bool) -> (String, Obj) {
    method(name, move |i, this, a| {
        let other = a.req(Some(0), "other", name_of(&op))?;
        let (x, y) = if swap {
            (other, this.clone())
        } else {
            (this.clone(), other)
        };
        elementwise::binary(i, &op, &x, &y)
    })
}

fn name_of(op: &Operator) -> &'static str {
    match op {
        Operator::MatMult => "matmul",
        Operator::Mult => "multiply",
        Operator::Div => "divide",
        Operator::Add => "add",
        Operator::Sub => "subtract",
        _ => "operator",
    }
}

/// The class, with its methods.
pub fn class() -> Class {
    let repr_method = method("__repr__", |_, this, _| {
        Ok(Obj::str(repr(&Parts::of(this)?)?))
    });
    let attrs = vec![
        (
            "__module__".to_string(),
            Obj::str("jax.experimental.sparse.bcoo"),
        ),
        ("__init__".to_string(), Obj::native("BCOO.__init__", init)),
        repr_method,
        method("todense", |i, this, _| convert::todense_of(i, this)),
        method("transpose", |i, this, a| {
            layout::transpose(i, this, a.opt(Some(0), "axes"))
        }),
        method("sort_indices", layout::sort_indices),
        method("sum_duplicates", layout::sum_duplicates),
        method("sum", layout::sum),
        (
            "fromdense".to_string(),
            Obj::native("BCOO.fromdense", convert::fromdense),
        ),
        operator("__matmul__", Operator::MatMult, false),
        operator("__rmatmul__", Operator::MatMult, true),
        operator("__mul__", Operator::Mult, false),
        operator("__rmul__", Operator::Mult, true),
        operator("__truediv__", Operator::Div, false),
        operator("__add__", Operator::Add, false),
        operator("__radd__", Operator::Add, true),
        operator("__sub__", Operator::Sub, false),
        operator("__rsub__", Operator::Sub, true),
        method("__neg__", |i, this, _| elementwise::negative(i, this)),
        method("__len__", |_, this, _| {
            let p = Parts::of(this)?;
            match p.shape.first() {
                Some(&n) => Ok(Obj::Int(n as i64)),
                None => bail!(IndexError, "tuple index out of range"),
            }
        }),
    ];
    let mut c = Class::new("BCOO", vec![], attrs);
    c.native = Some(std::rc::Rc::new(BcooNode));
    c
}
