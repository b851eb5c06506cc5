//! The `sys` module: the interpreter's version and limits, `argv`,
//! `stdout.write` (into the program's output) and the recursion limit.
//! `sys.exit(code)` raises `SystemExit`; a program that ends with code 0
//! or None ends normally.

use crate::bail;
use crate::error::Result;
use crate::python::depth;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::record::Record;
use super::refuse;

/// The CPython the fixtures were recorded with.
const VERSION: &str = "3.11.7 (main, May  9 2026, 07:35:25) [GCC 12.2.0]";

/// The `sys` module.
pub fn module() -> Obj {
    let mut b = Builder::new("sys");
    b.attr("version", Obj::str(VERSION))
        .attr(
            "version_info",
            Obj::tuple(vec![
                Obj::Int(3),
                Obj::Int(11),
                Obj::Int(7),
                Obj::str("final"),
                Obj::Int(0),
            ]),
        )
        .attr("hexversion", Obj::Int(0x030b07f0))
        .attr("platform", Obj::str("linux"))
        .attr("byteorder", Obj::str("little"))
        .attr("argv", Obj::list(vec![Obj::str("prog.py")]))
        .attr("maxsize", Obj::Int(i64::MAX))
        .attr("float_info", float_info())
        .attr("stdout", Obj::lib(Stream { stdout: true }))
        .attr("stderr", Obj::lib(Stream { stdout: false }))
        .func("exit", |i, a| {
            let class = i
                .builtins
                .get("SystemExit")
                .cloned()
                .ok_or_else(|| refuse("sys.exit"))?;
            let exc = i.call(&class, Args::new(a.pos.clone()))?;
            Err(i.raise(exc)?)
        })
        .func("getrecursionlimit", |_, _| {
            Ok(Obj::Int(depth::python_limit() as i64))
        })
        .func("setrecursionlimit", |i, a| {
            let n =
                crate::python::builtins::to_int(&a.req(Some(0), "limit", "setrecursionlimit")?)?;
            if n < 1 {
                bail!(
                    ValueError,
                    "recursion limit must be greater or equal than 1"
                );
            }
            // CPython counts the module's frame and this call.
            let running = i.depth as i64 + 2;
            if n <= running {
                bail!(
                    RecursionError,
                    "cannot set the recursion limit to {n} at the recursion depth {running}: \
                     the limit is too low"
                );
            }
            // Past the native stack's bound, deep recursion still ends in
            // RecursionError, only sooner than CPython's would.
            depth::set_python_limit(usize::try_from(n).unwrap_or(usize::MAX));
            Ok(Obj::None)
        })
        .func("getdefaultencoding", |_, _| Ok(Obj::str("utf-8")));
    b.build()
}

fn float_info() -> Obj {
    let mut r = Record::new(
        "float_info",
        vec![
            ("max", Obj::Float(f64::MAX)),
            ("max_exp", Obj::Int(f64::MAX_EXP as i64)),
            ("max_10_exp", Obj::Int(f64::MAX_10_EXP as i64)),
            ("min", Obj::Float(f64::MIN_POSITIVE)),
            ("min_exp", Obj::Int(f64::MIN_EXP as i64)),
            ("min_10_exp", Obj::Int(f64::MIN_10_EXP as i64)),
            ("dig", Obj::Int(f64::DIGITS as i64)),
            ("mant_dig", Obj::Int(f64::MANTISSA_DIGITS as i64)),
            ("epsilon", Obj::Float(f64::EPSILON)),
            ("radix", Obj::Int(f64::RADIX as i64)),
            ("rounds", Obj::Int(1)),
        ],
    );
    r.repr_name = "sys.float_info".into();
    Obj::lib(r)
}

/// `sys.stdout` (writes join the program's output) or `sys.stderr`
/// (writes join the run's stderr).
struct Stream {
    stdout: bool,
}

fn write(interp: &mut Interp, stdout: bool, a: Args) -> Result<Obj> {
    let s = match a.req(Some(0), "s", "write")? {
        Obj::Str(s) => s,
        o => bail!(
            TypeError,
            "write() argument must be str, not {}",
            o.type_name()
        ),
    };
    if stdout {
        if interp.out.len() + s.len() > 64 << 20 {
            bail!(RuntimeError, "program exceeded the output limit of 64 MiB");
        }
        interp.out.push_str(&s);
    } else {
        interp.write_stderr(&s)?;
    }
    Ok(Obj::Int(s.chars().count() as i64))
}

impl Object for Stream {
    fn type_name(&self) -> String {
        "TextIOWrapper".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let stdout = self.stdout;
        let which = if stdout { "stdout" } else { "stderr" };
        Ok(match name {
            "write" => Some(Obj::native("write", move |i, a| write(i, stdout, a))),
            "writelines" => Some(Obj::native("writelines", move |i, a| {
                for line in crate::python::ops::iterate(&a.req(Some(0), "lines", "writelines")?)? {
                    write(i, stdout, Args::new(vec![line]))?;
                }
                Ok(Obj::None)
            })),
            "flush" => Some(Obj::native("flush", |_, _| Ok(Obj::None))),
            "isatty" => Some(Obj::native("isatty", |_, _| Ok(Obj::Bool(false)))),
            "encoding" => Some(Obj::str("utf-8")),
            "name" => Some(Obj::str(format!("<{which}>"))),
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let which = if self.stdout { "stdout" } else { "stderr" };
        Some(format!(
            "<_io.TextIOWrapper name='<{which}>' mode='w' encoding='utf-8'>"
        ))
    }
}
