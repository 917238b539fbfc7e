import { defineConfig } from 'vite';

// Preact's automatic JSX runtime (tsconfig's jsxImportSource is honoured by Vite's transform).
export default defineConfig({
  base: './',
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 1500 },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
