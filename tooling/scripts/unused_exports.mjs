#!/usr/bin/env node
// Counts the names each workspace package exports (from the entry points of its `exports` map)
// and how many of them no other workspace package imports. Static imports, re-exports,
// `import()` with destructuring, `(await import(...)).name`, namespace bindings (`ns.name`) and
// `import('…').Name` types count as uses; a package's own files do not.
//
//   node tooling/scripts/unused_exports.mjs            totals per package
//   node tooling/scripts/unused_exports.mjs --list     and the unused names
//   node tooling/scripts/unused_exports.mjs --json     machine-readable
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOURCE = /\.(ts|tsx|mts|cts|mjs|js|cjs)$/;
const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage', 'fixtures']);

function workspace_packages() {
  const found = [];
  for (const parent of ['packages', 'apps', 'tooling', '.']) {
    const base = join(ROOT, parent);
    const entries = parent === '.' ? ['bench'] : readdirSync(base);
    for (const entry of entries) {
      const manifest_file = join(base, entry, 'package.json');
      if (!existsSync(manifest_file)) continue;
      const manifest = JSON.parse(readFileSync(manifest_file, 'utf8'));
      found.push({ name: manifest.name, dir: join(base, entry), manifest });
    }
  }
  return found;
}

function source_files(dir, into = []) {
  for (const entry of readdirSync(dir)) {
    if (SKIP.has(entry)) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) source_files(path, into);
    else if (SOURCE.test(entry) && !entry.endsWith('.d.ts')) into.push(path);
  }
  return into;
}

function parse(file) {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The names a module file exports, following `export … from './x.js'` within the package. */
function exported_names(file, seen = new Set()) {
  if (seen.has(file)) return new Set();
  seen.add(file);
  const names = new Set();
  const tree = parse(file);
  const resolve_relative = (specifier) => {
    const base = resolve(dirname(file), specifier).replace(/\.(m|c)?js$/, '');
    for (const ext of ['.ts', '.tsx', '.mts', '.cts', '/index.ts']) {
      if (existsSync(base + ext)) return base + ext;
    }
    return null;
  };
  for (const statement of tree.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) names.add(element.name.text);
      } else if (statement.exportClause && ts.isNamespaceExport(statement.exportClause)) {
        names.add(statement.exportClause.name.text);
      } else if (statement.moduleSpecifier) {
        const target = resolve_relative(statement.moduleSpecifier.text);
        if (target) for (const name of exported_names(target, seen)) names.add(name);
      }
      continue;
    }
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
    if (!modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue;
    if (modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword)) {
      names.add('default');
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text);
      }
    } else if (statement.name) {
      names.add(statement.name.text);
    }
  }
  return names;
}

/** `@lich/x/sub` → [`@lich/x`, `./sub`]. */
function split_specifier(specifier) {
  const match = /^(@lich\/[^/]+)(\/.*)?$/.exec(specifier);
  return match ? [match[1], match[2] ? `.${match[2]}` : '.'] : null;
}

/** Every (package, subpath, name) a file uses of another package. */
function uses_in(file) {
  const tree = parse(file);
  const uses = [];
  const namespaces = new Map();
  const add = (specifier, name) => {
    const split = split_specifier(specifier);
    if (split) uses.push([split[0], split[1], name]);
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const specifier = node.moduleSpecifier.text;
      const bindings = node.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          add(specifier, (element.propertyName ?? element.name).text);
        }
      } else if (bindings && ts.isNamespaceImport(bindings)) {
        namespaces.set(bindings.name.text, specifier);
      }
      if (node.importClause?.name) add(specifier, 'default');
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      node.exportClause &&
      ts.isNamedExports(node.exportClause)
    ) {
      for (const element of node.exportClause.elements) {
        add(node.moduleSpecifier.text, (element.propertyName ?? element.name).text);
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = node.argument.literal;
      if (ts.isStringLiteral(literal) && node.qualifier) {
        const first = ts.isIdentifier(node.qualifier) ? node.qualifier : node.qualifier.left;
        if (ts.isIdentifier(first)) add(literal.text, first.text);
      }
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      const specifier = node.arguments[0].text;
      let outer = node.parent;
      if (outer && ts.isAwaitExpression(outer)) outer = outer.parent;
      while (outer && ts.isParenthesizedExpression(outer)) outer = outer.parent;
      if (outer && ts.isPropertyAccessExpression(outer)) add(specifier, outer.name.text);
      else if (outer && ts.isVariableDeclaration(outer)) {
        if (ts.isObjectBindingPattern(outer.name)) {
          for (const element of outer.name.elements) {
            const key = element.propertyName ?? element.name;
            if (ts.isIdentifier(key)) add(specifier, key.text);
          }
        } else if (ts.isIdentifier(outer.name)) namespaces.set(outer.name.text, specifier);
      } else if (split_specifier(specifier)) {
        // an import() whose names cannot be told: count every export as used
        add(specifier, '*');
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  if (namespaces.size > 0) {
    const visit_access = (node) => {
      if (
        (ts.isPropertyAccessExpression(node) || ts.isQualifiedName(node)) &&
        ts.isIdentifier(node.expression ?? node.left)
      ) {
        const specifier = namespaces.get((node.expression ?? node.left).text);
        if (specifier) add(specifier, (node.name ?? node.right).text);
      }
      ts.forEachChild(node, visit_access);
    };
    visit_access(tree);
  }
  return uses;
}

const packages = workspace_packages();
const report = [];
const used = new Map();
for (const pkg of packages) {
  for (const file of source_files(pkg.dir)) {
    for (const [name, subpath, imported] of uses_in(file)) {
      if (name === pkg.name) continue;
      const key = `${name}\0${subpath}`;
      if (!used.has(key)) used.set(key, new Set());
      used.get(key).add(imported);
    }
  }
}
for (const pkg of packages) {
  const exports = pkg.manifest.exports;
  if (!exports || typeof exports !== 'object') continue;
  for (const [subpath, target] of Object.entries(exports)) {
    const source = typeof target === 'object' ? target['@lich/source'] : undefined;
    if (!source) continue;
    const names = exported_names(join(pkg.dir, source));
    const users = used.get(`${pkg.name}\0${subpath}`) ?? new Set();
    const unused = [...names].filter((name) => !users.has(name) && !users.has('*')).sort();
    report.push({
      entry: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
      file: relative(ROOT, join(pkg.dir, source)),
      exported: names.size,
      unused,
    });
  }
}

const total = report.reduce((sum, row) => sum + row.exported, 0);
const unused_total = report.reduce((sum, row) => sum + row.unused.length, 0);
if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify({ total, unused: unused_total, report }, null, 2)}\n`);
} else {
  for (const row of report) {
    process.stdout.write(
      `${row.entry.padEnd(28)} ${String(row.exported).padStart(4)} exported ${String(row.unused.length).padStart(4)} used by no other package\n`,
    );
    if (process.argv.includes('--list') && row.unused.length > 0) {
      process.stdout.write(`    ${row.unused.join(' ')}\n`);
    }
  }
  process.stdout.write(
    `total: ${unused_total} of ${total} exported names used by no other package\n`,
  );
}
