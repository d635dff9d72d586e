import { PERMISSION_OPTIONS } from '@lich/agent';
import { describe, expect, it } from 'vitest';
import { permission_answer, permission_request } from './permissions.js';
import { acp_stop_reason } from './stop_reason.js';
import { describe_tool_call } from './tool_display.js';

describe('permission_request', () => {
  it('offers the four answers with their ACP kinds and describes the call', () => {
    const args = { command: 'git push' };
    const params = permission_request(
      's1',
      {
        turn_id: 't1',
        request_id: 'r1',
        tool_call_id: 'c1',
        tool: 'terminal',
        args,
        title: 'terminal: git push',
        options: PERMISSION_OPTIONS,
      },
      describe_tool_call('terminal', args, '/w'),
    );
    expect(params).toEqual({
      sessionId: 's1',
      toolCall: {
        toolCallId: 'c1',
        title: 'terminal: git push',
        kind: 'execute',
        status: 'pending',
        locations: [],
        content: [],
        rawInput: args,
      },
      options: [
        { optionId: 'allow_once', name: 'Allow', kind: 'allow_once' },
        { optionId: 'allow_always', name: 'Always allow', kind: 'allow_always' },
        { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
        { optionId: 'reject_always', name: 'Always reject', kind: 'reject_always' },
      ],
    });
  });
});

describe('permission_answer', () => {
  it('takes the selected option; cancelled or unknown is reject_once', () => {
    const offered = PERMISSION_OPTIONS;
    expect(
      permission_answer({ outcome: { outcome: 'selected', optionId: 'allow_always' } }, offered),
    ).toBe('allow_always');
    expect(permission_answer({ outcome: { outcome: 'cancelled' } }, offered)).toBe('reject_once');
    expect(permission_answer({ outcome: { outcome: 'selected', optionId: 'sure' } }, offered)).toBe(
      'reject_once',
    );
    expect(
      permission_answer({ outcome: { outcome: 'selected', optionId: 'allow_always' } }, [
        'allow_once',
        'reject_once',
      ]),
    ).toBe('reject_once');
  });
});

describe('acp_stop_reason', () => {
  it('maps every turn ending; an error has none', () => {
    expect(acp_stop_reason('final')).toBe('end_turn');
    expect(acp_stop_reason('max_turns')).toBe('max_turn_requests');
    expect(acp_stop_reason('budget')).toBe('max_turn_requests');
    expect(acp_stop_reason('aborted')).toBe('cancelled');
    expect(acp_stop_reason('refusal')).toBe('refusal');
    expect(acp_stop_reason('error')).toBeUndefined();
  });
});
