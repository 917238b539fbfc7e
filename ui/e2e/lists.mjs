// The left pane's lists and the path box by keyboard alone (no mouse, no click, no focus() from a
// script), at 1280x720 and 1440x900: Ctrl+O reaches the path box and Enter opens the typed path;
// the tool list and the configured prompts are listboxes (arrows, Home/End, type-ahead) with a
// filter box; tabbing out of the template editor and back keeps the caret where it was; Save as
// without a save dialog asks for the path in the path box.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What has the focus: its test id, or that of the nearest ancestor with one. */
const focused = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el?.closest('[data-testid]')?.getAttribute('data-testid') ?? el?.tagName.toLowerCase() ?? null;
  });

/** Presses Tab (or Shift+Tab) until `want(focused test id)` (at most `max` times); the presses. */
async function tabUntil(page, want, what, { max = 40, back = false } = {}) {
  for (let n = 1; n <= max; n++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    if (want(await focused(page))) return n;
  }
  throw new Error(`FAILED: ${max} Tabs never reached ${what} (the focus ended on ${await focused(page)})`);
}

/** The selected options of the listbox(es) under `sel`, by label. */
const selected = (page, sel) =>
  page.locator(`${sel} [role="option"][aria-selected="true"]`).evaluateAll((os) => os.map((o) => o.dataset.label));

