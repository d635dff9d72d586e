/**
 * `read_file`, `write_file`, `edit_file` and `terminal` going through the editor: the client's
 * `fs/*` (so unsaved buffers are read and written) and `terminal/*`. Each has the builtin's name,
 * description and parameters, and replaces it in the session's Agent.
 */
import {
  apply_exact_edit,
  builtin_tool,
  check_hardline,
  READ_FILE_DEFAULT_LIMIT,
  READ_FILE_MAX_LINE_CHARS,
  require_in_work_dir,
  TERMINAL_TIMEOUT_MS,
  type Tool,
  type ToolOutput,
  type ToolRunContext,
  unified_diff,
} from '@lich/tools';
import type { AcpClientPeer, ClientCapabilities, ClientTerminal } from './acp_sdk.js';

/** What the client tools are built from. */
export interface ClientToolsOptions {
  peer: AcpClientPeer;
  capabilities: ClientCapabilities;
  /** Run `terminal` in the client's terminal when it offers one (default false: Lich's own). */
  client_terminal?: boolean;
  /** Tells the editor which terminal shows a tool call's output. */
  on_terminal?: (session_id: string, tool_call_id: string, terminal_id: string) => Promise<void>;
  /**
   * Resolves once the editor was told of the tool call (its `tool_call` update was sent), so a
   * request the call makes of the client always comes after the call it belongs to.
   */
  announced?: (session_id: string, tool_call_id: string) => Promise<void>;
}

/** Bytes of terminal output the client keeps for one command. */
export const CLIENT_TERMINAL_OUTPUT_BYTES = 200_000;

interface ReadArgs {
  path: string;
  offset?: number;
  limit?: number;
}
interface WriteArgs {
  path: string;
  content: string;
}
interface EditArgs {
  path: string;
  old_text: string;
  new_text: string;
  replace_all?: boolean;
}
interface TerminalArgs {
  command: string;
  timeout_ms?: number;
}

function builtin<Args>(name: string): Tool<Args> {
  const tool = builtin_tool(name);
  if (tool === undefined) throw new Error(`client_tools: no builtin named '${name}'`);
  return tool as Tool<Args>;
}

/** The ACP session a tool call runs for (`session_id` in the run's tool context), if any. */
function session_of(context: ToolRunContext): string | undefined {
  const id = context.session_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * A tool with the builtin's name and schema whose calls go to `through_client` when the call
 * belongs to an ACP session, and to the builtin otherwise.
 */
function replace<Args>(
  name: string,
  through_client: (args: Args, context: ToolRunContext, session_id: string) => Promise<ToolOutput>,
  announced?: ClientToolsOptions['announced'],
): Tool<Args> {
  const original = builtin<Args>(name);
  return {
    ...original,
    async execute(args, context) {
      const session_id = session_of(context);
      if (session_id === undefined) return original.execute(args, context);
      if (announced !== undefined && typeof context.tool_call_id === 'string') {
        await announced(session_id, context.tool_call_id);
      }
      return through_client(args, context, session_id);
    },
  };
}

function count_lines(text: string): number {
  if (text === '') return 0;
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

function numbered(text: string, first: number): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line, index) => {
    const bare = line.endsWith('\r') ? line.slice(0, -1) : line;
    const shown =
      bare.length > READ_FILE_MAX_LINE_CHARS
        ? `${bare.slice(0, READ_FILE_MAX_LINE_CHARS)} …[line cut at ${READ_FILE_MAX_LINE_CHARS} characters]`
        : bare;
    return `${String(first + index).padStart(6)}\t${shown}`;
  });
}

async function read_through(
  peer: AcpClientPeer,
  args: ReadArgs,
  context: ToolRunContext,
  session_id: string,
): Promise<ToolOutput> {
  const guarded = await require_in_work_dir(context.work_dir, args.path);
  const first = args.offset ?? 1;
  const limit = args.limit ?? READ_FILE_DEFAULT_LIMIT;
  // one line more than asked, to tell whether the file goes on
  const text = await peer.read_text_file(
    { sessionId: session_id, path: guarded.path, line: first, limit: limit + 1 },
    context.signal,
  );
  const lines = numbered(text, first);
  if (lines.length === 0) {
    return first === 1
      ? '(empty file)'
      : { ok: false, output: `offset ${first} is past the end of '${args.path}'.` };
  }
  const more = lines.length > limit;
  const shown = lines.slice(0, limit);
  const last = first + shown.length - 1;
  let output = shown.join('\n');
  if (more) {
    output += `\n(lines ${first}-${last} shown; the file goes on: call read_file with offset=${last + 1} for more)`;
  }
  return output;
}

async function write_through(
  peer: AcpClientPeer,
  args: WriteArgs,
  context: ToolRunContext,
  session_id: string,
): Promise<ToolOutput> {
  const guarded = await require_in_work_dir(context.work_dir, args.path, { for_write: true });
  await peer.write_text_file(
    { sessionId: session_id, path: guarded.path, content: args.content },
    context.signal,
  );
  const lines = count_lines(args.content);
  const verb = guarded.exists ? 'Replaced' : 'Created';
  const bytes = Buffer.byteLength(args.content);
  return `${verb} ${guarded.relative} (${bytes} bytes, ${lines} line${lines === 1 ? '' : 's'}).`;
}

