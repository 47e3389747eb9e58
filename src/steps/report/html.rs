//! The HTML report: one self-contained page (inline CSS and SVG, no script, no external resource)
//! that shows rather than tells.
//!
//! At the top, the outcome and an overview "forest plot" of every benchmark's ratio CI against the
//! threshold band; then one card per benchmark with the base and head per-iteration time
//! distributions (jittered points of every kept sample under a box plot, the mean as a diamond)
//! next to its ratio CI. Everything is computed here in Rust so the page opens anywhere, offline,
//! years later, and can be attached to a CI run as a single file.

use std::fmt::Write as _;

use super::text::{self, outcome_label};
use crate::model::samples::{BenchmarkRecord, SampleFile};
use crate::steps::analysis::{BenchmarkResult, Outcome, Report};

const BASE_COLOR: &str = "#4c78a8";
const HEAD_COLOR: &str = "#e45756";
/// Samples drawn per side at most; more only blacken the strip (the box plot uses all of them).
const MAX_POINTS: usize = 1500;

/// The whole page. `samples` supplies the distributions; benchmarks missing from it get a card
/// without a distribution plot.
pub fn render_html(report: &Report, samples: &SampleFile) -> String {
    let mut page = String::with_capacity(64 * 1024);
    page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    let _ = writeln!(page, "<title>{}</title>", escape(&page_title(report)));
    let _ = writeln!(page, "<style>{CSS}</style>\n</head>\n<body>");
    page += &header(report);
    page += &overview(report);
    page += "<section class=\"cards\">\n";
    for (index, result) in report.benchmarks.iter().enumerate() {
        let record = samples.benchmarks.iter().find(|b| b.id == result.id);
        page += &card(index, result, record, report);
    }
    page += "</section>\n";
    page += &footer(report);
    page += "</body>\n</html>\n";
    page
}

fn page_title(report: &Report) -> String {
    match text::comparison(report) {
        Some(comparison) => format!("cargo-perfdiff: {comparison}"),
        None => "cargo-perfdiff report".to_string(),
    }
}

/// Escapes text for HTML element content and attribute values alike.
pub fn escape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in text::sanitize(raw).chars() {
        match c {
            '&' => out += "&amp;",
            '<' => out += "&lt;",
            '>' => out += "&gt;",
            '"' => out += "&quot;",
            '\'' => out += "&#39;",
            c => out.push(c),
        }
    }
    out
}

fn verdict_color(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Regressed => "#d1362f",
        Outcome::Improved => "#2a9d57",
        Outcome::Inconclusive => "#d99a0b",
        Outcome::Failed => "#c06c00",
        Outcome::Unchanged => "#8993a4",
        Outcome::OnlyInBase | Outcome::OnlyInHead => "#7a68c2",
    }
}

fn header(report: &Report) -> String {
    let regressed = count(report, Outcome::Regressed);
    let (headline, class) = if regressed > 0 {
        (
            format!(
                "{regressed} regression{}",
                if regressed == 1 { "" } else { "s" }
            ),
            "bad",
        )
    } else if count(report, Outcome::Failed) > 0 {
        ("no regression, but failures".to_string(), "warn")
    } else {
        ("no regression".to_string(), "good")
    };
    let mut out = String::from("<header class=\"top\">\n");
    let _ = writeln!(
        out,
        "<h1>cargo-perfdiff <span class=\"headline {class}\">{}</span></h1>",
        escape(&headline)
    );
    if let Some(comparison) = text::comparison(report) {
        let _ = writeln!(out, "<p class=\"comparison\">{}</p>", escape(&comparison));
    }
    if let Some(warning) = text::run_warning(report) {
        let _ = writeln!(out, "<p class=\"run-warning\">{}</p>", escape(&warning));
    }
    out += "<div class=\"tiles\">\n";
    for (outcome, n) in text::counts(report) {
        let _ = writeln!(
            out,
            "<div class=\"tile\" style=\"border-color:{c}\"><span class=\"n\" style=\"color:{c}\">{n}</span><span class=\"label\">{}</span></div>",
            outcome_label(outcome),
            c = verdict_color(outcome)
        );
    }
    out += "</div>\n</header>\n";
    out
}

fn count(report: &Report, outcome: Outcome) -> usize {
    report
        .benchmarks
        .iter()
        .filter(|b| b.verdict == outcome)
        .count()
}

/// Horizontal mapping from data to pixels.
#[derive(Debug, Clone, Copy)]
struct Scale {
    lo: f64,
    hi: f64,
    x0: f64,
    x1: f64,
}

