import { Logger } from '@nestjs/common';
import type { Projection } from '#warden/eventstore';
import type { AuditCheckpointer } from './audit-checkpointer.js';

export const AUDIT_CHECKPOINT_REACTOR = 'audit-checkpoints';

/**
 * While this reactor runs in a process (one worker: it holds the reactor's lease, or its share of
 * the consumer group), a timer signs the organizations' chain heads that moved, every
 * WARDEN_AUDIT_CHECKPOINT_SECONDS. It reacts to no event itself.
 */
export function auditCheckpointReactor(deps: { checkpointer: AuditCheckpointer; everyMs: number }): Projection {
  const logger = new Logger('audit');
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  const pass = () => {
    running ??= deps.checkpointer
      .checkpointAll()
      .catch((error: unknown) => logger.warn({ msg: 'audit checkpoint failed', error: String(error) }))
      .finally(() => (running = undefined));
  };
  return {
    name: AUDIT_CHECKPOINT_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['AuditChainCheckpointed'],
    needsPersonalData: false,
    apply: () => undefined,
    activate: () => {
      timer = setInterval(pass, deps.everyMs);
      timer.unref();
    },
    deactivate: async () => {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
