//! `agghoo study`: the real-data study (protocol in `agghoo::experiments::study`). The summary
//! and decomposition tables on stdout; `study.json`, `study.md` (summary, decomposition and
//! per-data-set tables) and two plots in `--out`; with `--sizes`, the same JSON and Markdown per
//! larger size (`study-nSIZE.*`) and the size axis (`study-sizes.md`); a progress bar per (set,
//! family, repetition).

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use agghoo::Seed;
use agghoo::data::study::StudyManifest;
use agghoo::experiments::study::{
    self, COMPARISONS, Cell, PROCEDURES, ProcedureKind, REFERENCE, StudyConfig, StudyFamily, StudyResult, StudySpec, Tally, Verdict,
};
use agghoo::resample::PlanKind;
use agghoo::select::Method;
use anyhow::{Context, anyhow};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Serialize;

use crate::args::{StudyArgs, UsageError};
use crate::output;
use crate::plot::{colour, legend_and_present, register};

/// The JSON document: the library's result plus the wall time.
#[derive(Serialize)]
struct Outcome<'a> {
    #[serde(flatten)]
    result: &'a StudyResult,
    wall_seconds: f64,
    threads: usize,
}

/// `--sets confirmation`: the whole manifest of the confirmation folder.
fn confirmation(args: &StudyArgs) -> bool {
    matches!(args.sets.as_slice(), [one] if one.trim() == "confirmation")
}

/// The library's spec of the flags (the first of `--sizes` caps the training rows).
fn spec_of(args: &StudyArgs) -> StudySpec {
    let sets = if confirmation(args) {
        Some(Vec::new())
    } else {
        (!args.sets.is_empty()).then(|| args.sets.iter().map(|s| s.trim().to_string()).collect())
    };
    StudySpec {
        quick: args.quick,
        sets,
        families: (!args.families.is_empty()).then(|| args.families.clone()),
        reps: args.reps,
        seed: args.seed.map(Seed),
        max_train: args.sizes.first().copied().or(args.max_train),
        max_test: args.max_test,
        forest_trees: args.forest_trees,
        alpha: args.alpha,
        tie: args.tie,
    }
}

fn config_of(args: &StudyArgs) -> anyhow::Result<StudyConfig> {
    let c = spec_of(args).config()?;
    if let Some(pair) = args.sizes.windows(2).find(|w| w[0] >= w[1]) {
        return Err(UsageError(format!("--sizes: increasing sizes expected, got {} then {}", pair[0], pair[1])).into());
    }
    Ok(c)
}

/// The run at a larger size of `--sizes`: the sets large enough, `--size-reps` repetitions and
/// `--size-families` families.
fn config_at(args: &StudyArgs, manifest: &StudyManifest, base: &StudyConfig, size: usize) -> anyhow::Result<StudyConfig> {
    let mut c = base.clone();
    c.max_train = size;
    c.sets = study::sets_of_size(manifest, &base.sets, size)?;
    c.reps = args.size_reps.unwrap_or(base.reps);
    if !args.size_families.is_empty() {
        c.families = args.size_families.iter().map(|f| StudyFamily::parse(f)).collect::<agghoo::Result<_>>()?;
    }
    c.check()?;
    Ok(c)
}

/// Runs one configuration with its progress bar; the result and the wall time.
fn run_one(manifest: &StudyManifest, config: StudyConfig, json: bool) -> anyhow::Result<(StudyConfig, StudyResult, f64)> {
    let n_sets = if config.sets.is_empty() { manifest.sets().len() } else { config.sets.len() };
    let bar = output::Bar::new((n_sets * config.families.len() * config.reps) as u64, "study", json);
    let start = Instant::now();
    let result = study::run_with(manifest, &config, &bar.executor())?;
    let wall_seconds = start.elapsed().as_secs_f64();
    bar.0.finish_and_clear();
    Ok((config, result, wall_seconds))
}

