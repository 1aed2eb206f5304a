//! `rulebook best`: the choice of a decision input, state by state, that maximizes an objective
//! of a procedure written as one step (`rt::best`, by backward induction, exactly), against the
//! rules' own choice and fixed alternatives.

use super::inputs::{self, InputArgs};
use super::list::pretty;
use super::{CliError, RulesArg};
use num_rational::BigRational;
use rt::best::{decimal, fraction, Problem, Solution};
use rt::best_ask::{Ask, Compared};
use rulebook_runtime as rt;
use std::io::Write;

/// States listed in the text report; `--json` lists them all.
const MAX_ROWS: usize = 60;

#[derive(clap::Args, Debug)]
pub struct BestArgs {
    #[command(flatten)]
    pub rules: RulesArg,
    /// The step resolver of the procedure, as SYSTEM.RESOLVER
    #[arg(value_name = "SYSTEM.STEP")]
    pub resolver: String,
    /// The yes/no output that ends the procedure
    #[arg(long, value_name = "FIELD")]
    pub until: String,
    /// The decision: an input the step declares with `choice`, made afresh in each state, with the
    /// values it may take (NAME, every value of its type; NAME=LO..HI; NAME=A,B,C); default: the
    /// step's one `choice`
    #[arg(long, value_name = "NAME[=VALUES]")]
    pub decide: Option<String>,
    /// What to maximize: a yes/no output (its probability), a number output (its expected value),
    /// FIELD OP VALUE with OP one of == != < <= > >= (its probability), or a sum of such terms,
    /// each with a whole coefficient (`working - ruined`, `2 * (result == win) + (result == draw)`)
    #[arg(long, value_name = "EXPR")]
    pub maximize: String,
    /// Most steps followed; a path not ended then is valued by its last outcome
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub rounds: u32,
    /// A fixed choice to compare with, NAME=VALUE (repeatable)
    #[arg(long, value_name = "NAME=VALUE", value_parser = inputs::parse_set)]
    pub against: Vec<(String, String)>,
    #[command(flatten)]
    pub inputs: InputArgs,
    /// JSON instead of text
    #[arg(long)]
    pub json: bool,
    /// Give up after this many seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub budget: u64,
}

pub fn run(systems: &[&'static rt::SystemInfo], args: &BestArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let (s, r) = super::find_resolver(systems, &args.resolver)?;
    super::odds::check_until(r, Some(&args.until))?;
    let ask = Ask {
        until: &args.until,
        decide: args.decide.as_deref(),
        maximize: &args.maximize,
        rounds: args.rounds,
        against: &args.against,
    };
    // The question's mistakes are usage errors; then the inputs are bound (their own errors).
    let mut bound: Option<CliError> = None;
    let asked = rt::best_ask::ask(r, &ask, || {
        inputs::bind(r, &args.inputs).map_err(|e| {
            let text = e.message.clone();
            bound = Some(e);
            text
        })
    });
    let asked = match (asked, bound) {
        (Ok(a), _) => a,
        (Err(_), Some(e)) => return Err(e),
        (Err(e), None) => return Err(CliError::usage(e)),
    };
    let problem = &asked.problem;
    // The budget bounds each part of the work: a decision with too many states says so and stops.
    let rounds = |mut e: CliError| {
        e.message = e.message.replace("(--steps)", "(--rounds)");
        e
    };
    let fixed = rt::best_ask::fixed(&asked);
    let solved = super::budgeted(args.budget, || rt::best::solve(problem, &mut |i| r.odds(i), &fixed))
        .map_err(|e| rounds(super::rules_error::failed(e, args.json, out)))?;
    let compared = rt::best_ask::compare(&asked, &solved);
    let path = format!("{}.{}", s.name, r.name);
    if args.json {
        writeln!(
            out,
            "{}",
            pretty(&rt::best_ask::json_doc(&path, &ask, problem, &solved, &compared))?
        )?;
    } else {
        let probability = problem.objective.is_probability(r);
        report(out, &path, args, problem, &solved, &compared, probability)?;
    }
    Ok(())
}

/// A value as the report shows it: a probability as a percentage, a number with four decimals,
/// each with its exact fraction.
fn shown(v: &BigRational, probability: bool) -> String {
    if probability {
        format!("{}%  ({})", decimal(&(v * BigRational::from_integer(100.into())), 2), fraction(v))
    } else {
        format!("{}  ({})", decimal(v, 4), fraction(v))
    }
}

/// A state's value cut to a table cell (a battle's units run to thousands of characters; `--json`
/// has them whole).
fn cut(text: &str) -> String {
    const MOST: usize = 40;
    if text.chars().count() > MOST {
        format!("{}…", text.chars().take(MOST - 1).collect::<String>())
    } else {
        text.to_string()
    }
}

/// The best choices of a state, compact: consecutive whole numbers as `LO..HI`, `any` for all.
fn choices_text(p: &Problem, best: &[usize]) -> String {
    if best.len() == p.choices.len() && best.len() > 1 {
        return "any".into();
    }
    let ints: Option<Vec<i64>> = best
        .iter()
        .map(|&c| match p.choices.get(c) {
            Some(rt::Value::Int(i)) => Some(*i),
            _ => None,
        })
        .collect();
    match ints {
        Some(mut v) if v.len() > 1 => {
            v.sort_unstable();
            let mut parts: Vec<String> = Vec::new();
            let mut i = 0;
            while i < v.len() {
                let mut j = i;
                while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
                    j += 1;
                }
                parts.push(if j > i { format!("{}..{}", v[i], v[j]) } else { v[i].to_string() });
                i = j + 1;
            }
            parts.join(", ")
        }
        _ => best
            .iter()
            .filter_map(|&c| p.choices.get(c))
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    }
}

