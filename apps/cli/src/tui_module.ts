/**
 * Loads `@lich/tui`, the only package that imports ink and react, when the TUI is asked for and
 * never otherwise. From the CLI's bundle it loads the TUI's own one-file bundle (`dist/tui/`,
 * made by `scripts/tui_bundle.mjs`) through the same loader and V8 code cache as the CLI's, so
 * the first frame is not held up by resolving and compiling some two hundred modules; when that
 * bundle is missing or stale, or the CLI runs unbundled, it imports the package.
 */
import type * as Tui from '@lich/tui';

/** The TUI's exports, and a way to keep the code compiled during this run for the next one. */
export interface LoadedTui {
  tui: typeof Tui;
  /** Writes the code cache of the TUI bundle (a no-op when it was not used). Never throws. */
  save_cache(): void;
  /** `bundle` or `package`, for `LICH_DEBUG`. */
  from: 'bundle' | 'package';
}

interface BundleLoader {
  code_cache_root(env: Readonly<Record<string, string | undefined>>): string | null;
  fresh_manifest(folder: string): unknown;
  load_bundle(
    folder: string,
    manifest: unknown,
    options: { cache_root: string | null },
  ): { exports: Record<string, unknown>; save_cache(): void };
}

/** The TUI bundle's exports: the package's, and `ready`, settled once its layout engine is. */
type BundledTui = typeof Tui & { ready?: Promise<void> };

function from_bundle(env: Readonly<Record<string, string | undefined>>): LoadedTui | null {
  // Only inside the CLI's own bundle: its chunks run with CommonJS `require` and `__dirname`
  // (the `dist/bundle` folder); the ES module build has neither.
  if (typeof require !== 'function' || typeof __dirname !== 'string') return null;
  if (env.LICH_TUI_BUNDLE === '0') return null;
  const { join } = require('node:path') as typeof import('node:path');
  const dist = join(__dirname, '..');
  const loader = require(join(dist, 'bundle_loader.cjs')) as BundleLoader;
  const folder = join(dist, 'tui');
  const manifest = loader.fresh_manifest(folder);
  if (manifest === null) return null;
  const loaded = loader.load_bundle(folder, manifest, {
    cache_root: loader.code_cache_root(env),
  });
  return {
    tui: loaded.exports as unknown as BundledTui,
    save_cache: () => loaded.save_cache(),
    from: 'bundle',
  };
}

/**
 * The TUI module, ready to draw. Rejects only when `@lich/tui` cannot be loaded at all (an
 * install without it).
 */
export async function load_tui(
  env: Readonly<Record<string, string | undefined>>,
): Promise<LoadedTui> {
  const bundled = from_bundle(env);
  if (bundled !== null) {
    await (bundled.tui as BundledTui).ready;
    return bundled;
  }
  return { tui: await import('@lich/tui'), save_cache: () => undefined, from: 'package' };
}
