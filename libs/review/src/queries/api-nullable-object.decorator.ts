import type { Type } from '@nestjs/common';
import { ApiProperty, getSchemaPath } from '@nestjs/swagger';

/**
 * OpenAPI 3.0's `nullable` does not reach into `allOf`, so `{type: X, nullable: true}` (which Nest
 * publishes as `allOf: [X], nullable: true`) still refuses null: `anyOf` X and a null-only schema
 * (the form OpenAPI 3.0.3 recommends) lets null through, and generated clients type it `X | null`.
 */
const NULL_ONLY = { type: 'object', nullable: true, enum: [null] };

/**
 * A property that is an object of `model`, or null. The model is only referenced here, so the
 * controllers answering with it name it in `@ApiExtraModels` for the document to hold its schema.
 */
export function ApiNullableObject(model: Type, options: { description?: string } = {}): PropertyDecorator {
  return ApiProperty({ ...options, anyOf: [{ $ref: getSchemaPath(model) }, NULL_ONLY] });
}
