// RFC 6902 JSON Patch (add, remove, replace) with RFC 6901 JSON Pointers, applied in place.

export class PatchError extends Error {}

/** The reference tokens of a JSON Pointer, unescaped (~1 is "/", ~0 is "~"). */
export function parsePointer(path) {
  if (path === '') return [];
  if (path[0] !== '/') throw new PatchError(`not a JSON Pointer: ${path}`);
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

/** Apply one operation to ``doc``; returns the document (a new one when the root is replaced). */
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

/** Apply a list of operations in order; returns the patched document. */
export function applyPatch(doc, ops) {
  return ops.reduce(applyOperation, doc);
}
