"use strict";
// The list page's script: uploads of picked or dropped files as resumable uploads (`/v1/uploads`),
// each with its progress bar, a cancel button and the service's own message when it is refused,
// resumed after the network drops and, when the file is picked again, after a reload; a card
// for each accepted file at once; the cards of documents not settled yet kept current by long
// polling their document (`GET /v1/documents/{id}?wait=`: answered when it changes) until they
// are, with no reload; the grid or list
// layout, remembered in the browser; and the scroll position, so that coming back (after a
// delete, say) finds the list where it was. Text from the server is set as text, never as markup.
(() => {
  const { csrf, made } = DocPreview;
  const list = document.getElementById("documents");
  const form = document.getElementById("upload");
  const uploads = document.getElementById("uploads");
  const toggle = document.getElementById("layout");
  if (!list || !form) return;
  const types = JSON.parse(list.dataset.types || "{}");
  const statusLabel = { queued: "Queued", processing: "Processing", done: "Ready", failed: "Failed" };

  // The scroll position, per listing, for the way back.
  const scrollKey = `docpreview.scroll:${location.pathname}${location.search}`;
  addEventListener("pagehide", () => sessionStorage.setItem(scrollKey, String(scrollY)));
  const scrolled = Number(sessionStorage.getItem(scrollKey));
  if (scrolled > 0) addEventListener("load", () => scrollTo(0, scrolled));

  // The layout, remembered.
  const layoutKey = "docpreview.layout";
  const applyLayout = (layout) => {
    list.classList.toggle("rows", layout === "list");
    list.classList.toggle("grid", layout !== "list");
    toggle.setAttribute("aria-pressed", String(layout === "list"));
  };
  toggle.hidden = false;
  applyLayout(localStorage.getItem(layoutKey));
  toggle.addEventListener("click", () => {
    const layout = list.classList.contains("rows") ? "grid" : "list";
    localStorage.setItem(layoutKey, layout);
    applyLayout(layout);
  });

  // A card shows what its document says.
  const show = (card, doc) => {
    card.dataset.status = doc.status;
    const pictured = doc.status === "done" && doc.preview_status === "ready";
    const thumb = card.querySelector(".thumb");
    thumb.replaceChildren(pictured ? Object.assign(made("img"), { src: `/v1/documents/${doc.document_id}/preview`, alt: doc.title })
                                   : made("span", "", doc.status === "done" ? "No preview" : statusLabel[doc.status] || doc.status));
    card.querySelector(".status").textContent = doc.status === "done" && !pictured ? "No preview" : statusLabel[doc.status] || doc.status;
    card.querySelector(".error")?.remove();
    if (doc.status === "failed" && doc.error) card.append(made("p", "error", doc.error.message));
  };
  const settled = (status) => status === "done" || status === "failed";
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
    const link = Object.assign(made("a"), { href: `/ui/documents/${doc.document_id}` });
    link.append(made("div", "thumb"), made("b", "", doc.title));
    const meta = made("div", "meta", `${doc.type ? types[doc.type] || doc.type : "No type"} · v${doc.version} · `);
    meta.append(made("span", "status"));
    card.append(link, meta);
    show(card, doc);
    return card;
  };
  for (const card of list.querySelectorAll(".card")) if (!settled(card.dataset.status)) watch(card);

  // Uploads: each file a resumable upload (the IETF draft, as iOS sends it), with its
  // progress and cancel. A dropped connection is resumed from what the server kept; so is
  // a file picked again after a reload (its upload's address is kept in localStorage).
  const draft = { "Upload-Draft-Interop-Version": "6" };
  const withToken = (headers) => (csrf ? { ...headers, "X-CSRF-Token": csrf } : headers);
  const pause = (ms) => new Promise((resume) => setTimeout(resume, ms));
  const online = () => (navigator.onLine ? Promise.resolve() : new Promise((resume) => addEventListener("online", resume, { once: true })));
  const send = (file, type) => {
    const row = made("li");
    const name = made("span", "name", file.name);
    const cancel = made("button", "", "Cancel");
    cancel.type = "button";
    cancel.setAttribute("aria-label", `Cancel ${file.name}`);
    const progress = Object.assign(made("progress"), { max: 100, value: 0 });
    progress.setAttribute("aria-label", `Uploading ${file.name}`);
    const message = made("span", "message");
    row.append(name, cancel, progress, message);
    uploads.prepend(row);
    const key = `docpreview-upload:${form.dataset.owner}:${type}:${file.name}:${file.size}:${file.lastModified}`;
    let request = null;
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
    const create = async () => {
      const params = new URLSearchParams({ owner: form.dataset.owner, filename: file.name });
      if (type) params.set("type", type);
      const response = await fetch(`/v1/uploads?${params}`, {
        method: "POST", headers: withToken({ ...draft, "Upload-Complete": "?0", "Upload-Length": String(file.size) }),
      });
      if (response.status !== 201) throw new Error(await refused(response));
      location = new URL(response.headers.get("Location"), window.location.href).pathname;
      localStorage.setItem(key, location);
    };
    const percent = (bytes) => Math.floor((100 * bytes) / Math.max(1, file.size));
    // One append of file[offset, end): resolves to the server's answer, rejects when the connection drops.
    const append = (offset, end, last) => new Promise((resolve, reject) => {
      request = new XMLHttpRequest();
      request.open("PATCH", location);
      const headers = withToken({ ...draft, "Upload-Offset": String(offset), "Upload-Complete": last ? "?1" : "?0",
                                  "Content-Type": "application/partial-upload" });
      for (const [field, value] of Object.entries(headers)) request.setRequestHeader(field, value);
      request.upload.addEventListener("progress", (event) => { progress.value = percent(offset + event.loaded); });
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
          const kept = await offsetOf().catch(() => undefined);
          if (kept === null) throw new Error("The upload was lost; pick the file again.");
          // The last request arrived and only its answer was lost: sent again, it gets the same answer.
          if (kept === "complete") continue;
          if (kept !== undefined) { if (kept > offset) failures = 0; offset = kept; progress.value = percent(offset); }
          continue;
        }
        if (answer.status === 409) { offset = Number(answer.getResponseHeader("Upload-Offset")); continue; }
        let body = null;
        try { body = JSON.parse(answer.responseText); } catch (_) { /* 204: no body */ }
        if (answer.status === 202 && body?.document_id) return body;
        if (answer.status !== 204) throw new Error(failure(answer.status, body));
        offset = Number(answer.getResponseHeader("Upload-Offset")) || end;
        failures = 0;
        message.textContent = "";
      }
    };
    cancel.addEventListener("click", () => {
      cancelled = true;
      request?.abort();
      if (location) fetch(location, { method: "DELETE", headers: withToken(draft) }).catch(() => {});
      localStorage.removeItem(key);
      end("refused", "Cancelled.");
    });
    run().then(async (body) => {
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
      if (!settled(doc.status)) watch(card);
    }, (error) => {
      if (cancelled) return;
      localStorage.removeItem(key);
      end("refused", error.message);
    });
  };
  const sendAll = (files) => {
    const type = form.elements.type.value;
    for (const file of files) send(file, type);
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    sendAll(form.elements.file.files);
    form.elements.file.value = "";
  });
  form.addEventListener("dragover", (event) => { event.preventDefault(); form.classList.add("dragging"); });
  form.addEventListener("dragleave", () => form.classList.remove("dragging"));
  form.addEventListener("drop", (event) => {
    event.preventDefault();
    form.classList.remove("dragging");
    sendAll(event.dataTransfer.files);
  });
})();