pub fn run(args: StudyArgs) -> anyhow::Result<()> {
    let data_dir = if confirmation(&args) { args.data_dir.join("confirmation") } else { args.data_dir.clone() };
    let manifest = StudyManifest::read(&data_dir)
        .with_context(|| format!("reading the study folder {} (set it with --data-dir)", data_dir.display()))?;
    let config = config_of(&args)?;
    // Every larger size is checked (its sets, families, repetitions) before the first runs.
    let larger = args.sizes.iter().skip(1).map(|&size| config_at(&args, &manifest, &config, size)).collect::<anyhow::Result<Vec<_>>>()?;
    let (config, result, wall_seconds) = run_one(&manifest, config, args.json)?;
    let threads = rayon::current_num_threads();

    let outcome = Outcome { result: &result, wall_seconds, threads };
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let json_path = args.out.join("study.json");
    output::write_json(&json_path, "study", &config, Some(config.seed.0), &outcome)?;
    let md_path = args.out.join("study.md");
    output::write_file(&md_path, "the study report", markdown(&result, wall_seconds, threads))?;
    let relative = args.out.join("study-relative");
    let tau = args.out.join("study-tau");
    plot(&result, &relative, &tau)?;
    let mut axis = vec![(result.clone(), wall_seconds)];
    for c in larger {
        if c.sets.is_empty() {
            eprintln!("agghoo: warning: --sizes: no chosen set has {} training rows (⌊0.7 n⌋); that size is skipped", c.max_train);
            continue;
        }
        let (c, r, secs) = run_one(&manifest, c, args.json)?;
        let base = args.out.join(format!("study-n{}", c.max_train));
        output::write_json(
            &base.with_extension("json"),
            "study",
            &c,
            Some(c.seed.0),
            &Outcome { result: &r, wall_seconds: secs, threads },
        )?;
        output::write_file(&base.with_extension("md"), "the study report", markdown(&r, secs, threads))?;
        axis.push((r, secs));
    }
    let sizes_path = args.out.join("study-sizes.md");
    if axis.len() > 1 {
        output::write_file(&sizes_path, "the size axis", size_axis(&axis, threads))?;
    }
    if args.json {
        return output::print_json("study", &config, Some(config.seed.0), &outcome);
    }
    for (r, _) in &axis {
        print_result(r)?;
    }
    if axis.len() > 1 {
        output::print(&format!("Sizes: {}", sizes_path.display()))?;
    }
    output::print(&format!(
        "{} cells ({} failed), seed {}; {:.1} s on {} threads. Wrote {}, {}, {}.{{svg,png}}, {}.{{svg,png}}",
        result.cells.len(),
        result.cells.iter().filter(|c| c.error.is_some()).count(),
        result.seed.0,
        axis.iter().map(|(_, s)| s).sum::<f64>(),
        threads,
        json_path.display(),
        md_path.display(),
        relative.display(),
        tau.display()
    ))
}

/// The summary and decomposition tables of one run, and its failed cells.
fn print_result(result: &StudyResult) -> anyhow::Result<()> {
    output::print(&format!(
        "Test risk relative to 10-fold CV (geometric mean over data sets); wins / ties / losses against it \
         (corrected resampled t-test, α = {}), over {} outer splits, at most {} training rows, ties to the {} grid value",
        result.alpha,
        result.reps,
        result.max_train,
        tie_name(result)
    ))?;
    output::print(&summary_table(result).to_string())?;
    output::print("Where the gain comes from: each ratio's geometric mean over data sets (wins / ties / losses of the first)")?;
    output::print(&comparison_table(result).to_string())?;
    for c in result.cells.iter().filter(|c| c.error.is_some()) {
        output::print(&format!("failed: {} × {}: {}", c.set, c.family.name(), c.error.as_deref().unwrap_or("")))?;
    }
    Ok(())
}

fn tie_name(result: &StudyResult) -> &'static str {
    match result.tie {
        agghoo::engine::TieRule::First => "smallest",
        agghoo::engine::TieRule::Last => "largest",
    }
}

/// A tally as a table cell: "0.912 (12/20/3)" (geometric mean ratio, wins / ties / losses).
fn tally_cell(t: &Tally) -> String {
    format!("{:.3} ({}/{}/{})", t.relative, t.wins, t.ties, t.losses)
}

