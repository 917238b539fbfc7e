// No tofu: every character the page shows (its text, and the options of its closed selects) is
// drawn with a real glyph of some installed font, not the empty box (.notdef) a browser draws when
// no font has it.
//
// How it is told: a character no font has is drawn as the .notdef glyph of the page's first font,
// whatever the character. So each character is drawn on a canvas in the page's font stack and
// compared, pixel for pixel and in advance width, with two code points no font maps (U+10FFFD and
// U+10FFFE, private use in plane 16): the same picture means the box. The check is shown to fail
// where the fonts are missing: a Chromium whose fontconfig sees only DejaVu (no CJK font) must
// report the default scene's Chinese text.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

/** The distinct characters `page` shows that are drawn as .notdef boxes, sorted. */
export async function tofu(page) {
  return page.evaluate(() => {
    const texts = [document.body.innerText, ...[...document.querySelectorAll('option')].map((o) => o.textContent ?? '')];
    // Letters, digits, punctuation and symbols: marks and format characters draw nothing alone.
    const shown = [...new Set([...texts.join('')])].filter((c) => /[\p{L}\p{N}\p{P}\p{S}]/u.test(c));
    const canvas = document.createElement('canvas');
    canvas.width = 48;
    canvas.height = 48;
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    ctx.font = `32px ${getComputedStyle(document.body).fontFamily}`;
    ctx.textBaseline = 'middle';
    const picture = (c) => {
      ctx.clearRect(0, 0, 48, 48);
      ctx.fillText(c, 4, 24);
      const px = ctx.getImageData(0, 0, 48, 48).data;
      let h = 0;
      for (let i = 3; i < px.length; i += 4) h = (Math.imul(h, 31) + px[i]) | 0;
      return `${ctx.measureText(c).width.toFixed(2)}:${h}`;
    };
    const boxes = new Set([picture('\u{10FFFD}'), picture('\u{10FFFE}')]);
    return shown.filter((c) => boxes.has(picture(c))).sort();
  });
}

/**
 * Checks `page` (the default scene, open) for tofu, and that the check finds it where the CJK
 * fonts are missing (a Chromium with a fontconfig of DejaVu only).
 */
export async function fontsJourney({ page, url, tmp, check, chromiumPath, args }) {
  const missing = await tofu(page);
  check(
    !missing.length,
    `no tofu: every character of the default scene's page has a glyph${missing.length ? ` (boxes: ${missing.slice(0, 40).join(' ')})` : ''}`,
  );
  const conf = join(tmp, 'fontconfig-dejavu-only');
  mkdirSync(join(conf, 'cache'), { recursive: true });
  writeFileSync(
    join(conf, 'fonts.conf'),
    `<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>${join(conf, 'cache')}</cachedir></fontconfig>`,
  );
  const bare = await chromium.launch({
    executablePath: chromiumPath,
    args,
    env: { ...process.env, FONTCONFIG_FILE: join(conf, 'fonts.conf') },
  });
  try {
    const p = await bare.newPage();
    await p.goto(url);
    await p.getByTestId('seg-chat-system_msg_prompt').getByText('工作笔记').waitFor();
    const boxes = await tofu(p);
    check(
      boxes.includes('工') && boxes.includes('作'),
      `the tofu check finds the boxes where no CJK font is installed (DejaVu only: ${boxes.length} characters, ${boxes.slice(0, 8).join(' ')} …)`,
    );
  } finally {
    await bare.close();
  }
}
