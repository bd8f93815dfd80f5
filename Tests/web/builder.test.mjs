// The page builder's decisions (builder.js): what a picked element is pointed to by, its area,
// and what is drawn and saved, as pure functions of a page's elements.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  anchorFor, containerOf, cssString, isStableID, localeName, paragraphs, pickedElement, sampleTip, saveBody, structuralSelector,
} from "../../Sources/WaymarkServer/Resources/web/sdk/builder.js";

/** A small page: elements with a tag, attributes and children, and a selector counter that
 *  understands the selectors the builder writes. */
function el(tag, attributes = {}, ...children) {
  const element = {
    tagName: tag.toUpperCase(), attributes, children, parentElement: null,
    get id() { return attributes.id ?? ""; },
    getAttribute: (name) => attributes[name] ?? null,
  };
  for (const child of children) child.parentElement = element;
  return element;
}

function all(root) {
  return [root, ...root.children.flatMap(all)];
}

/** How many elements of `root` match `selector`: `#id`, `[name="v"]`, `tag[name="v"]`, and chains of
 *  `tag`, `tag:nth-of-type(n)` joined by ` > `, starting at `body` or at one of those. */
function counter(root) {
  const one = (element, part) => {
    let m;
    if ((m = part.match(/^#(.+)$/))) return element.id === m[1];
    if ((m = part.match(/^([a-z0-9]*)\[([\w-]+)="((?:[^"\\]|\\.)*)"\]$/))) {
      return (!m[1] || element.tagName.toLowerCase() === m[1]) && element.getAttribute(m[2]) === m[3].replace(/\\(.)/g, "$1");
    }
    if ((m = part.match(/^([a-z0-9]+)(?::nth-of-type\((\d+)\))?$/))) {
      if (element.tagName.toLowerCase() !== m[1]) return false;
      if (!m[2]) return true;
      const same = element.parentElement ? element.parentElement.children.filter((s) => s.tagName === element.tagName) : [element];
      return same.indexOf(element) + 1 === Number(m[2]);
    }
    throw new Error(`the test counter cannot read ${part}`);
  };
  const matches = (element, parts) => {
    if (!one(element, parts.at(-1))) return false;
    if (parts.length === 1) return true;
    return !!element.parentElement && matches(element.parentElement, parts.slice(0, -1));
  };
  return (selector) => all(root).filter((element) => matches(element, selector.split(" > "))).length;
}

test("an element marked data-waymark-anchor, or inside one, is pointed to by its anchor", () => {
  const label = el("span", {}), button = el("button", { "data-waymark-anchor": "add-to-cart", id: "add" }, label);
  const page = el("body", {}, el("main", {}, button));
  assert.deepEqual(anchorFor(label, counter(page)), { element: button, anchor: "add-to-cart" });
});

test("an anchor Waymark cannot write as a name falls back to a selector", () => {
  const button = el("button", { "data-waymark-anchor": "add to cart!", id: "add" });
  const page = el("body", {}, button);
  assert.deepEqual(anchorFor(button, counter(page)), { element: button, selector: "#add" });
});

test("without an anchor, the picked control's own stable name comes first: id, then test id, then label", () => {
  const count = (page) => counter(page);
  const a = el("a", { id: "cart-link", href: "#/cart" }, el("span", {}));
  let page = el("body", {}, el("header", {}, a));
  assert.equal(anchorFor(a.children[0], count(page)).selector, "#cart-link", "the word inside the link picks the link");
  const b = el("button", { id: "ember1234", "data-testid": "pay" });
  page = el("body", {}, b);
  assert.equal(anchorFor(b, count(page)).selector, '[data-testid="pay"]', "a made-up id is passed over");
  const c = el("button", { "aria-label": 'Say "hi"' });
  page = el("body", {}, c);
  assert.equal(anchorFor(c, count(page)).selector, 'button[aria-label="Say \\"hi\\""]');
});

test("a name that matches several elements is passed over for the element's place", () => {
  const first = el("button", { "aria-label": "Buy" }), second = el("button", { "aria-label": "Buy" });
  const list = el("ul", { id: "products" }, el("li", {}, first), el("li", {}, second));
  const page = el("body", {}, el("main", {}, list));
  const picked = anchorFor(second, counter(page));
  assert.equal(picked.selector, "#products > li:nth-of-type(2) > button");
  assert.equal(counter(page)(picked.selector), 1);
});

test("the place starts at the body when no ancestor names itself", () => {
  const target = el("p", {});
  const page = el("body", {}, el("div", {}), el("div", {}, el("p", {}), target));
  assert.equal(structuralSelector(target, counter(page)), "body > div:nth-of-type(2) > p:nth-of-type(2)");
  assert.equal(anchorFor(target, counter(page)).selector, "body > div:nth-of-type(2) > p:nth-of-type(2)");
});

test("made-up ids are told from written ones", () => {
  for (const id of ["cart-link", "search", "checkout_button"]) assert.ok(isStableID(id), id);
  for (const id of [":r1:", "ember123", "react-select-2-input", "a1b2c3d4e5f6a7b8", "1abc"]) assert.ok(!isStableID(id), id);
});

test("the picked element is the control around the tap", () => {
  const word = el("b", {}), link = el("a", { href: "/x" }, word);
  el("div", {}, link);
  assert.equal(pickedElement(word), link);
  const plain = el("p", {});
  el("div", {}, plain);
  assert.equal(pickedElement(plain), plain);
  const role = el("div", { role: "button" }, el("span", {}));
  assert.equal(pickedElement(role.children[0]), role);
});

test("the area is the nearest data-waymark-container with a name", () => {
  const target = el("button", {});
  el("section", { "data-waymark-container": "cart" }, el("div", {}, target));
  assert.equal(containerOf(target), "cart");
  const loose = el("button", {});
  el("section", {}, loose);
  assert.equal(containerOf(loose), undefined);
  const odd = el("button", {});
  el("section", { "data-waymark-container": "my cart" }, odd);
  assert.equal(containerOf(odd), undefined, "a name the catalog cannot hold leaves the area as it was");
});

test("the sample is the tip as the renderer draws it, its text escaped", () => {
  const session = { tip: "cart-help", renderer: "tooltip" };
  const tip = sampleTip(session, { selector: "#cart-link" }, "hi", { title: "कार्ट", text: "पहली <b>पंक्ति</b>\n\nदूसरी", button: "ठीक है" });
  assert.deepEqual(tip, {
    id: "cart-help", renderer: "tooltip", selector: "#cart-link",
    content: { title: "कार्ट", html: "<p>पहली &lt;b&gt;पंक्ति&lt;/b&gt;</p><p>दूसरी</p>", locale: "hi" },
    actions: [{ id: "ok", label: "ठीक है", style: "primary", kind: "dismiss" }],
  });
  assert.equal(sampleTip(session, { anchor: "cart" }, "default", { title: "t", text: "", button: "" }).anchor, "cart");
  assert.equal(paragraphs("  \n\n "), "");
});

test("what is saved: the pick, its area and screen, and each locale written", () => {
  const body = saveBody({ anchor: "cart" }, "header", "cart", {
    default: { title: "Your cart", text: "Tap to pay", button: "OK" },
    hi: { title: " ", text: "", button: "" },
  });
  assert.deepEqual(body, { screen: "cart", anchor: "cart", container: "header", content: { default: { title: "Your cart", text: "Tap to pay", button: "OK" } } });
  assert.deepEqual(saveBody({ selector: "#x" }, undefined, "home", {}), { screen: "home", selector: "#x", content: {} });
});

test("quoted strings and locale names", () => {
  assert.equal(cssString('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(localeName("default"), "Default");
  assert.equal(localeName("hi"), "हिन्दी");
  assert.equal(localeName("not a locale!"), "not a locale!");
});
