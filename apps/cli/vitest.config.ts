import { lich_project } from '../../vitest.shared.js';

// The end-to-end tests run the built `lich`; the global setup builds it when it is missing or
// older than its sources.
export default lich_project(import.meta.dirname, { globalSetup: ['test/build_cli.ts'] });
