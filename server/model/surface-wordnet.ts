/**
 * WordNet synonyms for the learned expansion (issue 15 §1), read from the WordNet 3 database files that
 * Debian's `wordnet-base` installs (/usr/share/wordnet: index.POS lists a lemma's synsets by sense
 * frequency, data.POS holds each synset's words at its byte offset; format: wndb(5WN)). The base form of
 * an inflected word is found as WordNet's morphy does it: the exception lists (POS.exc), then its
 * suffix rules (morphy(7WN)). Files are read on first use; a missing folder is an explained state.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SurfaceResourceProblem } from './surface-embeddings.js';

export const DEFAULT_WORDNET_DIR = '/usr/share/wordnet';

const POS = ['noun', 'verb', 'adj', 'adv'] as const;
export type Pos = (typeof POS)[number];
/** The part-of-speech letters of data-file pointers (`s` is a satellite adjective). */
const POS_OF_CODE: Record<string, Pos> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };

/** One sense (synset) of a word. */
export interface WordSense {
  pos: Pos;
  /** The lemma it was found under (the word or its base form). */
  base: string;
  /** Its place among `base`'s senses in `pos`, most frequent first (0 = most frequent). */
  rank: number;
  /** Its lemmas, lowercased (multi-word ones joined by `_`). */
  words: string[];
  /** Definition and examples. */
  gloss: string;
  /** The lemmas of the senses it is a kind or an instance of. */
  hypernymWords: string[];
}

