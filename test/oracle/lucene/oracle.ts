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

const CLASSPATH_JARS = ['lucene-core', 'lucene-queryparser', 'lucene-analyzers-common'].map(jar);

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

/** Compiles the oracle into a temp folder; the function it returns asks Lucene about many queries in one JVM. */
export async function luceneOracle(): Promise<LuceneOracle> {
  const work = mkdtempSync(join(tmpdir(), 'querylens-lucene-oracle-'));
  const classpath = [work, ...(CLASSPATH_JARS as string[])].join(':');
  await runChecked('javac', ['-d', work, '-cp', classpath, join(import.meta.dirname, 'ClassicParserOracle.java')], { timeoutMs: 120_000 });
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
