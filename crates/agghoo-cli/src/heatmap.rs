//! The heat map of a two-axis grid: mean CV risk over axis 1 × axis 2, as CSV, SVG and PNG.

use std::path::{Path, PathBuf};

use agghoo::family::{Axis, AxisValue};
use agghoo::select::Report;
use anyhow::{Context, anyhow};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::output::num;
use crate::plot;

/// The CV risk of each cell `[i][j]` (i along the first axis, j along the second; `None` where
/// the grid has no such point).
struct Table<'a> {
    axes: &'a [Axis],
    cells: Vec<Vec<Option<f64>>>,
    loss: &'a str,
    best: (usize, usize),
}

fn with(prefix: &Path, suffix: &str) -> PathBuf {
    let mut p = prefix.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// Writes `PREFIX-heatmap.{csv,svg,png}` for a report over exactly two axes of one family.
///
/// # Errors
/// A usage error for another grid; write and drawing errors.
pub fn write(prefix: &Path, report: &Report) -> anyhow::Result<()> {
    let (Some(families), Some(points)) = (&report.axes, &report.grid_points) else {
        return Err(crate::args::UsageError("--plot draws the heat map of a two-axis grid (--grid A=… --grid B=…)".into()).into());
    };
    if families.len() != 1 || families[0].axes.len() != 2 {
        return Err(crate::args::UsageError("--plot draws the heat map of one family over exactly two axes".into()).into());
    }
    let axes = &families[0].axes;
    let position = |axis: &Axis, v: &AxisValue| axis.values.iter().position(|x| x == v);
    let mut cells = vec![vec![None; axes[1].values.len()]; axes[0].values.len()];
    let mut text = format!("{},{},cv_risk,standard_error\n", axes[0].name, axes[1].name);
    let mut best = (0, 0);
    let mut best_risk = f64::INFINITY;
    for (m, p) in points.iter().enumerate() {
        let (Some(a), Some(b)) = (p.values.get(&axes[0].name), p.values.get(&axes[1].name)) else { continue };
        let risk = report.cv_curve.mean[m];
        text.push_str(&format!(
            "{},{},{risk},{}\n",
            crate::output::csv_field(&a.to_string()),
            crate::output::csv_field(&b.to_string()),
            report.cv_curve.standard_error[m]
        ));
        if let (Some(i), Some(j)) = (position(&axes[0], a), position(&axes[1], b)) {
            cells[i][j] = Some(risk);
            if risk < best_risk {
                best_risk = risk;
                best = (i, j);
            }
        }
    }
    crate::output::write_file(&with(prefix, "-heatmap.csv"), "the heat map (--plot)", text)?;
    let table = Table { axes, cells, loss: &report.loss, best };
    plot::register();
    let (svg, png) = (with(prefix, "-heatmap.svg"), with(prefix, "-heatmap.png"));
    draw(SVGBackend::new(&svg, (800, 600)).into_drawing_area(), &table).with_context(|| format!("drawing {}", svg.display()))?;
    draw(BitMapBackend::new(&png, (800, 600)).into_drawing_area(), &table).with_context(|| format!("drawing {}", png.display()))
}

/// A colour from dark blue (low risk) to yellow (high risk).
fn colour(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let lerp = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    RGBColor(lerp(40.0, 250.0), lerp(30.0, 230.0), lerp(110.0, 40.0))
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, table: &Table<'_>) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e}");
    root.fill(&WHITE).map_err(e)?;
    let (n0, n1) = (table.cells.len(), table.cells.first().map_or(0, Vec::len));
    let risks: Vec<f64> = table.cells.iter().flatten().flatten().copied().collect();
    let (lo, hi) = risks.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &r| (a.min(r), b.max(r)));
    let span = (hi - lo).max(1e-300);
    let label = |axis: &Axis, x: f64| {
        let i = x.floor();
        if x - i > 0.45 && x - i < 0.55 && i >= 0.0 { axis.values.get(i as usize).map_or(String::new(), short) } else { String::new() }
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("CV risk ({}) — min {} (blue) to max {} (yellow)", table.loss, num(lo), num(hi)), ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..n0 as f64, 0.0..n1 as f64)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(4 * n0 + 1)
        .y_labels(4 * n1 + 1)
        .x_label_formatter(&|x| label(&table.axes[0], *x))
        .y_label_formatter(&|y| label(&table.axes[1], *y))
        .x_desc(table.axes[0].name.as_str())
        .y_desc(table.axes[1].name.as_str())
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 17))
        .draw()
        .map_err(e)?;
    let cells = table.cells.iter().enumerate().flat_map(|(i, row)| row.iter().enumerate().map(move |(j, r)| (i, j, *r)));
    chart
        .draw_series(cells.map(|(i, j, r)| {
            let fill = r.map_or(RGBColor(220, 220, 220), |r| colour((r - lo) / span));
            Rectangle::new([(i as f64, j as f64), (i as f64 + 1.0, j as f64 + 1.0)], fill.filled())
        }))
        .map_err(e)?;
    let (bi, bj) = table.best;
    chart
        .draw_series(std::iter::once(Rectangle::new([(bi as f64, bj as f64), (bi as f64 + 1.0, bj as f64 + 1.0)], WHITE.stroke_width(3))))
        .map_err(e)?;
    root.present().map_err(e)?;
    Ok(())
}

/// A tick label.
fn short(v: &AxisValue) -> String {
    match v {
        AxisValue::Number(x) => num(*x),
        AxisValue::Text(t) => t.clone(),
    }
}
