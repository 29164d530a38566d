/**
 * The sandbox's demo merchant, as the first start creates it (bootstrap.ts) and the landing page
 * describes it: names shared so the page never tells a newcomer a different email than the one
 * the server created.
 */

/** The demo merchant's dashboard login email; its password is generated at the first start. */
export const DEMO_LOGIN_EMAIL = "demo@demo-shop.example";
