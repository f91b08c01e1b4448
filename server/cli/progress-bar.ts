/**
 * The terminal progress bar of an index build (`querylens index`, `npm start`). The builder
 * (server/engine/index/disk.ts) only reports progress through its `onProgress` callback; drawing
 * is the CLI's business. Input bytes drive the percentage and ETA (the number of documents is not
 * known in advance, the input size is); documents and docs/s are shown beside it.
 */
import cliProgress from 'cli-progress';

export interface BuildProgressBar {
  /** Pass as the builder's `onProgress`. */
  onProgress(p: { docs: number; bytesRead: number; totalBytes: number }): void;
  /** Removes the bar (call when the build ends, however it ends). */
  stop(): void;
}

/** A bar on `stream` (stderr by default), or null when it is not a terminal: nothing is drawn into a pipe or a file. */
export function buildProgressBar(stream: NodeJS.WriteStream = process.stderr): BuildProgressBar | null {
  if (!stream.isTTY) return null;
  const started = performance.now();
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: 'indexing |{bar}| {percentage}% | {docs} docs | {speed} docs/s | ETA {eta_formatted}',
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let begun = false;
  let last = { docs: 0, bytesRead: 0, totalBytes: 1 };
  const draw = (p: { docs: number; bytesRead: number; totalBytes: number }) => {
    const total = Math.max(1, p.totalBytes);
    if (!begun) {
      bar.start(total, 0, { docs: 0, speed: 0 });
      begun = true;
    }
    const seconds = (performance.now() - started) / 1000;
    const speed = seconds > 0 ? Math.round(p.docs / seconds) : 0;
    bar.update(Math.min(p.bytesRead, total), { docs: p.docs, speed });
  };
  return {
    onProgress(p) {
      last = p;
      // Every 64 documents: drawing is slower than indexing a small document.
      if (!begun || (p.docs & 63) === 0) draw(p);
    },
    stop() {
      if (begun) {
        draw({ ...last, bytesRead: last.totalBytes });
        bar.stop();
      }
    },
  };
}
