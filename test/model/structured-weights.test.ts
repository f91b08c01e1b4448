/**
 * One rule for weighing what the user wrote (server/model/structured-weights.ts): a flat bag of words
 * becomes the model's #weight of uni-grams and bi-grams; a structured query keeps fields, #syn,
 * windows, phrases and its own weights, with the model's weights inside; what cannot be weighed is
 * refused at its place. The unit tests use made-up weights (a word's weight = its length / 10, a
 * bi-gram's 0.05), so every expected query is written out; the CLI tests use the shipped model.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIndri, parseLucene } from '../../grammar/index.js';
import { printIndri } from '../../grammar/print/indri.js';
import { printLucene } from '../../grammar/print/lucene.js';
import type { QueryAst } from '../../grammar/ast.js';
import { createAnalyzer } from '../../server/engine/analysis/index.js';
import { segmentQuery } from '../../server/model/segment.js';
import type { NgramWeights } from '../../server/model/runtime.js';
import { planWeighing, weighInsideStructure } from '../../server/model/structured-weights.js';
import { ensureBuilt } from '../support/build.js';
import { runChecked, runProcess } from '../support/process.js';
import { DATA_DIR, hasCollection } from '../server/search/helpers/collections.js';
import { REPO_ROOT } from './helpers.js';

const analyzer = createAnalyzer('terrier');

function madeUpWeights(text: string): NgramWeights {
  const s = segmentQuery(text, analyzer);
  return {
    query: text,
    ngrams: s.ngrams.map((g) => {
      const a = s.words[g.wordIndices[0]];
      const b = s.words[g.wordIndices[g.wordIndices.length - 1]];
      const surface = text.slice(a.start, b.end);
      return { kind: g.terms.length === 1 ? 'unigram' : 'bigram', terms: g.terms, surface, start: a.start, end: b.end, weight: g.terms.length === 1 ? surface.length / 10 : 0.05 };
    }),
  };
}

function weigh(ast: QueryAst): { text: string; printed: string } {
  const planned = planWeighing(ast, '');
  if (!planned.ok) throw new Error(planned.refusal.message);
  expect(planned.plan.flat).toBe(false);
  const out = weighInsideStructure(ast, planned.plan, madeUpWeights(planned.plan.text));
  return { text: planned.plan.text, printed: ast.dialect === 'lucene' ? printLucene(out) : printIndri(out) };
}

describe('planWeighing: flat or structured', () => {
  it.each([
    ['indri', 'laminar flow over a flat plate'],
    ['indri', '#combine( laminar flow plate )'],
    ['indri', 'plate'],
    ['lucene', 'laminar flow plate'],
    ['lucene', 'laminar OR flow'],
  ])('%s `%s` is a flat bag of words', (dialect, q) => {
    const ast = dialect === 'indri' ? parseIndri(q).ast : parseLucene(q).ast;
    const planned = planWeighing(ast, q);
    expect(planned.ok && planned.plan.flat).toBe(true);
  });

  it.each([
    ['indri', 'heart.title attack'],
    ['indri', '#weight( 2 heart 1 attack )'],
    ['indri', '#combine( #syn(heart cardiac) attack )'],
    ['indri', '#combine( #uw8(heart attack) risk )'],
    ['lucene', 'title:heart attack'],
    ['lucene', '"heart attack" risk'],
    ['lucene', '+heart attack'],
  ])('%s `%s` has structure to keep', (dialect, q) => {
    const ast = dialect === 'indri' ? parseIndri(q).ast : parseLucene(q).ast;
    const planned = planWeighing(ast, q);
    expect(planned.ok && planned.plan.flat).toBe(false);
  });
});

describe('weighInsideStructure', () => {
  it('keeps fields, #syn (its largest word), a #1 pair (the bi-gram weight) and turns #combine into #weight', () => {
    const r = weigh(parseIndri('#combine( heart.title #syn(attack infarction) #1(blood pressure) )').ast);
    expect(r.text).toBe('heart attack infarction blood pressure');
    expect(r.printed).toBe('#weight( 0.5 heart.title 1 #syn(attack infarction) 0.05 #1(blood pressure) )');
  });

  it("multiplies the user's own weights and weighs other windows by their words' mean", () => {
    const r = weigh(parseIndri('#weight( 2.0 kennedy 0.5 #uw8(vietnam policy) )').ast);
    // kennedy 0.7 × 2; #uw8: mean(0.7, 0.6) × 0.5.
    expect(r.printed).toBe('#weight( 1.4 kennedy 0.325 #uw8(vietnam policy) )');
  });

  it('recurses into nested #combine, keeping its weight in the outer operator', () => {
    const r = weigh(parseIndri('#weight( 3 #combine( heart attack ) 1 risk.title )').ast);
    expect(r.printed).toBe('#weight( 3 #weight( 0.5 heart 0.6 attack ) 0.4 risk.title )');
  });

  it('Lucene: boosts each scoring clause (multiplying a boost written), leaves a prohibited clause alone', () => {
    const r = weigh(parseLucene('title:heart "blood pressure"^2 -diet').ast);
    expect(r.text).toBe('heart blood pressure');
    expect(r.printed).toBe('title:heart^0.5 "blood pressure"^0.1 -diet');
  });

  it('does not change the AST it is given', () => {
    const ast = parseIndri('#combine( heart.title attack )').ast;
    const before = JSON.stringify(ast);
    weigh(ast);
    expect(JSON.stringify(ast)).toBe(before);
  });
});

describe('refusals say why, at the place', () => {
  it.each([
    ['indri', '#or( heart attack )', '#or( heart attack )', /#or combines beliefs without weights/],
    ['indri', 'heart #not(attack)', '#not(attack)', /#not combines beliefs without weights/],
    ['indri', 'heart attac*', 'attac*', /wildcard is a pattern, not a word/],
    ['indri', '#filreq( heart #combine( attack ) )', '#filreq( heart #combine( attack ) )', /#filreq filters documents/],
    ['lucene', 'heart attak~1', 'attak~1', /fuzzy is a pattern/],
    ['lucene', 'heart year:[1990 TO 2000]', 'year:[1990 TO 2000]', /range is a pattern/],
  ])('%s `%s`', (dialect, q, at, message) => {
    const ast = dialect === 'indri' ? parseIndri(q).ast : parseLucene(q).ast;
    const planned = planWeighing(ast, q);
    expect(planned.ok).toBe(false);
    if (planned.ok) return;
    expect(planned.refusal.message).toMatch(message);
    expect(q.slice(planned.refusal.range.start, planned.refusal.range.end)).toBe(at);
  });
});

const work = mkdtempSync(join(tmpdir(), 'ql-structured-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const CLI = join(REPO_ROOT, 'bin', 'querylens.js');

describe.skipIf(!hasCollection('time'))('search --weights and weigh follow the one rule', () => {
  let index: string;
  const file = join(work, 'q.indri');
  beforeAll(async () => {
    ensureBuilt();
    index = join(work, 'index');
    await runChecked(process.execPath, [CLI, 'index', join(DATA_DIR, 'time', 'corpus.jsonl'), '--out', index], { cwd: REPO_ROOT, timeoutMs: 120_000 });
    writeFileSync(file, ['1\t#combine( kennedy.title #syn(diem saigon) #1(buddhist monks) )', '2\tnehru #or( china india )', '3\tkennedy administration vietnam', ''].join('\n'));
  }, 180_000);

  it('search --weights twbert keeps the structure (no silent flattening) and equals search of the weigh output', async () => {
    const usedFile = join(work, 'used.indri');
    const r = await runProcess(process.execPath, [CLI, 'search', '--index', index, file, '--weights', 'twbert', '--device', 'cpu', '--queries-out', usedFile, '-k', '50'], { cwd: REPO_ROOT, timeoutMs: 120_000 });
    expect(r.status).toBe(1);
    const used = readFileSync(usedFile, 'utf8').split('\n').filter((l) => /^\d/.test(l));
    expect(used[0]).toMatch(/^1\t#weight\( [\d.]+ kennedy\.title [\d.]+ #syn\(diem saigon\) [\d.]+ #1\(buddhist monks\) \)$/);
    expect(used[1]).toBe('2\tnehru #or( china india )');
    expect(used[2]).toMatch(/^3\t#weight\( [\d.]+ kennedy .*#1\(kennedy administration\)/);
    // The refusal is located in the file, and the query is ranked as written.
    expect(r.stderr).toContain(`${file}:2:9: error model/cannot-weigh cannot weigh this query: #or combines beliefs without weights`);
    expect(r.stdout.split('\n').some((l) => l.startsWith('2 Q0 '))).toBe(true);

    const weighed = await runProcess(process.execPath, [CLI, 'weigh', file, '--device', 'cpu', '--index', index, '-o', join(work, 'weighed.indri')], { cwd: REPO_ROOT, timeoutMs: 120_000 });
    expect(weighed.status).toBe(1);
    expect(weighed.stderr).toContain(`${file}:2:9: error model/cannot-weigh`);
    const weighedLines = readFileSync(join(work, 'weighed.indri'), 'utf8').split('\n').filter((l) => /^\d/.test(l));
    expect(weighedLines).toEqual(used);
    const byWeigh = await runProcess(process.execPath, [CLI, 'search', '--index', index, join(work, 'weighed.indri'), '-k', '50', '--run-id', 'x'], { cwd: REPO_ROOT, timeoutMs: 120_000 });
    const bySearch = await runProcess(process.execPath, [CLI, 'search', '--index', index, file, '--weights', 'twbert', '--device', 'cpu', '-k', '50', '--run-id', 'x'], { cwd: REPO_ROOT, timeoutMs: 120_000 });
    expect(bySearch.stdout.length).toBeGreaterThan(0);
    expect(bySearch.stdout).toBe(byWeigh.stdout);
  }, 300_000);

  it('weigh writes a weighed Lucene query as Indri (the output is an .indri file), structure kept', async () => {
    const lucene = join(work, 'q.lucene');
    writeFileSync(lucene, '1\ttitle:heart "blood pressure"^2 -diet\n');
    const r = await runProcess(process.execPath, [CLI, 'weigh', lucene, '--device', 'cpu', '--index', index], { cwd: REPO_ROOT, timeoutMs: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[1]).toMatch(/^1\t#filrej\( diet #weight\( [\d.]+ heart\.title [\d.]+ #1\(blood pressure\) \) \)$/);
  }, 120_000);

  it('a structured query with --expand bo1 is refused at its place and ranked as written', async () => {
    const r = await runProcess(process.execPath, [CLI, 'search', '--index', index, file, '--weights', 'twbert', '--expand', 'bo1', '--device', 'cpu', '-k', '10'], { cwd: REPO_ROOT, timeoutMs: 120_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${file}:1:3: error model/cannot-weigh cannot weigh this query with --expand bo1`);
  }, 120_000);
});
