// Types of strikes-config.mjs, for the TypeScript tests that share its organization's parts.
export declare const SPAM_POLICY: string;
export declare const SPAM_WORDS_RULE: string;
export declare function removeSpamRule(id: string, name: string, terms: string, caseSensitive?: boolean): string;
export declare const POST_AND_USER_TYPES: string;
export declare function strikesConfig(receiverUrl: string): string;
