/**
 * Lucene's regular-expression syntax (org.apache.lucene.util.automaton.RegExp, Lucene 8, with
 * the flags the classic query parser uses: all of them), parsed to a small tree. Pure: the
 * engine compiles the tree to an automaton (server/engine/scoring/regexp-automaton.ts); the
 * Lucene visitor reports a body this parser rejects as `lucene/bad-regex` at the position
 * where parsing stopped. SEMANTICS.md §3.
 *
 *   union    ::= inter ( '|' union )?
 *   inter    ::= concat ( '&' inter )?
 *   concat   ::= repeat concat?          (up to ')' or '|' or '&')
 *   repeat   ::= compl ( '?' | '*' | '+' | '{n}' | '{n,}' | '{n,m}' )*
 *   compl    ::= '~' compl | class
 *   class    ::= '[' '^'? item+ ']' | simple        item ::= char ( '-' char )?
 *   simple   ::= '.' | '#' | '@' | '"' chars '"' | '(' ')' | '(' union ')' | '<' name '>'
 *              | '<' n '-' m '>' | char
 *   char     ::= '\' any | any
 *
 * As in Lucene, a character that starts no other form is itself (so `*a` is a literal star
 * then a, and `]` or `)` alone are literal), `{n,m}` with n > m is the empty language, and
 * `<name>` names an automaton the query parser never provides, so it is an error.
 */

export const MAX_CODE_POINT = 0x10ffff;

export type RegexpNode =
  | { kind: 'union'; left: RegexpNode; right: RegexpNode }
  | { kind: 'intersection'; left: RegexpNode; right: RegexpNode }
  | { kind: 'concat'; left: RegexpNode; right: RegexpNode }
  /** `max` null: unbounded (`*`, `+`, `{n,}`). */
  | { kind: 'repeat'; child: RegexpNode; min: number; max: number | null }
  | { kind: 'complement'; child: RegexpNode }
  /** Code points in any of the inclusive ranges: a character, `.`, a class (negation applied). */
  | { kind: 'chars'; ranges: [number, number][] }
  /** `#`: matches nothing. */
  | { kind: 'empty' }
  /** `@`: any string. */
  | { kind: 'anyString' }
  /** A literal string (`"..."`, `()` as ""). */
  | { kind: 'string'; text: string }
  /** `<min-max>`: decimal numbers in the interval; `digits` > 0 fixes their length (zero-padded). */
  | { kind: 'interval'; min: number; max: number; digits: number };

export type RegexpParse = { ok: true; node: RegexpNode } | { ok: false; message: string; offset: number };

class RegexpSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const INT_MAX = 2147483647;

/** Parses a regex body (what lies between the slashes); total, never throws. */
export function parseLuceneRegexp(body: string): RegexpParse {
  if (body.length === 0) return { ok: true, node: { kind: 'string', text: '' } };
  const p = new Parser(body);
  try {
    const node = p.union();
    if (p.pos < body.length) throw new RegexpSyntaxError('unexpected character here: the expression ended before it (an unmatched ")"?)', p.pos);
    return { ok: true, node };
  } catch (e) {
    if (e instanceof RegexpSyntaxError) return { ok: false, message: e.message, offset: Math.min(e.offset, body.length) };
    if (e instanceof RangeError) return { ok: false, message: 'the expression nests too deeply', offset: 0 };
    throw e;
  }
}

class Parser {
  pos = 0;
  constructor(private readonly s: string) {}

  private more(): boolean {
    return this.pos < this.s.length;
  }

  private peek(chars: string): boolean {
    return this.more() && chars.includes(String.fromCodePoint(this.s.codePointAt(this.pos)!));
  }

  private match(c: string): boolean {
    if (this.more() && this.s[this.pos] === c) {
      this.pos++;
      return true;
    }
    return false;
  }

  private next(): number {
    if (!this.more()) throw new RegexpSyntaxError('the expression ends too early (something is missing after the last character)', this.pos);
    const cp = this.s.codePointAt(this.pos)!;
    this.pos += cp > 0xffff ? 2 : 1;
    return cp;
  }

  union(): RegexpNode {
    const left = this.inter();
    if (this.match('|')) return { kind: 'union', left, right: this.union() };
    return left;
  }

  private inter(): RegexpNode {
    const left = this.concat();
    if (this.match('&')) return { kind: 'intersection', left, right: this.inter() };
    return left;
  }

  private concat(): RegexpNode {
    // Iterative (Lucene recurses right), and runs of plain characters become one string node:
    // a megabyte of literal text must neither exhaust the stack nor build a node per character.
    const parts: RegexpNode[] = [];
    let literal = '';
    do {
      const e = this.repeat();
      if (e.kind === 'chars' && e.ranges.length === 1 && e.ranges[0]![0] === e.ranges[0]![1]) {
        literal += String.fromCodePoint(e.ranges[0]![0]);
        continue;
      }
      if (literal) parts.push({ kind: 'string', text: literal });
      literal = '';
      parts.push(e);
    } while (this.more() && !this.peek(')|&'));
    if (literal) parts.push({ kind: 'string', text: literal });
    let node = parts[parts.length - 1]!;
    for (let i = parts.length - 2; i >= 0; i--) node = { kind: 'concat', left: parts[i]!, right: node };
    return node;
  }

