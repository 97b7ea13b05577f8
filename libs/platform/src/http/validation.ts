import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { type ErrorDetail, invalidInput } from '#warden/kernel';
import { DEFAULT_ERROR_TITLE, elementErrorTitleOf, errorTitleOf } from './validation-rules.decorator.js';

/**
 * The one validation of request bodies and query strings: class-validator DTOs, unknown
 * properties dropped (they were always ignored), one section 7 error per failing field.
 */
export function createValidationPipe(): ValidationPipe {
  return new RequestValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: false,
    forbidUnknownValues: false,
    stopAtFirstError: true,
    // The target names the DTO class of each failing field (for its error title); values are not
    // needed and stay out of the errors.
    validationError: { target: true, value: false },
    exceptionFactory: (errors) => invalidInput(...validationErrorDetails(errors)),
  });
}

class RequestValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // A JSON body that is an array or a scalar, `null` included: the whole body is wrong, not a
    // field of it (read as `{}`, a `null` would pass where every field is optional, and a PUT
    // would reset everything). No body at all is validated as `{}`, so each required field is reported.
    const isDto = typeof metadata.metatype === 'function' && metadata.metatype.prototype !== undefined;
    if (metadata.type === 'body' && isDto && value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw invalidInput({ title: DEFAULT_ERROR_TITLE, detail: 'expected a JSON object', pointer: '' });
    }
    const transformed: unknown = await super.transform(value, metadata);
    // No body where every field is optional: `{}` is what the client must mean, and a client
    // that lost its body (a PUT of settings) must not reset everything by accident.
    if (metadata.type === 'body' && isDto && value === undefined) {
      throw invalidInput({ title: DEFAULT_ERROR_TITLE, detail: 'a JSON object is required (send {} for the defaults)', pointer: '' });
    }
    return transformed;
  }
}

/** class-validator's error tree as one detail per failing field, each with its JSON pointer. */
export function validationErrorDetails(errors: readonly ValidationError[], prefix = '', inheritedTitle = DEFAULT_ERROR_TITLE): ErrorDetail[] {
  return errors.flatMap((e) => {
    const pointer = `${prefix}/${escapePointer(String(e.property))}`;
    const title = errorTitleOf(e.target) ?? inheritedTitle;
    const own = Object.values(e.constraints ?? {}).map((detail) => ({ title, detail, pointer }));
    const childTitle = elementErrorTitleOf(e.target, String(e.property)) ?? title;
    return [...own, ...validationErrorDetails(e.children ?? [], pointer, childTitle)];
  });
}

/** One reference token of an RFC 6901 JSON pointer. */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
