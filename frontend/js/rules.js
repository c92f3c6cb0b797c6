// The rules page: frontend/rules.md (a copy of docs/rules.md, kept equal by a test) as HTML.

import { escape, raw, render } from './dom.js';

function inline(text) {
  return escape(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, label, href) =>
      // Links into the repository's docs lead nowhere on this site: keep their words only.
      /^(https?:\/\/|\/)/.test(href) ? `<a href="${href}">${label}</a>` : label,
    );
}

const slug = (text) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const cells = (line) => line.trim().replace(/^\||\|$/g, '').split('|').map((cell) => cell.trim());

/** The Markdown the rules are written in: headings, paragraphs, lists, tables, bold, code, links. */
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

/** The rules as HTML (fetched once). */
export function rulesHTML() {
  cached ??= fetch('/static/rules.md')
    .then((response) => {
      if (!response.ok) throw new Error(String(response.status));
      return response.text();
    })
    .then(markdown)
    .catch((error) => {
      cached = null;
      return `<p>The rules could not be loaded (${escape(error.message)}). Check the connection and try again.</p>`;
    });
  return cached;
}

export function mount(root) {
  document.title = 'Rules · Spectrum Online';
  let live = true;
  render(root, raw('<section class="page narrow prose"><p class="muted">Loading the rules…</p></section>'));
  rulesHTML().then((content) => {
    if (!live) return;
    render(root, raw(`<section class="page narrow prose">${content}
      <p><a class="btn" href="/calculator">Try hands in the score calculator</a></p></section>`));
    if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
  });
  return () => {
    live = false;
  };
}
