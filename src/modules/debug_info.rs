//! How a traced Python function names itself in JAX's error messages: its
//! name with the file and line it starts on, and the names of its flat
//! arguments (each parameter's name, then the key path of the leaf). A
//! transformation hands these to its trace frame (see
//! `crate::trace::set_debug_info`) so that a tracer Python needs the value of
//! can say which function, and which arguments, it came from.

use crate::python::pytree::TreeDef;
use crate::python::value::Obj;
use crate::trace::DebugInfo;

/// `f at /path/prog.py:12` for a function defined in the program (the line of
/// its `def`, or of its first decorator), else `name`.
pub fn source_info(fun: &Obj, name: &str) -> String {
    match fun {
        Obj::Func(f) => format!(
            "{} at {}:{}",
            f.name,
            crate::trace::program_file(),
            f.first_line
        ),
        _ => name.to_string(),
    }
}

/// The names of the leaves of `args_def`, a tuple of `fun`'s positional
/// arguments: `c`, `x['w']`, `s[1]` (`args[i]` past the named parameters).
pub fn arg_names(fun: &Obj, args_def: &TreeDef) -> Vec<String> {
    let params: Vec<String> = match fun {
        Obj::Func(f) => f
            .params
            .posonlyargs
            .iter()
            .chain(&f.params.args)
            .map(|a| a.def.arg.as_str().to_string())
            .collect(),
        _ => vec![],
    };
    let TreeDef::Tuple(parts) = args_def else {
        return vec![];
    };
    parts
        .iter()
        .enumerate()
        .flat_map(|(i, d)| {
            let base = params
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("args[{i}]"));
            d.leaf_paths(&base)
        })
        .collect()
}

/// The debug info of `fun` traced for `traced_for` on arguments `args_def`.
pub fn of(fun: &Obj, args_def: &TreeDef, traced_for: &'static str) -> DebugInfo {
    DebugInfo {
        func_src_info: source_info(fun, &fun_name(fun)),
        traced_for,
        arg_names: arg_names(fun, args_def),
    }
}

fn fun_name(fun: &Obj) -> String {
    match fun {
        Obj::Func(f) => f.name.clone(),
        _ => "<unknown>".to_string(),
    }
}
