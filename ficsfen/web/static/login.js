// The login form in the header: a registered name and its password, or a guest.
// Either opens a new session (Connection.relogin); a refused name or password shows
// the server's own words, and the session goes on as a guest.  The name the session
// runs under is shown in the header.

const $ = (id) => document.getElementById(id);

export class Login {
  constructor(connection) {
    this.connection = connection;
    $("login-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const name = $("login-name").value.trim();
      if (name === "") return;
      $("login-error").textContent = "";
      connection.relogin({ name, password: $("login-password").value });
      $("login-password").value = "";
    });
    $("login-guest").addEventListener("click", () => {
      $("login-error").textContent = "";
      connection.relogin(null);
    });
  }

  /** The session runs as `name`. */
  ready(name) {
    $("user").textContent = name;
  }

  /** The server refused the name or the password: its text, as text. */
  refused(text) {
    $("login-error").textContent = text;
  }
}
