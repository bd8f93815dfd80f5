// The renderers' look: one style sheet for tips, spotlights and pointers (parts bring their own: the
// narration part the look of its Listen control), adopted as
// a constructed style sheet where the browser has them (which a page's Content-Security-Policy
// without 'unsafe-inline' still allows), else a <style> element.

const STYLE = `
.wm-tip,.wm-tip *,.wm-pointer,.wm-spot{box-sizing:border-box}
.wm-tip{overflow-wrap:break-word;position:absolute;z-index:2147483000;max-width:min(320px,calc(100vw - 16px));overflow:auto;background:var(--wm-surface,#1d2a44);color:var(--wm-text,#fff);border-radius:var(--wm-radius,10px);padding:var(--wm-pad,12px 14px);box-shadow:0 6px 24px rgba(0,0,0,.3);font:15px/1.4 var(--wm-font,system-ui,sans-serif)}
.wm-tip:focus{outline:3px solid var(--wm-focus,#ffbf47);outline-offset:2px}
.wm-tip h2{font-size:16px;margin:0 36px 6px 0}.wm-tip p{margin:0 0 6px}.wm-tip a{color:var(--wm-accent,#9cd3ff)}
.wm-tip img{max-width:100%}
.wm-close{position:absolute;top:0;right:0;min-width:44px;min-height:44px;background:none;border:0;color:inherit;font-size:22px;cursor:pointer;line-height:1}
[dir=rtl] .wm-close{right:auto;left:0}[dir=rtl].wm-tip h2{margin:0 0 6px 36px}
.wm-kind-banner{position:fixed;bottom:0;left:0;right:0;max-width:none;border-radius:0;padding:12px max(14px,env(safe-area-inset-right)) max(12px,env(safe-area-inset-bottom)) max(14px,env(safe-area-inset-left))}
.wm-kind-modal{position:fixed;inset:0;margin:auto;width:fit-content;height:fit-content;max-width:min(440px,calc(100vw - 16px));max-height:calc(100vh - 16px)}
.wm-backdrop{position:fixed;inset:0;background:rgba(0,0,0,.45);z-index:2147482999}
.wm-speaking{outline:3px solid #ffbf47!important;outline-offset:3px;border-radius:4px}
.wm-spot{position:absolute;z-index:2147482998;border-radius:8px;box-shadow:0 0 0 9999px rgba(0,0,0,.55);pointer-events:none;transition:all .2s}
.wm-pointer{position:absolute;z-index:2147483001;width:28px;height:28px;border-radius:50%;background:rgba(255,191,71,.9);border:2px solid #fff;pointer-events:none}
.wm-pointer::after{content:"";position:absolute;left:8px;top:11px;width:16px;height:34px;border-radius:8px 8px 5px 5px;background:#fff;border:2px solid #1d2a44;transform:rotate(-20deg);transform-origin:50% 0}
.wm-arrow{position:absolute;z-index:2147482999;width:12px;height:12px;background:var(--wm-surface,#1d2a44);transform:rotate(45deg);pointer-events:none}
.wm-g-tap{animation:wm-tap 1.2s infinite}.wm-g-double-tap{animation:wm-dtap 1.4s infinite}.wm-g-long-press{animation:wm-long 2s infinite}
.wm-g-swipe-left{animation:wm-left 1.6s infinite}.wm-g-swipe-right{animation:wm-right 1.6s infinite}
.wm-g-swipe-up{animation:wm-up 1.6s infinite}.wm-g-swipe-down{animation:wm-down 1.6s infinite}
@keyframes wm-tap{0%,100%{transform:scale(1)}50%{transform:scale(.6)}}
@keyframes wm-dtap{0%,30%,60%,100%{transform:scale(1)}15%,45%{transform:scale(.6)}}
@keyframes wm-long{0%{transform:scale(1)}60%,90%{transform:scale(1.6);opacity:.6}100%{transform:scale(1)}}
.wm-pointer{--x:var(--wm-x,40px);--y:var(--wm-y,40px);--nx:calc(-1*var(--x));--ny:calc(-1*var(--y))}
@keyframes wm-left{0%{transform:translateX(var(--x));opacity:0}20%{opacity:1}100%{transform:translateX(var(--nx));opacity:0}}
@keyframes wm-right{0%{transform:translateX(var(--nx));opacity:0}20%{opacity:1}100%{transform:translateX(var(--x));opacity:0}}
@keyframes wm-up{0%{transform:translateY(var(--y));opacity:0}20%{opacity:1}100%{transform:translateY(var(--ny));opacity:0}}
@keyframes wm-down{0%{transform:translateY(var(--ny));opacity:0}20%{opacity:1}100%{transform:translateY(var(--y));opacity:0}}
.wm-live{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.wm-paused,.wm-waiting{visibility:hidden!important}.wm-waiting{pointer-events:none!important}
@media (prefers-reduced-motion: reduce){.wm-pointer,.wm-spot{animation:none!important;transition:none!important}}
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
