import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { clearRecentFiles, menuMove, recentFiles, shortDir, splitPath } from '../lib/recent';

interface Props {
  /** The open file (marked in the list). */
  current: string | null;
  /** Open a file: the app's own open path (unsaved-edits guard, errors in the banner). */
  onOpen: (path: string) => void;
  /** The list was cleared. */
  onCleared?: () => void;
}

/** "Recent ▾": a menu button (WAI-ARIA pattern) over the last opened or saved files.
 *  Enter, Space or ↓ opens it on the first item, ↑ on the last; ↑ ↓ Home End move, Enter
 *  picks, Escape closes back on the button, Tab or a click outside closes it. */
export function RecentMenu({ current, onOpen, onCleared }: Props) {
  const [open, setOpen] = useState(false);
  const [files, setFiles] = useState<string[]>([]);
  const [focusAt, setFocusAt] = useState<number | 'first' | 'last'>('first');
  const wrap = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  const items = () => [...(wrap.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not([aria-disabled="true"])') ?? [])];
  const show = async (at: 'first' | 'last') => {
    setFiles(await recentFiles());
    setFocusAt(at);
    setOpen(true);
  };
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  // Focus the requested item before the menu's first frame, so a key pressed at once reaches it.
  useLayoutEffect(() => {
    if (!open) return;
    const list = items();
    const i = focusAt === 'first' ? 0 : focusAt === 'last' ? list.length - 1 : focusAt;
    list[Math.max(0, Math.min(i, list.length - 1))]?.focus();
  }, [open, focusAt, files]);

  // A press outside closes it.
  useEffect(() => {
    if (!open) return;
    const h = (e: PointerEvent) => {
      if (!wrap.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', h, true);
    return () => document.removeEventListener('pointerdown', h, true);
  }, [open]);

  const onMenuKey = (e: KeyboardEvent) => {
    const list = items();
    const cur = list.indexOf(document.activeElement as HTMLElement);
    const to = menuMove(e.key, cur, list.length);
    if (to !== null) {
      e.preventDefault();
      list[to]?.focus();
      return;
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close(true);
    } else if (e.key === 'Tab') setOpen(false);
  };
  const pick = (p: string) => {
    close(true);
    onOpen(p);
  };

  return (
    <div class="menu-wrap" ref={wrap}>
      <button
        type="button"
        ref={button}
        class="menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        // Only while the menu exists: an id reference to nothing is an invalid attribute value.
        aria-controls={open ? 'recent-menu' : undefined}
        data-testid="recent"
        title="Recently opened or saved scene files"
        onClick={() => (open ? close(false) : void show('first'))}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || ((e.key === 'Enter' || e.key === ' ') && !open)) {
            e.preventDefault();
            void show('first');
          } else if (e.key === 'ArrowUp') {
            e.preventDefault();
            void show('last');
          } else if (e.key === 'Escape' && open) {
            e.preventDefault();
            close(true);
          }
        }}
      >
        Recent <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div class="menu" id="recent-menu" role="menu" aria-label="Recent files" data-testid="recent-menu" onKeyDown={onMenuKey}>
          {!files.length && (
            <div role="menuitem" tabIndex={-1} aria-disabled="true" class="menu-item disabled">
              No recent files yet
            </div>
          )}
          {files.map((p) => {
            const { name, dir } = splitPath(p);
            const isOpen = p === current;
            return (
              <button
                type="button"
                key={p}
                role="menuitem"
                tabIndex={-1}
                class={`menu-item${isOpen ? ' current' : ''}`}
                title={p}
                onClick={() => pick(p)}
              >
                <span class="menu-file">
                  {name}
                  {isOpen && <span class="menu-note"> (open)</span>}
                </span>
                <span class="menu-dir">{shortDir(dir)}</span>
              </button>
            );
          })}
          {/* biome-ignore lint/a11y/useSemanticElements: a separator between menu items (WAI-ARIA menu pattern); an hr inside role=menu is not announced as one by every reader */}
          <div role="separator" class="menu-sep" />
          <button
            type="button"
            role="menuitem"
            tabIndex={-1}
            class="menu-item"
            aria-disabled={!files.length}
            data-testid="recent-clear"
            onClick={async () => {
              if (!files.length) return;
              await clearRecentFiles();
              setFiles([]);
              onCleared?.();
              close(true);
            }}
          >
            Clear recent
          </button>
        </div>
      )}
    </div>
  );
}
