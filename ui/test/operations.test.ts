// The operations the UI calls are exactly those the desktop shell grants its web view
// (`WEBVIEW_OPERATIONS`, src-tauri/src/command_names.rs, generated into bindings.ts as
// `webviewOperations`): a granted operation the UI never calls is a door left open for nothing, and
// one it calls without the grant fails in the app only (serve routes every operation).
import { describe, expect, it } from 'vitest';
import { operations, webviewOperations } from '../src/api/bindings';

// The UI's sources as text, the generated bindings left out (they name every command).
const sources = Object.entries(import.meta.glob<string>('../src/**/*.{ts,tsx}', { query: '?raw', import: 'default', eager: true })).filter(
  ([path]) => !path.endsWith('/bindings.ts'),
);

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

describe('the operations the UI calls', () => {
  it('are exactly the ones the web view is granted', () => {
    const called = sources.flatMap(([, text]) => [...text.matchAll(/\bcall\(\s*['"]([a-z_]+)['"]/g)].map((m) => m[1]));
    expect(called.length).toBeGreaterThan(0);
    expect(sorted(called)).toEqual(sorted(webviewOperations));
    // Each is one of the core's table.
    const all: readonly string[] = operations;
    expect(webviewOperations.filter((op) => !all.includes(op))).toEqual([]);
  });

  it('are each reached through an Api method the UI uses', () => {
    const api = sources.find(([path]) => path.endsWith('/api/api.ts'))![1];
    const block = api.slice(api.indexOf('export interface Api {'), api.indexOf('\n}\n', api.indexOf('export interface Api {')));
    const methods = [...block.matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1]);
    expect(methods.length).toBeGreaterThan(0);
    const used = new Set(
      sources.filter(([path]) => !path.includes('/src/api/')).flatMap(([, text]) => [...text.matchAll(/\bapi\.(\w+)\(/g)].map((m) => m[1])),
    );
    expect(methods.filter((m) => !used.has(m))).toEqual([]);
  });
});
