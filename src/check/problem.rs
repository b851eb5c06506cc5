//! The problem format: what a learning page poses and how a solution is
//! graded. Problems are data (JSON, see `docs/exercises.md` and
//! `docs/exercise.schema.json`), never code shardlab runs on its own.
//!
//! Values (a case's arguments and expected result) are JSON with tags for
//! what JSON cannot say: `{"array": [[1, 2], [3, 4]], "dtype": "float32"}`
//! is a `jnp` array, `{"tuple": [...]}` a tuple, `{"dict": {...}}` a dict;
//! a plain JSON list is a Python list and numbers, booleans and `null` are
//! Python scalars and `None`. Arguments may also be `{"mesh": true}` (the
//! case's mesh) or `{"expr": "jnp.arange(8.0)"}` (a Python expression).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::rules::Rule;

/// The version of the format this build reads.
pub const FORMAT: &str = "shardlab-exercise/1";

/// Most devices a case may ask for (as `shardlab run --devices`).
pub const MAX_DEVICES: usize = 64;

/// Seconds a case may run when the problem does not say: a learner's
/// endless loop must end in a failed case, not a page that never answers.
pub const DEFAULT_TIME_LIMIT_S: f64 = 10.0;

/// The longest time limit a problem may give a case, in seconds.
pub const MAX_TIME_LIMIT_S: f64 = 600.0;

/// A graded exercise.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Problem {
    /// Always [`FORMAT`].
    pub format: String,
    /// A short title.
    pub title: String,
    /// What the learner is asked to do, in Markdown.
    pub statement: String,
    /// The code the editor starts with.
    pub starter: String,
    /// The function each case calls.
    pub entry: String,
    /// The cases, each run on its own devices.
    pub cases: Vec<Case>,
    /// Checks on the run report that apply to every case.
    #[serde(default)]
    pub checks: Vec<Rule>,
    /// Where the expected values came from (the JAX version that computed
    /// them), for the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_from: Option<String>,
    /// Seconds each case may run before it fails with `TimeoutError`.
    #[serde(default = "default_time_limit")]
    pub time_limit_s: f64,
}

/// One call of the entry function and what it must return.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// A name for the results (default: `case N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Devices `jax.devices()` reports (default: the mesh's size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub devices: Option<usize>,
    /// The mesh `{"mesh": true}` arguments stand for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<MeshSpec>,
    /// Positional arguments.
    #[serde(default)]
    pub args: Vec<Value>,
    /// Keyword arguments.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub kwargs: serde_json::Map<String, Value>,
    /// The value the call must return.
    pub expected: Value,
    /// Relative tolerance of float comparisons.
    #[serde(default = "default_rtol")]
    pub rtol: f64,
    /// Absolute tolerance of float comparisons.
    #[serde(default = "default_atol")]
    pub atol: f64,
    /// Checks on this case's run report, besides the problem's.
    #[serde(default)]
    pub checks: Vec<Rule>,
    /// A hidden case is graded like any other, but the learner is not shown
    /// its arguments or its expected value, so that a solution cannot be
    /// fitted to the cases it can see.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
}

/// A mesh: its shape and axis names.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct MeshSpec {
    pub shape: Vec<usize>,
    pub axes: Vec<String>,
}

impl MeshSpec {
    /// Devices the mesh spans.
    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }

    /// `data=4, model=2`.
    pub fn text(&self) -> String {
        self.axes
            .iter()
            .zip(&self.shape)
            .map(|(a, n)| format!("{a}={n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn default_time_limit() -> f64 {
    DEFAULT_TIME_LIMIT_S
}

fn default_rtol() -> f64 {
    1e-5
}

fn default_atol() -> f64 {
    1e-6
}

impl Case {
    /// Devices the case runs on.
    pub fn device_count(&self) -> usize {
        self.devices
            .or_else(|| self.mesh.as_ref().map(MeshSpec::size))
            .unwrap_or(1)
    }

    /// The case's name, or `case N` (1-based).
    pub fn label(&self, index: usize) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("case {}", index + 1))
    }
}

/// Reads a problem from JSON text and checks it; the message says what is
/// wrong and where.
pub fn parse(text: &str) -> Result<Problem, String> {
    let problem: Problem =
        serde_json::from_str(text).map_err(|e| format!("not a valid problem: {e}"))?;
    validate(&problem)?;
    Ok(problem)
}

/// The rules serde cannot express: the format version, the entry name,
/// device counts, meshes and the values' tags.
pub fn validate(p: &Problem) -> Result<(), String> {
    if p.format != FORMAT {
        return Err(format!(
            "format is '{}'; this shardlab reads '{FORMAT}'",
            p.format
        ));
    }
    if !is_identifier(&p.entry) || super::call::RESERVED.contains(&p.entry.as_str()) {
        return Err(format!(
            "entry '{}' is not a usable Python function name",
            p.entry
        ));
    }
    if p.cases.is_empty() {
        return Err("a problem needs at least one case".into());
    }
    if !(p.time_limit_s > 0.0 && p.time_limit_s <= MAX_TIME_LIMIT_S) {
        return Err(format!(
            "time_limit_s must be more than 0 and at most {MAX_TIME_LIMIT_S} seconds, not {}",
            p.time_limit_s
        ));
    }
    for (i, case) in p.cases.iter().enumerate() {
        let at = |m: String| format!("{}: {m}", case.label(i));
        validate_case(case).map_err(at)?;
    }
    for rule in &p.checks {
        rule.validate()?;
    }
    Ok(())
}

fn validate_case(case: &Case) -> Result<(), String> {
    let n = case.device_count();
    if !(1..=MAX_DEVICES).contains(&n) {
        return Err(format!("devices must be from 1 to {MAX_DEVICES}, not {n}"));
    }
    if let Some(m) = &case.mesh {
        if m.shape.len() != m.axes.len() || m.shape.is_empty() {
            return Err("mesh needs as many axis names as dimensions (at least one)".into());
        }
        if m.shape.contains(&0) || m.size() > n {
            return Err(format!(
                "mesh ({}) needs {} devices; the case has {n}",
                m.text(),
                m.size()
            ));
        }
        if m.axes.iter().any(|a| !is_identifier(a)) {
            return Err("mesh axis names must be Python identifiers".into());
        }
    }
    if !(case.rtol >= 0.0 && case.atol >= 0.0) {
        return Err("rtol and atol must be non-negative".into());
    }
    for a in case.args.iter().chain(case.kwargs.values()) {
        super::call::literal(a, case.mesh.as_ref())?;
    }
    if case.kwargs.keys().any(|k| !is_identifier(k)) {
        return Err("keyword argument names must be Python identifiers".into());
    }
    super::compare::expected_is_valid(&case.expected)?;
    for rule in &case.checks {
        rule.validate()?;
    }
    Ok(())
}

/// True for an ASCII Python identifier.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