impl Scale {
    fn new(lo: f64, hi: f64, x0: f64, x1: f64) -> Self {
        let (lo, hi) = if hi > lo {
            (lo, hi)
        } else {
            (lo - 0.5, lo + 0.5)
        };
        Scale { lo, hi, x0, x1 }
    }

    /// Pixel of `v`, clamped to the axis.
    fn px(&self, v: f64) -> f64 {
        let t = ((v - self.lo) / (self.hi - self.lo)).clamp(0.0, 1.0);
        self.x0 + t * (self.x1 - self.x0)
    }

    /// Round tick values inside the domain: steps of 1, 2 or 5 × 10^k, about `target` of them.
    fn ticks(&self, target: usize) -> Vec<f64> {
        let raw = (self.hi - self.lo) / target.max(1) as f64;
        if !(raw.is_finite() && raw > 0.0) {
            return Vec::new();
        }
        let power = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * power)
            .find(|s| *s >= raw)
            .unwrap_or(10.0 * power);
        let first = (self.lo / step).ceil() as i64;
        let last = (self.hi / step).floor() as i64;
        (first..=last).map(|k| k as f64 * step).collect()
    }
}

/// The span of the ratio axis shared by every ratio plot: all CIs and the threshold band.
fn ratio_domain(report: &Report) -> (f64, f64) {
    let band = report
        .benchmarks
        .iter()
        .map(|b| b.threshold)
        .fold(report.settings.threshold, f64::max);
    let mut lo = 1.0 - band;
    let mut hi = 1.0 + band;
    for r in report.benchmarks.iter().filter_map(|b| b.ratio) {
        if r.ci_low.is_finite() && r.ci_high.is_finite() {
            lo = lo.min(r.ci_low);
            hi = hi.max(r.ci_high);
        }
    }
    let pad = (hi - lo) * 0.08;
    (lo - pad, hi + pad)
}

/// The span of one benchmark's ratio plot: zoomed on its own CI and threshold band, so that a
/// narrow CI is still visibly inside or outside the band (the overview compares benchmarks).
fn own_ratio_domain(result: &BenchmarkResult) -> (f64, f64) {
    let mut lo = 1.0 - result.threshold;
    let mut hi = 1.0 + result.threshold;
    if let Some(r) = result
        .ratio
        .filter(|r| r.ci_low.is_finite() && r.ci_high.is_finite())
    {
        lo = lo.min(r.ci_low);
        hi = hi.max(r.ci_high);
    }
    let pad = (hi - lo) * 0.15;
    (lo - pad, hi + pad)
}

/// A ratio as the change it means, `decimals` after the point: `+5 %`, `-0.5 %`, `0`.
/// Vertical grid lines from `top` to `bottom` at `ticks`, each labelled below the axis.
fn grid_ticks(
    svg: &mut String,
    scale: &Scale,
    ticks: &[f64],
    top: f64,
    bottom: f64,
    label: impl Fn(f64) -> String,
) {
    for &tick in ticks {
        let x = scale.px(tick);
        let _ = writeln!(
            svg,
            "<line class=\"grid\" x1=\"{x:.1}\" y1=\"{top:.1}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\"/><text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            bottom + 14.0,
            label(tick)
        );
    }
}

fn ratio_tick_label(ratio: f64, decimals: usize) -> String {
    let pct = (ratio - 1.0) * 100.0;
    if pct.abs() < 0.5 * 10f64.powi(-(decimals as i32)) {
        "0".to_string()
    } else {
        format!("{pct:+.decimals$} %")
    }
}

/// Threshold band, the 1.0 line and tick marks of a ratio axis, from `top` to `bottom`.
fn ratio_axis(scale: &Scale, threshold: f64, top: f64, bottom: f64) -> String {
    let mut svg = String::new();
    let (b0, b1) = (scale.px(1.0 - threshold), scale.px(1.0 + threshold));
    let _ = writeln!(
        svg,
        "<rect class=\"band\" x=\"{b0:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\"><title>relevance threshold ±{}</title></rect>",
        b1 - b0,
        bottom - top,
        text::percent(threshold)
    );
    let ticks = scale.ticks(6);
    let decimals = tick_decimals(&ticks, 0.01);
    grid_ticks(&mut svg, scale, &ticks, top, bottom, |tick| {
        ratio_tick_label(tick, decimals)
    });
    let one = scale.px(1.0);
    let _ = writeln!(
        svg,
        "<line class=\"one\" x1=\"{one:.1}\" y1=\"{top:.1}\" x2=\"{one:.1}\" y2=\"{bottom:.1}\"/>"
    );
    svg
}

