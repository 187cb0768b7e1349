import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Folder READMEs say what is: every folder of src/ with more than three
 * files has one, and every name a README puts in backticks that looks like
 * code — a file or folder (`agent.service.ts`, `rollup/`) or an identifier
 * (`buildServices`, `DayAnswerCache`, `parseDateEnd()`) — exists: the file
 * beside the README (or from src/ or the repository root), the identifier
 * somewhere in the sources. A rename that leaves a README behind fails here.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const src = path.join(root, 'src');

function walk(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      out.push(p);
      walk(p, out);
    }
  }
  return out;
}

const folders = [src, ...walk(src)];
const sources = folders.flatMap((d) =>
  fs
    .readdirSync(d)
    .filter((f) => /\.(ts|sql)$/.test(f))
    .map((f) => fs.readFileSync(path.join(d, f), 'utf8')),
);
const words = new Set(sources.flatMap((text) => text.match(/[A-Za-z_$][A-Za-z0-9_$]*/g) ?? []));

const FILE = /^[\w.-]+(\/[\w.-]+)*(\.(ts|md|js|cjs|json|html|css|sql)|\/)$/;
/** camelCase or PascalCase with an inner capital (`buildServices`, `AuditService`), optionally called: a code name, not a word. */
const IDENTIFIER = /^[A-Za-z_$][a-z0-9_$]*[A-Z][A-Za-z0-9_$]*(\(\))?$/;

/** Every file and folder under `dir`, as paths relative to it. */
function tree(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((p) => p.split(path.sep).join('/'));
}
const everywhere = tree(src);

/** A mentioned path exists: beside the README, from src/, src/modules/ or the root, or as the tail of a path under src/. */
function exists(dir: string, name: string): boolean {
  if ([dir, src, root, path.join(src, 'modules')].some((base) => fs.existsSync(path.join(base, name)))) return true;
  return everywhere.some((p) => p === name || p.endsWith(`/${name}`));
}

function missingNames(readme: string): string[] {
  const dir = path.dirname(readme);
  const text = fs.readFileSync(readme, 'utf8').replace(/```[\s\S]*?```/g, '');
  const missing: string[] = [];
  for (const [, name] of text.matchAll(/`([^`\n]+)`/g)) {
    const n = name!.trim();
    // Build output (dist/) and patterns (migrations/NNN_name.ts) name no file of the sources.
    if (/^dist\/|NNN|</.test(n)) continue;
    if (FILE.test(n)) {
      if (!exists(dir, n.replace(/\/$/, ''))) missing.push(n);
    } else if (IDENTIFIER.test(n) && !words.has(n.replace(/\(\)$/, ''))) missing.push(n);
  }
  return missing;
}

describe('folder READMEs', () => {
  it("every folder of src/ with more than three files has a README.md, or (a subfolder) is described by its parent's", () => {
    const described = (d: string) => {
      if (fs.existsSync(path.join(d, 'README.md'))) return true;
      const parent = path.join(path.dirname(d), 'README.md');
      // A module or top-level folder has its own; a subfolder may be one entry of its parent's README.
      const nested = path.dirname(d) !== src && path.dirname(d) !== path.join(src, 'modules');
      return nested && fs.existsSync(parent) && fs.readFileSync(parent, 'utf8').includes(`\`${path.basename(d)}/`);
    };
    const without = folders
      .filter((d) => fs.readdirSync(d, { withFileTypes: true }).filter((e) => e.isFile()).length > 3)
      .filter((d) => !described(d))
      .map((d) => path.relative(root, d));
    expect(without).toEqual([]);
  });

  for (const dir of folders.filter((d) => fs.existsSync(path.join(d, 'README.md')))) {
    const readme = path.join(dir, 'README.md');
    it(`${path.relative(root, readme)}: every file and code name it mentions exists`, () => {
      expect(missingNames(readme)).toEqual([]);
    });
  }
});
