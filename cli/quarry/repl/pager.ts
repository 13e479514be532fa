import { spawn } from 'node:child_process';

/**
 * Long results on a terminal go through a pager, as psql does: `$QUARRY_PAGER`, else
 * `$PAGER`, else `less -SRFX` (chops long lines instead of wrapping them, keeps colours,
 * quits at once when the text fits one screen, leaves it on the screen after). An empty
 * QUARRY_PAGER turns it off; a pager that cannot start prints the text itself.
 */
export function pagerCommand(env: NodeJS.ProcessEnv): string | undefined {
  const chosen = env['QUARRY_PAGER'] ?? env['PAGER'];
  if (chosen !== undefined) return chosen.trim() === '' ? undefined : chosen;
  return 'less -SRFX';
}

/** Whether `text` is taller than the terminal (its last line left for the prompt). */
export function needsPager(text: string, rows: number | undefined): boolean {
  if (!rows) return false;
  let lines = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines++;
  return lines >= rows - 1;
}

/**
 * Shows `text` in the pager, which takes the terminal until it exits; resolves false when the
 * pager could not run (the caller prints the text instead).
 */
export function page(text: string, command: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'] });
    let started = true;
    child.on('error', () => {
      started = false;
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(text);
    child.on('close', (code) => resolve(started && code !== 127));
  });
}