/** morphy(7WN)'s detachment rules: [suffix, ending] per part of speech. */
const SUFFIX_RULES: Record<Pos, [string, string][]> = {
  noun: [['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
  verb: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
  adj: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e']],
  adv: [],
};

interface PosTables {
  /** lemma → synset offsets, most frequent sense first. */
  index: Map<string, number[]>;
  /** inflected form → base forms. */
  exceptions: Map<string, string[]>;
  data: Buffer;
}

/** How many words' senses are kept read (each a few synsets; the cache is emptied when full). */
const SENSE_CACHE_WORDS = 20_000;

export class WordNet {
  private tables: Map<Pos, PosTables> | undefined;
  private readonly sensesOf = new Map<string, readonly WordSense[]>();

  constructor(readonly dir: string) {}

  private load(): Map<Pos, PosTables> {
    if (this.tables) return this.tables;
    const tables = new Map<Pos, PosTables>();
    for (const pos of POS) {
      const index = new Map<string, number[]>();
      for (const line of readFileSync(join(this.dir, `index.${pos}`), 'latin1').split('\n')) {
        if (!line || line.startsWith(' ')) continue; // the licence header lines start with two spaces
        const f = line.trim().split(' ');
        const synsets = Number(f[2]);
        index.set(f[0]!, f.slice(f.length - synsets).map(Number));
      }
      const exceptions = new Map<string, string[]>();
      const excFile = join(this.dir, `${pos === 'adj' ? 'adj' : pos === 'adv' ? 'adv' : pos}.exc`);
      if (existsSync(excFile)) {
        for (const line of readFileSync(excFile, 'latin1').split('\n')) {
          const [form, ...bases] = line.trim().split(' ');
          if (form && bases.length) exceptions.set(form, bases);
        }
      }
      tables.set(pos, { index, exceptions, data: readFileSync(join(this.dir, `data.${pos}`)) });
    }
    return (this.tables = tables);
  }

  /** The base forms of `word` that WordNet lists for `pos` (the word itself first when listed). */
  private baseForms(t: PosTables, pos: Pos, word: string): string[] {
    const out: string[] = [];
    const add = (w: string) => {
      if (t.index.has(w) && !out.includes(w)) out.push(w);
    };
    add(word);
    for (const b of t.exceptions.get(word) ?? []) add(b);
    for (const [suffix, ending] of SUFFIX_RULES[pos]) {
      if (word.length > suffix.length + 1 && word.endsWith(suffix)) add(word.slice(0, -suffix.length) + ending);
    }
    return out;
  }

  /** A synset's lemmas (lowercased, sense markers dropped), its gloss, and its hypernyms' offsets in `pos`'s data. */
  private synset(data: Buffer, offset: number): { words: string[]; gloss: string; hypernyms: [Pos, number][] } {
    const end = data.indexOf(0x0a, offset);
    const line = data.toString('latin1', offset, end < 0 ? data.length : end);
    const f = line.split(' ');
    const count = parseInt(f[3]!, 16);
    const words: string[] = [];
    for (let i = 0; i < count; i++) words.push(f[4 + 2 * i]!.replace(/\(.*\)$/, '').toLowerCase());
    // Pointers: "symbol offset pos source/target", `@` (hypernym) and `@i` (instance hypernym) lead up.
    const pointers = Number(f[4 + 2 * count]);
    const hypernyms: [Pos, number][] = [];
    for (let i = 0; i < pointers; i++) {
      const at = 5 + 2 * count + 4 * i;
      if (f[at] === '@' || f[at] === '@i') hypernyms.push([POS_OF_CODE[f[at + 2]!]!, Number(f[at + 1])]);
    }
    const bar = line.indexOf('|');
    return { words, gloss: bar < 0 ? '' : line.slice(bar + 1).trim(), hypernyms };
  }

  /**
   * Every sense of `word` (through its base forms), part of speech by part of speech, each lemma's senses in
   * WordNet's order (most frequent first: `rank` 0 is its most frequent sense in that part of speech).
   */
  senses(word: string): readonly WordSense[] {
    const lower = word.toLowerCase();
    let out = this.sensesOf.get(lower);
    if (out) return out;
    out = this.readSenses(lower);
    // Query words repeat across queries and keystrokes; a bound keeps a long session's memory flat.
    if (this.sensesOf.size >= SENSE_CACHE_WORDS) this.sensesOf.clear();
    this.sensesOf.set(lower, out);
    return out;
  }

  private readSenses(lower: string): WordSense[] {
    const out: WordSense[] = [];
    const tables = this.load();
    for (const [pos, t] of tables) {
      const bases = this.baseForms(t, pos, lower);
      for (const base of bases) {
        (t.index.get(base) ?? []).forEach((offset, rank) => {
          const s = this.synset(t.data, offset);
          const hypernymWords = s.hypernyms.flatMap(([p, o]) => this.synset(tables.get(p)!.data, o).words);
          out.push({ pos, base, rank, words: s.words, gloss: s.gloss, hypernymWords });
        });
      }
    }
    return out;
  }

  /**
   * Single-word synonyms of `word` from the senses `keep` accepts (default: each lemma's three most frequent),
   * in the order `keep` returns them; multi-word lemmas are left out (a query word is replaced by words).
   */
  synonyms(word: string, keep: (senses: readonly WordSense[]) => readonly WordSense[] = (all) => all.filter((s) => s.rank < 3)): string[] {
    const out: string[] = [];
    const lower = word.toLowerCase();
    const all = this.senses(lower);
    const bases = new Set(all.map((s) => s.base));
    for (const sense of keep(all)) {
      for (const w of sense.words) {
        if (w.includes('_') || w.includes('-') || w === lower || bases.has(w) || out.includes(w)) continue;
        out.push(w);
      }
    }
    return out;
  }
}

/** Opens WordNet at `dir` (files read on first use); a problem when the database is not there. */
export function openWordNet(dir: string = DEFAULT_WORDNET_DIR): { ok: true; wordnet: WordNet } | { ok: false; problem: SurfaceResourceProblem } {
  const missing = POS.flatMap((p) => [`index.${p}`, `data.${p}`]).filter((f) => !existsSync(join(dir, f)));
  if (missing.length) {
    return {
      ok: false,
      problem: { resource: 'wordnet', message: `no WordNet database at ${dir} (missing ${missing.join(', ')}): synonyms are not suggested; install Debian's wordnet-base or set QUERYLENS_WORDNET to its folder` },
    };
  }
  return { ok: true, wordnet: new WordNet(dir) };
}
