import { type RecordedOf, userOfSubject } from '#warden/kernel';
import type { AppealSubmitted, Appellant } from './appeal.events.js';

/**
 * The appellant of a recorded appeal. Once their personal data was erased the sealed `appealedBy`
 * is gone; the subject (`typeId:id`, the opaque ids only) still says who appealed.
 */
export function appellantOf(submitted: RecordedOf<AppealSubmitted>): Appellant {
  const { data } = submitted;
  const appellant = !submitted.metadata.personalDataRedacted && data.appealedBy ? data.appealedBy : userOfSubject(data.subject);
  return { id: appellant.id, typeId: appellant.typeId };
}