/// One CI bar with its estimate, centred on `y`.
fn ci_bar(scale: &Scale, result: &BenchmarkResult, y: f64, thickness: f64) -> String {
    let Some(r) = result.ratio.filter(|r| {
        [r.estimate, r.ci_low, r.ci_high]
            .iter()
            .all(|v| v.is_finite())
    }) else {
        return String::new();
    };
    let color = verdict_color(result.verdict);
    let (x0, x1, xe) = (
        scale.px(r.ci_low),
        scale.px(r.ci_high),
        scale.px(r.estimate),
    );
    format!(
        "<g><title>{id}: ratio {est:.4}, {conf} {ci}</title><rect x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{thickness:.1}\" rx=\"{:.1}\" fill=\"{color}\" fill-opacity=\"0.35\" stroke=\"{color}\"/><circle cx=\"{xe:.1}\" cy=\"{y:.1}\" r=\"{:.1}\" fill=\"{color}\" stroke=\"#fff\" stroke-width=\"1.5\"/></g>\n",
        y - thickness / 2.0,
        (x1 - x0).max(2.0),
        thickness / 2.0,
        thickness * 0.55,
        id = escape(&text::id_line(&result.id)),
        est = r.estimate,
        conf = interval_name(&r),
        ci = text::ratio_ci(Some(&r)),
    )
}

/// What an interval is, for a tooltip or a title: `99.65 % CI`, `99.3 % CI, two one-sided tests`.
fn interval_name(r: &crate::stats::RatioInterval) -> String {
    match r.kind {
        crate::stats::IntervalKind::Difference => format!("{} CI", text::percent(r.confidence)),
        crate::stats::IntervalKind::Equivalence => {
            format!("{} CI, two one-sided tests", text::percent(r.confidence))
        }
    }
}

/// The forest plot of every benchmark's ratio CI on one shared axis; rows link to the cards.
fn overview(report: &Report) -> String {
    if report.benchmarks.is_empty() {
        return "<section class=\"overview\"><p>No benchmarks to report.</p></section>\n".into();
    }
    const ROW: f64 = 26.0;
    const LABEL_W: f64 = 330.0;
    const WIDTH: f64 = 1100.0;
    let top = 26.0;
    let height = top + ROW * report.benchmarks.len() as f64 + 30.0;
    let (lo, hi) = ratio_domain(report);
    let scale = Scale::new(lo, hi, LABEL_W + 10.0, WIDTH - 170.0);
    let bottom = top + ROW * report.benchmarks.len() as f64;
    let mut svg = format!(
        "<svg class=\"overview\" viewBox=\"0 0 {WIDTH} {height:.0}\" width=\"100%\" role=\"img\" aria-label=\"ratio head/base of every benchmark\">\n"
    );
    let _ = writeln!(
        svg,
        "<text class=\"axis-title\" x=\"{:.1}\" y=\"14\" text-anchor=\"middle\">change of the mean, head vs base ({} CI{}) — left of 0 is faster, right is slower</text>",
        (scale.x0 + scale.x1) / 2.0,
        text::percent(text::difference_level(&report.settings)),
        if text::interval_legend(report).is_some() {
            "; † two one-sided tests"
        } else {
            ""
        }
    );
    for (i, _) in report
        .benchmarks
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
    {
        let _ = writeln!(
            svg,
            "<rect class=\"stripe\" x=\"0\" y=\"{:.1}\" width=\"{WIDTH}\" height=\"{ROW}\"/>",
            top + ROW * i as f64
        );
    }
    svg += &ratio_axis(&scale, report.settings.threshold, top, bottom);
    for (i, result) in report.benchmarks.iter().enumerate() {
        let y = top + ROW * (i as f64 + 0.5);
        let _ = writeln!(
            svg,
            "<a href=\"#bench-{i}\"><text class=\"row-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}<title>{}</title></text></a>",
            LABEL_W,
            y + 4.0,
            escape(&ellipsize(&text::id_line(&result.id), 44)),
            escape(&text::id_line(&result.id))
        );
        if result.ratio.is_some() {
            svg += &ci_bar(&scale, result, y, 10.0);
        }
        let _ = writeln!(
            svg,
            "<text class=\"row-verdict\" x=\"{:.1}\" y=\"{:.1}\" fill=\"{}\">{} {}</text>",
            WIDTH - 155.0,
            y + 4.0,
            verdict_color(result.verdict),
            text::verdict_label(result),
            escape(&if result.ratio.is_some() {
                text::change(result.change_rate)
            } else {
                String::new()
            })
        );
    }
    svg += "</svg>\n";
    format!("<section class=\"overview\">\n<h2>Overview</h2>\n{svg}</section>\n")
}

