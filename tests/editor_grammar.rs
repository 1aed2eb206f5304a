//! The TextMate grammar `editors/textmate/rules.tmLanguage.json` (also used by the VS Code
//! extension in `editors/vscode/`): it is valid JSON whose every pattern compiles (fancy-regex
//! stands in for Oniguruma), it highlights every word the language reserves (taken from the
//! compiler's `KEYWORDS` and from `grammar/rules.pest`, so the two cannot drift apart), and it
//! gives the expected scopes to real rules text. A small first-match-wins line tokenizer runs it.

use fancy_regex::Regex;
use serde_json::Value;
use std::collections::BTreeSet;

const GRAMMAR: &str = include_str!("../editors/textmate/rules.tmLanguage.json");

fn grammar() -> Value {
    serde_json::from_str(GRAMMAR).unwrap_or_else(|e| panic!("the grammar is not JSON: {e}"))
}

/// One rule of the grammar, includes resolved: a `match`, or a `begin`/`end` region with its
/// own patterns (a region never spans lines in this grammar).
struct Rule {
    name: Option<String>,
    matcher: Option<Regex>,
    begin: Option<Regex>,
    end: Option<Regex>,
    captures: Vec<(usize, String)>,
    begin_captures: Vec<(usize, String)>,
    end_captures: Vec<(usize, String)>,
    patterns: Vec<Rule>,
}

fn regex(src: &str, at: &str) -> Regex {
    Regex::new(src).unwrap_or_else(|e| panic!("{at}: the pattern {src:?} does not compile: {e}"))
}

