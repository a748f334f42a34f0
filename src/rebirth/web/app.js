// The installable app's side of every page (issue 26 item 2): the service worker registers
// (scope /), and the page learns whether it runs installed (iOS needs that for web push).

/** The service worker's registration (null: the browser has none, or it failed). */
export async function registerWorker() {
  if (!("serviceWorker" in navigator)) return null;
  try {
    return await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  } catch {
    return null; // no worker: the site works as before, without offline start or push
  }
}

/** iPhone or iPad (iPadOS reports itself as a Mac with touch). */
export const isIOS = () => /iPad|iPhone|iPod/.test(navigator.userAgent)
  || (navigator.platform === "MacIntel" && navigator.maxTouchPoints > 1);

/** The page runs as an installed app (added to the home screen). */
export const isStandalone = () => window.matchMedia?.("(display-mode: standalone)").matches
  || navigator.standalone === true;

window.rebirthWorker = registerWorker();
