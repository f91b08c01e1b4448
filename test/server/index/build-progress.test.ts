/**
 * The build reports how far the merge and the writing have come (issue 13 §2: a progress bar
 * through the whole build, not only the reading): `phaseDone` rises from 0 to 1 in each phase,
 * in steps of at least 1%, and the CLI's bar draws it as the phase's percentage.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { buildIndex, type BuildProgress } from '../../../server/engine/index/disk.js';
import { buildProgressBar } from '../../../server/cli/progress-bar.js';

const dir = mkdtempSync(join(tmpdir(), 'querylens-build-progress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('merge and writing progress', () => {
  const corpus = join(dir, 'corpus.jsonl');
  // Many distinct words, so that the merge has many terms to report on.
  writeFileSync(corpus, Array.from({ length: 3000 }, (_, i) => JSON.stringify({ _id: `d${i}`, text: `w${i} w${i % 97}x w${i % 13}y common` })).join('\n') + '\n');

  it('phaseDone rises from 0 to 1 in the merging and writing phases, and the bar shows it', async () => {
    const reports: BuildProgress[] = [];
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        chunks.push(String(chunk));
        done();
      },
    }) as unknown as NodeJS.WriteStream;
    Object.assign(stream, { isTTY: true, columns: 120, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
    const bar = buildProgressBar(stream)!;
    try {
      await buildIndex([corpus], join(dir, 'idx'), {
        // A small budget: several sorted runs to merge.
        memoryBudgetBytes: 64 * 1024,
        onProgress: (p) => {
          reports.push({ ...p });
          bar.onProgress(p);
        },
      });
    } finally {
      bar.stop();
    }
    for (const phase of ['merging', 'writing'] as const) {
      const done = reports.filter((r) => r.phase === phase).map((r) => r.phaseDone!);
      expect(done[0], phase).toBe(0);
      expect(done.at(-1), phase).toBe(1);
      for (let i = 1; i < done.length; i++) expect(done[i]!, phase).toBeGreaterThanOrEqual(done[i - 1]!);
      // Reported along the way, not only at the ends: about every 1%.
      expect(done.filter((d) => d > 0 && d < 1).length, phase).toBeGreaterThan(20);
    }
    // The bar redraws on a timer (cli-progress: at most 10 frames a second), so a small build's merge can end
    // between two frames: replay a report from the middle of each phase on a fresh bar and give it a frame.
    const replayed: string[] = [];
    const replayStream = new Writable({
      write(chunk, _enc, done) {
        replayed.push(String(chunk));
        done();
      },
    }) as unknown as NodeJS.WriteStream;
    Object.assign(replayStream, { isTTY: true, columns: 120, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
    const replay = buildProgressBar(replayStream)!;
    try {
      for (const phase of ['merging', 'writing'] as const) {
        const middle = reports.find((r) => r.phase === phase && r.phaseDone! >= 0.3 && r.phaseDone! <= 0.7);
        expect(middle, phase).toBeDefined();
        replay.onProgress(middle!);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    } finally {
      replay.stop();
    }
    expect(replayed.join('')).toMatch(/merging \|.*\| [1-9]\d?% \|/);
    expect(replayed.join('')).toMatch(/writing \|.*\| [1-9]\d?% \|/);
  });
});
