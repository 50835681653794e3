import type { Clock } from '../clock.js';

/**
 * The event streams this server may hold at once (`svcadm mcp --max-streams`, default 1): the tenant's stream quota
 * is small (four on the plans seen) and belongs to the team's own tails first. A call waits its turn in order, for
 * at most its own wait; one that gets no slot in time answers `busy`.
 */
export class StreamSlots {
  private held = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly max: number,
    private readonly clock: Clock,
  ) {}

  /** `read` is given the wait left once a slot was had: a call's whole wait covers its turn and its read. */
  async run<T>(waitMs: number, signal: AbortSignal, read: (leftMs: number) => Promise<T>): Promise<T | 'busy'> {
    const start = this.clock.now();
    if (!(await this.acquire(waitMs, signal))) return 'busy';
    try {
      return await read(Math.max(0, waitMs - (this.clock.now() - start)));
    } finally {
      this.release();
    }
  }

  private acquire(waitMs: number, signal: AbortSignal): Promise<boolean> {
    if (this.held < this.max) {
      this.held++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const done = (got: boolean) => {
        timer.cancel();
        signal.removeEventListener('abort', giveUp);
        const at = this.waiting.indexOf(grant);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(got);
      };
      const grant = () => {
        this.held++;
        done(true);
      };
      const giveUp = () => done(false);
      const timer = this.clock.setTimeout(giveUp, waitMs);
      signal.addEventListener('abort', giveUp, { once: true });
      this.waiting.push(grant);
    });
  }

  private release(): void {
    this.held--;
    this.waiting.shift()?.();
  }
}