fn report(
    out: &mut dyn Write,
    path: &str,
    args: &BestArgs,
    p: &Problem,
    sol: &Solution,
    compared: &[Compared],
    probability: bool,
) -> Result<(), CliError> {
    let what = if probability {
        format!("P({})", args.maximize.trim())
    } else {
        format!("the expected value of `{}`", args.maximize.trim())
    };
    writeln!(out, "{path}: the best `{}` in each state, to maximize {what}", p.decide)?;
    writeln!(
        out,
        "(exact, by backward induction over at most {} steps; {} states and choices worked out)\n",
        p.horizon, sol.worked
    )?;
    let mut rows = vec![("best".to_string(), &sol.optimal)];
    rows.extend(compared.iter().map(|c| (c.label.clone(), &c.value)));
    let width = rows.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(4);
    for (label, v) in &rows {
        writeln!(out, "  {}  {}", super::pad(label, width), shown(v, probability))?;
    }
    // The states where the choice matters; in the others every choice is as good.
    let matters: Vec<&rt::best::StateChoice> = sol.states.iter().filter(|st| st.best.len() < p.choices.len()).collect();
    if matters.is_empty() {
        writeln!(
            out,
            "\nin every one of the {} states, every choice is as good as the best",
            sol.states.len()
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "\nthe best choice where it matters ({} of {} states; in the others every choice is as good), each state where it is first met:",
        matters.len(),
        sol.states.len()
    )?;
    let mut table: Vec<Vec<String>> = vec![["step".to_string()]
        .into_iter()
        .chain(sol.fields.iter().cloned())
        .chain(["best".into(), "value".into()])
        .collect()];
    for st in matters.iter().take(MAX_ROWS) {
        let value = if probability {
            format!("{}%", decimal(&(&st.value * BigRational::from_integer(100.into())), 2))
        } else {
            decimal(&st.value, 4)
        };
        table.push(
            std::iter::once(st.step.to_string())
                .chain(st.state.iter().map(|v| cut(&v.to_string())))
                .chain([choices_text(p, &st.best), value])
                .collect(),
        );
    }
    let widths: Vec<usize> = (0..table[0].len())
        .map(|c| table.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for row in &table {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(c, w)| super::pad(c, *w)).collect();
        writeln!(out, "  {}", cells.join("  ").trim_end())?;
    }
    if matters.len() > MAX_ROWS {
        writeln!(out, "  … {} more (--json lists every state)", matters.len() - MAX_ROWS)?;
    }
    Ok(())
}
