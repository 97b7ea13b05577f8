import * as z from 'zod';
import { DEFAULT_SCORE_SETTINGS, type ScoreSettings } from '../catalog.model.js';

const weight = z.number().finite().nonnegative();
const bound = z.number().finite().nonnegative();
const weights = DEFAULT_SCORE_SETTINGS.penaltyWeights;

/** `scores:` — penalty weights and the ratio thresholds of user scores; every field optional. */
export const scoresSchema: z.ZodType<ScoreSettings> = z
  .strictObject({
    penaltyWeights: z
      .strictObject({
        NONE: weight.default(weights.NONE),
        LOW: weight.default(weights.LOW),
        MEDIUM: weight.default(weights.MEDIUM),
        HIGH: weight.default(weights.HIGH),
        SEVERE: weight.default(weights.SEVERE),
      })
      .prefault({}),
    thresholds: z
      .tuple([bound, bound, bound, bound])
      .superRefine((bounds, ctx) => {
        // Scores 5 … 1 are read off in order, so a bound below its predecessor would leave a score unreachable.
        for (let i = 1; i < bounds.length; i++) {
          if (bounds[i]! <= bounds[i - 1]!) {
            ctx.addIssue({ code: 'custom', path: [i], input: bounds[i], message: `must be greater than the threshold before it (${bounds[i - 1]})` });
          }
        }
      })
      .default([...DEFAULT_SCORE_SETTINGS.thresholds]),
  })
  .prefault({});
