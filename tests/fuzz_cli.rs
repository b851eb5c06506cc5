//! The command line under generated hostile programs, each run as its own
//! process (`shardlab run --json --timeout 3 --max-memory 1G`): programs
//! edited from the suite, and programs built to be deep, huge, cyclic,
//! extreme in their numbers or endless. Whatever the program, the run must
//! end within [`cli::DEADLINE`] with exit 0 or 1, one JSON object on stdout
//! and no panic text, which catches stack overflows, aborts, hangs and
//! memory blow-ups as well as panics.
//!
//! Each property runs 40 cases from a fixed seed by default;
//! `SHARDLAB_FUZZ_CASES=N` runs N, `SHARDLAB_FUZZ_SEED=random` (or a number)
//! draws others, and `SHARDLAB_FUZZ_LOG=FILE` records how each case ended
//! (see the README for a long run's figures).

use proptest::prelude::*;
use proptest::test_runner::RngSeed;

#[path = "common/cli.rs"]
mod cli;
#[path = "common/mutate.rs"]
mod mutate;

/// The cases: 40 per property unless `SHARDLAB_FUZZ_CASES` says, drawn
/// from a fixed seed unless `SHARDLAB_FUZZ_SEED` gives another (a number, or
/// `random`), so that the test suite runs the same programs every time and a
/// failure there is the change's, while long runs explore.
fn config() -> ProptestConfig {
    let cases = std::env::var("SHARDLAB_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(40);
    let rng_seed = match std::env::var("SHARDLAB_FUZZ_SEED").as_deref() {
        Ok("random") => RngSeed::Random,
        Ok(n) => RngSeed::Fixed(n.parse().unwrap_or(2026)),
        Err(_) => RngSeed::Fixed(2026),
    };
    ProptestConfig {
        cases,
        rng_seed,
        // Each case is a process that may run for seconds: shrink briefly.
        max_shrink_iters: 16,
        ..ProptestConfig::default()
    }
}

/// Runs `source` as a program and checks that the run ended cleanly.
fn ends_cleanly(source: &str) -> Result<(), TestCaseError> {
    let dir = cli::scratch("fuzz");
    let ran = cli::run_source(
        &dir,
        "case",
        source,
        &["--timeout", "3", "--max-memory", "1G"],
    )
    .map_err(|e| TestCaseError::fail(format!("{e}\nprogram:\n{source:.2000}")))?;
    let error = cli::verdict("case", &ran)
        .map_err(|e| TestCaseError::fail(format!("{e}\nprogram:\n{source:.2000}")))?;
    let outcome = match (error.as_deref(), ran.json["error"]["message"].as_str()) {
        (Some("RuntimeError"), Some(m)) => format!("RuntimeError: {m:.100}"),
        (Some(kind), _) => kind.to_string(),
        (None, _) => "ran to the end".to_string(),
    };
    tally(&outcome, ran.took);
    Ok(())
}

/// With `SHARDLAB_FUZZ_LOG=FILE`, appends how each case ended and how long it
/// took, so that a long run can be summarised (which exceptions, how fast).
fn tally(outcome: &str, took: std::time::Duration) {
    use std::io::Write;
    let Ok(path) = std::env::var("SHARDLAB_FUZZ_LOG") else {
        return;
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path);
    if let Ok(mut f) = file {
        // One write per line, so the two properties' lines never mix.
        let line = format!("{outcome}\t{:.3}\n", took.as_secs_f64());
        let _ = f.write_all(line.as_bytes());
    }
}

/// Brackets, parentheses and braces nested up to 20,000 deep, balanced or not.
fn nesting() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![("[", "]"), ("(", ")"), ("{", "}"), ("(", ",)")]),
        1usize..20_000,
        0usize..3,
    )
        .prop_map(|((open, close), depth, drop)| {
            let closes = depth.saturating_sub(drop);
            format!(
                "x = {}1{}\nprint(x)\n",
                open.repeat(depth),
                close.repeat(closes)
            )
        })
}

/// Long chains of one binary or unary operator.
fn chains() -> impl Strategy<Value = String> {
    let binary = (
        prop::sample::select(vec![
            "+", "*", "-", "**", "@", " and ", " or ", " < ", " | ",
        ]),
        prop::sample::select(vec!["1", "2.5", "x", "jnp.ones((2, 2))", "True"]),
        1usize..20_000,
    )
        .prop_map(|(op, term, n)| {
            let terms = vec![term; n].join(op);
            format!("import jax.numpy as jnp\nx = jnp.eye(2)\ny = {terms}\nprint(y)\n")
        });
    let unary = (
        prop::sample::select(vec!["-", "~", "not ", "+"]),
        1usize..200_000,
    )
        .prop_map(|(op, n)| format!("x = {}1\nprint(x)\n", op.repeat(n)));
    let suffix = (
        prop::sample::select(vec![".T", "[0]", "()", ".real"]),
        1usize..100_000,
    )
        .prop_map(|(s, n)| {
            format!(
                "import jax.numpy as jnp\nx = jnp.ones((2, 2))\ny = x{}\nprint(y)\n",
                s.repeat(n)
            )
        });
    prop_oneof![binary, unary, suffix]
}

