//! `rulebook tour`: the built-in rules at work in one command — check every rules file, build a
//! character from the book, resolve a shot with scripted dice and show its exact odds.

use super::CliError;
use rulebook_runtime as rt;
use std::io::Write;
use std::process::ExitCode;

/// Each step: a heading and the command line it runs.
const STEPS: &[(&str, &[&str])] = &[
    ("Check every rules file under rules-src/", &["check"]),
    (
        "Starleader 12.1: the Rescuer as the book gives him (IQ 11, PR 12, EM 9, Alloid-A, Vapcak, Sealall, Syter)",
        &["roll", "starleader.scenario_character", "--set", "name=Rescuer"],
    ),
    (
        "Starleader 6.3-6.64: the Zdanthan fires his Ghazi 10/7 at the Rescuer, with the book's optional special results \
and heavy hits; the dice are scripted: To Hit 3,3,2,2 (an automatic hit), Damage 4,5, Heavy Hit 5",
        &[
            "roll",
            "starleader.fire",
            "--set",
            "weapon=Ghazi 10/7",
            "--set",
            "armor_rating=8",
            "--set",
            "target_gadgets=Vapcak,Sealall,Syter",
            "--set",
            "special_results=true",
            "--set",
            "heavy_hits=true",
            "--dice",
            "3,3,2,2,4,5,5",
        ],
    ),
    (
        "The exact odds of the Zdanthan's To Hit roll (4d6 against 12, special results on), as fractions; `rulebook odds starleader.fire ...` gives the whole shot",
        &["odds", "starleader.to_hit", "--set", "weapon=Ghazi 10/7", "--set", "special_results=true"],
    ),
    ("The exact odds of a Panic Check (5.64) for a character with EM 9", &["odds", "starleader.panic_check", "--set", "emotions=9", "--set", "panic_checks=true"]),
];

pub fn run(systems: &[&'static rt::SystemInfo], out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    for (i, (title, args)) in STEPS.iter().enumerate() {
        writeln!(out, "\n━━ {}. {title}\n$ rulebook {}\n", i + 1, shell_words(args))?;
        out.flush()?;
        let argv = std::iter::once("rulebook").chain(args.iter().copied());
        let code = super::run(systems, argv, out, err);
        if code != ExitCode::SUCCESS {
            return Err(CliError {
                message: format!("tour step {} failed", i + 1),
                code: 1,
            });
        }
    }
    writeln!(
        out,
        "\nNext: `rulebook list starleader` shows every resolver, input and optional rule."
    )?;
    Ok(())
}

fn shell_words(args: &[&str]) -> String {
    args.iter()
        .map(|a| {
            if a.contains(' ') || a.contains(',') {
                format!("\"{a}\"")
            } else {
                a.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
