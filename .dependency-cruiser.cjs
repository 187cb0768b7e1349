/**
 * Import boundaries, read from the READMEs that document them:
 *   - src/README.md: which top-level folder (or file) may import which;
 *   - src/modules/README.md: which module may import which.
 * Each table lists, per row, what the row may depend on; every entry must be
 * a row further down (checked here), so the tables cannot describe a loop.
 * `npm run lint` runs `depcruise src`; an import the tables do not allow fails it.
 */
const fs = require('node:fs');
const path = require('node:path');

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Rows of the first markdown table whose header starts with `firstHeader`: [name, allowed[]]. */
function readTable(file, firstHeader) {
  const lines = fs.readFileSync(path.join(__dirname, file), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${firstHeader}`));
  if (start < 0) throw new Error(`${file}: no table starting with "| ${firstHeader}"`);
  const rows = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    const name = cells[0].replace(/`/g, '');
    const allowed = [...cells[cells.length - 1].matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    rows.push([name, allowed]);
  }
  for (const [i, [name, allowed]] of rows.entries()) {
    for (const a of allowed) {
      const j = rows.findIndex(([n]) => n === a);
      if (j < 0) throw new Error(`${file}: ${name} may depend on ${a}, which has no row`);
      if (j <= i) throw new Error(`${file}: ${name} may depend on ${a}, which is above it: the table must point down`);
    }
  }
  return rows;
}

/** `cli/` → ^src/cli/ ; `app.ts` → ^src/app\.ts$ */
const topPath = (name) => (name.endsWith('/') ? `^src/${esc(name)}` : `^src/${esc(name)}$`);
const modulePath = (name) => `^src/modules/${esc(name)}`;

const top = readTable('src/README.md', 'folder / file');
const modules = readTable('src/modules/README.md', 'module');

// Everything in src/ must have a row, or a new folder would be outside every rule.
for (const entry of fs.readdirSync(path.join(__dirname, 'src'), { withFileTypes: true })) {
  const name = entry.isDirectory() ? `${entry.name}/` : entry.name;
  if (!/\.(ts|md)$/.test(name) && !entry.isDirectory()) continue;
  if (name === 'README.md' || name.endsWith('.test.ts')) continue;
  if (!top.some(([n]) => n === name)) throw new Error(`src/${name} has no row in src/README.md's table`);
}
for (const entry of fs.readdirSync(path.join(__dirname, 'src/modules'), { withFileTypes: true })) {
  if (entry.isDirectory() && !modules.some(([n]) => n === `${entry.name}/`)) throw new Error(`src/modules/${entry.name}/ has no row in src/modules/README.md's table`);
}

const NOT_TESTS = '\\.test\\.ts$';

module.exports = {
  forbidden: [
    ...top.map(([name, allowed]) => ({
      name: `layer:${name}`,
      comment: `src/README.md: ${name} may depend on ${allowed.join(', ') || 'nothing in src'}`,
      severity: 'error',
      from: { path: topPath(name), pathNot: NOT_TESTS },
      to: { path: '^src/', pathNot: [topPath(name), ...allowed.map(topPath)] },
    })),
    ...modules.map(([name, allowed]) => ({
      name: `module:${name}`,
      comment: `src/modules/README.md: ${name} may depend on ${allowed.join(', ') || 'no other module'}`,
      severity: 'error',
      from: { path: modulePath(name), pathNot: NOT_TESTS },
      to: { path: '^src/modules/[^/]+/', pathNot: [modulePath(name), ...allowed.map(modulePath)] },
    })),
    {
      name: 'module:no-foreign-repository',
      comment: "src/modules/README.md: a module never imports another module's repository or routes",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/', pathNot: NOT_TESTS },
      to: { path: '^src/modules/[^/]+/.*\\.(repository|routes)\\.ts$', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'module:no-root',
      comment: 'src/modules/README.md: a module never imports the composition root or the operation list (they import the modules)',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/', pathNot: NOT_TESTS },
      to: { path: '^src/modules/[^/]+\\.ts$' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycle between files either.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    // Type-only imports count: a loop through types is still a loop between folders.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
