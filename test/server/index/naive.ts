/**
 * A deliberately naive re-derivation of what an index must answer, straight from the
 * analyser and plain Maps: the oracle the memory and disk indexes are checked against.
 */
import { readFileSync } from 'node:fs';
import { createAnalyzer, type AnalyzerProfile } from '../../../server/engine/analysis/index.js';
import type { IngestDocument } from '../../../server/engine/ingest/types.js';

export interface NaiveIndex {
  docnos: string[];
  lengths: number[];
  /** term -> doc -> positions */
  postings: Map<string, Map<number, number[]>>;
  /** doc -> field -> [begin, end) */
  extents: Map<string, [number, number]>[];
}

export function naiveIndex(docs: IngestDocument[], profile: AnalyzerProfile): NaiveIndex {
  const analyzer = createAnalyzer(profile);
  const out: NaiveIndex = { docnos: [], lengths: [], postings: new Map(), extents: [] };
  docs.forEach((doc, d) => {
    out.docnos.push(doc.docno);
    const names = Object.keys(doc.fields);
    const ordered = [
      ...names.filter((n) => n === 'title'),
      ...names.filter((n) => n === 'text'),
      ...names.filter((n) => n !== 'title' && n !== 'text'),
    ];
    let pos = 0;
    const ext = new Map<string, [number, number]>();
    for (const name of ordered) {
      const tokens = analyzer.analyze(doc.fields[name]!, pos);
      if (tokens.length > 0) ext.set(name, [pos, pos + tokens.length]);
      for (const t of tokens) {
        let byDoc = out.postings.get(t.term);
        if (!byDoc) out.postings.set(t.term, (byDoc = new Map()));
        let ps = byDoc.get(d);
        if (!ps) byDoc.set(d, (ps = []));
        ps.push(t.position);
      }
      pos += tokens.length;
    }
    out.lengths.push(pos);
    out.extents.push(ext);
  });
  return out;
}

/** BEIR JSONL read with a plain JSON.parse per line (independent of server/engine/ingest). */
export function loadJsonl(path: string, limit = Infinity): IngestDocument[] {
  const docs: IngestDocument[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    if (docs.length >= limit) break;
    const r = JSON.parse(line) as Record<string, string>;
    const fields: Record<string, string> = {};
    if (typeof r.title === 'string') fields.title = r.title;
    for (const [k, v] of Object.entries(r)) if (k !== '_id' && k !== 'title' && typeof v === 'string') fields[k] = v;
    docs.push({ docno: String(r._id), fields });
  }
  return docs;
}
