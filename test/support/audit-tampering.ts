import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { checkpointMessage, contentDigest, genesisLink, nextLink } from '../../libs/audit/src/chain/audit-chain.js';
import { headMessage, LinesDigest, okpThumbprint } from '../../libs/audit/src/export/audit-head.js';

/**
 * The tamper matrix (docs/audit.md, "Threat model"): every change an attacker might
 * make to an audit export, and what `audit verify` must say. Shared by the verifier's unit spec
 * (libs/audit/src/export/audit-verifier.spec.ts) and the e2e suite over a real server's export
 * (test/e2e/audit-tamper-matrix.e2e.spec.ts), so both hold the same list.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an export line of any event type, changed in place by path
export type Line = Record<string, any>;

export interface Attacker {
  readonly privateKey: KeyObject;
  readonly jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string };
}

export function newAttacker(): Attacker {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  return { privateKey, jwk: { kty: 'OKP', crv: 'Ed25519', x, kid: okpThumbprint(x) } };
}

export interface Tampered {
  readonly lines: Line[];
  /** The first problem verify reports, as `line N: message` (or `anchor: …`). */
  readonly first: RegExp;
  /** A line verify must not blame (an untouched one next to the change). */
  readonly notBlamed?: number;
}

export interface Tampering {
  readonly name: string;
  /**
   * What in docs/audit.md's "Threat model" catches it: 'links' (the chain's links and checkpoints),
   * 'copies' (the copied fields and the members outside the format), 'prefix' (the genesis),
   * 'tail' (the signed head's count and last event), 'signatures' (the head's and checkpoints'
   * signatures), 'jwks' (a kid that is not its key's thumbprint), 'credentials' (a credential's
   * digest), 'sequence' (sequence numbers and kinds), 'lines' (the head's linesDigest,
   * "Exporting"). The e2e suite runs each group as one test.
   */
  readonly item: 'links' | 'copies' | 'prefix' | 'tail' | 'signatures' | 'jwks' | 'credentials' | 'sequence' | 'lines';
  /** Applied to an export made with personal data (`--include-personal-data`), not the plain one. */
  readonly personalData?: true;
  readonly apply: (lines: readonly Line[], attacker: Attacker) => Tampered;
}

const copy = (lines: readonly Line[]): Line[] => structuredClone(lines) as Line[];
const isEvent = (l: Line) => l['kind'] === 'event';
const isCheckpoint = (l: Line) => isEvent(l) && l['type'] === 'AuditChainCheckpointed';
/** Index (0-based) of the events that are neither checkpoints nor next to one, away from both ends. */
const plainEvents = (lines: readonly Line[]) =>
  lines.flatMap((l, i) =>
    isEvent(l) && !isCheckpoint(l) && isEvent(lines[i - 1] ?? {}) && !isCheckpoint(lines[i + 1] ?? {}) && isEvent(lines[i + 1] ?? {}) ? [i] : [],
  );
const middle = (lines: readonly Line[]) => {
  const plain = plainEvents(lines);
  return plain[Math.floor(plain.length / 2)]!;
};
const firstEvent = (lines: readonly Line[]) => lines.findIndex(isEvent);
const lastEvent = (lines: readonly Line[]) => lines.findLastIndex(isEvent);
const headIndex = (lines: readonly Line[]) => lines.findIndex((l) => l['kind'] === 'head');
export const checkpointIndexes = (lines: readonly Line[]) => lines.flatMap((l, i) => (isCheckpoint(l) ? [i] : []));

/** The link of an export line after `previous`, as the chain computes it. */
export function lineLink(previous: string, l: Line): string {
  return nextLink(
    previous,
    l['position'],
    contentDigest({ id: l['id'], stream: l['stream'], revision: l['revision'], type: l['type'], data: l['stored'].data, metadata: l['stored'].metadata }),
  );
}

/** Every link from line `from` (0-based) on recomputed: the forger's re-chaining. */
export function rechain(lines: Line[], from: number): void {
  for (let i = from; i < lines.length; i++) {
    if (!isEvent(lines[i]!)) continue;
    const before = lines.slice(0, i).findLast(isEvent);
    const previous = before ? before['link'] : lines[0]!['previous'].link;
    lines[i]!['link'] = lineLink(previous, lines[i]!);
  }
}

