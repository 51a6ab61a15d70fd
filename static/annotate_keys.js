// Annotation studio hotkeys (Gradio has no hotkey API): 1, 2, 3 label; s skips; u undoes.
// Keys act only while the Annotate tab is visible and focus is not in a text field.
document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
  const ids = { "1": "annotate-global", "2": "annotate-task", "3": "annotate-ordinary", s: "annotate-skip", u: "annotate-undo" };
  const id = ids[event.key.toLowerCase()];
  if (!id) return;
  const button = document.getElementById(id);
  if (!button || button.offsetParent === null || button.disabled) return;
  event.preventDefault();
  button.click();
});

// The short guideline links to the full one, which sits in a closed accordion: open it and scroll to it.
document.addEventListener("click", (event) => {
  const link = event.target.closest && event.target.closest('a[href="#annotate-full-guideline"]');
  if (!link) return;
  event.preventDefault();
  event.stopPropagation();
  const box = document.getElementById("annotate-full-guideline");
  if (!box) return;
  const header = box.querySelector("button.label-wrap, .label-wrap");
  if (header && !header.classList.contains("open")) header.click();
  box.scrollIntoView({ behavior: "smooth", block: "start" });
}, true);
