/**
 * Terminal cell widths of text, so table borders line up with CJK text, emoji and
 * combining accents. Works per grapheme cluster (what a terminal draws as one symbol):
 * counting UTF-16 units or code points would put `é` (e + U+0301) at 2 and `👍🏽` at 4.
 */

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Emoji drawn two cells wide: those shown as emoji by default, or forced by VS16 (U+FE0F). */
const emojiPresentation = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F|\p{Regional_Indicator}{2}/u;
/** Clusters drawn as nothing: lone combining marks, format characters, zero-width spaces. */
const zeroWidth = /^[\p{Mn}\p{Me}\p{Cf}\u200B]+$/u;

/** Wide and fullwidth ranges of East Asian scripts (Unicode EastAsianWidth W and F). */
const wideRanges: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f], // Hangul Jamo initial consonants
  [0x2e80, 0x303e], // CJK radicals, Kangxi, ideographic description, CJK symbols
  [0x3041, 0x33ff], // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, CJK compatibility
  [0x3400, 0x4dbf], // CJK extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xa000, 0xa4cf], // Yi
  [0xa960, 0xa97f], // Hangul Jamo extended A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small form variants
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6], // fullwidth signs
  [0x1f200, 0x1f2ff], // enclosed ideographic supplement
  [0x20000, 0x2fffd], // CJK extensions B–F
  [0x30000, 0x3fffd], // CJK extension G and later
];

function isWideCodePoint(codePoint: number): boolean {
  for (const [low, high] of wideRanges) {
    if (codePoint < low) return false;
    if (codePoint <= high) return true;
  }
  return false;
}

/** Cells one grapheme cluster takes: 0, 1 or 2. */
export function graphemeWidth(cluster: string): number {
  const first = cluster.codePointAt(0);
  if (first === undefined) return 0;
  if (first < 0x20 || (first >= 0x7f && first < 0xa0)) return 0;
  if (zeroWidth.test(cluster)) return 0;
  if (emojiPresentation.test(cluster)) return 2;
  return isWideCodePoint(first) ? 2 : 1;
}

/** Cells the text takes in a terminal (one line of text: no newlines expected). */
export function displayWidth(text: string): number {
  // Plain ASCII is by far the common case; skip segmentation for it.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let width = 0;
  for (const { segment } of graphemes.segment(text)) width += graphemeWidth(segment);
  return width;
}

export const ELLIPSIS = '…';

/**
 * The text cut to at most `maxWidth` cells, ending in `…` when something was cut. Cuts
 * between grapheme clusters only, so a flag or accented letter is never split.
 */
export function truncateToWidth(text: string, maxWidth: number): string {
  if (displayWidth(text) <= maxWidth) return text;
  if (maxWidth <= 0) return '';
  const budget = maxWidth - 1; // one cell for the ellipsis
  let width = 0;
  let kept = '';
  for (const { segment } of graphemes.segment(text)) {
    const next = graphemeWidth(segment);
    if (width + next > budget) break;
    width += next;
    kept += segment;
  }
  return kept + ELLIPSIS;
}

/** The text padded with spaces to `width` cells, on the right (left-aligned) or the left. */
export function padToWidth(text: string, width: number, align: 'left' | 'right'): string {
  const padding = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'left' ? text + padding : padding + text;
}
