/**
 * The Lucene classic query grammar (SEMANTICS.md §3) as a Chevrotain CST parser. It builds a
 * concrete syntax tree only; visitor.ts turns it into the shared AST.
 *
 * Lucene's JavaCC grammar (QueryParser.jj) is
 *   Query  := Modifiers Clause (Conjunction Modifiers Clause)*
 *   Clause := [field ':'] (Term | '(' Query ')' ['^' NUMBER])
 * This grammar accepts a superset so that editing states parse into a useful tree:
 * a conjunction before the first clause, an empty group `()`, and stray tokens that
 * cannot start a clause (`]`, `^`, `~`, `:`, a trailing `\`) are all parsed and then
 * reported by the visitor, instead of stopping the parse.
 */
import { CstParser, EOF, tokenMatcher, type CstNode, type IRecognitionException, type IToken, type TokenType } from 'chevrotain';
import { luceneErrorMessages } from './messages.js';
import * as T from './tokens.js';

/** Lucene's NUMBER token: digits with an optional fraction, no sign, no exponent. */

/** How far error recovery looks ahead for a token to re-synchronise on. */
const RESYNC_LOOKAHEAD = 64;

const FIELD_LABEL = { LABEL: 'field' };
const CONJ_LABEL = { LABEL: 'conj' };
const MOD_LABEL = { LABEL: 'mod' };
const VALUE_LABEL = { LABEL: 'value' };
const LOWER_LABEL = { LABEL: 'lower' };
const UPPER_LABEL = { LABEL: 'upper' };

class LuceneCstParser extends CstParser {
  constructor() {
    super(T.allTokens, {
      recoveryEnabled: true,
      errorMessageProvider: luceneErrorMessages,
      // `field:` needs two tokens of look-ahead (Word then ':').
      maxLookahead: 2,
      // The visitor orders clauses by their tokens' offsets; node locations would only
      // allocate.
      nodeLocationTracking: 'none',
    });
    this.performSelfAnalysis();
  }

  /**
   * Start offsets of the tokens that error recovery skipped in the current parse (single
   * token deletion, re-sync inside a repetition, re-sync between rules). Chevrotain builds
   * an error message before it knows whether it will insert, skip or give up, so index.ts
   * uses this to say "unexpected X" rather than "missing Y" when X was skipped.
   */
  public readonly skippedTokens = new Set<number>();

  /** Parse errors allowed before the parse is abandoned with TooManyParseErrors. */
  public errorLimit = Number.POSITIVE_INFINITY;
  private savedErrors = 0;

  /** Call before each parse (after setting `input`). */
  public startParse(errorLimit: number): void {
    this.skippedTokens.clear();
    this.savedErrors = 0;
    this.errorLimit = errorLimit;
  }

  /**
   * Chevrotain records every recognition error here. Each error can cost a scan ahead for a
   * re-sync token, and re-sync inside a repetition re-enters the repetition recursively, so
   * garbage input with thousands of errors is slow and can exhaust the stack: stop early.
   * (SAVE_ERROR is an internal Chevrotain method, hence the cast.)
   */
  SAVE_ERROR(error: IRecognitionException): IRecognitionException {
    const saved = (baseSaveError as (this: unknown, e: IRecognitionException) => IRecognitionException).call(this, error);
    if (++this.savedErrors >= this.errorLimit) throw new TooManyParseErrors(error.token);
    return saved;
  }

  /**
   * Chevrotain looks ahead, token by token, for the nearest token that may follow one of
   * the rules being parsed, without limit; at the top level that is often only EOF, so a
   * stray `)` early in a long text cost a scan of the whole text. Look at most
   * RESYNC_LOOKAHEAD tokens ahead, then settle for EOF (skip to the end).
   */
  findReSyncTokenType(): TokenType {
    const follows = (this as unknown as { flattenFollowSet(): TokenType[] }).flattenFollowSet();
    for (let k = 1; k <= RESYNC_LOOKAHEAD; k++) {
      const next = this.LA(k);
      if (next.tokenType === EOF) return EOF;
      for (const f of follows) if (tokenMatcher(next, f)) return f;
    }
    return EOF;
  }

