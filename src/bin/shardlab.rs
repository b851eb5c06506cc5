//! `shardlab run FILE.py`: runs a JAX program on simulated devices.

use std::io::Write;
use std::process::ExitCode;

use serde_json::json;
use shardlab::python::{run, Options};

const USAGE: &str = "\
shardlab: run JAX programs (shard_map, pmap, vmap, collectives, grad) on simulated devices

Usage:
  shardlab run FILE.py [--devices N] [--json] [--lockstep] [--report OUT.json]
  shardlab --help

Commands:
  run    Run a Python program and print its output
";

const RUN_USAGE: &str = "\
Usage: shardlab run FILE.py [--devices N] [--json] [--lockstep] [--report OUT.json]

Runs FILE.py as JAX would, on N simulated devices.

Options:
  --devices N   Number of devices jax.devices() reports (default 8)
  --json        Print one JSON object: {\"result\": ..., \"stdout\": ...}, where
                result is the program's global `result`; on failure
                {\"error\": {\"type\", \"message\", \"line\", \"col\"}}
  --lockstep    Run all devices in one thread, equation by equation
  --report OUT.json
                Write what the run did to OUT.json: for every shard_map and
                pmap, the mesh, each device's input and output shards, every
                collective with each device's value before and after, and
                per-device timings
  -h, --help    Show this help
";

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("error: {msg}\n\n{RUN_USAGE}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("-h") | Some("--help") | Some("help") => {
            print!("{USAGE}");
            if args.is_empty() {
                return ExitCode::from(2);
            }
            return ExitCode::SUCCESS;
        }
        Some("run") => {}
        Some(other) => {
            eprintln!("error: unknown command '{other}'\n\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    let mut file = None;
    let mut options = Options::default();
    let mut as_json = false;
    let mut report_path: Option<String> = None;
    let mut rest = args[1..].iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "-h" | "--help" => {
                print!("{RUN_USAGE}");
                return ExitCode::SUCCESS;
            }
            "--json" => as_json = true,
            "--lockstep" => options.lockstep = true,
            "--report" => match rest.next() {
                Some(p) if !p.starts_with('-') => report_path = Some(p.clone()),
                _ => return usage_error("--report needs an output file"),
            },
            "--devices" => match rest.next().and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if n > 0 => options.devices = n,
                _ => return usage_error("--devices needs a positive integer"),
            },
            s if s.starts_with("--devices=") => match s["--devices=".len()..].parse::<usize>() {
                Ok(n) if n > 0 => options.devices = n,
                _ => return usage_error("--devices needs a positive integer"),
            },
            s if s.starts_with('-') => return usage_error(&format!("unknown option '{s}'")),
            s => {
                if file.is_some() {
                    return usage_error("only one program file may be given");
                }
                file = Some(s.to_string());
            }
        }
    }
    let Some(file) = file else {
        return usage_error("missing the program file");
    };
    let source = match std::fs::read_to_string(&file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot read {file}: {e}");
            return ExitCode::from(2);
        }
    };
    if report_path.is_some() {
        shardlab::report::start();
    }
    let outcome = run(&source, &options);
    if let Some(path) = &report_path {
        let report = shardlab::report::take();
        let text = serde_json::to_string(&report).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("error: cannot write the report to {path}: {e}");
            return ExitCode::from(2);
        }
    }
    let mut stdout = std::io::stdout().lock();
    if as_json {
        let obj = match &outcome.error {
            None => json!({"result": outcome.result, "stdout": outcome.stdout}),
            Some(e) => json!({
                "error": {
                    "type": e.error.kind.python_name(),
                    "message": e.error.message,
                    "line": e.line,
                    "col": e.col,
                },
                "stdout": outcome.stdout,
            }),
        };
        let _ = writeln!(stdout, "{obj}");
    } else {
        let _ = write!(stdout, "{}", outcome.stdout);
    }
    let _ = stdout.flush();
    match outcome.error {
        None => ExitCode::SUCCESS,
        Some(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}
