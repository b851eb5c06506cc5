//! `nnx.view_info(node)`: the keyword arguments `nnx.view` can give the
//! modules of a graph.
//!
//! Every class of a module under `node` that has a `set_view` (and passes
//! `only`) is listed once, sorted by qualified name, with each parameter of
//! its `set_view` as `name: annotation = default` followed by the lines the
//! docstring's `Args:` section gives that name. The library's layers carry
//! those lines in `__set_view_info__`; a program's `set_view` has them read
//! from its docstring, cleaned as `inspect.getdoc` does.

use rustpython_parser::ast::{self, Constant, Expr, Operator};

use super::filters::to_predicate;
use super::*;
use crate::python::value::Function;

/// `inspect.cleandoc`: the first line without leading blanks, the others
/// without their common indentation, blank lines at both ends dropped.
fn cleandoc(doc: &str) -> String {
    let doc = doc.replace('\t', "        ");
    let lines: Vec<&str> = doc.split('\n').collect();
    let margin = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim_start().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<String> = vec![];
    for (k, l) in lines.iter().enumerate() {
        if k == 0 {
            out.push(l.trim_start().to_string());
        } else {
            out.push(l.get(margin..).unwrap_or("").to_string());
        }
    }
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// The `Args:` section of a cleaned docstring, by parameter name: each
/// description's first line indented by four spaces, its other lines as
/// they are (Google style, names indented by two).
fn parse_args(doc: &str) -> Vec<(String, String)> {
    // Flax slices from `find("Args:\n") + 6`, so a missing section starts
    // the slice five characters in.
    let start = doc.find("Args:\n").map(|s| s as i64).unwrap_or(-1) + 6;
    let end = doc.find("Returns:\n").unwrap_or(doc.len());
    let body = doc.get(start as usize..end).unwrap_or("");
    let lines: Vec<&str> = body.split('\n').collect();
    let mut heads: Vec<usize> = (0..lines.len())
        .filter(|&k| lines[k].starts_with("  ") && !lines[k].starts_with("    "))
        .collect();
    heads.push(lines.len());
    let mut out = vec![];
    for w in heads.windows(2) {
        let first = lines[w[0]];
        let colon = first.find(':');
        let (name, rest) = match colon {
            Some(c) => (&first[..c], &first[c + 1..]),
            // `str.find` gives -1: the name loses its last character.
            None => (&first[..first.len().saturating_sub(1)], first),
        };
        let mut desc = vec![format!("    {}", rest.trim())];
        desc.extend(lines[w[0] + 1..w[1]].iter().map(|l| l.to_string()));
        out.push((name.trim().to_string(), desc.join("\n")));
    }
    out
}

/// An annotation as `str()` of its value prints: a union as its members'
/// names joined by ` | `, a class alone as `<class 'name'>`.
fn annotation_text(e: Option<&Expr>) -> Result<String> {
    let Some(e) = e else {
        return Ok("<class 'inspect._empty'>".into());
    };
    match e {
        Expr::Name(n) if BUILTIN_TYPES.contains(&n.id.as_str()) => {
            Ok(format!("<class '{}'>", n.id))
        }
        Expr::Constant(c) if matches!(c.value, Constant::None) => Ok("None".into()),
        Expr::Constant(ast::ExprConstant {
            value: Constant::Str(s),
            ..
        }) => Ok(s.clone()),
        Expr::BinOp(b) if matches!(b.op, Operator::BitOr) => Ok(format!(
            "{} | {}",
            member_text(&b.left)?,
            member_text(&b.right)?
        )),
        _ => Err(unsupported_annotation()),
    }
}

const BUILTIN_TYPES: &[&str] = &[
    "bool", "int", "float", "str", "complex", "bytes", "tuple", "list", "dict",
];

/// A member of a union as the union prints it.
fn member_text(e: &Expr) -> Result<String> {
    match e {
        Expr::Name(n) if BUILTIN_TYPES.contains(&n.id.as_str()) => Ok(n.id.to_string()),
        Expr::Constant(c) if matches!(c.value, Constant::None) => Ok("None".into()),
        Expr::BinOp(b) if matches!(b.op, Operator::BitOr) => Ok(format!(
            "{} | {}",
            member_text(&b.left)?,
            member_text(&b.right)?
        )),
        _ => Err(unsupported_annotation()),
    }
}

fn unsupported_annotation() -> crate::error::Error {
    err!(
        NotImplementedError,
        "not supported by shardlab yet: nnx.view_info of a set_view annotated with other than builtin types and their unions"
    )
}

/// The docstring of a function: its body's first statement when that is a
/// string.
fn docstring(f: &Function) -> Option<String> {
    let ast::Stmt::Expr(s) = f.body.first()? else {
        return None;
    };
    match &*s.value {
        Expr::Constant(ast::ExprConstant {
            value: Constant::Str(text),
            ..
        }) => Some(text.clone()),
        _ => None,
    }
}

/// The lines a program's `set_view` contributes.
fn function_info(f: &Function) -> Result<Vec<String>> {
    let Some(doc) = docstring(f) else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.view_info of a set_view without a docstring"
        );
    };
    let parsed = parse_args(&cleandoc(&doc));
    let p = &f.params;
    for extra in p.vararg.iter().chain(&p.kwarg) {
        if !matches!(extra.arg.as_str(), "args" | "kwargs") {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.view_info of a set_view with *{}",
                extra.arg
            );
        }
    }
    let mut out = vec![];
    for a in p.posonlyargs.iter().chain(&p.args).chain(&p.kwonlyargs) {
        let name = a.def.arg.as_str();
        if matches!(name, "self" | "args" | "kwargs") {
            continue;
        }
        let ann = annotation_text(a.def.annotation.as_deref())?;
        match f.defaults.iter().find(|(k, _)| k == name) {
            Some((_, d)) => out.push(format!("  {name}: {ann} = {}", str_of(d))),
            None => out.push(format!("  {name}: {ann}")),
        }
        match parsed.iter().find(|(k, _)| k == name) {
            Some((_, desc)) => out.push(desc.clone()),
            None => bail!(KeyError, "{}", repr_of(&Obj::str(name))),
        }
    }
    Ok(out)
}