  protected override SKIP_TOKEN(): IToken {
    const current = this.LA(1);
    const next = super.SKIP_TOKEN();
    if (this.LA(1) !== current) this.skippedTokens.add(current.startOffset);
    return next;
  }

  // Every closure and alternatives array below is created once, not on each rule call:
  // Chevrotain's DSL otherwise allocates them per invocation, which dominated the time of
  // short queries (and costs more still under loaders that wrap each new function).
  private readonly clauseOrStray = [{ ALT: () => this.SUBRULE(this.clauseItem) }, { ALT: () => this.SUBRULE(this.stray) }];
  private readonly clauseOrStrayOnce = (): void => {
    this.OR(this.clauseOrStray);
  };
  private readonly conjunctionAlts = [{ ALT: () => this.CONSUME(T.And, CONJ_LABEL) }, { ALT: () => this.CONSUME(T.Or, CONJ_LABEL) }];
  private readonly modifierAlts = [
    { ALT: () => this.CONSUME(T.Plus, MOD_LABEL) },
    { ALT: () => this.CONSUME(T.Minus, MOD_LABEL) },
    { ALT: () => this.CONSUME(T.Not, MOD_LABEL) },
  ];
  private readonly optionalConjunction = (): void => {
    this.OR2(this.conjunctionAlts);
  };
  private readonly optionalModifier = (): void => {
    this.OR3(this.modifierAlts);
  };
  private readonly fieldPrefix = (): void => {
    this.CONSUME(T.Word, FIELD_LABEL);
    this.CONSUME(T.Colon);
  };
  private readonly optionalBoost = (): void => {
    this.SUBRULE(this.boost);
  };
  private readonly clauseBodyAlts = [
    { ALT: () => this.SUBRULE(this.group) },
    { ALT: () => this.SUBRULE(this.wordTerm) },
    { ALT: () => this.SUBRULE(this.phrase) },
    { ALT: () => this.SUBRULE(this.regex) },
    { ALT: () => this.SUBRULE(this.range) },
    { ALT: () => this.SUBRULE(this.bareOperator) },
  ];
  private readonly optionalSlop = (): void => {
    this.CONSUME(T.FuzzySlop);
  };
  private readonly optionalSlopAfterBoost = (): void => {
    this.CONSUME2(T.FuzzySlop);
  };
  private readonly boostThenSlop = (): void => {
    this.SUBRULE(this.boost);
    this.OPTION3(this.optionalSlopAfterBoost);
  };
  private readonly quotedAlts = [{ ALT: () => this.CONSUME(T.Quoted) }, { ALT: () => this.CONSUME(T.QuotedUnclosed) }];
  private readonly regexAlts = [{ ALT: () => this.CONSUME(T.Regex) }, { ALT: () => this.CONSUME(T.RegexUnclosed) }];
  private readonly rangeStartAlts = [{ ALT: () => this.CONSUME(T.RangeInStart) }, { ALT: () => this.CONSUME(T.RangeExStart) }];
  private readonly rangeBoundAlts = [
    { ALT: () => this.CONSUME(T.RangeGoop) },
    { ALT: () => this.CONSUME(T.RangeQuoted) },
  ];
  private readonly boostNumber = (): void => {
    this.CONSUME(T.BoostNumber, VALUE_LABEL);
  };
  private readonly strayBoostNumber = (): void => {
    this.CONSUME2(T.BoostNumber);
  };
  private readonly strayAlts = [
    { ALT: () => this.CONSUME(T.StrayClose) },
    { ALT: () => this.CONSUME(T.DanglingEscape) },
    {
      // A `^` with nothing to boost, and its number (one error for both).
      ALT: () => {
        this.CONSUME(T.Caret);
        this.OPTION(this.strayBoostNumber);
      },
    },
    { ALT: () => this.CONSUME(T.FuzzySlop) },
    { ALT: () => this.CONSUME(T.Colon) },
  ];

