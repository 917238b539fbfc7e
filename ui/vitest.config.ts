import { defineConfig } from 'vitest/config';

export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // Tests read the repository's fixtures (one folder up).
  server: { fs: { allow: ['..'] } },
  test: { environment: 'happy-dom', include: ['test/**/*.test.ts'] },
});
