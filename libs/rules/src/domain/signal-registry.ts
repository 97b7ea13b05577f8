import type { SignalType } from '#warden/catalog/contracts';
import type { Signal } from './evaluation.model.js';

/**
 * The signals a deployment provides. A signal type a condition names but nobody registered
 * evaluates as unknown, so new signals plug in here without touching the evaluator.
 */
export class SignalRegistry {
  private readonly signals = new Map<SignalType, Signal>();
  private revisionCount = 0;

  register(signal: Signal): this {
    if (this.signals.has(signal.type)) throw new Error(`signal ${signal.type} is already registered`);
    if (!Number.isFinite(signal.cost) || signal.cost < 0) {
      throw new Error(`signal ${signal.type} declares an invalid cost ${String(signal.cost)}`);
    }
    this.signals.set(signal.type, signal);
    this.revisionCount += 1;
    return this;
  }

  get(type: SignalType): Signal | undefined {
    return this.signals.get(type);
  }

  /** An unregistered signal costs nothing: it is decided (unknown) without any work. */
  cost(type: SignalType): number {
    return this.signals.get(type)?.cost ?? 0;
  }

  /** Changes with every registration, so plans ordered by cost know when to re-order. */
  get revision(): number {
    return this.revisionCount;
  }
}
