// The console's only script: checks rule fields as one types, with the server's own parser, and
// shows its message with the caret under the place. Forms work without it.
const appMatch = location.pathname.match(/^\/console\/apps\/([^/]+)/);

function show(box, result) {
  box.replaceChildren();
  if (result.ok) {
    const ok = document.createElement("p");
    ok.className = "rule-ok";
    ok.textContent = "The rule reads.";
    box.append(ok);
    return;
  }
  const message = document.createElement("p");
  message.className = "field-error";
  message.textContent = result.message;
  box.append(message);
  if (result.excerpt) {
    const excerpt = document.createElement("pre");
    excerpt.textContent = result.excerpt;
    box.append(excerpt);
  }
}

if (appMatch) {
  for (const field of document.querySelectorAll("[data-rule]")) {
    const box = document.getElementById(field.getAttribute("aria-describedby"));
    if (!box) continue;
    let timer;
    let sequence = 0;
    field.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const mine = ++sequence;
        if (field.value.trim() === "") return box.replaceChildren();
        // encodeURIComponent, not URLSearchParams: a "+" for a space would reach the parser as a "+".
        const query = `rule=${encodeURIComponent(field.value)}&kind=${encodeURIComponent(field.dataset.rule)}`;
        try {
          const response = await fetch(`/console/apps/${appMatch[1]}/rules/check?${query}`, { credentials: "same-origin" });
          if (mine === sequence && response.ok) show(box, await response.json());
        } catch {
          // Offline or signed out: the check on save still runs.
        }
      }, 250);
    });
  }
}
