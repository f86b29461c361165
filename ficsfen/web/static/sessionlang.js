// The language of the server's texts for persons, kept equal to the page's: the
// session sends `set lang fr` (or `set lang en`) when it logs in and whenever the
// reader switches.  Texts that ICS clients parse stay FICS's English (block mode
// makes the session an interface); help pages and checkfen's answers follow it.

/** Tell the server `lang`; resolves once it has answered (never rejects). */
export async function setServerLanguage(connection, lang) {
  if (!connection.ready) return;
  try {
    await connection.command(`set lang ${lang}`);
  } catch {
    // closed meanwhile: the next session sends it again once logged in
  }
}
