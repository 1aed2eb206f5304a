// The extension without VS Code: loads the bundle out/extension.js with a stub of the `vscode`
// module (a Module._load hook) and a recording child_process.spawn, and checks what activate()
// does with the settings:
//   - the server it starts is rulebook.server.path with ["lsp", ...rulebook.server.extraArgs],
//     in the first workspace folder, and nothing else (no `--stdio`, which `rulebook lsp` refuses);
//   - "Rulebook: Restart language server", and a change to rulebook.server.*, start it again
//     with the settings as they are then;
//   - a program that is not there gives one error message that says how to install it, and no
//     process is started;
//   - with a real rulebook binary ($RULEBOOK_BIN, which must then be there, else
//     ../../target/{release,debug}/rulebook when one is; skipped without), the client really
//     starts `rulebook lsp` and gets through `initialize`.
// With `--vsix FILE` it checks the packaged extension instead: a zip holding
// extension/package.json (whose main is there), extension/out/extension.js and the grammars
// (the same bytes as syntaxes/), and neither sources nor node_modules.
//
//   node test/smoke.mjs               after bundling (npm run bundle)
//   node test/smoke.mjs --vsix FILE   after packaging
import assert from 'node:assert/strict';
import childProcess from 'node:child_process';
import fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
const extensionDir = path.resolve(here, '..');
const bundle = path.join(extensionDir, 'out', 'extension.js');
const require = createRequire(import.meta.url);

const vsixAt = process.argv.indexOf('--vsix');
if (vsixAt >= 0) {
    checkVsix(process.argv[vsixAt + 1]);
} else {
    checkBundle();
}

// ---------------------------------------------------------------------------------------------
// A stub of the `vscode` module: what the extension and vscode-languageclient touch, recorded;
// anything else is a "whatever" that can be called, constructed, extended and disposed.

function whatever() {
    const target = function () {};
    return new Proxy(target, {
        get(t, key) {
            if (key === 'then') return undefined; // not a promise
            if (key === 'prototype') return t.prototype;
            if (key === Symbol.toPrimitive) return () => '';
            if (key === Symbol.iterator) return function* () {};
            if (key === 'dispose') return () => {};
            if (key in t) return t[key];
            return whatever();
        },
        apply: () => whatever(),
        construct: () => whatever(),
    });
}

class Disposable {
    constructor(fn) {
        this.fn = fn;
    }
    static from(...items) {
        return new Disposable(() => items.forEach((d) => d?.dispose?.()));
    }
    dispose() {
        this.fn?.();
    }
}

class EventEmitter {
    constructor() {
        this.listeners = [];
        this.event = (listener) => {
            this.listeners.push(listener);
            return new Disposable(() => (this.listeners = this.listeners.filter((l) => l !== listener)));
        };
    }
    fire(e) {
        this.listeners.forEach((l) => l(e));
    }
    dispose() {
        this.listeners = [];
    }
}

const noEvent = () => new Disposable();

