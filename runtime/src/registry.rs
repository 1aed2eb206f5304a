//! The static description of compiled rule systems that the CLI walks: systems, resolvers, their
//! typed inputs and outputs, tables and enums. Generated code builds these as `static`s.

use crate::dice::Dice;
use crate::error::Error;
use crate::tally::PrepareFn;
use crate::trace::{NoTrace, Recorder};
use crate::value::{Inputs, Value};
use std::fmt;

/// Type of a resolver input or output field.
#[derive(Debug)]
pub enum Ty {
    Bool,
    Int {
        min: i64,
        max: i64,
    },
    Dec,
    Text,
    Enum(&'static EnumInfo),
    Key(&'static [&'static TableInfo]),
    List(&'static Ty),
    /// An optional value: `none` (or `-`, or empty text) or a value of the inner type.
    Opt(&'static Ty),
    /// A declared record type: given as a YAML mapping of its fields.
    Struct(&'static RecordInfo),
    /// A record type, by type name.
    Record(&'static str),
}

impl fmt::Display for Ty {
    /// "int 0..=12", "bool", "decimal", "Action (weapon_fire|counter_fire)", "key of pistols|rifles",
    /// "list of key of gadgets". Unbounded int sides are left out ("int", "int 0..").
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Bool => f.write_str("bool"),
            Ty::Int { min, max } => match (*min == i64::MIN, *max == i64::MAX) {
                (true, true) => f.write_str("int"),
                (false, true) => write!(f, "int {min}.."),
                (true, false) => write!(f, "int ..={max}"),
                (false, false) => write!(f, "int {min}..={max}"),
            },
            Ty::Dec => f.write_str("decimal"),
            Ty::Text => f.write_str("text"),
            Ty::Enum(e) => write!(f, "{} ({})", e.name, e.variants.join("|")),
            Ty::Key(tables) => {
                let names: Vec<&str> = tables.iter().map(|t| t.name).collect();
                write!(f, "key of {}", names.join("|"))
            }
            Ty::List(inner) => write!(f, "list of {inner}"),
            Ty::Opt(inner) => write!(f, "{inner} or none"),
            Ty::Struct(r) => write!(f, "{} record", r.name),
            Ty::Record(name) => f.write_str(name),
        }
    }
}

/// A record type declared in the rules: its fields in declaration order.
#[derive(Debug)]
pub struct RecordInfo {
    pub name: &'static str,
    pub fields: &'static [FieldInfo],
}

#[derive(Debug)]
pub struct EnumInfo {
    pub name: &'static str,
    pub variants: &'static [&'static str],
}

#[derive(Debug)]
pub struct TableInfo {
    pub id: u16,
    pub name: &'static str,
    pub title: &'static str,
    pub cite: &'static str,
    /// "keyed" | "range" | "matrix" | "enum" (keyed by an enum: one row per variant) | "step"
    pub kind: &'static str,
    /// (column name, column type text)
    pub columns: &'static [(&'static str, &'static str)],
    /// Keyed tables: row names in row order.
    pub keys: &'static [&'static str],
    /// Alias text -> row index.
    pub aliases: &'static [(&'static str, u16)],
    pub rows: usize,
}

#[derive(Debug)]
pub struct InputInfo {
    pub name: &'static str,
    pub ty: &'static Ty,
    /// Default as text, parsed like `--set`.
    pub default: Option<&'static str>,
    pub doc: &'static str,
    /// An optional-rule switch.
    pub optional_rule: bool,
    pub cite: &'static str,
}

#[derive(Debug)]
pub struct FieldInfo {
    pub name: &'static str,
    pub ty: &'static Ty,
    pub doc: &'static str,
}

/// A resolver entry point taking dynamic inputs.
pub type RunFn<T> = fn(&mut dyn Dice, &mut T, &Inputs) -> Result<Value, Error>;

pub struct ResolverInfo {
    pub name: &'static str,
    pub title: &'static str,
    pub cite: &'static str,
    pub doc: &'static str,
    pub inputs: &'static [InputInfo],
    pub outputs: &'static [FieldInfo],
    /// The inputs declared with `choice`: decisions `best` may take in each state.
    pub choices: &'static [&'static str],
    /// How the resolver runs: compiled Rust, or the interpreter over a loaded rules folder.
    pub exec: Exec,
}

