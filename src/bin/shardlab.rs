//! `shardlab run FILE.py`: runs a JAX program on simulated devices.

use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use shardlab::error::{Error, ErrorKind};
use shardlab::exec::Mode;
use shardlab::program::{run, Options, Outcome, PyError};

const USAGE: &str = "\
shardlab: run JAX programs (shard_map, pmap, vmap, collectives, grad) on simulated devices

Usage:
  shardlab run FILE.py [--devices N] [--json] [--lockstep | --parallel] [--report OUT.json]
               [--timeout SECONDS] [--max-memory SIZE]
  shardlab check PROBLEM.json SOLUTION.py [--json] [--timeout SECONDS] [--max-memory SIZE]
  shardlab bench [--quick] [--devices 2,4,8] [--ops LIST] [--max-size MIB]
                [--slot-words N] [--slots-only] [--json] [--svg OUT.svg]
  shardlab --help

Commands:
  run    Run a Python program and print its output
  check  Grade a solution of an exercise on every case of the problem
  bench  Measure the native fabric's collectives, its barrier and matmul
";

const RUN_USAGE: &str = "\
Usage: shardlab run FILE.py [--devices N] [--json] [--lockstep | --parallel] [--report OUT.json]
                            [--timeout SECONDS] [--max-memory SIZE]

Runs FILE.py as JAX would, on N simulated devices.

