/**
 * Per-subject data keys, kept outside the event log so that forgetting a key erases the
 * subject's personal data from immutable history (crypto-shredding, docs/architecture.md, "Personal data").
 */
export interface SubjectKey {
  readonly keyId: string;
  readonly key: Buffer;
}

export interface SubjectKeyStore {
  /** The subject's current key, created on first use. */
  keyFor(orgId: string, subjectId: string): Promise<SubjectKey>;
  /** The keys of these ids that still exist (forgotten ones are left out), in one look-up. */
  findMany(keyIds: readonly string[]): Promise<Map<string, Buffer>>;
  /** Forgets every key of the subject; returns how many were forgotten. */
  forget(orgId: string, subjectId: string): Promise<number>;
  /**
   * How many erasures have forgotten a key so far, in every process of the deployment (it only
   * grows): a state read before the count last moved may hold an erased subject's data
   * (the aggregate store reads it again).
   */
  erasures(): Promise<number>;
  close(): Promise<void>;
}

export const SUBJECT_KEY_STORE = Symbol('SubjectKeyStore');
