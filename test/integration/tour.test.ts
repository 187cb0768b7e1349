import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServerProcess } from '../helpers/process.js';

/**
 * The five-minute tour works as written (issue: "test it by doing it"): the
 * `sh` blocks of README.md's "Five-minute tour" and of docs/tour.md, run by
 * bash against a real server started with the environment their first block
 * gives (`CALLCENTER_DEMO=1 …`), on a fresh embedded database. Only the
 * address changes (a free port instead of 8080), and a background command
 * (`… &`, the stream) gets two seconds to connect. Every `# {…}` line of a
 * block is an answer the block must print (`…` stands for anything).
 */

const hasTools = ['bash', 'curl'].every((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status === 0);
if (!hasTools) console.warn('[tour] SKIPPED: bash and curl are needed to run the tour commands.');

function shBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no "## ${heading}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** `A=1 B=two npm start` → { A: '1', B: 'two' }. */
function startEnv(block: string): Record<string, string> {
  const line = block.split('\n').find((l) => /\bnpm start\b/.test(l));
  if (!line) throw new Error('the first block does not start the server');
  const env: Record<string, string> = {};
  for (const m of line.slice(0, line.indexOf('npm start')).matchAll(/([A-Z_]+)=(\S+)/g)) env[m[1]!] = m[2]!;
  return env;
}

/** `# {"status":"success",…}` → a pattern for the printed answer. */
function expectedAnswers(blocks: string[]): RegExp[] {
  return blocks
    .flatMap((b) => b.split('\n'))
    .filter((l) => /^# \{.*\}$/.test(l))
    .map(
      (l) =>
        new RegExp(
          l
            .slice(2)
            .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
            .replace(/…/g, '.*?'),
        ),
    );
}

function bash(script: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` });
    });
  });
}

const DOCS: Array<[string, () => string]> = [
  ['README.md "Five-minute tour"', () => section(readFileSync('README.md', 'utf8'), 'Five-minute tour')],
  ['docs/tour.md', () => readFileSync('docs/tour.md', 'utf8')],
];

describe.skipIf(!hasTools)('the five-minute tour, as written', () => {
  for (const [name, text] of DOCS) {
    it(`${name}: every command works and prints what the text says`, async () => {
      const [start, ...rest] = shBlocks(text());
      expect(start, 'first block').toMatch(/^npm install$/m);
      expect(rest.length).toBeGreaterThan(0);
      const dir = mkdtempSync(join(tmpdir(), 'cc-tour-'));
      const p = await startServerProcess({ env: { ...startEnv(start!), DATA_DIR: dir }, logLevel: 'info', readyTimeoutMs: 60_000 });
      try {
        // The text says the log shows this line (it may reach us just after /healthz answered).
        await expect.poll(() => p.output(), { timeout: 5000 }).toContain('demo simulator running: log in as \\"demo\\"');
        const script = rest.join('\n').replaceAll('127.0.0.1:8080', `127.0.0.1:${p.port}`).replace(/&\n/g, '&\nsleep 2\n');
        // Stop what the tour left running in the background (the stream).
        const { code, out } = await bash(`${script}\nsleep 2\nkill $(jobs -p) 2>/dev/null\nwait\nexit 0`);
        expect(code, out).toBe(0);
        expect(out).not.toMatch(/undefined|curl: \(\d+\)/);
        for (const answer of expectedAnswers(rest)) expect(out, `expected ${answer}`).toMatch(answer);
        if (/stream\?ssid=/.test(script)) {
          expect(out).toContain('event: ready');
          expect(out).toMatch(/event: call\ndata: \{"callId":"tour-call-\d+","state":"queued"/);
        }
      } finally {
        await p.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    }, 120_000);
  }
});
