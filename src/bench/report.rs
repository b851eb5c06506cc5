//! A [`Report`] as Markdown tables and as an SVG plot.

use std::fmt::Write;

use super::{fmt_bytes, Collective, Report};

fn fmt_time(s: f64) -> String {
    if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} us", s * 1e6)
    }
}

/// The report as Markdown: the machine, then one table per kind of
/// measurement.
pub fn markdown(r: &Report) -> String {
    let mut s = String::new();
    let m = &r.machine;
    let _ = writeln!(
        s,
        "Measured {} on {} core(s), {}; load average (1, 5, 15 min) {} at the start, {} at the end{}. \
         Fabric slots of {} words{}{}.\n",
        r.date,
        m.cores,
        m.cpu,
        m.load_before,
        m.load_after,
        if r.quick { "; `--quick`" } else { "" },
        r.slot_words,
        if r.slot_words == crate::exec::Config::default().slot_words {
            " (the engine's)"
        } else {
            ""
        },
        if r.slots_only {
            ", lending off (`--slots-only`)"
        } else {
            ", collectives lent (operands read where they lie, see docs/benchmarks.md)"
        }
    );
    let _ = writeln!(
        s,
        "| collective | devices | size/device | median | algbw GB/s | busbw GB/s | busbw / memcpy |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|");
    for c in &r.collectives {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.2} | {:.2} | {:.2} |",
            c.op.name(),
            c.devices,
            fmt_bytes(c.bytes),
            fmt_time(c.median_s),
            c.algbw_gbs,
            c.busbw_gbs,
            c.busbw_over_memcpy
        );
    }
    let _ = writeln!(s, "\n| memcpy (1 thread) | GB/s |\n|---:|---:|");
    for c in &r.memcpy {
        let _ = writeln!(s, "| {} | {:.2} |", fmt_bytes(c.bytes), c.gbs);
    }
    let _ = writeln!(
        s,
        "\n| barrier round trip | median | p99 |\n|---:|---:|---:|"
    );
    for b in &r.barriers {
        let _ = writeln!(
            s,
            "| {} devices | {:.2} us | {:.2} us |",
            b.devices, b.median_us, b.p99_us
        );
    }
    let _ = writeln!(
        s,
        "\n| f32 matmul n x n (1 thread) | median | GFLOP/s |\n|---:|---:|---:|"
    );
    for x in &r.matmul {
        let _ = writeln!(
            s,
            "| {} | {} | {:.2} |",
            x.n,
            fmt_time(x.median_s),
            x.gflops
        );
    }
    s
}

/// The chart's geometry: panel width and height, left and top margins, the
/// gap between panels, and how many steps the size axis has.
struct Frame {
    pw: f64,
    ph: f64,
    ml: f64,
    mt: f64,
    gap: f64,
    steps: f64,
}

impl Frame {
    fn x(&self, i: usize, x0: f64) -> f64 {
        x0 + self.pw * i as f64 / self.steps
    }

    fn y(&self, v: f64, ymax: f64) -> f64 {
        self.mt + self.ph * (1.0 - v / ymax)
    }
}

const COLOURS: [&str; 5] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];

/// Bus bandwidth against size, one panel per collective (each on its own
/// scale), one line per device count, with single-thread memcpy dashed for
/// reference.
pub fn svg(r: &Report) -> String {
    let sizes: Vec<usize> = r.memcpy.iter().map(|m| m.bytes).collect();
    let f = Frame {
        pw: 260.0,
        ph: 200.0,
        ml: 44.0,
        mt: 24.0,
        gap: 48.0,
        steps: sizes.len().max(2) as f64 - 1.0,
    };
    let panels = Collective::ALL.len() as f64;
    let width = f.ml + panels * (f.pw + f.gap) + 80.0;
    let height = f.mt + f.ph + 34.0;
    let mut devices: Vec<usize> = r.collectives.iter().map(|c| c.devices).collect();
    devices.sort_unstable();
    devices.dedup();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         font-family=\"sans-serif\" font-size=\"10\">"
    );
    let _ = writeln!(
        s,
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\
         <text x=\"4\" y=\"{:.0}\" transform=\"rotate(-90 10 {:.0})\">bus GB/s</text>",
        f.mt + f.ph / 2.0,
        f.mt + f.ph / 2.0
    );
    for (k, op) in Collective::ALL.iter().enumerate() {
        panel(&mut s, r, &f, k, *op, &sizes, &devices);
    }
    legend(&mut s, &f, f.ml + panels * (f.pw + f.gap), &devices);
    s.push_str("</svg>\n");
    s
}

