/**
 * Lucene regular expressions (grammar/lucene/regexp.ts) compiled to automata and matched in
 * time linear in the term, as Lucene's RegexpQuery does (SEMANTICS.md §3): no backtracking, so
 * `/(.*.*)*q/` costs what `/.*q/` costs. The tree becomes an NFA over code-point ranges
 * (Thompson's construction); complement and intersection determinize their operands (subset
 * construction), and matching walks a DFA built lazily from the NFA, one state per set of NFA
 * states met, each transition computed once. Budgets bound every step: NFA states, states of a
 * determinized operand and of the lazy DFA (Lucene's default maxDeterminizedStates is 10,000);
 * past one, `ExpansionLimitError` says which, and the caller reports `engine/expansion-limit`.
 */
import { MAX_CODE_POINT, type RegexpNode } from '../../../grammar/lucene/regexp.js';

/** Most NFA states one expression may build (a{1000}{1000} would build a million). */
export const MAX_NFA_STATES = 50_000;
/** Most DFA states, per determinized operand and for the matcher (Lucene's default 10,000). */
export const MAX_DFA_STATES = 10_000;

export class ExpansionLimitError extends Error {}

interface Nfa {
  /** Per state: transitions [min, max, target] on code points. */
  trans: [number, number, number][][];
  eps: number[][];
  accept: boolean[];
  start: number;
}

/** Builds NFAs into one shared state table; fragments are (start, end) pairs. */
class Builder {
  readonly trans: [number, number, number][][] = [];
  readonly eps: number[][] = [];
  readonly accept: boolean[] = [];

  state(): number {
    if (this.trans.length >= MAX_NFA_STATES)
      throw new ExpansionLimitError(`the regular expression needs more than ${MAX_NFA_STATES.toLocaleString('en-US')} automaton states`);
    this.trans.push([]);
    this.eps.push([]);
    this.accept.push(false);
    return this.trans.length - 1;
  }

  /** A fragment with one entry and one exit state. */
  build(node: RegexpNode): { start: number; end: number } {
    switch (node.kind) {
      case 'chars': {
        const start = this.state();
        const end = this.state();
        for (const [a, b] of node.ranges) this.trans[start]!.push([a, b, end]);
        return { start, end };
      }
      case 'empty':
        return { start: this.state(), end: this.state() };
      case 'anyString': {
        const s = this.state();
        this.trans[s]!.push([0, MAX_CODE_POINT, s]);
        return { start: s, end: s };
      }
      case 'string': {
        const start = this.state();
        let cur = start;
        for (const ch of node.text) {
          const n = this.state();
          const cp = ch.codePointAt(0)!;
          this.trans[cur]!.push([cp, cp, n]);
          cur = n;
        }
        return { start, end: cur };
      }
      case 'concat': {
        // Iterative over right-nested concatenations (long literal bodies).
        let n: RegexpNode = node;
        const first = this.build(n.left);
        let end = first.end;
        n = n.right;
        while (n.kind === 'concat') {
          const f = this.build(n.left);
          this.eps[end]!.push(f.start);
          end = f.end;
          n = n.right;
        }
        const last = this.build(n);
        this.eps[end]!.push(last.start);
        return { start: first.start, end: last.end };
      }
      case 'union': {
        const start = this.state();
        const end = this.state();
        for (const side of [node.left, node.right]) {
          const f = this.build(side);
          this.eps[start]!.push(f.start);
          this.eps[f.end]!.push(end);
        }
        return { start, end };
      }
      case 'repeat':
        return this.repeat(node.child, node.min, node.max);
      case 'interval':
        return this.build(intervalNode(node.min, node.max, node.digits));
      case 'complement':
        return this.embed(complement(determinize(compileNfa(node.child))));
      case 'intersection':
        return this.embed(intersect(determinize(compileNfa(node.left)), determinize(compileNfa(node.right))));
    }
  }

  private repeat(child: RegexpNode, min: number, max: number | null): { start: number; end: number } {
    if (max !== null && min > max) return this.build({ kind: 'empty' });
    const start = this.state();
    let end = start;
    for (let i = 0; i < min; i++) {
      const f = this.build(child);
      this.eps[end]!.push(f.start);
      end = f.end;
    }
    if (max === null) {
      const loop = this.build(child);
      const after = this.state();
      this.eps[end]!.push(loop.start, after);
      this.eps[loop.end]!.push(loop.start, after);
      return { start, end: after };
    }
    const after = this.state();
    for (let i = min; i < max; i++) {
      const f = this.build(child);
      this.eps[end]!.push(f.start, after);
      end = f.end;
    }
    this.eps[end]!.push(after);
    return { start, end: after };
  }

