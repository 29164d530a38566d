// @ts-check
// The overview's volume chart: money in (payments succeeded, net of the refunds paid back that
// day) and out (withdraws paid) per Bangkok day over the last 30 days, drawn as inline SVG (no library). Two bars per day on one
// scale; each bar has a <title> with the day and the amount, and the chart a text summary.

/** @import { DayVolume } from "../types.js" */
import { h } from "../dom.js";
import { formatSatang, satangOf } from "../format.js";
import { locale, t } from "../lang.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 160;
const AXIS = 18;

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attributes
 * @param {...(Element | string)} children
 */
function svg(tag, attributes, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  for (const child of children) element.append(child);
  return element;
}

/** @param {string} date YYYY-MM-DD */
function dayLabel(date) {
  return new Intl.DateTimeFormat(locale(), { day: "numeric", month: "short", timeZone: "UTC" }).format(
    new Date(`${date}T00:00:00Z`),
  );
}

/**
 * A day's money in for its bar: its payments less its refunds, never below the axis (a day of
 * refunds only draws no bar; its title and the summary say the amount).
 * @param {DayVolume} day
 */
function netIn(day) {
  const net = satangOf(day.netAmount);
  return net > 0n ? net : 0n;
}

/**
 * What a day's "in" bar says: the net, and when there were refunds, what it is made of.
 * @param {DayVolume} day
 */
function inTitle(day) {
  const net = `${t("volumeIn")} ${formatSatang(day.netAmount)}`;
  if (day.refundsCount === 0) return net;
  return `${net} (${t("volumeGross", { payments: formatSatang(day.paymentsAmount), refunds: formatSatang(day.refundsAmount) })})`;
}

/**
 * The bars (two per day, one scale) and three day labels under them.
 * @param {DayVolume[]} days
 * @returns {Element[]}
 */
function plotElements(days) {
  const amounts = days.flatMap((day) => [netIn(day), satangOf(day.withdrawsAmount)]);
  const max = amounts.reduce((a, b) => (b > a ? b : a), 0n);
  const slot = WIDTH / days.length;
  const bar = Math.max(1, slot / 2 - 1);
  const plot = HEIGHT - AXIS;
  /** @param {bigint} amount */
  const height = (amount) => (max === 0n ? 0 : Number((amount * 1000n) / max) / 1000) * plot;
  const bars = days.flatMap((day, i) => {
    const x = i * slot;
    const inH = height(netIn(day));
    const outH = height(satangOf(day.withdrawsAmount));
    const label = dayLabel(day.date);
    return [
      svg(
        "rect",
        { class: "bar-in", x, y: plot - inH, width: bar, height: inH },
        svg("title", {}, `${label}: ${inTitle(day)}`),
      ),
      svg(
        "rect",
        { class: "bar-out", x: x + bar, y: plot - outH, width: bar, height: outH },
        svg("title", {}, `${label}: ${t("volumeOut")} ${formatSatang(day.withdrawsAmount)}`),
      ),
    ];
  });
  const ticks = [0, Math.floor(days.length / 2), days.length - 1].map((i) =>
    svg(
      "text",
      {
        x: i * slot + (i === days.length - 1 ? slot : 0),
        y: HEIGHT - 4,
        "text-anchor": i === 0 ? "start" : i === days.length - 1 ? "end" : "middle",
      },
      dayLabel(days[i]?.date ?? ""),
    ),
  );
  return [...bars, ...ticks];
}

/**
 * @param {DayVolume[]} days
 */
export function volumeChart(days) {
  /** @param {(day: DayVolume) => string} field */
  const total = (field) => String(days.reduce((sum, day) => sum + satangOf(field(day)), 0n));
  const summary = t("volumeSummary", {
    in: formatSatang(total((day) => day.paymentsAmount)),
    refunds: formatSatang(total((day) => day.refundsAmount)),
    net: formatSatang(total((day) => day.netAmount)),
    out: formatSatang(total((day) => day.withdrawsAmount)),
  });
  const chart = svg(
    "svg",
    {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: "img",
      "aria-label": summary,
      class: "volume-chart",
      "data-testid": "volume-chart",
    },
    svg("line", { x1: 0, y1: HEIGHT - AXIS, x2: WIDTH, y2: HEIGHT - AXIS, class: "axis" }),
    ...plotElements(days),
  );
  return h(
    "section",
    { class: "card", "aria-labelledby": "volume-heading" },
    h("h2", { id: "volume-heading" }, t("volumeTitle")),
    h("p", { class: "muted small" }, summary),
    chart,
    h(
      "p",
      { class: "legend small" },
      h("span", { class: "swatch swatch-in" }),
      t("volumeIn"),
      " ",
      h("span", { class: "swatch swatch-out" }),
      t("volumeOut"),
    ),
  );
}
