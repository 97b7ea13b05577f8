import 'reflect-metadata';
import { applyDecorators } from '@nestjs/common';
import { Transform, Type } from 'class-transformer';
import { ValidateBy, ValidateIf, ValidateNested, type ValidationArguments } from 'class-validator';
import { idProblem } from '#warden/kernel';

/**
 * Property rules for request DTOs. Each rule reports one problem per field with a message in the
 * house style ("expected a non-empty string"), and the global pipe stops at a field's first
 * problem, so a field never gets several errors for one wrong value.
 */

const ERROR_TITLE = Symbol('warden:error-title');
const ELEMENT_TYPE = Symbol('warden:element-type');

export const DEFAULT_ERROR_TITLE = 'Invalid request';

type DtoClass = new () => object;

/** The error title for problems found in this DTO (default: "Invalid request"). */
export function ErrorTitle(title: string): ClassDecorator {
  return (target) => Reflect.defineMetadata(ERROR_TITLE, title, target);
}

/** The ErrorTitle of an object's DTO class, when it declares one. */
export function errorTitleOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Reflect.getMetadata(ERROR_TITLE, value.constructor) as string | undefined;
}

/** The ErrorTitle of the DTO class a NestedDtoArray property holds. */
export function elementErrorTitleOf(owner: unknown, property: string): string | undefined {
  if (typeof owner !== 'object' || owner === null) return undefined;
  const type = Reflect.getMetadata(ELEMENT_TYPE, owner, property) as (() => DtoClass) | undefined;
  return type ? (Reflect.getMetadata(ERROR_TITLE, type()) as string | undefined) : undefined;
}

/**
 * Rules apply only when the property is present: unlike @IsOptional, an explicit `null` is still
 * checked (and refused by a type rule), as the hand-written checks did.
 */
export function WhenPresent(): PropertyDecorator {
  return ValidateIf((_object, value) => value !== undefined);
}

export const IsNonEmptyString = (message = 'expected a non-empty string') => rule('isNonEmptyString', (v) => typeof v === 'string' && v !== '', message);

/** A customer-given id that becomes part of a stream name or a key: the kernel's rule for ids. */
export function IsCustomerId(): PropertyDecorator {
  const problem = (v: unknown) => (typeof v === 'string' ? idProblem(v) : 'expected a non-empty string');
  return ValidateBy({
    name: 'isCustomerId',
    validator: { validate: (v) => problem(v) === undefined, defaultMessage: (args?: ValidationArguments) => problem(args?.value) ?? '' },
  });
}

export const IsBooleanValue = (message = 'expected a boolean') => rule('isBooleanValue', (v) => typeof v === 'boolean', message);

/** A JSON object: not null, not an array. Its contents are not looked at. */
export const IsJsonObject = (message = 'expected a JSON object') => rule('isJsonObject', isJsonObject, message);

/** An array with at least one element and at most `max`. */
export function IsNonEmptyArray(max = Number.MAX_SAFE_INTEGER): PropertyDecorator {
  return ValidateBy({
    name: 'isNonEmptyArray',
    validator: {
      validate: (v) => Array.isArray(v) && v.length > 0 && v.length <= max,
      defaultMessage: (args?: ValidationArguments) => {
        const v = args?.value as unknown;
        if (!Array.isArray(v)) return `${args?.property} must be an array`;
        return v.length === 0 ? `${args?.property} must not be empty` : `${args?.property} must have at most ${max} elements`;
      },
    },
  });
}

/** A whole number in [min, max]; query strings are converted to numbers by @Type(() => Number). */
export function IsIntegerInRange(min: number, max = Number.MAX_SAFE_INTEGER): PropertyDecorator {
  return ValidateBy({
    name: 'isIntegerInRange',
    validator: {
      validate: (v) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max,
      defaultMessage: (args?: ValidationArguments) => {
        const v = args?.value as unknown;
        if (!Number.isInteger(v)) return `${args?.property} must be a whole number, in decimal digits`;
        return (v as number) < min ? `${args?.property} must be at least ${min}` : `${args?.property} must be at most ${max}`;
      },
    },
  });
}

/**
 * A whole number in range, given as a query parameter: decimal digits only (a minus sign allowed, answered by the range). `@Type(() => Number)`
 * also read `1e3`, `0x10`, ` 5` and an empty value as numbers (1000, 16, 5, 0), so a typo could
 * pass as another page size; now each is the 400 of a value that is not a whole number.
 */
export function QueryInteger(min: number, max = Number.MAX_SAFE_INTEGER): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }) => (typeof value === 'string' && /^-?[0-9]{1,16}$/.test(value) ? Number(value) : value)),
    IsIntegerInRange(min, max),
  );
}

/**
 * Each element is a JSON object validated as `type`; one that is no object is reported at its own
 * index. An element that is itself an array is replaced by null: class-transformer would turn it
 * into an array of instances, which class-validator would then take for the nested objects.
 */
export function NestedDtoArray(type: () => DtoClass, message = 'expected an object'): PropertyDecorator {
  return applyDecorators(
    (target: object, key: string | symbol) => Reflect.defineMetadata(ELEMENT_TYPE, type, target, key),
    ValidateNested({ each: true, message }),
    Type(type),
    Transform(({ value, obj, key }) => {
      const received = (obj as Record<string, unknown>)[key];
      if (!Array.isArray(value) || !Array.isArray(received)) return value;
      return value.map((element: unknown, i) => (Array.isArray(received[i]) ? null : element));
    }),
  );
}

/** The properties of a DTO (and its base classes) marked AsReceived. */
const AS_RECEIVED = Symbol('warden:as-received');

/**
 * Keeps the value exactly as it was received. For free-form objects (item data), whose fields
 * another validator checks: class-transformer would otherwise rebuild them key by key.
 */
export function AsReceived(): PropertyDecorator {
  const transform = Transform(({ obj, key }) => (obj as Record<string, unknown>)[key]);
  return (target, key) => {
    transform(target, key);
    const marked = (Reflect.getMetadata(AS_RECEIVED, target) as string[] | undefined) ?? [];
    Reflect.defineMetadata(AS_RECEIVED, [...marked, String(key)], target);
  };
}

/** The properties marked AsReceived on a DTO class, its base classes' included. */
export function asReceivedProperties(dto: { prototype: object }): ReadonlySet<string> {
  return new Set((Reflect.getMetadata(AS_RECEIVED, dto.prototype) as string[] | undefined) ?? []);
}

function rule(name: string, validate: (value: unknown) => boolean, message: string): PropertyDecorator {
  return ValidateBy({ name, validator: { validate, defaultMessage: () => message } });
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
