/**
 * Registration of `satang clock`: read, move forward and reset the merchant's sandbox test clock
 * (CONTRACT 10), with the merchant's API key like `listen` and `trigger`.
 *
 *   satang clock show            the merchant's business time and how far it runs ahead
 *   satang clock advance <secs>  moves it forward; work that falls due is done first
 *   satang clock reset           back to real time; records keep their timestamps
 */
import type { SandboxClock, Satang } from "@satang/sdk";
import { type Command, InvalidArgumentError } from "commander";
import { CLOCK_ADVANCE_SECONDS_MAX } from "../../lib/limits.ts";
import { clockLine, durationText } from "../clock.ts";
import { type CommandContext, EXIT_OK } from "../io.ts";
import { reportDevError } from "../report.ts";
import { type DevFlags, devClient, devFlags } from "./dev-options.ts";

/** A step of the test clock: whole seconds the API accepts, or a usage error (exit 2). */
export function wholeSeconds(value: string): number {
  const seconds = Number(value);
  if (!/^[0-9]+$/.test(value) || seconds < 1 || seconds > CLOCK_ADVANCE_SECONDS_MAX) {
    throw new InvalidArgumentError(`expected whole seconds from 1 to ${CLOCK_ADVANCE_SECONDS_MAX}`);
  }
  return seconds;
}

/** Adds `clock show|advance|reset` to the program. */
export function registerClockCommands(program: Command, { io, finish }: CommandContext): void {
  const group = program
    .command("clock")
    .description("read, move forward or reset the merchant's sandbox test clock");

  const run =
    <A extends unknown[]>(
      act: (satang: Satang, ...args: A) => Promise<{ clock: SandboxClock; text: string }>,
    ) =>
    // Commander calls an action with the arguments, then the options, then the command.
    async (...args: [...A, DevFlags, Command]) => {
      const flags = args.at(-2) as DevFlags;
      try {
        const { satang } = devClient(flags, io.env);
        const { clock, text } = await act(satang, ...(args.slice(0, -2) as A));
        io.stdout(flags.json ? `${JSON.stringify(clock)}\n` : `${text}\n`);
        finish({ exitCode: EXIT_OK });
      } catch (error) {
        finish({ exitCode: reportDevError(error, io, Boolean(flags.json)) });
      }
    };

  devFlags(
    group.command("show").description("the merchant's business time and how far it runs ahead"),
  ).action(
    run(async (satang) => {
      const clock = await satang.sandbox.clock();
      return { clock, text: clockLine(clock) };
    }),
  );

  devFlags(
    group
      .command("advance")
      .description(
        "move the test clock forward; payments, verifications and settlements that fall due are done",
      )
      .argument("<seconds>", `whole seconds, 1 to ${CLOCK_ADVANCE_SECONDS_MAX}`, wholeSeconds),
  ).action(
    run(async (satang, seconds: number) => {
      const clock = await satang.sandbox.advanceClock(seconds);
      return { clock, text: `Moved the test clock ${durationText(seconds)} forward.\n${clockLine(clock)}` };
    }),
  );

  devFlags(
    group
      .command("reset")
      .description("bring the test clock back to real time; records keep their timestamps"),
  ).action(
    run(async (satang) => {
      const before = await satang.sandbox.clock();
      const clock = await satang.sandbox.resetClock();
      const text =
        before.offsetSeconds === 0
          ? `The test clock was already at real time.\n${clockLine(clock)}`
          : `Reset the test clock (it was ${durationText(before.offsetSeconds)} ahead). Records made ` +
            `meanwhile keep their timestamps; open payments still expire at their expiresAt.\n${clockLine(clock)}`;
      return { clock, text };
    }),
  );
}
