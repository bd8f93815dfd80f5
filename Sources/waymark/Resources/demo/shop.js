// The demo shop: a small single-page shop that uses waymark.js exactly as a customer's page would.
// Its "backend" (the demo server) stands in for the app's own server: it writes the user and the
// identity proof (userHash) that reward claims need into the page, as a shop's server would, so
// the SDK starts without waiting for another request.
import { Waymark } from "/sdk/waymark.js";

const popular = [
  { id: "p1", name: "Rain jacket", price: 89, category: "Outdoor" },
  { id: "p2", name: "Trail shoes", price: 120, category: "Outdoor" },
  { id: "p3", name: "Coffee grinder", price: 45, category: "Kitchen" },
  { id: "p4", name: "Tea kettle", price: 39, category: "Kitchen" },
  { id: "p5", name: "Desk lamp", price: 32, category: "Home" },
  { id: "p6", name: "Wool blanket", price: 70, category: "Home" },
  { id: "p7", name: "Notebook", price: 9, category: "Office" },
  { id: "p8", name: "Fountain pen", price: 28, category: "Office" },
];
// The whole range: the popular eight, then more of each kind, 1,000 in all (p1 to p1000).
const products = Array.from({ length: 1000 }, (_, i) => {
  const base = popular[i % popular.length];
  return i < popular.length ? base : { ...base, id: `p${i + 1}`, name: `${base.name} no. ${Math.floor(i / popular.length) + 1}`, price: base.price + (i % 13) };
});
const cart = JSON.parse(sessionStorage.getItem("demo-cart") ?? "[]");
const $ = (id) => document.getElementById(id);

function card(product, tag = "li") {
  const item = document.createElement(tag);
  item.className = "card";
  const link = document.createElement("a");
  link.href = `#/product/${product.id}`;
  link.dataset.waymark = `product-${product.id}`;
  link.textContent = product.name;
  const price = document.createElement("p");
  price.textContent = `€${product.price} · ${product.category}`;
  item.append(link, price);
  return item;
}

// All products, drawn as a phone app draws a long list: virtualised. Only the rows in view and a
// few beyond exist; a row scrolled out of view is reused for a product coming in, so one element
// shows many products in turn. Each row is marked data-waymark-anchor="product" with the
// product's data-waymark-key, so a tip anchored to product[p120] follows that product, not the
// element, and product:visible points at the first product the user can see.
const ROW = 72;
const rows = [];

function drawList() {
  const list = $("product-list");
  const first = Math.max(0, Math.floor(list.scrollTop / ROW) - 3);
  const last = Math.min(products.length, Math.ceil((list.scrollTop + list.clientHeight) / ROW) + 3);
  const wanted = new Set();
  for (let i = first; i < last; i++) wanted.add(i);
  const free = [];
  for (const row of rows) {
    const index = Number(row.dataset.index);
    if (!row.hidden && wanted.delete(index)) continue;
    free.push(row);
  }
  for (const index of wanted) {
    let row = free.pop();
    if (!row) {
      row = document.createElement("li");
      row.className = "row";
      row.dataset.waymarkAnchor = "product";
      row.append(document.createElement("a"), document.createElement("p"));
      $("product-rows").append(row);
      rows.push(row);
    }
    const product = products[index];
    const [link, price] = row.children;
    row.hidden = false;
    row.dataset.index = String(index);
    row.dataset.waymarkKey = product.id;
    row.style.transform = `translateY(${index * ROW}px)`;
    row.setAttribute("aria-posinset", String(index + 1));
    row.setAttribute("aria-setsize", String(products.length));
    link.href = `#/product/${product.id}`;
    link.dataset.waymark = `product-${product.id}`;
    link.textContent = product.name;
    price.textContent = `€${product.price} · ${product.category}`;
  }
  for (const row of free) row.hidden = true;
}

function show(screen) {
  for (const section of document.querySelectorAll("main > section")) section.hidden = section.id !== `screen-${screen}`;
}

let reviewsTimer;

