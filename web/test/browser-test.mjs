// The browser test of web/ (run by browser-test.sh, which builds the package, serves web/ and
// gets the command line's answers): in headless Chromium, resolve a Starleader shot with seed 7
// through the form and check that the trace and outcome shown are, line for line, what
// `rulebook roll starleader.fire --input examples/starleader-fire.yaml --seed 7` prints; run the
// README's snippet (web/example.js) and check its document is `roll --json`'s; draw the exact odds
// and check the bars against `odds --json`, and that odds past a branch limit throw; save
// screenshots to web/test/artifacts/.
import { chromium } from "playwright-core";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const { PAGE_URL, EXPECTED_TEXT, EXPECTED_JSON, EXPECTED_ODDS, EXPECTED_MODIFIERS, ARTIFACTS } = process.env;
const failures = [];
const check = (ok, what) => {
  if (!ok) failures.push(what);
  console.log(`${ok ? "ok  " : "FAIL"} ${what.split("\n")[0]}`);
};
const norm = (s) => s.replace(/\s+/g, " ").trim();

// The command line's text: the trace lines and the outcome lines.
const section = (file, name) => {
  const text = fs.readFileSync(file, "utf8").split("\n");
  const start = text.indexOf(`${name}:`);
  const end = text.indexOf("", start);
  return text.slice(start + 1, end === -1 ? undefined : end).map(norm).filter(Boolean);
};
const cliTrace = section(EXPECTED_TEXT, "trace");
const cliOutcome = section(EXPECTED_TEXT, "outcome");
const cliJson = JSON.parse(fs.readFileSync(EXPECTED_JSON, "utf8"));
const cliOdds = JSON.parse(fs.readFileSync(EXPECTED_ODDS, "utf8"));

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rulebook-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
  viewport: { width: 1100, height: 900 },
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  const consoleLines = [];
  page.on("console", (m) => consoleLines.push(m.text()));
  page.on("pageerror", (e) => failures.push(`page error: ${e.message}`));
  await page.goto(PAGE_URL);
  await page.waitForSelector("body[data-ready=true]", { timeout: 60000 });

  // The form, as a player fills it in.
  await page.selectOption("#system", "starleader");
  await page.selectOption("#resolver", "starleader.fire");
  check((await page.locator("#in-range_hexes").getAttribute("type")) === "number", "ints are number fields");
  check((await page.locator("#in-special_results").getAttribute("type")) === "checkbox", "bools are checkboxes");
  check((await page.locator("#in-action option").count()) >= 2, "enums are selects with their variants");
  await page.selectOption("#in-weapon", "Ghazi 10/7");
  await page.fill("#in-range_hexes", "5");
  await page.fill("#in-armor_rating", "2");
  await page.fill("#seed", "7");
  await page.click("#roll");
  await page.waitForSelector("#result:not([hidden])");

  // Each step as `rulebook roll` prints it: its line, then its citation.
  const shownTrace = async () =>
    (
      await page.$$eval("#trace li.step", (items) =>
        items.map((li) => {
          const line = li.querySelector(":scope > .line")?.textContent ?? "";
          const cite = li.querySelector(":scope > .cite")?.textContent ?? "";
          return `${line} ${cite}`;
        }),
      )
    ).map(norm);
  const sameTrace = (web, cli, what) => {
    const firstDiff = web.findIndex((l, i) => l !== cli[i]);
    check(
      web.length === cli.length && firstDiff === -1,
      `${what}: the trace shown is the command line's, line for line (${web.length} lines)` +
        (firstDiff === -1 ? "" : `\n  line ${firstDiff + 1}\n  page: ${web[firstDiff]}\n  cli:  ${cli[firstDiff]}`),
    );
  };
  const webTrace = await shownTrace();
  sameTrace(webTrace, cliTrace, "seed 7");
  const rolls = (lines) => lines.filter((l) => l.startsWith("roll "));
  check(rolls(webTrace).length > 0 && rolls(webTrace).join("\n") === rolls(cliTrace).join("\n"), `the dice and their faces: ${rolls(webTrace).join("; ")}`);
  const dieFaces = await page.$$eval("#trace .die", (d) => d.map((x) => Number(x.textContent)));
  const cliFaces = cliJson.trace.filter((e) => e.kind === "roll").flatMap((e) => e.faces);
  check(JSON.stringify(dieFaces) === JSON.stringify(cliFaces), `each die shown with its face: ${dieFaces.join(" ")}`);
  const webOutcome = (
    await page.$$eval("#outcome tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent).join(" ")))
  ).map(norm);
  check(
    webOutcome.join("\n") === cliOutcome.join("\n"),
    `the outcome shown is the command line's: ${webOutcome.slice(0, 2).join(", ")}\n  page: ${webOutcome.join(" | ")}\n  cli:  ${cliOutcome.join(" | ")}`,
  );

  // Counter-fire at a dodging target: each modifier with its name, value and rule.
  await page.selectOption("#in-action", "counter_fire");
  await page.check("#in-target_dodging");
  await page.check("#in-special_results");
  await page.check("#in-dodging");
  await page.click("#roll");
  await page.waitForFunction(() => document.querySelectorAll("#trace li.step-modifier").length > 0);
  sameTrace(await shownTrace(), section(EXPECTED_MODIFIERS, "trace"), "counter-fire, seed 7");
  const modifiers = await page.$$eval("#trace li.step-modifier", (items) => items.map((li) => li.textContent));
  check(
    modifiers.length >= 2 && modifiers.every((m) => /^modifier ".+" [+-]\d+\s*\[Starleader [\d.]+\]$/.test(m)),
    `modifiers show their name, value and rule: ${modifiers.join("; ")}`,
  );
  await page.screenshot({ path: path.join(ARTIFACTS, "starleader-counter-fire-seed7.png"), fullPage: true });
  await page.selectOption("#in-action", "weapon_fire");
  for (const box of ["target_dodging", "special_results", "dodging"]) await page.uncheck(`#in-${box}`);

  // Step through: one step at a time.
  await page.click("#step");
  const visible = await page.$$eval("#trace li.step", (items) => items.filter((li) => !li.classList.contains("hidden")).length);
  check(visible === 1, `stepping through shows one step first (${visible})`);
  await page.click("#step");
  check((await page.$$eval("#trace li.step:not(.hidden)", (i) => i.length)) === 2, "and then the next");
  await page.screenshot({ path: path.join(ARTIFACTS, "starleader-fire-seed7-steps.png"), fullPage: true });
  await page.click("#roll");

  // The README's snippet, run as the README shows it.
  const doc = await page.evaluate(async () => (await import("./example.js")).default);
  check(JSON.stringify(doc) === JSON.stringify(cliJson), "web/example.js (the README's snippet) gives `roll --json --seed 7`'s document");
  const logged = consoleLines.filter((l) => l.startsWith("roll "));
  check(logged.join("\n") === rolls(cliTrace).map((l) => l.replace(/ \[[^\]]*\]$/, "")).join("\n"), `and logs its dice: ${logged.join("; ")}`);

  // Exact odds, as bars.
  await page.click("#odds");
  await page.waitForSelector("#odds-box:not([hidden]) svg rect");
  const bars = await page.$$eval("#chart rect", (rs) => rs.map((r) => [r.dataset.value, r.dataset.probability]));
  const gcd = (a, b) => (b === 0n ? a : gcd(b, a % b));
  const sums = new Map();
  for (const o of cliOdds.outcomes) {
    const [n2, d2] = o.probability.split("/").map(BigInt);
    const [n1, d1] = sums.get(o.outcome.result) ?? [0n, 1n];
    const n = n1 * d2 + n2 * d1, d = d1 * d2, g = gcd(n, d);
    sums.set(o.outcome.result, [n / g, d / g]);
  }
  const expected = [...sums.entries()].map(([v, [n, d]]) => [v, `${n}/${d}`]);
  check(JSON.stringify(bars) === JSON.stringify(expected), `the odds bars are \`odds --json\`'s exact fractions: ${bars.map((b) => b.join(" ")).join(", ")}`);

  await page.screenshot({ path: path.join(ARTIFACTS, "starleader-fire-seed7.png"), fullPage: true });

  // Exact odds past their branch limit throw, saying so, rather than keep the page busy.
  const limited = await page.evaluate(async () => {
    const { odds } = await import("./pkg/rulebook_wasm.js");
    try {
      odds("starleader.fire", JSON.stringify({ weapon: "Ghazi 10/7" }), 10);
      return "no error";
    } catch (e) {
      return `${e.constructor.name}: ${e.message}`;
    }
  });
  check(limited.startsWith("Error: too many dice outcomes to enumerate exactly (more than 10 branches)"), `odds past max_branches throws: ${limited}`);

  // A mistake is shown with the package's message (the nearest choices), not thrown away.
  await page.selectOption("#in-weapon", "");
  await page.click("#roll");
  const error = await page.textContent("#error");
  check(error.includes("missing required input `weapon`"), `a missing input is reported: ${error}`);
} finally {
  await context.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.log(`\n${failures.length} check(s) failed:\n${failures.join("\n")}`);
  process.exit(1);
}
console.log(`browser test: every check passed; screenshots in ${ARTIFACTS}`);
