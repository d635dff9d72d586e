import { describe, expect, it } from 'vitest';
import { map_agent_event, map_router_event, type TurnSink } from './host_event_mapper.js';

/** A sink that keeps what was published. */
function sink(): TurnSink & { published: { type: string; payload: unknown }[] } {
  const published: { type: string; payload: unknown }[] = [];
  return {
    turn_id: 't1',
    published,
    delta: () => undefined,
    publish: (type, payload) => published.push({ type, payload }),
    usage: () => undefined,
  };
}

describe('map_agent_event', () => {
  it('maps what a budget says onto budget.notice', () => {
    const seen = sink();
    map_agent_event(
      { type: 'budget', level: 'warning', message: '80% spent', scope: 'session', used: 0.8 },
      seen,
    );
    map_agent_event({ type: 'budget_exhausted', turns_used: 3, max_turns: 3, grace: true }, seen);
    map_agent_event({ type: 'budget_exhausted', turns_used: 1, max_turns: 1, grace: false }, seen);
    expect(seen.published).toEqual([
      {
        type: 'budget.notice',
        payload: {
          turn_id: 't1',
          kind: 'spending',
          level: 'warning',
          message: '80% spent',
          scope: 'session',
        },
      },
      {
        type: 'budget.notice',
        payload: {
          turn_id: 't1',
          kind: 'turns',
          level: 'stop',
          message: 'used all 3 turns; asking for a final answer',
          max_turns: 3,
          grace: true,
        },
      },
      {
        type: 'budget.notice',
        payload: {
          turn_id: 't1',
          kind: 'turns',
          level: 'stop',
          message: 'used the 1 turn allowed',
          max_turns: 1,
          grace: false,
        },
      },
    ]);
  });
});

describe('map_router_event', () => {
  it('maps a retry and a move to the next provider onto provider.failover', () => {
    const seen = sink();
    map_router_event(
      {
        type: 'provider_retry',
        provider: 'openai',
        model: 'a',
        index: 0,
        attempt: 2,
        max_retries: 3,
        delay_ms: 500,
        reason: '429',
        error_kind: 'http',
        status: 429,
      },
      seen,
    );
    map_router_event(
      {
        type: 'provider_failover',
        from_provider: 'openai',
        from_model: 'a',
        from_index: 0,
        to_provider: 'anthropic',
        to_model: 'b',
        to_index: 1,
        reason: '401',
        error_kind: 'http',
        status: 401,
      },
      seen,
    );
    expect(seen.published.map((event) => event.payload)).toEqual([
      {
        turn_id: 't1',
        kind: 'retry',
        provider: 'openai',
        model: 'a',
        attempt: 2,
        delay_ms: 500,
        reason: '429',
      },
      {
        turn_id: 't1',
        kind: 'failover',
        provider: 'openai',
        model: 'a',
        to_provider: 'anthropic',
        to_model: 'b',
        reason: '401',
      },
    ]);
  });
});
