/** Types of scripts/build-inputs.mjs, for the tests that import it. */
export declare const ROOT: string;
export declare const STAMP: string;
export declare function serverInputs(): string[];
export declare function consoleInputs(): string[];
export declare function digests(paths: readonly string[]): Record<string, string | null>;
export declare function combined(fileDigests: Record<string, string | null>): string;
export declare function readStamp(): { server: Record<string, string | null>; console: Record<string, string | null> } | undefined;
/** undefined when dist/ was built from the work tree's sources, otherwise what changed and what to run. */
export declare function staleness(): string | undefined;
