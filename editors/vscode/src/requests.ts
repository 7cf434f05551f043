// Settings and request params, without the `vscode` module, so Node's test runner can build
// the very params the extension sends and send them to a real server.

/** An LSP position: 0-based line, character in the negotiated encoding (UTF-16 here). */
export interface Position {
  line: number;
  character: number;
}

export const INTENTS = ['edit', 'rename', 'state', 'review'] as const;
export type Intent = (typeof INTENTS)[number];

export const WINDOW_VIEWS = ['page', 'markdown'] as const;
export type WindowView = (typeof WINDOW_VIEWS)[number];

export interface Settings {
  serverPath: string;
  serverArgs: string[];
  ceiling: number | null;
  intent: Intent;
  windowView: WindowView;
  initializationOptions: Record<string, unknown>;
}

export const DEFAULT_SETTINGS: Settings = {
  serverPath: 'ctxls',
  serverArgs: ['serve'],
  ceiling: null,
  intent: 'edit',
  windowView: 'page',
  initializationOptions: {},
};

/** VS Code language ids the server has grammars for (grammars/: python, typescript, tsx,
 * javascript, go, rust, java, ruby). */
export const LANGUAGES = [
  'python',
  'typescript',
  'typescriptreact',
  'javascript',
  'javascriptreact',
  'go',
  'rust',
  'java',
  'ruby',
] as const;

export function documentSelector(): { scheme: string; language: string }[] {
  return LANGUAGES.map((language) => ({ scheme: 'file', language }));
}

/**
 * Settings from a getter over the `ctxls` section (`workspace.getConfiguration('ctxls').get`).
 * A value of the wrong type falls back to the default rather than reaching the server, which
 * would refuse the whole request for it.
 */
export function readSettings(get: (key: string) => unknown): Settings {
  const serverPath = get('serverPath');
  const serverArgs = get('serverArgs');
  const ceiling = get('ceiling');
  const intent = get('intent');
  const windowView = get('windowView');
  const options = get('initializationOptions');
  return {
    serverPath:
      typeof serverPath === 'string' && serverPath.trim() !== ''
        ? serverPath.trim()
        : DEFAULT_SETTINGS.serverPath,
    serverArgs:
      Array.isArray(serverArgs) && serverArgs.every((a) => typeof a === 'string')
        ? [...serverArgs]
        : [...DEFAULT_SETTINGS.serverArgs],
    ceiling: typeof ceiling === 'number' && Number.isFinite(ceiling) ? Math.floor(ceiling) : null,
    intent: (INTENTS as readonly unknown[]).includes(intent)
      ? (intent as Intent)
      : DEFAULT_SETTINGS.intent,
    windowView: (WINDOW_VIEWS as readonly unknown[]).includes(windowView)
      ? (windowView as WindowView)
      : DEFAULT_SETTINGS.windowView,
    initializationOptions:
      options !== null && typeof options === 'object' && !Array.isArray(options)
        ? { ...(options as Record<string, unknown>) }
        : {},
  };
}

/** `${workspaceFolder}` (and `~/`) in serverPath and serverArgs, as in tasks.json. */
export function serverCommand(
  settings: Settings,
  workspaceFolder?: string,
  home?: string,
): { command: string; args: string[] } {
  const expand = (s: string): string => {
    let out = s;
    if (workspaceFolder !== undefined) out = out.split('${workspaceFolder}').join(workspaceFolder);
    if (home !== undefined && out.startsWith('~/')) out = home + out.slice(1);
    return out;
  };
  return { command: expand(settings.serverPath), args: settings.serverArgs.map(expand) };
}

export interface ConstructParams {
  textDocument: { uri: string };
  target: { position: Position };
  task: string;
  intent: Intent;
  ceiling?: number;
}

/** ctx/construct (and ctx/page, which takes the same params) for the cursor. No ceiling
 * means the server's choice: the policy's first-turn ceiling, else 24000. */
export function constructParams(
  uri: string,
  position: Position,
  task: string,
  settings: Pick<Settings, 'ceiling' | 'intent'>,
): ConstructParams {
  const params: ConstructParams = {
    textDocument: { uri },
    target: { position: { line: position.line, character: position.character } },
    task,
    intent: settings.intent,
  };
  if (settings.ceiling !== null) params.ceiling = settings.ceiling;
  return params;
}

/** ctx/skeleton with the declaration at the cursor in full; without a position, the plain
 * outline. */
export function skeletonParams(
  uri: string,
  position?: Position,
): { textDocument: { uri: string }; target?: { position: Position } } {
  return position === undefined
    ? { textDocument: { uri } }
    : { textDocument: { uri }, target: { position: { ...position } } };
}

export function readSymbolParams(
  uri: string,
  name: string,
): { textDocument: { uri: string }; name: string } {
  return { textDocument: { uri }, name: name.trim() };
}

/** The position encoding the server chose; LSP's default is UTF-16 when it names none. */
export function negotiatedEncoding(capabilities: { positionEncoding?: string } | undefined): string {
  return capabilities?.positionEncoding ?? 'utf-16';
}

const REQUEST_CANCELLED = -32800;

export function isCancellation(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  const e = err as { code?: unknown; name?: unknown };
  return e.code === REQUEST_CANCELLED || e.name === 'Canceled';
}

/** What the user is shown for a failed request: the server's own message, which is written
 * to be acted on ("no symbol `x` in a.py; did you mean `y`?"). */
export function errorText(err: unknown): string {
  if (err !== null && typeof err === 'object') {
    const e = err as { message?: unknown; code?: unknown };
    if (typeof e.message === 'string' && e.message !== '') return `ctxls: ${e.message}`;
  }
  if (typeof err === 'string' && err !== '') return `ctxls: ${err}`;
  return 'ctxls: the request failed (see the ctxls output channel)';
}

export const METHOD_NOT_FOUND = -32601;
