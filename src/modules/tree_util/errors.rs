//! JAX's messages for trees that do not match: when `tree_map`'s further
//! trees do not have the first tree's structure, the first place where they
//! differ is found and described ("pytree structure error: ..."), with the
//! metadata diff in the form of Python's `difflib.ndiff`.

use crate::err;
use crate::error::{Error, Result};

use crate::python::interp::Interp;
use crate::python::pytree::{class_repr, flatten_one_level, KeyEntry, Level, NodeKind, Shape};
use crate::python::value::Obj;

/// The first structure error between `prefix` and `full` as JAX reports it,
/// with `name` naming the prefix tree, or None when there is none.
pub fn prefix_error(
    i: &mut Interp,
    prefix: &Obj,
    full: &Obj,
    is_leaf: Option<&Obj>,
    name: &str,
) -> Result<Option<Error>> {
    walk(i, &mut vec![], prefix, full, is_leaf, name)
}

fn entry_str(i: &mut Interp, e: &KeyEntry) -> Result<String> {
    Ok(match e {
        KeyEntry::Dict(k) => format!("[{}]", i.repr(k)?),
        KeyEntry::Sequence(n) => format!("[{n}]"),
        KeyEntry::Attr(n) => format!(".{n}"),
        KeyEntry::Flat(n) => format!("[<flat index {n}>]"),
        KeyEntry::Given(o) => i.str(o)?,
    })
}

/// `str(k.key)` for a key in the "child keys" lists.
fn key_name(i: &mut Interp, e: &KeyEntry) -> Result<String> {
    Ok(match e {
        KeyEntry::Dict(k) => i.str(k)?,
        KeyEntry::Sequence(n) | KeyEntry::Flat(n) => n.to_string(),
        KeyEntry::Attr(n) => n.clone(),
        KeyEntry::Given(o) => match crate::python::ops::getattr(i, o, "key") {
            Ok(k) => i.str(&k)?,
            Err(_) => i.str(o)?,
        },
    })
}

/// `type(o)` as Python prints it.
fn type_repr(o: &Obj) -> String {
    match o {
        Obj::Instance(inst) => class_repr(&inst.class),
        Obj::Dict(d) if d.borrow().default_factory.is_some() => {
            "<class 'collections.defaultdict'>".into()
        }
        Obj::Dict(d) if d.borrow().ordered => "<class 'collections.OrderedDict'>".into(),
        Obj::Array(_) => "<class 'jaxlib._jax.ArrayImpl'>".into(),
        other => format!("<class '{}'>", other.type_name()),
    }
}

fn same_type(a: &Obj, b: &Obj) -> bool {
    match (a, b) {
        (Obj::Instance(x), Obj::Instance(y)) => std::rc::Rc::ptr_eq(&x.class, &y.class),
        _ => type_repr(a) == type_repr(b),
    }
}

/// The node's metadata as JAX's `flatten_one_level` gives it.
fn metadata(level: &Level) -> Obj {
    match &level.shape {
        Shape::None | Shape::Tuple | Shape::List => Obj::None,
        Shape::Dict(keys) => Obj::tuple(keys.clone()),
        Shape::Node(NodeKind::DefaultDict { factory, keys }) => {
            Obj::tuple(vec![factory.clone(), Obj::tuple(keys.clone())])
        }
        Shape::Node(NodeKind::OrderedDict { keys }) => Obj::tuple(keys.clone()),
        Shape::Node(NodeKind::Attrs { statics, .. }) => {
            Obj::tuple(statics.iter().map(|(_, v)| v.clone()).collect())
        }
        Shape::Node(NodeKind::Custom { aux, .. }) => aux.clone(),
    }
}

