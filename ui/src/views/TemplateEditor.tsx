import { autocompletion } from '@codemirror/autocomplete';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import type { ValidateResponse } from '../api/types';
import { templateCompletion } from '../editor/complete';
import { Editor } from '../editor/Editor';
import { templateLanguage, templateLinter, type TemplateErrorMark } from '../editor/template';
import type { JObject } from '../lib/json';
import {
  engineOf,
  locales,
  position,
  removeLocale,
  renderedLocale,
  sceneText,
  setEngine,
  setTemplateText,
  templateText,
} from '../lib/scene';
import type { Session } from '../lib/session';
import {
  otherEngineSyntax,
  pieceText,
  renderProblems,
  type TemplateOwner,
  templateOwner,
  templateVars,
  withActiveLanguage,
} from '../lib/template-help';
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

/** Sets the locale a template renders with (`active_language`). */
export function setActiveLanguage(spec: JObject, locale: string) {
  spec.set('active_language', locale);
}

/** The family whose render shows the template of `owner`: a configured prompt's, or the first
 *  side a tool's position names. */
function familyOf(owner: TemplateOwner | null): 'chat' | 'desk' | null {
  if (!owner) return null;
  if (owner.kind === 'configured') return owner.family;
  const p = position(owner.tool);
  return p?.[0] ? 'chat' : p?.[1] ? 'desk' : null;
}

/**
 * What a locale other than the one that renders would render to: the scene rendered once with
 * that locale active (a copy of its text; the scene itself is not changed). Re-asked when the
 * scene text or the locale changes, after a short pause.
 */
function useLocalePreview(session: Session, spec: JObject, owner: TemplateOwner | null, locale: string, active: boolean) {
  const [out, setOut] = useState<{ key: string; text: string | null; error: string | null } | null>(null);
  const family = familyOf(owner);
  // Only while previewing: building (and comparing) a key that holds the whole scene text costs a
  // large scene milliseconds on every keystroke.
  const key = active ? `${locale}|${session.text}` : '';
  useEffect(() => {
    if (!active || !family) return;
    let gone = false;
    const text = withActiveLanguage(spec, locale, () => sceneText(session.scene));
    const t = setTimeout(() => {
      session.api
        .render(text, { llm: family, tokens: false, baseDir: session.baseDir })
        .then((r) => {
          if (gone) return;
          const failed = r.diagnostics.find((d) => d.locale === locale && (d.code === 'tool_raised' || d.code === 'prompt_render_failed'));
          setOut({ key, text: pieceText(r, owner), error: failed?.message ?? null });
        })
        .catch((e) => !gone && setOut({ key, text: null, error: String((e as Error)?.message ?? e) }));
    }, 150);
    return () => {
      gone = true;
      clearTimeout(t);
    };
  }, [key, active, family]);
  return active && out?.key === key ? out : null;
}

/** A template in a code editor: the engine (highlighting and completion follow it), locale tabs
 *  (the locale shown) and the locale that renders, the errors `validate` found and the errors
 *  the render raised, underlined where they are. Every change goes through session.edit. */
