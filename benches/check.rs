//! The `check` pipeline over all rules: `check/check_dir` = IO (load_dir) + parse + check;
//! `check/compile_sources` = parse + check on sources already in memory; `check_scaling/N` =
//! parse + check of a generated system of N resolvers (issue 14: the time per resolver should
//! stay flat as N grows; it grew with the file size when line numbers rescanned the text).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rulebook_compiler::check::SourceFile;
use rulebook_compiler::driver;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("rules-src")
}

fn bench_check(c: &mut Criterion) {
    let root = root();
    let first = driver::check_dir(&root).expect("rules-src readable");
    assert_eq!(first.errors(), 0, "rules have errors:\n{}", first.render());
    assert!(first.program.is_some());
    let (sources, _, problems) = driver::load_dir(&root);
    assert!(problems.is_empty(), "{problems:?}");
    eprintln!(
        "check: {} files, {} bytes",
        sources.len(),
        sources.iter().map(|s| s.text.len()).sum::<usize>()
    );

    let mut group = c.benchmark_group("check");
    group.bench_function("check_dir", |b| {
        b.iter(|| driver::check_dir(&root).map(|c| c.diagnostics.len()).unwrap_or(usize::MAX))
    });
    group.bench_function("compile_sources", |b| {
        // SourceFile is not Clone: copy the preloaded texts in the (untimed) batch setup.
        let copy = || -> Vec<SourceFile> {
            sources
                .iter()
                .map(|s| SourceFile {
                    path: s.path.clone(),
                    text: s.text.clone(),
                    system: s.system.clone(),
                })
                .collect()
        };
        // PerIteration: one copy at a time (ms-scale routine, so the per-iteration timing overhead is
        // negligible) and the Compiled result is dropped inside the timing, as in check_dir.
        b.iter_batched(copy, |s| driver::compile_sources(s).diagnostics.len(), BatchSize::PerIteration)
    });
    group.finish();
}

/// One file of `n` small resolvers (as `rulebook check` sees a generated folder).
fn generated(n: usize) -> Vec<SourceFile> {
    let mut text = String::from("system big \"Big\"\n");
    for i in 0..n {
        text.push_str(&format!(
            "resolver r{i} \"R{i}\" [1] {{\n  in a: int 0..9\n  out x: int\n  let v = a + {}\n  set x = v * 2\n}}\n\n",
            i % 7
        ));
    }
    vec![SourceFile {
        path: "big/big/a.rules".into(),
        text,
        system: "big".into(),
    }]
}

fn bench_scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("check_scaling");
    group.sample_size(10);
    for n in [1000, 4000] {
        group.throughput(criterion::Throughput::Elements(n as u64));
        group.bench_function(n.to_string(), |b| {
            b.iter_batched(
                || generated(n),
                |s| driver::compile_sources(s).diagnostics.len(),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench_check, bench_scaling);
criterion_main!(benches);
