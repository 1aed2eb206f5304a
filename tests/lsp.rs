//! `rulebook lsp` driven as an editor drives it: JSON-RPC over the process's stdin and stdout
//! (issue 40). A folder opens; an edit in one file changes the diagnostics of another; hover,
//! go to definition and the outline answer; references and rename across files (the renamed
//! folder checks clean); completion that knows where it is; the odds of dice on hover; malformed
//! requests and half-typed text get answers, not a crash; `shutdown` and `exit` end it cleanly.

mod lsp_editor;

use lsp_editor::{apply, at, uri, Editor};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const WEAPONS: &str = "table weapons \"Weapons\" [1.2] {\n  key name\n  columns damage: int\n  \"Rifle\"  | 3\n  \"Pistol\" | 2\n}\n";
const FIRE: &str = "resolver fire \"Fire a weapon\" [2.1] {\n  in weapon: weapons \"the weapon fired\" [2.1]\n  out damage: int\n  set damage = weapon.damage [2.1]\n}\n";

/// The `demo` system in a folder of its own for test `tag` (tests run at once).
fn folder(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rulebook-lsp-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("demo")).unwrap();
    std::fs::write(dir.join("demo/system.rules"), "system demo \"Demo\" cite \"Demo\"\n").unwrap();
    std::fs::write(dir.join("demo/weapons.rules"), WEAPONS).unwrap();
    std::fs::write(dir.join("demo/fire.rules"), FIRE).unwrap();
    dir
}

#[test]
fn an_editor_session_over_json_rpc() {
    let dir = folder("session");
    let (weapons, fire) = (uri(&dir.join("demo/weapons.rules")), uri(&dir.join("demo/fire.rules")));
    let mut ed = Editor::start(&dir);
    let mut notes = Vec::new();
    let init = ed.request("initialize", json!({"capabilities": {}, "rootUri": null}), &mut notes);
    let caps = &init["result"]["capabilities"];
    assert!(caps["completionProvider"].is_object(), "{init}");
    for c in ["hoverProvider", "definitionProvider", "documentSymbolProvider"] {
        assert_eq!(caps[c], json!(true), "{c}: {init}");
    }
    ed.notify("initialized", json!({}));

    // Opening a clean file: every file of the folder is published clean.
    ed.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": fire, "languageId": "rules", "version": 1, "text": FIRE}}),
    );
    assert_eq!(ed.diagnostics_for(&fire, &mut notes), Vec::<Value>::new());

    // An edit in weapons.rules (the table renamed, unsaved) breaks fire.rules, which reads it.
    let renamed = WEAPONS.replace("table weapons", "table weapon_list");
    ed.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": weapons, "languageId": "rules", "version": 1, "text": WEAPONS}}),
    );
    ed.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": weapons, "version": 2}, "contentChanges": [{"text": renamed}]}),
    );
    let mut broken = Vec::new();
    while broken.is_empty() {
        broken = ed.diagnostics_for(&fire, &mut notes);
    }
    assert_eq!(broken[0]["code"], "E0101", "{broken:?}");
    assert_eq!(broken[0]["source"], "rulebook");
    assert!(broken[0]["message"].as_str().unwrap().contains("weapons"), "{broken:?}");
    assert_eq!(broken[0]["range"]["start"], json!({"line": 1, "character": 13}), "{broken:?}");
    // Put back: fire.rules is clean again.
    ed.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": weapons, "version": 3}, "contentChanges": [{"text": WEAPONS}]}),
    );
    let mut clean = vec![json!(null)];
    while !clean.is_empty() {
        clean = ed.diagnostics_for(&fire, &mut notes);
    }

    // Hover on the table named in fire.rules: its kind, title, citation and columns.
    let at = json!({"textDocument": {"uri": fire}, "position": {"line": 1, "character": 16}});
    assert_eq!(
        ed.hover(&fire, 1, 16, &mut notes),
        "**table** `weapons`: Weapons [1.2]\n\n```rules\ndamage: int\n```"
    );
    // On the resolver: its inputs and outputs.
    assert_eq!(
        ed.hover(&fire, 0, 10, &mut notes),
        "**resolver** `fire`: Fire a weapon [2.1]\n\n```rules\nin weapon: weapons\nout damage: int\n```"
    );
    // On a key in quotes (any case): its row.
    assert_eq!(
        ed.hover(&weapons, 3, 4, &mut notes),
        "**key** `Rifle`: a row of table `weapons` [1.2]\n\n```rules\n\"Rifle\"  | 3\n```"
    );
    // Go to definition: the table's name in weapons.rules.
    let d = ed.request("textDocument/definition", at, &mut notes);
    assert_eq!(d["result"]["uri"], json!(weapons), "{d}");
    assert_eq!(d["result"]["range"]["start"], json!({"line": 0, "character": 6}), "{d}");
    // The outline of fire.rules.
    let s = ed.request("textDocument/documentSymbol", json!({"textDocument": {"uri": fire}}), &mut notes);
    assert_eq!(s["result"][0]["name"], "fire", "{s}");
    assert_eq!(s["result"][0]["detail"], "Fire a weapon", "{s}");

    // Completion: the system's names, with what each is, and the language's words.
    let c = ed.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": fire}, "position": {"line": 3, "character": 2}}),
        &mut notes,
    );
    let items = c["result"].as_array().unwrap();
    let table = items.iter().find(|i| i["label"] == "weapons").unwrap();
    assert_eq!(table["detail"], "table: Weapons", "{c}");
    assert!(
        items
            .iter()
            .any(|i| i["label"] == "fire" && i["detail"] == "resolver: Fire a weapon"),
        "{c}"
    );
    assert!(items.iter().any(|i| i["label"] == "update"), "{c}");

    // Malformed requests are answered with errors; the server goes on.
    let bad = ed.request("textDocument/hover", json!({"nonsense": 1}), &mut notes);
    assert_eq!(bad["error"]["code"], json!(-32602), "{bad}");
    let unknown = ed.request("textDocument/frobnicate", json!({}), &mut notes);
    assert_eq!(unknown["error"]["code"], json!(-32601), "{unknown}");
    // Half-typed text: diagnostics, not a crash.
    for text in [
        "resolver fire \"Fire\" [2.1] {\n  set damage = weapon.",
        "resolver",
        "\u{0}\u{7f}{{{{",
        "",
    ] {
        ed.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": fire, "version": 9}, "contentChanges": [{"text": text}]}),
        );
    }
    let h = ed.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": fire}, "position": {"line": 99, "character": 99}}),
        &mut notes,
    );
    assert_eq!(h["result"], json!(null), "{h}");

    let down = ed.request("shutdown", json!(null), &mut notes);
    assert_eq!(down["result"], json!(null), "{down}");
    ed.notify("exit", json!(null));
    let status = ed.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

