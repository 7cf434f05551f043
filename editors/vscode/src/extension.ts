// The VS Code side: starts `ctxls serve` through vscode-languageclient and turns the ctx/*
// requests into a webview, read-only documents and a status bar item. Everything that does
// not need the `vscode` module lives in requests.ts, render.ts and webview.ts (tested in Node).

import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';

import {
  DecisionContext,
  PageResult,
  ReadSymbolResult,
  SkeletonResult,
  skeletonMarkdown,
  statusText,
  statusTooltip,
  symbolMarkdown,
  virtualPath,
  windowMarkdown,
} from './render';
import {
  constructParams,
  documentSelector,
  errorText,
  isCancellation,
  METHOD_NOT_FOUND,
  negotiatedEncoding,
  Position,
  readSettings,
  readSymbolParams,
  serverCommand,
  Settings,
  skeletonParams,
  WindowView,
} from './requests';
import { pageFileName, webviewHtml } from './webview';

const SCHEME = 'ctxls';
const LAST_TASK = 'ctxls.lastTask';

/** Read-only documents under `ctxls:`; their text is whatever was last set for the URI. */
class VirtualDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  async show(pathInScheme: string, text: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: SCHEME, path: pathInScheme });
    this.texts.set(uri.toString(), text);
    // An open document keeps its old text until told it changed.
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, {
      preview: true,
      viewColumn: vscode.ViewColumn.Beside,
      preserveFocus: false,
    });
  }

  dispose(): void {
    this.changed.dispose();
  }
}

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let status: vscode.StatusBarItem;
let panel: vscode.WebviewPanel | undefined;
const documents = new VirtualDocuments();

function settings(): Settings {
  const config = vscode.workspace.getConfiguration('ctxls');
  return readSettings((key) => config.get(key));
}

async function startClient(): Promise<void> {
  const s = settings();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const { command, args } = serverCommand(s, folder, os.homedir());
  const serverOptions: ServerOptions = {
    command,
    args,
    transport: TransportKind.stdio,
    options: folder === undefined ? {} : { cwd: folder },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(),
    initializationOptions: s.initializationOptions,
    outputChannel: output,
    // Failed ctx/* requests are shown once, with the server's message, by the commands
    // below; the client's own "Request failed" popup would say it twice.
    revealOutputChannelOn: RevealOutputChannelOn.Never,
  };
  const next = new LanguageClient('ctxls', 'ctxls', serverOptions, clientOptions);
  client = next;
  try {
    await next.start();
  } catch (err) {
    void vscode.window.showErrorMessage(
      `ctxls: could not start \`${[command, ...args].join(' ')}\` (${errorText(err).replace(/^ctxls: /, '')}). ` +
        'Set ctxls.serverPath to the ctxls executable, e.g. ${workspaceFolder}/.venv/bin/ctxls.',
    );
    return;
  }
  // VS Code's positions are UTF-16 and the client offers only that; a server that chose
  // otherwise would misread every cursor after a non-ASCII character.
  const encoding = negotiatedEncoding(next.initializeResult?.capabilities);
  if (encoding !== 'utf-16') {
    output.appendLine(`ctxls: the server chose position encoding ${encoding}; VS Code sends utf-16`);
  }
}

async function stopClient(): Promise<void> {
  const old = client;
  client = undefined;
  if (old !== undefined && old.isRunning()) await old.stop();
}

function runningClient(): LanguageClient {
  if (client === undefined || !client.isRunning()) {
    throw new Error('the server is not running (see the ctxls output channel, or run "ctxls: Restart Server")');
  }
  return client;
}

/** The active editor's file and cursor; the server reads files, so other schemes are refused. */
function cursor(): { editor: vscode.TextEditor; uri: string; position: Position } {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) throw new Error('open a file first: the window is built for the cursor');
  if (editor.document.uri.scheme !== 'file') {
    throw new Error(`only files on disk are served (this editor shows a ${editor.document.uri.scheme}: document)`);
  }
  const active = editor.selection.active;
  return {
    editor,
    uri: editor.document.uri.toString(),
    position: { line: active.line, character: active.character },
  };
}

/** A server request under a progress indicator; undefined when cancelled. A window can wait
 * for the scan (up to indexWait, 10 s), so it gets a notification with a Cancel button;
 * reads of one file answer in milliseconds and only spin in the status bar. */
async function request<R>(
  title: string,
  method: string,
  params: unknown,
  slow = false,
): Promise<R | undefined> {
  const c = runningClient();
  const location = slow ? vscode.ProgressLocation.Notification : vscode.ProgressLocation.Window;
  return vscode.window.withProgress(
    { location, title, cancellable: slow },
    async (_progress, token) => {
      const result = await c.sendRequest<R>(method, params, token);
      // The client answers a cancelled request with no value instead of an error.
      return token.isCancellationRequested ? undefined : result;
    },
  );
}

function command(fn: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await fn();
    } catch (err) {
      if (isCancellation(err)) return;
      output.appendLine(errorText(err));
      void vscode.window.showErrorMessage(errorText(err));
    }
  };
}

function showStatus(w: { target: string; tokenCount: number; ceiling: number; complete: boolean }): void {
  status.text = statusText(w);
  status.tooltip = statusTooltip(w);
  status.show();
}

function splitTarget(target: string): { path: string; symbol: string | null } {
  const at = target.indexOf('::');
  return at < 0 ? { path: target, symbol: null } : { path: target.slice(0, at), symbol: target.slice(at + 2) };
}

