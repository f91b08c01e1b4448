/**
 * HTML of the workbench panels: the scoreboard (a file's tries, per-query metrics sortable, the
 * mean and the change since the last try, two tries compared with a paired test and Holm's
 * correction, or several ticked tries side by side against a baseline, Holm across all the tests), the parameter sweep (settings × metrics, the best marked, "apply" to querylens.json)
 * and the index browser (top terms, postings, a document, the analyser). Pure, every text escaped.
 */
import type { FileTry, QueryTry, Scoreboard, TryPick } from './history';
import { escape, fixed, msg, page, signed } from './webview-html';

/** Short names of trec_eval measures for column heads. */
const SHORT: Record<string, string> = { ndcg_cut_10: 'nDCG@10', map: 'MAP', P_10: 'P@10', recall_100: 'R@100', recip_rank: 'MRR' };
const label = (m: string): string => SHORT[m] ?? m;

/** The parts of workbench-protocol.ts CompareTriesResult the scoreboard shows. */
export interface CompareTriesResult {
  test: 't' | 'randomization';
  queries: number;
  rows: { measure: string; baselineMean: number | null; treatmentMean: number | null; meanDifference: number | null; p: number | null; pHolm: number | null }[];
}

/** The parts of workbench-protocol.ts CompareTryListResult the scoreboard shows. */
export interface CompareTryListResult {
  test: 't' | 'randomization';
  baselineIndex: number;
  queries: number;
  comparisons: number;
  rows: { measure: string; pairs: number; cells: { mean: number | null; meanDifference: number | null; p: number | null; pHolm: number | null }[] }[];
}

/** Several tries compared: `tries` in the order of the result's cells. */
export interface TryListView {
  tries: FileTry[];
  result: CompareTryListResult;
}

export interface ScoreboardView {
  nonce: string;
  file: string;
  board: Scoreboard | null;
  tries: FileTry[];
  queryTries: QueryTry[];
  comparison: { baseline: FileTry; treatment: FileTry; result: CompareTriesResult } | null;
  /** The tries ticked for a side-by-side comparison (absent: none). */
  pick?: TryPick;
  listComparison?: TryListView | null;
  /** The scorers the index can be ranked with, and those ticked for "compare scorers" (absent: not offered). */
  scorers?: { available: string[]; ticked: string[] };
  notice: string | null;
}

/**
 * "Compare scorers": every query of the file ranked under each ticked scorer (querylens.json's k1,
 * b, mu carried over), each run recorded as a try, the tries side by side against the first ticked.
 */
export function renderScorerPicker(scorers: { available: string[]; ticked: string[] }): string {
  const ticked = scorers.ticked.filter((name) => scorers.available.includes(name));
  const buttons = scorers.available
    .map((name) => {
      const order = ticked.indexOf(name);
      return `<button title="tick to rank the file with this scorer" ${msg({ type: 'tickScorer', name })}>${order >= 0 ? '☑' : '☐'} ${escape(name)}${order === 0 ? ' ★' : ''}</button>`;
    })
    .join(' ');
  const go =
    ticked.length >= 2
      ? `<button ${msg({ type: 'compareScorers', scorers: ticked })}>Rank with the ${ticked.length} ticked scorers and compare</button>`
      : `<button disabled>Rank with the ticked scorers and compare</button> <small>tick two or more scorers (the first ticked, ★, is the baseline)</small>`;
  return `<h3>Compare scorers</h3><p id="scorers">${buttons}</p><p>${go}</p>`;
}

const SIGNIFICANCE = 0.05;
const significant = (pHolm: number | null): boolean => pHolm !== null && pHolm < SIGNIFICANCE;

/**
 * Several tries side by side: a row per measure, a column per try (the baseline marked), each other
 * try's mean with its difference from the baseline, raw and Holm-adjusted p; * where pHolm < 0.05.
 */
