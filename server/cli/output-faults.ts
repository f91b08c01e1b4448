/**
 * Ordinary faults of the command's own output, handled the way Unix tools do:
 * - EPIPE (the reader went away: `querylens search … | head -1`) ends the command quietly with
 *   status 0: nobody is left to read the rest, and that is not an error;
 * - any other write error (ENOSPC from `> /dev/full`, EIO, …) is one line on stderr and status 1.
 * Without these handlers Node throws an unhandled 'error' event and prints a stack trace.
 */
const MESSAGES: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
  EFBIG: 'file too large',
  EBADF: 'output is closed',
};

/** The one line printed for an output write error (exported for the tests). */
export function outputFaultMessage(streamName: string, err: NodeJS.ErrnoException): string {
  const why = (err.code && MESSAGES[err.code]) ?? err.message;
  return `querylens: cannot write to ${streamName}: ${why}${err.code ? ` (${err.code})` : ''}`;
}

export function handleOutputFaults(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    try {
      process.stderr.write(outputFaultMessage('standard output', err) + '\n');
    } finally {
      process.exit(1);
    }
  });
  // A closed or full stderr leaves nowhere to report; stop with the status that says so.
  process.stderr.on('error', (err: NodeJS.ErrnoException) => process.exit(err.code === 'EPIPE' ? 0 : 1));
}
