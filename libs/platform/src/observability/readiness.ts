/** Something the service needs to answer requests; GET /health/ready pings each of them. */
export interface ReadinessCheck {
  readonly name: string;
  ping(): Promise<void>;
}

/** The checks, provided by whoever owns the dependencies (the storage module: the stores). */
export const READINESS_CHECKS = Symbol('ReadinessChecks');
