// The pure parts, where a server answer would not exercise the edge: fences, the CSP, paths.

import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { fence, fenceLanguage, virtualPath, windowMarkdown, DecisionContext } from '../render';
import { DEFAULT_SETTINGS, errorText, isCancellation, serverCommand } from '../requests';
import { hasCsp, pageFileName, PAGE_CSP, webviewHtml } from '../webview';

describe('render', () => {
  it('fences text so backticks inside cannot close the fence', () => {
    const text = 'doc:\n```python\nx = 1\n```\n';
    const out = fence(text, 'python');
    assert.ok(out.startsWith('````python\n'));
    assert.ok(out.endsWith('\n````\n'));
    assert.ok(out.includes(text));
  });

  it('picks the fence language from the path', () => {
    assert.equal(fenceLanguage('billing/pricing.py'), 'python');
    assert.equal(fenceLanguage('web/app.TSX'), 'tsx');
    assert.equal(fenceLanguage('a.b/Makefile'), '');
    assert.equal(fenceLanguage(null), '');
  });

  it('says when nothing was omitted and when the core was flagged', () => {
    const ctx: DecisionContext = {
      target: 'a.py::f',
      task: 'line one\nline two',
      intent: 'edit',
      window: [{ id: 'E1', role: 'core', kind: 'plan_node', rendering: 'verbatim', path: null, symbol: null, tokens: 3, text: '### E1 task\n' }],
      text: '',
      tokenCount: 3,
      ceiling: 256,
      omitted: [],
      notes: ['incomplete: 1 of 2 files indexed'],
      flagged: true,
      complete: false,
    };
    const md = windowMarkdown(ctx);
    assert.match(md, /\*\*3 \/ 256 tokens\*\*.*incomplete/);
    assert.match(md, /> line one\n> line two\n/);
    assert.match(md, /- incomplete: 1 of 2 files indexed/);
    assert.match(md, /\*\*Flagged:\*\*/);
    assert.match(md, /## Omitted \(0\)\n\nNothing was left out\./);
  });

  it('names virtual documents by kind, file and symbol', () => {
    assert.equal(virtualPath('window', 'billing/pricing.py', 'compute_line_total'), '/window/billing/pricing.py compute_line_total.md');
    assert.equal(virtualPath('skeleton', '/abs/x.go'), '/skeleton/abs/x.go.md');
  });
});

describe('webview', () => {
  it('adds a CSP to a page without one, once, and leaves the rest as it came', () => {
    const page = '<!doctype html><html><head><title>a &amp; b</title></head><body>&lt;x&gt;</body></html>';
    const out = webviewHtml(page);
    assert.ok(hasCsp(out));
    assert.equal(out.replace(`<meta http-equiv="Content-Security-Policy" content="${PAGE_CSP}">`, ''), page);
    assert.equal(webviewHtml(out), out);
  });

  it('keeps the page its own CSP', () => {
    const page = `<html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head></html>`;
    assert.equal(webviewHtml(page), page);
  });

  it('wraps a fragment into a document', () => {
    const out = webviewHtml('<p>x</p>');
    assert.ok(hasCsp(out));
    assert.match(out, /<body><p>x<\/p><\/body>/);
  });

  it('names the saved page from the target without path separators', () => {
    assert.equal(pageFileName('billing/pricing.py::compute_line_total'), 'ctxls-billing_pricing_py_compute_line_total.html');
    assert.equal(pageFileName('../../'), 'ctxls-window.html');
  });
});

describe('requests', () => {
  it('expands ${workspaceFolder} and ~ in the server command', () => {
    const s = { ...DEFAULT_SETTINGS, serverPath: '${workspaceFolder}/.venv/bin/ctxls', serverArgs: ['serve', '--log-file', '~/ctxls.log'] };
    assert.deepEqual(serverCommand(s, '/w', '/home/u'), { command: '/w/.venv/bin/ctxls', args: ['serve', '--log-file', '/home/u/ctxls.log'] });
    assert.deepEqual(serverCommand(DEFAULT_SETTINGS), { command: 'ctxls', args: ['serve'] });
  });

  it('shows the server message, or a pointer to the log when there is none', () => {
    assert.equal(errorText({ code: -32004, message: 'x.py does not exist' }), 'ctxls: x.py does not exist');
    assert.equal(errorText(new Error('boom')), 'ctxls: boom');
    assert.match(errorText(undefined), /output channel/);
    assert.ok(isCancellation({ code: -32800, message: 'cancelled' }));
    assert.ok(!isCancellation({ code: -32001, message: 'no symbol' }));
  });
});
