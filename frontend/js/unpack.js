// MessagePack read into JSON values, for the binary encoding (docs/protocol.md): binary strings,
// extensions and bytes left over are refused.

const utf8 = new TextDecoder('utf-8', { fatal: true });
const NUMBERS = { 202: 'Float32', 203: 'Float64', 204: 'Uint8', 205: 'Uint16', 206: 'Uint32', 208: 'Int8', 209: 'Int16', 210: 'Int32' };
const SIZED = ['Uint8', 'Uint16', 'Uint32', 'Uint16', 'Uint32', 'Uint16', 'Uint32']; // 0xd9 to 0xdf

export class UnpackError extends Error {}

let bytes, view, at; // what is being read

function skip(count) {
  if ((at += count) > bytes.length) throw new UnpackError('cut short');
  return at - count;
}

const number = (kind) => view[`get${kind}`](skip(kind.replace(/\D/g, '') / 8));

function text(length) {
  const start = skip(length);
  try {
    return utf8.decode(bytes.subarray(start, at));
  } catch {
    throw new UnpackError('not UTF-8');
  }
}

const list = (length) => Array.from({ length }, read);

function map(length) {
  const object = {};
  while (length--) {
    const key = read();
    if (typeof key !== 'string') throw new UnpackError('a key not a string');
    // Defined, not assigned: a key named __proto__ is a member like any other.
    Object.defineProperty(object, key, { value: read(), enumerable: true, writable: true, configurable: true });
  }
  return object;
}

// A 64-bit integer: its high 32 bits, then the low ones.
function wide(high) {
  const value = high * 2 ** 32 + number('Uint32');
  if (!Number.isSafeInteger(value)) throw new UnpackError('an inexact integer');
  return value;
}

function read() {
  const type = bytes[skip(1)];
  if (type < 0x80 || type > 0xdf) return type < 0x80 ? type : type - 256;
  if (type < 0x90) return map(type & 15);
  if (type < 0xa0) return list(type & 15);
  if (type < 0xc0) return text(type & 31);
  if (type === 0xc0) return null;
  if (type === 0xc2 || type === 0xc3) return type === 0xc3;
  if (NUMBERS[type]) return number(NUMBERS[type]);
  if (type === 0xcf || type === 0xd3) return wide(number(type === 0xcf ? 'Uint32' : 'Int32'));
  if (type > 0xd8) return [text, text, text, list, list, map, map][type - 0xd9](number(SIZED[type - 0xd9]));
  throw new UnpackError(`type ${type}`);
}

// The value in data: an ArrayBuffer or a Uint8Array (as Node's Buffer is).
export function unpack(data) {
  bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  at = 0;
  const value = read();
  if (at !== bytes.length) throw new UnpackError('bytes left over');
  return value;
}
