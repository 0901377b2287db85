"use strict";
// The list page's script: the upload sheet (type and title required, checked as they are filled;
// files picked there or dropped on the page) and its uploads (`DocPreview.upload`: resumable,
// two at a time, the service's pacing waited out), each with its progress bar, percentage and time
// left, a cancel button and the service's own message when it is refused; a card for each accepted file at once, with the statistics and
// count read again; the cards of documents not settled yet kept current by long polling their
// document (`GET /v1/documents/{id}?wait=`: answered when it changes) until they are, with no
// reload; the next page of documents added as the list's end comes near; the Filter sheet; a sort
// applied as it is chosen and remembered, as the grid or list
// layout is; and the scroll position, so that coming back (after a delete, say) finds the list
// where it was. Text from the server is set as text, never as markup.
(() => {
  const { made, request } = DocPreview;
  const list = document.getElementById("documents");
  const form = document.getElementById("upload");
  const uploads = document.getElementById("uploads");
  const filters = document.getElementById("filters");
  if (!list || !form) return;
  const types = JSON.parse(list.dataset.types || "{}");
  const emoji = JSON.parse(list.dataset.emoji || "{}");
  // A card's thumbnail box (CSS pixels) at its widest; its image comes at 1, 1.5 and 2 times it.
  const [boxWidth, boxHeight] = list.dataset.box.split("x").map(Number);
  const statusLabel = { queued: "Queued", processing: "Processing", done: "Ready", failed: "Failed" };

  // The scroll position, per listing, for the way back.
  const scrollKey = `docpreview.scroll:${location.pathname}${location.search}`;
  addEventListener("pagehide", () => sessionStorage.setItem(scrollKey, String(scrollY)));
  const scrolled = Number(sessionStorage.getItem(scrollKey));
  if (scrolled > 0) addEventListener("load", () => scrollTo(0, scrolled));

  // The layout, remembered.
  const layoutKey = "documentsViewMode";
  const gridButton = document.getElementById("layout-grid");
  const listButton = document.getElementById("layout-list");
  const applyLayout = (layout) => {
    list.classList.toggle("rows", layout === "list");
    list.classList.toggle("grid", layout !== "list");
    gridButton.setAttribute("aria-pressed", String(layout !== "list"));
    listButton.setAttribute("aria-pressed", String(layout === "list"));
  };
  gridButton.hidden = listButton.hidden = false;
  applyLayout(localStorage.getItem(layoutKey));
  for (const [button, layout] of [[gridButton, "grid"], [listButton, "list"]]) {
    button.addEventListener("click", () => { localStorage.setItem(layoutKey, layout); applyLayout(layout); });
  }

  // The sort: applied as it is chosen, and remembered for the next visit that names none.
  const sortKey = "documentsSortBy";
  const sort = filters.elements.sort;
  const asked = new URLSearchParams(location.search);
  const remembered = localStorage.getItem(sortKey);
  if (!asked.has("sort") && remembered && remembered !== sort.value && [...sort.options].some((option) => option.value === remembered)) {
    asked.set("sort", remembered);
    location.replace(`/?${asked}`);
    return;
  }
  sort.addEventListener("change", () => { localStorage.setItem(sortKey, sort.value); filters.requestSubmit(); });
  filters.querySelector(".apply").hidden = true;
  // A form sends only what narrows the list.
  filters.addEventListener("formdata", (event) => {
    for (const [name, value] of [...event.formData.entries()]) if (value === "" || (name === "sort" && value === "newest")) event.formData.delete(name);
  });

  // The sheets: Filter, and the upload's.
  const sheet = (dialog, opener, closer) => {
    for (const open of document.querySelectorAll(opener)) {
      open.addEventListener("click", (event) => { event.preventDefault(); if (!dialog.open) dialog.showModal(); });
    }
    document.querySelector(closer).addEventListener("click", (event) => { event.preventDefault(); dialog.close(); });
    dialog.addEventListener("click", (event) => { if (event.target === dialog) dialog.close(); });
  };
  const filterSheet = document.getElementById("filter-sheet");
  const uploadSheet = document.getElementById("upload-sheet");
  sheet(filterSheet, "#filter-open", "#filter-close");
  sheet(uploadSheet, '[data-opens="upload-sheet"]', "#upload-cancel");
  if (location.hash === "#upload-sheet") { history.replaceState(null, "", location.pathname + location.search); uploadSheet.showModal(); }

  // A video's teaser on its card, fetched only when played (`preload="none"`): while a mouse rests
  // on the card, or from a half-second press on a touch screen until the finger lifts. A video
  // without one (not made yet, or refused) keeps its thumbnail.
  const teaserFor = (id) => {
    const video = Object.assign(made("video", "teaser"), { src: `/v1/documents/${id}/trickplay/teaser.mp4`, muted: true, loop: true,
                                                           playsInline: true, preload: "none", hidden: true, tabIndex: -1 });
    video.setAttribute("aria-hidden", "true");
    return video;
  };
  const play = (card) => {
    const video = card?.querySelector("video.teaser");
    if (!video) return;
    video.hidden = false;
    video.play().catch(() => { video.hidden = true; });
  };
  const stop = (card) => {
    const video = card?.querySelector("video.teaser");
    if (!video) return;
    video.pause();
    video.hidden = true;
  };
  list.addEventListener("error", (event) => { if (event.target.matches?.("video.teaser")) event.target.remove(); }, true);
  // A person who asked for less motion sees teasers only when pressing for one.
  const still = matchMedia("(prefers-reduced-motion: reduce)");
  list.addEventListener("pointerover", (event) => { if (event.pointerType === "mouse" && !still.matches) play(event.target.closest(".card")); });
  list.addEventListener("pointerout", (event) => {
    const card = event.target.closest(".card");
    if (card && !card.contains(event.relatedTarget)) stop(card);
  });
  let press;
  let held = false;  // a press that played a teaser: its click and menu are not the link's
  list.addEventListener("pointerdown", (event) => {
    const card = event.target.closest(".card");
    held = false;
    if (event.pointerType !== "touch" || !card?.querySelector("video.teaser")) return;
    press = setTimeout(() => { held = true; play(card); }, 500);
  });
  for (const ending of ["pointerup", "pointercancel"]) {
    list.addEventListener(ending, (event) => {
      clearTimeout(press);
      if (held) stop(event.target.closest(".card"));
    });
  }
  list.addEventListener("contextmenu", (event) => { if (held) event.preventDefault(); });
  list.addEventListener("click", (event) => {
    if (!held) return;
    event.preventDefault();
    held = false;
  });

  // A card shows what its document says.
  const show = (card, doc) => {
    card.dataset.status = doc.status;
    const pictured = doc.status === "done" && doc.preview_status === "ready";
    const thumb = card.querySelector(".thumb");
    let badge = thumb.querySelector(".badge.type");
    if (!badge) {
      badge = made("span", "badge type", ` ${doc.type ? types[doc.type] || doc.type : "No type"}`);
      const icon = made("span", "", emoji[doc.type] || "📁");
      icon.setAttribute("aria-hidden", "true");
      badge.prepend(icon);
    }
    const base = `/v1/documents/${doc.document_id}/preview`;
    const at = (scale) => `${base}?width=${(scale * boxWidth) / 2}&height=${(scale * boxHeight) / 2}&format=webp`;
    thumb.replaceChildren(pictured ? Object.assign(made("img"), { src: at(2), srcset: [2, 3, 4].map((s) => `${at(s)} ${(s * boxWidth) / 2}w`).join(", "),
                                                                  sizes: list.dataset.sizes, alt: "" })
                                   : made("span", "placeholder", doc.status === "done" ? "No preview" : statusLabel[doc.status] || doc.status), badge);
    if (pictured && doc.mime.startsWith("video/")) thumb.append(teaserFor(doc.document_id));
    card.querySelector(".status").textContent = doc.status === "done" && !pictured ? "No preview" : statusLabel[doc.status] || doc.status;
    card.querySelector(".error")?.remove();
    if (doc.status === "failed" && doc.error) card.append(made("p", "error", doc.error.message));
  };
  const settled = (status) => status === "done" || status === "failed";
  const more = () => document.querySelector("a.more");
  const watch = (card) => {
    const started = Date.now();
    const ask = async () => {
      let answered = false;
      try {
        const doc = await DocPreview.document(card.dataset.id, { waiting: true });
        if (doc) { show(card, doc); answered = true; }
      } catch (_) { /* asked again below */ }
      if (!settled(card.dataset.status) && Date.now() - started < 1800000) setTimeout(ask, answered ? 0 : 3000);
    };
    ask();
  };
  const cardFor = (doc) => {
    const card = made("li", "card");
    card.dataset.id = doc.document_id;
    const typeLabel = doc.type ? types[doc.type] || doc.type : "No type";
    const link = Object.assign(made("a", "open"), { href: `/ui/documents/${doc.document_id}` });
    link.setAttribute("aria-label", `${doc.title}. ${typeLabel}. Not shared. Uploaded today.`);
    link.append(made("div", "thumb"), made("b", "title", doc.title));
    const meta = made("div", "meta", `${doc.school || "General"} · v${doc.version} · ${new Date().toLocaleDateString("en-GB", { dateStyle: "medium" })} · `);
    meta.append(made("span", "status"));
    card.append(link, meta);
    show(card, doc);
    return card;
  };
  // "{shown} of {total} total": the cards on the page ("+" while more follow), of `total` (or the count it says).
  const showCount = (total) => {
    const count = document.getElementById("count");
    count.textContent = count.textContent.replace(/^\d+\+? of (\d+)/,
      (_, said) => `${list.querySelectorAll(".card").length}${more() ? "+" : ""} of ${total ?? said}`);
  };
  // The statistics and the count, read again after an upload.
  const refreshCounts = async () => {
    try {
      const stats = await request(`/v1/stats?owner=${encodeURIComponent(form.dataset.owner)}`);
      const set = (key, value, detail = "") => { const element = document.querySelector(`[data-stat${detail}="${key}"]`); if (element) element.textContent = value; };
      set("total", String(stats.documents));
      set("total", `${stats.versions} versions`, "-detail");
      // As the server writes it (ByteCountFormatter's file sizes: powers of 1000).
      const units = ["bytes", "KB", "MB", "GB", "TB"];
      const power = Math.min(units.length - 1, Math.floor(Math.log10(Math.max(1, stats.stored_bytes)) / 3));
      const scaled = stats.stored_bytes / 1000 ** power;
      set("storage", power === 0 ? `${stats.stored_bytes} bytes` : `${power === 1 ? Math.round(scaled) : scaled.toFixed(1)} ${units[power]}`);
      set("shared", String(stats.shared_documents));
      if (stats.most_common_type) set("common", types[stats.most_common_type] || stats.most_common_type);
      showCount(stats.documents);
    } catch (_) { /* the page's numbers stay until the next load */ }
  };
  for (const card of list.querySelectorAll(".card")) if (!settled(card.dataset.status)) watch(card);

  // The next page of the list, added as its end comes near (the link stays for those without scripts).
  if (more() && "IntersectionObserver" in window) {
    let loading = false;
    const next = new IntersectionObserver(async (entries) => {
      const link = more();
      if (loading || !link || !entries.some((entry) => entry.isIntersecting)) return;
      loading = true;
      // Six skeleton cards while it loads, shown only if it takes more than 300 ms.
      const skeletons = Array.from({ length: 6 }, () => {
        const card = made("li", "card skeleton");
        card.setAttribute("aria-hidden", "true");
        card.append(made("div", "thumb"), made("div", "line"), made("div", "line short"));
        return card;
      });
      const showing = setTimeout(() => list.append(...skeletons), 300);
      try {
        const answer = await fetch(link.href, { headers: { Accept: "text/html" } });
        if (!answer.ok) return;
        const page = new DOMParser().parseFromString(await answer.text(), "text/html");
        const cards = [...page.querySelectorAll("#documents .card")].filter((card) => !list.querySelector(`[data-id="${card.dataset.id}"]`));
        list.append(...cards.map((card) => document.adoptNode(card)));
        for (const card of cards) if (!settled(card.dataset.status)) watch(card);
        const following = page.querySelector("a.more");
        next.disconnect();
        if (following) { link.href = following.href; next.observe(link); } else link.remove();
        showCount();
      } catch (_) { /* the link still works */ } finally {
        clearTimeout(showing);
        for (const skeleton of skeletons) skeleton.remove();
        loading = false;
      }
    }, { rootMargin: "600px 0px" });
    next.observe(more());
  }

  // Uploads: each file with its row (progress, time left, cancel, the outcome in words), sent by
  // `DocPreview.upload` (upload.js), and its card once it is accepted.
  const send = (file, labels) => {
    const row = made("li");
    const name = made("span", "name", labels.title || file.name);
    const cancel = made("button", "", "Cancel");
    cancel.type = "button";
    cancel.setAttribute("aria-label", `Cancel ${file.name}`);
    const progress = Object.assign(made("progress"), { max: 100, value: 0 });
    progress.setAttribute("aria-label", `Uploading ${file.name}`);
    const message = made("span", "message", "Queued.");
    row.append(name, cancel, progress, message);
    uploads.append(row);
    const end = (outcome, text) => {
      row.className = outcome;
      message.textContent = text;
      cancel.remove();
      if (outcome !== "accepted") progress.remove();
    };
    const percent = (bytes) => DocPreview.uploaded(bytes, file);
    // "45% · resumed at 30 % · about 12 s left": the time left from the pace since this page
    // started sending; where it resumed, when it picked up an upload an earlier page began.
    let started = null;
    let resumedAt = "";
    const report = (bytes) => {
      progress.value = percent(bytes);
      started ??= { at: performance.now(), bytes };
      const seconds = (performance.now() - started.at) / 1000;
      const rate = (bytes - started.bytes) / Math.max(seconds, 0.001);
      const left = rate > 0 && seconds > 1 ? ` · about ${Math.ceil((file.size - bytes) / rate)} s left` : "";
      message.textContent = `${percent(bytes)}%${resumedAt}${left}`;
    };
    const upload = DocPreview.upload(file, { ...labels, owner: form.dataset.owner }, {
      say: (text) => { message.textContent = text; },
      progress: report,
      resumed: (bytes) => { resumedAt = ` · resumed at ${percent(bytes)} %`; },
    });
    cancel.addEventListener("click", () => {
      upload.cancel();
      end("refused", "Cancelled.");
    });
    return upload.done.then(async (body) => {
      if (!body) return;
      progress.value = 100;
      end("accepted", "Uploaded: its preview is on its way.");
      const doc = await DocPreview.document(body.document_id);
      if (!doc) return;
      list.querySelector(`[data-id="${doc.document_id}"]`)?.remove();
      const card = cardFor(doc);
      list.prepend(card);
      document.querySelector(".empty")?.remove();
      refreshCounts();
      if (!settled(doc.status)) watch(card);
    }, (error) => end("refused", `Upload failed: ${error.message}`));
  };

  // The upload sheet: a type and (for one file) a title are required, each file's extension the
  // type's; the Upload button waits until they are.
  const fields = form.elements;
  const uploadButton = document.getElementById("upload-send");
  const say = (field, words) => {
    document.getElementById(`${field.id}-message`).textContent = words;
    field.setAttribute("aria-invalid", String(Boolean(words)));
  };
  let touched = false;
  const check = () => {
    const files = [...fields.file.files];
    const single = files.length <= 1;
    fields.title.disabled = !single;
    if (!single) fields.title.value = "";
    const typeProblem = fields.type.value ? "" : "Choose the document's type.";
    const titleProblem = single && !fields.title.value.trim() ? "A title is required." : "";
    const extensions = (fields.type.selectedOptions[0]?.dataset.extensions || "").split(",").filter(Boolean);
    fields.file.accept = extensions.join(",");
    const wrong = extensions.length ? files.filter((file) => !extensions.includes(file.name.slice(file.name.lastIndexOf(".")).toLowerCase())) : [];
    const fileProblem = !files.length ? "Choose a file." : wrong.length
      ? `Invalid file type. ${fields.type.selectedOptions[0].textContent} requires ${extensions.join(", ")}.` : "";
    if (touched) { say(fields.type, typeProblem); say(fields.title, titleProblem); say(fields.file, fileProblem); }
    uploadButton.disabled = Boolean(typeProblem || titleProblem || fileProblem);
    return !uploadButton.disabled;
  };
  for (const field of [fields.type, fields.title, fields.file]) {
    field.addEventListener(field === fields.title ? "input" : "change", () => { touched = true; check(); });
  }
  check();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    touched = true;
    if (!check()) return;
    const files = [...fields.file.files];
    const type = fields.type.value === "(none)" ? "" : fields.type.value;
    const labels = { type, school: fields.school.value.trim(), description: fields.description.value.trim() };
    for (const file of files) send(file, { ...labels, title: files.length === 1 ? fields.title.value.trim() : "" });
    form.reset();
    touched = false;
    check();
    uploadSheet.close();
  });
  // Files dropped anywhere on the page open the sheet with them.
  addEventListener("dragover", (event) => { if (event.dataTransfer?.types.includes("Files")) { event.preventDefault(); document.body.classList.add("dragging"); } });
  addEventListener("dragleave", (event) => { if (!event.relatedTarget) document.body.classList.remove("dragging"); });
  addEventListener("drop", (event) => {
    if (!event.dataTransfer?.files.length) return;
    event.preventDefault();
    document.body.classList.remove("dragging");
    fields.file.files = event.dataTransfer.files;
    if (!uploadSheet.open) uploadSheet.showModal();
    touched = true;
    check();
    fields.type.focus();
  });
})();