/// Array shapes with huge, negative, zero and overflowing dimensions, then an
/// operation on the array.
fn shapes() -> impl Strategy<Value = String> {
    let dim = prop_oneof![
        (0u32..64).prop_map(|k| format!("2**{k}")),
        (-3i64..4).prop_map(|d| d.to_string()),
        Just("10**20".to_string()),
    ];
    (
        prop::sample::select(vec!["ones", "zeros", "empty", "arange", "eye"]),
        prop::collection::vec(dim, 1..4),
        prop::sample::select(vec![
            "x.sum()",
            "x @ x.T",
            "jnp.outer(x, x).shape",
            "x.reshape(-1).shape",
            "x[0]",
            "jnp.concatenate([x, x]).shape",
            "(x + x[..., None]).shape",
            "jax.jit(lambda a: a * 2)(x).shape",
        ]),
    )
        .prop_map(|(make, dims, op)| {
            let shape = dims.join(", ");
            let arg = if make == "arange" || make == "eye" {
                dims[0].clone()
            } else {
                format!("({shape},)")
            };
            format!("import jax\nimport jax.numpy as jnp\nx = jnp.{make}({arg})\nprint({op})\n")
        })
}

/// Containers that hold themselves, handed to what walks containers.
fn cycles() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![
            "x = []\nx.append(x)",
            "x = {}\nx['k'] = x",
            "x = [1]\ny = {'a': x}\nx.append(y)",
            "class C:\n    pass\nx = C()\nx.me = x",
        ]),
        prop::sample::select(vec![
            "print(x)",
            "print(repr(x) == str(x))",
            "print(x == x)",
            "print(len(jax.tree_util.tree_leaves(x)))",
            "print(copy.deepcopy(x) is x)",
            "print(sorted([x, x]))",
            "result = x",
            "print(jnp.asarray(x))",
            "print(hash(x))",
            "print(jax.tree.map(lambda v: v, x))",
        ]),
    )
        .prop_map(|(make, op)| {
            format!("import copy\nimport jax\nimport jax.numpy as jnp\n{make}\n{op}\n")
        })
}

/// Builtins and formats given extreme numbers.
fn extremes() -> impl Strategy<Value = String> {
    let big = prop_oneof![
        (0u32..70).prop_map(|k| format!("2**{k}")),
        (0u32..70).prop_map(|k| format!("-2**{k}")),
        Just("10**100".to_string()),
        Just("float('inf')".to_string()),
        Just("float('nan')".to_string()),
    ];
    (
        prop::sample::select(vec![
            "chr(N)",
            "'ab' * N",
            "[0] * N",
            "round(1.5, N)",
            "f'{1.5:.{N}f}'",
            "f'{7:>{N}}'",
            "range(N)[N // 2]",
            "1 << N",
            "divmod(N, 0)",
            "int('9' * (N % 10000))",
            "jnp.ones((3,))[N]",
            "jnp.arange(4).reshape(N, -1)",
            "jax.random.normal(jax.random.key(0), (N,))",
        ]),
        big,
    )
        .prop_map(|(call, n)| {
            let expr = call.replace('N', &format!("({n})"));
            format!("import jax\nimport jax.numpy as jnp\nv = {expr}\nprint(type(v).__name__)\n")
        })
}

/// Programs that never end or never stop growing.
fn runaways() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "s = 'x'\nwhile True:\n    s = s + s",
        "l = [0]\nwhile True:\n    l = l * 2",
        "d = {}\ni = 0\nwhile True:\n    d[i] = [i] * 1000\n    i += 1",
        "def f(n):\n    return [f(n + 1)]\nf(0)",
        "import jax\njax.lax.while_loop(lambda c: True, lambda c: c + 1, 0)",
        "import jax.numpy as jnp\nx = jnp.ones((700, 700))\nwhile True:\n    x = x @ x",
        "def g():\n    while True:\n        yield 1\nprint(list(g()))",
        "import itertools\nprint(sum(itertools.count()))",
    ])
    .prop_map(str::to_string)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn edited_programs_end_cleanly(
        pick in any::<usize>(),
        edits in prop::collection::vec(mutate::edit_strategy(), 1..4),
    ) {
        ends_cleanly(&mutate::mutated(&mutate::corpus(), pick, &edits))?;
    }

    #[test]
    fn built_programs_end_cleanly(
        source in prop_oneof![
            3 => nesting(),
            3 => chains(),
            4 => shapes(),
            3 => cycles(),
            4 => extremes(),
            1 => runaways(),
        ],
    ) {
        ends_cleanly(&source)?;
    }
}
