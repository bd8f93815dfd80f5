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

// The look's form: the sample follows every field as one types, each colour picker fills its
// field, and the contrast of text and links against the surface is said as it changes.
const themeForm = document.querySelector("[data-theme-form]");
if (themeForm) {
  const sample = document.getElementById("theme-sample");
  const status = document.getElementById("theme-contrast");
  const hex = (value) => {
    const text = value.trim().replace(/^#?/, "#").toLowerCase();
    if (/^#[0-9a-f]{6}$/.test(text)) return text;
    return /^#[0-9a-f]{3}$/.test(text) ? "#" + [...text.slice(1)].map((c) => c + c).join("") : null;
  };
  const luminance = (color) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (a, b) => {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const value = (name) => hex(themeForm.elements[name].value) ?? themeForm.elements[name].dataset.default;
  const update = () => {
    for (const name of ["surface", "text", "accent", "focus"]) {
      sample.style.setProperty(`--wm-${name}`, value(name));
      const picker = themeForm.querySelector(`input[type=color][data-for="${name}"]`);
      if (picker) picker.value = value(name);
    }
    const font = themeForm.elements.font.value.trim();
    if (/^[A-Za-z0-9 ,-]{1,100}$/.test(font)) sample.style.setProperty("--wm-font", font); else sample.style.removeProperty("--wm-font");
    const radius = parseInt(themeForm.elements.radius.value, 10);
    if (radius >= 0 && radius <= 24) sample.style.setProperty("--wm-radius", radius + "px"); else sample.style.removeProperty("--wm-radius");
    const spacing = parseInt(themeForm.elements.spacing.value, 10);
    if (spacing >= 4 && spacing <= 24) sample.style.setProperty("--wm-pad", `${spacing}px ${spacing + 2}px`); else sample.style.removeProperty("--wm-pad");
    const surface = value("surface");
    const checks = [["Text", value("text"), 4.5], ["Links and buttons", value("accent"), 4.5], ["The focus ring", value("focus"), 3]];
    status.textContent = checks.map(([what, color, least]) => {
      const ratio = contrast(color, surface);
      return `${what}: ${ratio.toFixed(2)}:1${ratio < least ? ` — too faint, needs ${least}:1` : ""}.`;
    }).join(" ");
  };
  for (const picker of themeForm.querySelectorAll("input[type=color]")) {
    picker.addEventListener("input", () => {
      themeForm.elements[picker.dataset.for].value = picker.value;
      update();
    });
  }
  themeForm.addEventListener("input", update);
  update();
}