export function TemplateEditor({ session, spec, path, label, testId, legend }: Props) {
  const locs = locales(spec);
  const [want, setLocale] = useState(() => renderedLocale(spec) ?? locs[0] ?? 'default');
  const locale = locs.includes(want) ? want : (locs[0] ?? 'default');
  const [adding, setAdding] = useState(false);
  const localeInput = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => {
    if (adding) localeInput.current?.focus();
  }, [adding]);
  const engine = engineOf(spec);
  const owner = templateOwner(session.scene, path);
  const varsRef = useRef(() => templateVars(session.scene, owner));
  varsRef.current = () => templateVars(session.scene, owner);
  const lang = useMemo(
    () => [templateLanguage(engine), autocompletion({ override: [templateCompletion(engine, () => varsRef.current())], icons: false })],
    [engine],
  );
  const validate = session.reports?.validate;
  // The render's errors are for the text it rendered: on screen only once it answered for it.
  const current = session.reports?.text === session.text;
  const syntax = templateProblems(validate, path, locale);
  // A text with a syntax error fails to render on it too: underlined once, as validate says it.
  const fromRender = current && !syntax.length ? renderProblems(session.scene, session.reports, path, locale) : [];
  const problems: TemplateErrorMark[] = [...syntax, ...fromRender.map((p) => ({ ...p, source: 'render' as const }))];
  const bad = localesWithErrors(validate, path);
  const rendered = renderedLocale(spec);
  const problemsRef = useRef(problems);
  problemsRef.current = problems;
  const engineRef = useRef(engine);
  engineRef.current = engine;
  const lint = useMemo(
    () =>
      templateLinter(
        () => problemsRef.current,
        () => engineRef.current,
      ),
    [],
  );
  // Re-lint when validate answers for the text on screen (not on every keystroke).
  const lintVersion = current ? session.reports : null;

  // Switching the engine over text written for the other one: say so, one click from undoing it.
  const [engineWarning, setEngineWarning] = useState<{ from: 'fstring' | 'jinja2'; to: 'fstring' | 'jinja2'; why: string } | null>(null);
  const switchEngine = (to: 'fstring' | 'jinja2') => {
    const from = engine;
    if (to === from) return;
    const why = otherEngineSyntax(
      locs.map((l) => templateText(spec, l)),
      to,
    );
    setEngineWarning(why ? { from, to, why } : null);
    session.edit(() => setEngine(spec, to));
  };
  const warning = engineWarning && engineWarning.to === engine ? engineWarning : null;

  const showsRendered = locale === rendered;
  const preview = useLocalePreview(session, spec, owner, locale, locs.length > 1 && !showsRendered);

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
  const tabsId = `${testId}-locales`;

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
          onChange={(e) => switchEngine((e.target as HTMLSelectElement).value as 'fstring' | 'jinja2')}
        >
          <option value="fstring">fstring</option>
          <option value="jinja2">jinja2</option>
        </select>
      </legend>
      {warning && (
        <div class="engine-warning" role="alert" data-testid={`${testId}-engine-warning`}>
          <span>
            Switched to {warning.to}. {warning.why}
          </span>{' '}
          <button
            type="button"
            onClick={() => {
              setEngineWarning(null);
              session.edit(() => setEngine(spec, warning.from));
            }}
          >
            Switch back to {warning.from}
          </button>{' '}
          <button type="button" class="quiet" onClick={() => setEngineWarning(null)}>
            Keep {warning.to}
          </button>
        </div>
      )}
      <div class="tabs locale-tabs">
        <div class="tabs" role="tablist" aria-label={`${label}: locale shown`} id={tabsId}>
          {locs.map((l) => (
            <button
              type="button"
              role="tab"
              key={l}
              aria-selected={l === locale}
              class={`${l === locale ? 'on' : ''}${bad.has(l) ? ' has-error' : ''}`}
              onClick={() => setLocale(l)}
              title={`Show ${l}${l === rendered ? ' (the locale that renders)' : ''}${bad.has(l) ? ' — has an error' : ''}`}
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
      {locs.length > 1 && (
        <div class="locale-renders" data-testid={`${testId}-renders`}>
          <label title="The locale the scene renders with (the template's active_language)">
            <input
              type="checkbox"
              checked={showsRendered}
              disabled={showsRendered}
              aria-describedby={`${tabsId}-state`}
              onChange={() => session.edit(() => setActiveLanguage(spec, locale))}
            />{' '}
            Renders this locale ({locale})
          </label>{' '}
          <span class="muted" id={`${tabsId}-state`} role="status">
            {showsRendered
              ? `Shown and rendered: ${locale}.`
              : `Shown: ${locale}, a preview. The scene renders ${rendered ?? 'no locale (none is active and there is no default)'}.`}
          </span>
        </div>
      )}
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
      {fromRender
        .filter((p) => p.suggestions.length)
        .map((p, i) => (
          <div class="did-you-mean" key={`r${i}`} data-testid={`${testId}-did-you-mean`}>
            {p.line ? `Line ${p.line}, column ${p.column}: ` : ''}not found. Did you mean{' '}
            {p.suggestions.map((h, j) => (
              <span key={h}>
                {j > 0 && ', or '}
                <code>{h}</code>
              </span>
            ))}
            ?
          </div>
        ))}
      {preview && (
        <div class="locale-preview" data-testid={`${testId}-preview`}>
          <div class="muted">
            How {locale} would render (a preview: the scene renders {rendered ?? 'no locale'}):
          </div>
          {preview.error ? (
            <div class="error-line">{preview.error}</div>
          ) : preview.text === null ? (
            <div class="muted">It renders to nothing in this scene.</div>
          ) : (
            <pre class="preview-text">{preview.text}</pre>
          )}
        </div>
      )}
    </fieldset>
  );
}
