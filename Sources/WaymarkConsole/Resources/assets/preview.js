// The console's preview: the tip, tour, checklist or article the server resolved for the chosen
// client, drawn by the SDK's own renderers (waymark.js from this server), so it looks exactly as
// users will see it.
import { previewLauncher, previewTip, previewTour } from "/sdk/src/preview.js";

const stage = document.getElementById("preview-stage");
if (stage?.dataset.tip || stage?.dataset.tour || stage?.dataset.launcher) {
  try {
    // The SDK's own words in the chosen client's language, when the server has them.
    const options = { server: location.origin, words: stage.dataset.words ? JSON.parse(stage.dataset.words) : undefined };
    if (stage.dataset.tip) previewTip(JSON.parse(stage.dataset.tip), options);
    else if (stage.dataset.launcher) previewLauncher(JSON.parse(stage.dataset.launcher), options);
    else previewTour(JSON.parse(stage.dataset.tour), Number(stage.dataset.page), options);
    stage.dataset.drawn = "true";
  } catch (error) {
    document.getElementById("preview-status").textContent = `The preview failed: ${error.message}`;
  }
}
