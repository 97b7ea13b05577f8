import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { type ErrorDetail, invalidInput } from '../../../kernel/src/index.js';

/** class-validator failures as section 7 errors, one per problem, each with its JSON pointer. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: false,
    forbidUnknownValues: false,
    exceptionFactory: (errors) => invalidInput(...flatten(errors, '')),
  });
}

function flatten(errors: readonly ValidationError[], prefix: string): ErrorDetail[] {
  return errors.flatMap((e) => {
    const pointer = `${prefix}/${escapePointer(String(e.property))}`;
    const own = Object.values(e.constraints ?? {}).map((detail) => ({ title: 'Invalid request', detail, pointer }));
    return [...own, ...flatten(e.children ?? [], pointer)];
  });
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
