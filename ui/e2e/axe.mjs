// An accessibility scan of what a Playwright page shows, with axe-core (the npm package, pinned in
// package.json; read from node_modules, never fetched). Reusable by any journey: the app's views and
// the single-file HTML report are scanned the same way.
//
// axe's source is evaluated in the page over the DevTools protocol, as @axe-core/playwright does:
// `page.addScriptTag` inserts an inline <script>, which the pages' strict CSP (`script-src 'self'`,
// and the report's own policy) rightly refuses, and bypassing the CSP would test another page.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const AXE_PATH = require.resolve('axe-core/axe.min.js');
const AXE_SOURCE = readFileSync(AXE_PATH, 'utf8');
export const AXE_VERSION = require('axe-core/package.json').version;

/** The impacts that fail a scan. Moderate and minor findings are reported, not failed. */
export const FAILING = ['serious', 'critical'];

/**
 * Runs axe-core (WCAG 2.x A and AA rules and axe's best practices) on `page`, or on the part of it
 * `include` selects. Returns `{ name, failing, others }`: the violations of a failing impact and
 * the rest, each `{ id, impact, help, helpUrl, nodes: [{ target, summary }] }`.
 */
export async function axeScan(page, name, { include, exclude } = {}) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(
    async ({ include, exclude }) => {
      const context = include || exclude ? { include: include ?? [document], exclude: exclude ?? [] } : document;
      const r = await window.axe.run(context, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
        resultTypes: ['violations'],
      });
      return r.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        helpUrl: v.helpUrl,
        nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary ?? '' })),
      }));
    },
    { include, exclude },
  );
  return {
    name,
    failing: violations.filter((v) => FAILING.includes(v.impact)),
    others: violations.filter((v) => !FAILING.includes(v.impact)),
  };
}

/** One violation in lines: rule id, impact, help URL, then each target selector (at most `max`). */
export function describeViolation(v, max = 8) {
  const lines = [`  ${v.id} (${v.impact}): ${v.help} — ${v.helpUrl}`];
  for (const n of v.nodes.slice(0, max)) lines.push(`    at ${n.target}${n.summary ? `\n      ${n.summary.replace(/\n\s*/g, ' ')}` : ''}`);
  if (v.nodes.length > max) lines.push(`    … and ${v.nodes.length - max} more`);
  return lines.join('\n');
}

/**
 * Scans `page` (see axeScan) and throws when it has a serious or critical violation, naming each
 * (rule id, impact, target selectors, help URL). Moderate and minor ones are printed and returned.
 */
export async function scanPage(page, name, options = {}) {
  const r = await axeScan(page, name, options);
  for (const v of r.others)
    console.log(
      `  axe ${name}: ${v.impact} ${v.id} at ${v.nodes
        .map((n) => n.target)
        .slice(0, 3)
        .join(', ')}${v.nodes.length > 3 ? ', …' : ''} — ${v.helpUrl}`,
    );
  if (r.failing.length)
    throw new Error(
      `FAILED: axe-core ${AXE_VERSION} found ${r.failing.length} serious or critical violation(s) on ${name}:\n${r.failing.map((v) => describeViolation(v)).join('\n')}`,
    );
  return r;
}
