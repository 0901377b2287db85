"use strict";
// Links' cards: each http(s) link the description holds (three at most) shown as a card under it
// — its picture, site, title, author and date, and text — from `GET /v1/links/preview` (the
// document's owner's pace); a link without a card stays a plain link, with the reason. Made again
// when the Edit dialog saves a description (`docpreview:described`). Text from the server is set as text.
(() => {
  const main = document.querySelector("main.detail");
  const description = document.getElementById("description");
  if (!main || !description) return;
  const { made, request, day } = DocPreview;
  const holder = made("div", "link-cards");
  holder.setAttribute("aria-label", "Links in the description");
  holder.setAttribute("role", "group");
  description.after(holder);
  /// The links of `text`, without the punctuation a sentence puts after them.
  const links = (text) => {
    const found = (text.match(/https?:\/\/[^\s<>"]+/g) || []).map((link) => link.replace(/[.,;:!?)\]}'"]+$/, ""));
    return [...new Set(found)].slice(0, 3);
  };
  const fill = (card, answer) => {
    card.replaceChildren();
    const picture = answer.media?.[0]?.thumbnail;
    if (picture) {
      const image = made("img", "link-picture");
      image.src = picture;
      image.alt = "";
      image.loading = "lazy";
      card.append(image);
    }
    const words = made("span", "link-words");
    words.append(made("span", "link-site", [answer.site, answer.kind].filter(Boolean).join(" · ")));
    words.append(made("strong", "link-title", answer.title || answer.canonical_url));
    const author = answer.author?.name || answer.author?.handle;
    const byline = [author, answer.published_at && day(answer.published_at)].filter(Boolean).join(" · ");
    if (byline) words.append(made("span", "link-byline", byline));
    if (answer.text) words.append(made("span", "link-text", answer.text));
    card.append(words);
  };
  const show = async (text) => {
    holder.replaceChildren();
    for (const link of links(text)) {
      const card = made("a", "link-card", link);
      card.href = link;
      card.rel = "noopener noreferrer nofollow";
      card.target = "_blank";
      holder.append(card);
      const query = new URLSearchParams({ url: link });
      if (main.dataset.owner) query.set("owner", main.dataset.owner);
      try {
        fill(card, await request(`/v1/links/preview?${query}`));
      } catch (error) {
        card.append(made("span", "link-error", ` — no preview: ${error.message}`));
      }
    }
    holder.hidden = !holder.children.length;
  };
  addEventListener("docpreview:described", (event) => show(event.detail));
  show(description.textContent);
})();
