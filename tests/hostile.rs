//! Hostile programs through the command line, as a careless or malicious user
//! would run them: deep, huge, cyclic, endless, malformed. Each runs as its
//! own process (`shardlab run --json` with a time and a memory limit), so a
//! stack overflow, an abort, a hang or a memory blow-up fails the test as
//! surely as a panic does. Every run must end in time with exit 0 or 1 (2
//! for a file that cannot be read), one JSON object on stdout and no panic
//! text on stderr; the programs that must fail name their exception.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

#[path = "common/cli.rs"]
mod cli;
use cli::Ran;

fn scratch() -> PathBuf {
    cli::scratch("hostile")
}

fn run_file(file: &Path, args: &[&str]) -> Ran {
    cli::run_file(file, args).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `source` with a 3 s time limit and 2 GiB of memory.
fn run_source(name: &str, source: &str) -> Ran {
    run_limited(name, source, &["--timeout", "3", "--max-memory", "2G"])
}

/// Runs a program that must end on its own long before any time limit,
/// with room for a loaded machine: a 10 s limit (the deadline is 15 s).
fn run_quick(name: &str, source: &str) -> Ran {
    run_limited(name, source, &["--timeout", "10", "--max-memory", "2G"])
}

/// Runs `source` with the given limits.
fn run_limited(name: &str, source: &str, limits: &[&str]) -> Ran {
    cli::run_source(&scratch(), name, source, limits).unwrap_or_else(|e| panic!("{e}"))
}

/// Checks what every run must do, and returns the exception's type, if any.
fn check(name: &str, ran: &Ran) -> Option<String> {
    cli::verdict(name, ran).unwrap_or_else(|e| panic!("{e}"))
}

/// Programs that must end with the exception named.
fn failing() -> Vec<(&'static str, String, &'static str)> {
    let mut v: Vec<(&'static str, String, &'static str)> = vec![
        ("chr_high", "print(chr(0x110000))".into(), "ValueError"),
        ("chr_negative", "print(chr(-1))".into(), "ValueError"),
        (
            "unhashable_key",
            "d = {}\nd[[1, 2]] = 3\nprint(d)".into(),
            "TypeError",
        ),
        ("del_undefined", "del undefined".into(), "NameError"),
        (
            "own_exception",
            "class MyErr(Exception):\n    pass\nraise MyErr('boom')".into(),
            "MyErr",
        ),
        (
            "unclosed_bracket",
            "x = 1\ny = foo(1,\n  2\nz = 3\n".into(),
            "SyntaxError",
        ),
        ("unmatched_bracket", "x = (1))\n".into(), "SyntaxError"),
    ];
    v.extend(limits());
    v.extend(deep());
    v
}

/// Programs nested deeper than the interpreter's stack allows.
fn deep() -> Vec<(&'static str, String, &'static str)> {
    let terms = vec!["1"; 5000].join("+");
    vec![
        (
            "long_sum",
            format!("x = {terms}\nprint(x)"),
            "RecursionError",
        ),
        (
            "deep_brackets",
            format!("x = {}{}\nprint(x)", "[".repeat(5000), "]".repeat(5000)),
            "SyntaxError",
        ),
        (
            "chained_transposes",
            format!(
                "import jax.numpy as jnp\nx = jnp.ones((2, 3))\ny = x{}\nprint(y.shape)",
                ".T".repeat(100_000)
            ),
            "RecursionError",
        ),
        (
            "chained_minus",
            format!("x = {}1\nprint(x)", "-".repeat(100_000)),
            "RecursionError",
        ),
        (
            "built_deep",
            "x = []\nfor i in range(1000000):\n    x = [x]\nprint(x)".into(),
            "RecursionError",
        ),
        (
            "endless_recursion",
            "def f(n):\n    return f(n + 1)\nf(0)".into(),
            "RecursionError",
        ),
        (
            "recursive_repr",
            "class A:\n    def __repr__(self):\n        return repr([self])\nprint(A())".into(),
            "RecursionError",
        ),
        (
            "cyclic_compare",
            "a = []\na.append(a)\nb = []\nb.append(b)\nprint(a == b)".into(),
            "RecursionError",
        ),
        (
            "cyclic_order",
            "a = []\na.append(a)\nb = []\nb.append(b)\nprint(a < b)".into(),
            "RecursionError",
        ),
        (
            "cyclic_result",
            "x = []\nx.append(x)\nresult = x".into(),
            "RecursionError",
        ),
        (
            "cyclic_pytree",
            "import jax\nx = []\nx.append(x)\nprint(jax.tree_util.tree_leaves(x))".into(),
            "RecursionError",
        ),
        (
            "generator_recursion",
            "def g():\n    yield from g()\nprint(list(g()))".into(),
            "RecursionError",
        ),
        (
            // 195 calls deep is fine, but the 1560 nested lists they make
            // pass Python's recursion limit when printed.
            "recursion_with_deeper_lists",
            "def f(n):\n    return [[[[[[[[f(n+1)]]]]]]]] if n < 195 else n\nprint(len(str(f(0))))"
                .into(),
            "RecursionError",
        ),
        (
            "repr_past_the_limit",
            "x = 0\nfor i in range(998):\n    x = [x]\nprint(len(str(x)))".into(),
            "RecursionError",
        ),
        (
            "huge_format_width",
            "print(f'{1:>99999999999}')".into(),
            "MemoryError",
        ),
    ]
}

/// Programs that must run to the end, with what they print.
fn passing() -> Vec<(&'static str, String, &'static str)> {
    vec![
        (
            "cyclic_containers",
            "x = []\nx.append(x)\nprint(x)\nd = {'a': 1}\nd['d'] = d\nl = [d]\nd['l'] = l\nprint(d, l)\nprint(x == x)".into(),
            "[[...]]\n{'a': 1, 'd': {...}, 'l': [{...}]} [{'a': 1, 'd': {...}, 'l': [...]}]\nTrue\n",
        ),
        (
            "huge_repeats",
            "print(len([] * 2**62), len('' * 2**62), len(() * 2**62))\ntry:\n    'ab' * 2**40\nexcept MemoryError as e:\n    print('MemoryError')".into(),
            "0 0 0\nMemoryError\n",
        ),
        (
            "cyclic_sorted",
            "x = []\nx.append(x)\nprint(sorted([x, x]), x < x, x <= x)".into(),
            "[[[...]], [[...]]] False True\n",
        ),
        (
            "recursion_with_nested_lists",
            "def f(n):\n    return [[[[[[[[f(n+1)]]]]]]]] if n < 100 else n\nprint(len(str(f(0))))".into(),
            "1603\n",
        ),
        (
            // Python prints 997 nested lists from module level.
            "repr_at_the_limit",
            "x = 0\nfor i in range(997):\n    x = [x]\nprint(len(str(x)))".into(),
            "1995\n",
        ),
        (
            "huge_precision",
            "s = f'{1.5:.70000f}'\nprint(len(s), s[:4])\nt = f'{2.5:.70000e}'\nprint(len(t), t[-4:])\nprint(round(1.5, 70000), round(2.5, -70000), round(125.0, -1))".into(),
            "70002 1.50\n70006 e+00\n1.5 0.0 120.0\n",
        ),
        (
            // Each write to stderr costs the same however many came before.
            "many_stderr_writes",
            "import sys\nfor i in range(300000):\n    print(i, file=sys.stderr)\nprint('done')".into(),
            "done\n",
        ),
    ]
}

#[test]
fn hostile_programs_that_run_print_what_python_prints() {
    for (name, source, want) in passing() {
        let ran = run_quick(name, &source);
        assert_eq!(check(name, &ran), None, "{name}: {}", ran.json);
        assert_eq!(ran.json["stdout"], want, "{name}");
    }
}

/// Programs that run into the time, memory, size or depth limits.
fn limits() -> Vec<(&'static str, String, &'static str)> {
    let jnp = |body: &str| format!("import jax\nimport jax.numpy as jnp\n{body}\n");
    vec![
        (
            "overflowing_matmul",
            jnp("x = jnp.ones((2**33, 2**31))\nprint((x @ x.T).shape)"),
            "MemoryError",
        ),
        (
            "overflowing_zeros",
            jnp("x = jnp.zeros((2**40, 2**40))\nprint(x[0, 0])\nprint(x.sum())"),
            "MemoryError",
        ),
        (
            "huge_outer",
            jnp("a = jnp.ones((20000,))\nprint(jnp.outer(a, a).shape)"),
            "MemoryError",
        ),
        (
            "huge_broadcast",
            jnp("a = jnp.ones((100000, 1))\nb = jnp.ones((1, 100000))\nprint((a + b).shape)"),
            "MemoryError",
        ),
        (
            "huge_concatenate",
            jnp("a = jnp.ones((2**26,))\nb = jnp.concatenate([a, a, a])"),
            "MemoryError",
        ),
        (
            "overflowing_empty",
            jnp("x = jnp.ones((2**32, 2**32, 0))\nprint(x.reshape(-1).shape)"),
            "ValueError",
        ),
        (
            "huge_gather",
            jnp("x = jax.device_put(jnp.ones((2**24,)), jax.sharding.NamedSharding(jax.make_mesh((8,), ('i',)), jax.sharding.PartitionSpec('i')))\n@jax.jit\ndef f(x):\n    return jnp.outer(x, x)\nprint(f(x).shape)"),
            "MemoryError",
        ),
    ]
}

#[test]
fn hostile_programs_fail_cleanly() {
    for (name, source, want) in failing() {
        let ran = run_quick(name, &source);
        let got = check(name, &ran);
        assert_eq!(
            got.as_deref(),
            Some(want),
            "{name}: {} (took {:?})",
            ran.json,
            ran.took
        );
    }
}

/// Programs that run into the time and memory limits.
fn runaways() -> Vec<(&'static str, String, &'static str)> {
    vec![
        (
            "slow_loop",
            "import jax.numpy as jnp\nprint('start')\nx = jnp.ones((600, 600))\nwhile True:\n    x = jnp.tanh(x @ x)".into(),
            "TimeoutError",
        ),
        (
            "endless_fori_loop",
            "import jax\nprint('start')\njax.lax.fori_loop(0, 10**12, lambda i, x: x + 1, 0)".into(),
            "TimeoutError",
        ),
        (
            "endless_while_loop",
            "import jax\nprint('start')\njax.lax.while_loop(lambda x: True, lambda x: x + 1, 0)".into(),
            "TimeoutError",
        ),
        (
            "endless_map_on_devices",
            "import jax, jax.numpy as jnp\nfrom jax.sharding import PartitionSpec as P, NamedSharding\nmesh = jax.make_mesh((8,), ('i',))\ndef f(x):\n    return jax.lax.while_loop(lambda v: v[0, 0] > -1.0, lambda v: jnp.tanh(v @ jnp.ones((256, 256))), x)\nprint('start')\nx = jax.device_put(jnp.ones((8 * 256, 256)), NamedSharding(mesh, P('i')))\ny = jax.shard_map(f, mesh=mesh, in_specs=P('i'), out_specs=P('i'))(x)".into(),
            "TimeoutError",
        ),
        (
            "string_doubling",
            "s = 'x'\nprint('start')\nwhile True:\n    s = s + s".into(),
            "MemoryError",
        ),
        (
            "list_doubling",
            "l = [1]\nprint('start')\nwhile True:\n    l = l + l".into(),
            "MemoryError",
        ),
        (
            "many_arrays",
            "import jax.numpy as jnp\nprint('start')\nxs = []\nfor i in range(100):\n    xs.append(jnp.ones((2**27,)) * i)".into(),
            "MemoryError",
        ),
    ]
}

#[test]
fn runaways_stop_at_their_limits_keeping_the_output() {
    for (name, source, want) in runaways() {
        // A program that outgrows memory is given time enough to reach the
        // limit on a loaded machine, so that it is the memory limit that
        // stops it; the others run into the time limit.
        let ran = if want == "MemoryError" {
            run_limited(name, &source, &["--timeout", "12", "--max-memory", "1G"])
        } else {
            run_source(name, &source)
        };
        let got = check(name, &ran);
        assert_eq!(got.as_deref(), Some(want), "{name}: {}", ran.json);
        assert_eq!(ran.json["stdout"], "start\n", "{name}");
        assert!(
            ran.json["error"]["line"].as_u64() > Some(0),
            "{name}: {}",
            ran.json
        );
        assert!(
            ran.took < Duration::from_secs(15),
            "{name} took {:?}",
            ran.took
        );
    }
}

#[test]
fn a_run_abandoned_in_one_long_step_keeps_its_output() {
    // One matmul of two 10000x10000 arrays (2e12 flops, half a minute here)
    // takes far longer than the limit and its grace: the run is abandoned
    // inside it, not stopped at a check. The limit leaves the statement
    // before it, which makes the operands, time on a loaded machine.
    let source = "import jax.numpy as jnp\nprint('start')\nx = jnp.ones((10000, 10000))\ny = x @ x\nprint('end')";
    let ran = run_limited("one_long_step", source, &["--timeout", "3"]);
    assert_eq!(
        check("one_long_step", &ran).as_deref(),
        Some("TimeoutError"),
        "{}",
        ran.json
    );
    assert_eq!(ran.json["stdout"], "start\n", "{}", ran.json);
    // The error names the statement the run was stuck in.
    let e = &ran.json["error"];
    assert_eq!(
        (e["line"].as_u64(), e["col"].as_u64()),
        (Some(4), Some(1)),
        "{e}"
    );
    assert!(ran.took < Duration::from_secs(15), "took {:?}", ran.took);
}

#[test]
fn a_device_stuck_in_a_map_is_named_in_every_mode() {
    // Device 5 of a 2x4 mesh never leaves its while loop (line 8); the
    // others do at once. Whichever way the map runs, the error names the
    // device, its mesh coordinates and the body's line.
    let source = "import jax, jax.numpy as jnp, numpy as np\nfrom jax.sharding import PartitionSpec as P\n\nmesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(2, 4), ('x', 'y'))\n\ndef body(v):\n    i = jax.lax.axis_index(('x', 'y'))\n    return jax.lax.while_loop(lambda c: (i == 5) | (c[0, 0] > 1e9), lambda c: c + 1.0, v)\n\nprint('start')\ny = jax.shard_map(body, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'))(jnp.ones((4, 8)))\nprint(y.sum())\n";
    for mode in ["--lockstep", "--parallel", "--devices"] {
        let mut limits = vec!["--timeout", "3", "--max-memory", "2G", mode];
        if mode == "--devices" {
            limits.push("8");
        }
        let ran = run_limited("stuck_device", source, &limits);
        let e = &ran.json["error"];
        assert_eq!(
            check("stuck_device", &ran).as_deref(),
            Some("TimeoutError"),
            "{mode}: {e}"
        );
        let message = e["message"].as_str().unwrap_or_default();
        assert!(message.contains("device 5 (x=1, y=1)"), "{mode}: {message}");
        assert!(message.contains("line 8)"), "{mode}: {message}");
        assert_eq!(e["line"].as_u64(), Some(11), "{mode}: {e}");
        assert_eq!(ran.json["stdout"], "start\n", "{mode}");
    }
}

#[test]
fn device_count_is_capped() {
    let file = scratch().join("devices.py");
    std::fs::write(&file, "print(1)\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_shardlab"))
        .args(["run", "--devices", "100000", "--parallel"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("from 1 to 64"));
    // With --json, one object on stdout says so too.
    let ran = run_file(&file, &["--devices", "100000", "--parallel"]);
    assert_eq!(ran.code, 2);
    assert_eq!(ran.json["error"]["type"], "UsageError", "{}", ran.json);
    assert!(
        ran.json["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("from 1 to 64")),
        "{}",
        ran.json
    );
}

#[test]
fn syntax_errors_point_where_python_does() {
    let ran = run_source("unclosed_at", "x = 1\ny = foo(1,\n  2\nz = 3\n");
    let e = &ran.json["error"];
    assert_eq!(e["message"], "'(' was never closed");
    assert_eq!((e["line"].as_u64(), e["col"].as_u64()), (Some(2), Some(8)));
}

/// `"\N{...}"` escapes: names and aliases in any case read as Python reads
/// them; an unknown name is Python 3.11's SyntaxError, which counts the bytes
/// of the literal from its first character and points at the token after the
/// literal (line, col and message as Python 3.11's `compile()` reports them).
#[test]
fn unicode_name_escapes_read_and_fail_as_in_python() {
    let ran = run_source(
        "names_known",
        "print('\\N{greek small letter alpha}\\N{LATIN CAPITAL LETTER GHA}')\n",
    );
    assert_eq!(ran.code, 0, "{}", ran.json);
    assert_eq!(ran.json["stdout"], "\u{3b1}\u{1a2}\n");
    let cases = [
        ("x = '\\N{NOPE}'\n", 0, 7, (1, 15)),
        ("x = \"\"\"ab\\N{NOPE} c\"\"\"\n", 2, 9, (1, 23)),
        (
            "y = 1\nx = 'ok' + 'a\\N{NOT A NAME}'  # c\n",
            1,
            14,
            (2, 31),
        ),
    ];
    for (i, (source, from, to, at)) in cases.into_iter().enumerate() {
        let ran = run_source(&format!("names_unknown{i}"), source);
        let e = &ran.json["error"];
        assert_eq!(e["type"], "SyntaxError", "{source}: {e}");
        let message = format!(
            "(unicode error) 'unicodeescape' codec can't decode bytes in position \
             {from}-{to}: unknown Unicode character name"
        );
        assert_eq!(e["message"], message.as_str(), "{source}");
        assert_eq!(
            (e["line"].as_u64(), e["col"].as_u64()),
            (Some(at.0), Some(at.1)),
            "{source}"
        );
    }
}

#[test]
fn unreadable_files_give_json_and_exit_2() {
    let dir = scratch();
    let latin = dir.join("latin1.py");
    std::fs::write(&latin, b"print('caf\xe9')\n").unwrap();
    let garbage = dir.join("garbage.py");
    std::fs::write(&garbage, [0xffu8, 0xfe, 0, 0x80, 0x81]).unwrap();
    let folder = dir.join("folder.py");
    std::fs::create_dir_all(&folder).unwrap();
    let missing = dir.join("missing.py");
    for file in [latin, garbage, folder, missing] {
        let ran = run_file(&file, &[]);
        assert_eq!(ran.code, 2, "{}", file.display());
        assert!(ran.json["error"]["message"].is_string(), "{}", ran.json);
    }
}
