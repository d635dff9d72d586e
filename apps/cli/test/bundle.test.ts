import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAst } from 'rolldown/parseAst';
import { describe, expect, it } from 'vitest';

const BUNDLE_DIR = fileURLToPath(new URL('../dist/bundle/', import.meta.url));
const TUI_DIR = fileURLToPath(new URL('../dist/tui/', import.meta.url));

interface AstNode {
  type: string;
  [key: string]: unknown;
}

/** Every node of an ESTree `tree`. */
function* walk(tree: unknown): Generator<AstNode> {
  const stack = [tree];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (node !== null && typeof node === 'object') {
      if (typeof (node as AstNode).type === 'string') yield node as AstNode;
      stack.push(...Object.values(node));
    }
  }
}

/**
 * The bare specifiers the bundle still loads (its externals), other than Node built-ins: the
 * string arguments of its `require(…)` and `__lich_import(…)` calls (the bundle's `import()`).
 */
function externals(folder = BUNDLE_DIR): string[] {
  const found = new Set<string>();
  for (const name of readdirSync(folder).filter((file) => file.endsWith('.cjs'))) {
    const tree = parseAst(readFileSync(join(folder, name), 'utf8'));
    for (const node of walk(tree)) {
      if (node.type !== 'CallExpression') continue;
      const callee = node.callee as AstNode;
      const [first] = node.arguments as AstNode[];
      if (callee.type !== 'Identifier' || first?.type !== 'Literal') continue;
      if (callee.name !== 'require' && callee.name !== '__lich_import') continue;
      const specifier = first.value;
      if (typeof specifier !== 'string' || /^(node:|\.)/.test(specifier)) continue;
      found.add(specifier);
    }
  }
  return [...found].sort();
}

describe('the bundle', () => {
  it('imports nothing it cannot resolve from where it is installed', () => {
    const specifiers = externals();
    expect(specifiers).toContain('@lich/mcp');
    expect(specifiers).toContain('@vscode/ripgrep');
    const script = `for (const s of ${JSON.stringify(specifiers)}) { try { import.meta.resolve(s); } catch (e) { console.log(s); } }`;
    const unresolved = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: BUNDLE_DIR,
      encoding: 'utf8',
    });
    expect(unresolved.trim()).toBe('');
  });

  it('is ASCII in both bundles, so the loader reads it as latin1 (no UTF-8 decoding)', () => {
    for (const folder of [BUNDLE_DIR, TUI_DIR]) {
      const manifest = JSON.parse(readFileSync(join(folder, 'inputs.json'), 'utf8')) as {
        source_encoding?: string;
      };
      expect(manifest.source_encoding, folder).toBe('latin1');
      for (const name of readdirSync(folder).filter((file) => file.endsWith('.cjs'))) {
        const text = readFileSync(join(folder, name), 'latin1');
        expect(/[\u0080-\uffff]/.test(text), `${folder}${name}`).toBe(false);
      }
    }
  });

  it('contains no package the one-shot path must not load', () => {
    const forbidden = /^(ink|react|ws|grammy|discord\.js|tmi\.js|@modelcontextprotocol\/)/;
    expect(externals().filter((specifier) => forbidden.test(specifier))).toEqual([]);
  });

  it('holds none of the TUI: ink, react and yoga are only in the TUI bundle', () => {
    // rolldown heads each module's code with its path
    const tui_code = /node_modules\/\.pnpm\/(ink|react|react-reconciler|yoga-layout)@/;
    for (const name of readdirSync(BUNDLE_DIR).filter((file) => file.endsWith('.cjs'))) {
      expect(readFileSync(join(BUNDLE_DIR, name), 'utf8'), name).not.toMatch(tui_code);
    }
    const tui = readdirSync(TUI_DIR).filter((file) => file.endsWith('.cjs'));
    expect(tui.some((name) => tui_code.test(readFileSync(join(TUI_DIR, name), 'utf8')))).toBe(true);
  });
});

describe('the TUI bundle', () => {
  it('loads through the CLI loader, needs only Node, and has its layout engine ready', async () => {
    expect(externals(TUI_DIR).filter((specifier) => !isBuiltin(specifier))).toEqual([]);
    const loader = createRequire(import.meta.url)(
      fileURLToPath(new URL('../dist/bundle_loader.cjs', import.meta.url)),
    ) as {
      read_manifest(folder: string): unknown;
      load_bundle(
        folder: string,
        manifest: unknown,
        options: { cache_root: null },
      ): { exports: Record<string, unknown> };
    };
    const loaded = loader.load_bundle(TUI_DIR, loader.read_manifest(TUI_DIR), {
      cache_root: null,
    });
    expect(typeof loaded.exports.run_tui).toBe('function');
    expect(typeof loaded.exports.deferred_client).toBe('function');
    await expect(loaded.exports.ready).resolves.toBeUndefined();
  });
});
