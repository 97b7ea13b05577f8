import * as z from 'zod';
import { DEFAULT_MANAGEMENT, MANAGERS, type ManagementSettings } from '../catalog.model.js';

/**
 * `management:` — for each section the console can also edit, whether the file (default) or the
 * console is where it is changed. Any other key is refused with its path.
 */
export const managementSchema: z.ZodType<ManagementSettings> = z
  .strictObject({
    queues: z.enum(MANAGERS).default(DEFAULT_MANAGEMENT.queues),
    sso: z.enum(MANAGERS).default(DEFAULT_MANAGEMENT.sso),
  })
  .prefault({});
