//! The logic of every function the package exports, in plain Rust: JSON text in, JSON text out,
//! tested natively (`cargo test -p rulebook-api`). The packages (`wasm/src/lib.rs`,
//! `python/src/lib.rs`) only convert their language's values and errors. Every document is the one the command line prints
//! with `--json` (`rulebook::json`), byte for byte.

use crate::dice::{AskingDice, Request};
use rulebook_compiler::check::SourceFile;
use rulebook_compiler::driver;
use rulebook_runtime as rt;
use rulebook_runtime::json;

/// A failure to hand back to JavaScript as an `Error` with this message: what is wrong and, for
/// names and values, the nearest valid choices (as the command line says it after `error: `).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError(pub String);

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ApiError {}

impl From<rt::Error> for ApiError {
    fn from(e: rt::Error) -> Self {
        ApiError(e.to_string())
    }
}

impl From<serde_json::Error> for ApiError {
    fn from(e: serde_json::Error) -> Self {
        ApiError(format!("cannot encode JSON: {e}"))
    }
}

pub type Result<T> = std::result::Result<T, ApiError>;

/// A set of rule systems: the compiled built-in ones, or rules given as text and run by the
/// interpreter. Both answer every question with the same documents.
#[derive(Debug, Clone)]
pub struct Registry {
    systems: Vec<&'static rt::SystemInfo>,
    /// The built-in systems this package was built without (their features off), named as such
    /// when asked for.
    left_out: &'static [&'static str],
}

/// Most runs one `sim` call makes (a browser runs them on one thread).
pub const MAX_SIM_RUNS: u64 = 100_000_000;

/// Branches of the dice tree (complete replays of the resolver) an `odds` call explores before
/// it gives up, unless the caller asks for more. A call blocks the page while it runs; measured
/// in Node (V8, as in Chromium) on 2 shared cores with the release package, 983,040 branches of
/// rules text in the interpreter took 1.5 s (the compiled rules are faster), 16.7 million 30 s.
pub const DEFAULT_ODDS_BRANCHES: u64 = 1_000_000;

/// The most branches a caller may ask `odds` to explore: the command line's limit.
pub const MAX_ODDS_BRANCHES: u64 = rt::odds::MAX_LEAVES;

/// The error of an `odds` call that gave up at `limit` branches: the runtime's says to run
/// `rulebook sim`; here the way on is a larger limit or `sim`.
fn too_many_branches(limit: u64) -> String {
    let more = if limit < MAX_ODDS_BRANCHES {
        format!("; odds(resolver, inputs, max_branches) explores up to {MAX_ODDS_BRANCHES}, blocking the page longer")
    } else {
        String::new()
    };
    format!(
        "too many dice outcomes to enumerate exactly (more than {limit} branches){more}; estimate with sim(resolver, inputs, runs, seed)"
    )
}

impl Registry {
    /// The built-in rules: compiled into the package (feature `compiled`, on by default), or
    /// without it their text run by the interpreter (the same documents, byte for byte, from a
    /// build that takes minutes less: CI's browser test).
    pub fn builtin() -> Result<Registry> {
        #[cfg(feature = "compiled")]
        return Ok(Registry {
            systems: rulebook::SYSTEMS.to_vec(),
            left_out: rulebook::LEFT_OUT,
        });
        #[cfg(not(feature = "compiled"))]
        {
            type Loaded = std::result::Result<rulebook_interp::Rules, String>;
            static RULES: std::sync::OnceLock<Loaded> = std::sync::OnceLock::new();
            let loaded = RULES.get_or_init(|| {
                rulebook_interp::Rules::from_sources(driver::sources_from_pairs("rules-src", RULES_SOURCES)).map_err(|e| e.to_string())
            });
            match loaded {
                Ok(rules) => Ok(Registry {
                    systems: rules.systems().to_vec(),
                    left_out: &[],
                }),
                Err(e) => Err(ApiError(format!("the built-in rules do not load: {e}"))),
            }
        }
    }

    /// Rules given as text (see [`sources`] for the shape of `files_json`), checked and loaded for
    /// the interpreter. Rules with errors are refused with every diagnostic rendered (as `rulebook
    /// check` shows them). Each load is kept for the rest of the program (the registry hands out
    /// `'static` references, as compiled code does), so load a set of rules once and keep it.
    pub fn load(files_json: &str) -> Result<Registry> {
        match rulebook_interp::Rules::from_sources(sources(files_json)?) {
            Ok(rules) => Ok(Registry {
                systems: rules.systems().to_vec(),
                left_out: &[],
            }),
            Err(e) => Err(ApiError(format!("cannot use these rules:\n{e}"))),
        }
    }