fn ellipsize(id: &str, max: usize) -> String {
    if id.chars().count() <= max {
        id.to_string()
    } else {
        let keep: String = id.chars().take(max - 1).collect();
        keep + "…"
    }
}

/// One benchmark: title, plots, numbers, warnings, failure.
fn card(
    index: usize,
    result: &BenchmarkResult,
    record: Option<&BenchmarkRecord>,
    report: &Report,
) -> String {
    let color = verdict_color(result.verdict);
    let mut out = format!(
        "<article class=\"card\" id=\"bench-{index}\" style=\"border-left-color:{color}\">\n<header><h3>{}</h3><span class=\"badge\" style=\"background:{color}\">{}</span><span class=\"change\" style=\"color:{color}\">{}</span></header>\n",
        escape(&text::id_line(&result.id)),
        text::verdict_label(result),
        if result.change_rate.is_some() {
            escape(&text::change(result.change_rate))
        } else {
            String::new()
        }
    );
    let base = record
        .map(|r| r.base.per_iteration_flat())
        .unwrap_or_default();
    let head = record
        .map(|r| r.head.per_iteration_flat())
        .unwrap_or_default();
    if base.is_empty() && head.is_empty() {
        out += "<p class=\"nodata\">No samples to plot.</p>\n";
    } else {
        out += &bench_plot(result, &base, &head);
    }
    out += &numbers(result, report);
    out += &functions_view(result);
    let mut notes: Vec<String> = result
        .warnings
        .iter()
        .map(|w| escape(&w.to_string()))
        .collect();
    notes.extend(text::detectable_note(result).map(|n| escape(&n)));
    let measured_as_it_is = [
        text::slow_iterations_note(result, &report.run),
        text::settings_from_code_note(result),
        text::per_fork_note(result),
    ];
    notes.extend(
        measured_as_it_is
            .into_iter()
            .flatten()
            .map(|(n, _)| escape(&n)),
    );
    if !notes.is_empty() {
        out += "<ul class=\"warnings\">";
        for note in notes {
            let _ = write!(out, "<li>{note}</li>");
        }
        out += "</ul>\n";
    }
    if let Some(failure) = &result.failure {
        let _ = writeln!(out, "<pre class=\"failure\">{}</pre>", escape(failure));
    }
    out += "</article>\n";
    out
}

