import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ENVELOPE_VERSIONS, ITEM_SUBMISSION_EVENT, readItemSubmissionEvent } from '#warden/inbound';
import { DEFAULT_MAX_ITEMS_PER_REQUEST } from '#warden/platform';

type Example = { name: string; payload: Record<string, unknown> };
type Schema = Record<string, unknown>;
interface AsyncApiDocument {
  asyncapi: string;
  channels: Record<string, { address: string; title: string }>;
  components: {
    messages: Record<string, { examples: Example[] }>;
    schemas: Record<string, Schema>;
  };
}

const document = parse(readFileSync(new URL('../docs/asyncapi.yaml', import.meta.url), 'utf8')) as AsyncApiDocument;

/** The document's schemas, each under its $ref, so that a payload can be checked as the document says. */
function validator(name: string) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  for (const [key, schema] of Object.entries(document.components.schemas)) ajv.addSchema(schema, `#/components/schemas/${key}`);
  return ajv.getSchema(`#/components/schemas/${name}`)!;
}

/** Whether the server's own envelope reader accepts it (items are ingestion's: the e2e publishes the example). */
const serverAccepts = (payload: unknown) => {
  try {
    readItemSubmissionEvent(payload);
    return true;
  } catch {
    return false;
  }
};

describe('AsyncAPI document of the inbound topic (docs/asyncapi.yaml)', () => {
  const envelope = validator('ItemSubmissionEvent');
  const examples = document.components.messages['itemSubmissionEvent']!.examples;

  it('is AsyncAPI 3.0 and names the topic of interface spec 6.1 on the per-organization subject', () => {
    expect(document.asyncapi).toBe('3.0.0');
    expect(document.channels['itemSubmissions']).toMatchObject({ address: 'warden.{orgId}.items', title: ITEM_SUBMISSION_EVENT });
    expect(document.channels['deadLetters']?.address).toBe('warden.{orgId}.items.dead-letter');
  });

  it("has examples that its schema and the server's envelope reader both accept", () => {
    expect(examples.length).toBeGreaterThan(0);
    for (const { name, payload } of examples) {
      expect(envelope(payload), `${name}: ${JSON.stringify(envelope.errors)}`).toBe(true);
      expect(serverAccepts(payload), name).toBe(true);
    }
  });

  it('agrees with the server on what an envelope is refused for', () => {
    const base = examples[0]!.payload;
    const variants: Array<[string, unknown]> = [
      ...['type', 'version', 'orgId', 'eventId', 'items'].map((member): [string, unknown] => [`without ${member}`, { ...base, [member]: undefined }]),
      ['another type', { ...base, type: 'ITEM_UPDATE' }],
      ['another version', { ...base, version: Math.max(...ENVELOPE_VERSIONS) + 1 }],
      ['an organization id with capitals', { ...base, orgId: 'Acme' }],
      ['an empty event id', { ...base, eventId: '' }],
      ['no items', { ...base, items: [] }],
      ['an unknown member', { ...base, item: [] }],
    ];
    for (const [what, payload] of variants) {
      const json = JSON.parse(JSON.stringify(payload)) as unknown;
      expect(envelope(json), what).toBe(false);
      expect(serverAccepts(json), what).toBe(false);
    }
  });

  it("publishes the items endpoint's default limit", () => {
    const items = (document.components.schemas['ItemSubmissionEvent']!['properties'] as Record<string, Schema>)['items']!;
    expect(items['maxItems']).toBe(DEFAULT_MAX_ITEMS_PER_REQUEST);
  });

  it('has dead-letter examples in the section 7 error body', () => {
    const errorBody = validator('ErrorBody');
    for (const { name, payload } of document.components.messages['deadLetter']!.examples) {
      expect(errorBody(payload), `${name}: ${JSON.stringify(errorBody.errors)}`).toBe(true);
    }
  });
});
