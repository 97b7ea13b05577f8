import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** RGBA pixels, row-major, as libjpeg's RGBA output gives them (grey is replicated into R, G, B). */
export interface DecodedRgba {
  readonly data: Uint8ClampedArray;
  readonly width: number;
  readonly height: number;
}

// The lib settings carry no WebAssembly types (they come with the DOM lib); the few used here.
interface WasmModule {
  readonly kind: 'compiled wasm';
}
interface WasmInstance {
  readonly exports: object;
}
declare const WebAssembly: {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Instance: new (module: WasmModule, imports: object) => WasmInstance;
};

interface MozJpegDecoder {
  decode(data: Uint8Array, preserveOrientation: boolean): DecodedRgba | null;
}

interface EmscriptenOptions {
  noInitialRun: boolean;
  print(text: string): void;
  printErr(text: string): void;
  instantiateWasm(imports: object, done: (instance: WasmInstance) => void): object;
}

type DecoderFactory = (options: EmscriptenOptions) => Promise<MozJpegDecoder>;

const WASM_PATH = '@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm';
const FACTORY_PATH = '@jsquash/jpeg/codec/dec/mozjpeg_dec.js';

/**
 * libjpeg (MozJPEG's decoder, the one sharp's libvips is built with) compiled to WebAssembly,
 * called synchronously on the calling thread.
 *
 * Why next to sharp: for small images the fixed cost of a libvips pipeline (thread hand-offs,
 * GObject bookkeeping: ~0.5 ms even for a 1x1 JPEG) is most of the decode time, while this
 * decodes a 256x256 JPEG in ~0.55 ms all told, to the same pixels (tested against sharp on every
 * reference JPEG). Large images stay with sharp, whose SIMD decoder is faster there.
 *
 * libjpeg reports a fatal error by exit(), which emscripten turns into an exception thrown through
 * the wasm stack without unwinding it; an instance that has thrown is therefore dropped and the next
 * call gets a fresh one (~0.5 ms from the compiled module).
 */
export class WasmJpegDecoder {
  private compiled: Promise<WasmModule> | undefined;
  private instance: Promise<MozJpegDecoder> | undefined;

  /** The decoded pixels, or undefined when libjpeg gave up (the caller falls back to sharp). */
  async decode(bytes: Uint8Array): Promise<DecodedRgba | undefined> {
    let decoder: MozJpegDecoder;
    try {
      decoder = await this.decoder();
    } catch {
      this.instance = undefined;
      return undefined;
    }
    try {
      return decoder.decode(bytes, false) ?? undefined;
    } catch {
      this.instance = undefined;
      return undefined;
    }
  }

  private decoder(): Promise<MozJpegDecoder> {
    this.instance ??= this.instantiate();
    return this.instance;
  }

  private async instantiate(): Promise<MozJpegDecoder> {
    const require = createRequire(import.meta.url);
    this.compiled ??= readFile(require.resolve(WASM_PATH)).then((wasm) => WebAssembly.compile(wasm));
    const compiled = await this.compiled;
    const factory = ((await import(FACTORY_PATH)) as unknown as { default: DecoderFactory }).default;
    return factory({
      noInitialRun: true,
      // libjpeg's warnings ("Premature end of JPEG file") go to the caller's outcome, not stdout.
      print: () => undefined,
      printErr: () => undefined,
      instantiateWasm: (imports, done) => {
        const instance = new WebAssembly.Instance(compiled, imports);
        done(instance);
        return instance.exports;
      },
    });
  }
}