async function edit_through(
  peer: AcpClientPeer,
  args: EditArgs,
  context: ToolRunContext,
  session_id: string,
): Promise<ToolOutput> {
  const guarded = await require_in_work_dir(context.work_dir, args.path, { for_write: true });
  const before = await peer.read_text_file(
    { sessionId: session_id, path: guarded.path },
    context.signal,
  );
  const edit = apply_exact_edit(before, args);
  if (!edit.ok) return { ok: false, output: edit.message };
  const body = await unified_diff(guarded.relative, before, edit.after);
  context.signal.throwIfAborted();
  await peer.write_text_file(
    { sessionId: session_id, path: guarded.path, content: edit.after },
    context.signal,
  );
  const { count } = edit;
  return `Edited ${guarded.relative}: ${count} replacement${count === 1 ? '' : 's'}.\n${body}`;
}

async function settle_terminal(
  terminal: ClientTerminal,
  signal: AbortSignal,
  timeout_ms: number,
): Promise<'exited' | 'timed_out' | 'aborted'> {
  let timer: NodeJS.Timeout | undefined;
  let on_abort: (() => void) | undefined;
  const stopped = new Promise<'timed_out' | 'aborted'>((resolve) => {
    timer = setTimeout(() => resolve('timed_out'), timeout_ms);
    on_abort = () => resolve('aborted');
    if (signal.aborted) on_abort();
    else signal.addEventListener('abort', on_abort, { once: true });
  });
  try {
    const ending = await Promise.race([
      terminal.wait_for_exit().then(() => 'exited' as const),
      stopped,
    ]);
    if (ending !== 'exited') await terminal.kill().catch(() => undefined);
    return ending;
  } finally {
    clearTimeout(timer);
    if (on_abort) signal.removeEventListener('abort', on_abort);
  }
}

async function terminal_through(
  options: ClientToolsOptions,
  args: TerminalArgs,
  context: ToolRunContext,
  session_id: string,
): Promise<ToolOutput> {
  const refused = check_hardline(args.command);
  if (refused) return { ok: false, output: refused.message, error: `hardline: ${refused.rule}` };
  const timeout_ms = Math.min(args.timeout_ms ?? TERMINAL_TIMEOUT_MS, TERMINAL_TIMEOUT_MS);
  const terminal = await options.peer.create_terminal(
    {
      sessionId: session_id,
      command: 'bash',
      args: ['-c', `exec 2>&1; ${args.command}`],
      cwd: context.work_dir,
      outputByteLimit: CLIENT_TERMINAL_OUTPUT_BYTES,
    },
    context.signal,
  );
  try {
    if (options.on_terminal && typeof context.tool_call_id === 'string') {
      await options
        .on_terminal(session_id, context.tool_call_id, terminal.id)
        .catch(() => undefined);
    }
    const ending = await settle_terminal(terminal, context.signal, timeout_ms);
    const result = await terminal.output();
    const body = result.output === '' ? '(no output)' : result.output.replace(/\n$/, '');
    const cut = result.truncated ? '[the start of the output was cut]\n' : '';
    const status =
      ending === 'timed_out'
        ? `[timed out after ${timeout_ms} ms; the command was killed]`
        : ending === 'aborted'
          ? '[aborted; the command was killed]'
          : result.signal !== null
            ? `[killed by ${result.signal}]`
            : `[exit code ${result.exit_code}]`;
    const output = `${cut}${body}\n${status}`;
    if (ending === 'exited' && result.exit_code === 0) return { ok: true, output };
    return { ok: false, output, error: status.slice(1, -1) };
  } finally {
    await terminal.release().catch(() => undefined);
  }
}

/**
 * The tools to give a session's Agent in place of its builtins, for what the client offers:
 * `read_file` with `fs.readTextFile`; `write_file` with `fs.writeTextFile`; `edit_file` with both;
 * `terminal` with `terminal` and `client_terminal`. None when the client offers nothing.
 *
 * Contract: each tool keeps its builtin's name, description and parameters and the same path
 * guard (the work dir, symlinks resolved; no writes under `.git/` or `.lich/`); the terminal keeps
 * the hardline. A call outside an ACP session (no `session_id` in its context) runs the builtin.
 * A client error fails the call (`ok: false`), never the run.
 */
export function client_tools(options: ClientToolsOptions): Tool<never>[] {
  const { peer, capabilities, announced } = options;
  const can_read = capabilities.fs?.readTextFile === true;
  const can_write = capabilities.fs?.writeTextFile === true;
  const tools: Tool<never>[] = [];
  const add = <Args>(tool: Tool<Args>) => tools.push(tool as unknown as Tool<never>);
  if (can_read) {
    add(
      replace<ReadArgs>(
        'read_file',
        (args, context, id) => read_through(peer, args, context, id),
        announced,
      ),
    );
  }
  if (can_write) {
    add(
      replace<WriteArgs>(
        'write_file',
        (args, context, id) => write_through(peer, args, context, id),
        announced,
      ),
    );
  }
  if (can_read && can_write) {
    add(
      replace<EditArgs>(
        'edit_file',
        (args, context, id) => edit_through(peer, args, context, id),
        announced,
      ),
    );
  }
  if (capabilities.terminal === true && options.client_terminal === true) {
    add(
      replace<TerminalArgs>(
        'terminal',
        (args, context, id) => terminal_through(options, args, context, id),
        announced,
      ),
    );
  }
  return tools;
}
