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

// Recipes: "Write the rule" asks the server for the rule the words mean and puts it into the
// field, where the check above reads it as if typed. Without the script the button submits the
// form, and the server writes the same rule into the page it answers.
if (appMatch) {
  for (const button of document.querySelectorAll("button[data-recipe]")) {
    const field = document.getElementById(button.dataset.recipe);
    const recipe = button.closest(".recipe");
    if (!field || !recipe) continue;
    button.addEventListener("click", async (event) => {
      event.preventDefault();
      const value = (part) => recipe.querySelector(`[name="recipe.${button.dataset.recipe}.${part}"]`)?.value ?? "";
      const query = ["kind", "subject", "number"].map((part) => `${part}=${encodeURIComponent(value(part))}`).join("&");
      const note = recipe.querySelector(".recipe-note");
      try {
        const response = await fetch(`/console/apps/${appMatch[1]}/rules/recipe?${query}`, { credentials: "same-origin" });
        if (!response.ok) return button.form.requestSubmit(button);
        const result = await response.json();
        const message = document.createElement("p");
        if (result.ok) {
          field.value = result.rule;
          field.dispatchEvent(new Event("input"));
          message.className = "rule-ok";
          message.textContent = "The rule is written in the field above: read it, change it if you like, and save.";
        } else {
          message.className = "field-error";
          message.textContent = result.message;
        }
        note?.replaceChildren(message);
      } catch {
        button.form.requestSubmit(button);
      }
    });
  }
}
