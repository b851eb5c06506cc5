//! Printing jaxprs in the style of `jax.make_jaxpr`: variables named a, b, ...,
//! z, ba, bb, ... in order of appearance across nested bodies; scalar constants
//! inline as `2.0:f32[]`; the arrays the outermost program closed over as its
//! constvars, before the `;` (`{ lambda a:f32[3]; b:f32[3]. let ...`), each
//! array once however often it is used.

use std::collections::{HashMap, HashSet};
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
        // A weak literal is a Python number and prints as one; a float32
        // one (a Python number converted to meet a float32 array, or a
        // float32 scalar) prints its value in double precision, as JAX's
        // printer shows a NumPy float32 (`1.6699999570846558:f32[]`).
        DType::F32 if a.is_weak() => format!("{:?}", v as f32),
        DType::F32 | DType::BF16 | DType::F16 => format!("{v:?}"),
        d if d.is_int() => format!("{}", v as i64),
        DType::Bool => if v != 0.0 { "True" } else { "False" }.into(),
        _ => crate::array::format_numpy(a),
    }
}

struct Printer {
    next: usize,
    /// Types written in place of the avals' own, by the address of the
    /// jaxpr and the variable: a sharded type (`f32[8@X,4]`) over explicit
    /// mesh axes, which an aval does not carry (see [`typed`]).
    types: HashMap<(usize, Var), String>,
}

/// The names of one jaxpr's variables; a nested jit body starts with names
/// suggested by its equation (see [`Printer::jit_scope`]).
#[derive(Clone, Default)]
struct Scope {
    names: HashMap<Var, String>,
    /// The arrays this jaxpr closed over, with their constvar names.
    consts: Vec<(Array, String)>,
}

/// JAX lays a group out on one line when it fits in this many columns.
const WIDTH: usize = 80;

/// `{ lambda ; a:f32[] b:f32[] ...` starting at column `col`, with a
/// separator breaking (to column `pad`) where a space would pass the width.
fn fill_head(head: &str, col: usize, pad: usize) -> String {
    let Some(binders) = head.strip_prefix("{ lambda ; ") else {
        return head.to_string();
    };
    let mut out = String::from("{ lambda ; ");
    let mut column = col + out.len();
    for (i, b) in binders.split(' ').enumerate() {
        if i > 0 {
            if column < WIDTH {
                out.push(' ');
                column += 1;
            } else {
                out.push('\n');
                out.push_str(&" ".repeat(pad));
                column = pad;
            }
        }
        out.push_str(b);
        column += b.len();
    }
    out
}

