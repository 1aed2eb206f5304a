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
    /// `path:line:col` of the `require`.
    pub at: String,
}

/// Where in the rules text a run-time error arose (`Error::InRules`), and the calls that led there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RulePlace {
    /// The resolver it arose in, as `system.resolver`.
    pub resolver: String,
    /// `path:line:col` of the statement that raised it (of a failed `require`, the first).
    pub at: String,
    /// The rule that statement cites, or its resolver's when it cites none ("Striker 53.B.1").
    pub cite: String,
    /// The resolvers the error came out of, innermost first: the one it arose in, then the one
    /// that called it, and so on out to the one the application ran.
    pub calls: Vec<String>,
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
    /// An error raised while rules ran, with where (`docs/dsl.md`, "Run-time errors").
    #[error("{error} (in {} at {}, {})", .place.resolver, .place.at, .place.cite)]
    InRules { error: Box<Error>, place: Box<RulePlace> },
}

impl Error {
    /// Shorthand used by generated code and the binder.
    pub fn internal(message: impl Into<String>) -> Error {
        Error::Internal { message: message.into() }
    }

    /// The error itself, without where it arose.
    pub fn cause(&self) -> &Error {
        match self {
            Error::InRules { error, .. } => error.cause(),
            e => e,
        }
    }

    /// Where in the rules text it arose, if it arose while rules ran.
    pub fn place(&self) -> Option<&RulePlace> {
        match self {
            Error::InRules { place, .. } => Some(place),
            _ => None,
        }
    }

    /// A fault of the rules as they ran (an overflow, a division by zero, a value outside a table,
    /// a failed `require`...), which a statement of the rules raised: these are located. Dice
    /// scripts, limits, budgets and the odds engine's own errors (dice too many to enumerate
    /// exactly among them) are not.
    fn is_rules_fault(&self) -> bool {
        matches!(
            self,
            Error::Overflow
                | Error::DivisionByZero
                | Error::Domain { .. }
                | Error::OutOfRange { .. }
                | Error::ListTooLong { .. }
                | Error::RerollLimit
                | Error::Unknown { .. }
                | Error::MissingInput { .. }
                | Error::BadValue { .. }
                | Error::Rejected { .. }
        )
    }

    /// The error as the statement at `at` of `resolver` (citing `cite`) raised it: a fault of the
    /// rules not yet located is located there; a failed `require` at its first violation.
    #[cold]
    pub fn at_statement(self, resolver: &str, at: &str, cite: &str) -> Error {
        if !self.is_rules_fault() {
            return self;
        }
        let (at, cite) = match &self {
            Error::Rejected { violations } => violations.first().map_or((at, cite), |v| {
                (v.at.as_str(), if v.cite.is_empty() { cite } else { v.cite.as_str() })
            }),
            _ => (at, cite),
        };
        let place = RulePlace {
            resolver: resolver.to_string(),
            at: at.to_string(),
            cite: cite.to_string(),
            calls: Vec::new(),
        };
        Error::InRules {
            error: Box::new(self),
            place: Box::new(place),
        }
    }

    /// The error as it leaves `resolver`: a located one adds the resolver to its calls.
    #[cold]
    pub fn leaving(mut self, resolver: &str) -> Error {
        if let Error::InRules { place, .. } = &mut self {
            place.calls.push(resolver.to_string());
        }
        self
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

/// A generated resolver's error as it leaves the resolver: located at its statement `at` when it
/// is a fault of the rules not yet located, then counted as leaving. `sites` is the resolver
/// (`system.resolver`) on the first line, its file on the second, then one line
/// `line:col<TAB>citation` per statement (`at` counts them from 0). An `at` past them (no
/// statement that may fail has begun: the resolver's inputs were being checked) locates nothing:
/// the caller's statement that passed them will.
#[cold]
#[inline(never)]
pub fn leave(e: Error, sites: &str, at: usize) -> Error {
    let mut lines = sites.split('\n');
    let resolver = lines.next().unwrap_or("");
    let file = lines.next().unwrap_or("");
    let e = match lines.nth(at).and_then(|l| l.split_once('\t')) {
        Some((line_col, cite)) => e.at_statement(resolver, &format!("{file}:{line_col}"), cite),
        None => e,
    };
    e.leaving(resolver)
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
