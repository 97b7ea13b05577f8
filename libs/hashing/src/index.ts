export { HashingModule } from './hashing.module.js';
export { hashImage, type ImageHashes, DEFAULT_LIMIT_INPUT_PIXELS } from './image-hashes.js';
export { ImportBankHashesCommand, type ImportReport } from './commands/import-bank-hashes/import-bank-hashes.command.js';
export { pdqToHex, pdqFromHex, hammingDistance } from './domain/pdq.js';