impl Printer {
    fn type_of(&self, j: &Jaxpr, v: Var) -> String {
        let key = (j as *const Jaxpr as usize, v);
        match self.types.get(&key) {
            Some(t) => t.clone(),
            None => j.aval(v).to_string(),
        }
    }

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
            Atom::Lit(x) => match scope.consts.iter().find(|(c, _)| c.is_same(x)) {
                Some((_, n)) => n.clone(),
                None => format!("<{}{}>", x.dtype().short_name(), fmt_shape(x.shape())),
            },
        }
    }

    /// The name of a variable being bound: its suggested one, `_` when
    /// nothing reads it (JAX drops such variables), else a fresh one.
    fn bind(&mut self, scope: &mut Scope, v: Var, used: &HashSet<Var>) -> String {
        if let Some(n) = scope.names.get(&v) {
            return n.clone();
        }
        let n = if used.contains(&v) {
            self.fresh()
        } else {
            "_".to_string()
        };
        scope.names.insert(v, n.clone());
        n
    }

    /// The scope of an outermost jaxpr: the arrays its equations and
    /// outputs read, named first, in the order they are first read.
    fn constvars(&mut self, j: &Jaxpr) -> Scope {
        let mut scope = Scope::default();
        for a in j.eqns.iter().flat_map(|e| &e.inputs).chain(&j.outvars) {
            let Atom::Lit(x) = a else { continue };
            if x.ndim() == 0 || scope.consts.iter().any(|(c, _)| c.is_same(x)) {
                continue;
            }
            let name = self.fresh();
            scope.consts.push((x.clone(), name));
        }
        scope
    }

    /// A jaxpr at column `indent`: on one line when it fits from column
    /// `col`, as JAX's printer does, else an equation per line.
    fn jaxpr(&mut self, j: &Jaxpr, scope: Scope, indent: usize, col: usize) -> String {
        let start = self.next;
        let flat = self.jaxpr_layout(j, scope.clone(), indent, true);
        if !flat.contains('\n') && col + flat.len() <= WIDTH {
            return flat;
        }
        self.next = start;
        let text = self.jaxpr_layout(j, scope, indent, false);
        // The binders fill their line to the width, as JAX's printer breaks
        // each separator on its own, continuing 4 past the jaxpr's indent.
        match text.split_once(". let") {
            Some((head, rest)) if !head.contains('\n') => {
                format!("{}. let{rest}", fill_head(head, col, indent + 4))
            }
            _ => text,
        }
    }

    fn jaxpr_layout(&mut self, j: &Jaxpr, mut scope: Scope, indent: usize, flat: bool) -> String {
        let mut used: HashSet<Var> = HashSet::new();
        for a in j.eqns.iter().flat_map(|e| &e.inputs).chain(&j.outvars) {
            if let Atom::Var(v) = a {
                used.insert(*v);
            }
        }
        let binders: Vec<String> = j
            .invars
            .iter()
            .map(|v| {
                let n = match scope.names.get(v) {
                    Some(n) => n.clone(),
                    None => {
                        let n = self.fresh();
                        scope.names.insert(*v, n.clone());
                        n
                    }
                };
                format!("{n}:{}", self.type_of(j, *v))
            })
            .collect();
        let pad = " ".repeat(indent + 4);
        let eqns: Vec<String> = j
            .eqns
            .iter()
            .map(|e| self.eqn(j, e, &mut scope, &used, indent + 4, flat))
            .collect();
        let outs: Vec<String> = j.outvars.iter().map(|a| self.atom(&scope, a)).collect();
        let tuple = if outs.len() == 1 {
            format!("({},)", outs[0])
        } else {
            format!("({})", outs.join(", "))
        };
        let consts: Vec<String> = scope
            .consts
            .iter()
            .map(|(c, n)| format!("{n}:{}", Aval::of(c)))
            .collect();
        let head = format!("{{ lambda {}; {}. let", consts.join(" "), binders.join(" "));
        if flat {
            return format!("{head} {} in {tuple} }}", eqns.join("; "));
        }
        let mut out = head;
        for e in eqns {
            let _ = write!(out, "\n{pad}{e}");
        }
        let _ = write!(out, "\n{}in {tuple} }}", " ".repeat(indent + 2));
        out
    }

    /// Names for a jit body's variables, as JAX suggests them: each input
    /// takes the name of the variable passed for it (once per variable),
    /// each output the name of the equation's result it becomes.
    fn jit_scope(&self, body: &Jaxpr, scope: &Scope, inputs: &[Atom], outs: &[String]) -> Scope {
        let mut inner = Scope::default();
        let mut taken: HashSet<Var> = HashSet::new();
        for (v, a) in body.invars.iter().zip(inputs) {
            if let Atom::Var(outer) = a {
                if taken.insert(*outer) {
                    if let Some(n) = scope.names.get(outer) {
                        inner.names.insert(*v, n.clone());
                    }
                }
            }
        }
        for (a, n) in body.outvars.iter().zip(outs) {
            if let Atom::Var(v) = a {
                inner.names.entry(*v).or_insert_with(|| n.clone());
            }
        }
        inner
    }

    /// One equation at column `indent` (without its indentation).
    fn eqn(
        &mut self,
        j: &Jaxpr,
        eqn: &crate::ir::Eqn,
        scope: &mut Scope,
        used: &HashSet<Var>,
        indent: usize,
        flat: bool,
    ) -> String {
        let names: Vec<String> = eqn
            .outputs
            .iter()
            .map(|v| self.bind(scope, *v, used))
            .collect();
        let lhs: Vec<String> = names
            .iter()
            .zip(&eqn.outputs)
            .map(|(n, v)| format!("{n}:{}", self.type_of(j, *v)))
            .collect();
        let mut args: Vec<String> = eqn.inputs.iter().map(|a| self.atom(scope, a)).collect();
        // JAX's select_n takes the case for false before the case for true.
        if matches!(eqn.prim, Prim::Select) && args.len() == 3 {
            args.swap(1, 2);
        }
        let params = match &eqn.prim {
            Prim::Collective(kind) => {
                let shape = |a: Option<Aval>| a.map(|a| a.shape).unwrap_or_default();
                let ins = shape(eqn.inputs.first().map(|a| j.atom_aval(a)));
                let outs = shape(eqn.outputs.first().map(|v| j.aval(*v).clone()));
                kind.params_sized(group_size_of(kind, &ins, &outs))
            }
            other => other.params(),
        };
        let bodies = self.bodies(eqn, scope, &names);
        let name = eqn.prim.name();
        // An equation without outputs (debug_print) starts at its name.
        let lhs = match lhs.join(" ") {
            l if l.is_empty() => String::new(),
            l => format!("{l} = "),
        };
        if bodies.is_empty() {
            return leaf_eqn(&lhs, &name, &params, &args, indent, flat);
        }
        let mut entries: Vec<(String, Option<String>)> =
            params.into_iter().map(|(k, v)| (k, Some(v))).collect();
        entries.extend(bodies.iter().map(|(k, _)| (k.to_string(), None)));
        // JAX sorts the parameters; jit and custom-derivative equations put
        // their name first.
        let first = usize::from(matches!(
            eqn.prim,
            Prim::Jit(_) | Prim::CustomJvp(_) | Prim::CustomVjp(_)
        ));
        entries[first..].sort_by(|a, b| a.0.cmp(&b.0));
        let body = |k: &str| bodies.iter().find(|(n, _)| *n == k).map(|(_, b)| b.clone());
        let bodies: Vec<(String, Body)> = entries
            .iter()
            .filter(|(_, v)| v.is_none())
            .filter_map(|(k, _)| body(k).map(|b| (k.clone(), b)))
            .collect();
        let prefix = format!("{lhs}{name}[");
        // Laid out flat first: the whole equation on one line if it fits.
        let start = self.next;
        let flat_text = self.params_text(&entries, &bodies, indent + 2, None);
        let one_line = format!("{prefix}{flat_text}] {}", args.join(" "));
        if flat || (!one_line.contains('\n') && indent + prefix.len() + flat_text.len() < WIDTH) {
            return one_line;
        }
        self.next = start;
        let ppad = " ".repeat(indent + 2);
        let text = self.params_text(&entries, &bodies, indent + 2, Some(&ppad));
        format!("{prefix}{text}\n{}] {}", " ".repeat(indent), args.join(" "))
    }

    /// The jaxprs an equation holds, under the names of their parameters,
    /// each with the scope its variables are named in.
    fn bodies<'j>(
        &mut self,
        eqn: &'j crate::ir::Eqn,
        scope: &Scope,
        names: &[String],
    ) -> Vec<(&'static str, Body<'j>)> {
        match &eqn.prim {
            Prim::ShardMap(p) => vec![("jaxpr", Body::One(&p.body, Scope::default()))],
            Prim::Map(m) => vec![("jaxpr", Body::One(&m.body, Scope::default()))],
            Prim::Jit(p) => {
                // A jitted body keeps the arrays it closed over as its own
                // constvars, named after the equation's results.
                let consts = self.constvars(&p.body).consts;
                let mut inner = self.jit_scope(&p.body, scope, &eqn.inputs, names);
                inner.consts = consts;
                vec![("jaxpr", Body::One(&p.body, inner))]
            }
            Prim::Remat(r) => vec![("jaxpr", Body::One(&r.body, Scope::default()))],
            Prim::Cond(c) => vec![("branches", Body::Many(c.branches.iter().collect()))],
            Prim::While(w) => vec![
                ("body_jaxpr", Body::One(&w.body, Scope::default())),
                ("cond_jaxpr", Body::One(&w.cond, Scope::default())),
            ],
            Prim::Scan(p) => vec![("jaxpr", Body::One(&p.body, Scope::default()))],
            Prim::CustomJvp(c) => vec![("call_jaxpr", Body::One(&c.call, Scope::default()))],
            Prim::CustomVjp(c) => vec![("call_jaxpr", Body::One(&c.fwd, Scope::default()))],
            _ => vec![],
        }
    }

    /// `k=v` entries of an equation with bodies, separated by spaces (flat)
    /// or each on its own line after `pad`.
    fn params_text(
        &mut self,
        entries: &[(String, Option<String>)],
        bodies: &[(String, Body)],
        indent: usize,
        pad: Option<&str>,
    ) -> String {
        let mut parts = vec![];
        for (k, v) in entries {
            let text = match v {
                Some(v) => format!("{k}={v}"),
                None => {
                    let col = indent + k.len() + 1;
                    let body = bodies.iter().find(|(n, _)| n == k).map(|(_, b)| b.clone());
                    let b = match (body, pad) {
                        (None, _) => String::new(),
                        (Some(Body::One(j, scope)), Some(_)) => self.jaxpr(j, scope, indent, col),
                        (Some(Body::One(j, scope)), None) => {
                            self.jaxpr_layout(j, scope, indent, true)
                        }
                        (Some(Body::Many(js)), Some(_)) => {
                            let inner = " ".repeat(indent + 2);
                            let mut out = "(".to_string();
                            for j in js {
                                let text = self.jaxpr(j, Scope::default(), indent + 2, indent + 2);
                                let _ = write!(out, "\n{inner}{text}");
                            }
                            let _ = write!(out, "\n{})", " ".repeat(indent));
                            out
                        }
                        (Some(Body::Many(js)), None) => {
                            let texts: Vec<String> = js
                                .iter()
                                .map(|j| self.jaxpr_layout(j, Scope::default(), indent, true))
                                .collect();
                            format!("({})", texts.join(" "))
                        }
                    };
                    format!("{k}={b}")
                }
            };
            parts.push(text);
        }
        match pad {
            None => parts.join(" "),
            Some(p) => parts.iter().map(|t| format!("\n{p}{t}")).collect(),
        }
    }
}