const ARENA_SYSTEM: &str = "system arena \"Arena\" cite \"Arena\"
option cover_rule \"Cover\" [1.1]
enum stance \"Stance\" [1.2] { open, covered, prone \"Lying down\" }
type score = int 0..99
const bonus = 2 \"Aim bonus\" [1.3]
record fighter \"A fighter\" [1.4] {
  name: text,
  skill: score,
  pose: stance,
}
";
const ARENA_GEAR: &str = "table blades \"Blades\" [2.1] {
  key name
  columns damage: int, reach: stance
  \"Short Sword\" | 3 | open
  \"Spear\"       | 4 | covered
}
";
const ARENA_FIGHT: &str = "resolver strike \"Strike\" [3.1] {
  in who: fighter \"the attacker\" [3.1]
  in blade: blades \"the blade\" [3.1]
  out hits: int
  out pose: stance
  roll attack = 2d6 [3.2]
  let total = attack + who.skill + bonus [3.2]
  if option cover_rule and who.pose == covered {
    set hits = blade.damage - 1 [3.3]
  } else {
    set hits = blade.damage [3.3]
  }
  match who.pose {
    prone => { set pose = stance.open }
    _ => { set pose = who.pose }
  }
  require total >= 0 else \"never below {bonus}\" [3.4]
}

resolver duel \"Duel\" [3.5] {
  in a: fighter \"one\" [3.5]
  out first: int
  roll best = 3d6 keep highest 2 [3.6]
  roll wild = 1d10 explode 10 [3.6]
  call r = strike(who: a, blade: blades(\"Spear\")) [3.6]
  let again = a with (skill: a.skill) [3.6]
  set first = r.hits + best + wild + again.skill [3.6]
}

resolver volley \"Volley\" [3.7] {
  in shots: int 1..5 \"shots fired\" [3.7]
  out sum: int
  roll v = (shots)d6 [3.7]
  set sum = v [3.7]
}
";