export function renderTryList(view: TryListView, allTries: readonly FileTry[]): string {
  const { tries, result } = view;
  const n = (t: FileTry) => allTries.indexOf(t) + 1;
  const base = tries[result.baselineIndex]!;
  const head = tries
    .map((t, i) => (i === result.baselineIndex ? `<th class="best">★ try ${n(t)} (baseline)</th>` : `<th colspan="4">try ${n(t)}</th>`))
    .join('');
  const sub = tries.map((_, i) => (i === result.baselineIndex ? '<th>mean</th>' : '<th>mean</th><th>Δ</th><th>p</th><th>p (Holm)</th>')).join('');
  const rows = result.rows
    .map(
      (r) =>
        `<tr><td>${escape(label(r.measure))}</td><td>${r.pairs}</td>${r.cells
          .map((c, i) =>
            i === result.baselineIndex
              ? `<td class="best">${fixed(c.mean)}</td>`
              : `<td${significant(c.pHolm) ? ' class="best"' : ''}>${fixed(c.mean)}</td><td>${signed(c.meanDifference)}</td><td>${fixed(c.p)}</td><td>${fixed(c.pHolm)}${significant(c.pHolm) ? ' *' : ''}</td>`,
          )
          .join('')}</tr>`,
    )
    .join('');
  return `<section data-focus><h3>${tries.length} tries against try ${n(base)}: paired ${result.test === 't' ? 't-test' : 'randomisation test'} over ${result.queries} queries, Holm-corrected across ${result.comparisons} tests (tries × measures)</h3>
<table id="try-list"><thead><tr><th>Measure</th><th>queries</th>${head}</tr><tr><th></th><th></th>${sub}</tr></thead><tbody>${rows}</tbody></table><p><small>★ baseline; * significant at ${SIGNIFICANCE} after Holm's correction across all ${result.comparisons} tests.</small></p></section>`;
}

const when = (iso: string): string => iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');

