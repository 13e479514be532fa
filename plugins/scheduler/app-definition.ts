import { readFile } from 'node:fs/promises';
import YAML from 'yaml';

/**
 * The app definition a scheduler hands executors: its manifest as written, minus what
 * executors never use. `runtime.scheduler` goes (the state store and its credentials stay with
 * schedulers), and so do datasets that are not accelerated: in cluster mode every accelerated
 * dataset is partitioned, and the rest are read by schedulers only, so an executor needs
 * neither their connection parameters nor the secrets those name. Secret references stay
 * references (`${ secrets:NAME }`): each executor resolves them itself.
 */
export async function appDefinitionYaml(manifestFile: string): Promise<string> {
  const document = YAML.parseDocument(await readFile(manifestFile, 'utf8'));
  document.deleteIn(['runtime', 'scheduler']);
  const runtime = document.get('runtime');
  if (YAML.isMap(runtime) && runtime.items.length === 0) document.delete('runtime');
  const datasets = document.get('datasets');
  if (YAML.isSeq(datasets)) datasets.items = datasets.items.filter((item) => YAML.isMap(item) && item.getIn(['acceleration', 'enabled']) === true);
  return document.toString();
}
