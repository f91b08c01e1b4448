/**
 * Writes the encoder inputs the Node runtime builds for a fixed set of queries, for the
 * PyTorch-vs-ONNX parity fixtures (model/twbert/export.py reads them):
 *
 *   npx tsx model/encode-queries.ts [--unigrams-only] > model/.work/parity-inputs.jsonl
 *
 * Uses the very functions the runtime uses (segment.ts, tokenize.ts) and the engine's analyser. Each
 * n-gram also gets fixed, varied collection statistics (`stats`, STATISTIC_NAMES order), the extra input
 * of a collection-aware model; the parity test hands the runtime the same numbers.
 */
import { join } from 'node:path';
import { createAnalyzer } from '../server/engine/analysis/index.js';
import { segmentQuery } from '../server/model/segment.js';
import { encodeQuery, loadTokenizer } from '../server/model/tokenize.js';

export const PARITY_QUERIES = [
  'what similarity laws must be obeyed when constructing aeroelastic models of heated high speed aircraft',
  'laminar flow over a flat plate',
  'flow flow flow separation',
  'The effect of the the stopwords: of, the, and',
  'Café naïve résumé — über-fast 3D printing in 2024',
  'x²y and H₂O 😀 emoji',
  'ribosomal proteins regulate p53 through MDM2 binding',
  'a',
  'supercalifragilisticexpialidocious antidisestablishmentarianism',
  'Vitamin D deficiency is associated with increased risk of COVID-19 hospitalisation in older adults',
];

const here = new URL('.', import.meta.url).pathname;
const bigrams = !process.argv.includes('--unigrams-only');
const tokenizer = loadTokenizer(join(here, 'artifacts/tokenizer.json'));
const analyzer = createAnalyzer('terrier');
for (const query of PARITY_QUERIES) {
  const seg = segmentQuery(query, analyzer, { bigrams });
  const enc = await encodeQuery(tokenizer, seg, 128);
  const q = PARITY_QUERIES.indexOf(query);
  // The last words of a query play Bo1 words (expansion 1, a w'); the query-level ones are the same on every n-gram.
  const words = seg.ngrams.filter((g) => g.terms.length === 1).length;
  const stats = seg.ngrams.map((g, j) => {
    const expansion = g.terms.length === 1 && j >= Math.max(1, words - 2) ? 1 : 0;
    return [
      1 + ((q * 7 + j * 3) % 10) / 2,
      3 + ((q + j) % 5),
      g.terms.length === 2 ? (j % 4) / 4 : 0,
      (j % 11) / 10,
      ((q + 2 * j) % 7) / 6,
      expansion,
      g.terms.length === 1 ? ((q + 3 * j) % 5) / 8 : 0,
      ((q + j) % 4) / 3,
      ((2 * q + j) % 6) / 5,
      (q % 5) / 4,
      ((q + 1) % 3) / 2,
    ];
  });
  process.stdout.write(JSON.stringify({ query, terms: seg.ngrams.map((g) => g.terms), ids: enc.ids, ngrams: enc.ngramTokens, stats }) + '\n');
}
