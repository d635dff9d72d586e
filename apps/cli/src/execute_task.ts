import type {
  Agent,
  Approver,
  HostEventPayloads,
  LocalSessionHost,
  SessionInfo,
} from '@lich/agent';
import type { ImagePart } from '@lich/core';
import type { CliApproval } from './approval.js';
import { task_command } from './chat_commands.js';
import { open_chat_host } from './chat_session.js';
import { ChatTurns } from './chat_turns.js';
import type { CommandContext } from './context.js';
import { EXIT } from './exit_codes.js';
import type { OutputSettings } from './output_settings.js';
import { ProgressView } from './progress.js';
import { type Pricer, RunReport } from './run_report.js';
import { StreamJsonWriter } from './stream_json.js';

/** How one task is run by `execute_task`. */
export interface TaskOptions {
  agent: Agent;
  /** The task; its `@path` files are attached (a picture as itself). */
  input: string;
  /** Pictures sent with `input` (`--image`). */
  images?: readonly ImagePart[];
  /** The session to go on with, as given (`-c`, `lich sessions resume <id> "task"`). */
  resume?: string;
  /** `--no-session`: nothing is recorded. */
  no_session: boolean;
  /** The command, for usage errors (`run`, `sessions`). */
  command: string;
  /** The format, `-q` and `-v`. */
  output: OutputSettings;
  show_reasoning: boolean;
  /** How tool calls are approved. */
  approval: CliApproval;
}

function error_text(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs one task as a one-message chat of a `SessionHost` (the runtime of `lich chat`, the TUI and
 * `lich serve`), with progress on stderr and the answer (or the `--json` / `stream-json` output,
 * built from the run's own events) on stdout. A task that names a slash command of the host's
 * registry runs it (`task_command`): a custom command's prompt is the task, another command's
 * output the answer. Resolves with the exit code: 0 answered, 1 the model or provider failed, 2
 * the config (a plugin) could not be loaded, 130 aborted (Ctrl+C), 143 terminated; never rejects
 * for a failed run. Rejects with a `UsageError` for a session to resume it cannot find. The host's
 * shutdown closes the agent.
 */
export async function execute_task(context: CommandContext, options: TaskOptions): Promise<number> {
  const { agent } = options;
  const { format } = options.output;
  // each model call is priced at its end, once the run has loaded the prices
  const price: Pricer = agent.cost_of.bind(agent);
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
  const report = new RunReport(agent.config.providers[0], price);
  const ask = options.approval.approver;
  const approver: Approver | undefined =
    ask === undefined
      ? undefined
      : (request, signal) => {
          view.stop();
          return ask(request, signal);
        };
  let stream: StreamJsonWriter | undefined;
  let session_path: string | null = null;
  /** Writes the end of the run: the `--json` document, or stream-json's last line. */
  const finish = (fields: Parameters<RunReport['document']>[0]): void => {
    const document = report.document(fields);
    if (format === 'json') context.io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    stream?.end(document);
  };
  /** Says a failure no turn reported (the host could not open, the prompt was refused). */
  const failed = async (error: unknown): Promise<number> => {
    view.stop();
    finish({ answer: null, stopped_reason: 'error', error: error_text(error), session_path });
    context.say(`${context.err.red('lich:')} ${error_text(error)}`);
    for (const hint of agent.failure_hints(error)) context.say(context.err.dim(hint));
    return (await is_config_error(error)) ? EXIT.USAGE : EXIT.FAILURE;
  };
  let opened: { host: LocalSessionHost; session: SessionInfo };
  try {
    // a plugin that cannot be loaded stops the task before a session is opened for it
    await agent.prepare_plugins();
    opened = await open_chat_host(context, agent, {
      ...(options.resume === undefined ? {} : { resume: options.resume }),
      no_session: options.no_session,
      command: options.command,
      approval_mode: options.approval.mode,
      ...(approver === undefined ? {} : { approver }),
      // an answer nobody watches stream (one JSON document, text into a pipe) can be re-asked
      // after a cut: nothing shown is repeated (C4)
      restartable_stream:
        format === 'json' || (format === 'text' && context.io.stdout.isTTY !== true),
      // a task that runs no command ends without waiting on the sandbox's look-up
      probe_sandbox: false,
    });
  } catch (error) {
    const { UsageError } = await import('./usage_error.js');
    if (error instanceof UsageError) throw error;
    return failed(error);
  }
  const { host, session } = opened;
  try {
    session_path = session.path;
    if (format === 'stream-json') {
      stream = new StreamJsonWriter(
        context.io.stdout,
        {
          session_id: session.path === null ? null : session.session_id,
          session_path,
          provider: report.provider,
          model: report.model,
        },
        price,
      );
    }
    const turns = new ChatTurns(context, host, session, view, {
      interactive: false,
      quiet: options.output.quiet,
      max_turns: agent.config.max_turns,
    });
    let ended: HostEventPayloads['turn.completed'] | undefined;
    await host.subscribe(session.session_id, (event) => {
      turns.listener(event);
      if (event.type === 'turn.completed') ended = event.payload;
      // a child's usage holds its own children's, which complete at the next depth
      if (event.type === 'subagent.completed' && event.payload.depth === 1) {
        report.subagent_ended(event.payload.usage, event.payload.cost_usd);
      }
    });
    // `lich "/review src"`: the task names a slash command of the registry the chat has
    const command = await task_command(options.input, host, session.session_id);
    if (command?.kind === 'done') {
      finish({
        answer: command.ok ? command.output : null,
        stopped_reason: command.ok ? 'final' : 'error',
        ...(command.ok ? {} : { error: command.output }),
        session_path,
      });
      if (!command.ok) context.say(`${context.err.red('lich:')} ${command.output}`);
      else if (format === 'text' && command.output !== '') {
        context.io.stdout.write(`${command.output}\n`);
      }
      // nothing was said in a session opened for it: it leaves no file behind
      if (options.resume === undefined && session.path !== null) {
        await host.delete(session.session_id);
      }
      return command.ok ? EXIT.OK : EXIT.FAILURE;
    }
    let thrown: unknown;
    try {
      // `@path` in the task attaches the file, a picture as itself (C31, #35)
      await host.prompt(session.session_id, command?.text ?? options.input, {
        attach_mentions: true,
        ...(options.images === undefined ? {} : { images: options.images }),
        observer: {
          on_event: (event) => {
            report.listener(event);
            stream?.listener(event);
          },
          ...(stream === undefined ? {} : { on_provider_event: stream.provider_listener }),
          on_error: (error) => {
            thrown = error;
          },
        },
      });
    } catch (error) {
      return await failed(error);
    }
    const settled = await turns.settle();
    finish({
      answer: ended?.final ?? null,
      stopped_reason: ended?.stop_reason ?? 'aborted',
      ...(ended?.error === undefined ? {} : { error: ended.error }),
      session_path,
    });
    if (settled.interrupted) return settled.code;
    if (thrown !== undefined && (await is_config_error(thrown))) return EXIT.USAGE;
    return turns.failed ? EXIT.FAILURE : EXIT.OK;
  } finally {
    view.stop();
    await host.shutdown({ deadline_ms: 2000 });
  }
}

/** A config error (a plugin that could not be loaded): exit 2, as a usage error. */
async function is_config_error(error: unknown): Promise<boolean> {
  const { ConfigError } = await import('@lich/agent');
  return ConfigError.is_instance(error);
}
