/**
 * Free text that people write into Warden — a reporter's or an appellant's reason, a moderator's
 * decision reason — holds at most this many characters (Unicode code points). A report's reason is
 * read back with up to a thousand others whenever its job is viewed, claimed or decided: without a
 * bound, reasons of a quarter of a megabyte made one job view hold 250-450 MB (docs/review.md,
 * "The job view").
 */
export const MAX_FREE_TEXT_LENGTH = 5_000;

/** Whether `text` has more than MAX_FREE_TEXT_LENGTH code points; costs at most that many steps. */
export function freeTextTooLong(text: string): boolean {
  if (text.length <= MAX_FREE_TEXT_LENGTH) return false;
  // Every code point is one or two UTF-16 units.
  if (text.length > 2 * MAX_FREE_TEXT_LENGTH) return true;
  let count = 0;
  for (const _ of text) if (++count > MAX_FREE_TEXT_LENGTH) return true;
  return false;
}

/** The first `max` code points of `text` (a pair is never split); reads no further than what it keeps. */
export function firstCodePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  let count = 0;
  while (end < text.length && count < max) {
    const unit = text.charCodeAt(end);
    const next = text.charCodeAt(end + 1);
    // A pair is a high surrogate followed by a low one; a lone surrogate is a code point of its own.
    end += unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
    count++;
  }
  return text.slice(0, end);
}
