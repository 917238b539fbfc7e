// Help while editing a template, in Chromium at 1280x720 and 1440x900: a render-time KeyError
// underlined at its field with what exists ("did you mean"), put right from the underline's
// tooltip; completion of the variables the template reads; switching the engine over the other
// engine's syntax warns, with the previous engine one click away; a closed select does not change
// on an arrow key; a second locale previewed without changing the scene, then made the one that
// renders.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The scene text the app holds (its live document), to tell that nothing changed. */
const sceneText = (page) => page.evaluate(() => window.__pi.text);

/**
 * Runs the editing journey on a copy of the default scene in `dir`. `check(cond, msg)` records a
 * step; `shots` is the screenshot folder; `axe(page, name)` scans the page.
 */
export async function editingJourney({ page, url, repo, dir, check, shots, axe }) {
  const file = join(dir, 'editing.scene.json');
  writeFileSync(file, readFileSync(join(repo, 'fixtures/default.scene.json')));
  for (const [width, height] of [
    [1280, 720],
    [1440, 900],
  ]) {
    const at = `${width}x${height}`;
    await page.setViewportSize({ width, height });
    await page.goto(`${url}&open=${encodeURIComponent(file)}`);
    await page.getByTestId('file-name').getByText('editing.scene.json').waitFor();
    const memoCard = page.getByTestId('seg-chat-after_input_msg_prompt');
    await memoCard.getByText('Memo:').waitFor();
    await page.getByTestId('tool-chat_memo').click();
    await page.getByTestId('tool-detail').getByRole('heading', { name: 'chat_memo' }).waitFor();
    const editor = page.getByTestId('template-editor');
    const content = editor.locator('.cm-content');

    // 1. A render-time KeyError on line 2: underlined at its field, with the key that exists.
    await content.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    // Completion: `{ctx[` offers the context's keys; typing narrows, Enter takes one (with its `]`).
    await page.keyboard.type('You: {ctx[');
    const popup = page.locator('.cm-tooltip-autocomplete');
    await popup.waitFor();
    const offered = await popup.locator('li').allInnerTexts();
    check(
      ['user_input', 'conversation', 'runtime_vars', 'neural', 'tools'].every((k) => offered.some((o) => o.startsWith(k))),
      `${at}: after {ctx[ the completion offers the context's keys (${offered.map((o) => o.split(/\s/)[0]).join(', ')})`,
    );
    await page.keyboard.type('user_');
    await page.keyboard.press('Enter');
    await page.keyboard.type('[');
    await popup.waitFor();
    const level2 = await popup.locator('li').allInnerTexts();
    check(
      level2.some((o) => o.startsWith('input')) && level2.some((o) => o.startsWith('additional_info')),
      `${at}: after {ctx[user_input][ it offers that level's keys (${level2.map((o) => o.split(/\s/)[0]).join(', ')})`,
    );
    await page.keyboard.press('Escape');
    // A typo: the render raises KeyError 'inptu' at line 2, column 6.
    await page.keyboard.type('inptu]}');
    const line2 = 'You: {ctx[user_input][inptu]}';
    check(
      (await content.innerText()).includes(`Memo: {state}\n${line2}`),
      `${at}: completion wrote the field (${JSON.stringify(await content.innerText())})`,
    );
    const mark = editor.locator('.cm-lintRange-error');
    // Marks of the text while it was typed (an unclosed field) may show first: wait for the render's.
    const underlinedNow = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('[data-testid="template-editor"] .cm-lintRange-error')].map((e) => e.textContent).join(''),
      );
    await page
      .waitForFunction(
        () =>
          [...document.querySelectorAll('[data-testid="template-editor"] .cm-lintRange-error')].map((e) => e.textContent).join('') ===
          '{ctx[user_input][inptu]}',
        null,
        { timeout: 10000 },
      )
      .catch(() => {});
    const underlined = await underlinedNow();
    check(
      underlined === '{ctx[user_input][inptu]}',
      `${at}: the KeyError is underlined at its field on line 2 (${JSON.stringify(underlined)})`,
    );
    const hint = page.getByTestId('template-editor-did-you-mean');
    await hint.waitFor();
    const hintText = await hint.innerText();
    check(
      hintText.includes('Line 2, column 6') && hintText.includes('Did you mean ctx[user_input][input]?'),
      `${at}: under the editor, what exists: "${hintText}"`,
    );
    await page.screenshot({ path: join(shots, `12a-render-error-${at}.png`) });
    // The underline's tooltip: the error and the suggestion as a button that puts it in place.
    await mark.first().hover();
    const tip = page.locator('.cm-tooltip-lint');
    await tip.waitFor();
    check((await tip.innerText()).includes("KeyError: 'inptu'"), `${at}: hovering the underline shows the error`);
    await page.screenshot({ path: join(shots, `12b-render-error-tooltip-${at}.png`) });
    await tip.getByRole('button', { name: 'Use ctx[user_input][input]' }).click();
    await memoCard.getByText('You: 你刚才记了什么？').waitFor();
    check(true, `${at}: the suggestion's button fixed the field; the board shows the user's words on line 2`);
    await mark.first().waitFor({ state: 'detached' });
    check((await hint.count()) === 0, `${at}: the underline and the hint are gone`);

    // 2. A closed select: ArrowDown does not change it (nor the scene).
    const engine = page.getByTestId('template-editor-engine');
    const before = await sceneText(page);
    for (const key of ['ArrowDown', 'ArrowUp', 'End', 'PageDown']) {
      await engine.focus();
      await page.keyboard.press(key);
      await page.waitForTimeout(200);
      const value = await engine.inputValue();
      const same = (await sceneText(page)) === before;
      // The list the key opened (where the browser draws one) closes on Escape without a choice.
      await page.keyboard.press('Escape');
      check(value === 'fstring' && same, `${at}: ${key} on the closed engine select changes neither it (${value}) nor the scene`);
    }
    const model = page.getByRole('combobox', { name: 'Model' });
    const modelBefore = await model.inputValue();
    await model.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Escape');
    await page.waitForTimeout(300);
    check((await model.inputValue()) === modelBefore, `${at}: ↓ on the closed model picker leaves ${modelBefore}`);

    // 3. Switching to jinja2 over fstring fields: a warning, and one click back.
    await engine.selectOption('jinja2');
    const warn = page.getByTestId('template-editor-engine-warning');
    await warn.waitFor();
    check((await warn.innerText()).includes('fstring fields'), `${at}: switching to jinja2 warns: the text has fstring fields`);
    await memoCard.getByText('Memo: {state}').waitFor();
    await page.screenshot({ path: join(shots, `12c-engine-warning-${at}.png`) });
    await axe(page, `the template editor with the engine warning (${at})`);
    await warn.getByRole('button', { name: 'Switch back to fstring' }).click();
    await warn.waitFor({ state: 'detached' });
    await memoCard.getByText('Memo: The user prefers').waitFor();
    check((await engine.inputValue()) === 'fstring', `${at}: "Switch back to fstring" restores the engine and the board`);

    // 4. Locales: add zh (a copy), write it, preview it; the scene still renders default.
    await editor.locator('xpath=ancestor::fieldset[1]').getByRole('button', { name: 'Add a locale' }).click();
    const newLocale = page.getByRole('textbox', { name: 'New locale' });
    await newLocale.waitFor();
    await newLocale.fill('zh');
    await newLocale.press('Enter');
    const zhTab = page.getByRole('tab', { name: /^zh/ });
    await zhTab.waitFor();
    check((await zhTab.getAttribute('aria-selected')) === 'true', `${at}: the new locale zh is shown`);
    await content.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('备忘：{state}');
    const preview = page.getByTestId('template-editor-preview');
    await preview.getByText('备忘：The user prefers').waitFor();
    check(true, `${at}: the zh text is previewed under the editor ("How zh would render")`);
    await memoCard.getByText('Memo: The user prefers').waitFor();
    check(
      !(await memoCard.innerText()).includes('备忘'),
      `${at}: the board still renders default: showing zh changed nothing in the scene`,
    );
    const renders = page.getByTestId('template-editor-renders');
    check(
      (await renders.getByRole('status').innerText()) === 'Shown: zh, a preview. The scene renders default.',
      `${at}: the editor says what is shown and what renders`,
    );
    await preview.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, `12d-locale-preview-${at}.png`) });
    await axe(page, `the template editor previewing a locale (${at})`);
    await renders.getByRole('checkbox', { name: /Renders this locale/ }).check();
    await memoCard.getByText('备忘：The user prefers').waitFor();
    await preview.waitFor({ state: 'detached', timeout: 5000 });
    check((await preview.count()) === 0, `${at}: "Renders this locale" makes zh the one that renders (the board shows it)`);
    await page.screenshot({ path: join(shots, `12e-locale-renders-${at}.png`) });
    // Saved, the scene names zh its active language.
    await page.keyboard.press('Control+S');
    await page.getByTestId('unsaved').waitFor({ state: 'detached', timeout: 5000 });
    const saved = JSON.parse(readFileSync(file, 'utf8')).tools.find((t) => t.name === 'chat_memo').format_2_prompt.source;
    check(
      saved.active_language === 'zh' &&
        saved.templates.zh === '备忘：{state}' &&
        saved.templates.default.endsWith('{ctx[user_input][input]}'),
      `${at}: saved: active_language zh, both locales' texts (${JSON.stringify(saved)})`,
    );
    // The next viewport starts again from the default scene.
    writeFileSync(file, readFileSync(join(repo, 'fixtures/default.scene.json')));
  }
  await page.setViewportSize({ width: 1600, height: 1000 });
}
