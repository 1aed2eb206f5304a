//! A driver for profiling the interpreter alone, without building the compiled rules: it loads a
//! rules folder, binds a resolver's inputs from a YAML file, runs it with seeds 1..=RUNS and
//! prints the runs a second. Run it under `perf record` or callgrind.
//!   cargo run --release -p rulebook-interp --example profile -- rules-src mercenary.battle \
//!       examples/mercenary-infantry-clash.yaml 2000

use rulebook_runtime::{self as rt, NoTrace, Seeded};
use std::path::Path;
use std::time::Instant;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, path, input, runs] = args.as_slice() else {
        return Err("usage: profile DIR SYSTEM.RESOLVER INPUT.yaml RUNS".into());
    };
    let runs: u64 = runs.parse()?;
    let rules = rulebook_interp::Rules::load(Path::new(dir)).map_err(|e| e.to_string())?;
    let (_, r) = rt::find_resolver(rules.systems(), path)?;
    let yaml: serde_yaml::Value = serde_yaml::from_str(&std::fs::read_to_string(input)?)?;
    let inputs = rt::bind_inputs(r, &[], Some(&yaml))?;
    let start = Instant::now();
    let mut digest = 0u64;
    for seed in 1..=runs {
        let out = r.run_quiet(&mut Seeded::new(seed), &mut NoTrace, &inputs)?;
        let mut h = std::hash::DefaultHasher::new();
        std::hash::Hash::hash(&out.to_string(), &mut h);
        digest = digest.wrapping_mul(31).wrapping_add(std::hash::Hasher::finish(&h));
    }
    let secs = start.elapsed().as_secs_f64();
    println!("{runs} runs in {secs:.3} s: {:.0} runs/s (digest {digest})", runs as f64 / secs);
    Ok(())
}
