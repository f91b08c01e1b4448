/**
 * HTML of the results panel, from a `querylens/preview` answer: the hits with judge, explain and
 * open buttons, paging, the grade legend, an open explanation and "why not" (any docno explained,
 * the judged-relevant documents not shown). Pure (no vscode import) so it is tested directly;
 * every text from the index is escaped.
 */
import { escape, msg, page } from './webview-html';
import { MAX_PAGES, PAGE_SIZE, type ResultsState } from './panel-messages';

/** The parts of server/lsp/engine/protocol.ts PreviewResult the panel shows. */
export interface PreviewResult {
  qid: string;
  query: string;
  matchedDocs: number;
  hits: { rank: number; docno: string; title: string; score: number; relevance: number | null; snippet: { text: string; highlights: [number, number][] } }[];
  metrics: Record<string, number> | null;
  warnings: { code: string; message: string }[];
  scorer: { name: string; k1: number; b: number; mu: number };
  /** Paging and "why not" (servers before them leave these out). */
  offset?: number;
  relevantNotShown?: { docno: string; title: string; relevance: number; rank: number | null }[];
}

/** The parts of server/lsp/engine/protocol.ts ExplainResult the panel shows. */
export interface ExplainResult {
  docno: string;
  title: string;
  rank: number | null;
  score: number | null;
  relevance: number | null;
  explanation: ExplanationNode;
}

export interface ExplanationNode {
  value: number;
  description: string;
  children: ExplanationNode[];
  matched?: boolean;
}

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

/**
 * The grades the judge buttons offer: 0 (not relevant) to the highest grade the query's judgements on
 * the page use, at least 2 (trec_eval counts grade > 0 as relevant; nDCG gains grow with the grade).
 */
export function gradeScale(result: PreviewResult, explanation: ExplainResult | null = null): number[] {
  const seen = [...result.hits.map((h) => h.relevance), ...(result.relevantNotShown ?? []).map((d) => d.relevance), explanation?.relevance ?? null];
  const top = Math.min(10, Math.max(2, ...seen.filter((g): g is number => g !== null)));
  return Array.from({ length: top + 1 }, (_, g) => g);
}

/** The legend of a scale: what 0, 1 and the highest grade mean. */
export function gradeLegend(scale: readonly number[]): string {
  const top = scale[scale.length - 1]!;
  return top === 2 ? '0 = not relevant, 1 = relevant, 2 = highly relevant' : `0 = not relevant, 1 to ${top} = relevant (${top} the most)`;
}

const gradeTitle = (g: number): string => (g === 0 ? 'judge not relevant' : `judge relevant, grade ${g}`);

/** An explanation tree as nested lists: each node's value and what it is, depth-limited for huge trees. */
export function renderExplanation(node: ExplanationNode, depth = 0): string {
  const children = depth < 12 && node.children.length ? `<ul>${node.children.map((c) => renderExplanation(c, depth + 1)).join('')}</ul>` : '';
  const value = Number.isFinite(node.value) ? node.value.toFixed(4) : String(node.value);
  return `${depth === 0 ? '<ul>' : ''}<li><b>${value}</b> ${escape(node.description)}${children}</li>${depth === 0 ? '</ul>' : ''}`;
}

/** The interactive panel's extra inputs: the page script's nonce, the state to keep, an open explanation, a notice. */
export interface ResultsView {
  nonce: string;
  state: ResultsState;
  explanation: ExplainResult | null;
  notice: string | null;
  /** Scroll to the explanation (just asked for), rather than stay at the top (paging, judging). */
  focusExplanation?: boolean;
}

function explanationSection(e: ExplainResult, focus: boolean): string {
  const where = e.rank === null ? (e.score === null ? 'not retrieved: the query does not match it' : 'not in the top 1000') : `rank ${e.rank}`;
  return `<section id="explanation"${focus ? ' data-focus' : ''}><h3>Why ${escape(e.docno)} scores ${e.score === null ? 'nothing' : e.score.toFixed(4)} (${where}; judged ${e.relevance ?? '–'})</h3>
<p><b>${escape(e.title || e.docno)}</b> <button ${msg({ type: 'open', docno: e.docno })}>open</button> <button ${msg({ type: 'closeExplain' })}>close</button></p>
<div class="tree">${renderExplanation(e.explanation)}</div></section>`;
}

