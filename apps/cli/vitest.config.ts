import { lich_project } from '../../vitest.shared.js';

// The end-to-end tests run the built `lich`; the root config's global setup builds it once.
export default lich_project(import.meta.dirname);
