import { generateKeyPairSync, sign } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ProjectionRunner } from '#warden/eventstore';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { checkpointMessageV1 } from '../chain/audit-chain.js';
import { auditChainProjection } from '../chain/audit-chain.projection.js';
import { okpThumbprint } from '../export/audit-head.js';
import { checkReplayedChain } from './replayed-chain-check.js';

/**
 * A data directory upgraded from chain v1 keeps its v1 checkpoints in the log (docs/audit.md, "The
 * audit chain"): a replay checks their signature over the v1 message, as verify does, and cannot
 * check their v1 link against the v2 chain it rebuilds.
 */
describe('a replay of a log with checkpoints of chain v1', () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  const key = (() => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const x = publicKey.export({ format: 'jwk' }).x!;
    return { privateKey, jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x, kid: okpThumbprint(x) }] } };
  })();

  async function replayOf(signature: (message: Buffer) => string) {
    const stores = sqliteStores();
    closers.push(() => stores.close());
    await stores.events.append('notes-acme', [anEvent('Noted', { i: 1 }), anEvent('Noted', { i: 2 })], 'no_stream');
    const head = { seq: 2, position: 2, link: 'a v1 link this chain does not give' };
    const checkpoint = anEvent('AuditChainCheckpointed', {
      ...head,
      kid: key.jwks.keys[0]!.kid,
      signature: signature(checkpointMessageV1('acme', head)),
      signedAt: '2026-01-01T00:00:00.000Z',
    });
    await stores.events.append('audit_chain-acme', [checkpoint], 'no_stream');
    await new ProjectionRunner(auditChainProjection, stores.events, stores.readStore).catchUp();
    return checkReplayedChain({
      log: stores.events,
      replayed: stores.readStore,
      recorded: undefined,
      through: await stores.events.headPosition(),
      signingKeys: async () => key.jwks,
    });
  }

  it('verifies its signature over the v1 message, and counts it', async () => {
    const report = await replayOf((message) => sign(null, message, key.privateKey).toString('base64url'));
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ checkpoints: 1, legacyCheckpoints: 1 });
  });

  it('refuses one whose signature does not verify', async () => {
    const report = await replayOf((message) => sign(null, Buffer.concat([message, Buffer.from('!')]), key.privateKey).toString('base64url'));
    expect(report.problems).toEqual([expect.stringMatching(/the checkpoint's signature does not verify with acme's key/)]);
  });
});