    /// Rules read from a folder (`SYSTEM/NAME.rules` files under it), as `--rules DIR` reads them,
    /// for the interpreter. A folder that cannot be read is refused with what went wrong; rules
    /// with errors as the command line refuses them (`cannot use the rules in DIR:` and every
    /// diagnostic rendered). Kept for the rest of the program, as [`Registry::load`].
    pub fn load_dir(dir: &std::path::Path) -> Result<Registry> {
        match rulebook_interp::Rules::load(dir) {
            Ok(rules) => Ok(Registry {
                systems: rules.systems().to_vec(),
                left_out: &[],
            }),
            Err(rulebook_interp::LoadError::Io(problems)) => Err(ApiError(problems.join("\n"))),
            Err(e) => Err(ApiError(format!("cannot use the rules in {}:\n{e}", dir.display()))),
        }
    }

    pub fn systems(&self) -> &[&'static rt::SystemInfo] {
        &self.systems
    }

    /// `rulebook list --json`: every system with the names of its resolvers, tables and options.
    pub fn list(&self) -> Result<String> {
        Ok(json::pretty(&json::systems(&self.systems))?)
    }

    /// `rulebook list SYSTEM --json` (its resolvers with their typed inputs, its tables and
    /// options), or for `SYSTEM.RESOLVER` just that resolver.
    pub fn resolvers(&self, what: &str) -> Result<String> {
        if what.contains('.') {
            let (s, r) = self.find(what)?;
            return Ok(json::pretty(&json::resolver(s, r))?);
        }
        let s = rt::find_system(&self.systems, what).map_err(|e| rt::left_out(e, self.left_out))?;
        Ok(json::pretty(&json::system(s))?)
    }

    pub(crate) fn find(&self, path: &str) -> Result<(&'static rt::SystemInfo, &'static rt::ResolverInfo)> {
        if self.systems.is_empty() && self.left_out.is_empty() {
            return Err(ApiError(format!("unknown resolver `{path}`: these rules have no systems")));
        }
        Ok(rt::find_resolver(&self.systems, path).map_err(|e| rt::left_out(e, self.left_out))?)
    }

    /// The resolver and its inputs bound from JSON (`""` is no inputs: every input its default).
    fn bind(&self, path: &str, inputs_json: &str) -> Result<(&'static rt::SystemInfo, &'static rt::ResolverInfo, rt::Inputs)> {
        let (s, r) = self.find(path)?;
        let text = if inputs_json.trim().is_empty() { "{}" } else { inputs_json };
        let bound = rt::bind_json(r, text)?;
        Ok((s, r, bound))
    }

    /// `rulebook roll RESOLVER --seed SEED --json`: the outcome and its whole trace, with the
    /// same dice as the command line (ChaCha8 seeded from `seed`).
    pub fn roll(&self, path: &str, inputs_json: &str, seed: u64) -> Result<String> {
        let (s, r, bound) = self.bind(path, inputs_json)?;
        let mut rec = rt::Recorder::new();
        let outcome = r.run_traced(&mut rt::Seeded::new(seed), &mut rec, &bound)?;
        Ok(json::pretty(&json::roll(s, r, &bound, &outcome, &rec.events)?)?)
    }

    /// `rulebook roll RESOLVER --dice F,F,... --json`: the faces given, in order, instead of
    /// random dice. `faces` is a JSON array (`[6, 6, 5]`) or the command line's `6,6,5`.
    pub fn roll_with_dice(&self, path: &str, inputs_json: &str, faces: &str) -> Result<String> {
        let faces = parse_faces(faces)?;
        let (s, r, bound) = self.bind(path, inputs_json)?;
        let mut rec = rt::Recorder::new();
        let outcome = r.run_traced(&mut rt::Scripted::new(faces), &mut rec, &bound)?;
        Ok(json::pretty(&json::roll(s, r, &bound, &outcome, &rec.events)?)?)
    }

    /// The roll document, with every throw's faces asked of `ask` as the rules need them (dice
    /// thrown at the table): `ask` gets the request and answers the faces, or an error message
    /// that stops the resolution with that message.
    pub fn roll_asking(
        &self,
        path: &str,
        inputs_json: &str,
        ask: impl FnMut(&Request) -> std::result::Result<Vec<i64>, String>,
    ) -> Result<String> {
        let (s, r, bound) = self.bind(path, inputs_json)?;
        let mut dice = AskingDice::new(ask);
        let mut rec = rt::Recorder::new();
        let result = r.run_traced(&mut dice, &mut rec, &bound);
        if let Some(stop) = dice.stopped() {
            return Err(ApiError(stop.to_string()));
        }
        Ok(json::pretty(&json::roll(s, r, &bound, &result?, &rec.events)?)?)
    }