/// One comparison cell: "0.912 (12/20/3)".
fn comparison_cell(result: &StudyResult, family: StudyFamily, label: &str) -> String {
    match result.comparisons.iter().find(|s| s.family == family && s.label == label) {
        Some(s) => tally_cell(&s.tally),
        None => "-".into(),
    }
}

fn comparison_table(result: &StudyResult) -> comfy_table::Table {
    let fams = families(result);
    let mut header = vec!["ratio".to_string()];
    header.extend(fams.iter().map(|f| f.name().to_string()));
    let mut t = output::table(&header.iter().map(String::as_str).collect::<Vec<_>>());
    for (label, _, _) in COMPARISONS {
        let mut line = vec![label.to_string()];
        line.extend(fams.iter().map(|&f| comparison_cell(result, f, label)));
        t.add_row(line);
    }
    t
}

/// The size axis: per size and family, the sets and the decomposition ratios.
fn size_axis(axis: &[(StudyResult, f64)], threads: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "### The training-size axis\n\nPer size (the cap on the outer training rows) and family: the sets run, the outer splits, \
         then each ratio's geometric mean over those sets (wins / ties / losses of the first at α = {}).\n",
        axis[0].0.alpha
    );
    let _ = write!(s, "| training rows | family | sets | outer splits |");
    for (label, _, _) in COMPARISONS {
        let _ = write!(s, " {label} |");
    }
    let _ = writeln!(s, "\n|---|---|---|---|{}", "---|".repeat(COMPARISONS.len()));
    for (r, _) in axis {
        for f in families(r) {
            let sets = r.cells.iter().filter(|c| c.family == f && c.error.is_none()).count();
            let _ = write!(s, "| {} | {} | {} | {} |", r.max_train, f.name(), sets, r.reps);
            for (label, _, _) in COMPARISONS {
                let _ = write!(s, " {} |", comparison_cell(r, f, label));
            }
            let _ = writeln!(s);
        }
    }
    let total: f64 = axis.iter().map(|(_, secs)| secs).sum();
    let _ = writeln!(s, "\nRun time {total:.0} s on {threads} threads ({:.2} CPU-hours at most).", total * threads as f64 / 3600.0);
    s
}

fn families(result: &StudyResult) -> Vec<StudyFamily> {
    let mut out: Vec<StudyFamily> = Vec::new();
    for c in &result.cells {
        if !out.contains(&c.family) {
            out.push(c.family);
        }
    }
    out
}

/// One summary cell: "0.987 (3/30/6)".
fn summary_cell(result: &StudyResult, family: StudyFamily, k: usize) -> String {
    let procedure = PROCEDURES[k].0;
    match result.summary.iter().find(|s| s.family == family && s.procedure == procedure) {
        Some(s) if k == REFERENCE => format!("1 ({} sets)", s.tally.sets),
        Some(s) => tally_cell(&s.tally),
        None => "-".into(),
    }
}

fn summary_table(result: &StudyResult) -> comfy_table::Table {
    let fams = families(result);
    let mut header = vec!["procedure".to_string()];
    header.extend(fams.iter().map(|f| f.name().to_string()));
    header.push("fits".into());
    let mut t = output::table(&header.iter().map(String::as_str).collect::<Vec<_>>());
    for (k, (p, _)) in PROCEDURES.iter().enumerate() {
        let mut line = vec![p.label()];
        line.extend(fams.iter().map(|&f| summary_cell(result, f, k)));
        let ran: Vec<f64> = result.summary.iter().filter(|s| s.procedure == *p && s.tally.sets > 0).map(|s| s.fits).collect();
        let fits = ran.iter().sum::<f64>() / ran.len().max(1) as f64;
        line.push(format!("{fits:.1}"));
        t.add_row(line);
    }
    t
}

fn mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Win => " ▲",
        Verdict::Loss => " ▼",
        Verdict::Tie | Verdict::Reference => "",
    }
}

