// The extension's request builders and renderings against a real `ctxls serve`: the params
// are the ones the commands send, the documents the ones they open.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';

import {
  DecisionContext,
  PageResult,
  ReadSymbolResult,
  SkeletonResult,
  skeletonMarkdown,
  statusText,
  symbolMarkdown,
  windowMarkdown,
} from '../render';
import {
  constructParams,
  DEFAULT_SETTINGS,
  errorText,
  negotiatedEncoding,
  Position,
  readSettings,
  readSymbolParams,
  skeletonParams,
} from '../requests';
import { hasCsp, webviewHtml } from '../webview';
import { copyWorkspace, fileUri, Session, snapshot, startServer } from './harness';

/** Where `needle` starts on the first line (after line `from`) that holds it; the column is a
 * JS string index, i.e. UTF-16 code units, which is what VS Code's Position carries. */
function positionOf(root: string, rel: string, needle: string, from = 0): Position {
  const lines = fs.readFileSync(path.join(root, rel), 'utf8').split('\n');
  for (let line = from; line < lines.length; line++) {
    const character = lines[line].indexOf(needle);
    if (character >= 0) return { line, character };
  }
  throw new Error(`${needle} not in ${rel}`);
}

/** A cursor on the first statement of compute_line_total's body. */
function cursorInComputeLineTotal(root: string): Position {
  const def = positionOf(root, 'billing/pricing.py', 'def compute_line_total(');
  return positionOf(root, 'billing/pricing.py', '_validate_quantity(quantity)', def.line + 1);
}

/** Each of `parts` occurs in `text`, in this order, none overlapping the one before. */
function assertInOrder(text: string, parts: string[], label: (i: number) => string): void {
  let at = 0;
  parts.forEach((part, i) => {
    const found = text.indexOf(part, at);
    assert.ok(found >= 0, `${label(i)} is missing from the rendering (or out of order)`);
    at = found + part.length;
  });
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  assert.fail('the request succeeded; an error was expected');
}

describe('settings to params', () => {
  it('maps ceiling and intent onto ctx/construct, and leaves the ceiling to the server when unset', () => {
    const s = readSettings((key) => ({ ceiling: 4000.7, intent: 'rename' })[key as 'ceiling' | 'intent']);
    const p = constructParams('file:///w/a.py', { line: 3, character: 7 }, 'task text', s);
    assert.deepEqual(p, {
      textDocument: { uri: 'file:///w/a.py' },
      target: { position: { line: 3, character: 7 } },
      task: 'task text',
      intent: 'rename',
      ceiling: 4000,
    });
    const defaults = constructParams('file:///w/a.py', { line: 0, character: 0 }, '', readSettings(() => undefined));
    assert.equal('ceiling' in defaults, false);
    assert.equal(defaults.intent, 'edit');
  });

  it('falls back to the defaults for values of the wrong type', () => {
    const bad: Record<string, unknown> = {
      serverPath: '  ',
      serverArgs: ['serve', 3],
      ceiling: 'lots',
      intent: 'refactor',
      windowView: 'pdf',
      initializationOptions: ['x'],
    };
    assert.deepEqual(readSettings((k) => bad[k]), DEFAULT_SETTINGS);
  });
});

