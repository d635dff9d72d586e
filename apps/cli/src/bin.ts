#!/usr/bin/env node
/**
 * `node dist/bin.js` works too: it runs the real executable, `bin.cjs` (see there). The package's
 * `bin` points at `bin.cjs` directly, which starts faster.
 */
import './bin.cjs';
