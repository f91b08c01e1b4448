/**
 * Hover statistics: for a term, its analysed form, df/cf/idf (in the restricted field when
 * there is one), stopword status and the effective weight the scorer gives it; for a window
 * (`#1(…)`, `#uwN(…)`, a phrase), the exact window df/cf.
 *
 * Everything about concepts comes from the engine's compiled query (the backend's `compile`,
 * server/service/backend.ts: the same `ConceptInfo` that `search()` returns): weights are
 * multiplied down the tree there under Terrier semantics, and idf is the scorer's own, so the
 * hover cannot disagree with the ranking. Only whole-document term statistics come straight
 * from the index.
 */
import { MarkupKind, type MarkupContent } from 'vscode-languageserver';
import type { QueryNode, SourceRange, TermNode } from '../../../grammar/index.js';
import type { ConceptInfo } from '../../engine/search.js';
import { DEFAULT_SCORER, scorerDefinition } from '../../engine/scoring/scorers.js';
import { nodesAt } from '../documents.js';
import type { FeatureModule, QueryPosition } from '../features.js';
import type { EngineContext } from './context.js';
import type { EngineSession } from './session.js';

export function formatNumber(x: number, digits = 3): string {
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x)) return x.toLocaleString('en-US');
  return x.toFixed(digits);
}

function formatWeight(w: number): string {
  return Number.isInteger(w) ? w.toFixed(1) : String(Number(w.toPrecision(4)));
}

const contains = (r: SourceRange, offset: number) => r.start <= offset && offset <= r.end;
const width = (r: SourceRange) => r.end - r.start;

/** The compiled concept named at `offset` with the narrowest range (a term before its window). */
export function conceptAt(concepts: readonly ConceptInfo[], offset: number): { concept: ConceptInfo; range: SourceRange } | null {
  let best: { concept: ConceptInfo; range: SourceRange } | null = null;
  for (const concept of concepts)
    for (const range of concept.ranges) if (contains(range, offset) && (!best || width(range) < width(best.range))) best = { concept, range };
  return best;
}

function weightLine(session: EngineSession, c: ConceptInfo): string {
  if (!c.scored) return 'Not scored: it only filters documents (a #filreq/#filrej filter or a prohibited clause).';
  const parts = [`Effective weight **${formatWeight(c.weight)}** (the product of the weights above it, summed over its occurrences)`];
  // Only scorers that normalise query term weights (Terrier's bm25, bm25f) give a concept its qtw.
  if (c.qtw !== undefined) parts.push(`qtw ${c.qtw.toFixed(3)} after dividing by the largest weight`);
  const line = `${parts.join('; ')}.`;
  return c.fieldStats ? `${line}\n\n${fieldTable(c.fieldStats)}` : line;
}

/** bm25f: the per-field parts (SEMANTICS.md §4.6): where the concept occurs, and each field's w and c. */
function fieldTable(stats: NonNullable<ConceptInfo['fieldStats']>): string {
  return [
    'BM25F per field: tf/(1 − c + c·len/avglen), weighted by w, then one saturation.',
    '',
    '| field | df | cf | w | c | avg length |',
    '|---|--:|--:|--:|--:|--:|',
    ...stats.map((f) => `| ${f.field} | ${formatNumber(f.df)} | ${formatNumber(f.cf)} | ${formatNumber(f.w)} | ${formatNumber(f.c)} | ${formatNumber(f.avglen)} |`),
  ].join('\n');
}

/** The column of the statistic the scorer puts on each concept (the registry's `conceptStatistic`). */
function scoreColumn(session: EngineSession): string {
  return scorerDefinition(session.options.scorer ?? DEFAULT_SCORER).conceptStatistic === 'collectionProbability' ? 'P(·|C)' : 'idf';
}

function scoreValue(c: ConceptInfo): string {
  if (c.idf !== undefined) return formatNumber(c.idf);
  if (c.collectionProbability !== undefined) return c.collectionProbability.toPrecision(3);
  return '—';
}