  /**
   * The whole text. Ending on EOF gives the repetition a token to re-sync towards, so a
   * `)` with no `(` is skipped and the clauses after it are still parsed.
   */
  public topQuery = this.RULE('topQuery', () => {
    this.MANY(this.clauseOrStrayOnce);
    this.CONSUME(EOF);
  });

  /**
   * One clause with what introduces it: Lucene's `Conjunction Modifiers Clause`, with the
   * clause (`[field ':'] (group | term)`) inlined: fewer rule calls per clause is most of
   * the parser's speed on short queries.
   */
  public clauseItem = this.RULE('clauseItem', () => {
    this.OPTION(this.optionalConjunction);
    this.OPTION2(this.optionalModifier);
    this.OPTION3(this.fieldPrefix);
    this.OR(this.clauseBodyAlts);
  });

  public group = this.RULE('group', () => {
    this.CONSUME(T.LParen);
    this.MANY(this.clauseOrStrayOnce);
    this.CONSUME(T.RParen);
    this.OPTION(this.optionalBoost);
  });

  /** Lucene: term [~slop] [^boost [~slop]]. */
  public wordTerm = this.RULE('wordTerm', () => {
    this.CONSUME(T.Word);
    this.OPTION(this.optionalSlop);
    this.OPTION2(this.boostThenSlop);
  });

  /** Lucene: quoted [~slop] [^boost [~slop]], as for a term. */
  public phrase = this.RULE('phrase', () => {
    this.OR(this.quotedAlts);
    this.OPTION(this.optionalSlop);
    this.OPTION2(this.boostThenSlop);
  });

  /** Lucene accepts (and ignores) a `~` on a regex, like on any bare term. */
  public regex = this.RULE('regex', () => {
    this.OR(this.regexAlts);
    this.OPTION(this.optionalSlop);
    this.OPTION2(this.boostThenSlop);
  });

  public range = this.RULE('range', () => {
    this.OR(this.rangeStartAlts);
    this.SUBRULE(this.rangeBound, LOWER_LABEL);
    this.CONSUME(T.RangeTo);
    this.SUBRULE2(this.rangeBound, UPPER_LABEL);
    this.CONSUME(T.RangeEnd);
    this.OPTION(this.optionalBoost);
  });

  public rangeBound = this.RULE('rangeBound', () => {
    this.OR(this.rangeBoundAlts);
  });

  /** Lucene's BAREOPER is a Term like any word: [~slop] [^boost [~slop]]. */
  public bareOperator = this.RULE('bareOperator', () => {
    this.CONSUME(T.BareOperator);
    this.OPTION(this.optionalSlop);
    this.OPTION2(this.boostThenSlop);
  });

  /**
   * `^` and its number (a BoostNumber: tokens.ts lexes one only right after a `^`). The number
   * is optional in the grammar so that in `a^ b` or `a^x` the `b` / `x` stays a term of its
   * own; the visitor reports the missing number.
   */
  public boost = this.RULE('boost', () => {
    this.CONSUME(T.Caret);
    this.OPTION(this.boostNumber);
  });

  /** Tokens that cannot start a clause; kept in the tree so the visitor can report them. */
  public stray = this.RULE('stray', () => {
    this.OR(this.strayAlts);
  });
}

/** Thrown out of the parser when `errorLimit` errors have been recorded. */
export class TooManyParseErrors extends Error {
  constructor(public readonly token: IToken) {
    super('too many parse errors');
  }
}

const baseSaveError = (CstParser.prototype as unknown as { SAVE_ERROR: unknown }).SAVE_ERROR;

/** Built once: Chevrotain's grammar analysis is the expensive part (SEMANTICS.md §3 perf note in index.ts). */
export const luceneParser = new LuceneCstParser();

export type LuceneRuleName =
  | 'topQuery'
  | 'clauseItem'
  | 'group'
  | 'wordTerm'
  | 'phrase'
  | 'regex'
  | 'range'
  | 'rangeBound'
  | 'bareOperator'
  | 'boost'
  | 'stray';

export type { CstNode };