/// The functions behind a change as a differential view: each function's self instructions per
/// iteration in base and head, and a bar from the middle for the difference, to the right (red)
/// for more work in head, to the left (green) for less, scaled to the largest difference.
fn functions_view(result: &BenchmarkResult) -> String {
    if result.functions.is_empty() {
        return String::new();
    }
    let largest = result
        .functions
        .iter()
        .map(|f| f.delta().self_.abs().max(f.delta().inclusive.abs()))
        .fold(0.0_f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let mut out = String::from(
        "<table class=\"functions\" style=\"border-collapse:collapse;margin:8px 0;font-size:13px\">\n\
         <caption style=\"text-align:left;font-weight:600;padding:4px 0\">Functions behind the change \
         (instructions per iteration, most changed first)</caption>\n\
         <tr><th style=\"text-align:left\">function</th><th style=\"text-align:left\">where</th>\
         <th>self base</th><th>self head</th><th>change</th><th style=\"width:240px\">head − base (self)</th>\
         <th>inclusive base</th><th>inclusive head</th></tr>\n",
    );
    for f in &result.functions {
        let delta = f.delta().self_;
        let share = (delta.abs() / largest * 50.0).min(50.0);
        let (left, color) = if delta >= 0.0 {
            (50.0, "#d73a49")
        } else {
            (50.0 - share, "#28a745")
        };
        let place = match (&f.file, f.line) {
            (Some(file), Some(line)) => format!("{file}:{line}"),
            (Some(file), None) => file.clone(),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td><td><code>{}</code></td><td style=\"text-align:right\">{}</td>\
             <td style=\"text-align:right\">{}</td><td style=\"text-align:right\">{}</td>\
             <td><div style=\"position:relative;height:12px;background:#f3f3f3\">\
             <div style=\"position:absolute;left:{left:.1}%;width:{share:.1}%;height:12px;background:{color}\"></div>\
             <div style=\"position:absolute;left:50%;width:1px;height:12px;background:#888\"></div></div></td>\
             <td style=\"text-align:right\">{}</td><td style=\"text-align:right\">{}</td></tr>",
            escape(&f.name),
            escape(&place),
            text::instructions(f.base.self_),
            text::instructions(f.head.self_),
            escape(&text::function_change(f)),
            text::instructions(f.base.inclusive),
            text::instructions(f.head.inclusive),
        );
    }
    out + "</table>\n"
}

/// The key numbers of a card as a definition list.
fn numbers(result: &BenchmarkResult, report: &Report) -> String {
    let mut items = vec![
        (
            "base mean",
            text::mean_in(result.base.mean_ns, result.unit.as_deref()),
        ),
        (
            "head mean",
            text::mean_in(result.head.mean_ns, result.unit.as_deref()),
        ),
        (
            "ratio CI",
            match result.ratio {
                Some(r) => format!(
                    "{:.3} {} ({})",
                    r.estimate,
                    text::ratio_ci(Some(&r)),
                    text::interval_label(result).unwrap_or_default()
                ),
                None => text::MISSING.to_string(),
            },
        ),
        (
            if report.settings.fdr {
                "paired t p (q)"
            } else {
                "paired t p"
            },
            text::p_and_q(result, report.settings.fdr),
        ),
        (
            "Mann–Whitney p (forks)",
            result
                .mann_whitney
                .map_or(text::MISSING.to_string(), |mw| text::p_value(mw.p_value)),
        ),
        ("Cliff's δ", text::delta(result.cliffs_delta.as_ref())),
        (
            "forks / samples",
            format!(
                "{} / {} base, {} / {} head",
                result.forks.base, result.base.samples, result.forks.head, result.head.samples
            ),
        ),
        ("threshold", format!("±{}", text::percent(result.threshold))),
    ];
    if let Some(layout) = result.layout_spread {
        items.push((
            "layout spread",
            format!(
                "±{} over {} layouts (sd); head slower in {} of {} rounds",
                text::percent(layout.spread),
                layout.layouts,
                layout.head_slower,
                layout.rounds
            ),
        ));
    }
    if let Some(mdc) = result.min_detectable_change {
        items.push(("detectable change", format!("±{}", text::percent(mdc))));
    }
    let mut out = String::from("<dl class=\"numbers\">");
    for (label, value) in items {
        let _ = write!(
            out,
            "<div><dt>{label}</dt><dd>{}</dd></div>",
            escape(&value)
        );
    }
    out + "</dl>\n"
}

/// The per-benchmark SVG: distributions on the left, the ratio CI on the right.
fn bench_plot(result: &BenchmarkResult, base: &[f64], head: &[f64]) -> String {
    const WIDTH: f64 = 1100.0;
    const HEIGHT: f64 = 190.0;
    let mut svg = format!(
        "<svg class=\"bench-plot\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"100%\" role=\"img\" aria-label=\"time per iteration of base and head of {}\">\n",
        escape(&text::id_line(&result.id))
    );
    svg += &distributions(base, head, result.unit.as_deref(), 0.0, 700.0, HEIGHT);
    if result.ratio.is_some() {
        svg += &ratio_panel(result, 740.0, WIDTH - 10.0, HEIGHT);
    } else {
        let _ = writeln!(
            svg,
            "<text class=\"panel-note\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">no ratio: {}</text>",
            (740.0 + WIDTH) / 2.0,
            HEIGHT / 2.0,
            outcome_label(result.verdict)
        );
    }
    svg + "</svg>\n"
}

/// Strip plots with box plots of base (top) and head (bottom) on a shared axis: time per
/// iteration, or the `unit` of a custom criterion measurement.
fn distributions(
    base: &[f64],
    head: &[f64],
    unit: Option<&str>,
    left: f64,
    right: f64,
    height: f64,
) -> String {
    let mut all: Vec<f64> = base
        .iter()
        .chain(head)
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    all.sort_by(f64::total_cmp);
    let (lo, hi) = (quantile(&all, 0.002), quantile(&all, 0.998));
    let pad = ((hi - lo) * 0.06).max(hi.abs() * 0.005);
    let scale = Scale::new(lo - pad, hi + pad, left + 60.0, right - 10.0);
    let (top, bottom) = (22.0, height - 34.0);
    let row_h = (bottom - top) / 2.0;
    let (factor, title) = match unit {
        Some(crate::model::command::MEMORY_UNIT) => {
            (1024.0 * 1024.0, "peak memory (MiB)".to_string())
        }
        Some(crate::model::profile::INSTRUCTIONS_UNIT) => {
            (1.0, "instructions per iteration".to_string())
        }
        Some(unit) => (1.0, format!("{} per iteration", escape(unit))),
        None => {
            let (factor, name) = time_unit(scale.hi.abs().max(scale.lo.abs()));
            (factor, format!("time per iteration ({name})"))
        }
    };
    let mut svg = format!(
        "<text class=\"axis-title\" x=\"{:.1}\" y=\"14\" text-anchor=\"middle\">{title}</text>\n",
        (scale.x0 + scale.x1) / 2.0,
    );
    let ticks = scale.ticks(7);
    let decimals = tick_decimals(&ticks, factor);
    grid_ticks(&mut svg, &scale, &ticks, top, bottom, |tick| {
        format!("{:.decimals$}", tick / factor)
    });
    for (row, (name, values, color)) in [("base", base, BASE_COLOR), ("head", head, HEAD_COLOR)]
        .into_iter()
        .enumerate()
    {
        let y0 = top + row_h * row as f64;
        let cy = y0 + row_h / 2.0;
        let _ = writeln!(
            svg,
            "<text class=\"side-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"{color}\">{name}</text>",
            scale.x0 - 10.0,
            cy + 5.0
        );
        if values.is_empty() {
            let _ = writeln!(
                svg,
                "<text class=\"panel-note\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">no samples</text>",
                (scale.x0 + scale.x1) / 2.0,
                cy + 4.0
            );
            continue;
        }
        svg += &strip(values, &scale, cy, row_h * 0.62, color);
        svg += &box_plot(values, &scale, cy, row_h * 0.42, color, name, unit);
    }
    svg
}

/// Jittered dots of the samples; the jitter is a fixed hash of the index, so pages are stable.
fn strip(values: &[f64], scale: &Scale, cy: f64, spread: f64, color: &str) -> String {
    let stride = values.len().div_ceil(MAX_POINTS).max(1);
    let mut svg = format!("<g fill=\"{color}\" fill-opacity=\"0.35\">");
    for (i, v) in values.iter().enumerate().step_by(stride) {
        let y = cy + (jitter(i as u64) - 0.5) * spread;
        let _ = write!(
            svg,
            "<circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"2.2\"/>",
            scale.px(*v)
        );
    }
    svg + "</g>\n"
}

/// A deterministic number in [0, 1) from `i` (splitmix64).
fn jitter(i: u64) -> f64 {
    let mut z = i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// Quartile box, whiskers to the furthest sample within 1.5 IQR, median line, mean diamond.
fn box_plot(
    values: &[f64],
    scale: &Scale,
    cy: f64,
    h: f64,
    color: &str,
    name: &str,
    unit: Option<&str>,
) -> String {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return String::new();
    }
    sorted.sort_by(f64::total_cmp);
    let (q1, median, q3) = (
        quantile(&sorted, 0.25),
        quantile(&sorted, 0.5),
        quantile(&sorted, 0.75),
    );
    let iqr = q3 - q1;
    let low = sorted
        .iter()
        .copied()
        .find(|v| *v >= q1 - 1.5 * iqr)
        .unwrap_or(q1);
    let high = sorted
        .iter()
        .rev()
        .copied()
        .find(|v| *v <= q3 + 1.5 * iqr)
        .unwrap_or(q3);
    let mean = sorted.iter().sum::<f64>() / sorted.len() as f64;
    let (x_lo, x_q1, x_med, x_q3, x_hi, x_mean) = (
        scale.px(low),
        scale.px(q1),
        scale.px(median),
        scale.px(q3),
        scale.px(high),
        scale.px(mean),
    );
    let (y0, y1) = (cy - h / 2.0, cy + h / 2.0);
    let d = h * 0.28;
    format!(
        "<g class=\"box\" stroke=\"{color}\"><title>{name}: median {}, mean {}, IQR {} – {}, {} samples</title>\
<line x1=\"{x_lo:.1}\" y1=\"{cy:.1}\" x2=\"{x_q1:.1}\" y2=\"{cy:.1}\"/><line x1=\"{x_q3:.1}\" y1=\"{cy:.1}\" x2=\"{x_hi:.1}\" y2=\"{cy:.1}\"/>\
<line x1=\"{x_lo:.1}\" y1=\"{:.1}\" x2=\"{x_lo:.1}\" y2=\"{:.1}\"/><line x1=\"{x_hi:.1}\" y1=\"{:.1}\" x2=\"{x_hi:.1}\" y2=\"{:.1}\"/>\
<rect x=\"{x_q1:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"{color}\" fill-opacity=\"0.12\" rx=\"3\"/>\
<line class=\"median\" x1=\"{x_med:.1}\" y1=\"{y0:.1}\" x2=\"{x_med:.1}\" y2=\"{y1:.1}\"/>\
<path class=\"mean\" d=\"M{x_mean:.1} {:.1} L{:.1} {cy:.1} L{x_mean:.1} {:.1} L{:.1} {cy:.1} Z\" fill=\"#fff\"/></g>\n",
        escape(&text::mean_in(Some(median), unit)),
        escape(&text::mean_in(Some(mean), unit)),
        escape(&text::mean_in(Some(q1), unit)),
        escape(&text::mean_in(Some(q3), unit)),
        sorted.len(),
        cy - h / 4.0,
        cy + h / 4.0,
        cy - h / 4.0,
        cy + h / 4.0,
        (x_q3 - x_q1).max(1.0),
        cy - d,
        x_mean + d,
        cy + d,
        x_mean - d,
    )
}

/// Linear-interpolation quantile of sorted `values`; NaN when empty.
fn quantile(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let pos = p.clamp(0.0, 1.0) * (n - 1) as f64;
            let (i, frac) = (pos.floor() as usize, pos.fract());
            let next = sorted[(i + 1).min(n - 1)];
            sorted[i] + (next - sorted[i]) * frac
        }
    }
}

