import type { Agent, AgentConfig, Approver } from '@lich/agent';
import type { Message } from '@lich/core';
import type { SessionHandle } from '@lich/session';
import { type CliApproval, cli_approval } from '../approval.js';
import {
  AGENT_OPTIONS,
  CONTINUE_OPTIONS,
  check_session_flags,
  OUTPUT_OPTIONS,
  parse_command_args,
} from '../args.js';
import { load_cli_config, model_given } from '../cli_config.js';
import type { Command, CommandContext } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { on_interrupt } from '../interrupt.js';
import {
  BASE_URL_WITHOUT_KEY_HINT,
  MODEL_ALONE_HINT,
  NO_PROVIDER_MESSAGE,
} from '../no_provider.js';
import { type OutputSettings, output_settings } from '../output_settings.js';
import { ProgressView } from '../progress.js';
import { RunReport } from '../run_report.js';
import { newest_session } from '../session_ids.js';
import { format_bytes, read_stdin, STDIN_FIRST_BYTE_MS, with_stdin_context } from '../stdin.js';
import { stdin_kind } from '../stdin_kind.js';
import { StreamJsonWriter } from '../stream_json.js';
import { UsageError } from '../usage_error.js';
import { version } from '../version.js';

/** The options `lich "task"` and `lich run` take. */
export const RUN_OPTIONS = {
  ...AGENT_OPTIONS,
  ...OUTPUT_OPTIONS,
  ...CONTINUE_OPTIONS,
  print: { type: 'boolean', short: 'p' },
} as const;

/** How one task is run by `execute_task`. */
export interface TaskOptions {
  agent: Agent;
  input: string;
  history?: readonly Message[];
  /** The session to record into, or null for none. */
  session: SessionHandle | null;
  /** The format, `-q` and `-v`. */
  output: OutputSettings;
  show_reasoning: boolean;
  /** How tool calls are approved (absent: as the config says, else every call runs). */
  approval?: CliApproval;
  /** Run on this model (`model` or `provider/model`, as `/model` set it) instead of the chain's first. */
  model?: string;
}

/**
 * Prints the "no provider" lines when the chain is empty; returns whether it did.
 * `model_named` says `--model`/`LICH_MODEL` was set, for a hint on naming the kind with it.
 */
export function report_no_provider(
  context: CommandContext,
  config: AgentConfig,
  model_named = false,
): boolean {
  if (config.providers.length > 0) return false;
  context.say(`${context.err.red('lich:')} ${NO_PROVIDER_MESSAGE[0]}`);
  const base_url_alone =
    (context.io.env.OPENAI_BASE_URL ?? '') !== '' && (context.io.env.OPENAI_API_KEY ?? '') === '';
  context.say(
    model_named
      ? MODEL_ALONE_HINT
      : base_url_alone
        ? BASE_URL_WITHOUT_KEY_HINT
        : (NO_PROVIDER_MESSAGE[1] as string),
  );
  return true;
}

