/**
 * Bytes of decoded pixels held at once in the process. A decode holds width × height × channels
 * bytes until the image is hashed: a 50-megapixel RGBA image, from a compressed file of a few
 * hundred kilobytes, is 200 MB, and the 16 media under way at once could hold several gigabytes.
 * A decode waits until its bytes fit beside those under way, oldest waiting first; one larger than
 * the whole budget runs alone.
 */
export class DecodeBudget {
  private inUse = 0;
  private running = 0;
  private readonly waiting: Array<{ bytes: number; resolve: () => void }> = [];

  constructor(readonly budgetBytes: number) {}

  /** Bytes held by decodes under way now (tests, metrics). */
  get held(): number {
    return this.inUse;
  }

  async run<T>(bytes: number, task: () => Promise<T>): Promise<T> {
    if (this.waiting.length === 0 && this.fits(bytes)) this.take(bytes);
    else await new Promise<void>((resolve) => this.waiting.push({ bytes, resolve }));
    try {
      return await task();
    } finally {
      this.inUse -= bytes;
      this.running--;
      this.admit();
    }
  }

  private fits(bytes: number): boolean {
    return this.running === 0 || this.inUse + bytes <= this.budgetBytes;
  }

  private take(bytes: number): void {
    this.inUse += bytes;
    this.running++;
  }

  /** In arrival order: a large decode is not passed over for ever by smaller ones behind it. */
  private admit(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.bytes)) {
      const next = this.waiting.shift()!;
      this.take(next.bytes);
      next.resolve();
    }
  }
}
