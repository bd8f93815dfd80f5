// The tips' look: one style sheet for a tip and its arrow (parts bring their own: the kinds part
// the look of a spotlight, a pointer, a banner and a modal; the narration part its Listen
// control's), adopted as
// a constructed style sheet where the browser has them (which a page's Content-Security-Policy
// without 'unsafe-inline' still allows), else a <style> element.

const STYLE = `
.wm-tip,.wm-tip *{box-sizing:border-box}
.wm-tip{overflow-wrap:break-word;position:absolute;z-index:2147483000;max-width:min(320px,calc(100vw - 16px));overflow:auto;background:var(--wm-surface,#1d2a44);color:var(--wm-text,#fff);border-radius:var(--wm-radius,10px);padding:var(--wm-pad,12px 14px);box-shadow:0 6px 24px rgba(0,0,0,.3);font:15px/1.4 var(--wm-font,system-ui,sans-serif)}
.wm-tip:focus{outline:3px solid var(--wm-focus,#ffbf47);outline-offset:2px}
.wm-tip h2{font-size:16px;margin:0 36px 6px 0}.wm-tip p{margin:0 0 6px}.wm-tip a{color:var(--wm-accent,#9cd3ff)}
.wm-tip img{max-width:100%}
.wm-close{position:absolute;top:0;right:0;min-width:44px;min-height:44px;background:none;border:0;color:inherit;font-size:22px;cursor:pointer;line-height:1}
[dir=rtl] .wm-close{right:auto;left:0}[dir=rtl].wm-tip h2{margin:0 0 6px 36px}
.wm-speaking{outline:3px solid #ffbf47!important;outline-offset:3px;border-radius:4px}
.wm-arrow{position:absolute;z-index:2147482999;width:12px;height:12px;background:var(--wm-surface,#1d2a44);transform:rotate(45deg);pointer-events:none}
.wm-live{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.wm-paused,.wm-waiting{visibility:hidden!important}.wm-waiting{pointer-events:none!important}
`;

/** Adds the style sheet (or `text`, a part's own) to the page; the function it returns takes it
 *  away again. */
export function installStyle(win, text = STYLE) {
  const doc = win.document;
  if (win.CSSStyleSheet && "adoptedStyleSheets" in doc) {
    const sheet = new win.CSSStyleSheet();
    sheet.replaceSync(text);
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
    return () => { doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => s !== sheet); };
  }
  const style = doc.createElement("style");
  style.textContent = text;
  style.dataset.waymark = "style";
  doc.head.appendChild(style);
  return () => style.remove();
}
