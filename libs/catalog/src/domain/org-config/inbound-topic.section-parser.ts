import * as z from 'zod';
import { DEFAULT_INBOUND_TOPIC_SETTINGS, type InboundTopicSettings } from '../catalog.model.js';

/**
 * `inboundTopic:` — whether the organization takes items from the inbound topic
 * (docs/inbound-topic.md); every field optional, off by default. Only `enabled`: the subject is
 * derived from the organization and the broker holds the publishers' credentials
 * (docs/configuration-as-code.md, "The `inboundTopic:` section").
 */
export const inboundTopicSchema: z.ZodType<InboundTopicSettings> = z
  .strictObject({ enabled: z.boolean().default(DEFAULT_INBOUND_TOPIC_SETTINGS.enabled) })
  .prefault({});
