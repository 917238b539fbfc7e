// CodeMirror support for scene templates: the two Lezer grammars (fstring.grammar, jinja.grammar,
// compiled by `npm run grammar`), their highlighting, and a lint source that underlines the
// template errors the core's `validate` reports, and the errors a render raised, at their byte range.
import { LRLanguage, LanguageSupport, HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { styleTags, tags as t } from '@lezer/highlight';
import { linter, type Diagnostic as CmDiagnostic } from '@codemirror/lint';
import { StateEffect, type Extension } from '@codemirror/state';
import type { EditorView } from '@codemirror/view';
import { parser as fstringParser } from './fstring.grammar.js';
import { parser as jinjaParser } from './jinja.grammar.js';

export const fstringLanguage = LRLanguage.define({
  name: 'fstring',
  parser: fstringParser.configure({
    props: [
      styleTags({
        Escape: t.escape,
        'FieldOpen FieldClose': t.brace,
        ArgName: t.variableName,
        AttrName: t.propertyName,
        IndexKey: t.string,
        '"[" "]" "."': t.punctuation,
        'Conversion/"!" ConversionChar': t.modifier,
        'Colon SpecText': t.special(t.string),
      }),
    ],
  }),
});

export const jinjaLanguage = LRLanguage.define({
  name: 'jinja2',
  parser: jinjaParser.configure({
    props: [
      styleTags({
        Comment: t.blockComment,
        'InterpolationOpen InterpolationClose StatementOpen StatementClose': t.brace,
        Keyword: t.keyword,
        Identifier: t.variableName,
        String: t.string,
        Number: t.number,
        FilterBar: t.operator,
        Operator: t.operator,
        Punct: t.punctuation,
      }),
    ],
  }),
});

export const templateHighlight = HighlightStyle.define([
  { tag: t.brace, color: '#8a3ffc', fontWeight: 'bold' },
  { tag: t.escape, color: '#b35c00', fontWeight: 'bold' },
  { tag: t.variableName, color: '#0550ae' },
  { tag: t.propertyName, color: '#0a6a8a' },
  { tag: t.string, color: '#116329' },
  { tag: t.special(t.string), color: '#953800' },
  { tag: t.modifier, color: '#cf222e' },
  { tag: t.keyword, color: '#cf222e', fontWeight: 'bold' },
  { tag: t.number, color: '#0550ae' },
  { tag: t.operator, color: '#6639ba' },
  { tag: t.punctuation, color: '#57606a' },
  { tag: t.blockComment, color: '#6e7781', fontStyle: 'italic' },
]);

export function templateLanguage(engine: 'fstring' | 'jinja2'): Extension {
  const lang = engine === 'jinja2' ? jinjaLanguage : fstringLanguage;
  return [new LanguageSupport(lang), syntaxHighlighting(templateHighlight)];
}

/** Byte offset in UTF-8 → UTF-16 index in the string. */
export function byteToIndex(text: string, byte: number): number {
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    if (b >= byte) return i;
    const c = text.codePointAt(i)!;
    b += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (c >= 0x10000) i++;
  }
  return text.length;
}

export interface TemplateErrorMark {
  message: string;
  range?: [number, number];
  kind?: string;
  line?: number;
  column?: number;
  /** Names that exist in place of the one not found, in the template's syntax (render errors). */
  suggestions?: string[];
  /** Who found it: `validate` (syntax, before rendering) or `render`. */
  source?: 'validate' | 'render';
}

/** The UTF-16 end of an fstring field's name in `text`, the field opening at `open`
 *  (`{name[key]!r:>4}` → the index of `!`): what a suggestion replaces. */
export function fieldNameEnd(text: string, open: number): number {
  let i = open + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '[') {
      const close = text.indexOf(']', i);
      if (close < 0) return text.length;
      i = close + 1;
      continue;
    }
    if (c === '!' || c === ':' || c === '}') return i;
    i++;
  }
  return i;
}

/** Lint diagnostics for one template text from the errors `validate` and the render gave for it.
 *  An fstring render error's suggestions are also actions that put the name in place. */
export function toCmDiagnostics(text: string, errors: TemplateErrorMark[], engine: 'fstring' | 'jinja2' = 'fstring'): CmDiagnostic[] {
  return errors.map((e) => {
    let from = 0,
      to = text.length;
    if (e.range) {
      from = byteToIndex(text, e.range[0]);
      to = Math.max(from, byteToIndex(text, e.range[1]));
    }
    if (to === from && to < text.length) to = from + 1;
    let message = e.kind ? `${e.kind}: ${e.message}` : e.message;
    const hints = e.suggestions ?? [];
    if (hints.length) message += ` Did you mean ${hints.join(', or ')}?`;
    const d: CmDiagnostic = { from, to, severity: 'error', message, source: e.source ?? 'validate' };
    if (hints.length && engine === 'fstring' && text[from] === '{') {
      const nameFrom = from + 1;
      d.actions = hints.map((h) => ({
        name: `Use ${h}`,
        apply: (view: EditorView) => {
          const doc = view.state.doc.toString();
          view.dispatch({ changes: { from: nameFrom, to: fieldNameEnd(doc, from), insert: h } });
        },
      }));
    }
    return d;
  });
}

/** Dispatch this effect to re-run the lint source (new validate results arrived). */
export const refreshLint = StateEffect.define<null>();

/** A lint source reading the errors from a getter (the app updates them after each validate). */
export function templateLinter(
  get: (view: EditorView) => Promise<TemplateErrorMark[]> | TemplateErrorMark[],
  engine: () => 'fstring' | 'jinja2' = () => 'fstring',
): Extension {
  return linter(async (view) => toCmDiagnostics(view.state.doc.toString(), await get(view), engine()), {
    delay: 50,
    needsRefresh: (u) => u.transactions.some((tr) => tr.effects.some((e) => e.is(refreshLint))),
  });
}