Options:
  --devices N   Number of devices jax.devices() reports (default 8, at most 64)
  --timeout SECONDS
                Stop the program with TimeoutError after SECONDS of wall-clock
                time (default: no limit)
  --max-memory SIZE
                Stop the program with MemoryError once the process holds more
                than SIZE of memory, e.g. 4G or 512M (default: half the
                machine's memory)
  --json        Print one JSON object: {\"result\": ..., \"stdout\": ...}, where
                result is the program's global `result`; on failure
                {\"error\": {\"type\", \"message\", \"line\", \"col\"}}
  --lockstep    Run all devices in one thread, equation by equation
  --parallel    Run every map on one thread per device, however small (by
                default maps estimated to take under 0.1 ms per device run
                in lockstep, where starting threads would cost more)
  --report OUT.json
                Write what the run did to OUT.json: for every shard_map and
                pmap, the mesh, each device's input and output shards, every
                collective with each device's value before and after, and
                per-device timings; and every named sharded array with its
                mesh, spec, jax.typeof and each device's index ranges
  -h, --help    Show this help
";

const CHECK_USAGE: &str = "\
Usage: shardlab check PROBLEM.json SOLUTION.py [--json] [--timeout SECONDS] [--max-memory SIZE]

Grades SOLUTION.py against the exercise PROBLEM.json (see docs/exercises.md):
for each case, runs the solution on the case's devices, calls the problem's
entry function on the case's arguments, compares the result with the
expected value and evaluates the problem's checks on the run report.

Options:
  --json        Print the verdict as one JSON object
  --timeout SECONDS
                Stop a case with TimeoutError after SECONDS (default: the
                problem's time_limit_s, 10 s unless it says)
  --max-memory SIZE
                Stop a case with MemoryError past SIZE (default: half the
                machine's memory)
  -h, --help    Show this help

Exit status: 0 when every case passes, 1 when a case fails, 2 when the
problem or the solution cannot be read.
";

#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
const BENCH_USAGE: &str = "\
Usage: shardlab bench [--quick] [--devices 2,4,8] [--ops LIST] [--max-size MIB]
                [--slot-words N] [--slots-only] [--json] [--svg OUT.svg]

Measures, on simulated devices running as OS threads: psum, all_gather,
psum_scatter, ppermute and all_to_all from 4 KiB to 64 MiB per device (median
time, algorithm and bus bandwidth, bus bandwidth over single-thread memcpy),
the barrier round trip, and single-thread f32 matmul. Prints Markdown tables.

Options:
  --quick           Sizes up to 4 MiB and shorter runs
  --devices LIST    Device counts, comma-separated (default 2,4,8)
  --ops LIST        Collectives to measure, comma-separated (default all)
  --max-size MIB    Leave out sizes above MIB MiB per device
  --slot-words N    Fabric slots of N words instead of the engine's 262144
  --slots-only      Collectives through the slots, with the fabric's lending
                    (exchange by reference) off, as in the browser
  --json            Print the measurements as one JSON object instead
  --svg OUT.svg     Also plot bus bandwidth against size into OUT.svg
  -h, --help        Show this help
";

#[cfg(target_arch = "wasm32")]
fn bench(_: &[String]) -> ExitCode {
    eprintln!("error: shardlab bench measures OS threads and is not available in this build");
    ExitCode::from(2)
}

#[cfg(not(target_arch = "wasm32"))]
fn bench(args: &[String]) -> ExitCode {
    let mut opts = shardlab::bench::Options::default();
    let mut as_json = false;
    let mut svg: Option<String> = None;
    let fail = |msg: &str| {
        eprintln!("error: {msg}\n\n{BENCH_USAGE}");
        ExitCode::from(2)
    };
    let mut rest = args.iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "-h" | "--help" => {
                print!("{BENCH_USAGE}");
                return ExitCode::SUCCESS;
            }
            "--quick" => opts.quick = true,
            "--json" => as_json = true,
            "--svg" => match rest.next() {
                Some(p) if !p.starts_with('-') => svg = Some(p.clone()),
                _ => return fail("--svg needs an output file"),
            },
            "--ops" => {
                let list: Option<Vec<shardlab::bench::Collective>> = rest.next().and_then(|l| {
                    l.split(',')
                        .map(|n| shardlab::bench::Collective::from_name(n.trim()))
                        .collect()
                });
                match list {
                    Some(l) if !l.is_empty() => opts.ops = l,
                    _ => return fail("--ops needs a comma-separated list of psum, all_gather, psum_scatter, ppermute, all_to_all"),
                }
            }
            "--slot-words" => match rest.next().and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if n >= 64 => opts.slot_words = Some(n),
                _ => return fail("--slot-words needs a number of words, at least 64"),
            },
            "--slots-only" => opts.slots_only = true,
            "--max-size" => match rest.next().and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if n > 0 => opts.max_bytes = Some(n << 20),
                _ => return fail("--max-size needs a positive number of MiB"),
            },
            "--devices" => {
                let list: Option<Vec<usize>> = rest.next().and_then(|l| {
                    l.split(',')
                        .map(|n| n.trim().parse::<usize>().ok().filter(|&n| n > 1))
                        .collect()
                });
                match list {
                    Some(l) if !l.is_empty() => opts.devices = l,
                    _ => return fail("--devices needs a comma-separated list of counts above 1"),
                }
            }
            s => return fail(&format!("unknown option '{s}'")),
        }
    }
    let report = match shardlab::bench::run(&opts, |line| eprintln!("{line}")) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    if let Some(path) = &svg {
        if let Err(e) = std::fs::write(path, shardlab::bench::svg(&report)) {
            eprintln!("error: cannot write {path}: {e}");
            return ExitCode::from(2);
        }
    }
    let text = if as_json {
        serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"
    } else {
        shardlab::bench::markdown(&report)
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    ExitCode::SUCCESS
}

/// Most devices a run may simulate: each is a thread in parallel mode.
const MAX_DEVICES: usize = 64;
const DEVICES_ERROR: &str = "--devices needs an integer from 1 to 64";

fn usage_error(msg: &str) -> ExitCode {
    // A caller that reads JSON gets one object even for a bad command line.
    if wants_json() {
        print_json_error("UsageError", msg, "");
    }
    eprintln!("error: {msg}\n\n{RUN_USAGE}");
    ExitCode::from(2)
}

/// True when the command line asks for JSON (`--json` anywhere in it), so
/// that even an error found before the options are read answers in JSON.
fn wants_json() -> bool {
    std::env::args().skip(1).any(|a| a == "--json")
}

/// Prints the one JSON object of a run that ended before or after its
/// program, with what the program printed (`stdout`, empty if it never ran).
fn print_json_error(kind: &str, message: &str, stdout: &str) {
    let obj = json!({
        "error": {"type": kind, "message": message, "line": 0, "col": 0},
        "stdout": stdout,
    });
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{obj}");
    let _ = out.flush();
}

/// Keeps freed memory in glibc's heap. By default glibc returns each freed
/// block larger than its mmap threshold to the kernel and trims the top of
/// the heap, so every new multi-megabyte array of a run (each activation,
/// gradient and transpose) faults its pages in afresh: on the training step
/// of bench/train_step.py that made up about two thirds of the time.
///
/// Above 32 MiB, the largest threshold glibc accepts, blocks would still be
/// mapped and unmapped one by one, so mmap is not used at all; and all
/// threads share the one arena that can grow past 64 MiB (a thread's own
/// arena cannot, and would map such blocks anyway). Device threads free each
/// other's buffers (a collective's result is one buffer held by every
/// member), so one arena also keeps that memory where the next call finds
/// it. A 64 MiB psum on 2 devices went from 32-36 ms to 8-10 ms; small
/// blocks still come from each thread's own cache without a lock.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_memory() {
    use std::ffi::c_int;
    extern "C" {
        fn mallopt(param: c_int, value: c_int) -> c_int;
    }
    const M_TRIM_THRESHOLD: c_int = -1;
    const M_MMAP_THRESHOLD: c_int = -3;
    const M_MMAP_MAX: c_int = -4;
    const M_ARENA_MAX: c_int = -8;
    // SAFETY: mallopt only sets allocator parameters; it is called before
    // any thread starts. Every block comes from the main heap, which is
    // trimmed above 1 GiB free.
    unsafe {
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_MMAP_MAX, 0);
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
        mallopt(M_ARENA_MAX, 1);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() {}

/// The limits a run is held to.
#[derive(Clone, Copy)]
struct Limits {
    /// Wall-clock time.
    timeout: Option<Duration>,
    /// Resident memory of the process, in bytes.
    max_memory: u64,
}

/// Why the run was stopped from outside: 0 not, or one of these.
static STOPPED: AtomicU8 = AtomicU8::new(0);
const STOPPED_TIME: u8 = 1;
const STOPPED_MEMORY: u8 = 2;

/// How long a stopped run may take to reach a stop check (a long matmul
/// or a parallel map does not poll) before the run is abandoned.
const GRACE: Duration = Duration::from_secs(3);

/// The stop check the interpreter and the evaluators poll.
fn stop_reason() -> Option<String> {
    match STOPPED.load(Ordering::Relaxed) {
        0 => None,
        _ => Some("the run was stopped at its limit".into()),
    }
}

/// The panic hook: remembers the first panic's message and location for
/// the error report, and prints nothing.
fn quiet_panics() -> Arc<Mutex<Option<String>>> {
    let panicked: Arc<Mutex<Option<String>>> = Default::default();
    let seen = panicked.clone();
    std::panic::set_hook(Box::new(move |info| {
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        if let Ok(mut p) = seen.lock() {
            p.get_or_insert(format!("{what}{place}"));
        }
    }));
    panicked
}

/// The report of the last run made with `--report`, handed from the
/// program's thread.
static RECORDED: std::sync::Mutex<Option<shardlab::report::Report>> = std::sync::Mutex::new(None);

/// Runs a program on a thread whose stack holds the interpreter's nesting
/// limit, while this thread watches the clock and the process's memory:
/// past a limit it trips the stop check, and if the run does not stop
/// within [`GRACE`] it is abandoned with the error. A panic (a bug in
/// shardlab, never in the program) becomes an error too, with no panic
/// text on stderr.
fn run_guarded(source: String, options: &Options, limits: Limits, record: bool) -> Outcome {
    let panicked = quiet_panics();
    STOPPED.store(0, Ordering::Relaxed);
    shardlab::python::budget::set_max_memory(limits.max_memory);
    let mut opts = options.clone();
    opts.stop = Some(stop_reason);
    let printed = shardlab::python::Printed::default();
    let lines = shardlab::python::parse::Lines::new(&source);
    opts.printed = Some(printed.clone());
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("program".into())
        .stack_size(shardlab::python::depth::STACK_BYTES)
        .spawn(move || {
            // The report is recorded on the thread that runs the program.
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                if !record {
                    return run(&source, &opts);
                }
                let (outcome, report) = shardlab::program::run_recorded(&source, &opts);
                *RECORDED.lock().unwrap_or_else(|e| e.into_inner()) = Some(report);
                outcome
            }));
            let _ = tx.send(outcome.ok());
        });
    if let Err(e) = worker {
        return failed(
            ErrorKind::RuntimeError,
            format!("cannot start the interpreter's thread: {e}"),
        );
    }
    let start = Instant::now();
    let mut stopped_at: Option<Instant> = None;
    let outcome = loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(outcome) => break outcome,
            Err(mpsc::RecvTimeoutError::Disconnected) => break None,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if stopped_at.is_none() {
            if limits.timeout.is_some_and(|t| start.elapsed() > t) {
                STOPPED.store(STOPPED_TIME, Ordering::Relaxed);
            } else if shardlab::python::budget::resident_bytes()
                .is_some_and(|b| b > limits.max_memory)
            {
                STOPPED.store(STOPPED_MEMORY, Ordering::Relaxed);
            }
            if STOPPED.load(Ordering::Relaxed) != 0 {
                stopped_at = Some(Instant::now());
            }
        } else if stopped_at.is_some_and(|t| t.elapsed() > GRACE) {
            return abandon(&printed, &lines, limits);
        }
    };
    let mut outcome = outcome.unwrap_or_else(|| {
        let what = panicked
            .lock()
            .ok()
            .and_then(|mut p| p.take())
            .unwrap_or_default();
        failed(
            ErrorKind::RuntimeError,
            format!("internal error in shardlab (please report it): {what}"),
        )
    });
    name_the_stop(&mut outcome, limits);
    outcome
}

