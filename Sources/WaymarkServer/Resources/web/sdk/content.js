// Content building: the catalog's HTML as DOM nodes through an allowlist, safe URLs, names the rule
// language accepts, text direction and the small text helpers the renderers share. Nothing here
// holds state; buildContent needs a DOM, the rest runs anywhere.

const RTL_LANGUAGES = new Set(["ar", "he", "fa", "ur", "ps", "sd", "ug", "yi", "dv", "ckb"]);

/** "rtl" for content in a right-to-left language ("ur-IN", "ar"), else "ltr". */
/** The SDK's word for `key` in the catalog's language (the view's `words`: the catalog's `ui`,
 *  from the server), else `text`, its English; `{n}`, `{total}` and `{title}` filled in from
 *  `values`. */
export const word = (view, key, text, values) => (view.words?.[key] ?? text).replace(/{(\w+)}/g, (_, name) => values[name]);

/** Whether `locale` (hi-IN) is in `listed` (hi covers hi-IN and hi), ignoring case. */
export const inLocale = (locale, listed) => {
  const [a, b] = [String(locale ?? "").toLowerCase(), listed.toLowerCase()];
  return a === b || a.startsWith(`${b}-`);
};

export function textDirection(locale) {
  return RTL_LANGUAGES.has(String(locale ?? "").split("-")[0]) ? "rtl" : "ltr";
}

/** A name the rule language accepts ([A-Za-z0-9_-]+), made from any text, or undefined. */
export function asName(text) {
  const name = String(text ?? "").trim().replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 64);
  return name || undefined;
}

// Only these survive into the page; everything else is dropped with its children kept as text.
const ALLOWED_TAGS = new Set(["P", "BR", "STRONG", "B", "EM", "I", "U", "S", "CODE", "PRE", "BLOCKQUOTE", "UL", "OL", "LI", "A", "IMG", "H1", "H2", "H3", "H4", "H5", "H6", "SPAN", "SMALL", "SUB", "SUP", "HR"]);
const DROPPED_WITH_CONTENT = new Set(["SCRIPT", "STYLE", "IFRAME", "OBJECT", "EMBED", "TEMPLATE", "NOSCRIPT", "SVG", "MATH", "TEXTAREA", "SELECT", "TITLE", "XMP", "NOEMBED", "NOFRAMES", "FORM", "INPUT", "BUTTON"]);

/** An http(s) URL, absolute, or null: never javascript:, data: or anything else. */
export function safeURL(text, base) {
  try {
    const url = new URL(String(text), base);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The catalog's (already sanitized) HTML as DOM nodes, built element by element from an inert parse:
 * no markup string is ever assigned to the live page, so a catalog that carries <script>, onerror=,
 * javascript: URLs or style runs none of it.
 */
export function buildContent(html, doc = document) {
  const parsed = new DOMParser().parseFromString(`<body>${String(html ?? "")}</body>`, "text/html");
  const fragment = doc.createDocumentFragment();
  copyChildren(parsed.body, fragment, doc, 0);
  return fragment;
}

function copyChildren(from, to, doc, depth) {
  for (const node of from.childNodes) {
    if (node.nodeType === 3) to.appendChild(doc.createTextNode(node.data));
    if (node.nodeType !== 1 || depth > 32) continue;
    const tag = node.tagName.toUpperCase();
    if (DROPPED_WITH_CONTENT.has(tag)) continue;
    if (!ALLOWED_TAGS.has(tag)) {
      copyChildren(node, to, doc, depth + 1);
      continue;
    }
    const element = doc.createElement(tag.toLowerCase());
    if (tag === "A") {
      const href = safeURL(node.getAttribute("href"));
      if (href) {
        element.setAttribute("href", href);
        element.setAttribute("target", "_blank");
        element.setAttribute("rel", "noopener noreferrer nofollow");
      }
    } else if (tag === "IMG") {
      const src = safeURL(node.getAttribute("src"));
      if (!src) continue;
      element.setAttribute("src", src);
      element.setAttribute("alt", node.getAttribute("alt") ?? "");
    }
    const title = node.getAttribute("title");
    if (title) element.setAttribute("title", title);
    copyChildren(node, element, doc, depth + 1);
    to.appendChild(element);
  }
}

/**
 * A button with a label, a class and a click handler: every control the SDK draws is one.
 * @param {Document} doc
 * @param {{text: string, className?: string, label?: string, onClick: (event: MouseEvent) => void}} options
 */
export function button(doc, { text, className, label, onClick }) {
  const element = doc.createElement("button");
  element.type = "button";
  if (className) element.className = className;
  if (label) element.setAttribute("aria-label", label);
  element.textContent = text;
  if (onClick) element.addEventListener("click", onClick);
  return element;
}
