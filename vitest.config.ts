import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: two test files at a time, each on its own databases.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