/// The program parameters of an equation: one jaxpr (with the names its
/// variables start with), or a tuple of them (a cond's branches).
#[derive(Clone)]
enum Body<'a> {
    One(&'a Jaxpr, Scope),
    Many(Vec<&'a Jaxpr>),
}

impl fmt::Display for Jaxpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = Printer {
            next: 0,
            types: HashMap::new(),
        };
        let scope = p.constvars(self);
        let text = p.jaxpr(self, scope, 0, 0);
        f.write_str(&text)
    }
}

/// One equation alone, as JAX prints it in an error: its results named
/// first (with their types), then its operands, from `a`.
pub fn equation(jaxpr: &Jaxpr, eqn: &crate::ir::Eqn) -> String {
    let mut p = Printer {
        next: 0,
        types: HashMap::new(),
    };
    let mut scope = Scope::default();
    let used: HashSet<Var> = eqn.outputs.iter().copied().collect();
    for v in &eqn.outputs {
        p.bind(&mut scope, *v, &used);
    }
    for a in &eqn.inputs {
        if let Atom::Var(v) = a {
            if !scope.names.contains_key(v) {
                let n = p.fresh();
                scope.names.insert(*v, n);
            }
        }
    }
    p.eqn(jaxpr, eqn, &mut scope, &used, 0, true)
}

