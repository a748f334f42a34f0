// The offline page (issue 26 item 2): the service worker shows it when the server cannot be
// reached. Its sentences come with it in every language (JSON in the body's data-texts, filled
// by the server from the catalogs); the one shown is the user's chosen language, else the browser's.
const texts = JSON.parse(document.body.dataset.texts || "{}");
const want = localStorage.getItem("rebirth.lang") || (navigator.language || "en").slice(0, 2);
const lang = texts[want] ? want : "en";
const tx = texts[lang] || {};
document.documentElement.lang = lang;
document.title = tx.title || document.title;
document.getElementById("offline-title").textContent = tx.title || "";
document.getElementById("offline-body").textContent = tx.body || "";
const retry = document.getElementById("offline-retry");
retry.textContent = tx.retry || "";
retry.addEventListener("click", () => location.reload());