    /// One step of a roll whose dice are thrown elsewhere, one request at a time (an
    /// asynchronous dialog): with the faces thrown so far, either the next throw the rules need,
    /// `{"complete": false, "request": {...}, "faces_used": N}`, or the finished roll,
    /// `{"complete": true, "roll": {...}}` (the document of [`Registry::roll`]). Call again with
    /// the request's faces added, until it is complete.
    pub fn roll_step(&self, path: &str, inputs_json: &str, faces: &str) -> Result<String> {
        let faces = parse_faces(faces)?;
        let (s, r, bound) = self.bind(path, inputs_json)?;
        let mut next = 0usize;
        let mut request: Option<serde_json::Value> = None;
        let mut dice = AskingDice::new(|req: &Request| {
            let n = usize::from(req.count);
            match faces.get(next..next + n) {
                Some(given) => {
                    next += n;
                    Ok(given.to_vec())
                }
                None => {
                    request = Some(req.to_json());
                    Err(NEED_MORE.to_string())
                }
            }
        });
        let mut rec = rt::Recorder::new();
        let result = r.run_traced(&mut dice, &mut rec, &bound);
        let stopped = dice.stopped().map(str::to_string);
        drop(dice);
        match (request, stopped) {
            (Some(req), _) => Ok(json::pretty(&serde_json::json!({
                "complete": false,
                "request": req,
                "faces_used": next,
            }))?),
            (None, Some(stop)) => Err(ApiError(stop)),
            (None, None) => {
                let outcome = result?;
                if next < faces.len() {
                    return Err(ApiError(format!(
                        "{} face(s) given but the roll used only {next}: {} left over",
                        faces.len(),
                        faces.len() - next
                    )));
                }
                let roll = json::roll(s, r, &bound, &outcome, &rec.events)?;
                Ok(json::pretty(&serde_json::json!({"complete": true, "roll": roll}))?)
            }
        }
    }

    /// `rulebook odds RESOLVER --json`: every outcome with its exact probability as a fraction,
    /// exploring at most [`DEFAULT_ODDS_BRANCHES`] branches of the dice tree.
    pub fn odds(&self, path: &str, inputs_json: &str) -> Result<String> {
        self.odds_within(path, inputs_json, DEFAULT_ODDS_BRANCHES)
    }

    /// [`Registry::odds`] exploring at most `max_branches` branches (1 to [`MAX_ODDS_BRANCHES`]):
    /// past them it gives up with an error that says so, rather than keep the page busy. The
    /// enumeration also gives up at once when its first branch shows the tree is wider.
    pub fn odds_within(&self, path: &str, inputs_json: &str, max_branches: u64) -> Result<String> {
        if !(1..=MAX_ODDS_BRANCHES).contains(&max_branches) {
            return Err(ApiError(format!(
                "max_branches must be 1 to {MAX_ODDS_BRANCHES}, not {max_branches}"
            )));
        }
        let (s, r, bound) = self.bind(path, inputs_json)?;
        let dist = rt::with_leaf_limit(max_branches, || r.odds(&bound)).map_err(|e| match e {
            rt::Error::TooManyBranches { limit } => ApiError(too_many_branches(limit)),
            e => e.into(),
        })?;
        Ok(json::pretty(&json::odds(s, r, &bound, &dist))?)
    }

    /// `rulebook sim RESOLVER --runs RUNS --seed SEED --json`, on one thread (the report does not
    /// depend on the number of threads). Invalid inputs are refused before anything runs.
    pub fn sim(&self, path: &str, inputs_json: &str, runs: u64, seed: u64) -> Result<String> {
        if !(1..=MAX_SIM_RUNS).contains(&runs) {
            return Err(ApiError(format!("runs must be 1 to {MAX_SIM_RUNS}, not {runs}")));
        }
        let (s, r, bound) = self.bind(path, inputs_json)?;
        r.run_quiet(&mut rt::Seeded::new(rt::run_seed(seed, 0)), &mut rt::NoTrace, &bound)?;
        let tally = rt::simulate(r, &bound, runs, seed, 1, &|_| {})?;
        Ok(json::pretty(&json::sim(s, r, &bound, &tally, runs, seed))?)
    }
}