/// The outcome of a run given up on inside one long step: the limit that
/// stopped it, the statement it was in, and what it printed before.
fn abandon(
    printed: &shardlab::python::Printed,
    lines: &shardlab::python::parse::Lines,
    limits: Limits,
) -> Outcome {
    let mut abandoned = failed(ErrorKind::Cancelled, String::new());
    name_the_stop(&mut abandoned, limits);
    let at = printed.at.load(Ordering::Relaxed);
    if let (Some(e), true) = (&mut abandoned.error, at > 0) {
        (e.line, e.col) = lines.locate(at - 1);
    }
    if let Ok(text) = printed.text.lock() {
        abandoned.stdout = text.clone();
    }
    if let Ok(err) = printed.err.lock() {
        abandoned.stderr = err.clone();
    }
    abandoned
}

/// Names the limit that stopped a run: its error becomes `TimeoutError` or
/// `MemoryError` with the limit, keeping where the run was.
fn name_the_stop(outcome: &mut Outcome, limits: Limits) {
    let Some(e) = &mut outcome.error else { return };
    if e.error.kind != ErrorKind::Cancelled {
        return;
    }
    let (kind, limit) = match STOPPED.load(Ordering::Relaxed) {
        STOPPED_TIME => {
            let secs = limits.timeout.map_or(0.0, |t| t.as_secs_f64());
            (
                ErrorKind::TimeoutError,
                format!("the program ran past its time limit of {secs} s (--timeout)"),
            )
        }
        STOPPED_MEMORY => (
            ErrorKind::MemoryError,
            shardlab::python::budget::limit_message(limits.max_memory, "--max-memory"),
        ),
        _ => return,
    };
    e.error = Error::new(kind, with_where(limit, &e.error.message));
}