fn captures(v: &Value) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = v
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, c)| Some((k.parse().ok()?, c["name"].as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// The rules of a `patterns` list, `include`s of the repository expanded (depth-limited: the
/// grammar has no recursive includes).
fn rules(patterns: &Value, repo: &Value, depth: usize) -> Vec<Rule> {
    assert!(depth < 8, "includes nest too deep");
    let mut out = Vec::new();
    for p in patterns.as_array().unwrap_or(&Vec::new()) {
        if let Some(inc) = p["include"].as_str() {
            let key = inc
                .strip_prefix('#')
                .unwrap_or_else(|| panic!("include {inc}: only #repository includes"));
            let item = &repo[key];
            assert!(item.is_object(), "include {inc}: no such repository item");
            out.extend(rules(&item["patterns"], repo, depth + 1));
            continue;
        }
        let at = p["name"].as_str().unwrap_or("(unnamed)").to_string();
        let rule = Rule {
            name: p["name"].as_str().map(String::from),
            matcher: p["match"].as_str().map(|m| regex(m, &at)),
            begin: p["begin"].as_str().map(|m| regex(m, &at)),
            end: p["end"].as_str().map(|m| regex(m, &at)),
            captures: captures(&p["captures"]),
            begin_captures: captures(&p["beginCaptures"]),
            end_captures: captures(&p["endCaptures"]),
            patterns: rules(&p["patterns"], repo, depth + 1),
        };
        assert!(
            rule.matcher.is_some() || (rule.begin.is_some() && rule.end.is_some()),
            "{at}: a rule needs `match`, or `begin` and `end`"
        );
        out.push(rule);
    }
    out
}

fn top_rules() -> Vec<Rule> {
    let g = grammar();
    rules(&g["patterns"], &g["repository"], 0)
}

/// A piece of a line and its scopes, outermost first.
#[derive(Debug, Clone)]
struct Token {
    text: String,
    scopes: Vec<String>,
}

/// A scope name with `$n` replaced by the text of group n, as TextMate does.
fn scope(name: &str, caps: &fancy_regex::Captures) -> String {
    let mut out = name.to_string();
    for i in (1..caps.len()).rev() {
        out = out.replace(&format!("${i}"), caps.get(i).map_or("", |m| m.as_str()));
    }
    out
}

/// Tokens for one match: each captured group its own token with its scope, the rest of the
/// match with `outer` alone (groups do not nest in this grammar).
fn emit(line: &str, caps: &fancy_regex::Captures, names: &[(usize, String)], outer: &[String], out: &mut Vec<Token>) {
    let Some(whole) = caps.get(0) else { return };
    let mut pos = whole.start();
    let mut groups: Vec<(usize, usize, String)> = names
        .iter()
        .filter(|(i, _)| *i > 0)
        .filter_map(|(i, n)| caps.get(*i).map(|m| (m.start(), m.end(), scope(n, caps))))
        .filter(|(s, e, _)| s < e)
        .collect();
    groups.sort();
    let whole_name = names.iter().find(|(i, _)| *i == 0).map(|(_, n)| scope(n, caps));
    let base: Vec<String> = outer.iter().cloned().chain(whole_name).collect();
    for (s, e, n) in groups {
        if s > pos {
            out.push(Token {
                text: line[pos..s].to_string(),
                scopes: base.clone(),
            });
        }
        let mut scopes = base.clone();
        scopes.push(n);
        out.push(Token {
            text: line[s..e].to_string(),
            scopes,
        });
        pos = e;
    }
    if whole.end() > pos {
        out.push(Token {
            text: line[pos..whole.end()].to_string(),
            scopes: base,
        });
    }
}

/// Tokenizes one line: at each position the earliest match wins; at the same position a
/// region's end comes first, then the patterns in order.
fn tokenize<'a>(rules: &'a [Rule], line: &str) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    // Open regions: the rule and its scopes.
    let mut stack: Vec<(&'a Rule, Vec<String>)> = Vec::new();
    let mut pos = 0;
    let mut guard = 0;
    // Each pattern's last match, for the patterns of the innermost open region (or the top).
    let mut cache: Vec<Option<Option<fancy_regex::Captures>>> = Vec::new();
    let mut cached_depth = usize::MAX;
    while pos <= line.len() {
        guard += 1;
        assert!(guard < 10_000, "the tokenizer loops on {line:?}");
        let (patterns, scopes): (&'a [Rule], Vec<String>) = match stack.last() {
            Some((r, s)) => (&r.patterns, s.clone()),
            None => (rules, Vec::new()),
        };
        // (start, end, which: None = the region's end, Some(i) = pattern i, captures)
        let mut best: Option<(usize, Option<usize>)> = None;
        let mut end_caps = None;
        if let Some((r, _)) = stack.last() {
            if let Some(end) = &r.end {
                if let Ok(Some(c)) = end.captures_from_pos(line, pos) {
                    best = Some((c.get(0).map_or(pos, |m| m.start()), None));
                    end_caps = Some(c);
                }
            }
        }
        if cache.len() != patterns.len() || cached_depth != stack.len() {
            cache = (0..patterns.len()).map(|_| None).collect();
            cached_depth = stack.len();
        }
        for (i, p) in patterns.iter().enumerate() {
            // A pattern's leftmost match from an earlier position is still its leftmost match from
            // here when it starts here or later (and no match then means none now).
            let reuse = match &cache[i] {
                Some(None) => true,
                Some(Some(c)) => c.get(0).is_some_and(|m| m.start() >= pos),
                None => false,
            };
            if !reuse {
                let re = p.matcher.as_ref().or(p.begin.as_ref());
                cache[i] = Some(re.and_then(|re| re.captures_from_pos(line, pos).ok().flatten()));
            }
            if let Some(Some(c)) = &cache[i] {
                let start = c.get(0).map_or(pos, |m| m.start());
                if best.as_ref().is_none_or(|b| start < b.0) {
                    best = Some((start, Some(i)));
                }
            }
        }
        let Some((start, which)) = best else {
            if pos < line.len() {
                out.push(Token {
                    text: line[pos..].to_string(),
                    scopes: scopes.clone(),
                });
            }
            break;
        };
        if start > pos {
            out.push(Token {
                text: line[pos..start].to_string(),
                scopes: scopes.clone(),
            });
        }
        let caps = match which {
            None => end_caps.take(),
            Some(i) => cache[i].take().flatten(),
        };
        let Some(caps) = caps else { break };
        let end = caps.get(0).map_or(start, |m| m.end());
        match which {
            None => {
                // A region's end, possibly empty (a lookahead): the outer patterns go on from here.
                if let Some((r, s)) = stack.pop() {
                    emit(line, &caps, &r.end_captures, &s, &mut out);
                }
                pos = end;
            }
            Some(i) => {
                let p = &patterns[i];
                let mut inner = scopes.clone();
                inner.extend(p.name.iter().map(|n| scope(n, &caps)));
                if p.matcher.is_some() {
                    emit(line, &caps, &p.captures, &inner, &mut out);
                } else {
                    emit(line, &caps, &p.begin_captures, &inner, &mut out);
                    stack.push((p, inner));
                }
                if end == start && p.matcher.is_some() {
                    // An empty match opens nothing: step over one character.
                    let next = line[pos..].chars().next().map_or(1, char::len_utf8);
                    out.push(Token {
                        text: line[pos..(pos + next).min(line.len())].to_string(),
                        scopes: scopes.clone(),
                    });
                    pos += next;
                } else {
                    pos = end;
                }
            }
        }
        if pos >= line.len() && stack.is_empty() {
            break;
        }
    }
    out.into_iter().filter(|t| !t.text.is_empty()).collect()
}

/// The scopes of the first token whose text is `text`.
fn scopes_of(tokens: &[Token], text: &str) -> Vec<String> {
    tokens
        .iter()
        .find(|t| t.text == text)
        .map(|t| t.scopes.clone())
        .unwrap_or_else(|| panic!("no token {text:?} in {tokens:#?}"))
}

fn has_scope(tokens: &[Token], text: &str, prefix: &str) -> bool {
    scopes_of(tokens, text).iter().any(|s| s.starts_with(prefix))
}

#[test]
fn the_grammar_is_valid_and_every_pattern_compiles() {
    let g = grammar();
    assert_eq!(g["scopeName"], "source.rules");
    assert!(g["fileTypes"].as_array().is_some_and(|f| f.contains(&Value::from("rules"))));
    let top = top_rules();
    assert!(top.len() >= 20, "{} rules", top.len());
    // Every repository item is used.
    let text = GRAMMAR;
    for key in g["repository"].as_object().unwrap().keys() {
        assert!(text.contains(&format!("\"#{key}\"")), "repository item {key} is never included");
    }
    // Every scope name ends in the language's own suffix.
    fn names(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x) {
                        ("name", Value::String(s)) => out.push(s.clone()),
                        _ => names(x, out),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| names(x, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    names(&g["repository"], &mut all);
    for n in all {
        assert!(n.ends_with(".rules"), "scope {n} does not end in .rules");
    }
}

/// Every word the language reserves: the compiler's `KEYWORDS`, and every word the pest
/// grammar matches literally (statement and table keywords, dice modifiers, totals over a list).
fn reserved_words() -> BTreeSet<String> {
    let mut words: BTreeSet<String> = rulebook_compiler::parse::KEYWORDS.iter().map(|s| s.to_string()).collect();
    let pest = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/grammar/rules.pest")).unwrap();
    let literal = regex(r#""([a-z_]{2,})""#, "literal");
    for line in pest.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for c in literal.captures_iter(line).flatten() {
            if let Some(m) = c.get(1) {
                words.insert(m.as_str().to_string());
            }
        }
    }
    words
}

#[test]
fn every_reserved_word_of_the_language_is_highlighted() {
    let rules = top_rules();
    let words = reserved_words();
    // The lists above really were read: a few words from each.
    for w in [
        "resolver",
        "record",
        "with",
        "columns",
        "explode",
        "keep",
        "sort_desc",
        "policy",
        "where",
    ] {
        assert!(words.contains(w), "{w} missing from {words:?}");
    }
    let highlighted = ["keyword.", "storage.", "constant.language.", "support.function.", "support.type."];
    for w in &words {
        // A word alone, after a die (a dice modifier), or before `(` (a function).
        let contexts = [w.clone(), format!("roll r = 3d6 {w} 2"), format!("{w}(x in xs: x)")];
        let ok = contexts.iter().any(|line| {
            tokenize(&rules, line)
                .iter()
                .any(|t| t.text == *w && t.scopes.iter().any(|s| highlighted.iter().any(|h| s.starts_with(h))))
        });
        assert!(ok, "`{w}` is reserved by the language but the grammar does not highlight it");
    }
}

#[test]
fn real_rules_text_gets_the_expected_scopes() {
    let rules = top_rules();
    // The first lines of a real rules file: a comment, a declaration with a string and a citation.
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rules-src/starleader/system.rules")).unwrap();
    let lines: Vec<&str> = src.lines().collect();
    let comment = tokenize(&rules, lines[0]);
    assert_eq!(comment.len(), 2, "{comment:#?}");
    assert!(comment
        .iter()
        .all(|t| t.scopes.iter().any(|s| s == "comment.line.double-slash.rules")));

    let system = lines.iter().find(|l| l.starts_with("system ")).unwrap();
    let t = tokenize(&rules, system);
    assert!(has_scope(&t, "system", "storage.type.system.rules"), "{t:#?}");
    assert!(has_scope(&t, "starleader", "entity.name.namespace.rules"));
    assert!(has_scope(&t, "Starleader: Assault!", "string.quoted.double.rules"));
    assert!(has_scope(&t, "cite", "storage.modifier.cite.rules"));

    let option = lines.iter().find(|l| l.starts_with("option special_results")).unwrap();
    let t = tokenize(&rules, option);
    assert!(has_scope(&t, "special_results", "variable.other.constant.rules"), "{t:#?}");
    assert!(has_scope(&t, "6.64", "string.unquoted.citation.rules"), "{t:#?}");
    assert!(has_scope(&t, "[", "punctuation.definition.citation.begin.rules"));

    // The `update` statement is a keyword; `update(...)` the function.
    let t = tokenize(&rules, "  update f in fs where f.u.name == me.name {");
    assert!(has_scope(&t, "update", "keyword.control.rules"), "{t:#?}");
    assert!(has_scope(&t, "where", "keyword.other.rules"), "{t:#?}");
    let t = tokenize(&rules, "  fs = update(f in fs where f.u.name == me.name: f)");
    assert!(!has_scope(&t, "update", "keyword.control.rules"), "{t:#?}");

    // A roll with its dice, a string and a citation (combat3000), and dice with modifiers.
    let t = tokenize(&rules, r#"  roll d = 1d6 "strike sub-phase" [p.8 Close Combat]"#);
    assert!(has_scope(&t, "roll", "keyword.other.roll.rules"), "{t:#?}");
    assert!(has_scope(&t, "d", "variable.other.rules"));
    assert!(has_scope(&t, "1d6", "constant.other.dice.rules"));
    assert!(has_scope(&t, "strike sub-phase", "string.quoted.double.rules"));
    assert!(has_scope(&t, "p.8 Close Combat", "string.unquoted.citation.rules"));
    let t = tokenize(&rules, "  roll r = 3d6 keep highest 2 reroll 1..2 // best two");
    assert!(has_scope(&t, "3d6", "constant.other.dice.rules"), "{t:#?}");
    assert!(has_scope(&t, "keep", "keyword.other.dice.rules"));
    assert!(has_scope(&t, "highest", "keyword.other.dice.rules"));
    assert!(has_scope(&t, "..", "keyword.operator.range.rules"));
    assert!(has_scope(&t, " best two", "comment.line.double-slash.rules"), "{t:#?}");
    assert!(has_scope(&t, "//", "punctuation.definition.comment.rules"));
    for dice in ["d100", "2d6 flux", "1d10 explode 10", "(n + 1)d6"] {
        let t = tokenize(&rules, &format!("roll x = {dice}"));
        assert!(
            t.iter().any(|t| t.scopes.iter().any(|s| s == "constant.other.dice.rules")),
            "{dice}: {t:#?}"
        );
    }

    // A list is not a citation; a citation after `= -` (no value) is.
    let t = tokenize(&rules, "  var all_types: list unit_type = [infantry, command]");
    assert!(t.iter().all(|t| !t.scopes.iter().any(|s| s.contains("citation"))), "{t:#?}");
    assert!(has_scope(&t, "list", "storage.modifier.list.rules"));
    let t = tokenize(&rules, "  in effect2: hit_effects? = - [T5 Weapon Extension]");
    assert!(has_scope(&t, "T5 Weapon Extension", "string.unquoted.citation.rules"), "{t:#?}");
    assert!(has_scope(&t, "effect2", "variable.parameter.rules"));

    // Numbers, decimals and ranges; a string with an escape and a value shown in a message.
    let t = tokenize(&rules, r#"  require x <= 2.5 else "{s.name} is \"late\"" [4.1]"#);
    assert!(has_scope(&t, "2.5", "constant.numeric.decimal.rules"), "{t:#?}");
    assert!(has_scope(&t, "{s.name}", "variable.other.interpolated.rules"));
    assert!(has_scope(&t, "\\\"", "constant.character.escape.rules"));
    assert!(has_scope(&t, "4.1", "string.unquoted.citation.rules"));
    // `in.NAME` and `out.NAME` name the resolver's own input and output, not the `in` of a list.
    let t = tokenize(&rules, "  set broken = in.morale - 1 <= 0 and out.morale < 3");
    assert!(has_scope(&t, "in", "variable.language.in.rules"), "{t:#?}");
    assert!(has_scope(&t, "out", "variable.language.out.rules"), "{t:#?}");
    let t = tokenize(&rules, "  let n = count(x in in.units: x.side == 1)");
    let ins: Vec<&Vec<String>> = t.iter().filter(|t| t.text == "in").map(|t| &t.scopes).collect();
    assert_eq!(ins.len(), 2, "{t:#?}");
    assert!(ins[0].iter().any(|s| s.starts_with("keyword.operator.word.rules")), "{t:#?}");
    assert!(ins[1].iter().any(|s| s.starts_with("variable.language.in.rules")), "{t:#?}");
    let t = tokenize(&rules, "  -3..5 | 12 | yes");
    assert!(has_scope(&t, "12", "constant.numeric.integer.rules"), "{t:#?}");
    assert!(has_scope(&t, "..", "keyword.operator.range.rules"));
    assert!(has_scope(&t, "yes", "constant.language.rules"));

    // Every line of the built-in rules with a bracket (a citation or a list) tokenizes without
    // losing text, and no citation swallows a list or a string. (Only those lines: the tokenizer
    // is slow in a debug build.)
    let list_of_names = regex(r"^[a-z_][a-z0-9_.]*(, *[a-z_][a-z0-9_.]*)*$", "list");
    for dir in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/rules-src")).unwrap() {
        for file in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
            for line in text.lines().filter(|l| l.contains('[') && !l.trim_start().starts_with("//")) {
                let t = tokenize(&rules, line);
                let joined: String = t.iter().map(|t| t.text.as_str()).collect();
                assert_eq!(joined, line, "tokens lose text");
                for tok in t.iter().filter(|t| t.scopes.iter().any(|s| s == "string.unquoted.citation.rules")) {
                    assert!(!tok.text.starts_with(' ') && !tok.text.contains('"'), "{line}: {:?}", tok.text);
                    assert!(
                        !list_of_names.is_match(&tok.text).unwrap_or(false),
                        "{line}: a list read as a citation"
                    );
                }
            }
        }
    }
}

#[test]
fn the_vscode_extension_uses_this_grammar_for_rules_files() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/editors/vscode");
    let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).unwrap_or_else(|e| panic!("editors/vscode/{f}: {e}"));
    let json = |f: &str| -> Value { serde_json::from_str(&read(f)).unwrap_or_else(|e| panic!("editors/vscode/{f}: {e}")) };
    let pkg = json("package.json");
    let langs = pkg["contributes"]["languages"].as_array().unwrap();
    let lang = langs.iter().find(|l| l["id"] == "rules").expect("a `rules` language");
    assert!(lang["extensions"].as_array().unwrap().contains(&Value::from(".rules")));
    let config = json(lang["configuration"].as_str().unwrap());
    assert_eq!(config["comments"]["lineComment"], "//");
    assert!(config["brackets"].as_array().is_some_and(|b| b.len() == 3));
    let grammars = pkg["contributes"]["grammars"].as_array().unwrap();
    let g = grammars.iter().find(|g| g["language"] == "rules").expect("a grammar for `rules`");
    assert_eq!(g["scopeName"], "source.rules");
    // The extension's grammar is the one in editors/textmate, byte for byte.
    assert_eq!(
        read(g["path"].as_str().unwrap()),
        GRAMMAR,
        "copy editors/textmate/rules.tmLanguage.json to editors/vscode/syntaxes/"
    );
    // The Markdown injection embeds this grammar in ```rules blocks.
    let md = grammars
        .iter()
        .find(|g| g["scopeName"] == "markdown.rules.codeblock")
        .expect("a Markdown injection");
    let inj = json(md["path"].as_str().unwrap());
    assert!(inj.to_string().contains("\"include\":\"source.rules\""), "{inj}");
    // Every ```rules block of docs/dsl.md opens with a fence the injection recognizes.
    let begin = regex(inj["repository"]["rules-code-block"]["begin"].as_str().unwrap(), "markdown fence");
    let dsl = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/dsl.md")).unwrap();
    let fences: Vec<&str> = dsl.lines().filter(|l| l.trim_start().starts_with("```rules")).collect();
    assert!(fences.len() > 10, "{} ```rules blocks in docs/dsl.md", fences.len());
    for f in fences {
        assert!(begin.is_match(f).unwrap_or(false), "{f}");
    }
}
