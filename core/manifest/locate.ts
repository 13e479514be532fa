import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { QuarryError } from '../errors/quarry-error.js';
import type { ManifestSource } from './types.js';

/** File names looked for in a manifest directory, in this order: Quarry's own first, then Spice's. */
export const MANIFEST_FILE_NAMES = ['quarry.yaml', 'quarry.yml', 'spicepod.yaml', 'spicepod.yml'] as const;

/** A path is a manifest file, or a directory holding one of MANIFEST_FILE_NAMES. */
export async function locateManifest(givenPath: string): Promise<ManifestSource> {
  const absolute = path.resolve(givenPath);
  const found = await stat(absolute).catch(() => undefined);
  if (!found) {
    throw new QuarryError('MANIFEST_NOT_FOUND', `manifest path ${absolute} does not exist: pass a manifest file, or a directory holding ${MANIFEST_FILE_NAMES.join(', ')}`);
  }
  if (!found.isDirectory()) return { file: absolute, directory: path.dirname(absolute) };
  for (const name of MANIFEST_FILE_NAMES) {
    const candidate = path.join(absolute, name);
    const entry = await stat(candidate).catch(() => undefined);
    if (entry?.isFile()) return { file: candidate, directory: absolute };
  }
  throw new QuarryError(
    'MANIFEST_NOT_FOUND',
    `no manifest in directory ${absolute}: tried ${MANIFEST_FILE_NAMES.join(', ')}; create quarry.yaml there, or pass the manifest file's path`,
  );
}

/** Reads and parses the manifest YAML; a syntax error names the line and column. */
export async function readManifestDocument(file: string): Promise<{ document: unknown; warnings: string[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new QuarryError('MANIFEST_NOT_FOUND', `manifest ${file} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  const lines = new YAML.LineCounter();
  const parsed = YAML.parseDocument(text, { prettyErrors: true, uniqueKeys: true, lineCounter: lines });
  const first = parsed.errors[0];
  if (first) {
    const position = first.linePos?.[0];
    // yaml's message is "<what> at line L, column C:\n\n<excerpt with a caret>".
    const [headline, ...excerpt] = first.message.split('\n');
    const what = (headline ?? '').replace(/ at line \d+, column \d+:$/, '');
    const where = position ? ` at line ${position.line}, column ${position.col}` : '';
    const snippet = excerpt.filter((line) => line.trim() !== '').map((line) => `    ${line}`).join('\n');
    throw new QuarryError('MANIFEST_PARSE_ERROR', `manifest ${file} is not valid YAML${where}: ${what}${snippet ? `\n${snippet}` : ''}`, {
      details: { line: position?.line, column: position?.col },
    });
  }
  const warnings = parsed.warnings.map((warning) => `manifest ${file}: ${warning.message.split('\n')[0]}`);
  return { document: documentValue(parsed, lines, file), warnings };
}

/** The manifest as plain data; aliases that expand without bound (a "billion laughs" document) are a parse error naming the first alias. */
function documentValue(parsed: YAML.Document, lines: YAML.LineCounter, file: string): unknown {
  try {
    return parsed.toJS({ maxAliasCount: 1000 });
  } catch (error) {
    if (!(error instanceof ReferenceError) || !/alias/i.test(error.message)) throw error;
    let first: number | undefined;
    YAML.visit(parsed, {
      Alias(_key, node) {
        first ??= node.range?.[0];
      },
    });
    const position = first === undefined ? undefined : lines.linePos(first);
    const where = position ? ` at line ${position.line}, column ${position.col}` : '';
    throw new QuarryError('MANIFEST_PARSE_ERROR', `manifest ${file} is not valid YAML${where}: its aliases expand to more than 1000 copies (write the values out, or use fewer aliases)`, {
      details: { line: position?.line, column: position?.col },
    });
  }
}
