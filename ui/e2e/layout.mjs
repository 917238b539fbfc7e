// Every view reachable at every width: with a scene opened by a long absolute path, at 1024, 1280,
// 1440 and 1920 px, each view tab is what the pointer hits at its centre (nothing drawn over it)
// and a click on it shows its view; no two header controls overlap; the header names the file by
// its base name with the full path as its tooltip. At 1280x720 the selected tool's template shows
// without scrolling, segment names break only between words, a notice does not move the views,
// and every control's text holds AA contrast as drawn, hovered and focused (contrast.mjs).
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { contrastFailures } from './contrast.mjs';

const SIZES = [
  [1024, 720],
  [1280, 720],
  [1440, 900],
  [1920, 1080],
];
const VIEWS = ['inspector', 'rules', 'run', 'conversation', 'replay', 'live'];

/** In the page: each view tab, whether the element at its centre is the tab (or inside it). */
function tabsHit() {
  return [...document.querySelectorAll('header [role=tab]')].map((t) => {
    const r = t.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return { id: t.id, ok: !!hit && (hit === t || t.contains(hit)), hit: hit ? `${hit.tagName} ${hit.className}` : 'nothing' };
  });
}

/** In the page: the pairs of header controls whose boxes overlap (neither inside the other). */
function headerOverlaps() {
  const els = [...document.querySelectorAll('header :is(button, input, select, label, [data-testid=file-name], [role=tab])')].filter(
    (e) => {
      const r = e.getBoundingClientRect();
      return r.width > 1 && r.height > 1 && getComputedStyle(e).visibility !== 'hidden';
    },
  );
  const name = (e) => e.dataset.testid || e.id || e.getAttribute('aria-label') || e.textContent.trim().slice(0, 20);
  const out = [];
  for (let i = 0; i < els.length; i++)
    for (let j = i + 1; j < els.length; j++) {
      const [a, b] = [els[i], els[j]];
      if (a.contains(b) || b.contains(a)) continue;
      const [p, q] = [a.getBoundingClientRect(), b.getBoundingClientRect()];
      // One pixel of touching borders is not an overlap.
      if (p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1) out.push(`${name(a)} / ${name(b)}`);
    }
  return out;
}

/** In the page: segment names that wrap, `midWord` those that wrap inside a word (a line starts
 *  after a character that is not the `_` the name may break after). */
function wrappedNames() {
  const bad = [];
  const wrapped = new Set();
  for (const el of document.querySelectorAll('.seg-name')) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let prevTop = null;
    let prevChar = '';
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (let i = 0; i < n.length; i++) {
        const r = document.createRange();
        r.setStart(n, i);
        r.setEnd(n, i + 1);
        const rect = r.getClientRects()[0];
        if (!rect) continue;
        if (prevTop !== null && rect.top > prevTop + 2) {
          wrapped.add(el.textContent);
          if (prevChar !== '_') bad.push(`${el.textContent} (after "${prevChar}")`);
        }
        prevTop = rect.top;
        prevChar = n.data[i];
      }
    }
  }
  return { midWord: bad, wrapped: [...wrapped] };
}

