// The series form: choosing another game shows that game's players at once (the pickers offer
// one game's players; without script, the form's "Show its players" button does the same).
document.querySelectorAll("form.series-game select[name=game]").forEach((select) => {
  select.addEventListener("change", () => select.form.submit());
});
