//! Plots of experiment results (plotters), SVG and PNG from one drawing routine.
//!
//! "Risk vs τ" in the style of the papers' figures: one curve per (method, V) from the rows with
//! a τ — solid for aggregation (Majhoo, Agghoo), dashed for CV, one colour per V — and every row
//! without τ (the oracle) as a horizontal line; one panel per reading of the protocol when the
//! methods carry one (`agghoo [sd, 1/n, …]`). The plot reads only [`Row`]s, so each experiment
//! gets it for free. The font is embedded (DejaVu Sans) and registered once: plotters' `ab_glyph`
//! backend has no system fonts.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Once;

use agghoo::experiments::{ExperimentResult, Row};
use anyhow::{Context, anyhow};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

pub(crate) fn register() {
    REGISTER.call_once(|| {
        // A failure shows up as the drawing's FontUnavailable error, with context below.
        let _ = register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// Pixel size of the plots.
const SIZE: (u32, u32) = (900, 560);

/// Colour of the i-th V (tab10-like palette).
pub(crate) fn colour(i: usize) -> RGBColor {
    const PALETTE: [RGBColor; 8] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    PALETTE[i % PALETTE.len()]
}

fn is_cv(method: &str) -> bool {
    method.starts_with("cv")
}

/// Writes `<base>.svg` and `<base>.png`: risk vs τ (see the module docs). Methods named
/// `name [reading]` (an experiment run under several readings of its protocol) get one panel per
/// reading, on a shared y axis, instead of one crowded chart.
pub fn risk_vs_tau(result: &ExperimentResult, base: &Path) -> anyhow::Result<()> {
    register();
    let panels = panels(&result.rows);
    let size = if panels.len() > 1 { (1200, 40 + 380 * panels.len().div_ceil(2) as u32) } else { SIZE };
    let svg = base.with_extension("svg");
    let png = base.with_extension("png");
    draw(SVGBackend::new(&svg, size).into_drawing_area(), result, &panels).with_context(|| format!("drawing {}", svg.display()))?;
    draw(BitMapBackend::new(&png, size).into_drawing_area(), result, &panels).with_context(|| format!("drawing {}", png.display()))?;
    Ok(())
}

/// `"agghoo [sd, 1/n]"` → (`"agghoo"`, `Some("sd, 1/n")`); a name without a bracketed reading → (name, `None`).
fn split_reading(method: &str) -> (&str, Option<&str>) {
    match method.split_once(" [") {
        Some((name, rest)) if rest.ends_with(']') => (name, Some(&rest[..rest.len() - 1])),
        _ => (method, None),
    }
}

/// The rows of each panel, keyed by reading (`None`: no reading, a single panel).
fn panels(rows: &[Row]) -> BTreeMap<Option<String>, Vec<&Row>> {
    let mut out: BTreeMap<Option<String>, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        out.entry(split_reading(&r.method).1.map(str::to_string)).or_default().push(r);
    }
    out
}

/// Curves keyed by (method without its reading, V), points sorted by τ.
fn curves(rows: &[&Row]) -> BTreeMap<(String, usize), Vec<(f64, f64)>> {
    let mut out: BTreeMap<(String, usize), Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows {
        if let Some(tau) = r.tau {
            out.entry((split_reading(&r.method).0.to_string(), r.v.unwrap_or(0))).or_default().push((tau, r.mean));
        }
    }
    out.values_mut().for_each(|c| c.sort_by(|a, b| a.0.total_cmp(&b.0)));
    out
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    result: &ExperimentResult,
    panels: &BTreeMap<Option<String>, Vec<&Row>>,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e}");
    root.fill(&WHITE).map_err(e)?;
    let taus = result.rows.iter().filter_map(|r| r.tau);
    let (x0, x1) = taus.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), t| (a.min(t), b.max(t)));
    if !x0.is_finite() {
        return Err(anyhow!("no rows with a training fraction τ to plot"));
    }
    let y_max = result.rows.iter().map(|r| r.mean).fold(0.0f64, f64::max) * 1.08;
    let y_max = if y_max > 0.0 { y_max } else { 1.0 };
    let title = format!("{}: {} vs τ ({} repetitions, n = {})", result.experiment, result.metric, result.reps, result.n);
    if panels.len() == 1 {
        let rows = panels.values().next().map(Vec::as_slice).unwrap_or_default();
        return draw_panel(&root, rows, (title, 22), (x0, x1, y_max), (&result.metric, 13)).and_then(|()| root.present().map_err(e));
    }
    let root = root.titled(&title, ("sans-serif", 22)).map_err(e)?;
    let areas = root.split_evenly((panels.len().div_ceil(2), 2));
    for (area, (reading, rows)) in areas.iter().zip(panels) {
        let caption = reading.clone().unwrap_or_else(|| "other rows".into());
        draw_panel(area, rows, (caption, 16), (x0, x1, y_max), ("risk (see the title)", 11))?;
    }
    root.present().map_err(e)?;
    Ok(())
}