describe('against ctxls serve', () => {
  let root: string;
  let before_: Map<string, string>;
  let server: Session;

  before(async () => {
    root = copyWorkspace();
    before_ = snapshot(root);
    server = await startServer(root);
  });

  after(async () => {
    if (server !== undefined) {
      const code = await server.close();
      assert.equal(code, 0, `the server exited with ${code}; stderr:\n${server.stderr()}`);
    }
    // The server reads the workspace and writes nothing there.
    if (root !== undefined) {
      assert.deepEqual(snapshot(root), before_);
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('negotiates UTF-16 positions, which is what VS Code sends', () => {
    assert.equal(negotiatedEncoding(server.initializeResult.capabilities), 'utf-16');
  });

  it('builds the window at the cursor and renders every item, the figures and the omissions', async () => {
    const uri = fileUri(root, 'billing/pricing.py');
    // A ceiling low enough that something must be left out.
    const params = constructParams(uri, cursorInComputeLineTotal(root), 'Bulk tiers should stack with coupons', {
      ceiling: 1500,
      intent: 'edit',
    });
    const ctx = await server.request<DecisionContext>('ctx/construct', params);
    assert.equal(ctx.target, 'billing/pricing.py::compute_line_total');
    assert.equal(ctx.ceiling, 1500);
    assert.ok(ctx.tokenCount > 0 && ctx.tokenCount <= 1500, `tokenCount ${ctx.tokenCount}`);
    assert.ok(ctx.window.length >= 3, `only ${ctx.window.length} items`);
    assert.ok(ctx.omitted.length >= 1, 'nothing was omitted at a 1500-token ceiling');

    const md = windowMarkdown(ctx);
    const head = md.split('\n').slice(0, 4).join('\n');
    assert.match(head, new RegExp(`${ctx.tokenCount} / ${ctx.ceiling} tokens`));
    assert.match(head, /billing\/pricing\.py::compute_line_total/);
    assertInOrder(
      md,
      ctx.window.flatMap((item) => [`## ${item.id} · ${item.role} · ${item.rendering} · ${item.tokens} tokens`, item.text]),
      (i) => `item ${ctx.window[Math.floor(i / 2)].id}'s ${i % 2 === 0 ? 'header' : 'text'}`,
    );
    const omittedAt = md.indexOf(`## Omitted (${ctx.omitted.length})`);
    assert.ok(omittedAt > md.indexOf(ctx.window[ctx.window.length - 1].text), 'the omitted list comes last');
    assertInOrder(
      md.slice(omittedAt),
      ctx.omitted.flatMap((o) => [`**${o.id}**`, o.reason]),
      (i) => `omitted ${ctx.omitted[Math.floor(i / 2)].id}`,
    );
    // The body the cursor is in is shown in full, with its original line number.
    const cursorLine = cursorInComputeLineTotal(root).line + 1;
    assert.match(md, new RegExp(`\\n\\s*${cursorLine} \\|\\s+_validate_quantity\\(quantity\\)`));
    assert.equal(statusText(ctx), `$(symbol-structure) ${ctx.tokenCount} / 1500`);
  });

  it('sends the intent and ceiling settings to the server', async () => {
    const uri = fileUri(root, 'billing/pricing.py');
    const s = readSettings((k) => ({ ceiling: 3000, intent: 'rename' })[k as 'ceiling' | 'intent']);
    const ctx = await server.request<DecisionContext>('ctx/construct', constructParams(uri, cursorInComputeLineTotal(root), '', s));
    assert.equal(ctx.intent, 'rename');
    assert.equal(ctx.ceiling, 3000);
    assert.ok(ctx.tokenCount <= 3000);
  });

  it('reads the cursor as UTF-16 on a line with an astral character before it', async () => {
    // 🔑 is 2 UTF-16 units and 4 UTF-8 bytes: read as bytes, this column lands inside the
    // dict before `icon_count`; read as code points, one character later.
    const uri = fileUri(root, 'unicode_names.py');
    const pos = positionOf(root, 'unicode_names.py', 'icon_count = 4');
    const skeleton = await server.request<SkeletonResult>('ctx/skeleton', skeletonParams(uri, pos));
    assert.equal(skeleton.target, 'icon_count');
  });

  it('shows the skeleton with the declaration at the cursor in full', async () => {
    const uri = fileUri(root, 'billing/pricing.py');
    const result = await server.request<SkeletonResult>('ctx/skeleton', skeletonParams(uri, cursorInComputeLineTotal(root)));
    assert.equal(result.target, 'compute_line_total');
    assert.equal(result.path, 'billing/pricing.py');
    const md = skeletonMarkdown(result);
    assert.ok(md.startsWith('# Skeleton: billing/pricing.py\n'));
    assert.ok(md.includes(`${result.tokens} tokens`));
    assert.ok(md.includes(`\`\`\`python\n${result.text}`), 'the text is fenced as Python, verbatim');
    assert.match(result.text, /_validate_quantity\(quantity\)/);
  });

  it('reads a symbol by qualified name', async () => {
    const uri = fileUri(root, 'billing/cache.py');
    const result = await server.request<ReadSymbolResult>('ctx/readSymbol', readSymbolParams(uri, ' ShardedLRUCache._evict '));
    assert.equal(result.symbol, 'ShardedLRUCache._evict');
    assert.equal(result.kind, 'method');
    const md = symbolMarkdown(result);
    const def = positionOf(root, 'billing/cache.py', 'def _evict(');
    assert.ok(md.startsWith(`# ShardedLRUCache._evict (method): billing/cache.py\n\nlines ${def.line + 1}-`), md.slice(0, 120));
    assert.ok(md.includes(result.text));
    assert.match(result.text, /def _evict\(self/);
  });

  it('turns a misspelled symbol into the message the extension shows', async () => {
    const uri = fileUri(root, 'billing/pricing.py');
    const err = await rejection(server.request('ctx/readSymbol', readSymbolParams(uri, 'compute_line_totl')));
    assert.ok(err instanceof ResponseError, `not a JSON-RPC error: ${String(err)}`);
    assert.equal(err.code, -32001);
    const shown = errorText(err);
    assert.ok(shown.startsWith('ctxls: '));
    assert.match(shown, /compute_line_totl/);
    assert.match(shown, /did you mean `compute_line_total`/);
  });

  it('shows the server page in a webview with every item and the token count', async () => {
    const uri = fileUri(root, 'billing/pricing.py');
    const params = constructParams(uri, cursorInComputeLineTotal(root), 'Bulk tiers should stack with coupons', {
      ceiling: 1500,
      intent: 'edit',
    });
    // ctx/page takes ctx/construct's params: the same request builds both.
    const page = await server.request<PageResult>('ctx/page', params);
    const ctx = await server.request<DecisionContext>('ctx/construct', params);
    assert.equal(page.target, ctx.target);
    assert.equal(page.ceiling, 1500);
    assert.equal(page.tokenCount, ctx.tokenCount);
    const html = webviewHtml(page.html);
    assert.ok(hasCsp(html));
    // The server's page brings its own policy, so it is shown exactly as it came.
    assert.equal(html, page.html);
    assert.match(html, new RegExp(`<body[^>]* data-token-count="${page.tokenCount}"`));
    for (const item of ctx.window) {
      assert.match(html, new RegExp(`data-id="${item.id}" [^>]*data-tokens="${item.tokens}"`), `${item.id} is not on the page`);
    }
    assert.equal(statusText(page), `$(symbol-structure) ${page.tokenCount} / 1500`);
  });
});
