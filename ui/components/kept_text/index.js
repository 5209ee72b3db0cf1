export default function ({ parentElement, data, setStateValue }) {
  const keys = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key && key.startsWith(data.prefix)) keys.push(key);
  }
  const box = document.createElement("div");
  box.className = "kt-box";
  box.setAttribute("data-testid", "kept-text-question");
  const say = (text) => { const p = document.createElement("p"); p.textContent = text; box.append(p); };
  if (data.choice === "discard") say("Discarded: this browser no longer keeps your unsaved text.");
  else if (data.choice === "keep") say("Kept: your unsaved text comes back in your editor when you log in again as " + data.name + ". No other user sees it.");
  else if (keys.length === 0) say("");
  else {
    say("This browser keeps unsaved text of yours (" + keys.length + " cop" + (keys.length === 1 ? "y" : "ies") + "). On a shared computer, discard it.");
    for (const [label, choice] of [["Discard the kept text", "discard"], ["Keep it for when I log in again", "keep"]]) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.addEventListener("click", () => {
        if (choice === "discard") for (const key of keys) localStorage.removeItem(key);
        setStateValue("choice", choice);
      });
      box.append(b);
    }
  }
  parentElement.replaceChildren(box);
}
