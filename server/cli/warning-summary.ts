/**
 * Query warnings for the terminal. Most are printed as they come (`file:line:col: …`); stopword
 * warnings, which a topic file produces by the hundred ("what", "of", "the" in every question),
 * are counted and summarised in one line per file at the end. `--quiet` prints no warnings at all
 * (errors are never hidden).
 */
import type { SourceDiagnostic } from '../../grammar/index.js';
import { formatDiagnostic } from './commands/check.js';

/** Codes summarised per file instead of printed one by one. */
const SUMMARISED = new Set(['engine/stopword']);

export class WarningPrinter {
  private readonly stopwords = new Map<string, { count: number; queries: Set<string>; words: Map<string, number> }>();

  constructor(
    private readonly quiet: boolean,
    private readonly write: (text: string) => void = (t) => process.stderr.write(t),
  ) {}

  /** Prints or counts the diagnostics of one query of `file` (whose text is `fileText`). */
  add(file: string, fileText: string, diagnostics: readonly SourceDiagnostic[]): void {
    const shown: string[] = [];
    for (const d of diagnostics) {
      if (d.severity !== 'error' && SUMMARISED.has(d.code)) {
        let entry = this.stopwords.get(file);
        if (!entry) this.stopwords.set(file, (entry = { count: 0, queries: new Set(), words: new Map() }));
        entry.count++;
        if (d.qid !== undefined) entry.queries.add(d.qid);
        const word = fileText.slice(d.range.start, d.range.end).toLowerCase();
        entry.words.set(word, (entry.words.get(word) ?? 0) + 1);
      } else if (d.severity === 'error' || !this.quiet) {
        shown.push(formatDiagnostic(file, d));
      }
    }
    if (shown.length) this.write(shown.join('\n') + '\n');
  }

  /** One summary line per file for the counted warnings. */
  flush(): void {
    if (this.quiet) return;
    for (const [file, { count, queries, words }] of this.stopwords) {
      const top = [...words].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      const listed = top.slice(0, 8).map(([w, n]) => (n > 1 ? `${w} ×${n}` : w));
      this.write(
        `${file}: warning engine/stopword ${count} stopword${count === 1 ? '' : 's'} in ${queries.size} quer${queries.size === 1 ? 'y' : 'ies'} contribute nothing to the score: ${listed.join(', ')}${top.length > 8 ? `, … (${top.length} distinct)` : ''}\n`,
      );
    }
    this.stopwords.clear();
  }
}
