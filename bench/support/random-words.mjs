// Words in a seeded random order (bench/long-text-regex.mjs, the RegexPool's spec): RE2 keeps few
// cached states on a repeating text and scans it for next to nothing, so a costly pattern's cost
// shows only on text like this. The words include the costly pattern's first alternatives.
const WORDS = ['free', 'money', 'win', 'lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'do'];

/** `length` characters of words (a linear congruential sequence from `seed`), separated by spaces. */
export function randomWords(length, seed = 1) {
  const words = [];
  for (let size = 0; size < length; size += words.at(-1).length + 1) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    words.push(WORDS[seed % WORDS.length]);
  }
  return words.join(' ').slice(0, length);
}
