"use strict";
// What the pages' scripts share, loaded before them as `DocPreview`: the session's CSRF token (from
// the page's `csrf-token` meta), an element made with its class and text (text set as text, never
// as markup), and a document read from the API, waiting up to N seconds for it to change
// (`GET /v1/documents/{id}?wait=N`).
window.DocPreview = Object.freeze({
  csrf: document.querySelector('meta[name="csrf-token"]')?.content,
  made(tag, className, text) {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined) element.textContent = text;
    return element;
  },
  /// Document `id` as the API gives it (null when it does not answer with it), at once or once it changed.
  async document(id, { waiting = false } = {}) {
    const answer = await fetch(`/v1/documents/${id}${waiting ? "?wait=25" : ""}`, { headers: { Accept: "application/json" } });
    return answer.ok ? answer.json() : null;
  },
});
