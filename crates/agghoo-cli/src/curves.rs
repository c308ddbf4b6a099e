//! Learning and validation curves: CSV data and SVG/PNG plots (mean ± one standard error band).

use std::path::{Path, PathBuf};

use agghoo::estimate::{LearningCurve, ValidationCurve};
use anyhow::{Context, anyhow};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::plot;

/// One curve to draw: (x, mean, standard error) points of one loss.
struct Curve<'a> {
    title: String,
    x_desc: &'a str,
    y_desc: String,
    points: Vec<(f64, f64, f64)>,
    log_x: bool,
}

fn with(prefix: &Path, suffix: &str) -> PathBuf {
    let mut p = prefix.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// Writes `PREFIX-learning.{csv,svg,png}` and `PREFIX-validation.{csv,svg,png}` for the curves
/// given (the plots show the first loss).
pub fn write(
    prefix: &Path,
    hyperparameter: &str,
    learning: Option<&LearningCurve>,
    validation: Option<&ValidationCurve>,
) -> anyhow::Result<()> {
    if let Some(l) = learning {
        let mut text = String::from("n_train,loss,estimate,standard_error\n");
        for p in &l.points {
            for s in &p.summaries {
                text.push_str(&format!(
                    "{},{},{},{}\n",
                    p.n_train,
                    crate::output::csv_field(&s.loss),
                    s.estimate,
                    s.standard_error.map_or(String::new(), |e| e.to_string())
                ));
            }
        }
        crate::output::write_file(&with(prefix, "-learning.csv"), "the learning curve (--curve-out)", text)?;
        let points =
            l.points.iter().map(|p| (p.n_train as f64, p.summaries[0].estimate, p.summaries[0].standard_error.unwrap_or(0.0))).collect();
        let loss = l.points.first().map_or(String::new(), |p| p.summaries[0].loss.clone());
        draw_both(
            &with(prefix, "-learning"),
            &Curve { title: "learning curve".into(), x_desc: "training-set size", y_desc: format!("risk ({loss})"), points, log_x: false },
        )?;
    }
    if let Some(v) = validation {
        let mut text = String::from("value,loss,estimate,standard_error\n");
        for p in &v.points {
            for s in &p.summaries {
                text.push_str(&format!(
                    "{},{},{},{}\n",
                    p.value,
                    crate::output::csv_field(&s.loss),
                    s.estimate,
                    s.standard_error.map_or(String::new(), |e| e.to_string())
                ));
            }
        }
        crate::output::write_file(&with(prefix, "-validation.csv"), "the validation curve (--curve-out)", text)?;
        let points: Vec<(f64, f64, f64)> =
            v.points.iter().map(|p| (p.value, p.summaries[0].estimate, p.summaries[0].standard_error.unwrap_or(0.0))).collect();
        // λ-like grids spanning decades read better on a log axis.
        let (lo, hi) = points.iter().fold((f64::INFINITY, 0.0f64), |(a, b), p| (a.min(p.0), b.max(p.0)));
        let log_x = lo > 0.0 && hi / lo > 100.0;
        let loss = v.points.first().map_or(String::new(), |p| p.summaries[0].loss.clone());
        draw_both(
            &with(prefix, "-validation"),
            &Curve {
                title: "validation curve (CV risk ± 1 SE)".into(),
                x_desc: hyperparameter,
                y_desc: format!("risk ({loss})"),
                points,
                log_x,
            },
        )?;
    }
    Ok(())
}

fn draw_both(base: &Path, curve: &Curve<'_>) -> anyhow::Result<()> {
    plot::register();
    let svg = base.with_extension("svg");
    let png = base.with_extension("png");
    draw(SVGBackend::new(&svg, (800, 500)).into_drawing_area(), curve).with_context(|| format!("drawing {}", svg.display()))?;
    draw(BitMapBackend::new(&png, (800, 500)).into_drawing_area(), curve).with_context(|| format!("drawing {}", png.display()))
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, curve: &Curve<'_>) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e}");
    root.fill(&WHITE).map_err(e)?;
    if curve.points.is_empty() {
        return Err(anyhow!("no points to plot"));
    }
    let tx = |x: f64| if curve.log_x { x.log10() } else { x };
    let (x0, x1) = curve.points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(tx(p.0)), b.max(tx(p.0))));
    let pad = ((x1 - x0) * 0.03).max(1e-9);
    let y1 = curve.points.iter().map(|p| p.1 + p.2).fold(0.0f64, f64::max) * 1.08;
    let y0 = curve.points.iter().map(|p| p.1 - p.2).fold(f64::INFINITY, f64::min).max(0.0) * 0.92;
    let x_desc = if curve.log_x { format!("{} (log10)", curve.x_desc) } else { curve.x_desc.to_string() };
    let mut chart = ChartBuilder::on(&root)
        .caption(&curve.title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), y0..y1.max(y0 + 1e-9))
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(curve.y_desc.as_str())
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .draw()
        .map_err(e)?;
    let c = plot::colour(0);
    let band: Vec<(f64, f64)> =
        curve.points.iter().map(|p| (tx(p.0), p.1 + p.2)).chain(curve.points.iter().rev().map(|p| (tx(p.0), p.1 - p.2))).collect();
    chart.draw_series(std::iter::once(Polygon::new(band, c.mix(0.2).filled()))).map_err(e)?;
    chart.draw_series(LineSeries::new(curve.points.iter().map(|p| (tx(p.0), p.1)), c.stroke_width(2))).map_err(e)?;
    chart.draw_series(curve.points.iter().map(|p| Circle::new((tx(p.0), p.1), 3, c.filled()))).map_err(e)?;
    root.present().map_err(e)?;
    Ok(())
}