fn walk(
    i: &mut Interp,
    path: &mut Vec<KeyEntry>,
    prefix: &Obj,
    full: &Obj,
    is_leaf: Option<&Obj>,
    name: &str,
) -> Result<Option<Error>> {
    let Some(pl) = flatten_one_level(i, prefix, is_leaf, true)? else {
        return Ok(None);
    };
    let mut at = String::new();
    for e in path.iter() {
        at.push_str(&entry_str(i, e)?);
    }
    let head = |what: &str| format!("pytree structure error: {what} at key path\n    {name}{at}\n");
    if !same_type(prefix, full) {
        return Ok(Some(err!(
            ValueError,
            "{}At that key path, the prefix pytree {name} has a subtree of type\n    {}\nbut at the same key path the full pytree has a subtree of different type\n    {}.",
            head("different types"),
            type_repr(prefix),
            type_repr(full)
        )));
    }
    let Some(fl) = flatten_one_level(i, full, None, true)? else {
        return Ok(None);
    };
    let (np, nf) = (pl.children.len(), fl.children.len());
    if let Obj::List(_) | Obj::Tuple(_) = prefix {
        if np != nf {
            let ty = prefix.type_name();
            return Ok(Some(err!(
                ValueError,
                "{}At that key path, the prefix pytree {name} has a subtree of type {ty} of length {np}, but the full pytree has a subtree of the same type but of length {nf}.",
                head(&format!("different lengths of {ty}"))
            )));
        }
    } else if np != nf {
        return children_error(
            i,
            &pl,
            &fl,
            &head("different numbers of pytree children"),
            prefix,
            name,
        )
        .map(Some);
    }
    let (mp, mf) = (metadata(&pl), metadata(&fl));
    let eq = i.compare(&rustpython_parser::ast::CmpOp::Eq, &mp, &mf)?;
    if !i.truth(&eq, "==")? {
        let (sp, sf) = (i.str(&mp)?, i.str(&mf)?);
        return Ok(Some(err!(
            ValueError,
            "{}At that key path, the prefix pytree {name} has a subtree of type\n    {}\nwith metadata\n    {sp}\nbut at the same key path the full pytree has a subtree of the same type but with metadata\n    {sf}\nso the diff in the metadata at these pytree nodes is\n{}",
            head("different pytree metadata"),
            type_repr(prefix),
            indent(&ndiff(&sp, &sf))
        )));
    }
    for ((k, p), (_, f)) in pl.children.into_iter().zip(fl.children) {
        path.push(k);
        let found = walk(i, path, &p, &f, None, name)?;
        path.pop();
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

fn children_error(
    i: &mut Interp,
    pl: &Level,
    fl: &Level,
    head: &str,
    prefix: &Obj,
    name: &str,
) -> Result<Error> {
    let mut names = |l: &Level| -> Result<Vec<String>> {
        l.children.iter().map(|(k, _)| key_name(i, k)).collect()
    };
    let (kp, kf) = (names(pl)?, names(fl)?);
    let diff: Vec<&String> = kp
        .iter()
        .filter(|k| !kf.contains(k))
        .chain(kf.iter().filter(|k| !kp.contains(k)))
        .collect();
    let diff: Vec<&str> = diff.iter().map(|s| s.as_str()).collect();
    Ok(err!(
        ValueError,
        "{head}At that key path, the prefix pytree {name} has a subtree of type\n    {}\nwith {} child keys\n    {}\nbut at the same key path the full pytree has a subtree of the same type but with {} child keys\n    {}\nso the symmetric difference on key sets is\n    {}",
        type_repr(prefix),
        kp.len(),
        kp.join(" "),
        kf.len(),
        kf.join(" "),
        diff.join(" ")
    ))
}

/// `textwrap.indent(text, "    ")`: lines with text get the prefix.
fn indent(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|l| {
            if l.trim().is_empty() {
                l.to_string()
            } else {
                format!("    {l}")
            }
        })
        .collect()
}

/// `"\n".join(difflib.ndiff(a.splitlines(), b.splitlines()))` for texts
/// that differ: single lines similar enough get `?` guide lines, as
/// difflib's fancy replacement gives them; otherwise every line of `a` is
/// removed and every line of `b` added.
fn ndiff(a: &str, b: &str) -> String {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    if let ([x], [y]) = (la.as_slice(), lb.as_slice()) {
        let (ca, cb): (Vec<char>, Vec<char>) = (x.chars().collect(), y.chars().collect());
        let blocks = matching_blocks(&ca, &cb);
        let m: usize = blocks.iter().map(|b| b.2).sum();
        let ratio = 2.0 * m as f64 / (ca.len() + cb.len()).max(1) as f64;
        if ratio > 0.75 {
            return fancy(x, y, &ca, &cb, &blocks);
        }
    }
    let mut out: Vec<String> = la.iter().map(|l| format!("- {l}")).collect();
    out.extend(lb.iter().map(|l| format!("+ {l}")));
    out.join("\n")
}

fn fancy(x: &str, y: &str, ca: &[char], cb: &[char], blocks: &[(usize, usize, usize)]) -> String {
    let (mut atags, mut btags) = (String::new(), String::new());
    let (mut i, mut j) = (0, 0);
    for &(bi, bj, n) in blocks {
        let (da, db) = (bi - i, bj - j);
        let (ta, tb) = match (da > 0, db > 0) {
            (true, true) => ('^', '^'),
            (true, false) => ('-', ' '),
            (false, true) => (' ', '+'),
            (false, false) => (' ', ' '),
        };
        atags.extend(std::iter::repeat_n(ta, da));
        btags.extend(std::iter::repeat_n(tb, db));
        atags.extend(std::iter::repeat_n(' ', n));
        btags.extend(std::iter::repeat_n(' ', n));
        (i, j) = (bi + n, bj + n);
    }
    let keep = |s: &[char], tags: &str| -> String {
        s.iter()
            .zip(tags.chars())
            .map(|(c, t)| if t == ' ' && c.is_whitespace() { *c } else { t })
            .collect::<String>()
            .trim_end()
            .to_string()
    };
    let (qa, qb) = (keep(ca, &atags), keep(cb, &btags));
    let mut out = vec![format!("- {x}")];
    if !qa.is_empty() {
        out.push(format!("? {qa}\n"));
    }
    out.push(format!("+ {y}"));
    if !qb.is_empty() {
        out.push(format!("? {qb}\n"));
    }
    out.join("\n")
}

fn is_junk(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// difflib's `find_longest_match` with spaces and tabs as junk in `b`.
fn longest(
    a: &[char],
    b: &[char],
    (alo, ahi, blo, bhi): (usize, usize, usize, usize),
) -> (usize, usize, usize) {
    let (mut bi, mut bj, mut bs) = (alo, blo, 0);
    let mut prev = vec![0usize; b.len() + 1];
    for (i, &ai) in a.iter().enumerate().take(ahi).skip(alo) {
        let mut next = vec![0usize; b.len() + 1];
        for j in blo..bhi {
            if b[j] == ai && !is_junk(b[j]) {
                let k = if j > blo { prev[j] } else { 0 } + 1;
                next[j + 1] = k;
                if k > bs {
                    (bi, bj, bs) = (i + 1 - k, j + 1 - k, k);
                }
            }
        }
        prev = next;
    }
    for junk in [false, true] {
        while bi > alo && bj > blo && is_junk(b[bj - 1]) == junk && a[bi - 1] == b[bj - 1] {
            (bi, bj, bs) = (bi - 1, bj - 1, bs + 1);
        }
        while bi + bs < ahi
            && bj + bs < bhi
            && is_junk(b[bj + bs]) == junk
            && a[bi + bs] == b[bj + bs]
        {
            bs += 1;
        }
    }
    (bi, bj, bs)
}

/// difflib's `get_matching_blocks`, ending with the `(len a, len b, 0)`
/// sentinel.
fn matching_blocks(a: &[char], b: &[char]) -> Vec<(usize, usize, usize)> {
    let mut queue = vec![(0, a.len(), 0, b.len())];
    let mut found = vec![];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = longest(a, b, (alo, ahi, blo, bhi));
        if k > 0 {
            found.push((i, j, k));
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    found.sort();
    let mut merged: Vec<(usize, usize, usize)> = vec![];
    for (i, j, k) in found {
        match merged.last_mut() {
            Some(last) if last.0 + last.2 == i && last.1 + last.2 == j => last.2 += k,
            _ => merged.push((i, j, k)),
        }
    }
    merged.push((a.len(), b.len(), 0));
    merged
}
