/**
 * CST → AST for Indri (grammar/ast.ts), plus the checks the grammar leaves to us:
 * missing weights, #not arity, #sum, unknown operators, base64 bodies, characters Indri
 * rejects, contexts inside extent operators, numbers out of range, operators whose weights are
 * all 0.
 *
 * Error recovery can leave any part of a CST node missing (a re-synced rule returns what it
 * had), and inserted tokens have NaN offsets: every method here copes with both, and every
 * range it produces lies inside the text.
 */
import type { CstNode, IToken } from 'chevrotain';
import type {
  AnyNode,
  BandNode,
  BeliefNode,
  BeliefOp,
  DateCompareNode,
  ErrorNode,
  ExtentRestriction,
  FilterNode,
  NumericCompareNode,
  PriorNode,
  QueryNode,
  SourceRange,
  SynonymNode,
  TermNode,
  WeightedItem,
  WildcardNode,
  WindowNode,
} from '../ast.js';
import type { QueryDiagnostic } from '../diagnostics.js';
import { indriParser } from './parser.js';
import { hasLoneSurrogate } from './lexer.js';
import { SUM_MESSAGE, unknownOperatorMessage } from './messages.js';

type Ctx = Record<string, (CstNode | IToken)[] | undefined>;

interface TermExprParam {
  /** True where a scored term may carry a context `.(field)`. */
  scored: boolean;
}

const BaseVisitor = indriParser.getBaseCstVisitorConstructor();

const BELIEF_OPS: Record<string, BeliefOp> = {
  '#combine': 'combine',
  '#weight': 'weight',
  '#wand': 'wand',
  '#wsum': 'wsum',
  '#or': 'or',
  '#not': 'not',
  '#max': 'max',
};

const FILTER_FORMS: Record<string, FilterNode['form']> = {
  '#filreq': 'filreq',
  '#filrej': 'filrej',
  '#scoreif': 'scoreif',
  '#scoreifnot': 'scoreifnot',
};

const COMPARE_ARITY: Record<NumericCompareNode['op'], number> = { less: 1, greater: 1, equals: 1, between: 2 };
const DATE_ARITY: Record<DateCompareNode['op'], number> = { after: 1, before: 1, equals: 1, between: 2 };

/** Diagnostics reported per query, all kinds together; then one `syntax/too-many-errors`. */
const MAX_DIAGNOSTICS = 200;

/** Sub-rules of termExpr that build the restricted node themselves. */
const BASE_RULES = new Set([
  'windowOp',
  'bandOp',
  'synonymOp',
  'wsynOp',
  'anyOp',
  'compareOp',
  'dateOp',
  'wildcardOp',
  'unknownOp',
  'negativeNumber',
  'quotedAtom',
]);

