import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { registeredErrorCodes } from '../../core/errors/codes.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { renderErrorsDoc } from '../../scripts/generate-errors-doc.js';
import { repositoryRoot } from '../helpers/runtime.js';

test('docs/errors.md documents every error code and is up to date', (t) => {
  const doc = readFileSync(path.join(repositoryRoot, 'docs/errors.md'), 'utf8');
  for (const [code] of registeredErrorCodes()) t.true(doc.includes(`\`${code}\``), `${code} is missing from docs/errors.md`);
  t.is(doc, renderErrorsDoc(), 'docs/errors.md is stale: run node --import tsx scripts/generate-errors-doc.ts');
});

test('a QuarryError maps its code to HTTP and gRPC statuses and a JSON body', (t) => {
  const error = new QuarryError('TABLE_NOT_FOUND', 'table "x" does not exist');
  t.is(error.httpStatus, 400);
  t.is(error.grpcStatus, 5);
  t.deepEqual(error.toJSON(), { error: { code: 'TABLE_NOT_FOUND', message: 'table "x" does not exist' } });
  t.is(new QuarryError('NO_SUCH_CODE', 'x').httpStatus, 500, 'unknown codes fall back to INTERNAL statuses');
});
