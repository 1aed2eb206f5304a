//! Helpers shared by the tests that run the `rulebook` binary as a user does.
#![allow(dead_code, reason = "each test file uses its own subset")]

use rulebook::runtime::Prob;
use std::process::{Command, Output};

/// Runs the built binary from the project root.
pub fn rulebook(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run rulebook: {e}"))
}

/// stdout of a `rulebook` run that must succeed (it fails the test with stderr otherwise).
pub fn stdout(args: &[&str]) -> String {
    let out = rulebook(args);
    assert!(
        out.status.success(),
        "rulebook {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap_or_else(|e| panic!("rulebook {}: stdout is not UTF-8: {e}", args.join(" ")))
}

/// An exact probability as `--json` prints it ("n/d").
pub fn prob(text: &str) -> Prob {
    let (n, d) = text.split_once('/').unwrap_or_else(|| panic!("not a fraction: {text}"));
    let n = n.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    let d = d.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    Prob::new(n, d).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Inputs for `resolve`: `--set` pairs and a YAML mapping (for records and lists), as the CLI takes them.
pub fn bind(path: &str, sets: &[(&str, &str)], yaml: &str) -> (&'static rulebook::runtime::ResolverInfo, rulebook::runtime::Inputs) {
    let (_, r) = rulebook::runtime::find_resolver(rulebook::SYSTEMS, path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let sets: Vec<(String, String)> = sets.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let yaml: serde_yaml::Value = serde_yaml::from_str(if yaml.is_empty() { "{}" } else { yaml }).unwrap_or_else(|e| panic!("{yaml}: {e}"));
    let inputs = rulebook::runtime::bind_inputs(r, &sets, Some(&yaml)).unwrap_or_else(|e| panic!("{path}: {e}"));
    (r, inputs)
}

/// Runs a resolver once on scripted faces (the script must be used up exactly).
pub fn resolve(path: &str, sets: &[(&str, &str)], yaml: &str, faces: &[i64]) -> Result<rulebook::runtime::Value, rulebook::runtime::Error> {
    let (r, inputs) = bind(path, sets, yaml);
    let mut dice = rulebook::runtime::Scripted::new(faces.to_vec());
    let out = r.run_quiet(&mut dice, &mut rulebook::runtime::NoTrace, &inputs)?;
    assert_eq!(dice.remaining(), 0, "{path}: {} scripted faces left unused", dice.remaining());
    Ok(out)
}

/// Runs a resolver once on seeded dice: for refusals, which come after the resolver has run to its end
/// (every broken limit is reported at once), dice and all.
pub fn attempt(path: &str, sets: &[(&str, &str)], yaml: &str) -> Result<rulebook::runtime::Value, rulebook::runtime::Error> {
    let (r, inputs) = bind(path, sets, yaml);
    r.run_quiet(&mut rulebook::runtime::Seeded::new(0), &mut rulebook::runtime::NoTrace, &inputs)
}

/// Exact odds of a resolver.
pub fn odds(
    path: &str,
    sets: &[(&str, &str)],
    yaml: &str,
) -> Result<rulebook::runtime::Distribution<rulebook::runtime::Value>, rulebook::runtime::Error> {
    let (r, inputs) = bind(path, sets, yaml);
    rulebook::runtime::odds_dyn(r, &inputs)
}

/// One output of an outcome, as text ("7.5", "hit", "true").
pub fn field(v: &rulebook::runtime::Value, name: &str) -> String {
    v.field(name).unwrap_or_else(|| panic!("no output `{name}` in {v}")).to_string()
}

/// The refusal messages of a rejected situation; panics on success or on another error.
pub fn refusals(r: Result<rulebook::runtime::Value, rulebook::runtime::Error>) -> Vec<String> {
    match r {
        Err(e) if matches!(e.cause(), rulebook::runtime::Error::Rejected { .. }) => match e.cause() {
            rulebook::runtime::Error::Rejected { violations } => violations.iter().map(|v| format!("{} [{}]", v.message, v.cite)).collect(),
            _ => unreachable!(),
        },
        Err(e) => panic!("expected the rules to refuse, got the error: {e}"),
        Ok(v) => panic!("expected the rules to refuse, got the outcome {v}"),
    }
}

/// A `rulebook` command the README shows: its words (without `rulebook`), the output lines shown
/// under it (for `$ rulebook ...` lines in a code block), its README line and its code block
/// (`None` for a command in backticks in the prose).
#[derive(Debug, Clone)]
pub struct ShownCommand {
    pub line: usize,
    pub block: Option<usize>,
    pub args: Vec<String>,
    pub output: Vec<String>,
}

/// Splits a command line as a shell would for the README's commands: words separated by spaces,
/// double quotes grouping (and removed), `#` starting a comment.
pub fn shell_words(cmd: &str) -> Vec<String> {
    let mut words = Vec::new();
    let (mut cur, mut quoted, mut any) = (String::new(), false, false);
    for c in cmd.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            '#' if !quoted && !any => break,
            c if c.is_whitespace() && !quoted => {
                if any {
                    words.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(cur);
    }
    words
}

/// The words after `rulebook` (or `cargo run --release --`) of a command, if `text` is one.
fn command_args(text: &str) -> Option<Vec<String>> {
    let text = text.trim().trim_start_matches("$ ");
    let rest = text
        .strip_prefix("rulebook ")
        .or_else(|| text.strip_prefix("cargo run --release -- "))?;
    Some(shell_words(rest))
}

/// Every `rulebook` command in README.md, in order: in code blocks (continued over `\` line
/// ends) and in backticks in the prose (except those with a placeholder such as `SYSTEM`).
pub fn readme_commands() -> Vec<ShownCommand> {
    doc_commands("README.md")
}

/// Every `rulebook` command in the Markdown file at `path` (from the project folder), as
/// [`readme_commands`] reads README.md.
pub fn doc_commands(path: &str) -> Vec<ShownCommand> {
    let readme = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    let mut out: Vec<ShownCommand> = Vec::new();
    let (mut block, mut fence_indent, mut in_fence, mut shell) = (0, 0, false, false);
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            if in_fence {
                block += 1;
                fence_indent = line.len() - line.trim_start().len();
                // Shell blocks, and plain blocks of commands and output; not `toml` or `rust`.
                shell = matches!(line.trim_start().trim_start_matches('`'), "" | "sh" | "console");
            }
            i += 1;
            continue;
        }
        if in_fence && !shell {
            i += 1;
            continue;
        }
        if in_fence {
            let mut text = line.trim().to_string();
            let start = i;
            while text.ends_with('\\') && i + 1 < lines.len() {
                text.pop();
                i += 1;
                text.push(' ');
                text.push_str(lines[i].trim());
            }
            if let Some(args) = command_args(&text) {
                let mut output = Vec::new();
                if text.starts_with("$ ") {
                    while i + 1 < lines.len()
                        && !lines[i + 1].trim_start().starts_with("$ ")
                        && !lines[i + 1].trim_start().starts_with("```")
                    {
                        i += 1;
                        let shown = lines[i].get(fence_indent..).unwrap_or("").trim_end();
                        if shown.trim() != "..." && !shown.is_empty() {
                            output.push(shown.to_string());
                        }
                    }
                }
                out.push(ShownCommand {
                    line: start + 1,
                    block: Some(block),
                    args,
                    output,
                });
            }
        } else {
            for (k, span) in line.split('`').enumerate() {
                let placeholder = span
                    .split_whitespace()
                    .any(|w| w.len() > 1 && w.chars().all(|c| c.is_ascii_uppercase()) || w.starts_with('<'));
                if k % 2 == 1 && span.starts_with("rulebook ") && !placeholder {
                    if let Some(args) = command_args(span) {
                        out.push(ShownCommand {
                            line: i + 1,
                            block: None,
                            args,
                            output: Vec::new(),
                        });
                    }
                }
            }
        }
        i += 1;
    }
    out
}

/// P(field == value), summed exactly over a joint distribution, as text: "0", "1" or "n/d".
pub fn p(d: &rulebook::runtime::Distribution<rulebook::runtime::Value>, name: &str, value: &str) -> String {
    let pr = d
        .probability(|o| o.field(name).map(|v| v.to_string()) == Some(value.to_string()))
        .to_string();
    match pr.as_str() {
        "0/1" => "0".into(),
        "1/1" => "1".into(),
        _ => pr,
    }
}

/// Exact odds of a resolver given `--set` pairs; they must sum to exactly 1.
pub fn dist(path: &str, sets: &[(&str, &str)]) -> rulebook::runtime::Distribution<rulebook::runtime::Value> {
    let d = odds(path, sets, "").unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(d.total(), Prob::one(), "{path}: the odds must sum to exactly 1");
    d
}