/// One risk-vs-τ chart of `rows` on `area`: a curve per (method, V) — solid for aggregation,
/// dashed for CV, black for an oracle, one colour per V — and each row without τ as a
/// horizontal line (the first black, further ones grey). `frame` = (τ from, τ to, y max);
/// `labels` = (the y axis's description, the legend's font size).
fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[&Row],
    caption: (String, u32),
    frame: (f64, f64, f64),
    labels: (&str, u32),
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e}");
    let (x0, x1, y_max) = frame;
    let curves = curves(rows);
    let lines: Vec<&&Row> = rows.iter().filter(|r| r.tau.is_none()).collect();
    let vs: Vec<usize> = {
        let mut v: Vec<usize> = curves.keys().map(|k| k.1).filter(|&v| v > 0).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let mut chart = ChartBuilder::on(area)
        .caption(caption.0, ("sans-serif", caption.1))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((x0 - 0.02)..(x1 + 0.02), 0.0..y_max)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("training fraction τ")
        .y_desc(labels.0)
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)?;
    for ((method, v), points) in &curves {
        let oracle = method.starts_with("oracle");
        let c = if oracle { BLACK } else { colour(vs.iter().position(|x| x == v).unwrap_or(0)) };
        let label = if *v > 0 { format!("{method} V={v}") } else { method.clone() };
        if is_cv(method) {
            let style = c.stroke_width(2);
            chart.draw_series(DashedLineSeries::new(points.iter().copied(), 8, 5, style)).map_err(e)?.label(label).legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (7, 0)], c.stroke_width(2))
                    + PathElement::new(vec![(12, 0), (20, 0)], c.stroke_width(2))
            });
            chart.draw_series(points.iter().map(|&p| TriangleMarker::new(p, 4, c.filled()))).map_err(e)?;
        } else {
            chart
                .draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(2)))
                .map_err(e)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3)));
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, c.filled()))).map_err(e)?;
        }
    }
    for (i, row) in lines.into_iter().enumerate() {
        let label = format!("{} ({})", split_reading(&row.method).0, format_value(row.mean));
        let c = if i == 0 { BLACK } else { RGBColor(150, 150, 150) };
        chart
            .draw_series(LineSeries::new([(x0 - 0.02, row.mean), (x1 + 0.02, row.mean)], c.stroke_width(2)))
            .map_err(e)?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight, labels.1)
}

/// Draws the legend of `chart` in the house style at `position` and presents `root`.
pub(crate) fn legend_and_present<'a, DB: DrawingBackend + 'a, X: Ranged, Y: Ranged>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    root: &DrawingArea<DB, Shift>,
    position: SeriesLabelPosition,
    font_size: u32,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    legend(chart, position, font_size)?;
    root.present().map_err(|e| anyhow!("{e}"))
}

/// Draws the legend of `chart` in the house style at `position`.
fn legend<'a, DB: DrawingBackend + 'a, X: Ranged, Y: Ranged>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    position: SeriesLabelPosition,
    font_size: u32,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(position)
        .label_font(("sans-serif", font_size))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(|e| anyhow!("{e}"))
}

fn format_value(x: f64) -> String {
    format!("{x:.4}")
}

/// Writes the TreeCV experiment's two plots, each as SVG and PNG: `<time>` = wall seconds vs k
/// on log–log axes, `<estimate>` = CV estimate ± standard error vs k (log k axis). One panel per
/// data set (the rows' method prefix before `/`), one line per method and order: TreeCV solid,
/// standard dashed, one colour per order. Rows without a time (other experiments) are ignored.
pub fn treecv(result: &ExperimentResult, time: &Path, estimate: &Path) -> anyhow::Result<()> {
    register();
    for (base, what) in [(time, Quantity::Seconds), (estimate, Quantity::Estimate)] {
        let svg = base.with_extension("svg");
        let png = base.with_extension("png");
        draw_treecv(SVGBackend::new(&svg, SIZE).into_drawing_area(), result, what).with_context(|| format!("drawing {}", svg.display()))?;
        draw_treecv(BitMapBackend::new(&png, SIZE).into_drawing_area(), result, what)
            .with_context(|| format!("drawing {}", png.display()))?;
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq)]
enum Quantity {
    Seconds,
    Estimate,
}

/// TreeCV lines: data set → (method-order → points (k, value, standard error)), sorted by k.
type Panels = BTreeMap<String, BTreeMap<String, Vec<(f64, f64, f64)>>>;

fn treecv_panels(rows: &[Row], what: Quantity) -> Panels {
    let mut out: Panels = BTreeMap::new();
    for r in rows {
        let (Some(k), Some(seconds), Some((dataset, line))) = (r.v, r.seconds, r.method.split_once('/')) else { continue };
        let point = match what {
            Quantity::Seconds => (k as f64, seconds, 0.0),
            Quantity::Estimate => (k as f64, r.mean, r.standard_error),
        };
        out.entry(dataset.to_string()).or_default().entry(line.to_string()).or_default().push(point);
    }
    out.values_mut().flat_map(|p| p.values_mut()).for_each(|c| c.sort_by(|a, b| a.0.total_cmp(&b.0)));
    out
}

