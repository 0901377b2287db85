/// The list page's script: uploads of picked or dropped files through `POST /v1/documents`, each
/// with its progress bar, a cancel button and the service's own message when it is refused; a card
/// for each accepted file at once; the cards of documents not settled yet kept current by long
/// polling their document (`GET /v1/documents/{id}?wait=`: answered when it changes) until they
/// are, with no reload; the grid or list
/// layout, remembered in the browser; and the scroll position, so that coming back (after a
/// delete, say) finds the list where it was. Text from the server is set as text, never as markup.
enum ListScript {
    static let asset = StaticAsset(name: "list.js", contentType: "text/javascript; charset=utf-8", source: source)

    /// After a failed ask, the pause before the next, in milliseconds; and at most how long a card
    /// is watched.
    static let retryMilliseconds = 3000
    static let watchLimitMilliseconds = 30 * 60 * 1000

    static let source = #"""
        "use strict";
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
              if (!settled(card.dataset.status) && Date.now() - started < \#(watchLimitMilliseconds)) setTimeout(ask, answered ? 0 : \#(retryMilliseconds));
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

          // Uploads: one request per file, each with its progress, cancel and answer.
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
            const params = new URLSearchParams({ owner: form.dataset.owner, filename: file.name });
            if (type) params.set("type", type);
            const request = new XMLHttpRequest();
            request.open("POST", `/v1/documents?${params}`);
            request.setRequestHeader("Accept", "application/json");
            if (csrf) request.setRequestHeader("X-CSRF-Token", csrf);
            request.upload.addEventListener("progress", (event) => {
              if (event.lengthComputable) progress.value = Math.round((100 * event.loaded) / event.total);
            });
            const end = (outcome, text) => {
              row.className = outcome;
              message.textContent = text;
              cancel.remove();
              if (outcome !== "accepted") progress.remove();
            };
            request.addEventListener("load", async () => {
              let body = null;
              try { body = JSON.parse(request.responseText); } catch (_) { /* not JSON: said below */ }
              if (request.status >= 200 && request.status < 300 && body?.document_id) {
                progress.value = 100;
                end("accepted", "Uploaded: its preview is on its way.");
                const doc = await DocPreview.document(body.document_id);
                if (!doc) return;
                list.querySelector(`[data-id="${doc.document_id}"]`)?.remove();
                const card = cardFor(doc);
                list.prepend(card);
                document.querySelector(".empty")?.remove();
                if (!settled(doc.status)) watch(card);
              } else {
                end("refused", body?.error?.message || `The upload failed (${request.status}).`);
              }
            });
            request.addEventListener("error", () => end("refused", "The upload stopped: the connection was lost."));
            request.addEventListener("abort", () => end("refused", "Cancelled."));
            cancel.addEventListener("click", () => request.abort());
            const data = new FormData();
            data.append("file", file, file.name);
            request.send(data);
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
        """#
}
