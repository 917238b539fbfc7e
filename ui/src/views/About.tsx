// The About box (docs/app.md, "About"): the version of the program the UI runs in (the desktop
// app, or `prompt-inspector serve` in a browser) and the core's. The toolbar's brand is the
// button (the toolbar has no width to spare at 1440 px); it opens a small non-modal dialog, the
// focus moves to its Close button, Escape or Close puts it back on the button, a press outside
// closes it.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { type About, type Api, errorText } from '../api/api';

export function AboutButton({ api }: { api: Api }) {
  const [open, setOpen] = useState(false);
  const [about, setAbout] = useState<About | null>(null);
  const [error, setError] = useState<string | null>(null);
  const wrap = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);

  const show = () => {
    setOpen(true);
    if (about) return;
    setError(null);
    api.about().then(setAbout, (e: unknown) => setError(errorText(e)));
  };
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  useLayoutEffect(() => {
    if (open) closeButton.current?.focus();
  }, [open]);

  useEffect(() => {
    if (!open) return;
    const outside = (e: PointerEvent) => {
      if (!wrap.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside, true);
    return () => document.removeEventListener('pointerdown', outside, true);
  }, [open]);

  return (
    <div class="menu-wrap" ref={wrap}>
      <button
        type="button"
        ref={button}
        class="brand"
        aria-label="About Prompt Inspector"
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-controls="about-box"
        title="About Prompt Inspector: the app's and the core's versions"
        data-testid="about-button"
        onClick={() => (open ? close(false) : show())}
      >
        Prompt Inspector
      </button>
      {open && (
        <div
          id="about-box"
          class="menu about"
          role="dialog"
          aria-labelledby="about-title"
          data-testid="about"
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              e.stopPropagation();
              close(true);
            }
          }}
        >
          <h2 id="about-title">About Prompt Inspector</h2>
          {error ? (
            <p class="about-error" role="alert">
              {error}
            </p>
          ) : about ? (
            <dl>
              <dt>App</dt>
              <dd data-testid="about-app">
                {about.host.name} {about.host.version}
              </dd>
              <dt>Core</dt>
              <dd data-testid="about-core">
                {about.core.name} {about.core.version}
              </dd>
            </dl>
          ) : (
            <p>Loading…</p>
          )}
          <button type="button" ref={closeButton} onClick={() => close(true)}>
            Close
          </button>
        </div>
      )}
    </div>
  );
}
