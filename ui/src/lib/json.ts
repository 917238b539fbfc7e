// Lossless JSON: scenes are read as Python's json.loads reads them (1.0 stays a float,
// 12345678901234567890123 stays exact), so the UI must not round-trip numbers through
// JavaScript doubles. Numbers are kept as their source text in a RawNumber; key order is kept
// (JS objects keep insertion order for non-integer-like keys; integer-like keys are rare in
// scenes and are kept in order by storing objects as JObject with an entries list).

export class RawNumber {
  constructor(public readonly raw: string) {}
  toString() {
    return this.raw;
  }
}

export type JValue = null | boolean | string | RawNumber | JValue[] | JObject;
export class JObject {
  constructor(public entries: [string, JValue][] = []) {}
  get(k: string): JValue | undefined {
    const e = this.entries.find((x) => x[0] === k);
    return e ? e[1] : undefined;
  }
  has(k: string) {
    return this.entries.some((x) => x[0] === k);
  }
  set(k: string, v: JValue) {
    const e = this.entries.find((x) => x[0] === k);
    if (e) e[1] = v;
    else this.entries.push([k, v]);
    return this;
  }
  delete(k: string) {
    this.entries = this.entries.filter((x) => x[0] !== k);
  }
  keys() {
    return this.entries.map((e) => e[0]);
  }
}

export class JsonError extends Error {
  constructor(
    message: string,
    public offset: number,
    public line: number,
    public column: number,
  ) {
    super(message);
  }
}

/**
 * Parses JSON text. With `top`, the UTF-16 range of each member value of the root object is
 * recorded there (the scene writer keeps the text of the parts an edit did not touch).
 */
export function parseJson(text: string, top?: Map<string, [number, number]>): JValue {
  let i = 0;
  let depth = 0;
  const err = (msg: string): never => {
    let line = 1,
      col = 1;
    for (let k = 0; k < i && k < text.length; k++) {
      if (text[k] === '\n') {
        line++;
        col = 1;
      } else col++;
    }
    throw new JsonError(`${line}:${col}: ${msg}`, i, line, col);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const value = (): JValue => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o = new JObject();
      ws();
      if (text[i] === '}') {
        i++;
        return o;
      }
      depth++;
      for (;;) {
        ws();
        if (text[i] !== '"') err('expected a string key');
        const k = str();
        ws();
        if (text[i] !== ':') err("expected ':'");
        i++;
        ws();
        const start = i;
        o.entries.push([k, value()]);
        if (top && depth === 1) top.set(k, [start, i]);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          depth--;
          return o;
        }
        err("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const a: JValue[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return a;
        }
        err("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (m?.[0].length) {
      i += m[0].length;
      return new RawNumber(m[0]);
    }
    if (text.startsWith('NaN', i)) {
      i += 3;
      return new RawNumber('NaN');
    }
    if (text.startsWith('Infinity', i)) {
      i += 8;
      return new RawNumber('Infinity');
    }
    if (text.startsWith('-Infinity', i)) {
      i += 9;
      return new RawNumber('-Infinity');
    }
    return err(i >= text.length ? 'unexpected end of input' : `unexpected character ${JSON.stringify(c)}`);
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++;
      i++;
    }
    if (i >= text.length) err('unterminated string');
    i++;
    try {
      return JSON.parse(text.slice(start, i));
    } catch {
      i = start;
      return err('invalid string');
    }
  };
  const v = value();
  ws();
  if (i < text.length) err('trailing characters');
  return v;
}

export function stringifyJson(v: JValue, indent = 2, depth = 0): string {
  const pad = (d: number) => (indent ? `\n${' '.repeat(indent * d)}` : '');
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof RawNumber) return v.raw;
  if (Array.isArray(v)) {
    if (!v.length) return '[]';
    return `[${v.map((x) => pad(depth + 1) + stringifyJson(x, indent, depth + 1)).join(',')}${pad(depth)}]`;
  }
  if (!v.entries.length) return '{}';
  return `{${v.entries.map(([k, x]) => pad(depth + 1) + JSON.stringify(k) + (indent ? ': ' : ':') + stringifyJson(x, indent, depth + 1)).join(',')}${pad(depth)}}`;
}

/** Plain JS view (numbers as JS numbers) for display only. */
export function toPlain(v: JValue): unknown {
  if (v instanceof RawNumber) return Number(v.raw);
  if (Array.isArray(v)) return v.map(toPlain);
  if (v instanceof JObject) return Object.fromEntries(v.entries.map(([k, x]) => [k, toPlain(x)]));
  return v;
}

/** From a plain JS value (what JSON.parse gives) to JValue. */
export function fromPlain(v: unknown): JValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return new RawNumber(String(v));
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(fromPlain);
  return new JObject(Object.entries(v as object).map(([k, x]) => [k, fromPlain(x)]));
}
