import type { RewindOutcome, RewindPoint } from '@lich/agent';
import { describe, expect, it } from 'vitest';
import { FakeClient } from '../test/fake_client.js';
import { TuiController } from './controller.js';
import { make_palette } from './palette.js';
import { rewind_lines } from './rewind_lines.js';
import type { TuiState } from './state_types.js';
import { create_store } from './store.js';

function point(prompt: number, overrides: Partial<RewindPoint> = {}): RewindPoint {
  return {
    prompt,
    run: prompt,
    input: `prompt ${prompt}`,
    at: `2026-01-01T10:0${prompt}:00.000Z`,
    files: true,
    conversation: true,
    changes: [{ path: 'a.ts', status: 'modified', kind: 'file', added_lines: 2, removed_lines: 1 }],
    added_lines: 2,
    removed_lines: 1,
    ...overrides,
  };
}

async function started() {
  const client = new FakeClient();
  const store = create_store({ frame_ms: 0 });
  const controller = new TuiController(client, store);
  await controller.start({ kind: 'new' });
  client.rewind_points_list = [
    point(1),
    point(2, { files: false, changes: [], added_lines: 0, removed_lines: 0 }),
  ];
  return { client, store, controller };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function last_text(state: TuiState): string {
  const block = state.blocks.at(-1);
  if (block?.kind === 'notice') return block.text;
  if (block?.kind === 'command') return block.output;
  return block?.kind ?? '';
}

describe('/rewind in the TUI', () => {
  it('picks a prompt, then what to restore, and shows the rewound conversation', async () => {
    const { client, store, controller } = await started();
    const rewound: RewindOutcome = {
      status: 'rewound',
      prompt: 1,
      input: 'prompt 1',
      redo: false,
      conversation: { removed: 4, restored: 0 },
      summary: 'Rewound to before prompt 1.',
    };
    client.on_rewind = (session_id) => {
      client.histories.set(session_id, [{ role: 'user', content: 'before' }]);
      client.emit(session_id, 'session.rewound', rewound);
      return rewound;
    };
    await controller.submit('/rewind');
    let view = store.get_state().rewind!;
    // the newest prompt is highlighted first
    expect(view.selected).toBe(1);
    const lines = rewind_lines(view, make_palette({ color: false }), 80, 10).join('\n');
    expect(lines).toContain('↺   1');
    expect(lines).toContain('1 file +2 −1');
    expect(lines).toContain('no file changes');
    store.dispatch({ type: 'rewind_move', by: -1 });
    controller.rewind.choose();
    view = store.get_state().rewind!;
    expect(view.step).toBe('scope');
    expect(view.scopes).toEqual(['all', 'files', 'conversation']);
    store.dispatch({ type: 'rewind_move', by: 5 });
    expect(store.get_state().rewind!.scope).toBe(2);
    store.dispatch({ type: 'rewind_move', by: -2 });
    await controller.rewind.confirm();
    await settle();
    expect(client.calls_of('rewind')).toEqual([['session-1', { prompt: 1, scope: 'all' }]]);
    const state = store.get_state();
    expect(state.rewind).toBeNull();
    expect(state.draft).toBe('prompt 1');
    expect(state.generation).toBe(1);
    expect(state.blocks.map((block) => block.kind)).toEqual(['user', 'notice']);
    expect(last_text(state)).toBe('Rewound to before prompt 1.');
  });

  it('offers only the conversation of a prompt whose files cannot be rewound', async () => {
    const { store, controller } = await started();
    await controller.submit('/rewind');
    controller.rewind.choose();
    expect(store.get_state().rewind!.scopes).toEqual(['conversation']);
    store.dispatch({ type: 'rewind_back' });
    expect(store.get_state().rewind!.step).toBe('prompt');
    controller.rewind.cancel();
    expect(store.get_state().rewind).toBeNull();
  });

  it('asks about conflicts, then overwrites or keeps as told', async () => {
    const { client, store, controller } = await started();
    let calls = 0;
    client.on_rewind = (session_id, request) => {
      calls++;
      if (request.on_conflict === undefined) {
        return {
          status: 'conflicts',
          prompt: 1,
          redo: false,
          files: {
            checkpoint: 'c',
            restored: [],
            conflicts: ['src/app.ts'],
            skipped: [],
            not_restored: [],
          },
          summary: 'Not rewound.',
        };
      }
      const outcome: RewindOutcome = {
        status: 'rewound',
        prompt: 1,
        redo: false,
        files: { checkpoint: 'c', restored: [], conflicts: [], skipped: [], not_restored: [] },
        summary: `Rewound, ${request.on_conflict}.`,
      };
      client.emit(session_id, 'session.rewound', outcome);
      return outcome;
    };
    await controller.submit('/rewind');
    store.dispatch({ type: 'rewind_move', by: -1 });
    controller.rewind.choose();
    store.dispatch({ type: 'rewind_move', by: 1 });
    await controller.rewind.confirm();
    const view = store.get_state().rewind!;
    expect(view.step).toBe('conflicts');
    expect(rewind_lines(view, make_palette({ color: false }), 80, 10).join('\n')).toContain(
      'src/app.ts',
    );
    await controller.rewind.resolve('keep');
    await settle();
    expect(calls).toBe(2);
    expect(client.calls_of('rewind').at(-1)).toEqual([
      'session-1',
      { prompt: 1, scope: 'files', on_conflict: 'keep' },
    ]);
    expect(last_text(store.get_state())).toBe('Rewound, keep.');
  });

  it('runs /rewind with words at once, and refuses while a run is in flight', async () => {
    const { client, store, controller } = await started();
    await controller.submit('/rewind 2 --chat --dry-run');
    expect(client.calls_of('rewind')).toEqual([
      ['session-1', { prompt: 2, scope: 'conversation', dry_run: true }],
    ]);
    expect(last_text(store.get_state())).toBe('Nothing to rewind.');
    await controller.submit('/rewind --sideways');
    expect(last_text(store.get_state())).toContain('unknown word');
    client.on_prompt = () => undefined;
    client.emit('session-1', 'turn.started', { turn_id: 't', input: 'x', kind: 'prompt' });
    store.flush();
    await controller.submit('/rewind');
    expect(last_text(store.get_state())).toContain('a run is in flight');
  });

  it('marks a prompt whose files can be rewound when its checkpoint is taken', async () => {
    const { client, store } = await started();
    client.emit('session-1', 'checkpoint.created', {
      turn_id: 't',
      checkpoint_id: 'c1',
      kind: 'before_prompt',
      prompt: 3,
    });
    client.emit('session-1', 'checkpoint.created', {
      turn_id: 't',
      checkpoint_id: 'c2',
      kind: 'after_prompt',
      prompt: 3,
    });
    store.flush();
    expect(store.get_state().blocks.filter((block) => block.kind === 'checkpoint')).toEqual([
      expect.objectContaining({ prompt: 3 }),
    ]);
  });
});
