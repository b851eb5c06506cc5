//! The `operator` module: Python's operators as functions (`operator.add`,
//! `operator.mul`, ...) and the callables `itemgetter`, `attrgetter` and
//! `methodcaller`, each doing exactly what the operator or expression does
//! (special methods of a program's classes included).

use rustpython_parser::ast::{CmpOp, Operator, UnaryOp};

use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::ops::{getattr, getitem, is_same};
use crate::python::value::{Args, Obj};

use super::super::Builder;

const BINARY: &[(&str, Operator)] = &[
    ("add", Operator::Add),
    ("sub", Operator::Sub),
    ("mul", Operator::Mult),
    ("matmul", Operator::MatMult),
    ("truediv", Operator::Div),
    ("floordiv", Operator::FloorDiv),
    ("mod", Operator::Mod),
    ("pow", Operator::Pow),
    ("lshift", Operator::LShift),
    ("rshift", Operator::RShift),
    ("and_", Operator::BitAnd),
    ("or_", Operator::BitOr),
    ("xor", Operator::BitXor),
    ("concat", Operator::Add),
];

const COMPARE: &[(&str, CmpOp)] = &[
    ("eq", CmpOp::Eq),
    ("ne", CmpOp::NotEq),
    ("lt", CmpOp::Lt),
    ("le", CmpOp::LtE),
    ("gt", CmpOp::Gt),
    ("ge", CmpOp::GtE),
];

const UNARY: &[(&str, UnaryOp)] = &[
    ("neg", UnaryOp::USub),
    ("pos", UnaryOp::UAdd),
    ("invert", UnaryOp::Invert),
    ("inv", UnaryOp::Invert),
];

fn two(a: &Args, func: &str) -> Result<(Obj, Obj)> {
    Ok((a.req(Some(0), "a", func)?, a.req(Some(1), "b", func)?))
}

/// The `operator` module.
pub fn module() -> Obj {
    let mut b = Builder::new("operator");
    for &(name, op) in BINARY {
        b.func(name, move |i, a| {
            let (x, y) = two(&a, name)?;
            i.binop(&op, &x, &y, false)
        });
        let op = match op {
            Operator::Add if name == "concat" => continue,
            op => op,
        };
        b.func(&format!("i{}", name.trim_end_matches('_')), move |i, a| {
            let (x, y) = two(&a, name)?;
            i.binop(&op, &x, &y, true)
        });
    }
    for &(name, op) in COMPARE {
        b.func(name, move |i, a| {
            let (x, y) = two(&a, name)?;
            i.compare(&op, &x, &y)
        });
    }
    for &(name, op) in UNARY {
        b.func(name, move |i, a| i.unary(&op, &a.req(Some(0), "a", name)?));
    }
    predicates(&mut b);
    getters(&mut b);
    b.build()
}

/// `not_`, `truth`, `is_`, `is_not`, `contains`, `getitem`, `abs`, `index`.
fn predicates(b: &mut Builder) {
    b.func("not_", |i, a| {
        Ok(Obj::Bool(!i.truth(&a.req(Some(0), "a", "not_")?, "not_")?))
    })
    .func("truth", |i, a| {
        Ok(Obj::Bool(i.truth(&a.req(Some(0), "a", "truth")?, "truth")?))
    })
    .func("is_", |_, a| {
        let (x, y) = two(&a, "is_")?;
        Ok(Obj::Bool(is_same(&x, &y)))
    })
    .func("is_not", |_, a| {
        let (x, y) = two(&a, "is_not")?;
        Ok(Obj::Bool(!is_same(&x, &y)))
    })
    .func("contains", |i, a| {
        let (x, y) = two(&a, "contains")?;
        i.compare(&CmpOp::In, &y, &x)
    })
    .func("getitem", |i, a| {
        let (x, y) = two(&a, "getitem")?;
        getitem(i, &x, &y)
    })
    .func("abs", |i, a| call_builtin(i, "abs", a))
    .func("index", |i, a| call_builtin(i, "int", a));
}

fn call_builtin(i: &mut Interp, name: &str, a: Args) -> Result<Obj> {
    let f = i
        .builtins
        .get(name)
        .cloned()
        .ok_or_else(|| crate::err!(NameError, "name '{name}' is not defined"))?;
    i.call(&f, a)
}

/// `itemgetter`, `attrgetter`, `methodcaller`.
fn getters(b: &mut Builder) {
    b.func("itemgetter", |_, a| {
        let keys = a.pos.clone();
        Ok(Obj::native("operator.itemgetter", move |i, a| {
            let obj = a.req(Some(0), "obj", "itemgetter")?;
            let mut got = keys
                .iter()
                .map(|k| getitem(i, &obj, k))
                .collect::<Result<Vec<_>>>()?;
            Ok(match got.len() {
                1 => got.remove(0),
                _ => Obj::tuple(got),
            })
        }))
    })
    .func("attrgetter", |_, a| {
        let names: Vec<String> = a.pos.iter().map(crate::python::format::str_of).collect();
        Ok(Obj::native("operator.attrgetter", move |i, a| {
            let obj = a.req(Some(0), "obj", "attrgetter")?;
            let mut got = vec![];
            for n in &names {
                let mut cur = obj.clone();
                for part in n.split('.') {
                    cur = getattr(i, &cur, part)?;
                }
                got.push(cur);
            }
            Ok(match got.len() {
                1 => got.remove(0),
                _ => Obj::tuple(got),
            })
        }))
    })
    .func("methodcaller", |_, a| {
        let name = crate::python::format::str_of(&a.req(Some(0), "name", "methodcaller")?);
        let rest = Args::with(a.pos.get(1..).unwrap_or(&[]).to_vec(), a.kw.clone());
        Ok(Obj::native("operator.methodcaller", move |i, a| {
            let obj = a.req(Some(0), "obj", "methodcaller")?;
            let m = getattr(i, &obj, &name)?;
            i.call(&m, rest.clone())
        }))
    });
}