function route() {
  const [, screen = "", id] = location.hash.replace(/^#/, "").split("/");
  if (screen === "product") {
    const product = products.find((p) => p.id === id) ?? products[0];
    $("product-name").textContent = product.name;
    $("product-price").textContent = `€${product.price}`;
    $("add-to-cart").dataset.product = product.id;
    // Reviews arrive later, as from a slow service: a tip anchored to them waits until they exist.
    $("reviews-slot").replaceChildren(Object.assign(document.createElement("p"), { className: "loading", textContent: "Loading reviews…" }));
    clearTimeout(reviewsTimer); // the reviews of a product left before they came are dropped
    reviewsTimer = setTimeout(() => {
      const reviews = document.createElement("div");
      reviews.className = "reviews";
      reviews.id = "reviews";
      reviews.dataset.waymarkAnchor = "reviews";
      reviews.textContent = "★★★★☆ “Does what it says.” — 128 reviews";
      $("reviews-slot").replaceChildren(reviews);
    }, 1500);
    show("product");
  } else if (screen === "cart") {
    $("cart-items").replaceChildren(...cart.map((pid) => card(products.find((p) => p.id === pid))));
    show("cart");
  } else if (screen === "products") {
    show(screen);
    drawList();
  } else if (screen === "search") {
    show(screen);
  } else {
    show("home");
  }
  Waymark.screen(screen === "" ? "home" : screen);
}

async function main() {
  const params = new URLSearchParams(location.search);
  const session = JSON.parse($("demo-session").textContent);
  const user = session.user;
  $("who").textContent = user;
  $("product-carousel").append(...popular.map((p) => card(p, "div")));
  $("categories").append(...popular.slice(0, 4).map((p) => card(p)));
  $("product-rows").style.height = `${products.length * ROW}px`;
  let drawing = false;
  const redraw = () => {
    if (drawing) return;
    drawing = true;
    requestAnimationFrame(() => { drawing = false; drawList(); });
  };
  $("product-list").addEventListener("scroll", redraw, { passive: true });
  window.addEventListener("resize", redraw);
  $("cart-count").textContent = String(cart.length);
  $("search").addEventListener("click", () => { location.hash = "#/search"; });
  $("search-box").addEventListener("input", (event) => {
    const text = event.target.value.toLowerCase();
    $("search-results").replaceChildren(...products.filter((p) => text && p.name.toLowerCase().includes(text)).slice(0, 24).map((p) => card(p)));
  });
  $("add-to-cart").addEventListener("click", (event) => {
    cart.push(event.target.dataset.product);
    sessionStorage.setItem("demo-cart", JSON.stringify(cart));
    $("cart-count").textContent = String(cart.length);
    // What the tap did, which only the page shows: said as an event, so the tap is not taken for
    // one that led nowhere (a dead tap, docs/struggles.md).
    Waymark.track("added_to_cart", event.target.dataset.product);
  });
  // The tour's trigger (tap:tour-start) opens it where the user left it; once they ended it, the
  // trigger holds still but no longer opens it, so the button asks for it itself.
  $("tour-start").addEventListener("click", () => setTimeout(() => Waymark.startTour("shop-tour")));
  let panned = false;
  $("product-carousel").addEventListener("scroll", () => {
    if (!panned) Waymark.track("pan", "product-carousel");
    panned = true;
  }, { passive: true });
  await Waymark.start({
    key: session.clientKey,
    server: session.server,
    user,
    userHash: session.userHash,
    context: { appVersion: params.get("appVersion") ?? "1.4.0", locale: params.get("locale") ?? navigator.language, model: params.get("model") ?? undefined },
    // A button's route (/product/p120) is a place in the shop, whose screens are hash routes.
    onAction: (action) => action.kind === "route" && Boolean(location.hash = `#${action.to}`),
  });
  window.addEventListener("hashchange", route);
  route();
  document.documentElement.dataset.waymarkReady = "true";
}

main().catch((error) => {
  console.error("demo shop:", error);
  document.documentElement.dataset.waymarkError = String(error);
});
