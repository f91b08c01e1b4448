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
type Pos = (typeof POS)[number];

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

export class WordNet {
  private tables: Map<Pos, PosTables> | undefined;

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

  private synsetWords(data: Buffer, offset: number): string[] {
    const end = data.indexOf(0x0a, offset);
    const f = data.toString('latin1', offset, end < 0 ? data.length : end).split(' ');
    const count = parseInt(f[3]!, 16);
    const words: string[] = [];
    for (let i = 0; i < count; i++) words.push(f[4 + 2 * i]!.replace(/\(.*\)$/, '').toLowerCase());
    return words;
  }

  /**
   * Single-word synonyms of `word`: the other words of its synsets, over every part of speech, taking
   * each lemma's first `maxSenses` senses (the most frequent), in sense order; multi-word lemmas are left
   * out (a query word is replaced by words).
   */
  synonyms(word: string, maxSenses = 3): string[] {
    const out: string[] = [];
    const lower = word.toLowerCase();
    for (const [pos, t] of this.load()) {
      const bases = this.baseForms(t, pos, lower);
      for (const base of bases) {
        for (const offset of (t.index.get(base) ?? []).slice(0, maxSenses)) {
          for (const w of this.synsetWords(t.data, offset)) {
            if (w.includes('_') || w.includes('-') || w === lower || bases.includes(w) || out.includes(w)) continue;
            out.push(w);
          }
        }
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