async function askTask(context: vscode.ExtensionContext): Promise<string | undefined> {
  const task = await vscode.window.showInputBox({
    title: 'ctxls: context window at the cursor',
    prompt: 'The task (the ticket text, verbatim in the window; may be empty)',
    value: context.workspaceState.get<string>(LAST_TASK, ''),
    ignoreFocusOut: true,
  });
  if (task !== undefined) await context.workspaceState.update(LAST_TASK, task);
  return task;
}

async function showMarkdownWindow(params: unknown): Promise<void> {
  const ctx = await request<DecisionContext>('ctxls: building the context window', 'ctx/construct', params, true);
  if (ctx === undefined) return;
  showStatus(ctx);
  const { path: file, symbol } = splitTarget(ctx.target);
  await documents.show(virtualPath('window', file, symbol), windowMarkdown(ctx));
}

function showPanel(page: PageResult): void {
  const title = `ctxls: ${page.target}`;
  if (panel === undefined) {
    panel = vscode.window.createWebviewPanel('ctxls.window', title, vscode.ViewColumn.Beside, {
      // The page is static HTML: no scripts, no local resources.
      enableScripts: false,
      localResourceRoots: [],
    });
    panel.onDidDispose(() => {
      panel = undefined;
    });
  } else {
    panel.title = title;
    panel.reveal(vscode.ViewColumn.Beside);
  }
  panel.webview.html = webviewHtml(page.html);
}

async function showWindow(context: vscode.ExtensionContext, view: WindowView): Promise<void> {
  const { uri, position } = cursor();
  const task = await askTask(context);
  if (task === undefined) return;
  const params = constructParams(uri, position, task, settings());
  if (view === 'markdown') {
    await showMarkdownWindow(params);
    return;
  }
  let page: PageResult | undefined;
  try {
    page = await request<PageResult>('ctxls: building the context window', 'ctx/page', params, true);
  } catch (err) {
    // A server older than ctx/page still builds windows: show the Markdown document.
    if ((err as { code?: unknown }).code !== METHOD_NOT_FOUND) throw err;
    output.appendLine('ctxls: the server has no ctx/page; showing the window as Markdown');
    await showMarkdownWindow(params);
    return;
  }
  if (page === undefined) return;
  showStatus(page);
  showPanel(page);
}

async function openWindowAsPage(context: vscode.ExtensionContext): Promise<void> {
  const { uri, position } = cursor();
  const task = await askTask(context);
  if (task === undefined) return;
  const params = constructParams(uri, position, task, settings());
  const page = await request<PageResult>('ctxls: building the page', 'ctx/page', params, true);
  if (page === undefined) return;
  showStatus(page);
  // The temp folder, never the workspace: nothing of ctxls writes into a user's sources.
  const file = path.join(os.tmpdir(), pageFileName(page.target));
  await fs.writeFile(file, page.html, 'utf8');
  await vscode.env.openExternal(vscode.Uri.file(file));
}

async function showSkeleton(): Promise<void> {
  const { uri, position } = cursor();
  const result = await request<SkeletonResult>('ctxls: skeleton', 'ctx/skeleton', skeletonParams(uri, position));
  if (result === undefined) return;
  await documents.show(virtualPath('skeleton', result.path), skeletonMarkdown(result));
}

async function readSymbol(): Promise<void> {
  const { editor, uri, position } = cursor();
  const word = editor.document.getWordRangeAtPosition(new vscode.Position(position.line, position.character));
  const name = await vscode.window.showInputBox({
    title: 'ctxls: read symbol',
    prompt: 'A declaration in this file, by (qualified) name: ShardedLRUCache._evict',
    value: word === undefined ? '' : editor.document.getText(word),
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? 'a name is needed' : undefined),
  });
  if (name === undefined) return;
  const result = await request<ReadSymbolResult>('ctxls: read symbol', 'ctx/readSymbol', readSymbolParams(uri, name));
  if (result === undefined) return;
  await documents.show(virtualPath('symbol', result.path, result.symbol), symbolMarkdown(result));
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('ctxls');
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = 'ctxls.showWindow';
  context.subscriptions.push(
    output,
    status,
    documents,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, documents),
    vscode.commands.registerCommand(
      'ctxls.showWindow',
      command(() => showWindow(context, settings().windowView)),
    ),
    vscode.commands.registerCommand(
      'ctxls.showWindowAsDocument',
      command(() => showWindow(context, 'markdown')),
    ),
    vscode.commands.registerCommand('ctxls.openWindowAsPage', command(() => openWindowAsPage(context))),
    vscode.commands.registerCommand('ctxls.showSkeleton', command(showSkeleton)),
    vscode.commands.registerCommand('ctxls.readSymbol', command(readSymbol)),
    vscode.commands.registerCommand(
      'ctxls.restartServer',
      command(async () => {
        await stopClient();
        await startClient();
      }),
    ),
    vscode.workspace.onDidChangeConfiguration((e) => {
      // What the server process is started with; ceiling and intent are read per request.
      if (['serverPath', 'serverArgs', 'initializationOptions'].some((k) => e.affectsConfiguration(`ctxls.${k}`))) {
        void command(async () => {
          await stopClient();
          await startClient();
        })();
      }
    }),
  );
  await startClient();
}

export async function deactivate(): Promise<void> {
  await stopClient();
}
