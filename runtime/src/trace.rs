//! Explanations: the events a traced resolver emits (rolls, modifiers, table rows, comparisons)
//! and their deterministic human rendering. `NoTrace` compiles the whole thing away for odds.

use crate::value::Value;
use serde::Serialize;

/// Sink for trace events. Generated code guards event construction with `if T::ENABLED`, so the
/// untraced path never formats a string.
pub trait Trace {
    const ENABLED: bool;
    fn event(&mut self, e: Event);
}

/// Discards everything; used for odds and benchmarks.
pub struct NoTrace;

impl Trace for NoTrace {
    const ENABLED: bool = false;
    #[inline(always)]
    fn event(&mut self, _e: Event) {}
}

/// Keeps every event in order.
#[derive(Default, Debug, Clone)]
pub struct Recorder {
    pub events: Vec<Event>,
}

impl Trace for Recorder {
    const ENABLED: bool = true;
    fn event(&mut self, e: Event) {
        self.events.push(e);
    }
}

/// One step of a resolution. Serialized with a `kind` tag for `--json` output.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A resolver starts (nested calls nest).
    Enter {
        resolver: String,
        title: String,
        cite: String,
    },
    Exit {
        resolver: String,
    },
    Roll {
        label: String,
        dice: String,
        faces: Vec<u16>,
        value: i64,
        cite: String,
    },
    /// A named intermediate value.
    Let {
        name: String,
        value: Value,
        cite: String,
    },
    /// One applied modifier, e.g. "close range, pistol" +3.
    Modifier {
        name: String,
        value: Value,
        cite: String,
    },
    /// A table row used.
    Row {
        table: String,
        key: String,
        row: String,
        cite: String,
    },
    Compare {
        left: String,
        left_value: Value,
        op: String,
        right: String,
        right_value: Value,
        result: bool,
        cite: String,
    },
    /// An outcome field / state change set.
    Set {
        field: String,
        value: Value,
        cite: String,
    },
    Note {
        text: String,
        cite: String,
    },
}

/// Citations start at this column (in characters) when the text is shorter, so they line up.
const CITE_COLUMN: usize = 52;

/// Modifiers show an explicit sign: "+3", "-3", "+0.5".
fn signed(v: &Value) -> String {
    match v {
        Value::Int(i) if *i >= 0 => format!("+{i}"),
        Value::Dec(d) if d.numer() >= 0 => format!("+{d}"),
        _ => v.to_string(),
    }
}

impl Recorder {
    pub fn new() -> Self {
        Recorder::default()
    }

    /// Human text, one line per event (Exit lines are implicit), indented two spaces per call
    /// depth, citations aligned in a column:
    /// ```text
    /// fire — 6.0 Weapon Fire [Starleader 6.0]
    ///   roll to-hit 4d6: [6, 6, 6, 5] = 23                [Starleader 6.3]
    ///   set result = hit
    /// ```
    /// Deterministic: depends only on the events.
    pub fn render(&self) -> String {
        self.render_with(None)
    }

    /// As [`Recorder::render`], but a `let` or `set` value longer than `max_chars` characters (a
    /// whole army's state, say) is cut to its start and its size: `[{u: {name: "A", …} … (6 items)]`.
    /// Dice, modifiers, rows and comparisons are never cut.
    pub fn render_elided(&self, max_chars: usize) -> String {
        self.render_with(Some(max_chars))
    }

    fn render_with(&self, max_chars: Option<usize>) -> String {
        let shown = |v: &Value| -> String {
            let text = v.to_string();
            match max_chars {
                Some(max) if text.chars().count() > max => {
                    let head: String = text.chars().take(max).collect();
                    match v {
                        Value::List(items) => format!("{head} … ({} items)", items.len()),
                        Value::Record(fields) => format!("{head} … ({} fields)", fields.len()),
                        _ => format!("{head} … ({} characters)", text.chars().count()),
                    }
                }
                _ => text,
            }
        };
        let mut out = String::new();
        let mut depth = 0usize;
        for e in &self.events {
            let indent = "  ".repeat(depth);
            let (text, cite) = match e {
                Event::Enter { resolver, title, cite } => {
                    let mut line = format!("{indent}{resolver}");
                    if !title.is_empty() {
                        line.push_str(&format!(" — {title}"));
                    }
                    if !cite.is_empty() {
                        line.push_str(&format!(" [{cite}]"));
                    }
                    out.push_str(line.trim_end());
                    out.push('\n');
                    depth += 1;
                    continue;
                }
                Event::Exit { .. } => {
                    depth = depth.saturating_sub(1);
                    continue;
                }
                Event::Roll {
                    label,
                    dice,
                    faces,
                    value,
                    cite,
                } => {
                    let faces: Vec<String> = faces.iter().map(u16::to_string).collect();
                    let shown = if faces.is_empty() {
                        String::new()
                    } else {
                        format!(": [{}]", faces.join(", "))
                    };
                    (format!("roll {label} {dice}{shown} = {value}"), cite)
                }
                Event::Let { name, value, cite } => (format!("let {name} = {}", shown(value)), cite),
                Event::Modifier { name, value, cite } => (format!("modifier {name:?} {}", signed(value)), cite),
                Event::Row { table, key, row, cite } => (format!("row {table}[{key}] → {row}"), cite),
                Event::Compare {
                    left,
                    left_value,
                    op,
                    right,
                    right_value,
                    result,
                    cite,
                } => (format!("compare {left} {left_value} {op} {right} {right_value} → {result}"), cite),
                Event::Set { field, value, cite } => (format!("set {field} = {}", shown(value)), cite),
                Event::Note { text, cite } => (format!("note: {text}"), cite),
            };
            let line = format!("{indent}{text}");
            out.push_str(&line);
            if !cite.is_empty() {
                let width = line.chars().count();
                let pad = if width + 2 <= CITE_COLUMN { CITE_COLUMN - width } else { 2 };
                out.push_str(&" ".repeat(pad));
                out.push_str(&format!("[{cite}]"));
            }
            out.push('\n');
        }
        out
    }
}
