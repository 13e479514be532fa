/**
 * Writes docs/errors.md from the error code table (core/errors/codes.ts), so the doc and
 * the code cannot drift; test/core/errors.test.ts fails when a code is undocumented.
 *   node --import tsx scripts/generate-errors-doc.ts
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GRPC, registeredErrorCodes } from '../core/errors/codes.js';
// Plugins register their codes when their modules load: load the default bundle first.
import '../plugins/default-bundle.js';

const grpcNames = Object.fromEntries(Object.entries(GRPC).map(([name, value]) => [value, name]));

export function renderErrorsDoc(): string {
  const rows = registeredErrorCodes().map(([code, spec]) => `| \`${code}\` | ${spec.http} | ${grpcNames[spec.grpc]} | ${spec.description} |`);
  return `# Errors

Every error a user can see carries a stable code. HTTP routes answer with the code's status
and a JSON body:

\`\`\`json
{"error": {"code": "SQL_INVALID", "message": "Parser Error: syntax error at or near \\"SELEC\\""}}
\`\`\`

The Flight door answers with the gRPC status and the message. Start-up errors are printed
as \`error [CODE]: message\` and \`quarryd\` exits with status 1.

| code | HTTP | gRPC | meaning |
|---|---|---|---|
${rows.join('\n')}

This table is generated from \`core/errors/codes.ts\` by \`node --import tsx scripts/generate-errors-doc.ts\`.
`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const target = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/errors.md');
  writeFileSync(target, renderErrorsDoc());
  console.log(`wrote ${target}`);
}
