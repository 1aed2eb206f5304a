#!/usr/bin/env python3
"""How long `rulebook lsp` takes to answer an edit: the time from a `didChange` of one file of a
rules folder to the last `publishDiagnostics` of that round (every file of the folder is
published after each change). Then, after each edit, the requests on the first table of the
file: references (the first after an edit builds the folder's analysis; the second reuses it),
rename, hover, completion and formatting. Usage:

    benches/lsp-latency.py [BINARY] [RULES_DIR] [FILE_IN_IT] [EDITS]

Defaults: target/release/rulebook, a copy of rules-src/ holding only striker/, the first
striker file, 20 edits. Prints each round's time and the median, in milliseconds."""
import json, os, shutil, statistics, subprocess, sys, tempfile, threading, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "target/release/rulebook")
if len(sys.argv) > 2 and sys.argv[2]:
    rules = os.path.abspath(sys.argv[2])
else:
    rules = tempfile.mkdtemp(prefix="lsp-latency-")
    shutil.copytree(os.path.join(root, "rules-src/striker"), os.path.join(rules, "striker"))
files = sorted(f for f in os.listdir(os.path.join(rules, "striker")) if f.endswith(".rules"))
path = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else os.path.join(rules, "striker", files[0])
edits = int(sys.argv[4]) if len(sys.argv) > 4 else 20
count = sum(len([f for f in os.listdir(os.path.join(rules, d)) if f.endswith(".rules")])
            for d in os.listdir(rules) if os.path.isdir(os.path.join(rules, d)))

p = subprocess.Popen([binary, "lsp", "--rules", rules], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

def send(m):
    b = json.dumps(m).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
    p.stdin.flush()

# A server that stops answering is stopped, rather than waited on for ever.
watchdog = threading.Timer(300, p.kill)
watchdog.start()

def read():
    n = 0
    while True:
        line = p.stdout.readline()
        if line == b"":
            sys.exit("the server stopped answering")
        if line == b"\r\n":
            break
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":")[1])
    return json.loads(p.stdout.read(n))

def round_trip(m):
    start = time.perf_counter()
    send(m)
    seen = 0
    while seen < count:
        if read().get("method") == "textDocument/publishDiagnostics":
            seen += 1
    return (time.perf_counter() - start) * 1000

send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
read()
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
uri = "file://" + path
text = open(path).read()
round_trip({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "rules", "version": 1, "text": text}}})
times = []
for i in range(edits):
    edited = text + "\n// edit %d\n" % i
    times.append(round_trip({"jsonrpc": "2.0", "method": "textDocument/didChange",
                             "params": {"textDocument": {"uri": uri, "version": i + 2}, "contentChanges": [{"text": edited}]}}))
next_id = [10]
def request(method, params):
    next_id[0] += 1
    start = time.perf_counter()
    send({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params})
    while True:
        m = read()
        if m.get("id") == next_id[0]:
            if "error" in m:
                sys.exit("%s refused: %s" % (method, m["error"]))
            return (time.perf_counter() - start) * 1000, m["result"]

# The first table's name, and the first line inside the first resolver.
lines = text.split("\n")
table = next((i, l.index("table ") + 6) for i, l in enumerate(lines) if l.startswith("table "))
body = next(i + 1 for i, l in enumerate(lines) if l.startswith("resolver "))
at = {"textDocument": {"uri": uri}, "position": {"line": table[0], "character": table[1]}}
asks = {"references, first after an edit": [], "references again": [], "rename": [], "hover": [],
        "completion": [], "formatting": []}
found = 0
for i in range(edits):
    edited = text + "\n// request round %d\n" % i
    round_trip({"jsonrpc": "2.0", "method": "textDocument/didChange",
                "params": {"textDocument": {"uri": uri, "version": edits + i + 2}, "contentChanges": [{"text": edited}]}})
    for name in ("references, first after an edit", "references again"):
        t, r = request("textDocument/references", dict(at, context={"includeDeclaration": True}))
        asks[name].append(t)
        found = len(r)
    asks["rename"].append(request("textDocument/rename", dict(at, newName="renamed_for_timing"))[0])
    asks["hover"].append(request("textDocument/hover", at)[0])
    asks["completion"].append(request("textDocument/completion",
        {"textDocument": {"uri": uri}, "position": {"line": body, "character": 2}})[0])
    asks["formatting"].append(request("textDocument/formatting",
        {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}})[0])
send({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
read()
send({"jsonrpc": "2.0", "method": "exit", "params": None})
p.wait()
watchdog.cancel()
print("files: %d; edits: %d; ms per edit: %s" % (count, edits, ", ".join("%.1f" % t for t in times)))
print("median %.1f ms, max %.1f ms" % (statistics.median(times), max(times)))
print("requests on table `%s` (%d references), median (max) ms over %d rounds:"
      % (lines[table[0]][table[1]:].split()[0], found, edits))
for name, ts in asks.items():
    print("  %-32s %6.1f (%.1f)" % (name, statistics.median(ts), max(ts)))