  /** Copies a finished automaton in as a fragment. */
  private embed(a: Nfa): { start: number; end: number } {
    const base = this.trans.length;
    for (let s = 0; s < a.trans.length; s++) this.state();
    const end = this.state();
    for (let s = 0; s < a.trans.length; s++) {
      for (const [x, y, t] of a.trans[s]!) this.trans[base + s]!.push([x, y, base + t]);
      for (const t of a.eps[s]!) this.eps[base + s]!.push(base + t);
      if (a.accept[s]) this.eps[base + s]!.push(end);
    }
    return { start: base + a.start, end };
  }
}

function compileNfa(node: RegexpNode): Nfa {
  const b = new Builder();
  const f = b.build(node);
  b.accept[f.end] = true;
  return { trans: b.trans, eps: b.eps, accept: b.accept, start: f.start };
}

/** Decimal numbers in [min, max] (Lucene's Automata.makeDecimalInterval), as a regex tree. */
function intervalNode(min: number, max: number, digits: number): RegexpNode {
  const str = (text: string): RegexpNode => ({ kind: 'string', text });
  const digit = (a: number, b: number): RegexpNode => ({ kind: 'chars', ranges: [[48 + a, 48 + b]] });
  const cat = (left: RegexpNode, right: RegexpNode): RegexpNode => ({ kind: 'concat', left, right });
  const or = (left: RegexpNode | null, right: RegexpNode): RegexpNode => (left ? { kind: 'union', left, right } : right);
  /** Equal-length digit strings lo..hi. */
  const fixed = (lo: string, hi: string): RegexpNode => {
    if (lo.length === 0) return str('');
    if (lo[0] === hi[0]) return cat(digit(+lo[0]!, +lo[0]!), fixed(lo.slice(1), hi.slice(1)));
    const rest = lo.length - 1;
    let e: RegexpNode = cat(digit(+lo[0]!, +lo[0]!), fixed(lo.slice(1), '9'.repeat(rest)));
    if (+hi[0]! - +lo[0]! > 1) e = or(e, cat(digit(+lo[0]! + 1, +hi[0]! - 1), fixed('0'.repeat(rest), '9'.repeat(rest))));
    return or(e, cat(digit(+hi[0]!, +hi[0]!), fixed('0'.repeat(rest), hi.slice(1))));
  };
  if (digits > 0) return fixed(String(min).padStart(digits, '0'), String(max).padStart(digits, '0'));
  // Any number of leading zeros, then the number itself.
  let e: RegexpNode | null = null;
  const hiLen = String(max).length;
  for (let len = String(min).length; len <= hiLen; len++) {
    const lo = Math.max(min, len === 1 ? 0 : 10 ** (len - 1));
    const hi = Math.min(max, 10 ** len - 1);
    if (lo <= hi) e = or(e, fixed(String(lo), String(hi)));
  }
  return cat({ kind: 'repeat', child: str('0'), min: 0, max: null }, e!);
}

function closure(nfa: Nfa, states: Iterable<number>): number[] {
  const seen = new Set<number>();
  const stack = [...states];
  while (stack.length) {
    const s = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    for (const t of nfa.eps[s]!) if (!seen.has(t)) stack.push(t);
  }
  return [...seen].sort((a, b) => a - b);
}

