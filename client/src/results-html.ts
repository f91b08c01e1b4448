/**
 * HTML of the results panel, from a `querylens/preview` answer. Pure (no vscode import) so
 * it is tested directly; every text from the index is escaped.
 */
/** The parts of server/lsp/engine/protocol.ts PreviewResult the panel shows. */
export interface PreviewResult {
  qid: string;
  query: string;
  matchedDocs: number;
  hits: { rank: number; docno: string; title: string; score: number; relevance: number | null; snippet: { text: string; highlights: [number, number][] } }[];
  metrics: Record<string, number> | null;
  warnings: { code: string; message: string }[];
  scorer: { name: string; k1: number; b: number; mu: number };
}

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function highlighted(snippet: PreviewResult['hits'][number]['snippet']): string {
  let out = '';
  let at = 0;
  for (const [start, end] of [...snippet.highlights].sort((a, b) => a[0] - b[0])) {
    if (start < at) continue;
    out += escape(snippet.text.slice(at, start)) + `<mark>${escape(snippet.text.slice(start, end))}</mark>`;
    at = end;
  }
  return out + escape(snippet.text.slice(at));
}

export function renderResults(result: PreviewResult): string {
  const scorer = result.scorer.name === 'bm25' ? `BM25 k1=${result.scorer.k1} b=${result.scorer.b}` : `QL μ=${result.scorer.mu}`;
  const metrics = result.metrics
    ? `<p>${Object.entries(result.metrics).map(([k, v]) => `${escape(k)} <b>${v.toFixed(4)}</b>`).join(' · ')}</p>`
    : '<p><i>No judgements for this query.</i></p>';
  const warnings = result.warnings.map((w) => `<li>${escape(w.message)}</li>`).join('');
  const rows = result.hits
    .map(
      (h) =>
        `<tr><td>${h.rank}</td><td><b>${escape(h.title || h.docno)}</b> <small>${escape(h.docno)}</small><br>${highlighted(h.snippet)}</td>` +
        `<td>${h.score.toFixed(4)}</td><td>${h.relevance === null ? '–' : h.relevance}</td></tr>`,
    )
    .join('');
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
<style>body{font-family:var(--vscode-font-family);color:var(--vscode-foreground)}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid var(--vscode-panel-border);padding:4px;vertical-align:top;text-align:left}mark{background:var(--vscode-editor-findMatchHighlightBackground);color:inherit}</style>
</head><body>
<h2>Query ${escape(result.qid)}</h2><pre>${escape(result.query)}</pre>
<p>${result.matchedDocs} matching documents · ${escape(scorer)}</p>${metrics}
${warnings ? `<ul>${warnings}</ul>` : ''}
<table><thead><tr><th>#</th><th>Document</th><th>Score</th><th>Judged</th></tr></thead><tbody>${rows}</tbody></table>
</body></html>`;
}
