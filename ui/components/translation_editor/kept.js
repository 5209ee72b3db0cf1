// Text the translation editor keeps in localStorage between a refresh and the next save, pure: which copy
// goes back into the editor, and what moves to the next task after Submit & next. The editor reads and
// writes localStorage; these decide.

// Stored text is trimmed: a copy equals the stored text when they differ only in surrounding white space.
function sameText(a, b) { return typeof a === "string" && a.trim() === (b || "").trim(); }

// What to do with this task's kept copies at mount. ``copies``: [key, copy or null] for every key of this
// task (this tab's ``ownKey`` among them), a copy being { text, saved, at }; ``saved``: the stored text;
// ``current``: the text in the editor. This tab's own copy first; else the newest copy another tab (since
// closed) typed on top of the same stored text. Answers { restore: key, text }, { forget: key } (the copy
// holds what is stored already) or null.
export function keptToRestore(ownKey, copies, saved, current) {
  const onTop = (copy) => !!copy && typeof copy.text === "string" && sameText(copy.saved, saved);
  const own = copies.find(([key]) => key === ownKey);
  let kept = own ? own[1] : null;
  let keptKey = ownKey;
  if (!onTop(kept)) {
    for (const [key, copy] of copies) {
      if (onTop(copy) && !sameText(copy.text, saved) && (!kept || !onTop(kept) || (copy.at || 0) > (kept.at || 0))) {
        kept = copy;
        keptKey = key;
      }
    }
  }
  if (!kept || typeof kept.text !== "string") return null;
  if (sameText(kept.text, saved)) return { forget: keptKey };
  if (!onTop(kept) || kept.text === current) return null;
  return { restore: keptKey, text: kept.text };
}

// What was typed into the previous task's editor after its Submit & next (or Skip) was sent (``leaving``:
// its text then; ``value``: its text now) moves to the next task's editor; leading white space goes when
// that editor is empty.
export function carriedText(leaving, value, targetHasText) {
  const typed = value.startsWith(leaving) ? value.slice(leaving.length) : "";
  return targetHasText ? typed : typed.replace(/^\s+/, "");
}
