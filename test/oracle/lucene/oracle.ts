/**
 * Real Lucene as a test oracle: Debian's liblucene8-java jars (/usr/share/java) and a JDK.
 * `luceneOracle()` compiles a small Java program once and answers whether Lucene's classic
 * QueryParser accepts each of many queries; `unavailableReason` says why the oracle tests are
 * skipped on a machine without them (.ci/run installs both).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChecked } from '../../support/process.js';

const JARS = '/usr/share/java';

function jar(prefix: string): string | undefined {
  if (!existsSync(JARS)) return undefined;
  const name = readdirSync(JARS).find((f) => f.startsWith(`${prefix}-`) && /^[a-z-]+-\d[\d.]*\.jar$/.test(f));
  return name ? join(JARS, name) : undefined;
}

const CLASSPATH_JARS = ['lucene-core', 'lucene-queryparser', 'lucene-analyzers-common', 'lucene-queries'].map(jar);

function whyUnavailable(): string | undefined {
  if (spawnSync('javac', ['-version'], { encoding: 'utf8' }).status !== 0) return 'no JDK (apt-get install default-jdk-headless)';
  if (CLASSPATH_JARS.some((j) => j === undefined)) return `no Lucene jars in ${JARS} (apt-get install liblucene8-java)`;
  return undefined;
}

export const unavailableReason = whyUnavailable();
if (unavailableReason) console.log(`Lucene oracle tests skipped: ${unavailableReason}`);

export interface OracleVerdict {
  accepted: boolean;
  /** Query.toString() when accepted; the exception's class (or "RegExp") when not. */
  detail: string;
}

export type LuceneOracle = (queries: string[], options?: { allowLeadingWildcard?: boolean }) => Promise<OracleVerdict[]>;

let compiled: Promise<{ work: string; classpath: string }> | undefined;

/** Compiles the Java oracles of this folder once per test file, into a temp folder. */
function compileOracles(): Promise<{ work: string; classpath: string }> {
  compiled ??= (async () => {
    const work = mkdtempSync(join(tmpdir(), 'querylens-lucene-oracle-'));
    const classpath = [work, ...(CLASSPATH_JARS as string[])].join(':');
    const sources = ['ClassicParserOracle.java', 'Bm25Oracle.java', 'IntervalsOracle.java', 'RegexpRunOracle.java'].map((f) => join(import.meta.dirname, f));
    await runChecked('javac', ['-d', work, '-cp', classpath, ...sources], { timeoutMs: 120_000 });
    return { work, classpath };
  })();
  return compiled;
}

/** The function it returns asks Lucene's classic QueryParser about many queries in one JVM. */
export async function luceneOracle(): Promise<LuceneOracle> {
  const { work, classpath } = await compileOracles();
  let batch = 0;
  return async (queries, options = {}) => {
    const file = join(work, `queries-${batch++}.txt`);
    writeFileSync(file, queries.map((q) => Buffer.from(q, 'utf8').toString('base64')).join('\n') + '\n');
    const args = ['-cp', classpath, 'ClassicParserOracle', ...(options.allowLeadingWildcard ? ['--allow-leading-wildcard'] : []), file];
    const lines = (await runChecked('java', args, { timeoutMs: 120_000 })).split('\n');
    return queries.map((_, i) => {
      const line = lines[i] ?? '';
      return { accepted: line.startsWith('1\t'), detail: line.slice(2) };
    });
  };
}

export interface OracleHit {
  qid: string;
  docno: string;
  score: number;
}

/**
 * Lucene's BM25Similarity(k1, b) over documents given as analysed tokens, for Lucene-syntax
 * queries (whitespace analysis: the query's terms are already analysed too).
 */
export async function luceneBm25(
  k1: number,
  b: number,
  docs: { docno: string; tokens: string[] }[],
  queries: { qid: string; query: string }[],
): Promise<OracleHit[]> {
  const { work, classpath } = await compileOracles();
  const corpus = join(work, `bm25-corpus-${k1}-${b}.tsv`);
  const topics = join(work, `bm25-queries-${k1}-${b}.tsv`);
  writeFileSync(corpus, docs.map((d) => `${d.docno}\t${d.tokens.join(' ')}`).join('\n') + '\n');
  writeFileSync(topics, queries.map((q) => `${q.qid}\t${q.query}`).join('\n') + '\n');
  const out = await runChecked('java', ['-cp', classpath, 'Bm25Oracle', String(k1), String(b), corpus, topics], { timeoutMs: 120_000 });
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [qid, docno, score] = line.split('\t');
      return { qid: qid!, docno: docno!, score: Number(score) };
    });
}

export interface IntervalsOracleQuery {
  qid: string;
  ordered: boolean;
  /** null = no gap limit. */
  maxGaps: number | null;
  terms: string[];
}

/** The documents Lucene's interval queries (maxgaps over ordered/unordered terms) match, per qid. */
export async function luceneIntervals(docs: { docno: string; tokens: string[] }[], queries: IntervalsOracleQuery[]): Promise<Map<string, Set<string>>> {
  const { work, classpath } = await compileOracles();
  const corpus = join(work, `intervals-corpus-${Date.now()}.tsv`);
  const topics = join(work, `intervals-queries-${Date.now()}.tsv`);
  writeFileSync(corpus, docs.map((d) => `${d.docno}\t${d.tokens.join(' ')}`).join('\n') + '\n');
  writeFileSync(topics, queries.map((q) => `${q.qid}\t${q.ordered ? 1 : 0}\t${q.maxGaps ?? -1}\t${q.terms.join(' ')}`).join('\n') + '\n');
  const out = await runChecked('java', ['-cp', classpath, 'IntervalsOracle', corpus, topics], { timeoutMs: 120_000 });
  const hits = new Map<string, Set<string>>(queries.map((q) => [q.qid, new Set<string>()]));
  for (const line of out.split('\n')) {
    if (!line) continue;
    const [qid, docno] = line.split('\t');
    hits.get(qid!)!.add(docno!);
  }
  return hits;
}

export type RegexpRunVerdict = { valid: false; error: string } | { valid: true; matches: boolean[] };

/**
 * Lucene's own answer for each regex: whether `new RegExp(body).toAutomaton()` throws, and
 * otherwise which of the terms its automaton accepts (CharacterRunAutomaton.run).
 */
export async function luceneRegexpRuns(cases: { regex: string; terms: string[] }[]): Promise<RegexpRunVerdict[]> {
  const { work, classpath } = await compileOracles();
  const file = join(work, `regexp-runs-${cases.length}.txt`);
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  writeFileSync(file, cases.flatMap((c) => [`R\t${b64(c.regex)}`, ...c.terms.map((t) => `T\t${b64(t)}`)]).join('\n') + '\n');
  const lines = (await runChecked('java', ['-cp', classpath, 'RegexpRunOracle', file], { timeoutMs: 120_000 })).split('\n');
  return cases.map((_, i) => {
    const line = lines[i] ?? '';
    if (line.startsWith('E\t')) return { valid: false, error: line.slice(2) };
    return { valid: true, matches: Array.from(line.slice(2), (c) => c === '1') };
  });
}
