//! `--chart FILE.svg` of `odds`, `sim` and `diff`: the verbs describe what to draw as plain data
//! (a [`Chart`] of panels), and this module draws it with plotters' SVG backend and writes the
//! file atomically. The SVG backend writes text as `<text>` elements, so no font file or system
//! library is needed.
//!
//! Floating point: exact probabilities are fractions everywhere else in the program; they become
//! `f64` here ([`to_f64`]) and only to be drawn, which is the one place where that is acceptable.
//! (`sim`'s estimates are floats already: they are estimates by nature.)

use super::CliError;
use plotters::coord::ranged1d::{IntoSegmentedCoord, SegmentValue};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use rulebook_runtime as rt;
use std::path::Path;

/// Width of every chart, in pixels. (Font sizes below are a quarter larger than they show:
/// plotters' SVG backend writes `font-size` as the size given / 1.24.)
const WIDTH: u32 = 1000;
/// The bars of the first series (odds, `before` of a diff), of the second (`after`), the bars
/// of a histogram and the 95% intervals. Tests find the bars of a series by their fill.
pub const SERIES: [RGBColor; 2] = [RGBColor(0x44, 0x77, 0xAA), RGBColor(0xEE, 0x66, 0x77)];
pub const HISTOGRAM: RGBColor = RGBColor(0x22, 0x88, 0x33);
pub const INTERVAL: RGBColor = RGBColor(0x11, 0x11, 0x11);
/// Rows a panel draws; past this the last bar stands for the rest ("… 12 more").
const MAX_ROWS: usize = 40;
/// Characters of a row label; a longer one is cut with "…".
const MAX_LABEL: usize = 60;
/// Lines of inputs under the title, and of each note at the foot; more are cut with "…".
const MAX_INPUT_LINES: usize = 5;
/// Characters of a line of inputs or notes (16 px text: about 7.5 px a character, within the
/// width less the margins).
const LINE_CHARS: usize = 125;

/// What to draw: a title, the inputs under it, panels one above the other, notes at the foot.
pub struct Chart {
    pub title: String,
    /// `name=value` of each input, in declaration order (wrapped and cut to fit).
    pub inputs: Vec<String>,
    pub panels: Vec<Panel>,
    pub notes: Vec<String>,
}

pub struct Panel {
    pub title: String,
    pub kind: Kind,
}

pub enum Kind {
    /// Horizontal bars of probabilities, a row per outcome and in each row a bar per series
    /// (one series for `odds`, before and after for `diff`).
    Bars { series: Vec<String>, rows: Vec<BarRow> },
    /// Horizontal bars of estimates with their 95% intervals as error bars; probabilities when
    /// `percent`, else plain numbers (means).
    Estimates {
        rows: Vec<EstimateRow>,
        percent: bool,
        axis: String,
    },
    /// Vertical bars over whole numbers: the share of runs that gave each value.
    Histogram { axis: String, bars: Vec<(i64, f64)> },
    /// One outcome's probability over two varied inputs (`sweep`).
    Heatmap(super::chart_grid::Heatmap),
    /// Several outcomes' probabilities over one varied input (`sweep`).
    Lines(super::chart_grid::Lines),
}

pub struct BarRow {
    pub label: String,
    /// Rows of one group (the same result): when a panel has too many rows to draw, each group
    /// keeps its most probable row, so no result disappears into "… more". Empty: no groups.
    pub group: String,
    /// One value per series, as probabilities (0 to 1).
    pub values: Vec<f64>,
    /// The text at the end of each bar (the exact fraction and percentage).
    pub texts: Vec<String>,
}

pub struct EstimateRow {
    pub label: String,
    pub value: f64,
    pub low: f64,
    pub high: f64,
    pub text: String,
}

/// An exact probability as a float, to be drawn (to within 2⁻⁵³; see the module header).
pub fn to_f64(p: &rt::Prob) -> f64 {
    const SCALE: u64 = 1 << 53;
    p.scale_round(SCALE) as f64 / SCALE as f64
}

/// Refuses a chart path that cannot be written before any work is done (`chart_file::target`).
/// Writing can still fail later; nothing is left half-written.
pub fn check_target(path: &Path) -> Result<(), CliError> {
    super::chart_file::target(path).map(|_| ())
}

