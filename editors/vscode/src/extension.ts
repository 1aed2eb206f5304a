// The Rulebook extension: starts `rulebook lsp` (the language server of the rulebook binary) for
// .rules files, over stdin and stdout, with vscode-languageclient. The grammar contributions in
// package.json need no code.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { Executable, LanguageClient, LanguageClientOptions } from 'vscode-languageclient/node';

const INSTALL_HINT =
    'Install it from the rulebook repository with "cargo install --path . --locked", ' +
    'or set "rulebook.server.path" to the rulebook program.';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;
// Starts, stops and restarts run one after the other.
let queue: Promise<void> = Promise.resolve();

/** What activate() returns: the running client, for other extensions and for test/smoke.mjs. */
export interface RulebookApi {
    client(): LanguageClient | undefined;
}

export async function activate(context: vscode.ExtensionContext): Promise<RulebookApi> {
    output = vscode.window.createOutputChannel('Rulebook');
    context.subscriptions.push(output);
    context.subscriptions.push(
        vscode.commands.registerCommand('rulebook.restartServer', () => restart()),
        vscode.workspace.onDidChangeConfiguration((e) => {
            if (e.affectsConfiguration('rulebook.server')) {
                void restart();
            }
        }),
        { dispose: () => void enqueue(stop) },
    );
    await enqueue(start);
    return { client: () => client };
}

export function deactivate(): Thenable<void> | undefined {
    return enqueue(stop);
}

function enqueue(job: () => Promise<void>): Promise<void> {
    queue = queue.then(job, job);
    return queue;
}

/** The server command from the settings: the program as found, and its arguments. */
export function serverCommand(): { command: string | undefined; configured: string; args: string[]; cwd: string | undefined } {
    const config = vscode.workspace.getConfiguration('rulebook');
    const configured = (config.get<string>('server.path') ?? '').trim() || 'rulebook';
    const extra = config.get<unknown>('server.extraArgs');
    const extraArgs = Array.isArray(extra) ? extra.filter((a): a is string => typeof a === 'string') : [];
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return { command: findProgram(configured, cwd), configured, args: ['lsp', ...extraArgs], cwd };
}

async function start(): Promise<void> {
    const { command, configured, args, cwd } = serverCommand();
    if (command === undefined) {
        const where = configured.includes('/') || configured.includes('\\') || path.isAbsolute(configured)
            ? `there is no program at "${configured}"`
            : `"${configured}" is not on PATH`;
        output?.appendLine(`Cannot start the rulebook language server: ${where}. ${INSTALL_HINT}`);
        void vscode.window
            .showErrorMessage(`Cannot start the rulebook language server: ${where}. ${INSTALL_HINT}`, 'Open Settings')
            .then((choice) => {
                if (choice === 'Open Settings') {
                    void vscode.commands.executeCommand('workbench.action.openSettings', 'rulebook.server');
                }
            });
        return;
    }
    // No `transport`: the client would add `--stdio`, which `rulebook lsp` does not take; stdio is
    // what it speaks anyway.
    const server: Executable = { command, args, options: cwd ? { cwd } : undefined };
    const clientOptions: LanguageClientOptions = {
        documentSelector: [{ scheme: 'file', language: 'rules' }],
        outputChannel: output,
    };
    output?.appendLine(`Starting ${command} ${args.join(' ')}${cwd ? ` in ${cwd}` : ''}`);
    client = new LanguageClient('rulebook', 'Rulebook', { run: server, debug: server }, clientOptions);
    try {
        await client.start();
    } catch (e) {
        // The client has said so already (a message and the "Rulebook" output); one message is enough.
        output?.appendLine(`The rulebook language server did not start: ${e instanceof Error ? e.message : String(e)}`);
    }
}

async function stop(): Promise<void> {
    const running = client;
    client = undefined;
    if (running) {
        try {
            await running.dispose();
        } catch {
            // A server that never started cannot be stopped.
        }
    }
}

function restart(): Promise<void> {
    return enqueue(async () => {
        await stop();
        await start();
    });
}

/**
 * The program to run for a configured name or path: a path (with a separator, or `~/…`; relative
 * ones from the workspace folder) if a file is there, a bare name from PATH (with PATHEXT on
 * Windows). Undefined when there is none, so that the error can say how to install it.
 */
export function findProgram(configured: string, cwd: string | undefined): string | undefined {
    let name = configured;
    if (name === '~' || name.startsWith('~/') || name.startsWith('~\\')) {
        name = path.join(os.homedir(), name.slice(1));
    }
    const windows = process.platform === 'win32';
    const exts = windows ? ['', ...(process.env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter(Boolean)] : [''];
    const runnable = (file: string): string | undefined => {
        for (const ext of exts) {
            const candidate = file + ext;
            try {
                if (fs.statSync(candidate).isFile()) {
                    if (!windows) {
                        fs.accessSync(candidate, fs.constants.X_OK);
                    }
                    return candidate;
                }
            } catch {
                // Not there, or not executable: the next one.
            }
        }
        return undefined;
    };
    if (path.isAbsolute(name)) {
        return runnable(name);
    }
    if (name.includes('/') || (windows && name.includes('\\'))) {
        return runnable(path.resolve(cwd ?? process.cwd(), name));
    }
    for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
        if (dir) {
            const found = runnable(path.join(dir, name));
            if (found) {
                return found;
            }
        }
    }
    return undefined;
}
