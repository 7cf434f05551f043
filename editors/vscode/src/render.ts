// Server results as Markdown documents and status bar text, without the `vscode` module.
// Only the fields the renderings read are typed; the server sends more (docs/protocol.md).

export interface LspRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

export interface WindowItem {
  id: string;
  role: string;
  kind: string;
  rendering: string;
  path: string | null;
  symbol: string | null;
  tokens: number;
  text: string;
  pointerTo?: string | null;
  writable?: boolean;
}

export interface OmittedItem {
  id: string;
  reason: string;
  kind: string;
  path: string | null;
  symbol: string | null;
  startLine: number | null;
  endLine: number | null;
}

export interface DecisionContext {
  target: string;
  task: string;
  intent: string;
  window: WindowItem[];
  text: string;
  tokenCount: number;
  ceiling: number;
  omitted: OmittedItem[];
  notes: string[];
  flagged: boolean;
  complete: boolean;
}

export interface SkeletonResult {
  path: string;
  language: string | null;
  text: string;
  mode: string;
  reason: string;
  tokens: number;
  target: string | null;
  notes: string[];
}

export interface ReadSymbolResult {
  symbol: string;
  kind: string;
  path: string;
  language: string | null;
  range: LspRange;
  text: string;
  tokens: number;
  notes: string[];
}

/** What ctx/page answers: the server's own page for the window. */
export interface PageResult {
  html: string;
  target: string;
  tokenCount: number;
  ceiling: number;
  complete: boolean;
}

const EXTENSION_LANGUAGES: Record<string, string> = {
  py: 'python',
  pyi: 'python',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'jsx',
  go: 'go',
  rs: 'rust',
  java: 'java',
  rb: 'ruby',
};

/** The fenced-code language for a path ('' when unknown: a plain fence). */
export function fenceLanguage(path: string | null | undefined): string {
  if (!path) return '';
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return '';
  return EXTENSION_LANGUAGES[path.slice(dot + 1).toLowerCase()] ?? '';
}

/** `text` in a code fence that no run of backticks inside it can close, so the text shows
 * verbatim whatever it holds (Markdown files, docstrings with examples). */
export function fence(text: string, language = ''): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const ticks = '`'.repeat(Math.max(3, longest + 1));
  const body = text.endsWith('\n') ? text : `${text}\n`;
  return `${ticks}${language}\n${body}${ticks}\n`;
}

function where(path: string | null | undefined, symbol: string | null | undefined): string {
  if (path && symbol) return `${path}::${symbol}`;
  return path ?? symbol ?? '';
}

function omittedHandle(o: OmittedItem): string {
  const at = where(o.path, o.symbol);
  const lines = o.startLine !== null && o.endLine !== null ? ` lines ${o.startLine}-${o.endLine}` : '';
  return `${at}${lines}`;
}

/** One line per item: id, role, rendering, tokens and where it comes from. */
export function itemHeader(item: WindowItem): string {
  const parts = [item.id, item.role, item.rendering, `${item.tokens} tokens`];
  const at = where(item.path, item.symbol);
  if (at) parts.push(at);
  if (item.pointerTo) parts.push(`see ${item.pointerTo}`);
  if (item.writable === false) parts.push('read-only');
  return `## ${parts.join(' · ')}`;
}

export function windowSummary(ctx: DecisionContext): string {
  const state = ctx.complete ? 'complete' : 'incomplete (see notes)';
  return (
    `**${ctx.tokenCount} / ${ctx.ceiling} tokens** · intent \`${ctx.intent}\` · ` +
    `${ctx.window.length} items · ${ctx.omitted.length} omitted · ${state}`
  );
}

/** The window as a Markdown document: a summary, then each item's header and its text as
 * the server rendered it (in window order), then what was left out and why. */
export function windowMarkdown(ctx: DecisionContext): string {
  const out: string[] = [`# Context window: ${ctx.target}`, '', windowSummary(ctx), ''];
  if (ctx.flagged) {
    out.push('**Flagged:** the stable core alone did not fit the ceiling and was emitted alone.', '');
  }
  if (ctx.task) {
    out.push(...ctx.task.split('\n').map((line) => `> ${line}`), '');
  }
  if (ctx.notes.length > 0) {
    out.push('Notes:', '', ...ctx.notes.map((n) => `- ${n}`), '');
  }
  for (const item of ctx.window) {
    out.push(itemHeader(item), '', fence(item.text, fenceLanguage(item.path)));
  }
  out.push(`## Omitted (${ctx.omitted.length})`, '');
  if (ctx.omitted.length === 0) {
    out.push('Nothing was left out.');
  } else {
    for (const o of ctx.omitted) {
      const handle = omittedHandle(o);
      out.push(`- **${o.id}** ${o.kind}${handle ? ` \`${handle}\`` : ''}: ${o.reason}`);
    }
  }
  return `${out.join('\n')}\n`;
}

export function skeletonMarkdown(result: SkeletonResult): string {
  const facts = [`mode \`${result.mode}\``, result.reason, `${result.tokens} tokens`];
  if (result.target) facts.push(`target \`${result.target}\``);
  const out = [`# Skeleton: ${result.path}`, '', facts.join(' · '), ''];
  if (result.notes.length > 0) out.push(...result.notes.map((n) => `- ${n}`), '');
  out.push(fence(result.text, fenceLanguage(result.path)));
  return out.join('\n');
}

export function symbolMarkdown(result: ReadSymbolResult): string {
  // The range is LSP's (0-based); people read 1-based lines.
  const lines = `lines ${result.range.start.line + 1}-${result.range.end.line + 1}`;
  const out = [
    `# ${result.symbol} (${result.kind}): ${result.path}`,
    '',
    `${lines} · ${result.tokens} tokens`,
    '',
  ];
  if (result.notes.length > 0) out.push(...result.notes.map((n) => `- ${n}`), '');
  out.push(fence(result.text, fenceLanguage(result.path)));
  return out.join('\n');
}

/** Status bar text for the last window: `tokenCount / ceiling`. */
export function statusText(w: { tokenCount: number; ceiling: number }): string {
  return `$(symbol-structure) ${w.tokenCount} / ${w.ceiling}`;
}

export function statusTooltip(w: {
  target: string;
  tokenCount: number;
  ceiling: number;
  complete: boolean;
}): string {
  const state = w.complete ? '' : ' (incomplete: the index was not whole)';
  return `ctxls: the last context window, for ${w.target}: ${w.tokenCount} of ${w.ceiling} tokens${state}`;
}

/** The path of a virtual document (scheme `ctxls`): one per kind and file (and symbol), so a
 * second request for the same thing replaces the text instead of opening another tab. */
export function virtualPath(kind: 'window' | 'skeleton' | 'symbol', path: string, symbol?: string | null): string {
  const clean = path.replace(/^\/+/, '');
  return `/${kind}/${clean}${symbol ? ` ${symbol}` : ''}.md`;
}
