//! Printing jaxprs in the style of `jax.make_jaxpr`: variables named a, b, ...,
//! z, ba, bb, ... in order of appearance across nested bodies; scalar constants
//! inline as `2.0:f32[]`; array constants as constvars before the `;`.

use std::collections::HashMap;
use std::fmt::{self, Write};

use crate::array::{fmt_shape, Array, DType};
use crate::ir::{Atom, Aval, Jaxpr, Var};
use crate::primitives::{CollectiveKind, Prim};

/// JAX's variable names: 0 -> a, 25 -> z, 26 -> ba, 27 -> bb, ...
fn var_name(mut n: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (n % 26) as u8);
        n /= 26;
        if n == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

fn scalar_text(a: &Array) -> String {
    let v = a.get_f64(0);
    match a.dtype() {
        DType::F32 => format!("{:?}", v as f32),
        DType::I32 => format!("{}", v as i64),
        DType::Bool => if v != 0.0 { "True" } else { "False" }.into(),
    }
}

struct Printer {
    next: usize,
    out: String,
}

struct Scope {
    names: HashMap<Var, String>,
}

impl Printer {
    fn fresh(&mut self) -> String {
        self.next += 1;
        var_name(self.next - 1)
    }

    fn atom(&self, scope: &Scope, a: &Atom) -> String {
        match a {
            Atom::Var(v) => scope.names.get(v).cloned().unwrap_or_else(|| "?".into()),
            Atom::Lit(x) if x.size() == 1 && x.ndim() == 0 => {
                format!("{}:{}[]", scalar_text(x), x.dtype().short_name())
            }
            Atom::Lit(x) => format!("<{}{}>", x.dtype().short_name(), fmt_shape(x.shape())),
        }
    }

    fn jaxpr(&mut self, j: &Jaxpr, indent: usize) {
        let mut scope = Scope {
            names: HashMap::new(),
        };
        let mut binders = Vec::new();
        for v in &j.invars {
            let n = self.fresh();
            binders.push(format!("{n}:{}", j.aval(*v)));
            scope.names.insert(*v, n);
        }
        let _ = writeln!(self.out, "{{ lambda ; {}. let", binders.join(" "));
        let pad = " ".repeat(indent + 4);
        for eqn in &j.eqns {
            let lhs: Vec<String> = eqn
                .outputs
                .iter()
                .map(|v| {
                    let n = self.fresh();
                    let s = format!("{n}:{}", j.aval(*v));
                    scope.names.insert(*v, n);
                    s
                })
                .collect();
            let args: Vec<String> = eqn.inputs.iter().map(|a| self.atom(&scope, a)).collect();
            let params = match &eqn.prim {
                Prim::Collective(kind) => {
                    let shape = |a: Option<Aval>| a.map(|a| a.shape).unwrap_or_default();
                    let ins = shape(eqn.inputs.first().map(|a| j.atom_aval(a)));
                    let outs = shape(eqn.outputs.first().map(|v| j.aval(*v).clone()));
                    kind.params_sized(group_size_of(kind, &ins, &outs))
                }
                other => other.params(),
            };
            let body = match &eqn.prim {
                Prim::ShardMap(p) => Some(&p.body),
                Prim::Map(m) => Some(&m.body),
                _ => None,
            };
            let inline = format!(
                "{}[{}]",
                eqn.prim.name(),
                params
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            let _ = write!(self.out, "{pad}{} = ", lhs.join(" "));
            if body.is_none() && (params.is_empty() || inline.len() + pad.len() < 80) {
                let head = if params.is_empty() {
                    eqn.prim.name()
                } else {
                    inline
                };
                let _ = writeln!(self.out, "{head} {}", args.join(" "));
                continue;
            }
            let _ = writeln!(self.out, "{}[", eqn.prim.name());
            let ppad = " ".repeat(indent + 6);
            let mut entries: Vec<(String, Option<String>)> =
                params.into_iter().map(|(k, v)| (k, Some(v))).collect();
            if body.is_some() {
                entries.push(("jaxpr".into(), None));
                entries.sort_by(|a, b| a.0.cmp(&b.0));
            }
            for (k, v) in entries {
                match (v, body) {
                    (Some(v), _) => {
                        let _ = writeln!(self.out, "{ppad}{k}={v}");
                    }
                    (None, Some(b)) => {
                        let _ = write!(self.out, "{ppad}jaxpr=");
                        self.jaxpr(b, indent + 6);
                        self.out.push('\n');
                    }
                    (None, None) => {}
                }
            }
            let _ = writeln!(self.out, "{pad}] {}", args.join(" "));
        }
        let outs: Vec<String> = j.outvars.iter().map(|a| self.atom(&scope, a)).collect();
        let tuple = if outs.len() == 1 {
            format!("({},)", outs[0])
        } else {
            format!("({})", outs.join(", "))
        };
        let _ = write!(self.out, "{}in {tuple} }}", " ".repeat(indent + 2));
    }
}

impl fmt::Display for Jaxpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = Printer {
            next: 0,
            out: String::new(),
        };
        p.jaxpr(self, 0);
        f.write_str(&p.out)
    }
}

/// The group size of an all_gather or reduce_scatter equation, read off its
/// shapes: JAX prints it as the `axis_size` parameter.
fn group_size_of(kind: &CollectiveKind, ins: &[usize], outs: &[usize]) -> Option<usize> {
    let ratio = |big: usize, small: usize| (small > 0).then(|| big / small);
    match kind {
        CollectiveKind::AllGather { axis, tiled, .. } => match tiled {
            true => ratio(*outs.get(*axis)?, *ins.get(*axis)?),
            false => outs.get(*axis).copied(),
        },
        CollectiveKind::PsumScatter { dim, tiled, .. } => match tiled {
            true => ratio(*ins.get(*dim)?, *outs.get(*dim)?),
            false => ins.get(*dim).copied(),
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_jax() {
        assert_eq!(var_name(0), "a");
        assert_eq!(var_name(25), "z");
        assert_eq!(var_name(26), "ba");
        assert_eq!(var_name(27), "bb");
    }
}
