/**
 * The Indri grammar as a Chevrotain CST parser (SEMANTICS.md §1.2, after `indrilang.g`).
 *
 * Differences from indrilang.g, all on the lenient side so that the tree survives errors
 * and the visitor can report them in the user's words:
 * - items of #weight/#wand/#wsum/#wsyn take an *optional* weight; a missing one is
 *   reported by the visitor (`indri/weight-expected`) instead of derailing the parser;
 * - operator argument lists may be empty and #not may hold several items, #less/#between/...
 *   any count of numbers: the visitor reports counts. An empty `#combine()` then keeps its
 *   own `)` instead of leaving it to confuse the enclosing operator;
 * - unknown operators (`#foo`, `#Combine`) and `#sum` parse like operators, then are reported;
 * - contexts `.(f)` are accepted on every term (the visitor rejects them inside extent
 *   operators), and `x.field(ctx)` is accepted as well as indrilang.g's `x.field.(ctx)`;
 * - at the top level, a stray token (`)`, `]`, a lone `-`, ...) ends a parse; index.ts
 *   reports it and parses the rest, so every item of the query is still built.
 *
 * One instance is built at module load and reused (`parser.input = tokens`): building a
 * Chevrotain parser runs its grammar analysis, which is far too slow per query.
 */
import { CstParser, EMPTY_ALT, tokenMatcher, type CstNode, type IOrAlt, type IToken, type TokenType } from 'chevrotain';
import { indriErrorMessageProvider } from './messages.js';
import * as T from './tokens.js';

export class IndriParser extends CstParser {
  /**
   * Alternatives of each OR, built once (Chevrotain's performance advice): an OR given a
   * fresh array of closures allocates them on every call, i.e. for every term.
   */
  private readonly alts: Partial<Record<string, IOrAlt<unknown>[]>> = {};

  constructor() {
    super(T.ALL_TOKENS, {
      recoveryEnabled: true,
      maxLookahead: 3,
      nodeLocationTracking: 'onlyOffset',
      errorMessageProvider: indriErrorMessageProvider,
    });
    this.performSelfAnalysis();
  }

  /**
   * query := scored+ ; several scored items → implicit #combine. A token that cannot start
   * an item stops the rule; index.ts reports it and parses the rest as further items.
   */
  public query = this.RULE('query', () => {
    this.AT_LEAST_ONE(() => this.SUBRULE(this.scored));
  });

  public scored = this.RULE('scored', () => {
    this.OR((this.alts.scored1 ??= [
      { ALT: () => this.SUBRULE(this.unweightedOp) },
      { ALT: () => this.SUBRULE(this.weightedOp) },
      { ALT: () => this.SUBRULE(this.priorOp) },
      { ALT: () => this.SUBRULE(this.filterOp) },
      { ALT: () => this.SUBRULE(this.termExpr) },
    ]));
  });

  /** #combine #or #max #not (and the unreachable #sum) [restriction]? ( scored+ ) */
  public unweightedOp = this.RULE('unweightedOp', () => {
    this.OR((this.alts.unweightedOp1 ??= [
      { ALT: () => this.CONSUME(T.Combine) },
      { ALT: () => this.CONSUME(T.Or) },
      { ALT: () => this.CONSUME(T.Max) },
      { ALT: () => this.CONSUME(T.Not) },
      { ALT: () => this.CONSUME(T.Sum) },
    ]));
    this.OPTION(() => this.SUBRULE(this.restriction));
    this.CONSUME(T.LParen);
    this.MANY(() => this.SUBRULE(this.scored));
    this.CONSUME(T.RParen);
  });

  /** #weight #wand #wsum [restriction]? ( (weight scored)+ ) */
  public weightedOp = this.RULE('weightedOp', () => {
    this.OR((this.alts.weightedOp1 ??= [
      { ALT: () => this.CONSUME(T.Weight) },
      { ALT: () => this.CONSUME(T.Wand) },
      { ALT: () => this.CONSUME(T.Wsum) },
    ]));
    this.OPTION(() => this.SUBRULE(this.restriction));
    this.CONSUME(T.LParen);
    this.MANY(() => this.SUBRULE(this.weightedItem));
    this.CONSUME(T.RParen);
  });

  public weightedItem = this.RULE('weightedItem', () => {
    this.OPTION(() => this.SUBRULE(this.weight));
    this.SUBRULE(this.scored);
  });

  /** NUMBER | FLOAT, optionally negative. */
  public weight = this.RULE('weight', () => {
    this.OPTION(() => {
      this.OR((this.alts.weight1 ??= [{ ALT: () => this.CONSUME(T.Dash) }, { ALT: () => this.CONSUME(T.SpaceDash) }]));
    });
    this.OR2((this.alts.weight2 ??= [{ ALT: () => this.CONSUME(T.NumberTok) }, { ALT: () => this.CONSUME(T.FloatTok) }]));
  });