/// Draws `chart` and writes it to `path` (`chart_file::write`: a regular file atomically, a
/// special file in place; exit 2 when the path given cannot be written), then says where on
/// stderr (stdout stays the report, JSON included).
pub fn write(path: &Path, chart: &Chart) -> Result<(), CliError> {
    let svg = render(chart)?;
    super::chart_file::write(path, svg.as_bytes())?;
    eprintln!("chart written to {}", path.display());
    Ok(())
}

/// The chart as SVG text.
pub fn render(chart: &Chart) -> Result<String, CliError> {
    let input_lines = wrap(&chart.inputs, LINE_CHARS, MAX_INPUT_LINES);
    // Several series (a diff's before and after): their legend once, under the inputs.
    let legend: Vec<String> = chart
        .panels
        .iter()
        .find_map(|p| match &p.kind {
            Kind::Bars { series, .. } if series.len() > 1 => Some(series.clone()),
            _ => None,
        })
        .unwrap_or_default();
    // A title too long for one line at a readable size takes two.
    let (title_lines, title_size) = title_lines(&clean(&chart.title));
    let top = 12 + (title_size + 6) * u32::try_from(title_lines.len()).unwrap_or(1);
    let legend_y = i32::try_from(top + 16 * u32::try_from(input_lines.len()).unwrap_or(0) + 6).unwrap_or(0);
    let header = top + 16 * u32::try_from(input_lines.len()).unwrap_or(0) + 10 + if legend.is_empty() { 0 } else { 24 };
    let heights: Vec<u32> = chart.panels.iter().map(panel_height).collect();
    // Notes wrap to the width as the inputs do, a note's words kept together where they fit.
    let note_lines: Vec<String> = chart
        .notes
        .iter()
        .flat_map(|n| wrap(&n.split(' ').map(str::to_string).collect::<Vec<_>>(), LINE_CHARS, MAX_INPUT_LINES))
        .map(|l| l.replace("  ", " "))
        .collect();
    let footer = if note_lines.is_empty() {
        10
    } else {
        16 * u32::try_from(note_lines.len()).unwrap_or(0) + 16
    };
    let height = header + heights.iter().sum::<u32>() + footer;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let left = Pos::new(HPos::Left, VPos::Top);
        let bold = ("sans-serif", title_size)
            .into_font()
            .style(FontStyle::Bold)
            .color(&BLACK)
            .pos(left);
        for (i, line) in title_lines.iter().enumerate() {
            let y = 12 + i32::try_from((title_size + 6) * u32::try_from(i).unwrap_or(0)).unwrap_or(0);
            root.draw(&Text::new(line.clone(), (16, y), bold.clone())).map_err(draw_error)?;
        }
        let small = ("sans-serif", 16).into_font().color(&RGBColor(0x44, 0x44, 0x44)).pos(left);
        for (i, line) in input_lines.iter().enumerate() {
            let y = i32::try_from(top).unwrap_or(40) + 16 * i32::try_from(i).unwrap_or(0);
            root.draw(&Text::new(line.clone(), (16, y), small.clone())).map_err(draw_error)?;
        }
        let mut x = 16;
        for (j, name) in legend.iter().enumerate() {
            let colour = SERIES[j % SERIES.len()];
            root.draw(&Circle::new((x + 5, legend_y + 8), 5, colour.filled()))
                .map_err(draw_error)?;
            let text = clean(name);
            let style = ("sans-serif", 15).into_font().color(&BLACK).pos(left);
            root.draw(&Text::new(text.clone(), (x + 14, legend_y), style)).map_err(draw_error)?;
            x += 14 + 8 * i32::try_from(text.chars().count()).unwrap_or(0) + 24;
        }
        let (_, mut rest) = root.split_vertically(header);
        for (panel, h) in chart.panels.iter().zip(&heights) {
            let (area, below) = rest.split_vertically(*h);
            draw_panel(&area, panel)?;
            rest = below;
        }
        for (i, note) in note_lines.iter().enumerate() {
            let y = 4 + 16 * i32::try_from(i).unwrap_or(0);
            rest.draw(&Text::new(note.clone(), (16, y), small.clone())).map_err(draw_error)?;
        }
        root.present().map_err(draw_error)?;
    }
    // A <title> names the chart for screen readers and file browsers.
    Ok(match svg.find(">\n") {
        Some(i) => format!(
            "{}<title>{}</title>\n{}",
            &svg[..i + 2],
            escape(&clean(&chart.title)),
            &svg[i + 2..]
        ),
        None => svg,
    })
}