/// The limit's message followed by where the engine stopped, when it says
/// more than the stop itself: the devices of a map and what each was
/// running.
fn with_where(limit: String, engine: &str) -> String {
    let reason = stop_reason().unwrap_or_default();
    let detail = engine.replace(&format!(": {reason}"), "");
    if detail.is_empty() || detail == reason {
        return limit;
    }
    format!("{limit}; {detail}")
}

/// Writes what the program printed to stdout and what it wrote to stderr
/// to stderr, in the order it wrote them (each flushed, so a terminal or a
/// `2>&1` file shows them interleaved as Python's unbuffered output is).
fn write_output(outcome: &Outcome) {
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    let mut from = 0;
    for (at, text) in &outcome.stderr {
        let at = (*at).clamp(from, outcome.stdout.len());
        if let Some(part) = outcome.stdout.get(from..at) {
            let _ = out.write_all(part.as_bytes());
            let _ = out.flush();
            from = at;
        }
        let _ = err.write_all(text.as_bytes());
        let _ = err.flush();
    }
    let _ = out.write_all(outcome.stdout.get(from..).unwrap_or("").as_bytes());
    let _ = out.flush();
}

/// An outcome that is only an error.
fn failed(kind: ErrorKind, message: String) -> Outcome {
    Outcome {
        stdout: String::new(),
        stderr: vec![],
        result: None,
        error: Some(PyError {
            error: Error::new(kind, message),
            line: 0,
            col: 0,
        }),
    }
}

