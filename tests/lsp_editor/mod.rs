//! An editor's side of `rulebook lsp` for the LSP tests: JSON-RPC over the server's stdin and
//! stdout, with a watchdog that ends a server that stops answering.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

pub struct Editor {
    pub child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
    next_id: i64,
}

impl Editor {
    pub fn start(rules: &Path) -> Editor {
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

    pub fn send(&mut self, msg: &Value) {
        let body = msg.to_string();
        write!(self.to, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.to.flush().unwrap();
    }

    pub fn read(&mut self) -> Value {
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
    pub fn request(&mut self, method: &str, params: Value, notes: &mut Vec<Value>) -> Value {
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

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The text of the hover at `line`, `character` of `uri` (empty when there is none).
    pub fn hover(&mut self, uri: &str, line: u32, character: u32, notes: &mut Vec<Value>) -> String {
        let params = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
        let h = self.request("textDocument/hover", params, notes);
        h["result"]["contents"]["value"].as_str().unwrap_or_default().to_string()
    }

    /// Starts the server on `rules` and says `initialize` and `initialized`.
    pub fn ready(rules: &Path) -> Editor {
        let mut ed = Editor::start(rules);
        let init = ed.request("initialize", json!({"capabilities": {}}), &mut Vec::new());
        assert!(init["result"]["capabilities"].is_object(), "{init}");
        ed.notify("initialized", json!({}));
        ed
    }

    /// A request whose notifications on the way are not wanted.
    pub fn ask(&mut self, method: &str, params: Value) -> Value {
        self.request(method, params, &mut Vec::new())
    }

    /// Replaces the whole text of `uri`, as an unsaved edit.
    pub fn edit(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text}]}),
        );
    }

    /// `shutdown` and `exit`: the server ends cleanly.
    pub fn close(mut self) {
        let down = self.ask("shutdown", json!(null));
        assert_eq!(down["result"], json!(null), "{down}");
        self.notify("exit", json!(null));
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status:?}");
    }

    /// The diagnostics published next for `uri`.
    pub fn diagnostics_for(&mut self, uri: &str, notes: &mut Vec<Value>) -> Vec<Value> {
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

pub fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

pub fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
}

/// `text` with LSP text edits applied (ASCII text: columns are bytes).
pub fn apply(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap() as usize;
        text.split('\n').take(line).map(|l| l.len() + 1).sum::<usize>() + p["character"].as_u64().unwrap() as usize
    };
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (a, b, new) in spans {
        out.replace_range(a..b, new);
    }
    out
}