/// The unit (scale, name) for an axis reaching `max_ns`.
fn time_unit(max_ns: f64) -> (f64, &'static str) {
    match max_ns {
        v if v >= 1e9 => (1e9, "s"),
        v if v >= 1e6 => (1e6, "ms"),
        v if v >= 1e3 => (1e3, "µs"),
        _ => (1.0, "ns"),
    }
}

/// Decimals that tell ticks `ticks` apart once divided by `unit`.
fn tick_decimals(ticks: &[f64], unit: f64) -> usize {
    let step = ticks.windows(2).map(|w| w[1] - w[0]).next().unwrap_or(unit) / unit;
    if step >= 1.0 || !step.is_finite() || step <= 0.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    }
}

/// The ratio CI of one benchmark against its threshold band.
fn ratio_panel(result: &BenchmarkResult, left: f64, right: f64, height: f64) -> String {
    let (lo, hi) = own_ratio_domain(result);
    let scale = Scale::new(lo, hi, left + 10.0, right - 10.0);
    let (top, bottom) = (22.0, height - 34.0);
    let mut svg = format!(
        "<text class=\"axis-title\" x=\"{:.1}\" y=\"14\" text-anchor=\"middle\">head vs base, {} of the ratio</text>\n",
        (scale.x0 + scale.x1) / 2.0,
        result.ratio.map_or(String::new(), |r| interval_name(&r))
    );
    svg += &ratio_axis(&scale, result.threshold, top, bottom);
    svg += &ci_bar(&scale, result, (top + bottom) / 2.0, 18.0);
    let _ = writeln!(
        svg,
        "<text class=\"hint\" x=\"{:.1}\" y=\"{:.1}\">← faster</text><text class=\"hint\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">slower →</text>",
        scale.x0,
        bottom + 29.0,
        scale.x1,
        bottom + 29.0
    );
    svg
}

