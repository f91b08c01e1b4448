/**
 * Porter stemming as Terrier does it (SEMANTICS.md §5): Martin Porter's reference implementation
 * (Porter 1980 plus the reference departures bli→ble, logi→log; words of length ≤ 2 are
 * left alone).
 *
 * Why the npm package and not our own: `stemmer@2.0.1` (wooorm) implements exactly those
 * reference departures and maps all 23,531 words of Terrier's test vocabulary
 * (share/tests/porterstemmer/voc.txt) to Terrier's expected output, 0 failures
 * (checked by test/server/analysis/porter.test.ts on every run). So no second stemmer is
 * written here; if that test ever fails after an upgrade, pin the package back.
 */
import { stemmer } from 'stemmer';

/** Stems one lowercased word. Pure; callers cache (see analysis/index.ts). */
export function porterStem(word: string): string {
  return stemmer(word);
}
