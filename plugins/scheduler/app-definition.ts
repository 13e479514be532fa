import { readFile } from 'node:fs/promises';
import YAML from 'yaml';

/**
 * The app definition a scheduler hands executors: its manifest as written, minus
 * `runtime.scheduler` (the state store and its credentials stay with schedulers). Secret
 * references stay references (`${ secrets:NAME }`): each executor resolves them itself.
 */
export async function appDefinitionYaml(manifestFile: string): Promise<string> {
  const document = YAML.parseDocument(await readFile(manifestFile, 'utf8'));
  document.deleteIn(['runtime', 'scheduler']);
  const runtime = document.get('runtime');
  if (YAML.isMap(runtime) && runtime.items.length === 0) document.delete('runtime');
  return document.toString();
}
