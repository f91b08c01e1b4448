/**
 * Loading the shared test collections (the shared data folder, read-only) into memory indexes
 * and evaluating runs with the eval module, for the golden and reference tests and the bench.
 */
import { readFileSync, existsSync } from 'node:fs';
import { buildMemoryIndex } from '../../../../server/engine/index/index.js';
import type { IndexReader } from '../../../../server/engine/index/reader.js';
import { parseQrels, evaluate, type Run, type RunEntry } from '../../../../server/engine/eval/index.js';
import { DATA_DIR } from '../../../support/data.js';

export { DATA_DIR };

export function hasCollection(name: string): boolean {
  return existsSync(`${DATA_DIR}/${name}/corpus.jsonl`);
}

export interface CorpusDoc {
  docno: string;
  fields: Record<string, string>;
}

/**
 * BEIR documents as {title, text}. Cranfield's `text` already begins with the title, so its
 * title is not indexed a second time (the reference figures index the text as given).
 */
export function readCorpus(name: string, options: { titleField?: boolean } = {}): CorpusDoc[] {
  const out: CorpusDoc[] = [];
  for (const line of readFileSync(`${DATA_DIR}/${name}/corpus.jsonl`, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const o = JSON.parse(line) as { _id: string; title?: string; text?: string };
    const fields: Record<string, string> = {};
    if (options.titleField !== false && o.title) fields.title = o.title;
    fields.text = o.text ?? '';
    out.push({ docno: o._id, fields });
  }
  return out;
}

export function buildCollectionIndex(name: string, profile: 'terrier' | 'lucene', options: { titleField?: boolean } = {}): IndexReader {
  return buildMemoryIndex(readCorpus(name, options), { profile });
}

export function readTopics(path: string): { qid: string; text: string }[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const tab = l.indexOf('\t');
      return { qid: l.slice(0, tab), text: l.slice(tab + 1) };
    });
}

export function runFromHits(hitsByQuery: Map<string, RunEntry[]>, runId = 'querylens'): Run {
  return { runId, queries: hitsByQuery };
}

export function evaluateRun(run: Run, qrelsPath: string, measures: string[]): Record<string, number> {
  const qrels = parseQrels(readFileSync(qrelsPath, 'utf8'), qrelsPath);
  return evaluate(run, qrels, { measures }).mean;
}