  public priorOp = this.RULE('priorOp', () => {
    this.CONSUME(T.Prior);
    this.CONSUME(T.LParen);
    this.CONSUME(T.Term);
    this.CONSUME(T.RParen);
  });

  /** #filreq #filrej #scoreif #scoreifnot ( unscored scored ) */
  public filterOp = this.RULE('filterOp', () => {
    this.OR((this.alts.filterOp1 ??= [
      { ALT: () => this.CONSUME(T.Filreq) },
      { ALT: () => this.CONSUME(T.Filrej) },
      { ALT: () => this.CONSUME(T.Scoreif) },
      { ALT: () => this.CONSUME(T.Scoreifnot) },
    ]));
    this.CONSUME(T.LParen);
    this.SUBRULE(this.termExpr);
    this.SUBRULE(this.scored);
    this.CONSUME(T.RParen);
  });

  /** '[' ( passageW ':' I | field | '.' path ) ']' */
  public restriction = this.RULE('restriction', () => {
    this.CONSUME(T.LBracket);
    this.OR((this.alts.restriction1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.Term);
          this.CONSUME(T.Colon);
          this.CONSUME(T.NumberTok);
        },
      },
      { ALT: () => this.SUBRULE(this.fieldName) },
      {
        ALT: () => {
          this.CONSUME(T.Dot);
          this.SUBRULE(this.path);
        },
      },
    ]));
    this.CONSUME(T.RBracket);
  });

  /**
   * A term expression (indrilang.g unqualifiedTerm / qualifiedTerm / scoredRaw, flattened:
   * every rule level costs a call and a CST node per term, and terms are most of a query):
   *   ( extent operator | word ( ('-' word)+ | '*' )? | float '*'? | -number | "term"
   *     | #base64(...) | bad term )
   *   ( '.' fields ( '.'? '(' contexts ')' )? | '.' '(' contexts ')' )?
   */
  public termExpr = this.RULE('termExpr', () => {
    this.OR((this.alts.termExpr1 ??= [
      { ALT: () => this.SUBRULE(this.windowOp) },
      { ALT: () => this.SUBRULE(this.bandOp) },
      { ALT: () => this.SUBRULE(this.synonymOp) },
      { ALT: () => this.SUBRULE(this.wsynOp) },
      { ALT: () => this.SUBRULE(this.anyOp) },
      { ALT: () => this.SUBRULE(this.compareOp) },
      { ALT: () => this.SUBRULE(this.dateOp) },
      { ALT: () => this.SUBRULE(this.wildcardOp) },
      { ALT: () => this.SUBRULE(this.unknownOp) },
      {
        // TERM | NUMBER, then a hyphen chain (`a-b-c`, rule hyphenTerm), a `*`, or nothing.
        ALT: () => {
          this.OR2((this.alts.termExpr2 ??= [{ ALT: () => this.CONSUME(T.Term) }, { ALT: () => this.CONSUME(T.NumberTok) }]));
          this.OR3((this.alts.termExpr3 ??= [
            {
              ALT: () =>
                this.AT_LEAST_ONE(() => {
                  this.CONSUME(T.Dash);
                  this.OR4((this.alts.termExpr4 ??= [{ ALT: () => this.CONSUME2(T.Term) }, { ALT: () => this.CONSUME2(T.NumberTok) }]));
                }),
            },
            { ALT: () => this.CONSUME(T.Star) },
            { ALT: EMPTY_ALT() },
          ]));
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.FloatTok);
          this.OPTION(() => this.CONSUME2(T.Star));
        },
      },
      { ALT: () => this.SUBRULE(this.negativeNumber) },
      { ALT: () => this.SUBRULE(this.quotedAtom) },
      { ALT: () => this.CONSUME(T.Base64) },
      { ALT: () => this.CONSUME(T.BadTerm) },
    ]));
    this.OPTION2(() => {
      this.CONSUME(T.Dot);
      this.OR5((this.alts.termExpr5 ??= [
        { ALT: () => this.SUBRULE(this.contextList) },
        {
          ALT: () => {
            this.SUBRULE(this.fieldList);
            this.OPTION3(() => {
              this.OPTION4(() => this.CONSUME2(T.Dot));
              this.SUBRULE2(this.contextList);
            });
          },
        },
      ]));
    });
  });

  public fieldList = this.RULE('fieldList', () => {
    this.SUBRULE(this.fieldName);
    this.MANY(() => {
      this.CONSUME(T.Comma);
      this.SUBRULE2(this.fieldName);
    });
  });

  /** TERM ( '-' (TERM | NUMBER) )*: hyphenated field names are allowed. */
  public fieldName = this.RULE('fieldName', () => {
    this.CONSUME(T.Term);
    this.MANY(() => {
      this.CONSUME(T.Dash);
      this.OR((this.alts.fieldName1 ??= [{ ALT: () => this.CONSUME2(T.Term) }, { ALT: () => this.CONSUME(T.NumberTok) }]));
    });
  });

  public contextList = this.RULE('contextList', () => {
    this.CONSUME(T.LParen);
    this.SUBRULE(this.contextItem);
    this.MANY(() => {
      this.CONSUME(T.Comma);
      this.SUBRULE2(this.contextItem);
    });
    this.CONSUME(T.RParen);
  });

  public contextItem = this.RULE('contextItem', () => {
    this.OR((this.alts.contextItem1 ??= [
      { ALT: () => this.SUBRULE(this.fieldName) },
      {
        ALT: () => {
          this.CONSUME(T.Dot);
          this.SUBRULE(this.path);
        },
      },
    ]));
  });

  public path = this.RULE('path', () => {
    this.AT_LEAST_ONE(() => this.SUBRULE(this.pathStep));
  });

  /** '/' field (child), '//' field (descendant), '\' field (parent), '{' field (inside). */
  public pathStep = this.RULE('pathStep', () => {
    this.OR((this.alts.pathStep1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.Slash);
          this.OPTION(() => this.CONSUME2(T.Slash));
        },
      },
      { ALT: () => this.CONSUME(T.Backslash) },
      { ALT: () => this.CONSUME(T.LBrace) },
    ]));
    this.SUBRULE(this.fieldName);
  });

  /** #odN #od #N #uwN #uw ( unscored+ ) */
  public windowOp = this.RULE('windowOp', () => {
    this.OR((this.alts.windowOp1 ??= [
      { ALT: () => this.CONSUME(T.Od) },
      { ALT: () => this.CONSUME(T.Uw) },
      { ALT: () => this.CONSUME(T.HashNumber) },
    ]));
    this.CONSUME(T.LParen);
    this.MANY(() => this.SUBRULE(this.termExpr));
    this.CONSUME(T.RParen);
  });

  public bandOp = this.RULE('bandOp', () => {
    this.CONSUME(T.Band);
    this.CONSUME(T.LParen);
    this.MANY(() => this.SUBRULE(this.termExpr));
    this.CONSUME(T.RParen);
  });

  /** #syn( ... ) | { ... } | < ... > */
  public synonymOp = this.RULE('synonymOp', () => {
    this.OR((this.alts.synonymOp1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.Syn);
          this.CONSUME(T.LParen);
          this.MANY(() => this.SUBRULE(this.termExpr));
          this.CONSUME(T.RParen);
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.LBrace);
          this.MANY2(() => this.SUBRULE2(this.termExpr));
          this.CONSUME(T.RBrace);
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.LAngle);
          this.MANY3(() => this.SUBRULE3(this.termExpr));
          this.CONSUME(T.RAngle);
        },
      },
    ]));
  });

  public wsynOp = this.RULE('wsynOp', () => {
    this.CONSUME(T.Wsyn);
    this.CONSUME(T.LParen);
    this.MANY(() => this.SUBRULE(this.wsynItem));
    this.CONSUME(T.RParen);
  });

  public wsynItem = this.RULE('wsynItem', () => {
    this.OPTION(() => this.SUBRULE(this.weight));
    this.SUBRULE(this.termExpr);
  });

  /** #any:FIELD | #any(FIELD) */
  public anyOp = this.RULE('anyOp', () => {
    this.CONSUME(T.Any);
    this.OR((this.alts.anyOp1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.Colon);
          this.SUBRULE(this.fieldName);
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.LParen);
          this.SUBRULE2(this.fieldName);
          this.CONSUME(T.RParen);
        },
      },
    ]));
  });

  /** #less #greater #equals ( FIELD n ), #between ( FIELD lo hi ) */
  public compareOp = this.RULE('compareOp', () => {
    this.OR((this.alts.compareOp1 ??= [
      { ALT: () => this.CONSUME(T.Less) },
      { ALT: () => this.CONSUME(T.Greater) },
      { ALT: () => this.CONSUME(T.Between) },
      { ALT: () => this.CONSUME(T.Equals) },
    ]));
    this.CONSUME(T.LParen);
    this.SUBRULE(this.fieldName);
    this.MANY(() => this.SUBRULE(this.intValue));
    this.CONSUME(T.RParen);
  });

  public intValue = this.RULE('intValue', () => {
    this.OPTION(() => {
      this.OR((this.alts.intValue1 ??= [{ ALT: () => this.CONSUME(T.Dash) }, { ALT: () => this.CONSUME(T.SpaceDash) }]));
    });
    this.CONSUME(T.NumberTok);
  });

  public dateOp = this.RULE('dateOp', () => {
    this.OR((this.alts.dateOp1 ??= [
      { ALT: () => this.CONSUME(T.DateAfter) },
      { ALT: () => this.CONSUME(T.DateBefore) },
      { ALT: () => this.CONSUME(T.DateBetween) },
      { ALT: () => this.CONSUME(T.DateEquals) },
    ]));
    this.CONSUME(T.LParen);
    this.MANY(() => this.SUBRULE(this.date));
    this.CONSUME(T.RParen);
  });

  /** MM/DD/YYYY | DD-MON-YYYY | DD month YYYY | Month DD YYYY */
  public date = this.RULE('date', () => {
    this.OR((this.alts.date1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.NumberTok);
          this.CONSUME(T.Slash);
          this.CONSUME2(T.NumberTok);
          this.CONSUME2(T.Slash);
          this.CONSUME3(T.NumberTok);
        },
      },
      {
        ALT: () => {
          this.CONSUME4(T.NumberTok);
          this.CONSUME(T.Dash);
          this.CONSUME(T.Term);
          this.CONSUME2(T.Dash);
          this.CONSUME5(T.NumberTok);
        },
      },
      {
        ALT: () => {
          this.CONSUME6(T.NumberTok);
          this.CONSUME2(T.Term);
          this.CONSUME7(T.NumberTok);
        },
      },
      {
        ALT: () => {
          this.CONSUME3(T.Term);
          this.CONSUME8(T.NumberTok);
          this.CONSUME9(T.NumberTok);
        },
      },
    ]));
  });

  public wildcardOp = this.RULE('wildcardOp', () => {
    this.CONSUME(T.Wildcard);
    this.CONSUME(T.LParen);
    this.OR((this.alts.wildcardOp1 ??= [
      { ALT: () => this.CONSUME(T.Term) },
      { ALT: () => this.CONSUME(T.NumberTok) },
      { ALT: () => this.CONSUME(T.FloatTok) },
    ]));
    this.CONSUME(T.RParen);
  });

  /** `#foo( ... )`: parsed so that its arguments are still checked, then reported. */
  public unknownOp = this.RULE('unknownOp', () => {
    this.CONSUME(T.UnknownOp);
    this.OPTION(() => {
      this.CONSUME(T.LParen);
      this.MANY(() => this.SUBRULE(this.scored));
      this.CONSUME(T.RParen);
    });
  });

  public negativeNumber = this.RULE('negativeNumber', () => {
    this.OR((this.alts.negativeNumber1 ??= [{ ALT: () => this.CONSUME(T.Dash) }, { ALT: () => this.CONSUME(T.SpaceDash) }]));
    this.OR2((this.alts.negativeNumber2 ??= [{ ALT: () => this.CONSUME(T.NumberTok) }, { ALT: () => this.CONSUME(T.FloatTok) }]));
  });

  /** `"term"`: a single raw (unstemmed) term; Indri has no quoted phrases. */
  public quotedAtom = this.RULE('quotedAtom', () => {
    this.CONSUME(T.DQuote);
    this.OR((this.alts.quotedAtom1 ??= [
      { ALT: () => this.CONSUME(T.Term) },
      { ALT: () => this.CONSUME(T.NumberTok) },
      { ALT: () => this.CONSUME(T.FloatTok) },
      { ALT: () => this.SUBRULE(this.negativeNumber) },
      { ALT: () => this.CONSUME(T.BadTerm) },
    ]));
    this.CONSUME2(T.DQuote);
  });

  /**
   * Chevrotain tries single-token insertion before deletion. In `#less(year x)` inserting
   * the `)` before `x` would close #less early and hand `x )` to the enclosing operator;
   * when the token after the unexpected one is the expected one, deleting is the repair.
   */
  protected override canTokenTypeBeInsertedInRecovery(tokType: TokenType): boolean {
    return !tokenMatcher(this.LA(2), tokType);
  }

  /** How many tokens of the last input the parser consumed (Chevrotain keeps the index). */
  consumedTokens(): number {
    return (this as unknown as { exportLexerState(): number }).exportLexerState() + 1;
  }

  /** Parse `tokens` from the `query` rule; the caller reads `errors` afterwards. */
  parseQuery(tokens: IToken[]): CstNode {
    // (tokens is the query or, after a stray token, the rest of it)
    this.input = tokens;
    return this.query();
  }
}

/** The one shared parser instance (built once, reused). */
export const indriParser = new IndriParser();
