// The server's page (ctx/page) as a webview's HTML, without the `vscode` module.
//
// The page is already HTML the server escaped: it goes in as it came, and only a content
// security policy is added when the page lacks one (a webview runs no scripts of ours, and
// the page needs none: it is inline CSS and <details>).

export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const CSP_META = /<meta\b[^>]*http-equiv\s*=\s*["']?content-security-policy["']?[^>]*>/i;

export function hasCsp(html: string): boolean {
  return CSP_META.test(html);
}

/** The page with a CSP meta tag first in its <head>, unless it has one already. */
export function webviewHtml(page: string, csp: string = PAGE_CSP): string {
  if (hasCsp(page)) return page;
  const meta = `<meta http-equiv="Content-Security-Policy" content="${csp}">`;
  const head = /<head\b[^>]*>/i.exec(page);
  if (head) {
    const at = head.index + head[0].length;
    return page.slice(0, at) + meta + page.slice(at);
  }
  const html = /<html\b[^>]*>/i.exec(page);
  if (html) {
    const at = html.index + html[0].length;
    return `${page.slice(0, at)}<head>${meta}</head>${page.slice(at)}`;
  }
  return `<!doctype html><html><head>${meta}</head><body>${page}</body></html>`;
}

/** A file name for the page saved outside the workspace (the server and the extension never
 * write there): the target with anything but word characters and dashes replaced. */
export function pageFileName(target: string): string {
  const stem = target.replace(/[^\w-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 120);
  return `ctxls-${stem || 'window'}.html`;
}
