import { lich_project } from '../../vitest.shared.js';

export default lich_project(import.meta.dirname);
