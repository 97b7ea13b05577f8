// Types of random-words.mjs, for the TypeScript tests that share it.
export declare function randomWords(length: number, seed?: number): string;
