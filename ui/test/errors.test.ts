import { describe, expect, it } from 'vitest';
import { errorText } from '../src/api/api';

describe('errorText names the file once', () => {
  it('puts the file before a message that does not name it (what the core sends)', () => {
    expect(errorText({ code: 'io_error', message: 'No such file or directory (os error 2)', file: '/p/x.scene.json' })).toBe(
      '/p/x.scene.json: No such file or directory (os error 2)',
    );
  });
  it('does not repeat a file the message already starts with', () => {
    expect(
      errorText({ code: 'io_error', message: '/p/x.scene.json: No such file or directory (os error 2)', file: '/p/x.scene.json' }),
    ).toBe('/p/x.scene.json: No such file or directory (os error 2)');
  });
  it('keeps file, line and column in front of a positioned message', () => {
    expect(
      errorText({ code: 'load_error', message: "invalid JSON: trailing comma before '}'", file: 'a.scene.json', line: 3, column: 14 }),
    ).toBe("a.scene.json:3:14: invalid JSON: trailing comma before '}'");
  });
});