/// The built-in rules text: (path under the rules folder, text), from the compiled rules or,
/// without them, embedded by `build.rs`.
#[cfg(feature = "compiled")]
use rulebook::RULES_SOURCES;
#[cfg(not(feature = "compiled"))]
include!(concat!(env!("OUT_DIR"), "/rules_sources.rs"));

/// The error message that stops a `roll_step` at the first throw it has no faces for.
const NEED_MORE: &str = "more faces needed";

/// `rulebook check --rules DIR --json` for rules given as text, plus `rendered`: every
/// diagnostic as `rulebook check` shows it (file:line:col, the line, a caret, help).
pub fn check_rules(files_json: &str) -> Result<String> {
    let compiled = driver::compile_sources(sources(files_json)?);
    let mut doc = compiled.to_json();
    if let serde_json::Value::Object(m) = &mut doc {
        m.insert("rendered".into(), compiled.render().into());
    }
    Ok(json::pretty(&doc)?)
}

/// `rulebook check --rules DIR --json` of a folder, plus `rendered`, as [`check_rules`].
pub fn check_dir(dir: &std::path::Path) -> Result<String> {
    let compiled = driver::check_dir(dir).map_err(|problems| ApiError(problems.join("\n")))?;
    let mut doc = compiled.to_json();
    if let serde_json::Value::Object(m) = &mut doc {
        m.insert("rendered".into(), compiled.render().into());
    }
    Ok(json::pretty(&doc)?)
}

/// The built-in rules text, `{"starleader/fire.rules": "...", ...}`: a starting point to edit
/// and load with [`Registry::load`] (what `rulebook export` writes to a folder).
pub fn builtin_rules_text() -> Result<String> {
    let files: serde_json::Map<String, serde_json::Value> = RULES_SOURCES
        .iter()
        .map(|(p, t)| (p.to_string(), serde_json::Value::from(*t)))
        .collect();
    Ok(json::pretty(&serde_json::Value::Object(files))?)
}

/// Rules files given as a JSON object of paths to texts, `{"starleader/fire.rules": "..."}`, each
/// path `SYSTEM/NAME.rules` (one folder per system, as `rulebook export` writes them), in path
/// order as `rulebook check --rules DIR` reads a folder.
pub fn sources(files_json: &str) -> Result<Vec<SourceFile>> {
    let v: serde_json::Value =
        serde_json::from_str(files_json).map_err(|e| ApiError(format!("rules files must be a JSON object of paths to rules text: {e}")))?;
    let serde_json::Value::Object(files) = v else {
        return Err(ApiError(
            "rules files must be a JSON object of paths to rules text, e.g. {\"starleader/fire.rules\": \"...\"}".into(),
        ));
    };
    let mut out = Vec::new();
    for (path, text) in files {
        let Some(text) = text.as_str() else {
            return Err(ApiError(format!("the text of `{path}` must be a string")));
        };
        let system = match path.split('/').collect::<Vec<_>>().as_slice() {
            [system, file] if !system.is_empty() && file.ends_with(".rules") && file.len() > ".rules".len() => system.to_string(),
            _ => {
                return Err(ApiError(format!(
                    "rules file `{path}` must be named SYSTEM/NAME.rules (one folder per system, e.g. `starleader/fire.rules`)"
                )))
            }
        };
        out.push(SourceFile {
            path,
            text: text.to_string(),
            system,
        });
    }
    if out.is_empty() {
        return Err(ApiError("no rules files given".into()));
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Faces as a JSON array of whole numbers (`[6, 6, 5]`), or comma-separated as `--dice` takes
/// them (`6,6,5`).
pub fn parse_faces(text: &str) -> Result<Vec<i64>> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(Vec::new());
    }
    if t.starts_with('[') {
        let v: Vec<serde_json::Value> =
            serde_json::from_str(t).map_err(|e| ApiError(format!("faces must be a JSON array of whole numbers: {e}")))?;
        return v
            .iter()
            .enumerate()
            .map(|(i, f)| {
                f.as_i64()
                    .ok_or_else(|| ApiError(format!("face {} is {f}, not a whole number", i + 1)))
            })
            .collect();
    }
    t.split(',')
        .enumerate()
        .map(|(i, f)| {
            f.trim()
                .parse::<i64>()
                .map_err(|_| ApiError(format!("face {} is `{}`, not a whole number", i + 1, f.trim())))
        })
        .collect()
}

/// A seed or a count given as a JavaScript number: a whole number from 0 to 2^53 (larger seeds
/// go as a BigInt or as text).
pub fn whole_number(what: &str, x: f64) -> Result<u64> {
    const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
    if x.is_finite() && x.fract() == 0.0 && (0.0..=MAX_SAFE).contains(&x) {
        Ok(x as u64)
    } else {
        Err(ApiError(format!(
            "{what} must be a whole number from 0 to 2^53-1 (a BigInt or text for larger ones), not {x}"
        )))
    }
}

