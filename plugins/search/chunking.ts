import type { ChunkingConfig } from '../../core/manifest/sections/search-columns.js';

const WORD = /\S+/g;

/**
 * Cuts a text into pieces of `target_chunk_size` words, each repeating the last
 * `overlap_size` words of the one before. A chunk is a slice of the original text (its
 * spacing kept), trimmed when `trim_whitespace` is on. Without chunking the text is one piece.
 */
export function chunkText(text: string, chunking: ChunkingConfig | undefined): string[] {
  if (!chunking) return [text];
  const words = [...text.matchAll(WORD)].map((match) => ({ start: match.index, end: match.index + match[0].length }));
  if (words.length <= chunking.target_chunk_size) return [chunking.trim_whitespace ? text.trim() : text];
  const step = chunking.target_chunk_size - chunking.overlap_size;
  const chunks: string[] = [];
  for (let first = 0; first < words.length; first += step) {
    const last = Math.min(words.length, first + chunking.target_chunk_size) - 1;
    // Untrimmed, a chunk runs to the start of the next word, so the chunks cover the whole text.
    const end = chunking.trim_whitespace ? words[last]!.end : last + 1 < words.length ? words[last + 1]!.start : text.length;
    chunks.push(text.slice(first === 0 && !chunking.trim_whitespace ? 0 : words[first]!.start, end));
    if (last === words.length - 1) break;
  }
  return chunks;
}
