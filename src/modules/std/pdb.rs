//! `pdb`: importing it works, so that a program can define a function that
//! would stop in the debugger; stopping is refused by name when it
//! happens (shardlab has no interactive debugger, and a program run
//! without a terminal has no one to type at it).

use crate::modules::Builder;
use crate::python::value::Obj;

/// The functions of `pdb` that enter the debugger.
const ENTRIES: [&str; 5] = ["set_trace", "post_mortem", "pm", "run", "runcall"];

/// The `pdb` module.
pub fn module() -> Obj {
    let mut b = Builder::new("pdb");
    for name in ENTRIES {
        b.func(name, move |_, _| {
            crate::bail!(
                NotImplementedError,
                "not supported by shardlab yet: pdb.{name} (an interactive debugger)"
            )
        });
    }
    b.build()
}
