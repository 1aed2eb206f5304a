//! Every `rulebook` command the README and the `--help` examples show runs here against the built
//! binary, so they cannot drift (issue 13): each must exit 0, and where the README shows output
//! under a `$ rulebook ...` line, those lines must be lines of what it prints. Commands on the
//! README's `my-rules` folder run on a fresh export of it; the output the README shows for them
//! after its edits is checked by `tests/editor_loop.rs`, which makes those edits.

mod common;

use common::{readme_commands, rulebook, shell_words};
use std::path::{Path, PathBuf};

/// A fresh folder under the target directory.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The arguments as run: `my-rules` is the scratch export, and a `--chart FILE` is written
/// beside it rather than into the checkout. In a debug build `sim` runs 200 times
/// instead of the 10000 or 100000 shown: a debug `sim mercenary.battle` does about 170 runs a
/// second on 2 shared cores (58 s for 10000), and the release binary well over 10000 a second.
fn as_run(args: &[String], my_rules: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(args.len());
    for a in args {
        let a = if a == "my-rules" {
            my_rules.to_string_lossy().to_string()
        } else if out.last().is_some_and(|p| p == "--chart") {
            chart_path(my_rules, a).to_string_lossy().to_string()
        } else {
            a.clone()
        };
        let runs = out.last().is_some_and(|p| p == "--runs");
        out.push(if runs && cfg!(debug_assertions) && a.parse::<u64>().is_ok_and(|n| n > 200) {
            "200".to_string()
        } else {
            a
        });
    }
    out
}

/// Where a command's `--chart FILE` is written: beside the scratch `my-rules`.
fn chart_path(my_rules: &Path, file: &str) -> PathBuf {
    my_rules.with_file_name(Path::new(file).file_name().unwrap_or_default())
}

/// A command that draws a chart wrote an SVG.
fn assert_chart_written(args: &[String]) {
    if let Some(i) = args.iter().position(|a| a == "--chart") {
        let file = &args[i + 1];
        let svg = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("rulebook {}: no chart: {e}", args.join(" ")));
        assert!(svg.starts_with("<svg"), "rulebook {}: {file} is not an SVG", args.join(" "));
        std::fs::remove_file(file).unwrap();
    }
}

fn run(args: &[String]) -> std::process::Output {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    rulebook(&refs)
}

#[test]
fn every_readme_command_runs_and_prints_what_the_readme_shows() {
    let commands = readme_commands();
    assert!(commands.len() >= 15, "too few commands found in README.md: {commands:#?}");
    let my_rules = scratch("readme-commands").join("my-rules");
    // `rulebook export my-rules` is the first command on `my-rules`; every later one reads it.
    let first_on_my_rules = commands.iter().find(|c| c.args.iter().any(|a| a == "my-rules"));
    assert_eq!(
        first_on_my_rules.map(|c| c.args[0].as_str()),
        Some("export"),
        "the README uses `my-rules` before exporting it"
    );
    for c in &commands {
        let args = as_run(&c.args, &my_rules);
        let out = run(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "README.md:{}: rulebook {}\n{}",
            c.line,
            c.args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_chart_written(&args);
        if c.args.iter().any(|a| a == "my-rules") {
            continue; // its output depends on the README's edits: tests/editor_loop.rs
        }
        let printed: Vec<&str> = stdout.lines().map(str::trim_end).collect();
        for shown in &c.output {
            assert!(
                printed.contains(&shown.as_str()),
                "README.md:{} shows `{shown}`, which `rulebook {}` does not print:\n{stdout}",
                c.line,
                c.args.join(" ")
            );
        }
    }
}

/// The example lines of `rulebook [VERB] --help`, without the words describing them.
fn help_examples(verb: Option<&str>) -> Vec<Vec<String>> {
    let mut args = verb.map(|v| vec![v]).unwrap_or_default();
    args.push("--help");
    let out = rulebook(&args);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout).to_string();
    let section = help
        .split("Examples:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{verb:?} --help has no examples:\n{help}"));
    section
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.trim().strip_prefix("rulebook "))
        .map(|l| {
            // The description follows the command after two spaces or more (outside quotes).
            let mut quoted = false;
            let mut end = l.len();
            for (i, c) in l.char_indices() {
                if c == '"' {
                    quoted = !quoted;
                } else if !quoted && l[i..].starts_with("  ") {
                    end = i;
                    break;
                }
            }
            shell_words(&l[..end])
        })
        .collect()
}

#[test]
fn every_help_example_runs() {
    let mut examples = Vec::new();
    for verb in [
        None,
        Some("list"),
        Some("roll"),
        Some("odds"),
        Some("check"),
        Some("sim"),
        Some("diff"),
        Some("export"),
        Some("sweep"),
        Some("best"),
    ] {
        let found = help_examples(verb);
        assert!(!found.is_empty(), "{verb:?}");
        examples.extend(found);
    }
    // `export` first: the examples on `my-rules` read what it writes.
    examples.sort_by_key(|a| a[0] != "export");
    let my_rules = scratch("help-examples").join("my-rules");
    for ex in &examples {
        let args = as_run(ex, &my_rules);
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "rulebook {}\n{}",
            ex.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_chart_written(&args);
    }
    assert!(examples.len() >= 20, "{examples:?}");
}
