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