function judgeButtons(docno: string, relevance: number | null, scale: readonly number[]): string {
  return scale.map((g) => `<button class="${relevance === g ? 'on' : ''}" title="${gradeTitle(g)}" ${msg({ type: 'judge', docno, grade: g })}>${g}</button>`).join('');
}

export function renderResults(result: PreviewResult, view?: ResultsView): string {
  const scorer = result.scorer.name === 'bm25' ? `BM25 k1=${result.scorer.k1} b=${result.scorer.b}` : `QL μ=${result.scorer.mu}`;
  const metrics = result.metrics
    ? `<p>${Object.entries(result.metrics).map(([k, v]) => `${escape(k)} <b>${v.toFixed(4)}</b>`).join(' · ')}</p>`
    : '<p><i>No judgements for this query.</i></p>';
  const warnings = result.warnings.map((w) => `<li>${escape(w.message)}</li>`).join('');
  const scale = gradeScale(result, view?.explanation ?? null);
  const rows = result.hits
    .map(
      (h) =>
        `<tr><td>${h.rank}</td><td><b>${escape(h.title || h.docno)}</b> <small>${escape(h.docno)}</small><br>${highlighted(h.snippet)}</td>` +
        `<td>${h.score.toFixed(4)}</td><td>${h.relevance === null ? '–' : h.relevance}</td>` +
        (view ? `<td>${judgeButtons(h.docno, h.relevance, scale)}</td><td><button ${msg({ type: 'explain', docno: h.docno })}>explain</button><button ${msg({ type: 'open', docno: h.docno })}>open</button></td>` : '') +
        '</tr>',
    )
    .join('');
  const head = `<h2>Query ${escape(result.qid)}</h2><pre>${escape(result.query)}</pre>
<p>${result.matchedDocs} matching documents · ${escape(scorer)}</p>${metrics}
${warnings ? `<ul>${warnings}</ul>` : ''}`;
  if (!view) {
    return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
<style>body{font-family:var(--vscode-font-family);color:var(--vscode-foreground)}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid var(--vscode-panel-border);padding:4px;vertical-align:top;text-align:left}mark{background:var(--vscode-editor-findMatchHighlightBackground);color:inherit}</style>
</head><body>
${head}
<table><thead><tr><th>#</th><th>Document</th><th>Score</th><th>Judged</th></tr></thead><tbody>${rows}</tbody></table>
</body></html>`;
  }
  const { state } = view;
  const unjudged = result.metrics ? result.hits.filter((h) => h.relevance === null).length : 0;
  const first = (result.offset ?? 0) + 1;
  const last = (result.offset ?? 0) + result.hits.length;
  const more = last < Math.min(result.matchedDocs, MAX_PAGES * PAGE_SIZE);
  const paging = `<p>Ranks ${result.hits.length ? `${first}–${last}` : 'none'} of ${result.matchedDocs}
<button ${state.page === 0 ? 'disabled ' : ''}${msg({ type: 'page', page: state.page - 1 })}>◀ previous</button>
<button ${more ? '' : 'disabled '}${msg({ type: 'page', page: state.page + 1 })}>next ▶</button>
${unjudged ? `· <b>${unjudged} of these ${result.hits.length} are unjudged</b>` : ''}</p>`;
  const legend = `<p><small>Grades: ${gradeLegend(scale)}; – = unjudged. The buttons write the grade to the workspace's qrels file.</small></p>`;
  const notShown = result.relevantNotShown ?? [];
  const whyNot = `<h3>Why not?</h3>
<form ${msg({ type: 'explain' })}><label>Explain any document: <input name="docno" placeholder="docno" size="16"></label> <button type="submit">explain</button></form>
${
  notShown.length
    ? `<p>Judged relevant but not shown (${notShown.length}):</p><table><tbody>${notShown
        .map(
          (d) =>
            `<tr><td><b>${escape(d.title || d.docno)}</b> <small>${escape(d.docno)}</small></td><td>grade ${d.relevance}</td><td>${d.rank === null ? 'not retrieved' : `rank ${d.rank}`}</td>` +
            `<td><button ${msg({ type: 'explain', docno: d.docno })}>explain</button></td></tr>`,
        )
        .join('')}</tbody></table>`
    : result.metrics
      ? '<p><small>Every judged-relevant document is on this page or above.</small></p>'
      : ''
}`;
  const body = `${head}${view.notice ? `<p><i>${escape(view.notice)}</i></p>` : ''}
${view.explanation ? explanationSection(view.explanation, view.focusExplanation === true) : ''}
${paging}${legend}
<table><thead><tr><th>#</th><th>Document</th><th>Score</th><th>Judged</th><th>Judge</th><th></th></tr></thead><tbody>${rows}</tbody></table>
${whyNot}`;
  return page(`Results: ${result.qid}`, body, view.nonce, state);
}

