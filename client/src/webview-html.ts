/**
 * What every querylens webview page shares: escaping, the Content-Security-Policy (styles inline,
 * one script allowed by its nonce, nothing fetched), the styles, and the small script that turns a
 * click on `[data-msg]` or a submitted `form[data-msg]` into a message to the extension, and keeps
 * the page's state (`vscode.setState`) so the panel comes back after a reload. Pure: tested without VS Code.
 */

export const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** An attribute holding a message for the extension (JSON, escaped). */
export const msg = (message: Record<string, unknown>): string => `data-msg="${escape(JSON.stringify(message))}"`;

const STYLE = `body{font-family:var(--vscode-font-family);color:var(--vscode-foreground)}table{border-collapse:collapse;width:100%;margin-bottom:1em}
td,th{border-bottom:1px solid var(--vscode-panel-border);padding:4px;vertical-align:top;text-align:left}mark{background:var(--vscode-editor-findMatchHighlightBackground);color:inherit}
pre{margin:0;white-space:pre-wrap}button{background:var(--vscode-button-secondaryBackground);color:var(--vscode-button-secondaryForeground);border:none;padding:1px 6px;margin:1px;cursor:pointer}
button.on{background:var(--vscode-button-background);color:var(--vscode-button-foreground)}button:disabled{opacity:.5;cursor:default}
input{background:var(--vscode-input-background);color:var(--vscode-input-foreground);border:1px solid var(--vscode-input-border,transparent)}
.best{font-weight:bold}.up{color:var(--vscode-testing-iconPassed)}.down{color:var(--vscode-testing-iconFailed)}.tree ul{margin:0;padding-left:1.2em}small{opacity:.8}`;

/** The page script: messages from data-msg clicks and forms; the state kept for a reload. */
function script(state: unknown): string {
  return `const vscode = acquireVsCodeApi();
vscode.setState(${JSON.stringify(state).replace(/</g, '\\u003c')});
document.addEventListener('click', (e) => {
  const el = e.target.closest('[data-msg]');
  if (!el || el.tagName === 'FORM' || el.disabled) return;
  vscode.postMessage(JSON.parse(el.dataset.msg));
});
document.addEventListener('submit', (e) => {
  e.preventDefault();
  const form = e.target;
  const message = JSON.parse(form.dataset.msg);
  for (const input of form.querySelectorAll('input[name]')) message[input.name] = input.value;
  vscode.postMessage(message);
});
const focus = document.querySelector('[data-focus]');
if (focus) focus.scrollIntoView();`;
}

/** A whole page; `nonce` lets exactly the page script run. */
export function page(title: string, body: string, nonce: string, state: unknown): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${escape(nonce)}';">
<title>${escape(title)}</title><style>${STYLE}</style>
</head><body>
${body}
<script nonce="${escape(nonce)}">${script(state)}</script>
</body></html>`;
}

/** A value as the tables show it (4 decimals), a dash for null or NaN. */
export const fixed = (x: number | null | undefined, digits = 4): string => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(digits));

/** A signed change, `+0.0123` / `−0.0045`, or a dash. */
export const signed = (x: number | null | undefined): string =>
  x === null || x === undefined || Number.isNaN(x) ? '–' : `<span class="${x > 0 ? 'up' : x < 0 ? 'down' : ''}">${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(4)}</span>`;
