import type { ConditionSet, HashType, ItemTypeDefinition, LeafCondition, SignalType, TextBankDefinition } from '#warden/catalog/contracts';

/** Three-valued logic (docs/rules.md, "The condition model"). */
export type Outcome = 'passed' | 'failed' | 'unknown';

/** The item under evaluation, with the catalog context the inputs need. */
export interface EvaluatedItem {
  readonly orgId: string;
  readonly id: string;
  readonly typeId: string;
  readonly itemType: ItemTypeDefinition;
  readonly data: { readonly [field: string]: unknown };
  /** The creator ItemIdentifier from the `creator` role (the item itself for USER items). */
  readonly creator: { id: string; typeId: string } | null;
  /** The item's version (0 for the first submission). */
  readonly version?: number;
  /**
   * Sent with `typeSchemaVariant: partial`: a field it does not carry is unknown, not absent
   * (a condition on it is `unknown`, with the fields in `missing`), until the whole item is fetched.
   */
  readonly partial?: boolean;
}

/** What fetching and hashing one media URL of an item gave (recorded once per item version). */
export type MediaResult =
  | {
      readonly ok: true;
      readonly url: string;
      readonly pdq: string;
      readonly quality: number;
      readonly md5: string;
      readonly sha256: string;
    }
  | { readonly ok: false; readonly url: string; readonly reason: string };

/** What a signal may use besides its input and args; each is injected by the runtime. */
export interface SignalContext {
  readonly orgId: string;
  readonly item: EvaluatedItem;
  readonly textBank: (bankId: string) => TextBankDefinition | undefined;
  /** The organization's hash banks as configured (the image-hash signals of extensions match against them). */
  readonly hashBanks: ReadonlyArray<{ readonly id: string; readonly hashType: HashType; readonly maxDistance: number | null }>;
  /** Submissions by a creator within the last `windowSeconds`; injected from a read model. */
  readonly creatorSubmissionCount: (creator: { id: string; typeId: string }, windowSeconds: number) => Promise<number>;
  /** A user's strikes within the strike window now (null: none can be counted); absent where nothing counts strikes. */
  readonly userStrikeCount?: (user: { id: string; typeId: string }) => Promise<number | null>;
  /** The user's live score, 1 to 5 (the USER_STANDING port, user-standing.ts); absent where no module provides it. */
  readonly userScore?: (user: { id: string; typeId: string }) => Promise<number>;
  /** POSTs JSON through the guarded outbound client; resolves with the parsed JSON body. */
  readonly postJson: (url: string, body: unknown, timeoutMs: number) => Promise<unknown>;
  readonly now: () => Date;
  /**
   * Matches a (valid) RE2 pattern against a long text off the evaluating thread, within a deadline
   * (TEXT_MATCHES_REGEX's and TEXT_BANK's regexes past LONG_TEXT_LENGTH); absent: matched where the
   * evaluation runs.
   */
  readonly matchRegex?: (pattern: string, text: string) => Promise<boolean>;
  /** The hashes of an image URL of this item, when it was fetched (undefined: not fetched). */
  readonly media?: (url: string) => MediaResult | undefined;
}

/**
 * A signal: declares its cost (cheapest conditions run first) and the input kinds it accepts,
 * and computes a value from one input value. Throwing makes the leaf unknown.
 */
export interface Signal {
  readonly type: SignalType;
  /** Relative cost: 1 = in-memory string work, 10 = a local lookup, 100 = a network call. */
  readonly cost: number;
  /**
   * False for a value that changes with every item it is asked for (a count that includes the
   * item being evaluated): never reused from the 30-second memo, whatever its cost.
   */
  readonly memoized?: false;
  /** `text`: strings; `geohash`: geohash strings; `creator`: ItemIdentifier; `image`: URL; `any`. */
  readonly inputKinds: readonly ('text' | 'geohash' | 'creator' | 'image' | 'number' | 'any')[];
  /** May answer synchronously (in-memory signals should: a promise per leaf adds up). */
  evaluate(input: unknown, args: { readonly [key: string]: unknown }, ctx: SignalContext): unknown;
  /**
   * Extra detail for the evaluation record (e.g. the matched bank and distance), for the
   * organization evaluating (`ctx`): what a signal kept of an evaluation is another organization's otherwise.
   */
  explain?(input: unknown, args: { readonly [key: string]: unknown }, value: unknown, ctx: SignalContext): { [key: string]: unknown } | undefined;
}

/** One record per condition, leaf or set, in document order; `path` like `conditions[1].conditions[0]`. */
export interface ConditionRecord {
  readonly path: string;
  readonly outcome: Outcome | 'skipped';
  /** Leaves: the signal's value (or the input value without a signal), when computed. */
  readonly value?: unknown;
  readonly error?: string;
  readonly detail?: { [key: string]: unknown };
  /**
   * A partial item's fields this leaf needed and the item did not carry (docs/partial-items.md):
   * what fetching the whole item would decide. Not recorded in the evaluation event.
   */
  readonly missing?: readonly string[];
}

export interface SetEvaluation {
  readonly outcome: Outcome;
  readonly conditions: ConditionRecord[];
}

export type { ConditionSet, LeafCondition };
