import type { AgentConfig } from '@lich/agent';
import type { CommandContext } from './context.js';
import { read_key } from './key_question.js';
import { stdin_kind } from './stdin_kind.js';

/**
 * Whether what the repository in the work dir ships (its hooks, command shell lines, skills'
 * `allowed-tools`) may act: `--trust` says yes for this run; else the answer kept for the folder
 * (`lich trust` / `lich untrust`, or an earlier question); else, on a terminal, and only when the
 * folder ships something that would act, one question whose answer is kept; else no. Off a
 * terminal nothing is asked: an unknown folder stays untrusted.
 */
export async function resolve_folder_trust(
  context: CommandContext,
  config: AgentConfig,
  trust_flag: boolean,
): Promise<boolean> {
  if (trust_flag) return true;
  const { folder_trust, repository_runnables, set_folder_trust } = await import('@lich/agent');
  const env = context.io.env;
  const known = await folder_trust(config.work_dir, env);
  if (known.state !== 'unknown') return known.state === 'trusted';
  const on_terminal = context.io.stderr.isTTY === true && (await stdin_kind(context.io)) === 'tty';
  if (!on_terminal) return false;
  const runnables = await repository_runnables(config, env);
  if (runnables.length === 0) return false;
  const { err } = context;
  context.say(
    `\n${err.yellow('?')} ${err.bold(`Trust ${config.work_dir}?`)} This folder ships what would run on its own:`,
  );
  for (const line of runnables) context.say(`    ${line}`);
  context.io.stderr.write(
    `  trust it? ${err.bold('y')}es · ${err.bold('N')}o (its skills are still listed; lich trust / lich untrust change this) › `,
  );
  const signal = new AbortController().signal;
  for (;;) {
    const key = await read_key(context.io.stdin, signal);
    if (key === null) {
      context.io.stderr.write('\n');
      return false;
    }
    if (key.ctrl && key.name === 'c') {
      context.io.stderr.write('\n');
      process.kill(process.pid, 'SIGINT');
      return false;
    }
    const answer = key.text.toLowerCase();
    const yes = answer === 'y';
    const no = answer === 'n' || key.name === 'return' || key.name === 'escape';
    if (!yes && !no) continue;
    context.io.stderr.write(`${yes ? 'y' : 'n'}\n`);
    await set_folder_trust(config.work_dir, yes ? 'trusted' : 'untrusted', env).catch(
      (error: unknown) =>
        context.warn(`the answer was not kept: ${error instanceof Error ? error.message : error}`),
    );
    return yes;
  }
}