/// Half the machine's memory, the default limit (8 GiB where the system
/// does not tell).
fn default_max_memory() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    });
    total.map_or(8 << 30, |t| t / 2)
}

/// A size such as `4G`, `512M`, `100k` or `1000000` (bytes).
fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim().to_ascii_lowercase();
    let t = t.trim_end_matches("ib").trim_end_matches('b');
    let (digits, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => t.split_at(i),
        None => (t, ""),
    };
    let shift = match unit {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return None,
    };
    let n: f64 = digits.parse().ok()?;
    (n.is_finite() && n > 0.0).then(|| (n * (1u64 << shift) as f64) as u64)
}

/// The program text of `file`, or the exception Python would raise for it
/// (its type name and message): a file that cannot be read, a directory,
/// bytes that are not UTF-8.
/// Python's exception type for an I/O error.
fn io_error_type(e: &std::io::Error) -> &'static str {
    match e.kind() {
        std::io::ErrorKind::NotFound => "FileNotFoundError",
        std::io::ErrorKind::PermissionDenied => "PermissionError",
        std::io::ErrorKind::IsADirectory => "IsADirectoryError",
        _ => "OSError",
    }
}

fn read_source(file: &str) -> Result<String, (&'static str, String)> {
    if std::path::Path::new(file).is_dir() {
        return Err((
            "IsADirectoryError",
            format!("cannot read {file}: it is a directory"),
        ));
    }
    let bytes =
        std::fs::read(file).map_err(|e| (io_error_type(&e), format!("cannot read {file}: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        (
            "SyntaxError",
            format!(
                "Non-UTF-8 code starting with '\\x{:02x}' in file {file} on line {line}, but no encoding declared",
                bytes[at]
            ),
        )
    })
}