fn draw_treecv<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, result: &ExperimentResult, what: Quantity) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e}");
    root.fill(&WHITE).map_err(e)?;
    let panels = treecv_panels(&result.rows, what);
    if panels.is_empty() {
        return Err(anyhow!("no timed rows (k, seconds) to plot"));
    }
    let title = match what {
        Quantity::Seconds => format!("TreeCV vs standard CV: wall time vs k (median of {}, n = {})", result.reps, result.n),
        Quantity::Estimate => format!("TreeCV vs standard CV: CV estimate vs k (mean ± SE over {}, n = {})", result.reps, result.n),
    };
    let root = root.titled(&title, ("sans-serif", 20)).map_err(e)?;
    let areas = root.split_evenly((1, panels.len()));
    for (area, (dataset, lines)) in areas.iter().zip(&panels) {
        let points = lines.values().flatten();
        let (x0, x1) = points.clone().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.0), b.max(p.0)));
        let (y0, y1) = points.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.1 - p.2), b.max(p.1 + p.2)));
        let x_range = (x0 / 1.3)..(x1 * 1.3);
        let y_desc = match what {
            Quantity::Seconds => "wall seconds (log)",
            Quantity::Estimate if dataset == "covertype" => "CV estimate (0-1 loss)",
            Quantity::Estimate => "CV estimate (squared loss)",
        };
        let mut builder = ChartBuilder::on(area);
        builder.caption(dataset.as_str(), ("sans-serif", 18)).margin(10).x_label_area_size(40).y_label_area_size(65);
        // Two coordinate types (log or linear y), one drawing routine.
        macro_rules! body {
            ($chart:expr) => {{
                let mut chart = $chart;
                chart
                    .configure_mesh()
                    .x_desc("number of folds k (log)")
                    .x_label_formatter(&|x| format!("{x:.0}"))
                    .y_desc(y_desc)
                    .label_style(("sans-serif", 13))
                    .axis_desc_style(("sans-serif", 15))
                    .light_line_style(WHITE.mix(0.0))
                    .draw()
                    .map_err(e)?;
                for (line, pts) in lines {
                    let c = colour(if line.ends_with("randomised") { 1 } else { 0 } + 2 * usize::from(line.starts_with("standard")));
                    let xy = pts.iter().map(|p| (p.0, p.1));
                    if line.starts_with("standard") {
                        chart.draw_series(DashedLineSeries::new(xy, 8, 5, c.stroke_width(2))).map_err(e)?
                    } else {
                        chart.draw_series(LineSeries::new(xy, c.stroke_width(2))).map_err(e)?
                    }
                    .label(line.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3)));
                    chart.draw_series(pts.iter().map(|p| Circle::new((p.0, p.1), 3, c.filled()))).map_err(e)?;
                    if what == Quantity::Estimate {
                        chart
                            .draw_series(pts.iter().map(|p| ErrorBar::new_vertical(p.0, p.1 - p.2, p.1, p.1 + p.2, c.stroke_width(1), 6)))
                            .map_err(e)?;
                    }
                }
                let position = if what == Quantity::Seconds { SeriesLabelPosition::LowerRight } else { SeriesLabelPosition::UpperLeft };
                legend(&mut chart, position, 12)?;
            }};
        }
        match what {
            Quantity::Seconds => {
                let y_range = (y0.max(1e-6) / 1.5)..(y1 * 1.5);
                body!(builder.build_cartesian_2d(x_range.log_scale(), y_range.log_scale()).map_err(e)?)
            }
            Quantity::Estimate => {
                let pad = ((y1 - y0) * 0.15).max(1e-4);
                body!(builder.build_cartesian_2d(x_range.log_scale(), (y0 - pad)..(y1 + pad * 3.0)).map_err(e)?)
            }
        }
    }
    root.present().map_err(e)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_with_a_reading_get_one_panel_each() {
        assert_eq!(split_reading("agghoo [sd, 1/n, oracle on D]"), ("agghoo", Some("sd, 1/n, oracle on D")));
        assert_eq!(split_reading("cv+1se"), ("cv+1se", None));
        assert_eq!(split_reading("odd [unclosed"), ("odd [unclosed", None));
        let row = |method: &str, tau: Option<f64>| Row {
            experiment: "svr-readings".into(),
            method: method.into(),
            tau,
            v: None,
            mean: 0.1,
            standard_error: 0.0,
            paper: None,
            seconds: None,
            cpu_seconds: None,
            passes: None,
        };
        let rows = [row("agghoo [a]", Some(0.5)), row("cv [a]", Some(0.5)), row("oracle [b]", None), row("agghoo [b]", Some(0.5))];
        let panels = panels(&rows);
        assert_eq!(panels.keys().cloned().collect::<Vec<_>>(), [Some("a".to_string()), Some("b".to_string())]);
        assert_eq!(panels[&Some("a".to_string())].len(), 2);
        // curves are keyed by the method without its reading
        let curves = curves(&panels[&Some("b".to_string())]);
        assert_eq!(curves.keys().cloned().collect::<Vec<_>>(), [("agghoo".to_string(), 0)]);
        // plain method names: one panel
        assert_eq!(super::panels(&[row("majhoo", Some(0.5)), row("oracle", None)]).len(), 1);
    }
}
