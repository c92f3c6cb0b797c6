// RFC 6902 JSON Patch, applied in place; compact operations turned back into it (docs/protocol.md).

// Card ids, in compact order.
export const NUMBERS = [1, 2, 3, 4, 5];
export const SHAPES = ['circle', 'crescent', 'triangle', 'square', 'star'];
export const COLOURS = ['violet', 'cyan', 'yellow', 'orange', 'red'];
export const ALL_CARDS = NUMBERS.flatMap((n) => SHAPES.flatMap((s) => COLOURS.map((c) => `${n}-${s}-${c}`)));

export class PatchError extends Error {}

export function parsePointer(path) {
  if (path === '') return [];
  if (path[0] !== '/' || /~(?![01])/.test(path)) throw new PatchError(`not a JSON Pointer: ${path}`);
  return path.slice(1).split('/').map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(array, token, adding) {
  if (adding && token === '-') return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`not an array index: ${token}`);
  const index = Number(token);
  if (index > array.length || (!adding && index === array.length)) {
    throw new PatchError(`index ${index} is out of range`);
  }
  return index;
}

function child(parent, token) {
  if (Array.isArray(parent)) return parent[arrayIndex(parent, token, false)];
  if (parent !== null && typeof parent === 'object' && Object.hasOwn(parent, token)) {
    return parent[token];
  }
  throw new PatchError(`no member ${token}`);
}

export function applyOperation(doc, op) {
  const tokens = parsePointer(op.path);
  if (!['add', 'remove', 'replace'].includes(op.op)) throw new PatchError(`unsupported op ${op.op}`);
  if (op.op !== 'remove' && !('value' in op)) throw new PatchError(`${op.op} without a value`);
  if (tokens.length === 0) {
    if (op.op === 'remove') throw new PatchError('cannot remove the whole document');
    return op.value;
  }
  const last = tokens.pop();
  const parent = tokens.reduce(child, doc);
  if (Array.isArray(parent)) {
    const index = arrayIndex(parent, last, op.op === 'add');
    if (op.op === 'add') parent.splice(index, 0, op.value);
    else if (op.op === 'remove') parent.splice(index, 1);
    else parent[index] = op.value;
  } else if (parent !== null && typeof parent === 'object') {
    if (op.op !== 'add' && !Object.hasOwn(parent, last)) throw new PatchError(`no member ${last}`);
    if (op.op === 'remove') delete parent[last];
    else parent[last] = op.value;
  } else {
    throw new PatchError(`cannot change inside a ${typeof parent}`);
  }
  return doc;
}

export function applyPatch(doc, ops) {
  return ops.reduce(applyOperation, doc);
}

function member(path) {
  const tokens = path.split('/');
  const last = tokens.pop();
  return last === '-' || /^\d+$/.test(last) ? tokens.pop() : last;
}

function decode(value, key, tables) {
  if (tables.cards.includes(key)) {
    return Array.isArray(value) ? value.map((card) => ALL_CARDS[card]) : value === null ? null : ALL_CARDS[value];
  }
  if (Array.isArray(value)) return value.map((item) => decode(item, key, tables));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([short, item]) => {
      const name = Object.hasOwn(tables.keys, short) ? tables.keys[short] : short;
      return [name, decode(item, name, tables)];
    }),
  );
}

export function expandOps(ops, tables) {
  return ops.map((op) => {
    if (!Array.isArray(op)) return op.op === 'remove' ? op : { ...op, value: decode(op.value, member(op.path), tables) };
    const entry = tables.paths[op[0]];
    if (!entry) throw new PatchError(`no path number ${op[0]}`);
    const [name, path, members] = entry;
    const value =
      members && Array.isArray(op[1])
        ? Object.fromEntries(op[1].map((item, index) => [members[index], decode(item, members[index], tables)]))
        : decode(op[1], member(path), tables);
    return { op: name, path, value };
  });
}
