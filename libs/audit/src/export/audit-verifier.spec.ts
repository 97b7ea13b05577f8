import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { forgedJwks, type Line, linesDigestOf, newAttacker, TAMPERINGS } from '../../../../test/support/audit-tampering.js';
import { AUDIT_CHAIN_FORMAT, checkpointMessage, contentDigest, genesisLink, nextLink, withCredentialsDigested } from '../chain/audit-chain.js';
import { AUDIT_EXPORT_FORMAT, AUDIT_EXPORT_FORMAT_V2, AUDIT_HEAD_FORMAT, AUDIT_HEAD_FORMAT_V1 } from './audit-export.format.js';
import { headMessage, okpThumbprint } from './audit-head.js';
import { type Jwks, verifyAuditExport, type VerifyOptions } from './audit-verifier.js';

/**
 * The verifier's unit spec and the tamper matrix (test/support/audit-tampering.ts) over an export
 * built here as the exporter builds one: organization `acme` in a log it shares with `other`, so
 * that positions differ from sequence numbers, with checkpoints every ten events and a signed head.
 */
const real = (() => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  return { privateKey, jwk: { kty: 'OKP', crv: 'Ed25519', x, kid: okpThumbprint(x) } };
})();
const JWKS: Jwks = { keys: [real.jwk] };
const ORG = 'acme';

/**
 * A head signed by the real key: `unsigned`'s members in the exporter's order, its linesDigest (a
 * head of AUDIT_HEAD_FORMAT) made over `before`, the lines before it.
 */
function signedHead(unsigned: Line, before: readonly Line[]): Line {
  const { kid: _kid, signature: _signature, linesDigest: _digest, signedAt, ...members } = unsigned;
  const body: Line = { ...members, ...(unsigned['format'] === AUDIT_HEAD_FORMAT ? { linesDigest: linesDigestOf(before) } : {}), signedAt };
  return { ...body, kid: real.jwk.kid, signature: sign(null, headMessage(body as never), real.privateKey).toString('base64url') };
}

/** Personal fields as the store seals them (stored.data.__personal) and an export with personal data opens them. */
const SEALED = { v: 1, keyId: 'dk-u1', fields: ['data'], iv: 'aXY', tag: 'dGFn', ct: 'Y2lwaGVydGV4dA' };

