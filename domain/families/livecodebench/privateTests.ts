/**
 * LiveCodeBench's `private_test_cases` field (lcb_runner/benchmarks/code_generation.py,
 * CodeGenerationProblem.__post_init__): JSON text of the tests, or, when that is not JSON (the
 * published code_generation_lite rows), base64 of zlib of a pickle of that JSON text. Decoded
 * here without an unpickler: the pickle must be a protocol 2-5 stream that holds one str and
 * nothing else (PROTO, FRAME, a BINUNICODE opcode, memo opcodes, STOP), which is what Python's
 * pickle.dumps of a str writes; any other opcode (which could build objects or call code) is
 * refused by name.
 */
import { zlibDecompress } from './inflate.js';

const OP = {
  PROTO: 0x80,
  FRAME: 0x95,
  SHORT_BINUNICODE: 0x8c,
  BINUNICODE: 0x58,
  BINUNICODE8: 0x8d,
  MEMOIZE: 0x94,
  BINPUT: 0x71,
  LONG_BINPUT: 0x72,
  STOP: 0x2e,
} as const;

function littleEndian(bytes: Uint8Array, at: number, size: number): number {
  if (at + size > bytes.length) throw new Error('pickle: ends inside an opcode');
  let value = 0;
  for (let i = size - 1; i >= 0; i--) value = value * 256 + bytes[at + i]!;
  return value;
}

/** The str a pickle of one str holds; throws naming the first opcode that is not one of a plain string's. */
export function unpickleString(bytes: Uint8Array): string {
  let at = 0;
  let value: string | null = null;
  const utf8 = new TextDecoder('utf-8');
  const text = (start: number, length: number) => {
    if (start + length > bytes.length) throw new Error('pickle: ends inside a string');
    if (value !== null) throw new Error('pickle: holds more than one string');
    value = utf8.decode(bytes.subarray(start, start + length));
    return start + length;
  };
  while (at < bytes.length) {
    const op = bytes[at++]!;
    switch (op) {
      case OP.PROTO:
        at += 1;
        break;
      case OP.FRAME:
        // Frames only group the opcodes that follow: they are read through.
        at += 8;
        break;
      case OP.SHORT_BINUNICODE:
        at = text(at + 1, littleEndian(bytes, at, 1));
        break;
      case OP.BINUNICODE:
        at = text(at + 4, littleEndian(bytes, at, 4));
        break;
      case OP.BINUNICODE8:
        at = text(at + 8, littleEndian(bytes, at, 8));
        break;
      case OP.MEMOIZE:
        break;
      case OP.BINPUT:
        at += 1;
        break;
      case OP.LONG_BINPUT:
        at += 4;
        break;
      case OP.STOP:
        if (value === null) throw new Error('pickle: holds no string');
        return value;
      default:
        throw new Error(
          `pickle: opcode 0x${op.toString(16).padStart(2, '0')} at byte ${at - 1} is not part of a pickled str (only a plain string is read)`,
        );
    }
  }
  throw new Error('pickle: no STOP opcode');
}

function base64Bytes(text: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(text.replace(/\s+/g, ''));
  } catch {
    throw new Error('not base64');
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * The tests' JSON text of a `private_test_cases` field: the field itself when it is JSON (as
 * LiveCodeBench first tries), else base64 → zlib → pickled str. Throws saying which step failed.
 */
export function privateTestsJson(field: string): string {
  try {
    JSON.parse(field);
    return field;
  } catch {
    // Not JSON: the compressed form.
  }
  let bytes: Uint8Array;
  try {
    bytes = zlibDecompress(base64Bytes(field));
  } catch (error) {
    throw new Error(`neither JSON nor base64 of zlib data (${(error as Error).message})`);
  }
  return unpickleString(bytes);
}
