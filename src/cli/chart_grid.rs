//! The two panels of `sweep --chart`: a heatmap of one outcome's probability over two varied
//! inputs, and a line chart of several outcomes' probabilities over one. Like the rest of
//! `chart.rs` they are plain data, drawn with plotters; probabilities are `f64` only here, to be
//! drawn.

use super::chart::{clean, cut, draw_error, fitted, label_width, row_labels, row_y};
use super::CliError;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The lines of a line chart, one colour each (Paul Tol's "bright" scheme, told apart by people
/// with the common colour blindnesses); a chart draws at most this many.
pub const LINES: [RGBColor; 7] = [
    RGBColor(0x44, 0x77, 0xAA),
    RGBColor(0xEE, 0x66, 0x77),
    RGBColor(0x22, 0x88, 0x33),
    RGBColor(0xCC, 0xBB, 0x44),
    RGBColor(0x66, 0xCC, 0xEE),
    RGBColor(0xAA, 0x33, 0x77),
    RGBColor(0x77, 0x77, 0x77),
];
/// A heatmap cell without a probability (the point has no exact odds).
pub const NO_ODDS: RGBColor = RGBColor(0xDD, 0xDD, 0xDD);
/// The colour scale of a heatmap, from 0 to 1: viridis, which reads in order in grey too.
const VIRIDIS: [(u8, u8, u8); 5] = [
    (0x44, 0x01, 0x54),
    (0x3B, 0x52, 0x8B),
    (0x21, 0x91, 0x8C),
    (0x5E, 0xC9, 0x62),
    (0xFD, 0xE7, 0x25),
];
/// Height of a heatmap row, in pixels.
const ROW: u32 = 24;
/// Width of the colour key right of a heatmap.
const KEY: u32 = 84;
/// Most values on one axis of a heatmap; past this a cell would be a pixel.
pub const MAX_CELLS_AXIS: usize = 200;

/// A heatmap: the first axis down, the second across, a probability (or none) in each cell.
pub struct Heatmap {
    pub rows_axis: String,
    pub rows: Vec<String>,
    pub cols_axis: String,
    pub cols: Vec<String>,
    /// `cells[row][col]`.
    pub cells: Vec<Vec<Option<f64>>>,
}

/// Lines over one axis: a line per outcome, its probability at each value (none: a gap).
pub struct Lines {
    pub axis: String,
    pub xs: Vec<String>,
    pub series: Vec<(String, Vec<Option<f64>>)>,
}

/// A probability as a heatmap cell says it: a whole percentage, never `0%` or `100%` for what is
/// not exactly that.
pub fn cell_text(p: f64) -> String {
    let pct = (p * 100.0).round();
    if p > 0.0 && pct < 1.0 {
        "<1%".into()
    } else if p < 1.0 && pct > 99.0 {
        ">99%".into()
    } else {
        format!("{pct:.0}%")
    }
}

/// The colour of probability `p` on the viridis scale.
pub fn colour(p: f64) -> RGBColor {
    let t = p.clamp(0.0, 1.0) * (VIRIDIS.len() - 1) as f64;
    let i = (t.floor() as usize).min(VIRIDIS.len() - 2);
    let f = t - i as f64;
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

pub fn heatmap_height(h: &Heatmap) -> u32 {
    u32::try_from(h.rows.len()).unwrap_or(0).saturating_mul(ROW) + 110
}

pub fn lines_height(l: &Lines) -> u32 {
    360 + 22 * legend_rows(l)
}

/// A panel's title cut to what fits the width at the smallest title size (11 px bold).
fn fit(title: &str) -> String {
    const MOST: usize = 138;
    let title = clean(title);
    if title.chars().count() > MOST {
        format!("{}…", title.chars().take(MOST - 1).collect::<String>())
    } else {
        title
    }
}

/// Every `k`-th label of `n` columns of `width` pixels, so that no two overlap (15 px text is
/// about 8 px a character).
fn label_step(labels: &[String], width: f64) -> usize {
    let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(1) as f64 * 8.0 + 8.0;
    ((widest / width.max(1.0)).ceil() as usize).max(1)
}

pub fn heatmap<DB: DrawingBackend>(area: &DrawingArea<DB, plotters::coord::Shift>, title: &str, h: &Heatmap) -> Result<(), CliError> {
    let (w, _) = area.dim_in_pixel();
    let (left, key) = area.split_horizontally(w.saturating_sub(KEY));
    let labels: Vec<String> = h.rows.iter().map(|r| cut(r)).collect();
    let (n, m) = (h.rows.len().max(1), h.cols.len().max(1));
    let mut chart = ChartBuilder::on(&left)
        .caption(
            fit(title),
            ("sans-serif", fitted(20, &fit(title))).into_font().style(FontStyle::Bold),
        )
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(label_width(&labels) + 24)
        .build_cartesian_2d(0f64..m as f64, 0f64..n as f64)
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(0)
        .y_labels(0)
        .x_desc(clean(&h.cols_axis))
        .y_desc(clean(&h.rows_axis))
        .axis_desc_style(("sans-serif", 16))
        .draw()
        .map_err(draw_error)?;
    row_labels(&chart, &labels)?;
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let cell_w = f64::from(xs.end - xs.start) / m as f64;
    let cell_h = f64::from(ys.end - ys.start) / n as f64;
    let step = label_step(&h.cols, cell_w);
    let below = ("sans-serif", 15).into_font().color(&BLACK).pos(Pos::new(HPos::Center, VPos::Top));
    for (j, c) in h.cols.iter().enumerate().filter(|(j, _)| j % step == 0) {
        let text = EmptyElement::at((j as f64 + 0.5, 0.0)) + Text::new(clean(c), (0, 6), below.clone());
        chart.plotting_area().draw(&text).map_err(draw_error)?;
    }
    // The percentage in each cell where it fits (`>99%` is four characters of 13 px text).
    let with_text = cell_w >= 38.0 && cell_h >= 16.0;
    for (i, row) in h.cells.iter().enumerate() {
        for (j, cell) in row.iter().enumerate() {
            let (x, y) = (j as f64, row_y(i, n));
            let fill = cell.map_or(NO_ODDS, colour);
            chart
                .plotting_area()
                .draw(&Rectangle::new([(x, y + 1.0), (x + 1.0, y)], fill.filled()))
                .map_err(draw_error)?;
            if with_text {
                let (text, ink) = match cell {
                    Some(p) => (cell_text(*p), if *p < 0.6 { WHITE } else { BLACK }),
                    None => ("—".to_string(), BLACK),
                };
                let style = ("sans-serif", 13).into_font().color(&ink).pos(Pos::new(HPos::Center, VPos::Center));
                let label = EmptyElement::at((x + 0.5, y + 0.5)) + Text::new(text, (0, 0), style);
                chart.plotting_area().draw(&label).map_err(draw_error)?;
            }
        }
    }
    // The plotting area's pixels count from the canvas's corner, the key's from its own.
    let base = key.get_base_pixel().1;
    colour_key(&key, ys.start - base, ys.end - base)
}

/// The colour key: a bar from 0% at the bottom to 100% at the top, level with the cells.
fn colour_key<DB: DrawingBackend>(area: &DrawingArea<DB, plotters::coord::Shift>, top: i32, bottom: i32) -> Result<(), CliError> {
    let (top, bottom) = (top, bottom.max(top + 40));
    let steps = 50;
    let span = f64::from(bottom - top);
    for s in 0..steps {
        let y0 = top + (span * f64::from(s) / f64::from(steps)).round() as i32;
        let y1 = top + (span * f64::from(s + 1) / f64::from(steps)).round() as i32;
        let p = 1.0 - (f64::from(s) + 0.5) / f64::from(steps);
        area.draw(&Rectangle::new([(8, y0), (24, y1)], colour(p).filled()))
            .map_err(draw_error)?;
    }
    let style = ("sans-serif", 14).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
    for k in 0..=4 {
        let y = bottom - (span * f64::from(k) / 4.0).round() as i32;
        area.draw(&Text::new(format!("{}%", k * 25), (30, y), style.clone()))
            .map_err(draw_error)?;
    }
    Ok(())
}

/// Rows of the legend above a line chart: as many names a row as fit the width.
fn legend_rows(l: &Lines) -> u32 {
    legend_layout(l).last().map_or(0, |(row, _)| row + 1)
}

/// Each series' legend place: its row, and its x in pixels.
fn legend_layout(l: &Lines) -> Vec<(u32, i32)> {
    let mut out = Vec::new();
    let (mut row, mut x) = (0u32, 80i32);
    for (name, _) in &l.series {
        let w = 14 + 8 * i32::try_from(cut(name).chars().count()).unwrap_or(60) + 24;
        if x + w > 980 && x > 80 {
            row += 1;
            x = 80;
        }
        out.push((row, x));
        x += w;
    }
    out
}

/// Whole numbers along the axis, when every value is one: then the line is drawn to scale.
fn numeric(xs: &[String]) -> Option<Vec<f64>> {
    xs.iter().map(|x| x.parse::<i64>().ok().map(|v| v as f64)).collect()
}

pub fn lines<DB: DrawingBackend>(area: &DrawingArea<DB, plotters::coord::Shift>, title: &str, l: &Lines) -> Result<(), CliError> {
    let legend_h = 22 * legend_rows(l);
    let (legend, plot) = area.split_vertically(legend_h + 34);
    let caption = ("sans-serif", fitted(20, &fit(title)))
        .into_font()
        .style(FontStyle::Bold)
        .color(&BLACK);
    legend.draw(&Text::new(fit(title), (16, 8), caption)).map_err(draw_error)?;
    for (k, ((name, _), (row, x))) in l.series.iter().zip(legend_layout(l)).enumerate() {
        let y = 36 + 22 * i32::try_from(row).unwrap_or(0);
        let colour = LINES[k % LINES.len()];
        legend
            .draw(&Rectangle::new([(x, y + 6), (x + 12, y + 10)], colour.filled()))
            .map_err(draw_error)?;
        let style = ("sans-serif", 15).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Top));
        legend.draw(&Text::new(clean(&cut(name)), (x + 18, y), style)).map_err(draw_error)?;
    }
    let at = numeric(&l.xs);
    let places: Vec<f64> = at.clone().unwrap_or_else(|| (0..l.xs.len()).map(|i| i as f64).collect());
    let (lo, hi) = match &at {
        Some(v) if v.len() > 1 => (
            v.iter().copied().fold(f64::INFINITY, f64::min),
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        ),
        _ => (-0.5, l.xs.len() as f64 - 0.5),
    };
    let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 0.5, lo + 0.5) };
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .margin_right(28)
        .x_label_area_size(48)
        .y_label_area_size(70)
        .build_cartesian_2d(lo..hi, 0f64..1.0)
        .map_err(draw_error)?;
    let whole = |x: &f64| {
        if (x - x.round()).abs() < 1e-9 {
            format!("{x:.0}")
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .x_labels(if at.is_some() { 12 } else { 0 })
        .x_label_formatter(&whole)
        .y_labels(6)
        .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
        .x_max_light_lines(1)
        .y_max_light_lines(1)
        .x_desc(clean(&l.axis))
        .y_desc("probability")
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 16))
        .draw()
        .map_err(draw_error)?;
    if at.is_none() {
        let (xs, _) = chart.plotting_area().get_pixel_range();
        let step = label_step(&l.xs, f64::from(xs.end - xs.start) / l.xs.len().max(1) as f64);
        let below = ("sans-serif", 15).into_font().color(&BLACK).pos(Pos::new(HPos::Center, VPos::Top));
        for (j, x) in l.xs.iter().enumerate().filter(|(j, _)| j % step == 0) {
            let text = EmptyElement::at((j as f64, 0.0)) + Text::new(clean(&cut(x)), (0, 6), below.clone());
            chart.plotting_area().draw(&text).map_err(draw_error)?;
        }
    }
    for (k, (_, ps)) in l.series.iter().enumerate() {
        let colour = LINES[k % LINES.len()];
        // A point without odds breaks the line: each run of points with odds is one line.
        let mut run: Vec<(f64, f64)> = Vec::new();
        let mut runs = Vec::new();
        for (x, p) in places.iter().zip(ps) {
            match p {
                Some(p) => run.push((*x, *p)),
                None => runs.push(std::mem::take(&mut run)),
            }
        }
        runs.push(run);
        for r in runs.into_iter().filter(|r| !r.is_empty()) {
            if places.len() <= 60 {
                chart
                    .draw_series(r.iter().map(|&p| Circle::new(p, 3, colour.filled())))
                    .map_err(draw_error)?;
            }
            chart
                .draw_series(std::iter::once(PathElement::new(r, colour.stroke_width(2))))
                .map_err(draw_error)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_never_says_none_or_certain_for_what_is_not() {
        assert_eq!(cell_text(0.0), "0%");
        assert_eq!(cell_text(0.001), "<1%");
        assert_eq!(cell_text(0.5), "50%");
        assert_eq!(cell_text(0.999), ">99%");
        assert_eq!(cell_text(1.0), "100%");
    }

    #[test]
    fn the_scale_runs_from_dark_to_light_through_its_stops() {
        assert_eq!(colour(0.0), RGBColor(0x44, 0x01, 0x54));
        assert_eq!(colour(1.0), RGBColor(0xFD, 0xE7, 0x25));
        assert_eq!(colour(0.5), RGBColor(0x21, 0x91, 0x8C));
        let light = |c: RGBColor| u32::from(c.0) + u32::from(c.1) + u32::from(c.2);
        assert!((0..10).all(|k| light(colour(f64::from(k) / 10.0)) < light(colour(f64::from(k + 1) / 10.0))));
    }
}
