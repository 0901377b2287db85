/// What a page showing a document's media does with it (the Detail page and the Viewer): the
/// filmstrip's frames seek the player instead of opening a file; and while a video's playable
/// version is being made, its progress is shown from the document's own numbers (long polling
/// `GET /v1/documents/{id}?wait=`) and, once it is ready, the player takes it without a reload.
enum MediaScript {
    static let asset = StaticAsset(name: "media.js", contentType: "text/javascript; charset=utf-8", source: source)

    static let source = #"""
        "use strict";
        (() => {
          const host = document.querySelector("[data-media-of]");
          if (!host) return;
          const video = host.querySelector("video");
          for (const frame of host.querySelectorAll(".filmstrip a")) {
            frame.addEventListener("click", (event) => {
              if (!video) return;
              event.preventDefault();
              video.currentTime = Number(new URL(frame.href).hash.replace("#t=", "")) || 0;
              video.play().catch(() => {});
            });
          }
          const making = host.querySelector(".making");
          if (!video || !making) return;
          const id = host.dataset.mediaOf;
          let first = true;
          const ask = async () => {
            let doc = null;
            try {
              const answer = await fetch(`/v1/documents/${id}${first ? "" : "?wait=25"}`, { headers: { Accept: "application/json" } });
              if (answer.ok) doc = await answer.json();
            } catch (_) { /* asked again below */ }
            first = false;
            const rendition = doc?.renditions?.[0];
            if (rendition?.status === "ready" && rendition.url) {
              const source = Object.assign(document.createElement("source"), { src: rendition.url, type: rendition.mime });
              video.prepend(source);
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
        })();
        """#
}
