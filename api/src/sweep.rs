//! Sweeps for the bindings: `Registry::sweep` is `rulebook sweep --json` (the grid, shards,
//! parallel work and document of `rt::sweep`, which the command line uses too), and
//! `merge_sweeps` is `rulebook merge --json`, so shards computed anywhere (a Dask cluster's
//! workers) join into what one run gives, byte for byte.

use crate::api::{ApiError, Registry, Result};
use rt::sweep::Grid;
use rulebook_runtime as rt;
use rulebook_runtime::json;

/// Most worker threads one sweep starts (the command line's limit).
pub const MAX_THREADS: usize = 1024;

impl Registry {
    /// `rulebook sweep RESOLVER --vary NAME=VALUES... --json`: the exact odds at every point of
    /// the grid, each point's inputs the JSON inputs (`inputs_json`, `""` for none) with the varied
    /// values bound as `--set NAME=VALUE` binds them. `vary` values are the command line's specs
    /// (`LO..HI`, `A,B,C`, `all`); `fields` is `--field` (empty: whole outcomes); `shard` is
    /// `--shard I/N`; `threads` 0 is every core; a point past `budget_seconds` is reported with
    /// its `error`. Invalid names and values are refused before any work.
    #[allow(clippy::too_many_arguments)]
    pub fn sweep(
        &self,
        resolver: &str,
        vary: &[(String, String)],
        inputs_json: &str,
        fields: &[String],
        shard: Option<(usize, usize)>,
        threads: usize,
        budget_seconds: u64,
    ) -> Result<String> {
        let (s, r) = self.find(resolver)?;
        let keep = chosen_fields(r, fields)?;
        if vary.is_empty() {
            return Err(ApiError("a sweep needs at least one varied input (--vary NAME=VALUES)".into()));
        }
        let grid = Grid::new(r, vary).map_err(ApiError)?;
        let (part, parts) = shard.unwrap_or((1, 1));
        if part == 0 || part > parts {
            return Err(ApiError(format!(
                "--shard: expected I/N with 1 <= I <= N (e.g. 2/4), got `{part}/{parts}`"
            )));
        }
        if budget_seconds == 0 {
            return Err(ApiError("--budget: a point needs at least 1 second".into()));
        }
        if threads > MAX_THREADS {
            return Err(ApiError(format!("--threads: 1 to {MAX_THREADS} (0 for every core), not {threads}")));
        }
        let text = if inputs_json.trim().is_empty() { "{}" } else { inputs_json };
        let given = given_names(text);
        let names: Vec<String> = grid.axes.iter().map(|(n, _)| n.clone()).collect();
        for (i, (name, spec)) in vary.iter().enumerate() {
            if let Some((_, first)) = vary[..i].iter().find(|(n, _)| rt::normalize(n) == rt::normalize(name)) {
                return Err(ApiError(format!(
                    "`{name}` is set twice (`{first}`, then `{spec}`); give each input once"
                )));
            }
            if let Some(g) = given.iter().find(|g| rt::normalize(g) == rt::normalize(name)) {
                return Err(ApiError(format!(
                    "`{name}` is both varied and given in the inputs (`{g}`); give each input once"
                )));
            }
        }
        // Every point's inputs bound first: a value that does not fit is refused before any work.
        let mut points = Vec::new();
        for index in grid.shard(part, parts) {
            let values = grid.point(index);
            let sets: Vec<(String, String)> = names.iter().cloned().zip(values.iter().cloned()).collect();
            points.push((index, values, rt::bind_json_sets(r, text, &sets)?));
        }
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        // As `rulebook sweep`: with one field, a point out of reach of exact odds is simulated.
        let fallback = match keep.as_deref() {
            Some([field]) => Some(rt::sweep::Fallback {
                field,
                runs: rt::sweep::FALLBACK_RUNS,
            }),
            _ => None,
        };
        let mut cells = rt::sweep::compute(r, &points, threads, budget_seconds, fallback, &|| {});
        if let Some(keep) = &keep {
            rt::sweep::keep_fields(&mut cells, keep);
        }
        let doc = rt::sweep::json_doc(&format!("{}.{}", s.name, r.name), &grid, &cells);
        Ok(json::pretty(&doc)?)
    }
}

