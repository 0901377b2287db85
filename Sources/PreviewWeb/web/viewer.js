"use strict";
// The viewer's script: the previous and next documents by the arrow keys or a horizontal swipe,
// Escape or a swipe down back to the document, a tap that hides and shows the toolbars (and 3 s
// without one while a video plays), the Zoom
// button (the page in view, or the picture), the full-screen button, "Page n of N" for the page in
// view, a Retry for pictures and pages that did not load, and the find box: a text's hits (the
// API's search) marked on the pages that have them (those still to be made are made marked),
// "n of N" and the page of the hit in view, the next hit by Enter or ↓, the previous by ↑.
// Keys and swipes belong to the zoom while it is open.
(() => {
  const main = document.querySelector("main.viewer");
  if (!main) return;
  const zooming = () => document.querySelector(".zoom") !== null;
  const go = (href) => { if (href) location.assign(href); };
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || zooming() || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest("input, textarea, select, video")) return;
    const to = { ArrowLeft: main.dataset.previous, ArrowRight: main.dataset.next, Escape: main.dataset.close }[event.key];
    if (to) { event.preventDefault(); go(to); }
  });
  let start = null;
  main.addEventListener("touchstart", (event) => {
    start = event.touches.length === 1 ? [event.touches[0].clientX, event.touches[0].clientY, scrollY] : null;
  }, { passive: true });
  main.addEventListener("touchend", (event) => {
    if (!start || zooming()) return;
    const touch = event.changedTouches[0];
    const [dx, dy] = [touch.clientX - start[0], touch.clientY - start[1]];
    const fromTop = start[2] <= 0;
    start = null;
    if (Math.abs(dx) > 60 && Math.abs(dx) > 2 * Math.abs(dy)) go(dx > 0 ? main.dataset.previous : main.dataset.next);
    else if (fromTop && dy > 120 && dy > 2 * Math.abs(dx)) go(main.dataset.close);
  });

  // A tap on the content (not on a control, a player or a link) hides or shows the toolbars; while
  // a video plays, they hide after 3 s without a touch, a click, a key or the pointer moving.
  const video = main.querySelector(".stage video");
  let idle = null;
  const hideLater = () => {
    clearTimeout(idle);
    if (video && !video.paused && !main.classList.contains("bare")) idle = setTimeout(() => main.classList.add("bare"), 3000);
  };
  main.querySelector(".stage").addEventListener("click", (event) => {
    if (event.target.closest("a, button, input, video, audio, .filmstrip")) return;
    main.classList.toggle("bare");
    hideLater();
  });
  if (video) {
    const awake = () => { main.classList.remove("bare"); hideLater(); };
    video.addEventListener("play", hideLater);
    video.addEventListener("pause", () => { clearTimeout(idle); main.classList.remove("bare"); });
    addEventListener("keydown", awake);
    addEventListener("pointermove", (event) => { if (event.pointerType === "mouse") awake(); });
  }

  const full = document.getElementById("fullscreen");
  if (document.fullscreenEnabled) {
    full.hidden = false;
    full.addEventListener("click", () => (document.fullscreenElement ? document.exitFullscreen() : main.requestFullscreen()).catch(() => {}));
    document.addEventListener("fullscreenchange", () => {
      full.setAttribute("aria-label", document.fullscreenElement ? "Leave full screen" : "Full screen");
    });
  }

  const host = main.querySelector(".pages");
  const pages = () => [...main.querySelectorAll(".pages img")];
  const total = Number(host?.dataset.pages) || pages().length;
  const counter = document.getElementById("counter");
  let inView = 0;
  if (total > 1 && "IntersectionObserver" in window) {
    const seen = new Map();
    const observer = new IntersectionObserver((entries) => {
      for (const entry of entries) seen.set(entry.target, entry.intersectionRatio);
      const images = pages();
      let best = 0;
      images.forEach((page, index) => { if ((seen.get(page) || 0) > (seen.get(images[best]) || 0)) best = index; });
      inView = best;
      counter.textContent = `Page ${best + 1} of ${total}`;
    }, { threshold: [0, 0.25, 0.5, 0.75, 1] });
    const observeAll = () => pages().forEach((page) => observer.observe(page));
    observeAll();
    host.addEventListener("pagesmade", observeAll);
  }

  // Zoom: the page in view, or the one picture.
  const zoom = document.getElementById("zoom-open");
  const zoomable = () => (host ? pages()[inView] : main.querySelector(".stage img[data-zoom]"));
  if (zoomable()) {
    zoom.hidden = false;
    zoom.addEventListener("click", () => zoomable()?.dispatchEvent(new MouseEvent("dblclick", { bubbles: true })));
  }

  // Pictures and pages that did not load (a lost network): said, and asked for again on Retry.
  const failure = main.querySelector(".failure");
  const failed = new Set();
  main.addEventListener("error", (event) => {
    if (event.target.tagName !== "IMG") return;
    failed.add(event.target);
    failure.hidden = false;
  }, true);
  document.getElementById("retry").addEventListener("click", () => {
    failure.hidden = true;
    for (const image of failed) {
      const source = image.getAttribute("src");
      image.removeAttribute("src");
      image.setAttribute("src", source);
    }
    failed.clear();
  });

  const find = main.querySelector("form.find");
  const findOpen = document.getElementById("find-open");
  if (find && host) {
    findOpen.hidden = false;
    find.classList.add("folded");
    findOpen.addEventListener("click", () => {
      const folded = find.classList.toggle("folded");
      findOpen.setAttribute("aria-expanded", String(!folded));
      if (!folded) find.querySelector("input").focus();
    });
    const input = find.querySelector("input");
    const steps = [...find.querySelectorAll("button[data-step]")];
    const status = find.querySelector(".hits");
    let hits = [], current = -1, searched = null;
    const show = (index) => {
      current = (index + hits.length) % hits.length;
      const hit = hits[current];
      host.dispatchEvent(new CustomEvent("makepages", { detail: hit.page }));
      const page = pages()[hit.page - 1];
      if (page) {
        // The hit's line in the middle of the screen: its box from points to the image's pixels.
        const line = hit.height > 0 ? (hit.rects[0][1] / hit.height) * page.clientHeight : page.clientHeight / 2;
        window.scrollTo({ top: page.getBoundingClientRect().top + window.scrollY + line - window.innerHeight / 2 });
      }
      status.textContent = `${current + 1} of ${hits.length} (page ${hit.page})`;
    };
    const search = async (text) => {
      searched = text;
      let body;
      try {
        body = await DocPreview.request(`${find.dataset.search}?q=${encodeURIComponent(text)}&limit=1000`);
      } catch (error) {
        if (searched === text) status.textContent = error.message;
        return;
      }
      if (searched !== text) return;
      if (!body?.hits) { status.textContent = "Its text is still being read; try again in a moment."; return; }
      hits = body.hits;
      const marked = new Set(hits.map((hit) => hit.page));
      host.dataset.highlight = text;
      host.dataset.marked = [...marked].join(",");
      pages().forEach((page, index) => DocPreview.mark(page, marked.has(index + 1) ? text : null));
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
