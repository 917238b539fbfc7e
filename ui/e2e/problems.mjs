// The diagnostics panel as a problems panel and the board's figures saying what they are
// (docs/app.md, "Diagnostics panel" and "What the board says"), at 1280x720 and 1440x900: errors
// before warnings before info, no backticks, moot cache-prefix findings folded with the reason,
// a template's diagnostic written once (under the editor only a link to it); the bodies following
// the header's Model, an adapter preview that leaves the scene unsaved-free until "Use in the
// scene", a coloured body with a Copy button that copies it; an imported scene's name,
// description and Origins, its unused DeskLLM folded, its tool calls shown as calls; a recorded
// call's prompt template with the scene's details and its reply after the messages; a run-only
// scene pointing to the Run view. Each state is scanned with axe-core.
import { join } from 'node:path';
import { contrastFailures } from './contrast.mjs';

const RANK = { error: 0, warning: 1, info: 2 };

export async function problemsJourney({ page, repo, check, shots, axe }) {
  const file = page.getByTestId('file-name');
  const before = { path: (await file.getAttribute('title')) ?? '', model: await page.getByTestId('model').inputValue() };
  const panel = page.locator('aside.right');
  const openPath = async (p) => {
    await page.getByTestId('path-input').fill(p);
    await page.getByTestId('path-input').press('Enter');
    await page
      .getByTestId('file-name')
      .and(page.locator(`[title="${p}"]`))
      .waitFor();
  };
  for (const [width, height] of [
    [1280, 720],
    [1440, 900],
  ]) {
    await page.setViewportSize({ width, height });
    const size = `${width}x${height}`;
    await page.getByRole('tab', { name: 'Inspector' }).click();
    await page.getByRole('button', { name: 'Default', exact: true }).click();
    await page.getByTestId('seg-chat-system_msg_prompt').getByText('You are TFRobot').first().waitFor();
    await page.getByTestId('model').selectOption('openai/gpt-5');
    await panel.getByTestId('diagnostics').locator('li').first().waitFor();

    // Sorted by severity; plain words.
    const levels = await panel.getByTestId('diagnostics').locator(':scope > li .level').allInnerTexts();
    const ranks = levels.map((l) => RANK[l.toLowerCase()]);
    check(
      ranks.length > 1 && ranks.every((r, i) => i === 0 || ranks[i - 1] <= r),
      `${size}: the panel lists errors, then warnings, then info (${levels.join(', ')})`,
    );
    const panelText = await panel.getByTestId('problems').innerText();
    check(!panelText.includes('`'), `${size}: no raw backticks in the diagnostics panel`);
    check(!panelText.includes('prompt-inspector cache'), `${size}: no "run prompt-inspector cache" text; a link to the view instead`);
    // The default scene is under gpt-5's cache minimum: its prefix findings are moot and folded.
    const moot = panel.getByTestId('diag-moot');
    check(
      (await moot.count()) === 1 && !(await moot.evaluate((d) => d.open)),
      `${size}: the cache-prefix findings of a request under the cache minimum are folded: ${await moot.locator('summary').innerText()}`,
    );
    await moot.locator('summary').click();
    const why = await panel.getByTestId('diag-moot-why').innerText();
    check(/under the picked model's minimum cacheable length/.test(why), `${size}: the fold says why they are moot (${why.slice(0, 90)}…)`);
    await panel.getByTestId('problems').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, `14a-problems-${size}.png`) });
    await page.mouse.move(1, 1); // the scan reads the resting colours, not those of the control last clicked
    await axe(page, `the diagnostics panel with the moot findings open (${size})`);

    // A template's error once: in the panel; under the editor a link that goes to it.
    await page.getByTestId('tool-chat_memo').click();
    await page.getByTestId('template-editor').locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' {oops');
    const link = page.getByTestId('tool-detail').getByTestId('problems-link');
    await link.waitFor({ timeout: 5000 });
    const detail = await page.getByTestId('tool-detail').innerText();
    const listed = await panel.getByTestId('diagnostics').innerText();
    check(
      /ValueError/.test(listed) && !/ValueError/.test(detail),
      `${size}: the template error is written once, in the panel; under the editor: "${(await link.innerText()).replace(/\s+/g, ' ')}"`,
    );
    await link.getByRole('button', { name: 'show in Diagnostics' }).click();
    const focusedDiag = await page.evaluate(() => {
      const el = document.activeElement;
      return !!el?.matches('li.diag') && !!el.closest('aside.right') && el.textContent.includes('chat_memo');
    });
    check(focusedDiag, `${size}: "show in Diagnostics" focuses the diagnostic in the panel`);
    await page.screenshot({ path: join(shots, `14b-problem-once-${size}.png`) });
    await page.getByTestId('template-editor').locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    for (let i = 0; i < 6; i++) await page.keyboard.press('Backspace');
    await page.getByTestId('tool-detail').locator('[data-testid="problems-link"].diag-error').waitFor({ state: 'detached', timeout: 5000 });

    // One model choice: the bodies follow the header's Model; a preview leaves the scene unchanged.
    await page.getByRole('button', { name: 'Default', exact: true }).click();
    await page.getByTestId('seg-chat-system_msg_prompt').getByText('You are TFRobot').first().waitFor();
    await page.getByTestId('chat-messages').click();
    await page.getByTestId('chat-body').check();
    const chatBody = page.locator('[aria-label="chat request body"]');
    await chatBody.getByText('"model": "gpt-5"').waitFor({ timeout: 5000 });
    await page.getByTestId('model').selectOption('anthropic/claude-sonnet-4-5');
    await chatBody.getByText('"model": "claude-sonnet-4-5"').waitFor({ timeout: 5000 });
    check(
      await chatBody.innerText().then((t) => t.includes('"max_tokens"') && !t.includes('"role": "system"')),
      `${size}: picking claude-sonnet-4-5 in the header turns the chat body into Anthropic's, naming that model`,
    );
    await page.getByTestId('desk-request').click();
    check(
      (await page.getByTestId('desk-adapter').inputValue()) === 'claude_desk',
      `${size}: the desk body follows the model too (claude_desk): ${await page.getByTestId('desk-body-note').innerText()}`,
    );
    const deskBody = page.locator('[aria-label="desk request body"]');
    await deskBody.getByText('"model": "claude-sonnet-4-5"').waitFor({ timeout: 5000 });
    await page.getByTestId('desk-adapter').selectOption('gemini_desk');
    await deskBody.getByText('"contents"').first().waitFor({ timeout: 5000 });
    check(
      !(await page.getByTestId('unsaved').isVisible()),
      `${size}: previewing gemini_desk's body leaves the scene unchanged (no unsaved mark)`,
    );
    check(
      (await deskBody.locator('.j-key').count()) > 5 && (await deskBody.locator('.j-string').count()) > 0,
      `${size}: the body is coloured as JSON`,
    );
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByTestId('copy-body').last().click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    check(
      JSON.parse(copied).contents !== undefined &&
        JSON.stringify(JSON.parse(copied)) === JSON.stringify(JSON.parse(await deskBody.innerText())),
      `${size}: Copy copies the body shown (${copied.length} characters of JSON)`,
    );
    await page.screenshot({ path: join(shots, `14c-bodies-one-model-${size}.png`) });
    await page.mouse.move(1, 1); // the scan reads the resting colours, not those of the control last clicked
    await axe(page, `the Messages view with its body and a desk adapter preview (${size})`);
    await page.getByTestId('desk-write').click();
    await page.getByTestId('unsaved').waitFor();
    check(true, `${size}: "Use in the scene" writes the adapter: now the scene is changed`);
    await page.getByRole('button', { name: 'Segments' }).first().click();
    await page.getByRole('button', { name: 'Segments' }).nth(1).click();

    // An imported scene: its name, description and lists; its unused DeskLLM folded; tool calls as calls.
    const imported = join(repo, 'fixtures/import/anthropic/code-review.scene.json');
    await openPath(imported);
    const info = page.getByTestId('scene-info');
    check(
      (await info.getByTestId('scene-name').innerText()).length > 0 &&
        (await info.getByTestId('scene-desc').innerText()).startsWith('Imported from an Anthropic Messages request body') &&
        (await info.getByTestId('scene-list-origins').locator('summary').innerText()) === 'Origins (9)' &&
        (await info.getByTestId('scene-list-not').locator('summary').innerText()) === 'Not mapped (nothing)',
      `${size}: the imported scene shows its name, description, Origins (9) and Not mapped (nothing)`,
    );
    const unused = page.getByTestId('family-unused-desk');
    check(
      (await unused.count()) === 1 && (await unused.innerText()).includes('not used by this scene'),
      `${size}: DeskLLM, which the imported scene does not use, is folded with a note`,
    );
    const unusedDiags = panel.getByTestId('diag-unused');
    check(
      (await unusedDiags.count()) === 1 &&
        (await unusedDiags.locator('summary').innerText()).includes('about DeskLLM, which this scene does not use'),
      `${size}: the unused DeskLLM's own diagnostics are folded apart: ${await unusedDiags.locator('summary').innerText()}`,
    );
    await info.getByTestId('scene-list-origins').locator('summary').click();
    await page.getByTestId('chat-messages').click();
    const calls = page.getByTestId('chat-message-list').locator('.run-call-name');
    await calls.first().waitFor();
    check(
      (await calls.allInnerTexts()).includes('read_diff') &&
        (await page.getByTestId('chat-message-list').innerText()).includes("context.user_input.input (the user's input, sent as is)"),
      `${size}: the Messages view shows tool calls as calls (${(await calls.allInnerTexts()).join(', ')}) and the user message's source`,
    );
    await page.screenshot({ path: join(shots, `14d-imported-scene-${size}.png`) });
    await page.mouse.move(1, 1); // the scan reads the resting colours, not those of the control last clicked
    await axe(page, `an imported scene: its lists, a folded family, the messages (${size})`);
    await page.getByRole('button', { name: 'Segments' }).first().click();

    // A recorded call (a fixture written by hand): the prompt template it was made from with the
    // scene's details, long values folded; the reply the provider returned after the messages.
    await openPath(join(repo, 'fixtures/scenes/recorded-reply-and-prompt.scene.json'));
    const prompt = info.getByTestId('recorded-prompt');
    await prompt.waitFor();
    const vars = await prompt.getByTestId('recorded-prompt-vars').locator(':scope > li').allInnerTexts();
    const notes = prompt.getByTestId('recorded-prompt-vars').locator('details');
    check(
      (await prompt.getByTestId('recorded-prompt-title').innerText()) === 'trip-planner, version 3' &&
        vars[0] === 'country = Portugal' &&
        vars.at(-1) === 'max_stops = 2' &&
        (await notes.count()) === 1 &&
        !(await notes.evaluate((d) => d.open)) &&
        (await notes.locator('summary').innerText()).endsWith('bi… (216 characters)'),
      `${size}: the recorded call's prompt template shows with the scene's details, its long value folded (${vars.length} variables)`,
    );
    await notes.locator('summary').click();
    await prompt.getByTestId('recorded-prompt-template').locator('summary').click();
    check(
      (await notes.locator('pre').isVisible()) &&
        (await prompt.getByTestId('recorded-prompt-template').locator('pre').innerText()).includes('Traveller notes: {notes}'),
      `${size}: opening the folds shows the whole value and the template text`,
    );
    await info.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, `14f-recorded-prompt-${size}.png`) });
    await page.getByTestId('show-reply').click();
    const reply = page.getByTestId('recorded-reply');
    await reply.waitFor();
    // The focus is the last thing the click does; a loaded machine may take a while to get there.
    await page.waitForFunction(() => document.activeElement?.id === 'recorded-reply-heading', null, { timeout: 10_000 }).catch(() => {});
    const replyBox = await reply.boundingBox();
    const focused = await page.evaluate(() => document.activeElement?.id);
    // Scrolled to, not under the legend that stays at the top of the board.
    const headingOnTop = await reply.locator('h4').evaluate((el) => {
      const r = el.getBoundingClientRect();
      return el.contains(document.elementFromPoint(r.left + 20, r.top + r.height / 2));
    });
    // Each part named, so a failure says which one.
    const replyParts = {
      'one message list': (await page.getByTestId('chat-message-list').count()) === 1,
      heading: (await reply.locator('h4').innerText()).replace(/\s+/g, ' ') === 'Reply recorded, not sent',
      text: (await reply.locator('.msg.role-assistant pre').innerText()) === "I'll look up Saturday's trains from Lisbon to Porto first.",
      'tool call': (await reply.locator('.run-call-name').allInnerTexts()).join() === 'find_trains',
      usage: (await reply.innerText()).includes('41 output tokens billed'),
      [`focus (on ${focused || 'nothing'})`]: focused === 'recorded-reply-heading',
      'heading above the legend': headingOnTop,
      [`in view (top at ${replyBox?.y})`]: replyBox !== null && replyBox.y >= 0 && replyBox.y < height,
    };
    const replyMissing = Object.keys(replyParts).filter((k) => !replyParts[k]);
    check(
      replyMissing.length === 0,
      `${size}: "Show the reply" opens the Messages view at the reply, marked recorded, not sent, with its text and its tool call${replyMissing.length ? ` (wrong: ${replyMissing.join(', ')})` : ''}`,
    );
    await page.screenshot({ path: join(shots, `14g-recorded-reply-${size}.png`) });
    await page.mouse.move(1, 1); // the scan reads the resting colours, not those of the control last clicked
    await axe(page, `a recorded call: its prompt template and its reply (${size})`);
    const { failures, checked } = await contrastFailures(page);
    check(
      failures.length === 0,
      `${size}: ${checked} controls of the recorded call's board hold AA contrast${failures.length ? `:\n  ${failures.join('\n  ')}` : ''}`,
    );
    await page.getByRole('button', { name: 'Segments' }).first().click();

    // A run-only scene points to the Run view.
    await openPath(join(repo, 'fixtures/run/cd-round-2.scene.json'));
    await page.getByTestId('run-only').waitFor();
    await page.screenshot({ path: join(shots, `14e-run-only-${size}.png`) });
    await page.getByTestId('to-run').click();
    check(
      (await page.getByRole('tab', { name: 'Run' }).getAttribute('aria-selected')) === 'true',
      `${size}: a run-only scene says so and its button opens the Run view`,
    );
  }
  // Back to what the journey had open.
  await page.getByRole('tab', { name: 'Inspector' }).click();
  if (before.path.startsWith('/')) await openPath(before.path);
  else await page.getByRole('button', { name: 'Default', exact: true }).click();
  await page.getByTestId('model').selectOption(before.model);
  await page.setViewportSize({ width: 1600, height: 1000 });
}
