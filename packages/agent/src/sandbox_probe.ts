import { probe_sandbox } from '@lich/tools';

/**
 * How an agent's commands run: `bwrap` or `sandbox-exec` when a sandbox starts here, `none` when
 * none can, `off` when the config turns it off.
 *
 * Contract: the host is probed at most once (the first `kind`); `kind` never rejects (a failed
 * probe is `none`); `kind_now` never waits, and is undefined until the probe has answered.
 */
export class SandboxProbe {
  readonly #off: boolean;
  readonly #env: Readonly<Record<string, string | undefined>>;
  #kind: Promise<string> | undefined;
  #known: string | undefined;

  constructor(options: { off: boolean; env: Readonly<Record<string, string | undefined>> }) {
    this.#off = options.off;
    this.#env = options.env;
  }

  /** The kind, probed the first time. */
  kind(): Promise<string> {
    if (this.#off) return Promise.resolve('off');
    this.#kind ??= probe_sandbox({ env: this.#env as NodeJS.ProcessEnv })
      .then(
        (support) => support.kind ?? 'none',
        () => 'none',
      )
      .then((kind) => {
        this.#known = kind;
        return kind;
      });
    return this.#kind;
  }

  /** The kind when it is already known, without waiting; else undefined. */
  kind_now(): string | undefined {
    return this.#off ? 'off' : this.#known;
  }
}