/// A folder of one small system (`arena`) in its three files, written for test `tag`; the URIs
/// of `system.rules`, `gear.rules` and `fight.rules`.
fn arena(tag: &str) -> (PathBuf, [String; 3]) {
    let dir = std::env::temp_dir().join(format!("rulebook-lsp-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("arena")).unwrap();
    let mut uris = Vec::new();
    for (name, text) in [("system", ARENA_SYSTEM), ("gear", ARENA_GEAR), ("fight", ARENA_FIGHT)] {
        let p = dir.join(format!("arena/{name}.rules"));
        std::fs::write(&p, text).unwrap();
        uris.push(uri(&p));
    }
    (dir, uris.try_into().unwrap())
}

/// A location as (file name, line, first column, end column).
type Place = (String, u64, u64, u64);

fn place(loc: &Value) -> Place {
    let file = loc["uri"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
    let r = &loc["range"];
    (
        file,
        r["start"]["line"].as_u64().unwrap(),
        r["start"]["character"].as_u64().unwrap(),
        r["end"]["character"].as_u64().unwrap(),
    )
}

fn places(list: &[(&str, u64, u64, u64)]) -> Vec<Place> {
    list.iter().map(|(f, l, a, b)| (f.to_string(), *l, *a, *b)).collect()
}

fn references(ed: &mut Editor, uri: &str, line: u32, character: u32, with_decl: bool) -> Vec<Place> {
    let mut params = at(uri, line, character);
    params["context"] = json!({"includeDeclaration": with_decl});
    let r = ed.ask("textDocument/references", params);
    r["result"].as_array().unwrap_or_else(|| panic!("{r}")).iter().map(place).collect()
}

#[test]
fn references_across_the_files_of_a_system() {
    let (dir, [system, gear, fight]) = arena("refs");
    let mut ed = Editor::ready(&dir);
    type Case<'a> = (&'a str, &'a str, u32, u32, Vec<(&'a str, u64, u64, u64)>);
    let cases: Vec<Case> = vec![
        // A record, from a use: its two uses as a type and its declaration.
        (
            "fighter",
            fight.as_str(),
            20,
            10,
            vec![("fight.rules", 1, 10, 17), ("fight.rules", 20, 8, 15), ("system.rules", 5, 7, 14)],
        ),
        // A record's field: `who.skill`, `with (skill: ...)`, `a.skill`, `again.skill`.
        (
            "skill",
            system.as_str(),
            7,
            3,
            vec![
                ("fight.rules", 6, 27, 32),
                ("fight.rules", 25, 22, 27),
                ("fight.rules", 25, 31, 36),
                ("fight.rules", 26, 43, 48),
                ("system.rules", 7, 2, 7),
            ],
        ),
        // The field `pose`, not the output `pose` that `set pose` sets.
        (
            "pose",
            fight.as_str(),
            12,
            13,
            vec![
                ("fight.rules", 7, 31, 35),
                ("fight.rules", 12, 12, 16),
                ("fight.rules", 14, 26, 30),
                ("system.rules", 8, 2, 6),
            ],
        ),
        // An enum: as a type of an output, a column and a field, and naming a variant.
        (
            "stance",
            system.as_str(),
            2,
            6,
            vec![
                ("fight.rules", 4, 12, 18),
                ("fight.rules", 13, 26, 32),
                ("gear.rules", 2, 30, 36),
                ("system.rules", 2, 5, 11),
                ("system.rules", 8, 8, 14),
            ],
        ),
        // Variants: compared, in a table's cell, as a match arm, named with their enum.
        (
            "covered",
            system.as_str(),
            2,
            36,
            vec![("fight.rules", 7, 39, 46), ("gear.rules", 4, 22, 29), ("system.rules", 2, 35, 42)],
        ),
        (
            "prone",
            fight.as_str(),
            13,
            5,
            vec![("fight.rules", 13, 4, 9), ("system.rules", 2, 44, 49)],
        ),
        (
            "open",
            fight.as_str(),
            13,
            34,
            vec![("fight.rules", 13, 33, 37), ("gear.rules", 3, 22, 26), ("system.rules", 2, 29, 33)],
        ),
        // A constant, also inside a `require` message's `{bonus}`.
        (
            "bonus",
            system.as_str(),
            4,
            7,
            vec![("fight.rules", 6, 35, 40), ("fight.rules", 16, 40, 45), ("system.rules", 4, 6, 11)],
        ),
        (
            "cover_rule",
            fight.as_str(),
            7,
            15,
            vec![("fight.rules", 7, 12, 22), ("system.rules", 1, 7, 17)],
        ),
        (
            "score",
            system.as_str(),
            7,
            10,
            vec![("system.rules", 3, 5, 10), ("system.rules", 7, 9, 14)],
        ),
        // A table: as a type and looked up.
        (
            "blades",
            gear.as_str(),
            0,
            7,
            vec![("fight.rules", 2, 12, 18), ("fight.rules", 24, 33, 39), ("gear.rules", 0, 6, 12)],
        ),
        (
            "damage",
            fight.as_str(),
            8,
            22,
            vec![("fight.rules", 8, 21, 27), ("fight.rules", 10, 21, 27), ("gear.rules", 2, 10, 16)],
        ),
        (
            "strike",
            fight.as_str(),
            24,
            12,
            vec![("fight.rules", 0, 9, 15), ("fight.rules", 24, 11, 17)],
        ),
    ];
    for (name, uri, line, character, want) in cases {
        let all = references(&mut ed, uri, line, character, true);
        assert_eq!(all, places(&want), "{name}");
        // Without the declaration: one place fewer, the declaration's.
        let uses = references(&mut ed, uri, line, character, false);
        assert_eq!(uses.len() + 1, all.len(), "{name}: {uses:?}");
    }
    // A column no rule reads: its declaration only. A local, a keyword, a number: nothing.
    assert_eq!(references(&mut ed, &gear, 2, 25, true), places(&[("gear.rules", 2, 23, 28)]));
    for (line, character) in [(6, 7), (0, 3), (5, 17), (99, 0)] {
        assert_eq!(
            references(&mut ed, &fight, line, character, true),
            Vec::<Place>::new(),
            "{line}:{character}"
        );
    }
    // The open document's unsaved text wins over the disk's: a new use is found.
    let edited = ARENA_FIGHT.replace("  set sum = v [3.7]", "  set sum = v + bonus [3.7]");
    ed.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": fight, "languageId": "rules", "version": 1, "text": edited}}),
    );
    let bonus = references(&mut ed, &system, 4, 7, false);
    assert_eq!(bonus.last(), Some(&("fight.rules".to_string(), 33, 16, 21)), "{bonus:?}");
    ed.close();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rename_across_files_leaves_a_folder_that_checks_clean() {
    let (dir, uris) = arena("rename");
    let mut ed = Editor::ready(&dir);
    let mut texts: Vec<String> = vec![ARENA_SYSTEM.into(), ARENA_GEAR.into(), ARENA_FIGHT.into()];
    for (u, t) in uris.iter().zip(&texts) {
        ed.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": u, "languageId": "rules", "version": 1, "text": t}}),
        );
    }
    let [system, gear, fight] = &uris;
    // prepareRename: the name's range and the name.
    let p = ed.ask("textDocument/prepareRename", at(fight, 6, 29));
    assert_eq!(
        p["result"],
        json!({"range": {"start": {"line": 6, "character": 27}, "end": {"line": 6, "character": 32}}, "placeholder": "skill"}),
        "{p}"
    );
    // A field, a variant, a table, an enum, a constant, an option, a type, a resolver, a record:
    // each renamed in every file that names it; the edited folder checks clean after each.
    let renames = [
        (
            fight.as_str(),
            6u32,
            29u32,
            "talent",
            vec![("fight.rules", 4usize), ("system.rules", 1)],
        ),
        (
            system.as_str(),
            2,
            36,
            "sheltered",
            vec![("fight.rules", 1), ("gear.rules", 1), ("system.rules", 1)],
        ),
        (gear.as_str(), 0, 7, "swords", vec![("fight.rules", 2), ("gear.rules", 1)]),
        (
            fight.as_str(),
            4,
            14,
            "posture",
            vec![("fight.rules", 2), ("gear.rules", 1), ("system.rules", 2)],
        ),
        (system.as_str(), 4, 7, "aim", vec![("fight.rules", 2), ("system.rules", 1)]),
        (fight.as_str(), 7, 15, "use_cover", vec![("fight.rules", 1), ("system.rules", 1)]),
        (system.as_str(), 3, 6, "rating", vec![("system.rules", 2)]),
        (fight.as_str(), 0, 10, "hit", vec![("fight.rules", 2)]),
        (system.as_str(), 5, 8, "champion", vec![("fight.rules", 2), ("system.rules", 1)]),
        (gear.as_str(), 2, 12, "harm", vec![("fight.rules", 2), ("gear.rules", 1)]),
    ];
    for (uri, line, character, new_name, want) in renames {
        let mut params = at(uri, line, character);
        params["newName"] = json!(new_name);
        let r = ed.ask("textDocument/rename", params);
        let changes = r["result"]["changes"].as_object().unwrap_or_else(|| panic!("{new_name}: {r}"));
        let counts: Vec<(String, usize)> = changes
            .iter()
            .map(|(u, e)| (u.rsplit('/').next().unwrap().to_string(), e.as_array().unwrap().len()))
            .collect();
        let want: Vec<(String, usize)> = want.iter().map(|(f, n)| (f.to_string(), *n)).collect();
        assert_eq!(counts, want, "{new_name}: {r}");
        for (u, edits) in changes {
            let i = uris.iter().position(|x| x == u).unwrap();
            for e in edits.as_array().unwrap() {
                assert_eq!(e["newText"], json!(new_name));
            }
            texts[i] = apply(&texts[i], edits.as_array().unwrap());
            ed.edit(u, &texts[i]);
        }
        // Every notification of the edits comes before this answer; the last for each file is clean.
        let mut notes = Vec::new();
        ed.request("textDocument/hover", at(fight, 0, 0), &mut notes);
        for u in &uris {
            let last = notes.iter().rev().find(|n| n["params"]["uri"] == json!(u)).unwrap();
            assert_eq!(
                last["params"]["diagnostics"],
                json!([]),
                "after `{new_name}`, {u}:\n{}",
                texts.join("\n")
            );
        }
    }
    assert!(texts[2].contains("who.talent + aim"), "{}", texts[2]);
    assert!(texts[2].contains("who.pose == sheltered"), "{}", texts[2]);
    assert!(texts[2].contains("call r = hit(who: a, blade: swords(\"Spear\"))"), "{}", texts[2]);
    assert!(texts[2].contains("\"never below {aim}\""), "{}", texts[2]);

    // Refused: a new name that is no name, or a keyword (InvalidParams) ...
    for (new_name, says) in [
        ("9lives", "is not a name of the rules language"),
        ("let", "is a keyword"),
        ("a-b", "is not a name"),
        ("", "is not a name"),
    ] {
        let mut params = at(fight, 6, 29);
        params["newName"] = json!(new_name);
        let r = ed.ask("textDocument/rename", params);
        assert_eq!(r["error"]["code"], json!(-32602), "{r}");
        assert!(r["error"]["message"].as_str().unwrap().contains(says), "{r}");
    }
    // ... a name already taken (the renamed folder would not check) ...
    let mut params = at(system, 5, 8);
    params["newName"] = json!("posture");
    let r = ed.ask("textDocument/rename", params);
    assert_eq!(r["error"]["code"], json!(-32803), "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("renaming `champion` to `posture` would not check"),
        "{r}"
    );
    // ... and what is not a declaration's name: a keyword, a number, a string, a local.
    for (line, character, says) in [
        (0, 3, "`resolver` is a keyword"),
        (5, 17, "`2d6` is a number"),
        (16, 30, "is inside a string"),
        (6, 7, "`total` is not a declaration's name"),
    ] {
        for method in ["textDocument/prepareRename", "textDocument/rename"] {
            let mut params = at(fight, line, character);
            params["newName"] = json!("fine");
            let r = ed.ask(method, params);
            assert_eq!(r["error"]["code"], json!(-32803), "{method} {r}");
            let m = r["error"]["message"].as_str().unwrap();
            assert!(m.starts_with("cannot rename here: ") && m.contains(says), "{method} {r}");
        }
    }
    ed.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The completion items at `line`, `character` of `uri`: label, kind and detail.
fn completion(ed: &mut Editor, uri: &str, line: u32, character: u32) -> Vec<(String, u64, String)> {
    let r = ed.ask("textDocument/completion", at(uri, line, character));
    let items = r["result"].as_array().unwrap_or_else(|| panic!("{r}"));
    items
        .iter()
        .map(|i| {
            let s = |k: &str| i[k].as_str().unwrap_or_default().to_string();
            (s("label"), i["kind"].as_u64().unwrap_or(0), s("detail"))
        })
        .collect()
}

fn items(list: &[(&str, u64, &str)]) -> Vec<(String, u64, String)> {
    list.iter().map(|(l, k, d)| (l.to_string(), *k, d.to_string())).collect()
}

// CompletionItemKind numbers.
const FIELD: u64 = 5;
const VARIABLE: u64 = 6;
const VALUE: u64 = 12;
const ENUM: u64 = 13;
const ENUM_MEMBER: u64 = 20;

#[test]
fn completion_knows_where_it_is_in_half_typed_text() {
    let (dir, [_, _, fight]) = arena("complete");
    let mut ed = Editor::ready(&dir);
    ed.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": fight, "languageId": "rules", "version": 1, "text": ARENA_FIGHT}}),
    );
    // Each case: a line typed after line 6 of fight.rules (the text does not parse), the cursor
    // at its end, and what completes there.
    let typed = |line: &str| {
        let mut lines: Vec<&str> = ARENA_FIGHT.split('\n').collect();
        lines.insert(7, line);
        lines.join("\n")
    };
    type Case<'a> = (&'a str, Vec<(&'a str, u64, &'a str)>);
    let cases: Vec<Case> = vec![
        // A record's fields, with their types.
        (
            "  let z = who.",
            vec![("name", FIELD, "text"), ("skill", FIELD, "int"), ("pose", FIELD, "stance")],
        ),
        // A table's row: its key and its columns.
        (
            "  let z = blade.",
            vec![
                ("name", FIELD, "key of `blades`"),
                ("damage", FIELD, "int"),
                ("reach", FIELD, "stance"),
            ],
        ),
        // Half a field typed: the same list (the editor filters).
        (
            "  let z = blade.da",
            vec![
                ("name", FIELD, "key of `blades`"),
                ("damage", FIELD, "int"),
                ("reach", FIELD, "stance"),
            ],
        ),
        // An enum's name, a dot: its variants.
        (
            "  let z = stance.",
            vec![
                ("open", ENUM_MEMBER, "variant of `stance`"),
                ("covered", ENUM_MEMBER, "variant of `stance`"),
                ("prone", ENUM_MEMBER, "Lying down"),
            ],
        ),
        (
            "  let z = in.",
            vec![("who", VARIABLE, "input: fighter"), ("blade", VARIABLE, "input: blades")],
        ),
        ("  let z = option ", vec![("cover_rule", VALUE, "option: Cover")]),
        // Compared with a value of an enum: its variants.
        (
            "  let z = who.pose == ",
            vec![
                ("open", ENUM_MEMBER, "variant of `stance`"),
                ("covered", ENUM_MEMBER, "variant of `stance`"),
                ("prone", ENUM_MEMBER, "Lying down"),
            ],
        ),
        (
            "  let z = pose != pr",
            vec![
                ("open", ENUM_MEMBER, "variant of `stance`"),
                ("covered", ENUM_MEMBER, "variant of `stance`"),
                ("prone", ENUM_MEMBER, "Lying down"),
            ],
        ),
        // In quotes after a table's name: its keys.
        (
            "  let z = blades(\"Sp",
            vec![
                ("Short Sword", VALUE, "a row of table `blades`"),
                ("Spear", VALUE, "a row of table `blades`"),
            ],
        ),
        // A local of unknown type: nothing rather than a guess.
        ("  let z = nothing_here.", vec![]),
    ];
    for (line, want) in cases {
        ed.edit(&fight, &typed(line));
        let got = completion(&mut ed, &fight, 7, line.len() as u32);
        assert_eq!(got, items(&want), "after `{line}`");
    }
    // Between the arms of a `match` on an enum: its variants.
    ed.edit(&fight, &ARENA_FIGHT.replace("    _ => {", "    \n    _ => {"));
    let arms = completion(&mut ed, &fight, 14, 4);
    assert_eq!(arms.iter().map(|i| i.0.as_str()).collect::<Vec<_>>(), ["open", "covered", "prone"]);
    // Elsewhere in a resolver: the locals declared above (nearest first), the inputs and outputs,
    // then the system's names and the language's words.
    ed.edit(&fight, &typed("  let z = "));
    let scope = completion(&mut ed, &fight, 7, 10);
    assert_eq!(
        scope[..8].to_vec(),
        items(&[
            ("total", VARIABLE, "int"),
            ("attack", VARIABLE, "int"),
            ("who", VARIABLE, "input: fighter"),
            ("blade", VARIABLE, "input: blades"),
            ("hits", VARIABLE, "output: int"),
            ("pose", VARIABLE, "output: stance"),
            ("strike", 3, "resolver: Strike"),
            ("duel", 3, "resolver: Duel"),
        ])
    );
    assert!(scope.contains(&("stance".into(), ENUM, "enum: Stance".into())), "{scope:?}");
    assert!(scope.contains(&("bonus".into(), 21, "const: Aim bonus".into())), "{scope:?}");
    assert!(scope.iter().any(|i| i.0 == "roll" && i.1 == 14), "{scope:?}");
    // The outcome of a call: its outputs; a local's type from the checked program.
    ed.edit(
        &fight,
        &ARENA_FIGHT.replace("  set first = r.hits", "  let q = r.\n  set first = r.hits"),
    );
    assert_eq!(
        completion(&mut ed, &fight, 26, 12),
        items(&[("hits", FIELD, "int"), ("pose", FIELD, "stance")])
    );
    // Text that never parsed, the cursor past the end: an answer, not a crash.
    for text in ["resolver x \"X\" [1] {\n  let a = b.", "\"unclosed", "{{{{", ""] {
        ed.edit(&fight, text);
        for (line, character) in [(0, 0), (1, 12), (40, 99)] {
            let r = ed.ask("textDocument/completion", at(&fight, line, character));
            assert!(r["result"].is_array() || r["result"].is_null(), "{text:?} {line}:{character}: {r}");
        }
    }
    ed.close();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hover_on_dice_gives_their_exact_odds() {
    let (dir, [_, _, fight]) = arena("dice");
    let mut ed = Editor::ready(&dir);
    let mut notes = Vec::new();
    let two_d6 = ed.hover(&fight, 5, 17, &mut notes);
    assert_eq!(
        two_d6,
        "**2d6**: mean 7 ≈ 7.00\n\n| total | chance | % |\n|---:|---:|---:|\n\
         | 2 | 1/36 | 2.78 |\n| 3 | 1/18 | 5.56 |\n| 4 | 1/12 | 8.33 |\n| 5 | 1/9 | 11.11 |\n\
         | 6 | 5/36 | 13.89 |\n| 7 | 1/6 | 16.67 |\n| 8 | 5/36 | 13.89 |\n| 9 | 1/9 | 11.11 |\n\
         | 10 | 1/12 | 8.33 |\n| 11 | 1/18 | 5.56 |\n| 12 | 1/36 | 2.78 |\n"
    );
    let keep = ed.hover(&fight, 22, 20, &mut notes);
    assert!(keep.starts_with("**3d6 keep highest 2**: mean 203/24 ≈ 8.46\n"), "{keep}");
    assert!(
        keep.contains("\n| 2 | 1/216 | 0.46 |\n") && keep.contains("\n| 12 | 2/27 | 7.41 |\n"),
        "{keep}"
    );
    assert_eq!(keep.lines().filter(|l| l.starts_with("| ")).count(), 12, "{keep}");
    let explode = ed.hover(&fight, 23, 16, &mut notes);
    assert!(
        explode.starts_with("**1d10 explode 10**: mean 122222222221/20000000000 ≈ 6.11\n"),
        "{explode}"
    );
    assert!(explode.contains("\n| 9 | 1/10 | 10.00 |\n| 11 | 1/100 | 1.00 |\n"), "{explode}");
    assert!(!explode.contains("\n| 10 |"), "a 10 explodes: {explode}");
    // A count that depends on an input: said, not guessed.
    let volley = ed.hover(&fight, 32, 15, &mut notes);
    assert_eq!(
        volley,
        "**(shots)d6**: the number of dice is computed from values the rules get; its odds depend on the inputs (`rulebook odds` gives them for given inputs)"
    );
    // Next to the dice, the name hover as before.
    assert_eq!(ed.hover(&fight, 5, 8, &mut notes), "");
    assert!(ed
        .hover(&fight, 6, 37, &mut notes)
        .starts_with("**const** `bonus`: Aim bonus [1.3]"));
    ed.close();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn malformed_requests_get_errors_and_the_server_goes_on() {
    let (dir, [system, _, fight]) = arena("robust");
    let mut ed = Editor::ready(&dir);
    let outside = "file:///nowhere/else/x.rules";
    for method in [
        "textDocument/hover",
        "textDocument/definition",
        "textDocument/references",
        "textDocument/prepareRename",
        "textDocument/rename",
        "textDocument/completion",
        "textDocument/documentSymbol",
    ] {
        // Parameters of the wrong shape: InvalidParams.
        for bad in [
            json!({"nonsense": 1}),
            json!([1, 2]),
            json!("text"),
            json!(null),
            json!({"textDocument": {"uri": 7}}),
        ] {
            let r = ed.ask(method, bad.clone());
            assert_eq!(r["error"]["code"], json!(-32602), "{method} {bad}: {r}");
        }
        // Past the end of the file, or a file outside the folder: an empty answer or an error.
        for (uri, line, character) in [
            (fight.as_str(), 500, 0),
            (fight.as_str(), 3, 4000),
            (outside, 0, 0),
            ("untitled:Untitled-1", 0, 0),
        ] {
            let mut params = at(uri, line, character);
            params["context"] = json!({"includeDeclaration": true});
            params["newName"] = json!("fine");
            let r = ed.ask(method, params);
            let empty = r["result"].is_null() || r["result"] == json!([]);
            let refused = matches!(r["error"]["code"].as_i64(), Some(-32602 | -32803));
            let any = matches!(method, "textDocument/completion" | "textDocument/documentSymbol") && r["error"].is_null();
            assert!(empty || refused || any, "{method} {uri} {line}:{character}: {r}");
        }
    }
    let unknown = ed.ask("textDocument/frobnicate", json!({}));
    assert_eq!(unknown["error"]["code"], json!(-32601), "{unknown}");
    // Notifications of the wrong shape are ignored.
    ed.notify("textDocument/didChange", json!({"textDocument": 3}));
    ed.notify("textDocument/didOpen", json!(null));
    // Half-typed text in every file: requests are answered.
    for text in [
        "resolver strike \"S\" [1] {\n  let a = who.",
        "enum stance {",
        "\u{0}\u{7f}{{{{",
        "\"\"\"\"\"",
        "",
    ] {
        ed.edit(&fight, text);
        ed.edit(&system, text);
        for method in ["textDocument/references", "textDocument/hover", "textDocument/definition"] {
            let mut params = at(&fight, 1, 12);
            params["context"] = json!({"includeDeclaration": true});
            let r = ed.ask(method, params);
            assert!(r["error"].is_null(), "{method} on {text:?}: {r}");
        }
        let mut params = at(&fight, 0, 10);
        params["newName"] = json!("fine");
        let r = ed.ask("textDocument/rename", params);
        assert!(r["result"].is_object() || r["error"]["code"] == json!(-32803), "{text:?}: {r}");
    }
    // The folder back as it was: the server still answers right.
    ed.edit(&fight, ARENA_FIGHT);
    ed.edit(&system, ARENA_SYSTEM);
    assert_eq!(references(&mut ed, &fight, 24, 12, true).len(), 2);
    ed.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Time a references and a rename request on the Striker rules (run with `--nocapture` to see).
#[test]
fn references_and_rename_on_the_striker_rules_are_quick_enough() {
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules-src");
    let file = rules.join("striker/battlefield_detection.rules");
    let u = uri(&file);
    let mut ed = Editor::ready(&rules);
    let time = |ed: &mut Editor, method: &str, params: Value| {
        let start = std::time::Instant::now();
        let r = ed.ask(method, params);
        (r, start.elapsed())
    };
    // The variant `clear` of `battlefield_weather` (line 16); the first request analyses the folder.
    let mut params = at(&u, 15, 3);
    params["context"] = json!({"includeDeclaration": true});
    let (first, cold) = time(&mut ed, "textDocument/references", params.clone());
    let (again, warm) = time(&mut ed, "textDocument/references", params);
    assert_eq!(first["result"], again["result"]);
    let found = first["result"].as_array().unwrap().len();
    assert!(found > 5, "{first}");
    let mut params = at(&u, 14, 8);
    params["newName"] = json!("weather_kind");
    let (renamed, rename_time) = time(&mut ed, "textDocument/rename", params);
    let edits: usize = renamed["result"]["changes"]
        .as_object()
        .unwrap()
        .values()
        .map(|e| e.as_array().unwrap().len())
        .sum();
    assert!(edits > 5, "{renamed}");
    eprintln!(
        "striker (this build): references {cold:?} the first time (analysis of the folder), {warm:?} again ({found} places); \
         rename {rename_time:?} ({edits} edits, checked before and after)"
    );
    ed.close();
}

/// `textDocument/formatting`: the unsaved text laid out as `rulebook fmt` lays it out, as one
/// edit over the whole document; none when it is laid out; an error when it does not parse.
#[test]
fn formatting_lays_out_the_unsaved_text() {
    let dir = folder("format");
    let fire = uri(&dir.join("demo/fire.rules"));
    let mut ed = Editor::ready(&dir);
    let ask = |ed: &mut Editor, uri: &str| {
        ed.ask(
            "textDocument/formatting",
            json!({"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": true}}),
        )
    };
    // Laid out already: no edit.
    let none = ask(&mut ed, &fire);
    assert_eq!(none["result"], json!([]), "{none}");
    let messy = "resolver fire \"Fire a weapon\" [2.1] {\nin weapon:weapons \"the weapon fired\" [2.1]\n    out damage : int\n  set damage=weapon.damage [2.1]  // all of it\n}\n";
    ed.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": fire, "languageId": "rules", "version": 1, "text": messy}}),
    );
    let r = ask(&mut ed, &fire);
    let edits = r["result"].as_array().unwrap_or_else(|| panic!("{r}"));
    assert_eq!(edits.len(), 1, "{r}");
    assert_eq!(edits[0]["range"]["start"], json!({"line": 0, "character": 0}), "{r}");
    assert_eq!(edits[0]["range"]["end"], json!({"line": 5, "character": 0}), "{r}");
    assert_eq!(
        apply(messy, edits),
        "resolver fire \"Fire a weapon\" [2.1] {\n  in weapon: weapons \"the weapon fired\" [2.1]\n  out damage: int\n  set damage = weapon.damage [2.1]  // all of it\n}\n"
    );
    // Half-typed text: refused with the parser's reason, and the server goes on.
    ed.edit(&fire, "resolver fire \"Fire\" [2.1] {\n  set damage = \n");
    let broken = ask(&mut ed, &fire);
    let message = broken["error"]["message"].as_str().unwrap_or_else(|| panic!("{broken}"));
    assert!(message.starts_with("cannot lay the file out, it does not parse: "), "{message}");
    let outline = ed.ask(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&dir.join("demo/weapons.rules"))}}),
    );
    assert!(outline["result"].is_array(), "{outline}");
    ed.close();
    let _ = std::fs::remove_dir_all(&dir);
}
