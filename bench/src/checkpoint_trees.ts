/**
 * The trees `bench:checkpoint` works on: a generated one (20,000 files, 200 MB, deterministic) and
 * a copy of this repository with its `node_modules`; and the changes a turn makes to them.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A small deterministic generator, so every run works on the same tree. */
export function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ(){};=.\n0123456789';

/** `bytes` of text-like content from `random`. */
export function text_of(random: () => number, bytes: number): Buffer {
  const out = Buffer.allocUnsafe(bytes);
  for (let i = 0; i < bytes; i++)
    out[i] = ALPHABET.charCodeAt(Math.floor(random() * ALPHABET.length));
  return out;
}

/**
 * Writes `files` files averaging `total_bytes / files` bytes (from half to one and a half times
 * that) into 40 folders of 25 subfolders. Returns the paths, relative to `root`.
 */
export function make_generated_tree(root: string, files: number, total_bytes: number): string[] {
  const random = generator(20_000);
  const average = Math.floor(total_bytes / files);
  const paths: string[] = [];
  for (let index = 0; index < files; index++) {
    const folder = `d${index % 40}/s${Math.floor(index / 40) % 25}`;
    if (index < 1000) mkdirSync(join(root, folder), { recursive: true });
    const path = `${folder}/f${index}.ts`;
    writeFileSync(join(root, path), text_of(random, Math.floor(average * (0.5 + random()))));
    paths.push(path);
  }
  return paths;
}

/**
 * Copies this repository's tracked files and its `node_modules` folders (links kept as links) to
 * `root`, through `tar`. Returns the tracked paths, relative to `root`.
 */
export function copy_repository(repo: string, root: string): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: repo, maxBuffer: 64 << 20 })
    .toString('utf8')
    .split('\0')
    .filter(
      (path) => path !== '' && lstatSync(join(repo, path), { throwIfNoEntry: false })?.isFile(),
    );
  const list = [...tracked, ...find_node_modules(repo)].join('\0');
  execFileSync(
    'sh',
    ['-c', 'tar -C "$1" --null -T - -cf - | tar -C "$2" -xf -', 'copy', repo, root],
    {
      input: list,
      maxBuffer: 64 << 20,
    },
  );
  return tracked;
}

/** The `node_modules` folders of the repository (the root's and each package's). */
function find_node_modules(repo: string): string[] {
  const out: string[] = [];
  const walk = (rel: string, depth: number) => {
    for (const name of readdirSync(join(repo, rel))) {
      if (name === '.git' || name === '.lich' || name === 'dist') continue;
      const path = rel === '' ? name : `${rel}/${name}`;
      if (!lstatSync(join(repo, path)).isDirectory()) continue;
      if (name === 'node_modules') out.push(path);
      else if (depth < 3) walk(path, depth + 1);
    }
  };
  walk('', 0);
  return out;
}

/**
 * What `npm install` of a new dependency does to a folder: a package of `files` files appears in
 * `node_modules/` and the lockfile and manifest change.
 */
export function fake_install(root: string, round: number, files: number): void {
  const random = generator(round + 7);
  const dir = join(root, 'node_modules', `bench-dep-${round}`);
  mkdirSync(join(dir, 'lib'), { recursive: true });
  for (let i = 0; i < files; i++)
    writeFileSync(join(dir, 'lib', `m${i}.js`), text_of(random, 2000));
  writeFileSync(
    join(dir, 'package.json'),
    `{"name":"bench-dep-${round}","version":"1.0.${round}"}\n`,
  );
  writeFileSync(join(root, 'package-lock.json'), `{"lockfileVersion":3,"round":${round}}\n`);
  writeFileSync(
    join(root, 'package.json'),
    `{"dependencies":{"bench-dep-${round}":"1.0.${round}"}}\n`,
  );
}
