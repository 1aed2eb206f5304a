//! Explanations: the events a traced resolver emits (rolls, modifiers, table rows, comparisons)
//! and their deterministic human rendering. `NoTrace` compiles the whole thing away for odds.

use crate::value::Value;
use serde::Serialize;

/// Sink for trace events. Generated code guards event construction with `if T::ENABLED`, so the
/// untraced path never formats a string.
///
/// The provided methods write one event each, the way generated code does, and only when
/// `ENABLED`: a value is a closure, computed only then, so `NoTrace` costs nothing.
pub trait Trace {
    const ENABLED: bool;
    fn event(&mut self, e: Event);

    /// A resolver starts (`Event::Enter`).
    #[inline(always)]
    fn enter(&mut self, resolver: &str, title: &str, cite: &str) {
        if Self::ENABLED {
            self.event(Event::Enter {
                resolver: resolver.to_string(),
                title: title.to_string(),
                cite: cite.to_string(),
            });
        }
    }

    /// A resolver ends (`Event::Exit`).
    #[inline(always)]
    fn exit(&mut self, resolver: &str) {
        if Self::ENABLED {
            self.event(Event::Exit {
                resolver: resolver.to_string(),
            });
        }
    }

    /// An output set (`Event::Set`).
    #[inline(always)]
    fn set(&mut self, field: &str, cite: &str, value: impl FnOnce() -> Value) {
        if Self::ENABLED {
            self.event(Event::Set {
                field: field.to_string(),
                value: value(),
                cite: cite.to_string(),
            });
        }
    }

    /// A named value (`Event::Let`).
    #[inline(always)]
    fn bind(&mut self, name: &str, cite: &str, value: impl FnOnce() -> Value) {
        if Self::ENABLED {
            self.event(Event::Let {
                name: name.to_string(),
                value: value(),
                cite: cite.to_string(),
            });
        }
    }

    /// A `var` given a new value (`Event::Assign`).
    #[inline(always)]
    fn assign(&mut self, name: &str, cite: &str, value: impl FnOnce() -> Value) {
        if Self::ENABLED {
            self.event(Event::Assign {
                name: name.to_string(),
                value: value(),
                cite: cite.to_string(),
            });
        }
    }
}

/// Discards everything; used for odds and benchmarks.
pub struct NoTrace;

impl Trace for NoTrace {
    const ENABLED: bool = false;
    #[inline(always)]
    fn event(&mut self, _e: Event) {}
}

/// The most events a `Recorder` keeps: far above any resolution's (a long battle makes a few
/// thousand), far below what would exhaust memory. The trace is cut there, and says so.
pub const MAX_TRACE_EVENTS: usize = 100_000;

/// Keeps every event in order, up to `MAX_TRACE_EVENTS`: there a note says the trace is cut, and
/// `cut` counts the events left out after it.
#[derive(Default, Debug, Clone)]
pub struct Recorder {
    pub events: Vec<Event>,
    pub cut: u64,
}

impl Trace for Recorder {
    const ENABLED: bool = true;
    fn event(&mut self, e: Event) {
        if self.events.len() < MAX_TRACE_EVENTS {
            self.events.push(e);
        } else {
            if self.cut == 0 {
                self.events.push(Event::Note {
                    text: format!("the trace is cut here: it keeps at most {MAX_TRACE_EVENTS} events; the resolution went on, and its outcome is whole"),
                    cite: String::new(),
                });
            }
            self.cut += 1;
        }
    }
}