function error_text(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** How a task ended: the exit code and, when the run finished, the conversation after it. */
export interface TaskOutcome {
  code: number;
  transcript: Message[] | null;
}

/**
 * Runs one task with progress on stderr and the answer (or the `--json` document) on stdout.
 * Resolves with the exit code: 0 answered, 1 the model or provider failed, 2 a plugin could not
 * be loaded, 130 aborted; and the transcript to continue from. Never rejects for a failed run.
 */
export async function execute_task(
  context: CommandContext,
  options: TaskOptions,
): Promise<TaskOutcome> {
  const { agent, session } = options;
  const { format } = options.output;
  const view = new ProgressView({
    stdout: context.io.stdout,
    stderr: context.io.stderr,
    out: context.out,
    err: context.err,
    show_reasoning: options.show_reasoning,
    write_answer: format === 'text',
    quiet: options.output.quiet,
    verbose: options.output.verbose,
  });
  const interrupt = on_interrupt((text) => {
    view.stop();
    view.finish_line();
    context.say(context.err.yellow(text));
  });
  const report = new RunReport(agent.config.providers[0]);
  const session_path = session?.path ?? null;
  const stream =
    format === 'stream-json'
      ? new StreamJsonWriter(context.io.stdout, {
          session_id: session?.id ?? null,
          session_path,
          provider: report.provider,
          model: report.model,
        })
      : undefined;
  try {
    const result = await agent.run({
      input: options.input,
      ...(options.history === undefined ? {} : { history: options.history }),
      signal: interrupt.signal,
      session: session ?? false,
      ...(options.model === undefined ? {} : { model: options.model }),
      // an answer nobody watches stream (one JSON document, text into a pipe) can be re-asked
      // after a cut: nothing shown is repeated (C4)
      restartable_stream:
        format === 'json' || (format === 'text' && context.io.stdout.isTTY !== true),
      on_event: (event) => {
        report.listener(event);
        view.listener(event);
        stream?.listener(event);
      },
      ...(stream === undefined ? {} : { on_provider_event: stream.provider_listener }),
      ...(options.approval === undefined ? {} : { approval_mode: options.approval.mode }),
      ...(options.approval?.approver === undefined
        ? {}
        : { approver: pausing(view, options.approval.approver) }),
    });
    const { outcome } = result;
    const answered = (outcome.final ?? '').trim() !== '';
    const document = report.document({
      answer: outcome.final,
      stopped_reason: outcome.stopped_reason,
      session_path,
      tool_calls: view.tool_calls,
    });
    if (format === 'json') context.io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    stream?.end(document);
    if (outcome.stopped_reason === 'aborted') {
      if (interrupt.received !== 'SIGTERM') {
        context.say(
          context.err.yellow(`aborted${session_path ? `; session: ${session_path}` : ''}`),
        );
      }
      return { code: interrupt.exit_code, transcript: result.transcript };
    }
    if (!answered) {
      if (outcome.stopped_reason === 'budget') {
        context.warn(
          `the model gave no answer within ${turns_text(agent.config.max_turns)} (raise --max-turns)`,
        );
        return { code: EXIT.FAILURE, transcript: result.transcript };
      }
      context.warn('the model ended without an answer');
    }
    return { code: EXIT.OK, transcript: result.transcript };
  } catch (error) {
    view.stop();
    const { ConfigError } = await import('@lich/agent');
    const document = report.document({
      answer: null,
      stopped_reason: interrupt.signal.aborted ? 'aborted' : 'error',
      error: error_text(error),
      session_path,
      tool_calls: view.tool_calls,
    });
    if (format === 'json') context.io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    stream?.end(document);
    context.say(`${context.err.red('lich:')} ${error_text(error)}`);
    const { failure_hints } = await import('../failure_hints.js');
    for (const hint of failure_hints(error, agent.config.providers, context.io.env)) {
      context.say(context.err.dim(hint));
    }
    if (interrupt.signal.aborted) return { code: interrupt.exit_code, transcript: null };
    return { code: ConfigError.is_instance(error) ? EXIT.USAGE : EXIT.FAILURE, transcript: null };
  } finally {
    interrupt.dispose();
    view.stop();
  }
}

/** `the 1 turn allowed`, `the 5 turns allowed`. */
function turns_text(count: number): string {
  return `the ${count} turn${count === 1 ? '' : 's'} allowed`;
}

/** The approver with the progress spinner stopped while it asks. */
function pausing(view: ProgressView, approver: Approver): Approver {
  return (request, signal) => {
    view.stop();
    return approver(request, signal);
  };
}

/**
 * Builds the Agent for a command from loaded config: the CLI's version in sessions, warnings on
 * stderr.
 */
export async function make_agent(
  context: CommandContext,
  config: AgentConfig,
  output: { quiet: boolean } = { quiet: false },
): Promise<Agent> {
  const { Agent, missing_api_keys } = await import('@lich/agent');
  for (const warning of missing_api_keys(config.providers, context.io.env)) context.warn(warning);
  return new Agent({
    config,
    env: context.io.env,
    lich_version: version(),
    on_warning: (text) => context.warn(text),
    on_provider_event: (event) => {
      if (output.quiet) return;
      const line =
        event.type === 'provider_retry'
          ? `retry ${event.attempt} of ${event.max_retries} in ${event.delay_ms} ms: ${event.reason}`
          : `${event.reason}; trying ${event.to_provider} (${event.to_model})`;
      context.say(context.err.dim(line));
    },
  });
}

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
  const approval = await cli_approval(context, values, config, 'run');
  const agent = await make_agent(context, config, output);
  const { open_chat_session, chat_loop } = await import('./chat.js');
  const opened = await open_chat_session(context, agent, {
    ...(resume === null ? {} : { resume: resume.path }),
    no_session: values['no-session'] === true,
    command: 'run',
  });
  try {
    if (input.trim() === '') {
      // `lich -c` with no task: go on with the conversation, one line per message
      return await chat_loop(context, {
        agent,
        session: opened.session,
        history: opened.history,
        show_reasoning: values['show-reasoning'] === true,
        approval_flags: values,
        output,
      });
    }
    const outcome = await execute_task(context, {
      agent,
      input,
      history: opened.history,
      session: opened.session,
      output,
      show_reasoning: values['show-reasoning'] === true,
      approval,
    });
    return outcome.code;
  } finally {
    await opened.session?.close();
    await agent.close();
  }
};

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