function table(session: EngineSession, rows: string[][]): string {
  return [`| | df | cf | ${scoreColumn(session)} |`, '|---|--:|--:|--:|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function fieldsOf(c: ConceptInfo): string[] {
  return 'fields' in c.spec && c.spec.fields?.length ? c.spec.fields : [];
}

function termSection(session: EngineSession, term: TermNode, own: ConceptInfo | null): string {
  const { backend } = session;
  const tokens = backend.analyzer.analyzeTerm(term.text, { raw: term.raw });
  if (tokens.length === 0) {
    return backend.analyzer.isStopword(term.text.toLowerCase())
      ? `**${term.text}** is a stopword for the ${backend.profile} profile: it is dropped from the query and scores nothing.`
      : `**${term.text}** has no indexable characters: it is ignored.`;
  }
  const lines = [`**${term.text}** → ${tokens.map((t) => `\`${t}\``).join(' ')} (${backend.profile} analysis${term.raw ? ', quoted: not stemmed' : ''})`];
  const rows: string[][] = [];
  const restricted = own ? fieldsOf(own) : [];
  const singleOwn = own && own.spec.kind === 'term' && tokens.length === 1;
  for (const t of tokens) {
    const s = backend.termStatistics(t);
    const label = tokens.length > 1 ? `\`${t}\`` : 'whole document';
    if (singleOwn && restricted.length === 0) rows.push([label, formatNumber(own.df), formatNumber(own.cf), scoreValue(own)]);
    else rows.push([label, formatNumber(s?.df ?? 0), formatNumber(s?.cf ?? 0), '—']);
  }
  if (singleOwn && restricted.length > 0) rows.push([`in ${restricted.join(', ')}`, formatNumber(own.df), formatNumber(own.cf), scoreValue(own)]);
  lines.push('', table(session, rows));
  const absent = tokens.filter((t) => !backend.termStatistics(t));
  if (absent.length) lines.push('', `${absent.map((t) => `\`${t}\``).join(', ')} does not occur in the index.`);
  return lines.join('\n');
}

function conceptSection(session: EngineSession, c: ConceptInfo, heading: string): string {
  const stats = c.statistics === 'exact' ? 'exact window statistics' : `Terrier's window heuristic (exact: df ${c.exactDf}, cf ${c.exactCf})`;
  const isWindow = c.kind === 'window' || c.kind === 'sloppy';
  const lines = [
    `${heading} \`${c.label}\`${isWindow ? ` — ${stats}` : ''}`,
    '',
    table(session, [[isWindow ? 'window' : c.kind, formatNumber(isWindow ? c.exactDf : c.df), formatNumber(isWindow ? c.exactCf : c.cf), scoreValue(c)]]),
  ];
  return lines.join('\n');
}

export function statsHover(session: EngineSession, at: QueryPosition): MarkupContent | null {
  const ast = at.entry.result.ast;
  if (!ast.root) return null;
  const chain = nodesAt(ast.root, at.offset);
  const inner: QueryNode | undefined = chain[chain.length - 1];
  if (!inner) return null;
  const prepared = session.backend.compile(ast, session.options);
  const found = conceptAt(prepared.concepts, at.offset);
  const sections: string[] = [];
  if (inner.kind === 'term') {
    const own = found && found.range.start === inner.range.start && found.range.end === inner.range.end ? found.concept : null;
    sections.push(termSection(session, inner, own));
    if (own && own.kind !== 'missing') sections.push(weightLine(session, own));
    else if (found && found.concept.kind !== 'missing') {
      // A term inside a window/synonym: the enclosing concept is what the scorer weighs.
      sections.push(conceptSection(session, found.concept, 'Scored as part of'), weightLine(session, found.concept));
    }
  } else if (found && found.concept.kind !== 'missing' && found.range.start === inner.range.start && found.range.end === inner.range.end) {
    sections.push(conceptSection(session, found.concept, 'Concept'), weightLine(session, found.concept));
  } else {
    return null;
  }
  return { kind: MarkupKind.Markdown, value: sections.join('\n\n') };
}

export function hoverStatsModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/hover-stats',
    hover: (at) => {
      context.documents.see(at.doc);
      const session = context.session();
      return session ? statsHover(session, at) : null;
    },
  };
}
