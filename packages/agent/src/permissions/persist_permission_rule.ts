import { project_config_path, read_config_file, set_config_value } from '../config/config_file.js';

/**
 * Adds `rule` to `permissions.allow` (or `.deny`) of the project config
 * (`<work_dir>/.lich/config.json`), unless it is there already. Rejects with the config's error
 * when the file cannot be read or would not be valid, or on I/O failure.
 */
export async function persist_permission_rule(
  work_dir: string,
  effect: 'allow' | 'deny',
  rule: string,
): Promise<void> {
  const path = project_config_path(work_dir);
  const read = await read_config_file(path);
  if (!read.ok) throw read.error;
  const permissions = read.value?.permissions;
  const current =
    typeof permissions === 'object' && permissions !== null
      ? (permissions as Record<string, unknown>)[effect]
      : undefined;
  const rules = Array.isArray(current) ? [...current] : [];
  if (rules.includes(rule)) return;
  rules.push(rule);
  const written = await set_config_value(path, `permissions.${effect}`, rules);
  if (!written.ok) throw written.error;
}
