// The rulebook web page: pick a system and a resolver, fill in a form built from its typed
// inputs, then Roll (the trace, step by step, each line as `rulebook roll` prints it) or Odds
// (exact fractions, drawn as bars). Everything runs in the page through web/pkg/ (wasm/build.sh).
import init, { systems, resolvers, roll, roll_with_dice, odds } from "./pkg/rulebook_wasm.js";

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
  const e = Object.assign(document.createElement(tag), props);
  for (const c of children) e.append(c);
  return e;
};

let current = null; // the chosen resolver's description (`rulebook list SYSTEM --json`)

// ---- values as `rulebook roll` shows them (runtime/src/value.rs, Display) ----

const needsQuotes = (s) => s === "" || /[\s,\[\]{}:"]/.test(s);

function show(v) {
  if (v === null || v === undefined) return "none";
  if (typeof v === "string") return needsQuotes(v) ? JSON.stringify(v) : v;
  if (Array.isArray(v)) return `[${v.map(show).join(", ")}]`;
  if (typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `${k}: ${show(x)}`).join(", ")}}`;
  return String(v);
}

/** A modifier's value with its sign: +3, -1, +0.5, +1/3. */
function signed(v) {
  if (typeof v === "number") return v >= 0 ? `+${v}` : String(v);
  if (typeof v === "string" && /^\d+\/\d+$/.test(v)) return `+${v}`;
  return show(v);
}

/** One side of a comparison: its rules text and value, or the text alone when it is the value. */
function side(text, value) {
  const v = show(value);
  const literal = text === v || (typeof value === "string" && text === JSON.stringify(value));
  return literal ? text : `${text} ${v}`;
}

/** The line `rulebook roll` prints for an event (without its citation), or null for `exit`. */
function lineOf(e) {
  switch (e.kind) {
    case "enter":
      return `${e.resolver ?? ""}${e.title ? ` — ${e.title}` : ""}`;
    case "roll": {
      let faces = e.faces ? `: [${e.faces.join(", ")}]` : "";
      if (e.adjusted) faces += ` → [${e.adjusted.join(", ")}]`;
      return `roll ${e.label ?? ""} ${e.dice ?? ""}${faces} = ${e.value}`;
    }
    case "let":
      return `let ${e.name ?? ""} = ${show(e.value)}`;
    case "assign":
      return `assign ${e.name ?? ""} = ${show(e.value)}`;
    case "modifier":
      return `modifier ${JSON.stringify(e.name ?? "")} ${signed(e.value)}`;
    case "row":
      return `row ${e.table ?? ""}[${e.key ?? ""}] → ${e.row ?? ""}`;
    case "compare":
      return `compare ${side(e.left ?? "", e.left_value)} ${e.op ?? ""} ${side(e.right ?? "", e.right_value)} → ${e.result}`;
    case "set":
      return `set ${e.field ?? ""} = ${show(e.value)}`;
    case "note":
      return `note: ${e.text ?? ""}`;
    default:
      return null;
  }
}

// ---- the form, from each input's `type_info` ----

function control(input) {
  const t = input.type_info;
  const name = input.name;
  const def = input.default_value;
  const choices = (ti, blank) => {
    const s = el("select", { name });
    if (blank) s.append(el("option", { value: "", textContent: blank }));
    if (ti.kind === "key") {
      for (const table of ti.tables) {
        const group = el("optgroup", { label: table.title || table.name });
        for (const k of table.keys) group.append(el("option", { value: k, textContent: k }));
        s.append(group);
      }
    } else {
      for (const c of ti.choices) s.append(el("option", { value: c, textContent: c }));
    }
    return s;
  };
  let c;
  switch (t.kind) {
    case "bool":
      c = el("input", { type: "checkbox", name, checked: def === true });
      c.dataset.kind = "bool";
      return c;
    case "int":
      c = el("input", { type: "number", name, step: 1 });
      if (t.min !== undefined) c.min = t.min;
      if (t.max !== undefined) c.max = t.max;
      if (typeof def === "number") c.value = def;
      c.dataset.kind = "int";
      return c;
    case "enum":
    case "key":
      c = choices(t, def === null ? "— choose —" : null);
      if (typeof def === "string") c.value = def;
      c.dataset.kind = "choice";
      return c;
    case "optional":
      if (t.item.kind === "enum" || t.item.kind === "key") {
        c = choices(t.item, "none");
        c.value = typeof def === "string" ? def : "";
        c.dataset.kind = "choice";
        return c;
      }
      break;
    case "list":
      if (t.item.kind === "enum" || t.item.kind === "key") {
        c = choices(t.item, null);
        c.multiple = true;
        c.size = Math.min(6, t.item.choices.length);
        for (const o of c.options) o.selected = Array.isArray(def) && def.includes(o.value);
        c.dataset.kind = "many";
        return c;
      }
      break;
  }
  // Decimals, text, records and anything else: JSON (or plain text for text and decimals).
  c = el("input", { type: "text", name, size: 24 });
  const plain = t.kind === "decimal" || t.kind === "text" || (t.kind === "optional" && t.item.kind !== "record");
  c.dataset.kind = plain ? "text" : "json";
  if (def !== null && def !== undefined) c.value = plain ? String(def) : JSON.stringify(def);
  c.placeholder = plain ? input.type : `JSON: ${input.type}`;
  return c;
}

function buildForm(r) {
  current = r;
  $("doc").textContent = [r.title, r.cite ? `[${r.cite}]` : "", r.doc].filter(Boolean).join(" ");
  $("fields").replaceChildren();
  $("switches").replaceChildren();
  for (const input of r.inputs) {
    const c = control(input);
    const label = el("label", { textContent: input.name + (input.default === null ? " *" : "") });
    const help = el("small", { textContent: [input.type, input.doc, input.cite ? `[${input.cite}]` : ""].filter(Boolean).join(" — ") });
    const field = el("div", { className: "field" }, label, c, help);
    label.htmlFor = c.id = `in-${input.name}`;
    (input.optional_rule ? $("switches") : $("fields")).append(field);
  }
  $("rules-box").hidden = $("switches").childElementCount === 0;
  $("result").hidden = true;
  $("odds-box").hidden = true;
  $("error").textContent = "";
}

/** The form's inputs as the JSON object the package binds. */
function inputsJson() {
  const out = {};
  for (const input of current.inputs) {
    const c = $(`in-${input.name}`);
    switch (c.dataset.kind) {
      case "bool":
        out[input.name] = c.checked;
        break;
      case "int":
        if (c.value !== "") out[input.name] = Number(c.value);
        break;
      case "choice":
        if (c.value !== "") out[input.name] = c.value;
        else if (input.type_info.kind === "optional") out[input.name] = null;
        break;
      case "many":
        out[input.name] = [...c.selectedOptions].map((o) => o.value);
        break;
      case "text":
        if (c.value !== "" || input.type_info.kind === "text") out[input.name] = c.value;
        break;
      default:
        if (c.value.trim() !== "") {
          try {
            out[input.name] = JSON.parse(c.value);
          } catch (e) {
            throw new Error(`${input.name}: not JSON (${e.message})`);
          }
        }
    }
  }
  return JSON.stringify(out);
}

// ---- roll: the outcome and the trace ----

function showRoll(doc) {
  const table = $("outcome");
  table.replaceChildren();
  for (const [k, v] of Object.entries(doc.outcome ?? {})) {
    const row = el("tr", {}, el("td", { textContent: `${k}:` }), el("td", { textContent: show(v) }));
    row.dataset.field = k;
    table.append(row);
  }
  const root = el("ol");
  const stack = [root];
  for (const e of doc.trace) {
    if (e.kind === "exit") {
      if (stack.length > 1) stack.pop();
      continue;
    }
    const li = el("li", { className: `step step-${e.kind}` });
    li.dataset.kind = e.kind;
    li.append(el("span", { className: "line", textContent: lineOf(e) }));
    if (e.kind === "roll" && e.faces) {
      const dice = el("span", { className: "dice", ariaHidden: "true" });
      for (const f of e.faces) dice.append(el("span", { className: "die", textContent: String(f) }));
      li.append(" ", dice);
    }
    if (e.cite) li.append(el("span", { className: "cite", textContent: `[${e.cite}]` }));
    stack[stack.length - 1].append(li);
    if (e.kind === "enter") {
      const inner = el("ol");
      li.append(inner);
      stack.push(inner);
    }
  }
  $("trace").replaceChildren(root);
  $("result").hidden = false;
  $("step").disabled = false;
  $("step").textContent = "Step through";
}

/** Step through: hide every step, then each click shows the next one. */
function stepThrough() {
  const steps = [...$("trace").querySelectorAll("li.step")];
  let shown = steps.findIndex((s) => s.classList.contains("hidden"));
  if (shown < 0) {
    steps.forEach((s) => s.classList.add("hidden"));
    shown = 0;
  }
  if (steps[shown]) {
    steps[shown].classList.remove("hidden");
    steps[shown].scrollIntoView({ block: "nearest" });
  }
  $("step").textContent = shown + 1 >= steps.length ? "Step through" : `Next step (${shown + 1}/${steps.length})`;
}

// ---- odds: exact fractions, summed per value of one outcome field, as bars ----

const gcd = (a, b) => (b === 0n ? a : gcd(b, a % b));
function addFraction([n1, d1], text) {
  const [n2, d2] = text.split("/").map(BigInt);
  const n = n1 * d2 + n2 * d1;
  const d = d1 * d2;
  const g = gcd(n, d) || 1n;
  return [n / g, d / g];
}

function showOdds(doc) {
  const fields = Object.keys(doc.outcomes[0]?.outcome ?? {});
  const select = $("odds-field");
  const keep = select.value;
  select.replaceChildren(...fields.map((f) => el("option", { value: f, textContent: f })));
  select.value = fields.includes(keep) ? keep : fields.includes("result") ? "result" : fields[0] ?? "";
  const draw = () => {
    const field = select.value;
    const sums = new Map();
    for (const o of doc.outcomes) {
      const v = show(field ? o.outcome[field] : o.outcome);
      sums.set(v, addFraction(sums.get(v) ?? [0n, 1n], o.probability));
    }
    const rows = [...sums.entries()];
    const width = 640, barMax = 330, rowH = 24, labelW = 150;
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("width", width);
    svg.setAttribute("height", rows.length * rowH + 8);
    svg.setAttribute("role", "img");
    rows.forEach(([value, [n, d]], i) => {
      const p = Number((n * 1000000n) / d) / 1000000;
      const y = i * rowH + 4;
      const text = (x, s, anchor = "start") => {
        const t = document.createElementNS(ns, "text");
        t.setAttribute("x", x);
        t.setAttribute("y", y + 16);
        t.setAttribute("text-anchor", anchor);
        t.textContent = s;
        svg.append(t);
      };
      text(labelW - 8, value, "end");
      const bar = document.createElementNS(ns, "rect");
      bar.setAttribute("x", labelW);
      bar.setAttribute("y", y + 3);
      bar.setAttribute("height", rowH - 6);
      bar.setAttribute("width", Math.max(1, p * barMax));
      bar.setAttribute("fill", "#3b7dd8");
      bar.dataset.value = value;
      bar.dataset.probability = `${n}/${d}`;
      svg.append(bar);
      text(labelW + p * barMax + 6, `${n}/${d}  ${(p * 100).toFixed(2)}%`);
    });
    $("chart").replaceChildren(svg);
  };
  select.onchange = draw;
  draw();
  $("odds-box").hidden = false;
}

// ---- wiring ----

function fail(e) {
  $("error").textContent = `error: ${e.message ?? e}`;
}

function pickSystem() {
  const sys = JSON.parse(resolvers($("system").value));
  const list = $("resolver");
  list.replaceChildren(...sys.resolvers.map((r) => el("option", { value: r.path, textContent: `${r.name}${r.title ? ` — ${r.title}` : ""}` })));
  list.onchange = () => buildForm(sys.resolvers.find((r) => r.path === list.value));
  buildForm(sys.resolvers[0]);
}

async function main() {
  await init();
  const all = JSON.parse(systems()).systems;
  $("system").replaceChildren(...all.map((s) => el("option", { value: s.name, textContent: `${s.title} (${s.name})` })));
  $("system").onchange = () => {
    try {
      pickSystem();
    } catch (e) {
      fail(e);
    }
  };
  pickSystem();
  $("inputs").onsubmit = (ev) => {
    ev.preventDefault();
    $("error").textContent = "";
    try {
      const faces = $("faces").value.trim();
      const doc = faces
        ? roll_with_dice(current.path, inputsJson(), faces)
        : roll(current.path, inputsJson(), $("seed").value === "" ? 0 : $("seed").value);
      showRoll(JSON.parse(doc));
    } catch (e) {
      $("result").hidden = true;
      fail(e);
    }
  };
  $("step").onclick = stepThrough;
  $("odds").onclick = () => {
    $("error").textContent = "";
    try {
      showOdds(JSON.parse(odds(current.path, inputsJson())));
    } catch (e) {
      $("odds-box").hidden = true;
      fail(e);
    }
  };
  document.body.dataset.ready = "true";
}

main().catch(fail);