export function renderScoreboard(view: ScoreboardView): string {
  const { board } = view;
  let table = '<p><i>No try with judged queries yet: run the scoreboard on a query file whose queries the qrels judge.</i></p>';
  if (board) {
    const arrow = (column: string) => (board.sort.column === column ? (board.sort.descending ? ' ▼' : ' ▲') : '');
    const head = [`<th><button ${msg({ type: 'sort', column: 'qid' })}>qid${arrow('qid')}</button></th>`]
      .concat(board.measures.map((m) => `<th><button ${msg({ type: 'sort', column: m })}>${escape(label(m))}${arrow(m)}</button></th><th><button ${msg({ type: 'sort', column: `change:${m}` })}>Δ${arrow(`change:${m}`)}</button></th>`))
      .join('');
    const rows = board.rows
      .map((r) => `<tr><td>${escape(r.qid)}</td>${board.measures.map((m) => `<td>${fixed(r.metrics[m])}</td><td>${signed(r.change?.[m])}</td>`).join('')}</tr>`)
      .join('');
    const mean = `<tr class="best"><td>mean (${board.rows.length})</td>${board.measures.map((m) => `<td>${fixed(board.mean[m])}</td><td>${signed(board.meanChange?.[m])}</td>`).join('')}</tr>`;
    table = `<table id="scoreboard"><thead><tr>${head}</tr></thead><tbody>${mean}${rows}</tbody></table>`;
  }
  const newest = view.tries.length - 1;
  const pick = view.pick ?? { ticked: [], baseline: null };
  const tick = (t: FileTry): string => {
    const on = pick.ticked.includes(t.id);
    const isBase = on && pick.baseline === t.id;
    return `<button title="tick for the side-by-side comparison" ${msg({ type: 'tickTry', id: t.id })}>${on ? '☑' : '☐'}</button>${
      isBase ? ' ★ baseline' : ` <button title="compare the ticked tries against this one" ${msg({ type: 'baselineTry', id: t.id })}>baseline</button>`
    }`;
  };
  const ticked = pick.ticked.filter((id) => view.tries.some((t) => t.id === id));
  const compareTicked =
    ticked.length >= 2 && pick.baseline !== null
      ? `<p><button ${msg({ type: 'compareTryList', ids: [...view.tries.filter((t) => ticked.includes(t.id)).map((t) => t.id)], baseline: pick.baseline })}>Compare the ${ticked.length} ticked tries</button></p>`
      : `<p><button disabled>Compare the ticked tries</button> <small>tick two or more tries (the first ticked, or the one marked, is the baseline)</small></p>`;
  const tries = view.tries
    .map(
      (t, i) =>
        `<tr><td>${tick(t)}</td><td>${i + 1}</td><td>${escape(when(t.at))}</td><td>${escape(t.settings)}</td>${Object.entries(t.mean)
          .map(([m, v]) => `<td>${escape(label(m))} ${fixed(v)}</td>`)
          .join('')}` +
        `<td>${i > 0 ? `<button ${msg({ type: 'compareTries', baseline: view.tries[i - 1]!.id, treatment: t.id })}>compare with try ${i}</button>` : ''}` +
        `${i !== newest && newest > 0 ? `<button ${msg({ type: 'compareTries', baseline: t.id, treatment: view.tries[newest]!.id })}>compare with latest</button>` : ''}</td></tr>`,
    )
    .join('');
  let comparison = '';
  if (view.comparison) {
    const { baseline, treatment, result } = view.comparison;
    const n = (t: FileTry) => view.tries.indexOf(t) + 1;
    comparison = `<section data-focus><h3>Try ${n(treatment)} against try ${n(baseline)}: paired ${result.test === 't' ? 't-test' : 'randomisation test'} over ${result.queries} queries, Holm-corrected across ${result.rows.length} measures</h3>
<table id="comparison"><thead><tr><th>Measure</th><th>try ${n(baseline)}</th><th>try ${n(treatment)}</th><th>Δ</th><th>p</th><th>p (Holm)</th></tr></thead><tbody>${result.rows
      .map(
        (r) =>
          `<tr${r.pHolm !== null && r.pHolm < 0.05 ? ' class="best"' : ''}><td>${escape(label(r.measure))}</td><td>${fixed(r.baselineMean)}</td><td>${fixed(r.treatmentMean)}</td><td>${signed(r.meanDifference)}</td><td>${fixed(r.p)}</td><td>${fixed(r.pHolm)}${r.pHolm !== null && r.pHolm < 0.05 ? ' *' : ''}</td></tr>`,
      )
      .join('')}</tbody></table><p><small>* significant at 0.05 after Holm's correction.</small></p></section>`;
  }
  const history = view.queryTries.length
    ? `<h3>Query tries from the results panel</h3><table><thead><tr><th>When</th><th>qid</th><th>Query</th><th>Settings</th><th>nDCG@10</th><th>MAP</th></tr></thead><tbody>${view.queryTries
        .slice(-50)
        .reverse()
        .map(
          (t) =>
            `<tr><td>${escape(when(t.at))}</td><td>${escape(t.qid)}</td><td><pre>${escape(t.query)}</pre></td><td>${escape(t.settings)}</td><td>${fixed(t.metrics?.ndcg_cut_10)}</td><td>${fixed(t.metrics?.map)}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '';
  const body = `<h2>Scoreboard: ${escape(view.file)}</h2>${view.notice ? `<p><i>${escape(view.notice)}</i></p>` : ''}
${table}
<h3>Tries of this file (${view.tries.length})</h3>${view.tries.length ? `<table id="tries"><tbody>${tries}</tbody></table>${compareTicked}` : '<p><i>None yet.</i></p>'}
${view.scorers && view.scorers.available.length > 1 ? renderScorerPicker(view.scorers) : ''}
${comparison}${view.listComparison ? renderTryList(view.listComparison, view.tries) : ''}${history}`;
  return page(`Scoreboard: ${view.file}`, body, view.nonce, { view: 'scoreboard' });
}

/** The parts of workbench-protocol.ts SweepResult the sweep panel shows. */
export interface SweepResult {
  measures: string[];
  by: string;
  rows: { setting: { scorer: string; k1?: number; b?: number; mu?: number; bo1: { fbDocs: number; fbTerms: number } | null }; mean: Record<string, number>; queries: number }[];
  best: number;
  skipped: { qid: string; reason: string }[];
  configEdit: unknown | null;
  configEditRefused: string | null;
  /** On a cluster: what the sweep varied and what scored it. */
  note?: string;
}

