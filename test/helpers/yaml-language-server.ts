import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * Red Hat's yaml-language-server (the YAML support of VS Code and most editors), driven as an
 * editor drives it: over the Language Server Protocol on stdio, with the manifest schema
 * configured for every document. Each text is opened as a document and its diagnostics are
 * awaited; only errors count (warnings and hints are style).
 */
export async function yamlLanguageServerErrors(schemaFile: string, texts: ReadonlyArray<{ name: string; text: string }>): Promise<Map<string, string[]>> {
  const entry = createRequire(import.meta.url).resolve('yaml-language-server/bin/yaml-language-server');
  const server = spawn(process.execPath, [entry, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const settings = { yaml: { validate: true, schemas: { [pathToFileURL(schemaFile).href]: '*.yaml' }, schemaStore: { enable: false } } };
  let buffer = Buffer.alloc(0);
  let nextId = 0;
  const replies = new Map<number, (message: unknown) => void>();
  const diagnostics = new Map<string, (list: Array<{ severity?: number; message: string }>) => void>();
  const send = (message: object) => {
    const text = JSON.stringify({ jsonrpc: '2.0', ...message });
    server.stdin.write(`Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  };
  const exited = new Promise<never>((_resolve, reject) => server.once('exit', (code) => reject(new Error(`yaml-language-server exited (${code})`))));
  server.stdout.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const headerEnd = buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, headerEnd).toString())?.[1]);
      if (buffer.length < headerEnd + 4 + length) return;
      const message = JSON.parse(buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString()) as { id?: number; method?: string; params?: { uri: string; diagnostics: Array<{ severity?: number; message: string }>; items?: unknown[] } };
      buffer = buffer.subarray(headerEnd + 4 + length);
      if (message.method === undefined && message.id !== undefined) {
        replies.get(message.id)?.(message);
        replies.delete(message.id);
      } else if (message.method === 'textDocument/publishDiagnostics') {
        diagnostics.get(message.params!.uri)?.(message.params!.diagnostics);
      } else if (message.id !== undefined) {
        // The server's own requests: the settings it asks for, nothing for the rest.
        send({ id: message.id, result: message.method === 'workspace/configuration' ? (message.params?.items ?? []).map(() => settings.yaml) : null });
      }
    }
  });
  const request = (method: string, params: object) => new Promise((resolve) => {
    const id = ++nextId;
    replies.set(id, resolve);
    send({ id, method, params });
  });
  try {
    await Promise.race([request('initialize', { processId: process.pid, rootUri: null, capabilities: { workspace: { configuration: true } } }), exited]);
    send({ method: 'initialized', params: {} });
    send({ method: 'workspace/didChangeConfiguration', params: { settings } });
    const errors = new Map<string, string[]>();
    for (const [index, { name, text }] of texts.entries()) {
      const uri = `file:///quarry-check/${index}/quarry.yaml`;
      const published = new Promise<Array<{ severity?: number; message: string }>>((resolve) => diagnostics.set(uri, resolve));
      send({ method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'yaml', version: 1, text } } });
      const list = await Promise.race([published, exited]);
      errors.set(name, list.filter((diagnostic) => diagnostic.severity === 1).map((diagnostic) => diagnostic.message));
    }
    return errors;
  } finally {
    server.kill();
  }
}
