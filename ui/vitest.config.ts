import { defineConfig } from 'vitest/config';

export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // Tests read the repository's fixtures (one folder up).
  server: { fs: { allow: ['..'] } },
  // The core's segment and adapter lists, as the app adopts them at start-up (test/setup.ts).
  // style.css is processed (vitest stubs CSS to an empty module otherwise): test/signals.test.ts
  // reads the rule that writes each piece's source on the board.
  test: {
    css: { include: [/style\.css/] },
    environment: 'happy-dom',
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
  },
});
