/**
 * The terminal progress bar of an index build (`querylens index`, `npm start`). The builder
 * (server/engine/index/disk.ts) only reports progress through its `onProgress` callback; drawing
 * is the CLI's business. Input bytes drive the percentage and ETA (the number of documents is not
 * known in advance, the input size is); documents and docs/s are shown beside it.
 */
import cliProgress from 'cli-progress';

export interface BuildProgressBar {
  /** Pass as the builder's `onProgress`. */
  onProgress(p: Progress): void;
  /** Removes the bar (call when the build ends, however it ends). */
  stop(): void;
}

/** What the builder reports (BuildProgress in server/engine/index/disk.ts). */
interface Progress {
  docs: number;
  bytesRead: number;
  totalBytes: number;
  phase?: 'reading' | 'merging' | 'writing';
}

/** What the bar says for each phase: after the reading, the merge of the sorted runs. */
const PHASE_LABEL = { reading: 'indexing', merging: 'merging', writing: 'writing' } as const;

/** A bar on `stream` (stderr by default), or null when it is not a terminal: nothing is drawn into a pipe or a file. */
export function buildProgressBar(stream: NodeJS.WriteStream = process.stderr): BuildProgressBar | null {
  if (!stream.isTTY) return null;
  const started = performance.now();
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: '{phase} |{bar}| {percentage}% | {docs} docs | {speed} docs/s | ETA {eta_formatted}',
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let begun = false;
  let last: Progress = { docs: 0, bytesRead: 0, totalBytes: 1 };
  /** docs/s of the reading, kept while the runs are merged (no documents come in then). */
  let speed = 0;
  const draw = (p: Progress) => {
    const total = Math.max(1, p.totalBytes);
    const phase = PHASE_LABEL[p.phase ?? 'reading'];
    if (!begun) {
      bar.start(total, 0, { docs: 0, speed: 0, phase });
      begun = true;
    }
    const seconds = (performance.now() - started) / 1000;
    if ((p.phase ?? 'reading') === 'reading') speed = seconds > 0 ? Math.round(p.docs / seconds) : 0;
    bar.update(Math.min(p.bytesRead, total), { docs: p.docs, speed, phase });
  };
  return {
    onProgress(p) {
      const phaseChanged = p.phase !== last.phase;
      last = p;
      // Every 64 documents (drawing is slower than indexing a small document), and when the phase changes.
      if (!begun || phaseChanged || (p.docs & 63) === 0) draw(p);
    },
    stop() {
      if (begun) {
        draw({ ...last, bytesRead: last.totalBytes });
        bar.stop();
      }
    },
  };
}
