/**
 * The messages the querylens webviews send to the extension, and the state a panel keeps for a
 * reload. A webview is a page: what it posts is checked here before anything acts on it. Pure.
 */

/** What the results panel restores after a reload (webview state, see webview-html.ts). */
export interface ResultsState {
  view: 'results';
  uri: string;
  qid: string;
  /** 0-based page of `PAGE_SIZE` hits. */
  page: number;
  /** The document whose explanation is open, if any. */
  explained: string | null;
}

/** Hits per page of the results panel. */
export const PAGE_SIZE = 10;
/** The deepest rank the server pages to (querylens/preview: offset + k ≤ 1000). */
export const MAX_PAGES = 100;

export type PanelMessage =
  | { type: 'page'; page: number }
  | { type: 'explain'; docno: string }
  | { type: 'closeExplain' }
  | { type: 'judge'; docno: string; grade: number }
  | { type: 'open'; docno: string }
  | { type: 'sort'; column: string }
  | { type: 'compareTries'; baseline: string; treatment: string }
  | { type: 'tickTry'; id: string }
  | { type: 'baselineTry'; id: string }
  | { type: 'compareTryList'; ids: string[]; baseline: string }
  | { type: 'tickScorer'; name: string }
  | { type: 'compareScorers'; scorers: string[] }
  | { type: 'applySweep' }
  | { type: 'browse'; view: 'terms' | 'postings' | 'document' | 'analyze'; text: string };

const BROWSE_VIEWS = ['terms', 'postings', 'document', 'analyze'];
const DOCNO = /^\S{1,200}$/;
/** A scorer name of the registry's shape (the server checks it is one that fits the index). */
const SCORER = /^[a-z][a-z0-9-]{0,39}$/;

/** The message when it is one the extension understands, else null (ignored). */
export function parsePanelMessage(value: unknown): PanelMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const m = value as Record<string, unknown>;
  const docno = typeof m.docno === 'string' ? m.docno.trim() : '';
  switch (m.type) {
    case 'page':
      return Number.isInteger(m.page) && (m.page as number) >= 0 && (m.page as number) < MAX_PAGES ? { type: 'page', page: m.page as number } : null;
    case 'explain':
    case 'open':
      return DOCNO.test(docno) ? { type: m.type, docno } : null;
    case 'closeExplain':
    case 'applySweep':
      return { type: m.type };
    case 'judge': {
      const grade = typeof m.grade === 'string' ? Number(m.grade) : m.grade;
      return DOCNO.test(docno) && Number.isInteger(grade) ? { type: 'judge', docno, grade: grade as number } : null;
    }
    case 'sort':
      return typeof m.column === 'string' && m.column.length > 0 ? { type: 'sort', column: m.column } : null;
    case 'compareTries':
      return typeof m.baseline === 'string' && typeof m.treatment === 'string' && m.baseline !== m.treatment
        ? { type: 'compareTries', baseline: m.baseline, treatment: m.treatment }
        : null;
    case 'tickTry':
    case 'baselineTry':
      return typeof m.id === 'string' && m.id.length > 0 ? { type: m.type, id: m.id } : null;
    case 'compareTryList': {
      // Two or more distinct tries, the baseline one of them.
      const ids = Array.isArray(m.ids) && m.ids.every((id) => typeof id === 'string') ? (m.ids as string[]) : [];
      return ids.length >= 2 && new Set(ids).size === ids.length && typeof m.baseline === 'string' && ids.includes(m.baseline)
        ? { type: 'compareTryList', ids: [...ids], baseline: m.baseline }
        : null;
    }
    case 'tickScorer':
      return typeof m.name === 'string' && SCORER.test(m.name) ? { type: 'tickScorer', name: m.name } : null;
    case 'compareScorers': {
      const scorers = Array.isArray(m.scorers) && m.scorers.every((n) => typeof n === 'string' && SCORER.test(n)) ? (m.scorers as string[]) : [];
      return scorers.length >= 2 && new Set(scorers).size === scorers.length ? { type: 'compareScorers', scorers: [...scorers] } : null;
    }
    case 'browse':
      return typeof m.view === 'string' && BROWSE_VIEWS.includes(m.view) && typeof m.text === 'string'
        ? { type: 'browse', view: m.view as 'terms', text: m.text }
        : null;
    default:
      return null;
  }
}

/** A saved results state, when the value is one (what a reload hands back). */
export function parseResultsState(value: unknown): ResultsState | null {
  if (typeof value !== 'object' || value === null) return null;
  const s = value as Record<string, unknown>;
  if (s.view !== 'results' || typeof s.uri !== 'string' || typeof s.qid !== 'string') return null;
  const page = Number.isInteger(s.page) && (s.page as number) >= 0 && (s.page as number) < MAX_PAGES ? (s.page as number) : 0;
  const explained = typeof s.explained === 'string' && DOCNO.test(s.explained) ? s.explained : null;
  return { view: 'results', uri: s.uri, qid: s.qid, page, explained };
}