/// The names given in the inputs JSON (none when it is not an object: binding says why).
fn given_names(text: &str) -> Vec<String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(m)) => m.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// `--field`: the outputs kept, in the resolver's order, or a mistake named with the nearest.
fn chosen_fields(r: &rt::ResolverInfo, asked: &[String]) -> Result<Option<Vec<&'static str>>> {
    if asked.is_empty() {
        return Ok(None);
    }
    let names: Vec<&'static str> = r.outputs.iter().map(|o| o.name).collect();
    for a in asked {
        if !names.contains(&a.as_str()) {
            let near = rt::names::nearest(a, &names, 3);
            let hint = if near.is_empty() { names.join(", ") } else { near.join(" or ") };
            return Err(ApiError(format!("--field: `{}` has no output `{a}`; did you mean {hint}?", r.name)));
        }
    }
    Ok(Some(names.into_iter().filter(|n| asked.iter().any(|a| a == n)).collect()))
}

/// `rulebook merge --json`: the JSON documents of a sweep's shards, in any order, joined into the
/// document one run writes (points sorted by number). Documents of different sweeps (another
/// resolver, varied inputs or grid) are refused, naming the first that differs (1-based).
pub fn merge_sweeps(docs: &[String]) -> Result<String> {
    if docs.is_empty() {
        return Err(ApiError("no shards to merge".into()));
    }
    let mut merged: Option<serde_json::Value> = None;
    let mut points = Vec::new();
    for (i, text) in docs.iter().enumerate() {
        let n = i + 1;
        let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| ApiError(format!("shard {n}: not JSON: {e}")))?;
        let Some(ps) = doc["points"].as_array() else {
            return Err(ApiError(format!("shard {n}: not the JSON of `sweep --json`")));
        };
        points.extend(ps.iter().cloned());
        let same = |m: &serde_json::Value| ["resolver", "vary", "grid_points"].iter().all(|k| m[k] == doc[k]);
        match &merged {
            Some(m) if !same(m) => return Err(ApiError(format!("shard {n}: not a shard of the same sweep"))),
            _ => merged = Some(doc),
        }
    }
    points.sort_by_key(|p| p["point"].as_u64());
    let mut doc = merged.unwrap_or_default();
    doc["points"] = serde_json::Value::Array(points);
    Ok(json::pretty(&doc)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    fn vary() -> Vec<(String, String)> {
        vec![
            ("weapon".into(), "Jaffna 9/4,Ghazi 10/7".into()),
            ("range_hexes".into(), "0..3".into()),
        ]
    }

    const FIXED: &str = r#"{"target_size": 1}"#;

    #[test]
    fn each_point_is_the_odds_of_its_inputs() {
        let reg = Registry::builtin().unwrap();
        let fields = vec!["result".to_string()];
        let v = doc(&reg.sweep("starleader.to_hit", &vary(), FIXED, &fields, None, 2, 60).unwrap());
        assert_eq!(v["resolver"], "starleader.to_hit");
        assert_eq!(v["vary"], serde_json::json!(["weapon", "range_hexes"]));
        assert_eq!(v["grid_points"], 8);
        let points = v["points"].as_array().unwrap();
        assert_eq!(points.len(), 8);
        let mut hit_odds = Vec::new();
        for (i, p) in points.iter().enumerate() {
            assert_eq!(p["point"], i);
            let weapon = ["Jaffna 9/4", "Ghazi 10/7"][i / 4];
            let range = i % 4;
            assert_eq!(p["inputs"], serde_json::json!({"weapon": weapon, "range_hexes": range.to_string()}));
            let inputs = format!(r#"{{"weapon": "{weapon}", "range_hexes": {range}, "target_size": 1}}"#);
            let odds = doc(&reg.odds("starleader.to_hit", &inputs).unwrap());
            // The odds' outcomes summed by `result` (the sweep keeps only that field).
            let mut want: Vec<(serde_json::Value, (u128, u128))> = Vec::new();
            for o in odds["outcomes"].as_array().unwrap() {
                let key = serde_json::json!({"result": o["outcome"]["result"]});
                let p = frac(o["probability"].as_str().unwrap());
                match want.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, sum)) => *sum = add(*sum, p),
                    None => want.push((key, p)),
                }
            }
            let got: Vec<(serde_json::Value, (u128, u128))> = p["outcomes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| (o["outcome"].clone(), frac(o["probability"].as_str().unwrap())))
                .collect();
            want.sort_by_key(|(k, _)| k.to_string());
            let mut got_sorted = got.clone();
            got_sorted.sort_by_key(|(k, _)| k.to_string());
            assert_eq!(got_sorted, want, "point {i}");
            hit_odds.push(got.iter().find(|(k, _)| k["result"] == "hit").map(|(_, p)| *p));
        }
        // The grid is not one point repeated: the odds move with the weapon or the range.
        hit_odds.dedup();
        assert!(hit_odds.len() > 1, "{hit_odds:?}");
    }

    #[test]
    fn shards_partition_the_grid_and_merge_into_one_run() {
        let reg = Registry::builtin().unwrap();
        let whole = reg.sweep("starleader.to_hit", &vary(), FIXED, &[], None, 1, 60).unwrap();
        let shards: Vec<String> = (1..=3)
            .map(|i| reg.sweep("starleader.to_hit", &vary(), FIXED, &[], Some((i, 3)), 1, 60).unwrap())
            .collect();
        let numbers: Vec<Vec<u64>> = shards
            .iter()
            .map(|s| {
                doc(s)["points"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p["point"].as_u64().unwrap())
                    .collect()
            })
            .collect();
        assert_eq!(numbers, [vec![0, 3, 6], vec![1, 4, 7], vec![2, 5]]);
        let mut reversed = shards.clone();
        reversed.reverse();
        assert_eq!(merge_sweeps(&reversed).unwrap(), whole);
        let other = reg
            .sweep("starleader.to_hit", &vary()[..1], FIXED, &[], Some((1, 3)), 1, 60)
            .unwrap();
        assert_eq!(
            merge_sweeps(&[shards[0].clone(), other]).unwrap_err().0,
            "shard 2: not a shard of the same sweep"
        );
        assert!(merge_sweeps(&["[]".into()])
            .unwrap_err()
            .0
            .contains("not the JSON of `sweep --json`"));
    }

    #[test]
    fn mistakes_are_refused_before_any_work() {
        let reg = Registry::builtin().unwrap();
        let e = reg
            .sweep("starleader.to_hit", &vary(), FIXED, &["reslt".into()], None, 1, 60)
            .unwrap_err()
            .0;
        assert!(e.starts_with("--field: `to_hit` has no output `reslt`; did you mean"), "{e}");
        let bad = vec![("wepon".to_string(), "all".to_string())];
        let e = reg.sweep("starleader.to_hit", &bad, FIXED, &[], None, 1, 60).unwrap_err().0;
        assert!(e.starts_with("--vary wepon: to_hit has no input `wepon`"), "{e}");
        let e = reg
            .sweep("starleader.to_hit", &vary(), r#"{"weapon": "Ghazi 10/7"}"#, &[], None, 1, 60)
            .unwrap_err()
            .0;
        assert!(e.contains("both varied and given"), "{e}");
        let e = reg
            .sweep("starleader.to_hit", &vary(), FIXED, &[], Some((4, 3)), 1, 60)
            .unwrap_err()
            .0;
        assert!(e.starts_with("--shard"), "{e}");
        let range = vec![
            ("weapon".to_string(), "Ghazi 10/7".to_string()),
            ("range_hexes".to_string(), "far".to_string()),
        ];
        let e = reg.sweep("starleader.to_hit", &range, FIXED, &[], None, 1, 60).unwrap_err().0;
        assert!(e.contains("range_hexes") && e.contains("far"), "{e}");
    }

    fn frac(s: &str) -> (u128, u128) {
        let (n, d) = s.split_once('/').unwrap_or((s, "1"));
        (n.parse().unwrap(), d.parse().unwrap())
    }

    fn add(a: (u128, u128), b: (u128, u128)) -> (u128, u128) {
        fn gcd(a: u128, b: u128) -> u128 {
            if b == 0 {
                a
            } else {
                gcd(b, a % b)
            }
        }
        let (n, d) = (a.0 * b.1 + b.0 * a.1, a.1 * b.1);
        let g = gcd(n, d);
        (n / g, d / g)
    }
}
