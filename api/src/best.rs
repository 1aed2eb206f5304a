//! `rulebook best --json` for the bindings: the same question (`rt::best_ask::ask`), the same
//! answer and the same document as the command line, without its time budget (the caller bounds
//! the work with `rounds`, or stops the program).

use crate::api::{ApiError, Registry, Result};
use rulebook_runtime as rt;
use rulebook_runtime::json;

/// What `best` is asked: the options of `rulebook best` (the runtime's, shared with the CLI).
pub use rulebook_runtime::best_ask::Ask as BestAsk;

impl Registry {
    /// `rulebook best STEP --until .. --maximize .. --json`, the step's inputs the JSON inputs
    /// (`""` for none). Mistakes in the question or the inputs are refused before any work.
    pub fn best(&self, resolver: &str, inputs_json: &str, q: &BestAsk) -> Result<String> {
        let (s, r) = self.find(resolver)?;
        if q.rounds == 0 {
            return Err(ApiError("rounds: at least 1 step".into()));
        }
        let text = if inputs_json.trim().is_empty() { "{}" } else { inputs_json };
        let asked = rt::best_ask::ask(r, q, || rt::bind_json_sets(r, text, &[]).map_err(|e| e.to_string())).map_err(ApiError)?;
        let (solved, compared) = rt::best_ask::answer(&asked, &mut |i| r.odds(i))?;
        let doc = rt::best_ask::json_doc(&format!("{}.{}", s.name, r.name), q, &asked.problem, &solved, &compared);
        Ok(json::pretty(&doc)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_without_a_choice_is_refused_with_the_command_lines_words() {
        let reg = Registry::builtin().unwrap_or_else(|e| panic!("{e}"));
        let q = BestAsk {
            until: "rate_cm",
            decide: None,
            maximize: "rate_cm",
            rounds: 10,
            against: &[],
        };
        let e = reg
            .best("striker.gravity_movement", "{}", &q)
            .err()
            .map(|e| e.0)
            .unwrap_or_default();
        assert!(e.contains("gravity_movement declares no `choice` input"), "{e}");
    }
}
