//! What `rulebook best` is asked, from text to a [`Problem`], and its answer as a JSON document:
//! written once for the command line and the bindings (Python), so both refuse the same mistakes
//! with the same words and give the same document.

use crate::best::{fraction, solve, Objective, Problem, Solution};
use crate::error::Error;
use crate::odds::Distribution;
use crate::registry::ResolverInfo;
use crate::value::{Inputs, Value};
use num_rational::BigRational;
use serde_json::json;

/// The question as text: the options of `rulebook best` (the bindings' arguments).
pub struct Ask<'a> {
    /// The yes/no output that ends the procedure.
    pub until: &'a str,
    /// `NAME`, `NAME=LO..HI`, `NAME=A,B,C`; none: the step's one `choice`.
    pub decide: Option<&'a str>,
    pub maximize: &'a str,
    pub rounds: u32,
    /// Fixed choices to compare with, as `(NAME, VALUE)`.
    pub against: &'a [(String, String)],
}

/// The question ready to solve: the problem, the rules' own choice and the fixed alternatives.
pub struct Asked<'a> {
    pub problem: Problem<'a>,
    pub own: Value,
    pub against: Vec<Value>,
}

/// A fixed policy's value, with its label (`the rules' own (stop_at = 1)`, `stop_at = 4`).
pub struct Compared {
    pub label: String,
    pub value: BigRational,
}

/// The decision input named, or the step's one `choice`; a mistake is told as the command line
/// says it (`--decide ...`).
fn decision(r: &ResolverInfo, decide: Option<&str>) -> Result<(String, Vec<String>), String> {
    let given = match (decide, r.choices) {
        (Some(d), _) => d.to_string(),
        (None, [one]) => (*one).to_string(),
        (None, []) => {
            return Err(format!(
                "{} declares no `choice` input: declare the decision in the rules (`choice NAME: TYPE = DEFAULT`), see docs/dsl.md",
                r.name
            ))
        }
        (None, many) => {
            return Err(format!(
                "{} has several choices ({}); say which with --decide",
                r.name,
                many.join(", ")
            ))
        }
    };
    let (name, spec) = given.split_once('=').unwrap_or((&given, "all"));
    let (decide, texts) = crate::sweep::axis(r, name.trim(), spec).map_err(|e| e.replace("--vary", "--decide"))?;
    if !r.choices.contains(&decide.as_str()) {
        let declared = if r.choices.is_empty() {
            "none".to_string()
        } else {
            r.choices.join(", ")
        };
        return Err(format!(
            "--decide {decide}: `{decide}` is not a decision of {}; its `choice` inputs: {declared} (declare one with `choice` in place of `in`)",
            r.name
        ));
    }
    Ok((decide, texts))
}

/// Checks the question against the step before any work. `start` is called once the decision is
/// known to be sound, to bind the step's inputs (so that a mistake in the question is told first).
pub fn ask<'a>(r: &'a ResolverInfo, ask: &Ask<'a>, start: impl FnOnce() -> Result<Inputs, String>) -> Result<Asked<'a>, String> {
    crate::chain::check_until(r, ask.until).map_err(|e| e.to_string())?;
    let objective = Objective::parse(r, ask.maximize)?;
    let (decide, texts) = decision(r, ask.decide)?;
    let start = start()?;
    let input = r
        .inputs
        .iter()
        .find(|i| i.name == decide)
        .ok_or_else(|| format!("--decide {decide}: no such input"))?;
    let parse = |t: &str| crate::bind::parse_input(input.name, input.ty, t).map_err(|e| e.to_string());
    let mut choices: Vec<Value> = texts.iter().map(|t| parse(t)).collect::<Result<_, _>>()?;
    // The rules' own choice (the input as given, or its default) is always among the choices.
    let own = start.get(&decide).cloned().unwrap_or(Value::None);
    if !choices.contains(&own) {
        choices.push(own.clone());
    }
    let mut against = Vec::new();
    for (n, v) in ask.against {
        if crate::names::normalize(n) != crate::names::normalize(&decide) {
            return Err(format!(
                "--against {n}={v}: the decision is `{decide}`; give --against {decide}=VALUE"
            ));
        }
        let value = parse(v)?;
        if !choices.contains(&value) {
            choices.push(value.clone());
        }
        against.push(value);
    }
    let problem = Problem {
        step: r,
        start,
        until: ask.until,
        decide,
        choices,
        objective,
        horizon: ask.rounds,
    };
    Ok(Asked { problem, own, against })
}

/// The choices compared with the best: the rules' own, then each `--against`, as indices into
/// the problem's choices (what [`solve`] takes as `fixed`).
pub fn fixed(asked: &Asked) -> Vec<usize> {
    let p = &asked.problem;
    std::iter::once(&asked.own)
        .chain(&asked.against)
        .map(|v| p.choices.iter().position(|c| c == v).unwrap_or(0))
        .collect()
}

/// The value of the rules' own choice and of each fixed alternative, each a policy held in every
/// state, from a solution of [`fixed`]'s choices.
pub fn compare(asked: &Asked, sol: &Solution) -> Vec<Compared> {
    let p = &asked.problem;
    std::iter::once(&asked.own)
        .chain(&asked.against)
        .zip(&sol.fixed)
        .map(|(v, value)| Compared {
            label: if v == &asked.own {
                format!("the rules' own ({} = {v})", p.decide)
            } else {
                format!("{} = {v}", p.decide)
            },
            value: value.clone(),
        })
        .collect()
}

/// The whole answer without a time budget: the best policy and the fixed ones.
pub fn answer(
    asked: &Asked,
    odds: &mut dyn FnMut(&Inputs) -> Result<Distribution<Value>, Error>,
) -> Result<(Solution, Vec<Compared>), Error> {
    let solved = solve(&asked.problem, odds, &fixed(asked))?;
    let compared = compare(asked, &solved);
    Ok((solved, compared))
}

/// `rulebook best --json`: the question, the best value and the compared ones as exact fractions,
/// and every state with its best choices and each choice's value.
pub fn json_doc(path: &str, ask: &Ask, p: &Problem, sol: &Solution, compared: &[Compared]) -> serde_json::Value {
    let states: Vec<serde_json::Value> = sol
        .states
        .iter()
        .map(|st| {
            let state: serde_json::Map<String, serde_json::Value> = sol.fields.iter().cloned().zip(st.state.iter().map(Value::to_json)).collect();
            json!({
                "step": st.step,
                "state": state,
                "best": st.best.iter().filter_map(|&c| p.choices.get(c)).map(Value::to_json).collect::<Vec<_>>(),
                "value": fraction(&st.value),
                "values": st.values.iter().zip(&p.choices).map(|(v, c)| json!({"choice": c.to_json(), "value": fraction(v)})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "resolver": path,
        "until": ask.until,
        "decide": p.decide,
        "maximize": ask.maximize,
        "rounds": p.horizon,
        "optimal": fraction(&sol.optimal),
        "compared": compared.iter().map(|c| json!({"policy": c.label, "value": fraction(&c.value)})).collect::<Vec<_>>(),
        "worked": sol.worked,
        "states": states,
    })
}
