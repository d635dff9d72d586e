import { describe, expect, it } from 'vitest';
import type { ApprovalMode, PermissionOption } from '../host/session_host_types.js';
import {
  type Approver,
  create_permission_gate,
  type PermissionDecision,
  type PermissionRequest,
} from './permission_gate.js';
import { PermissionPolicy, remembered_answers } from './permission_policy.js';

const WORK = '/work/project';
const PUSH = { command: 'git push origin main' };

function setup(
  options: { answers?: PermissionOption[]; mode?: ApprovalMode; approver?: boolean } = {},
) {
  const asked: PermissionRequest[] = [];
  const decisions: PermissionDecision[] = [];
  const persisted: string[] = [];
  const answers = [...(options.answers ?? [])];
  const approver: Approver = async (request) => {
    asked.push(request);
    return { option: answers.shift() ?? 'reject_once', persist: true };
  };
  const remembered = remembered_answers();
  const gate = create_permission_gate({
    policy: new PermissionPolicy({ deny: ['terminal(rm *)'] }, WORK),
    mode: () => options.mode ?? 'default',
    remembered,
    approver: () => (options.approver === false ? null : approver),
    on_decision: (decision) => decisions.push(decision),
    persist: async (effect, rule) => {
      persisted.push(`${effect}:${rule}`);
    },
  });
  return { gate, asked, decisions, persisted, remembered };
}

