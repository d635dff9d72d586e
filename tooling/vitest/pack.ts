import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The manifest fields a pack test reads. */
export interface PackedManifest {
  name: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  exports?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A package as `npm i` would unpack it, in a temporary folder. */
export interface PackedPackage {
  /** The unpacked package folder (`<temp>/package`). */
  dir: string;
  /** The tarball's entries, `package/…`. */
  entries: string[];
  manifest: PackedManifest;
  /** The names of the runtime dependencies: `dependencies` and `peerDependencies`. */
  runtime_dependencies: string[];
  cleanup(): Promise<void>;
}

/**
 * Packs the package in `package_dir` with `npm pack --ignore-scripts` (npm ships with Node; no
 * `pnpm` needed) and unpacks the tarball. The package must already be built: the global test
 * setup builds the workspace once; nothing here builds. `workspace:*` ranges stay as they are;
 * the set of dependency names is what `pnpm pack` publishes.
 */
export async function pack_package(package_dir: string): Promise<PackedPackage> {
  const temp_dir = await mkdtemp(join(tmpdir(), 'lich-pack-'));
  const cleanup = () => rm(temp_dir, { recursive: true, force: true });
  try {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    await run(npm, ['pack', '--ignore-scripts', '--silent', '--pack-destination', temp_dir], {
      cwd: package_dir,
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' },
    });
    const tarball = (await readdir(temp_dir)).find((name) => name.endsWith('.tgz'));
    if (tarball === undefined) throw new Error(`npm pack wrote no tarball for ${package_dir}`);
    const listing = await run('tar', ['-tzf', join(temp_dir, tarball)]);
    const entries = listing.stdout.split('\n').filter((line) => line !== '');
    await run('tar', ['-xzf', join(temp_dir, tarball), '-C', temp_dir]);
    const dir = join(temp_dir, 'package');
    const manifest = JSON.parse(
      await readFile(join(dir, 'package.json'), 'utf8'),
    ) as PackedManifest;
    const runtime_dependencies = Object.keys({
      ...manifest.dependencies,
      ...manifest.peerDependencies,
    }).sort();
    return { dir, entries, manifest, runtime_dependencies, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
