import type { AgentConfig } from '@lich/agent';
import type { OutputSettings } from './output_settings.js';

/**
 * Whether anything a task's run shows or records reads what its model calls cost: the session
 * file, `--json` and `stream-json`, `-v`'s line per call, a budget (it prices each call before
 * making it). When nothing does (`--no-session`, text output without `-v`, no budget), the agent
 * is built without the price catalog (`price_catalog: false`), whose import costs some 40 ms of
 * CPU and 10 MiB of peak memory in every run.
 */
export function costs_read(task: {
  no_session: boolean;
  output: OutputSettings;
  config: AgentConfig;
}): boolean {
  const { budget } = task.config;
  const budgeted = Object.values(budget).some((limit) => limit !== undefined);
  return !task.no_session || task.output.format !== 'text' || task.output.verbose || budgeted;
}