export async function listsJourney({ page, url, repo, dir, check, shots, axe }) {
  const first = join(dir, 'lists.scene.json');
  const second = join(dir, 'lists-2.scene.json');
  const saveAs = join(dir, 'lists-saved-as.scene.json');
  writeFileSync(first, readFileSync(join(repo, 'fixtures/default.scene.json')));
  writeFileSync(second, readFileSync(join(repo, 'fixtures/default.scene.json')));
  for (const [width, height] of [
    [1280, 720],
    [1440, 900],
  ]) {
    const at = `${width}x${height}`;
    await page.setViewportSize({ width, height });
    await page.goto(`${url}&open=${encodeURIComponent(first)}`);
    await page.getByTestId('file-name').getByText('lists.scene.json').waitFor();
    await page.getByTestId('seg-chat-after_input_msg_prompt').getByText('Memo:').waitFor();

    // Ctrl+O: the path box, its text selected; typing replaces it, Enter opens.
    const box = page.getByTestId('path-input');
    check((await box.getAttribute('aria-keyshortcuts')) === 'Control+O', `${at}: the path box announces its shortcut (Control+O)`);
    await page.keyboard.press('Control+O');
    check((await focused(page)) === 'path-input', `${at}: Ctrl+O puts the focus in the path box`);
    await page.keyboard.type(second);
    await page.keyboard.press('Enter');
    await page.getByTestId('file-name').getByText('lists-2.scene.json').waitFor();
    check(true, `${at}: Enter in the path box opened the typed path (lists-2.scene.json)`);

    // The tool list: one Tab stop, on the selected tool.
    const tabs = await tabUntil(page, (id) => id?.startsWith('tool-') && id !== 'tool-filter', 'the tool list');
    const landed = await focused(page);
    check(
      landed === 'tool-tf_notes' && JSON.stringify(await selected(page, '.tool-list')) === '["tf_notes"]',
      `${at}: ${tabs} Tabs from the path box reach the tool list, on the selected tool (${landed})`,
    );
    const detail = (name) => page.getByTestId('tool-detail').getByRole('heading', { name }).waitFor();
    // The template's editor is made after its detail (an effect, after a paint): a person sees it
    // before tabbing to it, and a Tab walk on a loaded machine must not pass its place earlier.
    const editorShown = () => page.getByTestId('tool-detail').getByTestId('template-editor').locator('.cm-content').first().waitFor();
    await page.keyboard.press('ArrowDown');
    await detail('chat_memo');
    check((await focused(page)) === 'tool-chat_memo', `${at}: ↓ moves the focus and the selection to chat_memo, its detail opens`);
    await page.keyboard.press('End');
    await detail('goal_rewriter');
    check((await focused(page)) === 'tool-goal_rewriter', `${at}: End goes to the last tool`);
    await page.keyboard.press('Home');
    await detail('tf_notes');
    await page.keyboard.type('ch');
    await detail('chat_memo');
    check((await focused(page)) === 'tool-chat_memo', `${at}: typing "ch" finds chat_memo`);
    await page.screenshot({ path: join(shots, `13a-lists-tools-${at}.png`) });

    // The filter box just before the list.
    await page.keyboard.press('Shift+Tab');
    check((await focused(page)) === 'tool-filter', `${at}: Shift+Tab from the list is the tool filter`);
    await page.keyboard.type('goal');
    const names = await page.locator('.tool-list [role="option"]').evaluateAll((os) => os.map((o) => o.dataset.label));
    check(JSON.stringify(names) === '["goal_rewriter"]', `${at}: the filter "goal" keeps goal_rewriter alone (${names})`);
    await page.keyboard.press('ArrowDown');
    await detail('goal_rewriter');
    check((await focused(page)) === 'tool-goal_rewriter', `${at}: ↓ in the filter box selects the first tool kept`);
    await page.screenshot({ path: join(shots, `13b-lists-filtered-${at}.png`) });
    await axe(page, `the tool list filtered (${at})`);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    check((await page.locator('.tool-list [role="option"]').count()) === 3, `${at}: clearing the filter shows the three tools again`);

    // Tabbing into the template editor keeps the caret where it was.
    await page.keyboard.press('Tab'); // the list, on goal_rewriter
    await editorShown();
    await tabUntil(page, (id) => id === 'template-editor', 'the template editor');
    await page.keyboard.press('Control+End');
    // Back to the list, to another tool and back to this one (its editor is made again), and Tab
    // on into the editor.
    await tabUntil(page, (id) => id === 'tool-goal_rewriter', 'the tool list', { back: true });
    await page.keyboard.press('ArrowUp');
    await detail('chat_memo');
    await page.keyboard.press('ArrowDown');
    await detail('goal_rewriter');
    await editorShown();
    const again = await tabUntil(page, (id) => id === 'template-editor', 'the template editor');
    check(true, `${at}: from the editor to the list, ↑ to chat_memo, ↓ back to goal_rewriter, ${again} Tabs into its editor`);
    await page.keyboard.type('~');
    const text = await page.getByTestId('template-editor').locator('.cm-content').innerText();
    check(
      text.trimEnd().endsWith('~') && !text.startsWith('~'),
      `${at}: the character typed after tabbing back lands at the end, where the caret was`,
    );
    await page.keyboard.press('Backspace');

    // The configured prompts: the pane's tabs, then the one list of both families.
    await tabUntil(page, (id) => id === 'pane-tools', 'the pane tabs', { back: true, max: 60 });
    await page.keyboard.press('ArrowRight');
    await page.getByTestId('prompt-filter').waitFor();
    await tabUntil(page, (id) => id?.startsWith('prompt-') && id !== 'prompt-filter', 'the prompt list');
    const start = await focused(page);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const crossed = await focused(page);
    check(
      start === 'prompt-system_msg_prompt-0' && crossed === 'prompt-system_prompt-0',
      `${at}: ↓ ↓ in the prompt list goes from ${start} across into the DeskLLM list (${crossed})`,
    );
    await page.getByTestId('prompt-detail').getByText('desk_llm.system_prompt[0]').waitFor();
    await page.keyboard.type('pu');
    check((await focused(page)) === 'prompt-purpose_prompt-0', `${at}: typing "pu" finds purpose_prompt`);
    await page.screenshot({ path: join(shots, `13c-lists-prompts-${at}.png`) });
    await axe(page, `the configured prompt list (${at})`);
    await tabUntil(page, (id) => id === 'pane-prompts', 'the pane tabs', { back: true });
    await page.keyboard.press('ArrowLeft');
  }

  // Save as in the browser (no save dialog): the path box takes the path, Enter saves there.
  await page.keyboard.press('Control+O');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+Shift+S');
  check((await focused(page)) === 'path-input', 'Save as with no dialog puts the focus in the path box');
  const hint = await page.getByRole('status').filter({ hasText: 'Save as' }).innerText();
  const label = await page.getByTestId('path-input').getAttribute('aria-label');
  check(
    /path box/.test(hint) && label === 'Path to save the scene as',
    `a notice says what the path box asks for ("${hint.trim()}"), and so does the box's name ("${label}")`,
  );
  await page.screenshot({ path: join(shots, '13d-save-as-asks.png') });
  await page.keyboard.type(saveAs);
  await page.keyboard.press('Enter');
  await page.getByTestId('file-name').getByText('lists-saved-as.scene.json').waitFor();
  check(existsSync(saveAs), 'Enter in the path box saved the scene there (Save as)');
  await page.setViewportSize({ width: 1600, height: 1000 });
}
