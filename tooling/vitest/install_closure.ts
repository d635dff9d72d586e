/**
 * What an operator gets from `npx <package>`: its tarball and the tarballs of the `@lich` packages
 * it depends on, installed into an empty prefix (their `workspace:*` ranges made exact, as
 * publishing does; third-party packages linked from the workspace's store, since no test may use
 * the network). Packs the dist the global setup built; builds nothing.
 */
import { existsSync } from 'node:fs';
import {
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { type PackedPackage, pack_package } from './pack.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** The workspace folder of each `@lich` package, by name. */
async function workspace_packages(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const parent of ['packages', 'apps', 'tooling']) {
    for (const entry of await readdir(join(ROOT, parent))) {
      const manifest = join(ROOT, parent, entry, 'package.json');
      if (!existsSync(manifest)) continue;
      const { name } = JSON.parse(await readFile(manifest, 'utf8')) as { name: string };
      found.set(name, join(ROOT, parent, entry));
    }
  }
  return found;
}

/** Where Node would find `name` from the package in `from` (its real folder, links followed). */
async function locate(name: string, from: string): Promise<string | null> {
  let folder = await realpath(from);
  for (;;) {
    const candidate = join(folder, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpath(candidate);
    const parent = dirname(folder);
    if (parent === folder) return null;
    folder = parent;
  }
}

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

async function manifest_of(dir: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** An installed closure. `packs[0]` is the package itself. */
export interface InstalledClosure {
  prefix: string;
  packs: PackedPackage[];
  /** Every package name installed (the whole tree, third-party dependencies' own included). */
  installed: Set<string>;
  cleanup(): Promise<void>;
}

/** Installs `package_name` and its closure into a fresh prefix (see the module comment). */
export async function install_closure(package_name: string): Promise<InstalledClosure> {
  const prefix = await mkdtemp(join(tmpdir(), 'lich-install-'));
  const packs: PackedPackage[] = [];
  const installed = new Set<string>();
  const modules = join(prefix, 'node_modules');
  await mkdir(modules, { recursive: true });
  const workspace = await workspace_packages();
  const third_party = new Map<string, string>();
  const closure: string[] = [];
  const todo = [package_name];
  while (todo.length > 0) {
    const name = todo.shift() as string;
    if (closure.includes(name)) continue;
    const source = workspace.get(name);
    if (source === undefined) throw new Error(`${name} is not a workspace package`);
    closure.push(name);
    const manifest = await manifest_of(source);
    for (const dependency of Object.keys({
      ...manifest.dependencies,
      ...manifest.peerDependencies,
    })) {
      if (workspace.has(dependency)) todo.push(dependency);
      else if (!third_party.has(dependency)) {
        const found = await locate(dependency, source);
        if (found === null) throw new Error(`${name} needs ${dependency}, which is not installed`);
        third_party.set(dependency, found);
      }
    }
  }
  packs.push(
    ...(await Promise.all(closure.map((name) => pack_package(workspace.get(name) as string)))),
  );
  for (const [index, name] of closure.entries()) {
    const packed = packs[index] as PackedPackage;
    const manifest = packed.manifest as unknown as Manifest;
    // what `pnpm publish` does to workspace ranges
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies'] as const) {
      for (const [dependency, range] of Object.entries(manifest[field] ?? {})) {
        if (!range.startsWith('workspace:')) continue;
        const target = workspace.get(dependency);
        if (target === undefined) throw new Error(`${dependency} is not in the workspace`);
        (manifest[field] as Record<string, string>)[dependency] = (
          await manifest_of(target)
        ).version;
      }
    }
    await writeFile(join(packed.dir, 'package.json'), JSON.stringify(manifest, null, 2));
    await cp(packed.dir, join(modules, name), { recursive: true });
    installed.add(name);
  }
  // third-party packages: linked at the top of the prefix, their own trees walked for the check
  const seen = new Set<string>();
  const walk = async (name: string, dir: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    installed.add(name);
    const manifest = await manifest_of(dir);
    for (const dependency of Object.keys({ ...manifest.dependencies })) {
      const found = await locate(dependency, dir);
      if (found !== null) await walk(dependency, found);
    }
  };
  for (const [name, dir] of third_party) {
    await mkdir(dirname(join(modules, name)), { recursive: true });
    await symlink(dir, join(modules, name), 'dir');
    await walk(name, dir);
  }
  return {
    prefix,
    packs,
    installed,
    async cleanup() {
      for (const packed of packs) await packed.cleanup();
      await rm(prefix, { recursive: true, force: true });
    },
  };
}
