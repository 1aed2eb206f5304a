//! Reliability (issue 44): no crash, hang or runaway memory from any rules text, input or output
//! path. Each test here failed on the code before its fix.

mod common;

use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rulebook"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

/// A fresh folder under the system's temporary folder, empty.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rulebook-rel-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every verb, with arguments that make it write to standard output.
fn every_verb(export_dir: &str) -> Vec<Vec<String>> {
    let v = |args: &[&str]| args.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&["check"]),
        v(&["check", "--json"]),
        v(&["list"]),
        v(&["list", "starleader", "--json"]),
        v(&["roll", "starleader.fire", "--set", "weapon=Ghazi 10/7", "--seed", "7"]),
        v(&["roll", "starleader.fire", "--set", "weapon=Ghazi 10/7", "--json"]),
        v(&["odds", "starleader.fire", "--set", "weapon=Ghazi 10/7"]),
        v(&["odds", "starleader.fire", "--set", "weapon=Ghazi 10/7", "--json"]),
        v(&["sim", "starleader.to_hit", "--set", "weapon=Ghazi 10/7", "--runs", "200"]),
        v(&["sim", "starleader.to_hit", "--set", "weapon=Ghazi 10/7", "--runs", "200", "--json"]),
        v(&["diff", "builtin", "builtin", "starleader.to_hit", "--set", "weapon=Ghazi 10/7"]),
        v(&["export", export_dir]),
        v(&["tour"]),
        v(&["--help"]),
    ]
}