/// The two backends behind a registered resolver. Both take the same dynamic inputs and give the
/// same outcome and trace for the same rules text.
pub enum Exec {
    /// Generated Rust, compiled into the binary.
    Compiled {
        run_traced: RunFn<Recorder>,
        run_quiet: RunFn<NoTrace>,
        /// Exact odds through the typed resolver: inputs are read once, not once per dice branch.
        /// `None` falls back to enumerating `run_quiet`.
        odds: Option<OddsFn>,
        /// Exact odds of the resolver as the step of a procedure (`odds --until`) over its typed
        /// inputs and outcomes. `None`, or a function answering `None` (an `until` that is not a
        /// yes/no output), falls back to the chain over dynamic values.
        chain: Option<ChainFn>,
        /// A simulation's runs through the typed resolver: inputs read once, each outcome handed
        /// to the tally field by field. `None` falls back to `run_quiet`.
        sim: Option<PrepareFn>,
    },
    /// A resolver evaluated from the checked IR at run time (`rulebook --rules DIR`).
    Interpreted(&'static dyn Runner),
}

/// A resolver the interpreter runs: the dynamic counterpart of the compiled entry points.
pub trait Runner: Sync + Send {
    fn run_traced(&self, dice: &mut dyn Dice, trace: &mut Recorder, inputs: &Inputs) -> Result<Value, Error>;
    fn run_quiet(&self, dice: &mut dyn Dice, trace: &mut NoTrace, inputs: &Inputs) -> Result<Value, Error>;
    fn odds(&self, inputs: &Inputs) -> Result<crate::odds::Distribution<Value>, Error>;
}

/// Exact odds of a resolver from dynamic inputs.
pub type OddsFn = fn(&Inputs) -> Result<crate::odds::Distribution<Value>, Error>;
/// A compiled step's typed chain: `None` when `until` is not one of its yes/no outputs.
pub type ChainFn = fn(&Inputs, &str, u32) -> Option<Result<crate::odds::Chain, Error>>;

impl fmt::Debug for ResolverInfo {
    // Function pointers print as addresses, which would make debug output nondeterministic.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResolverInfo")
            .field("name", &self.name)
            .field("title", &self.title)
            .field("cite", &self.cite)
            .field("inputs", &self.inputs)
            .field("outputs", &self.outputs)
            .finish_non_exhaustive()
    }
}

/// Exact outcome distribution of a registered resolver (untraced); the same as `r.odds(inputs)`.
pub fn odds_dyn(r: &ResolverInfo, inputs: &Inputs) -> Result<crate::odds::Distribution<Value>, Error> {
    r.odds(inputs)
}

impl ResolverInfo {
    pub fn input(&self, name: &str) -> Option<&'static InputInfo> {
        self.inputs.iter().find(|i| i.name == name)
    }

    /// Resolves once from bound inputs, recording every event.
    pub fn run_traced(&self, dice: &mut dyn Dice, trace: &mut Recorder, inputs: &Inputs) -> Result<Value, Error> {
        match &self.exec {
            Exec::Compiled { run_traced, .. } => run_traced(dice, trace, inputs),
            Exec::Interpreted(r) => r.run_traced(dice, trace, inputs),
        }
    }

    /// Resolves once from bound inputs without a trace (simulation, benchmarks).
    pub fn run_quiet(&self, dice: &mut dyn Dice, trace: &mut NoTrace, inputs: &Inputs) -> Result<Value, Error> {
        match &self.exec {
            Exec::Compiled { run_quiet, .. } => run_quiet(dice, trace, inputs),
            Exec::Interpreted(r) => r.run_quiet(dice, trace, inputs),
        }
    }

    /// The exact outcome distribution for bound inputs.
    pub fn odds(&self, inputs: &Inputs) -> Result<crate::odds::Distribution<Value>, Error> {
        match &self.exec {
            Exec::Compiled { odds: Some(typed), .. } => typed(inputs),
            Exec::Compiled { run_quiet, odds: None, .. } => crate::odds::enumerate(|dice| run_quiet(dice, &mut NoTrace, inputs)),
            Exec::Interpreted(r) => r.odds(inputs),
        }
    }
}

