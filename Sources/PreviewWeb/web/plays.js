"use strict";
// A highlight reel's plays under its player (the Detail page, the Viewer and a shared page): a
// play's mark on the bar seeks the player to its start, the buttons go to the previous play (the
// start of this one when well into it) and the next, and the play under way is marked as current.
(() => {
  const seek = (video, seconds) => {
    video.currentTime = seconds;
    video.play().catch(() => {});
  };
  // The play under way: the last that starts at or before `seconds` (a frame's rounding counts as at).
  const playAt = (starts, seconds) => starts.findLastIndex((start) => start <= seconds + 0.05);
  const marksOf = (bar) => [...bar.querySelectorAll("a[data-start]")];
  const videoOf = (bar) => bar.parentElement.querySelector("video");
  document.addEventListener("click", (event) => {
    const bar = event.target.closest(".plays");
    const video = bar && videoOf(bar);
    if (!video) return;
    const mark = event.target.closest("a[data-start]");
    const step = event.target.closest("button[data-play]");
    if (mark) {
      event.preventDefault();
      seek(video, Number(mark.dataset.start));
    } else if (step) {
      const starts = marksOf(bar).map((each) => Number(each.dataset.start));
      const now = Math.max(0, playAt(starts, video.currentTime));
      const target = step.dataset.play === "next" ? now + 1 : video.currentTime - starts[now] > 2 ? now : now - 1;
      if (target >= 0 && target < starts.length) seek(video, starts[target]);
    }
  });
  document.addEventListener("timeupdate", (event) => {
    const bar = event.target.tagName === "VIDEO" && event.target.parentElement.parentElement.querySelector(".plays");
    if (!bar) return;
    const marks = marksOf(bar);
    const now = playAt(marks.map((mark) => Number(mark.dataset.start)), event.target.currentTime);
    marks.forEach((mark, index) => {
      if (index === now) mark.setAttribute("aria-current", "true");
      else mark.removeAttribute("aria-current");
    });
  }, true);
})();