fn footer(report: &Report) -> String {
    let mut out = String::from("<footer>\n");
    if !report.skipped_targets.is_empty() {
        out += "<p><b>Skipped bench targets:</b></p><ul>";
        let several_packages = report.several_packages();
        for s in &report.skipped_targets {
            let _ = write!(
                out,
                "<li><code>{}</code>: {}</li>",
                escape(&s.label(several_packages)),
                escape(&s.reason)
            );
        }
        out += "</ul>\n";
    }
    let _ = writeln!(
        out,
        "<p><b>Settings:</b> {}</p>",
        escape(&text::settings_line(&report.settings))
    );
    if let Some(path) = &report.samples_file {
        let _ = writeln!(out, "<p><b>Samples:</b> <code>{}</code></p>", escape(path));
    }
    out += HOW_TO_READ;
    if let Some(version) = &report.run.tool_version {
        let _ = writeln!(
            out,
            "<p class=\"version\">cargo-perfdiff {}</p>",
            escape(version)
        );
    }
    out + "</footer>\n"
}

const HOW_TO_READ: &str = "<details><summary>How to read this page</summary>\n<ul>\
<li><b>Left plot</b>: every kept sample (time per iteration, warm-up removed) of base (blue) and head (red), jittered vertically; the box spans the middle half, the bar inside is the median, the diamond the mean, whiskers reach the furthest sample within 1.5 box lengths. Extreme samples are drawn at the edge of the axis.</li>\
<li><b>Right plot</b>: the interval the verdict rests on, as a change in percent: Student's t over the rounds' head/base ratios (each round ran base and head in the same time slot and code layout). The grey band is the relevance threshold, the dark line no change. A bar entirely right of 1 whose estimate reaches the band's edge is a regression, entirely left of 1 an improvement; for <i>unchanged</i> the bar is the interval of two one-sided tests (†), entirely inside the band; anything else cannot decide.</li>\
<li>A change must also survive false-discovery control over the suite (the q-value). Mann–Whitney U and Cliff's δ compare the forks' means, the layout spread says how far the same code moves between code layouts: both are information.</li>\
</ul></details>\n";

