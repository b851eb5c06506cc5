//! The `os` module as a program without a filesystem sees it: `environ` (a
//! dict the program may read and change, empty at start), `getenv`,
//! `os.path`'s string functions, `cpu_count` and `getcwd`. Everything that
//! would touch files or processes is refused.
//!
//! `os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=N"`
//! sets the number of devices JAX reports, as in JAX (see
//! [`forced_device_count`]).

use std::cell::RefCell;
use std::rc::Rc;

use crate::bail;
use crate::error::{Error, Result};
use crate::python::interp::Interp;
use crate::python::value::{Args, Dict, Obj};

use super::super::Builder;
use super::refuse;

/// The refusal of a filesystem or process function such as `os.listdir`.
pub fn refusal(name: &str) -> Error {
    refuse(&format!("{name} (programs here have no filesystem)"))
}

/// True for a dotted name inside `os` that is not a module (`os.listdir`,
/// as `from os import listdir` asks for it once the attribute is missing).
pub fn is_os_name(name: &str) -> bool {
    name.starts_with("os.") && name != "os.path"
}

/// The `os` module.
pub fn module(interp: &mut Interp) -> Result<Obj> {
    let path = interp.import("os.path")?;
    let environ = Obj::Dict(Rc::new(RefCell::new(Dict::default())));
    let env = environ.clone();
    let mut b = Builder::new("os");
    b.attr("environ", environ)
        .attr("path", path)
        .attr("name", Obj::str("posix"))
        .attr("sep", Obj::str("/"))
        .attr("altsep", Obj::None)
        .attr("extsep", Obj::str("."))
        .attr("pathsep", Obj::str(":"))
        .attr("linesep", Obj::str("\n"))
        .attr("curdir", Obj::str("."))
        .attr("pardir", Obj::str(".."))
        .attr("devnull", Obj::str("/dev/null"))
        .func("getenv", move |_, a| {
            let key = a.req(Some(0), "key", "getenv")?;
            if !matches!(key, Obj::Str(_)) {
                bail!(TypeError, "str expected, not {}", key.type_name());
            }
            let found = match &env {
                Obj::Dict(d) => d.borrow().get(&key),
                _ => None,
            };
            Ok(found.unwrap_or_else(|| a.get(Some(1), "default").unwrap_or(Obj::None)))
        })
        .func("cpu_count", |i, _| {
            Ok(Obj::Int(crate::modules::jax::device_count(i) as i64))
        })
        .func("getcwd", |_, _| Ok(Obj::str("/")))
        .func("fspath", |_, a| {
            let p = a.req(Some(0), "path", "fspath")?;
            path_str(&p)?;
            Ok(p)
        });
    Ok(b.build())
}

/// The device count `XLA_FLAGS` asks for in the program's `os.environ`
/// (`--xla_force_host_platform_device_count=N`), if the program imported
/// `os` and set it.
pub fn forced_device_count(interp: &Interp) -> Option<usize> {
    let Some(Obj::Module(os)) = interp.modules.get("os") else {
        return None;
    };
    let Some(Obj::Dict(env)) = os.get("environ") else {
        return None;
    };
    let flags = env.borrow().get(&Obj::str("XLA_FLAGS"))?;
    let Obj::Str(flags) = flags else {
        return None;
    };
    flags
        .split_whitespace()
        .rev()
        .find_map(|f| f.strip_prefix("--xla_force_host_platform_device_count="))
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&n| n > 0)
}

/// A path argument as a string, with CPython's error for anything else.
fn path_str(o: &Obj) -> Result<String> {
    match o {
        Obj::Str(s) => Ok(s.to_string()),
        other => bail!(
            TypeError,
            "expected str, bytes or os.PathLike object, not {}",
            other.type_name()
        ),
    }
}

fn one(a: &Args, func: &str) -> Result<String> {
    path_str(&a.req(Some(0), "p", func)?)
}

