//! The standard modules where a fixture from real Python cannot check them:
//! what shardlab refuses (files, processes, exiting, unbounded infinite
//! iterators), `XLA_FLAGS` setting the device count, what goes to stderr
//! (warnings, logging's last resort).

use shardlab::program::{run, Options};

/// What a program printed, or its error as `Type: message`.
fn output(source: &str) -> String {
    let out = run(source, &Options::default());
    match out.error {
        Some(e) => format!("{}{}: {}", out.stdout, e.error.type_name(), e.error.message),
        None => out.stdout,
    }
}

#[test]
fn xla_flags_set_the_device_count() {
    let src = "import os\n\
               os.environ['XLA_FLAGS'] = '--xla_force_host_platform_device_count=4'\n\
               import jax\n\
               print(jax.device_count(), len(jax.devices()), jax.local_device_count(), os.cpu_count())\n\
               mesh = jax.make_mesh((2, 2), ('x', 'y'))\n\
               print(mesh.shape)\n";
    let out = output(src);
    assert!(out.starts_with("4 4 4 4\n"), "{out}");
    let too_big = "import os\n\
                   os.environ['XLA_FLAGS'] = '--xla_force_host_platform_device_count=2'\n\
                   import jax\n\
                   jax.make_mesh((2, 2), ('x', 'y'))\n";
    let out = output(too_big);
    assert!(out.starts_with("ValueError: Number of devices 2"), "{out}");
}

#[test]
fn without_xla_flags_the_configured_count_holds() {
    let src = "import os, jax\nprint(jax.device_count(), os.environ.get('XLA_FLAGS'))\n";
    assert_eq!(output(src), "8 None\n");
}

#[test]
fn filesystem_and_process_functions_are_refused() {
    for (src, name) in [
        ("import os\nos.listdir('.')\n", "os.listdir"),
        (
            "import os\nos.makedirs('ckpt', exist_ok=True)\n",
            "os.makedirs",
        ),
        ("import os\nos.system('ls')\n", "os.system"),
        ("import os\nos.path.getsize('x')\n", "os.path.getsize"),
        ("from os import remove\n", "os.remove"),
    ] {
        let out = output(src);
        assert_eq!(
            out,
            format!(
                "NotImplementedError: not supported by shardlab yet: {name} (programs here have no filesystem)"
            )
        );
    }
}

#[test]
fn exit_ends_the_program_and_unbounded_iterators_are_refused() {
    // As in CPython: code 0 or None ends normally, anything else is an
    // uncaught SystemExit whose message is the code.
    assert_eq!(
        output("import sys\nprint('a')\nsys.exit(0)\nprint('b')\n"),
        "a\n"
    );
    assert_eq!(output("import sys\nsys.exit()\n"), "");
    assert_eq!(output("import sys\nsys.exit(3)\n"), "SystemExit: 3");
    assert_eq!(
        output("import sys\ntry:\n    sys.exit(2)\nexcept Exception:\n    print('caught')\n"),
        "SystemExit: 2"
    );
    assert_eq!(
        output("import sys\ntry:\n    sys.exit(2)\nexcept SystemExit as e:\n    print('exit', e.args)\n"),
        "exit (2,)\n"
    );
    // zip draws from an endless iterator lazily, as in Python; collecting
    // one into a list runs into the size limit, as CPython runs out of memory.
    let out = output("import itertools\nfor i, x in zip(itertools.count(), 'ab'):\n    print(i)\n");
    assert_eq!(out, "0\n1\n");
    let out = output("import itertools\nprint(list(itertools.count()))\n");
    assert!(
        out.starts_with("MemoryError: an iterator gave over 10000000 items"),
        "{out}"
    );
    let out = output("import functools\nprint(functools.singledispatch)\n");
    assert_eq!(
        out,
        "NotImplementedError: not supported by shardlab yet: functools.singledispatch"
    );
    let out = output("import math\nprint(math.nosuch)\n");
    assert_eq!(
        out,
        "AttributeError: module 'math' has no attribute 'nosuch'"
    );
}

#[test]
fn math_overflow_is_named() {
    // CPython 3.11: OverflowError: math range error; caught as ArithmeticError.
    assert_eq!(
        output("import math\nmath.exp(1000)\n"),
        "OverflowError: math range error"
    );
    assert_eq!(
        output("import math\ntry:\n    math.exp(1000)\nexcept ArithmeticError as e:\n    print(type(e).__name__, e)\n"),
        "OverflowError math range error\n"
    );
}

