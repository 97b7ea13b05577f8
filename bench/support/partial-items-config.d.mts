// Types of partial-items-config.mjs, for the TypeScript test that shares it.
export declare const UNPOPULAR_SPAM_RULE_AND_QUEUE: string;
