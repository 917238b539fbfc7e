import type { Piece } from '../api/types';

// Piece colouring: configured prompts in greys/blues by index, each tool its own hue, stable
// across renders and families (hashed from the tool's name, then de-collided in call order).
export const CONFIG_COLORS = ['#dfe7f3', '#d3def0', '#c7d5ec', '#bccde8'];
const TOOL_HUES = [28, 140, 280, 340, 190, 60, 230, 100, 0, 310];

export function sourceKey(p: Pick<Piece, 'source' | 'index' | 'tool'>): string {
  return p.source === 'tool' ? `tool:${p.tool}` : `config:${p.index ?? 0}`;
}

export function sourceLabel(key: string): string {
  return key.startsWith('tool:') ? key.slice(5) : `configured prompt ${key.slice(7)}`;
}

/** Colour for each tool, by its position in call order (so the legend matches the tool list). */
export function toolPalette(toolNames: string[]): Map<string, string> {
  const m = new Map<string, string>();
  toolNames.forEach((n, i) => {
    const hue = TOOL_HUES[i % TOOL_HUES.length];
    const light = i < TOOL_HUES.length ? 84 : 76;
    m.set(n, `hsl(${hue} 75% ${light}%)`);
  });
  return m;
}

export function pieceColor(p: Pick<Piece, 'source' | 'index' | 'tool'>, palette: Map<string, string>): string {
  if (p.source === 'tool') return palette.get(p.tool ?? '') ?? 'hsl(50 80% 80%)';
  return CONFIG_COLORS[(p.index ?? 0) % CONFIG_COLORS.length];
}

/** Split a segment's text into runs: each piece (coloured by source) and the `\n` seams between. */
export function pieceRuns(text: string, pieces: Piece[]): { text: string; piece: Piece | null }[] {
  // Ranges are byte ranges (UTF-8); map them to string indices.
  const enc = new TextEncoder();
  const bytes = enc.encode(text);
  const dec = new TextDecoder();
  const runs: { text: string; piece: Piece | null }[] = [];
  let at = 0;
  for (const p of [...pieces].sort((a, b) => a.range[0] - b.range[0])) {
    const [s, e] = p.range;
    if (s > at) runs.push({ text: dec.decode(bytes.subarray(at, s)), piece: null });
    runs.push({ text: dec.decode(bytes.subarray(s, e)), piece: p });
    at = Math.max(at, e);
  }
  if (at < bytes.length) runs.push({ text: dec.decode(bytes.subarray(at)), piece: null });
  return runs;
}

export type Run = ReturnType<typeof pieceRuns>[number];

/**
 * Cut runs into the segment's lines, each `\n` kept at the end of its line (so the lines'
 * text joined is the segment's text, byte for byte). The board lays out each line as a block of
 * its own: a keystroke then re-lays out only the lines whose text changed. One paragraph of the
 * whole segment made WebKit lay out (and shape) all of it again for a one-character change:
 * 6.7 ms against 0.5 ms per update on the large generated scene.
 */
export function runLines(runs: Run[]): Run[][] {
  const lines: Run[][] = [];
  let line: Run[] = [];
  for (const r of runs) {
    let rest = r.text;
    for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n')) {
      line.push({ text: rest.slice(0, nl + 1), piece: r.piece });
      lines.push(line);
      line = [];
      rest = rest.slice(nl + 1);
    }
    if (rest) line.push({ text: rest, piece: r.piece });
  }
  if (line.length) lines.push(line);
  return lines;
}

/** A text's lines, each with its `\n` (joined, they are the text). */
export function textLines(text: string): string[] {
  return runLines([{ text, piece: null }]).map((l) => l[0].text);
}
