//! `rulebook best`: the choice of a decision input, state by state, that maximizes an objective
//! of a procedure written as one step (`rt::best`, by backward induction, exactly), against the
//! rules' own choice and fixed alternatives.

use super::inputs::{self, InputArgs};
use super::list::pretty;
use super::{CliError, RulesArg};
use num_rational::BigRational;
use rulebook_runtime as rt;
use rt::best::{decimal, fraction, Objective, Problem, Solution};
use serde_json::json;
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
    /// or FIELD OP VALUE with OP one of == != < <= > >= (its probability)
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

/// A policy's value: its label and value.
struct Compared {
    label: String,
    value: BigRational,
}

pub fn run(systems: &[&'static rt::SystemInfo], args: &BestArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let (s, r) = super::find_resolver(systems, &args.resolver)?;
    super::odds::check_until(r, Some(&args.until))?;
    let objective = Objective::parse(r, &args.maximize).map_err(CliError::usage)?;
    let given = match (&args.decide, r.choices) {
        (Some(d), _) => d.clone(),
        (None, [one]) => (*one).to_string(),
        (None, []) => {
            return Err(CliError::usage(format!(
                "{} declares no `choice` input: declare the decision in the rules (`choice NAME: TYPE = DEFAULT`), see docs/dsl.md",
                r.name
            )))
        }
        (None, many) => return Err(CliError::usage(format!("{} has several choices ({}); say which with --decide", r.name, many.join(", ")))),
    };
    let (name, spec) = given.split_once('=').unwrap_or((&given, "all"));
    let (decide, texts) = rt::sweep::axis(r, name.trim(), spec).map_err(|e| CliError::usage(e.replace("--vary", "--decide")))?;
    if !r.choices.contains(&decide.as_str()) {
        let declared = if r.choices.is_empty() { "none".to_string() } else { r.choices.join(", ") };
        return Err(CliError::usage(format!(
            "--decide {decide}: `{decide}` is not a decision of {}; its `choice` inputs: {declared} (declare one with `choice` in place of `in`)",
            r.name
        )));
    }
    let start = inputs::bind(r, &args.inputs)?;
    let input = r.inputs.iter().find(|i| i.name == decide).ok_or_else(|| CliError::usage(format!("--decide {decide}: no such input")))?;
    let mut choices: Vec<rt::Value> = texts.iter().map(|t| rt::parse_input(input.name, input.ty, t)).collect::<Result<_, _>>()?;
    // The rules' own choice (the input as given, or its default) is always among the choices.
    let own = start.get(&decide).cloned().unwrap_or(rt::Value::None);
    if !choices.contains(&own) {
        choices.push(own.clone());
    }
    let mut against = Vec::new();
    for (n, v) in &args.against {
        if rt::normalize(n) != rt::normalize(&decide) {
            return Err(CliError::usage(format!("--against {n}={v}: the decision is `{decide}`; give --against {decide}=VALUE")));
        }
        let value = rt::parse_input(input.name, input.ty, v)?;
        if !choices.contains(&value) {
            choices.push(value.clone());
        }
        against.push(value);
    }
    let problem = Problem { step: r, start, until: &args.until, decide: &decide, choices, objective, horizon: args.rounds };
    let index = |v: &rt::Value| problem.choices.iter().position(|c| c == v).unwrap_or(0);
    // The budget bounds the whole work: a decision with too many states says so and stops.
    let rounds = |mut e: CliError| {
        e.message = e.message.replace("(--steps)", "(--rounds)");
        e
    };
    let solved = super::budgeted(args.budget, || rt::best::solve(&problem, &mut |i| r.odds(i), None))
        .map_err(|e| rounds(super::rules_error::failed(e, args.json, out)))?;
    let mut compared = Vec::new();
    for v in std::iter::once(&own).chain(&against) {
        let k = index(v);
        let fixed = move |_: &rt::Inputs| k;
        let sol = super::budgeted(args.budget, || rt::best::solve(&problem, &mut |i| r.odds(i), Some(&fixed))).map_err(|e| rounds(e.into()))?;
        let label = if v == &own { format!("the rules' own ({decide} = {v})") } else { format!("{decide} = {v}") };
        compared.push(Compared { label, value: sol.optimal });
    }
    let path = format!("{}.{}", s.name, r.name);
    let probability = is_probability(r, &problem.objective);
    if args.json {
        writeln!(out, "{}", pretty(&json_doc(&path, args, &problem, &solved, &compared))?)?;
    } else {
        report(out, &path, args, &problem, &solved, &compared, probability)?;
    }
    Ok(())
}

/// Whether the objective is a probability (a yes/no output, or a test), not an expected number.
fn is_probability(r: &rt::ResolverInfo, o: &Objective) -> bool {
    o.test.is_some() || r.outputs.iter().any(|f| f.name == o.field && matches!(f.ty, rt::Ty::Bool))
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
    let ints: Option<Vec<i64>> = best.iter().map(|&c| match p.choices.get(c) { Some(rt::Value::Int(i)) => Some(*i), _ => None }).collect();
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
        _ => best.iter().filter_map(|&c| p.choices.get(c)).map(ToString::to_string).collect::<Vec<_>>().join(", "),
    }
}

