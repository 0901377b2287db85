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
  const { made, request } = DocPreview;
  if (location.hash === "#share") addEventListener("load", () => document.getElementById("share-open").click());
  const when = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  const day = (iso) => new Date(iso).toLocaleDateString(undefined, { dateStyle: "medium" });

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
  // What a new link paints out: the kinds checked, the owner's words, and what was found that the
  // owner unchecked (kept).
  const redactFound = document.getElementById("share-redact-found");
  const redaction = () => {
    const kinds = [...share.querySelectorAll("input[name=redact]:checked")].map((box) => box.value);
    const terms = document.getElementById("share-redact-terms").value.split(",").map((term) => term.trim()).filter(Boolean);
    const keep = [...redactFound.querySelectorAll("input:not(:checked)")].map((box) => box.value);
    return kinds.length || terms.length ? { redact: kinds, redact_terms: terms, redact_keep: keep } : {};
  };
  const kindLabels = {
    date_of_birth: "date of birth", student_id: "student ID", ssn: "SSN", phone: "phone", email: "e-mail",
    street_address: "address", term: "word",
  };
  // What the checked kinds and words find, page by page, each a box that can be unchecked to keep it.
  document.getElementById("share-redact-find").addEventListener("click", async () => {
    redactFound.textContent = "Looking…";
    const { redact = [], redact_terms: terms = [] } = redaction();
    try {
      const found = await request(`/v1/documents/${id}/redactions`, { method: "POST", json: { redact, redact_terms: terms } });
      redactFound.textContent = "";
      if (!found.pages) { redactFound.textContent = "The document's words are still being read; try again in a moment."; return; }
      if (!found.pages.length) { redactFound.textContent = "Nothing found: nothing would be removed."; return; }
      for (const page of found.pages) {
        const group = made("fieldset");
        group.append(made("legend", null, `Page ${page.page}`));
        for (const finding of page.findings) {
          const label = made("label", "check");
          const box = Object.assign(made("input"), { type: "checkbox", value: finding.text, checked: true });
          label.append(box, ` ${kindLabels[finding.kind] || finding.kind}: “${finding.text}”`);
          group.append(label);
        }
        redactFound.append(group);
      }
    } catch (error) { redactFound.textContent = ""; failed(error); }
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
      if (link.last_opened_at) facts.push(`last opened ${when(link.last_opened_at)}`);
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
