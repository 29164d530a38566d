// @ts-check
// Building the page. Text is only ever inserted as text nodes, never parsed as HTML: nothing
// here (or anywhere in the dashboard) sets markup from a string, so a merchant's data can never
// become markup (test/dashboard/assets.test.ts checks every module for it).

/**
 * What an element can contain: nodes, text, numbers (shown as text), nested lists of those;
 * null, undefined and false are skipped.
 * @typedef {Node | string | number | null | undefined | false | ChildList} Child
 */

/**
 * A list of children, nested as deep as convenient (an array; written as its shape because
 * a type alias may not name itself through Array).
 * @typedef {{ readonly [index: number]: Child, readonly length: number }} ChildList
 */

/**
 * Attributes of an element. A function under an "on..." name is an event listener; "class"
 * sets the class; "value" is set after the children exist (a select's value needs its
 * options); true gives an empty attribute; null, undefined and false leave it out.
 * @typedef {Record<string, string | number | boolean | null | undefined | ((event: Event) => unknown)>} Props
 */

/**
 * Creates an element with its attributes and children.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Props | null} [props]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props, ...children) {
  const element = document.createElement(tag);
  /** @type {string | undefined} */
  let value;
  for (const [key, prop] of Object.entries(props ?? {})) {
    if (prop === undefined || prop === null || prop === false) continue;
    if (typeof prop === "function") {
      if (key.startsWith("on")) element.addEventListener(key.slice(2).toLowerCase(), prop);
    } else if (key === "class") {
      element.className = String(prop);
    } else if (key === "value") {
      value = String(prop);
    } else {
      element.setAttribute(key, prop === true ? "" : String(prop));
    }
  }
  append(element, children);
  if (value !== undefined && "value" in element) element.value = value;
  return element;
}

/**
 * Appends children to an element, text as text nodes.
 * @param {Element} element
 * @param {ChildList} children
 */
function append(element, children) {
  for (const child of Array.from(children)) {
    if (child === undefined || child === null || child === false) continue;
    if (child instanceof Node) element.append(child);
    else if (typeof child === "object") append(element, child);
    else element.append(String(child));
  }
}

/**
 * Replaces an element's children.
 * @param {Element} element
 * @param {...Child} children
 */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

let idCounter = 0;

/**
 * An id not used elsewhere on the page, for label and ARIA references.
 * @param {string} prefix
 */
export function uid(prefix) {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/**
 * @param {string} href
 * @param {Child} text
 * @param {Props} [props]
 */
export function link(href, text, props = {}) {
  return h("a", { href, ...props }, text);
}
