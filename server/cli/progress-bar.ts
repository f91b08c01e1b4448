/**
 * The terminal progress bar of an index build (`querylens index`, `npm start`). The builder
 * (server/engine/index/disk.ts) only reports progress through its `onProgress` callback; drawing
 * is the CLI's business. Input bytes drive the percentage and ETA (the number of documents is not
 * known in advance, the input size is); documents and docs/s are shown beside it. After the
 * reading, the bar starts again for the merge and the writing, from the share of each phase done.
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
  /** Share of the merging or writing phase done (0 to 1). */
  phaseDone?: number;
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
  let drawnPhase: Progress['phase'];
  let last: Progress = { docs: 0, bytesRead: 0, totalBytes: 1 };
  /** docs/s of the reading, kept while the runs are merged (no documents come in then). */
  let speed = 0;
  const draw = (p: Progress) => {
    const total = Math.max(1, p.totalBytes);
    const phase = PHASE_LABEL[p.phase ?? 'reading'];
    const reading = (p.phase ?? 'reading') === 'reading';
    // Reading: input bytes; merging and writing: the share of the phase done, on a fresh bar (its own ETA).
    const value = reading ? Math.min(p.bytesRead, total) : Math.round((p.phaseDone ?? 0) * total);
    if (!begun || p.phase !== drawnPhase) {
      bar.start(total, reading ? 0 : value, { docs: p.docs, speed, phase });
      begun = true;
      drawnPhase = p.phase;
    }
    const seconds = (performance.now() - started) / 1000;
    if (reading) speed = seconds > 0 ? Math.round(p.docs / seconds) : 0;
    bar.update(value, { docs: p.docs, speed, phase });
  };
  return {
    onProgress(p) {
      const phaseChanged = p.phase !== last.phase;
      last = p;
      // Every 64 documents (drawing is slower than indexing a small document), when the phase
      // changes, and at each report of a later phase (the builder sends one per 1% done).
      if (!begun || phaseChanged || (p.phase ?? 'reading') !== 'reading' || (p.docs & 63) === 0) draw(p);
    },
    stop() {
      if (begun) {
        draw({ ...last, bytesRead: last.totalBytes, phaseDone: 1 });
        bar.stop();
      }
    },
  };
}