/// `shardlab check`: grades a solution on every case of a problem; exit
/// status 0 when all pass, 1 when one fails, 2 when something cannot be
/// read.
fn check(args: &[String]) -> ExitCode {
    let fail = |msg: &str| {
        if wants_json() {
            print_json_error("UsageError", msg, "");
        }
        eprintln!("error: {msg}\n\n{CHECK_USAGE}");
        ExitCode::from(2)
    };
    // A file that cannot be read, or a problem that cannot be parsed.
    let unreadable = |kind: &str, msg: &str| {
        if wants_json() {
            print_json_error(kind, msg, "");
        }
        eprintln!("error: {msg}");
        ExitCode::from(2)
    };
    let mut files = vec![];
    let mut as_json = false;
    let mut limits = Limits {
        timeout: None,
        max_memory: default_max_memory(),
    };
    let mut rest = args.iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "-h" | "--help" => {
                print!("{CHECK_USAGE}");
                return ExitCode::SUCCESS;
            }
            "--json" => as_json = true,
            "--timeout" => match rest.next().and_then(|n| n.parse::<f64>().ok()) {
                Some(t) if t.is_finite() && t > 0.0 && t < 1e9 => {
                    limits.timeout = Some(Duration::from_secs_f64(t))
                }
                _ => return fail("--timeout needs a positive number of seconds"),
            },
            "--max-memory" => match rest.next().and_then(|n| parse_size(n)) {
                Some(b) => limits.max_memory = b,
                _ => return fail("--max-memory needs a size such as 4G or 512M"),
            },
            s if s.starts_with('-') => return fail(&format!("unknown option '{s}'")),
            s => files.push(s.to_string()),
        }
    }
    let [problem_file, solution_file] = &files[..] else {
        return fail("give the problem file and the solution file");
    };
    let mut problem = match read_source(problem_file).and_then(|t| {
        shardlab::check::parse(&t).map_err(|e| ("ValueError", format!("{problem_file}: {e}")))
    }) {
        Ok(p) => p,
        Err((kind, m)) => return unreadable(kind, &m),
    };
    let source = match read_source(solution_file) {
        Ok(s) => s,
        Err((kind, m)) => return unreadable(kind, &m),
    };
    // `--timeout` replaces the problem's time limit for every case.
    if let Some(t) = limits.timeout {
        problem.time_limit_s = t.as_secs_f64();
    }
    let verdict = grade(&problem, &source, limits);
    let text = if as_json {
        serde_json::to_string(&verdict).unwrap_or_default() + "\n"
    } else {
        shardlab::check::summary(&verdict)
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    if verdict.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Grades `source`, each case run under `limits` with the case's time
/// limit.
fn grade(
    problem: &shardlab::check::Problem,
    source: &str,
    limits: Limits,
) -> shardlab::check::Verdict {
    shardlab::check::check(problem, source, |program, options, limit| {
        let limits = Limits {
            timeout: Some(limit),
            ..limits
        };
        let outcome = run_guarded(program.to_string(), options, limits, true);
        let report = RECORDED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or_default();
        (outcome, report)
    })
}

fn main() -> ExitCode {
    keep_freed_memory();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("-h") | Some("--help") | Some("help") => {
            print!("{USAGE}");
            if args.is_empty() {
                return ExitCode::from(2);
            }
            ExitCode::SUCCESS
        }
        Some("run") => run_command(&args[1..]),
        Some("check") => check(&args[1..]),
        Some("bench") => bench(&args[1..]),
        Some(other) => {
            let msg = format!("unknown command '{other}'");
            if wants_json() {
                print_json_error("UsageError", &msg, "");
            }
            eprintln!("error: {msg}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// What `shardlab run` was asked to do.
struct RunArgs {
    file: String,
    options: Options,
    as_json: bool,
    report_path: Option<String>,
    limits: Limits,
}

/// Reads `run`'s command line, or the exit status of a help or usage
/// message already printed.
fn run_args(args: &[String]) -> Result<RunArgs, ExitCode> {
    let mut file = None;
    let mut options = Options::default();
    let mut as_json = false;
    let mut report_path: Option<String> = None;
    let mut limits = Limits {
        timeout: None,
        max_memory: default_max_memory(),
    };
    let mut rest = args.iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "-h" | "--help" => {
                print!("{RUN_USAGE}");
                return Err(ExitCode::SUCCESS);
            }
            "--json" => as_json = true,
            "--lockstep" => options.mode = Mode::Lockstep,
            "--parallel" => options.mode = Mode::Parallel,
            "--report" => match rest.next() {
                Some(p) if !p.starts_with('-') => report_path = Some(p.clone()),
                _ => return Err(usage_error("--report needs an output file")),
            },
            "--devices" => match rest.next().and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if (1..=MAX_DEVICES).contains(&n) => options.devices = n,
                _ => return Err(usage_error(DEVICES_ERROR)),
            },
            s if s.starts_with("--devices=") => match s["--devices=".len()..].parse::<usize>() {
                Ok(n) if (1..=MAX_DEVICES).contains(&n) => options.devices = n,
                _ => return Err(usage_error(DEVICES_ERROR)),
            },
            "--timeout" => match rest.next().and_then(|n| n.parse::<f64>().ok()) {
                Some(t) if t.is_finite() && t > 0.0 && t < 1e9 => {
                    limits.timeout = Some(Duration::from_secs_f64(t))
                }
                _ => return Err(usage_error("--timeout needs a positive number of seconds")),
            },
            "--max-memory" => match rest.next().and_then(|n| parse_size(n)) {
                Some(b) => limits.max_memory = b,
                _ => return Err(usage_error("--max-memory needs a size such as 4G or 512M")),
            },
            s if s.starts_with('-') => return Err(usage_error(&format!("unknown option '{s}'"))),
            s => {
                if file.is_some() {
                    return Err(usage_error("only one program file may be given"));
                }
                file = Some(s.to_string());
            }
        }
    }
    let Some(file) = file else {
        return Err(usage_error("missing the program file"));
    };
    Ok(RunArgs {
        file,
        options,
        as_json,
        report_path,
        limits,
    })
}

/// `shardlab run [options] FILE`.
fn run_command(args: &[String]) -> ExitCode {
    let mut a = match run_args(args) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let source = match read_source(&a.file) {
        Ok(s) => s,
        Err((kind, message)) => {
            if a.as_json {
                print_json_error(kind, &message, "");
            }
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    // Python names a script's code by its absolute path.
    a.options.file = std::path::absolute(&a.file)
        .ok()
        .map(|p| p.to_string_lossy().into_owned());
    let outcome = run_guarded(source, &a.options, a.limits, a.report_path.is_some());
    if let Some(path) = &a.report_path {
        if let Some(code) = write_report(path, &outcome, a.as_json) {
            return code;
        }
    }
    if a.as_json {
        print_json_outcome(&outcome);
    } else {
        write_output(&outcome);
    }
    match outcome.error {
        None => ExitCode::SUCCESS,
        Some(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}

/// Writes the recorded run report to `path`; on failure the program's
/// output is kept with the error, and the exit status is returned.
fn write_report(path: &str, outcome: &Outcome, as_json: bool) -> Option<ExitCode> {
    let report = RECORDED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .unwrap_or_default();
    let text = serde_json::to_string(&report).unwrap_or_default();
    let e = std::fs::write(path, text).err()?;
    let message = format!("cannot write the report to {path}: {e}");
    if as_json {
        print_json_error(io_error_type(&e), &message, &outcome.stdout);
    } else {
        write_output(outcome);
    }
    eprintln!("error: {message}");
    Some(ExitCode::from(2))
}

/// The run's outcome as one JSON object on stdout.
fn print_json_outcome(outcome: &Outcome) {
    let mut obj = match &outcome.error {
        None => json!({"result": outcome.result, "stdout": outcome.stdout}),
        Some(e) => json!({
            "error": {
                "type": e.error.type_name(),
                "message": e.error.message,
                "line": e.line,
                "col": e.col,
            },
            "stdout": outcome.stdout,
        }),
    };
    if !outcome.stderr.is_empty() {
        let text: String = outcome.stderr.iter().map(|(_, t)| t.as_str()).collect();
        obj["stderr"] = json!(text);
    }
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{obj}");
    let _ = stdout.flush();
}