export async function layoutJourney({ page, url, repo, tmp, check, shots, axe }) {
  // A scene opened by a long absolute path (the header once drew it over the view tabs).
  const deep = join(tmp, 'a-folder-with-a-rather-long-name', 'projects-of-the-team', 'prompt-inspector-scenes', 'nested');
  mkdirSync(deep, { recursive: true });
  const file = join(deep, 'the-default-scene-under-a-long-file-name.scene.json');
  copyFileSync(join(repo, 'fixtures/default.scene.json'), file);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(url);
  await page.getByTestId('seg-chat-system_msg_prompt').waitFor();
  // Enter in the path box opens it.
  await page.getByTestId('path-input').fill(file);
  await page.getByTestId('path-input').press('Enter');
  const fileName = page.getByTestId('file-name');
  await page.waitForFunction(() => document.querySelector('[data-testid=file-name]')?.textContent.includes('long-file-name'));
  check(
    (await fileName.innerText()).trim() === 'the-default-scene-under-a-long-file-name.scene.json' &&
      (await fileName.getAttribute('title')) === file,
    'the header names the file by its base name, the full path on hover',
  );
  for (const [width, height] of SIZES) {
    const size = `${width}x${height}`;
    await page.setViewportSize({ width, height });
    const hits = await page.evaluate(tabsHit);
    check(
      hits.length === VIEWS.length && hits.every((h) => h.ok),
      `${size}: each view tab is what the pointer hits at its centre${hits
        .filter((h) => !h.ok)
        .map((h) => ` (${h.id} under ${h.hit})`)
        .join('')}`,
    );
    const overlaps = await page.evaluate(headerOverlaps);
    check(overlaps.length === 0, `${size}: no two header controls overlap${overlaps.length ? `: ${overlaps.join(', ')}` : ''}`);
    const missed = [];
    for (const v of [...VIEWS.slice(1), VIEWS[0]]) {
      // A trial click fails when something else would take the click at the tab's centre.
      await page.locator(`#view-tab-${v}`).click({ timeout: 3000 });
      const shown = await page
        .waitForFunction((id) => document.getElementById(id)?.getAttribute('aria-selected') === 'true', `view-tab-${v}`, { timeout: 3000 })
        .then(
          () => true,
          () => false,
        );
      if (!shown) missed.push(v);
    }
    check(missed.length === 0, `${size}: a click on each view tab shows its view${missed.length ? ` (not: ${missed.join(', ')})` : ''}`);
    await page.screenshot({ path: join(shots, `00-layout-${size}.png`) });
  }

  // At 1280x720: the selected tool's template editor shows without scrolling the left pane.
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.locator('.tool-row').first().click();
  const editor = await page.evaluate(() => {
    const pane = document.querySelector('aside.left');
    const cm = document.querySelector('[data-testid=template-editor] .cm-editor');
    if (!pane || !cm) return null;
    const r = cm.getBoundingClientRect();
    const end = pane.getBoundingClientRect().bottom;
    // Whole, or (a long template) at least 150 px of it: several lines, not a first line peeking in.
    return { scrolled: pane.scrollTop, shown: Math.round(Math.min(r.bottom, end) - r.top), need: Math.round(Math.min(r.height, 150)) };
  });
  check(
    !!editor && editor.scrolled === 0 && editor.shown >= editor.need,
    `1280x720: the selected tool's template is visible without scrolling (${editor?.shown} px of it shown, ${editor?.need} needed)`,
  );
  // Segment names: whole on one line at 1280 px (the figures move under a long one); narrower,
  // a name too wide for its card breaks only after an underscore.
  const names = await page.evaluate(wrappedNames);
  check(
    names.wrapped.length === 0,
    `1280x720: each segment name is on one line${names.wrapped.length ? `, not: ${names.wrapped.join(', ')}` : ''}`,
  );
  await page.setViewportSize({ width: 1024, height: 720 });
  const narrow = await page.evaluate(wrappedNames);
  check(
    narrow.midWord.length === 0,
    `1024x720: segment names break only after "_"${narrow.midWord.length ? `: ${narrow.midWord.join(', ')}` : ''}`,
  );
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.screenshot({ path: join(shots, '00-layout-template-1280x720.png') });

  // A notice arriving does not move the views.
  const before = await page.locator('main.inspector').boundingBox();
  await page.getByTestId('path-input').fill(join(tmp, 'no-such-folder', 'missing.scene.json'));
  await page.getByTestId('path-input').press('Enter');
  await page.getByTestId('file-error').waitFor();
  const after = await page.locator('main.inspector').boundingBox();
  check(
    before.y === after.y && before.height === after.height,
    `a notice does not push the views (board at y=${before.y} before and ${after.y} after)`,
  );
  await page.screenshot({ path: join(shots, '00-layout-notice-1280x720.png') });
  await axe(page, 'the main window with an error notice (1280x720)');
  await page.getByTestId('file-error').getByRole('button', { name: 'Dismiss' }).click();

  // Text contrast in every state, in each view (the selected toggles shown too).
  await page.getByTestId('chat-messages').click();
  await page.getByTestId('desk-request').click();
  for (const v of VIEWS) {
    await page.locator(`#view-tab-${v}`).click();
    await page.waitForTimeout(150);
    const { failures, checked } = await contrastFailures(page);
    check(
      failures.length === 0,
      `1280x720, ${v}: ${checked} controls hold AA contrast as drawn, hovered and focused${failures.length ? `:\n  ${failures.join('\n  ')}` : ''}`,
    );
  }
  await page.locator('#view-tab-inspector').click();
  await page.getByRole('button', { name: 'Segments' }).first().click();
  await page.getByRole('button', { name: 'Segments' }).nth(1).click();
  await page.setViewportSize({ width: 1600, height: 1000 });
}