/// The Markdown report: summary, cost, per-family tables of every data set, failures.
fn markdown(result: &StudyResult, wall_seconds: f64, threads: usize) -> String {
    let fams = families(result);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Outer splits: {}; at most {} training and {} test rows per split; seed {}; paired tests at α = {}; ties to the {} grid value. \
         Run time {:.0} s on {} threads.\n",
        result.reps,
        result.max_train,
        result.max_test,
        result.seed.0,
        result.alpha,
        tie_name(result),
        wall_seconds,
        threads
    );
    let _ = writeln!(s, "### Summary: test risk relative to 10-fold CV, geometric mean over data sets (wins / ties / losses)\n");
    let _ = write!(s, "| procedure |");
    for f in &fams {
        let _ = write!(s, " {} |", f.name());
    }
    let _ = writeln!(s, " fits per outer split | seconds per outer split |\n|---|{}---|---|", "---|".repeat(fams.len()));
    for (k, (p, _)) in PROCEDURES.iter().enumerate() {
        let _ = write!(s, "| {} |", p.label());
        for &f in &fams {
            let _ = write!(s, " {} |", summary_cell(result, f, k));
        }
        let rows: Vec<_> = result.summary.iter().filter(|r| r.procedure == *p && r.tally.sets > 0).collect();
        let fits = rows.iter().map(|r| r.fits).sum::<f64>() / rows.len().max(1) as f64;
        let secs = rows.iter().map(|r| r.seconds).sum::<f64>() / rows.len().max(1) as f64;
        let _ = writeln!(s, " {fits:.1} | {} |", output::num(secs));
    }
    let _ = writeln!(
        s,
        "\n### Where the gain comes from: ensemble or per-split selection\n\n\
         Geometric mean over data sets of each ratio of mean test risks (wins / ties / losses of the numerator, paired \
         corrected resampled t-test at α = {}). Subagging is CV's choice trained on Agghoo's subsamples (τ = 0.8, V = 10), \
         bagging CV's choice on 10 bootstrap resamples; agghoo / cv = ensemble × selection.\n",
        result.alpha
    );
    let _ = write!(s, "| ratio |");
    for f in &fams {
        let _ = write!(s, " {} |", f.name());
    }
    let _ = writeln!(s, "\n|---|{}", "---|".repeat(fams.len()));
    for (label, _, _) in COMPARISONS {
        let _ = write!(s, "| {label} |");
        for &f in &fams {
            let _ = write!(s, " {} |", comparison_cell(result, f, label));
        }
        let _ = writeln!(s);
    }
    for &f in &fams {
        let cells: Vec<&Cell> = result.cells.iter().filter(|c| c.family == f).collect();
        let _ = writeln!(
            s,
            "\n### {}: per data set\n\nMean test risk of 10-fold CV ± its standard error, then each procedure's risk relative to it \
             (▲ significantly lower, ▼ significantly higher); the reference forest relative to CV last.\n",
            f.name()
        );
        let _ = write!(s, "| set | learner | n | train / test | cv V=10 |");
        for (p, _) in PROCEDURES.iter().skip(1) {
            let _ = write!(s, " {} |", p.label());
        }
        let _ = writeln!(s, " forest |\n|---|---|---|---|---|{}---|", "---|".repeat(PROCEDURES.len() - 1));
        for c in cells {
            let _ = write!(s, "| {} | {} | {} | {} / {} |", c.set, c.learner, c.n_rows, c.n_train, c.n_test);
            if let Some(e) = &c.error {
                let _ = writeln!(s, " failed: {} |", e.replace('|', "/"));
                continue;
            }
            let cv = &c.rows[REFERENCE];
            let _ = write!(s, " {} ± {} |", output::num(cv.mean), output::num(cv.standard_error));
            for r in c.rows.iter().skip(1) {
                let _ = write!(s, " {:.3}{} |", r.relative, mark(r.verdict));
            }
            let forest = if c.forest.is_empty() || cv.mean <= 0.0 {
                "-".to_string()
            } else {
                format!("{:.3}", c.forest.iter().sum::<f64>() / c.forest.len() as f64 / cv.mean)
            };
            let _ = writeln!(s, " {forest} |");
        }
    }
    s
}