/// The panel of collective `op`, the `k`th from the left.
fn panel(
    s: &mut String,
    r: &Report,
    f: &Frame,
    k: usize,
    op: Collective,
    sizes: &[usize],
    devices: &[usize],
) {
    let (pw, ph, mt) = (f.pw, f.ph, f.mt);
    let x0 = f.ml + k as f64 * (pw + f.gap);
    let ymax = ymax_of(r, op);
    let title = if op == Collective::Ppermute && !r.slots_only {
        "ppermute (lent: nothing copied)"
    } else {
        op.name()
    };
    let _ = writeln!(
        s,
        "<rect x=\"{x0:.1}\" y=\"{mt:.1}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#888\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"12\">{}</text>",
        x0 + pw / 2.0,
        mt - 8.0,
        title
    );
    for t in 0..=4 {
        let v = ymax * t as f64 / 4.0;
        let _ = writeln!(
            s,
            "<line x1=\"{x0:.1}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#eee\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{v:.1}</text>",
            x0 + pw,
            x0 - 2.0,
            f.y(v, ymax) + 3.0,
            y = f.y(v, ymax)
        );
    }
    for (i, &b) in sizes.iter().enumerate() {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            f.x(i, x0),
            mt + ph + 14.0,
            fmt_bytes(b).replace(' ', "")
        );
    }
    let memcpy: Vec<String> = r
        .memcpy
        .iter()
        .enumerate()
        .map(|(i, m)| format!("{:.1},{:.1}", f.x(i, x0), f.y(m.gbs, ymax)))
        .collect();
    let _ = writeln!(
        s,
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>",
        memcpy.join(" ")
    );
    for (j, &p) in devices.iter().enumerate() {
        let pts: Vec<String> = sizes
            .iter()
            .enumerate()
            .filter_map(|(i, &b)| {
                r.collectives
                    .iter()
                    .find(|c| c.op == op && c.devices == p && c.bytes == b)
                    .map(|c| format!("{:.1},{:.1}", f.x(i, x0), f.y(c.busbw_gbs, ymax)))
            })
            .collect();
        let _ = writeln!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>",
            pts.join(" "),
            COLOURS[j % COLOURS.len()]
        );
    }
}

/// The top of `op`'s panel. Each panel has its own scale: a lent ppermute
/// copies nothing, so its "bandwidth" (size over a barrier's time) would
/// flatten every other curve on a shared one.
fn ymax_of(r: &Report, op: Collective) -> f64 {
    r.collectives
        .iter()
        .filter(|c| c.op == op)
        .map(|c| c.busbw_gbs)
        .chain(r.memcpy.iter().map(|m| m.gbs))
        .fold(0.1f64, f64::max)
        * 1.05
}

/// The legend at `lx`: one line per device count, then memcpy.
fn legend(s: &mut String, f: &Frame, lx: f64, devices: &[usize]) {
    for (j, &p) in devices.iter().enumerate() {
        let y = f.mt + 12.0 + 14.0 * j as f64;
        let _ = writeln!(
            s,
            "<line x1=\"{lx:.1}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"{}\" stroke-width=\"1.5\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\">{p} devices</text>",
            lx + 16.0,
            COLOURS[j % COLOURS.len()],
            lx + 20.0,
            y + 3.0
        );
    }
    let y = f.mt + 12.0 + 14.0 * devices.len() as f64;
    let _ = writeln!(
        s,
        "<line x1=\"{lx:.1}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\">memcpy</text>",
        lx + 16.0,
        lx + 20.0,
        y + 3.0
    );
}
