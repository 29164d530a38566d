/**
 * Text PostgreSQL can store (CONTRACT 4): no NUL character, and no unpaired UTF-16 surrogate
 * (a JSON string may escape one, `"\ud800"`, but it names no Unicode character and has no UTF-8
 * form). Every request part the validator sees (body, query string, path parameters) is walked
 * once, strings and object keys alike, so no route can forget it.
 */
import type { ErrorObject } from "ajv";

export const UNSTORABLE_TEXT_KEYWORD = "x-storable-text";
export const UNSTORABLE_TEXT_MESSAGE = "must not contain a NUL character or an unpaired surrogate";

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(text: string): boolean {
  return !text.includes("\u0000") && !LONE_SURROGATE.test(text);
}

const escapePointer = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");

function errorAt(instancePath: string): ErrorObject {
  return {
    keyword: UNSTORABLE_TEXT_KEYWORD,
    instancePath,
    schemaPath: "",
    params: {},
    message: UNSTORABLE_TEXT_MESSAGE,
  };
}

/**
 * Whether any string or object key in `data` is text PostgreSQL could not store. Allocates
 * nothing but its stack for what nests: run on every request part, before
 * `unstorableTextErrors` builds the places of what it finds.
 */
function holdsUnstorableText(data: unknown): boolean {
  if (typeof data === "string") return !isStorableText(data);
  if (typeof data !== "object" || data === null) return false;
  const pending: object[] = [data];
  while (pending.length > 0) {
    const value = pending.pop()!;
    if (Array.isArray(value)) {
      for (const item of value) {
        if (typeof item === "string") {
          if (!isStorableText(item)) return true;
        } else if (typeof item === "object" && item !== null) pending.push(item);
      }
      continue;
    }
    for (const key of Object.keys(value)) {
      if (!isStorableText(key)) return true;
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === "string") {
        if (!isStorableText(item)) return true;
      } else if (typeof item === "object" && item !== null) pending.push(item);
    }
  }
  return false;
}

/**
 * One error per string (or object key) that PostgreSQL could not store, at its JSON pointer; a
 * bad key is reported at its object, since the keys of free-form objects are the caller's data.
 */
export function unstorableTextErrors(data: unknown, instancePath = ""): ErrorObject[] {
  // Nearly every request holds only storable text: a walk that builds no paths says so, and the
  // walk below, which names each bad string's place, runs only when it did not.
  if (!holdsUnstorableText(data)) return [];
  // A walk with its own stack, not recursion: however deep a value nests (query strings and
  // path parameters are not bounded like bodies are), it cannot run out of call stack.
  const found: ErrorObject[] = [];
  // Each item may carry the key it was found under, checked (and reported at its object) just
  // before its value: errors come in the order a recursive walk would find them.
  const pending: Array<{ value: unknown; path: string; key?: { text: string; objectPath: string } }> = [
    { value: data, path: instancePath },
  ];
  while (pending.length > 0) {
    const { value, path, key } = pending.pop()!;
    if (key !== undefined && !isStorableText(key.text)) found.push(errorAt(key.objectPath));
    if (typeof value === "string") {
      if (!isStorableText(value)) found.push(errorAt(path));
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index -= 1) {
        pending.push({ value: value[index], path: `${path}/${index}` });
      }
    } else if (typeof value === "object" && value !== null) {
      const entries = Object.entries(value);
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [text, item] = entries[index]!;
        pending.push({
          value: item,
          path: `${path}/${escapePointer(text)}`,
          key: { text, objectPath: path },
        });
      }
    }
  }
  return found;
}