const CSS: &str = r#"
:root { --fg:#1d2433; --muted:#667085; --line:#e4e7ec; --bg:#f5f6f8; }
* { box-sizing: border-box; }
body { margin:0; padding:24px 32px 48px; background:var(--bg); color:var(--fg);
  font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif; }
h1 { font-size:24px; margin:0 0 4px; font-weight:650; }
h2 { font-size:16px; margin:0 0 8px; color:var(--muted); font-weight:600; text-transform:uppercase; letter-spacing:.04em; }
h3 { font-size:16px; margin:0; font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; word-break:break-all; }
.headline { margin-left:8px; padding:2px 12px; border-radius:999px; font-size:18px; color:#fff; vertical-align:2px; }
.headline.bad { background:#d1362f; } .headline.warn { background:#c06c00; } .headline.good { background:#2a9d57; }
.comparison { color:var(--muted); margin:4px 0 14px; font-family:ui-monospace,Menlo,Consolas,monospace; }
.tiles { display:flex; gap:10px; flex-wrap:wrap; margin-bottom:18px; }
.tile { background:#fff; border:1px solid var(--line); border-top:4px solid; border-radius:8px; padding:8px 16px; min-width:110px; }
.tile .n { display:block; font-size:26px; font-weight:700; line-height:1.1; }
.tile .label { color:var(--muted); }
section.overview, .card, footer { background:#fff; border:1px solid var(--line); border-radius:10px; padding:16px 20px; margin-bottom:16px; box-shadow:0 1px 2px rgba(16,24,40,.05); }
.card { border-left:6px solid; }
.card > header { display:flex; align-items:center; gap:12px; margin-bottom:6px; }
.badge { color:#fff; border-radius:999px; padding:1px 10px; font-size:12px; font-weight:600; text-transform:uppercase; letter-spacing:.04em; }
.change { font-weight:700; font-size:16px; margin-left:auto; }
svg { display:block; font-family:inherit; }
svg .grid { stroke:#eef0f3; }
svg .tick { font-size:11px; fill:var(--muted); }
svg .axis-title { font-size:12px; fill:var(--muted); }
svg .band { fill:#98a2b3; fill-opacity:.18; }
svg .one { stroke:#344054; stroke-width:1.5; }
svg .stripe { fill:#f8f9fb; }
svg .row-label { font-size:12.5px; font-family:ui-monospace,Menlo,Consolas,monospace; fill:var(--fg); }
svg a:hover .row-label { text-decoration:underline; }
svg .row-verdict { font-size:12px; font-weight:600; }
svg .side-label { font-size:13px; font-weight:700; }
svg .panel-note, svg .hint { font-size:12px; fill:var(--muted); font-style:italic; }
svg .box line { stroke-width:1.5; } svg .box .median { stroke-width:3; } svg .box path { stroke-width:1.5; }
.numbers { display:flex; flex-wrap:wrap; gap:6px 22px; margin:8px 0 0; }
.numbers div { display:flex; gap:6px; } .numbers dt { color:var(--muted); } .numbers dd { margin:0; font-variant-numeric:tabular-nums; font-weight:600; }
.warnings { margin:8px 0 0; padding-left:20px; color:#93370d; }
.run-warning { color:#93370d; }
.failure { background:#fff6ed; border:1px solid #fed7aa; border-radius:6px; padding:10px; overflow-x:auto; font-size:12px; white-space:pre-wrap; }
.nodata { color:var(--muted); font-style:italic; }
footer { color:var(--muted); } footer p { margin:4px 0; } footer b { color:var(--fg); }
footer code { color:var(--fg); }
"#;