/// The sharded types of a program's variables, for [`typed`]: the text of
/// each variable that has one, keyed by the (sub-)program it belongs to.
#[derive(Default)]
pub struct Types(HashMap<(usize, Var), String>);

impl Types {
    /// Gives the variables of `jaxpr` (indexed by [`Var`]) their texts.
    pub fn add(&mut self, jaxpr: &Jaxpr, types: &[Option<String>]) {
        let key = jaxpr as *const Jaxpr as usize;
        for (i, t) in types.iter().enumerate() {
            if let Some(t) = t {
                self.0.insert((key, Var(i as u32)), t.clone());
            }
        }
    }
}

/// `jaxpr` printed with the sharded types of its variables and those of
/// the programs nested in it that `types` holds.
pub fn typed(jaxpr: &Jaxpr, types: Types) -> String {
    let mut p = Printer {
        next: 0,
        types: types.0,
    };
    let scope = p.constvars(jaxpr);
    p.jaxpr(jaxpr, scope, 0, 0)
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

/// Python's repr of a string (a parameter's text in a printed jaxpr).
pub fn str_repr(s: &str) -> String {
    super::str_repr::str_repr(s)
}

/// An equation without bodies: `lhs name[k=v ...] args` on one line if it
/// fits in [`WIDTH`] (or `flat`), else one parameter per line.
fn leaf_eqn(
    lhs: &str,
    name: &str,
    params: &[(String, String)],
    args: &[String],
    indent: usize,
    flat: bool,
) -> String {
    let inline = format!(
        "{name}[{}]",
        params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let head = if params.is_empty() {
        name
    } else {
        inline.as_str()
    };
    if flat || params.is_empty() || inline.len() + indent < WIDTH {
        return format!("{lhs}{head} {}", args.join(" "));
    }
    let ppad = " ".repeat(indent + 2);
    let mut out = format!("{lhs}{name}[");
    for (k, v) in params {
        let _ = write!(out, "\n{ppad}{k}={v}");
    }
    let _ = write!(out, "\n{}] {}", " ".repeat(indent), args.join(" "));
    out
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
