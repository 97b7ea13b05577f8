export { EnforcementModule } from './enforcement.module.js';