export function settingText(s: SweepResult['rows'][number]['setting']): string {
  // On a cluster a row has no k1, b or μ: the index's own similarity scored it (the result's note).
  const params = s.scorer === 'ql' ? [s.mu === undefined ? null : `μ=${s.mu}`] : [s.k1 === undefined ? null : `k1=${s.k1}`, s.b === undefined ? null : `b=${s.b}`];
  const parts = params.filter((p): p is string => p !== null);
  if (!parts.length) parts.push("the index's similarity");
  if (s.bo1) parts.push(`Bo1 ${s.bo1.fbDocs} docs × ${s.bo1.fbTerms} terms`);
  return `${s.scorer === 'ql' ? 'QL' : 'BM25'} ${parts.join(' ')}`;
}

/**
 * A sweep grid as a user types it: `k1=0.9,1.2 b=0.4,0.75` (spaces or `;` between parameters).
 * Returns the request's parameters, or the first problem in the user's words.
 */
export function parseSweepGrid(text: string): { grid: Record<string, number[]> } | { error: string } {
  const grid: Record<string, number[]> = {};
  const items = text.split(/[\s;]+/).filter(Boolean);
  if (!items.length) return { error: 'give at least one parameter, e.g. k1=0.9,1.2 b=0.4,0.75' };
  for (const item of items) {
    const m = /^(k1|b|mu|fbDocs|fbTerms)=(.+)$/.exec(item);
    if (!m) return { error: `"${item}" is not name=v1,v2,… with name one of k1, b, mu, fbDocs, fbTerms` };
    const values = m[2]!.split(',').map((v) => v.trim());
    const numbers = values.map(Number);
    const bad = values.find((v, i) => v === '' || !Number.isFinite(numbers[i]));
    if (bad !== undefined) return { error: `${m[1]}: "${bad}" is not a number` };
    if (grid[m[1]!]) return { error: `${m[1]} is given twice` };
    grid[m[1]!] = numbers;
  }
  return { grid };
}

export function renderSweep(result: SweepResult, nonce: string, file: string, grid: string, notice: string | null): string {
  const head = `<tr><th>Setting</th>${result.measures.map((m) => `<th>${escape(label(m))}${m === result.by ? ' (picks the best)' : ''}</th>`).join('')}<th>Queries</th></tr>`;
  const rows = result.rows
    .map(
      (r, i) =>
        `<tr${i === result.best ? ' class="best" id="best"' : ''}><td>${i === result.best ? '★ ' : ''}${escape(settingText(r.setting))}</td>${result.measures
          .map((m) => `<td>${fixed(r.mean[m])}</td>`)
          .join('')}<td>${r.queries}</td></tr>`,
    )
    .join('');
  const best = result.rows[result.best];
  const apply = result.configEdit
    ? `<button class="on" ${msg({ type: 'applySweep' })}>Apply ${escape(best ? settingText(best.setting) : '')} to querylens.json</button>`
    : `<button disabled>Apply</button> <small>${escape(result.configEditRefused ?? 'no querylens.json to write')}</small>`;
  const skipped = result.skipped.length ? `<p><small>Left out: ${result.skipped.map((s) => `${escape(s.qid)} (${escape(s.reason)})`).join(', ')}</small></p>` : '';
  const body = `<h2>Sweep: ${escape(file)}</h2><p>Grid <code>${escape(grid)}</code>: ${result.rows.length} settings, best by ${escape(label(result.by))}.</p>
${notice ? `<p><i>${escape(notice)}</i></p>` : ''}${result.note ? `<p><i>${escape(result.note)}</i></p>` : ''}<p>${apply}</p>
<table id="sweep"><thead>${head}</thead><tbody>${rows}</tbody></table>${skipped}`;
  return page(`Sweep: ${file}`, body, nonce, { view: 'sweep' });
}

/** The parts of workbench-protocol.ts's index browser answers the browser panel shows. */
export interface BrowserContent {
  terms?: { numDocs: number; matching: number; terms: { term: string; df: number; cf: number | null }[]; note?: string };
  postings?: { term: string; found: boolean; df: number; cf: number; postings: { docno: string; tf: number; positions: number[]; positionsCut: boolean }[]; cut: boolean };
  document?: { docno: string; title: string; fields: Record<string, string>; length: number; terms: { term: string; tf: number; positions: number[]; field?: string }[]; distinctTerms: number; note?: string };
  analyze?: { profile: string; indexed: boolean; note: string | null; words: { surface: string; term: string | null; stopword: boolean; position: number | null; df?: number | null }[] };
  error?: string;
}

