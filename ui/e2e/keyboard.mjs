// The keyboard-only journey: with `page.keyboard` alone (no mouse, no click, no focus() from a
// script) a person reaches a tool, moves it to another position, edits its template and saves;
// the file on disk has both changes. Each control the focus lands on shows a focus ring.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What has the focus: its test id, or that of the nearest ancestor with one (CodeMirror's content). */
const focused = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el?.closest('[data-testid]')?.getAttribute('data-testid') ?? el?.tagName.toLowerCase() ?? null;
  });

/** Presses Tab until the focus is on `testId` (at most `max` times); the number of presses. */
async function tabTo(page, testId, max = 60) {
  for (let n = 1; n <= max; n++) {
    await page.keyboard.press('Tab');
    if ((await focused(page)) === testId) return n;
  }
  throw new Error(`FAILED: ${max} Tabs never reached ${testId} (the focus ended on ${await focused(page)})`);
}

/** The focused element's focus indicator: its outline (or, in the editor, the editor's). */
const focusRing = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    const ring = el?.closest('.cm-editor') ?? el;
    const st = getComputedStyle(ring);
    return { style: st.outlineStyle, width: Number.parseFloat(st.outlineWidth), color: st.outlineColor };
  });

/**
 * Runs the keyboard journey on a copy of the default scene in `dir`. `check(cond, msg)` records a
 * step; `shot(name)` takes a screenshot.
 */
export async function keyboardJourney({ page, url, repo, dir, check, shot }) {
  const file = join(dir, 'keyboard.scene.json');
  writeFileSync(file, readFileSync(join(repo, 'fixtures/default.scene.json')));
  await page.goto(`${url}&open=${encodeURIComponent(file)}`);
  await page.getByTestId('file-name').getByText('keyboard.scene.json').waitFor();
  await page.getByTestId('seg-chat-after_input_msg_prompt').getByText('Memo:').waitFor();
  const ringOk = async (what) => {
    const r = await focusRing(page);
    check(r.style !== 'none' && r.width >= 2, `${what} shows a focus ring (${r.style} ${r.width}px ${r.color})`);
  };

  // The first Tab reaches About (the toolbar's brand), the next the view tabs: one stop, on the
  // open view's; ← → switch views.
  const activeId = () => page.evaluate(() => document.activeElement?.id ?? '');
  await page.keyboard.press('Tab');
  check((await focused(page)) === 'about-button', 'keyboard: the first Tab reaches About');
  await page.keyboard.press('Tab');
  check((await activeId()) === 'view-tab-inspector', 'keyboard: the next Tab reaches the view tabs, on Inspector');
  await page.keyboard.press('ArrowRight');
  await page.getByTestId('try-it').waitFor();
  check((await activeId()) === 'view-tab-rules', 'keyboard: → opens the Rules view, the focus on its tab');
  await page.keyboard.press('ArrowLeft');
  await page.getByTestId('tool-chat_memo').waitFor();
  check((await activeId()) === 'view-tab-inspector', 'keyboard: ← goes back to the Inspector');

  // Reach the tool list (one Tab stop, on the selected tool), then ↓ to chat_memo.
  const tabs = 2 + (await tabTo(page, 'tool-tf_notes'));
  check(true, `keyboard: ${tabs} Tabs from the top of the page reach the tool list, on the selected tool tf_notes`);
  await page.keyboard.press('ArrowDown');
  await page.getByTestId('tool-detail').getByRole('heading', { name: 'chat_memo' }).waitFor();
  check(
    (await page.getByTestId('tool-chat_memo').getAttribute('aria-selected')) === 'true' && (await focused(page)) === 'tool-chat_memo',
    'keyboard: ↓ in the tool list selects chat_memo, focuses its row and opens its detail',
  );
  await ringOk('the tool row');
  await shot('11a-keyboard-tool-focused.png');

  // Change its position: the desk side, from None to the second desk segment (instruction_prompt).
  await tabTo(page, 'pos-desk', 10);
  await ringOk('the desk position picker');
  // A closed select does not change on ↓ alone (ui/src/lib/select-keys.ts): ↓ opens its list, ↓ ↓
  // move in it, Enter picks.
  await page.keyboard.press('ArrowDown');
  check(
    (await page.getByTestId('pos-desk').inputValue()) === '',
    'keyboard: ↓ on the closed desk position opens its list and changes nothing',
  );
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.getByTestId('seg-desk-instruction_prompt').getByText('Memo:').waitFor();
  check(
    (await page.getByTestId('pos-desk').inputValue()) === 'instruction_prompt',
    "keyboard: ↓ ↓ and Enter in the desk position's list move chat_memo to instruction_prompt, and the board shows it there",
  );

  // Edit its template: Tab on into the editor, type at the end.
  await tabTo(page, 'template-editor', 15);
  // CodeMirror marks itself focused (cm-focused, which draws the ring) just after the focus event.
  await page.getByTestId('template-editor').locator('.cm-editor.cm-focused').waitFor();
  await ringOk('the template editor');
  await page.keyboard.press('Control+End');
  await page.keyboard.type(' (by keyboard)');
  await page.getByTestId('seg-desk-instruction_prompt').getByText('(by keyboard)').waitFor();
  check(await page.getByTestId('unsaved').isVisible(), 'keyboard: typing in the template editor edits the template (unsaved)');
  await shot('11b-keyboard-edit.png');

  // Save: Ctrl+S from inside the editor.
  await page.keyboard.press('Control+S');
  await page.getByTestId('unsaved').waitFor({ state: 'detached', timeout: 5000 });
  const tool = JSON.parse(readFileSync(file, 'utf8')).tools.find((t) => t.name === 'chat_memo');
  check(
    JSON.stringify(tool.prompt_position) === '["after_input_msg_prompt","instruction_prompt"]' &&
      tool.format_2_prompt.source.templates.default === 'Memo: {state} (by keyboard)',
    `keyboard: Ctrl+S saved the file: position ${JSON.stringify(tool.prompt_position)}, template ${JSON.stringify(tool.format_2_prompt.source.templates.default)}`,
  );
  check(
    await page.evaluate(() => !!document.activeElement?.closest('[data-testid="template-editor"]')),
    'keyboard: the focus stays in the editor after saving',
  );
  // The editor keeps no Tab: it moves the focus on (here to the tool's state editor).
  await page.keyboard.press('Tab');
  const after = await focused(page);
  check(after !== 'template-editor', `keyboard: Tab leaves the template editor, no trap (to ${after})`);
}