/// The lines of one class: its name and its `set_view`'s parameters.
fn class_info(c: &Rc<Class>) -> Result<Vec<String>> {
    let mut out = vec![format!("{}:", c.qualname)];
    if let Some(Obj::Str(s)) = c.lookup("__set_view_info__") {
        out.push(s.to_string());
        return Ok(out);
    }
    match c.lookup("set_view") {
        Some(Obj::Func(f)) => out.extend(function_info(&f)?),
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.view_info of {}.set_view",
            c.name
        ),
    }
    Ok(out)
}

/// `nnx.view_info(node, only=..., graph=None)`.
pub(super) fn view_info(interp: &mut Interp, a: Args) -> Result<Obj> {
    let node = a.req(Some(0), "node", "view_info")?;
    if matches!(a.get(None, "graph"), Some(Obj::Bool(false))) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.view_info with graph=False"
        );
    }
    let only = to_predicate(&a.get(None, "only").unwrap_or(Obj::Ellipsis))?;
    let classes: Rc<RefCell<Vec<Rc<Class>>>> = Rc::default();
    let found = classes.clone();
    let visit = Obj::native("view_info.visit", move |interp, call| {
        let path = call.req(Some(0), "path", "visit")?;
        let node = call.req(Some(1), "node", "visit")?;
        if let Obj::Instance(i) = &node {
            let known = found.borrow().iter().any(|c| Rc::ptr_eq(c, &i.class));
            if !known && i.class.lookup("set_view").is_some() && only.eval(interp, &path, &node)? {
                found.borrow_mut().push(i.class.clone());
            }
        }
        Ok(node)
    });
    super::recursive::recursive_map(interp, &visit, &node)?;
    let mut list = classes.borrow().clone();
    list.sort_by(|x, y| x.qualname.cmp(&y.qualname));
    let mut lines = vec![];
    for c in &list {
        lines.extend(class_info(c)?);
    }
    Ok(Obj::str(lines.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docstrings_are_cleaned_and_split_by_argument() {
        let doc = "Sets things.\n\n    Args:\n      a: first line\n        second line\n      b: other\n    Returns:\n      x\n    ";
        let parsed = parse_args(&cleandoc(doc));
        assert_eq!(
            parsed,
            vec![
                (
                    "a".to_string(),
                    "    first line\n    second line".to_string()
                ),
                ("b".to_string(), "    other\n".to_string()),
            ]
        );
    }
}