export function renderBrowser(content: BrowserContent, nonce: string, inputs: Record<string, string>): string {
  const form = (view: string, title: string, placeholder: string) =>
    `<form ${msg({ type: 'browse', view })}><label>${title} <input name="text" value="${escape(inputs[view] ?? '')}" placeholder="${escape(placeholder)}" size="24"></label> <button type="submit">show</button></form>`;
  let out = '';
  if (content.error) out += `<p><i>${escape(content.error)}</i></p>`;
  const t = content.terms;
  if (t)
    out += `<section data-focus><h3>${t.note ? 'Terms' : 'Top terms by df'} (${t.matching} matching of ${t.numDocs} documents)</h3>${t.note ? `<p><i>${escape(t.note)}</i></p>` : ''}<table id="terms"><thead><tr><th>Term</th><th>df</th><th>cf</th></tr></thead><tbody>${t.terms
      .map((x) => `<tr><td><button ${msg({ type: 'browse', view: 'postings', text: x.term })}>${escape(x.term)}</button></td><td>${x.df}</td><td>${x.cf ?? '–'}</td></tr>`)
      .join('')}</tbody></table></section>`;
  const p = content.postings;
  if (p)
    out += `<section data-focus><h3>Postings of ${escape(p.term)}: ${p.found ? `df ${p.df}, cf ${p.cf}${p.cut ? ` (first ${p.postings.length} listed)` : ''}` : 'not in the index'}</h3><table id="postings"><thead><tr><th>Document</th><th>tf</th><th>Positions</th></tr></thead><tbody>${p.postings
      .map((x) => `<tr><td><button ${msg({ type: 'browse', view: 'document', text: x.docno })}>${escape(x.docno)}</button></td><td>${x.tf}</td><td>${x.positions.join(' ')}${x.positionsCut ? ' …' : ''}</td></tr>`)
      .join('')}</tbody></table></section>`;
  const d = content.document;
  if (d)
    out += `<section data-focus><h3>Document ${escape(d.docno)}: ${escape(d.title)}</h3><p><button ${msg({ type: 'open', docno: d.docno })}>open in an editor</button> ${d.length} indexed tokens, ${d.distinctTerms} distinct terms</p>
${d.note ? `<p><i>${escape(d.note)}</i></p>` : ''}<table><tbody>${Object.entries(d.fields)
      .map(([k, v]) => `<tr><th>${escape(k)}</th><td>${escape(v)}</td></tr>`)
      .join('')}</tbody></table><h4>Term vector</h4><table id="termvector"><thead><tr><th>Term</th><th>tf</th><th>Positions</th></tr></thead><tbody>${d.terms
      .map((x) => `<tr><td>${escape(x.term)}${x.field ? ` <small>(${escape(x.field)})</small>` : ''}</td><td>${x.tf}</td><td>${x.positions.join(' ')}</td></tr>`)
      .join('')}</tbody></table></section>`;
  const a = content.analyze;
  if (a)
    out += `<section data-focus><h3>Analysis (${escape(a.profile)} profile)</h3>${a.note ? `<p><i>${escape(a.note)}</i></p>` : ''}<table id="analysis"><thead><tr><th>Word</th><th>Term</th><th>Position</th>${a.indexed ? '<th>df</th>' : ''}</tr></thead><tbody>${a.words
      .map(
        (w) =>
          `<tr><td>${escape(w.surface)}</td><td>${w.stopword ? '<i>stopword</i>' : escape(w.term ?? '')}</td><td>${w.position ?? '–'}</td>${a.indexed ? `<td>${w.df ?? '–'}</td>` : ''}</tr>`,
      )
      .join('')}</tbody></table></section>`;
  const body = `<h2>Index browser</h2>
${form('terms', 'Top terms with the prefix', 'prefix (empty: all)')}
${form('postings', 'Postings of a term', 'a word')}
${form('document', 'A document', 'docno')}
${form('analyze', 'Analyse text', 'any text')}
${out}`;
  return page('Index browser', body, nonce, { view: 'browser', inputs });
}
