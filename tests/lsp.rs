//! `rulebook lsp` driven as an editor drives it: JSON-RPC over the process's stdin and stdout
//! (issue 40). A folder opens; an edit in one file changes the diagnostics of another; hover,
//! go to definition and the outline answer; malformed requests and half-typed text get answers,
//! not a crash; `shutdown` and `exit` end it cleanly.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Editor {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
    next_id: i64,
}

impl Editor {
    fn start(rules: &Path) -> Editor {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rulebook"))
            .args(["lsp", "--rules"])
            .arg(rules)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        // A server that stops answering fails the test instead of hanging it.
        let pid = child.id().to_string();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs(120));
            let _ = Command::new("kill").arg(&pid).status();
        });
        let to = child.stdin.take().unwrap();
        let from = BufReader::new(child.stdout.take().unwrap());
        Editor {
            child,
            to,
            from,
            next_id: 1,
        }
    }

    fn send(&mut self, msg: &Value) {
        let body = msg.to_string();
        write!(self.to, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.to.flush().unwrap();
    }

    fn read(&mut self) -> Value {
        let mut len = 0usize;
        loop {
            let mut line = String::new();
            assert!(self.from.read_line(&mut line).unwrap() > 0, "the server closed its output");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                len = n.parse().unwrap();
            }
        }
        let mut body = vec![0u8; len];
        self.from.read_exact(&mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    /// Sends a request and returns its response, keeping the notifications read on the way.
    fn request(&mut self, method: &str, params: Value, notes: &mut Vec<Value>) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.read();
            if m["id"] == json!(id) {
                return m;
            }
            notes.push(m);
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The text of the hover at `line`, `character` of `uri` (empty when there is none).
    fn hover(&mut self, uri: &str, line: u32, character: u32, notes: &mut Vec<Value>) -> String {
        let params = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
        let h = self.request("textDocument/hover", params, notes);
        h["result"]["contents"]["value"].as_str().unwrap_or_default().to_string()
    }

    /// The diagnostics published next for `uri`.
    fn diagnostics_for(&mut self, uri: &str, notes: &mut Vec<Value>) -> Vec<Value> {
        if let Some(i) = notes.iter().position(|n| n["params"]["uri"] == uri) {
            return notes.remove(i)["params"]["diagnostics"].as_array().unwrap().clone();
        }
        loop {
            let m = self.read();
            if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
                return m["params"]["diagnostics"].as_array().unwrap().clone();
            }
        }
    }
}

const WEAPONS: &str = "table weapons \"Weapons\" [1.2] {\n  key name\n  columns damage: int\n  \"Rifle\"  | 3\n  \"Pistol\" | 2\n}\n";
const FIRE: &str = "resolver fire \"Fire a weapon\" [2.1] {\n  in weapon: weapons \"the weapon fired\" [2.1]\n  out damage: int\n  set damage = weapon.damage [2.1]\n}\n";

fn folder() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rulebook-lsp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("demo")).unwrap();
    std::fs::write(dir.join("demo/system.rules"), "system demo \"Demo\" cite \"Demo\"\n").unwrap();
    std::fs::write(dir.join("demo/weapons.rules"), WEAPONS).unwrap();
    std::fs::write(dir.join("demo/fire.rules"), FIRE).unwrap();
    dir
}

fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

#[test]
fn an_editor_session_over_json_rpc() {
    let dir = folder();
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