pub(super) fn draw_error<E: std::fmt::Debug>(e: E) -> CliError {
    CliError {
        message: format!("cannot draw the chart: {e:?}"),
        code: 1,
    }
}

fn panel_height(p: &Panel) -> u32 {
    let rows = |n: usize, each: u32| u32::try_from(n.min(MAX_ROWS)).unwrap_or(0) * each;
    match &p.kind {
        Kind::Bars { series, rows: r } => {
            let each = 8 + 14 * u32::try_from(series.len()).unwrap_or(1);
            (rows(r.len(), each) + 100).max(170)
        }
        Kind::Estimates { rows: r, .. } => (rows(r.len(), 26) + 100).max(170),
        Kind::Histogram { .. } => 320,
        Kind::Heatmap(h) => super::chart_grid::heatmap_height(h),
        Kind::Lines(l) => super::chart_grid::lines_height(l),
    }
}

fn draw_panel<DB: DrawingBackend>(area: &DrawingArea<DB, plotters::coord::Shift>, panel: &Panel) -> Result<(), CliError> {
    match &panel.kind {
        Kind::Bars { series, rows } => bars(area, &panel.title, series, rows),
        Kind::Estimates { rows, percent, axis } => estimates(area, &panel.title, rows, *percent, axis),
        Kind::Histogram { axis, bars } => histogram(area, &panel.title, axis, bars),
        Kind::Heatmap(h) => super::chart_grid::heatmap(area, &panel.title, h),
        Kind::Lines(l) => super::chart_grid::lines(area, &panel.title, l),
    }
}

/// At most `MAX_ROWS` rows: past that, the most probable `MAX_ROWS - 1` stay, in their order,
/// and a last row stands for the rest, their values summed ("… 15 more").
fn capped_bars(rows: &[BarRow]) -> Vec<BarRow> {
    let copy = |r: &BarRow| BarRow {
        label: cut(&r.label),
        group: r.group.clone(),
        values: r.values.clone(),
        texts: r.texts.clone(),
    };
    if rows.len() <= MAX_ROWS {
        return rows.iter().map(copy).collect();
    }
    let largest = |r: &BarRow| r.values.iter().copied().fold(0.0, f64::max);
    let mut by_size: Vec<usize> = (0..rows.len()).collect();
    by_size.sort_by(|&a, &b| largest(&rows[b]).total_cmp(&largest(&rows[a])).then(a.cmp(&b)));
    // The most probable row of each group first, then the most probable of the others.
    let mut kept: Vec<usize> = Vec::new();
    for &i in &by_size {
        if !rows[i].group.is_empty() && !kept.iter().any(|&k| rows[k].group == rows[i].group) {
            kept.push(i);
        }
    }
    kept.truncate(MAX_ROWS - 1);
    for &i in &by_size {
        if kept.len() >= MAX_ROWS - 1 {
            break;
        }
        if !kept.contains(&i) {
            kept.push(i);
        }
    }
    let rest: Vec<&BarRow> = by_size.iter().filter(|i| !kept.contains(i)).map(|&i| &rows[i]).collect();
    kept.sort_unstable();
    let mut out: Vec<BarRow> = kept.iter().map(|&i| copy(&rows[i])).collect();
    let series = rows.first().map_or(0, |r| r.values.len());
    let sums: Vec<f64> = (0..series)
        .map(|j| rest.iter().map(|r| r.values.get(j).copied().unwrap_or(0.0)).sum())
        .collect();
    out.push(BarRow {
        label: format!("… {} more", rest.len()),
        group: String::new(),
        texts: sums.iter().map(|s| format!("{:.2}% together", s * 100.0)).collect(),
        values: sums,
    });
    out
}

/// The probability axis: from 0 to a little past the largest value, leaving room for the text
/// at the end of the longest bar.
fn axis_max(largest: f64) -> f64 {
    if largest > 0.0 && largest.is_finite() {
        largest * 1.3
    } else {
        1.0
    }
}

