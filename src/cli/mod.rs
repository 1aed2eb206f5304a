//! The `rulebook` command line: argument definitions (clap derive), dispatch, and the error type
//! that maps failures to exit codes. Each verb lives in its own file and writes to injected
//! writers, so tests run it against a hand-built registry and inspect the exact output.

mod best;
mod chart;
mod chart_file;
mod chart_grid;
mod check;
mod diff;
mod diff_all;
mod format;
mod inputs;
mod list;
mod lsp;
mod odds;
mod roll;
mod rules_error;
mod sim;
mod sweep;
mod sweep_chart;
mod tour;

#[cfg(test)]
mod fixture;
#[cfg(test)]
mod tests;

pub use check::run_check;

use clap::{Args, Parser, Subcommand};
use rulebook_runtime as rt;
use std::ffi::OsString;
use std::fmt;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

const MAIN_EXAMPLES: &str = "\
Examples:
  rulebook tour                               the built-in rules at work, step by step
  rulebook list                               every compiled rule system
  rulebook list starleader                    its resolvers, inputs, tables and optional rules
  rulebook roll starleader.fire --set weapon=\"Ghazi 10/7\" --seed 7
  rulebook odds starleader.fire --set weapon=\"Ghazi 10/7\" --set special_results=true
  rulebook check --rules rules-src

Exit status: 0 success, 1 the rules rejected the situation (or failed while resolving it),
2 bad command line or input.";

/// Tabletop combat rules compiled into fast, exact, explainable resolvers.
#[derive(Parser, Debug)]
#[command(name = "rulebook", version, after_help = MAIN_EXAMPLES)]
#[command(long_about = "Tabletop combat rules compiled into fast, exact, explainable resolvers.\n\n\
Each rule system (e.g. `starleader`) provides resolvers (e.g. `fire`) with typed inputs. `roll` \
resolves one situation with seeded or scripted dice and explains every step with rule citations; \
`odds` computes the exact probability of every outcome.")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List rule systems, or one system's optional rules, resolvers and tables
    #[command(after_help = "\
Examples:
  rulebook list
  rulebook list starleader
  rulebook list starleader.fire      just one resolver
  rulebook list starleader --json")]
    List(ListArgs),
    /// Resolve one situation with dice and show the explained result
    #[command(after_help = "\
Examples:
  rulebook roll starleader.fire --set weapon=\"Ghazi 10/7\" --set target_size=1
  rulebook roll starleader.fire --input examples/starleader-fire.yaml --seed 42
  rulebook roll starleader.fire --input examples/starleader-fire.yaml --dice 3,2,2,1,4,5
  rulebook roll starleader.fire --input examples/starleader-fire.yaml --json

Without --seed or --dice the dice are seeded with 0, so the same command always prints the same
result. --set takes precedence over values from --input.")]
    Roll(RollArgs),
    /// Compute the exact probability of every outcome of a resolver
    #[command(after_help = "\
Examples:
  rulebook odds starleader.fire --set weapon=\"Ghazi 10/7\" --set special_results=true
  rulebook odds starleader.fire --input examples/starleader-fire.yaml --json
  rulebook odds starleader.to_hit --set weapon=\"Ghazi 10/7\" --chart to-hit.svg   a bar per outcome

Probabilities are exact fractions; every dice branch is enumerated, nothing is sampled. Fields
that are the same in every outcome are said once. Text shows lists as multisets: outcomes that
differ only in the order of a list are one row (--ordered shows every order); --json is always
exact, every order its own outcome. --chart FILE.svg also draws the distribution: a bar per
outcome (and per value of each field that varies), the exact fraction at its end. Odds too large
to work out exactly (past the branch or state limits, or --budget seconds) are estimated by `sim`
instead, to ±1% at 95% or for --budget seconds more: the report says so first, and why (in JSON,
the `sim` document with \"estimated_because\").")]
    Odds(OddsArgs),
    /// Check rule sources for errors without building
    #[command(after_help = "\
Examples:
  rulebook check
  rulebook check --rules my-rules --json

Exit status 0 when the rules are clean (warnings allowed), 1 when there are errors. Each
diagnostic names file:line:col, shows the line with a caret and says how to fix it.")]
    Check(CheckArgs),
    /// Lay rules files out in the one layout: aligned table columns, one statement a line
    #[command(after_help = "\
