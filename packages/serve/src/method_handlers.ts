import type { TurnTicket } from '@lich/agent';
import type { Params } from './params.js';
import { DEFAULT_MAX_IMAGE_BYTES, read_prompt_images } from './prompt_images.js';
import {
  APPROVAL_MODES,
  type MethodName,
  type MethodResult,
  PERMISSION_OPTIONS,
  REWIND_CONFLICT_CHOICES,
  REWIND_SCOPES,
} from './protocol_methods.js';
import { RpcError } from './rpc_error.js';
import type { ServerConnection } from './server_connection.js';

/** Answers one method for one connection. Throws `RpcError` (or a host error) to refuse. */
type Handler<M extends MethodName> = (
  connection: ServerConnection,
  params: Params,
) => Promise<MethodResult<M>>;

type Handlers = { [M in Exclude<MethodName, 'initialize'>]: Handler<M> };

const NOTHING: Record<string, never> = {};

async function submit_prompt(
  connection: ServerConnection,
  params: Params,
): Promise<MethodResult<'prompt.submit'>> {
  const { core } = connection;
  const session_id = params.string('session_id');
  const images = read_prompt_images(
    'prompt.submit',
    params.raw('images'),
    core.limits.max_image_bytes ?? DEFAULT_MAX_IMAGE_BYTES,
  );
  // with pictures, the text may be empty (a screenshot says enough)
  const text = images.length === 0 ? params.string('text') : (params.optional_string('text') ?? '');
  const client_request_id = params.optional_string('client_request_id');
  const queue = params.optional_boolean('queue') ?? true;
  const attach_mentions = params.optional_boolean('attach_mentions') === true;
  const make = (): Promise<TurnTicket> =>
    // one session's prompts go to the host one at a time, so `queue: false` cannot race another
    core.in_session_order(session_id, async () => {
      if (!queue) {
        const info = await core.host.get(session_id);
        if (info.busy || info.queued > 0) {
          throw new RpcError('session_busy', `session ${session_id} has a run in flight`);
        }
      }
      return core.host.prompt(session_id, text, {
        ...(client_request_id === undefined ? {} : { client_request_id }),
        ...(attach_mentions ? { attach_mentions } : {}),
        ...(images.length === 0 ? {} : { images }),
      });
    });
  const ticket =
    client_request_id === undefined
      ? await make()
      : await core.tickets.get_or_make(session_id, client_request_id, make);
  return { turn_id: ticket.turn_id, queued: ticket.queued };
}

/**
 * What each method does with the host. `initialize` is the connection's own (it changes the
 * connection's state); every other method is here.
 */
