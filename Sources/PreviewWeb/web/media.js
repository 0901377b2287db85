"use strict";
// What a page showing a document's media does with it (the Detail page and the Viewer): the
// filmstrip's frames seek the player instead of opening a file; while the document's job runs,
// its preview appears once made (the page's media asked for again and put in place); and while a
// video's playable version is being made, its progress is shown from the document's own numbers
// (long polling `GET /v1/documents/{id}?wait=`) and, once it is ready, the player takes it. No reload.
// A long paged document's markup holds its first pages only: the others are made as they come
// within a screen or two of the view (or when a page is asked for with a `makepages` event whose
// detail is its number), each marked with the text in the pages' `data-highlight` when its number
// is in `data-marked` and described by its text once read (`GET /v1/documents/{id}/text?page=N`,
// as the written pages are by the server); a `pagesmade` event follows.
(() => {
  const host = document.querySelector("[data-media-of]");
  if (!host) return;
  host.addEventListener("click", (event) => {
    const frame = event.target.closest(".filmstrip a");
    const video = host.querySelector("video");
    if (!frame || !video) return;
    event.preventDefault();
    video.currentTime = Number(new URL(frame.href).hash.replace("#t=", "")) || 0;
    video.play().catch(() => {});
  });
  const id = host.dataset.mediaOf;
  const asked = (waiting) => DocPreview.document(id, { waiting });
  // A video's playable version: its progress, then the player takes it.
  const watchRendition = (video, making) => {
    let first = true;
    const ask = async () => {
      let doc = null;
      try { doc = await asked(!first); } catch (_) { /* asked again below */ }
      first = false;
      const rendition = doc?.renditions?.[0];
      if (rendition?.status === "ready" && rendition.url) {
        video.prepend(Object.assign(document.createElement("source"), { src: rendition.url, type: rendition.mime }));
        video.load();
        making.textContent = "The playable version is ready.";
        return;
      }
      if (rendition?.status === "failed") {
        making.textContent = `No playable version: ${rendition.error?.message || "it could not be made"}.`;
        return;
      }
      making.hidden = false;
      making.textContent = rendition?.progress !== undefined ? `Making a playable version: ${rendition.progress} %` : "A playable version is on its way.";
      setTimeout(ask, doc ? 0 : 3000);
    };
    ask();
  };
  // The document's job: once it has settled, this page's media as it is now takes the place of the notice.
  const watchJob = () => {
    const settle = async () => {
      try {
        const doc = await asked(true);
        if (doc && (doc.status === "done" || doc.status === "failed")) {
          const page = new DOMParser().parseFromString(await (await fetch(location.href)).text(), "text/html");
          const fresh = page.querySelector("[data-media-of]");
          if (fresh) host.replaceChildren(...fresh.childNodes);
          start();
          return;
        }
        setTimeout(settle, doc ? 0 : 3000);
      } catch (_) {
        setTimeout(settle, 3000);
      }
    };
    settle();
  };
  // A made page's text, for those who cannot see it (read after "Page N"); none while it is unread.
  const describe = async (image, number) => {
    try {
      const answer = await fetch(`/v1/documents/${id}/text?page=${number}`, { headers: { Accept: "text/plain" } });
      const text = answer.status === 200 ? (await answer.text()).split(/\s+/).join(" ").trim() : "";
      if (!text) return;
      const described = Object.assign(document.createElement("div"), { className: "page-text", id: `page-text-${number}`, textContent: text });
      image.after(described);
      image.setAttribute("aria-describedby", described.id);
    } catch (_) { /* described by its number alone */ }
  };
  // The pages still to be made.
  const makePages = () => {
    const pages = host.querySelector(".pages[data-pages]");
    if (!pages || !("IntersectionObserver" in window)) return;
    const total = Number(pages.dataset.pages);
    let made = pages.querySelectorAll("img").length;
    const make = (upTo) => {
      const first = made;
      const marked = new Set((pages.dataset.marked || "").split(",").map(Number));
      while (made < Math.min(upTo, total)) {
        made += 1;
        const image = Object.assign(document.createElement("img"), { loading: "lazy", decoding: "async", alt: `Page ${made}` });
        image.dataset.page = made;
        image.style.aspectRatio = pages.dataset.ratio;
        const address = (width) => `${pages.dataset.pageSrc}${made}&width=${width}`;
        image.dataset.plain = address(1024);
        image.dataset.plainSet = pages.dataset.pageWidths.split(",").map((width) => `${address(width)} ${width}w`).join(", ");
        image.sizes = pages.dataset.pageSizes;
        DocPreview.mark(image, marked.has(made) ? pages.dataset.highlight : null);
        image.dataset.zoom = pages.dataset.pageZoom + made;
        image.dataset.zoomFormat = "png";
        pages.append(image);
        describe(image, made);
      }
      if (made > first) {
        watch();
        pages.dispatchEvent(new CustomEvent("pagesmade", { bubbles: true }));
      }
    };
    const near = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) make(made + 5);
    }, { rootMargin: "100% 0px" });
    const watch = () => { near.disconnect(); if (made < total) near.observe([...pages.querySelectorAll("img")].pop()); };
    pages.addEventListener("makepages", (event) => make(Number(event.detail)));
    // Once the first page is in: it goes before any other.
    const first = pages.querySelector("img");
    if (!first || first.complete) watch(); else { first.addEventListener("load", watch, { once: true }); first.addEventListener("error", watch, { once: true }); }
  };
  const start = () => {
    makePages();
    const making = host.querySelector(".making");
    if (!making) return;
    const video = host.querySelector("video");
    if (video) watchRendition(video, making); else watchJob();
  };
  start();
})();