/// One step of a resolution. Serialized with a `kind` tag for `--json` output; a text or list
/// field that is empty (a rule without a citation: `cite: ""`) is left out of the JSON.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A resolver starts (nested calls nest).
    Enter {
        #[serde(skip_serializing_if = "String::is_empty")]
        resolver: String,
        #[serde(skip_serializing_if = "String::is_empty")]
        title: String,
        #[serde(skip_serializing_if = "String::is_empty")]
        cite: String,
    },
    Exit {
        #[serde(skip_serializing_if = "String::is_empty")]
        resolver: String,
    },
    /// A throw: every face as the dice show it, in order (rerolled throws included); `adjusted`
    /// is each face after a per-die modifier and floor (`3d6 each -2 floor 0`), and empty (left
    /// out of JSON) for dice that have none.
    Roll {
        #[serde(skip_serializing_if = "String::is_empty")]
        label: String,
        #[serde(skip_serializing_if = "String::is_empty")]
        dice: String,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        faces: Vec<u16>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        adjusted: Vec<i64>,
        value: i64,
        #[serde(skip_serializing_if = "String::is_empty")]
        cite: String,
    },
    /// A named intermediate value (`let`, or a `var` when it is declared).
    Let {
        #[serde(skip_serializing_if = "String::is_empty")]
        name: String,
        value: Value,
        #[serde(skip_serializing_if = "String::is_empty")]
        cite: String,
    },
    /// A `var` given a new value (`tries = tries + 1`).
    Assign {
        #[serde(skip_serializing_if = "String::is_empty")]
        name: String,
        value: Value,
        #[serde(skip_serializing_if = "String::is_empty")]
        cite: String,
    },
    /// One applied modifier, e.g. "close range, pistol" +3.
    Modifier {
        #[serde(skip_serializing_if = "String::is_empty")]
        name: String,
        value: Value,
        #[serde(skip_serializing_if = "String::is_empty")]
        cite: String,
    },
    /// A table row used.
    Row {
        #[serde(skip_serializing_if = "String::is_empty")]
        table: String,
        #[serde(skip_serializing_if = "String::is_empty")]
        key: String,
        #[serde(skip_serializing_if = "String::is_empty")]
        row: String,
        #[serde(skip_serializing_if = "String::is_empty")]
        cite: String,
    },
    Compare {
        #[serde(skip_serializing_if = "String::is_empty")]
        left: String,
        left_value: Value,
        #[serde(skip_serializing_if = "String::is_empty")]
        op: String,
        #[serde(skip_serializing_if = "String::is_empty")]
        right: String,
        right_value: Value,
        result: bool,
        #[serde(skip_serializing_if = "String::is_empty")]
        cite: String,
    },
    /// An outcome field / state change set.
    Set {
        #[serde(skip_serializing_if = "String::is_empty")]
        field: String,
        value: Value,
        #[serde(skip_serializing_if = "String::is_empty")]
        cite: String,
    },
    Note {
        #[serde(skip_serializing_if = "String::is_empty")]
        text: String,
        #[serde(skip_serializing_if = "String::is_empty")]
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

/// One side of a comparison: its rules text and its value, or the text alone when that is the
/// value already written out (`12`, `hit`, `"Syter"`), so a literal is not shown twice.
fn side(text: &str, value: &Value) -> String {
    let v = value.to_string();
    let unquoted = text.strip_prefix('"').and_then(|t| t.strip_suffix('"'));
    let literal = text == v || matches!((unquoted, value), (Some(t), Value::Text(s)) if t == s);
    if literal {
        text.to_string()
    } else {
        format!("{text} {v}")
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
    ///   roll damage 3d6 each -2 floor 0: [1, 5, 6] → [0, 3, 4] = 7
    ///   compare to_hit 23 <= 12 → false                   [Starleader 6.3]
    ///   assign tries = 2
    ///   set result = hit
    /// ```
    /// A comparison shows each side's rules text and its value, the value left out when the text
    /// is the value itself (a literal).
    /// Deterministic: depends only on the events.
    pub fn render(&self) -> String {
        self.render_with(None, None)
    }

    /// As [`Recorder::render`], but a `let`, `assign` or `set` value longer than `max_chars` characters (a
    /// whole army's state, say) is cut to its start and its size: `[{u: {name: "A", …} … (6 items)]`.
    /// Dice, modifiers, rows and comparisons are never cut.
    pub fn render_elided(&self, max_chars: usize) -> String {
        self.render_with(Some(max_chars), None)
    }

    /// As [`Recorder::render_elided`] (values cut at `max_chars` when given), with every call
    /// entered at nesting `depth` (0: the resolution itself) folded into its one line, which says
    /// how many lines it holds: `battle_step — One step of a battle [...]  … 58 lines`. What
    /// happens at the levels above, notes included, is shown in full.
    pub fn render_folded(&self, max_chars: Option<usize>, depth: usize) -> String {
        self.render_with(max_chars, Some(depth))
    }

    /// [`Recorder::render`] with values cut at `max_chars` when given ([`Recorder::render_elided`]).
    pub fn render_with_values(&self, max_chars: Option<usize>) -> String {
        self.render_with(max_chars, None)
    }

    /// The lines [`Recorder::render`] prints: one per event but the exits.
    pub fn line_count(&self) -> usize {
        self.events.iter().filter(|e| !matches!(e, Event::Exit { .. })).count()
    }

    /// From event `i`, just inside a call: the index past the call's exit, and the lines the call
    /// holds (its events but the exits).
    fn past_call(&self, mut i: usize) -> (usize, usize) {
        let (mut level, mut hidden) = (1usize, 0usize);
        while level > 0 {
            match self.events.get(i) {
                Some(Event::Enter { .. }) => {
                    level += 1;
                    hidden += 1;
                }
                Some(Event::Exit { .. }) => level -= 1,
                Some(_) => hidden += 1,
                None => break,
            }
            i += 1;
        }
        (i, hidden)
    }

    fn render_with(&self, max_chars: Option<usize>, fold: Option<usize>) -> String {
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
        let mut i = 0;
        while let Some(e) = self.events.get(i) {
            i += 1;
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
                    if fold == Some(depth) {
                        let hidden;
                        (i, hidden) = self.past_call(i);
                        out.push_str(&format!("  … {hidden} line{}", if hidden == 1 { "" } else { "s" }));
                    } else {
                        depth += 1;
                    }
                    out.push('\n');
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
                    adjusted,
                    value,
                    cite,
                } => {
                    let list = |items: Vec<String>| format!("[{}]", items.join(", "));
                    let mut shown = if faces.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", list(faces.iter().map(u16::to_string).collect()))
                    };
                    // Faces changed die by die (`each -2 floor 0`): the faces as thrown, then as counted.
                    if !adjusted.is_empty() {
                        shown.push_str(&format!(" → {}", list(adjusted.iter().map(i64::to_string).collect())));
                    }
                    (format!("roll {label} {dice}{shown} = {value}"), cite)
                }
                Event::Let { name, value, cite } => (format!("let {name} = {}", shown(value)), cite),
                Event::Assign { name, value, cite } => (format!("assign {name} = {}", shown(value)), cite),
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
                } => (
                    format!("compare {} {op} {} → {result}", side(left, left_value), side(right, right_value)),
                    cite,
                ),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn enter(name: &str) -> Event {
        Event::Enter {
            resolver: name.into(),
            title: String::new(),
            cite: String::new(),
        }
    }

    fn note(text: &str) -> Event {
        Event::Note {
            text: text.into(),
            cite: String::new(),
        }
    }

    #[test]
    fn a_folded_call_is_one_line_that_counts_what_it_holds() {
        let mut r = Recorder::new();
        r.events = vec![
            enter("battle"),
            enter("step"),
            note("a"),
            enter("inner"),
            note("b"),
            Event::Exit { resolver: "inner".into() },
            Event::Exit { resolver: "step".into() },
            note("round over"),
            Event::Exit { resolver: "battle".into() },
        ];
        assert_eq!(r.line_count(), 6);
        assert_eq!(r.render_folded(None, 1), "battle\n  step  … 3 lines\n  note: round over\n");
        assert_eq!(
            r.render_folded(None, 2),
            "battle\n  step\n    note: a\n    inner  … 1 line\n  note: round over\n"
        );
        assert_eq!(r.render_folded(None, 9), r.render());
    }
}