export const METHOD_HANDLERS: Handlers = {
  ping: async () => NOTHING,
  'session.new': async (connection, params) => {
    const title = params.optional_string('title');
    const approval_mode = params.optional_choice('approval_mode', APPROVAL_MODES);
    return connection.core.host.create({
      ...(title === undefined ? {} : { title }),
      ...(approval_mode === undefined ? {} : { approval_mode }),
    });
  },
  'session.list': async (connection) => ({ sessions: await connection.core.host.list() }),
  'session.get': async (connection, params) =>
    connection.core.host.get(params.string('session_id')),
  'session.history': async (connection, params) => ({
    messages: await connection.core.host.history(params.string('session_id')),
  }),
  'session.load': async (connection, params) =>
    connection.core.host.load(params.string('session_id')),
  'session.close': async (connection, params) => {
    await connection.core.host.close(params.string('session_id'));
    return NOTHING;
  },
  'session.delete': async (connection, params) => {
    await connection.core.host.delete(params.string('session_id'));
    return NOTHING;
  },
  'session.set_title': async (connection, params) => {
    const session_id = params.string('session_id');
    await connection.core.host.set_title(session_id, params.string('title'));
    return NOTHING;
  },
  'session.set_model': async (connection, params) => {
    const session_id = params.string('session_id');
    await connection.core.host.set_model(session_id, params.string('model'));
    return NOTHING;
  },
  'session.set_approval_mode': async (connection, params) => {
    const session_id = params.string('session_id');
    const mode = params.choice('approval_mode', APPROVAL_MODES);
    await connection.core.host.set_approval_mode(session_id, mode);
    return NOTHING;
  },
  'session.rewind_points': async (connection, params) => ({
    points: await connection.core.host.rewind_points(params.string('session_id')),
  }),
  'session.rewind': async (connection, params) => {
    const session_id = params.string('session_id');
    const prompt = params.optional_count('prompt');
    const redo = params.optional_boolean('redo');
    const scope = params.optional_choice('scope', REWIND_SCOPES);
    const dry_run = params.optional_boolean('dry_run');
    const on_conflict = params.optional_choice('on_conflict', REWIND_CONFLICT_CHOICES);
    if (prompt === undefined && redo !== true) {
      throw new RpcError(
        'invalid_params',
        'session.rewind: prompt (a number) or redo: true is needed',
      );
    }
    // one at a time with the session's prompts, so a rewind never races a prompt just submitted
    return connection.core.in_session_order(session_id, () =>
      connection.core.host.rewind(session_id, {
        ...(prompt === undefined ? {} : { prompt }),
        ...(redo === undefined ? {} : { redo }),
        ...(scope === undefined ? {} : { scope }),
        ...(dry_run === undefined ? {} : { dry_run }),
        ...(on_conflict === undefined ? {} : { on_conflict }),
      }),
    );
  },
  'prompt.submit': submit_prompt,
  'run.abort': async (connection, params) => ({
    aborted: await connection.core.host.abort(params.string('session_id')),
  }),
  'run.interrupt': async (connection, params) => {
    const taken = await connection.core.host.interrupt(params.string('session_id'));
    return {
      aborted: taken.aborted,
      queued: taken.queued,
      // each picture as `prompt.submit` takes it, to be sent again
      queued_images: taken.queued_images.map((images) =>
        images.flatMap((image) =>
          image.data === undefined
            ? []
            : [
                {
                  media_type: image.media_type,
                  data: image.data,
                  ...(image.name === undefined ? {} : { name: image.name }),
                },
              ],
        ),
      ),
    };
  },
  'run.steer': async (connection, params) => {
    const session_id = params.string('session_id');
    await connection.core.host.steer(session_id, params.string('text'));
    return NOTHING;
  },
  'run.follow_up': async (connection, params) => {
    const session_id = params.string('session_id');
    const text = params.string('text');
    const attach_mentions = params.optional_boolean('attach_mentions') === true;
    const ticket = await connection.core.host.follow_up(
      session_id,
      text,
      attach_mentions ? { attach_mentions } : {},
    );
    return { turn_id: ticket.turn_id, queued: ticket.queued };
  },
  'events.subscribe': async (connection, params) => {
    const session_id = params.string('session_id');
    const after_seq = params.optional_count('after_seq');
    const epoch = params.optional_string('epoch');
    const can_approve = params.optional_boolean('can_approve') ?? true;
    const subscription = await connection.subscribe(session_id, {
      ...(after_seq === undefined ? {} : { after_seq }),
      ...(epoch === undefined ? {} : { epoch }),
      can_approve,
    });
    return {
      replayed: subscription.replayed,
      truncated: subscription.truncated,
      epoch: connection.core.host.epoch,
    };
  },
  'events.unsubscribe': async (connection, params) => ({
    unsubscribed: await connection.unsubscribe(params.string('session_id')),
  }),
  'permission.respond': async (connection, params) => {
    const request_id = params.string('request_id');
    const option = params.choice('option', PERMISSION_OPTIONS);
    const persist = params.optional_boolean('persist');
    const note = params.optional_string('note');
    const accepted = await connection.core.host.respond_permission(request_id, option, {
      ...(persist === undefined ? {} : { persist }),
      ...(note === undefined ? {} : { note }),
    });
    return { accepted };
  },
  'commands.list': async (connection, params) => ({
    commands: connection.core.host.commands(params.optional_string('session_id')),
  }),
  'command.run': async (connection, params) => {
    const session_id = params.string('session_id');
    const name = params.string('name').replace(/^\//, '');
    const args = params.optional_string('args');
    return connection.core.host.run_command(session_id, name, args);
  },
  'models.list': async (connection) => ({ models: connection.core.host.models() }),
  'tools.list': async (connection) => ({ tools: connection.core.host.tools() }),
};
