export interface RateLimitDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

/**
 * A token bucket holding `rate` tokens and refilling `rate` per second. Every interface response carries its
 * state as `X-RateLimit-Limit/Remaining/Reset` (reset in UNIX seconds); a refused request also gets `Retry-After`.
 * A rate of 0 means unlimited (the headers still report a large bucket).
 */
export class RateLimiter {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private rate: number,
    private readonly now: () => number,
  ) {
    this.tokens = rate;
    this.updatedAt = now();
  }

  setRate(rate: number): void {
    this.rate = rate;
    this.tokens = rate;
    this.updatedAt = this.now();
  }

  take(): RateLimitDecision {
    const now = this.now();
    if (this.rate <= 0) {
      return {
        allowed: true,
        headers: {
          'X-RateLimit-Limit': '1000000',
          'X-RateLimit-Remaining': '1000000',
          'X-RateLimit-Reset': String(Math.ceil(now / 1000)),
        },
      };
    }
    this.tokens = Math.min(this.rate, this.tokens + ((now - this.updatedAt) / 1000) * this.rate);
    this.updatedAt = now;
    const allowed = this.tokens >= 1;
    if (allowed) this.tokens -= 1;
    const msToFull = ((this.rate - this.tokens) / this.rate) * 1000;
    const headers: Record<string, string> = {
      'X-RateLimit-Limit': String(this.rate),
      'X-RateLimit-Remaining': String(Math.floor(this.tokens)),
      'X-RateLimit-Reset': String(Math.ceil((now + msToFull) / 1000)),
    };
    if (!allowed) headers['Retry-After'] = String(Math.max(1, Math.ceil((1 - this.tokens) / this.rate)));
    return { allowed, headers };
  }
}
