#!/usr/bin/env node
// The client: `quarry sql`, `quarry status`, `quarry refresh`. Built into dist/ by `npm install`.
await import('../dist/cli/quarry/main.js');