/// The branch limit of an `odds` call as JavaScript gives it: left out (`undefined` or `null`) is
/// [`DEFAULT_ODDS_BRANCHES`]; a number must be whole (its range is checked by `odds_within`).
pub fn odds_branches(x: Option<f64>) -> Result<u64> {
    match x {
        None => Ok(DEFAULT_ODDS_BRANCHES),
        Some(x) => whole_number("max_branches", x),
    }
}

/// A seed given as text: a whole number from 0 to 2^64-1.
pub fn seed_from_text(text: &str) -> Result<u64> {
    text.trim()
        .parse::<u64>()
        .map_err(|_| ApiError(format!("seed must be a whole number from 0 to 18446744073709551615, not `{text}`")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    const FIRE: &str = r#"{"weapon": "Ghazi 10/7", "range_hexes": 5, "armor_rating": 2}"#;

    #[test]
    fn lists_systems_and_typed_inputs() {
        let reg = Registry::builtin().unwrap();
        let v = doc(&reg.list().unwrap());
        let names: Vec<&str> = v["systems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert!(
            names.contains(&"starleader") && names.len() == Registry::builtin().unwrap().systems().len(),
            "{names:?}"
        );
        let s = doc(&reg.resolvers("starleader").unwrap());
        let fire = s["resolvers"].as_array().unwrap().iter().find(|r| r["name"] == "fire").unwrap();
        let input = |name: &str| {
            fire["inputs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|i| i["name"] == name)
                .unwrap()
                .clone()
        };
        let weapon = input("weapon");
        assert_eq!(weapon["type_info"]["kind"], "key");
        assert!(weapon["type_info"]["choices"].as_array().unwrap().iter().any(|c| c == "Ghazi 10/7"));
        assert_eq!(weapon["default"], serde_json::Value::Null);
        let range = input("range_hexes");
        assert_eq!(range["type_info"]["kind"], "int");
        assert!(range["type_info"]["min"].is_i64());
        assert_eq!(input("special_results")["type_info"]["kind"], "bool");
        assert_eq!(input("special_results")["default_value"], false);
        // One resolver alone, by path.
        let one = doc(&reg.resolvers("starleader.fire").unwrap());
        assert_eq!(one["path"], "starleader.fire");
    }

    #[test]
    fn unknown_names_say_the_nearest() {
        let reg = Registry::builtin().unwrap();
        assert_eq!(
            reg.resolvers("starlader").unwrap_err().0,
            "unknown system `starlader`; did you mean `starleader`"
        );
        let e = reg.roll("starleader.fier", FIRE, 7).unwrap_err().0;
        assert!(e.contains("did you mean `starleader.fire`"), "{e}");
        let e = reg.roll("starleader.fire", r#"{"weapon": "Ghazzi 10/7"}"#, 7).unwrap_err().0;
        assert!(e.contains("did you mean `Ghazi 10/7`"), "{e}");
        let e = reg.roll("starleader.fire", r#"{"wepon": "Ghazi 10/7"}"#, 7).unwrap_err().0;
        assert!(e.contains("unknown input `wepon`") && e.contains("weapon"), "{e}");
        let e = reg
            .roll("starleader.fire", r#"{"weapon": "Ghazi 10/7", "range_hexes": "far"}"#, 7)
            .unwrap_err()
            .0;
        assert!(e.contains("range_hexes") && e.contains("far"), "{e}");
        let e = reg.roll("starleader.fire", "{weapon: Ghazi", 7).unwrap_err().0;
        assert!(e.starts_with("invalid value") && e.contains("input JSON"), "{e}");
        let e = reg.roll("starleader.fire", "{}", 7).unwrap_err().0;
        assert!(e.contains("missing required input `weapon`"), "{e}");
    }

    #[test]
    fn roll_is_seeded_and_traced() {
        let reg = Registry::builtin().unwrap();
        let a = reg.roll("starleader.fire", FIRE, 7).unwrap();
        assert_eq!(a, reg.roll("starleader.fire", FIRE, 7).unwrap());
        let v = doc(&a);
        assert_eq!(v["format_version"], 1);
        assert_eq!(v["resolver"], "starleader.fire");
        assert_eq!(v["inputs"]["weapon"], "Ghazi 10/7");
        let rolls: Vec<&serde_json::Value> = v["trace"].as_array().unwrap().iter().filter(|e| e["kind"] == "roll").collect();
        assert!(!rolls.is_empty());
        assert!(v["outcome"]["result"].is_string());
        // Some other seed throws other faces.
        let faces = |t: &str| -> Vec<serde_json::Value> {
            doc(t)["trace"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["kind"] == "roll")
                .map(|e| e["faces"].clone())
                .collect()
        };
        assert!((0..20).any(|seed| faces(&reg.roll("starleader.fire", FIRE, seed).unwrap()) != faces(&a)));
    }

    #[test]
    fn scripted_faces_replay_a_seeded_roll() {
        let reg = Registry::builtin().unwrap();
        let seeded = doc(&reg.roll("starleader.fire", FIRE, 11).unwrap());
        let faces: Vec<i64> = seeded["trace"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"] == "roll")
            .flat_map(|e| e["faces"].as_array().unwrap().iter().map(|f| f.as_i64().unwrap()))
            .collect();
        let list = serde_json::to_string(&faces).unwrap();
        let scripted = doc(&reg.roll_with_dice("starleader.fire", FIRE, &list).unwrap());
        assert_eq!(scripted, seeded);
        let commas: Vec<String> = faces.iter().map(i64::to_string).collect();
        assert_eq!(
            doc(&reg.roll_with_dice("starleader.fire", FIRE, &commas.join(",")).unwrap()),
            seeded
        );
        let e = reg.roll_with_dice("starleader.fire", FIRE, "[7, 1, 1, 1]").unwrap_err().0;
        assert!(e.contains("valid faces are 1 to 6"), "{e}");
        let e = reg.roll_with_dice("starleader.fire", FIRE, "[]").unwrap_err().0;
        assert!(e.contains("dice script ran out"), "{e}");
        assert_eq!(parse_faces("[1, 2.5]").unwrap_err().0, "face 2 is 2.5, not a whole number");
        assert_eq!(parse_faces("1, x").unwrap_err().0, "face 2 is `x`, not a whole number");
    }

    #[test]
    fn asked_dice_drive_the_resolution_and_name_each_roll() {
        let reg = Registry::builtin().unwrap();
        let mut asked = Vec::new();
        let out = reg
            .roll_asking("starleader.fire", FIRE, |req| {
                asked.push((req.label.to_string(), req.sides, req.count));
                Ok(vec![6; usize::from(req.count)])
            })
            .unwrap();
        let v = doc(&out);
        let rolls: Vec<&serde_json::Value> = v["trace"].as_array().unwrap().iter().filter(|e| e["kind"] == "roll").collect();
        assert_eq!(rolls.len(), asked.len());
        for (e, (label, sides, count)) in rolls.iter().zip(&asked) {
            assert_eq!(e["label"], label.as_str(), "the request names the roll its trace event names");
            assert_eq!(*sides, 6);
            assert_eq!(e["faces"].as_array().unwrap().len(), usize::from(*count));
            assert!(e["faces"].as_array().unwrap().iter().all(|f| f == 6));
        }
        // The same faces as a script give the same document.
        let all: Vec<i64> = asked.iter().flat_map(|(_, _, n)| vec![6; usize::from(*n)]).collect();
        assert_eq!(
            reg.roll_with_dice("starleader.fire", FIRE, &serde_json::to_string(&all).unwrap())
                .unwrap(),
            out
        );
        // Wrong answers are refused with what the roll needs; a failure stops with its message.
        let e = reg.roll_asking("starleader.fire", FIRE, |_| Ok(vec![9])).unwrap_err().0;
        assert!(e.contains("expected ") && e.contains("each 1 to 6"), "{e}");
        let e = reg
            .roll_asking("starleader.fire", FIRE, |_| Err("the player left".into()))
            .unwrap_err()
            .0;
        assert_eq!(e, "the player left");
    }

    #[test]
    fn roll_step_asks_one_throw_at_a_time() {
        let reg = Registry::builtin().unwrap();
        let mut faces: Vec<i64> = Vec::new();
        let mut steps = 0;
        let done = loop {
            let v = doc(&reg
                .roll_step("starleader.fire", FIRE, &serde_json::to_string(&faces).unwrap())
                .unwrap());
            if v["complete"] == true {
                break v["roll"].clone();
            }
            assert_eq!(v["faces_used"], faces.len());
            let n = v["request"]["count"].as_u64().unwrap();
            assert!(!v["request"]["label"].as_str().unwrap().is_empty());
            faces.extend(std::iter::repeat_n(3, n as usize));
            steps += 1;
            assert!(steps < 50, "never completes");
        };
        assert!(steps >= 1);
        assert_eq!(
            done,
            doc(&reg
                .roll_with_dice("starleader.fire", FIRE, &serde_json::to_string(&faces).unwrap())
                .unwrap())
        );
        let mut extra = faces.clone();
        extra.push(1);
        let e = reg
            .roll_step("starleader.fire", FIRE, &serde_json::to_string(&extra).unwrap())
            .unwrap_err()
            .0;
        assert!(e.contains("1 left over"), "{e}");
    }

    #[test]
    fn odds_are_exact_fractions() {
        let reg = Registry::builtin().unwrap();
        let v = doc(&reg.odds("starleader.to_hit", r#"{"weapon": "Ghazi 10/7"}"#).unwrap());
        assert_eq!(chance(&v, "hit"), (145, 432));
        assert_eq!(chance(&v, "miss"), (287, 432));
    }

    #[test]
    fn odds_give_up_past_their_branch_limit() {
        let reg = Registry::builtin().unwrap();
        let to_hit = r#"{"weapon": "Ghazi 10/7"}"#;
        let whole = reg.odds("starleader.to_hit", to_hit).unwrap();
        assert_eq!(reg.odds_within("starleader.to_hit", to_hit, MAX_ODDS_BRANCHES).unwrap(), whole);
        // Too few branches for the to-hit roll: refused with what to do instead.
        let e = reg.odds_within("starleader.to_hit", to_hit, 2).unwrap_err().0;
        assert_eq!(
            e,
            "too many dice outcomes to enumerate exactly (more than 2 branches); odds(resolver, inputs, max_branches) \
             explores up to 50000000, blocking the page longer; estimate with sim(resolver, inputs, runs, seed)"
        );
        assert_eq!(
            reg.odds_within("starleader.to_hit", to_hit, 0).unwrap_err().0,
            "max_branches must be 1 to 50000000, not 0"
        );
        assert!(reg.odds_within("starleader.to_hit", to_hit, MAX_ODDS_BRANCHES + 1).is_err());
        // A whole battle is far wider than any limit: it gives up at its first branch, at once.
        // examples/mercenary-infantry-clash.yaml, cut to a platoon a side.
        let battle = r#"{"policy": "balanced", "withdrawal_phase": true, "units": [
            {"name": "A 1st Platoon", "side": "a", "unit_type": "infantry", "strength": 40, "rating": 3, "tl": 10, "zone": "a_front_line"},
            {"name": "A HQ", "side": "a", "unit_type": "command", "strength": 10, "rating": 4, "tl": 10, "zone": "a_reserves", "leadership": 2, "tactics": 2},
            {"name": "B 1st Platoon", "side": "b", "unit_type": "infantry", "strength": 40, "rating": 3, "tl": 10, "zone": "b_front_line"},
            {"name": "B HQ", "side": "b", "unit_type": "command", "strength": 10, "rating": 3, "tl": 10, "zone": "b_reserves", "leadership": 1, "tactics": 1}]}"#;
        let started = std::time::Instant::now();
        let e = reg.odds("mercenary.battle", battle).unwrap_err().0;
        assert!(
            e.starts_with("too many dice outcomes to enumerate exactly (more than 1000000 branches);"),
            "{e}"
        );
        let e = reg.odds_within("mercenary.battle", battle, MAX_ODDS_BRANCHES).unwrap_err().0;
        assert_eq!(
            e,
            "too many dice outcomes to enumerate exactly (more than 50000000 branches); estimate with sim(resolver, inputs, runs, seed)"
        );
        assert!(started.elapsed().as_secs() < 10, "gave up late: {:?}", started.elapsed());
        // What JavaScript passes.
        assert_eq!(odds_branches(None).unwrap(), DEFAULT_ODDS_BRANCHES);
        assert_eq!(odds_branches(Some(5000.0)).unwrap(), 5000);
        assert!(odds_branches(Some(2.5))
            .unwrap_err()
            .0
            .starts_with("max_branches must be a whole number"));
    }

    /// The probability of `result`, summed over the outcomes of an odds document, reduced.
    fn chance(odds: &serde_json::Value, result: &str) -> (u128, u128) {
        fn gcd(a: u128, b: u128) -> u128 {
            if b == 0 {
                a
            } else {
                gcd(b, a % b)
            }
        }
        let mut sum = (0u128, 1u128);
        for o in odds["outcomes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|o| o["outcome"]["result"] == result)
        {
            let (n, d) = o["probability"].as_str().unwrap().split_once('/').unwrap();
            let (n, d): (u128, u128) = (n.parse().unwrap(), d.parse().unwrap());
            sum = (sum.0 * d + n * sum.1, sum.1 * d);
            let g = gcd(sum.0, sum.1);
            sum = (sum.0 / g, sum.1 / g);
        }
        sum
    }

    #[test]
    fn sim_is_seeded_and_bounded() {
        let reg = Registry::builtin().unwrap();
        let a = reg.sim("starleader.fire", FIRE, 200, 3).unwrap();
        assert_eq!(a, reg.sim("starleader.fire", FIRE, 200, 3).unwrap());
        let v = doc(&a);
        assert_eq!(v["runs"], 200);
        assert_eq!(v["outcome_field"], "result");
        let total: f64 = v["outcomes"]
            .as_object()
            .unwrap()
            .values()
            .map(|o| o["probability"].as_f64().unwrap())
            .sum();
        assert!((total - 1.0).abs() < 1e-9, "{total}");
        assert!(reg
            .sim("starleader.fire", FIRE, 0, 3)
            .unwrap_err()
            .0
            .starts_with("runs must be 1 to"));
    }

    #[test]
    fn rules_given_as_text_check_and_run() {
        let files = builtin_rules_text().unwrap();
        let v = doc(&check_rules(&files).unwrap());
        assert_eq!(v["ok"], true);
        assert_eq!(v["errors"], 0);
        // The interpreter gives the compiled rules' documents, byte for byte.
        let interp = Registry::load(&files).unwrap();
        let builtin = Registry::builtin().unwrap();
        assert_eq!(
            interp.roll("starleader.fire", FIRE, 7).unwrap(),
            builtin.roll("starleader.fire", FIRE, 7).unwrap()
        );
        assert_eq!(
            interp.odds("starleader.to_hit", r#"{"weapon": "Ghazi 10/7"}"#).unwrap(),
            builtin.odds("starleader.to_hit", r#"{"weapon": "Ghazi 10/7"}"#).unwrap()
        );
        // An edit shows at once: the Ghazi's density 10 → 11 moves the odds as the README says.
        let mut edited: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&files).unwrap();
        let weapons = edited["starleader/weapons.rules"].as_str().unwrap().to_string();
        let row = weapons.lines().find(|l| l.trim_start().starts_with("\"Ghazi 10/7\"")).unwrap();
        let new_row = row.replacen("| 10 ", "| 11 ", 1);
        assert_ne!(row, new_row, "{row}");
        edited.insert("starleader/weapons.rules".into(), weapons.replace(row, &new_row).into());
        let edited = Registry::load(&serde_json::to_string(&edited).unwrap()).unwrap();
        let v = doc(&edited.odds("starleader.to_hit", r#"{"weapon": "Ghazi 10/7"}"#).unwrap());
        assert_eq!(chance(&v, "hit"), (575, 1296));
    }

    #[test]
    fn broken_rules_are_diagnosed_not_run() {
        let files = r#"{"house/fire.rules": "system house \"House\"\n\nresolver shot {\n  roll d: 2d6\n  set result = d + nope\n}\n"}"#;
        let v = doc(&check_rules(files).unwrap());
        assert_eq!(v["ok"], false);
        let d = &v["diagnostics"][0];
        assert!(d["location"].as_str().unwrap().starts_with("house/fire.rules:"), "{d}");
        assert!(v["rendered"].as_str().unwrap().contains("house/fire.rules:"), "{v}");
        let e = Registry::load(files).unwrap_err().0;
        assert!(e.starts_with("cannot use these rules:\n") && e.contains("error["), "{e}");
        assert!(check_rules("[]").unwrap_err().0.contains("JSON object of paths"));
        let e = check_rules(r#"{"fire.rules": ""}"#).unwrap_err().0;
        assert!(e.contains("SYSTEM/NAME.rules"), "{e}");
        let e = check_rules(r#"{"house/fire.rules": 3}"#).unwrap_err().0;
        assert_eq!(e, "the text of `house/fire.rules` must be a string");
    }

    #[test]
    fn numbers_from_javascript() {
        assert_eq!(whole_number("seed", 7.0).unwrap(), 7);
        assert!(whole_number("seed", -1.0).is_err());
        assert!(whole_number("seed", 1.5).is_err());
        assert!(whole_number("seed", f64::NAN).is_err());
        assert!(whole_number("seed", 1e300).unwrap_err().0.contains("BigInt"));
        assert_eq!(seed_from_text("18446744073709551615").unwrap(), u64::MAX);
        assert!(seed_from_text("-3").unwrap_err().0.contains("`-3`"));
    }
}
