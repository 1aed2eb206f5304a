//! The single error type shared by dice, input binding, exact odds and generated resolvers.
//!
//! Messages are lowercase with no trailing period, name the problem, and list the nearest valid
//! choices where there are any, because the CLI prints them verbatim after `error: `.

use serde::Serialize;

/// One failed `require` in the rules: where the rule is written and what it demands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub cite: String,
    pub message: String,
}

/// Everything that can go wrong at run time. `Clone + PartialEq` so tests can compare whole errors.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// A scripted throw needed `needed` faces at 0-based script index `position` but only
    /// `remaining` were left.
    #[error("dice script ran out: a throw needs {needed} face(s) at script position {pos} but only {remaining} remain", pos = .position + 1)]
    ScriptExhausted { needed: usize, position: usize, remaining: usize },
    /// A scripted face is not on the die. `position` is the 0-based script index; `percentile`
    /// says the die is one of the two d10s (tens, units) of a d100.
    #[error("scripted face {face} at script position {pos} is not on {die}; valid faces are {range}",
        pos = .position + 1, die = die_name(*.sides, *.zero_based, *.percentile), range = face_range(*.sides, *.zero_based, *.percentile))]
    FaceOutOfRange {
        face: i64,
        sides: u16,
        position: usize,
        zero_based: bool,
        percentile: bool,
    },
    #[error("dice reroll limit reached: the throws kept landing in the reroll range")]
    RerollLimit,
    #[error("dice expression {notation} is too large to handle exactly")]
    DiceTooLarge { notation: String },
    #[error("too many dice outcomes to enumerate exactly (more than {limit} branches); for a long procedure such as a battle, estimate with `rulebook sim`")]
    TooManyBranches { limit: u64 },
    /// A chain of steps (`odds --until`) reached more distinct states in one step than it keeps.
    #[error("too many distinct states to follow exactly: more than {limit} after step {step} of the procedure (each state is everything the next step reads); estimate with `rulebook sim`, or ask with fewer steps (--steps) or smaller inputs")]
    TooManyStates { limit: u64, step: u32 },
    /// The caller stopped an exact computation (its time budget ran out).
    #[error("exact odds stopped after {seconds} s with about {percent}% of the dice tree explored ({explored} branches); estimate with `rulebook sim`, or ask with smaller inputs")]
    OddsStopped { seconds: u64, percent: u32, explored: u64 },
    /// The caller stopped a chain of steps (`odds --until`): where it had got to.
    #[error("exact odds stopped after {seconds} s in step {step} of the procedure, with {states} states worked out; estimate with `rulebook sim`, or ask with fewer steps (--steps) or smaller inputs")]
    ChainStopped { seconds: u64, step: u32, states: usize },
    /// A resolution took more than `steps::MAX_STEPS` turns of loops and calls.
    #[error("the resolution took more than {limit} steps (turns of loops and calls) and was stopped at {at}; lower the loops' bounds or give them a `break`")]
    StepLimit { limit: u64, at: String },
    /// The caller's time budget ran out inside a resolution, between two dice.
    #[error("exact odds stopped after {seconds} s at {at}, {steps} steps into one resolution; estimate with `rulebook sim`, or lower the loops' bounds")]
    Stopped { seconds: u64, at: String, steps: u64 },
    /// A list grew past `list::MAX_LIST_LEN` items.
    #[error("a list grew past {limit} items; lists that long are no rules' own: look for a list that doubles (`xs + xs`) or grows in every turn of a long loop")]
    ListTooLong { limit: usize },
    #[error("arithmetic overflow")]
    Overflow,
    #[error("division by zero")]
    DivisionByZero,
    #[error("invalid operation: {what}")]
    Domain { what: String },
    #[error("unknown {what} `{name}`{}", did_you_mean(.nearest))]
    Unknown { what: String, name: String, nearest: Vec<String> },
    /// A system of the rules folder that this build left out (its Cargo feature was off).
    #[error(
        "the system `{system}` is left out of this build: turn on its Cargo feature (`--features {system}`), or run its rules text with `--rules DIR`"
    )]
    LeftOut { system: String },
    #[error("{input} = {value} is out of range {min}..={max}")]
    OutOfRange {
        input: String,
        value: String,
        min: String,
        max: String,
    },
    #[error("missing required input `{input}` ({ty})")]
    MissingInput { input: String, ty: String },
    #[error("invalid value `{text}` for {input}: expected {expected}")]
    BadValue { input: String, text: String, expected: String },
    #[error("the rules reject this situation: {}", violations_text(.violations))]
    Rejected { violations: Vec<Violation> },
    #[error("internal error: {message}")]
    Internal { message: String },
}

impl Error {
    /// Shorthand used by generated code and the binder.
    pub fn internal(message: impl Into<String>) -> Error {
        Error::Internal { message: message.into() }
    }

    /// True for errors caused by what the user typed (names, values, dice scripts) rather than by
    /// the rules themselves; the CLI maps these to exit code 2.
    pub fn is_input_error(&self) -> bool {
        matches!(
            self,
            Error::ScriptExhausted { .. }
                | Error::FaceOutOfRange { .. }
                | Error::Unknown { .. }
                | Error::LeftOut { .. }
                | Error::OutOfRange { .. }
                | Error::MissingInput { .. }
                | Error::BadValue { .. }
        )
    }
}

fn die_name(sides: u16, zero_based: bool, percentile: bool) -> String {
    if percentile {
        "the tens or units die of a d100".to_string()
    } else if zero_based {
        format!("a zero-based d{sides}")
    } else {
        format!("a d{sides}")
    }
}

/// The faces a scripted die accepts, as the dice show them: 1 to N, or 0 to N-1 for a zero-based
/// die and for each of the two d10s of a d100.
fn face_range(sides: u16, zero_based: bool, percentile: bool) -> String {
    if percentile {
        format!(
            "0 to {} (a d100 takes two faces, tens then units; 0, 0 reads 100)",
            sides.saturating_sub(1)
        )
    } else if zero_based {
        format!("0 to {}", sides.saturating_sub(1))
    } else {
        format!("1 to {sides}")
    }
}

fn did_you_mean(nearest: &[String]) -> String {
    if nearest.is_empty() {
        return String::new();
    }
    let list: Vec<String> = nearest
        .iter()
        .map(|n| if n.starts_with("...") { n.clone() } else { format!("`{n}`") })
        .collect();
    // More than a handful of names is the list of valid choices, not a guess.
    if nearest.len() > 5 {
        format!("; valid values: {}", list.join(", "))
    } else {
        format!("; did you mean {}", list.join(", "))
    }
}

fn violations_text(v: &[Violation]) -> String {
    if v.is_empty() {
        return "no reason given".to_string();
    }
    let parts: Vec<String> = v
        .iter()
        .map(|x| {
            if x.cite.is_empty() {
                x.message.clone()
            } else {
                format!("{} [{}]", x.message, x.cite)
            }
        })
        .collect();
    parts.join("; ")
}