#[derive(Debug)]
pub struct OptionInfo {
    pub name: &'static str,
    pub title: &'static str,
    pub cite: &'static str,
}

#[derive(Debug)]
pub struct SystemInfo {
    pub name: &'static str,
    pub title: &'static str,
    pub cite_prefix: &'static str,
    pub resolvers: &'static [ResolverInfo],
    pub tables: &'static [TableInfo],
    pub enums: &'static [&'static EnumInfo],
    pub options: &'static [OptionInfo],
}

impl SystemInfo {
    pub fn resolver(&self, name: &str) -> Option<&'static ResolverInfo> {
        self.resolvers.iter().find(|r| r.name == name)
    }

    pub fn table_by_id(&self, id: u16) -> Option<&'static TableInfo> {
        self.tables.iter().find(|t| t.id == id)
    }

    pub fn table(&self, name: &str) -> Option<&'static TableInfo> {
        self.tables.iter().find(|t| t.name == name)
    }
}

/// A system by name; unknown -> `Error::Unknown{what:"system"}` with the nearest names.
pub fn find_system(systems: &[&'static SystemInfo], name: &str) -> Result<&'static SystemInfo, Error> {
    if let Some(s) = systems.iter().find(|s| s.name == name) {
        return Ok(s);
    }
    let folded = crate::names::normalize(name);
    let mut it = systems.iter().filter(|s| crate::names::normalize(s.name) == folded);
    if let (Some(s), None) = (it.next(), it.next()) {
        return Ok(s);
    }
    let names: Vec<&str> = systems.iter().map(|s| s.name).collect();
    Err(Error::Unknown {
        what: "system".into(),
        name: name.into(),
        nearest: crate::names::nearest(name, &names, 5),
    })
}

/// `error`, or, when it names as unknown a system this build left out (`left_out`, the
/// generated `LEFT_OUT`), `Error::LeftOut`, which says how to get it.
pub fn left_out(error: Error, left_out: &[&str]) -> Error {
    match &error {
        Error::Unknown { what, name, .. } if what == "system" => {
            let folded = crate::names::normalize(name);
            match left_out.iter().find(|l| crate::names::normalize(l) == folded) {
                Some(system) => Error::LeftOut {
                    system: system.to_string(),
                },
                None => error,
            }
        }
        _ => error,
    }
}

/// Resolves "system.resolver" (e.g. "starleader.fire"). A bare resolver name is accepted when
/// exactly one system has it. Unknown -> `Error::Unknown{what:"resolver"}` whose `nearest` are
/// full "system.resolver" paths.
pub fn find_resolver(systems: &[&'static SystemInfo], path: &str) -> Result<(&'static SystemInfo, &'static ResolverInfo), Error> {
    let all: Vec<(&'static SystemInfo, &'static ResolverInfo)> =
        systems.iter().flat_map(|s| s.resolvers.iter().map(move |r| (*s, r))).collect();
    let full = |s: &SystemInfo, r: &ResolverInfo| format!("{}.{}", s.name, r.name);
    let candidates: Vec<String> = all.iter().map(|(s, r)| full(s, r)).collect();
    let unknown = || {
        let refs: Vec<&str> = candidates.iter().map(String::as_str).collect();
        Error::Unknown {
            what: "resolver".into(),
            name: path.into(),
            nearest: crate::names::nearest(path, &refs, 5),
        }
    };
    let matches: Vec<_> = match path.split_once('.') {
        Some((sys, res)) => {
            let system = find_system(systems, sys)?;
            let exact: Vec<_> = all
                .iter()
                .filter(|(s, r)| s.name == system.name && r.name == res)
                .copied()
                .collect();
            if exact.is_empty() {
                let folded = crate::names::normalize(res);
                all.iter()
                    .filter(|(s, r)| s.name == system.name && crate::names::normalize(r.name) == folded)
                    .copied()
                    .collect()
            } else {
                exact
            }
        }
        None => all.iter().filter(|(_, r)| r.name == path).copied().collect(),
    };
    match matches.as_slice() {
        [one] => Ok(*one),
        _ => Err(unknown()),
    }
}
