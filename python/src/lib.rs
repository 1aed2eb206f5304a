//! rulebook-python: the native module `rulebook._rulebook` of the Python package (`python/`,
//! built by maturin). Like the JavaScript package, it is thin: every function takes and returns
//! JSON text, the documents `rulebook ... --json` prints, computed by `rulebook-api`; failures
//! raise `rulebook.RulebookError` with the message the command line prints after `error: `.
//! The Python side (`python/rulebook/__init__.py`) turns the documents into Python values. Long
//! work (odds, sim, sweep) runs without the GIL, so other Python threads go on meanwhile.
#![forbid(unsafe_code)]

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use rulebook_api::api::{self, ApiError, Registry};
use rulebook_api::sweep;

create_exception!(
    _rulebook,
    RulebookError,
    PyException,
    "What the rules refused, or a mistake in a name or value: the message the command line prints after `error: `."
);

fn err(e: ApiError) -> PyErr {
    RulebookError::new_err(e.0)
}

fn builtin() -> PyResult<Registry> {
    Registry::builtin().map_err(err)
}

/// The branch limit of `odds`: the command line's (`MAX_ODDS_BRANCHES`) unless given.
fn branches(max_branches: Option<u64>) -> u64 {
    max_branches.unwrap_or(api::MAX_ODDS_BRANCHES)
}

/// `rulebook list --json`.
#[pyfunction]
fn systems() -> PyResult<String> {
    builtin()?.list().map_err(err)
}

/// `rulebook list SYSTEM --json`, or one resolver for `SYSTEM.RESOLVER`.
#[pyfunction]
fn resolvers(what: &str) -> PyResult<String> {
    builtin()?.resolvers(what).map_err(err)
}

/// `rulebook roll RESOLVER --seed SEED --json`.
#[pyfunction]
fn roll(py: Python<'_>, resolver: &str, inputs_json: &str, seed: u64) -> PyResult<String> {
    let reg = builtin()?;
    py.detach(|| reg.roll(resolver, inputs_json, seed)).map_err(err)
}

/// `rulebook roll RESOLVER --dice F,F,... --json` (`faces` as `[6, 6, 5]` or `6,6,5`).
#[pyfunction]
fn roll_with_dice(py: Python<'_>, resolver: &str, inputs_json: &str, faces: &str) -> PyResult<String> {
    let reg = builtin()?;
    py.detach(|| reg.roll_with_dice(resolver, inputs_json, faces)).map_err(err)
}

/// `rulebook odds RESOLVER --json`, exploring at most `max_branches` branches of the dice tree.
#[pyfunction]
#[pyo3(signature = (resolver, inputs_json, max_branches=None))]
fn odds(py: Python<'_>, resolver: &str, inputs_json: &str, max_branches: Option<u64>) -> PyResult<String> {
    let reg = builtin()?;
    py.detach(|| reg.odds_within(resolver, inputs_json, branches(max_branches)))
        .map_err(err)
}

/// `rulebook sim RESOLVER --runs RUNS --seed SEED --json`.
#[pyfunction]
fn sim(py: Python<'_>, resolver: &str, inputs_json: &str, runs: u64, seed: u64) -> PyResult<String> {
    let reg = builtin()?;
    py.detach(|| reg.sim(resolver, inputs_json, runs, seed)).map_err(err)
}

/// `rulebook sweep RESOLVER --vary NAME=SPEC... --json` (specs as the command line's).
#[pyfunction]
#[pyo3(signature = (resolver, vary, inputs_json, fields, shard=None, threads=0, budget_seconds=60))]
#[allow(clippy::too_many_arguments)]
fn sweep_json(
    py: Python<'_>,
    resolver: &str,
    vary: Vec<(String, String)>,
    inputs_json: &str,
    fields: Vec<String>,
    shard: Option<(usize, usize)>,
    threads: usize,
    budget_seconds: u64,
) -> PyResult<String> {
    let reg = builtin()?;
    py.detach(|| reg.sweep(resolver, &vary, inputs_json, &fields, shard, threads, budget_seconds))
        .map_err(err)
}

/// `rulebook best STEP --until UNTIL --maximize MAXIMIZE --json` (`decide` as `--decide`, `against`
/// as `--against NAME=VALUE` pairs).
#[pyfunction]
#[pyo3(signature = (resolver, inputs_json, until, maximize, decide=None, rounds=100, against=Vec::new()))]
fn best(
    py: Python<'_>,
    resolver: &str,
    inputs_json: &str,
    until: &str,
    maximize: &str,
    decide: Option<String>,
    rounds: u32,
    against: Vec<(String, String)>,
) -> PyResult<String> {
    let reg = builtin()?;
    best_in(
        py,
        &reg,
        resolver,
        inputs_json,
        until,
        maximize,
        decide.as_deref(),
        rounds,
        &against,
    )
}

#[allow(clippy::too_many_arguments)]
fn best_in(
    py: Python<'_>,
    reg: &Registry,
    resolver: &str,
    inputs_json: &str,
    until: &str,
    maximize: &str,
    decide: Option<&str>,
    rounds: u32,
    against: &[(String, String)],
) -> PyResult<String> {
    let q = rulebook_api::best::BestAsk {
        until,
        decide,
        maximize,
        rounds,
        against,
    };
    py.detach(|| reg.best(resolver, inputs_json, &q)).map_err(err)
}

