import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Held, usePanelsVersion } from './views/held';
import { errorText } from './api/api';
import { dialogs, type Shell } from './api';
import { JObject } from './lib/json';
import { toolPalette } from './lib/colors';
import { configuredPrompts, promptTemplatePath, templatePathOf, toolByName, tools, type PromptRef } from './lib/scene';
import { modelGroups, modelLabel } from './lib/costs';
import type { TemplateTarget } from './lib/diagnostics';
import { recentFiles } from './lib/recent';
import type { Session } from './lib/session';
import { windowTitle } from './lib/title';
import { ContextPanel } from './views/Context';
import { baseName, typedPath } from './lib/paths';
import { Segments } from './views/Segments';
import { adapterOf } from './views/Tools';
import { LeftPane, type LeftMode } from './views/Prompts';
import { AboutButton } from './views/About';
import { RecentMenu } from './views/RecentMenu';
import { RulesView } from './views/Rules';
import { RunView } from './views/Run';
import { ReplayView } from './views/Replay';
import { ConversationView, type GivenConversation } from './views/Conversation';
import { LiveView } from './views/Live';
import { emptyLive, type LiveCalls, LivePoller } from './lib/received';
import type { ReceivedCall } from './api/types';

type Tab = 'inspector' | 'rules' | 'run' | 'conversation' | 'replay' | 'live';
const TABS: Tab[] = ['inspector', 'rules', 'run', 'conversation', 'replay', 'live'];

/** How often the Live view asks for new calls while shown, and while hidden (its tab's count of new calls). */
const LIVE_POLL_MS = 500;
const LIVE_BADGE_POLL_MS = 2000;

function useSession(s: Session) {
  const [, set] = useState(0);
  useEffect(() => {
    const off = s.subscribe(() => set((x) => x + 1));
    return () => {
      off();
    };
  }, [s]);
}

/**
 * After each committed render result, note when it reached the screen (keystroke-to-paint). A
 * layout effect runs right after the DOM is updated, before the browser paints; the animation
 * frame it asks for is the one that paints the update, and a message-channel task runs after it.
 * (A plain effect would run a frame later: Preact defers effects until after a paint.)
 */
function usePaintProbe(s: Session) {
  const last = useRef(0);
  useLayoutEffect(() => {
    if (s.perf.resultAt === last.current || !s.perf.resultAt) return;
    last.current = s.perf.resultAt;
    const edit = s.perf.editAt;
    const answer = s.perf.resultAt;
    const commit = performance.now();
    requestAnimationFrame(() => {
      const frame = performance.now();
      // Frames between the one that showed the typed character and this one (0: the same frame).
      if (s.perf.typedFrameAt && s.perf.editAt === edit) s.perf.lag = frame - s.perf.typedFrameAt;
      // The frame after this callback is painted; a message-channel task runs right after it.
      const ch = new MessageChannel();
      ch.port1.onmessage = () => {
        const now = performance.now();
        s.perf.paints++;
        s.perf.last = now - edit;
        s.perf.fromAnswer = now - answer;
        s.perf.phases = [commit - answer, frame - commit, now - frame];
      };
      ch.port2.postMessage(0);
    });
  });
}

/**
 * The Save and Save as buttons' flow, also run by the desktop close guard's "Save": to the open
 * file, or (Save as, or a scene without a file) to the path the save dialog answers when the shell
 * has one, else to the typed path. With no dialog and no path typed (or, for Save as, only the open
 * file's), `askPath` (when given) asks for one: the path box takes the focus. The path saved to, or null; then `fileError` says why (the banner), unless the
 * path was asked for.
 */
export async function saveScene(
  s: Session,
  as: boolean,
  typed: string,
  saveDialog?: Shell['saveDialog'],
  askPath?: () => void,
): Promise<string | null> {
  const ask = as || !s.path;
  let target = s.path ?? '';
  // The typed path counts only where there is no save dialog to answer instead.
  if (ask && !saveDialog) {
    const t = typedPath(typed, s.baseDir);
    if ('error' in t) {
      s.showFileError(t.error);
      return null;
    }
    target = t.path;
  }
  if (ask && saveDialog) {
    try {
      target = (await saveDialog(s.path ?? undefined)) ?? '';
    } catch (e) {
      s.showFileError(`Save failed: ${errorText(e)}`);
      return null;
    }
    if (!target) {
      s.showFileError('Not saved: no file was chosen.');
      return null;
    }
  }
  if (ask && !saveDialog && askPath && (!target || (as && target === s.path))) {
    // No dialog (the browser), and no path typed but the open file's: the path box takes one.
    askPath();
    return null;
  }
  if (!target) {
    s.showFileError('Type a path to save to (the path box), then Save.');
    return null;
  }
  return (await s.save(target)) ? target : null;
}

