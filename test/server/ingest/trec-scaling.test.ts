/**
 * One large TREC document is read in time linear in its size (issue 11, item 2: a 50 MB
 * document took 34.7 s, 13 times its JSONL twin). Not a wall-clock limit, which a loaded machine
 * would break: the TREC reader is compared with the JSONL reader (linear) on the same 8 MB text,
 * runs interleaved so that load elsewhere hits both alike, CPU time, the fastest of three each.
 * A reader that re-scans the document per 64 KiB chunk takes 10 to 40 times as long as JSONL.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJsonl } from '../../../server/engine/ingest/jsonl.js';
import { readTrec } from '../../../server/engine/ingest/trec.js';

const dir = mkdtempSync(join(tmpdir(), 'querylens-trec-scaling-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LINE = 'the heat transfer of a slab in hypersonic flow and boundary layer effects\n';
const BODY = LINE.repeat(Math.ceil(8e6 / LINE.length));

/** CPU time of one read (less disturbed than wall-clock time by other processes), and the text read. */
async function cpuTimeOf(read: AsyncGenerator<unknown>): Promise<{ ms: number; text: string }> {
  const before = process.cpuUsage();
  let text = '';
  for await (const d of read) {
    if (d && typeof d === 'object' && 'fields' in d) text ||= (d as { fields: { text: string } }).fields.text;
  }
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, text };
}

describe('TREC ingest scaling', () => {
  it('reads one 8 MB document about as fast as the same text as JSONL', async () => {
    const trec = join(dir, 'big.trec');
    const jsonl = join(dir, 'big.jsonl');
    writeFileSync(trec, `<DOC>\n<DOCNO>big</DOCNO>\n<TEXT>\n${BODY}</TEXT>\n</DOC>\n<DOC><DOCNO>after</DOCNO>x</DOC>\n`);
    writeFileSync(jsonl, JSON.stringify({ _id: 'big', text: BODY }) + '\n');
    let trecMs = Infinity;
    let jsonlMs = Infinity;
    for (let trial = 0; trial < 3; trial++) {
      const t = await cpuTimeOf(readTrec(trec));
      const j = await cpuTimeOf(readJsonl(jsonl));
      expect(t.text.length).toBeGreaterThan(7.9e6);
      expect(t.text).toBe(j.text.replace(/\s+/g, ' ').trim());
      trecMs = Math.min(trecMs, t.ms);
      jsonlMs = Math.min(jsonlMs, j.ms);
    }
    const ratio = trecMs / Math.max(jsonlMs, 1);
    console.log(`one 8 MB document (CPU time): TREC ${trecMs.toFixed(0)} ms, JSONL ${jsonlMs.toFixed(0)} ms, ratio ${ratio.toFixed(1)}`);
    expect(ratio).toBeLessThan(5);
  }, 300_000);
});
