export { HashingModule } from './hashing.module.js';
export { hashImage, type ImageHashes } from './image-hashes.js';
export { ImportBankHashesCommand, type ImportReport } from './commands/import-bank-hashes/import-bank-hashes.command.js';
export { RemoveBankHashesCommand, type RemoveReport } from './commands/remove-bank-hashes/remove-bank-hashes.command.js';
export * from './contracts.js';