const SIZE: (u32, u32) = (1100, 760);

/// `relative`: per family, each procedure's relative risk on every set (dots, log scale) and the
/// geometric mean (bar); `tau`: Agghoo's geometric-mean relative risk against τ, one line per
/// family and V, with MC-CV and hold-out at τ = 0.8 as markers.
fn plot(result: &StudyResult, relative: &Path, tau: &Path) -> anyhow::Result<()> {
    register();
    let (svg, png) = (relative.with_extension("svg"), relative.with_extension("png"));
    dots(SVGBackend::new(&svg, SIZE).into_drawing_area(), result).with_context(|| format!("drawing {}", svg.display()))?;
    dots(BitMapBackend::new(&png, SIZE).into_drawing_area(), result).with_context(|| format!("drawing {}", png.display()))?;
    let (svg, png) = (tau.with_extension("svg"), tau.with_extension("png"));
    tau_lines(SVGBackend::new(&svg, SIZE).into_drawing_area(), result).with_context(|| format!("drawing {}", svg.display()))?;
    tau_lines(BitMapBackend::new(&png, SIZE).into_drawing_area(), result).with_context(|| format!("drawing {}", png.display()))?;
    Ok(())
}

/// A label short enough for the dot plot's axis: `1se`, `acv`, `ekcv`, `ho .8`, `mc .8`, `a .8/5`, ...
fn short_label(k: usize) -> String {
    let p = PROCEDURES[k].0;
    let tau = p.tau.map_or_else(String::new, |t| format!("{t}").trim_start_matches('0').to_string());
    match p.kind {
        ProcedureKind::Select { one_se: true, .. } => "1se".into(),
        ProcedureKind::Select { method: Method::HoldOut, .. } => format!("ho {tau}"),
        ProcedureKind::Select { method: Method::Cv, plan: PlanKind::MonteCarlo, .. } => format!("mc {tau}"),
        ProcedureKind::Select { method: Method::Agghoo, .. } => format!("a {tau}/{}", p.v),
        ProcedureKind::Subagging => format!("sub {tau}"),
        ProcedureKind::Bagging => "bag".into(),
        other => other.name(),
    }
}

fn dots<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, result: &StudyResult) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e}");
    root.fill(&WHITE).map_err(e)?;
    let fams = families(result);
    let (top, rest) = root.split_vertically(40);
    top.draw_text(
        &format!(
            "Test risk relative to 10-fold CV per data set (dots), geometric mean (bar); {} outer splits. \
             a τ/V = Agghoo, mc = MC-CV, ho = hold-out, sub/bag = subagging/bagging at CV's choice",
            result.reps
        ),
        &("sans-serif", 19).into_font().color(&BLACK),
        (12, 10),
    )
    .map_err(e)?;
    let panels = rest.split_evenly((fams.len().div_ceil(2), 2.min(fams.len())));
    let others: Vec<usize> = (0..PROCEDURES.len()).filter(|&k| k != REFERENCE).collect();
    let values = |f: StudyFamily, k: usize| -> Vec<f64> {
        result
            .cells
            .iter()
            .filter(|c| c.family == f && c.error.is_none())
            .map(|c| c.rows[k].relative)
            .filter(|r| r.is_finite() && *r > 0.0)
            .collect()
    };
    let (lo, hi) = fams
        .iter()
        .flat_map(|&f| others.iter().flat_map(move |&k| values(f, k)))
        .fold((1.0f64, 1.0f64), |(a, b), r| (a.min(r.log2()), b.max(r.log2())));
    let (lo, hi) = (lo.max(-2.0) - 0.05, hi.min(2.0) + 0.05);
    for (panel, &f) in panels.iter().zip(&fams) {
        let mut chart = ChartBuilder::on(panel)
            .caption(f.name(), ("sans-serif", 18))
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(55)
            .build_cartesian_2d(-0.5..(others.len() as f64 - 0.5), lo..hi)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_labels(others.len())
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 {
                    others.get(i as usize).map_or_else(String::new, |&k| short_label(k))
                } else {
                    String::new()
                }
            })
            .x_label_style(("sans-serif", 12))
            .y_label_formatter(&|y| format!("{:.2}", 2f64.powf(*y)))
            .y_desc("relative risk (log scale)")
            .label_style(("sans-serif", 12))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(e)?;
        chart.draw_series(LineSeries::new([(-0.5, 0.0), (others.len() as f64 - 0.5, 0.0)], BLACK.stroke_width(1))).map_err(e)?;
        for (i, &k) in others.iter().enumerate() {
            let v = values(f, k);
            let n = v.len().max(1) as f64;
            let grey = RGBColor(120, 120, 120).mix(0.55);
            chart
                .draw_series(
                    v.iter()
                        .enumerate()
                        .map(|(j, r)| Circle::new((i as f64 - 0.25 + 0.5 * j as f64 / n, r.log2().clamp(lo, hi)), 2, grey.filled())),
                )
                .map_err(e)?;
            if !v.is_empty() {
                let g = v.iter().map(|r| r.log2()).sum::<f64>() / v.len() as f64;
                chart.draw_series(LineSeries::new([(i as f64 - 0.35, g), (i as f64 + 0.35, g)], colour(3).stroke_width(3))).map_err(e)?;
            }
        }
    }
    root.present().map_err(e)?;
    Ok(())
}

