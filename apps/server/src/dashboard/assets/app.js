// @ts-check
// The Satang merchant dashboard: a small single-page app of native ES modules, with no build
// step and no third-party code (docs/dashboard.md says why). This module, the only one the
// page loads itself, wires the others together and draws the first view:
//
// - api.js calls /api/v1/auth (login, logout) and /dashboard/api (everything else) with the
//   session of session.js, kept in sessionStorage so that it ends with the browser tab;
// - router.js reads routes from the URL fragment (#/payments?status=...), so filters and pages
//   survive a reload and the back button works; routes.js maps them to views/*.js;
// - render.js draws the login form or the frame and the route's view, and moves the focus;
// - constants.js holds the server's lists, lang.js and i18n.js the texts, format.js amounts
//   and times, dom.js and components.js the building blocks. Text is only ever inserted as
//   text nodes, never as HTML.

import { render, showLogin } from "./render.js";
import { setRenderer } from "./router.js";
import { armExpiryTimer, currentSession, onSessionEnd } from "./session.js";

setRenderer(render);
onSessionEnd(showLogin);
window.addEventListener("hashchange", () => {
  if (currentSession()) render();
});
armExpiryTimer();
render();
