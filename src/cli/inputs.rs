//! Shared `--set NAME=VALUE` / `--input FILE.yaml` handling for `roll` and `odds`: reading the
//! file, binding through the runtime, and showing bound inputs in declaration order.

use super::CliError;
use clap::Args;
use rulebook_runtime as rt;
use std::path::PathBuf;

#[derive(Args, Clone, Debug, Default)]
pub struct InputArgs {
    /// Set an input, e.g. --set target_size=1 --set weapon="Ghazi 10/7" (repeatable; lists are
    /// comma-separated; overrides --input)
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
    pub sets: Vec<(String, String)>,
    /// Read inputs from a YAML mapping of input names to values
    #[arg(long, value_name = "FILE.yaml")]
    pub input: Option<PathBuf>,
}

/// `NAME=VALUE`; the value may itself contain '='.
pub fn parse_set(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_string(), value.to_string())),
        _ => Err(format!("expected NAME=VALUE, got `{s}`")),
    }
}

/// Reads and parses the YAML input file, naming the file (and line, when YAML is malformed).
/// Largest `--input` file read: far above any battle, far below what would exhaust memory.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

pub fn read_yaml(path: &std::path::Path) -> Result<serde_yaml::Value, CliError> {
    let cannot = |e: std::io::Error| CliError::usage(format!("cannot read input file {}: {e}", path.display()));
    let bytes = rulebook_compiler::driver::read_capped(path, MAX_INPUT_BYTES)
        .map_err(cannot)?
        .map_err(|_| {
            CliError::usage(format!(
                "input file {} is more than the limit of {} MiB for an input file",
                path.display(),
                MAX_INPUT_BYTES / (1024 * 1024)
            ))
        })?;
    let text = String::from_utf8(bytes).map_err(|e| cannot(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
    rt::parse_yaml(&text).map_err(|e| match e.at {
        Some((line, column)) => CliError::usage(format!(
            "malformed YAML in {} at line {line}, column {column}: {}",
            path.display(),
            e.message
        )),
        None => CliError::usage(format!("malformed YAML in {}: {}", path.display(), e.message)),
    })
}

/// Binds `--set` and `--input` for `r`.
pub fn bind(r: &rt::ResolverInfo, args: &InputArgs) -> Result<rt::Inputs, CliError> {
    // The same input set twice is a mistake to show, not a choice to make silently.
    for (i, (name, value)) in args.sets.iter().enumerate() {
        if let Some((_, first)) = args.sets[..i].iter().find(|(n, _)| rt::normalize(n) == rt::normalize(name)) {
            return Err(CliError::usage(format!(
                "`{name}` is set twice (`{first}`, then `{value}`); give each input once"
            )));
        }
    }
    let yaml = match &args.input {
        Some(path) => Some(read_yaml(path)?),
        None => None,
    };
    let bound = rt::bind_inputs(r, &args.sets, yaml.as_ref());
    match (bound, &args.input) {
        // A mistake in the file is easier to fix when the file is named.
        (Err(e), Some(path)) if e.is_input_error() && !mentions_set(&e, &args.sets) => {
            Err(CliError::usage(format!("{}: {e}", path.display())))
        }
        (bound, _) => Ok(bound?),
    }
}

/// Whether an input error is about a `--set` value rather than the file.
fn mentions_set(e: &rt::Error, sets: &[(String, String)]) -> bool {
    let text = e.to_string();
    sets.iter()
        .any(|(n, v)| text.contains(&format!("`{v}`")) || text.contains(&format!("input {n} ")) || text.ends_with(&format!("input {n}")))
}

/// Inputs as a JSON object in declaration order.
pub fn to_json(r: &rt::ResolverInfo, inputs: &rt::Inputs) -> serde_json::Value {
    rt::json::inputs(r, inputs)
}

/// `name=value` of every input, in declaration order (a chart's subtitle).
pub fn items(r: &rt::ResolverInfo, inputs: &rt::Inputs) -> Vec<String> {
    rt::json::ordered_inputs(r, inputs)
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect()
}

/// "  name = value" lines, names aligned.
pub fn lines(r: &rt::ResolverInfo, inputs: &rt::Inputs) -> String {
    let items = rt::json::ordered_inputs(r, inputs);
    if items.is_empty() {
        return "  (none)\n".to_string();
    }
    let width = items.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
    items.iter().map(|(k, v)| format!("  {} = {v}\n", super::pad(k, width))).collect()
}
