import type { HostEvent, SessionHost, SessionInfo } from '@lich/agent';
import { describe, expect, it } from 'vitest';
import type { AcpClientPeer, SessionNotification } from './acp_sdk.js';
import { AcpSession, type TurnEnd } from './acp_session.js';

function make() {
  const sent: SessionNotification[] = [];
  const peer = {
    update: async (notification: SessionNotification) => {
      sent.push(notification);
    },
  } as unknown as AcpClientPeer;
  const host = { commands: () => [] } as unknown as SessionHost;
  const info = {
    session_id: 's1',
    work_dir: import.meta.dirname,
    approval_mode: 'default',
    title: '',
  } as unknown as SessionInfo;
  const logs: string[] = [];
  const session = new AcpSession(host, info, { peer, log: (text) => logs.push(text) });
  return { session, sent, logs };
}

const end = (turn_id: string): TurnEnd => ({
  turn_id,
  stop_reason: 'final',
  usage: { input_tokens: 0, output_tokens: 0 },
  final: 'done',
  turns_used: 1,
});

const completed = (turn_id: string, seq: number) =>
  ({
    session_id: 's1',
    epoch: 'e',
    seq,
    type: 'turn.completed',
    payload: end(turn_id),
  }) as HostEvent;

describe('AcpSession', () => {
  it('gives a turn its end whether the end came before or after the wait', async () => {
    const { session } = make();
    session.receive(completed('t1', 1));
    await session.enqueue({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: '' },
    });
    expect(await session.turn_end('t1')).toMatchObject({ turn_id: 't1', final: 'done' });
    const waiting = session.turn_end('t2');
    session.receive(completed('t2', 2));
    expect(await waiting).toMatchObject({ turn_id: 't2' });
  });

  it('ends the waits left as aborted', async () => {
    const { session } = make();
    const waiting = session.turn_end('t1');
    session.end_waiters();
    expect(await waiting).toMatchObject({ stop_reason: 'aborted' });
  });

  it('sends updates in order, and wakes who waits for a tool call once its tool_call went out', async () => {
    const { session, sent } = make();
    let told = false;
    const announced = session.announced('c1').then(() => {
      told = true;
    });
    await session.enqueue({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: 'a' },
    });
    expect(told).toBe(false);
    await session.enqueue({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'read' });
    await announced;
    expect(sent.map((notification) => notification.update.sessionUpdate)).toEqual([
      'agent_message_chunk',
      'tool_call',
    ]);
    await session.announced('c1'); // already sent: at once
  });
});
