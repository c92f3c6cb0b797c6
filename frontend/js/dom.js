// HTML templates and a focus-keeping morph.

export class Raw {
  constructor(text) {
    this.text = text;
  }
  toString() {
    return this.text;
  }
}

const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escape(value) {
  if (value == null || value === false) return '';
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return value.map(escape).join('');
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

export function html(strings, ...values) {
  let out = strings[0];
  values.forEach((value, i) => {
    out += escape(value) + strings[i + 1];
  });
  return new Raw(out);
}

export const raw = (text) => new Raw(text);

const keyOf = (node) => node.dataset?.k;
const same = (a, b) => a.nodeName === b.nodeName && keyOf(a) === keyOf(b);

function morphNode(from, to) {
  if (from.nodeType !== 1) {
    if (from.nodeValue !== to.nodeValue) from.nodeValue = to.nodeValue;
    return;
  }
  // "open" is the reader's.
  for (const { name } of [...from.attributes]) {
    if (name !== 'open' && !to.hasAttribute(name)) from.removeAttribute(name);
  }
  for (const { name, value } of to.attributes) {
    if (from.getAttribute(name) !== value) from.setAttribute(name, value);
  }
  if (from.type === 'checkbox') from.checked = to.checked;
  else if (/^(INPUT|SELECT)$/.test(from.nodeName) && from !== document.activeElement) {
    if (from.value !== to.value) from.value = to.value;
  }
  // data-own: children drawn elsewhere.
  if (!from.hasAttribute('data-own')) morphChildren(from, to);
}

export function morphChildren(from, to) {
  const old = [...from.childNodes];
  const keyed = new Map();
  for (const node of old) if (keyOf(node) != null) keyed.set(keyOf(node), node);
  // Leftovers first: moving restarts animations.
  const used = new Set();
  let cursor = 0;
  const pairs = [...to.childNodes].map((node) => {
    const key = keyOf(node);
    let match = null;
    if (key != null) {
      match = keyed.get(key) ?? null;
    } else {
      while (cursor < old.length && keyOf(old[cursor]) != null) cursor++;
      if (cursor < old.length && same(old[cursor], node)) match = old[cursor++];
    }
    if (match && (used.has(match) || !same(match, node))) match = null;
    if (match) used.add(match);
    return [node, match];
  });
  for (const node of old) if (!used.has(node)) node.remove();
  pairs.forEach(([node, match], position) => {
    const placed = match ?? node;
    if (from.childNodes[position] !== placed) from.insertBefore(placed, from.childNodes[position] ?? null);
    if (match) morphNode(match, node);
  });
}

// A text written only when it changes: each write lays the page out again.
export function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

export function render(root, content) {
  const focused = document.activeElement;
  const key = root.contains(focused) && focused.dataset.k;
  const template = document.createElement('template');
  template.innerHTML = escape(content);
  morphChildren(root, template.content);
  if (key !== false && document.activeElement !== focused) {
    const like = key && root.querySelector(`[data-k="${CSS.escape(key)}"]`);
    (root.contains(focused) ? focused : like || root.querySelector('h1[tabindex], button.card'))?.focus({ preventScroll: true });
  }
}

export function delegate(root, type, handler) {
  const listener = (event) => {
    const element = event.target.closest?.(`[data-${type}]`);
    if (element && root.contains(element)) handler(element.dataset[type], element, event);
  };
  const eventName = type === 'act' ? 'click' : type;
  root.addEventListener(eventName, listener);
  return () => root.removeEventListener(eventName, listener);
}

let toastTimer = 0;

export function toast(message, kind = 'info') {
  const box = document.getElementById('toast');
  box.textContent = message;
  box.className = `toast show ${kind}`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    box.className = 'toast';
  }, 4200);
}

// Safe localStorage (private modes, full disks).
export const store = {
  get(key) {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      if (value == null) localStorage.removeItem(key);
      else localStorage.setItem(key, value);
    } catch {
    }
  },
  keys() {
    try {
      return Object.keys(localStorage);
    } catch {
      return [];
    }
  },
};