/** The parts of server/lsp/engine/protocol.ts CompareResult the compare view shows. */
export interface CompareResult {
  qid: string;
  variants: { name: string; query: string; hits: { rank: number; docno: string; title: string; score: number; relevance: number | null }[]; metrics: Record<string, number> | null }[];
  rows: { docno: string; title: string; relevance: number | null; ranks: Record<string, number | null>; change: Record<string, number | null> }[];
  expansionTerms: { term: string; weight: number; isOriginal: boolean }[];
  deltas: Record<string, Record<string, number>> | null;
  notes: string[];
  learned?: { word: string; alternatives: { word: string; weight: number }[] }[];
}

/** What a person calls each of compare's variants (protocol.ts RankedVariant.name); an unknown name is shown as sent. */
const VARIANT_LABELS: Record<string, string> = {
  original: 'original',
  bo1: 'Bo1',
  learned: 'learned',
  weighted: 'TW-BERT',
  'learned+bo1+weighted': 'learned + Bo1 + TW-BERT',
  'learned+bo1': 'learned + Bo1',
};

export function variantLabel(name: string): string {
  return VARIANT_LABELS[name] ?? name;
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
  const labels = names.map((n) => escape(variantLabel(n)));
  const queries = result.variants.map((v, i) => `<tr><th>${labels[i]}</th><td><pre>${escape(v.query)}</pre></td></tr>`).join('');
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
    ? `<table><thead><tr><th>Measure</th>${labels.map((l) => `<th>${l}</th>`).join('')}</tr></thead><tbody>${metricRows}</tbody></table>`
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
  const bo1Terms = added.length ? `<p>Bo1 adds: ${added.map((t) => `${escape(t.term)} ${t.weight.toFixed(2)}`).join(', ')}</p>` : '';
  // Weights as the learned query writes them (2 significant digits).
  const learned = (result.learned ?? [])
    .map((w) => `${escape(w.word)} ≈ ${w.alternatives.map((a) => `${escape(a.word)} ${Number(a.weight.toPrecision(2))}`).join(', ')}`)
    .join('; ');
  const terms = bo1Terms + (learned ? `<p>Learned expansion: ${learned}</p>` : '');
  const notes = result.notes.map((n) => `<li>${escape(n)}</li>`).join('');
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
<style>body{font-family:var(--vscode-font-family);color:var(--vscode-foreground)}table{border-collapse:collapse;width:100%;margin-bottom:1em}
td,th{border-bottom:1px solid var(--vscode-panel-border);padding:4px;vertical-align:top;text-align:left}pre{margin:0;white-space:pre-wrap}</style>
</head><body>
<h2>Compare query ${escape(result.qid)}: ${labels.join(' · ')}</h2>
<table><tbody>${queries}</tbody></table>${terms}
${metrics}
${notes ? `<ul>${notes}</ul>` : ''}
<table><thead><tr><th>Document</th><th>Judged</th>${names.map((n, i) => `<th>${labels[i]}${others.includes(n) ? ' (change)' : ''}</th>`).join('')}</tr></thead><tbody>${rows}</tbody></table>
</body></html>`;
}
