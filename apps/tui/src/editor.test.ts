import { describe, expect, it } from 'vitest';
import {
  after_submit,
  completion_target,
  type EditorOutcome,
  type EditorState,
  editor_key,
  initial_editor,
} from './editor.js';
import type { Key } from './keys.js';

const k = (name: string, modifiers: Partial<Key> = {}): Key => ({
  name,
  ctrl: false,
  meta: false,
  shift: false,
  ...modifiers,
});
const text = (value: string) => k('text', { text: value });
const sources = {
  commands: ['clear', 'compact', 'model', 'quit'],
  files: ['src/app.tsx', 'src/apple.ts', 'README.md', 'docs/'],
};

function type(keys: Key[], start: EditorState = initial_editor()) {
  let state = start;
  let outcome: EditorOutcome = null;
  for (const key of keys) {
    const result = editor_key(state, key, sources);
    state = result.state;
    outcome = result.outcome ?? outcome;
  }
  return { state, outcome };
}

describe('editor_key', () => {
  it('types, moves and deletes', () => {
    const { state } = type([
      text('hello world'),
      k('left', { ctrl: true }),
      k('backspace'),
      text('_'),
    ]);
    expect(state.text).toBe('hello_world');
    expect(state.cursor).toBe(6);
    const cut = type([text('one two three'), k('w', { ctrl: true })]).state;
    expect(cut.text).toBe('one two ');
    expect(type([text('abc'), k('home'), k('delete')]).state.text).toBe('bc');
    expect(type([text('abc'), k('a', { ctrl: true }), k('k', { ctrl: true })]).state.text).toBe('');
  });

  it('submits on Enter, and as steering on Ctrl+Enter', () => {
    expect(type([text('hi'), k('enter')]).outcome).toEqual({
      kind: 'submit',
      text: 'hi',
      steer: false,
    });
    expect(type([text('hi'), k('enter', { ctrl: true })]).outcome).toEqual({
      kind: 'submit',
      text: 'hi',
      steer: true,
    });
    expect(type([text('   '), k('enter')]).outcome).toBeNull();
  });

  it('makes new lines with Shift+Enter, Alt+Enter and a backslash before Enter', () => {
    const { state, outcome } = type([
      text('a'),
      k('enter', { shift: true }),
      text('b'),
      k('enter', { meta: true }),
      text('c\\'),
      k('enter'),
      text('d'),
    ]);
    expect(outcome).toBeNull();
    expect(state.text).toBe('a\nb\nc\nd');
  });

  it('moves between lines before it browses history', () => {
    const start = initial_editor(['old one', 'old two']);
    let { state } = type([text('ab'), k('enter', { shift: true }), text('cd')], start);
    state = type([k('up')], state).state;
    expect(state.text).toBe('ab\ncd');
    expect(state.cursor).toBe(2);
    state = type([k('up')], state).state;
    expect(state.text).toBe('old two');
    state = type([k('up'), k('up')], state).state;
    expect(state.text).toBe('old one');
    state = type([k('down'), k('down')], state).state;
    expect(state.text).toBe('ab\ncd');
    expect(state.history_index).toBeNull();
  });

  it('searches history backwards with Ctrl+R', () => {
    const start = initial_editor(['git status', 'npm test', 'git push', 'ls']);
    let { state } = type([k('r', { ctrl: true }), text('git')], start);
    expect(state.search).toEqual({ query: 'git', match: 2 });
    state = type([k('r', { ctrl: true })], state).state;
    expect(state.search?.match).toBe(0);
    const { state: accepted, outcome } = type([k('enter')], state);
    expect(outcome).toBeNull();
    expect(accepted.text).toBe('git status');
    expect(accepted.search).toBeNull();
    expect(type([k('r', { ctrl: true }), text('x'), k('escape')], start).state.text).toBe('');
  });

  it('shows a large paste as a chip and submits it whole', () => {
    const pasted = Array.from({ length: 10 }, (_, index) => `line ${index}`).join('\n');
    const { state } = type([text('see: '), k('paste', { text: pasted })]);
    expect(state.text).toBe('see: [paste #1: 10 lines, 69 chars]');
    const { outcome } = type([k('enter')], state);
    expect(outcome).toEqual({ kind: 'submit', text: `see: ${pasted}`, steer: false });
    expect(type([k('paste', { text: 'a\nb' })]).state.text).toBe('a\nb');
  });

  it('completes commands and paths with Tab, cycling through several', () => {
    expect(type([text('/mo'), k('tab')]).state.text).toBe('/model ');
    let { state } = type([text('/c'), k('tab')]);
    expect(state.text).toBe('/clear');
    state = type([k('tab')], state).state;
    expect(state.text).toBe('/compact');
    state = type([k('tab')], state).state;
    expect(state.text).toBe('/clear');
    expect(type([text('read @src/a'), k('tab')]).state.text).toBe('read @src/app');
    expect(type([text('@READ'), k('tab')]).state.text).toBe('@README.md ');
    expect(type([text('@do'), k('tab')]).state.text).toBe('@docs/');
  });

  it('finds completion candidates by prefix, then by substring', () => {
    const state = type([text('look at @app')]).state;
    expect(completion_target(state, sources)?.candidates).toEqual([
      '@src/app.tsx',
      '@src/apple.ts',
    ]);
    expect(completion_target(type([text('no target')]).state, sources)).toBeNull();
  });

  it('records history after a submit, not twice in a row', () => {
    let state = after_submit(initial_editor(), 'one');
    state = after_submit(state, 'one');
    state = after_submit(state, 'two');
    expect(state.history).toEqual(['one', 'two']);
    expect(state.text).toBe('');
  });
});
