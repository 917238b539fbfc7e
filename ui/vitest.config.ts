import { defineConfig } from 'vitest/config';

export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // Tests read the repository's fixtures (one folder up).
  server: { fs: { allow: ['..'] } },
  // The core's segment and adapter lists, as the app adopts them at start-up (test/setup.ts).
  test: { environment: 'happy-dom', include: ['test/**/*.test.ts'], setupFiles: ['test/setup.ts'] },
});
