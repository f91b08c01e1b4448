/**
 * The scorer registry (server/engine/scoring/scorers.ts): every scorer is one ScorerDefinition,
 * PreparedQuery looks it up and never asks which scorer it holds, and every scorer explains itself
 * (the root of an explanation is the score, bit for bit).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import { buildIndex, openIndex } from '../../../server/engine/index/disk.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';
import { PreparedQuery } from '../../../server/engine/search.js';
import { SCORER_NAMES, SCORERS, scorerDefinition, type ScorerName } from '../../../server/engine/scoring/scorers.js';
import { ROOT } from '../../support/build.js';

const PREPARED = join(ROOT, 'server/engine/scoring/prepared.ts');

/** The places in a source text that name a scorer or decide on the scorer's name. */
function scorerNameTests(source: string): string[] {
  // Comments may name scorers (they say why); code may not.
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const found: string[] = [];
  for (const name of SCORER_NAMES) {
    const literal = new RegExp(`(['"\`])${name.replace(/[-]/g, '\\-')}\\1`, 'g');
    for (const m of code.matchAll(literal)) found.push(m[0]);
  }
  for (const m of code.matchAll(/switch\s*\([^)]*scorer[^)]*\)/gi)) found.push(m[0]);
  for (const m of code.matchAll(/\bscorer\s*[!=]==?|[!=]==?\s*[\w.]*scorer\b/gi)) found.push(m[0]);
  return found;
}

describe('the scorer registry', () => {
  it('prepared.ts names no scorer and does not switch on the scorer', () => {
    expect(scorerNameTests(readFileSync(PREPARED, 'utf8'))).toEqual([]);
  });

  it('the check finds a scorer test (self-check)', () => {
    const old = "switch (this.parameters.scorer) {\n case 'bm25': break; }\n if (p.scorer === 'ql') x();\n const own = 'bm25-lucene';";
    expect(scorerNameTests(old)).toEqual(["'bm25'", "'bm25-lucene'", "'ql'", 'switch (this.parameters.scorer)', 'scorer ===']);
    expect(scorerNameTests("// under 'ql' the plan is a belief network\n/** bm25 and 'bm25f' */ const x = 1;")).toEqual([]);
  });

  it('every entry implements ScorerDefinition', () => {
    expect(SCORER_NAMES).toEqual(['bm25', 'bm25-lucene', 'ql', 'bm25f', 'impact']);
    for (const name of SCORER_NAMES) {
      const d = scorerDefinition(name);
      expect(typeof d.description, name).toBe('string');
      expect(d.description.length, name).toBeGreaterThan(0);
      for (const v of Object.values(d.defaults)) expect(Number.isFinite(v), name).toBe(true);
      expect(['bag', 'lucene', 'belief'], name).toContain(d.plan);
      expect(['counts', 'impacts'], name).toContain(d.postings);
      for (const flag of [d.readsFieldParams, d.ranksTfImpacts, d.prunable]) expect(typeof flag, name).toBe('boolean');
      for (const step of [d.validate, d.prepare, d.concept, d.bind]) expect(typeof step, name).toBe('function');
    }
  });
});

/** Three documents; `flow` and `heat` are in the first only, `wing` in all. */
const DOCS = [
  { docno: 'A', fields: { title: 'heat flow', text: 'heat flow over a wing in supersonic flow' } },
  { docno: 'B', fields: { title: 'wing', text: 'the wing drag of a jet' } },
  { docno: 'C', fields: { text: 'drag and lift of a wing at speed' } },
];
const ONE_DOCUMENT_QUERIES = ['heat', '#combine(heat flow)', '#weight(2 flow 1 heat 0.5 #1(heat flow))', '#combine(flow #uw8(heat wing))'];

let work: string;
let counts: IndexReader;
let impacts: IndexReader;

beforeAll(async () => {
  counts = buildMemoryIndex(DOCS, { profile: 'terrier' });
  work = mkdtempSync(join(tmpdir(), 'querylens-scorers-'));
  const vectors = [
    { id: 'A', contents: 'a', vector: { heat: 12, flow: 30, wing: 3 } },
    { id: 'B', contents: 'b', vector: { wing: 40, drag: 7 } },
    { id: 'C', contents: 'c', vector: { wing: 5, lift: 9 } },
  ];
  writeFileSync(join(work, 'vectors.jsonl'), vectors.map((v) => JSON.stringify(v)).join('\n') + '\n');
  await buildIndex([join(work, 'vectors.jsonl')], join(work, 'idx'), { input: 'jsonvector' });
  impacts = openIndex(join(work, 'idx'));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

const readerFor = (name: ScorerName) => (SCORERS[name].postings === 'impacts' ? impacts : counts);
const queriesFor = (name: ScorerName) => (SCORERS[name].postings === 'impacts' ? ['heat', '#combine(heat flow)', '#weight(2 flow 1 heat)'] : ONE_DOCUMENT_QUERIES);

describe.each(SCORER_NAMES)('scorer %s explains itself', (name) => {
  it('on a one-document query, explain(doc).value is the score, and the other documents say why they are not retrieved', () => {
    const reader = readerFor(name);
    for (const text of queriesFor(name)) {
      for (const exhaustive of [true, false]) {
        const q = new PreparedQuery(reader, parseIndri(text).ast, { scorer: name, exhaustive });
        const { hits } = q.search(10);
        expect(hits.map((h) => h.docno), `${name} ${text}`).toEqual(['A']);
        const node = q.explain(hits[0]!.doc);
        expect(node.matched, `${name} ${text}`).toBe(true);
        expect(node.value, `${name} ${text}`).toBe(hits[0]!.score);
        expect(node.value, `${name} ${text}`).toBe(q.scoreDocument(hits[0]!.doc));
        expect(node.description.length).toBeGreaterThan(0);
        for (let doc = 1; doc < reader.stats().numDocs; doc++) {
          const other = q.explain(doc);
          expect(other.matched, `${name} ${text} doc ${doc}`).toBe(false);
          expect(other.description, `${name} ${text} doc ${doc}`).toMatch(/^not retrieved: \S/);
        }
      }
    }
  });

  it('puts on each concept the statistic its conceptStatistic names (the hover labels its column by it)', () => {
    const { concepts } = new PreparedQuery(readerFor(name), parseIndri('#combine(heat flow)').ast, { scorer: name });
    const statistic = SCORERS[name].conceptStatistic;
    const other = statistic === 'idf' ? 'collectionProbability' : 'idf';
    for (const c of concepts) {
      expect(typeof c[statistic], `${name} ${c.label}`).toBe('number');
      expect(c[other], `${name} ${c.label}`).toBeUndefined();
    }
  });

  it('its pruning capability holds: a plain-term query is pruned exactly when the registry says it can be', () => {
    const q = new PreparedQuery(readerFor(name), parseIndri('#combine(heat flow wing)').ast, { scorer: name, exhaustive: false });
    const r = q.search(1);
    expect(r.pruned, name).toBe(SCORERS[name].prunable);
    const exhaustive = new PreparedQuery(readerFor(name), parseIndri('#combine(heat flow wing)').ast, { scorer: name, exhaustive: true }).search(1);
    expect(r.hits, name).toEqual(exhaustive.hits);
  });
});
