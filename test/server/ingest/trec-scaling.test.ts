/**
 * One large TREC document is read in time linear in its size (issue 11, item 2: a 50 MB
 * document took 34.7 s, 13 times its JSONL twin). Checked by a size ratio, not a wall-clock
 * limit, so that a loaded machine does not fail it: 16 times the text must take far less than
 * 256 times as long (what a quadratic reader takes); the fastest of three runs is compared.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTrec } from '../../../server/engine/ingest/trec.js';

const dir = mkdtempSync(join(tmpdir(), 'querylens-trec-scaling-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LINE = 'the heat transfer of a slab in <i>hypersonic</i> flow &amp; boundary layer effects\n';

function oneDocument(name: string, megabytes: number): string {
  const path = join(dir, name);
  const body = LINE.repeat(Math.ceil((megabytes * 1e6) / LINE.length));
  writeFileSync(path, `<DOC>\n<DOCNO>big</DOCNO>\n<TITLE>Big</TITLE>\n<TEXT>\n${body}</TEXT>\n</DOC>\n<DOC><DOCNO>after</DOCNO>x</DOC>\n`);
  return path;
}

async function fastestRead(path: string): Promise<{ ms: number; textLength: number }> {
  let best = Infinity;
  let textLength = 0;
  for (let trial = 0; trial < 3; trial++) {
    const started = performance.now();
    const docs = [];
    for await (const d of readTrec(path)) docs.push(d);
    best = Math.min(best, performance.now() - started);
    expect(docs.map((d) => ('docno' in d ? d.docno : d.message))).toEqual(['big', 'after']);
    textLength = 'fields' in docs[0]! ? docs[0].fields.text!.length : 0;
  }
  return { ms: best, textLength };
}

describe('TREC ingest scaling', () => {
  it('reads one document of 8 MB in about 16 times the time of 0.5 MB (not 256)', async () => {
    const small = await fastestRead(oneDocument('small.trec', 0.5));
    const large = await fastestRead(oneDocument('large.trec', 8));
    expect(large.textLength).toBeGreaterThan(15 * small.textLength);
    const ratio = large.ms / Math.max(small.ms, 1);
    console.log(`TREC one-document read: 0.5 MB ${small.ms.toFixed(0)} ms, 8 MB ${large.ms.toFixed(0)} ms, ratio ${ratio.toFixed(1)}`);
    expect(ratio).toBeLessThan(64);
  }, 120_000);
});