/// `check > /dev/full`, `check --json | head -1`, `tour | head -1` panicked (exit 101). Every verb
/// now says "cannot write output" (exit 1) on a full device, and exits quietly on a closed pipe.
#[test]
fn every_verb_survives_a_full_device_and_a_closed_pipe() {
    let dir = scratch("pipes");
    for (i, args) in every_verb(dir.join("full").to_str().unwrap()).iter().enumerate() {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = bin().args(args).stdout(full).stderr(Stdio::piped()).output().unwrap();
        let err = text(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?} > /dev/full panicked: {err}");
        assert_eq!(out.status.code(), Some(1), "{args:?} > /dev/full: {err}");
        assert!(err.contains("cannot write output"), "{args:?} > /dev/full: {err}");

        // A pipe whose reading end is closed as the command starts: its writes fail.
        let export = dir.join(format!("closed-{i}"));
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                if a.ends_with("/full") {
                    export.to_string_lossy().to_string()
                } else {
                    a.clone()
                }
            })
            .collect();
        let mut child = bin().args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = text(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?} | (closed) panicked: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?} | (closed): {err}");
        assert!(!err.contains("error"), "{args:?} | (closed) is not worth an error: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `sim starleader.unjam --set iq=40 --runs 100 --exact-check` said "NO" for an exact 1/1: the
/// interval's upper end came out as 0.9999999999999999.
#[test]
fn exact_check_counts_a_certain_outcome_inside() {
    let args = [
        "sim",
        "starleader.unjam",
        "--set",
        "iq=40",
        "--runs",
        "100",
        "--exact-check",
        "--json",
    ];
    let out = common::rulebook(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["exact_check"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["exact"] == "1/1"), "{v}");
    for r in rows {
        assert_eq!(r["inside"], true, "{r}");
    }
}

/// A 200 KB `--input` of nested `[` took over a minute (the parser's time grows with the square
/// of the nesting). It is refused at once, naming the place, and a file twice as long takes no
/// longer than twice the time (a linear check; timings compared, not asserted in seconds alone).
#[test]
fn deeply_nested_yaml_is_refused_in_linear_time() {
    let dir = scratch("deep-yaml");
    let time = |bytes: usize| {
        let path = dir.join(format!("deep-{bytes}.yaml"));
        std::fs::write(&path, format!("weapon: {}", "[".repeat(bytes))).unwrap();
        let started = std::time::Instant::now();
        let out = bin()
            .args(["roll", "starleader.fire", "--input", path.to_str().unwrap()])
            .output()
            .unwrap();
        let took = started.elapsed();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("nested more than 100 deep") && err.contains("line 1, column 109"),
            "{err}"
        );
        took
    };
    let big = time(2_000_000);
    assert!(big < std::time::Duration::from_secs(10), "2 MB of `[` took {big:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A YAML file that starts with a UTF-8 byte-order mark was refused as "more than one document".
#[test]
fn yaml_with_a_byte_order_mark_is_read() {
    let dir = scratch("bom");
    let path = dir.join("bom.yaml");
    std::fs::write(&path, "\u{feff}weapon: Ghazi 10/7\ntarget_size: 1\n").unwrap();
    let out = bin()
        .args([
            "roll",
            "starleader.fire",
            "--input",
            path.to_str().unwrap(),
            "--seed",
            "7",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["inputs"]["weapon"], "Ghazi 10/7", "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--input /dev/zero`, a `.rules` symlink to `/dev/zero` and 100 MB piped into `--input
/// /dev/stdin` were read whole (the limits looked at the size on disk only).
#[test]
fn endless_inputs_and_rules_files_are_read_through_their_limits() {
    let out = bin().args(["roll", "starleader.fire", "--input", "/dev/zero"]).output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("more than the limit of 16 MiB"), "{err}");

    let mut child = bin()
        .args(["roll", "starleader.fire", "--input", "/dev/stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        let chunk = vec![b'#'; 1 << 20];
        for _ in 0..100 {
            if stdin.write_all(&chunk).is_err() {
                break; // the reader stopped at its limit
            }
        }
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("more than the limit of 16 MiB"), "{err}");

    let dir = scratch("zero-rules");
    std::fs::create_dir_all(dir.join("sys")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("sys/endless.rules")).unwrap();
    for args in [vec!["check", "--rules"], vec!["list", "--rules"]] {
        let mut args: Vec<&str> = args;
        args.push(dir.to_str().unwrap());
        let out = bin().args(&args).output().unwrap();
        let err = text(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.contains("endless.rules: more than the limit of"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--chart` renamed a temporary file over whatever it was pointed at: a symlink, a FIFO or a
/// device became a regular SVG file, with exit 0. A link is now written through, a device in
/// place (`/dev/full` is "no space left"), and a path that cannot be written is refused before the
/// work; a legal 254-byte name works (its temporary name beside it was too long).
#[test]
fn charts_write_through_links_into_devices_and_are_checked_first() {
    let dir = scratch("charts");
    let odds = |chart: &std::path::Path| {
        bin()
            .args([
                "odds",
                "starleader.to_hit",
                "--set",
                "weapon=Ghazi 10/7",
                "--chart",
                chart.to_str().unwrap(),
            ])
            .output()
            .unwrap()
    };
    // Through a symlink: the link stays, the file it names gets the chart.
    let real = dir.join("real.svg");
    std::fs::write(&real, "old").unwrap();
    let link = dir.join("link.svg");
    std::os::unix::fs::symlink("real.svg", &link).unwrap();
    let out = odds(&link);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(std::fs::read_to_string(&real).unwrap().starts_with("<svg"));
    // A dangling link makes the file it names.
    let dangling = dir.join("dangling.svg");
    std::os::unix::fs::symlink("made.svg", &dangling).unwrap();
    assert_eq!(odds(&dangling).status.code(), Some(0));
    assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
    assert!(std::fs::read_to_string(dir.join("made.svg")).unwrap().starts_with("<svg"));

    // A device is written in place, never replaced: /dev/full says so and fails.
    let out = odds(std::path::Path::new("/dev/full"));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("/dev/full") && err.contains("No space left"), "{err}");
    assert!(!std::fs::metadata("/dev/full").unwrap().is_file());
    // A FIFO with a reader gets the chart through it, and stays a FIFO.
    let fifo = dir.join("fifo.svg");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let out = odds(&fifo);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(reader.join().unwrap().starts_with("<svg"));
    assert!(!std::fs::metadata(&fifo).unwrap().is_file());

    // A folder where no file can be made is refused before any run.
    let started = std::time::Instant::now();
    let out = bin()
        .args([
            "sim",
            "starleader.to_hit",
            "--set",
            "weapon=Ghazi 10/7",
            "--runs",
            "20000000",
            "--chart",
            "/proc/x.svg",
        ])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write the chart to /proc/x.svg"), "{err}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "refused only after the runs"
    );

    // The longest legal name.
    let long = dir.join(format!("{}.svg", "c".repeat(250)));
    let out = odds(&long);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&long).unwrap().starts_with("<svg"));
    // Nothing temporary is left behind.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A rules folder of one system `hostile`, from `text`.
fn rules_dir(name: &str, text: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    std::fs::create_dir_all(dir.join("hostile")).unwrap();
    std::fs::write(
        dir.join("hostile/h.rules"),
        format!("system hostile \"Hostile\" cite \"H\"\n{text}"),
    )
    .unwrap();
    dir
}

/// Runs `rulebook ARGS --rules DIR`, the folder last.
fn with_rules(dir: &std::path::Path, args: &[&str]) -> Output {
    bin().args(args).arg("--rules").arg(dir).output().unwrap()
}

/// A record type that contains itself passed `check`, then every verb died of a stack overflow
/// (exit 134). It is E0502 now, and so is every verb's refusal.
#[test]
fn a_record_that_contains_itself_is_refused_by_check_and_every_verb() {
    let dir = rules_dir(
        "recursive",
        "record node \"N\" [1] {\n  name: text,\n  next: node?,\n}\nresolver r \"R\" [1] {\n  in n: node? = none\n  out x: int = 0\n}\n",
    );
    for args in [vec!["check"], vec!["list"], vec!["roll", "hostile.r"], vec!["odds", "hostile.r"]] {
        let out = with_rules(&dir, &args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("E0502") && err.contains("record `node` contains itself: node → node"),
            "{args:?}: {err}"
        );
        assert!(err.contains("h.rules:4:9"), "{args:?}: the field that closes the circle: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A chain of 1,000 resolvers each calling the next passed `check`, then `odds` and `diff` died of
/// a stack overflow. Past 32 it is E0503, at the call that makes the chain too long.
#[test]
fn a_long_chain_of_calls_is_refused_by_check() {
    let mut rules = String::from("resolver c0 \"C\" [1] {\n  out x: int\n  set x = 1\n}\n");
    for i in 1..1000 {
        rules.push_str(&format!(
            "resolver c{i} \"C\" [1] {{\n  out x: int\n  call y = c{}()\n  set x = y.x\n}}\n",
            i - 1
        ));
    }
    let dir = rules_dir("chain", &rules);
    for args in [vec!["check"], vec!["odds", "hostile.c999"]] {
        let out = with_rules(&dir, &args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("E0503") && err.contains("a chain of 33 resolvers"), "{args:?}: {err}");
        assert_eq!(err.matches("E0503").count(), 1, "{args:?}: once: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Three nested `repeat up to 100000` ran 10^15 steps: `roll`, `sim`, `diff --all` and `odds
/// --budget 5` itself never answered. The step limit stops each, naming the loop's rules line.
#[test]
fn nested_loops_stop_at_the_step_limit_in_every_verb() {
    let dir = rules_dir(
        "loops",
        "resolver spin \"Spin\" [1] {\n  out n: int = 0\n  var k = 0\n  repeat up to 100000 {\n    repeat up to 100000 {\n      repeat up to 100000 {\n        k = k + 1\n      }\n    }\n  }\n  set n = k\n}\n",
    );
    // The same loops with another default output, for `diff --all` to find changed and run.
    let lower = dir.join("lower");
    std::fs::create_dir_all(lower.join("hostile")).unwrap();
    let moved = std::fs::read_to_string(dir.join("hostile/h.rules"))
        .unwrap()
        .replacen("out n: int = 0", "out n: int = 1", 1);
    std::fs::write(lower.join("hostile/h.rules"), moved).unwrap();
    let (d, l) = (dir.to_str().unwrap(), lower.to_str().unwrap());
    let runs: [&[&str]; 4] = [
        &["roll", "hostile.spin", "--rules", d],
        &["sim", "hostile.spin", "--runs", "2", "--rules", d],
        &["odds", "hostile.spin", "--budget", "5", "--rules", d],
        &["diff", l, d, "--all", "--budget", "5"],
    ];
    for args in runs {
        let started = std::time::Instant::now();
        let out = bin().args(args).output().unwrap();
        let (out_text, err) = (text(&out.stdout), text(&out.stderr));
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "{args:?} took {:?}",
            started.elapsed()
        );
        let said = format!("{out_text}{err}");
        // `diff` lists the resolver as not compared, the reason cut to its start.
        let named = args[0] == "diff" || said.contains("/hostile/h.rules:7:7 in hostile.spin");
        assert!(
            (said.contains("took more than 10000000 steps") || said.contains("stopped after 5 s at the loop at")) && named,
            "{args:?}: {said}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A list that doubles aborted the process ("memory allocation of 1073741824 bytes failed"); a
/// computed `(n)d6` of 65535 dice was thrown (the docs say at most 1000), keeping every face.
#[test]
fn lists_and_dice_have_a_ceiling_at_run_time() {
    let dir = rules_dir(
        "grow",
        "resolver grow \"Grow\" [1] {\n  out n: int = 0\n  var xs: list of int = [1]\n  repeat up to 60 {\n    xs = xs + xs\n  }\n  set n = count(x in xs: x == 1)\n}\n\
         resolver many \"Many\" [1] {\n  in n: int 1..65535 = 65535\n  out total: int = 0\n  var c = 1\n  repeat up to 1 {\n    c = n\n  }\n  roll t = (c)d6 reroll 1 \"many\" [1]\n  set total = t\n}\n",
    );
    for (args, want) in [
        (["roll", "hostile.grow"], "a list grew past 100000 items"),
        (["roll", "hostile.many"], "a throw has at most 1000 dice"),
    ] {
        let out = with_rules(&dir, &args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same failure exited 1 in `roll` and `odds` but 2 in `sim`, as "the inputs: division by zero".
#[test]
fn a_failure_of_the_rules_exits_alike_in_every_verb() {
    let dir = rules_dir(
        "div",
        "resolver split \"Split\" [1] {\n  in b: int 0..5 = 1\n  out v: int = 0\n  var d = 1\n  repeat up to 1 {\n    d = b - 1\n  }\n  set v = 10 % d\n}\n",
    );
    let mut said = Vec::new();
    for verb in ["roll", "odds", "sim"] {
        let out = with_rules(&dir, &[verb, "hostile.split"]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{verb}: {err}");
        // Where the rules raised it (issue 40): the statement, its line, resolver and rule.
        let at = format!("error: division by zero at {}:9:3\n", dir.join("hostile/h.rules").display());
        assert!(err.starts_with(&at), "{verb}: {err}");
        assert!(err.contains(" 9 │   set v = 10 % d\n"), "{verb}: {err}");
        assert!(err.contains("raised here, in hostile.split [H 1]"), "{verb}: {err}");
        said.push(err);
    }
    assert!(said.iter().all(|e| *e == said[0]), "{said:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run-time error said `error: division by zero` and no more (issue 40): where, in which
/// resolver, under which rule and through which calls, for people and, with `--json`, for scripts.
#[test]
fn a_runtime_error_says_where_the_rules_raised_it() {
    let dir = rules_dir(
        "where",
        "resolver split \"Split\" [1] {\n  in b: int 0..5 = 1\n  out v: int = 0\n  var d = 1\n  repeat up to 1 {\n    d = b - 1\n  }\n  set v = 10 % d [2]\n}\n\
         resolver outer \"Outer\" [3] {\n  in b: int 0..5 = 1\n  out v: int = 0\n  call s = split(b: b)\n  set v = s.v\n}\n",
    );
    let out = with_rules(&dir, &["roll", "hostile.outer", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = dir.join("hostile/h.rules").display().to_string();
    assert_eq!(
        doc,
        serde_json::json!({"error": {
            "message": "division by zero",
            "resolver": "hostile.split",
            "at": format!("{file}:9:3"),
            "file": file,
            "line": 9,
            "column": 3,
            "cite": "H 2",
            "calls": ["hostile.outer", "hostile.split"],
        }})
    );
    let err = text(&out.stderr);
    assert!(err.contains("raised here, in hostile.split [H 2]"), "{err}");
    assert!(
        err.contains("help: the calls that led here: hostile.outer → hostile.split"),
        "{err}"
    );
    // A failed `require` lists its failures, each with its own place.
    let dir = rules_dir(
        "where-require",
        "resolver r \"R\" [1] {\n  in a: int 0..9 = 0\n  out v: int = 0\n  require a > 0 else \"a is {a}\" [2]\n  require a > 1 else \"a is below 2\" [3]\n  set v = a\n}\n",
    );
    let out = with_rules(&dir, &["odds", "hostile.r", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = dir.join("hostile/h.rules").display().to_string();
    assert_eq!(doc["error"]["at"], format!("{file}:5:3"));
    assert_eq!(doc["error"]["cite"], "H 2");
    assert_eq!(
        doc["error"]["violations"],
        serde_json::json!([
            {"cite": "H 2", "message": "a is 0", "at": format!("{file}:5:3")},
            {"cite": "H 3", "message": "a is below 2", "at": format!("{file}:6:3")},
        ])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The run-time error README.md and docs/dsl.md show (in a `text` block, as it exits 1) is what
/// `rulebook` prints, line for line.
#[test]
fn the_runtime_error_the_docs_show_is_the_one_printed() {
    let command = "$ rulebook roll striker.gravity_movement --set rate_cm=10 --set gravity=0";
    let out = bin()
        .args(["roll", "striker.gravity_movement", "--set", "rate_cm=10", "--set", "gravity=0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let printed = text(&out.stderr);
    for doc in ["README.md", "docs/dsl.md"] {
        let body = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(doc)).unwrap();
        let shown: Vec<&str> = body
            .lines()
            .skip_while(|l| *l != command)
            .skip(1)
            .take_while(|l| !l.starts_with("```"))
            .collect();
        assert!(shown.len() > 5, "{doc} shows no output for `{command}`");
        assert_eq!(printed.trim_end(), shown.join("\n"), "{doc}");
    }
}

/// `--observed` on a procedure where nothing ended said "did you mean ?"; a `diff` whose sides
/// declare different inputs did not say which side refused them.
#[test]
fn messages_say_what_went_wrong_and_where() {
    let out = bin()
        .args([
            "odds",
            "mercenary.battle_step",
            "--input",
            "examples/mercenary-two-a-side.yaml",
            "--until",
            "ended",
            "--rounds",
            "1",
        ])
        .args(["--observed", "result=win"])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--observed result=win: no outcome ended") && !err.contains("did you mean ?"),
        "{err}"
    );

    let old = rules_dir(
        "side-old",
        "resolver r \"R\" [1] {\n  in x: int 0..9 = 0\n  out y: int = 0\n  set y = x\n}\n",
    );
    let new = rules_dir(
        "side-new",
        "resolver r \"R\" [1] {\n  in z: int 0..9 = 0\n  out y: int = 0\n  set y = z\n}\n",
    );
    let out = bin()
        .arg("diff")
        .args([&old, &new])
        .args(["hostile.r", "--set", "x=1"])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`x`") && err.contains(&format!("(in {})", new.display())), "{err}");
    let _ = std::fs::remove_dir_all(&old);
    let _ = std::fs::remove_dir_all(&new);
}

/// The deepest resolution `check` accepts (32 calls, each inside 46 nested blocks) runs in every
/// verb: the command line resolves on threads with `rt::RESOLUTION_STACK` of stack (the 8 MiB of
/// the main thread and the 2 MiB of a spawned one were too little for this debug build).
#[test]
fn the_deepest_resolution_check_accepts_runs_in_every_verb() {
    let (open, close) = ("if a >= 0 {\n".repeat(46), "}\n".repeat(46));
    let mut rules =
        String::from("resolver c0 \"C\" [1] {\n  in a: int 0..1 = 1\n  out x: int = 0\n  roll d = 1d2 \"d\" [1]\n  set x = d\n}\n");
    for i in 1..32 {
        rules.push_str(&format!(
            "resolver c{i} \"C\" [1] {{\n  in a: int 0..1 = 1\n  out x: int = 0\n{open}call y = c{}(a: a)\nset x = y.x + 1\n{close}}}\n",
            i - 1
        ));
    }
    let dir = rules_dir("deepest", &rules);
    for args in [
        vec!["roll", "hostile.c31", "--seed", "3"],
        vec!["odds", "hostile.c31"],
        vec!["sim", "hostile.c31", "--runs", "50", "--threads", "2"],
    ] {
        let out = with_rules(&dir, &args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains("32"), "{args:?}: {}", text(&out.stdout));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `(i64::MIN) % -1` said "division by zero"; its remainder, 0, fits.
#[test]
fn the_remainder_of_the_least_number_by_minus_one_is_zero() {
    let dir = rules_dir(
        "rem",
        "resolver m \"M\" [1] {\n  in a: int 0..1 = 0\n  out v: int = 1\n  var x = a\n  repeat up to 1 {\n    x = x - 9223372036854775807 - 1\n  }\n  set v = x % -1\n}\n",
    );
    let out = with_rules(&dir, &["roll", "hostile.m", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["outcome"]["v"], 0, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `sim --until … --rounds 100000` with the default 1,000 runs said nothing for 59 s: its first
/// batch was every run. Long runs are now timed over a first batch of at most half a second, and
/// the estimate of the rest comes then.
#[test]
fn a_simulation_of_long_runs_says_how_long_at_once() {
    use std::io::BufRead;
    let dir = rules_dir(
        "slow",
        "resolver slow \"Slow\" [1] {\n  out n: int = 0\n  var k = 0\n  repeat up to 100000 {\n    repeat up to 4 {\n      k = k + 1\n    }\n  }\n  set n = k\n}\n",
    );
    let started = std::time::Instant::now();
    let mut child = bin()
        .args(["sim", "hostile.slow", "--threads", "1", "--rules"])
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let first = std::io::BufReader::new(stderr)
        .lines()
        .next()
        .and_then(Result::ok)
        .unwrap_or_default();
    let took = started.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    assert!(first.starts_with("1000 runs: about ") && first.contains("runs/s"), "{first}");
    assert!(took < std::time::Duration::from_secs(30), "the estimate came after {took:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
