"use strict";
// The detail page's script: the Edit dialog (`PATCH /v1/documents/{id}`, the service's message
// when it refuses), the Share dialog (the owner's schools from `GET /v1/schools`, the live ones
// from the document's shares, saved with `PUT /v1/documents/{id}/schools`, each new link shown
// whole with a Copy button, a school's lost link replaced by a new one), and a new version uploaded under the same owner, type and title (then
// opened). Text from the server is set as text.
(() => {
  const main = document.querySelector("main.detail");
  if (!main) return;
  const id = main.dataset.id;
  if (location.hash === "#share") addEventListener("load", () => document.getElementById("share-open").click());
  const { csrf, made } = DocPreview;
  const headers = (json) => Object.assign({ Accept: "application/json" }, json ? { "Content-Type": "application/json" } : {},
                                           csrf ? { "X-CSRF-Token": csrf } : {});
  const answer = async (response) => {
    let body = null;
    try { body = await response.json(); } catch (_) { /* not JSON */ }
    if (!response.ok) throw new Error(body?.error?.message || `The server answered ${response.status}.`);
    return body;
  };

  // Edit.
  const edit = document.getElementById("edit");
  const editForm = document.getElementById("edit-form");
  const editMessage = document.getElementById("edit-message");
  const editOpen = document.getElementById("edit-open");
  editOpen.hidden = false;
  editOpen.addEventListener("click", () => { editMessage.textContent = ""; edit.showModal(); });
  editForm.addEventListener("submit", async (event) => {
    if (event.submitter?.value !== "save") return;
    event.preventDefault();
    const fields = editForm.elements;
    try {
      const doc = await answer(await fetch(`/v1/documents/${id}`, { method: "PATCH", headers: headers(true), body: JSON.stringify({
        title: fields.title.value, description: fields.description.value, school: fields.school.value }) }));
      document.getElementById("title").textContent = doc.title;
      document.getElementById("description").textContent = doc.description;
      document.title = `${doc.title} · DocPreview`;
      main.dataset.title = doc.title;
      edit.close();
    } catch (error) {
      editMessage.textContent = error.message;
    }
  });

  // Share with schools.
  const share = document.getElementById("share");
  const shareOpen = document.getElementById("share-open");
  const schools = document.getElementById("share-schools");
  const links = document.getElementById("share-links");
  const shareMessage = document.getElementById("share-message");
  const checkbox = (name, checked) => {
    const label = made("label", "check");
    const box = Object.assign(made("input"), { type: "checkbox", name: "school", value: name, checked });
    label.append(box, ` ${name}`);
    schools.append(label);
  };
  const listed = () => [...schools.querySelectorAll("input[name=school]")];
  const showLinks = (shared) => {
    links.replaceChildren();
    for (const { school, share: link } of shared) {
      const item = made("li");
      item.append(made("b", "", school), ` · ${link.status} · opened ${link.opened_count} times`);
      if (link.link) {
        const field = Object.assign(made("input"), { value: link.link, readOnly: true });
        field.setAttribute("aria-label", `Link for ${school}`);
        const copy = made("button", "", "Copy");
        copy.type = "button";
        copy.setAttribute("aria-label", `Copy the link for ${school}`);
        copy.addEventListener("click", async () => {
          field.select();
          try { await navigator.clipboard.writeText(link.link); copy.textContent = "Copied"; } catch (_) { document.execCommand("copy"); }
        });
        item.append(made("br"), field, copy);
      }
      if (!link.link) {
        // A link is shown once, when it is made (only its hash is kept): a lost one is replaced.
        const renew = made("button", "", "New link");
        renew.type = "button";
        renew.setAttribute("aria-label", `Make a new link for ${school}`);
        renew.addEventListener("click", async () => {
          const box = listed().find((b) => b.value === school);
          if (!box) return;
          box.checked = false;
          if (await save()) { box.checked = true; await save(); }
        });
        item.append(" ", renew);
      }
      const remove = made("button", "", "Remove");
      remove.type = "button";
      remove.setAttribute("aria-label", `Stop sharing with ${school}`);
      remove.addEventListener("click", () => {
        const box = listed().find((b) => b.value === school);
        if (box) box.checked = false;
        save();
      });
      item.append(" ", remove);
      links.append(item);
    }
    if (!shared.length) links.append(made("li", "", "Nobody yet."));
    shareOpen.textContent = shared.length ? `Share · ${shared.length}` : "Share";
  };
  const save = async () => {
    shareMessage.textContent = "";
    const body = { schools: listed().filter((b) => b.checked).map((b) => b.value),
                   allow_download: document.getElementById("share-download").checked };
    const password = document.getElementById("share-password").value;
    const expires = document.getElementById("share-expires").value;
    const highlight = document.getElementById("share-highlight").value.trim();
    if (password) body.password = password;
    if (highlight) body.highlight = highlight;
    if (expires) body.expires_at = new Date(`${expires}T23:59:59Z`).toISOString().replace(/\.\d+Z$/, "Z");
    try {
      const saved = await answer(await fetch(`/v1/documents/${id}/schools`, { method: "PUT", headers: headers(true), body: JSON.stringify(body) }));
      showLinks(saved.schools);
      return true;
    } catch (error) {
      shareMessage.textContent = error.message;
      return false;
    }
  };
  shareOpen.hidden = false;
  shareOpen.addEventListener("click", async () => {
    schools.replaceChildren();
    shareMessage.textContent = "";
    share.showModal();
    try {
      const owner = encodeURIComponent(main.dataset.owner);
      const [known, current] = await Promise.all([
        answer(await fetch(`/v1/schools?owner=${owner}`, { headers: headers() })),
        answer(await fetch(`/v1/documents/${id}/shares`, { headers: headers() })),
      ]);
      const live = (current.shares || []).filter((s) => s.school && s.status === "live");
      const names = new Set([...known.schools.map((s) => s.name), ...live.map((s) => s.school)]);
      for (const name of [...names].sort()) checkbox(name, live.some((s) => s.school === name));
      showLinks(live.map((s) => ({ school: s.school, share: s })));
    } catch (error) {
      shareMessage.textContent = error.message;
    }
  });
  document.getElementById("share-add").addEventListener("click", () => {
    const field = document.getElementById("share-new");
    const name = field.value.trim();
    if (name && !listed().some((b) => b.value === name)) checkbox(name, true);
    field.value = "";
    field.focus();
  });
  document.getElementById("share-form").addEventListener("submit", (event) => {
    if (event.submitter?.value !== "save") return;
    event.preventDefault();
    save();
  });

  // A new version: the same owner, type and title.
  const versionForm = document.getElementById("new-version");
  const versionMessage = document.getElementById("new-version-message");
  versionForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = versionForm.elements.file.files[0];
    if (!file) return;
    versionMessage.textContent = `Uploading ${file.name}…`;
    const params = new URLSearchParams({ owner: main.dataset.owner, title: main.dataset.title, filename: file.name });
    if (main.dataset.type) params.set("type", main.dataset.type);
    const data = new FormData();
    data.append("file", file, file.name);
    try {
      const accepted = await answer(await fetch(`/v1/documents?${params}`, { method: "POST", headers: headers(), body: data }));
      location.assign(`/ui/documents/${accepted.document_id}`);
    } catch (error) {
      versionMessage.textContent = error.message;
    }
  });
})();
