import { createRequire } from 'node:module';
import type { TransformerPackage } from '@nestjs/common/interfaces/external/transformer-package.interface.js';
import { type ClassConstructor, type ClassTransformOptions, classToPlain, TransformationType } from 'class-transformer';
import type { TransformOperationExecutor as Executor } from 'class-transformer/types/TransformOperationExecutor.js';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage.js';

// class-transformer 0.5.1 (the last release) exports neither its executor nor its metadata storage
// from the package root; both are reached through the files the root itself loads.
const require = createRequire(import.meta.url);
const { TransformOperationExecutor } = require('class-transformer/cjs/TransformOperationExecutor.js') as {
  TransformOperationExecutor: typeof Executor;
};
const { defaultMetadataStorage } = require('class-transformer/cjs/storage.js') as { defaultMetadataStorage: MetadataStorage };
const { defaultOptions } = require('class-transformer/cjs/constants/default-options.constant.js') as { defaultOptions: ClassTransformOptions };

type KeysOf = (target: unknown, object: Record<string, unknown>, isMap: boolean) => string[];

/**
 * The executor with one change: the member names of an object whose class declares nothing about
 * its members are taken as they are. class-transformer removes duplicate names by searching the
 * whole list once per name, so an object of n members cost n² steps: 240,000 members in a sign-in
 * body held the event loop for 34 s (docs/api.md, "Request limits"). Object.keys never repeats a name, so the result is
 * the same; classes with @Expose or @Exclude metadata (Warden's DTOs declare none) keep the
 * library's own path.
 */
class LinearKeysExecutor extends TransformOperationExecutor {
  constructor(options: ClassTransformOptions) {
    super(TransformationType.PLAIN_TO_CLASS, options);
  }
}

const libraryKeys = (TransformOperationExecutor.prototype as unknown as { getKeys: KeysOf }).getKeys;

Object.defineProperty(LinearKeysExecutor.prototype, 'getKeys', {
  value: function getKeys(this: { options: ClassTransformOptions }, target: unknown, object: Record<string, unknown>, isMap: boolean): string[] {
    const options = this.options;
    const plain =
      !(object instanceof Map) &&
      options.strategy !== 'excludeAll' &&
      !options.excludeExtraneousValues &&
      !options.excludePrefixes?.length &&
      (typeof target !== 'function' || !declaresMembers(target, options));
    if (plain) return Object.keys(object);
    return libraryKeys.call(this, target, object, isMap);
  },
});

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- class-transformer keys its metadata by the class as a Function
function declaresMembers(target: Function, options: ClassTransformOptions): boolean {
  if (options.ignoreDecorators) return false;
  return (
    defaultMetadataStorage.getExposedProperties(target, TransformationType.PLAIN_TO_CLASS).length > 0 ||
    defaultMetadataStorage.getExcludedProperties(target, TransformationType.PLAIN_TO_CLASS).length > 0
  );
}

/** What the validation pipe transforms request bodies and queries with (ValidationPipe's `transformerPackage`). */
export const linearClassTransformer: TransformerPackage = {
  plainToInstance<T>(cls: ClassConstructor<T>, plain: unknown, options?: ClassTransformOptions): T {
    const executor = new LinearKeysExecutor({ ...defaultOptions, ...options });
    return executor.transform(undefined, plain, cls, undefined as never, undefined as never, undefined) as T;
  },
  classToPlain,
};
