//! Plots of experiment results (plotters), SVG and PNG from one drawing routine.
//!
//! "Risk vs τ" in the style of the papers' figures: one curve per (method, V) from the rows with
//! a τ — solid for aggregation (Majhoo, Agghoo), dashed for CV, one colour per V — and every row
//! without τ (the oracle) as a horizontal line. The plot reads only [`Row`]s, so each experiment
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

/// Writes `<base>.svg` and `<base>.png`: risk vs τ (see the module docs).
pub fn risk_vs_tau(result: &ExperimentResult, base: &Path) -> anyhow::Result<()> {
    register();
    let svg = base.with_extension("svg");
    let png = base.with_extension("png");
    draw(SVGBackend::new(&svg, SIZE).into_drawing_area(), result).with_context(|| format!("drawing {}", svg.display()))?;
    draw(BitMapBackend::new(&png, SIZE).into_drawing_area(), result).with_context(|| format!("drawing {}", png.display()))?;
    Ok(())
}

/// Curves keyed by (method, V), points sorted by τ.
fn curves(rows: &[Row]) -> BTreeMap<(String, usize), Vec<(f64, f64)>> {
    let mut out: BTreeMap<(String, usize), Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows {
        if let Some(tau) = r.tau {
            out.entry((r.method.clone(), r.v.unwrap_or(0))).or_default().push((tau, r.mean));
        }
    }
    out.values_mut().for_each(|c| c.sort_by(|a, b| a.0.total_cmp(&b.0)));
    out
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, result: &ExperimentResult) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e}");
    root.fill(&WHITE).map_err(e)?;
    let curves = curves(&result.rows);
    let lines: Vec<&Row> = result.rows.iter().filter(|r| r.tau.is_none()).collect();
    let taus = curves.values().flatten().map(|p| p.0);
    let (x0, x1) = taus.clone().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), t| (a.min(t), b.max(t)));
    if !x0.is_finite() {
        return Err(anyhow!("no rows with a training fraction τ to plot"));
    }
    let y_max = result.rows.iter().map(|r| r.mean).fold(0.0f64, f64::max) * 1.08;
    let y_max = if y_max > 0.0 { y_max } else { 1.0 };
    let vs: Vec<usize> = {
        let mut v: Vec<usize> = curves.keys().map(|k| k.1).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let title = format!("{}: {} vs τ ({} repetitions, n = {})", result.experiment, result.metric, result.reps, result.n);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((x0 - 0.02)..(x1 + 0.02), 0.0..y_max)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("training fraction τ")
        .y_desc(result.metric.as_str())
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)?;
    for ((method, v), points) in &curves {
        let c = colour(vs.iter().position(|x| x == v).unwrap_or(0));
        let label = format!("{method} V={v}");
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
    // The first reference line (the oracle) in black, further ones (diagnostics) in grey.
    for (i, row) in lines.into_iter().enumerate() {
        let label = format!("{} ({})", row.method, format_value(row.mean));
        let c = if i == 0 { BLACK } else { RGBColor(150, 150, 150) };
        chart
            .draw_series(LineSeries::new([(x0 - 0.02, row.mean), (x1 + 0.02, row.mean)], c.stroke_width(2)))
            .map_err(e)?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font(("sans-serif", 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(e)?;
    root.present().map_err(e)?;
    Ok(())
}

fn format_value(x: f64) -> String {
    format!("{x:.4}")
}