#[test]
fn pformat_wraps_at_the_given_width() {
    let src = "import pprint\n\
               dd = {}\n\
               for i in range(12):\n    dd.setdefault('key%d' % (i % 3), []).append(i * 1000)\n\
               print(pprint.pformat(dd, width=40))\n";
    assert_eq!(
        output(src),
        "{'key0': [0, 3000, 6000, 9000],\n 'key1': [1000, 4000, 7000, 10000],\n 'key2': [2000, 5000, 8000, 11000]}\n"
    );
}

#[test]
fn sys_stderr_is_not_program_output() {
    let src = "import sys\nsys.stderr.write('noise\\n')\nsys.stdout.write('kept\\n')\n";
    assert_eq!(output(src), "kept\n");
    let out = run(src, &Options::default());
    assert_eq!(out.stderr, vec![(0, "noise\n".to_string())]);
}

/// A program that warns, and what CPython 3.11.7 with Flax 0.12.8 writes to
/// stderr for it when it is the file /tmp/shardlab_warn.py (`python -u`).
const WARNING_PROGRAM: &str = r#"import warnings
import sys
import jax.numpy as jnp
from flax import nnx


def old_api(x):
    warnings.warn("old_api is deprecated", DeprecationWarning, stacklevel=2)
    return x


print("start")
for i in range(3):
    old_api(i)
warnings.warn("plain")
warnings.warn("plain")
warnings.warn(RuntimeWarning("an instance"))
warnings.warn("pending", PendingDeprecationWarning)
print("middle", file=sys.stderr)
p = nnx.Param(jnp.ones(2))
for i in range(2):
    p.value = p.value + 1
print(p[...])
"#;

const WARNING_STDERR: &str = r#"/tmp/shardlab_warn.py:14: DeprecationWarning: old_api is deprecated
  old_api(i)
/tmp/shardlab_warn.py:15: UserWarning: plain
  warnings.warn("plain")
/tmp/shardlab_warn.py:16: UserWarning: plain
  warnings.warn("plain")
/tmp/shardlab_warn.py:17: RuntimeWarning: an instance
  warnings.warn(RuntimeWarning("an instance"))
middle
/tmp/shardlab_warn.py:22: DeprecationWarning: '.value' access is now deprecated. For Variable[Array] instances use:

  variable[...]

For other Variable types use:

  variable.get_value()

  p.value = p.value + 1
"#;

#[test]
fn warnings_are_written_to_stderr_as_cpython_writes_them() {
    let options = Options {
        file: Some("/tmp/shardlab_warn.py".into()),
        ..Options::default()
    };
    let out = run(WARNING_PROGRAM, &options);
    assert!(out.error.is_none(), "{:?}", out.error);
    assert_eq!(out.stdout, "start\n[3. 3.]\n");
    let text: String = out.stderr.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(text, WARNING_STDERR);
    // Each write knows how much had been printed: all came after "start".
    assert!(out.stderr.iter().all(|(at, _)| *at == "start\n".len()));
}

#[test]
fn logging_without_handlers_writes_warnings_to_stderr() {
    let src = "import logging\nlogging.getLogger('x').warning('careful %d', 3)\n\
               logging.getLogger('x').info('quiet')\nprint('done')\n";
    let out = run(src, &Options::default());
    assert_eq!(out.stdout, "done\n");
    let text: String = out.stderr.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(text, "careful 3\n");
}

/// `jax.config.update('jax_num_cpu_devices', n)` before the program asks for
/// its devices, and JAX 0.10.2's errors after and for unknown options (the
/// same program under real JAX prints these lines).
#[test]
fn config_sets_the_cpu_device_count_before_the_devices_are_asked_for() {
    let src = "import jax\n\
               print(jax._src.xla_bridge.backends_are_initialized())\n\
               jax.config.update('jax_num_cpu_devices', 4)\n\
               print(len(jax.devices()), jax._src.xla_bridge.backends_are_initialized())\n\
               try:\n    jax.config.update('jax_num_cpu_devices', 2)\n\
               except RuntimeError as e:\n    print(str(e)[:64])\n\
               jax.config.update('jax_enable_x64', False)\n\
               print(jax.config.jax_enable_x64)\n\
               try:\n    jax.config.update('jax_not_an_option', 1)\n\
               except AttributeError as e:\n    print(e)\n";
    assert_eq!(
        output(src),
        "False\n4 True\njax_num_cpu_devices config should be updated before backends are\nFalse\n\
         Unrecognized config option: jax_not_an_option\n"
    );
    let x64 = "import jax\njax.config.update('jax_enable_x64', True)\n";
    assert_eq!(
        output(x64),
        "NotImplementedError: not supported by shardlab yet: jax.config.update('jax_enable_x64', True)"
    );
}
