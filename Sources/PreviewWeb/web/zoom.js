"use strict";
// The pages' zoom: pan and pinch, wheel or button zoom over the IIIF tiles of an image
// or page an `<img data-zoom="/iiif/3/ID">` shows (`data-zoom-format`: the tiles' format, jpg
// unless said), fetching only the tiles in view at the resolution the view needs. Without it the
// pages show their images as before. `#zoom=N@X,Y,S` in a page's URL opens its Nth zoomable image
// with full-size pixel (X, Y) at the top left and S screen pixels to one of it; zooming keeps it there.
(() => {
  const zoomable = () => [...document.querySelectorAll("img[data-zoom]")];
  const made = (tag, className) => Object.assign(document.createElement(tag), { className });

  class Viewer {
    constructor(img, index, info, view) {
      this.base = img.dataset.zoom;
      this.format = img.dataset.zoomFormat || "jpg";
      this.index = index;
      this.info = info;
      this.tile = info.tiles[0].width;
      this.factors = info.tiles[0].scaleFactors.slice().sort((a, b) => a - b);
      this.tiles = new Map();
      this.pointers = new Map();
      this.overlay = made("div", "zoom");
      this.overlay.tabIndex = -1;
      this.backdrop = made("img", "zoom-backdrop");
      this.backdrop.alt = "";
      this.backdrop.src = img.currentSrc || img.src;
      const controls = made("div", "zoom-controls");
      const button = (className, text, action) => {
        const control = made("button", className);
        control.type = "button";
        control.textContent = text;
        control.addEventListener("click", action);
        controls.append(control);
      };
      const centre = (k) => this.zoomAt(this.overlay.clientWidth / 2, this.overlay.clientHeight / 2, k);
      button("zoom-out", "Zoom out", () => centre(1 / 1.5));
      button("zoom-in", "Zoom in", () => centre(1.5));
      button("zoom-close", "Close", () => this.close());
      this.overlay.append(this.backdrop, controls);
      document.body.append(this.overlay);
      this.scrolling = document.documentElement.style.overflow;
      document.documentElement.style.overflow = "hidden";
      const width = this.overlay.clientWidth, height = this.overlay.clientHeight;
      this.fit = Math.min(width / info.width, height / info.height);
      if (view) {
        [this.scale, this.x, this.y] = [view.scale, -view.x * view.scale, -view.y * view.scale];
      } else {
        [this.scale, this.x, this.y] = [this.fit, (width - info.width * this.fit) / 2, (height - info.height * this.fit) / 2];
      }
      this.listen();
      this.overlay.focus();
      this.draw();
    }

    listen() {
      const o = this.overlay;
      o.addEventListener("wheel", (e) => { e.preventDefault(); this.zoomAt(e.clientX, e.clientY, Math.exp(-e.deltaY * 0.0015)); },
                         { passive: false });
      o.addEventListener("dblclick", (e) => this.zoomAt(e.clientX, e.clientY, 2));
      o.addEventListener("pointerdown", (e) => {
        if (e.target.tagName === "BUTTON") return;
        o.setPointerCapture(e.pointerId);
        this.pointers.set(e.pointerId, [e.clientX, e.clientY]);
      });
      o.addEventListener("pointermove", (e) => {
        const last = this.pointers.get(e.pointerId);
        if (!last) return;
        const others = [...this.pointers].filter(([id]) => id !== e.pointerId).map(([, p]) => p);
        this.pointers.set(e.pointerId, [e.clientX, e.clientY]);
        if (others.length === 0) {
          this.x += e.clientX - last[0];
          this.y += e.clientY - last[1];
          this.draw();
        } else {
          // Two fingers: the distance between them scales, their midpoint pans.
          const [ox, oy] = others[0];
          const before = Math.hypot(last[0] - ox, last[1] - oy), after = Math.hypot(e.clientX - ox, e.clientY - oy);
          this.x += (e.clientX - last[0]) / 2;
          this.y += (e.clientY - last[1]) / 2;
          if (before > 0) this.zoomAt((e.clientX + ox) / 2, (e.clientY + oy) / 2, after / before);
          else this.draw();
        }
      });
      this.resized = () => this.draw();
      window.addEventListener("resize", this.resized);
      const lift = (e) => this.pointers.delete(e.pointerId);
      o.addEventListener("pointerup", lift);
      o.addEventListener("pointercancel", lift);
      o.addEventListener("keydown", (e) => {
        const [cx, cy] = [o.clientWidth / 2, o.clientHeight / 2];
        const keys = { "Escape": () => this.close(), "+": () => this.zoomAt(cx, cy, 1.5), "=": () => this.zoomAt(cx, cy, 1.5),
                       "-": () => this.zoomAt(cx, cy, 1 / 1.5), "ArrowLeft": () => this.pan(100, 0), "ArrowRight": () => this.pan(-100, 0),
                       "ArrowUp": () => this.pan(0, 100), "ArrowDown": () => this.pan(0, -100) };
        if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
      });
    }

    pan(dx, dy) { this.x += dx; this.y += dy; this.draw(); }

    /// Scales by `k` about the screen point (px, py), between half the fitted size and 4 screen pixels a pixel.
    zoomAt(px, py, k) {
      const scale = Math.min(Math.max(this.scale * k, this.fit / 2), 4);
      this.x = px - (px - this.x) * (scale / this.scale);
      this.y = py - (py - this.y) * (scale / this.scale);
      this.scale = scale;
      this.draw();
    }

    place(img, x, y, width, height) {
      const left = Math.floor(this.x + x * this.scale), top = Math.floor(this.y + y * this.scale);
      img.style.left = left + "px";
      img.style.top = top + "px";
      img.style.width = Math.ceil(this.x + (x + width) * this.scale) - left + "px";
      img.style.height = Math.ceil(this.y + (y + height) * this.scale) - top + "px";
    }

    /// Moves what is shown at once; asks for the tiles the view needs once it rests (60 ms).
    draw() {
      this.place(this.backdrop, 0, 0, this.info.width, this.info.height);
      for (const tile of this.tiles.values()) this.place(tile.img, tile.x, tile.y, tile.width, tile.height);
      clearTimeout(this.resting);
      this.resting = setTimeout(() => this.fetchTiles(), 60);
    }

    /// The tiles in view at the largest scale factor whose pixels are still no larger than the screen's.
    fetchTiles() {
      const { width, height } = this.info;
      const needed = 1 / (this.scale * (window.devicePixelRatio || 1));
      const factor = this.factors.filter((f) => f <= needed).pop() || this.factors[0];
      const side = this.tile * factor;
      const left = Math.max(0, -this.x / this.scale), top = Math.max(0, -this.y / this.scale);
      const right = Math.min(width, (this.overlay.clientWidth - this.x) / this.scale);
      const bottom = Math.min(height, (this.overlay.clientHeight - this.y) / this.scale);
      const wanted = new Set();
      for (let row = Math.floor(top / side); row * side < bottom; row++) {
        for (let column = Math.floor(left / side); column * side < right; column++) {
          const [x, y] = [column * side, row * side];
          const [w, h] = [Math.min(side, width - x), Math.min(side, height - y)];
          const key = `${x},${y},${w},${h}`;
          wanted.add(key);
          if (this.tiles.has(key)) continue;
          const img = made("img", "zoom-tile");
          img.alt = "";
          img.src = `${this.base}/${key}/${Math.ceil(w / factor)},${Math.ceil(h / factor)}/0/default.${this.format}`;
          this.tiles.set(key, { img, x, y, width: w, height: h });
          this.place(img, x, y, w, h);
          this.overlay.insertBefore(img, this.backdrop.nextSibling);
        }
      }
      for (const [key, tile] of this.tiles) {
        if (!wanted.has(key)) { tile.img.remove(); this.tiles.delete(key); }
      }
      const view = [-this.x / this.scale, -this.y / this.scale].map((v) => Math.round(v));
      history.replaceState(null, "", `#zoom=${this.index + 1}@${view[0]},${view[1]},${+this.scale.toFixed(4)}`);
      // What is in view (full-size pixels) and at which factor, for tools and tests.
      this.overlay.dataset.view = [left, top, right, bottom].map(Math.round).join(",") + `@${factor}`;
    }

    close() {
      clearTimeout(this.resting);
      window.removeEventListener("resize", this.resized);
      document.documentElement.style.overflow = this.scrolling;
      this.overlay.remove();
      history.replaceState(null, "", location.pathname + location.search);
    }
  }

  function open(img, view) {
    fetch(img.dataset.zoom + "/info.json", { credentials: "same-origin" })
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`info.json: ${response.status}`))))
      .then((info) => {
        new Viewer(img, zoomable().indexOf(img), info, view);
        // Told to whoever counts (a shared page's reading report).
        document.dispatchEvent(new CustomEvent("docpreview:zoom"));
      })
      .catch(() => {});
  }

  // An image opens by a click, or by a double click where its container says so (`data-zoom-on`,
  // the viewer's: there a tap shows and hides the toolbars).
  const opens = (e) => {
    const img = e.target.closest && e.target.closest("img[data-zoom]");
    if (!img || document.querySelector(".zoom")) return;
    if (e.type === (img.closest("[data-zoom-on]")?.dataset.zoomOn || "click")) open(img);
  };
  document.addEventListener("click", opens);
  document.addEventListener("dblclick", opens);
  const linked = /^#zoom=(\d+)@(\d+),(\d+),([\d.]+)$/.exec(location.hash);
  if (linked) {
    const img = zoomable()[Number(linked[1]) - 1];
    if (img) open(img, { x: Number(linked[2]), y: Number(linked[3]), scale: Number(linked[4]) });
  }
})();
