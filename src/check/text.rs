//! The verdict as a person reads it in a terminal.

use std::fmt::Write;

use super::{CaseVerdict, Verdict};

/// One line per case, and under a failing case what went wrong.
pub fn summary(v: &Verdict) -> String {
    let passed = v.cases.iter().filter(|c| c.passed).count();
    let mut out = format!("{}: {passed} of {} cases pass\n", v.title, v.cases.len());
    for case in &v.cases {
        let mark = if case.passed { "PASS" } else { "FAIL" };
        let hidden = if case.hidden { ", hidden" } else { "" };
        let _ = writeln!(
            out,
            "  {mark}  {} ({}{hidden})",
            case.name,
            where_text(case)
        );
        if !case.passed {
            failure(&mut out, case);
        }
    }
    out
}

fn where_text(case: &CaseVerdict) -> String {
    let devices = match case.devices {
        1 => "1 device".to_string(),
        n => format!("{n} devices"),
    };
    match &case.mesh {
        Some(m) if m.size() == case.devices => format!("mesh {}", m.text()),
        Some(m) => format!("{devices}, mesh {}", m.text()),
        None => devices,
    }
}

fn failure(out: &mut String, case: &CaseVerdict) {
    if let Some(e) = &case.error {
        let at = match e.line {
            0 => String::new(),
            l => format!(" (line {l}, col {})", e.col),
        };
        let _ = writeln!(out, "        {}: {}{at}", e.kind, e.message);
    }
    for m in &case.mismatches {
        let _ = writeln!(out, "        {m}");
    }
    if !case.mismatches.is_empty() && case.max_abs_error > 0.0 {
        let _ = writeln!(
            out,
            "        max abs error {:.3e}, max rel error {:.3e}",
            case.max_abs_error, case.max_rel_error
        );
    }
    for c in case.checks.iter().filter(|c| !c.passed) {
        let detail = c.detail.as_deref().unwrap_or("");
        let _ = writeln!(out, "        check '{}' failed: {detail}", c.check);
    }
}
