// Text contrast of every visible control in each of its states: as drawn, under the pointer, and
// focused from the keyboard. axe-core checks the first only (and skips a control whose colours
// change on hover, the way a selected toggle's white text once sat on the light hover background).
// WCAG 2.1 AA: 4.5:1, 3:1 for large text (24 px, or 18.66 px bold); disabled controls too (the
// app keeps them readable though the criterion exempts them).

/** The controls whose text is checked. */
const CONTROLS =
  'button, select, input:not([type=checkbox]):not([type=radio]), summary, a[href], [role=tab], [role=option], [role=menuitem]';

/**
 * In the page: the text colour, the colour behind it (ancestors' backgrounds composited, the page
 * white behind all), the ratio and whether the text is large, for `el`.
 */
function measureInPage(el) {
  const parse = (c) => {
    const m = /rgba?\(([^)]+)\)/.exec(c);
    if (!m) return null;
    const [r, g, b, a = '1'] = m[1].split(/[\s,/]+/).filter(Boolean);
    return [Number(r), Number(g), Number(b), Number(a)];
  };
  const over = (top, under) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1);
  };
  const layers = [];
  for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
    const c = parse(getComputedStyle(n).backgroundColor);
    if (c && c[3] > 0) {
      layers.push(c);
      if (c[3] >= 1) break;
    }
  }
  let bg = [255, 255, 255, 1];
  for (const l of layers.reverse()) bg = over(l, bg);
  const st = getComputedStyle(el);
  const fg = over(parse(st.color) ?? [0, 0, 0, 1], bg);
  const lum = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
  const size = Number.parseFloat(st.fontSize);
  const bold = Number(st.fontWeight) >= 700;
  return {
    ratio: (hi + 0.05) / (lo + 0.05),
    large: size >= 24 || (bold && size >= 18.66),
    fg: st.color,
    bg: `rgb(${bg.slice(0, 3).map(Math.round).join(' ')})`,
  };
}

/** Whether `el` is drawn, has text of its own and is not clipped away (sr-only). */
function shownWithText(el) {
  const r = el.getBoundingClientRect();
  if (r.width < 2 || r.height < 2) return false;
  const st = getComputedStyle(el);
  if (st.visibility === 'hidden' || st.opacity === '0') return false;
  const text = el.tagName === 'INPUT' || el.tagName === 'SELECT' ? (el.value ?? '') : el.textContent;
  return !!text && text.trim().length > 0;
}

/**
 * Checks every visible control of the page (`scope`, a CSS selector) in each state; returns the
 * failures as lines (an empty list: all pass). At most `limit` controls per scope, in page order.
 */
export async function contrastFailures(page, scope = 'body', limit = 150) {
  const handles = await page.$$(`${scope} :is(${CONTROLS})`);
  const failures = [];
  let checked = 0;
  for (const h of handles) {
    if (checked >= limit) break;
    const ok = await h.evaluate(shownWithText);
    if (!ok) continue;
    // Only what is inside the viewport can be hovered; scrolled-away controls are measured as drawn.
    const inView = await h.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
    });
    checked++;
    const name = await h.evaluate(
      (el) =>
        `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''} "${(el.textContent || el.value || '').trim().slice(0, 30)}"`,
    );
    const states = [['as drawn', async () => {}]];
    if (inView) {
      states.push(['hovered', async () => h.hover({ timeout: 2000, force: true })]);
      states.push([
        'focused',
        async () => {
          // Away from under the pointer first, so this is the focus alone.
          await page.mouse.move(0, 0);
          await h.evaluate((el) => {
            el.focus({ focusVisible: true });
          });
        },
      ]);
    }
    for (const [state, enter] of states) {
      try {
        await enter();
      } catch {
        continue;
      }
      const m = await h.evaluate(measureInPage);
      const need = m.large ? 3 : 4.5;
      if (m.ratio < need) failures.push(`${name} ${state}: ${m.ratio.toFixed(2)}:1 (${m.fg} on ${m.bg}), needs ${need}:1`);
    }
  }
  await page.mouse.move(0, 0);
  await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  return { failures, checked };
}
