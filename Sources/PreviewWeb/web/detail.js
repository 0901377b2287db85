"use strict";
// The detail page's script: the Edit dialog (`PATCH /v1/documents/{id}`: a title of 1 to 100
// characters that is not only blanks, a school from the owner's list or another one, a description
// of at most 500; checked as it is typed, the service's message when it refuses), the Share dialog
// (the document's live links listed whole whenever it opens, each with Copy, its opens, last open
// and expiry; schools added with `PUT /v1/documents/{id}/schools`, which keeps every listed school's
// link; a school's link removed or replaced only after a confirmation; a long list of schools
// narrowed by what the school box says), and a new version uploaded
// under the same owner, type and title with its progress (`DocPreview.upload`; then opened). Text from the server is set
// as text.
(() => {
  const main = document.querySelector("main.detail");
  if (!main) return;
  const id = main.dataset.id;
  const { made, request, day } = DocPreview;
  if (location.hash === "#share") addEventListener("load", () => document.getElementById("share-open").click());
  const when = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  // "3 hours ago", "yesterday", "now"; a week or more ago, the date.
  const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  const ago = (iso) => {
    const seconds = (Date.parse(iso) - Date.now()) / 1000;
    if (-seconds >= 7 * 86400) return when(iso);
    for (const [unit, size] of [["day", 86400], ["hour", 3600], ["minute", 60]]) {
      if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
    }
    return relative.format(0, "second");
  };

  // Edit.
  const edit = document.getElementById("edit");
  const editForm = document.getElementById("edit-form");
  const editMessage = document.getElementById("edit-message");
  const editOpen = document.getElementById("edit-open");
  const fields = editForm.elements;
  const titleMessage = document.getElementById("edit-title-message");
  const descriptionCount = document.getElementById("edit-description-count");
  const saveEdit = editForm.querySelector("button[value=save]");
  const schoolNew = document.getElementById("edit-school-new");
  const validate = () => {
    const title = fields.title.value.trim();
    const problem = !title ? "A title is required." : title.length > Number(fields.title.maxLength) ? `At most ${fields.title.maxLength} characters.` : "";
    titleMessage.textContent = problem;
    fields.title.setAttribute("aria-invalid", String(Boolean(problem)));
    descriptionCount.textContent = `${fields.description.value.length} of ${fields.description.maxLength} characters`;
    const school = fields.school.value === "(another)" ? schoolNew.value.trim() : fields.school.value;
    saveEdit.disabled = Boolean(problem) || (fields.school.value === "(another)" && !school);
    return school;
  };
  fields.school.addEventListener("change", () => {
    schoolNew.hidden = fields.school.value !== "(another)";
    if (!schoolNew.hidden) schoolNew.focus();
    validate();
  });
  for (const field of [fields.title, fields.description, schoolNew]) field.addEventListener("input", validate);
  editOpen.hidden = false;
  editOpen.addEventListener("click", () => { editMessage.textContent = ""; validate(); edit.showModal(); });
  editForm.addEventListener("submit", async (event) => {
    if (event.submitter?.value !== "save") return;
    event.preventDefault();
    const school = validate();
    if (saveEdit.disabled) return;
    saveEdit.disabled = true;
    try {
      const doc = await request(`/v1/documents/${id}`, { method: "PATCH", json: {
        title: fields.title.value.trim(), description: fields.description.value, school } });
      document.getElementById("title").textContent = doc.title;
      document.getElementById("description").textContent = doc.description;
      dispatchEvent(new CustomEvent("docpreview:described", { detail: doc.description }));
      document.querySelector('[data-fact="school"]').textContent = doc.school || "General";
      document.title = `${doc.title} · DocPreview`;
      main.dataset.title = doc.title;
      if (doc.school && ![...fields.school.options].some((option) => option.value === doc.school)) {
        fields.school.add(new Option(doc.school, doc.school), fields.school.options[fields.school.options.length - 1]);
      }
      fields.school.value = doc.school || "";
      schoolNew.hidden = true;
      schoolNew.value = "";
      edit.close();
    } catch (error) {
      editMessage.textContent = `Failed to save changes. ${error.message}`;
    } finally {
      validate();
    }
  });

  // Share with schools.
  const share = document.getElementById("share");
  const shareOpen = document.getElementById("share-open");
  const schools = document.getElementById("share-schools");
  const links = document.getElementById("share-links");
  const shareMessage = document.getElementById("share-message");
  const shareSave = document.getElementById("share-save");
  let live = [];
  const checked = () => [...schools.querySelectorAll("input[name=school]:checked")].map((box) => box.value);
  const updateSave = () => { shareSave.disabled = checked().length === 0; };
  const checkbox = (name, on) => {
    const label = made("label", "check");
    const box = Object.assign(made("input"), { type: "checkbox", name: "school", value: name, checked: on });
    box.addEventListener("change", updateSave);
    label.append(box, ` ${name}`);
    schools.append(label);
  };
  const options = () => {
    const body = {
      allow_download: document.getElementById("share-download").checked,
      watermark: document.getElementById("share-watermark").checked,
    };
    const password = document.getElementById("share-password").value;
    const expires = document.getElementById("share-expires").value;
    const highlight = document.getElementById("share-highlight").value.trim();
    if (password) body.password = password;
    if (highlight) body.highlight = highlight;
    if (expires) body.expires_at = new Date(`${expires}T23:59:59Z`).toISOString().replace(/\.\d+Z$/, "Z");
    Object.assign(body, redaction());
    return body;
  };
  // What a new link paints out: the kinds checked, the owner's words, what was found that the owner
  // unchecked (kept), and the boxes the owner drew (and left checked).
  const redactFound = document.getElementById("share-redact-found");
  const redaction = () => {
    const kinds = [...share.querySelectorAll("input[name=redact]:checked")].map((box) => box.value);
    const terms = document.getElementById("share-redact-terms").value.split(",").map((term) => term.trim()).filter(Boolean);
    const keep = [...redactFound.querySelectorAll("input[data-finding]:not(:checked)")].map((box) => box.value);
    const boxes = drawn.filter((box) => box.input.checked).map(({ page, box }) => ({ page, box }));
    return kinds.length || terms.length || boxes.length
      ? { redact: kinds, redact_terms: terms, redact_keep: keep, redact_boxes: boxes } : {};
  };
  // The boxes drawn so far: {page, box: [left, top, right, bottom] as fractions of the page, input}.
  const drawn = [];
  const percent = (fraction) => `${(fraction * 100).toFixed(3)}%`;
  // Places `element` over a page's picture at `box`: left, top, right, bottom as fractions of it.
  const place = (element, box) => Object.assign(element.style, {
    left: percent(box[0]), top: percent(box[1]), width: percent(box[2] - box[0]), height: percent(box[3] - box[1]),
  });
  // A box over a page's picture, shown kept (dashed, see-through) when `input` is unchecked.
  const overlay = (figure, box, input, className) => {
    const mark = made("span", `redact-box ${className}`);
    place(mark, box);
    const shown = () => mark.classList.toggle("kept", !input.checked);
    input.addEventListener("change", shown);
    mark.addEventListener("click", () => { input.checked = !input.checked; shown(); });
    shown();
    figure.append(mark);
  };
  // A page's group: its picture with what is found on it drawn over it, on which the owner draws
  // more boxes with a finger or the mouse, and a checkbox for each.
  const pageGroup = (number) => {
    const existing = redactFound.querySelector(`fieldset[data-page="${number}"]`);
    if (existing) return existing;
    const group = made("fieldset");
    group.dataset.page = number;
    group.append(made("legend", null, `Page ${number}`));
    const figure = made("div", "redact-page");
    const picture = Object.assign(made("img"), {
      src: `/v1/documents/${id}/preview?page=${number}&width=640`, alt: `Page ${number}, with what would be removed drawn over it`,
      draggable: false,
    });
    figure.append(picture);
    group.append(figure, made("p", "hint", "Drag across the page to remove more of it."));
    let start = null;
    let sketch = null;
    const at = (event) => {
      const frame = picture.getBoundingClientRect();
      return [Math.min(1, Math.max(0, (event.clientX - frame.left) / frame.width)),
        Math.min(1, Math.max(0, (event.clientY - frame.top) / frame.height))];
    };
    const spanned = (from, to) => [Math.min(from[0], to[0]), Math.min(from[1], to[1]), Math.max(from[0], to[0]), Math.max(from[1], to[1])];
    figure.addEventListener("pointerdown", (event) => {
      if (event.target !== picture) return;
      event.preventDefault();
      figure.setPointerCapture(event.pointerId);
      start = at(event);
      sketch = made("span", "redact-box drawn sketch");
      figure.append(sketch);
    });
    figure.addEventListener("pointermove", (event) => {
      if (start) place(sketch, spanned(start, at(event)));
    });
    const lift = (event) => {
      if (!start) return;
      const box = spanned(start, at(event));
      sketch.remove();
      start = null;
      if (event.type === "pointercancel" || box[2] - box[0] < 0.01 || box[3] - box[1] < 0.005) return;
      addDrawn(number, box.map((value) => Math.round(value * 10000) / 10000));
    };
    figure.addEventListener("pointerup", lift);
    figure.addEventListener("pointercancel", lift);
    const groups = [...redactFound.querySelectorAll("fieldset[data-page]")];
    const after = groups.find((other) => Number(other.dataset.page) > number);
    redactFound.insertBefore(group, after || null);
    return group;
  };
  const addDrawn = (page, box) => {
    const group = pageGroup(page);
    const label = made("label", "check");
    const input = Object.assign(made("input"), { type: "checkbox", checked: true });
    label.append(input, " a box you drew");
    group.append(label);
    drawn.push({ page, box, input });
    overlay(group.querySelector(".redact-page"), box, input, "drawn");
  };
  const kindLabels = {
    date_of_birth: "date of birth", student_id: "student ID", ssn: "SSN", phone: "phone", email: "e-mail",
    street_address: "address", term: "word", box: "box you drew",
  };
  // What the checked kinds and words find, page by page over the page's picture, each a box that
  // can be unchecked (or clicked) to keep it; the boxes drawn before are drawn again.
  const redactStatus = document.getElementById("share-redact-status");
  document.getElementById("share-redact-find").addEventListener("click", async () => {
    redactStatus.textContent = "Looking…";
    const { redact = [], redact_terms: terms = [] } = redaction();
    try {
      const found = await request(`/v1/documents/${id}/redactions`, { method: "POST", json: { redact, redact_terms: terms } });
      if (!found.pages) { redactStatus.textContent = "The document's words are still being read; try again in a moment."; return; }
      const boxes = drawn.splice(0).filter(({ input }) => input.checked);
      redactFound.textContent = "";
      redactStatus.textContent = found.pages.length ? "" : "Nothing found. Draw a box on a page to remove part of it.";
      for (const page of found.pages) {
        const group = pageGroup(page.page);
        const figure = group.querySelector(".redact-page");
        for (const finding of page.findings) {
          const label = made("label", "check");
          const input = Object.assign(made("input"), { type: "checkbox", value: finding.text, checked: true });
          input.dataset.finding = finding.kind;
          label.append(input, ` ${kindLabels[finding.kind] || finding.kind}: “${finding.text}”`);
          group.append(label);
          for (const box of finding.boxes) {
            overlay(figure, [box[0] / page.width, box[1] / page.height, box[2] / page.width, box[3] / page.height], input, "found");
          }
        }
      }
      for (const { page, box } of boxes) addDrawn(page, box);
      if (!redactFound.querySelector("fieldset") && pageCount > 0) pageGroup(1);
    } catch (error) { redactStatus.textContent = ""; failed(error); }
  });
  // Another page to draw on.
  const pageCount = Number(main.dataset.pages || 0);
  document.getElementById("share-redact-page-show")?.addEventListener("click", () => {
    const number = Number(document.getElementById("share-redact-page").value);
    if (Number.isInteger(number) && number >= 1 && (!pageCount || number <= pageCount)) pageGroup(number).scrollIntoView({ block: "nearest" });
  });
  // The schools asked: those shared now and those checked, each once.
  const put = async (names) => {
    const saved = await request(`/v1/documents/${id}/schools`, { method: "PUT", json: { ...options(), schools: names } });
    return saved.schools.map(({ school, share: link }) => ({ ...link, school }));
  };
  // What a school read and watched through its link: "page 1 1:12, page 2 0:20", "watched 58 %".
  const clock = (seconds) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, "0")}`;
  const readingFacts = (summary) => {
    const reading = summary && summary.reading;
    if (!reading) return [];
    const facts = [];
    const pages = reading.pages.filter((page) => page.seconds >= 1);
    if (pages.length) facts.push(pages.map((page) => `page ${page.page} ${clock(page.seconds)}`).join(", "));
    if (reading.watched != null) facts.push(`watched ${Math.round(reading.watched * 100)} %`);
    if (reading.zooms) facts.push(`zoomed in ${reading.zooms}×`);
    if (reading.downloads) facts.push(`downloaded ${reading.downloads}×`);
    return facts;
  };
  // The same, drawn: a bar per page up to the last read (its height the page's share of the
  // longest), and the video's length with the stretches played filled in.
  const readingPictures = (summary) => {
    const reading = summary && summary.reading;
    if (!reading) return [];
    const pictures = [];
    const read = reading.pages.filter((page) => page.seconds >= 1);
    if (read.length) {
      const longest = Math.max(...read.map((page) => page.seconds));
      const bars = made("span", "reading-pages");
      bars.setAttribute("role", "img");
      bars.setAttribute("aria-label", `Seconds on each page: ${read.map((page) => `page ${page.page} ${clock(page.seconds)}`).join(", ")}`);
      for (let number = 1; number <= read[read.length - 1].page; number += 1) {
        const page = read.find((each) => each.page === number);
        const bar = made("span");
        if (page) bar.style.height = `${Math.max(8, (page.seconds / longest) * 100)}%`;
        else bar.className = "unread";
        bar.title = `Page ${number}${page ? ` ${clock(page.seconds)}` : ""}`;
        bars.append(bar);
      }
      pictures.push(bars);
    }
    if (reading.duration_s > 0 && reading.played.length) {
      const line = made("span", "reading-watched");
      line.setAttribute("role", "img");
      const spans = reading.played.map((span) => `${clock(span.from)}–${clock(span.to)}`).join(", ");
      line.setAttribute("aria-label", `Watched ${spans} of ${clock(reading.duration_s)}`);
      for (const span of reading.played) {
        const part = made("span");
        part.style.left = `${(span.from / reading.duration_s) * 100}%`;
        part.style.width = `${Math.max(0.5, ((span.to - span.from) / reading.duration_s) * 100)}%`;
        line.append(part);
      }
      pictures.push(line);
    }
    return pictures;
  };
  const showLinks = () => {
    links.replaceChildren();
    for (const link of live) {
      const item = made("li");
      item.append(made("b", "", link.school));
      const facts = [`opened ${link.opened_count}×`];
      if (link.last_opened_at) facts.push(`last opened ${ago(link.last_opened_at)}`);
      facts.push(...readingFacts(link.reading));
      facts.push(link.expires_at ? `expires ${day(link.expires_at)}` : "no expiry");
      if (link.password) facts.push("password");
      if (link.watermark) facts.push("watermarked");
      if (link.redact || link.redact_terms) facts.push("redacted");
      item.append(made("span", "hint", ` · ${facts.join(" · ")}`));
      item.append(...readingPictures(link.reading));
      if (link.link) {
        const row = made("span", "row");
        const field = Object.assign(made("input"), { value: link.link, readOnly: true });
        field.setAttribute("aria-label", `Link for ${link.school}`);
        const copy = Object.assign(made("button", "", "Copy"), { type: "button" });
        copy.setAttribute("aria-label", `Copy the link for ${link.school}`);
        copy.addEventListener("click", async () => {
          field.select();
          try { await navigator.clipboard.writeText(link.link); } catch (_) { document.execCommand("copy"); }
          copy.textContent = "Copied";
        });
        row.append(field, copy);
        item.append(row);
      } else {
        item.append(made("p", "hint", "This link was made before links were kept: make a new one to give it again."));
      }
      const actions = made("span", "row");
      const renew = Object.assign(made("button", "", "New link"), { type: "button" });
      renew.setAttribute("aria-label", `Make a new link for ${link.school}`);
      renew.addEventListener("click", () => replace(link));
      const remove = Object.assign(made("button", "danger", "Remove"), { type: "button" });
      remove.setAttribute("aria-label", `Stop sharing with ${link.school}`);
      remove.addEventListener("click", () => stop(link));
      actions.append(renew, remove);
      item.append(actions);
      links.append(item);
    }
    if (!live.length) links.append(made("li", "hint", "Not shared with any school yet."));
    shareOpen.textContent = live.length ? `Share · ${live.length}` : "Share";
    // The schools offered are those not shared with now.
    for (const label of [...schools.children]) if (live.some((link) => link.school === label.querySelector("input").value)) label.remove();
    updateSave();
  };
  const failed = (error) => { shareMessage.textContent = `Failed to share document. ${error.message}`; };
  const stop = async (link) => {
    if (!confirm(`Stop sharing with ${link.school}? The link they have stops working.`)) return;
    shareMessage.textContent = "";
    try {
      live = await put(live.filter((other) => other.school !== link.school).map((other) => other.school));
      checkbox(link.school, false);
      showLinks();
    } catch (error) { failed(error); }
  };
  const replace = async (link) => {
    if (!confirm(`Make a new link for ${link.school}? The link they have now stops working.`)) return;
    shareMessage.textContent = "";
    try {
      await request(`/v1/shares/${link.share_id}`, { method: "DELETE" });
      live = await put(live.map((other) => other.school));
      showLinks();
    } catch (error) { failed(error); }
  };
  shareOpen.hidden = false;
  shareOpen.addEventListener("click", async () => {
    schools.replaceChildren();
    links.replaceChildren(made("li", "hint", "Loading…"));
    shareMessage.textContent = "";
    share.showModal();
    try {
      const owner = encodeURIComponent(main.dataset.owner);
      const [known, current] = await Promise.all([request(`/v1/schools?owner=${owner}`), request(`/v1/documents/${id}/shares`)]);
      live = (current.shares || []).filter((link) => link.school && link.status === "live");
      for (const { name } of known.schools) if (!live.some((link) => link.school === name)) checkbox(name, false);
      showLinks();
    } catch (error) {
      links.replaceChildren();
      failed(error);
    }
  });
  // The school box also narrows a long list of schools to those whose names hold what it says.
  document.getElementById("share-new").addEventListener("input", (event) => {
    const wanted = event.target.value.trim().toLowerCase();
    for (const label of schools.children) label.hidden = Boolean(wanted) && !label.textContent.toLowerCase().includes(wanted);
  });
  document.getElementById("share-add").addEventListener("click", () => {
    const field = document.getElementById("share-new");
    const name = field.value.trim();
    const known = [...schools.querySelectorAll("input[name=school]")].find((box) => box.value === name);
    if (known) known.checked = true;
    else if (name && !live.some((link) => link.school === name)) checkbox(name, true);
    field.value = "";
    for (const label of schools.children) label.hidden = false;
    field.focus();
    updateSave();
  });
  document.getElementById("share-form").addEventListener("submit", async (event) => {
    if (event.submitter?.value !== "save") return;
    event.preventDefault();
    shareMessage.textContent = "";
    const added = checked();
    if (!added.length) return;
    try {
      live = await put([...live.map((link) => link.school), ...added]);
      for (const name of added) schools.querySelector(`input[value="${CSS.escape(name)}"]`)?.closest("label")?.remove();
      showLinks();
      links.querySelector("li:last-child input")?.focus();
    } catch (error) { failed(error); }
  });

  // A new version: the same owner, type and title, with its progress.
  const versionFile = document.getElementById("new-version-file");
  const versionProgress = document.getElementById("new-version-progress");
  const versionMessage = document.getElementById("new-version-message");
  versionFile.addEventListener("change", async () => {
    const file = versionFile.files[0];
    if (!file) return;
    versionProgress.hidden = false;
    versionProgress.value = 0;
    versionMessage.textContent = `Uploading ${file.name}: 0%`;
    const labels = { owner: main.dataset.owner, title: main.dataset.title, type: main.dataset.type };
    const percent = (bytes) => DocPreview.uploaded(bytes, file);
    let resumedAt = "";
    const upload = DocPreview.upload(file, labels, {
      say: (text) => { versionMessage.textContent = text; },
      progress: (bytes) => {
        versionProgress.value = percent(bytes);
        versionMessage.textContent = `Uploading ${file.name}: ${percent(bytes)}%${resumedAt}`;
      },
      resumed: (bytes) => { resumedAt = ` (resumed at ${percent(bytes)} %)`; },
    });
    try {
      const body = await upload.done;
      if (!body) return;
      versionMessage.textContent = "Uploaded: opening the new version…";
      location.assign(`/ui/documents/${body.document_id}`);
    } catch (error) {
      versionProgress.hidden = true;
      versionMessage.textContent = `Upload failed: ${error.message}`;
      versionFile.value = "";
    }
  });
})();