/**
 * Opens `path`. In the app, a path the shell may not reach yet (`path_not_chosen`: typed, or
 * named by the page) opens once the person picks it in the system Open dialog, which starts
 * there. Whether a scene was opened.
 */
export async function openScene(s: Session, typed: string, pickOpen?: (suggested: string) => Promise<string | null>): Promise<boolean> {
  // A relative path means what it means in the Run and Replay boxes: from the open scene's folder.
  const t = typedPath(typed, s.baseDir);
  if ('error' in t) {
    s.showFileError(t.error);
    return false;
  }
  const path = t.path;
  if (await s.open(path)) return true;
  if (s.fileErrorCode !== 'path_not_chosen' || !pickOpen) return false;
  const picked = await pickOpen(path);
  return !!picked && (await s.open(picked));
}

export function App({ session }: { session: Session }) {
  useSession(session);
  usePaintProbe(session);
  const panels = usePanelsVersion(session);
  const [tab, setTab] = useState<Tab>('inspector');
  const [selected, setSelected] = useState<string | null>(null);
  const [left, setLeft] = useState<LeftMode>('tools');
  const [selectedPrompt, setSelectedPrompt] = useState<PromptRef | null>(null);
  const selectTool = (n: string) => {
    setSelected(n);
    setLeft('tools');
    setTab('inspector');
  };
  const selectPrompt = (segment: string, index: number) => {
    setSelectedPrompt({ segment, index });
    setLeft('prompts');
    setTab('inspector');
  };
  // A diagnostic's link: the template's editor, with the cursor on the line it names.
  const openTemplate = (t: TemplateTarget) => {
    let path: string | null = null;
    if (t.kind === 'tool') {
      selectTool(t.tool);
      const tool = toolByName(session.scene, t.tool);
      path = tool ? templatePathOf(session.scene, tool) : null;
    } else {
      selectPrompt(t.segment, t.index);
      path = promptTemplatePath({ segment: t.segment, index: t.index });
    }
    if (path) session.revealTemplate(path, t.line);
  };
  // The receiver's calls: polled often while the Live view is shown, less often for its tab's count
  // of calls not seen yet, not at all while paused.
  const [live, setLive] = useState<LiveCalls>(emptyLive);
  const [livePaused, setLivePaused] = useState(false);
  const [liveSeen, setLiveSeen] = useState(0);
  const poller = useMemo(() => new LivePoller(session.api, setLive), [session]);
  useEffect(() => {
    if (livePaused) return;
    poller.start(tab === 'live' ? LIVE_POLL_MS : LIVE_BADGE_POLL_MS);
    return () => poller.stop();
  }, [poller, tab, livePaused]);
  useEffect(() => {
    if (tab === 'live') setLiveSeen(live.next);
  }, [tab, live.next]);
  const unseen = live.calls.filter((c) => c.seq > liveSeen).length;
  const [givenConversation, setGivenConversation] = useState<GivenConversation | null>(null);
  const showReceived = async (c: ReceivedCall) => {
    if (session.dirty && !confirm('Discard the unsaved edits of the open scene?')) return;
    await session.loadReceived(c.scene, `call ${c.seq} (${c.model ?? c.span_name})`);
    setPathInput('');
    setTab('inspector');
  };
  const [pathInput, setPathInput] = useState('');
  const pathBox = useRef<HTMLInputElement>(null);
  // Save as without a save dialog (the browser) asks for the path in the path box: Enter there
  // saves instead of opening, Escape or leaving the box gives up.
  const [askingSaveAs, setAskingSaveAs] = useState(false);
  const s = session;
  const names = tools(s.scene).map((t) => String(t.get('name')));
  const palette = useMemo(() => toolPalette(names), [names.join('\u0000')]);

  useEffect(() => {
    if (selected && !names.includes(selected)) setSelected(null);
    if (!selected && names.length) setSelected(names[0]);
  });

  // Title and close guard. Closing a Tauri window fires no beforeunload: the shell asks instead, so
  // tell it (with the title, which it sets on the real window; the browser shows document.title).
  const title = windowTitle(s.path, s.dirty);
  useEffect(() => {
    document.title = title;
    void dialogs().then((d) => d.setDirty?.(s.dirty, title));
  }, [s.dirty, title]);
  useEffect(() => {
    const h = (e: BeforeUnloadEvent) => {
      if (s.dirty) {
        e.preventDefault();
        e.returnValue = '';
      }
    };
    window.addEventListener('beforeunload', h);
    return () => window.removeEventListener('beforeunload', h);
  }, [s]);

  // Reload when the file changes on disk (the session watches it; a conflict shows a banner).
  useEffect(() => s.watchDisk(1000), [s]);

  // Notices (saved, reloaded) fade after a few seconds; errors stay until dismissed.
  useEffect(() => {
    if (!s.notice) return;
    const n = s.notice;
    const id = setTimeout(() => s.dismissNotice(n), 4000);
    return () => clearTimeout(id);
  }, [s.notice]);

  /** Whether it opened. */
  const openPath = async (p: string): Promise<boolean> => {
    if (!p) return false;
    if (s.dirty && !confirm('Discard the unsaved edits of the open scene?')) return false;
    const d = await dialogs();
    const opened = await openScene(s, p, d.openDialog);
    if (opened) setPathInput(s.path ?? p);
    return opened;
  };
  const [recent, setRecent] = useState<string[]>([]);
  useEffect(() => {
    void recentFiles().then(setRecent);
  }, [s.path, s.recentVersion]);
  const openClick = async () => {
    const d = await dialogs();
    if (d.openDialog) {
      const p = await d.openDialog();
      if (p) await openPath(p);
    } else await openPath(pathInput.trim());
  };
  /** Whether it saved. */
  const saveClick = async (as: boolean, asked = false): Promise<boolean> => {
    const askPath = () => {
      setAskingSaveAs(true);
      s.showNotice('Save as: type the path to save to in the path box, then press Enter (Escape gives up).');
      pathBox.current?.focus();
      pathBox.current?.select();
    };
    const saved = await saveScene(s, as, pathBox.current?.value ?? pathInput, (await dialogs()).saveDialog, asked ? undefined : askPath);
    if (saved) {
      setPathInput(saved);
      setAskingSaveAs(false);
    }
    return saved !== null;
  };
  // The desktop close guard's "Save" runs the Save button's flow (the latest one: it reads the path
  // box); the shell closes the window when it saved, and keeps it open, banner and edits, when not.
  const saveForClose = useRef(saveClick);
  saveForClose.current = saveClick;
  useEffect(() => {
    let off: (() => void) | undefined;
    let gone = false;
    void dialogs()
      .then((d) => d.onSaveBeforeClose?.(() => saveForClose.current(false)))
      .then((u) => {
        if (gone) u?.();
        else off = u;
      });
    return () => {
      gone = true;
      off?.();
    };
  }, []);
  // Ctrl+S (⌘S on a Mac) is the Save button, Ctrl+Shift+S Save as, wherever the focus is (the
  // template editor too): a keyboard user saves without walking back to the toolbar.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // Ctrl+O (⌘O) goes to the path box, its text selected: type a path, Enter opens it.
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'o') {
        e.preventDefault();
        pathBox.current?.focus();
        pathBox.current?.select();
        return;
      }
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.key.toLowerCase() !== 's') return;
      e.preventDefault();
      if (e.shiftKey || s.dirty || !s.path) void saveForClose.current(e.shiftKey);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [s]);
  const goSegment = (family: 'chat' | 'desk', seg: string) => {
    setTab('inspector');
    requestAnimationFrame(() => {
      const el = document.getElementById(`seg-${family}-${seg}`);
      el?.scrollIntoView({ block: 'center' });
      el?.classList.add('flash');
      setTimeout(() => el?.classList.remove('flash'), 1200);
    });
  };

  // Which segments the scene configures a prompt in (the reformat card says whether one is).
  const configured = new Set(configuredPrompts(s.scene).map((x) => `${x.family}:${x.segment}`));
  const hasConfigured = (family: string, segment: string) => configured.has(`${family}:${segment}`);

  const setAdapter = (a: string) =>
    s.edit((sc) => {
      let d = sc.get('desk_llm');
      if (!(d instanceof JObject)) {
        d = new JObject();
        sc.set('desk_llm', d);
      }
      (d as JObject).set('adapter', a);
    });

  return (
    <div class="app">
      <header>
        <h1 class="sr-only">Prompt Inspector</h1>
        <AboutButton api={s.api} />
        <div class="tabs main-tabs" role="tablist" aria-label="Views">
          {TABS.map((t) => (
            <button
              type="button"
              role="tab"
              key={t}
              id={`view-tab-${t}`}
              aria-selected={tab === t}
              tabIndex={tab === t ? 0 : -1}
              class={tab === t ? 'on' : ''}
              onClick={() => setTab(t)}
              onKeyDown={(e) => {
                // WAI-ARIA tabs: ← → (and Home, End) move between the views; Tab leaves the row.
                const at = TABS.indexOf(t);
                const next =
                  e.key === 'ArrowRight'
                    ? TABS[(at + 1) % TABS.length]
                    : e.key === 'ArrowLeft'
                      ? TABS[(at + TABS.length - 1) % TABS.length]
                      : e.key === 'Home'
                        ? TABS[0]
                        : e.key === 'End'
                          ? TABS[TABS.length - 1]
                          : null;
                if (!next) return;
                e.preventDefault();
                setTab(next);
                document.getElementById(`view-tab-${next}`)?.focus();
              }}
            >
              {t[0].toUpperCase() + t.slice(1)}
              {t === 'live' && unseen > 0 && (
                <span class="tab-badge" data-testid="live-badge">
                  {unseen}
                  <span class="sr-only"> new calls</span>
                </span>
              )}
            </button>
          ))}
        </div>
        <div class="file">
          {/* The file's name only: the header has no room for a folder; the full path is its tooltip
              and the path box's text. */}
          <span class="file-name" data-testid="file-name" title={s.path ?? 'embedded default scene'}>
            {s.dirty && (
              <span class="unsaved" data-testid="unsaved" title="unsaved edits">
                ●
              </span>
            )}
            {s.path ? baseName(s.path) : s.received ? 'received call (not saved)' : 'default scene (embedded)'}
          </span>
          <datalist id="recent-files">
            {recent.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
          <input
            class="path"
            list="recent-files"
            ref={pathBox}
            title={
              askingSaveAs
                ? 'Save as: type the path to save to, then Enter (Escape gives up)'
                : "A scene file path: absolute, or relative to the open scene's folder (recent files are offered); Enter opens it. Ctrl+O comes here"
            }
            placeholder={askingSaveAs ? 'Save as: type a path, then Enter' : '/path/to/scene.scene.json'}
            value={pathInput}
            onInput={(e) => setPathInput((e.target as HTMLInputElement).value)}
            aria-label={askingSaveAs ? 'Path to save the scene as' : 'Scene file path'}
            aria-keyshortcuts="Control+O"
            data-testid="path-input"
            onBlur={() => setAskingSaveAs(false)}
            onKeyDown={(e) => {
              if (e.isComposing) return;
              if (e.key === 'Escape' && askingSaveAs) setAskingSaveAs(false);
              if (e.key !== 'Enter') return;
              // The box's own value: the key may come before the render that stores the typed text.
              const typed = (e.currentTarget as HTMLInputElement).value.trim();
              if (askingSaveAs) {
                if (typed) void saveClick(true, true);
              } else void openPath(typed);
            }}
          />
          <button type="button" onClick={openClick} data-testid="open">
            Open
          </button>
          <RecentMenu current={s.path} onOpen={(p) => void openPath(p)} onCleared={() => s.recentFilesChanged()} />
          <button
            type="button"
            onClick={() => saveClick(false)}
            data-testid="save"
            disabled={!s.dirty && !!s.path}
            title="Save (Ctrl+S)"
            aria-keyshortcuts="Control+S"
          >
            Save
          </button>
          <button
            type="button"
            onClick={() => saveClick(true)}
            data-testid="save-as"
            title="Save as (Ctrl+Shift+S)"
            aria-keyshortcuts="Control+Shift+S"
          >
            Save as
          </button>
          <button
            type="button"
            onClick={async () => {
              if (!s.dirty || confirm('Discard the unsaved edits?')) {
                await s.openDefault();
                setPathInput('');
              }
            }}
            title="Open the embedded default scene"
          >
            Default
          </button>
          {s.models.length > 0 && (
            <label
              class="check model-pick"
              title="The model the board's costs and the Run view's cache split are for; each row with its input price in USD per million tokens (docs/models.md). The board prices a first call, nothing cached"
            >
              Model{' '}
              <select data-testid="model" value={s.model ?? ''} onChange={(e) => s.setModel((e.target as HTMLSelectElement).value)}>
                {modelGroups(s.models).map(([provider, rows]) => (
                  <optgroup key={provider} label={provider}>
                    {rows.map((m) => (
                      <option key={m.id} value={m.id}>
                        {modelLabel(m)}
                      </option>
                    ))}
                  </optgroup>
                ))}
              </select>
            </label>
          )}
          <label class="check" title="Count tokens (o200k_base)">
            <input
              type="checkbox"
              checked={s.tokens}
              onChange={(e) => {
                s.setTokens((e.target as HTMLInputElement).checked);
              }}
            />{' '}
            tokens
          </label>
        </div>
      </header>
      {(s.fileError || s.diskConflict || s.notice || s.renderError || (s.received && tab === 'inspector')) && (
        <section class="banners" aria-label="Notices">
          {s.received && tab === 'inspector' && (
            <div class="banner banner-warn" data-testid="received-note">
              Received call — not saved: {s.received} is shown read-only. Save asks for a path; once saved it is a scene you can edit.
            </div>
          )}
          {s.fileError && (
            <div class="banner banner-error" role="alert" data-testid="file-error">
              {s.fileError}{' '}
              <button type="button" onClick={() => s.dismissFileError()}>
                Dismiss
              </button>
            </div>
          )}
          {s.diskConflict && (
            <div class="banner banner-warn" role="alert">
              {s.path} changed on disk, and you have unsaved edits.
              <button type="button" onClick={() => void s.reloadFromDisk()}>
                Reload from disk (discard my edits)
              </button>
              <button type="button" onClick={() => void s.ignoreDisk()}>
                Keep my edits
              </button>
            </div>
          )}
          {s.notice && (
            <div class="banner banner-ok" role="status">
              {s.notice}{' '}
              <button type="button" onClick={() => s.dismissNotice()}>
                OK
              </button>
            </div>
          )}
          {s.renderError && (
            <div class="banner banner-error" role="alert" data-testid="render-error">
              The scene does not render: {errorText(s.renderError)}
            </div>
          )}
        </section>
      )}
      {tab === 'inspector' && (
        <main class="inspector">
          <aside class="left" aria-label="Tools and prompts">
            <h2 class="sr-only">Tools and prompts</h2>
            <Held version={panels} deps={[left, selected, palette, selectedPrompt]}>
              {() => (
                <LeftPane
                  session={s}
                  mode={left}
                  setMode={setLeft}
                  selectedTool={selected}
                  onSelectTool={setSelected}
                  palette={palette}
                  selectedPrompt={selectedPrompt}
                  onSelectPrompt={setSelectedPrompt}
                  onSegment={goSegment}
                />
              )}
            </Held>
          </aside>
          <section class="centre" aria-labelledby="board-h">
            <h2 class="sr-only" id="board-h">
              Segment board
            </h2>
            <Segments
              chat={s.reports?.chat ?? null}
              desk={s.reports?.desk ?? null}
              rules={s.rules}
              palette={palette}
              adapter={adapterOf(s.scene)}
              setAdapter={setAdapter}
              provider={s.provider}
              session={s}
              onView={setTab}
              onSelectTool={selectTool}
              onSelectPrompt={selectPrompt}
              selectedTool={selected}
              hasConfigured={hasConfigured}
              model={s.tokens ? s.model : null}
            />
          </section>
          <aside class="right" aria-label="Context, diagnostics and metrics">
            <Held version={panels} deps={[]}>
              {() => <ContextPanel session={s} onTemplate={openTemplate} onSegment={goSegment} onView={setTab} />}
            </Held>
          </aside>
        </main>
      )}
      {tab === 'rules' && <RulesView session={s} />}
      {tab === 'run' && <RunView session={s} />}
      {tab === 'conversation' && <ConversationView session={s} given={givenConversation} />}
      {tab === 'live' && (
        <LiveView
          session={s}
          live={live}
          paused={livePaused}
          setPaused={setLivePaused}
          onClear={() => void poller.clear()}
          onShow={(c) => void showReceived(c)}
          onConversation={(id, calls) => {
            setGivenConversation({ name: id, scenes: calls.map((c) => c.scene) });
            setTab('conversation');
          }}
        />
      )}
      {tab === 'replay' && (
        <ReplayView
          session={s}
          onOpen={async (p) => {
            if (await openPath(p)) setTab('inspector');
          }}
        />
      )}
    </div>
  );
}
