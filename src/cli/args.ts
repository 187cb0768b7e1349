/** `--name value` options and positional arguments. */
export function parseArgs(argv: string[]): { positional: string[]; options: Record<string, string> } {
  const positional: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--')) {
      const [key, inline] = a.slice(2).split('=', 2) as [string, string | undefined];
      if (inline !== undefined) options[key] = inline;
      else if (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) options[key] = argv[++i]!;
      else options[key] = 'true';
    } else positional.push(a);
  }
  return { positional, options };
}