  private repeat(): RegexpNode {
    let e = this.compl();
    while (this.peek('?*+{')) {
      if (this.match('?')) e = { kind: 'repeat', child: e, min: 0, max: 1 };
      else if (this.match('*')) e = { kind: 'repeat', child: e, min: 0, max: null };
      else if (this.match('+')) e = { kind: 'repeat', child: e, min: 1, max: null };
      else if (this.match('{')) {
        const n = this.integer('a number after "{"');
        let m: number | null = n;
        if (this.match(',')) m = this.peek('0123456789') ? this.integer('a number') : null;
        if (!this.match('}')) throw new RegexpSyntaxError('expected "}" to close the repetition', this.pos);
        e = { kind: 'repeat', child: e, min: n, max: m };
      }
    }
    return e;
  }

  private integer(what: string): number {
    const start = this.pos;
    while (this.peek('0123456789')) this.pos++;
    if (start === this.pos) throw new RegexpSyntaxError(`expected ${what}`, this.pos);
    const v = Number(this.s.slice(start, this.pos));
    // Lucene reads it with Integer.parseInt, which rejects what does not fit in an int.
    if (v > INT_MAX) throw new RegexpSyntaxError('the number is too large', start);
    return v;
  }

  private compl(): RegexpNode {
    if (this.match('~')) return { kind: 'complement', child: this.compl() };
    return this.charClass();
  }

  private charClass(): RegexpNode {
    if (!this.match('[')) return this.simple();
    const negate = this.match('^');
    const ranges: [number, number][] = [];
    do ranges.push(this.classItem());
    while (this.more() && !this.peek(']'));
    if (!this.match(']')) throw new RegexpSyntaxError('expected "]" to close the character class', this.pos);
    const merged = mergeRanges(ranges);
    return { kind: 'chars', ranges: negate ? complementRanges(merged) : merged };
  }

  private classItem(): [number, number] {
    const from = this.charExp();
    if (!this.match('-')) return [from, from];
    const at = this.pos;
    const to = this.charExp();
    if (from > to) throw new RegexpSyntaxError(`invalid range: ${String.fromCodePoint(from)} comes after ${String.fromCodePoint(to)}`, at);
    return [from, to];
  }

  private simple(): RegexpNode {
    if (this.match('.')) return { kind: 'chars', ranges: [[0, MAX_CODE_POINT]] };
    if (this.match('#')) return { kind: 'empty' };
    if (this.match('@')) return { kind: 'anyString' };
    if (this.match('"')) {
      const start = this.pos;
      while (this.more() && !this.peek('"')) this.pos++;
      if (!this.match('"')) throw new RegexpSyntaxError('expected \'"\' to close the string', this.pos);
      return { kind: 'string', text: this.s.slice(start, this.pos - 1) };
    }
    if (this.match('(')) {
      if (this.match(')')) return { kind: 'string', text: '' };
      const e = this.union();
      if (!this.match(')')) throw new RegexpSyntaxError('expected ")" to close the group', this.pos);
      return e;
    }
    if (this.match('<')) {
      const open = this.pos - 1;
      const start = this.pos;
      while (this.more() && !this.peek('>')) this.pos++;
      if (!this.match('>')) throw new RegexpSyntaxError('expected ">" to close the interval', this.pos);
      return this.interval(this.s.slice(start, this.pos - 1), open);
    }
    const c = this.charExp();
    return { kind: 'chars', ranges: [[c, c]] };
  }

  private interval(s: string, at: number): RegexpNode {
    const i = s.indexOf('-');
    if (i < 0) throw new RegexpSyntaxError(`<${s}> names an automaton, and the query parser defines none; a numeric interval is written <min-max>`, at);
    const low = s.slice(0, i);
    const high = s.slice(i + 1);
    const javaInt = /^\+?[0-9]+$/;
    if (i === 0 || i === s.length - 1 || s.lastIndexOf('-') !== i || !javaInt.test(low) || !javaInt.test(high) || Number(low) > INT_MAX || Number(high) > INT_MAX)
      throw new RegexpSyntaxError(`<${s}> is not a numeric interval <min-max>`, at);
    let min = Number(low);
    let max = Number(high);
    if (min > max) [min, max] = [max, min];
    return { kind: 'interval', min, max, digits: low.length === high.length ? low.length : 0 };
  }

  private charExp(): number {
    this.match('\\');
    return this.next();
  }
}

/** Sorted, disjoint, non-adjacent ranges covering the same code points. */
export function mergeRanges(ranges: readonly [number, number][]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** The code points (0..MAX_CODE_POINT) in none of the merged ranges. */
export function complementRanges(merged: readonly [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let next = 0;
  for (const [a, b] of merged) {
    if (a > next) out.push([next, a - 1]);
    next = b + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}
