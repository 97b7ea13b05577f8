export { AppealsModule } from './appeals.module.js';