Examples:
  rulebook fmt                      every *.rules file under rules-src/, in place
  rulebook fmt --check              change nothing; show a diff of each file that would change
  rulebook fmt my-rules/fire.rules
  rulebook fmt --stdin < fire.rules

The layout: two spaces a level, a continuation line one level in (or one for each bracket still
open there, and one more in the condition of an if, for or match), one space between tokens (none inside brackets, before , : . ? or the
( of a call), table cells in columns with numbers to the right, comments where they were, those at
line ends lined up. Line breaks inside a statement stay where the author put them. Formatting
never changes meaning, and formatting twice changes nothing. Exit status 1 when --check finds a
file to change or a file does not parse (its errors are shown; it is left as it was).")]
    Fmt(format::FmtArgs),
    /// Exact odds at every point of a grid of inputs, as CSV or JSON
    #[command(after_help = "\
Examples:
  rulebook sweep starleader.to_hit --vary weapon=all --vary range_hexes=1..6 --field result
  rulebook sweep t5.attack --vary range=0..9 --set characteristic=8 --set skill=2 --json
  rulebook sweep t5.attack --vary range=0..9 --vary target_size=0..9 --set characteristic=8 --chart-outcome result=hit --chart hits.svg
  rulebook sweep starleader.to_hit --vary weapon=all --field result --shard 1/2

The shards' outputs join with `rulebook merge a.csv b.csv > grid.csv`.

The first --vary varies slowest. Each point is worked out exactly (fractions), on every core; a
point that rejects its inputs or takes longer than --budget seconds is reported with its error.
CSV columns: point (its number in the whole grid), the varied inputs, outcome, probability (an
exact fraction), percent, error. --shard I/N computes the points whose number is I-1 modulo N,
and `merge` joins the shards into what one run writes, byte for byte. --chart FILE.svg draws one
varied input as a line per outcome, two as a heatmap per outcome, more as a heatmap of one outcome
(--chart-outcome FIELD=VALUE) for each value of the inputs past the first two.")]
    Sweep(sweep::SweepArgs),
    /// Join the shards of a sweep (`sweep --shard I/N`) into what one run writes
    Merge(sweep::MergeArgs),
    /// The best choice of a decision in each state of a procedure, exactly, against fixed ones
    #[command(after_help = "\
Examples:
  rulebook best risk.attack --rules benches/fixtures --set attackers=6 --set defenders=4 --until done --decide stop_at=1..6 --maximize \"defenders == 0\"
  rulebook best risk.attack --rules benches/fixtures --set attackers=6 --set defenders=4 --until done --decide stop_at=1..6 --maximize attackers --against stop_at=4

The step is a resolver whose outputs named like its inputs are the next step's inputs, and whose
yes/no output (--until) ends the procedure, as for `odds --until`. The decision is an input the
step declares with `choice` (docs/dsl.md): it is chosen afresh in each state, from the values
--decide gives (all of its type by default). Paths are followed for at most --rounds steps; one not ended then is valued by
its last outcome. Every value is an exact fraction; the best choice in each state lists every
choice that reaches the best value there.")]
    Best(best::BestArgs),
    /// Run many seeded games of a multi-round procedure (e.g. a battle) and report probabilities
    #[command(after_help = "\
Examples:
  rulebook sim mercenary.battle --input examples/mercenary-infantry-clash.yaml --runs 10000 --seed 7
  rulebook sim mercenary.battle --input examples/mercenary-lost-command.yaml --runs 100000 --seed 1 --threads 2 --json
  rulebook sim mercenary.battle --input examples/mercenary-infantry-clash.yaml --runs 2000 --chart battle.svg
  rulebook sim starleader.to_hit --set weapon=\"Ghazi 10/7\" --precision 1% --seed 11
  rulebook sim starleader.to_hit --set weapon=\"Ghazi 10/7\" --runs 20000 --seed 11 --exact-check
  rulebook sim mercenary.battle_step --input examples/mercenary-two-a-side.yaml --until ended --field result --runs 4000 --exact-check

Each run's dice come from the seed and the run number only, so the report is byte-identical for a
given --seed whatever --threads is. Runs use every core by default; a progress bar shows on a
terminal; timings go to stderr. Invalid input is refused before anything is simulated. The text
says once the fields that are the same in every run and reports only those that vary (the
outcome field always); --json reports every field. --chart FILE.svg also draws each outcome's
share of the runs with its 95% interval, the distribution of the first whole-number output that
varies (a battle's rounds) and the means with their intervals. --precision P runs in batches until
every probability reported is known to ±P at 95% (or --runs is reached), and says how many runs
that took. --exact-check compares the estimates with the exact odds, outcome by outcome.
--until FIELD plays a resolver written as one step of a procedure (as `odds --until` reads it)
step after step in each run, until its yes/no output FIELD is yes; --field reports only some
outputs. A step is one run of the resolver: a battle's step may be a phase of a Battle Round.")]
    Sim(SimArgs),
    /// Compare two versions of the rules: how an edit moves the exact odds
    #[command(after_help = "\
Examples:
  rulebook diff builtin my-rules starleader.to_hit --set weapon=\"Ghazi 10/7\"
  rulebook diff builtin my-rules --all
  rulebook diff builtin my-rules starleader.fire --input examples/starleader-fire.yaml --json
  rulebook diff builtin my-rules starleader.to_hit --set weapon=\"Ghazi 10/7\" --chart diff.svg

OLD and NEW are rules folders (one sub-folder per system), or `builtin` for the rules compiled
into this binary. With a resolver: the exact distribution of one situation in each, and the
change per outcome. With --all: every table row that changed, and every resolver whose default
situation (declared defaults, else the first value each input allows) moved, and by how much.
--chart FILE.svg draws before and after side by side, a pair of bars per outcome. `rulebook export
DIR` writes the built-in rules to a folder to edit.")]
    Diff(DiffArgs),
    /// Write the built-in rules text to a folder, to edit and run with --rules DIR
    #[command(after_help = "\
Examples:
  rulebook export my-rules
  rulebook odds starleader.to_hit --set weapon=\"Ghazi 10/7\" --rules my-rules

Refuses to overwrite a file that already exists.")]
    Export(ExportArgs),
    /// Serve rules text to an editor: the language server, over stdin and stdout
    #[command(after_help = "\
An editor starts it, as `rulebook lsp` (the rules of the editor's workspace: its rules-src/ if it
has one) or `rulebook lsp --rules DIR` (README.md, \"Editor support\"). It answers with the
diagnostics of `check` for the whole folder as files open and change, each file's outline, go to
definition and hover.")]
    Lsp(LspArgs),
    /// A short tour of the built-in rules: check them, build a character, resolve a shot, show odds
    Tour,
}

#[derive(Args, Debug)]
pub struct ListArgs {
    #[command(flatten)]
    pub rules: RulesArg,
    /// A system (e.g. `starleader`) or one resolver (`starleader.fire`); omit to list all systems
    #[arg(value_name = "SYSTEM")]
    pub system: Option<String>,
    /// Print JSON instead of text
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct RollArgs {
    #[command(flatten)]
    pub rules: RulesArg,
    /// The resolver to run, as SYSTEM.RESOLVER (e.g. `starleader.fire`)
    #[arg(value_name = "SYSTEM.RESOLVER")]
    pub resolver: String,
    /// Seed for reproducible pseudo-random dice (default 0)
    #[arg(long, value_name = "N", conflicts_with = "dice")]
    pub seed: Option<u64>,
    /// Use these faces, in order, instead of random dice (comma-separated). Each face is what the
    /// die shows: 1 to N on a dN (a d10 shows 1 to 10), 0 to N-1 on a die the rules call
    /// `zero_based`; a d100 takes two faces, tens then units, each 0 to 9 (0,0 reads 100). Unused
    /// faces are reported as a warning
    #[arg(long, value_name = "F,F,...", value_delimiter = ',', allow_negative_numbers = true)]
    pub dice: Option<Vec<i64>>,
    #[command(flatten)]
    pub inputs: inputs::InputArgs,
    /// Print JSON ({"format_version","resolver","inputs","outcome","trace"}, described by
    /// docs/trace.schema.json) instead of text
    #[arg(long)]
    pub json: bool,
    /// Print every traced value in full, and every line of a long trace; by default a value
    /// longer than 160 characters (a whole army's state, say) is cut to its start and its size,
    /// and a trace of more than 300 lines is folded (--depth 1). `--json` is always in full
    #[arg(long)]
    pub full: bool,
    /// Show calls nested at most N deep, each deeper call folded into its one line, which says
    /// how many lines it holds (0: the resolver's own lines, and a line per call it makes). A
    /// folded trace comes after the outcome, which summarises it
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
}

#[derive(Args, Debug)]
pub struct OddsArgs {
    #[command(flatten)]
    pub rules: RulesArg,
    /// The resolver to analyse, as SYSTEM.RESOLVER (e.g. `starleader.fire`)
    #[arg(value_name = "SYSTEM.RESOLVER")]
    pub resolver: String,
    #[command(flatten)]
    pub inputs: inputs::InputArgs,
    /// Print JSON ({"resolver","inputs","outcomes":[{"outcome","probability"}]}) instead of text.
    /// JSON is exact: outcomes whose lists differ only in order stay apart
    #[arg(long)]
    pub json: bool,
    /// Give up after this many seconds (a long computation shows its progress on a terminal)
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub budget: u64,
    /// Show every order of a list outcome as its own row; by default, when there are more than
    /// 24 outcomes, the text merges outcomes that differ only in the order of a list (and says so)
    #[arg(long)]
    pub ordered: bool,
    /// How lucky was that? `FIELD=VALUE` (or `VALUE` for an outcome that is not a record): the
    /// chance of at least, at most and exactly that value, in the order of the field's values
    /// (numbers by size, enums by declaration order)
    #[arg(long, value_name = "FIELD=VALUE")]
    pub observed: Option<String>,
    /// Report only these outputs (repeat the option, or separate with commas): outcomes that agree
    /// on them merge. A battle's end (`--field result`) reads at once, whatever else differs
    #[arg(long = "field", value_name = "FIELD", value_delimiter = ',')]
    pub fields: Vec<String>,
    /// Run the resolver as one step of a procedure, step after step, until its yes/no output
    /// FIELD is yes: each step's outputs named like its inputs are the next step's inputs (the
    /// other inputs, such as a policy, stay). Steps that reach the same state merge, so a
    /// battle to elimination has exact odds: the end, and the chance it is over by each step (a
    /// step is one run of the resolver, which may be less than what the book calls a round)
    #[arg(long, value_name = "FIELD")]
    pub until: Option<String>,
    /// With --until: the most steps computed; what is still running then is reported
    #[arg(long, alias = "rounds", value_name = "N", default_value_t = 200, requires = "until", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub steps: u32,
    /// Also draw the result as an SVG chart in FILE (written whole or not at all)
    #[arg(long, value_name = "FILE.svg")]
    pub chart: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct SimArgs {
    #[command(flatten)]
    pub rules: RulesArg,
    /// The procedure to run, as SYSTEM.RESOLVER (e.g. `mercenary.battle`)
    #[arg(value_name = "SYSTEM.RESOLVER")]
    pub resolver: String,
    #[command(flatten)]
    pub inputs: inputs::InputArgs,
    /// Number of runs (at least 1; default 1000). With --precision, the most runs it may take
    /// (default 10000000)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: Option<u64>,
    /// Run until every reported probability's 95% interval is at most ±P: a share (0.005) or a
    /// percentage (0.5%). Says how many runs that took; the same report comes from --runs N
    #[arg(long, value_name = "P", value_parser = parse_precision)]
    pub precision: Option<f64>,
    /// Also work out the exact odds (for a procedure small enough to enumerate) and say, for each
    /// outcome, the exact value, the estimate, and whether the exact value lies in the 95% interval
    #[arg(long)]
    pub exact_check: bool,
    /// With --exact-check: give up on the exact odds after this many seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub budget: u64,
    /// Seed of the whole simulation
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
    /// Worker threads, 1 to 256 (default: every core)
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: Option<u64>,
    /// Print JSON: {"resolver","inputs","runs","seed","outcomes":{value:{"probability","ci95"}},"fields","means"}
    #[arg(long)]
    pub json: bool,
    /// Also draw the result as an SVG chart in FILE (written whole or not at all)
    #[arg(long, value_name = "FILE.svg")]
    pub chart: Option<PathBuf>,
    /// Run the resolver as one step of a procedure, as `odds --until` does: each run plays step
    /// after step, each step's outputs named like its inputs the next step's inputs, until its
    /// yes/no output FIELD is yes; the report is of the last step's outcomes
    #[arg(long, value_name = "FIELD")]
    pub until: Option<String>,
    /// With --until: the most steps a run plays; the runs still going then are reported
    #[arg(long, alias = "rounds", value_name = "N", default_value_t = 200, requires = "until", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub steps: u32,
    /// Report only these outputs (repeat the option, or separate with commas), as `odds --field`
    #[arg(long = "field", value_name = "FIELD", value_delimiter = ',')]
    pub fields: Vec<String>,
    /// Set by `odds` when it estimates instead: why the exact odds were not worked out. The
    /// report says so first (and JSON under "estimated_because"), and the runs stop after
    /// `budget` seconds even short of the precision asked.
    #[arg(skip)]
    pub instead_of_exact: Option<String>,
}

/// `--precision`: a share in (0, 0.5], written `0.005` or `0.5%`.
fn parse_precision(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let (number, scale) = match t.strip_suffix('%') {
        Some(n) => (n.trim(), 100.0),
        None => (t, 1.0),
    };
    let p = number
        .parse::<f64>()
        .map_err(|_| format!("`{text}` is not a number: write a share such as 0.005, or a percentage such as 0.5%"))?
        / scale;
    if !(p > 0.0 && p <= 0.5) {
        return Err(format!(
            "`{text}` is not a usable half-width: it must be above 0 and at most 0.5 (50%), such as 0.005 or 0.5%"
        ));
    }
    Ok(p)
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The rules before the change: a folder, or `builtin`
    #[arg(value_name = "OLD")]
    pub old: String,
    /// The rules after the change: a folder, or `builtin`
    #[arg(value_name = "NEW")]
    pub new: String,
    /// The resolver to compare, as SYSTEM.RESOLVER (omit with --all)
    #[arg(value_name = "SYSTEM.RESOLVER")]
    pub resolver: Option<String>,
    #[command(flatten)]
    pub inputs: inputs::InputArgs,
    /// Compare every table and every resolver's default situation
    #[arg(long)]
    pub all: bool,
    /// Print JSON instead of text
    #[arg(long)]
    pub json: bool,
    /// Also draw the two distributions side by side as an SVG chart in FILE (with a resolver,
    /// not --all; written whole or not at all)
    #[arg(long, value_name = "FILE.svg", conflicts_with = "all")]
    pub chart: Option<PathBuf>,
    /// Give up on the exact odds of one side of one resolver after this many seconds (with
    /// --all, a resolver that takes longer is listed as not compared, with the reason)
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub budget: u64,
}

#[derive(Args, Debug)]
pub struct LspArgs {
    /// The rules folder (one folder per system); else the workspace's
    #[arg(long, value_name = "DIR")]
    pub rules: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The folder to write (created if missing)
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// `--rules DIR`: the rules of a folder, run by the interpreter, instead of the compiled ones.
#[derive(Args, Clone, Debug, Default)]
pub struct RulesArg {
    /// Use the rules in DIR (one sub-folder per system) instead of the built-in compiled rules.
    /// They are checked and run by the interpreter at once, so an edit needs no rebuild; output is
    /// the same, byte for byte, as compiled rules of the same text
    #[arg(long = "rules", value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Folder of rules, one sub-folder per system (default: the rules built into this binary)
    #[arg(long = "rules", value_name = "DIR")]
    pub rules_dir: Option<PathBuf>,
    /// Print diagnostics as JSON
    #[arg(long)]
    pub json: bool,
}

/// A failure to report as `error: <message>` with an exit code: 2 for usage and input errors, 1
/// when the rules reject the situation or fail while resolving it.
#[derive(Debug, Clone, PartialEq)]
pub struct CliError {
    pub message: String,
    pub code: u8,
}

impl CliError {
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            code: 2,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<rt::Error> for CliError {
    fn from(e: rt::Error) -> Self {
        CliError {
            message: rules_error::describe(&e),
            code: if e.is_input_error() { 2 } else { 1 },
        }
    }
}

/// Output errors. A closed pipe (`rulebook odds ... | head`) is not worth an error message, so
/// it is marked with code 0 and `run` exits quietly.
impl From<io::Error> for CliError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            CliError {
                message: String::new(),
                code: 0,
            }
        } else {
            CliError {
                message: format!("cannot write output: {e}"),
                code: 1,
            }
        }
    }
}

/// Entry point used by `main.rs`.
pub fn main(systems: &[&'static rt::SystemInfo]) -> ExitCode {
    // Not locked for the whole run: `rulebook lsp` writes its messages from a thread of its own.
    run(systems, std::env::args_os(), &mut io::stdout(), &mut io::stderr())
}

/// Parses `args` (including the program name) and runs the verb, writing to `out` and `err`.
pub fn run<I, T>(systems: &[&'static rt::SystemInfo], args: I, out: &mut dyn Write, err: &mut dyn Write) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    // `roll --help` and `odds --help` list every optional rule of the compiled systems.
    let extra = optional_rules_help(systems);
    let cmd = <Cli as clap::CommandFactory>::command()
        .mut_subcommand("roll", |c| with_extra_help(c, &extra))
        .mut_subcommand("odds", |c| with_extra_help(c, &extra));
    let parsed = cmd
        .try_get_matches_from(args)
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // clap renders usage errors (code 2) and --help/--version (code 0) itself.
            let text = e.render().to_string();
            let code = u8::try_from(e.exit_code()).unwrap_or(2);
            if e.use_stderr() {
                let _ = err.write_all(text.as_bytes());
                return ExitCode::from(code);
            }
            // --help and --version: their text is the output, so a failed write is reported.
            return match out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(CliError::from) {
                Err(e) if e.code != 0 => {
                    let _ = writeln!(err, "error: {}", e.message);
                    ExitCode::from(e.code)
                }
                _ => ExitCode::from(code),
            };
        }
    };
    let result = match cli.command {
        Command::List(a) => with_rules(systems, &a.rules, |s| list::run(s, &a, out)),
        Command::Roll(a) => with_rules(systems, &a.rules, |s| roll::run(s, &a, out, err)),
        Command::Odds(a) => with_rules(systems, &a.rules, |s| odds::run(s, &a, out, err)),
        Command::Check(a) => match run_check(a.rules_dir, a.json, out, err) {
            Ok(true) => Ok(()),
            // The diagnostics are written: exit 1 with nothing more to say.
            Ok(false) => Err(CliError {
                message: String::new(),
                code: 1,
            }),
            Err(e) => Err(e),
        },
        Command::Tour => tour::run(systems, out, err),
        Command::Diff(a) => diff::run(&a, out),
        Command::Export(a) => export(&a, out),
        Command::Lsp(a) => lsp::run(a.rules.as_deref()),
        Command::Fmt(a) => format::run(&a, out, err),
        Command::Sweep(a) => with_rules(systems, &a.rules, |s| sweep::run(s, &a, out, err)),
        Command::Merge(a) => sweep::merge(&a, out),
        Command::Best(a) => with_rules(systems, &a.rules, |s| best::run(s, &a, out)),
        Command::Sim(a) => with_rules(systems, &a.rules, |s| sim::run(s, &a, out, err)),
    };
    let flushed = out.flush().map_err(CliError::from);
    match result.and(flushed) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.code == 0 => ExitCode::SUCCESS,
        Err(e) if e.message.is_empty() => ExitCode::from(e.code),
        Err(e) => {
            let _ = writeln!(err, "error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}

/// `rulebook export DIR`: the built-in rules text, one file per rules file, never overwriting.
fn export(args: &ExportArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let files = rulebook::RULES_SOURCES;
    for (path, _) in files {
        let target = args.dir.join(path);
        if target.exists() {
            return Err(CliError::usage(format!(
                "{} already exists; export into a new folder",
                target.display()
            )));
        }
    }
    for (path, text) in files {
        let target = args.dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| CliError::usage(format!("cannot create {}: {e}", parent.display())))?;
        }
        std::fs::write(&target, text).map_err(|e| CliError::usage(format!("cannot write {}: {e}", target.display())))?;
    }
    writeln!(
        out,
        "wrote {} rules files to {}; edit them, then e.g. `rulebook check --rules {}` and `rulebook diff builtin {} --all`",
        files.len(),
        args.dir.display(),
        args.dir.display(),
        args.dir.display()
    )?;
    Ok(())
}

/// Runs a verb on the built-in systems, or on the rules of `--rules DIR` loaded for the interpreter.
/// Rules with errors are refused with every diagnostic, as `check` renders them.
fn with_rules(
    builtin: &[&'static rt::SystemInfo],
    rules: &RulesArg,
    verb: impl FnOnce(&[&'static rt::SystemInfo]) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let Some(dir) = &rules.dir else {
        return verb(builtin);
    };
    match rulebook_interp::Rules::load(dir) {
        Ok(loaded) => verb(loaded.systems()),
        Err(rulebook_interp::LoadError::Io(problems)) => Err(CliError::usage(problems.join("\n"))),
        Err(e @ rulebook_interp::LoadError::Rules { .. }) => Err(CliError {
            message: format!("cannot use the rules in {}:\n{e}", dir.display()),
            code: 1,
        }),
    }
}

fn with_extra_help(c: clap::Command, extra: &str) -> clap::Command {
    let base = c.get_after_help().map(|h| h.to_string()).unwrap_or_default();
    c.after_help(format!("{base}\n\n{extra}"))
}

/// "Optional rules" help text: how many each system has and where to read them, one line a system
/// (the rules themselves, with titles and citations, are in `rulebook list SYSTEM`).
fn optional_rules_help(systems: &[&'static rt::SystemInfo]) -> String {
    let mut out = String::from(
        "Optional rules are inputs, off unless --set NAME=true. `rulebook list SYSTEM` lists them with their\ncitations; `rulebook list SYSTEM.RESOLVER` shows which a resolver uses:",
    );
    let width = systems.iter().map(|s| s.name.chars().count()).max().unwrap_or(0);
    for s in systems.iter().filter(|s| !s.options.is_empty()) {
        // Names wrapped at 100 columns, continuation lines under the first name.
        out.push_str(&format!("\n  {}  ", pad(s.name, width)));
        // At most two lines a system: a system with many switches ends with "... and N more".
        let (indent, mut col, mut line) = (width + 4, width + 4, 1);
        for (i, o) in s.options.iter().enumerate() {
            let left = s.options.len() - i;
            let item = if i + 1 < s.options.len() {
                format!("{},", o.name)
            } else {
                o.name.to_string()
            };
            let more = format!("... and {left} more");
            let wraps = col > indent && col + 1 + item.chars().count() > 100;
            // On the last line, keep room for the "... and N more" of the switches after this one.
            let no_room = line == 2 && left > 1 && col + 1 + item.chars().count() + 1 + more.len() + 2 > 100;
            if line == 2 && (wraps || no_room) {
                out.push_str(&format!(" {more}"));
                break;
            }
            if wraps {
                out.push_str(&format!("\n{}", " ".repeat(indent)));
                col = indent;
                line += 1;
            } else if col > indent {
                out.push(' ');
                col += 1;
            }
            out.push_str(&item);
            col += item.chars().count();
        }
    }
    out
}

/// Looks up SYSTEM.RESOLVER, with a clearer message when nothing is compiled in at all, or when
/// the system is one this build left out.
pub(crate) fn find_resolver(
    systems: &[&'static rt::SystemInfo],
    path: &str,
) -> Result<(&'static rt::SystemInfo, &'static rt::ResolverInfo), CliError> {
    let left_out = left_out_of(systems);
    if systems.is_empty() && left_out.is_empty() {
        return Err(CliError::usage(format!(
            "unknown resolver `{path}`: no rule systems are compiled in"
        )));
    }
    rt::find_resolver(systems, path).map_err(|e| rt::left_out(e, left_out).into())
}

/// Looks up a system, as `find_resolver` does.
pub(crate) fn find_system(systems: &[&'static rt::SystemInfo], name: &str) -> Result<&'static rt::SystemInfo, CliError> {
    let left_out = left_out_of(systems);
    if systems.is_empty() && left_out.is_empty() {
        return Err(CliError::usage(format!("unknown system `{name}`: no rule systems are compiled in")));
    }
    rt::find_system(systems, name).map_err(|e| rt::left_out(e, left_out).into())
}

/// The systems this build left out (their Cargo features off), when `systems` are the compiled
/// ones; none for rules loaded with `--rules DIR`.
pub(crate) fn left_out_of(systems: &[&'static rt::SystemInfo]) -> &'static [&'static str] {
    if std::ptr::eq(systems, rulebook::SYSTEMS) {
        rulebook::LEFT_OUT
    } else {
        &[]
    }
}

/// Exact odds of `r` with a time budget: the enumeration runs on a worker thread that reports its
/// progress; past one second a bar shows on a terminal, and past `budget` seconds it is stopped
/// with an error that says how far it got and what to do instead.
pub(crate) fn exact_odds(r: &'static rt::ResolverInfo, inputs: &rt::Inputs, budget: u64) -> Result<rt::Distribution<rt::Value>, CliError> {
    with_budget(budget, || r.odds(inputs))
}

/// Runs an exact computation on a worker thread under `budget` seconds (then it is stopped),
/// showing its progress on a terminal after a second.
pub(crate) fn with_budget<T: Send>(budget: u64, work: impl FnOnce() -> Result<T, rt::Error> + Send) -> Result<T, CliError> {
    Ok(budgeted(budget, work)?)
}

/// `with_budget`, its error the runtime's own (`odds` tells the exact odds that are too large
/// from the other errors).
pub(crate) fn budgeted<T: Send>(budget: u64, work: impl FnOnce() -> Result<T, rt::Error> + Send) -> Result<T, rt::Error> {
    use std::io::IsTerminal;
    use std::sync::atomic::Ordering::Relaxed;
    use std::time::{Duration, Instant};
    let watch = std::sync::Arc::new(rt::Watch::default());
    watch.budget_seconds.store(budget, Relaxed);
    let started = Instant::now();
    let result = std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        let w = watch.clone();
        // As deep a stack as a resolution may need; a thread that cannot start is the error below.
        let _ = std::thread::Builder::new()
            .stack_size(rt::RESOLUTION_STACK)
            .spawn_scoped(s, move || {
                let _ = tx.send(rt::with_watch(w, work));
            });
        let mut bar: Option<indicatif::ProgressBar> = None;
        let result = loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(result) => break result,
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    break Err(rt::Error::internal("the odds worker stopped without an answer"))
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            }
            let elapsed = started.elapsed();
            if elapsed >= Duration::from_secs(budget) {
                watch.cancel.store(true, Relaxed);
            }
            if elapsed >= Duration::from_secs(1) && std::io::stderr().is_terminal() {
                let b = bar.get_or_insert_with(|| {
                    let b = indicatif::ProgressBar::new(1_000_000);
                    let template = if watch.chain_step.load(Relaxed) > 0 {
                        "{spinner} exact odds, {msg}"
                    } else {
                        "{spinner} exact odds {bar:40} {percent}% of the dice tree, {msg}"
                    };
                    b.set_style(
                        indicatif::ProgressStyle::with_template(template).unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                    );
                    b
                });
                let step = watch.chain_step.load(Relaxed);
                if step > 0 {
                    // A chain: the dice tree under way is one state's, so say where the chain is.
                    b.set_message(format!(
                        "step {step} of the procedure, {} states worked out; gives up after {budget} s",
                        watch.chain_states.load(Relaxed)
                    ));
                } else {
                    b.set_position(watch.done_ppm.load(Relaxed));
                    b.set_message(format!("{} branches; gives up after {budget} s", watch.leaves.load(Relaxed)));
                }
            }
        };
        if let Some(b) = &bar {
            b.finish_and_clear();
        }
        result
    });
    result
}

/// Compact one-line form of an outcome: record fields as `name=value` separated by spaces.
pub(crate) fn compact(v: &rt::Value) -> String {
    match v {
        rt::Value::Record(fields) => fields.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "),
        other => other.to_string(),
    }
}

/// Left-pads nothing, right-pads `s` with spaces to `width` characters (not bytes: traces and
/// keys may hold non-ASCII text).
pub(crate) fn pad(s: &str, width: usize) -> String {
    let n = s.chars().count();
    format!("{s}{}", " ".repeat(width.saturating_sub(n)))
}
