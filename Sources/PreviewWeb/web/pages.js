"use strict";
// What the pages' scripts share, loaded before them as `DocPreview`: the session's CSRF token (from
// the page's `csrf-token` meta), an element made with its class and text (text set as text, never
// as markup), a page image shown with a text's hits marked or plain, a request to the API that
// answers its JSON or throws the service's own words (a lost
// network said as such; a session that ended goes to the sign-in page, and back here after it), a
// document read from the API, waiting up to 25 seconds for it to change
// (`GET /v1/documents/{id}?wait=25`), and the banner that says the network is gone (and turns off
// what needs it).
(() => {
  const csrf = document.querySelector('meta[name="csrf-token"]')?.content;
  const made = (tag, className, text) => {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined) element.textContent = text;
    return element;
  };
  const offlineWords = "No internet connection. Check your connection.";
  const signIn = () => location.assign(`/ui/signin?return=${encodeURIComponent(location.pathname + location.search)}`);

  /// The answer of `url` as JSON (null when it has no body), or an Error with the service's message.
  /// `json`: a body sent as JSON. The CSRF token goes with every request that changes something.
  const request = async (url, { method = "GET", json, body, headers = {} } = {}) => {
    const sent = { Accept: "application/json", ...headers };
    if (json !== undefined) { sent["Content-Type"] = "application/json"; body = JSON.stringify(json); }
    if (csrf && method !== "GET" && method !== "HEAD") sent["X-CSRF-Token"] = csrf;
    let response;
    try {
      response = await fetch(url, { method, headers: sent, body });
    } catch (_) {
      throw new Error(navigator.onLine ? "Connection lost. Check your connection and try again." : offlineWords);
    }
    if (response.status === 401) { signIn(); throw new Error("Your session ended: signing in again…"); }
    let answer = null;
    try { answer = await response.json(); } catch (_) { /* no JSON body */ }
    if (!response.ok) {
      const error = new Error(answer?.error?.message || (response.status >= 500 ? "Server error. Please try again." : `The server answered ${response.status}.`));
      error.status = response.status;
      error.retryAfter = Number(response.headers.get("Retry-After")) || 0;
      throw error;
    }
    return answer;
  };

  // The banner of a lost network, on every page.
  const banner = made("p", "offline", offlineWords);
  banner.setAttribute("role", "status");
  // While it is gone, what needs it (`.needs-network`: edit, share, delete, restore, upload, download) is off.
  const network = () => {
    banner.hidden = navigator.onLine;
    document.documentElement.toggleAttribute("data-offline", !navigator.onLine);
    for (const control of document.querySelectorAll(".needs-network")) control.setAttribute("aria-disabled", String(!navigator.onLine));
  };
  const place = () => { document.body.prepend(banner); network(); };
  if (document.body) place(); else addEventListener("DOMContentLoaded", place);
  addEventListener("offline", network);
  addEventListener("online", network);

  /// Shows page image `image` with the hits of `text` marked (none: plain), at each of its widths.
  const mark = (image, text) => {
    image.dataset.plain ??= image.getAttribute("src");
    image.dataset.plainSet ??= image.getAttribute("srcset") || "";
    const suffix = text ? `&highlight=${encodeURIComponent(text)}` : "";
    if (image.dataset.plainSet) {
      image.srcset = image.dataset.plainSet.split(", ").map((candidate) => candidate.replace(/ (\d+w)$/, `${suffix} $1`)).join(", ");
    }
    image.src = image.dataset.plain + suffix;
  };

  /// A date as the pages write it ("12 Nov 2026" in the reader's words); text that is no date, as it is.
  const day = (text) => {
    const parsed = Date.parse(text);
    return Number.isNaN(parsed) ? text : new Date(parsed).toLocaleDateString(undefined, { dateStyle: "medium" });
  };

  // upload.js adds `upload` where a page uploads.
  window.DocPreview = {
    csrf,
    made,
    request,
    mark,
    day,
    /// Document `id` as the API gives it (null when it does not answer with it), at once or once it changed.
    async document(id, { waiting = false } = {}) {
      try {
        return await request(`/v1/documents/${id}${waiting ? "?wait=25" : ""}`);
      } catch (error) {
        if (error.status) return null;
        throw error;
      }
    },
  };
})();
