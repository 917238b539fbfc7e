import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import type { ValidateResponse } from '../api/types';
import { Editor } from '../editor/Editor';
import { templateLanguage, templateLinter, type TemplateErrorMark } from '../editor/template';
import type { JObject } from '../lib/json';
import { engineOf, locales, removeLocale, renderedLocale, setEngine, setTemplateText, templateText } from '../lib/scene';
import type { Session } from '../lib/session';
import { DOCS } from './common';

/** The template errors `validate` reports for one locale of the template at `path`
 *  (`tools[0].format_2_prompt.source`, `chat_llm.system_msg_prompt[0].template`). */
export function templateProblems(v: ValidateResponse | undefined, path: string | null, locale: string): TemplateErrorMark[] {
  if (!v || !path) return [];
  return v.templates.filter((t) => t.error && t.locale === locale && t.path === `${path}.templates.${locale}`).map((t) => t.error!);
}

/** The locales of the template at `path` that have an error. */
export function localesWithErrors(v: ValidateResponse | undefined, path: string | null): Set<string> {
  if (!v || !path) return new Set();
  return new Set(v.templates.filter((t) => t.error && t.path === `${path}.templates.${t.locale}`).map((t) => t.locale));
}

interface Props {
  session: Session;
  /** The `Template` object (`{engine, templates, active_language?}`), edited in place through session.edit. */
  spec: JObject;
  /** Its JSON path, as validate writes it (for the underlines). */
  path: string | null;
  /** Accessible name of the editor, e.g. "tf_notes template". */
  label: string;
  testId: string;
  legend?: ComponentChildren;
}

/** A template in a code editor: the engine (highlighting follows it), locale tabs, and the
 *  errors `validate` found, underlined where they are. Every change goes through session.edit. */
export function TemplateEditor({ session, spec, path, label, testId, legend }: Props) {
  const locs = locales(spec);
  const [want, setLocale] = useState(() => renderedLocale(spec) ?? locs[0] ?? 'default');
  const locale = locs.includes(want) ? want : (locs[0] ?? 'default');
  const [adding, setAdding] = useState(false);
  const localeInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (adding) localeInput.current?.focus();
  }, [adding]);
  const engine = engineOf(spec);
  const lang = useMemo(() => templateLanguage(engine), [engine]);
  const validate = session.reports?.validate;
  const problems = templateProblems(validate, path, locale);
  const bad = localesWithErrors(validate, path);
  const rendered = renderedLocale(spec);
  const problemsRef = useRef(problems);
  problemsRef.current = problems;
  const lint = useMemo(() => templateLinter(() => problemsRef.current), []);
  // Re-lint when validate answers for the text on screen (not on every keystroke).
  const lintVersion = session.reports?.text === session.text ? validate : null;

  // A diagnostic's link to this template: the line is in the locale that renders.
  const [reveal, setReveal] = useState<{ line: number | null; seq: number; locale: string } | null>(null);
  useEffect(() => {
    const r = path ? session.takeReveal(path) : null;
    if (!r) return;
    const l = renderedLocale(spec) ?? locs[0] ?? 'default';
    setLocale(l);
    setReveal({ line: r.line, seq: r.seq, locale: l });
  });

  const addLocale = (l: string) => {
    setAdding(false);
    l = l.trim();
    if (!l) return;
    if (!locs.includes(l)) session.edit(() => setTemplateText(spec, l, templateText(spec, locale)));
    setLocale(l);
  };

  return (
    <fieldset class="template-editor">
      <legend>
        {legend ?? 'template'}{' '}
        <select
          class="engine"
          value={engine}
          aria-label={`${label}: engine`}
          title={`Template engine (the two engines: ${DOCS.templates})`}
          data-testid={`${testId}-engine`}
          onChange={(e) => session.edit(() => setEngine(spec, (e.target as HTMLSelectElement).value as 'fstring' | 'jinja2'))}
        >
          <option value="fstring">fstring</option>
          <option value="jinja2">jinja2</option>
        </select>
      </legend>
      <div class="tabs locale-tabs">
        <div class="tabs" role="tablist" aria-label={`${label}: locales`}>
          {locs.map((l) => (
            <button
              type="button"
              role="tab"
              key={l}
              aria-selected={l === locale}
              class={`${l === locale ? 'on' : ''}${bad.has(l) ? ' has-error' : ''}`}
              onClick={() => setLocale(l)}
              title={`${l}${l === rendered ? ' — the one that renders' : ''}${bad.has(l) ? ' — has an error' : ''}`}
            >
              {l}
              {l === rendered && locs.length > 1 && (
                <span class="rendered-mark" role="img" aria-label="(renders)">
                  {' '}
                  ●
                </span>
              )}
              {bad.has(l) && (
                <span class="error-mark" role="img" aria-label="(has an error)">
                  {' '}
                  !
                </span>
              )}
            </button>
          ))}
        </div>
        {adding ? (
          <input
            class="locale-input"
            ref={localeInput}
            placeholder="locale, e.g. zh"
            aria-label="New locale"
            size={10}
            onKeyDown={(e) => {
              if (e.key === 'Enter') addLocale((e.target as HTMLInputElement).value);
              if (e.key === 'Escape') setAdding(false);
            }}
            onBlur={() => setAdding(false)}
          />
        ) : (
          <button
            type="button"
            class="add"
            title="Add a locale (starts as a copy of this one; Enter adds it)"
            aria-label="Add a locale"
            onClick={() => setAdding(true)}
          >
            +
          </button>
        )}
        {locs.length > 1 && (
          <button
            type="button"
            class="remove-locale"
            title={`Remove the ${locale} locale`}
            aria-label={`Remove the ${locale} locale`}
            onClick={() => {
              if (confirm(`Remove the ${locale} text of this template?`)) session.edit(() => removeLocale(spec, locale));
            }}
          >
            −
          </button>
        )}
      </div>
      <Editor
        key={locale}
        label={`${label} (${locale})`}
        testId={testId}
        caretKey={path ? `${path}|${locale}` : undefined}
        value={templateText(spec, locale)}
        language={lang}
        lint={lint}
        lintVersion={lintVersion}
        reveal={reveal && reveal.locale === locale ? reveal : undefined}
        onRevealed={() => setReveal(null)}
        onChange={(t) => session.edit(() => setTemplateText(spec, locale, t), false, path ?? undefined)}
      />
      {problems.map((p, i) => (
        <div class="error-line" key={i}>
          {p.kind}: {p.message}
          {p.line ? ` (line ${p.line}, column ${p.column})` : ''}
        </div>
      ))}
    </fieldset>
  );
}
