// @ts-check
// The merchant's users (#/users, owners only): who may sign in, with which role and whether
// two-factor login is on; add a user with a role; change a user's role (the server keeps at
// least one owner, and refuses all of this to other roles with 403 FORBIDDEN).

/** @import { Child } from "../dom.js" */
/** @import { User } from "../types.js" */
import { canManageUsers, currentRole, invalidateAccount, roleName } from "../account.js";
import { changeUserRole, createUser, describeError, listUsers, SessionEnded } from "../api.js";
import { alertBox, badge, heading, table } from "../components.js";
import { h, replace } from "../dom.js";
import { formatTime } from "../format.js";
import { t } from "../lang.js";
import { refresh } from "../router.js";

/** @type {Array<"owner" | "developer" | "finance">} */
const ROLES = ["owner", "developer", "finance"];

/**
 * @param {string} id
 * @param {string} selected
 */
function roleSelect(id, selected) {
  return h(
    "select",
    { id, name: "role" },
    ROLES.map((role) => h("option", { value: role, selected: role === selected }, roleName(role))),
  );
}

function addUserForm() {
  const email = h("input", {
    id: "user-email",
    name: "email",
    type: "email",
    required: true,
    autocomplete: "off",
  });
  const password = h("input", {
    id: "user-password",
    name: "password",
    type: "password",
    required: true,
    minlength: "12",
    autocomplete: "new-password",
  });
  const role = roleSelect("user-role", "finance");
  const submit = h("button", { type: "submit", class: "button primary" }, t("addUser"));
  const formError = h("p", { class: "alert", role: "alert", hidden: true });
  /** @param {Event} event */
  async function onAdd(event) {
    event.preventDefault();
    submit.disabled = true;
    submit.textContent = t("addingUser");
    try {
      const user = await createUser({
        email: email.value.trim(),
        password: password.value,
        role: role.value,
      });
      await refresh({ flash: t("userAdded", { email: user.email, role: roleName(user.role) }) });
    } catch (error) {
      if (error instanceof SessionEnded) return;
      formError.textContent = describeError(error, "form");
      formError.hidden = false;
      submit.disabled = false;
      submit.textContent = t("addUser");
    }
  }
  return h(
    "form",
    { class: "card inline-form", onsubmit: onAdd, "aria-labelledby": "add-user-heading" },
    h("h2", { id: "add-user-heading", class: "visually-hidden" }, t("addUser")),
    h("div", { class: "field" }, h("label", { for: "user-email" }, t("userEmail")), email),
    h("div", { class: "field" }, h("label", { for: "user-password" }, t("userPassword")), password),
    h("div", { class: "field" }, h("label", { for: "user-role" }, t("userRole")), role),
    submit,
    formError,
  );
}

/** @param {User} user */
function roleCell(user) {
  const cell = h("td", null);
  const select = roleSelect(`role-${user.id}`, user.role);
  select.setAttribute("aria-label", t("roleOf", { email: user.email }));
  select.addEventListener("change", async () => {
    select.disabled = true;
    try {
      const changed = await changeUserRole(user.id, select.value);
      // The signed-in owner may have changed their own role: read /me again.
      invalidateAccount();
      await refresh({
        redraw: true,
        flash: t("roleChanged", { email: changed.email, role: roleName(changed.role) }),
      });
    } catch (error) {
      if (error instanceof SessionEnded) return;
      select.value = user.role;
      select.disabled = false;
      cell.append(alertBox(describeError(error, "form")));
    }
  });
  replace(cell, select);
  return cell;
}

/** @param {User} user */
function userRow(user) {
  return h(
    "tr",
    null,
    h("td", { class: "break" }, user.email),
    roleCell(user),
    h(
      "td",
      null,
      user.twoFactorEnabled ? badge("succeeded", t("twoFactorOn")) : badge("pending", t("twoFactorOff")),
    ),
    h("td", null, formatTime(user.createdAt)),
  );
}

/** @returns {Promise<Child[]>} */
export async function usersView() {
  if (!canManageUsers()) {
    const notice = t("usersNotForRole", { role: roleName(currentRole()) });
    return [
      heading(t("usersTitle")),
      h("p", { class: "notice", "data-testid": "users-not-for-role" }, notice),
    ];
  }
  const users = await listUsers();
  const heads = [t("colEmail"), t("colRole"), t("colTwoFactor"), t("colCreated")];
  return [
    heading(t("usersTitle")),
    h("p", { class: "muted" }, t("usersIntro")),
    addUserForm(),
    table(t("usersTitle"), heads, users.data.map(userRow)),
  ];
}