/**
 * The head's linesDigest of the lines before it, written as the tests write a file (JSON.stringify,
 * which is the exporter's form for the lines an export was parsed from).
 */
export function linesDigestOf(lines: readonly Line[]): string {
  const digest = new LinesDigest();
  for (const l of lines) digest.add(JSON.stringify(l));
  return digest.digest();
}

/** The head made to match the (changed) lines and signed by the attacker's key. */
export function resignHead(lines: Line[], attacker: Attacker, kid = attacker.jwk.kid): void {
  const h = headIndex(lines);
  const events = lines.filter(isEvent);
  const last = events.at(-1);
  const head = lines[h]!;
  head['events'] = events.length;
  head['previous'] = lines[0]!['previous'];
  head['last'] = last ? { seq: last['seq'], position: last['position'], link: last['link'] } : null;
  // A forger re-making the head makes its digest match the changed lines too.
  if (head['linesDigest'] !== undefined) head['linesDigest'] = linesDigestOf(lines.slice(0, h));
  head['kid'] = kid;
  head['signature'] = sign(null, headMessage(head as never), attacker.privateKey).toString('base64url');
}

/** The first string inside a value changed (its first member's value when it holds none). */
const changedFirstString = (value: Line): boolean => {
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string') {
      value[k] = `${v} (changed)`;
      return true;
    }
    if (typeof v === 'object' && v !== null && changedFirstString(v as Line)) return true;
  }
  return false;
};

/** What verify says when the lines differ from the head's linesDigest and nothing else found the change. */
const onlyTheDigest = (head: number, what: string) =>
  new RegExp(
    `^line ${lineNo(head)}: the lines before the head are not the ones the head signed: every chained value and copied field checks out, so what changed is what only the head's linesDigest covers: .*${what}`,
  );

const mutate = (lines: readonly Line[], index: number, change: (l: Line) => void) => {
  const out = copy(lines);
  change(out[index]!);
  return out;
};
const lineNo = (index: number) => index + 1;