/// `os.path.join(a, *p)`.
fn join(parts: &[Obj]) -> Result<String> {
    let Some((first, rest)) = parts.split_first() else {
        bail!(
            TypeError,
            "join() missing 1 required positional argument: 'a'"
        );
    };
    let mut path = path_str(first)?;
    for p in rest {
        let p = path_str(p)?;
        if p.starts_with('/') {
            path = p;
        } else if path.is_empty() || path.ends_with('/') {
            path.push_str(&p);
        } else {
            path.push('/');
            path.push_str(&p);
        }
    }
    Ok(path)
}

/// `os.path.split(p)`: the head (without trailing slashes unless all
/// slashes) and the tail.
fn split(p: &str) -> (String, String) {
    let i = p.rfind('/').map(|i| i + 1).unwrap_or(0);
    let (head, tail) = p.split_at(i);
    let head = if !head.is_empty() && head.chars().any(|c| c != '/') {
        head.trim_end_matches('/')
    } else {
        head
    };
    (head.to_string(), tail.to_string())
}

/// `os.path.splitext(p)`: the extension starts at the last dot of the last
/// component, unless that component is all dots before it.
fn splitext(p: &str) -> (String, String) {
    let sep = p.rfind('/').map(|i| i as i64).unwrap_or(-1);
    if let Some(dot) = p.rfind('.') {
        if dot as i64 > sep {
            let name_start = (sep + 1) as usize;
            if p[name_start..dot].chars().any(|c| c != '.') {
                return (p[..dot].to_string(), p[dot..].to_string());
            }
        }
    }
    (p.to_string(), String::new())
}

/// `os.path.normpath(p)`.
fn normpath(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let slashes = if p.starts_with("//") && !p.starts_with("///") {
        2
    } else {
        p.starts_with('/') as usize
    };
    let mut comps: Vec<&str> = vec![];
    for c in p.split('/') {
        if c.is_empty() || c == "." {
            continue;
        }
        if c != ".." || (slashes == 0 && comps.is_empty()) || comps.last() == Some(&"..") {
            comps.push(c);
        } else if !comps.is_empty() {
            comps.pop();
        }
    }
    let out = format!("{}{}", "/".repeat(slashes), comps.join("/"));
    if out.is_empty() {
        ".".into()
    } else {
        out
    }
}

fn pair(a: String, b: String) -> Obj {
    Obj::tuple(vec![Obj::str(a), Obj::str(b)])
}

/// `os.path`: string operations on POSIX paths; of the filesystem queries,
/// only the root (the working directory) exists.
pub fn path_module() -> Obj {
    let mut b = Builder::new("os.path");
    b.attr("sep", Obj::str("/"))
        .func("join", |_, a| Ok(Obj::str(join(&a.pos)?)))
        .func("split", |_, a| {
            let (h, t) = split(&one(&a, "split")?);
            Ok(pair(h, t))
        })
        .func("basename", |_, a| {
            Ok(Obj::str(split(&one(&a, "basename")?).1))
        })
        .func("dirname", |_, a| {
            Ok(Obj::str(split(&one(&a, "dirname")?).0))
        })
        .func("splitext", |_, a| {
            let (r, e) = splitext(&one(&a, "splitext")?);
            Ok(pair(r, e))
        })
        .func("normpath", |_, a| {
            Ok(Obj::str(normpath(&one(&a, "normpath")?)))
        })
        .func("abspath", |_, a| {
            Ok(Obj::str(normpath(&join(&[
                Obj::str("/"),
                Obj::str(one(&a, "abspath")?),
            ])?)))
        })
        .func("isabs", |_, a| {
            Ok(Obj::Bool(one(&a, "isabs")?.starts_with('/')))
        });
    for name in ["exists", "isdir", "lexists"] {
        b.func(name, move |_, a| {
            let p = one(&a, name)?;
            let abs = normpath(&join(&[Obj::str("/"), Obj::str(&p)])?);
            Ok(Obj::Bool(!p.is_empty() && abs == "/"))
        });
    }
    for name in ["isfile", "islink"] {
        b.func(name, move |_, a| {
            one(&a, name)?;
            Ok(Obj::Bool(false))
        });
    }
    b.build()
}