fn percent_label(x: f64, max: f64) -> String {
    // The axis runs on past 100% to leave room for the text after a bar; it has no labels there.
    if x > 1.0 + 1e-9 {
        return String::new();
    }
    let decimals = if max >= 0.1 {
        0
    } else if max >= 0.01 {
        1
    } else {
        2
    };
    format!("{:.*}%", decimals, x * 100.0)
}

/// Row `i` of `n` occupies [n-1-i, n-i] on the y axis, so the first row is at the top.
pub(super) fn row_y(i: usize, n: usize) -> f64 {
    (n - 1 - i) as f64
}

/// Each row's label, left of the plot, level with the row's middle (drawn here rather than as
/// axis labels, whose places plotters chooses).
pub(super) fn row_labels<DB: DrawingBackend>(
    chart: &ChartContext<DB, Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>>,
    labels: &[String],
) -> Result<(), CliError> {
    let n = labels.len().max(1);
    let style = ("sans-serif", 15)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Right, VPos::Center));
    for (i, l) in labels.iter().enumerate() {
        let label = EmptyElement::at((0.0, row_y(i, n) + 0.5)) + Text::new(clean(l), (-8, 0), style.clone());
        chart.plotting_area().draw(&label).map_err(draw_error)?;
    }
    Ok(())
}

pub(super) fn label_width(labels: &[String]) -> u32 {
    let chars = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    (u32::try_from(chars).unwrap_or(60) * 7 + 16).clamp(60, 440)
}

fn bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    series: &[String],
    rows: &[BarRow],
) -> Result<(), CliError> {
    let rows = capped_bars(rows);
    let n = rows.len().max(1);
    let k = series.len().max(1);
    let labels: Vec<String> = rows.iter().map(|r| r.label.clone()).collect();
    let largest = rows.iter().flat_map(|r| r.values.iter().copied()).fold(0.0, f64::max);
    let max = axis_max(largest);
    let mut chart = ChartBuilder::on(area)
        .caption(clean(title), ("sans-serif", fitted(20, title)).into_font().style(FontStyle::Bold))
        .margin(12)
        .margin_right(28)
        .x_label_area_size(44)
        .y_label_area_size(label_width(&labels))
        .build_cartesian_2d(0f64..max, 0f64..n as f64)
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_labels(8)
        .x_max_light_lines(2)
        .x_label_formatter(&|x| percent_label(*x, max))
        .y_labels(0)
        .x_desc("probability")
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 16))
        .draw()
        .map_err(draw_error)?;
    row_labels(&chart, &labels)?;
    let band = 0.76 / k as f64;
    let text_style = ("sans-serif", 14).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
    for j in 0..series.len() {
        let colour = SERIES[j % SERIES.len()];
        let bar = |i: usize, r: &BarRow| {
            let top = row_y(i, n) + 0.88 - band * j as f64;
            let v = r.values.get(j).copied().unwrap_or(0.0);
            (top, v)
        };
        chart
            .draw_series(rows.iter().enumerate().map(|(i, r)| {
                let (top, v) = bar(i, r);
                Rectangle::new([(0.0, top), (v, top - band)], colour.filled())
            }))
            .map_err(draw_error)?;
        chart
            .draw_series(rows.iter().enumerate().map(|(i, r)| {
                let (top, v) = bar(i, r);
                let text = clean(r.texts.get(j).map(String::as_str).unwrap_or(""));
                EmptyElement::at((v, top - band / 2.0)) + Text::new(text, (5, 0), text_style.clone())
            }))
            .map_err(draw_error)?;
    }
    Ok(())
}

