// The page's own labels in English or French: small JSON catalogs under
// /static/i18n/, the language from the browser (navigator.language) unless the
// reader chose one (kept in localStorage).  Labels are set with textContent only.

export const LANGUAGES = ["en", "fr"];
const KEY = "ficsfen.lang";

export function preferredLanguage() {
  const chosen = localStorage.getItem(KEY);
  if (LANGUAGES.includes(chosen)) return chosen;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const lang = String(tag).slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(lang)) return lang;
  }
  return "en";
}

export function rememberLanguage(lang) {
  localStorage.setItem(KEY, lang);
}

export async function loadCatalog(lang) {
  const response = await fetch(`/static/i18n/${lang}.json`);
  if (!response.ok) throw new Error(`no catalog for ${lang}`);
  return response.json();
}

/** A label with its {name} fields filled in (the values as text, never markup). */
export function format(catalog, key, values = {}) {
  const text = catalog[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/** Every element with data-i18n gets its label. */
export function applyCatalog(root, catalog) {
  for (const element of root.querySelectorAll("[data-i18n]")) {
    element.textContent = format(catalog, element.dataset.i18n);
  }
}
