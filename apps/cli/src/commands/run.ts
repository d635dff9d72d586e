import type { ImagePart } from '@lich/core';
import { cli_approval } from '../approval.js';
import {
  AGENT_OPTIONS,
  CONTINUE_OPTIONS,
  check_session_flags,
  OUTPUT_OPTIONS,
  parse_command_args,
} from '../args.js';
import { load_cli_config, model_given } from '../cli_config.js';
import type { Command, CommandContext } from '../context.js';
import { costs_read } from '../costs_read.js';
import { execute_task } from '../execute_task.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { make_agent, report_no_provider } from '../make_agent.js';
import { output_settings } from '../output_settings.js';
import { newest_session } from '../session_ids.js';
import { format_bytes, read_stdin, STDIN_FIRST_BYTE_MS, with_stdin_context } from '../stdin.js';
import { stdin_kind } from '../stdin_kind.js';
import { UsageError } from '../usage_error.js';

/** The options `lich "task"` and `lich run` take. */
export const RUN_OPTIONS = {
  ...AGENT_OPTIONS,
  ...OUTPUT_OPTIONS,
  ...CONTINUE_OPTIONS,
  print: { type: 'boolean', short: 'p' },
  image: { type: 'string', short: 'i', multiple: true },
} as const;

/**
 * `lich "task"` / `lich run "task"`: one task, the answer on stdout, progress on stderr; piped
 * stdin is added as context (clamped to half the context window, with a warning).
 */
export const command_run: Command = async (context) => {
  const { values, positionals } = parse_command_args('run', context.argv, RUN_OPTIONS);
  check_session_flags('run', values);
  if (values.help) {
    context.io.stdout.write(`${help_text('run')}\n`);
    return EXIT.OK;
  }
  const output = output_settings('run', values);
  if (
    positionals.length === 0 &&
    output.format === 'text' &&
    values.print !== true &&
    (await stdin_kind(context.io)) === 'tty'
  ) {
    // `lich -m model`, `lich -c` on a terminal: the interactive session, with those options
    const { open_interactive } = await import('../interactive.js');
    return open_interactive(context);
  }
  const loaded = await load_cli_config(context, 'run', values, {
    detect_providers: true,
    agent_flags: true,
  });
  if (loaded === null) return EXIT.USAGE;
  const { config } = loaded;
  let input = positionals.join(' ').trim();
  if (context.io.env.LICH_NO_STDIN !== '1' && (await stdin_kind(context.io)) === 'data') {
    input = await add_stdin(context, input, config.context_window);
  }
  const resume = values.continue === true ? await newest_session(config.session_dir) : null;
  if (values.continue === true && resume === null) {
    context.warn(`no session to continue in ${config.session_dir}; starting a new one`);
  }
  if (input.trim() === '' && resume === null) {
    const version_hint =
      values.verbose === true ? ' (-v is --verbose; the version is lich -V)' : '';
    throw new UsageError(
      `no task given: lich "what to do" (or pipe it on stdin)${version_hint}`,
      'run',
    );
  }
  if (report_no_provider(context, config, model_given(context, values))) return EXIT.USAGE;
  const images = await read_images(
    context,
    [values.image ?? []].flat().filter((path): path is string => typeof path === 'string'),
  );
  const no_session = values['no-session'] === true;
  // a task whose costs nothing shows or records leaves the price catalog alone (`lich -c` with no
  // task goes on as a chat, which may show them)
  const agent = await make_agent(context, config, output, values.trust === true, {
    price_catalog: input.trim() === '' || costs_read({ no_session, output, config }),
  });
  // the agent's config: a repository's looser permissions.mode waits for trust
  const approval = await cli_approval(context, values, agent.config, 'run').catch(
    async (error: unknown) => {
      await agent.close();
      throw error;
    },
  );
  if (input.trim() === '') {
    // `lich -c` with no task: go on with the conversation, one line per message
    const { chat_loop } = await import('../chat_loop.js');
    try {
      return await chat_loop(context, {
        agent,
        ...(resume === null ? {} : { resume: resume.path }),
        no_session,
        command: 'run',
        show_reasoning: values['show-reasoning'] === true,
        approval_flags: values,
        output,
      });
    } finally {
      await agent.close();
    }
  }
  try {
    return await execute_task(context, {
      agent,
      input,
      images,
      ...(resume === null ? {} : { resume: resume.path }),
      no_session,
      command: 'run',
      output,
      show_reasoning: values['show-reasoning'] === true,
      approval,
    });
  } finally {
    await agent.close();
  }
};

/** The pictures of `--image` (repeatable), read before anything starts: a bad one is a usage error. */
async function read_images(
  context: CommandContext,
  paths: readonly string[],
): Promise<ImagePart[]> {
  if (paths.length === 0) return [];
  const { read_image_file } = await import('@lich/agent');
  const images: ImagePart[] = [];
  for (const path of paths) {
    try {
      images.push(await read_image_file(path, context.io.cwd));
    } catch (error) {
      throw new UsageError(
        `--image ${error instanceof Error ? error.message : String(error)}`,
        'run',
      );
    }
  }
  return images;
}

/**
 * The task with piped stdin added as context. Waits `LICH_STDIN_WAIT_MS` (default 2 s) for the
 * first byte: a caller that left stdin open and never writes to it gets a warning and the task
 * runs without it; with no task, the warning says lich waits on. Binary input is described, not
 * pasted; input over half the context window is clamped.
 */
async function add_stdin(
  context: CommandContext,
  task: string,
  context_window: number,
): Promise<string> {
  const wait = Number(context.io.env.LICH_STDIN_WAIT_MS);
  const first_byte_ms = Number.isInteger(wait) && wait > 0 ? wait : STDIN_FIRST_BYTE_MS;
  const seconds = `${first_byte_ms / 1000} s`;
  const has_task = task !== '';
  // Half the context window, at about 4 characters per token, leaves room to work.
  const piped = await read_stdin(context.io.stdin, Math.floor(context_window * 2), {
    first_byte_ms,
    keep_waiting: !has_task,
    on_silence: () =>
      context.warn(
        has_task
          ? `stdin is an open pipe but nothing came within ${seconds}; going on without it. To pass input, pipe it (cmd | lich "task"); to skip stdin, close it (lich "task" < /dev/null) or set LICH_NO_STDIN=1`
          : `no task given and nothing on stdin within ${seconds}; still waiting for the task on stdin (or give it as an argument: lich "task")`,
      ),
  });
  if (piped.binary) {
    context.warn(
      `stdin looks like binary data (${format_bytes(piped.bytes)}); it was not added to the task (lich reads text, as read_file does)`,
    );
    if (!has_task) {
      throw new UsageError(
        'no task given: stdin holds binary data; give the task as an argument',
        'run',
      );
    }
    return `${task}\n\n<stdin>\n(binary data, ${format_bytes(piped.bytes)}, not shown)\n</stdin>`;
  }
  if (piped.clamped) {
    context.warn(
      `stdin is ${format_bytes(piped.bytes)}; kept ${format_bytes(piped.text.length)} (its start and end) to fit the context window`,
    );
  }
  return with_stdin_context(task, piped.text);
}
