/**
 * The index build's progress bar is drawn by the CLI (server/cli/progress-bar.ts) from the
 * builder's onProgress callback; the builder itself draws nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../server/engine/index/disk.js';
import { buildProgressBar } from '../../server/cli/progress-bar.js';

const dir = mkdtempSync(join(tmpdir(), 'querylens-progress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakeStream(tty: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(w, { isTTY: tty, columns: 120, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
  return { stream: w, text: () => chunks.join('') };
}

describe('index build progress', () => {
  const corpus = join(dir, 'corpus.jsonl');
  writeFileSync(corpus, Array.from({ length: 200 }, (_, i) => JSON.stringify({ _id: `d${i}`, title: '', text: `document ${i} about flow` })).join('\n') + '\n');

  it('is drawn by the CLI from the builder callback on a terminal', async () => {
    const out = fakeStream(true);
    const bar = buildProgressBar(out.stream)!;
    expect(bar).not.toBeNull();
    const seen: number[] = [];
    try {
      await buildIndex([corpus], join(dir, 'idx-tty'), {
        onProgress: (p) => {
          seen.push(p.docs);
          bar.onProgress(p);
        },
      });
    } finally {
      bar.stop();
    }
    expect(seen.at(-1)).toBe(200);
    expect(out.text()).toMatch(/indexing \|.*\| \d+% \| \d+ docs/);
  });

  it('draws nothing where stderr is not a terminal', () => {
    expect(buildProgressBar(fakeStream(false).stream)).toBeNull();
  });
});
