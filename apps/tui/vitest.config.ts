import { lich_project } from '../../vitest.shared.js';

// Ink draws only its final frame when it believes it runs under CI (the `is-in-ci` check of
// `CI`); the frame tests emulate a person's terminal, so the workers say they are not in CI.
export default lich_project(import.meta.dirname, {
  env: { CI: 'false', CONTINUOUS_INTEGRATION: 'false' },
});
