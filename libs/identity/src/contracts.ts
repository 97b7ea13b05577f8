/**
 * Identity's framework-free contracts: the roles of dashboard users and what each may do (the
 * access table). Other modules' `domain/` code and the infrastructure's console guard import these
 * from `#warden/identity/contracts`, which reaches no Nest, database or network code (checked by
 * dependency-cruiser); `#warden/identity` re-exports them.
 */
export * from './domain/access.js';
