export { EnforcementModule } from './enforcement.module.js';
export * from './contracts.js';