function makeVscode(settings, folder) {
    const log = { errors: [], warnings: [], infos: [], commands: new Map(), output: [] };
    const configChanged = new EventEmitter();
    const outputChannel = (name) => ({
        name,
        append: (s) => log.output.push(String(s)),
        appendLine: (s) => log.output.push(String(s)),
        replace: () => {},
        clear: () => {},
        show: () => {},
        hide: () => {},
        dispose: () => {},
    });
    const Uri = {
        file: (p) => ({ scheme: 'file', fsPath: p, path: p, toString: () => `file://${p}` }),
        parse: (s) => ({ scheme: s.split(':')[0], fsPath: s.replace(/^file:\/\//, ''), path: s, toString: () => s }),
    };
    const vscode = {
        version: '1.82.0',
        Disposable,
        EventEmitter,
        Uri,
        window: {
            createOutputChannel: outputChannel,
            showErrorMessage: (msg, ...items) => (log.errors.push(msg), Promise.resolve(undefined)),
            showWarningMessage: (msg) => (log.warnings.push(msg), Promise.resolve(undefined)),
            showInformationMessage: (msg) => (log.infos.push(msg), Promise.resolve(undefined)),
            visibleTextEditors: [],
            activeTextEditor: undefined,
            onDidChangeVisibleTextEditors: noEvent,
            onDidChangeActiveTextEditor: noEvent,
            tabGroups: { all: [], onDidChangeTabs: noEvent, onDidChangeTabGroups: noEvent },
        },
        workspace: {
            workspaceFolders: folder ? [{ uri: Uri.file(folder), name: path.basename(folder), index: 0 }] : undefined,
            textDocuments: [],
            notebookDocuments: [],
            getConfiguration: (section) => ({
                get: (key, fallback) => {
                    const full = section ? `${section}.${key}` : key;
                    return full in settings ? settings[full] : fallback;
                },
                has: (key) => `${section}.${key}` in settings,
                inspect: () => undefined,
                update: () => Promise.resolve(),
            }),
            getWorkspaceFolder: () => undefined,
            onDidChangeConfiguration: configChanged.event,
            onDidOpenTextDocument: noEvent,
            onDidChangeTextDocument: noEvent,
            onDidCloseTextDocument: noEvent,
            onDidSaveTextDocument: noEvent,
            onWillSaveTextDocument: noEvent,
            onDidChangeWorkspaceFolders: noEvent,
            onDidCreateFiles: noEvent,
            onDidRenameFiles: noEvent,
            onDidDeleteFiles: noEvent,
            onWillCreateFiles: noEvent,
            onWillRenameFiles: noEvent,
            onWillDeleteFiles: noEvent,
            createFileSystemWatcher: () => ({ onDidCreate: noEvent, onDidChange: noEvent, onDidDelete: noEvent, dispose() {} }),
        },
        commands: {
            registerCommand: (id, fn) => (log.commands.set(id, fn), new Disposable(() => log.commands.delete(id))),
            executeCommand: () => Promise.resolve(undefined),
        },
        languages: {
            createDiagnosticCollection: () => ({ set() {}, delete() {}, clear() {}, forEach() {}, get: () => [], has: () => false, dispose() {} }),
            match: () => 0,
        },
        env: { language: 'en', appName: 'stub', machineId: 'stub', sessionId: 'stub' },
    };
    const withFallback = (obj) =>
        new Proxy(obj, {
            get(t, key) {
                if (key in t) {
                    const v = t[key];
                    return v && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype ? withFallback(v) : v;
                }
                if (key === 'then' || typeof key === 'symbol') return undefined;
                return whatever();
            },
        });
    return { vscode: withFallback(vscode), log, fireConfigChange: (section) => configChanged.fire({ affectsConfiguration: (s) => s === section || section.startsWith(`${s}.`) }) };
}

// ---------------------------------------------------------------------------------------------
// Loading the bundle afresh with a stub, and recording spawn.

const realLoad = Module._load;
const realSpawn = childProcess.spawn;
let stub;
Module._load = function (request, parent, isMain) {
    if (request === 'vscode') {
        if (!stub) throw new Error('the vscode stub is not set');
        return stub.vscode;
    }
    return realLoad.call(this, request, parent, isMain);
};

function loadExtension(settings, folder) {
    stub = makeVscode(settings, folder);
    delete require.cache[require.resolve(bundle)];
    return { ext: require(bundle), ...stub };
}

/** spawn records its calls and starts nothing: the client sees a process that did not start. */
function recordSpawns() {
    const calls = [];
    childProcess.spawn = (command, args, options) => {
        calls.push({ command, args, options });
        return null;
    };
    return calls;
}

function context() {
    return { subscriptions: [], extensionPath: extensionDir, extensionUri: { fsPath: extensionDir } };
}

/** A workspace folder with rules-src/ and an executable fake-rulebook, removed after the test. */
function tempWorkspace(t) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rulebook-vscode-smoke-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.mkdirSync(path.join(dir, 'rules-src'));
    const fake = path.join(dir, 'fake-rulebook');
    fs.writeFileSync(fake, '#!/bin/sh\nexit 1\n');
    fs.chmodSync(fake, 0o755);
    return { dir, fake };
}

function checkBundle() {
    test('the bundle is there', () => {
        assert.ok(fs.existsSync(bundle), `${bundle} is missing: run npm run bundle first`);
    });

    test('activate starts the configured program with ["lsp", ...extraArgs] in the workspace folder', async (t) => {
        t.after(() => (childProcess.spawn = realSpawn));
        const { dir, fake } = tempWorkspace(t);
        const spawns = recordSpawns();
        const settings = { 'rulebook.server.path': fake, 'rulebook.server.extraArgs': ['--rules', 'rules-src'] };
        const { ext, log } = loadExtension(settings, dir);
        const api = await ext.activate(context());
        assert.equal(spawns.length, 1, `one process started, not ${spawns.length}`);
        assert.equal(spawns[0].command, fake);
        assert.deepEqual(spawns[0].args, ['lsp', '--rules', 'rules-src']);
        assert.equal(spawns[0].options?.cwd, dir);
        assert.ok(api && typeof api.client === 'function', 'activate returns { client() }');
        const client = api.client();
        assert.ok(client, 'a LanguageClient was made');
        assert.equal(client.name, 'Rulebook');
        assert.deepEqual(client.clientOptions.documentSelector, [{ scheme: 'file', language: 'rules' }]);
        assert.ok(log.commands.has('rulebook.restartServer'), 'the restart command is registered');
        await ext.deactivate();
    });

    test('a bare name is looked up on PATH; a restart (the command, a settings change) takes the settings as they are then', async (t) => {
        const { dir, fake } = tempWorkspace(t);
        const oldPath = process.env.PATH;
        t.after(() => {
            childProcess.spawn = realSpawn;
            process.env.PATH = oldPath;
        });
        process.env.PATH = `${dir}${path.delimiter}${oldPath}`;
        const spawns = recordSpawns();
        const settings = { 'rulebook.server.path': 'fake-rulebook' };
        const { ext, log, fireConfigChange } = loadExtension(settings, dir);
        await ext.activate(context());
        assert.equal(spawns.length, 1);
        assert.equal(spawns[0].command, fake);
        assert.deepEqual(spawns[0].args, ['lsp'], 'no extraArgs: just lsp');
        settings['rulebook.server.extraArgs'] = ['--rules', 'elsewhere'];
        await log.commands.get('rulebook.restartServer')();
        assert.equal(spawns.length, 2, 'the restart started the server again');
        assert.deepEqual(spawns[1].args, ['lsp', '--rules', 'elsewhere']);
        // A change to rulebook.server.* restarts it; one to the trace does not.
        settings['rulebook.server.extraArgs'] = ['--rules', 'third'];
        fireConfigChange('rulebook.trace.server');
        fireConfigChange('rulebook.server.extraArgs');
        await ext.deactivate(); // after the restart: one queue
        assert.equal(spawns.length, 3, 'one restart for the change of rulebook.server.extraArgs');
        assert.deepEqual(spawns[2].args, ['lsp', '--rules', 'third']);
    });

    for (const [what, configured, says] of [
        ['a missing path', '/nonexistent/bin/rulebook', 'there is no program at "/nonexistent/bin/rulebook"'],
        ['a name not on PATH', 'rulebook-not-installed-anywhere', '"rulebook-not-installed-anywhere" is not on PATH'],
    ]) {
        test(`${what}: one error saying how to install it, and no process`, async (t) => {
            t.after(() => (childProcess.spawn = realSpawn));
            const { dir } = tempWorkspace(t);
            const spawns = recordSpawns();
            const { ext, log } = loadExtension({ 'rulebook.server.path': configured }, dir);
            const api = await ext.activate(context());
            assert.equal(spawns.length, 0, 'nothing was started');
            assert.equal(api.client(), undefined);
            assert.equal(log.errors.length, 1, `one error message, not: ${JSON.stringify(log.errors)}`);
            assert.match(log.errors[0], new RegExp(says.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
            assert.match(log.errors[0], /cargo install --path \. --locked/);
            assert.match(log.errors[0], /rulebook\.server\.path/);
            assert.doesNotMatch(log.errors[0], /\n\s+at /, 'no stack trace');
            await ext.deactivate();
        });
    }

    // $RULEBOOK_BIN when set (then it must be there), else a binary the repository built.
    const real = process.env.RULEBOOK_BIN
        ? path.resolve(process.env.RULEBOOK_BIN)
        : ['release', 'debug'].map((p) => path.resolve(extensionDir, '../../target', p, 'rulebook')).find((p) => fs.existsSync(p));
    test('with the real binary, the client gets through initialize', { skip: real ? false : 'no rulebook binary (set RULEBOOK_BIN)' }, async (t) => {
        const { dir } = tempWorkspace(t);
        const { ext, log } = loadExtension({ 'rulebook.server.path': real, 'rulebook.server.extraArgs': ['--rules', 'rules-src'] }, dir);
        const api = await ext.activate(context());
        const client = api.client();
        assert.ok(client, 'a LanguageClient was made');
        assert.equal(client.isRunning(), true, `the client runs; its output: ${log.output.join('\n')}`);
        const caps = client.initializeResult?.capabilities;
        assert.ok(caps?.hoverProvider, 'the server offers hover');
        assert.ok(caps?.definitionProvider, 'the server offers go to definition');
        assert.deepEqual(log.errors, []);
        await ext.deactivate();
        assert.equal(client.isRunning(), false, 'deactivate stops it');
    });
}

// ---------------------------------------------------------------------------------------------
// The .vsix: a zip, read with its central directory.

function zipEntries(file) {
    const buf = fs.readFileSync(file);
    let eocd = -1;
    for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65535); i--) {
        if (buf.readUInt32LE(i) === 0x06054b50) {
            eocd = i;
            break;
        }
    }
    assert.ok(eocd >= 0, `${file} is not a zip`);
    const count = buf.readUInt16LE(eocd + 10);
    let at = buf.readUInt32LE(eocd + 16);
    const entries = new Map();
    for (let n = 0; n < count; n++) {
        assert.equal(buf.readUInt32LE(at), 0x02014b50, 'a central directory entry');
        const method = buf.readUInt16LE(at + 10);
        const size = buf.readUInt32LE(at + 20);
        const nameLen = buf.readUInt16LE(at + 28);
        const extraLen = buf.readUInt16LE(at + 30);
        const commentLen = buf.readUInt16LE(at + 32);
        const local = buf.readUInt32LE(at + 42);
        const name = buf.toString('utf8', at + 46, at + 46 + nameLen);
        entries.set(name, () => {
            const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
            const data = buf.subarray(start, start + size);
            return method === 0 ? data : zlib.inflateRawSync(data);
        });
        at += 46 + nameLen + extraLen + commentLen;
    }
    return entries;
}

function checkVsix(file) {
    test(`the package ${file}`, () => {
        assert.ok(file && fs.existsSync(file), `no .vsix at ${file}`);
        const entries = zipEntries(file);
        const names = [...entries.keys()];
        for (const name of [
            'extension.vsixmanifest',
            'extension/package.json',
            'extension/out/extension.js',
            'extension/language-configuration.json',
            'extension/syntaxes/rules.tmLanguage.json',
            'extension/syntaxes/rules.markdown.tmLanguage.json',
        ]) {
            assert.ok(entries.has(name), `${name} is in it (it holds: ${names.join(', ')})`);
        }
        const manifest = JSON.parse(entries.get('extension/package.json')().toString('utf8'));
        assert.equal(manifest.main, './out/extension.js');
        for (const grammar of manifest.contributes.grammars) {
            const inZip = `extension/${path.posix.normalize(grammar.path)}`;
            assert.ok(entries.has(inZip), `the grammar ${grammar.path} is in it`);
            assert.ok(
                entries.get(inZip)().equals(fs.readFileSync(path.join(extensionDir, grammar.path))),
                `${grammar.path} is the same as in the folder`,
            );
        }
        assert.ok(entries.get('extension/out/extension.js')().equals(fs.readFileSync(bundle)), 'the bundle packaged is the one built');
        const stray = names.filter((n) => /^extension\/(node_modules|src|test)\//.test(n) || n.endsWith('.ts') || n.endsWith('.map'));
        assert.deepEqual(stray, [], 'no sources, tests or node_modules');
    });
}
