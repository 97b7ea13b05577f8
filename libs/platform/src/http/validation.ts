import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import * as classValidator from 'class-validator';
import { getMetadataStorage, type MetadataStorage, ValidationTypes } from 'class-validator';
import { type ErrorDetail, invalidInput } from '#warden/kernel';
import { escapePointer } from './json-body-limits.js';
import { linearClassTransformer } from './linear-class-transformer.js';
import { asReceivedProperties, DEFAULT_ERROR_TITLE, elementErrorTitleOf, errorTitleOf } from './validation-rules.decorator.js';

/**
 * The one validation of request bodies and query strings: class-validator DTOs, unknown
 * properties dropped (they were always ignored), one error (docs/api.md, "Errors") per failing field.
 */
export function createValidationPipe(): ValidationPipe {
  keepTargetMetadatas(getMetadataStorage());
  return new RequestValidationPipe({
    transform: true,
    // class-transformer's own is quadratic in an object's members (linear-class-transformer.ts).
    transformerPackage: linearClassTransformer,
    // Handed over rather than left to ValidationPipe's own `import('class-validator')`: the bundle
    // holds class-validator (docs/architecture.md, "Build"), and a bundled CommonJS package reached
    // by a dynamic import shows only a default export, without `validate`. Nest keeps the package
    // of the pipe made last for every pipe (a module-level variable), so no other ValidationPipe
    // or ParseArrayPipe may be made in the server without its validatorPackage too.
    validatorPackage: classValidator,
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

type DtoClass = new () => object;

const kept = new WeakSet<MetadataStorage>();

/**
 * class-validator gathers a class's rules anew on every validation, testing the class against
 * every class that has rules (`instanceof`, some hundreds here) to find what it inherits: 2 to 3 %
 * of an API process's time under load (docs/benchmarks.md, "Single-item submissions under load",
 * 2026-11-30, fifth session). A class's rules are all declared when it is defined, so the answer
 * per class is kept, and forgotten whenever a rule is added (a class defined later, a schema).
 * Calls with validation groups (Warden uses none) are answered as before.
 */
export function keepTargetMetadatas(storage: MetadataStorage): void {
  if (kept.has(storage)) return;
  kept.add(storage);
  const gather = storage.getTargetValidationMetadatas.bind(storage);
  type Rules = ReturnType<MetadataStorage['getTargetValidationMetadatas']>;
  let answers = new Map<Parameters<MetadataStorage['getTargetValidationMetadatas']>[0], Map<string, Rules>>();
  const forgetting =
    <A extends unknown[]>(add: (...args: A) => void) =>
    (...args: A): void => {
      answers = new Map();
      add(...args);
    };
  storage.addValidationMetadata = forgetting(storage.addValidationMetadata.bind(storage));
  storage.addValidationSchema = forgetting(storage.addValidationSchema.bind(storage));
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (groups !== undefined && groups.length > 0) return gather(target, schema, always, strictGroups, groups);
    const variant = `${schema}\u0000${always}\u0000${strictGroups}`;
    let byVariant = answers.get(target);
    if (byVariant === undefined) answers.set(target, (byVariant = new Map()));
    let found = byVariant.get(variant);
    if (found === undefined) byVariant.set(variant, (found = gather(target, schema, always, strictGroups, groups)));
    return found;
  };
}

class RequestValidationPipe extends ValidationPipe {
  /** Per DTO class: its properties when every one is only allowed and kept as received, else null. */
  private readonly asReceived = new Map<DtoClass, readonly string[] | null>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // A JSON body that is an array or a scalar, `null` included: the whole body is wrong, not a
    // field of it (read as `{}`, a `null` would pass where every field is optional, and a PUT
    // would reset everything). No body at all is validated as `{}`, so each required field is reported.
    const isDto = typeof metadata.metatype === 'function' && metadata.metatype.prototype !== undefined;
    if (metadata.type === 'body' && isDto && value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw invalidInput({ title: DEFAULT_ERROR_TITLE, detail: 'expected a JSON object', pointer: '' });
    }
    const received = isDto && metadata.type === 'body' && value !== undefined ? this.receivedAsIs(metadata.metatype as DtoClass) : null;
    if (received) {
      // As the slow path does first: `__proto__`, `prototype` and `constructor` keys go, at any depth.
      this.stripProtoKeys(value);
      return pick(metadata.metatype as DtoClass, value as Record<string, unknown>, received);
    }
    const transformed: unknown = await super.transform(value, metadata);
    // No body where every field is optional: `{}` is what the client must mean, and a client
    // that lost its body (a PUT of settings) must not reset everything by accident.
    if (metadata.type === 'body' && isDto && value === undefined) {
      throw invalidInput({ title: DEFAULT_ERROR_TITLE, detail: 'a JSON object is required (send {} for the defaults)', pointer: '' });
    }
    return transformed;
  }

  /**
   * Nest's own walks every value with checks meant for any object (built-in types, cycles,
   * `Object.keys` of every array): 2.5 µs a value, seconds for a body of ten million. What the
   * pipe gets is JSON, a query string or a path parameter, whose arrays have no gaps: that is
   * checked in one plain walk, and Nest's only runs when it finds otherwise.
   */
  protected override closeArrayGaps(value: unknown): void {
    // A primitive (a query value for a DTO) is plain too, but a WeakSet holds objects only.
    if (typeof value === 'object' && value !== null && isPlainData(value)) this.plain.add(value);
    else if (!isPlainData(value)) super.closeArrayGaps(value);
  }

  /** As Nest's, for plain data in one plain walk (`stripOwnProtoKeys`); anything else goes to Nest's. */
  protected override stripProtoKeys(value: unknown): void {
    // Nest's transform calls closeArrayGaps on the same value just before: its check holds.
    if (typeof value === 'object' && value !== null && this.plain.delete(value)) stripOwnProtoKeys(value, false);
    else if (!stripOwnProtoKeys(value)) super.stripProtoKeys(value);
  }

  /** Values closeArrayGaps found plain, until stripProtoKeys takes them. */
  private readonly plain = new WeakSet<object>();

  /**
   * A body checked as a whole by its handler (a report, an appeal: one answer names every
   * problem) has only `@Allow() @AsReceived()` properties. What the pipe would do for it is to
   * keep those properties and drop the others; class-transformer and class-validator took 16 µs a
   * report for that (4 % of the api's time). The same result, taken directly.
   */
  private receivedAsIs(dto: DtoClass): readonly string[] | null {
    let known = this.asReceived.get(dto);
    if (known === undefined) {
      const rules = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
      const marked = asReceivedProperties(dto);
      const allowedOnly = rules.length > 0 && rules.every((r) => r.type === ValidationTypes.WHITELIST && marked.has(r.propertyName));
      known = allowedOnly && [...marked].every((p) => rules.some((r) => r.propertyName === p)) ? [...marked] : null;
      this.asReceived.set(dto, known);
    }
    return known;
  }
}

/** Keys Nest's stripProtoKeys deletes from every object: a class's own names, prototype pollution. */
const PROTO_KEYS = ['__proto__', 'prototype', 'constructor'] as const;

/** An object as JSON.parse makes it: an array, or a plain object. */
const isPlainObject = (value: object): boolean => {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/**
 * Calls `visit` on every object and array in `value`, each once, parents before their children
 * (read after the visit, so what it deletes is not walked); stops, answering false, at the first
 * `visit` that answers false. Its own stack: a body nested deep costs a loop, not the call stack.
 */
function everyContainer(value: unknown, visit: (container: object) => boolean): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (current === null || typeof current !== 'object') continue;
    if (!visit(current)) return false;
    for (const child of Array.isArray(current) ? (current as unknown[]) : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return true;
}

/** A dense array or a plain object, as JSON.parse makes them. */
function isJsonContainer(container: object): boolean {
  if (!Array.isArray(container)) return isPlainObject(container);
  if (Object.getPrototypeOf(container) !== Array.prototype) return false;
  for (let i = 0; i < container.length; i++) if (!(i in container)) return false;
  return true;
}

/** Whether `value` holds only JSON's kinds of values (dense arrays, plain objects, primitives), at any depth. */
export const isPlainData = (value: unknown): boolean => everyContainer(value, isJsonContainer);

/**
 * Deletes the own `__proto__`, `prototype` and `constructor` keys of every object in `value`, as
 * Nest's stripProtoKeys does for plain data (an inherited one it leaves alone too), in one walk
 * that touches each value once; false, having changed nothing, when `value` is not plain data
 * (isPlainData), for Nest's to handle. The check comes first so that nothing is half done;
 * `check: false` when it was just made.
 */
export function stripOwnProtoKeys(value: unknown, check = true): boolean {
  if (check && !isPlainData(value)) return false;
  return everyContainer(value, (container) => {
    if (!Array.isArray(container)) for (const key of PROTO_KEYS) if (Object.hasOwn(container, key)) delete (container as Record<string, unknown>)[key];
    return true;
  });
}

/** A DTO instance with the listed properties the value has, as they are; the value's others dropped. */
function pick(dto: DtoClass, value: Record<string, unknown>, properties: readonly string[]): object {
  const instance = new dto() as Record<string, unknown>;
  for (const property of properties) if (Object.hasOwn(value, property)) instance[property] = value[property];
  return instance;
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

export { escapePointer };