function buildExport(options: { events?: number; personalData?: boolean; format?: 'v2' } = {}): Line[] {
  const total = options.events ?? 40;
  const personalData = options.personalData === true;
  const lines: Line[] = [];
  let link = genesisLink(ORG);
  let position = 0;
  let activity: Line & { seq: number; position: number; link: string };
  const append = (type: string, stream: string, data: Record<string, unknown>, personal?: Record<string, unknown>) => {
    position += 2 + (lines.length % 3); // other organizations' events in between
    const seq = lines.length + 1;
    const metadata = {
      orgId: ORG,
      correlationId: `c-${seq}`,
      causationId: null,
      actor: seq % 2 ? 'cli' : 'user:u1',
      occurredAt: new Date(Date.UTC(2026, 2, 1, 0, seq)).toISOString(),
      schemaVersion: 1,
    };
    const stored = { id: `e-${seq}`, stream, revision: 0, type, data, metadata };
    link = nextLink(link, position, contentDigest(stored));
    lines.push({
      kind: 'event',
      seq,
      position,
      id: stored.id,
      stream,
      revision: 0,
      type,
      occurredAt: metadata.occurredAt,
      actor: metadata.actor,
      stored: { data: withCredentialsDigested(type, data), metadata },
      ...(personalData && personal ? { personal } : {}),
      link,
    });
    return { seq, position, link };
  };
  append('UserPasswordSet', 'user-acme:u1', { userId: 'u1', passwordHash: 'scrypt$N=16384$salt$hash' });
  while (lines.length < total) {
    const n = lines.length;
    activity =
      n % 5 === 2
        ? append(
            'ItemSubmitted',
            `item-acme:user:u${n}`,
            { item: { id: `u${n}`, typeId: 'user' }, version: 0, __personal: SEALED },
            { data: { name: `Person ${n}` } },
          )
        : append('ItemSubmitted', `item-acme:post:p${n}`, { item: { id: `p${n}`, typeId: 'post' }, version: 0 });
    if (lines.length % 10 === 9) {
      const head = { seq: activity.seq, position: activity.position, link: activity.link };
      const signature = sign(null, checkpointMessage(ORG, head), real.privateKey).toString('base64url');
      append('AuditChainCheckpointed', 'audit_chain-acme', {
        ...head,
        kid: real.jwk.kid,
        signature,
        signedAt: '2026-03-01T01:00:00.000Z',
        chain: AUDIT_CHAIN_FORMAT,
      });
    }
  }
  const events = lines;
  const exportedAt = '2026-03-02T00:00:00.000Z';
  const header = {
    kind: 'header',
    format: options.format === 'v2' ? AUDIT_EXPORT_FORMAT_V2 : AUDIT_EXPORT_FORMAT,
    chain: AUDIT_CHAIN_FORMAT,
    orgId: ORG,
    from: null,
    to: null,
    exportedAt,
    personalData,
    previous: { seq: 0, link: genesisLink(ORG) },
    jwks: JWKS,
  };
  const last = events.at(-1)!;
  const lastHead = { seq: last['seq'], position: last['position'], link: last['link'] };
  const unsigned = {
    kind: 'head',
    format: options.format === 'v2' ? AUDIT_HEAD_FORMAT_V1 : AUDIT_HEAD_FORMAT,
    chain: AUDIT_CHAIN_FORMAT,
    orgId: ORG,
    from: null,
    to: null,
    personalData,
    exportedAt,
    previous: header.previous,
    last: lastHead,
    events: events.length,
    chainHead: lastHead,
    signedAt: exportedAt,
  };
  return [header, ...events, signedHead(unsigned, [header, ...events])];
}

const verify = (lines: readonly Line[], options: VerifyOptions = { jwks: JWKS }) =>
  verifyAuditExport(
    lines.map((l) => JSON.stringify(l)),
    options,
  );
const firstProblem = (report: Awaited<ReturnType<typeof verify>>) => {
  const p = report.problems[0];
  return p ? (p.line === 0 ? `anchor: ${p.message}` : `line ${p.line}: ${p.message}`) : 'no problem';
};

