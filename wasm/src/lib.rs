//! rulebook-wasm: the rules for JavaScript (a virtual tabletop, a web page). Every function takes
//! and returns JSON text, the documents `rulebook ... --json` prints; failures are JavaScript
//! `Error`s whose message says what is wrong and the nearest valid choices. The built-in rules
//! are compiled in; rules given as text run in the interpreter (`new Rules(files)`).
//!
//! The logic is plain Rust in `rulebook-api` (tested natively, shared with the Python package,
//! re-exported here as `api` and `dice`); the functions below only convert JavaScript values. Build with `wasm/build.sh` (README: "JavaScript / WebAssembly").
#![forbid(unsafe_code)]

pub use rulebook_api::{api, dice, sweep};

use api::{ApiError, Registry};
use wasm_bindgen::prelude::*;

fn js(e: ApiError) -> JsError {
    JsError::new(&e.0)
}

/// A seed as JavaScript gives it: a number (a whole number up to 2^53-1), a BigInt, or text.
fn seed(v: &JsValue) -> Result<u64, ApiError> {
    if let Some(x) = v.as_f64() {
        return api::whole_number("seed", x);
    }
    if v.is_bigint() {
        let text = js_sys::BigInt::from(v.clone())
            .to_string(10)
            .map(String::from)
            .map_err(|_| ApiError("seed: cannot read the BigInt".into()))?;
        return api::seed_from_text(&text);
    }
    match v.as_string() {
        Some(text) => api::seed_from_text(&text),
        None if v.is_undefined() || v.is_null() => Ok(0),
        None => Err(ApiError("seed must be a number, a BigInt or text".into())),
    }
}

/// `ask` called as `ask({label, dice, sides, count, lowest, highest, why})`; it returns the
/// faces, an array of `count` numbers (or one number when `count` is 1). What it throws stops
/// the resolution with that message.
fn ask_js(ask: &js_sys::Function) -> impl FnMut(&dice::Request) -> Result<Vec<i64>, String> + '_ {
    move |req: &dice::Request| {
        let text = req.to_json().to_string();
        let arg = js_sys::JSON::parse(&text).map_err(|_| "cannot build the request for ask".to_string())?;
        let answer = ask.call1(&JsValue::NULL, &arg).map_err(|e| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .or_else(|| e.as_string())
                .unwrap_or_else(|| "ask threw".to_string())
        })?;
        let face = |v: &JsValue| -> Result<i64, String> {
            match v.as_f64() {
                Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => Ok(x as i64),
                _ => Err(format!(
                    "ask must return the faces of roll `{}` ({}) as whole numbers, got {}",
                    req.label,
                    req.dice,
                    js_sys::JSON::stringify(v)
                        .map(String::from)
                        .unwrap_or_else(|_| "something else".into())
                )),
            }
        };
        if js_sys::Array::is_array(&answer) {
            js_sys::Array::from(&answer).iter().map(|v| face(&v)).collect()
        } else if answer.has_type::<js_sys::Promise>() {
            Err("ask returned a Promise: it must answer at once; for dice thrown asynchronously use roll_step".into())
        } else {
            face(&answer).map(|f| vec![f])
        }
    }
}

/// Every built-in system: `{"systems": [{"name", "title", "resolvers", "tables", "options"}]}`.
#[wasm_bindgen]
pub fn systems() -> Result<String, JsError> {
    Registry::builtin().map_err(js)?.list().map_err(js)
}

/// A built-in system's resolvers with their typed inputs (and its tables and options), as
/// `rulebook list SYSTEM --json`; `SYSTEM.RESOLVER` gives that resolver alone.
#[wasm_bindgen]
pub fn resolvers(system: &str) -> Result<String, JsError> {
    Registry::builtin().map_err(js)?.resolvers(system).map_err(js)
}

/// One resolution with seeded dice, as `rulebook roll RESOLVER --seed SEED --json`.
#[wasm_bindgen]
pub fn roll(resolver: &str, inputs_json: &str, seed: JsValue) -> Result<String, JsError> {
    let seed = self::seed(&seed).map_err(js)?;
    Registry::builtin().map_err(js)?.roll(resolver, inputs_json, seed).map_err(js)
}

/// One resolution with the faces given (`[6, 6, 5]` or `6,6,5`), as `rulebook roll --dice`.
#[wasm_bindgen]
pub fn roll_with_dice(resolver: &str, inputs_json: &str, faces: &str) -> Result<String, JsError> {
    Registry::builtin()
        .map_err(js)?
        .roll_with_dice(resolver, inputs_json, faces)
        .map_err(js)
}

/// One resolution whose every throw is asked of `ask({label, dice, sides, count, lowest,
/// highest, why})`, which returns the faces (dice thrown at the table).
#[wasm_bindgen]
pub fn roll_interactive(resolver: &str, inputs_json: &str, ask: &js_sys::Function) -> Result<String, JsError> {
    Registry::builtin()
        .map_err(js)?
        .roll_asking(resolver, inputs_json, ask_js(ask))
        .map_err(js)
}