fn report(out: &mut dyn Write, path: &str, args: &BestArgs, p: &Problem, sol: &Solution, compared: &[Compared], probability: bool) -> Result<(), CliError> {
    let what = if probability { format!("P({})", args.maximize.trim()) } else { format!("the expected {}", args.maximize.trim()) };
    writeln!(out, "{path}: the best `{}` in each state, to maximize {what}", p.decide)?;
    writeln!(out, "(exact, by backward induction over at most {} steps; {} states and choices worked out)\n", p.horizon, sol.worked)?;
    let mut rows = vec![("best".to_string(), &sol.optimal)];
    rows.extend(compared.iter().map(|c| (c.label.clone(), &c.value)));
    let width = rows.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(4);
    for (label, v) in &rows {
        writeln!(out, "  {}  {}", super::pad(label, width), shown(v, probability))?;
    }
    // The states where the choice matters; in the others every choice is as good.
    let matters: Vec<&rt::best::StateChoice> = sol.states.iter().filter(|st| st.best.len() < p.choices.len()).collect();
    if matters.is_empty() {
        writeln!(out, "\nin every one of the {} states, every choice is as good as the best", sol.states.len())?;
        return Ok(());
    }
    writeln!(
        out,
        "\nthe best choice where it matters ({} of {} states; in the others every choice is as good), each state where it is first met:",
        matters.len(),
        sol.states.len()
    )?;
    let mut table: Vec<Vec<String>> = vec![["step".to_string()].into_iter().chain(sol.fields.iter().cloned()).chain(["best".into(), "value".into()]).collect()];
    for st in matters.iter().take(MAX_ROWS) {
        let value = if probability { format!("{}%", decimal(&(&st.value * BigRational::from_integer(100.into())), 2)) } else { decimal(&st.value, 4) };
        table.push(std::iter::once(st.step.to_string()).chain(st.state.iter().map(|v| cut(&v.to_string()))).chain([choices_text(p, &st.best), value]).collect());
    }
    let widths: Vec<usize> = (0..table[0].len()).map(|c| table.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    for row in &table {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(c, w)| super::pad(c, *w)).collect();
        writeln!(out, "  {}", cells.join("  ").trim_end())?;
    }
    if matters.len() > MAX_ROWS {
        writeln!(out, "  … {} more (--json lists every state)", matters.len() - MAX_ROWS)?;
    }
    Ok(())
}

fn json_doc(path: &str, args: &BestArgs, p: &Problem, sol: &Solution, compared: &[Compared]) -> serde_json::Value {
    let states: Vec<serde_json::Value> = sol
        .states
        .iter()
        .map(|st| {
            let state: serde_json::Map<String, serde_json::Value> = sol.fields.iter().cloned().zip(st.state.iter().map(rt::Value::to_json)).collect();
            json!({
                "step": st.step,
                "state": state,
                "best": st.best.iter().filter_map(|&c| p.choices.get(c)).map(rt::Value::to_json).collect::<Vec<_>>(),
                "value": fraction(&st.value),
                "values": st.values.iter().zip(&p.choices).map(|(v, c)| json!({"choice": c.to_json(), "value": fraction(v)})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "resolver": path,
        "until": args.until,
        "decide": p.decide,
        "maximize": args.maximize,
        "rounds": p.horizon,
        "optimal": fraction(&sol.optimal),
        "compared": compared.iter().map(|c| json!({"policy": c.label, "value": fraction(&c.value)})).collect::<Vec<_>>(),
        "worked": sol.worked,
        "states": states,
    })
}
