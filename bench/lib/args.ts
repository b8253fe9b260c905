/**
 * A benchmark's command line: options given as `--name value` (or `--name=value`) and switches
 * given as `--name`.
 */
export function commandLine(argv: readonly string[]) {
  const value = (name: string): string | undefined => {
    const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
    if (i < 0) return undefined;
    return argv[i]!.includes("=") ? argv[i]!.slice(argv[i]!.indexOf("=") + 1) : argv[i + 1];
  };
  /** A number option: positive (or ≥ 0 with `zero`), whole with `whole`; `fallback` when absent. */
  const number = <F extends number | undefined>(
    name: string,
    fallback: F,
    { zero = false, whole = false }: { zero?: boolean; whole?: boolean } = {},
  ): number | F => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0 || (n === 0 && !zero) || (whole && !Number.isInteger(n))) {
      throw new Error(
        `--${name} must be a ${zero ? "" : "positive "}${whole ? "whole " : ""}number`,
      );
    }
    return n;
  };
  const flag = (name: string) => argv.includes(`--${name}`);
  return { value, number, flag };
}