/// One step of a resolution with dice thrown elsewhere, for asynchronous dialogs: the next throw
/// the rules need given the faces so far, or the finished roll.
#[wasm_bindgen]
pub fn roll_step(resolver: &str, inputs_json: &str, faces: &str) -> Result<String, JsError> {
    Registry::builtin().map_err(js)?.roll_step(resolver, inputs_json, faces).map_err(js)
}

/// The exact probability of every outcome, as fractions, as `rulebook odds --json`. It explores
/// at most `max_branches` branches of the dice tree (1,000,000 when left out, at most 50,000,000)
/// and past them throws, saying so, rather than keep the page busy.
#[wasm_bindgen]
pub fn odds(resolver: &str, inputs_json: &str, max_branches: Option<f64>) -> Result<String, JsError> {
    let limit = api::odds_branches(max_branches).map_err(js)?;
    Registry::builtin()
        .map_err(js)?
        .odds_within(resolver, inputs_json, limit)
        .map_err(js)
}

/// `runs` seeded runs, as `rulebook sim --runs RUNS --seed SEED --json`.
#[wasm_bindgen]
pub fn sim(resolver: &str, inputs_json: &str, runs: f64, seed: JsValue) -> Result<String, JsError> {
    let runs = api::whole_number("runs", runs).map_err(js)?;
    let seed = self::seed(&seed).map_err(js)?;
    Registry::builtin().map_err(js)?.sim(resolver, inputs_json, runs, seed).map_err(js)
}

/// Diagnostics of rules given as text, `{"SYSTEM/NAME.rules": "text", ...}`, as `rulebook
/// check --json`, plus `rendered` (the text `rulebook check` shows).
#[wasm_bindgen]
pub fn check_rules(files_json: &str) -> Result<String, JsError> {
    api::check_rules(files_json).map_err(js)
}

/// The built-in rules text as `{"SYSTEM/NAME.rules": "text", ...}`, to edit and load.
#[wasm_bindgen]
pub fn builtin_rules_text() -> Result<String, JsError> {
    api::builtin_rules_text().map_err(js)
}

/// Rules given as text, run by the interpreter: the same functions as the built-in rules, with
/// the same documents. Each load is kept for the life of the page; load once and keep it.
#[wasm_bindgen(js_name = Rules)]
pub struct InterpretedRules {
    registry: Registry,
}

#[wasm_bindgen(js_class = Rules)]
impl InterpretedRules {
    /// Checks and loads `{"SYSTEM/NAME.rules": "text", ...}`; rules with errors throw with every
    /// diagnostic.
    #[wasm_bindgen(constructor)]
    pub fn new(files_json: &str) -> Result<InterpretedRules, JsError> {
        Ok(InterpretedRules {
            registry: Registry::load(files_json).map_err(js)?,
        })
    }

    pub fn systems(&self) -> Result<String, JsError> {
        self.registry.list().map_err(js)
    }

    pub fn resolvers(&self, system: &str) -> Result<String, JsError> {
        self.registry.resolvers(system).map_err(js)
    }

    pub fn roll(&self, resolver: &str, inputs_json: &str, seed: JsValue) -> Result<String, JsError> {
        let seed = self::seed(&seed).map_err(js)?;
        self.registry.roll(resolver, inputs_json, seed).map_err(js)
    }

    pub fn roll_with_dice(&self, resolver: &str, inputs_json: &str, faces: &str) -> Result<String, JsError> {
        self.registry.roll_with_dice(resolver, inputs_json, faces).map_err(js)
    }

    pub fn roll_interactive(&self, resolver: &str, inputs_json: &str, ask: &js_sys::Function) -> Result<String, JsError> {
        self.registry.roll_asking(resolver, inputs_json, ask_js(ask)).map_err(js)
    }

    pub fn roll_step(&self, resolver: &str, inputs_json: &str, faces: &str) -> Result<String, JsError> {
        self.registry.roll_step(resolver, inputs_json, faces).map_err(js)
    }

    pub fn odds(&self, resolver: &str, inputs_json: &str, max_branches: Option<f64>) -> Result<String, JsError> {
        let limit = api::odds_branches(max_branches).map_err(js)?;
        self.registry.odds_within(resolver, inputs_json, limit).map_err(js)
    }

    pub fn sim(&self, resolver: &str, inputs_json: &str, runs: f64, seed: JsValue) -> Result<String, JsError> {
        let runs = api::whole_number("runs", runs).map_err(js)?;
        let seed = self::seed(&seed).map_err(js)?;
        self.registry.sim(resolver, inputs_json, runs, seed).map_err(js)
    }
}
