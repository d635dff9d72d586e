import { describe, expect, it, vi } from 'vitest';
import { AgentEmitter, type AgentEvent } from './events.js';

const event: AgentEvent = { type: 'llm_start', turn: 1, grace: false, context_tokens: 0 };

describe('AgentEmitter', () => {
  it('delivers events in order and stops after a listener is removed', () => {
    const emitter = new AgentEmitter();
    const heard: AgentEvent[] = [];
    const off = emitter.on((received) => heard.push(received));
    emitter.emit(event);
    expect(emitter.listener_count).toBe(1);
    off();
    emitter.emit(event);
    expect(heard).toEqual([event]);
    expect(emitter.listener_count).toBe(0);
  });

  it('isolates a throwing listener and reports it', () => {
    const errors: unknown[] = [];
    const emitter = new AgentEmitter({ on_listener_error: (error) => errors.push(error) });
    const heard: AgentEvent[] = [];
    emitter.on(() => {
      throw new Error('bad listener');
    });
    emitter.on((received) => heard.push(received));
    expect(() => emitter.emit(event)).not.toThrow();
    expect(heard).toEqual([event]);
    expect(errors).toHaveLength(1);
  });

  it('warns on stderr by default and survives a throwing error hook', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const emitter = new AgentEmitter();
    emitter.on(() => {
      throw new Error('oops');
    });
    emitter.emit(event);
    expect(warn).toHaveBeenCalledWith("lich: a listener of 'llm_start' threw: oops");
    warn.mockRestore();
    const broken = new AgentEmitter({
      on_listener_error: () => {
        throw new Error('hook broke');
      },
    });
    broken.on(() => {
      throw new Error('oops');
    });
    expect(() => broken.emit(event)).not.toThrow();
  });
});
