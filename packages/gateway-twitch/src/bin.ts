#!/usr/bin/env node
import { run_cli } from './twitch_platform.js';

run_cli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // everything is closed by now; a handle left open by a library must not keep the process
    setTimeout(() => process.exit(code), 2_000).unref();
  },
  (error: unknown) => {
    process.stderr.write(`lich-gateway-twitch: ${error instanceof Error ? error.stack : error}\n`);
    process.exit(1);
  },
);