const BASE64_BODY = /^[A-Za-z0-9+/]+={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A real (not recovery-inserted) token. */
function real(t: IToken | undefined): t is IToken {
  return t !== undefined && !t.isInsertedInRecovery && !Number.isNaN(t.startOffset);
}

function tokRange(t: IToken): SourceRange {
  return { start: t.startOffset, end: t.endOffset! + 1 };
}

function tokens(ctx: Ctx, key: string): IToken[] {
  return (ctx[key] as IToken[] | undefined) ?? [];
}

function firstTok(ctx: Ctx, ...keys: string[]): IToken | undefined {
  for (const k of keys) {
    const t = (ctx[k] as IToken[] | undefined)?.[0];
    if (real(t)) return t;
  }
  return undefined;
}

function nodes(ctx: Ctx, key: string): CstNode[] {
  return (ctx[key] as CstNode[] | undefined) ?? [];
}

/** All real tokens of several keys, in source order (CST children lose cross-key order). */
function orderedTokens(ctx: Ctx, ...keys: string[]): IToken[] {
  const out: IToken[] = [];
  for (const k of keys) for (const t of tokens(ctx, k)) if (real(t)) out.push(t);
  return out.sort((a, b) => a.startOffset - b.startOffset);
}

export class IndriCstVisitor extends BaseVisitor {
  private text = '';
  private diagnostics: QueryDiagnostic[] = [];
  /** Offset used for nodes that recovery left without any token. */
  private lastOffset = 0;
  private truncated = false;

  constructor() {
    super();
    this.validateVisitor();
  }

  /** Convert a `query` CST to its items; diagnostics are appended to `diagnostics`. */
  build(cst: CstNode, text: string, diagnostics: QueryDiagnostic[]): QueryNode[] {
    this.text = text;
    this.diagnostics = diagnostics;
    this.truncated = diagnostics.some((d) => d.code === 'syntax/too-many-errors');
    this.lastOffset = cst.location && !Number.isNaN(cst.location.startOffset) ? cst.location.startOffset : 0;
    try {
      return this.visit(cst) as QueryNode[];
    } finally {
      this.text = '';
      this.diagnostics = [];
    }
  }

  // ------------------------------------------------------------------ helpers
  private report<C extends string>(
    code: C,
    message: string,
    range: SourceRange,
    data?: QueryDiagnostic<C>['data'],
    severity: QueryDiagnostic['severity'] = 'error',
  ): void {
    if (this.diagnostics.length >= MAX_DIAGNOSTICS) {
      // A pathological text (a megabyte of bad terms) would otherwise carry one per term.
      if (!this.truncated) {
        this.truncated = true;
        this.diagnostics.push({
          code: 'syntax/too-many-errors',
          severity: 'error',
          message: `more than ${MAX_DIAGNOSTICS} problems; the rest are not shown`,
          range: this.clamp(range),
        });
      }
      return;
    }
    const d: QueryDiagnostic = { code, severity, message, range: this.clamp(range) };
    if (data !== undefined) d.data = data;
    this.diagnostics.push(d);
  }

  private clamp(r: SourceRange): SourceRange {
    const n = this.text.length;
    const start = Math.min(Math.max(0, r.start), n);
    const end = Math.min(Math.max(start, r.end), n);
    return { start, end };
  }

  /** Range of a CST node, or an empty range where recovery left it without tokens. */
  private cstRange(node: CstNode | undefined): SourceRange {
    const loc = node?.location;
    if (loc && !Number.isNaN(loc.startOffset) && loc.endOffset !== undefined && !Number.isNaN(loc.endOffset)) {
      this.lastOffset = loc.endOffset + 1;
      return { start: loc.startOffset, end: loc.endOffset + 1 };
    }
    return { start: this.lastOffset, end: this.lastOffset };
  }

  private errorNode(range: SourceRange): ErrorNode {
    const r = this.clamp(range);
    return { kind: 'error', text: this.text.slice(r.start, r.end), range: r };
  }

  private sub<N>(node: CstNode | undefined, param?: unknown): N | undefined {
    return node ? (this.visit(node, param) as N) : undefined;
  }

  /** Describe an item for "found ..." in messages. */
  private describeItem(node: QueryNode): string {
    if (node.kind === 'term') return `the term ${JSON.stringify(node.text)}`;
    const src = this.text.slice(node.range.start, node.range.end);
    const shown = src.length > 30 ? src.slice(0, 30) + '…' : src;
    return JSON.stringify(shown);
  }

  // ------------------------------------------------------------------ top level
  /** The items of one `query` parse, in source order. */
  query(ctx: Ctx): QueryNode[] {
    const items: QueryNode[] = [];
    for (const s of nodes(ctx, 'scored')) {
      const n = this.sub<QueryNode>(s);
      if (n) items.push(n);
    }
    return items;
  }

  scored(ctx: Ctx): QueryNode {
    const child =
      nodes(ctx, 'unweightedOp')[0] ??
      nodes(ctx, 'weightedOp')[0] ??
      nodes(ctx, 'priorOp')[0] ??
      nodes(ctx, 'filterOp')[0] ??
      nodes(ctx, 'termExpr')[0];
    const n = child ? this.sub<QueryNode>(child, { scored: true } satisfies TermExprParam) : undefined;
    return n ?? this.errorNode(this.cstRange(undefined));
  }

  // ------------------------------------------------------------------ belief operators
  unweightedOp(ctx: Ctx): QueryNode {
    const opTok = firstTok(ctx, 'Combine', 'Or', 'Max', 'Not', 'Sum');
    const items: WeightedItem[] = [];
    for (const s of nodes(ctx, 'scored')) {
      const n = this.sub<QueryNode>(s);
      if (n) items.push({ node: n });
    }
    const restriction = this.sub<ExtentRestriction>(nodes(ctx, 'restriction')[0]);
    const range = this.spanOf(ctx, opTok, items);
    if (!opTok) return this.errorNode(range);
    if (opTok.image === '#sum') {
      this.report('indri/sum-not-supported', SUM_MESSAGE, tokRange(opTok));
      const node = this.errorNode(range);
      node.operatorRange = tokRange(opTok);
      return node;
    }
    const op = BELIEF_OPS[opTok.image];
    this.checkNotEmpty(opTok, items.length, range, 'at least one item');
    if (op === 'not' && items.length > 1) {
      this.report(
        'indri/not-arity',
        `#not takes exactly one item, found ${items.length}; wrap several in #combine( ... )`,
        { start: items[1].node.range.start, end: items[items.length - 1].node.range.end },
      );
    }
    const node: BeliefNode = { kind: 'belief', op, items, range, operatorRange: tokRange(opTok) };
    if (restriction) node.restriction = restriction;
    return node;
  }

  weightedOp(ctx: Ctx): QueryNode {
    const opTok = firstTok(ctx, 'Weight', 'Wand', 'Wsum');
    const items: WeightedItem[] = [];
    for (const s of nodes(ctx, 'weightedItem')) {
      const item = this.sub<WeightedItem>(s, opTok?.image ?? '#weight');
      if (item) items.push(item);
    }
    const restriction = this.sub<ExtentRestriction>(nodes(ctx, 'restriction')[0]);
    const range = this.spanOf(ctx, opTok, items);
    if (!opTok) return this.errorNode(range);
    this.checkNotEmpty(opTok, items.length, range, 'a weight and an item');
    this.checkSomeWeight(opTok, items);
    this.offerSwap(items);
    const node: BeliefNode = { kind: 'belief', op: BELIEF_OPS[opTok.image], items, range, operatorRange: tokRange(opTok) };
    if (restriction) node.restriction = restriction;
    return node;
  }

  /**
   * Indri divides each weight by Σ|w| (SEMANTICS.md §1.5): when every weight is 0 that is 0/0, so
   * the operator carries no weight at all and its score has no value (the engine scores it as
   * log 1 = 0, and a #wsyn of zeros as absent). Warned on the operator, as Lucene's ^0 is.
   */
  private checkSomeWeight(opTok: IToken, items: readonly WeightedItem[]): void {
    if (items.length === 0 || items.some((it) => it.weight === undefined || it.weight !== 0)) return;
    this.report(
      'indri/zero-weights',
      `every weight of this ${opTok.image} is 0, so it gives its items no weight at all (Σ|w| = 0); give at least one item a non-zero weight`,
      tokRange(opTok),
      undefined,
      'warning',
    );
  }

  /**
   * `#weight( heat 0.5 flow 0.3 )`: every weight written after its item. The parser reads it as an
   * item without a weight, weighted items, and a last weight with no item; inserting a weight
   * would leave that last error, so the first item's `indri/weight-expected` offers to put each
   * weight before its item instead, keeping the user's text of both.
   */
  private offerSwap(items: WeightedItem[]): void {
    const n = items.length;
    if (n < 2 || items[0].weight !== undefined || items[0].node.kind === 'error') return;
    const last = items[n - 1];
    if (last.node.kind !== 'error' || last.node.range.start !== last.node.range.end) return;
    for (let i = 1; i < n; i++) {
      if (!items[i].weightRange) return;
      if (i < n - 1 && items[i].node.kind === 'error') return;
    }
    const slice = (r: SourceRange) => this.text.slice(r.start, r.end);
    const pairs: string[] = [];
    for (let i = 1; i < n; i++) pairs.push(`${slice(items[i].weightRange!)} ${slice(items[i - 1].node.range)}`);
    const swap = { range: { start: items[0].node.range.start, end: last.weightRange!.end }, text: pairs.join(' ') };
    const first = this.diagnostics.find((d) => d.code === 'indri/weight-expected' && d.range.start === items[0].node.range.start);
    if (first) first.data = { ...(first.data as object), swap };
  }

  /** `#combine()`: the grammar lets lists be empty so that recovery keeps the `)`. */
  private checkNotEmpty(opTok: IToken | undefined, count: number, range: SourceRange, what: string, name?: string): void {
    if (count > 0 || (!opTok && !name)) return;
    const label = name ?? opTok!.image;
    this.report('syntax/empty-operator', `${label} needs ${what}`, range);
  }

  /** Range from the operator token to the closing token (or the last item when missing). */
  private spanOf(ctx: Ctx, opTok: IToken | undefined, items: { node: QueryNode }[]): SourceRange {
    // A bracket recovery inserted has no place in the text.
    const close = [firstTok(ctx, 'RParen', 'RBrace', 'RAngle')].find(real);
    const open = [firstTok(ctx, 'LParen', 'LBrace', 'LAngle')].find(real);
    const start = opTok?.startOffset ?? open?.startOffset ?? items[0]?.node.range.start ?? this.lastOffset;
    let end = close ? close.endOffset! + 1 : (items[items.length - 1]?.node.range.end ?? (open ? open.endOffset! + 1 : opTok ? opTok.endOffset! + 1 : start));
    if (end < start) end = start;
    this.lastOffset = Math.max(this.lastOffset, end);
    return { start, end };
  }

  weightedItem(ctx: Ctx, opName: string): WeightedItem | undefined {
    const w = this.sub<{ value: number; range: SourceRange } | null>(nodes(ctx, 'weight')[0]);
    const node = this.sub<QueryNode>(nodes(ctx, 'scored')[0]);
    return this.makeWeighted(w, node, opName);
  }

  private makeWeighted(
    w: { value: number; range: SourceRange } | null | undefined,
    node: QueryNode | undefined,
    opName: string,
  ): WeightedItem | undefined {
    if (!node) {
      if (!w) return undefined;
      // A weight with nothing after it: recovery already reported the missing item.
      return { weight: w.value, weightRange: w.range, node: this.errorNode({ start: w.range.end, end: w.range.end }) };
    }
    if (!w) {
      this.report(
        'indri/weight-expected',
        `${opName} expects a weight before each item; found ${this.describeItem(node)}`,
        node.range,
        { offset: node.range.start, suggestedWeight: 1 },
      );
      return { node };
    }
    return { weight: w.value, weightRange: w.range, node };
  }

  weight(ctx: Ctx): { value: number; range: SourceRange } | null {
    const num = firstTok(ctx, 'NumberTok', 'FloatTok');
    if (!num) return null;
    const sign = firstTok(ctx, 'Dash', 'SpaceDash');
    const magnitude = Number(num.image);
    const value = sign ? -magnitude : magnitude;
    const range = { start: (sign ?? num).startOffset, end: num.endOffset! + 1 };
    if (!Number.isFinite(value)) {
      this.report('indri/number-out-of-range', `the weight ${num.image.slice(0, 20)}… is too large`, range);
      return { value: 0, range };
    }
    return { value, range };
  }

  priorOp(ctx: Ctx): PriorNode | ErrorNode {
    const prior = firstTok(ctx, 'Prior');
    const name = firstTok(ctx, 'Term');
    const range = this.spanOf(ctx, prior, []);
    if (!name) return this.errorNode(range);
    const node: PriorNode = { kind: 'prior', name: name.image, range };
    if (prior) node.operatorRange = tokRange(prior);
    return node;
  }

  filterOp(ctx: Ctx): FilterNode | ErrorNode {
    const opTok = firstTok(ctx, 'Filreq', 'Filrej', 'Scoreif', 'Scoreifnot');
    const filter = this.sub<QueryNode>(nodes(ctx, 'termExpr')[0], { scored: false } satisfies TermExprParam);
    const scored = this.sub<QueryNode>(nodes(ctx, 'scored')[0]);
    const parts = [filter, scored].filter((n): n is QueryNode => !!n).map((node) => ({ node }));
    const range = this.spanOf(ctx, opTok, parts);
    if (!opTok) return this.errorNode(range);
    const form = FILTER_FORMS[opTok.image];
    const missing = (): ErrorNode => this.errorNode({ start: range.end, end: range.end });
    return {
      kind: 'filter',
      mode: form === 'filreq' || form === 'scoreif' ? 'require' : 'reject',
      form,
      filter: filter ?? missing(),
      scored: scored ?? missing(),
      range,
      operatorRange: tokRange(opTok),
    };
  }

  restriction(ctx: Ctx): ExtentRestriction | undefined {
    const open = firstTok(ctx, 'LBracket');
    const close = firstTok(ctx, 'RBracket');
    const start = open?.startOffset ?? this.lastOffset;
    const fieldNode = nodes(ctx, 'fieldName')[0];
    const pathNode = nodes(ctx, 'path')[0];
    const passage = firstTok(ctx, 'Term');
    const endTok = close ?? undefined;
    let end = endTok ? endTok.endOffset! + 1 : start;
    if (passage) {
      const inc = firstTok(ctx, 'NumberTok');
      if (!endTok) end = (inc ?? passage).endOffset! + 1;
      const range = this.clamp({ start, end });
      const m = /^([A-Za-z_]*)([0-9]+)$/.exec(passage.image);
      if (!m || !inc) {
        this.report(
          'indri/bad-passage',
          `a passage restriction is written [passageW:I], e.g. [passage100:50]; found ${JSON.stringify(
            this.text.slice(range.start, range.end),
          )}`,
          range,
        );
        return undefined;
      }
      if (m[1] !== 'passage') {
        this.report(
          'indri/bad-passage',
          `Indri reads [${passage.image}:${inc.image}] as a passage window; write [passage${m[2]}:${inc.image}]`,
          range,
          undefined,
          'warning',
        );
      }
      const width = Number(m[2]);
      const increment = Number(inc.image);
      if (!Number.isSafeInteger(width) || !Number.isSafeInteger(increment)) {
        this.report('indri/number-out-of-range', 'the passage size is too large', range);
        return undefined;
      }
      return { kind: 'passage', width, increment, range };
    }
    if (fieldNode) {
      const field = this.sub<string>(fieldNode) ?? '';
      if (!endTok) end = Math.max(start + 1, this.cstRange(fieldNode).end);
      return { kind: 'field', field, range: this.clamp({ start, end }) };
    }
    if (pathNode) {
      const path = this.sub<string>(pathNode) ?? '';
      if (!endTok) end = Math.max(start + 1, this.cstRange(pathNode).end);
      return { kind: 'path', path: '.' + path, range: this.clamp({ start, end }) };
    }
    return undefined;
  }

  // ------------------------------------------------------------------ term expressions
  termExpr(ctx: Ctx, param?: TermExprParam): QueryNode {
    const scoredPosition = param?.scored ?? false;
    const base = this.baseOf(ctx);
    const fieldsNode = nodes(ctx, 'fieldList')[0];
    const contextNode = nodes(ctx, 'contextList')[0];
    if (!fieldsNode && !contextNode) return base;
    const fields = fieldsNode ? this.sub<string[]>(fieldsNode) : undefined;
    const context = contextNode ? this.sub<string[]>(contextNode) : undefined;
    // Both lists count: a recovered, empty context list (`a.title.` + junk) ends nowhere.
    const end = Math.max(base.range.end, fieldsNode ? this.cstRange(fieldsNode).end : 0, contextNode ? this.cstRange(contextNode).end : 0);
    const range = { start: base.range.start, end };
    if (base.kind === 'error') return this.errorNode(range);
    if (fields && fields.length) {
      if (base.kind === 'term' || base.kind === 'wildcard' || base.kind === 'window' || base.kind === 'synonym' || base.kind === 'band') {
        base.fields = fields;
        base.fieldRanges = this.fieldNameRanges(fieldsNode!, 'fieldName');
      } else {
        this.report('indri/fields-not-allowed', `a field restriction ".${fields.join(',')}" cannot follow this operator`, range);
      }
    }
    if (context && context.length) {
      const contextRange = this.cstRange(contextNode);
      if (!scoredPosition) {
        this.report(
          'indri/context-not-allowed',
          'a context ".(field)" is only allowed on a scored term, not inside an extent operator or a filter',
          contextRange,
        );
      } else if (base.kind === 'term' || base.kind === 'window') {
        base.context = context;
        base.contextRanges = this.fieldNameRanges(contextNode!, 'contextItem');
      } else {
        this.report('indri/context-not-allowed', 'a context ".(field)" is only supported on a term or a window', contextRange);
      }
    }
    base.range = range;
    return base;
  }

  /** Ranges of a field or context list's names, in the order (and with the filter) fieldList/contextList use. */
  private fieldNameRanges(list: CstNode, rule: 'fieldName' | 'contextItem'): SourceRange[] {
    return nodes(list.children as Ctx, rule)
      .filter((n) => (this.sub<string>(n) ?? '') !== '')
      .map((n) => this.cstRange(n));
  }

  fieldList(ctx: Ctx): string[] {
    return nodes(ctx, 'fieldName')
      .map((n) => this.sub<string>(n) ?? '')
      .filter((f) => f !== '');
  }

  fieldName(ctx: Ctx): string {
    return orderedTokens(ctx, 'Term', 'Dash', 'NumberTok')
      .map((t) => t.image)
      .join('');
  }

  contextList(ctx: Ctx): string[] {
    return nodes(ctx, 'contextItem')
      .map((n) => this.sub<string>(n) ?? '')
      .filter((f) => f !== '');
  }

  contextItem(ctx: Ctx): string {
    const f = nodes(ctx, 'fieldName')[0];
    if (f) return this.sub<string>(f) ?? '';
    const p = nodes(ctx, 'path')[0];
    return p ? '.' + (this.sub<string>(p) ?? '') : '';
  }

  path(ctx: Ctx): string {
    return nodes(ctx, 'pathStep')
      .map((n) => this.sub<string>(n) ?? '')
      .join('');
  }

  pathStep(ctx: Ctx): string {
    const op = orderedTokens(ctx, 'Slash', 'Backslash', 'LBrace')
      .map((t) => t.image)
      .join('');
    const field = this.sub<string>(nodes(ctx, 'fieldName')[0]) ?? '';
    return op + field;
  }

  /** The node a term expression restricts: an extent operator or a term form. */
  private baseOf(ctx: Ctx): QueryNode {
    // Words are most of a query: test them first. `Term`/`NumberTok` children of termExpr
    // come only from its word alternative (field names live in the fieldList sub-rule).
    if (ctx.Term || ctx.NumberTok) return this.word(ctx);
    for (const key in ctx) {
      if (!BASE_RULES.has(key)) continue;
      const child = nodes(ctx, key)[0];
      if (child) return this.sub<QueryNode>(child) ?? this.errorNode(this.cstRange(child));
    }
    const float = firstTok(ctx, 'FloatTok');
    if (float) {
      const star = firstTok(ctx, 'Star');
      if (star) {
        return { kind: 'wildcard', pattern: float.image + '*', form: 'suffix-star', range: { start: float.startOffset, end: star.endOffset! + 1 } };
      }
      return this.plainTerm(float, true);
    }
    const b64 = firstTok(ctx, 'Base64');
    if (b64) return this.base64Term(b64);
    const bad = firstTok(ctx, 'BadTerm');
    if (bad) return this.badTerm(bad, false, tokRange(bad));
    return this.errorNode(this.cstRange(undefined));
  }

  // ------------------------------------------------------------------ extent operators
  private unscoredChildren(ctx: Ctx): QueryNode[] {
    const out: QueryNode[] = [];
    for (const n of nodes(ctx, 'termExpr')) {
      const c = this.sub<QueryNode>(n, { scored: false } satisfies TermExprParam);
      if (c) out.push(c);
    }
    return out;
  }

  windowOp(ctx: Ctx): WindowNode | ErrorNode {
    const opTok = firstTok(ctx, 'Od', 'Uw', 'HashNumber');
    const children = this.unscoredChildren(ctx);
    const range = this.spanOf(ctx, opTok, children.map((node) => ({ node })));
    if (!opTok) return this.errorNode(range);
    this.checkNotEmpty(opTok, children.length, range, 'at least one term');
    const img = opTok.image;
    const ordered = !img.startsWith('#uw');
    const digits = img.startsWith('#od') || img.startsWith('#uw') ? img.slice(3) : img.slice(1);
    let size: number | null = digits === '' ? null : Number(digits);
    if (size !== null && !Number.isSafeInteger(size)) {
      this.report('indri/number-out-of-range', `the window size ${digits.slice(0, 20)}… is too large`, tokRange(opTok));
      size = null;
    }
    const form: WindowNode['form'] = img.startsWith('#od') ? 'od' : img.startsWith('#uw') ? 'uw' : 'hash-number';
    return { kind: 'window', ordered, size, children, form, range, operatorRange: tokRange(opTok) };
  }

  bandOp(ctx: Ctx): BandNode | ErrorNode {
    const opTok = firstTok(ctx, 'Band');
    const children = this.unscoredChildren(ctx);
    const range = this.spanOf(ctx, opTok, children.map((node) => ({ node })));
    this.checkNotEmpty(opTok, children.length, range, 'at least one term');
    const node: BandNode = { kind: 'band', children, range };
    if (opTok) node.operatorRange = tokRange(opTok);
    return node;
  }

  synonymOp(ctx: Ctx): SynonymNode {
    const opTok = firstTok(ctx, 'Syn');
    const children = this.unscoredChildren(ctx);
    const range = this.spanOf(ctx, opTok, children.map((node) => ({ node })));
    const form: SynonymNode['form'] = opTok ? 'syn' : ctx.LBrace ? 'braces' : 'angle';
    this.checkNotEmpty(opTok, children.length, range, 'at least one term', form === 'syn' ? '#syn' : form === 'braces' ? '{ }' : '< >');
    const open = opTok ?? firstTok(ctx, 'LBrace', 'LAngle');
    const node: SynonymNode = { kind: 'synonym', items: children.map((node) => ({ node })), form, range };
    if (open) node.operatorRange = tokRange(open);
    return node;
  }

  wsynOp(ctx: Ctx): SynonymNode {
    const opTok = firstTok(ctx, 'Wsyn');
    const items: WeightedItem[] = [];
    for (const n of nodes(ctx, 'wsynItem')) {
      const item = this.sub<WeightedItem>(n);
      if (item) items.push(item);
    }
    const range = this.spanOf(ctx, opTok, items);
    this.checkNotEmpty(opTok, items.length, range, 'a weight and a term');
    if (opTok) this.checkSomeWeight(opTok, items);
    const node: SynonymNode = { kind: 'synonym', items, form: 'wsyn', range };
    if (opTok) node.operatorRange = tokRange(opTok);
    return node;
  }

  wsynItem(ctx: Ctx): WeightedItem | undefined {
    const w = this.sub<{ value: number; range: SourceRange } | null>(nodes(ctx, 'weight')[0]);
    const node = this.sub<QueryNode>(nodes(ctx, 'termExpr')[0], { scored: false } satisfies TermExprParam);
    return this.makeWeighted(w, node, '#wsyn');
  }

  anyOp(ctx: Ctx): AnyNode | ErrorNode {
    const opTok = firstTok(ctx, 'Any');
    const fieldNode = nodes(ctx, 'fieldName')[0];
    const field = this.sub<string>(fieldNode) ?? '';
    const range = this.spanOf(ctx, opTok, []);
    if (fieldNode) range.end = Math.max(range.end, this.cstRange(fieldNode).end);
    if (!field) return this.errorNode(range);
    const node: AnyNode = { kind: 'any', field, form: ctx.Colon ? 'colon' : 'paren', range, fieldRange: this.cstRange(fieldNode) };
    if (opTok) node.operatorRange = tokRange(opTok);
    return node;
  }

  compareOp(ctx: Ctx): NumericCompareNode | ErrorNode {
    const opTok = firstTok(ctx, 'Less', 'Greater', 'Between', 'Equals');
    const fieldNode = nodes(ctx, 'fieldName')[0];
    const field = this.sub<string>(fieldNode) ?? '';
    const values: number[] = [];
    const valueRanges: SourceRange[] = [];
    for (const n of nodes(ctx, 'intValue')) {
      const v = this.sub<number | undefined>(n);
      if (v === undefined) continue;
      values.push(v);
      const ch = n.children as Ctx;
      const num = firstTok(ch, 'NumberTok')!;
      valueRanges.push({ start: (firstTok(ch, 'Dash', 'SpaceDash') ?? num).startOffset, end: num.endOffset! + 1 });
    }
    const range = this.spanOf(ctx, opTok, []);
    if (!opTok || !field) return this.errorNode(range);
    const op = opTok.image.slice(1) as NumericCompareNode['op'];
    const arity = COMPARE_ARITY[op];
    if (values.length !== arity) {
      this.report(
        'indri/arity',
        `${opTok.image} takes a field and ${arity === 1 ? 'one number' : 'two numbers'}, found ${values.length}`,
        range,
      );
    }
    return { kind: 'numericCompare', op, field, values, range, operatorRange: tokRange(opTok), fieldRange: this.cstRange(fieldNode), valueRanges };
  }

  intValue(ctx: Ctx): number | undefined {
    const num = firstTok(ctx, 'NumberTok');
    if (!num) return undefined;
    const sign = firstTok(ctx, 'Dash', 'SpaceDash');
    const v = Number(num.image);
    if (!Number.isSafeInteger(v)) {
      this.report(
        'indri/number-out-of-range',
        `${num.image.slice(0, 24)} is too large to compare exactly`,
        { start: (sign ?? num).startOffset, end: num.endOffset! + 1 },
      );
      return undefined;
    }
    return sign ? -v : v;
  }

  dateOp(ctx: Ctx): DateCompareNode | ErrorNode {
    const opTok = firstTok(ctx, 'DateAfter', 'DateBefore', 'DateBetween', 'DateEquals');
    const dateNodes = nodes(ctx, 'date').filter((n) => (this.sub<string>(n) ?? '') !== '');
    const dates = dateNodes.map((n) => this.sub<string>(n)!);
    const range = this.spanOf(ctx, opTok, []);
    if (!opTok) return this.errorNode(range);
    const op = opTok.image.slice(5) as DateCompareNode['op'];
    const arity = DATE_ARITY[op];
    if (dates.length !== arity) {
      this.report('indri/arity', `${opTok.image} takes ${arity === 1 ? 'one date' : 'two dates'}, found ${dates.length}`, range);
    }
    const node: DateCompareNode = { kind: 'dateCompare', op, dates, range, operatorRange: tokRange(opTok) };
    if (dateNodes.length) node.datesRange = { start: this.cstRange(dateNodes[0]).start, end: this.cstRange(dateNodes[dateNodes.length - 1]).end };
    return node;
  }

  /** Dates are kept as written, with single spaces between space-separated parts. */
  date(ctx: Ctx): string {
    const toks = orderedTokens(ctx, 'NumberTok', 'Term', 'Slash', 'Dash');
    if (ctx.Slash || ctx.Dash) return toks.map((t) => t.image).join('');
    return toks.map((t) => t.image).join(' ');
  }

  wildcardOp(ctx: Ctx): WildcardNode | ErrorNode {
    const opTok = firstTok(ctx, 'Wildcard');
    const t = firstTok(ctx, 'Term', 'NumberTok', 'FloatTok');
    const range = this.spanOf(ctx, opTok, []);
    if (!t) return this.errorNode(range);
    const node: WildcardNode = { kind: 'wildcard', pattern: t.image + '*', form: 'wildcard-op', range };
    if (opTok) node.operatorRange = tokRange(opTok);
    return node;
  }

  unknownOp(ctx: Ctx): ErrorNode {
    const opTok = firstTok(ctx, 'UnknownOp');
    for (const s of nodes(ctx, 'scored')) this.visit(s);
    const range = this.spanOf(ctx, opTok, []);
    if (opTok) {
      const { message, suggestion } = unknownOperatorMessage(opTok.image);
      const code = /^#(od|uw)./.test(opTok.image) ? 'indri/window-size' : 'indri/unknown-operator';
      this.report(code, message, tokRange(opTok), suggestion ? { suggestion } : undefined);
      // Still an operator as written: editors colour it like the known ones.
      const node = this.errorNode(range);
      node.operatorRange = tokRange(opTok);
      return node;
    }
    return this.errorNode(range);
  }

  // ------------------------------------------------------------------ terms
  private plainTerm(t: IToken, numeric: boolean): TermNode {
    const node: TermNode = { kind: 'term', text: t.image, raw: false, range: tokRange(t) };
    if (numeric) node.numeric = true;
    return node;
  }

  /** TERM / NUMBER, `term*`, or a hyphen chain `a-b-c` (→ #od1, SEMANTICS.md §1.1). */
  private word(ctx: Ctx): QueryNode {
    const parts = orderedTokens(ctx, 'Term', 'NumberTok');
    if (parts.length === 0) return this.errorNode(this.cstRange(undefined));
    const star = firstTok(ctx, 'Star');
    if (star) {
      return {
        kind: 'wildcard',
        pattern: parts[0].image + '*',
        form: 'suffix-star',
        range: { start: parts[0].startOffset, end: star.endOffset! + 1 },
      };
    }
    const terms = parts.map((t) => this.plainTerm(t, t.tokenType.name === 'NumberTok'));
    if (terms.length === 1 && !ctx.Dash) return terms[0];
    // a-b-c → #od1(a b c) (SEMANTICS.md §1.1, rule hyphenTerm)
    return {
      kind: 'window',
      ordered: true,
      size: 1,
      children: terms,
      form: 'hyphen',
      range: { start: terms[0].range.start, end: terms[terms.length - 1].range.end },
    };
  }

  negativeNumber(ctx: Ctx): QueryNode {
    const num = firstTok(ctx, 'NumberTok', 'FloatTok');
    const sign = firstTok(ctx, 'Dash', 'SpaceDash');
    if (!num) return this.errorNode(this.cstRange(undefined));
    return {
      kind: 'term',
      text: '-' + num.image,
      raw: false,
      numeric: true,
      range: { start: (sign ?? num).startOffset, end: num.endOffset! + 1 },
    };
  }

  quotedAtom(ctx: Ctx): QueryNode {
    const quotes = tokens(ctx, 'DQuote').filter(real);
    const start = quotes[0]?.startOffset ?? this.lastOffset;
    const neg = nodes(ctx, 'negativeNumber')[0];
    const inner = firstTok(ctx, 'Term', 'NumberTok', 'FloatTok', 'BadTerm');
    const close = quotes.length > 1 ? quotes[1] : undefined;
    let end = close ? close.endOffset! + 1 : inner ? inner.endOffset! + 1 : neg ? this.cstRange(neg).end : start + 1;
    if (end < start) end = start;
    const range = { start, end };
    if (inner && inner.tokenType.name === 'BadTerm') return this.badTerm(inner, true, range);
    let node: TermNode | undefined;
    if (neg) {
      const n = this.sub<QueryNode>(neg);
      if (n && n.kind === 'term') node = n;
    } else if (inner) {
      node = this.plainTerm(inner, inner.tokenType.name !== 'Term');
    }
    if (!node) return this.errorNode(range);
    node.raw = true;
    node.range = range;
    return node;
  }

  private badTerm(t: IToken, quoted: boolean, range: SourceRange): TermNode {
    const text = t.image;
    if (hasLoneSurrogate(text)) {
      this.report(
        'indri/invalid-utf16',
        `the term ${JSON.stringify(text.length > 30 ? text.slice(0, 30) + '…' : text)} contains a lone UTF-16 surrogate, which is not a character; remove it`,
        range,
      );
    } else {
      const encoded = Buffer.from(text, 'utf8').toString('base64');
      const bad = [...new Set([...text].filter((c) => !/[A-Za-z0-9_]/.test(c) && c.charCodeAt(0) < 0x80))]
        .map((c) => (c.charCodeAt(0) < 0x20 || c === '\x7f' ? `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : c))
        .join(' ');
      const op = quoted ? '#base64quote' : '#base64';
      this.report(
        'indri/needs-base64',
        `Indri's parser rejects the characters ${bad} in ${JSON.stringify(text.length > 30 ? text.slice(0, 30) + '…' : text)}; write it as ${op}(${encoded})`,
        range,
        { encoded, quote: quoted },
      );
    }
    const node: TermNode = { kind: 'term', text, raw: quoted, range };
    return node;
  }

  private base64Term(t: IToken): QueryNode {
    const range = tokRange(t);
    const quote = t.image.startsWith('#base64quote(');
    const prefix = quote ? '#base64quote(' : '#base64(';
    const closed = t.image.endsWith(')');
    const body = t.image.slice(prefix.length, closed ? -1 : undefined);
    const name = quote ? '#base64quote' : '#base64';
    if (!closed) {
      this.report('syntax/missing-close', `missing ")" to close ${name}`, range, { insert: ')', offset: range.end });
    }
    const trimmed = body.replace(/^[ \t]+|[ \t]+$/g, '');
    if (!BASE64_BODY.test(trimmed) || trimmed.length % 4 === 1) {
      this.report('indri/invalid-base64', `${name} body is not valid base64`, range);
      return this.errorNode(range);
    }
    let text: string;
    try {
      text = utf8.decode(Buffer.from(trimmed, 'base64'));
    } catch {
      this.report('indri/invalid-base64', `${name} body does not decode to UTF-8 text`, range);
      return this.errorNode(range);
    }
    if (text === '') {
      this.report('indri/invalid-base64', `${name} body decodes to an empty term`, range);
      return this.errorNode(range);
    }
    // The operator is the token's `#base64(` / `#base64quote(` prefix, without the parenthesis.
    const operatorRange = { start: range.start, end: range.start + prefix.length - 1 };
    const node: TermNode = { kind: 'term', text, raw: quote, encoding: quote ? 'base64quote' : 'base64', range, operatorRange };
    return node;
  }
}

export const indriVisitor = new IndriCstVisitor();
