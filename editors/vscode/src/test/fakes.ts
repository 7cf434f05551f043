// Stand-ins for the `vscode` module and vscode-languageclient, so src/extension.ts itself runs
// in Node: its commands, settings, documents, webview and status bar, with requests going to
// a real `ctxls serve`. Only what extension.ts touches is here; VS Code's own behaviour
// (rendering, the languageclient's document sync) is not imitated.

import * as fs from 'node:fs';
import Module = require('node:module');
import { fileURLToPath, pathToFileURL } from 'node:url';

import { CancellationToken, CancellationTokenSource, ResponseError } from 'vscode-jsonrpc/node';

import { Session, startServer } from './harness';

type Listener<T> = (e: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  event = (listener: Listener<T>): { dispose(): void } => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(e: T): void {
    for (const l of this.listeners) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Uri {
  constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  static from(parts: { scheme: string; path: string }): Uri {
    return new Uri(parts.scheme, parts.path);
  }
  static file(p: string): Uri {
    return new Uri('file', p);
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return this.scheme === 'file' ? pathToFileURL(this.path).href : `${this.scheme}:${this.path}`;
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  constructor(
    readonly start: Position,
    readonly end: Position,
  ) {}
}

export interface FakeDocument {
  uri: Uri;
  getText(range?: Range): string;
  getWordRangeAtPosition(p: Position): Range | undefined;
}

/** A document over a file on disk (or any text), with VS Code's default word pattern
 * reduced to identifiers. */
export function textDocument(uri: Uri, text: string): FakeDocument {
  const lines = text.split('\n');
  return {
    uri,
    getText(range?: Range): string {
      if (range === undefined) return text;
      return lines[range.start.line].slice(range.start.character, range.end.character);
    },
    getWordRangeAtPosition(p: Position): Range | undefined {
      const line = lines[p.line] ?? '';
      for (const m of line.matchAll(/\w+/g)) {
        const start = m.index ?? 0;
        if (start <= p.character && p.character <= start + m[0].length) {
          return new Range(new Position(p.line, start), new Position(p.line, start + m[0].length));
        }
      }
      return undefined;
    },
  };
}

export function editorAt(file: string, line: number, character: number): unknown {
  const uri = Uri.file(file);
  return {
    document: textDocument(uri, fs.readFileSync(file, 'utf8')),
    selection: { active: new Position(line, character) },
  };
}

interface StatusBarItem {
  text: string;
  tooltip: string | undefined;
  command: string | undefined;
  visible: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

interface Panel {
  title: string;
  options: unknown;
  webview: { html: string };
  reveals: number;
  reveal(): void;
  onDidDispose(l: () => void): void;
  dispose(): void;
}

/** What the extension did, for the test to read. */
export const recorded = {
  errors: [] as string[],
  inputBoxes: [] as { title?: string; value?: string }[],
  shown: [] as { uri: string; text: string }[],
  panels: [] as Panel[],
  statusItems: [] as StatusBarItem[],
  opened: [] as string[],
  progress: [] as { location: number; title: string; cancellable: boolean }[],
  output: [] as string[],
};

/** Answers the next input boxes get, in order; `undefined` is Escape. */
export const inputAnswers: (string | undefined)[] = [];
export const settings: Record<string, unknown> = {};
export const state = {
  /** The next cancellable progress is cancelled as soon as its task starts (the user's
   * Cancel button). */
  cancelNextProgress: false,
  activeTextEditor: undefined as unknown,
  workspaceFolders: undefined as { uri: Uri; name: string }[] | undefined,
};

const commands = new Map<string, (...args: unknown[]) => unknown>();
const providers = new Map<string, { provideTextDocumentContent(uri: Uri): string }>();
const configListeners = new EventEmitter<{ affectsConfiguration(key: string): boolean }>();

export function runCommand(id: string): Promise<unknown> {
  const fn = commands.get(id);
  if (fn === undefined) throw new Error(`command ${id} is not registered`);
  return Promise.resolve(fn());
}

export function changeSettings(changes: Record<string, unknown>): void {
  Object.assign(settings, changes);
  configListeners.fire({ affectsConfiguration: (key) => Object.keys(changes).some((k) => key === `ctxls.${k}`) });
}

const disposable = { dispose(): void {} };

export const vscode = {
  EventEmitter,
  Uri,
  Position,
  Range,
  ViewColumn: { Active: -1, Beside: -2 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  window: {
    get activeTextEditor(): unknown {
      return state.activeTextEditor;
    },
    createOutputChannel: () => ({
      appendLine: (line: string) => recorded.output.push(line),
      append: () => undefined,
      show: () => undefined,
      dispose: () => undefined,
    }),
    createStatusBarItem: (): StatusBarItem => {
      const item: StatusBarItem = {
        text: '',
        tooltip: undefined,
        command: undefined,
        visible: false,
        show: () => void (item.visible = true),
        hide: () => void (item.visible = false),
        dispose: () => undefined,
      };
      recorded.statusItems.push(item);
      return item;
    },
    showInputBox: async (options: { title?: string; value?: string; validateInput?: (v: string) => unknown }) => {
      recorded.inputBoxes.push({ title: options.title, value: options.value });
      if (inputAnswers.length === 0) throw new Error(`an unexpected input box: ${options.title}`);
      const answer = inputAnswers.shift();
      // VS Code does not accept what the validator refuses.
      if (answer !== undefined && options.validateInput?.(answer)) return undefined;
      return answer;
    },
    showErrorMessage: async (message: string) => {
      recorded.errors.push(message);
      return undefined;
    },
    withProgress: async <R>(
      options: { location: number; title: string; cancellable?: boolean },
      task: (p: unknown, t: CancellationToken) => Promise<R>,
    ): Promise<R> => {
      recorded.progress.push({ location: options.location, title: options.title, cancellable: options.cancellable === true });
      const source = new CancellationTokenSource();
      const running = task({ report: () => undefined }, source.token);
      if (options.cancellable && state.cancelNextProgress) {
        state.cancelNextProgress = false;
        source.cancel();
      }
      return running;
    },
    showTextDocument: async (doc: FakeDocument) => {
      recorded.shown.push({ uri: doc.uri.toString(), text: doc.getText() });
      return {};
    },
    createWebviewPanel: (_type: string, title: string, _column: unknown, options: unknown): Panel => {
      const disposed = new EventEmitter<void>();
      const panel: Panel = {
        title,
        options,
        webview: { html: '' },
        reveals: 0,
        reveal: () => void (panel.reveals += 1),
        onDidDispose: (l) => void disposed.event(l),
        dispose: () => disposed.fire(),
      };
      recorded.panels.push(panel);
      return panel;
    },
  },
  workspace: {
    get workspaceFolders(): unknown {
      return state.workspaceFolders;
    },
    getConfiguration: (section: string) => {
      if (section !== 'ctxls') throw new Error(`unexpected configuration section ${section}`);
      return { get: (key: string) => settings[key] };
    },
    registerTextDocumentContentProvider: (scheme: string, provider: { provideTextDocumentContent(uri: Uri): string }) => {
      providers.set(scheme, provider);
      return disposable;
    },
    openTextDocument: async (uri: Uri) => {
      const provider = providers.get(uri.scheme);
      if (provider === undefined) throw new Error(`no provider for ${uri.scheme}:`);
      return textDocument(uri, provider.provideTextDocumentContent(uri));
    },
    onDidChangeConfiguration: configListeners.event,
  },
  commands: {
    registerCommand: (id: string, fn: (...args: unknown[]) => unknown) => {
      commands.set(id, fn);
      return disposable;
    },
  },
  env: {
    openExternal: async (uri: Uri) => {
      recorded.opened.push(uri.fsPath);
      return true;
    },
  },
};

/** The LanguageClient the extension constructs: it starts the server it is given over
 * stdio and sends `initialize` as vscode-languageclient 9 does (the workspace folders,
 * UTF-16 positions, the initializationOptions), then forwards requests. */
export class FakeLanguageClient {
  static instances: FakeLanguageClient[] = [];
  session: Session | undefined;
  initializeResult: unknown;
  exitCode: number | null | undefined;

  constructor(
    readonly id: string,
    readonly name: string,
    readonly serverOptions: { command: string; args: string[]; transport: unknown },
    readonly clientOptions: { initializationOptions?: Record<string, unknown>; documentSelector: unknown },
  ) {
    FakeLanguageClient.instances.push(this);
  }

  async start(): Promise<void> {
    const folder = state.workspaceFolders?.[0];
    if (folder === undefined) throw new Error('no workspace folder');
    this.session = await startServer(fileURLToPath(folder.uri.toString()), this.clientOptions.initializationOptions ?? {}, {
      cmd: [this.serverOptions.command, ...this.serverOptions.args],
      // The real client does not wait for the scan; ctx/construct waits by itself.
      waitForScan: false,
    });
    this.initializeResult = this.session.initializeResult;
  }

  isRunning(): boolean {
    return this.session !== undefined && this.exitCode === undefined;
  }

  /** Cancelling the token sends $/cancelRequest; the server's -32800 for a request the
   * caller cancelled becomes no value, as vscode-languageclient 9 answers it. */
  async sendRequest<R>(method: string, params: unknown, token?: CancellationToken): Promise<R | undefined> {
    if (this.session === undefined) throw new Error('not started');
    try {
      return await this.session.request<R>(method, params, token);
    } catch (err) {
      if (err instanceof ResponseError && err.code === -32800 && token?.isCancellationRequested) return undefined;
      throw err;
    }
  }

  async stop(): Promise<void> {
    if (this.session !== undefined && this.exitCode === undefined) this.exitCode = await this.session.close();
  }
}

export const languageClient = {
  LanguageClient: FakeLanguageClient,
  RevealOutputChannelOn: { Debug: 0, Info: 1, Warn: 2, Error: 3, Never: 4 },
  TransportKind: { stdio: 0, ipc: 1, pipe: 2, socket: 3 },
};

/** Makes `require('vscode')` and `require('vscode-languageclient/node')` give the fakes. */
export function installFakes(): void {
  const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
  const original = loader._load;
  loader._load = function (request: string, parent: unknown, isMain: boolean): unknown {
    if (request === 'vscode') return vscode;
    if (request === 'vscode-languageclient/node') return languageClient;
    return original.call(this, request, parent, isMain);
  };
}
