/// The viewer's script: the previous and next documents by the arrow keys or a horizontal swipe,
/// Escape back to the document, the full-screen button, and "Page n of N" for the page in view.
/// Keys and swipes belong to the zoom while it is open.
enum ViewerScript {
    static let asset = StaticAsset(name: "viewer.js", contentType: "text/javascript; charset=utf-8", source: source)

    static let source = #"""
        "use strict";
        (() => {
          const main = document.querySelector("main.viewer");
          if (!main) return;
          const zooming = () => document.querySelector(".zoom") !== null;
          const go = (href) => { if (href) location.assign(href); };
          document.addEventListener("keydown", (event) => {
            if (zooming() || event.altKey || event.ctrlKey || event.metaKey || event.target.closest("input, textarea, select, video")) return;
            const to = { ArrowLeft: main.dataset.previous, ArrowRight: main.dataset.next, Escape: main.dataset.close }[event.key];
            if (to) { event.preventDefault(); go(to); }
          });
          let start = null;
          main.addEventListener("touchstart", (event) => {
            start = event.touches.length === 1 ? [event.touches[0].clientX, event.touches[0].clientY] : null;
          }, { passive: true });
          main.addEventListener("touchend", (event) => {
            if (!start || zooming()) return;
            const touch = event.changedTouches[0];
            const [dx, dy] = [touch.clientX - start[0], touch.clientY - start[1]];
            start = null;
            if (Math.abs(dx) > 60 && Math.abs(dx) > 2 * Math.abs(dy)) go(dx > 0 ? main.dataset.previous : main.dataset.next);
          });

          const full = document.getElementById("fullscreen");
          if (document.fullscreenEnabled) {
            full.hidden = false;
            full.addEventListener("click", () => (document.fullscreenElement ? document.exitFullscreen() : main.requestFullscreen()).catch(() => {}));
            document.addEventListener("fullscreenchange", () => { full.textContent = document.fullscreenElement ? "Leave full screen" : "Full screen"; });
          }

          const pages = [...main.querySelectorAll(".pages img")];
          const counter = document.getElementById("counter");
          if (pages.length > 1 && "IntersectionObserver" in window) {
            const seen = new Map();
            const observer = new IntersectionObserver((entries) => {
              for (const entry of entries) seen.set(entry.target, entry.intersectionRatio);
              let best = 0;
              pages.forEach((page, index) => { if ((seen.get(page) || 0) > (seen.get(pages[best]) || 0)) best = index; });
              counter.textContent = `Page ${best + 1} of ${pages.length}`;
            }, { threshold: [0, 0.25, 0.5, 0.75, 1] });
            pages.forEach((page) => observer.observe(page));
          }
        })();
        """#
}