/** Subset construction over code-point intervals; the result is total (a dead state included). */
function determinize(nfa: Nfa): Nfa {
  const out: Nfa = { trans: [], eps: [], accept: [], start: 0 };
  const ids = new Map<string, number>();
  const sets: number[][] = [];
  const add = (set: number[]): number => {
    const key = set.join(',');
    let id = ids.get(key);
    if (id === undefined) {
      if (sets.length >= MAX_DFA_STATES)
        throw new ExpansionLimitError(`a complement or intersection in the regular expression needs more than ${MAX_DFA_STATES.toLocaleString('en-US')} automaton states`);
      id = sets.length;
      ids.set(key, id);
      sets.push(set);
      out.trans.push([]);
      out.eps.push([]);
      out.accept.push(set.some((s) => nfa.accept[s]));
    }
    return id;
  };
  add(closure(nfa, [nfa.start]));
  for (let i = 0; i < sets.length; i++) {
    const moves = sets[i]!.flatMap((s) => nfa.trans[s]!);
    const points = new Set<number>([0]);
    for (const [a, b] of moves) {
      points.add(a);
      if (b < MAX_CODE_POINT) points.add(b + 1);
    }
    const sorted = [...points].sort((a, b) => a - b);
    for (let p = 0; p < sorted.length; p++) {
      const lo = sorted[p]!;
      const hi = p + 1 < sorted.length ? sorted[p + 1]! - 1 : MAX_CODE_POINT;
      const targets = moves.filter(([a, b]) => a <= lo && lo <= b).map((m) => m[2]);
      const target = add(closure(nfa, targets));
      const last = out.trans[i]![out.trans[i]!.length - 1];
      if (last && last[2] === target && last[1] === lo - 1) last[1] = hi;
      else out.trans[i]!.push([lo, hi, target]);
    }
  }
  return out;
}

/** Of a total DFA: the strings it rejects. */
function complement(dfa: Nfa): Nfa {
  return { ...dfa, accept: dfa.accept.map((a) => !a) };
}

/** Product of two total DFAs. */
function intersect(a: Nfa, b: Nfa): Nfa {
  const out: Nfa = { trans: [], eps: [], accept: [], start: 0 };
  const ids = new Map<number, number>();
  const pairs: [number, number][] = [];
  const add = (x: number, y: number): number => {
    const key = x * b.trans.length + y;
    let id = ids.get(key);
    if (id === undefined) {
      if (pairs.length >= MAX_DFA_STATES)
        throw new ExpansionLimitError(`an intersection in the regular expression needs more than ${MAX_DFA_STATES.toLocaleString('en-US')} automaton states`);
      id = pairs.length;
      ids.set(key, id);
      pairs.push([x, y]);
      out.trans.push([]);
      out.eps.push([]);
      out.accept.push(a.accept[x]! && b.accept[y]!);
    }
    return id;
  };
  add(a.start, b.start);
  for (let i = 0; i < pairs.length; i++) {
    const [x, y] = pairs[i]!;
    for (const [a1, b1, tx] of a.trans[x]!)
      for (const [a2, b2, ty] of b.trans[y]!) {
        const lo = Math.max(a1, a2);
        const hi = Math.min(b1, b2);
        if (lo <= hi) out.trans[i]!.push([lo, hi, add(tx, ty)]);
      }
  }
  return out;
}

/**
 * A compiled regular expression: `matches(term)` walks a DFA built lazily from the NFA, so a
 * term costs one step per code point once its states exist, and at most MAX_DFA_STATES exist.
 */
export class RegexpMatcher {
  private readonly nfa: Nfa;
  private readonly ids = new Map<string, number>();
  private readonly sets: number[][] = [];
  private readonly accepting: boolean[] = [];
  /** Per DFA state: code point → next DFA state (-1: dead). */
  private readonly next: Map<number, number>[] = [];
  private readonly dead: number;
  private readonly start: number;

  constructor(node: RegexpNode) {
    this.nfa = compileNfa(node);
    this.dead = this.stateOf([]);
    this.start = this.stateOf(closure(this.nfa, [this.nfa.start]));
  }

  private stateOf(set: number[]): number {
    const key = set.join(',');
    let id = this.ids.get(key);
    if (id === undefined) {
      if (this.sets.length >= MAX_DFA_STATES)
        throw new ExpansionLimitError(`matching the regular expression needs more than ${MAX_DFA_STATES.toLocaleString('en-US')} automaton states`);
      id = this.sets.length;
      this.ids.set(key, id);
      this.sets.push(set);
      this.accepting.push(set.some((s) => this.nfa.accept[s]));
      this.next.push(new Map());
    }
    return id;
  }

  matches(term: string): boolean {
    let state = this.start;
    for (let i = 0; i < term.length; ) {
      const cp = term.codePointAt(i)!;
      i += cp > 0xffff ? 2 : 1;
      let to = this.next[state]!.get(cp);
      if (to === undefined) {
        const targets: number[] = [];
        for (const s of this.sets[state]!) for (const [a, b, t] of this.nfa.trans[s]!) if (a <= cp && cp <= b) targets.push(t);
        to = this.stateOf(closure(this.nfa, targets));
        this.next[state]!.set(cp, to);
      }
      if (to === this.dead) return false;
      state = to;
    }
    return this.accepting[state]!;
  }
}