describe('permission gate', () => {
  it('asks, and runs the call when the person allows it once', async () => {
    const { gate, asked, decisions } = setup({ answers: ['allow_once', 'allow_once'] });
    expect(await gate.check('terminal', PUSH, { tool_call_id: 'c1' })).toEqual({ ok: true });
    expect(asked[0]).toMatchObject({
      tool: 'terminal',
      tool_call_id: 'c1',
      title: 'terminal: git push origin main',
      options: ['allow_once', 'allow_always', 'reject_once', 'reject_always'],
    });
    expect(await gate.check('terminal', PUSH, {})).toEqual({ ok: true });
    expect(asked).toHaveLength(2);
    expect(decisions[0]).toMatchObject({
      decision: 'allow',
      source: 'approver',
      option: 'allow_once',
    });
  });

  it('blocks a rejected call with a reason the model can act on', async () => {
    const { gate, decisions } = setup({ answers: ['reject_once'] });
    const verdict = await gate.check('terminal', PUSH, {});
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toMatch(/declined terminal: git push origin main/);
    expect(decisions[0]).toMatchObject({
      decision: 'deny',
      source: 'approver',
      option: 'reject_once',
    });
  });

  it('remembers allow_always for the session, and persists it when asked', async () => {
    const { gate, asked, persisted, decisions } = setup({ answers: ['allow_always'] });
    expect((await gate.check('terminal', PUSH, {})).ok).toBe(true);
    expect((await gate.check('terminal', { command: 'git  push origin main' }, {})).ok).toBe(true);
    expect(asked).toHaveLength(1);
    expect(persisted).toEqual(['allow:terminal(git push origin main)']);
    expect(decisions[1]).toMatchObject({ decision: 'allow', source: 'session' });
    // another command still asks
    await gate.check('terminal', { command: 'git push --force' }, {});
    expect(asked).toHaveLength(2);
  });

  it('remembers reject_always', async () => {
    const { gate, asked } = setup({ answers: ['reject_always'] });
    expect((await gate.check('terminal', PUSH, {})).ok).toBe(false);
    const again = await gate.check('terminal', PUSH, {});
    expect(again.ok).toBe(false);
    expect(asked).toHaveLength(1);
  });

  it('denies an ask with no approver, saying how to allow it', async () => {
    const { gate, decisions } = setup({ approver: false });
    const verdict = await gate.check('terminal', PUSH, {});
    expect(verdict.ok).toBe(false);
    const reason = verdict.ok ? '' : verdict.reason;
    expect(reason).toContain('needs approval, and no one is here to approve it');
    expect(reason).toContain('"terminal(git push origin main)"');
    expect(reason).toContain('"permissions": { "allow": [...] }');
    expect(reason).toContain('--yolo');
    expect(decisions[0]).toMatchObject({ decision: 'deny', source: 'no_approver' });
    const edit = await gate.check('write_file', { path: 'a.md', content: '' }, {});
    expect(edit.ok ? '' : edit.reason).toContain('--approval-mode auto_edit');
  });

  it('never asks about a deny rule, nor about reads, nor in yolo', async () => {
    const { gate, asked } = setup({ mode: 'yolo' });
    const denied = await gate.check('terminal', { command: 'rm -rf build' }, {});
    expect(denied.ok ? '' : denied.reason).toMatch(
      /denied by the permission rule "terminal\(rm \*\)"/,
    );
    expect((await gate.check('terminal', PUSH, {})).ok).toBe(true);
    expect((await gate.check('read_file', { path: 'a' }, {})).ok).toBe(true);
    expect(asked).toHaveLength(0);
  });

  it('counts an abort while waiting as cancelled', async () => {
    const controller = new AbortController();
    const decisions: PermissionDecision[] = [];
    const gate = create_permission_gate({
      policy: new PermissionPolicy(undefined, WORK),
      mode: () => 'default',
      remembered: remembered_answers(),
      approver: () => (_request, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => resolve({ option: 'cancelled' })),
        ),
      on_decision: (decision) => decisions.push(decision),
    });
    const pending = gate.check('terminal', PUSH, { signal: controller.signal });
    controller.abort();
    const verdict = await pending;
    expect(verdict.ok).toBe(false);
    expect(decisions[0]).toMatchObject({ option: 'cancelled', decision: 'deny' });
  });

  it("skips the mode's question when a PreToolUse hook allows, never a deny rule", async () => {
    const { gate, asked, decisions } = setup();
    expect(await gate.check('terminal', PUSH, { hook: 'allow' })).toEqual({ ok: true });
    expect(asked).toHaveLength(0);
    expect(decisions[0]).toMatchObject({ decision: 'allow', source: 'hook' });
    const denied = await gate.check('terminal', { command: 'rm -rf src' }, { hook: 'allow' });
    expect(denied.ok).toBe(false);
    expect(decisions[1]).toMatchObject({ decision: 'deny', source: 'rule' });
  });

  it('does not let a hook allow past an ask rule or a plan approval', async () => {
    const asked: PermissionRequest[] = [];
    const gate = create_permission_gate({
      policy: new PermissionPolicy({ ask: ['terminal(git push*)'] }, WORK),
      mode: () => 'default',
      remembered: remembered_answers(),
      approver: () => async (request) => {
        asked.push(request);
        return { option: 'reject_once' };
      },
    });
    expect((await gate.check('terminal', PUSH, { hook: 'allow' })).ok).toBe(false);
    expect(asked).toHaveLength(1);
    const plan = setup({ mode: 'plan' });
    await plan.gate.check('exit_plan_mode', { plan: 'x' }, { hook: 'allow' });
    expect(plan.asked).toHaveLength(1);
  });

  it('asks when a PreToolUse hook says ask, even in yolo; off a terminal that refuses', async () => {
    const { gate, asked, decisions } = setup({ mode: 'yolo', answers: ['allow_once'] });
    expect(await gate.check('terminal', PUSH, { hook: 'ask' })).toEqual({ ok: true });
    expect(asked).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ decision: 'allow', source: 'approver' });
    expect(await gate.check('terminal', PUSH, {})).toEqual({ ok: true });
    expect(asked).toHaveLength(1);
    const alone = setup({ mode: 'yolo', approver: false });
    const refused = await alone.gate.check('read_file', { path: 'a' }, { hook: 'ask' });
    expect(refused).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/A PreToolUse hook asks a person to approve read_file/),
    });
  });
});
