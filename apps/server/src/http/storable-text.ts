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
 * One error per string (or object key) that PostgreSQL could not store, at its JSON pointer; a
 * bad key is reported at its object, since the keys of free-form objects are the caller's data.
 */
export function unstorableTextErrors(
  data: unknown,
  instancePath = "",
  found: ErrorObject[] = [],
): ErrorObject[] {
  if (typeof data === "string") {
    if (!isStorableText(data)) found.push(errorAt(instancePath));
  } else if (Array.isArray(data)) {
    for (const [index, item] of data.entries()) unstorableTextErrors(item, `${instancePath}/${index}`, found);
  } else if (typeof data === "object" && data !== null) {
    for (const [key, value] of Object.entries(data)) {
      if (!isStorableText(key)) found.push(errorAt(instancePath));
      unstorableTextErrors(value, `${instancePath}/${escapePointer(key)}`, found);
    }
  }
  return found;
}