fn tau_lines<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, result: &StudyResult) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e}");
    root.fill(&WHITE).map_err(e)?;
    let fams = families(result);
    let agghoo = PROCEDURES[study::AGGHOO].0.kind;
    let find = |f: StudyFamily, kind, tau: f64, v: usize| {
        result
            .summary
            .iter()
            .find(|s| s.family == f && s.procedure.kind == kind && s.procedure.tau == Some(tau) && s.procedure.v == v)
            .map(|s| s.tally.relative)
            .filter(|r| r.is_finite())
    };
    let all: Vec<f64> = result.summary.iter().map(|s| s.tally.relative).filter(|r| r.is_finite()).collect();
    let (lo, hi) = all.iter().fold((1.0f64, 1.0f64), |(a, b), &r| (a.min(r), b.max(r)));
    let pad = (hi - lo).max(0.02) * 0.1;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("Agghoo / Majhoo vs τ: test risk relative to 10-fold CV (geometric mean over sets, {} outer splits)", result.reps),
            ("sans-serif", 18),
        )
        .margin(14)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(0.45..0.85, (lo - pad)..(hi + pad))
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("training fraction τ")
        .y_desc("relative test risk")
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(LineSeries::new([(0.45, 1.0), (0.85, 1.0)], BLACK.stroke_width(1)))
        .map_err(e)?
        .label("10-fold CV")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(1)));
    for (i, &f) in fams.iter().enumerate() {
        let c = colour(i);
        for v in [5, 10] {
            let points: Vec<(f64, f64)> = [0.5, 0.8].iter().filter_map(|&t| find(f, agghoo, t, v).map(|r| (t, r))).collect();
            let style = c.stroke_width(if v == 10 { 3 } else { 1 });
            chart
                .draw_series(LineSeries::new(points.iter().copied(), style))
                .map_err(e)?
                .label(format!("{} agghoo V={v}", f.name()))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, c.filled()))).map_err(e)?;
        }
        let marks: Vec<(f64, f64)> = [
            find(f, ProcedureKind::select(Method::Cv, PlanKind::MonteCarlo), 0.8, 10),
            find(f, ProcedureKind::select(Method::HoldOut, PlanKind::HoldOut), 0.8, 1),
        ]
        .into_iter()
        .flatten()
        .map(|r| (0.8 + 0.01 * (i as f64 + 1.0), r))
        .collect();
        chart.draw_series(marks.iter().map(|&p| TriangleMarker::new(p, 5, c.filled()))).map_err(e)?;
    }
    legend_and_present(&mut chart, &root, SeriesLabelPosition::UpperLeft, 12)
}