export const TAMPERINGS: readonly Tampering[] = [
  {
    name: 'a middle event’s stored data changed',
    item: 'links',
    apply: (lines) => {
      const i = middle(lines);
      return {
        lines: mutate(lines, i, (l) => (l['stored'].data = { ...l['stored'].data, tampered: true })),
        first: new RegExp(`^line ${lineNo(i)}: event \\d+ \\(.*\\) does not match its link: it was changed`),
      };
    },
  },
  {
    name: 'the first event changed',
    item: 'links',
    apply: (lines) => {
      const i = firstEvent(lines);
      // The genesis vouches for the link before it: only the first event itself can be to blame.
      return {
        lines: mutate(lines, i, (l) => (l['stored'].data = { ...l['stored'].data, tampered: true })),
        first: new RegExp(
          `^line ${lineNo(i)}: event 1 \\(.*\\) does not match its link: it was changed; the change lies in event 1 \\(line ${lineNo(i)}\\), right after the signed link at the genesis`,
        ),
      };
    },
  },
  {
    name: 'the last event changed',
    item: 'links',
    apply: (lines) => {
      const i = lastEvent(lines);
      return {
        lines: mutate(lines, i, (l) => (l['stored'].data = { ...l['stored'].data, tampered: true })),
        first: new RegExp(`^line ${lineNo(i)}: event \\d+ \\(.*\\) does not match its link`),
      };
    },
  },
  {
    name: 'a line removed',
    item: 'sequence',
    apply: (lines) => {
      const i = middle(lines);
      const seq = lines[i]!['seq'];
      const out = copy(lines).filter((_, j) => j !== i);
      // Reported as missing, not as a change of the (untouched) next event.
      return { lines: out, first: new RegExp(`^line ${lineNo(i)}: event ${seq} is missing after line ${lineNo(i - 1)}: removed`), notBlamed: lineNo(i) };
    },
  },
  {
    name: 'two lines swapped',
    item: 'sequence',
    apply: (lines) => {
      const i = middle(lines);
      const out = copy(lines);
      [out[i], out[i + 1]] = [out[i + 1]!, out[i]!];
      return {
        lines: out,
        first: new RegExp(
          `^line ${lineNo(i + 1)}: event ${lines[i]!['seq']} comes after event ${lines[i + 1]!['seq']} \\(line ${lineNo(i)}\\): lines were moved`,
        ),
      };
    },
  },
  {
    name: 'a line repeated',
    item: 'links',
    apply: (lines) => {
      const i = middle(lines);
      const out = copy(lines);
      out.splice(i + 1, 0, structuredClone(out[i]!));
      return {
        lines: out,
        first: new RegExp(`^line ${lineNo(i + 1)}: event ${lines[i]!['seq']} comes after event ${lines[i]!['seq']}|^line ${lineNo(i + 1)}: event \\d+ again`),
      };
    },
  },
  {
    name: 'an event’s kind corrupted',
    item: 'sequence',
    apply: (lines) => {
      const i = middle(lines);
      return {
        lines: mutate(lines, i, (l) => (l['kind'] = 'evant')),
        first: new RegExp(`^line ${lineNo(i)}: event ${lines[i]!['seq']}'s line reads kind "evant" instead of "event"`),
      };
    },
  },
  {
    name: 'an event’s kind set to "header"',
    item: 'sequence',
    apply: (lines) => {
      const i = middle(lines);
      return {
        lines: mutate(lines, i, (l) => (l['kind'] = 'header')),
        first: new RegExp(`^line ${lineNo(i)}: event ${lines[i]!['seq']}'s line reads kind "header"`),
      };
    },
  },
  {
    name: 'a relink: one event changed and its own link recomputed',
    item: 'sequence',
    apply: (lines) => {
      const i = middle(lines);
      const out = mutate(lines, i, (l) => (l['stored'].data = { ...l['stored'].data, tampered: true }));
      out[i]!['link'] = lineLink(out[i - 1]!['link'], out[i]!);
      // The break shows at the next line, which names the relinked one as a suspect.
      return {
        lines: out,
        first: new RegExp(
          `^line ${lineNo(i + 1)}: event \\d+ \\(.*\\) does not match its link: it was changed, or event ${lines[i]!['seq']} \\(line ${lineNo(i)}\\) was changed and its link recomputed`,
        ),
      };
    },
  },
  {
    name: 'a re-chained forgery: an event changed, every later link recomputed, the head re-signed with another key',
    item: 'signatures',
    apply: (lines, attacker) => {
      const i = middle(lines);
      const out = mutate(lines, i, (l) => (l['stored'].data = { ...l['stored'].data, tampered: true }));
      rechain(out, i);
      resignHead(out, attacker);
      const cp = checkpointIndexes(out).find((c) => c > i && out[c]!['stored'].data.seq >= lines[i]!['seq']);
      return {
        lines: out,
        first:
          cp === undefined
            ? /^line \d+: the signed head is signed by key .*, which the JWKS does not have/
            : new RegExp(
                `^line ${lineNo(cp)}: the checkpoint on line ${lineNo(cp)} signs another link for event \\d+ than line \\d+ has: events? .*changed and re-chained`,
              ),
      };
    },
  },
  {
    name: 'a re-chained forgery signed with the real kid and an attacker key in the JWKS',
    item: 'jwks',
    apply: (lines, attacker) => {
      const i = middle(lines);
      const out = mutate(lines, i, (l) => (l['stored'].data = { ...l['stored'].data, tampered: true }));
      rechain(out, i);
      const realKid = String(lines[headIndex(lines)]!['kid']);
      for (const c of checkpointIndexes(out)) {
        const data = out[c]!['stored'].data;
        if (data.seq < lines[i]!['seq']) continue;
        const at = out.find((l) => isEvent(l) && l['seq'] === data.seq)!;
        data.link = at['link'];
        data.signature = sign(null, checkpointMessage(String(lines[0]!['orgId']), data), attacker.privateKey).toString('base64url');
        data.kid = realKid;
        rechain(out, c);
      }
      resignHead(out, attacker, realKid);
      // The JWKS given to verify holds { kid: realKid, x: attacker's } (see forgedJwks).
      return {
        lines: out,
        first: new RegExp(
          `^line \\d+: the .* is signed by key ${realKid.replace(/[-]/g, '\\-')}, which the JWKS lists with another public key than its kid names`,
        ),
      };
    },
  },
  {
    name: 'top-level actor rewritten',
    item: 'copies',
    apply: (lines) => {
      const i = middle(lines);
      return {
        lines: mutate(lines, i, (l) => (l['actor'] = 'user:someone-else')),
        first: new RegExp(`^line ${lineNo(i)}: event \\d+'s actor reads "user:someone-else", but the chained form has`),
      };
    },
  },
  {
    name: 'top-level occurredAt rewritten',
    item: 'copies',
    apply: (lines) => {
      const i = middle(lines);
      return {
        lines: mutate(lines, i, (l) => (l['occurredAt'] = '2001-01-01T00:00:00.000Z')),
        first: new RegExp(`^line ${lineNo(i)}: event \\d+'s occurredAt reads "2001-01-01T00:00:00.000Z"`),
      };
    },
  },
  {
    name: 'position rewritten',
    item: 'copies',
    apply: (lines) => {
      const i = middle(lines);
      return {
        lines: mutate(lines, i, (l) => (l['position'] = l['position'] + 1)),
        first: new RegExp(`^line ${lineNo(i)}: event \\d+ \\(.*\\) does not match its link: it was changed`),
      };
    },
  },
  {
    name: 'a decoded `data` member added to a line',
    item: 'copies',
    apply: (lines) => {
      const i = middle(lines);
      return {
        lines: mutate(lines, i, (l) => (l['data'] = { decision: 'IGNORE' })),
        first: new RegExp(`^line ${lineNo(i)}: event \\d+ carries data, which the chain does not cover`),
      };
    },
  },
  {
    name: 'a member added inside `stored`, beside the chained data and metadata',
    item: 'copies',
    apply: (lines) => {
      const i = middle(lines);
      // The link covers `stored.data` and `stored.metadata` only: a third member is read, never chained.
      return {
        lines: mutate(lines, i, (l) => (l['stored'] = { ...l['stored'], decision: { action: 'IGNORE' } })),
        first: new RegExp(`^line ${lineNo(i)}: event \\d+'s stored carries decision beside data and metadata, which the chain does not cover`),
      };
    },
  },
  {
    name: 'the header’s orgId changed',
    item: 'signatures',
    apply: (lines) => ({
      lines: mutate(lines, 0, (l) => (l['orgId'] = 'another-org')),
      first: /^line 1: the header's previous link is not another-org's genesis link: the header was changed/,
    }),
  },
  {
    name: 'a dropped prefix: lines 2–k removed and the header’s previous set to line k’s link',
    item: 'prefix',
    apply: (lines) => {
      const k = middle(lines);
      const out = copy(lines);
      out[0]!['previous'] = { seq: out[k]!['seq'], link: out[k]!['link'] };
      out.splice(1, k);
      return {
        lines: out,
        first: /^line 1: a whole export \(from: null\) must start at .*'s genesis, but the header starts after event \d+: events 1–\d+ were removed/,
      };
    },
  },
  {
    name: 'the tail cut (the head and the last lines)',
    item: 'tail',
    apply: (lines) => {
      const out = copy(lines).slice(0, lastEvent(lines) - 1);
      return { lines: out, first: new RegExp(`^line ${out.length}: the export ends without its signed head: it was cut after line ${out.length}`) };
    },
  },
  {
    name: 'the last checkpoint cut with everything after it',
    item: 'tail',
    apply: (lines) => {
      const out = copy(lines).slice(0, checkpointIndexes(lines).at(-1)!);
      return { lines: out, first: new RegExp(`^line ${out.length}: the export ends without its signed head`) };
    },
  },
  {
    name: 'everything after line N cut',
    item: 'tail',
    apply: (lines) => {
      const out = copy(lines).slice(0, Math.ceil(lines.length / 2));
      return { lines: out, first: new RegExp(`^line ${out.length}: the export ends without its signed head: it was cut after line ${out.length}`) };
    },
  },
  {
    name: 'header only',
    item: 'tail',
    apply: (lines) => ({ lines: copy(lines).slice(0, 1), first: /^line 1: the export ends without its signed head: it was cut after line 1/ }),
  },
  {
    name: 'the tail cut and the head re-made to match, with the real kid',
    item: 'tail',
    apply: (lines, attacker) => {
      const out = copy(lines);
      const h = headIndex(out);
      out.splice(lastEvent(out) - 2, 3);
      resignHead(out, attacker, String(lines[h]!['kid']));
      // Two true answers: the attacker's signature, and a whole export short of the chain head it names.
      return {
        lines: out,
        first: /^line \d+: the signed head's signature does not verify with key|^line \d+: the export has no end time, so it runs to the chain's head/,
      };
    },
  },
  {
    name: 'the signed head’s event count changed',
    item: 'tail',
    apply: (lines) => {
      const h = headIndex(lines);
      return {
        lines: mutate(lines, h, (l) => (l['events'] = l['events'] - 1)),
        first: new RegExp(
          `^line ${lineNo(h)}: the head signs \\d+ event\\(s\\), the file holds|^line ${lineNo(h)}: the signed head's signature does not verify`,
        ),
      };
    },
  },
  ...[0, 1, 2].map((nth): Tampering => ({
    name: `checkpoint #${nth + 1}: its signed link changed`,
    item: 'links',
    apply: (lines) => {
      const c = checkpointIndexes(lines)[nth];
      if (c === undefined) throw new Error(`the export has fewer than ${nth + 1} checkpoints`);
      const out = mutate(lines, c, (l) => (l['stored'].data = { ...l['stored'].data, link: 'A'.repeat(43) }));
      return {
        lines: out,
        first: new RegExp(`^line ${lineNo(c)}: event \\d+ \\(AuditChainCheckpointed .*does not match its link|^line ${lineNo(c)}: the checkpoint`),
      };
    },
  })),
  {
    name: 'a checkpoint’s signature changed (and its link recomputed)',
    item: 'links',
    apply: (lines) => {
      const c = checkpointIndexes(lines)[0]!;
      const out = mutate(lines, c, (l) => (l['stored'].data = { ...l['stored'].data, signature: 'A'.repeat(86) }));
      rechain(out, c);
      return { lines: out, first: new RegExp(`^line ${lineNo(c)}: the checkpoint on line ${lineNo(c)}'s signature does not verify`) };
    },
  },
  {
    name: 'a plaintext personal field changed (an export made with personal data)',
    item: 'lines',
    personalData: true,
    apply: (lines) => {
      const i = lines.findIndex((l) => isEvent(l) && l['personal'] !== undefined);
      if (i < 0) throw new Error('no event with plaintext personal fields');
      // The chain covers the ciphertext only: the head's digest of the lines is what catches it.
      return {
        lines: mutate(lines, i, (l) => {
          if (!changedFirstString(l['personal'])) l['personal'][Object.keys(l['personal'])[0] ?? 'name'] = 'someone else';
        }),
        first: onlyTheDigest(headIndex(lines), 'a plaintext personal field'),
      };
    },
  },
  {
    name: 'the header’s jwks changed: a key of the attacker’s added',
    item: 'lines',
    apply: (lines, attacker) => ({
      lines: mutate(lines, 0, (l) => (l['jwks'] = { keys: [...l['jwks'].keys, attacker.jwk] })),
      first: onlyTheDigest(headIndex(lines), "the header's jwks"),
    }),
  },
  {
    name: 'a credential digest replaced by another',
    item: 'credentials',
    apply: (lines) => {
      const i = lines.findIndex((l) => isEvent(l) && l['stored'].data.passwordHash?.$sha256);
      if (i < 0) throw new Error('no event with a digested credential');
      return {
        lines: mutate(lines, i, (l) => (l['stored'].data.passwordHash = { $sha256: 'B'.repeat(43) })),
        first: new RegExp(`^line ${lineNo(i)}: event \\d+ \\(.*\\) does not match its link`),
      };
    },
  },
];

/** The key set an attacker hands the auditor: the real kid, the attacker's public key (item 5). */
export function forgedJwks(lines: readonly Line[], attacker: Attacker) {
  const realKid = String(lines[headIndex(lines)]!['kid']);
  return { keys: [{ ...attacker.jwk, kid: realKid }] };
}

export { genesisLink };
