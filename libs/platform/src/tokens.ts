export const CLOCK = Symbol('Clock');
export const ID_GENERATOR = Symbol('IdGenerator');