describe('the audit export verifier', () => {
  const clean = buildExport();

  it('passes an untouched export: chain, checkpoints, head, signatures; says what is covered', async () => {
    const report = await verify(clean);
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ ok: true, events: 40, checkpoints: 4, signaturesVerified: 5, signaturesSkipped: false });
    expect(report.coverage).toMatchObject({ orgId: ORG, whole: true, firstSeq: 1, lastSeq: 40, chainHeadSeq: 40, headKid: real.jwk.kid });
    // The fixture's positions are not its sequence numbers: a mix-up of the two would not pass.
    expect(clean.filter((l) => l['kind'] === 'event').every((l) => l['position'] !== l['seq'])).toBe(true);
  });

  it('chains a credential only through its digest: the export carries none', () => {
    const text = clean.map((l) => JSON.stringify(l)).join('\n');
    expect(text).not.toContain('scrypt$');
    expect(clean[1]!['stored'].data.passwordHash).toEqual({ $sha256: expect.stringMatching(/^[\w-]{43}$/) });
  });

  describe('the tamper matrix', () => {
    const attacker = newAttacker();
    const withPersonal = buildExport({ personalData: true });
    for (const tampering of TAMPERINGS) {
      it(`${tampering.name} (${tampering.item})`, async () => {
        const exported = tampering.personalData ? withPersonal : clean;
        const tampered = tampering.apply(exported, attacker);
        const jwks = tampering.item === 'jwks' ? forgedJwks(exported, attacker) : JWKS;
        const report = await verify(tampered.lines, { jwks });
        expect(report.ok).toBe(false);
        expect(firstProblem(report)).toMatch(tampered.first);
        if (tampered.notBlamed !== undefined) {
          expect(report.problems.filter((p) => p.line === tampered.notBlamed && /does not match its link/.test(p.message))).toEqual([]);
        }
      });
    }
  });

  describe('a line in another form than the exporter writes, its values unchanged', () => {
    const texts = clean.map((l) => JSON.stringify(l));
    const at = clean.findIndex((l, i) => i > 10 && l['type'] === 'ItemSubmitted');
    const seq = clean[at]!['seq'] as number;
    const respelled = (change: (text: string) => string) => {
      const out = [...texts];
      out[at] = change(out[at]!);
      expect(out[at]).not.toBe(texts[at]);
      return out;
    };
    const cases: Array<[string, (text: string) => string, RegExp]> = [
      [
        // JSON.parse keeps the last of two members, which still chains; a reader that keeps the first shows the other.
        'a duplicate member whose first value is not the chained one',
        (t) => t.replace('"actor":', '"actor":"user:someone-else","actor":'),
        /it reads `"actor":"user:someone-else","act[^`]*` where the exporter writes `"actor":"(cli|user:u1)",/,
      ],
      [
        'a duplicate member inside stored.data',
        (t) => t.replace('"data":{', '"data":{"version":7,'),
        /at character \d+ it reads `"version":7,"item":{"id":"p10","ty…` where the exporter writes `"version":0,"item"/,
      ],
      ['whitespace between members', (t) => t.replace(',"seq":', ', "seq":'), /it reads ` "seq":/],
      ['a trailing space', (t) => `${t} `, /it reads `[^`]*"} ` where the exporter writes `[^`]*"}`/],
      ['a character escaped', (t) => t.replace('"kind":"event"', '"kind":"\\u0065vent"'), /it reads `"kind":"\\u0065vent",/],
      [
        'members reordered',
        (t) => `{"link":${JSON.stringify(clean[at]!['link'])},${t.slice(1).replace(/,"link":"[^"]*"/, '')}`,
        /at character 3 it reads `"link":"[\w-]+…` where the exporter writes `"kind":"event","seq":\d+/,
      ],
    ];
    for (const [name, change, where] of cases) {
      it(`${name}: refused on its line`, async () => {
        const report = await verifyAuditExport(respelled(change), { jwks: JWKS });
        expect(report.ok).toBe(false);
        expect(report.problems).toHaveLength(1);
        expect(firstProblem(report)).toMatch(
          new RegExp(`^line ${at + 1}: event ${seq}'s line is not what the exporter writes for its values: at character \\d+ it reads `),
        );
        expect(report.problems[0]!.message).toMatch(where);
      });
    }

    it('the header and the signed head as well', async () => {
      const header = await verifyAuditExport(
        texts.map((t, i) => (i === 0 ? t.replace('"orgId":', '"orgId" :') : t)),
        { jwks: JWKS },
      );
      expect(firstProblem(header)).toMatch(/^line 1: the header is not what the exporter writes for its values: at character \d+ it reads `"orgId" :/);
      const last = texts.length - 1;
      const head = await verifyAuditExport(
        texts.map((t, i) => (i === last ? t.replace('"events":', '"events":1,"events":') : t)),
        { jwks: JWKS },
      );
      expect(head.problems.map((p) => `line ${p.line}: ${p.message}`)).toEqual([
        expect.stringMatching(
          new RegExp(`^line ${last + 1}: the signed head is not what the exporter writes for its values: at character \\d+ it reads \`"events":1,"events":`),
        ),
      ]);
    });
  });

  it('reports a relink at the next line as a suspect pair, never the untouched line alone', async () => {
    const relink = TAMPERINGS.find((t) => t.name.startsWith('a relink'))!.apply(clean, newAttacker());
    const report = await verify(relink.lines);
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]!.message).toMatch(/or event \d+ \(line \d+\) was changed and its link recomputed; the change lies in events \d+–\d+/);
  });

  it('checks nothing signed without a trusted key set unless told to skip, and then never passes', async () => {
    const skipped = await verify(clean, { skipSignatures: true });
    expect(skipped).toMatchObject({ ok: false, signaturesSkipped: true, signaturesVerified: 0, problems: [] });
    const none = await verify(clean, {});
    expect(none.ok).toBe(false);
    expect(firstProblem(none)).toMatch(/which the JWKS does not have/);
  });

  it('refuses a key whose kid is not its RFC 7638 thumbprint', async () => {
    const report = await verify(clean, {
      jwks: {
        keys: [
          { ...real.jwk, kid: 'not-a-thumbprint' },
          { ...real.jwk, x: newAttacker().jwk.x },
        ],
      },
    });
    expect(report.ok).toBe(false);
    expect(firstProblem(report)).toMatch(/is signed by key .*, which the JWKS lists with another public key than its kid names/);
  });

  it('verifies a range export against the link its signed head names, and refuses a changed previous link', async () => {
    const whole = buildExport();
    const cut = 15;
    const header = { ...whole[0]!, from: whole[cut]!['occurredAt'], previous: { seq: whole[cut - 1]!['seq'], link: whole[cut - 1]!['link'] } };
    const events = whole.slice(cut, -1);
    const head = signedHead({ ...whole.at(-1)!, from: header.from, previous: header.previous, events: events.length }, [header, ...events]);
    const range = [header, ...events, head];
    expect((await verify(range)).problems).toEqual([]);
    const dropped = [{ ...header, previous: { seq: events[5]!['seq'], link: events[5]!['link'] } }, ...events.slice(6), head];
    expect(firstProblem(await verify(dropped))).toMatch(/^line 1: the header's previous event \(\d+\) is not the one the head signs/);
  });

  it('refuses an export without an end time that stops short of the chain head it names, even signed so', async () => {
    const whole = buildExport();
    const resigned = (lines: Line[], events: number) => {
      const kept = lines.slice(1, 1 + events);
      const last = kept.at(-1);
      const unsigned: Line = {
        ...lines.at(-1)!,
        events: kept.length,
        last: last ? { seq: last['seq'], position: last['position'], link: last['link'] } : null,
      };
      return [lines[0]!, ...kept, signedHead(unsigned, [lines[0]!, ...kept])];
    };
    // What an exporter given a chain with a hole signed: the file and its head agree, the chain head does not.
    expect(firstProblem(await verify(resigned(whole, 35)))).toBe(
      `line 37: the export has no end time, so it runs to the chain's head, event 40, but the head signs event 35 as the last: events 36–40 are missing`,
    );
    expect(firstProblem(await verify(resigned(whole, 0)))).toMatch(/but the head signs no event as the last: events 1–40 are missing$/);
    // With an end time the same file is a range that ends before the head: it passes.
    const ranged = resigned(
      whole.map((l, i) => (i === 0 ? { ...l, to: whole[35]!['occurredAt'] } : l)),
      35,
    );
    ranged[ranged.length - 1] = signedHead({ ...ranged.at(-1)!, to: whole[35]!['occurredAt'] }, ranged.slice(0, -1));
    expect((await verify(ranged)).problems).toEqual([]);
  });

  it('compares an export with an anchor: the same history passes, an older or rewritten one does not', async () => {
    const whole = buildExport({ events: 40 });
    const anchorOf = (lines: readonly Line[], seq: number) => {
      const at = lines.find((l) => l['kind'] === 'event' && l['seq'] === seq)!;
      const last = { seq, position: at['position'], link: at['link'] };
      const unsigned = {
        kind: 'head',
        format: AUDIT_HEAD_FORMAT_V1,
        chain: AUDIT_CHAIN_FORMAT,
        orgId: ORG,
        from: null,
        to: null,
        personalData: false,
        exportedAt: 'T',
        previous: { seq: 0, link: genesisLink(ORG) },
        last,
        events: seq,
        chainHead: last,
        signedAt: 'T',
      };
      return { ...unsigned, kid: real.jwk.kid, signature: sign(null, headMessage(unsigned as never), real.privateKey).toString('base64url') } as never;
    };
    const anchor = anchorOf(whole, 30);
    const same = await verify(whole, { jwks: JWKS, anchor });
    expect(same.problems).toEqual([]);
    expect(same.coverage.anchor).toMatchObject({ seq: 30, compared: true });
    const older = buildExport({ events: 25 });
    expect(firstProblem(await verify(older, { jwks: JWKS, anchor }))).toMatch(
      /^anchor: the anchor \(signed T\) names event 30, but this export ends at event 25/,
    );
    // The operator rewrote event 12 and re-signed everything with the real key since the anchor.
    const rewritten = structuredClone(whole);
    rewritten[12]!['stored'].data = { ...rewritten[12]!['stored'].data, tampered: true };
    const { rechain } = await import('../../../../test/support/audit-tampering.js');
    rechain(rewritten, 12);
    const report = await verify(rewritten, { jwks: JWKS, anchor });
    expect(report.problems.map((p) => p.message).join('\n')).toMatch(/the anchor \(signed T\) signs another link for event 30/);
  });

  it('reports a rebuild that found the log changed since the v1 chain recorded it', async () => {
    const lines = buildExport();
    // In the exporter's order (audit-export.format.ts): legacy after chainHead, before linesDigest and signedAt.
    const { kid: _kid, signature: _signature, linesDigest: _digest, signedAt, ...before } = lines.at(-1)!;
    const unsigned: Line = { ...before, legacy: { chain: 'warden-audit-chain/v1', checked: 30, differs: 1, firstDiffers: 7 }, signedAt };
    lines[lines.length - 1] = signedHead(unsigned, lines.slice(0, -1));
    expect(firstProblem(await verify(lines))).toMatch(/1 event\(s\) no longer matched their v1 link, the first event 7/);
  });

  describe('the head\'s digest of the lines before it (linesDigest, docs/audit.md "Exporting")', () => {
    const withPersonal = buildExport({ personalData: true });
    const headLine = withPersonal.length;
    const at = withPersonal.findIndex((l) => l['personal'] !== undefined);
    const changedPersonal = (lines: readonly Line[]) => lines.map((l, i) => (i === at ? { ...l, personal: { data: { name: 'Someone Else' } } } : l));

    it('covers the plaintext personal fields of an export with personal data, as Warden wrote them at export', async () => {
      expect(withPersonal[at]!['personal']).toEqual({ data: { name: expect.stringMatching(/^Person \d+$/) } });
      const report = await verify(withPersonal);
      expect(report.problems).toEqual([]);
      expect(report.coverage).toMatchObject({ linesSigned: true, personalFields: 8 });
      // A change no link sees: only the digest, on the head's line, and nothing blamed above it.
      const changed = await verify(changedPersonal(withPersonal));
      expect(changed.ok).toBe(false);
      expect(changed.problems.map((p) => `line ${p.line}: ${p.message}`)).toEqual([
        `line ${headLine}: the lines before the head are not the ones the head signed: every chained value and copied field checks out, so what changed is what only the head's linesDigest covers: a plaintext personal field (\`personal\`, on 8 event line(s)) or the header's jwks: the file was changed after export`,
      ]);
      expect(changed.coverage.linesSigned).toBe(false);
    });

    it('counts every byte: a blank line, a carriage return, a header relabelled v2 are refused', async () => {
      const texts = withPersonal.map((l) => JSON.stringify(l));
      const blank = await verifyAuditExport([...texts.slice(0, 3), '', ...texts.slice(3)], { jwks: JWKS });
      expect(blank.problems.map((p) => `line ${p.line}: ${p.message}`)).toEqual([
        `line ${headLine + 1}: the lines before the head are not the ones the head signed: line(s) 4 are blank, which the exporter never writes: lines were added`,
      ]);
      const cr = await verifyAuditExport(
        texts.map((t, i) => (i === at ? `${t}\r` : t)),
        { jwks: JWKS },
      );
      // Named on its own line; the digest, which cannot name one, is then not reported as well.
      expect(cr.problems.map((p) => `line ${p.line}: ${p.message}`)).toEqual([
        expect.stringMatching(new RegExp(`^line ${at + 1}: event \\d+'s line is not what the exporter writes for its values: .*\\\\u000d`)),
      ]);
      // The head's format is signed and says it ends a v3 export: the header's, which is not, cannot drop the check.
      const relabelled = await verify([{ ...withPersonal[0]!, format: AUDIT_EXPORT_FORMAT_V2 }, ...changedPersonal(withPersonal).slice(1)]);
      expect(relabelled.problems.map((p) => `line ${p.line}: ${p.message}`)).toEqual([
        `line 1: the header reads ${AUDIT_EXPORT_FORMAT_V2}, but the signed head is of ${AUDIT_HEAD_FORMAT}, which ends an export of ${AUDIT_EXPORT_FORMAT}: the header was changed`,
      ]);
    });

    it('refuses a head of v2 without its digest, and one of v1 ending a v3 export, even signed so', async () => {
      const { linesDigest: _digest, ...stripped } = withPersonal.at(-1)!;
      const unsigned: Line = { ...stripped };
      delete unsigned.kid;
      delete unsigned.signature;
      const resigned = (head: Line) => [
        ...withPersonal.slice(0, -1),
        { ...head, kid: real.jwk.kid, signature: sign(null, headMessage(head as never), real.privateKey).toString('base64url') },
      ];
      expect(firstProblem(await verify(resigned(unsigned)))).toBe(
        `line ${headLine}: the signed head (${AUDIT_HEAD_FORMAT}) carries no linesDigest of the lines before it: it was changed`,
      );
      expect(firstProblem(await verify(resigned({ ...unsigned, format: AUDIT_HEAD_FORMAT_V1 })))).toBe(
        `line 1: the header reads ${AUDIT_EXPORT_FORMAT}, but the signed head is of ${AUDIT_HEAD_FORMAT_V1}, which ends an export of ${AUDIT_EXPORT_FORMAT_V2}: the header was changed`,
      );
    });

    it('verifies an export of format v2 (before linesDigest) as before: its personal fields are not covered', async () => {
      const old = buildExport({ format: 'v2', personalData: true });
      expect(old.at(-1)).not.toHaveProperty('linesDigest');
      const report = await verify(old);
      expect(report.problems).toEqual([]);
      expect(report.coverage).toMatchObject({ linesSigned: false, personalFields: 8 });
      // What the v2 head signs no digest of still passes changed, and the report says it is not covered.
      expect((await verify(changedPersonal(old))).problems).toEqual([]);
      // Every other tampering of the matrix still fails on a v2 export.
      const attacker = newAttacker();
      for (const tampering of TAMPERINGS.filter((t) => t.item !== 'lines')) {
        const tampered = tampering.apply(old, attacker);
        const report = await verify(tampered.lines, { jwks: tampering.item === 'jwks' ? forgedJwks(old, attacker) : JWKS });
        expect(firstProblem(report), tampering.name).toMatch(tampered.first);
      }
    });
  });

  it('refuses an export of the old format and a file without a header', async () => {
    expect(firstProblem(await verify([{ kind: 'header', format: 'warden-audit-export/v1' }]))).toMatch(/format warden-audit-export\/v1 \(before chain v2\)/);
    expect(firstProblem(await verify([]))).toMatch(/no header line/);
  });
});
