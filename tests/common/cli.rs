//! The command line as a separate process: `shardlab run --json` with limits,
//! watched from outside so that a stack overflow, an abort, a hang or a
//! memory blow-up is seen as surely as a panic is.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long any run may take, well above the `--timeout` given to it.
pub const DEADLINE: Duration = Duration::from_secs(15);

/// What a run printed and how it ended.
pub struct Ran {
    pub code: i32,
    pub json: serde_json::Value,
    pub stderr: String,
    pub took: Duration,
}

/// A directory of this test process's own for program files.
pub fn scratch(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shardlab-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the temporary directory is writable");
    dir
}

/// Reads a pipe to its end on a thread of its own, so a chatty child cannot
/// block on a full pipe while we wait for it.
fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = vec![];
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Runs `shardlab run --json ARGS FILE`, killing it after [`DEADLINE`].
/// Errs when the run outlives the deadline, dies by a signal, or prints
/// anything but one JSON object.
pub fn run_file(file: &Path, args: &[&str]) -> Result<Ran, String> {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_shardlab"))
        .arg("run")
        .arg("--json")
        .args(args)
        .arg(file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start shardlab: {e}"))?;
    let out = drain(child.stdout.take().ok_or("no stdout pipe")?);
    let err = drain(child.stderr.take().ok_or("no stderr pipe")?);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > DEADLINE => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{} ran past {DEADLINE:?}", file.display()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("waiting for shardlab: {e}")),
        }
    };
    let took = start.elapsed();
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    let code = status.code().ok_or_else(|| {
        format!(
            "{} was killed by a signal ({status}); stderr: {stderr:.500}",
            file.display()
        )
    })?;
    let json = serde_json::from_str(stdout.trim()).map_err(|e| {
        format!(
            "{}: stdout is not one JSON object ({e}): {stdout:.300}; stderr: {stderr:.300}",
            file.display()
        )
    })?;
    Ok(Ran {
        code,
        json,
        stderr,
        took,
    })
}

/// Writes `source` to `DIR/NAME.py` and runs it with the given limits.
pub fn run_source(dir: &Path, name: &str, source: &str, limits: &[&str]) -> Result<Ran, String> {
    let file = dir.join(format!("{name}.py"));
    std::fs::write(&file, source).map_err(|e| format!("writing {}: {e}", file.display()))?;
    run_file(&file, limits)
}

/// What every run of a readable program must do: exit 0 or 1, print one
/// JSON object, show no panic text, and exit 1 exactly when it reports an
/// error. Returns the exception's type, if any.
pub fn verdict(name: &str, ran: &Ran) -> Result<Option<String>, String> {
    if ran.code != 0 && ran.code != 1 {
        return Err(format!(
            "{name}: exit code {}; stderr: {:.300}",
            ran.code, ran.stderr
        ));
    }
    if !ran.json.is_object() {
        return Err(format!("{name}: not an object: {}", ran.json));
    }
    for word in ["panicked", "RUST_BACKTRACE", "stack overflow"] {
        if ran.stderr.contains(word) {
            return Err(format!(
                "{name}: stderr shows '{word}': {:.500}",
                ran.stderr
            ));
        }
    }
    let Some(error) = ran.json.get("error") else {
        return match ran.code {
            0 => Ok(None),
            c => Err(format!("{name}: exit {c} without an error: {}", ran.json)),
        };
    };
    if ran.code != 1 {
        return Err(format!("{name}: an error must exit 1: {}", ran.json));
    }
    // A panic caught by the command line is a crash all the same.
    if error["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("internal error in shardlab"))
    {
        return Err(format!("{name}: {}", ran.json));
    }
    Ok(Some(error["type"].as_str().unwrap_or_default().to_string()))
}
