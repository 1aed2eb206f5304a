//! Random valid rules from the grammar-aware generator (`tests/rulegen/`): every generated system
//! checks with zero diagnostics, generates Rust without error, loads into the interpreter, and
//! every resolver runs on random inputs (seeded dice) and gives exact odds that sum to 1, without
//! a panic. `RULEBOOK_GEN_CASES=N` sets the number of systems (default 40).
//!
//! The slow `--ignored` test `generated_systems_compile_and_agree` puts a sample through rustc
//! and runs the generated code against the interpreter (outcome, error and trace, byte for byte).

mod rulegen;

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rulebook_compiler::{codegen, driver};
use rulebook_runtime as rt;
use std::path::Path;
use std::process::Command;

struct Chacha(ChaCha8Rng);

impl rulegen::Entropy for Chacha {
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.0.next_u64() % n
        }
    }
}

fn cases(default: u64) -> u64 {
    std::env::var("RULEBOOK_GEN_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The generated system number `k`, checked: its sources and program, or a panic with the text
/// and the diagnostics.
fn checked(k: u64) -> driver::Compiled {
    let mut e = Chacha(ChaCha8Rng::seed_from_u64(k));
    let name = format!("gen{k}");
    let files = rulegen::system(&mut e, &name);
    let pairs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let c = driver::compile_sources(driver::sources_from_pairs("gen", &pairs));
    if !c.diagnostics.is_empty() {
        let text: String = files.iter().map(|(p, t)| format!("//== {p}\n{t}")).collect();
        panic!("generated system {k} does not check cleanly:\n{text}\n{}", c.render());
    }
    c
}

#[test]
fn generated_rules_check_cleanly_and_run_in_the_interpreter() {
    let n = cases(40);
    let (mut runs, mut resolved, mut odds_done) = (0u64, 0u64, 0u64);
    for k in 0..n {
        let c = checked(k);
        let program = c.program.as_ref().unwrap_or_else(|| panic!("system {k}: no program"));
        let code = codegen::generate(program, "").unwrap_or_else(|e| panic!("system {k}: codegen failed: {e}"));
        assert!(
            code.contains(&format!("pub mod gen{k}")),
            "system {k}: generated code names its module"
        );
        let rules = rulebook::Rules::from_sources(c.sources).unwrap_or_else(|e| panic!("system {k}: {e}"));
        let mut e = Chacha(ChaCha8Rng::seed_from_u64(1_000_000 + k));
        for s in rules.systems() {
            for r in s.resolvers {
                for _ in 0..8 {
                    let inputs = rulegen::inputs::inputs(&mut e, r);
                    let seed = e.0.next_u64();
                    let mut trace = rt::Recorder::new();
                    let out = r.run_traced(&mut rt::Seeded::new(seed), &mut trace, &inputs);
                    runs += 1;
                    resolved += u64::from(out.is_ok());
                    // A refusal is fine (a `require`, a reroll limit); what matters is no panic
                    // and an outcome of the declared shape.
                    if let Ok(rt::Value::Record(fields)) = &out {
                        let names: Vec<&str> = fields.iter().map(|(n, _)| *n).collect();
                        let declared: Vec<&str> = r.outputs.iter().map(|o| o.name).collect();
                        assert_eq!(names, declared, "system {k} {}: outcome fields", r.name);
                    }
                }
                let inputs = rulegen::inputs::inputs(&mut e, r);
                if let Ok(d) = rt::with_leaf_limit(20_000, || r.odds(&inputs)) {
                    assert_eq!(d.total(), rt::Prob::one(), "system {k} {}: odds sum to 1", r.name);
                    odds_done += 1;
                }
            }
        }
    }
    // The generator reaches the rules' bodies: most runs resolve rather than being refused.
    assert!(resolved * 2 > runs, "only {resolved} of {runs} runs resolved");
    assert!(odds_done > n, "exact odds finished for only {odds_done} resolvers");
}

/// Over a few dozen systems the generator writes every construct it knows, so the checks above
/// cover more than the simplest ones.
#[test]
fn the_generator_writes_every_construct() {
    let mut all = String::new();
    for k in 0..40 {
        for (_, text) in rulegen::system(&mut Chacha(ChaCha8Rng::seed_from_u64(k)), &format!("gen{k}")) {
            all.push_str(&text);
        }
    }
    for construct in [
        "option ",
        "enum ",
        "const ",
        "alias ",
        " by 2d6",
        " by int ",
        " matrix ",
        "-> int?",
        "list t",
        "roll ",
        "let ",
        "check ",
        "set ",
        "if ",
        "else if",
        " else {",
        "match ",
        " _ =>",
        "call ",
        "repeat up to",
        "break",
        "return",
        "require ",
        "note ",
        "for ",
        "highest ",
        " clamp ",
        "count(",
        "sum(",
        "len(",
        "any(",
        "\" in i",
        "= [",
        "??",
        "flux",
        "keep highest",
        "drop lowest",
        "zero_based",
        "d100",
        "reroll",
        " each ",
        "floor(",
        " % ",
        " * ",
    ] {
        assert!(all.contains(construct), "no generated system has `{construct}`");
    }
}

/// The generator is a function of its entropy: the same seed, the same text.
#[test]
fn the_generator_is_deterministic() {
    let a = rulegen::system(&mut Chacha(ChaCha8Rng::seed_from_u64(7)), "gen7");
    let b = rulegen::system(&mut Chacha(ChaCha8Rng::seed_from_u64(7)), "gen7");
    assert_eq!(a, b);
    let c = rulegen::system(&mut Chacha(ChaCha8Rng::seed_from_u64(8)), "gen7");
    assert_ne!(a, c);
}

/// A sample of generated systems through rustc (as its own crate against `rulebook-runtime`,
/// warnings denied, as `tests/corpus_compiles.rs` does), and each compiled resolver against the
/// interpreter on random inputs and seeds: the same outcome or error and the same trace.
/// `RULEBOOK_GEN_COMPILE=N` sets the sample size (default 12).
#[test]
#[ignore = "slow: builds a crate with rustc; run with --ignored"]
fn generated_systems_compile_and_agree() {
    let n: u64 = std::env::var("RULEBOOK_GEN_COMPILE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = Vec::new();
    for k in 0..n {
        sources.extend(checked(k).sources);
    }
    let c = driver::compile_sources(sources);
    assert_eq!(c.errors(), 0, "{}", c.render());
    let program = c.program.as_ref().unwrap_or_else(|| panic!("no program"));
    let code = codegen::generate(program, "").unwrap_or_else(|e| panic!("codegen: {e}"));

    // The driver program: for every resolver of every system, random inputs as JSON lines on
    // stdin, and the outcome and trace printed; the interpreter does the same in this process.
    let main = format!(
        r#"use rulebook_runtime as rt;
fn main() {{
    let systems = gen_check::SYSTEMS;
    // Each line of the file named by the first argument: path, seed, inputs (JSON object).
    let cases = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    for line in cases.lines() {{
        let mut parts = line.splitn(3, '\t');
        let (path, seed, json) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
        let (_, r) = rt::find_resolver(systems, path).unwrap();
        let yaml: serde_yaml::Value = serde_yaml::from_str(json).unwrap();
        let inputs = rt::bind_inputs(r, &[], Some(&yaml)).unwrap();
        let mut trace = rt::Recorder::new();
        let out = r.run_traced(&mut rt::Seeded::new(seed.parse().unwrap()), &mut trace, &inputs);
        println!("{{out:?}}\n{{}}\u{{1e}}", trace.render());
    }}
}}
"#
    );
    let dir = root.join("target/generated-check");
    std::fs::create_dir_all(dir.join("src/bin")).unwrap();
    let manifest = format!(
        "[package]\nname = \"gen-check\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\nrulebook-runtime = {{ path = {:?} }}\nserde_yaml = \"0.9\"\n\n[workspace]\n",
        root.join("runtime").display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(
        dir.join("src/lib.rs"),
        format!("#![forbid(unsafe_code)]\n#![deny(warnings)]\n{code}"),
    )
    .unwrap();
    std::fs::write(dir.join("src/bin/run.rs"), main).unwrap();

    // The interpreter's side, and the cases.
    let rules = rulebook::Rules::from_sources(c.sources).unwrap_or_else(|e| panic!("{e}"));
    let mut e = Chacha(ChaCha8Rng::seed_from_u64(42));
    let (mut lines, mut expected) = (String::new(), Vec::new());
    for s in rules.systems() {
        for r in s.resolvers {
            for _ in 0..6 {
                let inputs = rulegen::inputs::inputs(&mut e, r);
                let seed = e.0.next_u64() % 10_000;
                let json = serde_json::Value::Object(inputs.iter().map(|(k, v)| (k.clone(), v.to_json())).collect());
                lines.push_str(&format!("{}.{}\t{seed}\t{json}\n", s.name, r.name));
                let mut trace = rt::Recorder::new();
                let out = r.run_traced(&mut rt::Seeded::new(seed), &mut trace, &inputs);
                expected.push(format!("{out:?}\n{}", trace.render()));
            }
        }
    }
    std::fs::write(dir.join("cases.tsv"), &lines).unwrap();
    let out = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--offline", "--bin", "run", "--", "cases.tsv"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "generated code failed to compile or run:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let got: Vec<&str> = stdout.split("\u{1e}\n").filter(|s| !s.is_empty()).collect();
    assert_eq!(got.len(), expected.len(), "one answer per case");
    for ((line, got), want) in lines.lines().zip(&got).zip(&expected) {
        assert_eq!(got, want, "compiled and interpreted differ on {line}");
    }
}
