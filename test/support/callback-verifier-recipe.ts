import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export type VerifyCallback = (headers: IncomingHttpHeaders, rawBody: string | Buffer) => Promise<boolean>;
export type CallbackVerifierOptions = { wardenUrl: string; apiKey: string; minRefreshIntervalMs?: number; maxKeySetAgeMs?: number; maxStaleMs?: number };

/** The verifier docs/callbacks.md prints (examples/callbacks/verify-callback.mjs, plain JavaScript), typed for the tests. */
export async function loadCallbackVerifier(): Promise<(options: CallbackVerifierOptions) => VerifyCallback> {
  const file = join(import.meta.dirname, '../../examples/callbacks/verify-callback.mjs');
  const recipe = (await import(pathToFileURL(file).href)) as { callbackVerifier: (options: CallbackVerifierOptions) => VerifyCallback };
  return recipe.callbackVerifier;
}
