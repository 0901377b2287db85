"use strict";
// One way the pages upload a file, as `DocPreview.upload`: a resumable upload (`/v1/uploads`, the
// IETF draft), made once and, when the same file is picked again after a reload, resumed where
// the server kept it; a dropped connection waited out (the network back, then a pause) and resumed
// from what arrived; a refusal of the service's pacing (429, 503) waited out as its `Retry-After`
// says; sent in 8 MiB appends, each with its progress. Two uploads of a page run at a time; the
// others wait their turn, in order.
(() => {
  const { csrf } = DocPreview;
  const draft = { "Upload-Draft-Interop-Version": "6" };
  const withToken = (headers) => (csrf ? { ...headers, "X-CSRF-Token": csrf } : headers);
  const pause = (ms) => new Promise((resume) => setTimeout(resume, ms));
  const online = () => (navigator.onLine ? Promise.resolve() : new Promise((resume) => addEventListener("online", resume, { once: true })));
  // A refusal of the service's pacing, to be waited out: its seconds, or 0 for any other answer.
  const paced = (status, retryAfter) => ([429, 503].includes(status) ? Math.min(60, Math.max(1, Number(retryAfter) || 5)) : 0);
  // The service's own words for a refusal, else its status.
  const failure = (status, body) => body?.error?.message || `The upload failed (${status}).`;
  const chunk = 8 * 1024 * 1024;

  let sending = 0;
  const turns = [];
  const takeTurn = () => new Promise((go) => { if (sending < 2) { sending += 1; go(); } else turns.push(go); });
  const giveTurn = () => { const next = turns.shift(); if (next) next(); else sending -= 1; };

  /// How much of `file` `bytes` is, in whole percent: what the pages show of an upload.
  DocPreview.uploaded = (bytes, file) => Math.floor((100 * bytes) / Math.max(1, file.size));

  /// Uploads `file` with `labels` (`owner`, `type`, `title`, `school`, `description`). `say(text)`
  /// tells where it stands in words, `progress(bytes)` how much of it the server has, `resumed(bytes)`
  /// how much the server had kept when a new page picked the file again. Returns
  /// `{ done, cancel }`: `done` resolves to the accepted document's answer (`document_id`, …), or
  /// to null when cancelled, and rejects with the service's words when it is refused.
  DocPreview.upload = (file, labels, { say = () => {}, progress = () => {}, resumed = () => {} } = {}) => {
    const key = `docpreview-upload:${labels.owner}:${labels.type || ""}:${labels.title || ""}:${file.name}:${file.size}:${file.lastModified}`;
    let location = localStorage.getItem(key);
    let inFlight = null;
    let cancelled = false;
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
        say(`Waiting: the server is busy; trying again in ${left} s.`);
        await pause(1000);
      }
    };
    const create = async () => {
      const params = new URLSearchParams({ filename: file.name });
      for (const field of ["owner", "type", "title", "school", "description"]) if (labels[field]) params.set(field, labels[field]);
      for (;;) {
        const response = await fetch(`/v1/uploads?${params}`, {
          method: "POST", headers: withToken({ ...draft, "Upload-Complete": "?0", "Upload-Length": String(file.size) }),
        });
        if (response.status === 401) { location = null; throw new Error("Your session ended: sign in again, then pick the file again."); }
        const wait = paced(response.status, response.headers.get("Retry-After"));
        if (wait && !cancelled) { await waitOut(wait); continue; }
        if (response.status !== 201) throw new Error(await refused(response));
        if (cancelled) return;
        location = new URL(response.headers.get("Location"), window.location.href).pathname;
        localStorage.setItem(key, location);
        return;
      }
    };
    // One append of file[offset, end): resolves to the server's answer, rejects when the connection drops.
    const append = (offset, end, last) => new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      inFlight = request;
      request.open("PATCH", location);
      const headers = withToken({ ...draft, "Upload-Offset": String(offset), "Upload-Complete": last ? "?1" : "?0",
                                  "Content-Type": "application/partial-upload" });
      for (const [field, value] of Object.entries(headers)) request.setRequestHeader(field, value);
      request.upload.addEventListener("progress", (event) => progress(offset + event.loaded));
      request.addEventListener("load", () => resolve(request));
      request.addEventListener("error", () => reject(new Error("dropped")));
      request.addEventListener("abort", () => reject(new Error("cancelled")));
      request.send(file.slice(offset, end));
    });
    const run = async () => {
      let offset = 0;
      if (location) {
        offset = await offsetOf().catch(() => null);
        // All of it arrived before (only the answer was lost): its last request, sent again with
        // nothing more, gets the answer the server gave.
        if (offset === "complete") offset = file.size;
        if (offset === null) { localStorage.removeItem(key); location = null; offset = 0; }
        else {
          resumed(offset);
          progress(offset);
          say(`Resuming at ${DocPreview.uploaded(offset, file)} %.`);
        }
      }
      if (!location) await create();
      if (cancelled) return null;
      for (let failures = 0; ;) {
        const end = Math.min(file.size, offset + chunk);
        let answer;
        try {
          answer = await append(offset, end, end === file.size);
        } catch (error) {
          if (cancelled) return null;
          // The connection dropped: wait for the network, then ask what arrived.
          failures += 1;
          say("Connection lost; resuming…");
          await online();
          await pause(Math.min(15000, 500 * 2 ** Math.min(failures, 5)));
          const kept = await keptOffset();
          // The last request arrived and only its answer was lost: sent again, it gets the same answer.
          if (kept === "complete") continue;
          if (kept !== undefined) { if (kept > offset) failures = 0; offset = kept; progress(offset); }
          continue;
        }
        if (answer.status === 409) { offset = Number(answer.getResponseHeader("Upload-Offset")); continue; }
        const wait = paced(answer.status, answer.getResponseHeader("Retry-After"));
        if (wait) {
          await waitOut(wait);
          if (cancelled) return null;
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
        progress(offset);
      }
    };
    const done = takeTurn().then(() => {
      if (cancelled) return null;
      say("Starting…");
      return run();
    }).then((body) => {
      if (body) localStorage.removeItem(key);
      return cancelled ? null : body;
    }, (error) => {
      localStorage.removeItem(key);
      if (cancelled) return null;
      throw error;
    }).finally(giveTurn);
    const cancel = () => {
      cancelled = true;
      inFlight?.abort();
      if (location) fetch(location, { method: "DELETE", headers: withToken(draft) }).catch(() => {});
      localStorage.removeItem(key);
    };
    return { done, cancel };
  };
})();
