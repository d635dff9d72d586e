#!/usr/bin/env node
// The installed command: runs the built gateway (dist/, made by the build). A file of its own,
// committed, so that pnpm can link the command at install time, before any build.
import('../dist/bin.js');
