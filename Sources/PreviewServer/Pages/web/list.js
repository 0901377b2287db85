"use strict";
// The list page's script: the upload sheet (type and title required, checked as they are filled;
// files picked there or dropped on the page) and its uploads as resumable uploads (`/v1/uploads`),
// queued two at a time, a refusal of the service's pacing (429, 503) waited out as its
// `Retry-After` says, each with its progress bar, percentage and time left, a cancel button and
// the service's own message when it is refused, resumed after the network drops and, when the file
// is picked again, after a reload; a card for each accepted file at once, with the statistics and
// count read again; the cards of documents not settled yet kept current by long polling their
// document (`GET /v1/documents/{id}?wait=`: answered when it changes) until they are, with no
// reload; the next page of documents added as the list's end comes near; the Filter sheet; a sort
// applied as it is chosen and remembered, as the grid or list
// layout is; and the scroll position, so that coming back (after a delete, say) finds the list
// where it was. Text from the server is set as text, never as markup.
(() => {
  const { csrf, made, request } = DocPreview;
  const list = document.getElementById("documents");
  const form = document.getElementById("upload");
  const uploads = document.getElementById("uploads");
  const filters = document.getElementById("filters");
  if (!list || !form) return;
  const types = JSON.parse(list.dataset.types || "{}");
  const emoji = { highlight_video: "🎥", transcript: "📄", resume: "📋", rec_letter: "💌", questionnaire: "📝", stats_sheet: "📊" };
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
    const at = (width) => `${base}?width=${width}&height=${(width * 9) / 16}&format=webp`;
    thumb.replaceChildren(pictured ? Object.assign(made("img"), { src: at(256), srcset: [256, 384, 512].map((w) => `${at(w)} ${w}w`).join(", "),
                                                                  sizes: list.dataset.sizes, alt: "" })
                                   : made("span", "placeholder", doc.status === "done" ? "No preview" : statusLabel[doc.status] || doc.status), badge);
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

  // Uploads: each file a resumable upload (the IETF draft, as iOS sends it), with its
  // progress and cancel. A dropped connection is resumed from what the server kept; so is
  // a file picked again after a reload (its upload's address is kept in localStorage).
  const draft = { "Upload-Draft-Interop-Version": "6" };
  const withToken = (headers) => (csrf ? { ...headers, "X-CSRF-Token": csrf } : headers);
  const pause = (ms) => new Promise((resume) => setTimeout(resume, ms));
  const online = () => (navigator.onLine ? Promise.resolve() : new Promise((resume) => addEventListener("online", resume, { once: true })));
  // Two uploads at a time; the others wait their turn, in order.
  let sending = 0;
  const turns = [];
  const takeTurn = () => new Promise((go) => { if (sending < 2) { sending += 1; go(); } else turns.push(go); });
  const giveTurn = () => { const next = turns.shift(); if (next) next(); else sending -= 1; };
  // A refusal of the service's pacing, to be waited out: its seconds, or 0 for any other answer.
  const paced = (status, retryAfter) => ([429, 503].includes(status) ? Math.min(60, Math.max(1, Number(retryAfter) || 5)) : 0);
  const send = (file, labels) => {
    const type = labels.type;
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
    const key = `docpreview-upload:${form.dataset.owner}:${type}:${file.name}:${file.size}:${file.lastModified}`;
    let inFlight = null;
    let cancelled = false;
    let location = localStorage.getItem(key);
    const end = (outcome, text) => {
      row.className = outcome;
      message.textContent = text;
      cancel.remove();
      if (outcome !== "accepted") progress.remove();
    };
    // The service's own words for a refusal, else its status.
    const failure = (status, body) => body?.error?.message || `The upload failed (${status}).`;
    const refused = async (response) => failure(response.status, await response.json().catch(() => null));
    // Where the upload stands: its offset, "complete" once all of it arrived, or null when it is gone.
    const offsetOf = async () => {
      const response = await fetch(location, { method: "HEAD", headers: draft });
      if (!response.ok) return null;
      if (response.headers.get("Upload-Complete") === "?1") return "complete";
      return Number(response.headers.get("Upload-Offset"));
    };
    // After a pause: the offset the server kept (undefined when it could not be asked), or the upload is lost.
    const keptOffset = async () => {
      const kept = await offsetOf().catch(() => undefined);
      if (kept === null) throw new Error("The upload was lost; pick the file again.");
      return kept;
    };
    const waitOut = async (seconds) => {
      for (let left = seconds; left > 0 && !cancelled; left -= 1) {
        message.textContent = `Waiting: the server is busy; trying again in ${left} s.`;
        await pause(1000);
      }
    };
    const create = async () => {
      const params = new URLSearchParams({ owner: form.dataset.owner, filename: file.name });
      for (const field of ["type", "title", "school", "description"]) if (labels[field]) params.set(field, labels[field]);
      let response;
      for (;;) {
        response = await fetch(`/v1/uploads?${params}`, {
          method: "POST", headers: withToken({ ...draft, "Upload-Complete": "?0", "Upload-Length": String(file.size) }),
        });
        const wait = paced(response.status, response.headers.get("Retry-After"));
        if (wait && !cancelled) { await waitOut(wait); continue; }
        if (response.status !== 201) throw new Error(await refused(response));
        break;
      }
      if (cancelled) return;
      location = new URL(response.headers.get("Location"), window.location.href).pathname;
      localStorage.setItem(key, location);
    };
    const percent = (bytes) => Math.floor((100 * bytes) / Math.max(1, file.size));
    // "45% · about 12 s left", from the pace since this page started sending.
    let started = null;
    const report = (bytes) => {
      progress.value = percent(bytes);
      started ??= { at: performance.now(), bytes };
      const seconds = (performance.now() - started.at) / 1000;
      const rate = (bytes - started.bytes) / Math.max(seconds, 0.001);
      const left = rate > 0 && seconds > 1 ? ` · about ${Math.ceil((file.size - bytes) / rate)} s left` : "";
      message.textContent = `${percent(bytes)}%${left}`;
    };
    // One append of file[offset, end): resolves to the server's answer, rejects when the connection drops.
    const append = (offset, end, last) => new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      inFlight = request;
      request.open("PATCH", location);
      const headers = withToken({ ...draft, "Upload-Offset": String(offset), "Upload-Complete": last ? "?1" : "?0",
                                  "Content-Type": "application/partial-upload" });
      for (const [field, value] of Object.entries(headers)) request.setRequestHeader(field, value);
      request.upload.addEventListener("progress", (event) => report(offset + event.loaded));
      request.addEventListener("load", () => resolve(request));
      request.addEventListener("error", () => reject(new Error("dropped")));
      request.addEventListener("abort", () => reject(new Error("cancelled")));
      request.send(file.slice(offset, end));
    });
    const chunk = 8 * 1024 * 1024;
    const run = async () => {
      let offset = 0;
      if (location) {
        offset = await offsetOf().catch(() => null);
        if (offset === null || offset === "complete") { localStorage.removeItem(key); location = null; offset = 0; }
        else { progress.value = percent(offset); message.textContent = `Resuming at ${percent(offset)} %.`; }
      }
      if (!location) await create();
      if (cancelled) return;
      for (let failures = 0; ;) {
        const end = Math.min(file.size, offset + chunk);
        let answer;
        try {
          answer = await append(offset, end, end === file.size);
        } catch (error) {
          if (cancelled) return;
          // The connection dropped: wait for the network, then ask what arrived.
          failures += 1;
          message.textContent = "Connection lost; resuming…";
          await online();
          await pause(Math.min(15000, 500 * 2 ** Math.min(failures, 5)));
          const kept = await keptOffset();
          // The last request arrived and only its answer was lost: sent again, it gets the same answer.
          if (kept === "complete") continue;
          if (kept !== undefined) { if (kept > offset) failures = 0; offset = kept; progress.value = percent(offset); }
          continue;
        }
        if (answer.status === 409) { offset = Number(answer.getResponseHeader("Upload-Offset")); continue; }
        const wait = paced(answer.status, answer.getResponseHeader("Retry-After"));
        if (wait) {
          await waitOut(wait);
          if (cancelled) return;
          const kept = await keptOffset();
          if (typeof kept === "number") offset = kept;
          continue;
        }
        let body = null;
        try { body = JSON.parse(answer.responseText); } catch (_) { /* 204: no body */ }
        if (answer.status === 202 && body?.document_id) return body;
        if (answer.status !== 204) throw new Error(failure(answer.status, body));
        offset = Number(answer.getResponseHeader("Upload-Offset")) || end;
        failures = 0;
        report(offset);
      }
    };
    cancel.addEventListener("click", () => {
      cancelled = true;
      inFlight?.abort();
      if (location) fetch(location, { method: "DELETE", headers: withToken(draft) }).catch(() => {});
      localStorage.removeItem(key);
      end("refused", "Cancelled.");
    });
    const turn = takeTurn().then(() => {
      if (cancelled) return null;
      message.textContent = "Starting…";
      return run();
    });
    return turn.then(async (body) => {
      if (!body) return;
      localStorage.removeItem(key);
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
    }, (error) => {
      if (cancelled) return;
      localStorage.removeItem(key);
      end("refused", `Upload failed: ${error.message}`);
    }).finally(giveTurn);
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
