"use strict";
// The viewer's script: the previous and next documents by the arrow keys or a horizontal swipe,
// Escape back to the document, the full-screen button, "Page n of N" for the page in view, and
// the find box: a text's hits (the API's search) marked on the pages that have them, "n of N"
// and the page of the hit in view, the next hit by Enter or ↓, the previous by ↑.
// Keys and swipes belong to the zoom while it is open.
(() => {
  const main = document.querySelector("main.viewer");
  if (!main) return;
  const zooming = () => document.querySelector(".zoom") !== null;
  const go = (href) => { if (href) location.assign(href); };
  document.addEventListener("keydown", (event) => {
    if (zooming() || event.altKey || event.ctrlKey || event.metaKey || event.target.closest("input, textarea, select, video")) return;
    const to = { ArrowLeft: main.dataset.previous, ArrowRight: main.dataset.next, Escape: main.dataset.close }[event.key];
    if (to) { event.preventDefault(); go(to); }
  });
  let start = null;
  main.addEventListener("touchstart", (event) => {
    start = event.touches.length === 1 ? [event.touches[0].clientX, event.touches[0].clientY] : null;
  }, { passive: true });
  main.addEventListener("touchend", (event) => {
    if (!start || zooming()) return;
    const touch = event.changedTouches[0];
    const [dx, dy] = [touch.clientX - start[0], touch.clientY - start[1]];
    start = null;
    if (Math.abs(dx) > 60 && Math.abs(dx) > 2 * Math.abs(dy)) go(dx > 0 ? main.dataset.previous : main.dataset.next);
  });

  const full = document.getElementById("fullscreen");
  if (document.fullscreenEnabled) {
    full.hidden = false;
    full.addEventListener("click", () => (document.fullscreenElement ? document.exitFullscreen() : main.requestFullscreen()).catch(() => {}));
    document.addEventListener("fullscreenchange", () => { full.textContent = document.fullscreenElement ? "Leave full screen" : "Full screen"; });
  }

  const pages = [...main.querySelectorAll(".pages img")];
  const counter = document.getElementById("counter");
  if (pages.length > 1 && "IntersectionObserver" in window) {
    const seen = new Map();
    const observer = new IntersectionObserver((entries) => {
      for (const entry of entries) seen.set(entry.target, entry.intersectionRatio);
      let best = 0;
      pages.forEach((page, index) => { if ((seen.get(page) || 0) > (seen.get(pages[best]) || 0)) best = index; });
      counter.textContent = `Page ${best + 1} of ${pages.length}`;
    }, { threshold: [0, 0.25, 0.5, 0.75, 1] });
    pages.forEach((page) => observer.observe(page));
  }

  const find = main.querySelector("form.find");
  if (find && pages.length > 0) {
    const input = find.querySelector("input");
    const steps = [...find.querySelectorAll("button[data-step]")];
    const status = find.querySelector(".hits");
    const plain = pages.map((page) => page.getAttribute("src"));
    let hits = [], current = -1, searched = null;
    const show = (index) => {
      current = (index + hits.length) % hits.length;
      const hit = hits[current], page = pages[hit.page - 1];
      if (page) {
        // The hit's line in the middle of the screen: its box from points to the image's pixels.
        const line = hit.height > 0 ? (hit.rects[0][1] / hit.height) * page.clientHeight : page.clientHeight / 2;
        window.scrollTo({ top: page.getBoundingClientRect().top + window.scrollY + line - window.innerHeight / 2 });
      }
      status.textContent = `${current + 1} of ${hits.length} (page ${hits[current].page})`;
    };
    const search = async (text) => {
      searched = text;
      const response = await fetch(`${find.dataset.search}?q=${encodeURIComponent(text)}&limit=1000`, { credentials: "same-origin" });
      const body = await response.json().catch(() => ({}));
      if (searched !== text) return;
      if (response.status === 202) { status.textContent = "Its text is still being read; try again in a moment."; return; }
      if (!response.ok) { status.textContent = body.error?.message || "The search failed."; return; }
      hits = body.hits;
      const marked = new Set(hits.map((hit) => hit.page));
      pages.forEach((page, index) => {
        page.src = marked.has(index + 1) ? `${plain[index]}&highlight=${encodeURIComponent(text)}` : plain[index];
      });
      steps.forEach((step) => { step.hidden = hits.length < 2; });
      if (hits.length === 0) { status.textContent = "No hits."; return; }
      show(0);
    };
    find.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = input.value.trim();
      if (text.length < 2) { status.textContent = "Type two letters or more."; return; }
      if (text === searched && hits.length > 0) show(current + 1); else search(text);
    });
    steps.forEach((step) => step.addEventListener("click", () => { if (hits.length > 0) show(current + Number(step.dataset.step)); }));
  }
})();
