//! Forgiving name matching shared by input binding and the registry: key folding (`normalize`)
//! and "did you mean" suggestions (`nearest`) on integer edit distances.

/// Canonical form for forgiving name comparison: lowercase, and every run of spaces, hyphens,
/// dots and underscores becomes one space ("Ghazi-10/7" == "ghazi 10/7", "snap-fire" ==
/// "snap_fire").
pub fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_sep = false;
    for c in s.chars() {
        if c.is_whitespace() || matches!(c, '-' | '.' | '_') {
            pending_sep = !out.is_empty();
        } else {
            if pending_sep {
                out.push(' ');
                pending_sep = false;
            }
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// Lowercase letters and digits, every run of anything else one space: the form in which two
/// names differ only by punctuation.
fn loose(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_sep = false;
    for c in s.chars() {
        if c.is_alphanumeric() {
            if pending_sep {
                out.push(' ');
                pending_sep = false;
            }
            out.extend(c.to_lowercase());
        } else {
            pending_sep = !out.is_empty();
        }
    }
    out
}

/// Up to `limit` candidates close to `query`, best first. "Close" means the normalized candidate
/// contains the normalized query, or their Damerau-Levenshtein distance is at most about a third
/// of the longer name and not much worse than the best match (at most twice the best distance
/// plus one), so one obvious typo fix is not buried among loosely similar names. When nothing
/// is close and there are few candidates (at most twice the limit), all of them are returned so
/// the user still sees the valid choices. Integer distances only, ties broken by name, so
/// suggestions are deterministic.
///
/// A candidate that differs from the query only in its punctuation (`Ghazi 10-7` for `Ghazi 10/7`:
/// `normalize` keeps `/`, since `6/-3` and `6/3` are different weapons) is the one meant: when
/// there are such candidates, they alone are returned.
pub fn nearest(query: &str, candidates: &[&str], limit: usize) -> Vec<String> {
    let loose_q = loose(query);
    let mut same: Vec<&str> = candidates
        .iter()
        .copied()
        .filter(|c| !loose_q.is_empty() && loose(c) == loose_q)
        .collect();
    if !same.is_empty() {
        same.sort_by_key(|c| (strsim::damerau_levenshtein(query, c), *c));
        same.dedup();
        return same.into_iter().take(limit).map(str::to_string).collect();
    }
    let q = normalize(query);
    // (not contained, distance, candidate, close by distance)
    let mut scored: Vec<(bool, usize, &str, bool)> = Vec::new();
    for &c in candidates {
        if scored.iter().any(|&(_, _, s, _)| s == c) {
            continue;
        }
        let n = normalize(c);
        let dist = strsim::damerau_levenshtein(&q, &n);
        let longest = q.chars().count().max(n.chars().count());
        let contained = !q.is_empty() && n.contains(&q);
        scored.push((!contained, dist, c, dist * 3 <= longest + 1));
    }
    let best = scored.iter().filter(|s| s.3).map(|s| s.1).min();
    let is_close = |s: &(bool, usize, &str, bool)| !s.0 || (s.3 && best.is_some_and(|b| s.1 <= 2 * b + 1));
    scored.sort();
    if scored.iter().any(is_close) {
        return scored.iter().filter(|s| is_close(s)).take(limit).map(|s| s.2.to_string()).collect();
    }
    if scored.len() > limit.saturating_mul(2) {
        return Vec::new();
    }
    scored.into_iter().map(|s| s.2.to_string()).collect()
}
