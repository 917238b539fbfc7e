// The About box (src/views/About.tsx) and where its versions come from: the desktop shell's
// `app_info` and the core's `about` over IPC, or `POST /api/about` in a browser, where the program
// is `prompt-inspector serve`.
import { afterEach, describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import type { About } from '../src/api/api';
import { httpApi } from '../src/api/http';
import { createTauriApi } from '../src/api/tauri';
import { AboutButton } from '../src/views/About';
import { fakeApi } from './fake-api';

const versions: About = {
  host: { name: 'prompt-inspector-app', version: '1.2.3' },
  core: { name: 'prompt-inspector', version: '4.5.6' },
};

async function mount(about: () => Promise<About>) {
  const root = document.createElement('div');
  document.body.append(root);
  await act(async () => {
    render(h(AboutButton, { api: fakeApi({ about }) }), root);
  });
  const button = root.querySelector<HTMLButtonElement>('[data-testid="about-button"]')!;
  return {
    root,
    button,
    unmount: () => {
      render(null, root);
      root.remove();
    },
  };
}

describe('the About box', () => {
  afterEach(() => clearMocks());

  it('shows the app and core versions, reached and left with the keyboard', async () => {
    let asked = 0;
    const { root, button, unmount } = await mount(async () => {
      asked++;
      return versions;
    });
    // The toolbar's brand, named for what it does.
    expect(button.textContent).toBe('Prompt Inspector');
    expect(button.getAttribute('aria-label')).toBe('About Prompt Inspector');
    expect(button.getAttribute('aria-haspopup')).toBe('dialog');
    expect(button.getAttribute('aria-expanded')).toBe('false');
    expect(root.querySelector('[role="dialog"]')).toBe(null);

    button.focus();
    await act(async () => {
      button.click();
    });
    const dialog = root.querySelector<HTMLElement>('[role="dialog"]')!;
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(button.getAttribute('aria-controls')).toBe(dialog.id);
    // Its accessible name is its heading.
    expect(root.querySelector(`#${dialog.getAttribute('aria-labelledby')}`)?.textContent).toBe('About Prompt Inspector');
    expect(root.querySelector('[data-testid="about-app"]')?.textContent).toBe('prompt-inspector-app 1.2.3');
    expect(root.querySelector('[data-testid="about-core"]')?.textContent).toBe('prompt-inspector 4.5.6');
    expect(document.activeElement?.textContent).toBe('Close');

    await act(async () => {
      dialog.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    });
    expect(root.querySelector('[role="dialog"]')).toBe(null);
    expect(document.activeElement).toBe(button);
    expect(button.getAttribute('aria-expanded')).toBe('false');

    // Opened again, it shows what it asked for the first time.
    await act(async () => {
      button.click();
    });
    expect(root.querySelector('[data-testid="about-core"]')?.textContent).toBe('prompt-inspector 4.5.6');
    expect(asked).toBe(1);
    await act(async () => {
      root.querySelector<HTMLButtonElement>('[role="dialog"] button')!.click();
    });
    expect(root.querySelector('[role="dialog"]')).toBe(null);
    expect(document.activeElement).toBe(button);
    unmount();
  });

  it('says why when the versions cannot be had, and asks again next time', async () => {
    let fail = true;
    const { root, button, unmount } = await mount(async () => {
      if (fail) throw { code: 'network', message: 'cannot reach prompt-inspector serve: refused' };
      return versions;
    });
    await act(async () => {
      button.click();
    });
    expect(root.querySelector('[role="alert"]')?.textContent).toBe('cannot reach prompt-inspector serve: refused');
    expect(root.querySelector('[data-testid="about-core"]')).toBe(null);
    await act(async () => {
      button.click();
    });
    fail = false;
    await act(async () => {
      button.click();
    });
    expect(root.querySelector('[role="alert"]')).toBe(null);
    expect(root.querySelector('[data-testid="about-app"]')?.textContent).toBe('prompt-inspector-app 1.2.3');
    unmount();
  });

  it('in the app: the shell gives the app version, the core its own', async () => {
    const cmds: string[] = [];
    mockIPC((cmd) => {
      cmds.push(cmd);
      if (cmd === 'about') return { name: 'prompt-inspector', version: '0.9.0' };
      if (cmd === 'app_info') return { version: '2.0.1', log_file: null, recent_logs: [] };
      throw new Error(`unexpected ${cmd}`);
    });
    expect(await createTauriApi().about()).toEqual({
      host: { name: 'prompt-inspector-app', version: '2.0.1' },
      core: { name: 'prompt-inspector', version: '0.9.0' },
    });
    expect(cmds.sort()).toEqual(['about', 'app_info']);
  });

  it('in a browser: POST /api/about, and the program is serve, the core’s own command line', async () => {
    const asked: { url: string; method?: string }[] = [];
    const api = httpApi('http://127.0.0.1:9', 'tok', async (url, init) => {
      asked.push({ url, method: init?.method });
      return new Response(JSON.stringify({ name: 'prompt-inspector', version: '0.9.0' }), { status: 200 });
    });
    expect(await api.about()).toEqual({
      host: { name: 'prompt-inspector serve', version: '0.9.0' },
      core: { name: 'prompt-inspector', version: '0.9.0' },
    });
    expect(asked).toEqual([{ url: 'http://127.0.0.1:9/api/about', method: 'POST' }]);
  });
});