fn estimates<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    rows: &[EstimateRow],
    percent: bool,
    axis: &str,
) -> Result<(), CliError> {
    let rows = &rows[..rows.len().min(MAX_ROWS)];
    let n = rows.len().max(1);
    let labels: Vec<String> = rows.iter().map(|r| cut(&r.label)).collect();
    let largest = rows.iter().map(|r| r.high.max(r.value)).fold(0.0, f64::max);
    let max = axis_max(largest);
    let mut chart = ChartBuilder::on(area)
        .caption(clean(title), ("sans-serif", fitted(20, title)).into_font().style(FontStyle::Bold))
        .margin(12)
        .margin_right(28)
        .x_label_area_size(44)
        .y_label_area_size(label_width(&labels))
        .build_cartesian_2d(0f64..max, 0f64..n as f64)
        .map_err(draw_error)?;
    let plain = |x: &f64| {
        if max >= 10.0 {
            format!("{x:.0}")
        } else if max >= 1.0 {
            format!("{x:.1}")
        } else {
            format!("{x:.2}")
        }
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_labels(8)
        .x_max_light_lines(2)
        .x_label_formatter(&|x| if percent { percent_label(*x, max) } else { plain(x) })
        .y_labels(0)
        .x_desc(axis)
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 16))
        .draw()
        .map_err(draw_error)?;
    row_labels(&chart, &labels)?;
    let colour = SERIES[0];
    chart
        .draw_series(rows.iter().enumerate().map(|(i, r)| {
            let y = row_y(i, n);
            Rectangle::new([(0.0, y + 0.78), (r.value, y + 0.22)], colour.mix(0.55).filled())
        }))
        .map_err(draw_error)?;
    chart
        .draw_series(
            rows.iter()
                .enumerate()
                .map(|(i, r)| ErrorBar::new_horizontal(row_y(i, n) + 0.5, r.low, r.value, r.high, INTERVAL.stroke_width(2), 10)),
        )
        .map_err(draw_error)?;
    let text_style = ("sans-serif", 14).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
    chart
        .draw_series(rows.iter().enumerate().map(|(i, r)| {
            EmptyElement::at((r.high.max(r.value), row_y(i, n) + 0.5)) + Text::new(clean(&r.text), (8, 0), text_style.clone())
        }))
        .map_err(draw_error)?;
    Ok(())
}

fn histogram<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    axis: &str,
    bars: &[(i64, f64)],
) -> Result<(), CliError> {
    let lo = bars.iter().map(|b| b.0).min().unwrap_or(0);
    let hi = bars.iter().map(|b| b.0).max().unwrap_or(0);
    let largest = bars.iter().map(|b| b.1).fold(0.0, f64::max);
    let max = if largest > 0.0 && largest.is_finite() {
        largest * 1.15
    } else {
        1.0
    };
    let mut chart = ChartBuilder::on(area)
        .caption(clean(title), ("sans-serif", fitted(20, title)).into_font().style(FontStyle::Bold))
        .margin(12)
        .margin_right(28)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d((lo..hi).into_segmented(), 0f64..max)
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .y_max_light_lines(2)
        .x_labels(usize::try_from(hi.saturating_sub(lo).saturating_add(1)).unwrap_or(1).min(30))
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(v) | SegmentValue::Exact(v) => v.to_string(),
            SegmentValue::Last => String::new(),
        })
        .y_label_formatter(&|y| percent_label(*y, max))
        .x_desc(axis)
        .y_desc("share of runs")
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 16))
        .draw()
        .map_err(draw_error)?;
    // Rectangles rather than plotters' `Histogram`, which sums its data in a hash map and so
    // writes its bars in an order that changes from run to run.
    chart
        .draw_series(bars.iter().map(|&(v, share)| {
            let corners = [(SegmentValue::Exact(v), share), (SegmentValue::Exact(v.saturating_add(1)), 0.0)];
            let mut bar = Rectangle::new(corners, HISTOGRAM.filled());
            bar.set_margin(0, 0, 2, 2);
            bar
        }))
        .map_err(draw_error)?;
    Ok(())
}

/// `name=value` items wrapped into lines of at most `width` characters, at most `max_lines`
/// lines (the last ends with "…" when items are left out). A value longer than 48 characters
/// (a whole army) is cut.
fn wrap(items: &[String], width: usize, max_lines: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for item in items {
        let item = clean(item);
        let item = if item.chars().count() > 48 {
            format!("{}…", item.chars().take(47).collect::<String>())
        } else {
            item
        };
        if !line.is_empty() && line.chars().count() + 2 + item.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push_str("  ");
        }
        line.push_str(&item);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    if lines.len() > max_lines {
        lines.truncate(max_lines);
        if let Some(last) = lines.last_mut() {
            last.push_str("  …");
        }
    }
    lines
}

