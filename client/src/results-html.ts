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

/** The parts of server/lsp/engine/protocol.ts CompareResult the compare view shows. */
export interface CompareResult {
  qid: string;
  variants: { name: string; query: string; hits: { rank: number; docno: string; title: string; score: number; relevance: number | null }[]; metrics: Record<string, number> | null }[];
  rows: { docno: string; title: string; relevance: number | null; ranks: Record<string, number | null>; change: Record<string, number | null> }[];
  expansionTerms: { term: string; weight: number; isOriginal: boolean }[];
  deltas: Record<string, Record<string, number>> | null;
  notes: string[];
}

/** A rank change as the user reads it: ▲3 moved up, ▼2 moved down, = unchanged, – not in both lists. */
function change(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  if (value === 0) return '=';
  return value > 0 ? `▲${value}` : `▼${-value}`;
}

const signed = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(4)}`;

/** The compare mode of the results panel: the variants' queries, metrics with deltas, and ranks side by side. */
export function renderCompare(result: CompareResult): string {
  const names = result.variants.map((v) => v.name);
  const others = names.slice(1);
  const queries = result.variants.map((v) => `<tr><th>${escape(v.name)}</th><td><pre>${escape(v.query)}</pre></td></tr>`).join('');
  const measures = Object.keys(result.variants.find((v) => v.metrics)?.metrics ?? {});
  const metricRows = measures
    .map((m) => {
      const cells = result.variants.map((v) => {
        const value = v.metrics?.[m];
        const d = result.deltas?.[v.name]?.[m];
        return `<td>${value === undefined ? '–' : value.toFixed(4)}${d === undefined ? '' : ` <small>(${signed(d)})</small>`}</td>`;
      });
      return `<tr><th>${escape(m)}</th>${cells.join('')}</tr>`;
    })
    .join('');
  const metrics = measures.length
    ? `<table><thead><tr><th>Measure</th>${names.map((n) => `<th>${escape(n)}</th>`).join('')}</tr></thead><tbody>${metricRows}</tbody></table>`
    : '<p><i>No judgements for this query.</i></p>';
  const rows = result.rows
    .map(
      (r) =>
        `<tr><td><b>${escape(r.title || r.docno)}</b> <small>${escape(r.docno)}</small></td><td>${r.relevance === null ? '–' : r.relevance}</td>` +
        names.map((n) => `<td>${r.ranks[n] ?? '–'}${n === 'original' ? '' : ` <small>${change(r.change[n])}</small>`}</td>`).join('') +
        '</tr>',
    )
    .join('');
  const added = result.expansionTerms.filter((t) => !t.isOriginal);
  const terms = added.length ? `<p>Bo1 adds: ${added.map((t) => `${escape(t.term)} ${t.weight.toFixed(2)}`).join(', ')}</p>` : '';
  const notes = result.notes.map((n) => `<li>${escape(n)}</li>`).join('');
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
<style>body{font-family:var(--vscode-font-family);color:var(--vscode-foreground)}table{border-collapse:collapse;width:100%;margin-bottom:1em}
td,th{border-bottom:1px solid var(--vscode-panel-border);padding:4px;vertical-align:top;text-align:left}pre{margin:0;white-space:pre-wrap}</style>
</head><body>
<h2>Compare query ${escape(result.qid)}: ${names.map(escape).join(' · ')}</h2>
<table><tbody>${queries}</tbody></table>${terms}
${metrics}
${notes ? `<ul>${notes}</ul>` : ''}
<table><thead><tr><th>Document</th><th>Judged</th>${names.map((n) => `<th>${escape(n)}${others.includes(n) ? ' (change)' : ''}</th>`).join('')}</tr></thead><tbody>${rows}</tbody></table>
</body></html>`;
}
