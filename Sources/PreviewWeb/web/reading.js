"use strict";
// What a shared page reports of its reading (`POST /s/{token}/reading`): the seconds each page was
// at least half in view while the tab was visible, and the stretches of the video played (the
// browser's own `played` ranges: seeks and replays merged), and how often a page or picture was
// opened zoomed and the download taken. A random id kept in this browser names
// the visitor and another this load of the page; nothing else about who. Each report holds the
// totals so far, so one lost or sent twice changes nothing the next does not mend.
(() => {
  const main = document.getElementById("main");
  const pass = main && main.dataset.readingPass;
  if (!pass || !navigator.sendBeacon) return;
  const address = `${location.pathname.replace(/\/$/, "")}/reading`;
  const limit = 1024;
  const randomID = () => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  let visitor;
  try {
    visitor = localStorage.getItem("docpreview-visitor");
    if (!visitor) localStorage.setItem("docpreview-visitor", (visitor = randomID()));
  } catch (_) {
    visitor = randomID();
  }
  const view = randomID();
  const seconds = new Map();
  const inView = new Set();
  let visible = document.visibilityState === "visible";
  let last = performance.now();
  // Adds the time since the last tally to each page half in view, if the tab was visible.
  const tally = () => {
    const now = performance.now();
    if (visible) for (const page of inView) seconds.set(page, (seconds.get(page) || 0) + (now - last) / 1000);
    last = now;
  };
  const watcher = new IntersectionObserver((entries) => {
    tally();
    for (const entry of entries) {
      const page = Number(entry.target.dataset.page);
      if (entry.isIntersecting && entry.intersectionRatio >= 0.5) inView.add(page);
      else inView.delete(page);
    }
  }, { threshold: [0, 0.5, 1] });
  const watch = (node) => {
    if (node.nodeType !== 1) return;
    if (node.matches("img[data-page]")) watcher.observe(node);
    else node.querySelectorAll("img[data-page]").forEach((image) => watcher.observe(image));
  };
  watch(main);
  new MutationObserver((changes) => changes.forEach((change) => change.addedNodes.forEach(watch)))
    .observe(main, { childList: true, subtree: true });
  let zooms = 0;
  let downloads = 0;
  document.addEventListener("docpreview:zoom", () => { zooms += 1; });
  const video = main.querySelector("video");
  const tenths = (time) => Math.round(time * 10) / 10;
  let sent = "";
  const send = () => {
    tally();
    const report = { pass, visitor, view };
    if (zooms) report.zooms = zooms;
    if (downloads) report.downloads = downloads;
    if (video) {
      report.played = [];
      for (let index = 0; index < video.played.length && index < 32; index += 1) {
        report.played.push([tenths(video.played.start(index)), tenths(video.played.end(index))]);
      }
      if (Number.isFinite(video.duration)) report.duration = tenths(video.duration);
    }
    // The pages read longest first, as many as the report's limit holds; a page left out keeps
    // what an earlier report said.
    report.pages = {};
    for (const [page, time] of [...seconds].sort((one, other) => other[1] - one[1])) {
      report.pages[page] = tenths(time);
      if (JSON.stringify(report).length > limit) {
        delete report.pages[page];
        break;
      }
    }
    const body = JSON.stringify(report);
    if (body === sent) return;
    sent = body;
    navigator.sendBeacon(address, new Blob([body], { type: "application/json" }));
  };
  setInterval(send, 15000);
  document.addEventListener("visibilitychange", () => {
    tally();
    visible = document.visibilityState === "visible";
    if (!visible) send();
  });
  addEventListener("pagehide", send);
  if (video) video.addEventListener("pause", send);
  document.addEventListener("click", (event) => {
    if (!event.target.closest || !event.target.closest("a[href*='download=1']")) return;
    downloads += 1;
    send();
  });
})();
