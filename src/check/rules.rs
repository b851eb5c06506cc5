//! Checks on what a run did, read from its report (`crate::report`): which
//! collectives ran over which mesh axes, which did not, and how the outputs
//! of the last map were laid out. A check is one JSON object:
//!
//! - `{"uses": "psum", "axes": ["data"]}`: a collective of that name ran
//!   at least once (over exactly those axes, when `axes` is given); the
//!   name may also be `shard_map` or `pmap`, for a map of that kind;
//! - `{"avoids": "all_gather"}`: no collective (or map) of that name ran;
//! - `{"output_spec": "P('data')", "output": 0}`: output `output` (default
//!   0) of the last forward map was laid out by that PartitionSpec.
//!
//! Names are the ones users write: `psum` also counts JAX's
//! `psum_invariant` (what `psum` of a value that varies over its axes
//! becomes), `all_gather` counts `all_gather_invariant`, and
//! `psum_scatter` is the `reduce_scatter` of the jaxpr. `pmean` runs as a
//! `psum` (and a division), so it is checked as `psum`. Each check may
//! carry a `message` for the learner, shown when it fails.

use serde::{Deserialize, Serialize};

use crate::report::{CollectiveRun, Report};

/// One check on a run report.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// A collective or map kind that must have run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uses: Option<String>,
    /// A collective or map kind that must not have run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avoids: Option<String>,
    /// With `uses` or `avoids`: the mesh axes the collective is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axes: Option<Vec<String>>,
    /// The PartitionSpec an output of the last map must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_spec: Option<String>,
    /// With `output_spec`: which output (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<usize>,
    /// Shown to the learner when the check fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A check's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct RuleResult {
    /// The check in words: `ran psum over ('data',)`.
    pub check: String,
    pub passed: bool,
    /// What the run did instead, and the problem's message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The names of the collectives that `name` stands for.
fn primitive_names(name: &str) -> Vec<&str> {
    match name {
        "psum" | "pmean" => vec!["psum", "psum_invariant"],
        "all_gather" => vec!["all_gather", "all_gather_invariant"],
        "psum_scatter" | "reduce_scatter" => vec!["reduce_scatter"],
        other => vec![other],
    }
}

impl Rule {
    /// Exactly one of `uses`, `avoids`, `output_spec`, with only the fields
    /// it takes.
    pub fn validate(&self) -> Result<(), String> {
        let kinds = [
            self.uses.is_some(),
            self.avoids.is_some(),
            self.output_spec.is_some(),
        ];
        if kinds.iter().filter(|&&k| k).count() != 1 {
            return Err("a check has exactly one of uses, avoids, output_spec".into());
        }
        if self.output_spec.is_some() && self.axes.is_some() {
            return Err("axes goes with uses or avoids, not output_spec".into());
        }
        if self.output_spec.is_none() && self.output.is_some() {
            return Err("output goes with output_spec".into());
        }
        Ok(())
    }

    /// The check in words.
    pub fn describe(&self) -> String {
        let over = match &self.axes {
            Some(a) => format!(" over {}", axes_text(a)),
            None => String::new(),
        };
        if let Some(n) = &self.uses {
            format!("uses {n}{over}")
        } else if let Some(n) = &self.avoids {
            format!("avoids {n}{over}")
        } else {
            let spec = self.output_spec.as_deref().unwrap_or("");
            format!("output {} laid out as {spec}", self.output.unwrap_or(0))
        }
    }

    /// Evaluates the check on `report`.
    pub fn evaluate(&self, report: &Report) -> RuleResult {
        let (passed, what) = if let Some(n) = &self.uses {
            let count = self.count(n, report);
            (count > 0, format!("no {n}{} ran", self.over_text()))
        } else if let Some(n) = &self.avoids {
            let count = self.count(n, report);
            (
                count == 0,
                format!("{n}{} ran {count} time(s)", self.over_text()),
            )
        } else {
            self.spec_matches(report)
        };
        let detail = (!passed).then(|| match &self.message {
            Some(m) => format!("{what}: {m}"),
            None => what,
        });
        RuleResult {
            check: self.describe(),
            passed,
            detail,
        }
    }

    fn over_text(&self) -> String {
        self.axes
            .as_ref()
            .map_or(String::new(), |a| format!(" over {}", axes_text(a)))
    }

    /// How many collectives (or maps) named `name` the run recorded.
    fn count(&self, name: &str, report: &Report) -> usize {
        if name == "shard_map" || name == "pmap" {
            return report.maps.iter().filter(|m| m.kind == name).count();
        }
        let names = primitive_names(name);
        report
            .maps
            .iter()
            .flat_map(|m| &m.collectives)
            .filter(|c| names.contains(&c.name.as_str()))
            .filter(|c| self.axes.as_ref().is_none_or(|a| same_axes(&axes_of(c), a)))
            .count()
    }

    fn spec_matches(&self, report: &Report) -> (bool, String) {
        let want = self.output_spec.as_deref().unwrap_or("");
        let index = self.output.unwrap_or(0);
        let last = report.maps.iter().rev().find(|m| m.role == "forward");
        let Some(map) = last else {
            return (false, "no shard_map or pmap ran".into());
        };
        match map.outputs.get(index) {
            None => (
                false,
                format!("the last map has {} output(s)", map.outputs.len()),
            ),
            Some(out) if normalize_spec(&out.spec) == normalize_spec(want) => (true, String::new()),
            Some(out) => (
                false,
                format!(
                    "output {index} of the last {} is laid out as {}",
                    map.kind, out.spec
                ),
            ),
        }
    }
}

/// Mesh axes of a collective, from its `axes` or `axis_name` parameter
/// (`('data',)`, `('data', 'model')`).
fn axes_of(c: &CollectiveRun) -> Vec<String> {
    let Some((_, text)) = c
        .params
        .iter()
        .find(|(k, _)| k == "axes" || k == "axis_name")
    else {
        return vec![];
    };
    let quoted: Vec<String> = text
        .split('\'')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect();
    if quoted.is_empty() {
        vec![text
            .trim_matches(|c| c == '(' || c == ')' || c == ',')
            .trim()
            .to_string()]
    } else {
        quoted
    }
}

fn same_axes(got: &[String], want: &[String]) -> bool {
    let (mut g, mut w) = (got.to_vec(), want.to_vec());
    g.sort();
    w.sort();
    g == w
}

fn axes_text(axes: &[String]) -> String {
    axes.join(", ")
}

/// A spec as compared: no spaces, double quotes as single, `P('x',)` as
/// `P('x')`, and `P(None)` trailing Nones dropped as JAX prints them.
fn normalize_spec(s: &str) -> String {
    let mut t: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    t = t.replace('"', "'").replace("PartitionSpec(", "P(");
    t = t.replace(",)", ")");
    while let Some(head) = t.strip_suffix(",None)") {
        t = format!("{head})");
    }
    if t == "P(None)" {
        t = "P()".into();
    }
    t
}
