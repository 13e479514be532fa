/**
 * Words the full-text index leaves out, at build and at query time alike: the short English
 * list most search engines start from (Lucene's English analyzer). Without it, a query like
 * "a kitten" matches every text holding "a", and those matches outrank what the query means.
 */
export const STOP_WORDS: readonly string[] = [
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of', 'on', 'or',
  'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with',
];
