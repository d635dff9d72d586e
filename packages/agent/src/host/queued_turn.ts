import { randomUUID } from 'node:crypto';
import type { ImagePart } from '@lich/core';
import type { RunObserver } from './session_host_types.js';

/** A run waiting in a live session's queue: its text, its kind and what it carries. */
export interface QueuedTurn {
  turn_id: string;
  input: string;
  kind: 'prompt' | 'follow_up';
  client_request_id?: string;
  budget_scopes?: { sender?: string; conversation?: string };
  /** This turn's model (a custom command's `model:`), over the session's. */
  model?: string;
  /** Pictures sent with `input` (the user message is then text and pictures). */
  images?: readonly ImagePart[];
  /** Pictures the typed text's `@path` mentions brought, after `images`. */
  mentioned?: readonly ImagePart[];
  /** What the person typed, when `input` is more (its `@path` files attached). */
  typed?: string;
  /** Hears the run in-process. */
  observer?: RunObserver;
}

/** A queued turn an interrupt took back: what was typed, and the pictures sent with it. */
export interface TakenBack {
  text: string;
  /** The pictures sent with it (not those its `@path` mentions brought: they come again). */
  images: readonly ImagePart[];
}

/** What a queued run carries besides its text and kind. */
export interface EnqueueOptions {
  client_request_id?: string | undefined;
  budget_scopes?: { sender?: string; conversation?: string } | undefined;
  images?: readonly ImagePart[] | undefined;
  /** Pictures the typed text's `@path` mentions brought. */
  mentioned?: readonly ImagePart[] | undefined;
  /** This turn's model (a custom command's `model:`), over the session's. */
  model?: string | undefined;
  /**
   * What the person typed, when `input` is more (its `@path` files attached): the title, and
   * what an interrupt gives back to the input.
   */
  typed?: string | undefined;
  /** Hears the run in-process (`RunObserver`). */
  observer?: RunObserver | undefined;
}

/** A new turn's id: `turn_` and a random UUID. */
export function new_turn_id(): string {
  return `turn_${randomUUID()}`;
}
