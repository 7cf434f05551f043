// src/extension.ts itself, with the `vscode` module and the LanguageClient replaced by the
// stand-ins in fakes.ts: its commands run end to end against a real `ctxls serve`.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';

import {
  changeSettings,
  editorAt,
  FakeLanguageClient,
  inputAnswers,
  installFakes,
  recorded,
  runCommand,
  settings,
  state,
  textDocument,
  Uri,
} from './fakes';
import { copyWorkspace, serverCommand, snapshot } from './harness';

installFakes();
// Loaded after the fakes are in place, as VS Code would load it with its own module.
const extension = require('../extension') as typeof import('../extension');

function lineOf(file: string, needle: string, from = 0): { line: number; character: number } {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  for (let line = from; line < lines.length; line++) {
    const character = lines[line].indexOf(needle);
    if (character >= 0) return { line, character };
  }
  throw new Error(`${needle} not in ${file}`);
}

describe('the extension in a stand-in VS Code', () => {
  let root: string;
  let pristine: Map<string, string>;
  const memento = new Map<string, unknown>();
  const context = {
    subscriptions: [] as { dispose(): unknown }[],
    workspaceState: {
      get: <T>(key: string, fallback: T): T => (memento.has(key) ? (memento.get(key) as T) : fallback),
      update: async (key: string, value: unknown) => void memento.set(key, value),
    },
  };
  let pricing: string;

  before(async () => {
    root = copyWorkspace();
    pristine = snapshot(root);
    pricing = path.join(root, 'billing', 'pricing.py');
    state.workspaceFolders = [{ uri: Uri.file(root), name: 'workspace' }];
    const [command, ...args] = serverCommand();
    Object.assign(settings, {
      serverPath: command,
      serverArgs: args,
      ceiling: 1500,
      intent: 'edit',
      windowView: 'page',
      initializationOptions: { indexWait: 20 },
    });
    await extension.activate(context as never);
  });

  after(async () => {
    await extension.deactivate();
    for (const c of FakeLanguageClient.instances) {
      assert.equal(c.exitCode, 0, `a server exited with ${c.exitCode}; stderr:\n${c.session?.stderr()}`);
    }
    if (root !== undefined) {
      assert.deepEqual(snapshot(root), pristine, 'the workspace changed');
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  function cursorInComputeLineTotal(): void {
    const def = lineOf(pricing, 'def compute_line_total(');
    const at = lineOf(pricing, '_validate_quantity(quantity)', def.line + 1);
    state.activeTextEditor = editorAt(pricing, at.line, at.character + 3);
  }

  it('starts the server from the settings, with their initializationOptions', () => {
    assert.equal(FakeLanguageClient.instances.length, 1);
    const client = FakeLanguageClient.instances[0];
    assert.deepEqual([client.serverOptions.command, ...client.serverOptions.args], serverCommand());
    assert.deepEqual(client.clientOptions.initializationOptions, { indexWait: 20 });
    assert.ok(client.isRunning());
    assert.equal(recorded.errors.length, 0, recorded.errors.join('\n'));
  });

  it('shows the window at the cursor as the server page, and its figures in the status bar', async () => {
    cursorInComputeLineTotal();
    inputAnswers.push('Bulk tiers should stack with coupons');
    await runCommand('ctxls.showWindow');
    assert.deepEqual(recorded.errors, []);
    assert.equal(recorded.panels.length, 1);
    const panel = recorded.panels[0];
    assert.equal(panel.title, 'ctxls: billing/pricing.py::compute_line_total');
    assert.deepEqual(panel.options, { enableScripts: false, localResourceRoots: [] });
    const tokens = /<body[^>]* data-token-count="(\d+)" data-ceiling="1500"/.exec(panel.webview.html);
    assert.ok(tokens, 'the page has no token count for a 1500 ceiling');
    assert.match(panel.webview.html, /Bulk tiers should stack with coupons/);
    const status = recorded.statusItems[0];
    assert.equal(status.text, `$(symbol-structure) ${tokens[1]} / 1500`);
    assert.ok(status.visible);
    assert.equal(status.command, 'ctxls.showWindow');
  });

  it('offers the last task again, and reuses the panel', async () => {
    cursorInComputeLineTotal();
    inputAnswers.push('Coupons cap at MAX_DISCOUNT');
    await runCommand('ctxls.showWindow');
    assert.equal(recorded.inputBoxes.at(-1)?.value, 'Bulk tiers should stack with coupons');
    assert.equal(recorded.panels.length, 1);
    assert.equal(recorded.panels[0].reveals, 1);
    assert.match(recorded.panels[0].webview.html, /Coupons cap at MAX_DISCOUNT/);
  });

  it('shows the window as Markdown, with the intent the setting names', async () => {
    changeSettings({ intent: 'rename' });
    cursorInComputeLineTotal();
    inputAnswers.push('Rename it to line_total');
    await runCommand('ctxls.showWindowAsDocument');
    changeSettings({ intent: 'edit' });
    assert.deepEqual(recorded.errors, []);
    const doc = recorded.shown.at(-1)!;
    assert.equal(doc.uri, 'ctxls:/window/billing/pricing.py compute_line_total.md');
    assert.match(doc.text, /^# Context window: billing\/pricing\.py::compute_line_total\n\n\*\*\d+ \/ 1500 tokens\*\* · intent `rename`/);
    assert.match(doc.text, /^## E1 · core · verbatim/m);
    assert.match(doc.text, /^## Omitted \(\d+\)$/m);
    // A setting read per command does not restart the server.
    assert.equal(FakeLanguageClient.instances.length, 1);
  });

  it('shows the skeleton with the declaration at the cursor in full', async () => {
    cursorInComputeLineTotal();
    await runCommand('ctxls.showSkeleton');
    const doc = recorded.shown.at(-1)!;
    assert.equal(doc.uri, 'ctxls:/skeleton/billing/pricing.py.md');
    assert.match(doc.text, /^# Skeleton: billing\/pricing\.py\n\nmode `skeleton` · target · \d+ tokens · target `compute_line_total`/);
    assert.match(doc.text, /\|\s+_validate_quantity\(quantity\)/);
  });

  it('reads a symbol, offering the word at the cursor', async () => {
    cursorInComputeLineTotal();
    inputAnswers.push('_validate_quantity');
    await runCommand('ctxls.readSymbol');
    assert.equal(recorded.inputBoxes.at(-1)?.value, '_validate_quantity');
    const doc = recorded.shown.at(-1)!;
    assert.equal(doc.uri, 'ctxls:/symbol/billing/pricing.py _validate_quantity.md');
    assert.match(doc.text, /^# _validate_quantity \(function\): billing\/pricing\.py/);
    assert.match(doc.text, /def _validate_quantity\(quantity: int\) -> int:/);
  });

  it("shows the server's message for a misspelled symbol, once", async () => {
    cursorInComputeLineTotal();
    const before = recorded.shown.length;
    inputAnswers.push('compute_line_totl');
    await runCommand('ctxls.readSymbol');
    assert.equal(recorded.errors.length, 1, recorded.errors.join('\n'));
    assert.match(recorded.errors[0], /^ctxls: no symbol `compute_line_totl` in billing\/pricing\.py; did you mean `compute_line_total`/);
    assert.equal(recorded.shown.length, before);
    recorded.errors.length = 0;
  });

  it('does nothing when the input box is dismissed', async () => {
    cursorInComputeLineTotal();
    const shown = recorded.shown.length;
    const html = recorded.panels[0].webview.html;
    inputAnswers.push(undefined, undefined);
    await runCommand('ctxls.showWindow');
    await runCommand('ctxls.readSymbol');
    assert.equal(recorded.shown.length, shown);
    assert.equal(recorded.panels[0].webview.html, html);
    assert.deepEqual(recorded.errors, []);
  });

  it('builds windows under a cancellable notification and reads under a status bar spinner', async () => {
    cursorInComputeLineTotal();
    const shown = recorded.progress.length;
    inputAnswers.push('t');
    await runCommand('ctxls.showWindow');
    await runCommand('ctxls.showSkeleton');
    assert.deepEqual(
      recorded.progress.slice(shown).map((p) => [p.location, p.cancellable]),
      [
        [15, true], // ProgressLocation.Notification
        [10, false], // ProgressLocation.Window
      ],
    );
  });

  it('drops a window whose request was cancelled, without an error', async () => {
    cursorInComputeLineTotal();
    const html = recorded.panels[0].webview.html;
    const status = recorded.statusItems[0].text;
    state.cancelNextProgress = true;
    inputAnswers.push('A task whose window is cancelled');
    await runCommand('ctxls.showWindow');
    assert.equal(state.cancelNextProgress, false, 'the request was not made under a cancellable progress');
    assert.deepEqual(recorded.errors, []);
    assert.equal(recorded.panels[0].webview.html, html);
    assert.equal(recorded.statusItems[0].text, status);
  });

  it('refuses editors that are not files on disk, and no editor at all', async () => {
    state.activeTextEditor = {
      document: textDocument(new Uri('untitled', 'Untitled-1'), 'x = 1\n'),
      selection: { active: { line: 0, character: 0 } },
    };
    await runCommand('ctxls.showSkeleton');
    state.activeTextEditor = undefined;
    await runCommand('ctxls.showWindow');
    assert.equal(recorded.errors.length, 2);
    assert.match(recorded.errors[0], /^ctxls: only files on disk are served \(this editor shows a untitled: document\)/);
    assert.match(recorded.errors[1], /^ctxls: open a file first/);
    recorded.errors.length = 0;
  });

  it('saves the page outside the workspace for the browser', async () => {
    cursorInComputeLineTotal();
    inputAnswers.push('Bulk tiers should stack with coupons');
    await runCommand('ctxls.openWindowAsPage');
    assert.deepEqual(recorded.errors, []);
    const file = recorded.opened.at(-1)!;
    assert.equal(path.dirname(file), os.tmpdir());
    assert.ok(path.relative(root, file).startsWith('..'), `${file} is in the workspace`);
    assert.match(fs.readFileSync(file, 'utf8'), /data-target="billing\/pricing\.py::compute_line_total"/);
    fs.rmSync(file);
  });

  it('restarts the server when what it is started with changes', async () => {
    changeSettings({ initializationOptions: { indexWait: 15 } });
    // The restart runs in the configuration listener; wait for it, bounded.
    const deadline = Date.now() + 30_000;
    while (!(FakeLanguageClient.instances.length === 2 && FakeLanguageClient.instances[1].isRunning())) {
      assert.ok(Date.now() < deadline, 'the server was not restarted within 30 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(FakeLanguageClient.instances[0].exitCode, 0);
    assert.deepEqual(FakeLanguageClient.instances[1].clientOptions.initializationOptions, { indexWait: 15 });
    cursorInComputeLineTotal();
    await runCommand('ctxls.showSkeleton');
    assert.deepEqual(recorded.errors, []);
    assert.match(recorded.shown.at(-1)!.text, /target `compute_line_total`/);
  });
});
