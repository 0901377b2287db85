"use strict";
// "Clip from here" under the Detail page's player: the clip starts where the player is and ends
// ten seconds on (or where "End here" says; both can be typed, and are checked as they are); Save
// cuts it by stream copy (`POST /v1/documents/{id}/clips`) into a new document, or the video's
// next version when asked, and links to it. Text from the server is set as text.
(() => {
  const form = document.getElementById("clip-form");
  const video = form?.closest("section").querySelector("video");
  if (!video) return;
  const id = document.querySelector("main.detail").dataset.id;
  const duration = Number(form.dataset.duration);
  const [from, range, start, end, to, version, message, made, save, cancel] = [
    "clip-from", "clip-range", "clip-start", "clip-end", "clip-to", "clip-version", "clip-message", "clip-made", "clip-save", "clip-cancel",
  ].map((name) => document.getElementById(name));
  const { made: element, request } = DocPreview;
  const rounded = (seconds) => Math.round(seconds * 100) / 100;
  const clock = (seconds) => {
    const tenths = Math.round(seconds * 10);
    return `${Math.floor(tenths / 600)}:${String(Math.floor(tenths / 10) % 60).padStart(2, "0")}.${tenths % 10}`;
  };
  const validate = () => {
    const [first, last] = [Number(start.value), Number(end.value)];
    const problem = start.value === "" || end.value === "" ? "Say where the clip starts and ends."
      : first < 0 ? "The start is 0 seconds or later."
      : first >= duration ? `The video ends at ${clock(duration)}.`
      : last <= first ? "The end comes after the start." : "";
    message.textContent = problem;
    start.setAttribute("aria-invalid", String(Boolean(problem)));
    save.disabled = Boolean(problem);
    return !problem;
  };
  from.addEventListener("click", () => {
    const at = rounded(video.currentTime);
    start.value = at;
    end.value = rounded(Math.min(duration, at + 10));
    range.hidden = false;
    made.replaceChildren();
    validate();
    start.focus();
  });
  to.addEventListener("click", () => { end.value = rounded(video.currentTime); validate(); });
  for (const field of [start, end]) field.addEventListener("input", validate);
  cancel.addEventListener("click", () => { range.hidden = true; from.focus(); });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!validate()) return;
    save.disabled = true;
    message.textContent = "";
    try {
      const answer = await request(`/v1/documents/${id}/clips`, { method: "POST", json: {
        start: Number(start.value), end: Number(end.value), version: version.checked } });
      const shown = answer.clip;
      const link = element("a", "", version.checked ? "Open the new version" : "Open the clip");
      link.href = `/ui/documents/${answer.document_id}`;
      made.replaceChildren(`Clip saved: ${clock(shown.start)}–${clock(shown.end)} (${shown.duration_s.toFixed(1)} s). `, link);
      range.hidden = true;
    } catch (error) {
      message.textContent = `The clip could not be made. ${error.message}`;
    } finally {
      save.disabled = false;
    }
  });
})();