/// `rulebook merge --json`: shards' documents joined into one run's.
#[pyfunction]
fn merge(docs: Vec<String>) -> PyResult<String> {
    sweep::merge_sweeps(&docs).map_err(err)
}

/// `rulebook check --json` of rules given as `{"SYSTEM/NAME.rules": "text"}`, plus `rendered`.
#[pyfunction]
fn check_rules(files_json: &str) -> PyResult<String> {
    api::check_rules(files_json).map_err(err)
}

/// `rulebook check --rules DIR --json` of a folder, plus `rendered`.
#[pyfunction]
fn check_dir(py: Python<'_>, dir: std::path::PathBuf) -> PyResult<String> {
    py.detach(|| api::check_dir(&dir)).map_err(err)
}

/// The built-in rules text, `{"SYSTEM/NAME.rules": "text", ...}` (what `rulebook export` writes).
#[pyfunction]
fn builtin_rules_text() -> PyResult<String> {
    api::builtin_rules_text().map_err(err)
}

/// Rules given as text, checked and run by the interpreter, with the same functions.
#[pyclass(frozen, module = "rulebook._rulebook")]
struct Rules {
    registry: Registry,
}

#[pymethods]
impl Rules {
    /// Checks and loads `{"SYSTEM/NAME.rules": "text", ...}`; rules with errors raise.
    #[new]
    fn new(files_json: &str) -> PyResult<Rules> {
        Ok(Rules {
            registry: Registry::load(files_json).map_err(err)?,
        })
    }

    /// Reads, checks and loads the rules of a folder (`SYSTEM/NAME.rules` under it), as
    /// `--rules DIR`; rules with errors raise as the command line refuses them.
    #[staticmethod]
    fn load_dir(py: Python<'_>, dir: std::path::PathBuf) -> PyResult<Rules> {
        let registry = py.detach(|| Registry::load_dir(&dir)).map_err(err)?;
        Ok(Rules { registry })
    }

    fn systems(&self) -> PyResult<String> {
        self.registry.list().map_err(err)
    }

    fn resolvers(&self, what: &str) -> PyResult<String> {
        self.registry.resolvers(what).map_err(err)
    }

    fn roll(&self, py: Python<'_>, resolver: &str, inputs_json: &str, seed: u64) -> PyResult<String> {
        py.detach(|| self.registry.roll(resolver, inputs_json, seed)).map_err(err)
    }

    fn roll_with_dice(&self, py: Python<'_>, resolver: &str, inputs_json: &str, faces: &str) -> PyResult<String> {
        py.detach(|| self.registry.roll_with_dice(resolver, inputs_json, faces))
            .map_err(err)
    }

    #[pyo3(signature = (resolver, inputs_json, max_branches=None))]
    fn odds(&self, py: Python<'_>, resolver: &str, inputs_json: &str, max_branches: Option<u64>) -> PyResult<String> {
        py.detach(|| self.registry.odds_within(resolver, inputs_json, branches(max_branches)))
            .map_err(err)
    }

    fn sim(&self, py: Python<'_>, resolver: &str, inputs_json: &str, runs: u64, seed: u64) -> PyResult<String> {
        py.detach(|| self.registry.sim(resolver, inputs_json, runs, seed)).map_err(err)
    }

    #[pyo3(signature = (resolver, vary, inputs_json, fields, shard=None, threads=0, budget_seconds=60))]
    #[allow(clippy::too_many_arguments)]
    fn sweep_json(
        &self,
        py: Python<'_>,
        resolver: &str,
        vary: Vec<(String, String)>,
        inputs_json: &str,
        fields: Vec<String>,
        shard: Option<(usize, usize)>,
        threads: usize,
        budget_seconds: u64,
    ) -> PyResult<String> {
        py.detach(|| {
            self.registry
                .sweep(resolver, &vary, inputs_json, &fields, shard, threads, budget_seconds)
        })
        .map_err(err)
    }

    #[pyo3(signature = (resolver, inputs_json, until, maximize, decide=None, rounds=100, against=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn best(
        &self,
        py: Python<'_>,
        resolver: &str,
        inputs_json: &str,
        until: &str,
        maximize: &str,
        decide: Option<String>,
        rounds: u32,
        against: Vec<(String, String)>,
    ) -> PyResult<String> {
        best_in(
            py,
            &self.registry,
            resolver,
            inputs_json,
            until,
            maximize,
            decide.as_deref(),
            rounds,
            &against,
        )
    }
}

#[pymodule]
fn _rulebook(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("RulebookError", m.py().get_type::<RulebookError>())?;
    m.add_class::<Rules>()?;
    m.add_function(wrap_pyfunction!(systems, m)?)?;
    m.add_function(wrap_pyfunction!(resolvers, m)?)?;
    m.add_function(wrap_pyfunction!(roll, m)?)?;
    m.add_function(wrap_pyfunction!(roll_with_dice, m)?)?;
    m.add_function(wrap_pyfunction!(odds, m)?)?;
    m.add_function(wrap_pyfunction!(sim, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_json, m)?)?;
    m.add_function(wrap_pyfunction!(merge, m)?)?;
    m.add_function(wrap_pyfunction!(best, m)?)?;
    m.add_function(wrap_pyfunction!(check_rules, m)?)?;
    m.add_function(wrap_pyfunction!(check_dir, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_rules_text, m)?)?;
    Ok(())
}