/// The chart's title in one line at up to 25 (given size), or, where that would make it smaller
/// than 19, in two lines split at the space nearest the middle.
fn title_lines(title: &str) -> (Vec<String>, u32) {
    let one = fitted(25, title);
    if one >= 19 {
        return (vec![title.to_string()], one);
    }
    let middle = title.len() / 2;
    let split = title
        .char_indices()
        .filter(|(_, c)| *c == ' ')
        .map(|(i, _)| i)
        .min_by_key(|&i| i.abs_diff(middle));
    match split {
        Some(i) => {
            let lines = vec![title[..i].to_string(), title[i + 1..].to_string()];
            let size = lines.iter().map(|l| fitted(25, l)).min().unwrap_or(one);
            (lines, size)
        }
        None => (vec![title.to_string()], one),
    }
}

/// A bold font size at most `size` at which `text` fits the chart's width (a bold sans-serif
/// character is about 0.62 of the size wide), and at least 11.
pub(super) fn fitted(size: u32, text: &str) -> u32 {
    let chars = u32::try_from(text.chars().count()).unwrap_or(u32::MAX).max(1);
    let fits = (WIDTH - 40) * 100 / (62 * chars);
    fits.clamp(11, size)
}

pub(super) fn cut(label: &str) -> String {
    if label.chars().count() > MAX_LABEL {
        format!("{}…", label.chars().take(MAX_LABEL - 1).collect::<String>())
    } else {
        label.to_string()
    }
}

/// Text as XML can hold it: control characters (which XML 1.0 forbids, and which rules text or
/// an input file may contain) become `?`. plotters escapes `<`, `&` and quotes itself.
pub(super) fn clean(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { '?' } else { c }).collect()
}

/// XML escaping, for the `<title>` element added after plotters has written the SVG.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(label: &str, p: f64) -> BarRow {
        BarRow {
            label: label.to_string(),
            group: String::new(),
            values: vec![p],
            texts: vec![format!("{p}")],
        }
    }

    #[test]
    fn text_from_rules_or_inputs_cannot_break_the_svg() {
        let chart = Chart {
            title: "a <b> & \"c\"\u{1}".into(),
            inputs: vec!["name=\"x\u{7}y\"".into()],
            panels: vec![Panel {
                title: "t\u{0}".into(),
                kind: Kind::Bars {
                    series: vec!["p".into()],
                    rows: vec![row("</text>&amp;\u{1b}", 0.25), row("x", 0.75)],
                },
            }],
            notes: vec!["\r\n".into()],
        };
        let svg = render(&chart).unwrap_or_else(|e| panic!("{e}"));
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{e}"));
        let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).map(str::trim).collect();
        assert!(texts.contains(&"a <b> & \"c\"?"), "{texts:?}");
        assert!(texts.contains(&"</text>&amp;?"), "{texts:?}");
    }

    #[test]
    fn a_long_panel_keeps_the_most_probable_rows_in_order_and_sums_the_rest() {
        let rows: Vec<BarRow> = (0..100)
            .map(|i| row(&format!("r{i}"), if i % 10 == 0 { 0.05 } else { 0.5 / 90.0 }))
            .collect();
        let capped = capped_bars(&rows);
        assert_eq!(capped.len(), MAX_ROWS);
        // The ten large rows all stay, in their order.
        let labels: Vec<&str> = capped.iter().map(|r| r.label.as_str()).collect();
        let large: Vec<&str> = labels
            .iter()
            .copied()
            .filter(|l| l.strip_prefix('r').and_then(|n| n.parse::<u32>().ok()).is_some_and(|n| n % 10 == 0))
            .collect();
        assert_eq!(large, ["r0", "r10", "r20", "r30", "r40", "r50", "r60", "r70", "r80", "r90"]);
        assert_eq!(labels.last(), Some(&"… 61 more"));
        let total: f64 = capped.iter().map(|r| r.values[0]).sum();
        assert!((total - 1.0).abs() < 1e-9, "{total}");
    }

    #[test]
    fn exact_probabilities_become_floats_only_to_be_drawn() {
        let third = rt::Prob::new(1, 3).unwrap_or_else(|e| panic!("{e}"));
        assert!((to_f64(&third) - 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(to_f64(&rt::Prob::one()), 1.0);
        assert_eq!(to_f64(&rt::Prob::zero()), 0.0);
    }
}
