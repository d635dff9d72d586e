import type { Agent, ApprovalMode, Approver } from '@lich/agent';
import type { ImagePart, Message } from '@lich/core';
import type { SessionHandle } from '@lich/session';
import type { CliApproval } from './approval.js';
import type { CommandContext } from './context.js';
import { EXIT } from './exit_codes.js';
import { on_interrupt } from './interrupt.js';
import type { OutputSettings } from './output_settings.js';
import { ProgressView } from './progress.js';
import { type Pricer, RunReport } from './run_report.js';
import { StreamJsonWriter } from './stream_json.js';
import { unanswered } from './unanswered.js';

/** How one task is run by `execute_task`. */
export interface TaskOptions {
  agent: Agent;
  input: string;
  /** Pictures sent with `input` (`--image`, `@shot.png`). */
  images?: readonly ImagePart[];
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
  // the catalog loads here, for a run only: `lich --version` never pays for it
  const prices = await agent.price_book();
  const price: Pricer = (usage, provider, model) => prices.cost(usage, provider, model);
  const view = new ProgressView({
    price,
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
  const report = new RunReport(agent.config.providers[0], price);
  const session_path = session?.path ?? null;
  const stream =
    format === 'stream-json'
      ? new StreamJsonWriter(
          context.io.stdout,
          {
            session_id: session?.id ?? null,
            session_path,
            provider: report.provider,
            model: report.model,
          },
          price,
        )
      : undefined;
  try {
    const result = await agent.run({
      input: options.input,
      ...(options.images === undefined || options.images.length === 0
        ? {}
        : { images: options.images }),
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
      ...(options.approval === undefined
        ? {}
        : {
            approval_mode: options.approval.mode,
            // an approved plan moves the mode on for the next prompts of `lich chat` too
            on_approval_mode: (mode: ApprovalMode) => {
              if (options.approval !== undefined) options.approval.mode = mode;
            },
          }),
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
      const note = unanswered(outcome.stopped_reason, {
        budget: report.budget_stop ?? undefined,
        max_turns: agent.config.max_turns,
      });
      context.warn(note.warning);
      if (note.failed) return { code: EXIT.FAILURE, transcript: result.transcript };
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
    for (const hint of agent.failure_hints(error)) {
      context.say(context.err.dim(hint));
    }
    if (interrupt.signal.aborted) return { code: interrupt.exit_code, transcript: null };
    return { code: ConfigError.is_instance(error) ? EXIT.USAGE : EXIT.FAILURE, transcript: null };
  } finally {
    interrupt.dispose();
    view.stop();
  }
}

/** The approver with the progress spinner stopped while it asks. */
function pausing(view: ProgressView, approver: Approver): Approver {
  return (request, signal) => {
    view.stop();
    return approver(request, signal);
  };
}
