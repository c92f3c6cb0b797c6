// Rules: rules.md as HTML.

import { cardRow, scoreLine } from './cards.js';
import { escape, html, raw, render } from './dom.js';
import { lang, t } from './app.js';

// Ordered to show sequences.
const HANDS = [
  [1, 'Mono', 2, '1-circle-red 2-circle-red 3-star-violet 4-star-violet 5-square-cyan'],
  [2, 'Mono', 5, '1-triangle-red 2-circle-red 3-star-cyan 4-crescent-cyan 5-square-violet'],
  [2, 'Duo', 10, '1-circle-red 2-crescent-red 3-triangle-cyan 4-square-cyan 5-star-violet'],
  [3, 'Mono', 10, '1-triangle-cyan 2-circle-orange 3-star-violet 4-crescent-red 5-square-yellow'],
  [3, 'Duo', 15, '1-circle-cyan 2-crescent-orange 3-triangle-violet 4-square-red 5-star-yellow'],
  [3, 'Tripo', 25, '1-circle-red 2-crescent-orange 3-triangle-yellow 4-square-cyan 5-star-violet'],
  [0, '', -5, '1-circle-red 1-star-red 3-star-violet 4-star-violet 5-square-cyan'],
];

export function handsShown() {
  return html`<div lang="${lang}"><h3>${t('handsShown')}</h3><ul class="list shown">${HANDS.map(([complete, sequence, points, cards]) => {
    const line = scoreLine({ complete: Array(complete), sequence, points });
    return html`<li>${cardRow(cards.split(' '), line, true)}<p class="line">${line}</p></li>`;
  })}</ul></div>`;
}

const inline = (text) => escape(text).replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');

const slug = (text) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const cells = (line) => line.trim().replace(/^\||\|$/g, '').split('|').map((cell) => cell.trim());

export function markdown(source) {
  const out = [];
  for (const block of source.trim().split(/\n\s*\n/)) {
    const lines = block.split('\n');
    const first = lines[0];
    const heading = first.match(/^(#{1,4})\s+(.*)$/);
    if (heading) {
      const level = heading[1].length;
      out.push(`<h${level} id="${slug(heading[2])}">${inline(heading[2])}</h${level}>`);
    } else if (lines.every((line) => line.trim().startsWith('|'))) {
      const [head, , ...rows] = lines.map(cells);
      out.push(
        `<div class="table-wrap"><table><thead><tr>${head.map((c) => `<th>${inline(c)}</th>`).join('')}</tr></thead><tbody>` +
          rows.map((row) => `<tr>${row.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('') +
          '</tbody></table></div>',
      );
    } else if (/^(-|\d+\.)\s/.test(first)) {
      const items = [];
      for (const line of lines) {
        if (/^(-|\d+\.)\s/.test(line)) items.push(line.replace(/^(-|\d+\.)\s+/, ''));
        else items[items.length - 1] += ` ${line.trim()}`;
      }
      const tag = first.startsWith('-') ? 'ul' : 'ol';
      out.push(`<${tag}>${items.map((item) => `<li>${inline(item)}</li>`).join('')}</${tag}>`);
    } else {
      out.push(`<p>${inline(lines.map((line) => line.trim()).join(' '))}</p>`);
    }
  }
  return out.join('\n');
}

let cached = null;

export function rulesHTML() {
  return (cached ??= fetch('/static/rules.md').then((response) => {
    if (!response.ok) throw new Error(String(response.status));
    return response.text();
  })).then(
    (source) => `<div lang="en">${markdown(source).replace('</table></div>', `</table></div>${handsShown()}`)}</div>`,
    (error) => {
      cached = null;
      return `<p>${escape(t('rulesFailed', { error: error.message }))}</p>`;
    },
  );
}

export function mount(root) {
  document.title = `${t('rules')} · Spectrum Online`;
  let live = true;
  render(root, html`<section class="page narrow prose"><p class="muted">${t('loadingRules')}</p></section>`);
  rulesHTML().then((content) => {
    if (!live) return;
    render(root, raw(`<section class="page narrow prose">${content}
      <p><a class="btn" href="/calculator">${escape(t('tryCalc'))}</a></p></section>`));
    if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
  });
  return () => {
    live = false;
  };
}
