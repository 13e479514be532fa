#!/usr/bin/env node
// The runtime. Built into dist/ by `npm install` (the prepare script); see README.
await import('../dist/cli/quarryd/main.js');
